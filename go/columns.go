package karmem

import (
	"encoding/binary"
	"math"
)

// Column-wise checks of SoA arrays (format.md §11, RATIONALE R5.9).
//
// Generated validators walk an SoA array one column at a time: all array
// references of a column, then what they point to. The references of a
// column are adjacent, so the checks of one do not wait on the previous
// one, and every rule is a flag folded into one result for the whole
// column, with one budget charge. The functions here accept exactly what
// the element-wise checks (Array, UTF8, Soa) accept and charge the same
// budget; only which fault is reported first, when a message has several,
// can differ (the column order instead of the element order).

// b2u is 1 for true and 0 for false, without a branch (the compiler turns
// it into a SETcc/CMOV): the folded checks OR and AND these.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// columnRefs returns the n array references (three words each) of the
// column at col, or nil if the column does not fit the message.
func (r *Reader) columnRefs(col, n uint32) []uint32 {
	if n == 0 || n > math.MaxUint32/3 {
		return nil
	}
	return Slice[uint32](r, col, 3*n)
}

// ArrayColumn checks a column of n array references at col — a column
// of an SoA array that Soa placed inside the message — as Array checks
// each of them (elemSize and limit likewise), and charges the budget once
// with their sum. When a reference is bad, the column is walked again
// element by element to report the first bad one with Array's error.
func (v *Validator) ArrayColumn(col, n, elemSize, limit uint32) error {
	if n == 0 {
		return nil
	}
	refs := v.r.columnRefs(col, n)
	if len(refs) == 0 {
		return errAt(ErrMalformedArray, col, 0)
	}
	size := uint64(len(v.r.mem))
	es := uint64(elemSize)
	align := NaturalAlign(elemSize)
	var bad uint32
	// Each term is at most max(2^64−2^33+1, 1) on its own; a well-formed
	// reference's is at most the message size, so for an accepted column
	// the sum (≤ n × 2^32 < 2^62) cannot wrap. A wrapped sum of a refused
	// column is never used.
	var cost uint64
	for len(refs) >= 3 {
		offset, length, capacity := refs[0], refs[1], refs[2]
		refs = refs[3:]
		// (2^32−1)² + 2^32 < 2^64: neither the product nor the end wraps.
		bytes := uint64(capacity) * es
		placed := b2u(offset != 0) & b2u(offset%align == 0) & b2u(uint64(offset)+bytes <= size)
		bad |= b2u(length > capacity) | b2u(length > limit) | b2u(capacity != 0)&^placed
		cost += bytes + uint64(b2u(bytes == 0)) // Charge's minimum of 1
	}
	if bad != 0 {
		return v.firstBadArray(col, n, elemSize, limit)
	}
	return v.Charge(cost)
}

// firstBadArray is the error Array gives for the first bad reference of a
// column that ArrayColumn refused.
func (v *Validator) firstBadArray(col, n, elemSize, limit uint32) error {
	// A copy with an unlimited budget: only the shape is in question.
	w := Validator{r: v.r, budget: math.MaxUint64, depth: v.depth}
	for i := range n {
		if _, err := w.Array(col+12*i, elemSize, limit); err != nil {
			return err
		}
	}
	return errAt(ErrMalformedArray, col, 0)
}

// ColumnRef is element i of a column of array references that passed
// ArrayColumn: what Array returns for it.
func (v *Validator) ColumnRef(col, i uint32) ArrayRef {
	return v.r.arrayRef(col + 12*i)
}

// UTF8Column checks the UTF-8 text of each of the n arrays of a column
// that passed ArrayColumn (a []char field of an SoA element) with UTF8,
// which recognises ASCII eight bytes at a time.
func (v *Validator) UTF8Column(col, n uint32) error {
	refs := v.r.columnRefs(col, n)
	for len(refs) >= 3 {
		offset, length := refs[0], refs[1]
		refs = refs[3:]
		if err := v.UTF8(offset, length); err != nil {
			return err
		}
	}
	return nil
}

// asciiWords reports whether the n bytes at offset are ASCII, reading
// whole 8-byte words where they lie inside the message; the bytes past n
// in the last word are masked off, whatever they hold. Text starts at any
// offset (format.md §5: its alignment is 1), so the word holding its last
// byte may run past the end of the message: those bytes are then read one
// by one. False also when the text does not fit the message (the caller
// then looks at the exact bytes).
func (r *Reader) asciiWords(offset, n uint32) bool {
	end := uint64(offset) + uint64(n)
	if end > uint64(len(r.mem)) {
		return false
	}
	b := r.mem[offset:end]
	var high uint64
	for len(b) >= 8 {
		high |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	if k := len(b); k != 0 {
		if at := end - uint64(k); at+8 <= uint64(len(r.mem)) {
			high |= binary.LittleEndian.Uint64(r.mem[at:]) & (1<<(8*k) - 1)
		} else {
			// The word would cross the end of the message.
			for _, c := range b {
				high |= uint64(c)
			}
		}
	}
	return high&0x8080808080808080 == 0
}

// sameDirectory reports whether the directory at dir (well formed or not)
// lists exactly wanted's hashes and sizes, in order: the one a writer of
// the reader's schema version writes. One branch for the whole directory.
func (r *Reader) sameDirectory(dir uint32, wanted []Column) bool {
	n := uint32(len(wanted))
	if dir == 0 || dir%directoryAlign != 0 {
		return false
	}
	words := Slice[uint32](r, dir, 2*n+1)
	if uint32(len(words)) != 2*n+1 || words[0] != n {
		return false
	}
	hashes, sizes := words[1:1+n], words[1+n:]
	good := uint32(1)
	for j, c := range wanted {
		good &= b2u(hashes[j] == c.Hash) & b2u(sizes[j] == c.Size)
	}
	return good != 0
}

// sameLayout lays out the columns of the SoA block at block of the given
// capacity with wanted's sizes (a directory sameDirectory accepted) into
// out; false if the block ends past the message.
func (r *Reader) sameLayout(block, capacity uint32, wanted []Column, out []uint32) bool {
	limit := uint64(len(r.mem))
	layout := newColumnLayout(block, capacity)
	for j, c := range wanted {
		col := layout.next(c.Size)
		if col > limit {
			return false
		}
		if out != nil {
			out[j] = uint32(col)
		}
	}
	return layout.pos <= limit
}

// columnsWidth is the bytes of one element over all wanted columns.
func columnsWidth(wanted []Column) uint64 {
	var width uint64
	for _, c := range wanted {
		width += uint64(c.Size)
	}
	return width
}

// elementWidth is what one element of an SoA array with these columns
// costs the traversal budget: its width, at least 1 (format.md §10).
func elementWidth(wanted []Column) uint64 {
	return max(columnsWidth(wanted), 1)
}

// zeroWidthColumns counts the columns whose Charge is its minimum of 1
// (none in generated schemas: a column holds at least one byte).
func zeroWidthColumns(wanted []Column) uint64 {
	var n uint64
	for _, c := range wanted {
		n += uint64(b2u(c.Size == 0))
	}
	return n
}

// SoaColumn checks the SoA blocks and directories of the n arrays of a
// column that passed ArrayColumn (wanted as in Soa), for element types
// whose columns need no checks beyond the directory (Vec3: only numbers).
// A directory of the reader's schema version is compared with wanted once
// (the arrays of a column share it, format.md §5.3), each block's layout
// checked, and all of them charged at once; any other goes through Soa.
// The budget charged is Soa's.
func (v *Validator) SoaColumn(col, n uint32, wanted []Column) error {
	r := v.r
	entries := uint32(len(wanted))
	fast := entries <= r.limits.MaxDirectoryEntries
	charge := directoryCharge(uint64(entries))
	// Soa's charge for capacity c: the directory + Σ max(c × size, 1), or
	// the directory + c without columns.
	width, zeros := elementWidth(wanted), zeroWidthColumns(wanted)
	// Where the slow path (Soa) puts the columns, discarded; on the stack
	// for all but the widest elements.
	var buf [16]uint32
	out := buf[:]
	if len(wanted) > len(buf) {
		out = make([]uint32, len(wanted))
	}
	// The directory last found to be the same-version one.
	var known uint32
	var cost uint64
	refs := r.columnRefs(col, n)
	for len(refs) >= 3 {
		offset, length, capacity := refs[0], refs[1], refs[2]
		refs = refs[3:]
		if capacity == 0 {
			continue
		}
		good := false
		if fast && offset%directoryAlign == 0 && r.fits(offset, 4) {
			dir := r.Uint32(offset)
			if (dir != 0 && dir == known) || r.sameDirectory(dir, wanted) {
				good = r.sameLayout(offset, capacity, wanted, nil)
				if good {
					known = dir
				}
			}
		}
		if good {
			cost += charge + uint64(capacity)*width + zeros
			// Each term is below 2^43 (≤ 1 024 columns, each ≤ the message
			// size); stopping once the sum passes what is left keeps it from
			// wrapping, and the final charge would fail anyway.
			if cost > v.budget {
				return ErrBudgetExceeded
			}
			continue
		}
		if err := v.Soa(ArrayRef{Offset: offset, Len: length, Cap: capacity}, wanted, out[:len(wanted)]); err != nil {
			return err
		}
	}
	if cost == 0 {
		return nil
	}
	return v.Charge(cost)
}

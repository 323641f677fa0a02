package karmem

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Trusted reads a message that a generated validator accepted, without the
// checks of format.md §4–§6 on every access (RATIONALE R5.11): where a
// Reader tests that a table, an array, a column or a scalar is inside the
// message and well formed before it loads it, a Trusted relies on the
// validation having done so once for the whole message. What the format
// says about valid messages still holds: absent tables, fields beyond a
// table's used size (an older writer), absent SoA columns and indices past
// an array's length read as zero, as through a Reader.
//
// A Trusted is obtained only by validating: the generated Trust<T>
// functions, or Trust with a generated Validate<T>. The zero Trusted is an
// empty message. It is a small value (the message as a slice), passed by
// value to the methods of the generated Trusted viewers, so a loop keeps it
// in registers.
//
// The buffer must not change after validation while a Trusted (or a view
// read through it) is in use. If it does, reads stay memory-safe: every
// load goes through Go's own bounds check on the message slice (cut to the
// validated size), so a changed message gives wrong values or a panic
// (index out of range), never a read outside the message, and never a
// misaligned native slice. Only Reader promises "malformed reads as zero,
// never panics".
type Trusted struct {
	mem []byte
}

// Trust runs validate — a generated Validate<T> function — on r and, when
// it accepts the message, returns a Trusted over it and what validate
// returned (the checked root viewer). When validate fails, Trust returns
// the zero Trusted and the error. The generated Trust<T> functions call it
// and return the trusted root viewer.
//
// A function that accepts messages it did not check gives a Trusted that
// may panic on them; Go's memory safety is kept either way (see Trusted).
func Trust[V any](r *Reader, validate func(*Reader) (V, error)) (Trusted, V, error) {
	root, err := validate(r)
	if err != nil {
		var zero V
		return Trusted{}, zero, err
	}
	return Trusted{mem: r.mem}, root, nil
}

// Bytes returns the message (header included).
func (t Trusted) Bytes() []byte { return t.mem }

// Size is the message size in bytes.
func (t Trusted) Size() uint32 { return uint32(len(t.mem)) }

// The loads index the message with Go's bounds check and nothing else:
// the offset is widened first, so offset+size cannot wrap and the check is
// a single compare.

func (t Trusted) Uint8(offset uint32) uint8 { return t.mem[offset] }

func (t Trusted) Uint16(offset uint32) uint16 {
	i := uint(offset)
	return binary.LittleEndian.Uint16(t.mem[i : i+2])
}

func (t Trusted) Uint32(offset uint32) uint32 {
	i := uint(offset)
	return binary.LittleEndian.Uint32(t.mem[i : i+4])
}

func (t Trusted) Uint64(offset uint32) uint64 {
	i := uint(offset)
	return binary.LittleEndian.Uint64(t.mem[i : i+8])
}

func (t Trusted) Int8(offset uint32) int8       { return int8(t.Uint8(offset)) }
func (t Trusted) Int16(offset uint32) int16     { return int16(t.Uint16(offset)) }
func (t Trusted) Int32(offset uint32) int32     { return int32(t.Uint32(offset)) }
func (t Trusted) Int64(offset uint32) int64     { return int64(t.Uint64(offset)) }
func (t Trusted) Bool(offset uint32) bool       { return t.Uint8(offset) != 0 }
func (t Trusted) Float32(offset uint32) float32 { return math.Float32frombits(t.Uint32(offset)) }
func (t Trusted) Float64(offset uint32) float64 { return math.Float64frombits(t.Uint64(offset)) }

// Table returns the table at offset; offset 0 (absent) gives the zero
// Table. A validated message has no malformed table to refuse.
func (t Trusted) Table(offset uint32) Table {
	if offset == 0 {
		return Table{}
	}
	header := t.Uint32(offset)
	return Table{Offset: offset, Used: (header&0x1FFFFFFF)*8 - header>>29}
}

// Array returns the array reference stored at at; a zero capacity gives
// the empty ArrayRef, as Reader.Array does.
func (t Trusted) Array(at uint32) ArrayRef {
	i := uint(at)
	return LoadArrayRef(t.mem[i : i+12])
}

// TrustedSlice is Slice for a Trusted: n values of type T at offset as a
// native slice over the message (no copy), nil for offset 0 or n 0.
func TrustedSlice[T Scalar](t Trusted, offset, n uint32) []T {
	if offset == 0 || n == 0 {
		return nil
	}
	var zero T
	// 64-bit arithmetic: the end cannot wrap on 32-bit targets either.
	i := uint64(offset)
	b := t.mem[i : i+uint64(n)*uint64(unsafe.Sizeof(zero))]
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(zero) != 0 {
		// Only a message changed after validation gets here.
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// ArrayBytes returns the bytes of an array of u8 (a view, no copy).
func (t Trusted) ArrayBytes(a ArrayRef) []byte {
	return TrustedSlice[byte](t, a.Offset, a.Len)
}

// String returns UTF-8 text as a string that aliases the message: the
// validator checked the encoding, so it is not checked again.
func (t Trusted) String(a ArrayRef) string {
	b := TrustedSlice[byte](t, a.Offset, a.Len)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// SoaColumns resolves SoA columns as Reader.SoaColumns does, over a block
// and directory the validator found well formed (format.md §5.3): out[j]
// receives the offset of column wanted[j], or 0 when it is absent.
func (t Trusted) SoaColumns(a ArrayRef, wanted []Column, out []uint32) {
	clear(out)
	if a.Cap == 0 {
		return
	}
	dir := uint64(t.Uint32(a.Offset))
	n := uint64(t.Uint32(uint32(dir)))
	// The hashes, then the value sizes: one slice, one bounds check.
	entries := t.mem[dir+4 : dir+4+8*n]
	layout := newColumnLayout(a.Offset, a.Cap)
	for k := range int(n) {
		hash, size := directoryEntry(entries, int(n), k)
		col := layout.next(size)
		// A validated directory lists each known column once, with the
		// reader's size, and its block lies inside the message.
		if j := wantedIndex(wanted, k, hash); j >= 0 {
			out[j] = uint32(col)
		}
	}
}

// UnionColumns returns the tag and offset columns of an SoA array of
// unions (format.md §7.1); ok is false for an empty array.
func (t Trusted) UnionColumns(a ArrayRef, tagSize uint32) (tags, offsets uint32, ok bool) {
	if a.Cap == 0 {
		return 0, 0, false
	}
	return a.Offset, uint32(unionOffsetColumn(a, tagSize)), true
}

// BunchEntry returns the array of one variant in a bunch table (format.md
// §7.1); empty if the variant has no entry.
func (t Trusted) BunchEntry(a ArrayRef, tag uint32) ArrayRef {
	if a.Cap == 0 {
		return ArrayRef{}
	}
	// The whole table at once: one bounds check, and a loop bounded by
	// the message even if it changed.
	at := uint64(a.Offset)
	table := t.mem[at : at+16*(uint64(t.Uint32(a.Offset))+1)]
	for e := 16; e < len(table); e += 16 {
		if binary.LittleEndian.Uint32(table[e:]) == tag {
			return t.Array(a.Offset + uint32(e) + 4)
		}
	}
	return ArrayRef{}
}

package karmem

import (
	"math"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Validator is the state of one validation or object-decoding pass: the
// reader, the remaining traversal budget and the nesting depth
// (format.md §10–§11). Generated Validate and ReadAsRoot functions drive
// it; it lives on the caller's stack.
type Validator struct {
	r      *Reader
	budget uint64
	depth  uint32
}

// NewValidator starts a pass over r with a budget of
// TraversalBudgetFactor × message size bytes.
func NewValidator(r *Reader) Validator {
	return Validator{r: r, budget: uint64(r.Size()) * uint64(r.limits.TraversalBudgetFactor)}
}

// Reader returns the reader being validated or decoded.
func (v *Validator) Reader() *Reader { return v.r }

// Charge accounts for n bytes visited (or allocated); it fails once the
// budget is spent, which bounds the work of messages that reuse offsets.
func (v *Validator) Charge(n uint64) error {
	// At least one unit per object, so empty objects count too.
	n = max(n, 1)
	if n > v.budget {
		return ErrBudgetExceeded
	}
	v.budget -= n
	return nil
}

// ChargeEach charges units for each of n elements, nothing when the product
// is 0; a product past 2^64 − 1 is charged as that, and refused. Generated
// code charges what the zero values of n elements hold with it (format.md
// §10).
func (v *Validator) ChargeEach(n uint32, units uint64) error {
	hi, lo := bits.Mul64(uint64(n), units)
	if hi != 0 {
		lo = math.MaxUint64
	}
	if lo == 0 {
		return nil
	}
	return v.Charge(lo)
}

// Enter descends one nesting level; it fails past Limits.MaxDepth.
func (v *Validator) Enter() error {
	v.depth++
	if v.depth > v.r.limits.MaxDepth {
		return ErrDepthExceeded
	}
	return nil
}

// Leave ascends one nesting level.
func (v *Validator) Leave() { v.depth-- }

// Table checks the table at offset, which must be well formed, of a type
// whose full size (the table a writer of the reader's schema writes) is
// full. Offset 0 is malformed too (format.md §4): a writer always writes a
// table. It is charged max(total × 8, full) (format.md §10): a decoder
// builds every field of the reader's schema, present in the message or not.
func (v *Validator) Table(offset, full uint32) (Table, error) {
	t := v.r.Table(offset)
	if t == (Table{}) {
		return t, errAt(ErrMalformedTable, offset, 0)
	}
	header := v.r.Uint32(offset)
	if err := v.Charge(max(uint64(header&0x1FFFFFFF)*8, uint64(full))); err != nil {
		return t, err
	}
	return t, nil
}

// Root checks the root table, which must be present (full as for Table).
func (v *Validator) Root(full uint32) (Table, error) { return v.Table(HeaderSize, full) }

// Array checks the array reference at at, which must be well formed.
func (v *Validator) Array(at, elemSize, limit uint32) (ArrayRef, error) {
	a := v.r.arrayRef(at)
	if a.Len > limit {
		return ArrayRef{}, errAt(ErrLimitExceeded, at, uint64(a.Len))
	}
	if !arrayOK(a, elemSize, limit, len(v.r.mem)) {
		return ArrayRef{}, errAt(ErrMalformedArray, at, 0)
	}
	if err := v.Charge(uint64(a.Cap) * uint64(elemSize)); err != nil {
		return ArrayRef{}, err
	}
	return a, nil
}

// FieldArray checks an array field of a table (absent = empty, valid).
func (v *Validator) FieldArray(t Table, offset, elemSize, limit uint32) (ArrayRef, error) {
	if !t.Has(offset, 12) {
		return ArrayRef{}, nil
	}
	return v.Array(t.Offset+offset, elemSize, limit)
}

// Soa checks an SoA directory and resolves the known columns into out (as
// Reader.SoaColumns). A known column that is present must be well formed;
// absent columns are valid (older writers).
func (v *Validator) Soa(a ArrayRef, wanted []Column, out []uint32) error {
	return v.soa(a, wanted, out, true)
}

// soa is Soa; fast selects the same-version path (tests compare it with
// the scan alone).
func (v *Validator) soa(a ArrayRef, wanted []Column, out []uint32, fast bool) error {
	clear(out)
	if a.Cap == 0 {
		return nil
	}
	r := v.r
	dir, n, ok := r.directory(a)
	if !ok {
		if a.Offset%directoryAlign == 0 && r.fits(a.Offset, 4) {
			if d := r.Uint32(a.Offset); d != 0 && r.Uint32(d) > r.limits.MaxDirectoryEntries {
				return errAt(ErrDirectoryTooLarge, d, uint64(r.Uint32(d)))
			}
		}
		return errAt(ErrMalformedArray, a.Offset, 0)
	}
	if err := v.Charge(directoryCharge(uint64(n))); err != nil {
		return err
	}
	// A directory of the reader's own schema version (the common case):
	// the columns laid out with the known sizes, charged at once. Anything
	// else, or a block past the end, goes through the scan below, which
	// names the error.
	if fast && n == uint32(len(wanted)) && r.sameDirectory(dir, wanted) && r.sameLayout(a.Offset, a.Cap, wanted, out) {
		return v.Charge(uint64(a.Cap)*elementWidth(wanted) + zeroWidthColumns(wanted))
	}
	clear(out)
	// Two entries for one known column are ambiguous, and one with another
	// value size would be misread (format.md §5.3).
	if fits, strict := r.findColumns(a, dir, n, wanted, out); !fits || !strict {
		clear(out)
		return errAt(ErrMalformedArray, a.Offset, 0)
	}
	// An element is at least one unit, also without columns (an empty
	// table): a huge capacity of nothing is no free work (format.md §10).
	if len(wanted) == 0 {
		return v.Charge(uint64(a.Cap))
	}
	// Every known column is charged, present or not: absent columns read
	// as zeros, and decoding allocates them, so a validated message always
	// decodes within the same budget (format.md §10).
	for j := range wanted {
		if err := v.Charge(uint64(a.Cap) * uint64(wanted[j].Size)); err != nil {
			return err
		}
	}
	return nil
}

// SoaColumns resolves the known columns of an SoA array for decoding, as
// Reader.SoaColumns, and charges the directory each time it is read
// (format.md §10): a directory shared by many arrays costs each of them.
func (v *Validator) SoaColumns(a ArrayRef, wanted []Column, out []uint32) error {
	clear(out)
	dir, n, ok := v.r.directory(a)
	if !ok {
		return nil
	}
	v.r.resolveColumns(a, dir, n, wanted, out)
	return v.Charge(directoryCharge(uint64(n)))
}

// UTF8 checks that n bytes at offset are valid UTF-8. ASCII, the common
// case, is recognised eight bytes at a time (asciiWords); anything else
// goes through utf8.Valid.
func (v *Validator) UTF8(offset, n uint32) error {
	if v.r.asciiWords(offset, n) {
		return nil
	}
	text := Slice[byte](v.r, offset, n)
	// Callers check the array first; text outside the message is refused
	// all the same, not read as empty and valid.
	if uint32(len(text)) != n {
		return errAt(ErrMalformedArray, offset, 0)
	}
	if !utf8.Valid(text) {
		return errAt(ErrInvalidText, offset, 0)
	}
	return nil
}

// UTF16 checks that n code units at offset are valid UTF-16 (no unpaired
// surrogates).
func (v *Validator) UTF16(offset, n uint32) error {
	units := Slice[uint16](v.r, offset, n)
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if !utf16.IsSurrogate(u) {
			continue
		}
		if u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
			i++
			continue
		}
		return errAt(ErrInvalidText, offset, uint64(i))
	}
	return nil
}

// BoolAt checks that the byte at offset is 0 or 1.
func (v *Validator) BoolAt(offset uint32) error {
	if v.r.Uint8(offset) > 1 {
		return errAt(ErrInvalidBool, offset, 0)
	}
	return nil
}

// Bools checks n bool bytes at offset.
func (v *Validator) Bools(offset, n uint32) error {
	for i, b := range Slice[byte](v.r, offset, n) {
		if b > 1 {
			return errAt(ErrInvalidBool, offset+uint32(i), 0)
		}
	}
	return nil
}

// UnionColumns checks the tag and offset columns of an SoA array of unions;
// ok is false for an empty array.
func (v *Validator) UnionColumns(a ArrayRef, tagSize uint32) (tags, offsets uint32, ok bool, err error) {
	if a.Cap == 0 {
		return 0, 0, false, nil
	}
	tags, offsets, ok = v.r.UnionColumns(a, tagSize)
	if !ok {
		return 0, 0, false, errAt(ErrMalformedArray, a.Offset, 0)
	}
	if err := v.Charge(uint64(a.Cap) * (uint64(tagSize) + 4)); err != nil {
		return 0, 0, false, err
	}
	return tags, offsets, true, nil
}

// Bunch checks a bunch table (its size, that its entries' lengths add up
// to the array's length, and that no tag of known — the variants of the
// reader's schema — has two entries) and returns its number of entries;
// entry e (1-based) starts at a.Offset + 16×e with its u32 tag, followed by
// an array reference. A variant of known without an entry costs one unit,
// as a decoder charges its empty array (format.md §10).
func (v *Validator) Bunch(a ArrayRef, known []uint32) (uint32, error) {
	if a.Cap == 0 {
		return 0, v.chargeMissing(len(known))
	}
	r := v.r
	k := r.Uint32(a.Offset)
	if k > r.limits.MaxDirectoryEntries {
		return 0, errAt(ErrDirectoryTooLarge, a.Offset, uint64(k))
	}
	block := bunchTableSize(uint64(k))
	if a.Offset%bunchTableAlign != 0 || !r.fits(a.Offset, block) {
		return 0, errAt(ErrMalformedArray, a.Offset, 0)
	}
	if err := v.Charge(block); err != nil {
		return 0, err
	}
	// The array's length is the number of stored elements: the entries'
	// lengths, unknown tags included, must add up to it (format.md §7.1).
	// Summed in uint64, which k < 2^32 values below 2^32 cannot overflow (a
	// wrapping uint32 sum could be made to match).
	var total uint64
	for e := uint32(1); e <= k; e++ {
		total += uint64(r.Uint32(a.Offset + 16*e + 8))
	}
	if total != uint64(a.Len) {
		return 0, errAt(ErrMalformedArray, a.Offset, 0)
	}
	// A known variant with two entries would be ambiguous: which one a
	// reader uses decides what the array holds (format.md §7.1). One count
	// per known tag: variants × entries reads, no more than the decoder's
	// look-up of each variant costs; unknown tags may repeat (no reader of
	// this schema looks at them).
	missing := 0
	for _, tag := range known {
		n := 0
		for e := uint32(1); e <= k; e++ {
			if r.Uint32(a.Offset+16*e) == tag {
				n++
			}
		}
		if n > 1 {
			return 0, errAt(ErrMalformedArray, a.Offset, 0)
		}
		if n == 0 {
			missing++
		}
	}
	return k, v.chargeMissing(missing)
}

// chargeMissing charges one unit per variant of a bunch array without an
// entry, nothing when there is none.
func (v *Validator) chargeMissing(missing int) error {
	if missing == 0 {
		return nil
	}
	return v.Charge(uint64(missing))
}

// ChargeBunch charges the bunch table of a once, as a decoder reads it
// (format.md §10): 16 × (k + 1) for a well-formed table of k entries,
// nothing for an empty or malformed one (whose variants read as empty).
// Generated decoders call it before they look up the variants.
func (v *Validator) ChargeBunch(a ArrayRef) error {
	k, ok := v.r.bunchEntries(a)
	if !ok {
		return nil
	}
	return v.Charge(bunchTableSize(uint64(k)))
}

// InvalidUnion is the error of a union slot at offset whose tag has no
// valid value.
func InvalidUnion(offset, tag uint32) error {
	return errAt(ErrInvalidUnion, offset, uint64(tag))
}

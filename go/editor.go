package karmem

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Editor updates a message in place: scalars of present table fields, array
// elements, and array lengths within capacity (format.md §5: the room
// between length and capacity). Every write is checked like a read; a write
// that does not fit fails instead of touching other bytes.
type Editor struct {
	Reader
}

// NewEditor opens buf (8-byte aligned, as for NewReader) for updates.
func NewEditor(buf []byte) (*Editor, error) {
	e := &Editor{Reader: Reader{limits: DefaultLimits}}
	if err := e.Reader.Reset(buf); err != nil {
		return nil, err
	}
	return e, nil
}

// slot returns the n bytes of field offset of table t, or nil when the
// field is not present in the message (an older message cannot grow in
// place).
func (e *Editor) slot(t Table, offset, n uint32) []byte {
	if t.Used == 0 || !t.Has(offset, n) || !e.fits(t.Offset+offset, uint64(n)) {
		return nil
	}
	o := t.Offset + offset
	return e.mem[o : o+n]
}

func (e *Editor) fieldErr(t Table) error { return errAt(ErrMalformedTable, t.Offset, 0) }

// SetUint8 sets a u8 field of table t. The other Set methods work the same
// way for their types.
func (e *Editor) SetUint8(t Table, offset uint32, v uint8) error {
	b := e.slot(t, offset, 1)
	if b == nil {
		return e.fieldErr(t)
	}
	b[0] = v
	return nil
}

func (e *Editor) SetUint16(t Table, offset uint32, v uint16) error {
	b := e.slot(t, offset, 2)
	if b == nil {
		return e.fieldErr(t)
	}
	binary.LittleEndian.PutUint16(b, v)
	return nil
}

func (e *Editor) SetUint32(t Table, offset uint32, v uint32) error {
	b := e.slot(t, offset, 4)
	if b == nil {
		return e.fieldErr(t)
	}
	binary.LittleEndian.PutUint32(b, v)
	return nil
}

func (e *Editor) SetUint64(t Table, offset uint32, v uint64) error {
	b := e.slot(t, offset, 8)
	if b == nil {
		return e.fieldErr(t)
	}
	binary.LittleEndian.PutUint64(b, v)
	return nil
}

func (e *Editor) SetInt8(t Table, offset uint32, v int8) error {
	return e.SetUint8(t, offset, uint8(v))
}
func (e *Editor) SetInt16(t Table, offset uint32, v int16) error {
	return e.SetUint16(t, offset, uint16(v))
}
func (e *Editor) SetInt32(t Table, offset uint32, v int32) error {
	return e.SetUint32(t, offset, uint32(v))
}
func (e *Editor) SetInt64(t Table, offset uint32, v int64) error {
	return e.SetUint64(t, offset, uint64(v))
}
func (e *Editor) SetFloat32(t Table, offset uint32, v float32) error {
	return e.SetUint32(t, offset, math.Float32bits(v))
}
func (e *Editor) SetFloat64(t Table, offset uint32, v float64) error {
	return e.SetUint64(t, offset, math.Float64bits(v))
}
func (e *Editor) SetBool(t Table, offset uint32, v bool) error {
	return e.SetUint8(t, offset, BoolByte(v))
}

// EditSlice returns the elements of the plain array whose reference is at
// at as a writable native slice over the message: length = the array's
// length, capacity = its capacity, so appending within the capacity writes
// into the message (publish the new length with SetLen). A malformed array
// gives nil.
func EditSlice[T Scalar](e *Editor, at uint32) []T {
	var zero T
	a := e.Array(at, uint32(unsafe.Sizeof(zero)), NoLimit)
	return Slice[T](&e.Reader, a.Offset, a.Cap)[:a.Len]
}

// SetLen changes the length of the array at at within its capacity;
// elements dropped by shrinking are zeroed (unused capacity is always zero,
// format.md §5).
func (e *Editor) SetLen(at, elemSize, length uint32) error {
	a := e.Array(at, elemSize, NoLimit)
	if !e.fits(at, 12) || (a.Cap == 0 && e.Uint32(at+8) != 0) {
		return errAt(ErrMalformedArray, at, 0)
	}
	if length > a.Cap {
		return errAt(ErrTooLarge, at, uint64(length))
	}
	// Both ways the elements between the old and the new length are
	// zeroed: dropped ones so that unused capacity stays zero, exposed ones
	// because a message from elsewhere may hold anything there (validation
	// does not read unused capacity, format.md §12).
	from := a.Offset + min(length, a.Len)*elemSize
	to := a.Offset + max(length, a.Len)*elemSize
	clear(e.mem[from:to])
	binary.LittleEndian.PutUint32(e.mem[at+4:], length)
	return nil
}

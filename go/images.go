package karmem

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Inline structs are viewed as byte images (RATIONALE R5.12): the
// generated viewer of an inline struct of N bytes is `type SViewer [N]byte`,
// a copy of its bytes whose methods decode the fields from the image and
// follow the offsets it holds (tables, arrays, unions) through the reader.
// A value of N bytes is as cheap to pass as a position, and an array of
// inline structs stored element after element (AoS) is then a native Go
// slice over the message, []SViewer, as in the first Karmem.
//
// The functions below take the viewer type as V. V must be a byte array
// type (a generated viewer); any other type reads as its zero value, so
// that nothing with pointers can be forged from message bytes.

// imageType reports whether V can be reinterpreted from message bytes: a
// type of alignment 1 holds no pointers, no multi-byte numbers and no
// padding, which for the generated viewers means a byte array.
func imageType[V any]() bool {
	var v V
	return unsafe.Alignof(v) == 1
}

// emptyImages backs the slices of images of size 0 (an inline struct with
// no fields): n elements, all at one address, none of them in the message.
var emptyImages [1]byte

func empty[V any](n uint32) []V {
	return unsafe.Slice((*V)(unsafe.Pointer(&emptyImages)), n)
}

// Image returns the size-of-V bytes at offset as a V (a copy); the zero V
// when offset is 0 or the bytes are not all inside the message.
func Image[V any](r *Reader, offset uint32) (v V) {
	if unsafe.Sizeof(v) == 0 || offset == 0 || !imageType[V]() || !r.fits(offset, uint64(unsafe.Sizeof(v))) {
		return v
	}
	return *(*V)(unsafe.Pointer(&r.mem[offset]))
}

// Images returns the n V images at offset as a native slice over the
// message (no copy): an AoS array of inline structs. Offset 0, n 0 or a
// range outside the message give nil. The slice aliases the message and
// has no spare capacity (append copies).
func Images[V any](r *Reader, offset, n uint32) []V {
	var zero V
	if offset == 0 || n == 0 || !imageType[V]() ||
		!r.fits(offset, uint64(n)*uint64(unsafe.Sizeof(zero))) {
		return nil
	}
	if unsafe.Sizeof(zero) == 0 {
		return empty[V](n)
	}
	return unsafe.Slice((*V)(unsafe.Pointer(&r.mem[offset])), n)
}

// TrustedImage is Image for a Trusted (Go's bounds check on the message
// is the only check).
func TrustedImage[V any](t Trusted, offset uint32) (v V) {
	if unsafe.Sizeof(v) == 0 || offset == 0 || !imageType[V]() {
		return v
	}
	i := uint64(offset)
	b := t.mem[i : i+uint64(unsafe.Sizeof(v))]
	return *(*V)(unsafe.Pointer(unsafe.SliceData(b)))
}

// TrustedImages is Images for a Trusted.
func TrustedImages[V any](t Trusted, offset, n uint32) []V {
	var zero V
	if offset == 0 || n == 0 || !imageType[V]() {
		return nil
	}
	if unsafe.Sizeof(zero) == 0 {
		return empty[V](n)
	}
	i := uint64(offset)
	b := t.mem[i : i+uint64(n)*uint64(unsafe.Sizeof(zero))]
	return unsafe.Slice((*V)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// ImageOf returns the first size-of-V bytes of b as a V: a nested inline
// struct, or a fixed array of inline structs, inside an image. Shorter b
// gives the zero V (generated code never passes one).
func ImageOf[V any](b []byte) (v V) {
	if unsafe.Sizeof(v) == 0 || !imageType[V]() || uintptr(len(b)) < unsafe.Sizeof(v) {
		return v
	}
	return *(*V)(unsafe.Pointer(unsafe.SliceData(b)))
}

// The loads of a field inside an image: little-endian, from the start of b
// (the generated viewer passes `v[offset:]`, whose length its layout
// guarantees).

func LoadUint8(b []byte) uint8     { return b[0] }
func LoadUint16(b []byte) uint16   { return binary.LittleEndian.Uint16(b) }
func LoadUint32(b []byte) uint32   { return binary.LittleEndian.Uint32(b) }
func LoadUint64(b []byte) uint64   { return binary.LittleEndian.Uint64(b) }
func LoadInt8(b []byte) int8       { return int8(b[0]) }
func LoadInt16(b []byte) int16     { return int16(LoadUint16(b)) }
func LoadInt32(b []byte) int32     { return int32(LoadUint32(b)) }
func LoadInt64(b []byte) int64     { return int64(LoadUint64(b)) }
func LoadBool(b []byte) bool       { return b[0] != 0 }
func LoadFloat32(b []byte) float32 { return math.Float32frombits(LoadUint32(b)) }
func LoadFloat64(b []byte) float64 { return math.Float64frombits(LoadUint64(b)) }

// LoadArrayRef returns the array reference at the start of b, not checked
// against any message; a zero capacity gives the empty ArrayRef. A Reader
// checks it with CheckArray; a Trusted (a validated message) uses it as is.
func LoadArrayRef(b []byte) ArrayRef {
	a := ArrayRef{
		Offset: binary.LittleEndian.Uint32(b),
		Len:    binary.LittleEndian.Uint32(b[4:12]),
		Cap:    binary.LittleEndian.Uint32(b[8:12]),
	}
	if a.Cap == 0 {
		return ArrayRef{}
	}
	return a
}

// CheckArray returns a when it is a well-formed reference into the message
// (format.md §5), the empty ArrayRef otherwise: Array for a reference that
// was read from an image rather than from the message.
func (r *Reader) CheckArray(a ArrayRef, elemSize, limit uint32) ArrayRef {
	if a.Cap == 0 || !arrayOK(a, elemSize, limit, len(r.mem)) {
		return ArrayRef{}
	}
	return a
}

// plainMemory reports whether this machine keeps a struct of numbers in
// memory as the format keeps an inline struct (format.md §3): little-endian,
// and 64-bit numbers 8-aligned inside structs (64-bit platforms; on 386 and
// arm they are 4-aligned, which moves fields).
var plainMemory = func() bool {
	probe := uint16(1)
	return *(*byte)(unsafe.Pointer(&probe)) == 1 && unsafe.Sizeof(uintptr(0)) == 8
}()

// DecodePlain decodes the AoS block of n inline structs at offset into dst,
// reusing its capacity, with one copy: T is a generated struct of numbers
// only (integers, floats, enums, fixed arrays and structs of those; no bool,
// whose bytes Go does not accept unchecked, and nothing that points), whose
// Go memory is then the block's bytes when its size is the format's stride
// (RATIONALE R5.14). It reports false, leaving dst as it was, where that
// does not hold (a big-endian or 32-bit machine, another size, a block not
// inside the message); the caller then decodes element by element.
func DecodePlain[T any](dst []T, r *Reader, offset, n, stride uint32) ([]T, bool) {
	if !plainAt[T](0, stride) {
		return dst, false
	}
	if n == 0 {
		return dst[:0], true
	}
	bytes := uint64(n) * uint64(stride)
	if offset == 0 || !r.fits(offset, bytes) {
		return dst, false
	}
	if uint64(cap(dst)) < uint64(n) {
		dst = make([]T, n)
	}
	dst = dst[:n]
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), bytes), r.mem[offset:])
	return dst, true
}

// EncodePlain writes src, a slice of a generated struct of numbers only (as
// DecodePlain's T), into the block of len(src) × stride bytes the writer
// reserved at offset, with one copy, when its Go memory is the format's bytes
// (as DecodePlain decides); false, writing nothing, otherwise.
func EncodePlain[T any](w *Writer, offset uint32, src []T, stride uint32) bool {
	if !plainAt[T](0, stride) {
		return false
	}
	bytes := uint64(len(src)) * uint64(stride)
	if bytes == 0 {
		return true
	}
	copy(w.buf[offset:uint64(offset)+bytes], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), bytes))
	return true
}

// Values returns the n inline structs T of the AoS block at offset as a Go
// slice: over the message, with no copy, where T's memory is the block's
// bytes (a generated struct of numbers only on a machine that keeps it as
// the format does, as for DecodePlain); elsewhere a new slice decoded by
// read (the generated readAt). Offset 0, n 0 or a block not inside the
// message give nil. The slice aliases the message like Images: it is valid
// while the buffer is, changes with it, and has no spare capacity.
func Values[T any](r *Reader, offset, n, stride uint32, read func(*T, *Validator, uint32) error) []T {
	if offset == 0 || n == 0 || !r.fits(offset, uint64(n)*uint64(stride)) {
		return nil
	}
	if plainAt[T](offset, stride) {
		return unsafe.Slice((*T)(unsafe.Pointer(&r.mem[offset])), n)
	}
	out := make([]T, n)
	v := NewValidator(r)
	for k := range out {
		// A struct of numbers reads without error.
		_ = read(&out[k], &v, offset+uint32(k)*stride)
	}
	return out
}

// TrustedValues is Values for a Trusted (a validated message).
func TrustedValues[T any](t Trusted, offset, n, stride uint32, read func(*T, *Validator, uint32) error) []T {
	if offset == 0 || n == 0 {
		return nil
	}
	if plainAt[T](offset, stride) {
		b := t.mem[offset : uint64(offset)+uint64(n)*uint64(stride)]
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	return Values(NewReader(t.mem), offset, n, stride, read)
}

// plainAt reports whether a T at offset (in a message, whose base is
// 8-aligned) can be read in place: T's memory is the format's bytes and
// offset is a multiple of T's alignment (a block's natural alignment
// always is, format.md §5; checked all the same).
func plainAt[T any](offset, stride uint32) bool {
	var zero T
	size, align := unsafe.Sizeof(zero), unsafe.Alignof(zero)
	return plainMemory && size == uintptr(stride) && size != 0 && align <= 8 &&
		uintptr(offset)%align == 0
}

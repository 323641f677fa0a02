// Package karmem is the Go runtime library of Karmem, a zero-copy,
// little-endian, bounds-checked binary format (docs/format.md).
//
// Generated code (karmem build --lang go) is built from these pieces:
//
//   - [Writer]: a reusable, 64-byte aligned output buffer. Encoding into a
//     reused writer allocates nothing once it has grown to the message size.
//   - [Reader]: bounds-checked, zero-copy access to one message. Malformed
//     data reads as zero/empty (format.md §4–§5), never as a panic or an
//     out-of-bounds read.
//   - [Validator]: the state of one validation or decoding pass (traversal
//     budget, depth limit) behind the generated Validate and ReadAsRoot.
//   - [Editor]: in-place updates of scalars and of arrays within capacity.
//
// Views (strings, native slices) alias the message buffer: see docs/go.md
// for the alignment and lifetime rules.
package karmem

const (
	// HeaderSize is the size of the message header; the root object
	// starts right after it.
	HeaderSize = 8
	// Version is the format version this library reads and writes (the
	// format's second edition, docs/format.md §1).
	Version = 2
	// ArrayAlign is the largest alignment of an array data block or SoA
	// column: the widest scalar. Each starts at NaturalAlign of its element
	// size (docs/format.md §5), at most this.
	ArrayAlign = 8
	// directoryAlign is the alignment of an SoA directory (u32 words,
	// format.md §5.3), bunchTableAlign that of a bunch table (16-byte
	// entries, §7.1).
	directoryAlign  = 4
	bunchTableAlign = 8
	// arrayRefSize is the size of an array reference (offset, length,
	// capacity; format.md §5), an element of an array of arrays (§5.4).
	arrayRefSize = 12
	// NoLimit is the limit argument for arrays that are not limited
	// ([]T rather than [<N]T).
	NoLimit = ^uint32(0)
)

// NaturalAlign is the alignment of an array block or SoA column whose
// elements are size bytes (docs/format.md §5): the largest power of two
// dividing size, at most 8 (text 1, u16 2, an array reference 4, an inline
// struct 8). 0 — a block whose reference does not say what it holds (SoA,
// SoA union, bunch) — gives 1: those blocks are checked by their readers.
func NaturalAlign(size uint32) uint32 {
	if size == 0 {
		return 1
	}
	return min(size&-size, ArrayAlign)
}

// alignUp rounds x up to a multiple of a (a power of two), in 64-bit
// arithmetic so that hostile 32-bit values cannot overflow.
func alignUp(x, a uint64) uint64 {
	return (x + a - 1) &^ (a - 1)
}

// PathHash is FNV-1a (32-bit) over the little-endian uint32 encoding of each
// index: the hash of an SoA column's position path (format.md §5.3).
func PathHash(path ...uint32) uint32 {
	h := uint32(0x811C9DC5)
	for _, index := range path {
		for k := 0; k < 4; k++ {
			h ^= (index >> (8 * k)) & 0xFF
			h *= 0x01000193
		}
	}
	return h
}

// Column describes one SoA column: the hash of its position path, the size
// of one value, and whether the writer fills every value itself (dense
// scalar columns are not zeroed first).
type Column struct {
	Hash  uint32
	Size  uint32
	Dense bool
}

// Scalar is the set of number types that can be viewed as native slices
// over a message (and written from them). Enums are included through their
// underlying type; bool is not (a hostile byte 2 is not a valid Go bool):
// bool arrays are viewed as []uint8.
type Scalar interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

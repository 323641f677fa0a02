package karmem

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
	"unsafe"
)

// Limits a reader enforces against hostile messages (format.md §10).
type Limits struct {
	// MaxDirectoryEntries bounds the entries scanned in one SoA directory
	// or bunch table.
	MaxDirectoryEntries uint32
	// MaxDepth bounds the nesting the validator and the object decoder
	// follow.
	MaxDepth uint32
	// TraversalBudgetFactor: the validator and decoder may visit (or
	// allocate) at most this many times the message size in bytes.
	TraversalBudgetFactor uint32
}

// DefaultLimits are the limits of format.md §10.
var DefaultLimits = Limits{MaxDirectoryEntries: 1024, MaxDepth: 64, TraversalBudgetFactor: 8}

// Table is a table found at Offset whose first Used bytes hold fields. The
// zero Table stands for an absent or malformed table: every field reads as
// zero.
type Table struct {
	Offset uint32
	Used   uint32
}

// Has reports whether a field at offset with size bytes is inside the used
// part of the table (format.md §4).
func (t Table) Has(offset, size uint32) bool {
	return uint64(offset)+uint64(size) <= uint64(t.Used)
}

// ArrayRef is a checked array reference: Len elements at Offset, room for
// Cap. The zero ArrayRef is the empty array.
type ArrayRef struct {
	Offset uint32
	Len    uint32
	Cap    uint32
}

// Reader gives zero-copy, bounds-checked access to one message.
//
// A Reader whose header is invalid (see Err) behaves as an empty message:
// every read returns zero. Strings and slices returned by a Reader and by
// generated viewers alias the buffer: the buffer must not be modified or
// reused while they are in use (docs/go.md).
type Reader struct {
	mem    []byte
	err    error
	limits Limits
}

// NewReader opens a message (it may be followed by unrelated bytes: the
// header's size bounds every access). The buffer must be 8-byte aligned.
// Problems with the header are reported by Err.
func NewReader(buf []byte) *Reader {
	r := &Reader{limits: DefaultLimits}
	r.err = r.open(buf)
	return r
}

// NewReaderLimits is NewReader with limits other than DefaultLimits.
func NewReaderLimits(buf []byte, limits Limits) *Reader {
	r := &Reader{limits: limits}
	r.err = r.open(buf)
	return r
}

// Reset points the reader at another message, keeping its limits, and
// returns the header check's result (also reported by Err).
func (r *Reader) Reset(buf []byte) error {
	r.err = r.open(buf)
	return r.err
}

// open checks the header and the alignment (format.md §1).
func (r *Reader) open(buf []byte) error {
	r.mem = nil
	if len(buf) < HeaderSize {
		return errAt(ErrTruncated, 0, uint64(len(buf)))
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%8 != 0 {
		return ErrMisaligned
	}
	if buf[0] != 'K' || buf[1] != 'M' {
		return ErrBadMagic
	}
	if buf[2] != Version {
		return errAt(ErrUnsupportedVersion, 2, uint64(buf[2]))
	}
	if buf[3] != 0 {
		return errAt(ErrBadFlags, 3, uint64(buf[3]))
	}
	size := binary.LittleEndian.Uint32(buf[4:])
	if size < HeaderSize || size%8 != 0 {
		return errAt(ErrBadSize, 4, uint64(size))
	}
	if uint64(size) > uint64(len(buf)) {
		return errAt(ErrTruncated, 4, uint64(size))
	}
	r.mem = buf[:size:size]
	return nil
}

// Err reports why the message could not be opened, or nil.
func (r *Reader) Err() error { return r.err }

// Bytes returns the message (header included); nil if it could not be
// opened.
func (r *Reader) Bytes() []byte { return r.mem }

// Size is the message size in bytes (0 if it could not be opened).
func (r *Reader) Size() uint32 { return uint32(len(r.mem)) }

// Limits returns the reader's limits.
func (r *Reader) Limits() Limits { return r.limits }

// fits reports whether n bytes at offset are inside the message.
func (r *Reader) fits(offset uint32, n uint64) bool {
	return uint64(offset)+n <= uint64(len(r.mem))
}

// Uint8 loads a byte; out of bounds reads as zero. The other loads follow
// the same rule.
func (r *Reader) Uint8(offset uint32) uint8 {
	if !r.fits(offset, 1) {
		return 0
	}
	return r.mem[offset]
}

func (r *Reader) Uint16(offset uint32) uint16 {
	if !r.fits(offset, 2) {
		return 0
	}
	return binary.LittleEndian.Uint16(r.mem[offset:])
}

func (r *Reader) Uint32(offset uint32) uint32 {
	if !r.fits(offset, 4) {
		return 0
	}
	return binary.LittleEndian.Uint32(r.mem[offset:])
}

func (r *Reader) Uint64(offset uint32) uint64 {
	if !r.fits(offset, 8) {
		return 0
	}
	return binary.LittleEndian.Uint64(r.mem[offset:])
}

func (r *Reader) Int8(offset uint32) int8   { return int8(r.Uint8(offset)) }
func (r *Reader) Int16(offset uint32) int16 { return int16(r.Uint16(offset)) }
func (r *Reader) Int32(offset uint32) int32 { return int32(r.Uint32(offset)) }
func (r *Reader) Int64(offset uint32) int64 { return int64(r.Uint64(offset)) }
func (r *Reader) Bool(offset uint32) bool   { return r.Uint8(offset) != 0 }
func (r *Reader) Float32(offset uint32) float32 {
	return math.Float32frombits(r.Uint32(offset))
}
func (r *Reader) Float64(offset uint32) float64 {
	return math.Float64frombits(r.Uint64(offset))
}

// Table returns the table at offset, or the zero Table if it is absent
// (offset 0) or malformed (format.md §4).
func (r *Reader) Table(offset uint32) Table {
	if offset == 0 || offset%8 != 0 || !r.fits(offset, 8) {
		return Table{}
	}
	header := binary.LittleEndian.Uint32(r.mem[offset:])
	total := uint64(header&0x1FFFFFFF) * 8
	unused := uint64(header >> 29)
	if total < 8 || total-unused < 4 || !r.fits(offset, total) {
		return Table{}
	}
	return Table{Offset: offset, Used: uint32(total - unused)}
}

// Root returns the root table (at offset 8).
func (r *Reader) Root() Table { return r.Table(HeaderSize) }

// FieldTable returns the table referenced by a table's field.
func (r *Reader) FieldTable(t Table, offset uint32) Table {
	if !t.Has(offset, 4) {
		return Table{}
	}
	return r.Table(r.Uint32(t.Offset + offset))
}

// FieldUint8 loads a scalar field of table t; a field beyond the table's
// used size (an older writer) reads as zero. The other Field loads follow
// the same rule.
func (r *Reader) FieldUint8(t Table, offset uint32) uint8 {
	if !t.Has(offset, 1) {
		return 0
	}
	return r.Uint8(t.Offset + offset)
}

func (r *Reader) FieldUint16(t Table, offset uint32) uint16 {
	if !t.Has(offset, 2) {
		return 0
	}
	return r.Uint16(t.Offset + offset)
}

func (r *Reader) FieldUint32(t Table, offset uint32) uint32 {
	if !t.Has(offset, 4) {
		return 0
	}
	return r.Uint32(t.Offset + offset)
}

func (r *Reader) FieldUint64(t Table, offset uint32) uint64 {
	if !t.Has(offset, 8) {
		return 0
	}
	return r.Uint64(t.Offset + offset)
}

func (r *Reader) FieldInt8(t Table, offset uint32) int8   { return int8(r.FieldUint8(t, offset)) }
func (r *Reader) FieldInt16(t Table, offset uint32) int16 { return int16(r.FieldUint16(t, offset)) }
func (r *Reader) FieldInt32(t Table, offset uint32) int32 { return int32(r.FieldUint32(t, offset)) }
func (r *Reader) FieldInt64(t Table, offset uint32) int64 { return int64(r.FieldUint64(t, offset)) }
func (r *Reader) FieldBool(t Table, offset uint32) bool   { return r.FieldUint8(t, offset) != 0 }
func (r *Reader) FieldFloat32(t Table, offset uint32) float32 {
	return math.Float32frombits(r.FieldUint32(t, offset))
}
func (r *Reader) FieldFloat64(t Table, offset uint32) float64 {
	return math.Float64frombits(r.FieldUint64(t, offset))
}

// arrayOK applies the checks of format.md §5 to an array reference.
func arrayOK(a ArrayRef, elemSize, limit uint32, size int) bool {
	if a.Len > a.Cap || a.Len > limit {
		return false
	}
	if a.Cap == 0 {
		return true
	}
	return a.Offset != 0 && a.Offset%NaturalAlign(elemSize) == 0 &&
		uint64(a.Offset)+uint64(a.Cap)*uint64(elemSize) <= uint64(size)
}

func (r *Reader) arrayRef(at uint32) ArrayRef {
	return ArrayRef{Offset: r.Uint32(at), Len: r.Uint32(at + 4), Cap: r.Uint32(at + 8)}
}

// Array returns the array reference stored at at, checked (format.md §5):
// empty if malformed. elemSize is the bytes per element of the data block
// (0 where the block is a directory or bunch table, checked on use); limit
// is the N of [<N]T, or NoLimit.
func (r *Reader) Array(at, elemSize, limit uint32) ArrayRef {
	if !r.fits(at, 12) {
		return ArrayRef{}
	}
	// A zero capacity means "no data block" whatever the offset says:
	// LoadArrayRef normalises it, which keeps hostile offsets of empty
	// arrays away from every later offset computation.
	return r.CheckArray(LoadArrayRef(r.mem[at:at+12]), elemSize, limit)
}

// FieldArray returns an array field of a table (empty when absent).
func (r *Reader) FieldArray(t Table, offset, elemSize, limit uint32) ArrayRef {
	if !t.Has(offset, 12) {
		return ArrayRef{}
	}
	return r.Array(t.Offset+offset, elemSize, limit)
}

// Native slices reinterpret little-endian bytes: this package only builds
// for little-endian targets (endian.go).
const _ = littleEndianTarget

// Slice returns n values of type T at offset as a native slice over the
// message (no copy). Offset 0, an out-of-bounds range or a misaligned
// offset give nil. The slice aliases the message buffer and has no spare
// capacity (append copies).
func Slice[T Scalar](r *Reader, offset, n uint32) []T {
	if offset == 0 || n == 0 {
		return nil
	}
	var zero T
	if !r.fits(offset, uint64(n)*uint64(unsafe.Sizeof(zero))) {
		return nil
	}
	p := unsafe.Pointer(&r.mem[offset])
	if uintptr(p)%unsafe.Alignof(zero) != 0 {
		// Unreachable for messages opened by NewReader (8-aligned base,
		// aligned offsets); refuse rather than misread.
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// ArrayBytes returns the bytes of an array of u8 (a view, no copy).
func (r *Reader) ArrayBytes(a ArrayRef) []byte {
	return Slice[byte](r, a.Offset, a.Len)
}

// String returns UTF-8 text as a string that aliases the message (no copy).
// Text that is not valid UTF-8 reads as "" (format.md §6), as in every other
// implementation, although a Go string could hold the bytes: the validator
// reports it, and ArrayBytes gives the raw bytes.
func (r *Reader) String(a ArrayRef) string {
	b := Slice[byte](r, a.Offset, a.Len)
	if len(b) == 0 || !utf8.Valid(b) {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// directory returns the SoA directory of a (format.md §5.3): the one the
// first word of its block points to, with n entries. ok is false when a
// has no block, or the block's word or the directory is malformed
// (misaligned, past the end, too many entries). Whether the block's
// columns end inside the message is checked when they are laid out
// (findColumns).
func (r *Reader) directory(a ArrayRef) (dir, n uint32, ok bool) {
	if a.Cap == 0 || a.Offset%directoryAlign != 0 || !r.fits(a.Offset, 4) {
		return 0, 0, false
	}
	dir = r.Uint32(a.Offset)
	if dir == 0 || dir%directoryAlign != 0 || !r.fits(dir, 4) {
		return 0, 0, false
	}
	n = r.Uint32(dir)
	return dir, n, n <= r.limits.MaxDirectoryEntries && r.fits(dir, directorySize(uint64(n)))
}

// directorySize is the size of an SoA directory of n entries (format.md
// §5.3): n, then n hashes, then n value sizes.
func directorySize(n uint64) uint64 { return 4 * (2*n + 1) }

// directoryCharge is what reading a directory of n entries costs the
// traversal budget, each time it is read (format.md §10): the directory
// and the block's word that points to it, 8 × (n + 1).
func directoryCharge(n uint64) uint64 { return directorySize(n) + 4 }

// bunchTableSize is the size of a bunch table of k entries (format.md §7.1).
func bunchTableSize(k uint64) uint64 { return 16 * (k + 1) }

// columnLayout walks the columns of an SoA block (format.md §5.3): each
// starts at the natural alignment of its value size after the end of the
// one before, the first after the block's word. Callers that do not trust
// the message check each start against its size before the next step, so
// in 64 bits nothing wraps: a step adds at most (2^32−1)² to a position
// of at most 2^32.
type columnLayout struct{ pos, capacity uint64 }

func newColumnLayout(block, capacity uint32) columnLayout {
	return columnLayout{pos: uint64(block) + 4, capacity: uint64(capacity)}
}

// next returns where the column of values of the given size starts and
// moves past it; pos is then where that column ends.
func (l *columnLayout) next(size uint32) uint64 {
	start := alignUp(l.pos, uint64(NaturalAlign(size)))
	l.pos = start + l.capacity*uint64(size)
	return start
}

// directoryEntry is the hash and value size of entry k of a directory of
// n entries, from the words after its count (format.md §5.3).
func directoryEntry(entries []byte, n, k int) (hash, size uint32) {
	return binary.LittleEndian.Uint32(entries[4*k:]), binary.LittleEndian.Uint32(entries[4*(n+k):])
}

// SoaColumns resolves SoA columns in one pass over the directory of a
// (format.md §5.3). out[j] receives the offset of column wanted[j], or 0
// when it is absent or malformed (it then reads as zeros).
func (r *Reader) SoaColumns(a ArrayRef, wanted []Column, out []uint32) {
	clear(out)
	if dir, n, ok := r.directory(a); ok {
		r.resolveColumns(a, dir, n, wanted, out)
	}
}

// resolveColumns is SoaColumns over a directory already found well formed
// (r.directory); out is zero. The first entry of a wanted hash with the
// wanted size is its column; a block that ends past the message has none.
func (r *Reader) resolveColumns(a ArrayRef, dir, n uint32, wanted []Column, out []uint32) {
	if fits, _ := r.findColumns(a, dir, n, wanted, out); !fits {
		clear(out)
	}
}

// findColumns lays out the block of a over the well-formed n-entry
// directory at dir (format.md §5.3) and puts into out (zero on entry) the
// first column of each wanted hash listed with the wanted size. fits is
// false when the block ends past the message; strict is false when a
// wanted hash is listed twice or with another size, which a validator
// refuses. Unknown hashes, repeated or not, are only laid out.
func (r *Reader) findColumns(a ArrayRef, dir, n uint32, wanted []Column, out []uint32) (fits, strict bool) {
	limit := uint64(len(r.mem))
	entries := r.mem[uint64(dir)+4 : uint64(dir)+4+8*uint64(n)]
	layout := newColumnLayout(a.Offset, a.Cap)
	strict = true
	for k := range int(n) {
		hash, size := directoryEntry(entries, int(n), k)
		col := layout.next(size)
		if col > limit {
			return false, strict
		}
		// Column hashes of one struct are distinct (the layout refuses
		// collisions), so at most one wanted column matches.
		if j := wantedIndex(wanted, k, hash); j >= 0 {
			sizeOK := wanted[j].Size == size
			strict = strict && out[j] == 0 && sizeOK
			if out[j] == 0 && sizeOK {
				out[j] = uint32(col)
			}
		}
	}
	return layout.pos <= limit, strict
}

// wantedIndex is the index in wanted of the column that directory entry k
// (from 0) with the given hash holds, or -1 when the reader does not know
// it. Writers list columns in the reader's order when both know the same
// schema version: the same position is tried first.
func wantedIndex(wanted []Column, k int, hash uint32) int {
	if k < len(wanted) && wanted[k].Hash == hash {
		return k
	}
	for i := range wanted {
		if wanted[i].Hash == hash {
			return i
		}
	}
	return -1
}

// UnionColumns returns the tag and offset columns of an SoA array of unions
// (format.md §7.1); ok is false if the block does not fit.
func (r *Reader) UnionColumns(a ArrayRef, tagSize uint32) (tags, offsets uint32, ok bool) {
	if a.Cap == 0 {
		return 0, 0, false
	}
	offs := unionOffsetColumn(a, tagSize)
	if a.Offset%NaturalAlign(tagSize) != 0 || offs+4*uint64(a.Cap) > uint64(len(r.mem)) {
		return 0, 0, false
	}
	return a.Offset, uint32(offs), true
}

// unionOffsetColumn is where the offset column of an SoA union array
// starts: after the tag column, at the alignment of a u32 (format.md §7.1).
func unionOffsetColumn(a ArrayRef, tagSize uint32) uint64 {
	return alignUp(uint64(a.Offset)+uint64(a.Cap)*uint64(tagSize), 4)
}

// BunchEntry returns the array of one variant in a bunch table (format.md
// §7.1), checked like any array reference; empty if the variant has no
// entry.
func (r *Reader) BunchEntry(a ArrayRef, tag, elemSize uint32) ArrayRef {
	k, ok := r.bunchEntries(a)
	if !ok {
		return ArrayRef{}
	}
	for e := uint32(1); e <= k; e++ {
		entry := a.Offset + 16*e
		if r.Uint32(entry) == tag {
			return r.Array(entry+4, elemSize, NoLimit)
		}
	}
	return ArrayRef{}
}

// bunchEntries is the number of entries of the bunch table of a (format.md
// §7.1); ok is false when a is empty or its table is malformed (misaligned,
// over the entry limit, past the end): its variants then read as empty.
func (r *Reader) bunchEntries(a ArrayRef) (k uint32, ok bool) {
	if a.Cap == 0 {
		return 0, false
	}
	k = r.Uint32(a.Offset)
	if a.Offset%bunchTableAlign != 0 || k > r.limits.MaxDirectoryEntries || !r.fits(a.Offset, bunchTableSize(uint64(k))) {
		return 0, false
	}
	return k, true
}

// InlineAt reports whether an inline struct of size bytes can be read at
// offset (non-zero, 8-aligned, inside the message): the check for inline
// union values.
func (r *Reader) InlineAt(offset, size uint32) bool {
	return offset != 0 && offset%8 == 0 && r.fits(offset, uint64(size))
}

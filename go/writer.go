package karmem

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Writer is a reusable output buffer for messages.
//
// Its storage is 64-byte aligned, so array blocks at aligned offsets are
// aligned in memory too. Everything allocated is zero-filled, so padding and
// unused capacity are zero and nothing of a previous message leaks into the
// next one. Offsets handed out by Alloc are positions in the message.
type Writer struct {
	buf   []byte // aligned storage; len(buf) is the capacity
	n     int    // bytes written
	fixed bool   // buf is the caller's: it never grows
	// dirs are the SoA directories of the current message (format.md
	// §5.3): one per column list, found again by the address of the
	// caller's column list (generated code passes one package-level array
	// every time) or, failing that, by their bytes.
	dirs []writtenDirectory
}

// writtenDirectory is a directory of the current message and the column
// list it was first written for.
type writtenDirectory struct {
	columns *Column
	offset  uint32
}

// NewWriter returns a writer with room for capacity bytes before it grows.
func NewWriter(capacity int) *Writer {
	return &Writer{buf: alignedBytes(max(capacity, 64))}
}

// NewFixedWriter returns a writer over the caller's buf: messages are
// encoded into it in place (a region a WebAssembly module exported, shared
// memory) and it never grows; an allocation that does not fit fails with
// ErrTooLarge. buf must start at an 8-byte aligned address, as a message
// must (ErrMisaligned), and hold at least the 8-byte header (ErrTooLarge).
// Whatever buf held is overwritten where the message reaches and left
// alone after it.
func NewFixedWriter(buf []byte) (*Writer, error) {
	if len(buf) < HeaderSize {
		return nil, ErrTooLarge
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(buf)))&(ArrayAlign-1) != 0 {
		return nil, ErrMisaligned
	}
	return &Writer{buf: buf[:len(buf):len(buf)], fixed: true}, nil
}

// lineSize is the alignment of the writer's own buffers: a cache line, so
// that no column shares a line with data before the message.
const lineSize = 64

// alignedBytes allocates n zero bytes starting at a 64-byte aligned
// address.
func alignedBytes(n int) []byte {
	raw := make([]byte, n+lineSize)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (lineSize - 1))
	return raw[skip : skip+n : skip+n]
}

// Reset forgets the current message and keeps the buffer.
func (w *Writer) Reset() { w.n = 0; w.dirs = w.dirs[:0] }

// Bytes returns the bytes written so far (the finished message after
// Finish). They alias the writer's buffer: copy them before the writer is
// reused.
func (w *Writer) Bytes() []byte { return w.buf[:w.n:w.n] }

// Len is the number of bytes written so far.
func (w *Writer) Len() int { return w.n }

// Begin starts a message: it resets the writer and reserves the header. The
// root object must be allocated next (it lands at offset 8).
func (w *Writer) Begin() {
	w.n = 0
	w.dirs = w.dirs[:0]
	_ = w.grow(HeaderSize) // a fixed buffer holds at least the header
	clear(w.buf[:HeaderSize])
	w.n = HeaderSize
}

// Finish pads the message to 8 bytes and fills in the header (format.md §1).
func (w *Writer) Finish() error {
	end := alignUp(uint64(w.n), 8)
	if end > math.MaxUint32 {
		return ErrTooLarge
	}
	if err := w.extend(int(end), true); err != nil {
		return err
	}
	b := w.buf
	b[0], b[1], b[2], b[3] = 'K', 'M', Version, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(w.n))
	return nil
}

// grow makes room for end bytes, keeping what was written; a fixed
// buffer cannot grow.
func (w *Writer) grow(end int) error {
	if end <= len(w.buf) {
		return nil
	}
	if w.fixed {
		return ErrTooLarge
	}
	buf := alignedBytes(max(end, 2*len(w.buf)))
	copy(buf, w.buf[:w.n])
	w.buf = buf
	return nil
}

// extend moves the end of the message to end, zeroing the added bytes when
// zero is set (otherwise the caller overwrites all of them).
func (w *Writer) extend(end int, zero bool) error {
	if err := w.grow(end); err != nil {
		return err
	}
	if zero {
		clear(w.buf[w.n:end])
	}
	w.n = end
	return nil
}

func (w *Writer) reserve(size, align uint32, zero bool) (uint32, error) {
	start := alignUp(uint64(w.n), uint64(align))
	end := start + uint64(size)
	if end > math.MaxUint32 {
		return 0, ErrTooLarge
	}
	if err := w.grow(int(end)); err != nil {
		return 0, err
	}
	clear(w.buf[w.n:start])
	w.n = int(start)
	if err := w.extend(int(end), zero); err != nil {
		return 0, err
	}
	return uint32(start), nil
}

// Alloc reserves size zeroed bytes at the next multiple of align (a power
// of two); the gap before them is zeroed too. It returns their offset.
func (w *Writer) Alloc(size, align uint32) (uint32, error) {
	return w.reserve(size, align, true)
}

// AllocFilled is Alloc for a block the caller fills completely: only the
// alignment gap before it is zeroed (array data would otherwise be written
// twice).
func (w *Writer) AllocFilled(size, align uint32) (uint32, error) {
	return w.reserve(size, align, false)
}

func arrayBytes(count int, elemSize uint32) (uint32, error) {
	n := uint64(count) * uint64(elemSize)
	if n > math.MaxUint32 {
		return 0, ErrTooLarge
	}
	return uint32(n), nil
}

// AllocArray reserves a zeroed array block of count elements of elemSize
// bytes, at NaturalAlign(elemSize) (docs/format.md §5). An empty array has no block: it returns 0.
func (w *Writer) AllocArray(count int, elemSize uint32) (uint32, error) {
	if count == 0 {
		return 0, nil
	}
	n, err := arrayBytes(count, elemSize)
	if err != nil {
		return 0, err
	}
	return w.reserve(n, NaturalAlign(elemSize), true)
}

// AllocArrayFilled is AllocArray for a block the caller fills completely.
func (w *Writer) AllocArrayFilled(count int, elemSize uint32) (uint32, error) {
	if count == 0 {
		return 0, nil
	}
	n, err := arrayBytes(count, elemSize)
	if err != nil {
		return 0, err
	}
	return w.reserve(n, NaturalAlign(elemSize), false)
}

// PutUint8 stores a byte at offset (inside an earlier allocation). The
// other Put methods store little-endian values the same way.
func (w *Writer) PutUint8(offset uint32, v uint8) { w.buf[offset] = v }
func (w *Writer) PutUint16(offset uint32, v uint16) {
	binary.LittleEndian.PutUint16(w.buf[offset:], v)
}
func (w *Writer) PutUint32(offset uint32, v uint32) {
	binary.LittleEndian.PutUint32(w.buf[offset:], v)
}
func (w *Writer) PutUint64(offset uint32, v uint64) {
	binary.LittleEndian.PutUint64(w.buf[offset:], v)
}
func (w *Writer) PutInt8(offset uint32, v int8)   { w.buf[offset] = uint8(v) }
func (w *Writer) PutInt16(offset uint32, v int16) { w.PutUint16(offset, uint16(v)) }
func (w *Writer) PutInt32(offset uint32, v int32) { w.PutUint32(offset, uint32(v)) }
func (w *Writer) PutInt64(offset uint32, v int64) { w.PutUint64(offset, uint64(v)) }
func (w *Writer) PutFloat32(offset uint32, v float32) {
	w.PutUint32(offset, math.Float32bits(v))
}
func (w *Writer) PutFloat64(offset uint32, v float64) {
	w.PutUint64(offset, math.Float64bits(v))
}
func (w *Writer) PutBool(offset uint32, v bool) { w.buf[offset] = BoolByte(v) }

// BoolByte is the wire byte of a bool.
func BoolByte(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// PutArrayRef writes the 12-byte array reference at at.
func (w *Writer) PutArrayRef(at, offset, length, capacity uint32) {
	b := w.buf[at : at+12]
	binary.LittleEndian.PutUint32(b, offset)
	binary.LittleEndian.PutUint32(b[4:], length)
	binary.LittleEndian.PutUint32(b[8:], capacity)
}

// WriteString writes text (or bytes given as a string) as a plain u8 array:
// data block and reference at at.
func (w *Writer) WriteString(at uint32, s string) error {
	offset, err := w.AllocArrayFilled(len(s), 1)
	if err != nil {
		return err
	}
	copy(w.buf[offset:], s)
	w.PutArrayRef(at, offset, uint32(len(s)), uint32(len(s)))
	return nil
}

// WriteBools writes a bool array: data block and reference at at.
func (w *Writer) WriteBools(at uint32, values []bool) error {
	offset, err := w.AllocArrayFilled(len(values), 1)
	if err != nil {
		return err
	}
	for i, v := range values {
		w.buf[offset+uint32(i)] = BoolByte(v)
	}
	w.PutArrayRef(at, offset, uint32(len(values)), uint32(len(values)))
	return nil
}

// UTF16Len is the number of UTF-16 code units of s (invalid UTF-8 bytes
// count as U+FFFD).
func UTF16Len(s string) int {
	n := 0
	for _, c := range s {
		if c >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// WriteUTF16 writes s as UTF-16 text ([]u16 @string): data block and
// reference at at. Nothing is allocated on the Go heap.
func (w *Writer) WriteUTF16(at uint32, s string) error {
	n := UTF16Len(s)
	offset, err := w.AllocArrayFilled(n, 2)
	if err != nil {
		return err
	}
	o := offset
	for _, c := range s {
		if c >= 0x10000 {
			c -= 0x10000
			w.PutUint16(o, uint16(0xD800+(c>>10)))
			w.PutUint16(o+2, uint16(0xDC00+(c&0x3FF)))
			o += 4
		} else {
			w.PutUint16(o, uint16(c))
			o += 2
		}
	}
	w.PutArrayRef(at, offset, uint32(n), uint32(n))
	return nil
}

// WriteSlice writes a plain array of numbers (or enums): data block and
// reference at at. On a little-endian target the values are copied as
// they are in memory.
func WriteSlice[T Scalar](w *Writer, at uint32, values []T) error {
	var zero T
	size := uint32(unsafe.Sizeof(zero))
	offset, err := w.AllocArrayFilled(len(values), size)
	if err != nil {
		return err
	}
	if len(values) > 0 {
		src := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(values))), len(values)*int(size))
		copy(w.buf[offset:], src)
	}
	w.PutArrayRef(at, offset, uint32(len(values)), uint32(len(values)))
	return nil
}

// WriterSlice returns n values of type T at offset of the writer's buffer
// as a native slice, for generated code that fills an SoA column in one
// loop. The slice is valid until the next allocation.
func WriterSlice[T Scalar](w *Writer, offset uint32, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&w.buf[offset])), n)
}

// WriteSoa writes the block of an SoA array of count elements (format.md
// §5.3): the offset of the directory of its column list, then one column
// per entry of columns, each at the natural alignment of its size. The
// directory is written right before the block the first time the message
// has an SoA array of this column list; later arrays refer to it. The
// reference goes to at and the column offsets to out (same order). Dense
// columns are not zeroed: the caller writes every value of them.
func (w *Writer) WriteSoa(at uint32, count int, columns []Column, out []uint32) error {
	if count == 0 {
		w.PutArrayRef(at, 0, 0, 0)
		clear(out)
		return nil
	}
	dir, ok := w.findDirectory(columns)
	if !ok {
		var err error
		if dir, err = w.writeDirectory(columns); err != nil {
			return err
		}
	}
	block, err := w.Alloc(4, directoryAlign)
	if err != nil {
		return err
	}
	w.PutUint32(block, dir)
	for k, c := range columns {
		var col uint32
		if c.Dense {
			col, err = w.AllocArrayFilled(count, c.Size)
		} else {
			col, err = w.AllocArray(count, c.Size)
		}
		if err != nil {
			return err
		}
		out[k] = col
	}
	w.PutArrayRef(at, block, uint32(count), uint32(count))
	return nil
}

// findDirectory returns the directory of this column list written earlier
// in the message.
func (w *Writer) findDirectory(columns []Column) (uint32, bool) {
	// The directory written for the same column list before is checked
	// first: one comparison instead of a scan. Its bytes are compared all
	// the same, as a caller's slice may hold other columns by now.
	key := unsafe.SliceData(columns)
	for _, d := range w.dirs {
		if d.columns == key && w.lists(d.offset, columns) {
			return d.offset, true
		}
	}
	for _, d := range w.dirs {
		if w.lists(d.offset, columns) {
			return d.offset, true
		}
	}
	return 0, false
}

// lists reports whether the directory at d lists exactly columns.
func (w *Writer) lists(d uint32, columns []Column) bool {
	n := uint32(len(columns))
	if binary.LittleEndian.Uint32(w.buf[d:]) != n {
		return false
	}
	for k, c := range columns {
		e := d + 4 + 4*uint32(k)
		if binary.LittleEndian.Uint32(w.buf[e:]) != c.Hash ||
			binary.LittleEndian.Uint32(w.buf[e+4*n:]) != c.Size {
			return false
		}
	}
	return true
}

// writeDirectory writes the directory of a column list (n, the hashes, the
// value sizes) and remembers it for the rest of the message.
func (w *Writer) writeDirectory(columns []Column) (uint32, error) {
	n := uint32(len(columns))
	d, err := w.Alloc(uint32(directorySize(uint64(n))), directoryAlign)
	if err != nil {
		return 0, err
	}
	w.PutUint32(d, n)
	for k, c := range columns {
		w.PutUint32(d+4+4*uint32(k), c.Hash)
		w.PutUint32(d+4+4*(n+uint32(k)), c.Size)
	}
	w.dirs = append(w.dirs, writtenDirectory{unsafe.SliceData(columns), d})
	return d, nil
}

// WriteBunchTable reserves a bunch table of entries entries (format.md
// §7.1) and stores the count; entry e (0-based) starts at the returned
// offset + 16×(e+1).
func (w *Writer) WriteBunchTable(entries uint32) (uint32, error) {
	size := uint32(bunchTableSize(uint64(entries)))
	table, err := w.Alloc(size, bunchTableAlign)
	if err != nil {
		return 0, err
	}
	w.PutUint32(table, entries)
	return table, nil
}

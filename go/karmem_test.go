package karmem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"unsafe"
)

func TestPathHash(t *testing.T) {
	// FNV-1a over little-endian u32 indices (format.md §5.3); the seed's
	// Profile columns are paths [0 0], [0 1], [0 2].
	cases := []struct {
		path []uint32
		want uint32
	}{
		{nil, 0x811c9dc5},
		{[]uint32{0}, 0x4b95f515},
		{[]uint32{1, 2}, 0xded89066},
		{[]uint32{0, 0}, 0x9be17165},
		{[]uint32{0, 2}, 0x3c39ef87},
	}
	for _, c := range cases {
		if got := PathHash(c.path...); got != c.want {
			t.Errorf("PathHash(%v) = %#x, want %#x", c.path, got, c.want)
		}
	}
}

func aligned(b []byte, n uintptr) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%n == 0
}

func TestWriterAlignedZeroedDeterministic(t *testing.T) {
	w := NewWriter(16)
	w.Begin()
	a, _ := w.Alloc(100, 8)
	for i := range WriterSlice[uint8](w, a, 100) {
		WriterSlice[uint8](w, a, 100)[i] = 0xAB
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if !aligned(w.Bytes(), 64) {
		t.Fatal("writer buffer is not 64-byte aligned")
	}
	w.Begin()
	b, _ := w.Alloc(3, 1)
	c, _ := w.Alloc(4, 64)
	if b != 8 || c != 64 {
		t.Fatalf("offsets %d %d", b, c)
	}
	for i, x := range w.Bytes()[8:68] {
		if x != 0 {
			t.Fatalf("stale byte at %d", 8+i)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := w.Bytes()[:8]; !bytes.Equal(got, []byte{'K', 'M', Version, 0, 72, 0, 0, 0}) {
		t.Fatalf("header %v", got)
	}
	// Growth keeps what was written and the alignment.
	w.Begin()
	at, _ := w.Alloc(8, 8)
	w.PutUint64(at, 0x0102030405060708)
	big, _ := w.AllocArray(10000, 8)
	if !aligned(w.Bytes()[big:], ArrayAlign) || Slice[uint64](NewReader(nil), 0, 0) != nil {
		t.Fatal("grown buffer")
	}
	if w.Bytes()[at] != 8 {
		t.Fatal("growth lost data")
	}
}

func TestWriteSoaDirectoryLayout(t *testing.T) {
	w := NewWriter(0)
	w.Begin()
	at, _ := w.Alloc(12, 4)
	var cols [2]uint32
	if err := w.WriteSoa(at, 3, []Column{{Hash: 0x11, Size: 4}, {Hash: 0x22, Size: 1}}, cols[:]); err != nil {
		t.Fatal(err)
	}
	// The reference ends at 20: the directory (4-aligned) starts there and
	// takes 4 × (2 × 2 + 1) = 20 bytes (n, hashes, sizes); the block
	// follows at 40 with the directory's offset, then each column at the
	// natural alignment of its size (4, then 1).
	if cols != [2]uint32{44, 56} {
		t.Fatalf("columns %v", cols)
	}
	b := w.Bytes()
	if !bytes.Equal(b[20:40], []byte{2, 0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0}) ||
		!bytes.Equal(b[40:44], []byte{20, 0, 0, 0}) ||
		!bytes.Equal(b[8:20], []byte{40, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}) {
		t.Fatalf("directory bytes %x", b[:67])
	}
	// A second array of the same column list refers to the same directory:
	// its block is right after the first array's columns.
	at2, _ := w.Alloc(12, 4)
	if err := w.WriteSoa(at2, 1, []Column{{Hash: 0x11, Size: 4}, {Hash: 0x22, Size: 1}}, cols[:]); err != nil {
		t.Fatal(err)
	}
	b = w.Bytes()
	block := binary.LittleEndian.Uint32(b[at2:])
	if binary.LittleEndian.Uint32(b[block:]) != 20 || cols != [2]uint32{block + 4, block + 8} {
		t.Fatalf("second array: block %d, columns %v, bytes %x", block, cols, b)
	}
	// A new message forgets the directories of the last one.
	w.Begin()
	at3, _ := w.Alloc(12, 4)
	if err := w.WriteSoa(at3, 1, []Column{{Hash: 0x11, Size: 4}, {Hash: 0x22, Size: 1}}, cols[:]); err != nil {
		t.Fatal(err)
	}
	if b := w.Bytes(); binary.LittleEndian.Uint32(b[binary.LittleEndian.Uint32(b[at3:]):]) != at3+12 {
		t.Fatalf("third array: %x", b)
	}
}

// message builds a message of the given body (after the header).
func message(body ...byte) []byte {
	n := HeaderSize + len(body)
	n = (n + 7) &^ 7
	b := AlignedCopy(make([]byte, n))
	copy(b, []byte{'K', 'M', Version, 0, byte(n), byte(n >> 8), 0, 0})
	copy(b[8:], body)
	return b
}

func TestReaderTables(t *testing.T) {
	// A table at 8: 2 units (16 bytes), 4 unused → used 12.
	msg := message(2, 0, 0, 0x80, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	r := NewReader(msg)
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	root := r.Root()
	if root != (Table{Offset: 8, Used: 12}) {
		t.Fatalf("root %+v", root)
	}
	if r.FieldUint32(root, 4) != 7 || r.FieldUint32(root, 12) != 0 || r.FieldUint64(root, 8) != 0 {
		t.Fatal("field presence by used size")
	}
	for _, off := range []uint32{0, 4, 12, 16, 24, 1 << 31} {
		if r.Table(off) != (Table{}) {
			t.Errorf("table at %d must be absent/malformed", off)
		}
	}
	// Total beyond the message, used < 4.
	for _, h := range [][]byte{{3, 0, 0, 0}, {1, 0, 0, 0xA0}} {
		bad := message(append(h, make([]byte, 12)...)...)
		if NewReader(bad).Root() != (Table{}) {
			t.Errorf("header %x must be malformed", h)
		}
	}
}

// A table is charged max(total × 8, its type's full size), and ChargeEach
// charges per element, saturating (format.md §10).
func TestValidatorChargesFullSizes(t *testing.T) {
	msg := message(2, 0, 0, 0x80, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	r := NewReader(msg)
	budget := uint64(r.Size()) * uint64(r.limits.TraversalBudgetFactor)
	v := NewValidator(r)
	if _, err := v.Root(8); err != nil || v.budget != budget-16 {
		t.Fatalf("total × 8: %v, %d left", err, v.budget)
	}
	if _, err := v.Root(40); err != nil || v.budget != budget-56 {
		t.Fatalf("full size: %v, %d left", err, v.budget)
	}
	if _, err := v.Root(uint32(v.budget) + 1); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("a full size over the budget: %v", err)
	}
	v = NewValidator(r)
	if v.ChargeEach(0, math.MaxUint64) != nil || v.ChargeEach(3, 0) != nil || v.budget != budget {
		t.Fatal("a product of 0 is not charged")
	}
	if err := v.ChargeEach(3, 5); err != nil || v.budget != budget-15 {
		t.Fatalf("3 × 5: %v, %d left", err, v.budget)
	}
	if err := v.ChargeEach(2, math.MaxUint64); !errors.Is(err, ErrBudgetExceeded) || v.budget != budget-15 {
		t.Fatalf("a saturated product: %v, %d left", err, v.budget)
	}
}

func TestReaderArraysAndSlices(t *testing.T) {
	w := NewWriter(0)
	w.Begin()
	at, _ := w.Alloc(48, 8)
	_ = WriteSlice(w, at, []float32{1.5, 2.5})
	_ = w.WriteString(at+12, "hé")
	_ = WriteSlice(w, at+24, []uint64{7})
	_ = w.Finish()
	r := NewReader(w.Bytes())
	if got := Slice[float32](r, r.Array(at, 4, NoLimit).Offset, 2); len(got) != 2 || got[1] != 2.5 {
		t.Fatalf("floats %v", got)
	}
	s := r.String(r.Array(at+12, 1, NoLimit))
	if s != "hé" || unsafe.StringData(s) != &w.Bytes()[r.Uint32(at+12)] {
		t.Fatal("strings alias the message")
	}
	if r.Array(at+12, 1, 2).Len != 0 {
		t.Fatal("a limited array over its limit reads as empty")
	}
	if r.Array(at+24, 1<<30, NoLimit) != (ArrayRef{}) {
		t.Fatal("an array block beyond the message reads as empty")
	}
	// Misaligned element offsets never become native slices.
	if Slice[uint64](r, r.Uint32(at+24)+4, 1) != nil {
		t.Fatal("misaligned slice")
	}
	if Slice[uint64](r, r.Uint32(at+24), 1<<20) != nil {
		t.Fatal("out-of-bounds slice")
	}
}

func TestEditor(t *testing.T) {
	w := NewWriter(0)
	w.Begin()
	root, _ := w.Alloc(24, 8)
	w.PutUint32(root, 3) // 24 bytes, used 24
	_ = WriteSlice(w, root+4, []int32{1, 2, 3})
	_ = w.Finish()
	buf := append(AlignedCopy(nil), w.Bytes()...)
	buf = AlignedCopy(buf)
	e, err := NewEditor(buf)
	if err != nil {
		t.Fatal(err)
	}
	tb := e.Root()
	if err := e.SetInt32(tb, 16, -9); err != nil || e.FieldInt32(tb, 16) != -9 {
		t.Fatalf("set field: %v", err)
	}
	if err := e.SetUint64(tb, 20, 1); err == nil {
		t.Fatal("a field beyond the table must not be written")
	}
	s := EditSlice[int32](e, root+4)
	if len(s) != 3 || cap(s) != 3 {
		t.Fatalf("edit slice %v cap %d", s, cap(s))
	}
	s[0] = 42
	if err := e.SetLen(root+4, 4, 1); err != nil {
		t.Fatal(err)
	}
	if got := Slice[int32](&e.Reader, e.Array(root+4, 4, NoLimit).Offset, 3); got[0] != 42 || got[1] != 0 || got[2] != 0 {
		t.Fatalf("shrinking zeroes dropped elements: %v", got)
	}
	if err := e.SetLen(root+4, 4, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("growing past capacity: %v", err)
	}
	// A hostile writer's bytes in unused capacity (validation does not read
	// it) must not be exposed by growth (format.md §12).
	unused := e.mem[e.Array(root+4, 4, NoLimit).Offset+4:]
	for i := range 8 {
		unused[i] = 0xba
	}
	if err := e.SetLen(root+4, 4, 3); err != nil || len(EditSlice[int32](e, root+4)) != 3 {
		t.Fatalf("growing within capacity: %v", err)
	}
	if got := EditSlice[int32](e, root+4); got[1] != 0 || got[2] != 0 {
		t.Fatalf("growing exposed unused capacity: %v", got)
	}
	if _, err := NewEditor([]byte("nope")); err == nil {
		t.Fatal("editor on a non-message")
	}
}

func TestUTF16(t *testing.T) {
	for _, s := range []string{"", "abc", "ñ and 😀", "日本語"} {
		w := NewWriter(0)
		w.Begin()
		at, _ := w.Alloc(12, 4)
		if err := w.WriteUTF16(at, s); err != nil {
			t.Fatal(err)
		}
		_ = w.Finish()
		r := NewReader(w.Bytes())
		a := r.Array(at, 2, NoLimit)
		units := Slice[uint16](r, a.Offset, a.Len)
		if len(units) != UTF16Len(s) {
			t.Fatalf("%q: %d units", s, len(units))
		}
		var got string
		SetUTF16(&got, units)
		if got != s || !utf16Equal(s, units) {
			t.Fatalf("%q round trips as %q", s, got)
		}
		v := NewValidator(r)
		if err := v.UTF16(a.Offset, a.Len); err != nil {
			t.Fatal(err)
		}
	}
	var got string
	SetUTF16(&got, []uint16{0xD800, 'a', 0xDC00})
	if got != "\uFFFDa\uFFFD" {
		t.Fatalf("unpaired surrogates: %q", got)
	}
}

func TestResizeReuses(t *testing.T) {
	s := make([][]byte, 3, 4)
	s[2] = []byte("kept")
	s = Resize(s, 1)
	s = Resize(s, 3)
	if string(s[2]) != "kept" {
		t.Fatal("elements within capacity are reused")
	}
	s = Resize(s, 10)
	if len(s) != 10 || string(s[2]) != "kept" {
		t.Fatal("growth keeps elements")
	}
}

func TestAlignedCopy(t *testing.T) {
	raw := make([]byte, 33)
	for i := range raw {
		raw[i] = byte(i)
	}
	c := AlignedCopy(raw[1:])
	if !IsAligned(c) || !bytes.Equal(c, raw[1:]) {
		t.Fatal("aligned copy")
	}
}

// oneArrayRoot begins a message whose root table, at the returned offset,
// holds one array reference, 4 bytes further on.
func oneArrayRoot(t *testing.T) (*Writer, uint32) {
	t.Helper()
	w := NewWriter(0)
	w.Begin()
	at, err := w.Alloc(16, 8)
	if err != nil {
		t.Fatal(err)
	}
	w.PutUint32(at, 2)
	return w, at
}

// bunchMessage builds a message whose root table holds one bunch array
// reference of length n and a bunch table of the given (tag, length)
// entries, each with its own data block; it returns the message and the
// array reference's position.
func bunchMessage(t *testing.T, n uint32, entries [][2]uint32) ([]byte, uint32) {
	t.Helper()
	w, at := oneArrayRoot(t)
	table, err := w.WriteBunchTable(uint32(len(entries)))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		entry := table + 16*uint32(i+1)
		data, err := w.Alloc(64, 64)
		if err != nil {
			t.Fatal(err)
		}
		w.PutUint32(entry, e[0])
		// Element size 0 below: any length fits the block.
		w.PutArrayRef(entry+4, data, e[1], e[1])
	}
	w.PutArrayRef(at+4, table, n, max(n, 1))
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return AlignedCopy(w.Bytes()), at + 4
}

// The entries' lengths of a bunch table, unknown tags included, must add up
// to the array's length, without wrapping around (format.md §7.1).
func TestBunchLengthsAddUp(t *testing.T) {
	for _, c := range []struct {
		n       uint32
		entries [][2]uint32
		ok      bool
	}{
		{6, [][2]uint32{{1, 2}, {9, 3}, {4, 1}}, true}, // tag 9: unknown, counted
		{0, nil, true},
		{7, [][2]uint32{{1, 2}, {9, 3}, {4, 1}}, false}, // sum too small
		{5, [][2]uint32{{1, 2}, {9, 3}, {4, 1}}, false}, // sum too large
		{1, nil, false},
		{1, [][2]uint32{{1, math.MaxUint32}, {4, 2}}, false}, // wraps to 1 in uint32
		{math.MaxUint32, [][2]uint32{{1, math.MaxUint32}, {4, math.MaxUint32}, {5, 1}}, false},
	} {
		msg, at := bunchMessage(t, c.n, c.entries)
		r := NewReader(msg)
		a := r.Array(at, 0, NoLimit)
		if a.Len != c.n {
			t.Fatalf("reference not read back: %+v", a)
		}
		v := NewValidator(r)
		k, err := v.Bunch(a, []uint32{1, 4})
		if c.ok && (err != nil || k != uint32(len(c.entries))) {
			t.Errorf("%d %v: %d entries, %v", c.n, c.entries, k, err)
		}
		if !c.ok && !errors.Is(err, ErrMalformedArray) {
			t.Errorf("%d %v: want ErrMalformedArray, got %v", c.n, c.entries, err)
		}
	}
	// Not validated, an entry claiming a billion elements reads as empty.
	msg, at := bunchMessage(t, 1, [][2]uint32{{1, 1_000_000_000}})
	r := NewReader(msg)
	if e := r.BunchEntry(r.Array(at, 0, NoLimit), 1, 4); e != (ArrayRef{}) {
		t.Errorf("oversized entry: %+v", e)
	}
}

// A tag of the reader's schema with two entries is ambiguous and refused
// with ErrMalformedArray; unknown tags may repeat (format.md §7.1).
func TestBunchKnownTagsOnce(t *testing.T) {
	for _, c := range []struct {
		n       uint32
		entries [][2]uint32
		ok      bool
	}{
		{3, [][2]uint32{{1, 1}, {4, 1}, {1, 1}}, false},
		{2, [][2]uint32{{4, 1}, {4, 1}}, false},
		{4, [][2]uint32{{9, 1}, {4, 1}, {9, 1}, {4, 1}}, false},
		{1, [][2]uint32{{1, 1}, {1, 0}}, false}, // also when one is empty
		{4, [][2]uint32{{9, 1}, {1, 1}, {9, 1}, {4, 1}}, true},
	} {
		msg, at := bunchMessage(t, c.n, c.entries)
		r := NewReader(msg)
		v := NewValidator(r)
		_, err := v.Bunch(r.Array(at, 0, NoLimit), []uint32{1, 4})
		if c.ok && err != nil {
			t.Errorf("%v: %v", c.entries, err)
		}
		if !c.ok && !errors.Is(err, ErrMalformedArray) {
			t.Errorf("%v: want ErrMalformedArray, got %v", c.entries, err)
		}
	}
	// A reader that does not validate uses the first entry of a tag.
	msg, at := bunchMessage(t, 3, [][2]uint32{{1, 1}, {4, 1}, {1, 2}})
	r := NewReader(msg)
	if e := r.BunchEntry(r.Array(at, 0, NoLimit), 1, 4); e.Len != 1 {
		t.Errorf("first entry not used: %+v", e)
	}
}

// A hash of the reader's schema listed twice in an SoA directory is
// ambiguous and refused; repeated unknown hashes are not looked at
// (format.md §5.3).
func TestSoaKnownHashesOnce(t *testing.T) {
	wanted := []Column{{Hash: 0xA1, Size: 4}, {Hash: 0xB2, Size: 4}, {Hash: 0xC3, Size: 2}}
	soa := func(columns []Column) (*Reader, ArrayRef, []uint32) {
		w, at := oneArrayRoot(t)
		cols := make([]uint32, len(columns))
		if err := w.WriteSoa(at+4, 3, columns, cols); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		r := NewReader(AlignedCopy(w.Bytes()))
		return r, r.Array(at+4, 0, NoLimit), cols
	}
	validate := func(r *Reader, a ArrayRef) error {
		v := NewValidator(r)
		return v.Soa(a, wanted, make([]uint32, len(wanted)))
	}
	r, a, cols := soa([]Column{{Hash: 0xA1, Size: 4}, {Hash: 0xA1, Size: 4}, {Hash: 0xC3, Size: 2}})
	if err := validate(r, a); !errors.Is(err, ErrMalformedArray) {
		t.Errorf("known hash twice: want ErrMalformedArray, got %v", err)
	}
	got := make([]uint32, len(wanted))
	r.SoaColumns(a, wanted, got)
	if got[0] != cols[0] || got[1] != 0 || got[2] != cols[2] {
		t.Errorf("reader: first entry should win: %v (columns %v)", got, cols)
	}
	r, a, cols = soa([]Column{{Hash: 0xEE, Size: 8}, {Hash: 0xA1, Size: 4}, {Hash: 0xEE, Size: 8},
		{Hash: 0xB2, Size: 4}, {Hash: 0xC3, Size: 2}})
	if err := validate(r, a); err != nil {
		t.Errorf("unknown hash twice: %v", err)
	}
	r.SoaColumns(a, wanted, got)
	if got[0] != cols[1] || got[1] != cols[3] || got[2] != cols[4] {
		t.Errorf("reader: %v (columns %v)", got, cols)
	}
}

func TestFixedWriter(t *testing.T) {
	raw := make([]byte, 256)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & 63)
	buf := raw[skip : skip+128]
	if _, err := NewFixedWriter(buf[4:72]); !errors.Is(err, ErrMisaligned) {
		t.Fatalf("misaligned buffer: %v", err)
	}
	if _, err := NewFixedWriter(buf[:7]); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("buffer under the header: %v", err)
	}
	w, err := NewFixedWriter(buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	if _, err := w.Alloc(120, 8); err != nil {
		t.Fatalf("120 bytes after the header fit 128: %v", err)
	}
	w.Begin()
	if _, err := w.Alloc(121, 8); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("121 bytes after the header: %v", err)
	}
	w.Begin()
	at, _ := w.Alloc(8, 8)
	w.PutUint32(at, 1|4<<29)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if &w.Bytes()[0] != &buf[0] {
		t.Fatal("the message is not the caller's bytes")
	}
}

// Text outside the message is refused by the UTF-8 check itself, not read
// as empty and valid (callers check the array first).
func TestUTF8OutsideTheMessageIsRefused(t *testing.T) {
	msg := message(1, 0, 0, 0x80, 0, 0, 0, 0)
	v := NewValidator(NewReader(msg))
	size := uint32(len(msg))
	if err := v.UTF8(8, 0); err != nil {
		t.Fatalf("empty text: %v", err)
	}
	for _, c := range [][2]uint32{{size, 1}, {size - 4, 5}, {^uint32(0) - 2, 8}} {
		if err := v.UTF8(c[0], c[1]); !errors.Is(err, ErrMalformedArray) {
			t.Fatalf("%d bytes at %d: %v", c[1], c[0], err)
		}
	}
}

// Directories are shared by column list, whatever slice the caller
// passes: equal lists in two slices share one, and one slice whose
// contents change between calls gets two.
func TestDirectoriesAreFoundByContents(t *testing.T) {
	w := NewWriter(0)
	w.Begin()
	at, _ := w.Alloc(12*4, 4)
	dir := func(block uint32) uint32 { return binary.LittleEndian.Uint32(w.Bytes()[block:]) }
	cols := []Column{{Hash: 0x11, Size: 4}, {Hash: 0x22, Size: 1}}
	copied := append([]Column(nil), cols...)
	out := make([]uint32, 2)
	write := func(i uint32, c []Column) uint32 {
		if err := w.WriteSoa(at+12*i, 2, c, out); err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint32(w.Bytes()[at+12*i:])
	}
	a, b := write(0, cols), write(1, copied)
	if dir(a) != dir(b) {
		t.Fatal("equal lists do not share a directory")
	}
	cols[1] = Column{Hash: 0x33, Size: 2}
	c, d := write(2, cols), write(3, cols)
	if dir(a) == dir(c) || dir(c) != dir(d) {
		t.Fatalf("directories %d %d %d %d", dir(a), dir(b), dir(c), dir(d))
	}
}

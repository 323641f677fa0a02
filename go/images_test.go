package karmem

import (
	"testing"
	"unsafe"
)

// pair is what a generated viewer of an inline struct { A u32; B f32; } is.
type pair [8]byte

func (p pair) A() uint32  { return LoadUint32(p[:]) }
func (p pair) B() float32 { return LoadFloat32(p[4:]) }

// imagesMessage holds three pairs side by side (an AoS array) and an array
// reference to them.
func imagesMessage(t *testing.T) (*Reader, uint32, uint32) {
	t.Helper()
	w := NewWriter(0)
	w.Begin()
	ref, _ := w.Alloc(12, 4)
	at, _ := w.AllocArray(3, 8)
	for i := range uint32(3) {
		w.PutUint32(at+8*i, 10+i)
		w.PutUint32(at+8*i+4, 0x3fc00000) // 1.5
	}
	w.PutUint32(ref, at)
	w.PutUint32(ref+4, 3)
	w.PutUint32(ref+8, 3)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(w.Bytes())
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r, ref, at
}

func TestImagesAliasTheMessage(t *testing.T) {
	r, ref, at := imagesMessage(t)
	a := r.Array(ref, 8, NoLimit)
	pairs := Images[pair](r, a.Offset, a.Len)
	if len(pairs) != 3 || unsafe.Pointer(&pairs[0]) != unsafe.Pointer(&r.Bytes()[at]) {
		t.Fatal("Images is a slice over the message")
	}
	// The seed README's loop: index the slice, call the viewer's methods.
	for i := range pairs {
		if pairs[i].A() != 10+uint32(i) || pairs[i].B() != 1.5 {
			t.Fatalf("pair %d: %d %v", i, pairs[i].A(), pairs[i].B())
		}
	}
	// A copy (range value) reads the same: a viewer holds its bytes.
	for i, p := range pairs {
		if p.A() != 10+uint32(i) {
			t.Fatalf("copy %d: %d", i, p.A())
		}
	}
	if Image[pair](r, at+8).A() != 11 {
		t.Fatal("Image reads one element")
	}
	tr := Trusted{mem: r.Bytes()}
	if got := TrustedImages[pair](tr, at, 3); len(got) != 3 || &got[0] != &pairs[0] {
		t.Fatal("TrustedImages is the same slice")
	}
	if TrustedImage[pair](tr, at+16).A() != 12 {
		t.Fatal("TrustedImage reads one element")
	}
}

func TestImagesOutsideTheMessageReadAsZero(t *testing.T) {
	r, _, at := imagesMessage(t)
	size := r.Size()
	if Images[pair](r, at, 1<<30) != nil || Images[pair](r, size-4, 1) != nil {
		t.Fatal("a range past the end gives nil")
	}
	if Images[pair](r, 0, 3) != nil || Images[pair](r, at, 0) != nil {
		t.Fatal("offset 0 or no elements give nil")
	}
	if Image[pair](r, size-4) != (pair{}) || Image[pair](r, 0) != (pair{}) {
		t.Fatal("an image past the end or at 0 reads as zero")
	}
	// Only byte images: a type with pointers is never made from bytes.
	if Image[*int](r, at) != nil || Images[uintptr](r, at, 1) != nil || ImageOf[[2]*byte](r.Bytes()) != [2]*byte{} {
		t.Fatal("non-byte types read as zero")
	}
	// Fields-less structs: n elements of size 0, not in the message.
	if got := Images[[0]byte](r, at, 5); len(got) != 5 {
		t.Fatalf("empty images: %d", len(got))
	}
	if ImageOf[pair](make([]byte, 7)) != (pair{}) {
		t.Fatal("ImageOf of too few bytes reads as zero")
	}
}

func TestArrayReferencesInImages(t *testing.T) {
	r, ref, at := imagesMessage(t)
	raw := r.Bytes()[ref : ref+12]
	if got := r.CheckArray(LoadArrayRef(raw), 8, NoLimit); got != (ArrayRef{Offset: at, Len: 3, Cap: 3}) {
		t.Fatalf("a well-formed reference: %+v", got)
	}
	if r.CheckArray(LoadArrayRef(raw), 8, 2) != (ArrayRef{}) {
		t.Fatal("over its limit: empty")
	}
	if r.CheckArray(ArrayRef{Offset: at, Len: 3, Cap: 1 << 28}, 8, NoLimit) != (ArrayRef{}) {
		t.Fatal("a block past the end: empty")
	}
	if r.CheckArray(ArrayRef{Offset: at + 1, Len: 1, Cap: 1}, 8, NoLimit) != (ArrayRef{}) {
		t.Fatal("a misaligned block: empty")
	}
	if LoadArrayRef([]byte{9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}) != (ArrayRef{}) {
		t.Fatal("capacity 0 is the empty reference")
	}
}

// plainPair is what the object type of an inline struct { A u32; B f32; }
// is: its Go memory is the format's bytes on a little-endian 64-bit machine.
type plainPair struct {
	A uint32
	B float32
}

// DecodePlain and EncodePlain copy whole blocks where the machine keeps the
// struct as the format does, and decline (false, nothing touched) where the
// sizes differ or the block is not inside the message.
func TestPlainBlocks(t *testing.T) {
	r, _, at := imagesMessage(t)
	if !plainMemory {
		if _, ok := DecodePlain[plainPair](nil, r, at, 3, 8); ok {
			t.Fatal("a machine without the format's memory layout copied")
		}
		t.Skip("big-endian or 32-bit: the element-by-element path runs")
	}
	keep := make([]plainPair, 1, 8)
	got, ok := DecodePlain(keep, r, at, 3, 8)
	if !ok || len(got) != 3 || &got[0] != &keep[0] {
		t.Fatalf("decoded %v (ok %v): three pairs into the slice's capacity", got, ok)
	}
	for i, p := range got {
		if p != (plainPair{A: 10 + uint32(i), B: 1.5}) {
			t.Fatalf("element %d: %+v", i, p)
		}
	}
	if out, ok := DecodePlain(got, r, at, 0, 8); !ok || len(out) != 0 {
		t.Fatal("an empty block decodes to an empty slice")
	}
	for _, c := range []struct {
		name       string
		offset, n  uint32
		stride     uint32
		wantResult bool
	}{
		{"another stride", at, 3, 12, false},
		{"past the message", at, 1 << 20, 8, false},
		{"offset 0", 0, 3, 8, false},
	} {
		if out, ok := DecodePlain(got, r, c.offset, c.n, c.stride); ok != c.wantResult || len(out) != 3 {
			t.Fatalf("%s: ok %v, %d elements: the slice must be left as it was", c.name, ok, len(out))
		}
	}
	if _, ok := DecodePlain[bool](nil, r, at, 3, 8); ok {
		t.Fatal("a type of another size copied")
	}

	// Values: the block in place (its first element is the message's
	// bytes), nil for an empty or out-of-range block.
	vals := Values(r, at, 3, 8, func(*plainPair, *Validator, uint32) error {
		t.Fatal("Values decoded where it reads in place")
		return nil
	})
	if len(vals) != 3 || unsafe.Pointer(&vals[0]) != unsafe.Pointer(&r.mem[at]) || vals[2] != (plainPair{A: 12, B: 1.5}) {
		t.Fatalf("Values: %v", vals)
	}
	if Values[plainPair](r, at, 1<<20, 8, nil) != nil || Values[plainPair](r, 0, 3, 8, nil) != nil {
		t.Fatal("Values of a block outside the message")
	}
	// Another stride: decoded element by element into a new slice.
	calls := 0
	other := Values(r, at, 2, 4, func(p *plainPair, _ *Validator, at uint32) error {
		calls++
		p.A = r.Uint32(at)
		return nil
	})
	if calls != 2 || other[1].A != 0x3fc00000 {
		t.Fatalf("Values fallback: %d calls, %v", calls, other)
	}

	w := NewWriter(0)
	w.Begin()
	block, _ := w.AllocArray(3, 8)
	if !EncodePlain(w, block, got, 8) || EncodePlain(w, block, got, 12) {
		t.Fatal("EncodePlain copies at the struct's own stride only")
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	back := NewReader(w.Bytes())
	for i := range uint32(3) {
		if back.Uint32(block+8*i) != 10+i || back.Float32(block+8*i+4) != 1.5 {
			t.Fatalf("element %d not written", i)
		}
	}
}

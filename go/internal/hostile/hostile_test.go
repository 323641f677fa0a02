package hostile

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"karmem.org/go/karmem"
	all "karmem.org/go/karmem/internal/gen/schemas_all_layouts"
)

func TestSampleRoundTrip(t *testing.T) {
	msg := Encode(Sample())
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	var got all.Root
	if err := got.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if !equalRoot(&got, Sample()) {
		t.Fatalf("decoded value differs:\n%+v", got)
	}
	if _, err := all.ValidateRoot(r); err != nil {
		t.Fatal(err)
	}
	if err := Check(msg); err != nil {
		t.Fatal(err)
	}
	v := all.NewRootViewer(r, 0)
	if v.Text(r) != "héllo" || v.Kind(r) != all.KindB || v.Elements(r).At(1).Shape(r).Square(r).Side(r) != 3 {
		t.Error("viewer values")
	}
	if v.ShapesBovos(r).Circle(r).Radius(r)[0] != 9 || v.ShapesAos(r).At(1).Tag() != all.ShapeTagNone {
		t.Error("union viewers")
	}
}

func equalRoot(a, b *all.Root) bool {
	ea, eb := Encode(a), Encode(b)
	return string(ea) == string(eb)
}

// Every prefix of a valid message: truncated messages never crash, and a
// header whose size exceeds the buffer is reported.
func TestTruncation(t *testing.T) {
	msg := Encode(Sample())
	for n := 0; n < len(msg); n++ {
		if err := Check(msg[:n]); err != nil {
			t.Fatalf("prefix %d: %v", n, err)
		}
		if n >= 8 && !errors.Is(karmem.NewReader(karmem.AlignedCopy(msg[:n])).Err(), karmem.ErrTruncated) {
			t.Fatalf("prefix %d: want ErrTruncated", n)
		}
	}
	// With the header's size fixed up, the truncated message opens and
	// reads as far as it goes.
	for n := 16; n < len(msg); n += 8 {
		cut := append([]byte(nil), msg[:n]...)
		binary.LittleEndian.PutUint32(cut[4:], uint32(n))
		if err := Check(cut); err != nil {
			t.Fatalf("resized prefix %d: %v", n, err)
		}
	}
}

// Every byte replaced by 0xFF, every fourth also by 0x00, 0x01 and 0x80
// (offsets, lengths and tags are 4-byte aligned).
func TestCorruption(t *testing.T) {
	msg := Encode(Sample())
	for i := 8; i < len(msg); i++ {
		values := []byte{0xFF}
		if i%4 == 0 {
			values = append(values, 0x00, 0x01, 0x80)
		}
		for _, b := range values {
			bad := append([]byte(nil), msg...)
			bad[i] = b
			if err := Check(bad); err != nil {
				t.Fatalf("byte %d = %#x: %v", i, b, err)
			}
		}
	}
}

func TestHeaderErrors(t *testing.T) {
	msg := Encode(Sample())
	cases := []struct {
		name string
		edit func(b []byte) []byte
		want error
	}{
		{"short", func(b []byte) []byte { return b[:7] }, karmem.ErrTruncated},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, karmem.ErrBadMagic},
		{"version", func(b []byte) []byte { b[2] = 1; return b }, karmem.ErrUnsupportedVersion},
		{"flags", func(b []byte) []byte { b[3] = 1; return b }, karmem.ErrBadFlags},
		{"size not a multiple of 8", func(b []byte) []byte { b[4]++; return b }, karmem.ErrBadSize},
		{"size beyond the buffer", func(b []byte) []byte { return b[:len(b)-8] }, karmem.ErrTruncated},
	}
	for _, c := range cases {
		r := karmem.NewReader(karmem.AlignedCopy(c.edit(append([]byte(nil), msg...))))
		if !errors.Is(r.Err(), c.want) {
			t.Errorf("%s: got %v, want %v", c.name, r.Err(), c.want)
		}
		var v all.Root
		if err := v.ReadAsRoot(r); !errors.Is(err, c.want) {
			t.Errorf("%s: ReadAsRoot: %v", c.name, err)
		}
		if _, err := all.ValidateRoot(r); !errors.Is(err, c.want) {
			t.Errorf("%s: Validate: %v", c.name, err)
		}
		if all.NewRootViewer(r, 0).Text(r) != "" {
			t.Errorf("%s: an unopened message must read as empty", c.name)
		}
	}
	// A misaligned buffer is refused, never read through.
	buf := make([]byte, len(msg)+8)
	copy(buf[1:], msg)
	if r := karmem.NewReader(buf[1 : 1+len(msg)]); !errors.Is(r.Err(), karmem.ErrMisaligned) {
		t.Errorf("misaligned: %v", r.Err())
	}
}

// Huge lengths and capacities: refused by the validator, bounded by the
// budget in the decoder, harmless in viewers.
func TestHugeLengths(t *testing.T) {
	msg := Encode(Sample())
	root := karmem.NewReader(karmem.AlignedCopy(msg)).Root()
	// The offsets of Points (SoA) and Limited (plain) array references, as
	// the generated writer laid them out: find them by their contents.
	for _, at := range arrayRefs(msg, root) {
		for _, lc := range [][2]uint32{{0xFFFFFFFF, 0xFFFFFFFF}, {1 << 20, 1 << 20}, {5, 4}, {0, 0xFFFFFFF0}} {
			bad := append([]byte(nil), msg...)
			binary.LittleEndian.PutUint32(bad[at+4:], lc[0])
			binary.LittleEndian.PutUint32(bad[at+8:], lc[1])
			if err := Check(bad); err != nil {
				t.Fatalf("array at %d len %d cap %d: %v", at, lc[0], lc[1], err)
			}
			// Either the validator refuses the reference (a bunch array's
			// length must equal its entries' lengths, format.md §7.1), or
			// the length is never used to allocate.
			r := karmem.NewReader(karmem.AlignedCopy(bad))
			if _, err := all.ValidateRoot(r); err == nil {
				var v all.Root
				if err := v.ReadAsRoot(r); err != nil {
					t.Fatalf("array at %d: validated but does not decode: %v", at, err)
				}
				if n := len(Encode(&v)); n > 2*len(msg) {
					t.Fatalf("array at %d len %d: decoded to a %d-byte value", at, lc[0], n)
				}
			}
		}
	}
}

// arrayRefs lists the positions of the root's non-empty array references.
func arrayRefs(msg []byte, root karmem.Table) []uint32 {
	var out []uint32
	for at := root.Offset + 4; at+12 <= root.Offset+root.Used; at += 4 {
		off := binary.LittleEndian.Uint32(msg[at:])
		n := binary.LittleEndian.Uint32(msg[at+4:])
		c := binary.LittleEndian.Uint32(msg[at+8:])
		if off != 0 && off%64 == 0 && n > 0 && n == c && int(off) < len(msg) {
			out = append(out, at)
		}
	}
	return out
}

// A directory claiming a million entries is refused by the validator and
// read as "no columns" by viewers (format.md §10).
func TestDirectoryBomb(t *testing.T) {
	msg := Encode(Sample())
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	root := r.Root()
	a := r.FieldArray(root, pointsOffset(t), 0, karmem.NoLimit)
	if a.Len != 2 {
		t.Fatalf("Points array not found: %+v", a)
	}
	bad := append([]byte(nil), msg...)
	// The directory the block's first word points to (format.md §5.3).
	binary.LittleEndian.PutUint32(bad[binary.LittleEndian.Uint32(msg[a.Offset:]):], 1_000_000)
	rb := karmem.NewReader(karmem.AlignedCopy(bad))
	if _, err := all.ValidateRoot(rb); !errors.Is(err, karmem.ErrDirectoryTooLarge) {
		t.Fatalf("validate: %v", err)
	}
	if xs := all.NewRootViewer(rb, 0).Points(rb).X(rb); xs != nil {
		t.Fatalf("columns of a directory bomb: %v", xs)
	}
	if err := Check(bad); err != nil {
		t.Fatal(err)
	}
}

// A bunch array whose entries' lengths do not add up to its length (too
// few, too many, or right only modulo 2^32) is refused by the validator
// with ErrMalformedArray; viewers and the decoder stay bounded (Check).
// Entries with a tag the schema does not know count like the others.
func TestBunchLengths(t *testing.T) {
	msg := Encode(Sample())
	for name, at := range bunchRefs(t, msg) {
		bunch, n := u32(msg, at), u32(msg, at+4)
		if n < 2 || u32(msg, bunch) != 2 {
			t.Fatalf("%s: not the sample's bunch table (length %d)", name, n)
		}
		entryLen := func(e uint32) uint32 { return bunch + 16*e + 8 }
		check := func(what string, b []byte, valid bool) {
			t.Helper()
			expectMalformed(t, name+", "+what, b, !valid)
		}
		check("unchanged", msg, true)

		bad := append([]byte(nil), msg...)
		put(bad, at+4, n+1)
		put(bad, at+8, n+1)
		check("sum too small", bad, false)

		bad = append([]byte(nil), msg...)
		put(bad, at+4, n-1)
		check("sum too large", bad, false)

		// MaxUint32 + (n + 1) wraps around to n. (The entry's own check,
		// length ≤ capacity, refuses it too; TestBunchLengthsAddUp in the
		// library tests the sum alone.)
		bad = append([]byte(nil), msg...)
		put(bad, entryLen(1), math.MaxUint32)
		put(bad, entryLen(2), n+1)
		check("sum overflowing uint32", bad, false)

		bad = append([]byte(nil), msg...)
		put(bad, bunch+16*2, 99)
		check("unknown tag", bad, true)
		put(bad, at+4, n-u32(bad, entryLen(2)))
		check("unknown tag not counted", bad, false)
	}
}

func u32(b []byte, at uint32) uint32 { return binary.LittleEndian.Uint32(b[at:]) }
func put(b []byte, at, x uint32)     { binary.LittleEndian.PutUint32(b[at:], x) }

// bunchRefs returns where in msg (the sample) the array reference of each
// bunch array of Root is, by field name.
func bunchRefs(t *testing.T, msg []byte) map[string]uint32 {
	t.Helper()
	root := karmem.NewReader(karmem.AlignedCopy(msg)).Root()
	one := []all.Shape{&all.Circle{Radius: 1}}
	return map[string]uint32{
		"ShapesBovoa": root.Offset + onlyArray(t, &all.Root{ShapesBovoa: one}),
		"ShapesBovos": root.Offset + onlyArray(t, &all.Root{ShapesBovos: one}),
	}
}

// expectMalformed validates b with the generated validator, which must
// refuse it with ErrMalformedArray when malformed and accept it otherwise;
// viewers and the decoder must stay bounded either way (Check).
func expectMalformed(t *testing.T, what string, b []byte, malformed bool) {
	t.Helper()
	_, err := all.ValidateRoot(karmem.NewReader(karmem.AlignedCopy(b)))
	if !malformed && err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if malformed && !errors.Is(err, karmem.ErrMalformedArray) {
		t.Errorf("%s: want ErrMalformedArray, got %v", what, err)
	}
	if err := Check(b); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// A variant's tag twice in a bunch table, or a column's hash twice in an
// SoA directory, is ambiguous (which entry a reader takes decides what it
// reads): refused with ErrMalformedArray. Repeated tags and hashes the
// schema does not know are never looked at and pass (format.md §5.3, §7.1).
func TestRepeatedEntries(t *testing.T) {
	msg := Encode(Sample())
	for name, at := range bunchRefs(t, msg) {
		bunch := u32(msg, at)
		if u32(msg, bunch) != 2 || u32(msg, bunch+16) == u32(msg, bunch+32) {
			t.Fatalf("%s: not the sample's bunch table", name)
		}
		bad := append([]byte(nil), msg...)
		put(bad, bunch+32, u32(msg, bunch+16))
		expectMalformed(t, name+": a known tag twice", bad, true)
		put(bad, bunch+16, 99)
		put(bad, bunch+32, 99)
		expectMalformed(t, name+": an unknown tag twice", bad, false)
	}
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	// The directory the block's first word points to (format.md §5.3).
	dir := u32(msg, r.FieldArray(r.Root(), pointsOffset(t), 0, karmem.NoLimit).Offset)
	if u32(msg, dir) != 3 {
		t.Fatalf("Points: not a directory of three columns")
	}
	bad := append([]byte(nil), msg...)
	put(bad, dir+8, u32(msg, dir+4))
	expectMalformed(t, "Points: a known hash twice", bad, true)
	put(bad, dir+4, 0xDEAD)
	put(bad, dir+8, 0xDEAD)
	expectMalformed(t, "Points: an unknown hash twice", bad, false)
}

// onlyArray returns the offset in the root table of the one array that v
// (a root with a single one-element array) sets.
func onlyArray(t *testing.T, v *all.Root) uint32 {
	t.Helper()
	msg := Encode(v)
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	root := r.Root()
	for off := uint32(4); off+12 <= root.Used; off += 4 {
		a := r.FieldArray(root, off, 0, karmem.NoLimit)
		if a.Len == 1 && a.Cap == 1 {
			return off
		}
	}
	t.Fatal("no one-element array")
	return 0
}

func pointsOffset(t *testing.T) uint32 {
	// Points is the 8th field of Root.
	return onlyArray(t, &all.Root{Points: []all.Vec3{{X: 1}}})
}

// Offsets reused to amplify work: 400 AoS elements all pointing at one big
// table. The message is small, the traversal is not: the budget stops it.
func TestOffsetReuse(t *testing.T) {
	v := &all.Root{ElementsAos: make([]all.Element, 400)}
	v.ElementsAos[0].Name = strings.Repeat("x", 8000)
	msg := Encode(v)
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	a := karmem.ArrayRef{}
	root := r.Root()
	for off := uint32(4); off+12 <= root.Used; off += 4 {
		if c := r.FieldArray(root, off, 4, karmem.NoLimit); c.Len == 400 {
			a = c
		}
	}
	if a.Len != 400 {
		t.Fatal("ElementsAos not found")
	}
	bad := append([]byte(nil), msg...)
	first := binary.LittleEndian.Uint32(bad[a.Offset:])
	for i := uint32(1); i < 400; i++ {
		binary.LittleEndian.PutUint32(bad[a.Offset+4*i:], first)
	}
	rb := karmem.NewReader(karmem.AlignedCopy(bad))
	if _, err := all.ValidateRoot(rb); !errors.Is(err, karmem.ErrBudgetExceeded) {
		t.Fatalf("validate: %v", err)
	}
	var out all.Root
	if err := out.ReadAsRoot(rb); !errors.Is(err, karmem.ErrBudgetExceeded) {
		t.Fatalf("decode: %v", err)
	}
	if err := Check(bad); err != nil {
		t.Fatal(err)
	}
}

// Nesting deeper than the reader's depth limit is refused.
func TestDepthLimit(t *testing.T) {
	msg := Encode(Sample())
	limits := karmem.DefaultLimits
	limits.MaxDepth = 2 // Root → Element → Leaf needs 3
	r := karmem.NewReaderLimits(karmem.AlignedCopy(msg), limits)
	if _, err := all.ValidateRoot(r); !errors.Is(err, karmem.ErrDepthExceeded) {
		t.Fatalf("validate: %v", err)
	}
	var v all.Root
	if err := v.ReadAsRoot(r); !errors.Is(err, karmem.ErrDepthExceeded) {
		t.Fatalf("decode: %v", err)
	}
}

// Bool bytes other than 0/1 and invalid UTF-8 / UTF-16 are reported by the
// validator; readers still return something.
func TestInvalidValues(t *testing.T) {
	msg := Encode(&all.Root{Flags: [4]bool{true}, Text: "ok", Utf16: "ok"})
	r := karmem.NewReader(karmem.AlignedCopy(msg))
	root := r.Root()
	text := all.NewRootViewer(r, 0).TextBytes(r)
	// Flags is the first field (offset 4).
	bad := append([]byte(nil), msg...)
	bad[root.Offset+4] = 2
	if _, err := all.ValidateRoot(karmem.NewReader(karmem.AlignedCopy(bad))); !errors.Is(err, karmem.ErrInvalidBool) {
		t.Errorf("bool: %v", err)
	}
	bad = append([]byte(nil), msg...)
	idx := strings.Index(string(bad), string(text))
	bad[idx] = 0xFF
	if _, err := all.ValidateRoot(karmem.NewReader(karmem.AlignedCopy(bad))); !errors.Is(err, karmem.ErrInvalidText) {
		t.Errorf("utf-8: %v", err)
	}
	bad = append([]byte(nil), msg...)
	idx = strings.Index(string(bad), "o\x00k\x00")
	bad[idx], bad[idx+1] = 0x00, 0xDC // lone low surrogate
	rb := karmem.NewReader(karmem.AlignedCopy(bad))
	if _, err := all.ValidateRoot(rb); !errors.Is(err, karmem.ErrInvalidText) {
		t.Errorf("utf-16: %v", err)
	}
	var v all.Root
	if err := v.ReadAsRoot(rb); err != nil || v.Utf16 != "\uFFFDk" {
		t.Errorf("lone surrogate decodes as U+FFFD: %q %v", v.Utf16, err)
	}
}

type escaping struct{}

func (escaping) Outside(*karmem.Reader) []byte { return make([]byte, 4) }

// The walker itself must catch a view that escapes the message.
func TestWalkDetectsEscape(t *testing.T) {
	r := karmem.NewReader(karmem.AlignedCopy(Encode(Sample())))
	if err := Walk(r, escaping{}); err == nil {
		t.Fatal("a slice outside the message went unnoticed")
	}
}

// The walk of the trusted viewers reaches as far as the walk of the checked
// ones: a fuzz input that validates exercises every trusted accessor.
func TestTrustedWalkReachesWhatTheCheckedWalkReaches(t *testing.T) {
	r := karmem.NewReader(karmem.AlignedCopy(Encode(Sample())))
	checked, err := walkCount(r, karmem.Trusted{}, all.NewRootViewer(r, 0))
	if err != nil {
		t.Fatal(err)
	}
	tr, root, err := all.TrustRoot(r)
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := walkCount(r, tr, root)
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 || trusted < checked*9/10 {
		t.Fatalf("checked walk visited %d values, trusted walk %d", checked, trusted)
	}
}

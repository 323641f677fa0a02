package integrity

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"karmem.org/go/karmem"
	v2 "karmem.org/go/karmem/internal/gen/integrity_new"
	v1 "karmem.org/go/karmem/internal/gen/integrity_old"
)

var versions = []string{Old, New}

// seeds is how many seeds the tests run: every size (seed mod 4) 16 times.
const seeds uint64 = 64

func TestSplitMix64Seed0(t *testing.T) {
	// The published first outputs of SplitMix64 seeded with 0.
	g := newRng(0)
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := g.next(); got != want {
			t.Fatalf("output %d: %#x, want %#x", i, got, want)
		}
	}
}

func TestDraws(t *testing.T) {
	// Each draw consumes exactly one next() and keeps what §1 says.
	const seed = 7
	ref, g := newRng(seed), newRng(seed)
	x := ref.next()
	if got := g.u8(); got != uint8(x) {
		t.Errorf("u8: %d from %#x", got, x)
	}
	x = ref.next()
	if got := g.i16(); got != int16(uint16(x)) {
		t.Errorf("i16: %d from %#x", got, x)
	}
	x = ref.next()
	if got := g.boolean(); got != (x&1 == 1) {
		t.Errorf("bool: %v from %#x", got, x)
	}
	x = ref.next()
	if got := g.below(10); got != x%10 {
		t.Errorf("below(10): %d from %#x", got, x)
	}
	x = ref.next()
	if got, want := g.f32(), float32(int64(x>>40)-8388608)/256; got != want {
		t.Errorf("f32: %v from %#x, want %v", got, x, want)
	}
	x = ref.next()
	if got, want := g.f64(), float64(int64(x>>11)-4503599627370496)/1024; got != want {
		t.Errorf("f64: %v from %#x, want %v", got, x, want)
	}

	// Floats are exact (a whole number of 1/256 or 1/1024), finite and of
	// both signs.
	var neg, pos bool
	for range 256 {
		f := g.f32()
		if f != float32(int32(f*256))/256 {
			t.Fatalf("f32 %v is not a 24-bit integer over 256", f)
		}
		d := g.f64()
		if d != float64(int64(d*1024))/1024 {
			t.Fatalf("f64 %v is not an integer over 1024", d)
		}
		neg, pos = neg || f < 0, pos || f > 0
	}
	if !neg || !pos {
		t.Error("f32 draws are not of both signs")
	}

	// Lengths: at most max, and at most a [<N] bound.
	if n := newRng(4).length(noLimit); n != 0 {
		t.Errorf("seed 4 drew length %d", n)
	}
	g, long := newRng(3), false
	for range 200 {
		if n := g.length(8); n > 8 {
			t.Fatalf("length %d over the bound 8", n)
		}
		long = long || g.length(noLimit) > 16
	}
	if !long {
		t.Error("seed 3 never drew a length over 16")
	}
	// Inside an array element or a map entry, at any depth, lengths are at
	// most 8; the depth is restored after it.
	length := func(g *rng) int { return g.length(noLimit) }
	nested(g, func(g *rng) struct{} {
		for range 200 {
			if n, m := length(g), nested(g, length); n > nestedMax || m > nestedMax {
				t.Fatalf("nested lengths %d, %d", n, m)
			}
		}
		return struct{}{}
	})
	if g.depth != 0 {
		t.Fatalf("depth %d after nested draws", g.depth)
	}

	// Text: every character of the alphabet shows up.
	var all strings.Builder
	g = newRng(3)
	for range 50 {
		all.WriteString(g.text())
	}
	for _, c := range alphabet {
		if !strings.ContainsRune(all.String(), c) {
			t.Errorf("no %q in 50 texts", c)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, version := range versions {
		for seed := range uint64(8) {
			a, err := Produce(version, seed)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Produce(version, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%s seed %d: two runs wrote different bytes", version, seed)
			}
		}
	}
	// And the seed matters.
	a, _ := Produce(New, 1)
	b, _ := Produce(New, 5)
	if bytes.Equal(a, b) {
		t.Fatal("seeds 1 and 5 wrote the same message")
	}
}

// TestEverySeed: each version's message passes its own consumer and the
// round trip, and the other version's consumer reads it (both directions
// of evolution).
func TestEverySeed(t *testing.T) {
	for seed := range seeds {
		for _, version := range versions {
			msg, err := Produce(version, seed)
			if err != nil {
				t.Fatalf("%s seed %d: %v", version, seed, err)
			}
			for _, consumer := range versions {
				digest, err := Consume(consumer, msg)
				if err != nil {
					t.Fatalf("%s seed %d read by %s: %v", version, seed, consumer, err)
				}
				if len(digest) != 64 {
					t.Fatalf("digest %q", digest)
				}
			}
			if err := RoundTrip(version, msg); err != nil {
				t.Fatalf("%s seed %d: %v", version, seed, err)
			}
		}
	}
}

func TestRoundTripNeedsTheSameVersion(t *testing.T) {
	// Seed 1 draws Item fields and Root's new fields: re-encoding with the
	// other version adds or drops them.
	for _, pair := range [][2]string{{Old, New}, {New, Old}} {
		msg, err := Produce(pair[0], 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := RoundTrip(pair[1], msg); err == nil {
			t.Errorf("a %s message round-tripped through %s", pair[0], pair[1])
		}
	}
}

func TestEmptySizes(t *testing.T) {
	// Seeds 0, 4, 8, … draw every array, text and map empty.
	for seed := uint64(0); seed < seeds; seed += 4 {
		msg, err := Produce(New, seed)
		if err != nil {
			t.Fatal(err)
		}
		var x v2.Root
		if err := x.ReadAsRoot(karmem.NewReader(msg)); err != nil {
			t.Fatal(err)
		}
		lengths := map[string]int{
			"Name": len(x.Name), "Wide": len(x.Wide), "Small": len(x.Small),
			"Bytes": len(x.Bytes), "Colors": len(x.Colors), "SoaPoints": len(x.SoaPoints),
			"AosPoints": len(x.AosPoints), "SoaItems": len(x.SoaItems), "AosItems": len(x.AosItems),
			"Dots": len(x.Dots), "AosShapes": len(x.AosShapes), "SoaShapes": len(x.SoaShapes),
			"BovoaShapes": len(x.BovoaShapes), "BovosShapes": len(x.BovosShapes),
			"Lookup": len(x.Lookup), "ByID": len(x.ByID), "Grid": len(x.Grid),
			"Pair.F1": len(x.Pair.F1), "More": len(x.More),
		}
		if x.MaybeName != nil {
			lengths["MaybeName"] = len(*x.MaybeName)
		}
		if x.MaybeItem != nil {
			it := x.MaybeItem
			lengths["MaybeItem.Name"] = len(it.Name)
			lengths["MaybeItem.Tags"] = len(it.Tags)
			lengths["MaybeItem.Notes"] = len(it.Notes)
		}
		if c, ok := x.Shape.(*v2.Circle); ok {
			lengths["Shape.Label"] = len(c.Label)
		}
		for field, n := range lengths {
			if n != 0 {
				t.Errorf("seed %d: %s has length %d", seed, field, n)
			}
		}
	}
}

func TestLargeSeedsFillArrays(t *testing.T) {
	// The converse: seed 3 (max 200) fills every array of the root.
	msg, err := Produce(Old, 3)
	if err != nil {
		t.Fatal(err)
	}
	var x v1.Root
	if err := x.ReadAsRoot(karmem.NewReader(msg)); err != nil {
		t.Fatal(err)
	}
	if len(x.SoaItems) == 0 || len(x.Dots) == 0 || len(x.BovosShapes) == 0 || len(x.Grid) == 0 || len(x.Lookup) == 0 {
		t.Fatalf("seed 3 left arrays empty: %d items, %d dots, %d shapes, %d rows, %d entries",
			len(x.SoaItems), len(x.Dots), len(x.BovosShapes), len(x.Grid), len(x.Lookup))
	}
	if len(x.Small) > 8 || len(x.Dots) > 64 {
		t.Fatalf("bounded arrays over their bound: %d, %d", len(x.Small), len(x.Dots))
	}
}

func TestNewReadsOldDefaults(t *testing.T) {
	// The new consumer of an old message reads the fields the old writer
	// did not write as their defaults: the stream ends with Hp, Level = 7,
	// Extra = 0 and More empty.
	msg, err := Produce(Old, 1)
	if err != nil {
		t.Fatal(err)
	}
	var x v1.Root
	if err := x.ReadAsRoot(karmem.NewReader(msg)); err != nil {
		t.Fatal(err)
	}
	s, err := Stream(New, msg)
	if err != nil {
		t.Fatal(err)
	}
	want := binary.LittleEndian.AppendUint16(nil, x.Hp)
	want = append(want, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if !bytes.HasSuffix(s, want) {
		t.Fatalf("stream ends with % x, want % x", s[len(s)-len(want):], want)
	}
	// And the old consumer ends with Hp.
	s, err = Stream(Old, msg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(s, want[:2]) {
		t.Fatalf("old stream ends with % x, want % x", s[len(s)-2:], want[:2])
	}
}

func TestRefusesMalformed(t *testing.T) {
	msg, err := Produce(New, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, msg[:len(msg)-8], append([]byte("XX"), msg[2:]...)} {
		for _, version := range versions {
			if _, err := Consume(version, bad); err == nil {
				t.Errorf("%s consumed a malformed message of %d bytes", version, len(bad))
			}
		}
	}
	// A message that is not where 8-byte alignment puts it is copied, not
	// refused.
	shifted := make([]byte, len(msg)+1)[1:]
	copy(shifted, msg)
	a, err := Consume(New, shifted)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Consume(New, msg)
	if a != b {
		t.Fatal("a misaligned copy reads differently")
	}
}

func TestAnswer(t *testing.T) {
	produced := Answer("produce new 2")
	msg, err := hex.DecodeString(produced)
	if err != nil {
		t.Fatalf("produce answered %.80q", produced)
	}
	want, _ := Produce(New, 2)
	if !bytes.Equal(msg, want) {
		t.Fatal("produce answered another message")
	}
	digest, _ := Consume(Old, msg)
	if got := Answer("consume old " + produced); got != digest {
		t.Fatalf("consume answered %q, want %q", got, digest)
	}
	stream, _ := Stream(New, msg)
	if got := Answer("stream new " + strings.ToUpper(produced)); got != hex.EncodeToString(stream) {
		t.Fatalf("stream answered %.80q", got)
	}
	if got := Answer("roundtrip new " + produced); got != "ok" {
		t.Fatalf("roundtrip answered %q", got)
	}
	for _, bad := range []string{
		"", "produce", "produce new", "produce new 1 2", "produce newer 1",
		"produce new -1", "produce new x", "consume new 0g", "consume new 4b4d",
		"stream old abc", "roundtrip old " + produced, "eat new 1",
		"produce new " + strconv.Quote("1"),
	} {
		got := Answer(bad)
		if !strings.HasPrefix(got, "error ") || strings.Contains(got, "\n") {
			t.Errorf("%.40q answered %q", bad, got)
		}
	}
}

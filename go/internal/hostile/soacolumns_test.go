package hostile

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"karmem.org/go/karmem"
	sc "karmem.org/go/karmem/internal/gen/schemas_soa_columns"
)

// The generated validator of testdata/schemas/soa_columns.km checks each
// column of array references of an SoA element at once, then what every
// reference leads to (UTF-16 text, bools, nested SoA arrays with text of
// their own, union arrays) element by element (RATIONALE R5.9). A fault
// in any element of any of those columns must be found.

func soaColumnsSample() *sc.Root {
	items := make([]sc.Item, 5)
	for i := range items {
		items[i] = sc.Item{
			Wide:   "wide ü 日本",
			Flags:  []bool{true, false, true},
			Tags:   []sc.Tag{{Label: "a"}, {Label: "tag ünï"}},
			Shapes: []sc.Shape{&sc.Circle{Radius: 1}, &sc.Square{Side: 2}},
			Bunch:  []sc.Shape{&sc.Square{Side: 3}, &sc.Circle{Radius: 4}},
			Ok:     i%2 == 0,
		}
	}
	return &sc.Root{Items: items}
}

func soaColumnsEncode(t *testing.T, x *sc.Root) []byte {
	w := karmem.NewWriter(1 << 10)
	if _, err := x.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	return karmem.AlignedCopy(w.Bytes())
}

func TestSoaColumnsFaultInEveryElementIsFound(t *testing.T) {
	clean := soaColumnsEncode(t, soaColumnsSample())
	if _, err := sc.ValidateRoot(karmem.NewReader(clean)); err != nil {
		t.Fatalf("the sample does not validate: %v", err)
	}
	// Each fault is written through a view aliasing the message.
	faults := []struct {
		name    string
		want    error
		corrupt func(r *karmem.Reader, it sc.ItemSoaItem, items sc.ItemSoaViewer, i int)
	}{
		{"lone surrogate", karmem.ErrInvalidText, func(r *karmem.Reader, it sc.ItemSoaItem, _ sc.ItemSoaViewer, _ int) {
			it.Wide(r)[1] = 0xD800
		}},
		{"bool 2 in an array", karmem.ErrInvalidBool, func(r *karmem.Reader, it sc.ItemSoaItem, _ sc.ItemSoaViewer, _ int) {
			it.Flags(r)[2] = 2
		}},
		{"bad UTF-8 in a nested SoA array", karmem.ErrInvalidText, func(r *karmem.Reader, it sc.ItemSoaItem, _ sc.ItemSoaViewer, _ int) {
			it.Tags(r).At(1).LabelBytes(r)[0] = 0xFF
		}},
		{"bool column", karmem.ErrInvalidBool, func(r *karmem.Reader, _ sc.ItemSoaItem, items sc.ItemSoaViewer, i int) {
			items.Ok(r)[i] = 3
		}},
	}
	for _, f := range faults {
		for i := range 5 {
			m := append([]byte(nil), clean...)
			m = karmem.AlignedCopy(m)
			r := karmem.NewReader(m)
			items := sc.NewRootViewer(r, 0).Items(r)
			f.corrupt(r, items.At(i), items, i)
			if _, err := sc.ValidateRoot(karmem.NewReader(m)); !errors.Is(err, f.want) {
				t.Errorf("%s in element %d: got %v, want %v", f.name, i, err, f.want)
			}
		}
	}
}

// Corrupted copies: the validator never panics, and what it accepts
// decodes within the same budget (format.md §10).
func TestSoaColumnsValidatedDecodes(t *testing.T) {
	clean := soaColumnsEncode(t, soaColumnsSample())
	rng := rand.New(rand.NewPCG(21, 22))
	accepted := 0
	for range 3000 {
		m := karmem.AlignedCopy(clean)
		size := uint32(len(m))
		for range 1 + rng.IntN(3) {
			at := 8 + 4*uint32(rng.IntN(int(size-8)/4))
			old := binary.LittleEndian.Uint32(m[at:])
			values := []uint32{0, rng.Uint32(), size - 64, old + 64, old ^ 1<<rng.IntN(32), uint32(rng.IntN(8))}
			binary.LittleEndian.PutUint32(m[at:], values[rng.IntN(len(values))])
		}
		r := karmem.NewReader(m)
		if _, err := sc.ValidateRoot(r); err != nil {
			continue
		}
		accepted++
		var x sc.Root
		if err := x.ReadAsRoot(r); err != nil {
			t.Fatalf("a validated message does not decode: %v", err)
		}
	}
	if accepted < 100 || accepted > 2900 {
		t.Fatalf("%d of 3000 accepted", accepted)
	}
}

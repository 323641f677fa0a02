package vectors

import (
	"errors"
	"testing"

	"karmem.org/go/karmem"
	maps "karmem.org/go/karmem/internal/gen/vectors_maps_schema"
)

// Maps (docs/idl.md §3.2) through the generated Go code: look-ups by
// binary search, entries in key order, Go maps as objects, and entries
// out of order refused by the validator.
func TestMapViews(t *testing.T) {
	r := defaultsOrOptional(t, "maps", "full.hex")
	root := maps.NewRootViewer(r, 0)
	if age, ok := root.Ages(r).Get(r, "ana"); !ok || age != 41 {
		t.Fatalf("Ages[ana] = %d, %v", age, ok)
	}
	if _, ok := root.Ages(r).Get(r, "bob"); ok {
		t.Fatal("Ages has bob")
	}
	if k, _ := root.Signed(r).At(r, 0); k != -2147483648 {
		t.Fatalf("first Signed key %d", k)
	}
	if orcs, ok := root.ByTeam(r).Get(r, maps.TeamOrcs); !ok || orcs.Len() != 2 {
		t.Fatalf("ByTeam[Orcs]: %v", ok)
	}
	if unit, ok := root.ByID(r).Get(r, 42); !ok || unit.Hp(r) != 3 {
		t.Fatalf("ByID[42]: %v", ok)
	}
	b, _ := root.Nested(r).Get(r, "b")
	if yes, ok := b.Get(r, 3); !ok || !yes {
		t.Fatal("Nested[b][3]")
	}
	var x maps.Root
	if err := x.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if x.Ages["zoe"] != 30 || x.ByID[0].Hp != 2 || !x.Nested["b"][3] || (*x.Maybe)["only"] != 1 {
		t.Fatalf("decoded: %+v", x)
	}
	// Go's map order is random; the bytes are not.
	w := karmem.NewWriter(1024)
	for range 5 {
		if _, err := x.WriteAsRoot(w); err != nil {
			t.Fatal(err)
		}
		if string(w.Bytes()) != string(r.Bytes()) {
			t.Fatal("a map encoded in another order")
		}
	}
}

func TestMapEntriesOutOfOrder(t *testing.T) {
	buf := append([]byte(nil), defaultsOrOptional(t, "maps", "full.hex").Bytes()...)
	const signed = 8 + 28 // the root table, then Root.Signed's reference
	block := uint32(buf[signed]) | uint32(buf[signed+1])<<8 | uint32(buf[signed+2])<<16 | uint32(buf[signed+3])<<24
	first := append([]byte(nil), buf[block:block+4]...)
	copy(buf[block:block+4], buf[block+16:block+20])
	copy(buf[block+16:block+20], first)
	r := karmem.NewReader(karmem.AlignedCopy(buf))
	if _, err := maps.ValidateRoot(r); !errors.Is(err, karmem.ErrMalformedArray) {
		t.Fatalf("validate: %v", err)
	}
	if n := maps.NewRootViewer(r, 0).Signed(r).Len(); n != 3 {
		t.Fatalf("%d entries", n)
	}
}

package game

import (
	"testing"

	"karmem.org/go/karmem"
	km "karmem.org/go/karmem/internal/gen/bench_game"
)

func encoded(t testing.TB, s *State) []byte {
	w := karmem.NewWriter(1 << 16)
	if _, err := ToKarmem(s).WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	return w.Bytes()
}

func TestRoundTripAndSum(t *testing.T) {
	s := Generate(200, 300)
	buf := encoded(t, s)
	r := karmem.NewReader(buf)
	var got km.State
	if err := got.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	want := ToKarmem(s)
	if len(got.Monsters) != len(want.Monsters) {
		t.Fatalf("%d monsters", len(got.Monsters))
	}
	for i := range want.Monsters {
		a, b := &got.Monsters[i].Data, &want.Monsters[i].Data
		if a.Name != b.Name || a.Pos != b.Pos || a.Mana != b.Mana || a.Hitbox != b.Hitbox ||
			len(a.Path) != len(b.Path) || len(a.Inventory) != len(b.Inventory) ||
			len(a.Weapons) != len(b.Weapons) || len(a.Status) != len(b.Status) {
			t.Fatalf("monster %d differs", i)
		}
		for j := range b.Path {
			if a.Path[j] != b.Path[j] {
				t.Fatalf("monster %d path %d differs", i, j)
			}
		}
	}
	if _, err := km.ValidateState(r); err != nil {
		t.Fatal(err)
	}
	if got, want := SumKarmem(r), SumPaths(s); got != want {
		t.Fatalf("viewer sum %v != %v", got, want)
	}
}

// Encoding with a reused writer, decoding into a reused object, validating
// and reading through viewers allocate nothing (in steady state).
func TestZeroAllocations(t *testing.T) {
	s := Generate(100, 200)
	obj := ToKarmem(s)
	w := karmem.NewWriter(1 << 10)
	if _, err := obj.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	buf := karmem.AlignedCopy(w.Bytes())
	r := karmem.NewReader(buf)
	var dec km.State
	if err := dec.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		f    func()
	}{
		{"encode into a reused writer", func() { _, _ = obj.WriteAsRoot(w) }},
		{"decode into a reused object", func() { _ = dec.ReadAsRoot(r) }},
		{"validate", func() { _, _ = km.ValidateState(r) }},
		{"viewer sum", func() { _ = SumKarmem(r) }},
		{"trust and trusted viewers", func() {
			tr, root, _ := km.TrustState(r)
			_ = SumTrusted(tr, root)
			m := root.Monsters(tr)
			_ = m.At(3).Data(tr).Name(tr)
			for _, e := range m.All() {
				_ = e.Data(tr).Weapons(tr).At(0).Data(tr).Damage(tr)
			}
		}},
		{"reader per call", func() {
			r := karmem.NewReader(buf)
			m := km.NewStateViewer(r, 0).Monsters(r)
			_ = m.At(3).Data(r).Name(r)
			for _, e := range m.All() {
				_ = e.Data(r).Weapons(r).At(0).Data(r).Damage(r)
			}
		}},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(20, c.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", c.name, n)
		}
	}
}

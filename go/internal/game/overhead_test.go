package game

import (
	"testing"

	"karmem.org/go/karmem"
	km "karmem.org/go/karmem/internal/gen/bench_game"
)

// The fixed cost per SoA array read through a viewer (directory scan,
// column checks): paths of one point, so the sum is all overhead.
func BenchmarkPerMonsterOverhead(b *testing.B) {
	s := Generate(1000, 1)
	buf := encoded(b, s)
	r := karmem.NewReader(buf)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = SumKarmem(r)
	}
}

// The natural per-element loop (path.At(j).X(r), as the first Karmem's
// benchmark reads a path) against the column API (SumKarmem), on the same
// data: issue #11 asks for it within 1.5× of the columns.
func sumPerElement(r *karmem.Reader) float64 {
	var sum float32
	monsters := km.NewStateViewer(r, 0).Monsters(r)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(r).Path(r)
		for j := range path.Len() {
			p := path.At(j)
			sum += p.X(r) + p.Y(r) + p.Z(r)
		}
	}
	return float64(sum)
}

// The same loop over a validated message (km.TrustState): the trusted
// viewers skip the checks the validation made (RATIONALE R5.11).
func sumPerElementTrusted(t karmem.Trusted, root km.TrustedStateViewer) float64 {
	var sum float32
	monsters := root.Monsters(t)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(t).Path(t)
		for j := range path.Len() {
			p := path.At(j)
			sum += p.X(t) + p.Y(t) + p.Z(t)
		}
	}
	return float64(sum)
}

func TestPerElementLoopAgreesWithColumns(t *testing.T) {
	buf := encoded(t, Generate(50, 40))
	r := karmem.NewReader(buf)
	tr, root, err := km.TrustState(r)
	if err != nil {
		t.Fatal(err)
	}
	want := SumKarmem(r)
	for name, got := range map[string]float64{
		"per element":         sumPerElement(r),
		"trusted per element": sumPerElementTrusted(tr, root),
		"trusted columns":     SumTrusted(tr, root),
	} {
		if got != want {
			t.Errorf("%s %v, columns %v", name, got, want)
		}
	}
}

func BenchmarkPathSum(b *testing.B) {
	buf := encoded(b, Generate(1000, 100))
	r := karmem.NewReader(buf)
	tr, root, err := km.TrustState(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("api=columns", func(b *testing.B) {
		for range b.N {
			_ = SumKarmem(r)
		}
	})
	b.Run("api=at", func(b *testing.B) {
		for range b.N {
			_ = sumPerElement(r)
		}
	})
	b.Run("api=trusted-columns", func(b *testing.B) {
		for range b.N {
			_ = SumTrusted(tr, root)
		}
	})
	b.Run("api=trusted-at", func(b *testing.B) {
		for range b.N {
			_ = sumPerElementTrusted(tr, root)
		}
	})
}

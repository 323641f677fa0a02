package game

import (
	"testing"

	"karmem.org/go/karmem"
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

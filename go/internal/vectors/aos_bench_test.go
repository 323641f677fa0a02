package vectors

import (
	"testing"

	"karmem.org/go/karmem"
	sa "karmem.org/go/karmem/internal/gen/vectors_struct_arrays_schema"
)

// BenchmarkAosInlineSum reads X+Y+Z of each of 10 000 elements of an AoS
// array of inline structs (`AosInline []Vec3 #aos`) through the checked
// viewers — a []Vec3Viewer over the message (RATIONALE R5.12) — and, for
// reference, of a native Go slice of the same structs.
func BenchmarkAosInlineSum(b *testing.B) {
	root := sa.Root{}
	for i := range 10000 {
		root.AosInline = append(root.AosInline, sa.Vec3{X: float32(i), Y: 1, Z: 2})
	}
	w := karmem.NewWriter(0)
	if _, err := root.WriteAsRoot(w); err != nil {
		b.Fatal(err)
	}
	r := karmem.NewReader(w.Bytes())
	view := sa.NewRootViewer(r, 0)
	b.Run("impl=karmem", func(b *testing.B) {
		var sum float32
		for range b.N {
			points := view.AosInline(r)
			for i := range points {
				sum += points[i].X(r) + points[i].Y(r) + points[i].Z(r)
			}
		}
		if sum == 0 {
			b.Fatal("nothing read")
		}
	})
	b.Run("impl=native", func(b *testing.B) {
		var sum float32
		for range b.N {
			points := root.AosInline
			for i := range points {
				sum += points[i].X + points[i].Y + points[i].Z
			}
		}
		if sum == 0 {
			b.Fatal("nothing read")
		}
	})
}

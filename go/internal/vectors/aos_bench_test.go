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
	b.Run("impl=karmem-values", func(b *testing.B) {
		var sum float32
		for range b.N {
			for _, p := range view.AosInlineValues(r) {
				sum += p.X + p.Y + p.Z
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

// An AoS array of a struct of numbers read as a Go slice of the object
// type (AosInlineValues, RATIONALE R5.14) holds what the decoder and the
// viewers read, through the checked and the trusted reader, and an empty
// or absent array gives nil.
func TestAosInlineValues(t *testing.T) {
	root := sa.Root{AosInline: []sa.Vec3{{X: 1, Y: 2, Z: 3}, {X: -4, Y: 0.5, Z: 6}}}
	w := karmem.NewWriter(0)
	if _, err := root.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	r := karmem.NewReader(w.Bytes())
	view := sa.NewRootViewer(r, 0)
	got := view.AosInlineValues(r)
	if len(got) != 2 || got[0] != root.AosInline[0] || got[1] != root.AosInline[1] {
		t.Fatalf("checked: %v", got)
	}
	tr, tview, err := sa.TrustRoot(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := tview.AosInlineValues(tr); len(got) != 2 || got[1] != root.AosInline[1] {
		t.Fatalf("trusted: %v", got)
	}
	w2 := karmem.NewWriter(0)
	if _, err := (&sa.Root{}).WriteAsRoot(w2); err != nil {
		t.Fatal(err)
	}
	r2 := karmem.NewReader(w2.Bytes())
	if sa.NewRootViewer(r2, 0).AosInlineValues(r2) != nil {
		t.Fatal("an empty array gives nil")
	}
}

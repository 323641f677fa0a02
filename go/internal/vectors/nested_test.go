package vectors

import (
	"testing"

	nested "karmem.org/go/karmem/internal/gen/vectors_nested_schema"
)

// Arrays of arrays (docs/idl.md §3.1) through the generated Go code:
// zero-copy views at every level, objects as slices of slices.
func TestNestedViews(t *testing.T) {
	r := defaultsOrOptional(t, "nested", "full.hex")
	root := nested.NewRootViewer(r, 0)
	names := root.Names(r)
	if names.Len() != 3 || names.At(r, 2) != "héllo" || names.At(r, 3) != "" {
		t.Fatalf("names: %d, %q", names.Len(), names.At(r, 2))
	}
	if m := root.Matrix(r).At(r, 0); len(m) != 2 || m[1] != 2 {
		t.Fatalf("matrix[0] = %v", m)
	}
	cube := root.Cube(r)
	if c := cube.At(r, 0).At(r, 0); len(c) != 2 || c[1] != 2 {
		t.Fatalf("cube[0][0] = %v", c)
	}
	if z := root.Paths(r).At(r, 2).Z(r); len(z) != 2 || z[1] != 9 {
		t.Fatalf("paths[2].Z = %v", z)
	}
	if tags := root.Groups(r).At(r, 0).At(0).Tags(r); tags.At(r, 1) != "y" {
		t.Fatalf("groups[0][0].Tags[1] = %q", tags.At(r, 1))
	}
	if cells := root.Rows(r).At(0).Cells(r).At(r, 0); len(cells) != 2 || cells[1] != -2 {
		t.Fatalf("rows[0].Cells[0] = %v", cells)
	}
	var x nested.Root
	if err := x.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if len(x.Cube) != 3 || x.Cube[2][0][0] != 3 || x.Names[1] != "" || (*x.Maybe)[0] != "m" {
		t.Fatalf("decoded: %+v", x)
	}
	// The zero viewer of an absent field reads as empty.
	var none nested.RootViewer
	if none.Names(r).Len() != 0 {
		t.Fatal("an absent array of arrays has elements")
	}
}

package vectors

import (
	"errors"
	"testing"

	"karmem.org/go/karmem"
	optional "karmem.org/go/karmem/internal/gen/vectors_optional_schema"
)

// Optional fields (docs/idl.md §4.3.2) through the generated Go code: a
// viewer returns (value, true) or (zero, false), zero values included; the
// object type holds pointers, nil for no value; a table holds its own type
// through an optional table.

func TestOptionalValuesAndZeroValues(t *testing.T) {
	r := defaultsOrOptional(t, "optional", "some.hex")
	root := optional.NewRootViewer(r, 0)
	if hp, ok := root.Hp(r); !ok || hp != 0 {
		t.Fatalf("Hp = %d, %v; want 0, true", hp, ok)
	}
	if name, ok := root.Name(r); !ok || name != "" {
		t.Fatalf("Name = %q, %v", name, ok)
	}
	var values []int32
	for n, ok := root.List(r); ok; n, ok = n.Next(r) {
		values = append(values, n.Value(r))
	}
	if len(values) != 3 || values[2] != 3 {
		t.Fatalf("list: %v", values)
	}
	third := root.Units(r).At(2)
	if _, ok := third.Hp(r); ok {
		t.Fatal("third unit has an Hp")
	}
	if _, ok := third.Link(r); ok {
		t.Fatal("third unit has a Link")
	}
	var x optional.Root
	if err := x.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if x.Hp == nil || *x.Hp != 0 || x.Units[2].Hp != nil || x.List.Next.Next.Value != 3 {
		t.Fatalf("decoded: %+v", x)
	}
	// The same object, reused for a message without values, drops them.
	if err := x.ReadAsRoot(defaultsOrOptional(t, "optional", "none.hex")); err != nil {
		t.Fatal(err)
	}
	if x.Hp != nil || x.List != nil || x.Pos != nil || x.Units[0].Link != nil {
		t.Fatalf("values left after a message without them: %+v", x)
	}
}

func TestOptionalAbsentFromAnOlderMessage(t *testing.T) {
	r := defaultsOrOptional(t, "optional", "old_writer.hex")
	tr, root, err := optional.TrustRoot(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root.Hp(tr); ok {
		t.Fatal("Hp present in an older message")
	}
	if _, ok := root.List(tr); ok {
		t.Fatal("List present in an older message")
	}
}

func TestOptionalListRoundTrip(t *testing.T) {
	var list *optional.Node
	for v := int32(99); v >= 0; v-- {
		list = &optional.Node{Value: v, Next: list}
	}
	w := karmem.NewWriter(1024)
	x := optional.Root{List: list}
	if _, err := x.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	r := karmem.NewReaderLimits(w.Bytes(), karmem.Limits{MaxDepth: 512, MaxDirectoryEntries: 1024, TraversalBudgetFactor: 8})
	var y optional.Root
	if err := y.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if !Equal(x, y) {
		t.Fatal("the list changed through a message")
	}
	// With the default depth limit (64 tables) the decoder stops.
	if err := y.ReadAsRoot(karmem.NewReader(w.Bytes())); !errors.Is(err, karmem.ErrDepthExceeded) {
		t.Fatalf("deep list: %v", err)
	}
}

// A presence byte other than 0 or 1 is malformed (format.md §4.2): the
// validator refuses it; readers that do not validate take it as a value.
func TestOptionalPresenceByteTwo(t *testing.T) {
	buf := append([]byte(nil), defaultsOrOptional(t, "optional", "some.hex").Bytes()...)
	const hp = 8 + 32 // the root table, then Root.Hp's presence byte
	if buf[hp] != 1 {
		t.Fatalf("byte %d is %d, not Hp's presence byte", hp, buf[hp])
	}
	buf[hp] = 2
	r := karmem.NewReader(karmem.AlignedCopy(buf))
	if _, err := optional.ValidateRoot(r); !errors.Is(err, karmem.ErrInvalidBool) {
		t.Fatalf("validate: %v", err)
	}
	if hp, ok := optional.NewRootViewer(r, 0).Hp(r); !ok || hp != 0 {
		t.Fatalf("Hp = %d, %v", hp, ok)
	}
}

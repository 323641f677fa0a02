package hostile

import (
	"errors"
	"testing"

	"karmem.org/go/karmem"
	all "karmem.org/go/karmem/internal/gen/schemas_all_layouts"
)

// In-place updates through the generated setters: scalars of present
// table fields, plain arrays within their capacity; views see the change.
func TestGeneratedSetters(t *testing.T) {
	buf := karmem.AlignedCopy(Encode(Sample()))
	e, err := karmem.NewEditor(buf)
	if err != nil {
		t.Fatal(err)
	}
	r := &e.Reader
	root := all.NewRootViewer(r, 0)
	if err := root.SetKind(e, all.KindA); err != nil {
		t.Fatal(err)
	}
	if err := root.SetWide(e, all.WideBig); err != nil {
		t.Fatal(err)
	}
	limited := root.EditLimited(e)
	if len(limited) != 3 || cap(limited) != 3 {
		t.Fatalf("limited: %v (cap %d)", limited, cap(limited))
	}
	limited[1] = 77
	if err := root.SetLimitedLen(e, 2); err != nil {
		t.Fatal(err)
	}
	if err := root.SetLimitedLen(e, 4); !errors.Is(err, karmem.ErrTooLarge) {
		t.Fatalf("growing past capacity: %v", err)
	}
	if err := root.SetLimitedLen(e, 9); !errors.Is(err, karmem.ErrTooLarge) {
		t.Fatalf("growing past the limit: %v", err)
	}
	next := root.Next(r)
	if err := next.SetValue(e, 12345); err != nil {
		t.Fatal(err)
	}

	var got all.Root
	if err := got.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if got.Kind != all.KindA || got.Wide != all.WideBig || got.Next.Value != 12345 {
		t.Fatalf("scalars: %v %v %v", got.Kind, got.Wide, got.Next.Value)
	}
	if len(got.Limited) != 2 || got.Limited[1] != 77 {
		t.Fatalf("limited: %v", got.Limited)
	}
	if _, err := all.ValidateRoot(r); err != nil {
		t.Fatalf("an edited message stays valid: %v", err)
	}
	// A field the message does not have (an absent table) cannot be set.
	var empty all.LeafViewer
	if err := empty.SetValue(e, 1); err == nil {
		t.Fatal("set on an absent table")
	}
}

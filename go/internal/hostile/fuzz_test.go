package hostile

import (
	"errors"
	"testing"

	"karmem.org/go/karmem"
	all "karmem.org/go/karmem/internal/gen/schemas_all_layouts"
)

func seeds(f *testing.F) {
	f.Add(Encode(Sample()))
	f.Add(Encode(&all.Root{}))
	f.Add(Encode(&all.Root{Elements: Sample().Elements}))
	f.Add([]byte("KM\x02\x00\x08\x00\x00\x00"))
}

// FuzzReader: viewers, decoding (twice, into one object) and validation on
// arbitrary bytes. Nothing panics, no view escapes the message, a
// validated message decodes (see Check).
func FuzzReader(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := Check(data); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzValidator: whatever validates decodes, re-encodes, and decodes again
// to the same value (the decoder only produces values the writer can
// express, and the writer is deterministic).
func FuzzValidator(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := karmem.NewReader(karmem.AlignedCopy(data))
		if _, err := all.ValidateRoot(r); err != nil {
			return
		}
		var v all.Root
		if err := v.ReadAsRoot(r); err != nil {
			t.Fatalf("a validated message does not decode: %v", err)
		}
		once := Encode(&v)
		var again all.Root
		// The budget is relative to the message's size (format.md §10):
		// the canonical encoding may be much smaller than the fuzzer's
		// bytes while it holds as many elements without columns (one unit
		// each, no bytes), so it is read with the budget the first read had.
		limits := karmem.DefaultLimits
		limits.TraversalBudgetFactor *= uint32(len(data)/max(len(once), 1)) + 1
		r2 := karmem.NewReaderLimits(karmem.AlignedCopy(once), limits)
		if err := again.ReadAsRoot(r2); err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if _, err := all.ValidateRoot(r2); err != nil && !errors.Is(err, karmem.ErrInvalidText) {
			// Invalid UTF-8 survives a round trip (Go strings keep bytes).
			t.Fatalf("re-encoded value does not validate: %v", err)
		}
		if twice := Encode(&again); string(twice) != string(once) {
			t.Fatal("encoding is not stable across a round trip")
		}
	})
}

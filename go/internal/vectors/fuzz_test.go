package vectors

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"karmem.org/go/karmem"
)

// The data model's schemas under fuzzing: optional fields, defaults,
// arrays of arrays, maps (docs/idl.md §3.1-§4.3.2).
var dataModel = []string{
	"vectors/optional/schema.km",
	"vectors/defaults/new.km",
	"vectors/nested/schema.km",
	"vectors/maps/schema.km",
	"vectors/tuples/schema.km",
}

// FuzzDataModel: the first byte picks the schema; the rest is a message
// with root Root. Decoding (twice, into one object) never panics; a message
// that validates reads the same through checked and trusted viewers (every
// accessor, element and map entry; see sameViews), decodes, and re-encodes
// stably.
func FuzzDataModel(f *testing.F) {
	for i, schema := range dataModel {
		dir := filepath.Join(vectorsDir, filepath.Dir(filepath.Clean(schema[len("vectors/"):])))
		hexes, _ := filepath.Glob(filepath.Join(dir, "*.hex"))
		for _, path := range hexes {
			text, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			b, err := ParseHex(string(text))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(append([]byte{byte(i)}, b...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		schema := dataModel[int(data[0])%len(dataModel)]
		message := karmem.AlignedCopy(data[1:])
		r := karmem.NewReader(message)
		x, _, err := New(schema, "Root")
		if err != nil {
			t.Fatal(err)
		}
		_ = x.ReadAsRoot(r)
		_ = x.ReadAsRoot(r)
		v, err := Views(schema, "Root", r)
		if err != nil {
			if errors.Is(err, errTrustDisagrees) {
				t.Fatal(err)
			}
			return
		}
		if err := sameViews(r, v); err != nil {
			t.Fatal(err)
		}
		y, _, _ := New(schema, "Root")
		if err := y.ReadAsRoot(r); err != nil {
			t.Fatalf("a validated message does not decode: %v", err)
		}
		w := karmem.NewWriter(len(message))
		if _, err := y.WriteAsRoot(w); err != nil {
			t.Fatalf("a decoded value does not encode: %v", err)
		}
		once := append([]byte(nil), w.Bytes()...)
		z, _, _ := New(schema, "Root")
		limits := karmem.DefaultLimits
		limits.TraversalBudgetFactor *= uint32(len(message)/max(len(once), 1)) + 1
		if err := z.ReadAsRoot(karmem.NewReaderLimits(karmem.AlignedCopy(once), limits)); err != nil {
			t.Fatalf("the re-encoded value does not decode: %v", err)
		}
		if _, err := z.WriteAsRoot(w); err != nil || string(w.Bytes()) != string(once) {
			t.Fatalf("encoding is not stable across a round trip (%v)", err)
		}
	})
}

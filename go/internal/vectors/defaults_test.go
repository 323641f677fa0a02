package vectors

import (
	"os"
	"path/filepath"
	"testing"

	"karmem.org/go/karmem"
	defaults "karmem.org/go/karmem/internal/gen/vectors_defaults_new"
)

// Field defaults (docs/idl.md §4.3.1) through the generated Go code: an
// older writer's message read with the newer schema gives the defaults in
// every accessor (checked and trusted viewers, SoA elements, AoS tables,
// the decoder); NewUnit holds them; stored zeros stay zeros.

func defaultsVector(t *testing.T, name string) *karmem.Reader {
	t.Helper()
	return defaultsOrOptional(t, "defaults", name)
}

// defaultsOrOptional opens the .hex file `name` of a vector topic.
func defaultsOrOptional(t *testing.T, topic, name string) *karmem.Reader {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(vectorsDir, topic, name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseHex(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return karmem.NewReader(karmem.AlignedCopy(b))
}

func TestDefaultsOfAnOlderMessage(t *testing.T) {
	r := defaultsVector(t, "old_writer.hex")
	root := defaults.NewRootViewer(r, 0)
	leader := root.Leader(r)
	if leader.ID(r) != 9 || leader.Hp(r) != 100 || leader.Speed(r) != 1.5 || !leader.Alive(r) ||
		leader.Side(r) != defaults.TeamOrcs || leader.Name(r) != "anon" ||
		string(leader.NameBytes(r)) != "anon" || leader.Score(r) != -7 || leader.Ratio(r) != 0.1 {
		t.Fatalf("leader does not read as the defaults")
	}
	if root.Motto(r) != "für alle" || root.Tag(r) != `a"b` {
		t.Fatalf("root text defaults: %q %q", root.Motto(r), root.Tag(r))
	}
	units := root.Units(r)
	if units.Len() != 2 || len(units.Hp(r)) != 0 {
		t.Fatalf("units: %d elements, Hp column %v", units.Len(), units.Hp(r))
	}
	for i, u := range units.All() {
		if u.ID(r) != uint32(i+1) || u.Hp(r) != 100 || !u.Alive(r) || u.Side(r) != defaults.TeamOrcs ||
			u.Name(r) != "anon" || u.Score(r) != -7 {
			t.Fatalf("unit %d does not read as the defaults", i)
		}
	}
	trusted, tr, err := defaults.TrustRoot(r)
	if err != nil {
		t.Fatal(err)
	}
	tl := tr.Leader(trusted)
	if tl.Hp(trusted) != 100 || tl.Name(trusted) != "anon" {
		t.Fatalf("trusted leader does not read as the defaults")
	}

	var x defaults.Root
	if err := x.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	want := defaults.NewUnit()
	want.ID = 2
	if x.Units[1] != want || x.Leader.Hp != 100 || x.Guards[0].Name != "anon" || x.Motto != "für alle" {
		t.Fatalf("decoded: %+v", x)
	}
}

func TestDefaultsAreWrittenAndStoredZerosStay(t *testing.T) {
	x := defaults.NewRoot()
	x.Version = 3
	u := defaults.NewUnit()
	u.ID = 1
	x.Units = []defaults.Unit{u}
	x.Leader.ID = 2
	w := karmem.NewWriter(256)
	if _, err := x.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	golden := defaultsVector(t, "new_defaults.hex").Bytes()
	if string(w.Bytes()) != string(golden) {
		t.Fatalf("NewRoot with defaults encodes differently from new_defaults.hex")
	}

	r := defaultsVector(t, "new_writer.hex")
	second := defaults.NewRootViewer(r, 0).Units(r).At(1)
	if second.Hp(r) != 0 || second.Alive(r) || second.Side(r) != defaults.TeamHumans || second.Name(r) != "" {
		t.Fatalf("stored zero values read as defaults")
	}
}

package vectors

import (
	"encoding/json"
	"testing"

	tuples "karmem.org/go/karmem/internal/gen/vectors_tuples_schema"
)

// Tuples (docs/idl.md §3.3) through the generated Go code: structs with
// positional fields F0, F1..., viewers f0... as F0(r), and JSON arrays with
// encoding/json as with karmem json.
func TestTuples(t *testing.T) {
	r := defaultsOrOptional(t, "tuples", "full.hex")
	root := tuples.NewRootViewer(r, 0)
	if pos := root.Pos(r); pos.F0(r) != 1.5 || pos.F1(r) != -2 {
		t.Fatalf("Pos = %v, %v", pos.F0(r), pos.F1(r))
	}
	if root.Nested(r).F1(r).F1(r) != true {
		t.Fatal("Nested.1.1")
	}
	var x tuples.Root
	if err := x.ReadAsRoot(r); err != nil {
		t.Fatal(err)
	}
	if x.Named.F1 != "seven" || x.Points[1].F2 != 6 || x.Scores["b"].F1 != 0.25 {
		t.Fatalf("decoded: %+v", x)
	}
	out, err := json.Marshal(x.Nested)
	if err != nil || string(out) != `[1,[-3,true]]` {
		t.Fatalf("json: %s, %v", out, err)
	}
	var back tuples.RootNestedTuple
	if err := json.Unmarshal(out, &back); err != nil || back != x.Nested {
		t.Fatalf("json back: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &back); err == nil {
		t.Fatal("a tuple of the wrong length was accepted")
	}
}

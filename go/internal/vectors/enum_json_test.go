package vectors

import (
	"encoding/json"
	"strings"
	"testing"

	gen "karmem.org/go/karmem/internal/gen/vectors_enums_schema"
)

// Generated enums marshal to JSON as the golden vectors and `karmem json`
// write them (testdata/vectors/README.md): a named value as its name, any
// other value as its number; both are read back.
func TestEnumJSONNamesAndNumbers(t *testing.T) {
	in := gen.Enums{A: gen.E8Max, E: gen.S8Min, I: 123456, List: []gen.E8{gen.E8One, 7}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{`"A":"Max"`, `"E":"Min"`, `"I":123456`, `"List":["One",7]`, `"B":"Zero"`} {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %s", text, want)
		}
	}
	var out gen.Enums
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.A != gen.E8Max || out.E != gen.S8Min || out.I != 123456 || out.List[1] != 7 {
		t.Errorf("round trip: %+v", out)
	}
	// Numbers are read for named values too; an unknown name is an error.
	var e gen.S16
	if err := json.Unmarshal([]byte(`-32768`), &e); err != nil || e != gen.S16Min {
		t.Errorf("number: %v %v", e, err)
	}
	err = json.Unmarshal([]byte(`"Minimum"`), &e)
	if err == nil || !strings.Contains(err.Error(), `"Minimum" is not a value of enum S16`) {
		t.Errorf("unknown name: %v", err)
	}
	if err := json.Unmarshal([]byte(`300`), new(gen.E8)); err == nil {
		t.Error("300 fits no u8")
	}
}

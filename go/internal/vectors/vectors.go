// Package vectors runs the golden vectors of testdata/vectors through the
// Go generated code (registry_gen.go lists every generated root type) and
// implements the vectors' JSON conventions (crates/karmem-json): structs
// are objects keyed by schema field names (the json tags of the generated
// types), integers and floats are numbers (NaN and infinities the strings
// "NaN", "Infinity", "-Infinity"), enums their integer value, text
// a string, other arrays arrays, and a union null or {"Variant": value}.
package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"karmem.org/go/karmem"
)

// object is what every generated object type offers.
type object interface {
	WriteAsRoot(w *karmem.Writer) (uint, error)
	ReadAsRoot(r *karmem.Reader) error
}

type rootType struct {
	new      func() object
	validate func(r *karmem.Reader) error
	// trust validates with Validate<T> and with Trust<T>.
	trust func(r *karmem.Reader) (views, error)
}

// views are the root viewers of one message: checked (Validate<T>) and
// trusted (Trust<T>, with its reader).
type views struct {
	Checked any
	Trusted any
	Reader  karmem.Trusted
}

// errTrustDisagrees: Trust<T> did not do what Validate<T> did.
var errTrustDisagrees = errors.New("trust and validation disagree")

// bothViews validates r with a generated Validate<T> and Trust<T>: they
// must agree, and a message Validate<T> refuses gives the zero Trusted.
func bothViews[C, T any](r *karmem.Reader, validate func(*karmem.Reader) (C, error),
	trust func(*karmem.Reader) (karmem.Trusted, T, error)) (views, error) {
	checked, err := validate(r)
	t, trusted, terr := trust(r)
	if (err == nil) != (terr == nil) {
		return views{}, fmt.Errorf("%w: Validate<T> gives %v, Trust<T> %v", errTrustDisagrees, err, terr)
	}
	if terr != nil && (t.Bytes() != nil || !reflect.ValueOf(trusted).IsZero()) {
		return views{}, fmt.Errorf("%w: Trust<T> refused the message (%v) but returned a reader or a viewer", errTrustDisagrees, terr)
	}
	return views{Checked: checked, Trusted: trusted, Reader: t}, err
}

// Case is one golden vector: NAME.json + NAME.hex in a topic directory.
type Case struct {
	Topic   string
	Name    string
	Schema  string // file name in the topic directory
	Root    string
	Value   any
	Readers map[string]any // other schema file → the value it reads
	Bytes   []byte
	// Hostile is set for a hostile case: a message built word by word
	// (the .hex holds it), which validators accept iff Valid and decoders
	// decode (to Value) iff Decodes, otherwise refuse with an error.
	Hostile *Hostile
}

// Hostile is what every implementation decides on a hostile case.
type Hostile struct {
	Valid   bool
	Decodes bool
	// Error is the kind of error every validator reports, when the case
	// names one: the name of karmem.Err<Error>.
	Error string
}

// Load reads every case under dir (testdata/vectors), sorted by path.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Schema  string         `json:"schema"`
			Root    string         `json:"root"`
			Value   any            `json:"value"`
			Readers map[string]any `json:"readers"`
			Message any            `json:"message"`
			Valid   bool           `json:"valid"`
			Error   string         `json:"error"`
		}
		d := json.NewDecoder(bytes.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if doc.Schema == "" {
			doc.Schema = "schema.km"
		}
		hex, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".hex")
		if err != nil {
			return nil, err
		}
		b, err := ParseHex(string(hex))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		cases = append(cases, Case{
			Topic:   filepath.Base(filepath.Dir(f)),
			Name:    strings.TrimSuffix(filepath.Base(f), ".json"),
			Schema:  doc.Schema,
			Root:    doc.Root,
			Value:   doc.Value,
			Readers: doc.Readers,
			Bytes:   b,
		})
		if doc.Message != nil {
			// A root value is an object, never null: nil means no "value".
			cases[len(cases)-1].Hostile = &Hostile{Valid: doc.Valid, Decodes: doc.Value != nil, Error: doc.Error}
		}
	}
	return cases, nil
}

// ParseHex reads "OFFSET: xx xx ..." lines; everything before ':' is a
// comment.
func ParseHex(text string) ([]byte, error) {
	var out []byte
	for _, line := range strings.Split(text, "\n") {
		if _, rest, ok := strings.Cut(line, ":"); ok {
			line = rest
		}
		for _, pair := range strings.Fields(line) {
			b, err := strconv.ParseUint(pair, 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad hex byte %q", pair)
			}
			out = append(out, byte(b))
		}
	}
	return out, nil
}

// New returns a new object of root type root of schema (relative to
// testdata/), and its validator.
func New(schema, root string) (object, func(*karmem.Reader) error, error) {
	t, ok := schemas[schema][root]
	if !ok {
		return nil, nil, fmt.Errorf("no generated type %s in %s", root, schema)
	}
	return t.new(), t.validate, nil
}

// Views validates r as a message whose root is root of schema, with the
// generated Validate and Trust functions.
func Views(schema, root string, r *karmem.Reader) (views, error) {
	t, ok := schemas[schema][root]
	if !ok {
		return views{}, fmt.Errorf("no generated type %s in %s", root, schema)
	}
	return t.trust(r)
}

// Roots lists every (schema, root type) pair with generated code.
func Roots() [][2]string {
	var out [][2]string
	for s, roots := range schemas {
		for r := range roots {
			out = append(out, [2]string{s, r})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i][0]+" "+out[i][1] < out[j][0]+" "+out[j][1]
	})
	return out
}

// FromJSON fills dst (a pointer to a generated object) from a JSON value
// decoded with UseNumber.
func FromJSON(value any, dst any) error {
	return fromJSON(value, reflect.ValueOf(dst).Elem(), "$")
}

func fromJSON(v any, dst reflect.Value, path string) error {
	if v == nil {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.Struct:
		// A tuple (docs/idl.md §3.3) is an array of its fields in order.
		if items, ok := v.([]any); ok {
			if len(items) != dst.NumField() {
				return fmt.Errorf("%s: expected %d elements", path, dst.NumField())
			}
			for i, item := range items {
				if err := fromJSON(item, dst.Field(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected an object", path)
		}
		known := map[string]bool{}
		t := dst.Type()
		for i := 0; i < t.NumField(); i++ {
			name := t.Field(i).Tag.Get("json")
			known[name] = true
			if err := fromJSON(m[name], dst.Field(i), path+"."+name); err != nil {
				return err
			}
		}
		for k := range m {
			if !known[k] {
				return fmt.Errorf("%s: unknown field %q", path, k)
			}
		}
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s: expected a bool", path)
		}
		dst.SetBool(b)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if name, ok := v.(string); ok {
			return enumFromName(name, dst, path)
		}
		n, err := strconv.ParseInt(string(v.(json.Number)), 10, dst.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		dst.SetInt(n)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if name, ok := v.(string); ok {
			return enumFromName(name, dst, path)
		}
		n, err := strconv.ParseUint(string(v.(json.Number)), 10, dst.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		dst.SetUint(n)
	case reflect.Float32, reflect.Float64:
		return floatFromJSON(v, dst, path)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: expected a string", path)
		}
		dst.SetString(s)
	case reflect.Slice, reflect.Array:
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: expected an array", path)
		}
		if dst.Kind() == reflect.Slice {
			dst.Set(reflect.MakeSlice(dst.Type(), len(items), len(items)))
		} else if len(items) != dst.Len() {
			return fmt.Errorf("%s: expected %d elements", path, dst.Len())
		}
		for i, item := range items {
			if err := fromJSON(item, dst.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		// A map: an object whose keys are the map's keys as text.
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected an object (a map)", path)
		}
		dst.Set(reflect.MakeMapWithSize(dst.Type(), len(m)))
		for text, item := range m {
			key := reflect.New(dst.Type().Key()).Elem()
			var raw any = text
			if key.Kind() != reflect.String {
				raw = json.Number(text)
				if _, err := strconv.ParseFloat(text, 64); err != nil {
					raw = text // an enum value by name
				}
			}
			if err := fromJSON(raw, key, path+"["+text+"]"); err != nil {
				return err
			}
			value := reflect.New(dst.Type().Elem()).Elem()
			if err := fromJSON(item, value, path+"["+text+"]"); err != nil {
				return err
			}
			dst.SetMapIndex(key, value)
		}
	case reflect.Pointer:
		// An optional field with a value (null was handled above).
		p := reflect.New(dst.Type().Elem())
		if err := fromJSON(v, p.Elem(), path); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Interface:
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return fmt.Errorf("%s: expected null or {\"Variant\": value}", path)
		}
		for name, inner := range m {
			t, ok := unions[dst.Type()][name]
			if !ok {
				return fmt.Errorf("%s: %s has no variant %q", path, dst.Type(), name)
			}
			p := reflect.New(t.Elem())
			if err := fromJSON(inner, p.Elem(), path+"."+name); err != nil {
				return err
			}
			dst.Set(p)
		}
	default:
		return fmt.Errorf("%s: unsupported kind %s", path, dst.Kind())
	}
	return nil
}

// enumFromName sets an enum from the name of one of its values (the
// vectors write known enum values by name), through the generated
// UnmarshalJSON.
func enumFromName(name string, dst reflect.Value, path string) error {
	u, ok := dst.Addr().Interface().(json.Unmarshaler)
	if !ok {
		return fmt.Errorf("%s: expected a number", path)
	}
	quoted, _ := json.Marshal(name)
	if err := u.UnmarshalJSON(quoted); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// nonFinite maps the strings the vectors write for NaN and the infinities
// to their exact f32 and f64 bits (testdata/vectors/README.md; "NaN" is the
// quiet NaN with sign 0 and an empty payload, not Go's math.NaN()).
var nonFinite = map[string]struct {
	bits32 uint32
	bits64 uint64
}{
	"NaN":       {0x7fc00000, 0x7ff8000000000000},
	"Infinity":  {0x7f800000, 0x7ff0000000000000},
	"-Infinity": {0xff800000, 0xfff0000000000000},
}

// floatFromJSON sets a float32/float64 from a JSON number or one of the
// nonFinite strings, by bits: a float64 → float32 conversion of a NaN need
// not keep its bits.
func floatFromJSON(v any, dst reflect.Value, path string) error {
	var bits32 uint32
	var bits64 uint64
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		bits32, bits64 = math.Float32bits(float32(f)), math.Float64bits(f)
	case string:
		nf, ok := nonFinite[x]
		if !ok {
			return fmt.Errorf("%s: expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", found %q", path, x)
		}
		bits32, bits64 = nf.bits32, nf.bits64
	default:
		return fmt.Errorf("%s: expected a number", path)
	}
	switch p := dst.Addr().Interface().(type) {
	case *float32:
		*p = math.Float32frombits(bits32)
	case *float64:
		*p = math.Float64frombits(bits64)
	default:
		return fmt.Errorf("%s: unsupported float type %s", path, dst.Type())
	}
	return nil
}

// Equal compares two generated objects: nil and empty slices are equal,
// floats compare by bits.
func Equal(a, b any) bool {
	return equal(reflect.ValueOf(a), reflect.ValueOf(b))
}

func equal(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Elem().Type() != b.Elem().Type() {
			return false
		}
		return equal(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !equal(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !equal(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equal(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	default:
		return a.Interface() == b.Interface()
	}
}

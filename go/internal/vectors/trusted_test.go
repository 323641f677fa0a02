package vectors

import (
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/internal/game"
)

// The trusted viewers (Trust<T>, RATIONALE R5.11) read every valid golden
// vector, and what other schema versions read of it, as the checked viewers
// do; a message the validator refuses gives no Trusted.
func TestTrustedViewersAgree(t *testing.T) {
	cases, err := Load(vectorsDir)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, c := range cases {
		t.Run(c.Topic+"/"+c.Name, func(t *testing.T) {
			readers := []string{c.Schema}
			for file := range c.Readers {
				readers = append(readers, file)
			}
			for _, file := range readers {
				schema := path.Join("vectors", c.Topic, file)
				r := karmem.NewReader(karmem.AlignedCopy(c.Bytes))
				v, err := Views(schema, c.Root, r)
				if err != nil {
					if c.Hostile != nil && !c.Hostile.Valid {
						continue // bothViews checked that Trust refused it too
					}
					t.Fatalf("%s: %v", file, err)
				}
				if err := sameViews(r, v); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				compared++
			}
		})
	}
	if compared < 20 {
		t.Fatalf("only %d messages compared", compared)
	}
}

// The benchmark's game state, read through both viewer kinds.
func TestTrustedViewersAgreeOnGameState(t *testing.T) {
	w := karmem.NewWriter(1 << 16)
	if _, err := game.ToKarmem(game.Generate(60, 50)).WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	r := karmem.NewReader(w.Bytes())
	v, err := Views("bench/game.km", "State", r)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameViews(r, v); err != nil {
		t.Fatal(err)
	}
}

// Every byte of a valid message corrupted in turn: whenever validation
// refuses the result, Trust refuses it too and gives the zero Trusted
// (bothViews checks both); whenever it accepts it, both viewers agree.
func TestTrustOnlyAfterValidation(t *testing.T) {
	w := karmem.NewWriter(1024)
	if _, err := game.ToKarmem(game.Generate(2, 3)).WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	good := append([]byte(nil), w.Bytes()...)
	refused := 0
	for i := range good {
		buf := karmem.AlignedCopy(good)
		buf[i] ^= 0xA5
		r := karmem.NewReader(buf)
		v, err := Views("bench/game.km", "State", r)
		if err != nil {
			if errors.Is(err, errTrustDisagrees) {
				t.Fatalf("byte %d: %v", i, err)
			}
			refused++
			continue
		}
		if err := sameViews(r, v); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	if refused == 0 {
		t.Fatal("no corruption was refused")
	}
	// karmem.Trust itself: a refusing validator gives the zero Trusted.
	bad := errors.New("refused")
	tr, _, err := karmem.Trust(karmem.NewReader(good), func(*karmem.Reader) (int, error) { return 0, bad })
	if err != bad || tr.Bytes() != nil {
		t.Fatalf("Trust after a refusal: %v, %d bytes", err, len(tr.Bytes()))
	}
}

var (
	readerType  = reflect.TypeFor[*karmem.Reader]()
	trustedType = reflect.TypeFor[karmem.Trusted]()
)

// sameViews walks the checked and the trusted root viewer of one message
// side by side: every accessor, every element (up to a bound, and indices
// out of range), every union variant; the trusted viewer type of X must be
// TrustedX with the same accessors, and every value read must be the same
// (slices and strings: the same bytes of the message).
func sameViews(r *karmem.Reader, v views) error {
	w := pairWalker{r: reflect.ValueOf(r), t: reflect.ValueOf(v.Reader), calls: 200000}
	return w.walk(reflect.ValueOf(v.Checked), reflect.ValueOf(v.Trusted), 0, "root")
}

type pairWalker struct {
	r, t  reflect.Value
	calls int
}

// walkArrays compares an array of arrays (karmem.Arrays) with its trusted
// view (karmem.TrustedArrays) element by element, indices out of range
// included.
func (w *pairWalker) walkArrays(c, u reflect.Value, depth int, at string) error {
	if !strings.HasPrefix(u.Type().Name(), "TrustedArrays[") {
		return fmt.Errorf("%s: the trusted view of %s is %s", at, c.Type(), u.Type())
	}
	n := int(c.MethodByName("Len").Call(nil)[0].Int())
	if m := int(u.MethodByName("Len").Call(nil)[0].Int()); m != n {
		return fmt.Errorf("%s: %d elements vs %d", at, n, m)
	}
	indices := []int{-1, n}
	for i := range min(n, 40) {
		indices = append(indices, i)
	}
	for _, i := range indices {
		cv := c.MethodByName("At").Call([]reflect.Value{w.r, reflect.ValueOf(i)})[0]
		uv := u.MethodByName("At").Call([]reflect.Value{w.t, reflect.ValueOf(i)})[0]
		if err := w.walk(cv, uv, depth+1, fmt.Sprintf("%s.At(%d)", at, i)); err != nil {
			return err
		}
	}
	return nil
}

// walkMap compares a map's view (karmem.Map) with its trusted view
// (karmem.TrustedMap): every entry, and each key looked up.
func (w *pairWalker) walkMap(c, u reflect.Value, depth int, at string) error {
	if !strings.HasPrefix(u.Type().Name(), "TrustedMap[") {
		return fmt.Errorf("%s: the trusted view of %s is %s", at, c.Type(), u.Type())
	}
	n := int(c.MethodByName("Len").Call(nil)[0].Int())
	if m := int(u.MethodByName("Len").Call(nil)[0].Int()); m != n {
		return fmt.Errorf("%s: %d entries vs %d", at, n, m)
	}
	for i := -1; i <= min(n, 40); i++ {
		arg := reflect.ValueOf(i)
		ce := c.MethodByName("At").Call([]reflect.Value{w.r, arg})
		ue := u.MethodByName("At").Call([]reflect.Value{w.t, arg})
		for k := range ce {
			if err := w.walk(ce[k], ue[k], depth+1, fmt.Sprintf("%s.At(%d)", at, i)); err != nil {
				return err
			}
		}
		if i < 0 || i >= n {
			continue
		}
		cg := c.MethodByName("Get").Call([]reflect.Value{w.r, ce[0]})
		ug := u.MethodByName("Get").Call([]reflect.Value{w.t, ue[0]})
		if !cg[1].Bool() || !ug[1].Bool() {
			return fmt.Errorf("%s: key %v of entry %d not found", at, ce[0], i)
		}
		if err := w.walk(cg[0], ug[0], depth+1, fmt.Sprintf("%s.Get(%v)", at, ce[0])); err != nil {
			return err
		}
	}
	return nil
}

// sameDefault: two equal byte slices outside the message, as the `Bytes`
// accessors of an absent text field with a default return (a fresh copy
// of the default per call, so a caller may change it).
func (w *pairWalker) sameDefault(c, u reflect.Value) bool {
	cb, ok1 := c.Interface().([]byte)
	ub, ok2 := u.Interface().([]byte)
	return ok1 && ok2 && string(cb) == string(ub) && !w.inMessage(cb) && !w.inMessage(ub)
}

func (w *pairWalker) inMessage(b []byte) bool {
	msg := w.r.Interface().(*karmem.Reader).Bytes()
	if len(msg) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(msg)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= start && p < start+uintptr(len(msg))
}

func (w *pairWalker) walk(c, u reflect.Value, depth int, at string) error {
	if depth > 12 || w.calls <= 0 {
		return nil
	}
	w.calls--
	if c.Kind() != u.Kind() {
		return fmt.Errorf("%s: %s vs %s", at, c.Type(), u.Type())
	}
	switch c.Kind() {
	case reflect.Slice:
		// A slice of inline-struct images: []SViewer vs []TrustedSViewer.
		images := u.Type().Elem().Name() == "Trusted"+c.Type().Elem().Name()
		same := (c.Type() == u.Type() || images) && c.Len() == u.Len() &&
			(c.Len() == 0 || c.UnsafePointer() == u.UnsafePointer() || w.sameDefault(c, u))
		if !same {
			return fmt.Errorf("%s: %s of %d at %p vs %s of %d at %p", at, c.Type(), c.Len(), c.UnsafePointer(), u.Type(), u.Len(), u.UnsafePointer())
		}
		if images {
			for i := range min(c.Len(), 40) {
				if err := w.walk(c.Index(i), u.Index(i), depth+1, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.String:
		cs, us := c.String(), u.String()
		if cs != us || len(cs) > 0 && unsafe.StringData(cs) != unsafe.StringData(us) {
			return fmt.Errorf("%s: %q vs %q", at, cs, us)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(c.Float()) != math.Float64bits(u.Float()) {
			return fmt.Errorf("%s: %v vs %v", at, c.Float(), u.Float())
		}
		return nil
	case reflect.Array:
		for i := range c.Len() {
			if err := w.walk(c.Index(i), u.Index(i), depth, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		// An inline struct's viewer is its byte image: equal bytes, then
		// its accessors below.
		if !strings.HasSuffix(c.Type().Name(), "Viewer") {
			return nil
		}
	case reflect.Struct:
	default:
		if !reflect.DeepEqual(c.Interface(), u.Interface()) {
			return fmt.Errorf("%s: %v vs %v", at, c.Interface(), u.Interface())
		}
		return nil
	}
	ct, ut := c.Type(), u.Type()
	if strings.HasPrefix(ct.Name(), "Arrays[") { // karmem.Arrays vs karmem.TrustedArrays
		return w.walkArrays(c, u, depth, at)
	}
	if strings.HasPrefix(ct.Name(), "Map[") { // karmem.Map vs karmem.TrustedMap
		return w.walkMap(c, u, depth, at)
	}
	if ct.PkgPath() == "karmem.org/go/karmem" { // karmem.Table
		if c.Interface() != u.Interface() {
			return fmt.Errorf("%s: %v vs %v", at, c.Interface(), u.Interface())
		}
		return nil
	}
	if ut.Name() != "Trusted"+ct.Name() {
		return fmt.Errorf("%s: the trusted viewer of %s is %s", at, ct, ut)
	}
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		// One result, or an optional field's (value, ok).
		if m.Name == "All" || m.Type.NumOut() == 0 || m.Type.NumOut() > 2 {
			continue
		}
		um, ok := ut.MethodByName(m.Name)
		switch {
		case m.Type.NumIn() == 1: // Len, Tag, Table, Position
			if !ok {
				return fmt.Errorf("%s: %s has no %s", at, ut, m.Name)
			}
			if err := w.walk(c.Method(i).Call(nil)[0], u.MethodByName(m.Name).Call(nil)[0], depth+1, at+"."+m.Name); err != nil {
				return err
			}
		case m.Type.NumIn() == 2 && m.Type.In(1) == readerType:
			if !ok || um.Type.NumIn() != 2 || um.Type.In(1) != trustedType {
				return fmt.Errorf("%s: %s has no %s(karmem.Trusted)", at, ut, m.Name)
			}
			cvs := c.Method(i).Call([]reflect.Value{w.r})
			uvs := u.MethodByName(m.Name).Call([]reflect.Value{w.t})
			for k := range cvs {
				if err := w.walk(cvs[k], uvs[k], depth+1, at+"."+m.Name); err != nil {
					return err
				}
			}
		case m.Name == "At":
			n := int(c.MethodByName("Len").Call(nil)[0].Int())
			indices := []int{-1, n, n + 1}
			for i := range min(n, 40) {
				indices = append(indices, i)
			}
			for _, i := range indices {
				arg := []reflect.Value{reflect.ValueOf(i)}
				if err := w.walk(c.Method(m.Index).Call(arg)[0], u.MethodByName("At").Call(arg)[0], depth+1, fmt.Sprintf("%s.At(%d)", at, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

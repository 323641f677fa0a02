// Package hostile exercises generated Go code on malformed and adversarial
// messages: deterministic cases (truncation, corruption, huge lengths,
// directory bombs, offset reuse, deep nesting) and fuzz targets. Walk reads
// every viewer accessor reachable from a root viewer (checked, or trusted
// after validation) and checks that each returned slice or string lies
// inside the message.
package hostile

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"karmem.org/go/karmem"
	all "karmem.org/go/karmem/internal/gen/schemas_all_layouts"
)

var (
	readerType  = reflect.TypeFor[*karmem.Reader]()
	trustedType = reflect.TypeFor[karmem.Trusted]()
)

// Walk calls every accessor of viewer (a generated viewer value) and,
// recursively, of what they return: at most maxElems elements per array,
// depth levels and calls accessor calls in total. It returns an error when
// a view escapes the message.
func Walk(r *karmem.Reader, viewer any) error {
	return walkWith(r, karmem.Trusted{}, viewer)
}

// WalkTrusted is Walk for a trusted viewer (its accessors take t, which
// validation of r's message returned).
func WalkTrusted(r *karmem.Reader, t karmem.Trusted, viewer any) error {
	return walkWith(r, t, viewer)
}

func walkWith(r *karmem.Reader, t karmem.Trusted, viewer any) error {
	_, err := walkCount(r, t, viewer)
	return err
}

// walkCount is walkWith that also says how many values it visited.
func walkCount(r *karmem.Reader, t karmem.Trusted, viewer any) (int, error) {
	const budget = 50000
	w := walker{r: r, t: t, calls: budget}
	mem := r.Bytes()
	if len(mem) > 0 {
		w.lo = uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
		w.hi = w.lo + uintptr(len(mem))
	}
	err := w.walk(reflect.ValueOf(viewer), 0)
	return budget - w.calls, err
}

const (
	maxElems = 24
	maxDepth = 10
)

type walker struct {
	r      *karmem.Reader
	t      karmem.Trusted
	lo, hi uintptr
	calls  int
}

func (w *walker) inside(p unsafe.Pointer, n uintptr, what string) error {
	if n == 0 {
		return nil
	}
	a := uintptr(p)
	if a < w.lo || a+n > w.hi {
		return fmt.Errorf("%s [%#x, +%d) escapes the message [%#x, %#x)", what, a, n, w.lo, w.hi)
	}
	return nil
}

func (w *walker) walk(v reflect.Value, depth int) error {
	if depth > maxDepth || w.calls <= 0 {
		return nil
	}
	w.calls--
	switch v.Kind() {
	case reflect.Slice:
		n := uintptr(v.Len()) * v.Type().Elem().Size()
		if v.Len() > 0 {
			if err := w.inside(v.UnsafePointer(), n, v.Type().String()); err != nil {
				return err
			}
			if uintptr(v.UnsafePointer())%uintptr(v.Type().Elem().Align()) != 0 {
				return fmt.Errorf("%s is misaligned", v.Type())
			}
			// Touch the memory.
			var sum byte
			for _, b := range unsafe.Slice((*byte)(v.UnsafePointer()), n) {
				sum ^= b
			}
			_ = sum
		}
		return nil
	case reflect.String:
		s := v.String()
		return w.inside(unsafe.Pointer(unsafe.StringData(s)), uintptr(len(s)), "string")
	case reflect.Struct:
	default:
		return nil
	}
	t := v.Type()
	if lm, ok := t.MethodByName("Len"); ok && lm.Type.NumIn() == 1 {
		n := int(v.Method(lm.Index).Call(nil)[0].Int())
		if at, ok := t.MethodByName("At"); ok && at.Type.NumIn() == 2 {
			for _, i := range []int{-1, n, n + 1} {
				if err := w.walk(v.Method(at.Index).Call([]reflect.Value{reflect.ValueOf(i)})[0], depth+1); err != nil {
					return err
				}
			}
			for i := 0; i < min(n, maxElems); i++ {
				if err := w.walk(v.Method(at.Index).Call([]reflect.Value{reflect.ValueOf(i)})[0], depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range accessors(t) {
		var out reflect.Value
		switch {
		case m.reader:
			out = v.Method(m.index).Call([]reflect.Value{reflect.ValueOf(w.r)})[0]
		case m.trusted:
			out = v.Method(m.index).Call([]reflect.Value{reflect.ValueOf(w.t)})[0]
		default:
			out = v.Method(m.index).Call(nil)[0]
		}
		if err := w.walk(out, depth+1); err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name(), m.name, err)
		}
	}
	return nil
}

type accessor struct {
	index   int
	name    string
	reader  bool // takes the *karmem.Reader
	trusted bool // takes the karmem.Trusted
}

var accessorCache sync.Map // reflect.Type → []accessor

// accessors lists the methods of a viewer type that read something:
// func(*karmem.Reader) X, func(karmem.Trusted) X and func() X (except All
// and String).
func accessors(t reflect.Type) []accessor {
	if a, ok := accessorCache.Load(t); ok {
		return a.([]accessor)
	}
	var out []accessor
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		mt := m.Type // receiver first
		if mt.NumOut() != 1 {
			continue
		}
		switch {
		case mt.NumIn() == 2 && mt.In(1) == readerType:
			out = append(out, accessor{index: i, name: m.Name, reader: true})
		case mt.NumIn() == 2 && mt.In(1) == trustedType:
			out = append(out, accessor{index: i, name: m.Name, trusted: true})
		case mt.NumIn() == 1 && m.Name != "All" && m.Name != "String":
			out = append(out, accessor{index: i, name: m.Name})
		}
	}
	accessorCache.Store(t, out)
	return out
}

// Check runs everything a program may do with untrusted bytes against the
// all_layouts schema: open, read every view, decode twice into one object,
// validate. Nothing may panic, no view may escape the message, and a
// message that validates must decode.
func Check(data []byte) error {
	buf := karmem.AlignedCopy(data)
	r := karmem.NewReader(buf)
	if err := Walk(r, all.NewRootViewer(r, 0)); err != nil {
		return err
	}
	var value all.Root
	_ = value.ReadAsRoot(r)
	_ = value.ReadAsRoot(r)
	trusted, err := all.ValidateRoot(r)
	if err != nil {
		return nil
	}
	if err := Walk(r, trusted); err != nil {
		return err
	}
	// The trusted viewers skip the checks validation made (RATIONALE
	// R5.11): on whatever validates they must not panic or escape either.
	t, tv, err := all.TrustRoot(r)
	if err != nil {
		return fmt.Errorf("validated, but Trust refused it: %w", err)
	}
	if err := WalkTrusted(r, t, tv); err != nil {
		return fmt.Errorf("trusted: %w", err)
	}
	if err := value.ReadAsRoot(r); err != nil {
		return fmt.Errorf("a validated message does not decode: %w", err)
	}
	return nil
}

// Sample is a value of the all_layouts root that uses every field.
func Sample() *all.Root {
	leaf := func(v uint64, l string) all.Leaf { return all.Leaf{Value: v, Label: l} }
	elem := func(id uint32, shape all.Shape) all.Element {
		return all.Element{
			ID:      id,
			Where:   all.Pair{Pos: all.Vec3{X: 1, Y: float32(id), Z: 3}, Tag: uint16(id), Flag: id%2 == 0},
			Child:   leaf(uint64(id)*10, fmt.Sprint("child ", id)),
			Name:    fmt.Sprint("element ", id),
			Numbers: []int32{int32(id), -int32(id)},
			Shape:   shape,
		}
	}
	return &all.Root{
		Flags:       [4]bool{true, false, true, true},
		Kind:        all.KindB,
		Wide:        all.WideNeg,
		Text:        "héllo",
		Utf16:       "ñ 😀",
		Fixed:       [3]all.Vec3{{X: 1}, {Y: 2}, {Z: 3}},
		Limited:     []uint64{1, 2, 3},
		Points:      []all.Vec3{{X: 1, Y: 2, Z: 3}, {X: 4, Y: 5, Z: 6}},
		PointsAos:   []all.Vec3{{X: 7, Y: 8, Z: 9}},
		Elements:    []all.Element{elem(1, &all.Circle{Radius: 2}), elem(2, &all.Square{Side: 3}), elem(3, nil)},
		ElementsAos: []all.Element{elem(4, &all.Square{Side: 5})},
		Shape:       &all.Circle{Radius: 1.5},
		ShapesAos:   []all.Shape{&all.Circle{Radius: 1}, nil, &all.Square{Side: 2}},
		ShapesSoa:   []all.Shape{&all.Square{Side: 3}, &all.Circle{Radius: 4}},
		ShapesBovoa: []all.Shape{&all.Circle{Radius: 5}, &all.Square{Side: 6}, &all.Circle{Radius: 7}},
		ShapesBovos: []all.Shape{&all.Square{Side: 8}, &all.Circle{Radius: 9}},
		Next:        leaf(99, "next"),
	}
}

// Encode encodes a root value into a new slice.
func Encode(v *all.Root) []byte {
	w := karmem.NewWriter(1024)
	if _, err := v.WriteAsRoot(w); err != nil {
		panic(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

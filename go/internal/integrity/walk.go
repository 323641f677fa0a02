package integrity

import "karmem.org/go/karmem"

// The viewers of the types both versions share, as interfaces: Go
// interfaces are structural, so each version's generated viewers (and the
// SoA items, whose accessors have the same names) satisfy them, and one
// walker serves both versions and every layout.

// vec3View is a Vec3, wherever it is stored: Vec3Viewer, a SoA item, or
// an inline struct's field in a SoA item (ItemSoaItemPos, DotSoaItemAt).
type vec3View interface {
	X(r *karmem.Reader) float32
	Y(r *karmem.Reader) float32
	Z(r *karmem.Reader) float32
}

func walkVec3(s *sink, r *karmem.Reader, v vec3View) {
	s.f32(v.X(r))
	s.f32(v.Y(r))
	s.f32(v.Z(r))
}

// circleView is a Circle: CircleViewer or a SoA item (#bovos).
type circleView interface {
	Radius(r *karmem.Reader) float64
	Label(r *karmem.Reader) string
}

func walkCircle(s *sink, r *karmem.Reader, c circleView) {
	s.f64(c.Radius(r))
	s.text(c.Label(r))
}

// walkDot takes a Dot's fields rather than a view: its Hue is each
// version's own Color type, fed as its number.
func walkDot(s *sink, r *karmem.Reader, hue uint8, at vec3View) {
	s.u8(hue)
	walkVec3(s, r, at)
}

// itemView is the fields of Item in the old version (the new one appends
// two): ItemViewer, or a SoA item. P is what Pos returns, which differs
// between the two.
type itemView[P vec3View] interface {
	ID(r *karmem.Reader) uint32
	Name(r *karmem.Reader) string
	Pos(r *karmem.Reader) P
	Tags(r *karmem.Reader) karmem.Arrays[string]
}

// walkItem feeds the fields of Item both versions have (Go cannot infer P
// from a method's result: callers name it, walkItem[v1.Vec3Viewer](...)).
func walkItem[P vec3View, I itemView[P]](s *sink, r *karmem.Reader, it I) {
	s.u32(it.ID(r))
	s.text(it.Name(r))
	walkVec3(s, r, it.Pos(r))
	walkTexts(s, r, it.Tags(r))
}

// array is an array viewer of any layout (SoA, AoS of tables, unions,
// bunch groups): its length and its elements as views V.
type array[V any] interface {
	Len() int
	At(i int) V
}

// each feeds an array: its length, then each element with one.
func each[V any](s *sink, a array[V], one func(V)) {
	s.len(a.Len())
	for i := range a.Len() {
		one(a.At(i))
	}
}

// eachOf is each for the arrays the viewers return as native slices
// (scalars, enums, and AoS arrays of inline structs over the message).
func eachOf[V any](s *sink, xs []V, one func(V)) {
	s.len(len(xs))
	for _, x := range xs {
		one(x)
	}
}

// option feeds `?T`: 0 for no value, or 1 then the value.
func option[T any](s *sink, x T, ok bool, one func(T)) {
	s.boolean(ok)
	if ok {
		one(x)
	}
}

// walkTexts feeds a []string: its length, then each text.
func walkTexts(s *sink, r *karmem.Reader, a karmem.Arrays[string]) {
	s.len(a.Len())
	for i := range a.Len() {
		s.text(a.At(r, i))
	}
}

// walkGrid feeds a [][]f32: its length, then each row (a length, then its
// elements).
func walkGrid(s *sink, r *karmem.Reader, a karmem.Arrays[[]float32]) {
	s.len(a.Len())
	for i := range a.Len() {
		row := a.At(r, i)
		s.len(len(row))
		for _, x := range row {
			s.f32(x)
		}
	}
}

// walkLookup feeds a map<string, u32>: its number of entries, then each
// key and value in stored order (the writer stores them sorted by key).
func walkLookup(s *sink, r *karmem.Reader, m karmem.Map[string, uint32]) {
	s.len(m.Len())
	for i := range m.Len() {
		k, v := m.At(r, i)
		s.text(k)
		s.u32(v)
	}
}

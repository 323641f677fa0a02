package integrity

import (
	"karmem.org/go/karmem"
	v2 "karmem.org/go/karmem/internal/gen/integrity_new"
)

// The second version (testdata/integrity/new.km): old.go with a fourth
// colour, the union variant Star, Item's Score and Notes and Root's Level,
// Extra and More; keep the two in step.

// ---- producer (§2): every field in declaration order, depth first ----
// (composite literals draw their fields in the order written: see old.go)

func newColor(g *rng) v2.Color { return v2.Color(g.below(4)) }

func newVec3(g *rng) v2.Vec3 { return v2.Vec3{X: g.f32(), Y: g.f32(), Z: g.f32()} }

func newItem(g *rng) v2.Item {
	return v2.Item{
		ID:    g.u32(),
		Name:  g.text(),
		Pos:   newVec3(g),
		Tags:  texts(g),
		Score: g.i64(), // drawn like any i64, although its default is -1
		Notes: texts(g),
	}
}

func newDot(g *rng) v2.Dot { return v2.Dot{Hue: newColor(g), At: newVec3(g)} }

// newShape draws a tag, 0 being no value (a nil interface), then the
// variant's fields.
func newShape(g *rng) v2.Shape {
	switch g.below(4) {
	case 1:
		return &v2.Circle{Radius: g.f64(), Label: g.text()}
	case 2:
		d := newDot(g)
		return &d
	case 3:
		return &v2.Star{Points: g.u8()}
	}
	return nil
}

func newRoot(seed uint64) *v2.Root {
	g := newRng(seed)
	return &v2.Root{
		U8:          g.u8(),
		I8:          g.i8(),
		U16:         g.u16(),
		I16:         g.i16(),
		U32:         g.u32(),
		I32:         g.i32(),
		U64:         g.u64(),
		I64:         g.i64(),
		F32:         g.f32(),
		F64:         g.f64(),
		Flag:        g.boolean(),
		Hue:         newColor(g),
		Name:        g.text(),
		Wide:        g.text(),
		Pos:         newVec3(g),
		Fixed:       [4]int16{g.i16(), g.i16(), g.i16(), g.i16()},
		Small:       slice(g, 8, (*rng).u8),
		Bytes:       slice(g, noLimit, (*rng).u8),
		Colors:      slice(g, noLimit, newColor),
		SoaPoints:   slice(g, noLimit, newVec3),
		AosPoints:   slice(g, noLimit, newVec3),
		SoaItems:    slice(g, noLimit, newItem),
		AosItems:    slice(g, noLimit, newItem),
		Dots:        slice(g, 64, newDot),
		Shape:       newShape(g),
		AosShapes:   slice(g, noLimit, newShape),
		SoaShapes:   slice(g, noLimit, newShape),
		BovoaShapes: slice(g, noLimit, newShape),
		BovosShapes: slice(g, noLimit, newShape),
		MaybeU32:    optional(g, (*rng).u32),
		MaybeName:   optional(g, (*rng).text),
		MaybeItem:   optional(g, newItem),
		Lookup:      drawMap(g, (*rng).text, (*rng).u32),
		ByID:        drawMap(g, (*rng).u16, newItem),
		Grid:        slice(g, noLimit, floats),
		Pair:        v2.RootPairTuple{F0: g.u16(), F1: g.text()},
		Hp:          g.u16(),
		Level:       g.u8(),
		Extra:       g.u64(),
		More:        slice(g, noLimit, newItem),
	}
}

// ---- consumer (§3): the checked viewers, in the new schema's order ----

// newWalker feeds the values of a message read with the old version: one
// method per element type and layout, so that arrays are fed with each.
type newWalker struct {
	s *sink
	r *karmem.Reader
}

func (w newWalker) point(p v2.Vec3Viewer)        { walkVec3(w.s, w.r, p) }
func (w newWalker) soaPoint(p v2.Vec3SoaItem)    { walkVec3(w.s, w.r, p) }
func (w newWalker) item(it v2.ItemViewer)        { walkNewItem[v2.Vec3Viewer](w.s, w.r, it) }
func (w newWalker) soaItem(it v2.ItemSoaItem)    { walkNewItem[v2.ItemSoaItemPos](w.s, w.r, it) }
func (w newWalker) dot(d v2.DotViewer)           { walkDot(w.s, w.r, uint8(d.Hue(w.r)), d.At(w.r)) }
func (w newWalker) soaDot(d v2.DotSoaItem)       { walkDot(w.s, w.r, uint8(d.Hue(w.r)), d.At(w.r)) }
func (w newWalker) circle(c v2.CircleViewer)     { walkCircle(w.s, w.r, c) }
func (w newWalker) soaCircle(c v2.CircleSoaItem) { walkCircle(w.s, w.r, c) }
func (w newWalker) star(x v2.StarViewer)         { w.s.u8(x.Points(w.r)) }
func (w newWalker) soaStar(x v2.StarSoaItem)     { w.s.u8(x.Points(w.r)) }

// newItemView is Item in this version: the fields both versions have,
// then Score and Notes.
type newItemView[P vec3View] interface {
	itemView[P]
	Score(r *karmem.Reader) int64
	Notes(r *karmem.Reader) karmem.Arrays[string]
}

func walkNewItem[P vec3View, I newItemView[P]](s *sink, r *karmem.Reader, it I) {
	walkItem[P](s, r, it)
	s.i64(it.Score(r))
	walkTexts(s, r, it.Notes(r))
}

func (w newWalker) shape(v v2.ShapeViewer) {
	w.s.u32(uint32(v.Tag()))
	switch v.Tag() {
	case v2.ShapeTagCircle:
		w.circle(v.Circle(w.r))
	case v2.ShapeTagDot:
		w.dot(v.Dot(w.r))
	case v2.ShapeTagStar:
		w.star(v.Star(w.r))
	}
	// Any other tag (one a later version would add) is fed alone.
}

func (w newWalker) root(v v2.RootViewer) {
	s, r := w.s, w.r
	s.u8(v.U8(r))
	s.i8(v.I8(r))
	s.u16(v.U16(r))
	s.i16(v.I16(r))
	s.u32(v.U32(r))
	s.i32(v.I32(r))
	s.u64(v.U64(r))
	s.i64(v.I64(r))
	s.f32(v.F32(r))
	s.f64(v.F64(r))
	s.boolean(v.Flag(r))
	s.u8(uint8(v.Hue(r)))
	s.text(v.Name(r))
	s.units(v.Wide(r))
	w.point(v.Pos(r))
	for _, x := range v.Fixed(r) {
		s.i16(x)
	}
	s.raw(v.Small(r))
	s.raw(v.Bytes(r))
	eachOf(s, v.Colors(r), func(c v2.Color) { s.u8(uint8(c)) })
	each(s, v.SoaPoints(r), w.soaPoint)
	eachOf(s, v.AosPoints(r), w.point)
	each(s, v.SoaItems(r), w.soaItem)
	each(s, v.AosItems(r), w.item)
	each(s, v.Dots(r), w.soaDot)
	w.shape(v.Shape(r))
	each(s, v.AosShapes(r), w.shape)
	each(s, v.SoaShapes(r), w.shape)

	// Bunch arrays keep no element order: the total length, then each
	// variant this version knows, in declaration order, as its tag, its
	// count and its elements (an empty group too).
	bovoa := v.BovoaShapes(r)
	s.len(bovoa.Len())
	s.u32(uint32(v2.ShapeTagCircle))
	each(s, bovoa.Circle(r), w.circle)
	s.u32(uint32(v2.ShapeTagDot))
	eachOf(s, bovoa.Dot(r), w.dot)
	s.u32(uint32(v2.ShapeTagStar))
	each(s, bovoa.Star(r), w.star)

	bovos := v.BovosShapes(r)
	s.len(bovos.Len())
	s.u32(uint32(v2.ShapeTagCircle))
	each(s, bovos.Circle(r), w.soaCircle)
	s.u32(uint32(v2.ShapeTagDot))
	each(s, bovos.Dot(r), w.soaDot)
	s.u32(uint32(v2.ShapeTagStar))
	each(s, bovos.Star(r), w.soaStar)

	n, ok := v.MaybeU32(r)
	option(s, n, ok, s.u32)
	name, ok := v.MaybeName(r)
	option(s, name, ok, s.text)
	item, ok := v.MaybeItem(r)
	option(s, item, ok, w.item)
	walkLookup(s, r, v.Lookup(r))
	byID := v.ByID(r)
	s.len(byID.Len())
	for i := range byID.Len() {
		k, it := byID.At(r, i)
		s.u16(k)
		w.item(it)
	}
	walkGrid(s, r, v.Grid(r))
	pair := v.Pair(r)
	s.u16(pair.F0(r))
	s.text(pair.F1(r))
	s.u16(v.Hp(r))
	s.u8(v.Level(r))
	s.u64(v.Extra(r))
	each(s, v.More(r), w.soaItem)
}

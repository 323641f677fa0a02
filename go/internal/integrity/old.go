package integrity

import (
	"karmem.org/go/karmem"
	v1 "karmem.org/go/karmem/internal/gen/integrity_old"
)

// The first version (testdata/integrity/old.km): three colours, the union
// variants Circle and Dot. new.go mirrors this file with what the second
// version adds; keep the two in step.

// ---- producer (§2): every field in declaration order, depth first ----
//
// Go evaluates the function calls of a composite literal in lexical
// left-to-right order (the spec's "Order of evaluation"), so a literal
// draws its fields in the order they are written, which is the schema's.

func oldColor(g *rng) v1.Color { return v1.Color(g.below(3)) }

func oldVec3(g *rng) v1.Vec3 { return v1.Vec3{X: g.f32(), Y: g.f32(), Z: g.f32()} }

func oldItem(g *rng) v1.Item {
	return v1.Item{
		ID:   g.u32(),
		Name: g.text(),
		Pos:  oldVec3(g),
		Tags: texts(g),
	}
}

func oldDot(g *rng) v1.Dot { return v1.Dot{Hue: oldColor(g), At: oldVec3(g)} }

// oldShape draws a tag, 0 being no value (a nil interface), then the
// variant's fields.
func oldShape(g *rng) v1.Shape {
	switch g.below(3) {
	case 1:
		return &v1.Circle{Radius: g.f64(), Label: g.text()}
	case 2:
		d := oldDot(g)
		return &d
	}
	return nil
}

func oldRoot(seed uint64) *v1.Root {
	g := newRng(seed)
	return &v1.Root{
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
		Hue:         oldColor(g),
		Name:        g.text(),
		Wide:        g.text(),
		Pos:         oldVec3(g),
		Fixed:       [4]int16{g.i16(), g.i16(), g.i16(), g.i16()},
		Small:       slice(g, 8, (*rng).u8),
		Bytes:       slice(g, noLimit, (*rng).u8),
		Colors:      slice(g, noLimit, oldColor),
		SoaPoints:   slice(g, noLimit, oldVec3),
		AosPoints:   slice(g, noLimit, oldVec3),
		SoaItems:    slice(g, noLimit, oldItem),
		AosItems:    slice(g, noLimit, oldItem),
		Dots:        slice(g, 64, oldDot),
		Shape:       oldShape(g),
		AosShapes:   slice(g, noLimit, oldShape),
		SoaShapes:   slice(g, noLimit, oldShape),
		BovoaShapes: slice(g, noLimit, oldShape),
		BovosShapes: slice(g, noLimit, oldShape),
		MaybeU32:    optional(g, (*rng).u32),
		MaybeName:   optional(g, (*rng).text),
		MaybeItem:   optional(g, oldItem),
		Lookup:      drawMap(g, (*rng).text, (*rng).u32),
		ByID:        drawMap(g, (*rng).u16, oldItem),
		Grid:        slice(g, noLimit, floats),
		Pair:        v1.RootPairTuple{F0: g.u16(), F1: g.text()},
		Hp:          g.u16(),
	}
}

// ---- consumer (§3): the checked viewers, in the old schema's order ----

// oldWalker feeds the values of a message read with the old version: one
// method per element type and layout, so that arrays are fed with each.
type oldWalker struct {
	s *sink
	r *karmem.Reader
}

func (w oldWalker) point(p v1.Vec3Viewer)        { walkVec3(w.s, w.r, p) }
func (w oldWalker) soaPoint(p v1.Vec3SoaItem)    { walkVec3(w.s, w.r, p) }
func (w oldWalker) item(it v1.ItemViewer)        { walkItem[v1.Vec3Viewer](w.s, w.r, it) }
func (w oldWalker) soaItem(it v1.ItemSoaItem)    { walkItem[v1.ItemSoaItemPos](w.s, w.r, it) }
func (w oldWalker) dot(d v1.DotViewer)           { walkDot(w.s, w.r, uint8(d.Hue(w.r)), d.At(w.r)) }
func (w oldWalker) soaDot(d v1.DotSoaItem)       { walkDot(w.s, w.r, uint8(d.Hue(w.r)), d.At(w.r)) }
func (w oldWalker) circle(c v1.CircleViewer)     { walkCircle(w.s, w.r, c) }
func (w oldWalker) soaCircle(c v1.CircleSoaItem) { walkCircle(w.s, w.r, c) }

func (w oldWalker) shape(v v1.ShapeViewer) {
	w.s.u32(uint32(v.Tag()))
	switch v.Tag() {
	case v1.ShapeTagCircle:
		w.circle(v.Circle(w.r))
	case v1.ShapeTagDot:
		w.dot(v.Dot(w.r))
	}
	// Any other tag (Star, written by the new version) is fed alone.
}

func (w oldWalker) root(v v1.RootViewer) {
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
	eachOf(s, v.Colors(r), func(c v1.Color) { s.u8(uint8(c)) })
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
	s.u32(uint32(v1.ShapeTagCircle))
	each(s, bovoa.Circle(r), w.circle)
	s.u32(uint32(v1.ShapeTagDot))
	eachOf(s, bovoa.Dot(r), w.dot)

	bovos := v.BovosShapes(r)
	s.len(bovos.Len())
	s.u32(uint32(v1.ShapeTagCircle))
	each(s, bovos.Circle(r), w.soaCircle)
	s.u32(uint32(v1.ShapeTagDot))
	each(s, bovos.Dot(r), w.soaDot)

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
}

//! The producer and the consumer of one schema version. The two versions
//! differ in a few fields only (testdata/integrity/new.km), so one macro
//! writes both; each version passes the code of what it adds.

/// Expands, inside a module that has `use` the version's generated code,
/// to `produce(seed)`, `stream(message)` (the canonical bytes of §3 through
/// checked viewers, checked against the trusted viewers) and `roundtrip`.
macro_rules! version {
    (
        colors: $colors:expr,
        shapes: $shapes:expr,
        item_extra: |$ir:ident, $item:ident| $item_extra:block,
        root_extra: |$rr:ident, $root:ident| $root_extra:block,
        star: |$sr:ident| $star:expr,
        walk_item_extra: |$ws:ident, $wv:ident| $walk_item_extra:block,
        walk_root_extra: |$rs:ident, $rv:ident| $walk_root_extra:block,
        walk_star: |$ss:ident, $sv:ident| $walk_star:block,
        walk_bovoa_star: |$as_:ident, $ab:ident| $walk_bovoa_star:block,
        walk_bovos_star: |$os:ident, $ob:ident| $walk_bovos_star:block,
    ) => {
        use karmem::Mode;

        use crate::rng::Rng;
        use crate::sink::Sink;

        // ---- producer (docs/integrity.md §2) --------------------------------

        fn color(r: &mut Rng) -> Color {
            Color(r.below($colors) as u8)
        }

        fn vec3(r: &mut Rng) -> Vec3 {
            Vec3 {
                x: r.f32(),
                y: r.f32(),
                z: r.f32(),
            }
        }

        // The old version sets every field in the literal; the new one
        // appends its fields after it.
        #[allow(clippy::needless_update)]
        fn item(r: &mut Rng) -> Item {
            #[allow(unused_mut)]
            let mut it = Item {
                id: r.u32(),
                name: r.text(None),
                pos: vec3(r),
                tags: r.vec(None, |r| r.text(None)),
                ..Item::default()
            };
            {
                let $ir = &mut *r;
                let $item = &mut it;
                $item_extra
            }
            it
        }

        fn dot(r: &mut Rng) -> Dot {
            Dot {
                hue: color(r),
                at: vec3(r),
            }
        }

        fn shape(r: &mut Rng) -> Option<ShapeValue> {
            match r.below($shapes) {
                1 => Some(ShapeValue::Circle(Circle {
                    radius: r.f64(),
                    label: r.text(None),
                })),
                2 => Some(ShapeValue::Dot(dot(r))),
                3 => {
                    let $sr = &mut *r;
                    $star
                }
                _ => None,
            }
        }

        /// The value of a seed.
        #[allow(clippy::needless_update)]
        pub fn value(seed: u64) -> Root {
            let r = &mut Rng::new(seed);
            #[allow(unused_mut)]
            let mut root = Root {
                u8: r.u8(),
                i8: r.i8(),
                u16: r.u16(),
                i16: r.i16(),
                u32: r.u32(),
                i32: r.i32(),
                u64: r.u64(),
                i64: r.i64(),
                f32: r.f32(),
                f64: r.f64(),
                flag: r.bool(),
                hue: color(r),
                name: r.text(None),
                wide: r.text(None),
                pos: vec3(r),
                fixed: [r.i16(), r.i16(), r.i16(), r.i16()],
                small: r.vec(Some(8), Rng::u8),
                bytes: r.vec(None, Rng::u8),
                colors: r.vec(None, color),
                soa_points: r.vec(None, vec3),
                aos_points: r.vec(None, vec3),
                soa_items: r.vec(None, item),
                aos_items: r.vec(None, item),
                dots: r.vec(Some(64), dot),
                shape: shape(r),
                aos_shapes: r.vec(None, shape),
                soa_shapes: r.vec(None, shape),
                bovoa_shapes: r.vec(None, shape),
                bovos_shapes: r.vec(None, shape),
                maybe_u32: if r.bool() { Some(r.u32()) } else { None },
                maybe_name: if r.bool() { Some(r.text(None)) } else { None },
                maybe_item: if r.bool() {
                    Some(Box::new(item(r)))
                } else {
                    None
                },
                lookup: {
                    let mut m = karmem::Map::new();
                    for _ in 0..r.len(None) {
                        let (k, x) = r.nested(|r| (r.text(None), r.u32()));
                        m.insert(k, x);
                    }
                    m
                },
                by_id: {
                    let mut m = karmem::Map::new();
                    for _ in 0..r.len(None) {
                        let (k, x) = r.nested(|r| (r.u16(), item(r)));
                        m.insert(k, x);
                    }
                    m
                },
                grid: r.vec(None, |r| r.vec(None, Rng::f32)),
                pair: RootPairTuple(r.u16(), r.text(None)),
                hp: r.u16(),
                ..Root::default()
            };
            {
                let $rr = &mut *r;
                let $root = &mut root;
                $root_extra
            }
            root
        }

        pub fn produce(seed: u64) -> Result<Vec<u8>, karmem::Error> {
            value(seed).to_bytes()
        }

        // ---- consumer (docs/integrity.md §3) --------------------------------

        fn walk_vec3<M: Mode>(s: &mut Sink, v: Vec3View<'_, M>) {
            s.f32(v.x());
            s.f32(v.y());
            s.f32(v.z());
        }

        fn walk_item<M: Mode>(s: &mut Sink, v: ItemView<'_, M>) {
            s.u32(v.id());
            s.text(v.name());
            walk_vec3(s, v.pos());
            s.seq(v.tags().iter(), |s, t| s.text(t));
            let $ws = &mut *s;
            let $wv = &v;
            $walk_item_extra
        }

        fn walk_item_soa<M: Mode>(s: &mut Sink, items: ItemSoa<'_, M>) {
            s.len(items.len());
            for v in items.iter() {
                s.u32(v.id());
                s.text(v.name());
                s.f32(v.pos_x());
                s.f32(v.pos_y());
                s.f32(v.pos_z());
                s.seq(v.tags().iter(), |s, t| s.text(t));
                let $ws = &mut *s;
                let $wv = &v;
                $walk_item_extra
            }
        }

        fn walk_dot<M: Mode>(s: &mut Sink, v: DotView<'_, M>) {
            s.u8(v.hue().0);
            walk_vec3(s, v.at());
        }

        fn walk_dot_soa<M: Mode>(s: &mut Sink, dots: DotSoa<'_, M>) {
            s.len(dots.len());
            for v in dots.iter() {
                s.u8(v.hue().0);
                s.f32(v.at_x());
                s.f32(v.at_y());
                s.f32(v.at_z());
            }
        }

        fn walk_circle<M: Mode>(s: &mut Sink, v: CircleView<'_, M>) {
            s.f64(v.radius());
            s.text(v.label());
        }

        fn walk_shape<M: Mode>(s: &mut Sink, v: ShapeView<'_, M>) {
            match v {
                ShapeView::None => s.u32(0),
                ShapeView::Circle(c) => {
                    s.u32(1);
                    walk_circle(s, c);
                }
                ShapeView::Dot(d) => {
                    s.u32(2);
                    walk_dot(s, d);
                }
                ShapeView::Unknown(tag) => s.u32(tag),
                #[allow(unreachable_patterns)]
                other => {
                    let $ss = &mut *s;
                    let $sv = other;
                    $walk_star
                }
            }
        }

        fn walk_root<M: Mode>(s: &mut Sink, v: RootView<'_, M>) {
            s.mark("u8");
            s.u8(v.u8());
            s.mark("i8");
            s.i8(v.i8());
            s.mark("u16");
            s.u16(v.u16());
            s.mark("i16");
            s.i16(v.i16());
            s.mark("u32");
            s.u32(v.u32());
            s.mark("i32");
            s.i32(v.i32());
            s.mark("u64");
            s.u64(v.u64());
            s.mark("i64");
            s.i64(v.i64());
            s.mark("f32");
            s.f32(v.f32());
            s.mark("f64");
            s.f64(v.f64());
            s.mark("flag");
            s.bool(v.flag());
            s.mark("hue");
            s.u8(v.hue().0);
            s.mark("name");
            s.text(v.name());
            s.mark("wide");
            s.units(v.wide());
            s.mark("pos");
            walk_vec3(s, v.pos());
            s.mark("fixed");
            for x in v.fixed() {
                s.i16(x);
            }
            s.mark("small");
            s.bytes(v.small());
            s.mark("bytes");
            s.bytes(v.bytes());
            s.mark("colors");
            s.bytes(v.colors());
            s.mark("soa_points");
            let points = v.soa_points();
            s.len(points.len());
            for p in points.iter() {
                s.f32(p.x());
                s.f32(p.y());
                s.f32(p.z());
            }
            s.mark("aos_points");
            s.seq(v.aos_points().iter(), walk_vec3);
            s.mark("soa_items");
            walk_item_soa(s, v.soa_items());
            s.mark("aos_items");
            s.seq(v.aos_items().iter(), walk_item);
            s.mark("dots");
            walk_dot_soa(s, v.dots());
            s.mark("shape");
            walk_shape(s, v.shape());
            s.mark("aos_shapes");
            s.seq(v.aos_shapes().iter(), walk_shape);
            s.mark("soa_shapes");
            s.seq(v.soa_shapes().iter(), walk_shape);
            // Bunch arrays keep no element order: each variant's array in
            // the schema's variant order, after the total length.
            s.mark("bovoa_shapes");
            let bovoa = v.bovoa_shapes();
            s.len(bovoa.len());
            s.u32(1);
            s.seq(bovoa.circle().iter(), walk_circle);
            s.u32(2);
            s.seq(bovoa.dot().iter(), walk_dot);
            {
                let ($as_, $ab) = (&mut *s, &bovoa);
                $walk_bovoa_star
            }
            s.mark("bovos_shapes");
            let bovos = v.bovos_shapes();
            s.len(bovos.len());
            s.u32(1);
            let circles = bovos.circle();
            s.len(circles.len());
            for c in circles.iter() {
                s.f64(c.radius());
                s.text(c.label());
            }
            s.u32(2);
            walk_dot_soa(s, bovos.dot());
            {
                let ($os, $ob) = (&mut *s, &bovos);
                $walk_bovos_star
            }
            s.mark("maybe_u32");
            s.option(v.maybe_u32(), Sink::u32);
            s.mark("maybe_name");
            s.option(v.maybe_name(), |s, t| s.text(t));
            s.mark("maybe_item");
            s.option(v.maybe_item(), walk_item);
            s.mark("lookup");
            s.seq(v.lookup().iter(), |s, (k, x)| {
                s.text(k);
                s.u32(x);
            });
            s.mark("by_id");
            s.seq(v.by_id().iter(), |s, (k, x)| {
                s.u16(k);
                walk_item(s, x);
            });
            s.mark("grid");
            s.seq(v.grid().iter(), |s, row| {
                s.len(row.len());
                for x in row {
                    s.f32(*x);
                }
            });
            s.mark("pair");
            let pair = v.pair();
            s.u16(pair.f0());
            s.text(pair.f1());
            s.mark("hp");
            s.u16(v.hp());
            let $rs = &mut *s;
            let $rv = &v;
            $walk_root_extra
        }

        /// The canonical bytes of a message read with this version: after
        /// validation, through the checked viewers, which must read what
        /// the trusted viewers read.
        pub fn stream(message: &[u8]) -> Result<Vec<u8>, String> {
            let mut copy = None;
            let r = karmem::Reader::new(crate::aligned(message, &mut copy))
                .map_err(|e| e.to_string())?;
            let trusted = Root::validate(&r).map_err(|e| e.to_string())?;
            let mut checked = Sink::default();
            walk_root(&mut checked, RootView::root(&r));
            let mut fast = Sink::default();
            walk_root(&mut fast, trusted);
            if checked.bytes != fast.bytes {
                return Err("the checked and the trusted viewers read different values".into());
            }
            Ok(checked.bytes)
        }

        /// The canonical bytes of what the checked viewers read from a
        /// message that was *not* validated: malformed parts read as zero
        /// (docs/format.md), which the differential fuzz target compares
        /// with the JSON codec's lenient decoder.
        /// `stream`'s bytes with every NaN the same (see `Sink::nan_blind`),
        /// after validation, through the checked viewers.
        pub fn stream_nan_blind(message: &[u8]) -> Result<Vec<u8>, String> {
            let mut copy = None;
            let r = karmem::Reader::new(crate::aligned(message, &mut copy))
                .map_err(|e| e.to_string())?;
            Root::validate(&r).map_err(|e| e.to_string())?;
            let mut sink = Sink {
                nan_blind: true,
                ..Sink::default()
            };
            walk_root(&mut sink, RootView::root(&r));
            Ok(sink.bytes)
        }

        pub fn stream_unvalidated(message: &[u8]) -> Result<Vec<u8>, String> {
            sink_unvalidated(message).map(|s| s.bytes)
        }

        pub fn sink_unvalidated(message: &[u8]) -> Result<Sink, String> {
            let mut copy = None;
            let r = karmem::Reader::new(crate::aligned(message, &mut copy))
                .map_err(|e| e.to_string())?;
            let mut checked = Sink::default();
            walk_root(&mut checked, RootView::root(&r));
            Ok(checked)
        }

        /// The message decoded (leniently: malformed parts read as zero,
        /// unknown union tags as no value) and encoded again.
        pub fn reencode(message: &[u8]) -> Result<Vec<u8>, String> {
            let mut copy = None;
            let r = karmem::Reader::new(crate::aligned(message, &mut copy))
                .map_err(|e| e.to_string())?;
            let mut value = Root::default();
            value.read_as_root(&r).map_err(|e| e.to_string())?;
            value.to_bytes().map_err(|e| e.to_string())
        }

        /// Decoding the message and encoding the value again gives the same
        /// bytes: for a message of this version, the writer is canonical.
        pub fn roundtrip(message: &[u8]) -> Result<(), String> {
            let mut copy = None;
            let r = karmem::Reader::new(crate::aligned(message, &mut copy))
                .map_err(|e| e.to_string())?;
            let mut value = Root::default();
            value.read_as_root(&r).map_err(|e| e.to_string())?;
            let again = value.to_bytes().map_err(|e| e.to_string())?;
            if again != message {
                return Err(format!(
                    "decoding and encoding again changed the message ({} bytes, then {})",
                    message.len(),
                    again.len()
                ));
            }
            Ok(())
        }
    };
}

pub(crate) use version;

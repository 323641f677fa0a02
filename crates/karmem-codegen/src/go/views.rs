//! Zero-copy viewers in the seed README's style: small position values whose
//! methods take the message's `*karmem.Reader`. SoA arrays give native
//! slices per scalar column and element views whose accessors follow the
//! element's (flattened) field paths: `profiles.At(i).Data(r).Username(r)`.
//!
//! In trusted mode (`Gen::trusted`) the same emitters write the trusted
//! viewers: `Trusted`-prefixed types whose methods take a `karmem.Trusted`,
//! with the checks a validated message no longer needs left out.

use std::collections::BTreeMap;

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::{align, image_bytes, Pos};
use super::object::negate;
use super::{go_prim, limit_of, wire, Ctx, Gen};

/// Where a viewer reads a field: in the message (where decoders and
/// validators read it too), or inside the byte image `v` of an inline struct
/// (RATIONALE R5.12), whose field bytes are `v[pos:]`, always present.
pub(crate) enum Place<'a> {
    Msg(&'a Ctx),
    Image(Pos),
}

impl Gen<'_> {
    fn struct_decl(&mut self, name: &str, fields: &[(&str, String)]) {
        let rows: Vec<Vec<String>> = fields
            .iter()
            .map(|(n, t)| vec![n.to_string(), t.clone()])
            .collect();
        self.c.open(&format!("type {name} struct {{"));
        for row in align(&rows) {
            self.c.line(&row);
        }
        self.c.close("}");
        self.c.line("");
    }

    /// `Len` and `All` of an array viewer type whose `At(i)` returns `item`.
    fn len_and_all(&mut self, ty: &str, len: &str, item: &str) {
        self.c.line("// Len is the number of elements.");
        self.c.open(&format!("func (s {ty}) Len() int {{"));
        self.c.line(&format!("return int({len})"));
        self.c.close("}");
        self.c.line("");
        self.c
            .line("// All iterates over the elements (for i, e := range s.All()).");
        self.c
            .open(&format!("func (s {ty}) All() iter.Seq2[int, {item}] {{"));
        self.c
            .open(&format!("return func(yield func(int, {item}) bool) {{"));
        self.c.open(&format!("for i := range int({len}) {{"));
        self.c.open("if !yield(i, s.At(i)) {");
        self.c.line("return");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
    }

    // ---- struct viewers ----------------------------------------------------------

    pub(crate) fn struct_view(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let schema_name = self.s.structs[id].name.clone();
        if table {
            self.c.line(&format!(
                "// {view} reads the table `{schema_name}` in place (zero-copy). Its methods"
            ));
        } else {
            // The struct's bytes, copied: as cheap to pass as a position,
            // and an AoS array of them is a slice over the message
            // (RATIONALE R5.12).
            self.c.line(&format!(
                "// {view} is the inline struct `{schema_name}`: a copy of its {} bytes (an",
                sl.size
            ));
            self.c.line(&format!(
                "// AoS array of them is a []{view} over the message). Its methods"
            ));
        }
        if self.trusted {
            self.c.line(&format!(
                "// take the karmem.Trusted of Trust{name} (a validated message) and skip"
            ));
            self.c
                .line("// the checks the validation made; absent data reads as zero.");
        } else {
            self.c
                .line("// take the message's reader; malformed or absent data reads as zero.");
        }
        if table {
            self.struct_decl(&view, &[("t", "karmem.Table".into())]);
        } else {
            self.c.line(&format!("type {view} [{}]byte", sl.size));
            self.c.line("");
        }
        // Trusted viewers start at the root Trust<T> returns.
        if !self.trusted {
            self.new_struct_view(&view, &name, table);
        }
        if table {
            self.c
                .line("// Table returns where the table is (for in-place updates with");
            self.c
                .line("// karmem.Editor); the zero Table when it is absent or malformed.");
            self.c
                .open(&format!("func (v {view}) Table() karmem.Table {{"));
            self.c.line("return v.t");
            self.c.close("}");
            self.c.line("");
        }
        for (i, f) in sl.fields.iter().enumerate() {
            let fname = self.n.field(id, i);
            let in_table = Ctx::Table {
                t: "v.t".into(),
                off: f.offset,
            };
            let place = if table {
                Place::Msg(&in_table)
            } else {
                Place::Image(Pos::default().add(f.offset))
            };
            let field = &self.s.structs[id].fields[i];
            let (doc, default) = (field.doc.clone(), field.nonzero_default().cloned());
            self.view_accessor(
                &format!("v {view}"),
                &fname,
                &f.slot,
                &place,
                &doc,
                default.as_ref(),
            );
            if table && !self.trusted {
                self.setters(&view, &fname, &f.slot, f.offset);
            }
        }
    }

    /// `New<T>Viewer(r, offset)`, the checked viewer at an offset.
    fn new_struct_view(&mut self, view: &str, name: &str, table: bool) {
        self.c.line(&format!(
            "// New{view} returns the viewer of the {name} at offset; offset 0 selects"
        ));
        self.c.line("// the root of the message.");
        self.c.open(&format!(
            "func New{view}(r *karmem.Reader, offset uint32) {view} {{"
        ));
        self.c.open("if offset == 0 {");
        self.c.line("offset = karmem.HeaderSize");
        self.c.close("}");
        if table {
            self.c.line(&format!("return {view}{{t: r.Table(offset)}}"));
        } else {
            self.c
                .line(&format!("return karmem.Image[{view}](r, offset)"));
        }
        self.c.close("}");
        self.c.line("");
    }

    /// In-place setters of a table field (karmem.Editor).
    fn setters(&mut self, view: &str, name: &str, slot: &Slot, off: u32) {
        match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                let ty = self.scalar_type(slot).unwrap_or_default();
                let value = match slot {
                    Slot::Enum { .. } => format!("{}(x)", go_prim(*p)),
                    _ => "x".into(),
                };
                self.c.line(&format!(
                    "// Set{name} stores {name} in place (the field must be present in the message)."
                ));
                self.c.open(&format!(
                    "func (v {view}) Set{name}(e *karmem.Editor, x {ty}) error {{"
                ));
                self.c
                    .line(&format!("return e.Set{}(v.t, {off}, {value})", wire(*p)));
                self.c.close("}");
                self.c.line("");
            }
            Slot::ArrayRef {
                array,
                data: ArrayData::Plain { elem_size },
            } if array.text.is_none() => {
                let ty = match array.elem {
                    ElemType::Scalar(Primitive::Bool) => "uint8".to_string(),
                    e => self.elem_type(e),
                };
                self.c.line(&format!(
                    "// Edit{name} returns {name} as a writable slice over the message: length"
                ));
                self.c
                    .line("// = the array's length, capacity = its capacity (see Set{name}Len).");
                self.c.open(&format!(
                    "func (v {view}) Edit{name}(e *karmem.Editor) []{ty} {{"
                ));
                self.c
                    .open(&format!("if !v.t.Has({off}, {ARRAY_REF_SIZE}) {{"));
                self.c.line("return nil");
                self.c.close("}");
                self.c.line(&format!(
                    "return karmem.EditSlice[{ty}](e, v.t.Offset+{off})"
                ));
                self.c.close("}");
                self.c.line("");
                self.c.line(&format!(
                    "// Set{name}Len changes the length of {name} in place, within its capacity."
                ));
                self.c.open(&format!(
                    "func (v {view}) Set{name}Len(e *karmem.Editor, n uint32) error {{"
                ));
                if let ArrayKind::Limited(limit) = array.kind {
                    self.c.open(&format!("if n > {limit} {{"));
                    self.c.line("return karmem.ErrTooLarge");
                    self.c.close("}");
                }
                self.c
                    .open(&format!("if !v.t.Has({off}, {ARRAY_REF_SIZE}) {{"));
                self.c.line("return karmem.ErrMalformedTable");
                self.c.close("}");
                self.c.line(&format!(
                    "return e.SetLen(v.t.Offset+{off}, {elem_size}, n)"
                ));
                self.c.close("}");
                self.c.line("");
            }
            _ => {}
        }
    }

    /// The view of the array `a` (read through `r`) and its type: what an
    /// element of an array of arrays reads as (format.md §5.4).
    fn array_view(&self, array: &ArrayType, data: &ArrayData) -> (String, String) {
        let slice = self.slice_fn();
        match (array.text, data) {
            // A map: functions of an entry's position read its key and
            // value views (format.md §5.5).
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                let reader = self.reader_type();
                let sl = self.l.of_struct(*id);
                let view = |slot: &Slot, off: u32| {
                    let at = Ctx::Pos {
                        pos: Pos::of("at").add(off),
                        absent: None,
                    };
                    let (methods, ..) = self.accessor_methods("x", slot, &Place::Msg(&at), None);
                    let (_, ty, _, body) = methods.into_iter().next().expect("a view");
                    let body: Vec<String> = body.iter().map(|l| format!("\t{l}")).collect();
                    let f = format!(
                        "func(r {reader}, at uint32) {ty} {{\n{}\n}}",
                        body.join("\n")
                    );
                    (ty, f)
                };
                let (kt, key) = view(&sl.fields[0].slot, sl.fields[0].offset);
                let (vt, value) = view(&sl.fields[1].slot, sl.fields[1].offset);
                let (ty, new) = if self.trusted {
                    ("karmem.TrustedMap", "karmem.NewTrustedMap")
                } else {
                    ("karmem.Map", "karmem.NewMap")
                };
                (
                    format!("{ty}[{kt}, {vt}]"),
                    format!("{new}(a, {stride}, {key}, {value})"),
                )
            }
            (Some(Text::Utf8), _) => ("string".into(), "r.String(a)".into()),
            (Some(Text::Utf16), _) => (
                "[]uint16".into(),
                format!("{slice}[uint16](r, a.Offset, a.Len)"),
            ),
            (None, ArrayData::Plain { .. }) => {
                let t = match array.elem {
                    ElemType::Scalar(Primitive::Bool) => "uint8".to_string(),
                    e => self.elem_type(e),
                };
                (
                    format!("[]{t}"),
                    format!("{slice}[{t}](r, a.Offset, a.Len)"),
                )
            }
            // A slice of the element images over the message.
            (None, ArrayData::AosInline { id, .. }) => {
                let v = self.view_name(*id);
                let images = if self.trusted {
                    "karmem.TrustedImages"
                } else {
                    "karmem.Images"
                };
                (
                    format!("[]{v}"),
                    format!("{images}[{v}](r, a.Offset, a.Len)"),
                )
            }
            (None, ArrayData::AosTable { id }) => {
                let v = self.aos_view(*id);
                (v.clone(), format!("{v}{{r: r, off: a.Offset, n: a.Len}}"))
            }
            (None, ArrayData::Soa { elem }) => {
                let v = self.soa_view(*elem);
                (v.clone(), format!("New{v}(r, a)"))
            }
            (None, ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. }) => {
                let u = format!("{}{}", self.mode(), self.n.union_name(*id));
                let layout = if matches!(data, ArrayData::UnionAos { .. }) {
                    "Aos"
                } else {
                    "Soa"
                };
                (self.union_array(*id), format!("new{u}Array{layout}(r, a)"))
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let suffix = if array.layout == ArrayLayout::BoVoS {
                    "Bovos"
                } else {
                    "Bovoa"
                };
                let v = format!("{}{}{suffix}Viewer", self.mode(), self.n.union_name(*id));
                (v.clone(), format!("{v}{{a: a}}"))
            }
            // Each element is read by a function of its reference.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let (ty, view) = self.array_view(inner, data);
                let reader = self.reader_type();
                // The inner view's own lines one tab deeper.
                let body = format!("return {view}").replace('\n', "\n\t");
                let f = format!("func(r {reader}, a karmem.ArrayRef) {ty} {{\n\t{body}\n}}");
                if self.trusted {
                    (
                        format!("karmem.TrustedArrays[{ty}]"),
                        format!("karmem.NewTrustedArrays(a, {f})"),
                    )
                } else {
                    (
                        format!("karmem.Arrays[{ty}]"),
                        format!(
                            "karmem.NewArrays(a, {}, {}, {f})",
                            data.elem_size(),
                            limit_of(inner)
                        ),
                    )
                }
            }
        }
    }

    /// The accessor(s) of one slot as `(name, return type, zero value,
    /// body lines after the guard)`, with the condition under which the
    /// slot is absent and whether the body needs that guard.
    #[allow(clippy::type_complexity)]
    fn accessor_methods(
        &self,
        name: &str,
        slot: &Slot,
        place: &Place,
        default: Option<&DefaultValue>,
    ) -> (
        Vec<(String, String, String, Vec<String>)>,
        Option<String>,
        bool,
    ) {
        let size = self.l.slot_size(slot);
        // An absent field (or SoA column) reads as its declared default:
        // the guard then returns the default instead of the zero value.
        let default = default.map(|d| self.default_expr(slot, d));
        // An image field is a field at a fixed position that is always
        // there; only its loads differ.
        let in_image;
        let (ctx, image) = match place {
            Place::Msg(ctx) => (*ctx, false),
            Place::Image(pos) => {
                in_image = Ctx::Pos {
                    pos: pos.clone(),
                    absent: None,
                };
                (&in_image, true)
            }
        };
        let (pos, absent): (Pos, Option<String>) = match ctx {
            Ctx::Table { t, off } => (
                Pos::of(&format!("{t}.Offset")).add(*off),
                Some(format!("!{t}.Has({off}, {size})")),
            ),
            Ctx::Pos { pos, absent } => (pos.clone(), absent.clone()),
        };
        // A `wire` value at `at`: decoded from the image, or loaded through
        // the reader.
        let load = |w: &str, at: &Pos| {
            if image {
                format!("karmem.Load{w}({})", image_bytes(at))
            } else {
                format!("r.{w}({})", at.normal())
            }
        };
        // The inline struct (or fixed array of them) of type `ty` at `at`.
        let read_image = |ty: &str, at: &Pos| {
            if image {
                format!("karmem.ImageOf[{ty}]({})", image_bytes(at))
            } else if self.trusted {
                format!("karmem.TrustedImage[{ty}](r, {})", at.compact())
            } else {
                format!("karmem.Image[{ty}](r, {})", at.compact())
            }
        };
        // (method name, return type, zero value, body lines after the guard)
        let mut methods: Vec<(String, String, String, Vec<String>)> = Vec::new();
        // Table scalars use the Field loads, which handle absence themselves;
        // Trusted has none, so its accessors test the field's presence.
        let checked_table = !self.trusted && matches!(ctx, Ctx::Table { .. }) && default.is_none();
        let guarded = self.trusted
            || default.is_some()
            || matches!(slot, Slot::Optional { .. } | Slot::OptionalTable(_))
            || !matches!(
                (ctx, slot),
                (
                    Ctx::Table { .. },
                    Slot::Scalar(_) | Slot::Enum { .. } | Slot::TableRef(_) | Slot::ArrayRef { .. }
                )
            );
        match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                let ty = self.scalar_type(slot).unwrap_or_default();
                let load = match ctx {
                    Ctx::Table { t, off } if checked_table => {
                        format!("r.Field{}({t}, {off})", wire(*p))
                    }
                    _ => load(wire(*p), &pos),
                };
                let value = match slot {
                    Slot::Enum { id, .. } => format!("{}({load})", self.n.enum_name(*id)),
                    _ => load,
                };
                let zero = default
                    .clone()
                    .unwrap_or_else(|| super::zero_of(*p).to_string());
                methods.push((name.into(), ty, zero, vec![format!("return {value}")]));
            }
            Slot::InlineStruct(id) => {
                let v = self.view_name(*id);
                methods.push((
                    name.into(),
                    v.clone(),
                    format!("{v}{{}}"),
                    vec![format!("return {}", read_image(&v, &pos))],
                ));
            }
            Slot::TableRef(id) => {
                let v = self.view_name(*id);
                let t = match ctx {
                    Ctx::Table { t, off } if checked_table => format!("r.FieldTable({t}, {off})"),
                    _ => format!("r.Table({})", load("Uint32", &pos)),
                };
                methods.push((
                    name.into(),
                    v.clone(),
                    format!("{v}{{}}"),
                    vec![format!("return {v}{{t: {t}}}")],
                ));
            }
            Slot::OptionalTable(id) => {
                let v = self.view_name(*id);
                methods.push((
                    name.into(),
                    format!("({v}, bool)"),
                    format!("{v}{{}}, false"),
                    vec![
                        format!("offset := {}", load("Uint32", &pos)),
                        "if offset == 0 {".into(),
                        format!("\treturn {v}{{}}, false"),
                        "}".into(),
                        format!("return {v}{{t: r.Table(offset)}}, true"),
                    ],
                ));
            }
            // The value's own accessors, each returning `(value, true)`, or
            // `(zero, false)` when the presence byte is 0.
            Slot::Optional { value_at, value } => {
                let value_ctx = Ctx::Pos {
                    pos: pos.add(*value_at),
                    absent: None,
                };
                let inner = if image {
                    Place::Image(pos.add(*value_at))
                } else {
                    Place::Msg(&value_ctx)
                };
                let presence = if image {
                    format!("karmem.LoadUint8({})", image_bytes(&pos))
                } else {
                    format!("r.Uint8({})", pos.compact())
                };
                let (inner_methods, ..) = self.accessor_methods(name, value, &inner, None);
                for (mname, ty, zero, body) in inner_methods {
                    let mut lines = vec![
                        format!("if {presence} == 0 {{"),
                        format!("\treturn {zero}, false"),
                        "}".into(),
                    ];
                    // The body ends with its return statement (one line,
                    // or several for a function literal): `, true` after it.
                    lines.extend(body);
                    if let Some(last) = lines.last_mut() {
                        last.push_str(", true");
                    }
                    methods.push((
                        mname,
                        format!("({ty}, bool)"),
                        format!("{zero}, false"),
                        lines,
                    ));
                }
            }
            Slot::Union { id, .. } => {
                let v = self.union_view(*id);
                let ret = if image {
                    let tag = self.s.unions[*id].tag;
                    format!(
                        "return {v}{{tag: {}({}), offset: {}}}",
                        self.union_tag(*id),
                        load(wire(tag), &pos),
                        load("Uint32", &pos.add(UNION_OFFSET_AT))
                    )
                } else {
                    format!(
                        "return new{v}(r, {}, {})",
                        pos.compact(),
                        pos.add(UNION_OFFSET_AT).compact()
                    )
                };
                methods.push((name.into(), v.clone(), format!("{v}{{}}"), vec![ret]));
            }
            Slot::FixedArray { elem, len, stride } => match elem {
                // A Go array of the element images, copied as a fixed array
                // of scalars is (the elements are side by side: the stride
                // is the struct's size).
                FixedElem::InlineStruct(id) => {
                    debug_assert_eq!(*stride, self.l.of_struct(*id).size);
                    let ty = format!("[{len}]{}", self.view_name(*id));
                    methods.push((
                        name.into(),
                        ty.clone(),
                        format!("{ty}{{}}"),
                        vec![format!("return {}", read_image(&ty, &pos))],
                    ));
                }
                _ => {
                    // Image indices are ints (j), message offsets uint32.
                    let epos = if image {
                        pos.plus("j", *stride)
                    } else {
                        pos.plus("uint32(j)", *stride)
                    };
                    let (ty, value) = match elem {
                        FixedElem::Scalar(p) => (go_prim(*p).to_string(), load(wire(*p), &epos)),
                        FixedElem::Enum { id, repr } => (
                            self.n.enum_name(*id),
                            format!("{}({})", self.n.enum_name(*id), load(wire(*repr), &epos)),
                        ),
                        FixedElem::InlineStruct(_) => unreachable!(),
                    };
                    // The guard returns the zero array declared first.
                    methods.push((
                        name.into(),
                        format!("[{len}]{ty}"),
                        "out".into(),
                        vec![
                            "for j := range out {".into(),
                            format!("\tout[j] = {value}"),
                            "}".into(),
                            "return out".into(),
                        ],
                    ));
                }
            },
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = limit_of(array);
                // A validated reference needs no size or limit to be checked.
                let a = match ctx {
                    _ if image && self.trusted => {
                        format!("a := karmem.LoadArrayRef({})", image_bytes(&pos))
                    }
                    _ if image => format!(
                        "a := r.CheckArray(karmem.LoadArrayRef({}), {es}, {limit})",
                        image_bytes(&pos)
                    ),
                    _ if self.trusted => format!("a := r.Array({})", pos.normal()),
                    Ctx::Table { t, off } => {
                        format!("a := r.FieldArray({t}, {off}, {es}, {limit})")
                    }
                    Ctx::Pos { .. } => format!("a := r.Array({}, {es}, {limit})", pos.compact()),
                };
                let mut push = |n: String, ty: String, zero: &str, ret: String| {
                    methods.push((n, ty, zero.to_string(), vec![a.clone(), ret]));
                };
                match (array.text, data) {
                    (Some(Text::Utf8), _) => {
                        let (text, bytes) = match &default {
                            Some(d) => (d.clone(), format!("[]byte({d})")),
                            None => ("\"\"".into(), "nil".into()),
                        };
                        push(
                            name.into(),
                            "string".into(),
                            &text,
                            "return r.String(a)".into(),
                        );
                        push(
                            format!("{name}Bytes"),
                            "[]byte".into(),
                            &bytes,
                            "return r.ArrayBytes(a)".into(),
                        );
                    }
                    // The view of an array of arrays spans lines (a
                    // function literal per level, as gofmt lays it out).
                    (_, data) => {
                        let (ty, view) = self.array_view(array, data);
                        let zero = if ty.starts_with("[]") {
                            "nil".to_string()
                        } else {
                            format!("{ty}{{}}")
                        };
                        let mut body = vec![a.clone()];
                        body.extend(format!("return {view}").lines().map(str::to_string));
                        methods.push((name.into(), ty, zero, body));
                    }
                }
            }
        }
        (methods, absent, guarded)
    }

    /// Emit the viewer accessor(s) of one slot on receiver `recv`
    /// (`"v AccountDataViewer"`).
    pub(crate) fn view_accessor(
        &mut self,
        recv: &str,
        name: &str,
        slot: &Slot,
        place: &Place,
        doc: &[String],
        default: Option<&DefaultValue>,
    ) {
        let (methods, absent, guarded) = self.accessor_methods(name, slot, place, default);
        let reader = self.reader_type();
        for (mname, ty, zero, body) in methods {
            self.c.doc(doc);
            self.c
                .open(&format!("func ({recv}) {mname}(r {reader}) {ty} {{"));
            if zero == "out" {
                self.c.line(&format!("var out {ty}"));
            }
            match absent.as_deref().filter(|_| guarded) {
                // Trusted: the present case first, so that it falls through
                // (in the per-element SoA loop, one taken branch less per
                // field read; RATIONALE R5.11).
                Some(cond) if self.trusted => {
                    let present = match cond.strip_prefix('!') {
                        Some(c) => c.to_string(),
                        None => negate(cond),
                    };
                    self.c.open(&format!("if {present} {{"));
                    self.body_lines(&body);
                    self.c.close("}");
                    self.c.line(&format!("return {zero}"));
                }
                Some(cond) => {
                    self.c.open(&format!("if {cond} {{"));
                    self.c.line(&format!("return {zero}"));
                    self.c.close("}");
                    self.body_lines(&body);
                }
                None => self.body_lines(&body),
            }
            self.c.close("}");
            self.c.line("");
        }
    }

    fn body_lines(&mut self, body: &[String]) {
        for l in body {
            // Each leading tab marks a line one level deeper.
            let rest = l.trim_start_matches('\t');
            let depth = l.len() - rest.len();
            self.c.indent += depth;
            self.c.line(rest);
            self.c.indent -= depth;
        }
    }

    // ---- SoA viewers -----------------------------------------------------------------

    pub(crate) fn soa_view_item(&mut self, id: StructId) {
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        let sv = self.soa_view(id);
        let item = self.soa_item(id);
        let name = self.n.struct_name(id);
        let schema_name = self.s.structs[id].name.clone();
        self.c.line(&format!(
            "// {sv} is an SoA array of `{schema_name}`: one directory scan when created,"
        ));
        self.c
            .line("// then every scalar column is a native slice and At(i) is O(1).");
        // Up to three columns, the viewer keeps them in fields (c0, c1, c2),
        // not an array: a struct of at most four scalar fields stays in
        // registers when At(i) copies it into an item (Go's SSA does not
        // take arrays), which made the per-element loop 4.5× faster
        // (RATIONALE.md R5.10).
        let fields = (1..=3).contains(&n);
        let column = |k: usize| {
            if fields {
                format!("s.c{k}")
            } else {
                format!("s.cols[{k}]")
            }
        };
        let mut decl = vec![("n".to_string(), "uint32".to_string())];
        if fields {
            decl.extend((0..n).map(|k| (format!("c{k}"), "uint32".to_string())));
        } else {
            decl.push(("cols".into(), format!("[{n}]uint32")));
        }
        let decl: Vec<(&str, String)> = decl.iter().map(|(f, t)| (f.as_str(), t.clone())).collect();
        self.struct_decl(&sv, &decl);
        let reader = self.reader_type();
        let slice = self.slice_fn();
        self.c.line(&format!(
            "// New{sv} resolves the columns of the SoA array a (format.md §5.3)."
        ));
        self.c.open(&format!(
            "func New{sv}(r {reader}, a karmem.ArrayRef) {sv} {{"
        ));
        if fields {
            self.c.line(&format!("var cols [{n}]uint32"));
            self.c
                .line(&format!("r.SoaColumns(a, soaColumns{name}[:], cols[:])"));
            let inits: Vec<String> = (0..n).map(|k| format!("c{k}: cols[{k}]")).collect();
            self.c
                .line(&format!("return {sv}{{n: a.Len, {}}}", inits.join(", ")));
        } else {
            self.c.line(&format!("s := {sv}{{n: a.Len}}"));
            self.c
                .line(&format!("r.SoaColumns(a, soaColumns{name}[:], s.cols[:])"));
            self.c.line("return s");
        }
        self.c.close("}");
        self.c.line("");
        self.c
            .line("// At returns element i (reading as zeros when i is out of range).");
        self.c.open(&format!("func (s {sv}) At(i int) {item} {{"));
        self.c.open("if uint(i) >= uint(s.n) {");
        self.c.line(&format!("return {item}{{}}"));
        self.c.close("}");
        self.c.line(&format!("return {item}{{s: s, i: uint32(i)}}"));
        self.c.close("}");
        self.c.line("");
        self.len_and_all(&sv, "s.n", &item);
        for (k, col) in soa.columns.iter().enumerate() {
            let ty = match &col.slot {
                Slot::Scalar(Primitive::Bool) => "uint8".to_string(),
                Slot::Scalar(p) => go_prim(*p).to_string(),
                Slot::Enum { id, .. } => self.n.enum_name(*id),
                _ => continue,
            };
            let mut cname = self.column_name(id, k);
            if ["Len", "At", "All"].contains(&cname.as_str()) {
                cname.push_str("Column");
            }
            self.c.line(&format!(
                "// {cname} returns the whole column as a native slice over the message"
            ));
            self.c
                .line("// (nil when the column is absent: an older writer).");
            self.c
                .open(&format!("func (s {sv}) {cname}(r {reader}) []{ty} {{"));
            self.c
                .line(&format!("return {slice}[{ty}](r, {}, s.n)", column(k)));
            self.c.close("}");
            self.c.line("");
        }
        self.c.line(&format!(
            "// {item} is one element of a {sv}; its methods follow the element's fields."
        ));
        self.struct_decl(&item, &[("s", sv.clone()), ("i", "uint32".into())]);
        // The flattening tree: each struct-typed step on a column path is a
        // node type (same layout as the item, different methods).
        let mut nodes: BTreeMap<Vec<u32>, StructId> = BTreeMap::new();
        nodes.insert(Vec::new(), id);
        for col in &soa.columns {
            for d in 1..col.path.len() {
                nodes.insert(col.path[..d].to_vec(), col.steps[d]);
            }
        }
        for (prefix, sid) in &nodes {
            let node = self.node_name(id, prefix);
            if !prefix.is_empty() {
                let path = self.path_names(id, prefix).join(".");
                self.c
                    .line(&format!("// {node} views field {path} of a {item}."));
                self.c.line(&format!("type {node} {item}"));
                self.c.line("");
            }
            let fields = self.s.structs[*sid].fields.len();
            for fi in 0..fields {
                let mut path = prefix.clone();
                path.push(fi as u32);
                let fname = self.n.field(*sid, fi);
                if nodes.contains_key(&path) {
                    let child = self.node_name(id, &path);
                    self.c
                        .open(&format!("func (it {node}) {fname}(r {reader}) {child} {{"));
                    self.c.line(&format!("return {child}(it)"));
                    self.c.close("}");
                    self.c.line("");
                } else if let Some(k) = soa.columns.iter().position(|c| c.path == path) {
                    let col = &soa.columns[k];
                    let at = format!("it.{}", column(k));
                    let ctx = Ctx::Pos {
                        pos: Pos::of(&at).plus("it.i", col.size),
                        absent: Some(format!("{at} == 0")),
                    };
                    let slot = col.slot.clone();
                    let default = col.field(self.s).nonzero_default();
                    let place = Place::Msg(&ctx);
                    self.view_accessor(&format!("it {node}"), &fname, &slot, &place, &[], default);
                }
            }
        }
    }

    fn path_names(&self, id: StructId, path: &[u32]) -> Vec<String> {
        let mut out = Vec::new();
        let mut sid = id;
        for idx in path {
            out.push(self.n.field(sid, *idx as usize));
            if let FieldType::Struct(next) = &self.s.structs[sid].fields[*idx as usize].ty {
                sid = *next;
            }
        }
        out
    }

    fn node_name(&self, id: StructId, path: &[u32]) -> String {
        format!(
            "{}{}",
            self.soa_item(id),
            self.path_names(id, path).join("")
        )
    }

    /// `DataUsername` for column `Data.Username`.
    fn column_name(&self, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        col.steps
            .iter()
            .zip(&col.path)
            .map(|(s, i)| self.n.field(*s, *i as usize))
            .collect()
    }

    // ---- AoS viewers ------------------------------------------------------------------

    /// The viewer of an AoS array of tables (an array of offsets). An AoS
    /// array of inline structs needs none: it is a slice of their images.
    pub(crate) fn aos_view_item(&mut self, id: StructId) {
        let av = self.aos_view(id);
        let v = self.view_name(id);
        let schema_name = self.s.structs[id].name.clone();
        self.c
            .line(&format!("// {av} is an AoS array of `{schema_name}`."));
        self.struct_decl(
            &av,
            &[
                ("r", self.reader_type().into()),
                ("off", "uint32".into()),
                ("n", "uint32".into()),
            ],
        );
        self.c
            .line("// At returns element i (reading as zeros when i is out of range).");
        self.c.open(&format!("func (s {av}) At(i int) {v} {{"));
        self.c.open("if uint(i) >= uint(s.n) {");
        self.c.line(&format!("return {v}{{}}"));
        self.c.close("}");
        self.c.line(&format!(
            "return {v}{{t: s.r.Table(s.r.Uint32(s.off + uint32(i)*{OFFSET_SIZE}))}}"
        ));
        self.c.close("}");
        self.c.line("");
        self.len_and_all(&av, "s.n", &v);
    }

    // ---- union viewers ----------------------------------------------------------------

    pub(crate) fn union_view_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let uv = self.union_view(id);
        let tag = self.union_tag(id);
        self.c.line(&format!(
            "// {uv} reads a `{}` value in place: check Tag, then read the variant.",
            u.name
        ));
        self.struct_decl(&uv, &[("tag", tag.clone()), ("offset", "uint32".into())]);
        let load = if u.tag == Primitive::U32 {
            format!("{tag}(r.Uint32(tagAt))")
        } else {
            format!("{tag}(r.{}(tagAt))", wire(u.tag))
        };
        let reader = self.reader_type();
        self.c.open(&format!(
            "func new{uv}(r {reader}, tagAt, offsetAt uint32) {uv} {{"
        ));
        self.c.line(&format!(
            "return {uv}{{tag: {load}, offset: r.Uint32(offsetAt)}}"
        ));
        self.c.close("}");
        self.c.line("");
        self.c.line(&format!(
            "// Tag returns {tag}None, the tag of a variant, or a tag this schema"
        ));
        self.c
            .line("// version does not know (from a newer writer).");
        self.c.open(&format!("func (u {uv}) Tag() {tag} {{"));
        self.c.line("return u.tag");
        self.c.close("}");
        self.c.line("");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            let v = self.view_name(var.ty);
            self.c.line(&format!(
                "// {ty} returns the {ty} value (reading as zeros when the tag is another)."
            ));
            self.c
                .open(&format!("func (u {uv}) {ty}(r {reader}) {v} {{"));
            if self.l.is_table(var.ty) {
                self.c.open(&format!("if u.tag != {tag}{ty} {{"));
                self.c.line(&format!("return {v}{{}}"));
                self.c.close("}");
                self.c.line(&format!("return {v}{{t: r.Table(u.offset)}}"));
            } else if self.trusted {
                // A validated variant of this tag has its value in place.
                self.c
                    .open(&format!("if u.tag != {tag}{ty} || u.offset == 0 {{"));
                self.c.line(&format!("return {v}{{}}"));
                self.c.close("}");
                self.c
                    .line(&format!("return karmem.TrustedImage[{v}](r, u.offset)"));
            } else {
                self.c.open(&format!(
                    "if u.tag != {tag}{ty} || !r.InlineAt(u.offset, {}) {{",
                    self.l.of_struct(var.ty).size
                ));
                self.c.line(&format!("return {v}{{}}"));
                self.c.close("}");
                self.c
                    .line(&format!("return karmem.Image[{v}](r, u.offset)"));
            }
            self.c.close("}");
            self.c.line("");
        }
    }

    pub(crate) fn union_array_view(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = format!("{}{}", self.mode(), self.n.union_name(id));
        let av = self.union_array(id);
        let uv = self.union_view(id);
        let tw = u.tag.size();
        let reader = self.reader_type();
        self.c.line(&format!(
            "// {av} is an AoS or SoA array of `{}` values.",
            u.name
        ));
        self.struct_decl(
            &av,
            &[
                ("r", reader.into()),
                ("n", "uint32".into()),
                ("tags", "uint32".into()),
                ("tagStride", "uint32".into()),
                ("offsets", "uint32".into()),
                ("offsetStride", "uint32".into()),
            ],
        );
        self.c.open(&format!(
            "func new{name}ArrayAos(r {reader}, a karmem.ArrayRef) {av} {{"
        ));
        self.c.line(&format!(
            "return {av}{{r: r, n: a.Len, tags: a.Offset, tagStride: {UNION_SLOT_SIZE}, offsets: a.Offset + {UNION_OFFSET_AT}, offsetStride: {UNION_SLOT_SIZE}}}"
        ));
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!(
            "func new{name}ArraySoa(r {reader}, a karmem.ArrayRef) {av} {{"
        ));
        self.c
            .line(&format!("tags, offsets, ok := r.UnionColumns(a, {tw})"));
        self.c.open("if !ok {");
        self.c.line(&format!("return {av}{{}}"));
        self.c.close("}");
        self.c.line(&format!(
            "return {av}{{r: r, n: a.Len, tags: tags, tagStride: {tw}, offsets: offsets, offsetStride: {OFFSET_SIZE}}}"
        ));
        self.c.close("}");
        self.c.line("");
        self.c
            .line("// At returns element i (no value when i is out of range).");
        self.c.open(&format!("func (s {av}) At(i int) {uv} {{"));
        self.c.open("if uint(i) >= uint(s.n) {");
        self.c.line(&format!("return {uv}{{}}"));
        self.c.close("}");
        self.c.line(&format!(
            "return new{uv}(s.r, s.tags+uint32(i)*s.tagStride, s.offsets+uint32(i)*s.offsetStride)"
        ));
        self.c.close("}");
        self.c.line("");
        self.len_and_all(&av, "s.n", &uv);
    }

    pub(crate) fn bunch_view(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let suffix = if soa { "Bovos" } else { "Bovoa" };
        let bv = format!("{}{name}{suffix}Viewer", self.mode());
        let reader = self.reader_type();
        // A trusted bunch table was validated with its element sizes.
        let trusted = self.trusted;
        let entry = |tag: u32, size: u32| {
            if trusted {
                format!("r.BunchEntry(b.a, {tag})")
            } else {
                format!("r.BunchEntry(b.a, {tag}, {size})")
            }
        };
        self.c.line(&format!(
            "// {bv} is a #{} array of `{}`: one homogeneous array per variant.",
            suffix.to_lowercase(),
            u.name
        ));
        self.struct_decl(&bv, &[("a", "karmem.ArrayRef".into())]);
        self.c
            .line("// Len is the number of values across all variants.");
        self.c.open(&format!("func (b {bv}) Len() int {{"));
        self.c.line("return int(b.a.Len)");
        self.c.close("}");
        self.c.line("");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            // A variant type named `Len` moves aside, as fields do (`Len_`).
            let m = if ty == "Len" {
                format!("{ty}_")
            } else {
                ty.clone()
            };
            self.c.line(&format!("// {m} returns the {ty} values."));
            if soa {
                let sv = self.soa_view(var.ty);
                self.c
                    .open(&format!("func (b {bv}) {m}(r {reader}) {sv} {{"));
                self.c
                    .line(&format!("return New{sv}(r, {})", entry(var.tag, 0)));
            } else if self.l.is_table(var.ty) {
                let av = self.aos_view(var.ty);
                self.c
                    .open(&format!("func (b {bv}) {m}(r {reader}) {av} {{"));
                self.c
                    .line(&format!("sub := {}", entry(var.tag, OFFSET_SIZE)));
                self.c
                    .line(&format!("return {av}{{r: r, off: sub.Offset, n: sub.Len}}"));
            } else {
                let v = self.view_name(var.ty);
                let images = if trusted {
                    "karmem.TrustedImages"
                } else {
                    "karmem.Images"
                };
                self.c
                    .open(&format!("func (b {bv}) {m}(r {reader}) []{v} {{"));
                let stride = self.l.of_struct(var.ty).size;
                self.c.line(&format!("sub := {}", entry(var.tag, stride)));
                self.c
                    .line(&format!("return {images}[{v}](r, sub.Offset, sub.Len)"));
            }
            self.c.close("}");
            self.c.line("");
        }
    }
}

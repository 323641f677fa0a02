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
use super::{go_limit, go_prim, wire, Ctx, Gen};
use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};

/// Where a viewer reads a field: in the message (where decoders and
/// validators read it too), or inside the byte image `v` of an inline struct
/// (RATIONALE R5.12), whose field bytes are `v[pos:]`, always present.
#[derive(Clone)]
pub(crate) enum Place {
    Msg(Ctx),
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
        let iter = self.c.pkg("iter");
        self.c
            .open(&format!("func (s {ty}) All() {iter}.Seq2[int, {item}] {{"));
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
            let place = if table {
                Place::Msg(Ctx::Table {
                    t: "v.t".into(),
                    off: f.offset,
                })
            } else {
                Place::Image(Pos::default().add(f.offset))
            };
            let field = &self.s.structs[id].fields[i];
            let (doc, default) = (field.doc.clone(), field.nonzero_default().cloned());
            let edit = self.view_accessor(
                &format!("v {view}"),
                &fname,
                &f.slot,
                &place,
                &doc,
                default.as_ref(),
            );
            if let Some(edit) = edit.filter(|_| table && !self.trusted) {
                self.setters(&view, &fname, &edit, f.offset);
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
    fn setters(&mut self, view: &str, name: &str, edit: &Edit, off: u32) {
        match edit {
            Edit::Scalar { prim, ty, value } => {
                self.c.line(&format!(
                    "// Set{name} stores {name} in place (the field must be present in the message)."
                ));
                self.c.open(&format!(
                    "func (v {view}) Set{name}(e *karmem.Editor, x {ty}) error {{"
                ));
                self.c
                    .line(&format!("return e.Set{}(v.t, {off}, {value})", wire(*prim)));
                self.c.close("}");
                self.c.line("");
            }
            Edit::Slice {
                ty,
                elem_size,
                limit,
            } => {
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
                if let Some(limit) = limit {
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
        }
    }

    /// The view of an array block (read through `r` from the reference
    /// `a`) and its type: what an element of an array of arrays reads as
    /// (format.md §5.4).
    fn array_view(&self, array: &ArrayType, data: &ArrayData) -> (String, String) {
        let v = view_array(self, array, data, &());
        (v.ty, v.view)
    }

    /// The accessor(s) of one slot (see [`Accessors`]), with the condition
    /// under which the slot is absent and whether the body needs that
    /// guard.
    fn accessor_methods(
        &self,
        name: &str,
        slot: &Slot,
        place: &Place,
        default: Option<&DefaultValue>,
    ) -> (Accessors, Option<String>, bool) {
        let at = GoAt {
            name: name.into(),
            place: place.clone(),
        };
        let acc = view_slot(self, slot, &at, default);
        let size = self.l.slot_size(slot);
        let (absent, in_table) = match place {
            Place::Msg(Ctx::Table { t, off }) => (Some(format!("!{t}.Has({off}, {size})")), true),
            Place::Msg(Ctx::Pos { absent, .. }) => (absent.clone(), false),
            Place::Image(_) => (None, false),
        };
        // Table fields read by the Field loads handle absence themselves;
        // Trusted has none, so its accessors test the field's presence.
        let guarded = self.trusted || default.is_some() || !(in_table && acc.field_load);
        (acc, absent, guarded)
    }

    /// Where the slot `at` is, as its node methods print it.
    fn resolve(&self, at: &ViewAt<GoAt>) -> Resolved {
        // An absent field (or SoA column) reads as its declared default:
        // the guard then returns the default instead of the zero value.
        let default = at.default.map(|d| self.default_expr(at.slot, d));
        // An image field is a field at a fixed position that is always
        // there; only its loads differ.
        let (ctx, image) = match &at.ctx.place {
            Place::Msg(ctx) => (ctx.clone(), false),
            Place::Image(pos) => (
                Ctx::Pos {
                    pos: pos.clone(),
                    absent: None,
                },
                true,
            ),
        };
        let pos = match &ctx {
            Ctx::Table { t, off } => Pos::of(&format!("{t}.Offset")).add(*off),
            Ctx::Pos { pos, .. } => pos.clone(),
        };
        let checked_table = !self.trusted && matches!(ctx, Ctx::Table { .. }) && default.is_none();
        Resolved {
            ctx,
            image,
            pos,
            default,
            checked_table,
        }
    }

    /// A number, `bool` or enum (`id`) stored as `p`.
    fn scalar_node(
        &self,
        p: Primitive,
        id: Option<EnumId>,
        column: &str,
        at: &ViewAt<GoAt>,
    ) -> Accessors {
        let x = self.resolve(at);
        let ty = match id {
            Some(id) => self.n.enum_name(id),
            None => go_prim(p).to_string(),
        };
        let load = match &x.ctx {
            Ctx::Table { t, off } if x.checked_table => {
                format!("r.Field{}({t}, {off})", wire(p))
            }
            _ => x.load(wire(p), &x.pos),
        };
        let (value, edit) = match id {
            Some(id) => (
                format!("{}({load})", self.n.enum_name(id)),
                format!("{}(x)", go_prim(p)),
            ),
            None => (load, "x".into()),
        };
        let zero = x.default.unwrap_or_else(|| super::zero_of(p).to_string());
        Accessors {
            edit: Some(Edit::Scalar {
                prim: p,
                ty: ty.clone(),
                value: edit,
            }),
            column: Some(column.to_string()),
            ..Accessors::one(
                &at.ctx.name,
                ty,
                zero,
                vec![format!("return {value}")],
                true,
            )
        }
    }
}

/// Where a viewer's accessor reads its slot, and the accessor's name.
pub(crate) struct GoAt {
    name: String,
    place: Place,
}

/// A slot's place as its node methods print it: the context (an image
/// field's as a position), whether it is in an inline struct's image, its
/// position, the default it reads as when absent (a Go expression), and
/// whether a table field's checked loads handle its absence.
struct Resolved {
    ctx: Ctx,
    image: bool,
    pos: Pos,
    default: Option<String>,
    checked_table: bool,
}

impl Resolved {
    /// A `wire` value at `at`: decoded from the image, or loaded through
    /// the reader.
    fn load(&self, w: &str, at: &Pos) -> String {
        if self.image {
            format!("karmem.Load{w}({})", image_bytes(at))
        } else {
            format!("r.{w}({})", at.normal())
        }
    }
}

/// What a table field's in-place setters (karmem.Editor) write.
pub(crate) enum Edit {
    /// A number, `bool` or enum of Go type `ty`, stored as `prim`; `value`
    /// is the argument `x` as stored.
    Scalar {
        prim: Primitive,
        ty: String,
        value: String,
    },
    /// A number array's elements (Go type `ty`, `elem_size` bytes) in
    /// place, and its length within its `limit`.
    Slice {
        ty: String,
        elem_size: u32,
        limit: Option<u32>,
    },
}

/// The accessor(s) of one slot: `(name, return type, zero value, body
/// lines after the guard)` each; whether, in a table, the checked
/// reader's Field loads handle the field's absence; the setters of a
/// table field; and the element type of a native slice over an SoA
/// column of these values (numbers, enums, `bool`s as bytes).
pub(crate) struct Accessors {
    methods: Vec<(String, String, String, Vec<String>)>,
    field_load: bool,
    edit: Option<Edit>,
    column: Option<String>,
}

impl Accessors {
    fn one(name: &str, ty: String, zero: String, body: Vec<String>, field_load: bool) -> Self {
        Accessors {
            methods: vec![(name.into(), ty, zero, body)],
            field_load,
            edit: None,
            column: None,
        }
    }
}

/// An array block's view: its type and expression; UTF-8 text (a string,
/// with a bytes accessor beside it) or a number array (the element type of
/// its editable slice).
pub(crate) struct GoView {
    ty: String,
    view: String,
    utf8: bool,
    slice: Option<String>,
    /// An AoS block of an inline struct of numbers only: its object type
    /// and stride, for the `<Field>Values` accessor beside the viewers
    /// (karmem.Values, RATIONALE R5.14).
    values: Option<(String, u32)>,
}

impl GoView {
    fn new(ty: String, view: String) -> Self {
        GoView {
            ty,
            view,
            utf8: false,
            slice: None,
            values: None,
        }
    }
}

impl ViewPrinter for Gen<'_> {
    type Ctx = GoAt;
    type Accessor = Accessors;
    /// Blocks are viewed from the reference `a`, read through `r`.
    type Arg = ();
    type View = GoView;

    fn view_bool(&self, at: &ViewAt<GoAt>) -> Accessors {
        self.scalar_node(Primitive::Bool, None, "uint8", at)
    }

    fn view_number(&self, prim: Primitive, at: &ViewAt<GoAt>) -> Accessors {
        self.scalar_node(prim, None, go_prim(prim), at)
    }

    fn view_enum(&self, id: EnumId, repr: Primitive, at: &ViewAt<GoAt>) -> Accessors {
        self.scalar_node(repr, Some(id), &self.n.enum_name(id), at)
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let v = self.view_name(id);
        let body = vec![format!("return {}", self.read_image(x.image, &v, &x.pos))];
        Accessors::one(&at.ctx.name, v.clone(), format!("{v}{{}}"), body, false)
    }

    fn view_table(&self, id: StructId, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let v = self.view_name(id);
        let t = match &x.ctx {
            Ctx::Table { t, off } if x.checked_table => format!("r.FieldTable({t}, {off})"),
            _ => format!("r.Table({})", x.load("Uint32", &x.pos)),
        };
        let body = vec![format!("return {v}{{t: {t}}}")];
        Accessors::one(&at.ctx.name, v.clone(), format!("{v}{{}}"), body, true)
    }

    fn view_optional_table(&self, id: StructId, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let v = self.view_name(id);
        let body = vec![
            format!("offset := {}", x.load("Uint32", &x.pos)),
            "if offset == 0 {".into(),
            format!("\treturn {v}{{}}, false"),
            "}".into(),
            format!("return {v}{{t: r.Table(offset)}}, true"),
        ];
        Accessors::one(
            &at.ctx.name,
            format!("({v}, bool)"),
            format!("{v}{{}}, false"),
            body,
            false,
        )
    }

    // The value's own accessors, each returning `(value, true)`, or
    // `(zero, false)` when the presence byte is 0.
    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let pos = &x.pos;
        let inner = if x.image {
            Place::Image(pos.add(value_at))
        } else {
            Place::Msg(Ctx::Pos {
                pos: pos.add(value_at),
                absent: None,
            })
        };
        let presence = if x.image {
            format!("karmem.LoadUint8({})", image_bytes(pos))
        } else {
            format!("r.Uint8({})", pos.compact())
        };
        let (inner, ..) = self.accessor_methods(&at.ctx.name, value, &inner, None);
        let mut methods = Vec::new();
        for (mname, ty, zero, body) in inner.methods {
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
        Accessors {
            methods,
            field_load: false,
            edit: None,
            column: None,
        }
    }

    fn view_union(&self, id: UnionId, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let pos = &x.pos;
        let v = self.union_view(id);
        let ret = if x.image {
            let tag = self.s.unions[id].tag;
            format!(
                "return {v}{{tag: {}({}), offset: {}}}",
                self.union_tag(id),
                x.load(wire(tag), pos),
                x.load("Uint32", &pos.add(UNION_OFFSET_AT))
            )
        } else {
            format!(
                "return new{v}(r, {}, {})",
                pos.compact(),
                pos.add(UNION_OFFSET_AT).compact()
            )
        };
        Accessors::one(
            &at.ctx.name,
            v.clone(),
            format!("{v}{{}}"),
            vec![ret],
            false,
        )
    }

    fn view_fixed(&self, elem: FixedElem, len: u32, stride: u32, at: &ViewAt<GoAt>) -> Accessors {
        let x = self.resolve(at);
        let pos = &x.pos;
        let name = &at.ctx.name;
        // Image indices are ints (j), message offsets uint32.
        let epos = if x.image {
            pos.plus("j", stride)
        } else {
            pos.plus("uint32(j)", stride)
        };
        let (ty, value) = match elem {
            // A Go array of the element images, copied as a fixed array
            // of scalars is (the elements are side by side: the stride
            // is the struct's size).
            FixedElem::InlineStruct(id) => {
                debug_assert_eq!(stride, self.l.of_struct(id).size);
                let ty = format!("[{len}]{}", self.view_name(id));
                let body = vec![format!("return {}", self.read_image(x.image, &ty, pos))];
                return Accessors::one(name, ty.clone(), format!("{ty}{{}}"), body, false);
            }
            FixedElem::Scalar(p) => (go_prim(p).to_string(), x.load(wire(p), &epos)),
            FixedElem::Enum { id, repr } => (
                self.n.enum_name(id),
                format!("{}({})", self.n.enum_name(id), x.load(wire(repr), &epos)),
            ),
        };
        // The guard returns the zero array declared first.
        let body = vec![
            "for j := range out {".into(),
            format!("\tout[j] = {value}"),
            "}".into(),
            "return out".into(),
        ];
        Accessors::one(name, format!("[{len}]{ty}"), "out".into(), body, false)
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        at: &ViewAt<GoAt>,
    ) -> Accessors {
        let x = self.resolve(at);
        let (pos, name) = (&x.pos, &at.ctx.name);
        let limit_arg = go_limit(limit);
        // A validated reference needs no size or limit to be checked.
        let a = match &x.ctx {
            _ if x.image && self.trusted => {
                format!("a := karmem.LoadArrayRef({})", image_bytes(pos))
            }
            _ if x.image => format!(
                "a := r.CheckArray(karmem.LoadArrayRef({}), {es}, {limit_arg})",
                image_bytes(pos)
            ),
            _ if self.trusted => format!("a := r.Array({})", pos.normal()),
            Ctx::Table { t, off } => {
                format!("a := r.FieldArray({t}, {off}, {es}, {limit_arg})")
            }
            Ctx::Pos { .. } => format!("a := r.Array({}, {es}, {limit_arg})", pos.compact()),
        };
        let block = view_array(self, array, data, &());
        if block.utf8 {
            let (text, bytes) = match &x.default {
                Some(d) => (d.clone(), format!("[]byte({d})")),
                None => ("\"\"".into(), "nil".into()),
            };
            let methods = vec![
                (
                    name.clone(),
                    "string".into(),
                    text,
                    vec![a.clone(), "return r.String(a)".into()],
                ),
                (
                    format!("{name}Bytes"),
                    "[]byte".into(),
                    bytes,
                    vec![a, "return r.ArrayBytes(a)".into()],
                ),
            ];
            return Accessors {
                methods,
                field_load: true,
                edit: None,
                column: None,
            };
        }
        // The view of an array of arrays spans lines (a function literal
        // per level, as gofmt lays it out).
        let GoView {
            ty,
            view,
            slice,
            values,
            ..
        } = block;
        let zero = if ty.starts_with("[]") {
            "nil".to_string()
        } else {
            format!("{ty}{{}}")
        };
        let mut body = vec![a.clone()];
        body.extend(format!("return {view}").lines().map(str::to_string));
        let mut acc = Accessors {
            edit: slice.map(|ty| Edit::Slice {
                ty,
                elem_size: es,
                limit,
            }),
            ..Accessors::one(name, ty, zero, body, true)
        };
        // A struct of numbers only: the same block as a Go slice of the
        // object type, over the message where the machine allows it.
        if let Some((object, stride)) = values {
            let f = if self.trusted {
                "karmem.TrustedValues"
            } else {
                "karmem.Values"
            };
            acc.methods.push((
                format!("{name}Values"),
                format!("[]{object}"),
                "nil".into(),
                vec![
                    a,
                    format!("return {f}(r, a.Offset, a.Len, {stride}, (*{object}).readAt)"),
                ],
            ));
        }
        acc
    }

    fn view_text(&self, utf16: bool, _: &()) -> GoView {
        if utf16 {
            GoView::new(
                "[]uint16".into(),
                format!("{}[uint16](r, a.Offset, a.Len)", self.slice_fn()),
            )
        } else {
            GoView {
                utf8: true,
                ..GoView::new("string".into(), "r.String(a)".into())
            }
        }
    }

    fn view_plain(&self, elem: ElemType, _: u32, _: &()) -> GoView {
        let t = match elem {
            ElemType::Scalar(Primitive::Bool) => "uint8".to_string(),
            e => self.elem_type(e),
        };
        GoView {
            slice: Some(t.clone()),
            ..GoView::new(
                format!("[]{t}"),
                format!("{}[{t}](r, a.Offset, a.Len)", self.slice_fn()),
            )
        }
    }

    // Each element is read by a function of its reference.
    fn view_nested(
        &self,
        inner: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        _: &(),
    ) -> GoView {
        let (ty, view) = self.array_view(inner, data);
        let reader = self.reader_type();
        // The inner view's own lines one tab deeper.
        let body = format!("return {view}").replace('\n', "\n\t");
        let f = format!("func(r {reader}, a karmem.ArrayRef) {ty} {{\n\t{body}\n}}");
        if self.trusted {
            GoView::new(
                format!("karmem.TrustedArrays[{ty}]"),
                format!("karmem.NewTrustedArrays(a, {f})"),
            )
        } else {
            GoView::new(
                format!("karmem.Arrays[{ty}]"),
                format!("karmem.NewArrays(a, {elem_size}, {}, {f})", go_limit(limit)),
            )
        }
    }

    // A slice of the element images over the message.
    fn view_aos_inline(&self, id: StructId, stride: u32, _: &()) -> GoView {
        let v = self.view_name(id);
        let images = if self.trusted {
            "karmem.TrustedImages"
        } else {
            "karmem.Images"
        };
        GoView {
            values: (!self.l.inline_needs_validation(id)).then(|| (self.n.struct_name(id), stride)),
            ..GoView::new(
                format!("[]{v}"),
                format!("{images}[{v}](r, a.Offset, a.Len)"),
            )
        }
    }

    // A map: functions of an entry's position read its key and value
    // views (format.md §5.5).
    fn view_map(&self, id: StructId, stride: u32, _: &()) -> GoView {
        let reader = self.reader_type();
        let sl = self.l.of_struct(id);
        let view = |slot: &Slot, off: u32| {
            let at = Place::Msg(Ctx::Pos {
                pos: Pos::of("at").add(off),
                absent: None,
            });
            let (acc, ..) = self.accessor_methods("x", slot, &at, None);
            let (_, ty, _, body) = acc.methods.into_iter().next().expect("a view");
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
        GoView::new(
            format!("{ty}[{kt}, {vt}]"),
            format!("{new}(a, {stride}, {key}, {value})"),
        )
    }

    fn view_aos_table(&self, id: StructId, _: &()) -> GoView {
        let v = self.aos_view(id);
        GoView::new(v.clone(), format!("{v}{{r: r, off: a.Offset, n: a.Len}}"))
    }

    fn view_soa(&self, elem: StructId, _: &()) -> GoView {
        let v = self.soa_view(elem);
        GoView::new(v.clone(), format!("New{v}(r, a)"))
    }

    fn view_union_aos(&self, id: UnionId, _: &()) -> GoView {
        self.union_block_view(id, "Aos")
    }

    fn view_union_soa(&self, id: UnionId, _: u32, _: &()) -> GoView {
        self.union_block_view(id, "Soa")
    }

    fn view_bunch(&self, id: UnionId, soa: bool, _: &()) -> GoView {
        let suffix = if soa { "Bovos" } else { "Bovoa" };
        let v = format!("{}{}{suffix}Viewer", self.mode(), self.n.union_name(id));
        GoView::new(v.clone(), format!("{v}{{a: a}}"))
    }
}

impl Gen<'_> {
    /// The view of a union array laid out as `layout` (`Aos`, `Soa`).
    fn union_block_view(&self, id: UnionId, layout: &str) -> GoView {
        let u = format!("{}{}", self.mode(), self.n.union_name(id));
        GoView::new(self.union_array(id), format!("new{u}Array{layout}(r, a)"))
    }

    /// The inline struct (or fixed array of them) of type `ty` at `at`.
    fn read_image(&self, image: bool, ty: &str, at: &Pos) -> String {
        if image {
            format!("karmem.ImageOf[{ty}]({})", image_bytes(at))
        } else if self.trusted {
            format!("karmem.TrustedImage[{ty}](r, {})", at.compact())
        } else {
            format!("karmem.Image[{ty}](r, {})", at.compact())
        }
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
    ) -> Option<Edit> {
        let (acc, absent, guarded) = self.accessor_methods(name, slot, place, default);
        let reader = self.reader_type();
        for (mname, ty, zero, body) in acc.methods {
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
        acc.edit
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
            // A native slice over a column of numbers, enums or bools.
            let anywhere = Place::Image(Pos::default());
            let Some(ty) = self
                .accessor_methods("x", &col.slot, &anywhere, None)
                .0
                .column
            else {
                continue;
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
                    let place = Place::Msg(ctx);
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

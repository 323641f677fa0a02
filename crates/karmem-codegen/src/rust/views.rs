//! Zero-copy viewers of structs and tables, generic over `karmem::Mode`,
//! and the accessor of each field.

use karmem_layout::{ArrayData, FixedElem, Slot, UNION_OFFSET_AT};

use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};
use karmem_schema::model::*;

use super::edit::Setter;
use super::{add, field_accessor, mul, rust_limit, rust_prim, suffixed, Gen};

/// Where a field's bytes are, for the code of a viewer being emitted (the
/// object's decoder and validator use `crate::walk::Ctx`).
#[derive(Clone)]
pub(super) enum Ctx {
    /// A table field: `T` is the table expression, `off` its offset.
    Table { t: String, off: u32 },
    /// A fixed position (inline struct, array element): `pos` is a `u32`
    /// expression, `present` a `bool` expression.
    Pos { pos: String, present: String },
}

impl Ctx {
    /// Where an optional slot's value is: `value_at` bytes after the slot,
    /// folded into a table field's offset.
    fn value_pos(&self, value_at: u32) -> String {
        match self {
            Ctx::Table { t, off } => format!("{t}.offset + {}", off + value_at),
            Ctx::Pos { pos, .. } => format!("{pos} + {value_at}"),
        }
    }

    /// The field's position and whether it is present (`u32` and `bool`
    /// expressions), for a slot of `size` bytes.
    fn pos_present(&self, size: u32) -> (String, String) {
        match self {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }
}

impl Gen<'_> {
    pub(super) fn view_item(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        self.c.line(&format!(
            "/// Zero-copy viewer of `{}`. `M` is `karmem::Checked` (every load",
            self.s.structs[id].name
        ));
        self.c
            .line("/// bounds-checked; malformed data reads as zero) or `karmem::Trusted`");
        self.c
            .line(&format!("/// (returned by `{name}::validate`)."));
        self.c.line("#[derive(Clone, Copy)]");
        if table {
            self.c.open(&format!(
                "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
            ));
            self.c.line("r: karmem::Reader<'a, M>,");
            self.c.line("t: karmem::Table,");
            self.c.close("}");
            self.c.line("");
            self.c.open(&format!(
                "impl<'a, M: karmem::Mode> karmem::FromTable<'a, M> for {view}<'a, M> {{"
            ));
            self.c
                .open("fn from_table(r: karmem::Reader<'a, M>, t: karmem::Table) -> Self {");
            self.c.line(&format!("{view} {{ r, t }}"));
            self.c.close("}");
            self.c.close("}");
        } else {
            self.c.open(&format!(
                "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
            ));
            self.c.line("r: karmem::Reader<'a, M>,");
            self.c.line("at: u32,");
            self.c.line("present: bool,");
            self.c.close("}");
            self.c.line("");
            self.c.open(&format!(
                "impl<'a, M: karmem::Mode> karmem::FromInline<'a, M> for {view}<'a, M> {{"
            ));
            self.c
                .open("fn from_inline(r: karmem::Reader<'a, M>, at: u32) -> Self {");
            self.c.line(&format!("{view} {{ r, at, present: true }}"));
            self.c.close("}");
            self.c.close("}");
        }
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.c
            .line("/// The viewer of a message whose root is this type.");
        self.c
            .open("pub fn root(r: &karmem::Reader<'a, M>) -> Self {");
        if table {
            self.c.line(&format!("{view} {{ r: *r, t: r.root() }}"));
            self.c.close("}");
            self.c.line("");
            self.c
                .line("/// Where the table is (for in-place updates with `karmem::ReaderMut`);");
            self.c.line("/// `Table::EMPTY` when absent or malformed.");
            self.c.open("pub fn table(&self) -> karmem::Table {");
            self.c.line("self.t");
            self.c.close("}");
            self.c.line("");
            self.c
                .open("pub fn reader(&self) -> karmem::Reader<'a, M> {");
            self.c.line("self.r");
        } else {
            self.c.line(&format!(
                "{view} {{ r: *r, at: karmem::HEADER_SIZE, present: karmem::HEADER_SIZE + {} <= r.size() }}",
                sl.size
            ));
            self.c.close("}");
            self.c.line("");
            self.c
                .line("/// Position of the struct in the message, if it is present.");
            self.c.open("pub fn position(&self) -> Option<u32> {");
            self.c.line("self.present.then_some(self.at)");
            self.c.close("}");
            self.c.line("");
            self.c
                .open("pub fn reader(&self) -> karmem::Reader<'a, M> {");
            self.c.line("self.r");
        }
        self.c.close("}");
        let mut setters = Vec::new();
        for (i, f) in sl.fields.iter().enumerate() {
            let ident = field_accessor(self.s, &self.n, id, i);
            let ctx = if table {
                Ctx::Table {
                    t: "self.t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("self.at", f.offset),
                    present: "self.present".into(),
                }
            };
            let field = &self.s.structs[id].fields[i];
            let (doc, default) = (field.doc.clone(), field.nonzero_default());
            if let Some(edit) = self.view_accessor(&ident, &f.slot, &ctx, &doc, default, "self.r") {
                setters.push((i, f.offset, edit));
            }
        }
        self.c.close("}");
        self.c.line("");
        if table {
            self.edit_item(id, &setters);
        }
    }

    /// The accessor(s) of one slot, and its setter in a table.
    pub(super) fn accessor_methods(
        &self,
        ident: &str,
        slot: &Slot,
        ctx: &Ctx,
        default: Option<&DefaultValue>,
        r: &str,
    ) -> Accessors {
        let at = At {
            ident: ident.into(),
            place: ctx.clone(),
            r: r.into(),
        };
        view_slot(self, slot, &at, default)
    }

    /// A scalar of Rust type `ty` at `at` (a `bool` as its byte, an enum
    /// as its representation), or the field's default when it is absent.
    fn scalar(&self, ty: &str, kind: Scalar, at: &ViewAt<At>) -> String {
        let (ctx, r) = (&at.ctx.place, &at.ctx.r);
        let (pos, present) = ctx.pos_present(self.l.slot_size(at.slot));
        let default = at.default.map(|d| self.default_expr(at.slot, d));
        match (ctx, &default) {
            (Ctx::Table { t, off }, None) => format!("{r}.field::<{ty}>({t}, {off})"),
            (_, Some(d)) if kind == Scalar::Bool => {
                format!("if {present} {{ {r}.get::<u8>({pos}) != 0 }} else {{ {d} }}")
            }
            (_, Some(d)) if kind == Scalar::Enum => {
                format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d}.0 }}")
            }
            (_, Some(d)) => format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d} }}"),
            (Ctx::Pos { pos, present }, None) if present == "true" => {
                format!("{r}.get::<{ty}>({pos})")
            }
            (Ctx::Pos { pos, present }, None) => {
                format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
            }
        }
    }

    /// The one accessor of a slot, named as the field.
    fn one(&self, at: &ViewAt<At>, ty: String, body: String) -> Accessors {
        Accessors {
            methods: vec![(at.ctx.ident.clone(), ty, body)],
            edit: None,
        }
    }
}

/// What a scalar accessor reads: a `bool` byte, an enum's representation,
/// or another number.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Bool,
    Enum,
    Number,
}

/// A viewer's accessor being printed: its name, where its slot is, and the
/// viewer's reader expression.
pub(super) struct At {
    ident: String,
    place: Ctx,
    r: String,
}

/// The view of an array block: its type and expression, whether the
/// expression reads the reference more than once (the accessor then binds
/// it to `a` first), whether it is UTF-8 text (`&str`, with a bytes
/// accessor beside it), and a plain array's element type.
pub(super) struct ArrayView {
    ty: String,
    view: String,
    bind: bool,
    utf8: bool,
    /// A plain array's element type, as its writable slice holds it.
    slice: Option<&'static str>,
}

impl ArrayView {
    fn new(ty: String, view: String, bind: bool) -> Self {
        ArrayView {
            ty,
            view,
            bind,
            utf8: false,
            slice: None,
        }
    }
}

/// The accessor(s) of a slot as `(name, return type, body)`, and what
/// the in-place editor of a table field holding the slot sets (its
/// `Setter`, the node's own answer, as Go's and C's).
pub(super) struct Accessors {
    pub(super) methods: Vec<(String, String, String)>,
    pub(super) edit: Option<Setter>,
}

impl Accessors {
    fn with_edit(mut self, edit: Setter) -> Self {
        self.edit = Some(edit);
        self
    }
}

impl ViewPrinter for Gen<'_> {
    type Ctx = At;
    type Accessor = Accessors;
    /// The reader and the array reference expressions.
    type Arg = (String, String);
    type View = ArrayView;

    fn view_bool(&self, at: &ViewAt<At>) -> Self::Accessor {
        let body = if at.default.is_some() {
            self.scalar("u8", Scalar::Bool, at)
        } else {
            format!("({}) != 0", self.scalar("u8", Scalar::Number, at))
        };
        self.one(at, "bool".into(), body).with_edit(Setter::Scalar {
            ty: "bool".into(),
            wire: "u8",
            value: "u8::from(x)",
        })
    }

    fn view_number(&self, prim: Primitive, at: &ViewAt<At>) -> Self::Accessor {
        let t = rust_prim(prim);
        self.one(at, t.into(), self.scalar(t, Scalar::Number, at))
            .with_edit(Setter::Scalar {
                ty: t.into(),
                wire: t,
                value: "x",
            })
    }

    fn view_enum(&self, id: EnumId, repr: Primitive, at: &ViewAt<At>) -> Self::Accessor {
        let e = self.n.enum_name(id);
        let body = format!("{e}({})", self.scalar(rust_prim(repr), Scalar::Enum, at));
        self.one(at, e.clone(), body).with_edit(Setter::Scalar {
            ty: e,
            wire: rust_prim(repr),
            value: "x.0",
        })
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<At>) -> Self::Accessor {
        let v = self.view_name(id);
        let (pos, present) = at.ctx.place.pos_present(self.l.slot_size(at.slot));
        let r = r_field(&at.ctx.r);
        self.one(
            at,
            format!("{v}<'a, M>"),
            format!("{v} {{ {r}, at: {pos}, present: {present} }}"),
        )
    }

    fn view_table(&self, id: StructId, at: &ViewAt<At>) -> Self::Accessor {
        let v = self.view_name(id);
        let r = &at.ctx.r;
        let t = match &at.ctx.place {
            Ctx::Table { t, off } => format!("{r}.field_table({t}, {off})"),
            Ctx::Pos { pos, present } if present == "true" => {
                format!("{r}.table({r}.get::<u32>({pos}))")
            }
            Ctx::Pos { pos, present } => {
                format!("if {present} {{ {r}.table({r}.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
            }
        };
        self.one(
            at,
            format!("{v}<'a, M>"),
            format!("{v} {{ {}, t: {t} }}", r_field(r)),
        )
        .with_edit(Setter::Table(id))
    }

    fn view_optional_table(&self, id: StructId, at: &ViewAt<At>) -> Self::Accessor {
        let v = self.view_name(id);
        let r = &at.ctx.r;
        let offset = match &at.ctx.place {
            Ctx::Table { t, off } => format!("{r}.field::<u32>({t}, {off})"),
            Ctx::Pos { pos, present } => {
                format!("if {present} {{ {r}.get::<u32>({pos}) }} else {{ 0 }}")
            }
        };
        self.one(
            at,
            format!("Option<{v}<'a, M>>"),
            format!(
                "let offset = {offset};\n(offset != 0).then(|| {v} {{ {}, t: {r}.table(offset) }})",
                r_field(r)
            ),
        )
    }

    // The value's own accessors, each wrapped in an `Option` that is
    // `None` when the presence byte is 0 or the field is absent.
    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<At>) -> Self::Accessor {
        let (ctx, r) = (&at.ctx.place, &at.ctx.r);
        let (pos, present) = ctx.pos_present(self.l.slot_size(at.slot));
        let inner = At {
            ident: at.ctx.ident.clone(),
            place: Ctx::Pos {
                pos: ctx.value_pos(value_at),
                present: "true".into(),
            },
            r: r.clone(),
        };
        let flag = format!("{r}.get::<u8>({pos}) != 0");
        let cond = match ctx {
            Ctx::Pos { present, .. } if present == "true" => flag,
            _ => format!("{present} && {flag}"),
        };
        let mut methods = Vec::new();
        for (name, ty, body) in view_slot(self, value, &inner, None).methods {
            // A block only around statements (rustc warns on
            // braces around a single expression).
            let some = if body.contains('\n') {
                format!("Some({{\n{body}\n}})")
            } else {
                format!("Some({body})")
            };
            methods.push((
                name,
                format!("Option<{ty}>"),
                format!("if {cond} {{\n{some}\n}} else {{\nNone\n}}"),
            ));
        }
        Accessors {
            methods,
            edit: None,
        }
    }

    fn view_union(&self, id: UnionId, at: &ViewAt<At>) -> Self::Accessor {
        let v = self.union_view(id);
        let r = &at.ctx.r;
        let (pos, present) = at.ctx.place.pos_present(self.l.slot_size(at.slot));
        self.one(
            at,
            format!("{v}<'a, M>"),
            format!("if {present} {{ {v}::from_parts({r}, {pos}, {pos} + {UNION_OFFSET_AT}) }} else {{ {v}::None }}"),
        )
    }

    fn view_fixed(
        &self,
        elem: FixedElem,
        len: u32,
        stride: u32,
        at: &ViewAt<At>,
    ) -> Self::Accessor {
        let r = &at.ctx.r;
        let (pos, present) = at.ctx.place.pos_present(self.l.slot_size(at.slot));
        let epos = format!("{pos} + {}", mul("j as u32", stride));
        let (ty, body) = match elem {
            FixedElem::Scalar(Primitive::Bool) => (
                format!("[bool; {len}]"),
                format!("core::array::from_fn(|j| {present} && {r}.get::<u8>({epos}) != 0)"),
            ),
            FixedElem::Scalar(p) => {
                let t = rust_prim(p);
                (
                    format!("[{t}; {len}]"),
                    format!("core::array::from_fn(|j| if {present} {{ {r}.get::<{t}>({epos}) }} else {{ core::default::Default::default() }})"),
                )
            }
            FixedElem::Enum { id, repr } => {
                let e = self.n.enum_name(id);
                let t = rust_prim(repr);
                (
                    format!("[{e}; {len}]"),
                    format!("core::array::from_fn(|j| {e}(if {present} {{ {r}.get::<{t}>({epos}) }} else {{ core::default::Default::default() }}))"),
                )
            }
            FixedElem::InlineStruct(id) => {
                let v = self.view_name(id);
                (
                    format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
                    format!("karmem::InlineArray::new({r}, {pos}, if {present} {{ {len} }} else {{ 0 }}, {stride})"),
                )
            }
        };
        self.one(at, ty, body)
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        at: &ViewAt<At>,
    ) -> Self::Accessor {
        let (ctx, r, ident) = (&at.ctx.place, &at.ctx.r, &at.ctx.ident);
        let (_, present) = ctx.pos_present(self.l.slot_size(at.slot));
        let default = at.default.map(|d| self.default_expr(at.slot, d));
        let (limit, n) = (rust_limit(limit), limit);
        let a = match ctx {
            Ctx::Table { t, off } => format!("{r}.field_array({t}, {off}, {es}, {limit})"),
            Ctx::Pos { pos, present } if present == "true" => {
                format!("{r}.array({pos}, {es}, {limit})")
            }
            Ctx::Pos { pos, present } => format!(
                "if {present} {{ {r}.array({pos}, {es}, {limit}) }} else {{ karmem::ArrayRef::EMPTY }}"
            ),
        };
        let let_a = format!("let a = {a};\n");
        let bound = view_array(self, array, data, &(r.clone(), "a".into()));
        if bound.utf8 {
            // An absent field reads as its default text; once
            // presence is known, the reference is read as is.
            let or_default = |read: &str, absent: &str| {
                match (&default, ctx) {
                (Some(d), Ctx::Pos { pos, .. }) => format!(
                    "if {present} {{\nlet a = {r}.array({pos}, {es}, {limit});\n{read}\n}} else {{\n{d}{absent}\n}}"
                ),
                (Some(d), Ctx::Table { .. }) => format!(
                    "if {present} {{\n{let_a}{read}\n}} else {{\n{d}{absent}\n}}"
                ),
                (None, _) => format!("{let_a}{read}"),
            }
            };
            return Accessors {
                methods: vec![
                    (
                        ident.clone(),
                        "&'a str".into(),
                        or_default(&format!("{r}.str(a)"), ""),
                    ),
                    (
                        suffixed(ident, "bytes"),
                        "&'a [u8]".into(),
                        or_default(&format!("{r}.byte_slice(a)"), ".as_bytes()"),
                    ),
                ],
                edit: Some(Setter::Text { limit: n }),
            };
        }
        // A view that reads the reference more than once binds it to `a`
        // first; the others take it inline.
        let edit = bound.slice.map(|elem| Setter::Plain {
            elem,
            elem_size: es,
            limit: n,
        });
        let (ty, body) = if bound.bind {
            (bound.ty, format!("{let_a}{}", bound.view))
        } else {
            let v = view_array(self, array, data, &(r.clone(), a));
            (v.ty, v.view)
        };
        Accessors {
            methods: vec![(ident.clone(), ty, body)],
            edit,
        }
    }

    fn view_text(&self, utf16: bool, (r, a): &(String, String)) -> ArrayView {
        if utf16 {
            ArrayView::new(
                "&'a [u16]".into(),
                format!("{r}.slice::<u16>({a}.offset, {a}.len)"),
                true,
            )
        } else {
            ArrayView {
                utf8: true,
                ..ArrayView::new("&'a str".into(), format!("{r}.str({a})"), true)
            }
        }
    }

    fn view_plain(&self, elem: ElemType, _: u32, (r, a): &(String, String)) -> ArrayView {
        let t = match elem {
            ElemType::Scalar(Primitive::Bool) => "u8",
            ElemType::Scalar(p) => rust_prim(p),
            ElemType::Enum(id) => rust_prim(self.s.enums[id].repr),
            _ => unreachable!("plain arrays hold scalars and enums"),
        };
        ArrayView {
            slice: Some(t),
            ..ArrayView::new(
                format!("&'a [{t}]"),
                format!("{r}.slice::<{t}>({a}.offset, {a}.len)"),
                true,
            )
        }
    }

    // Each element read by a function of the element's reference
    // (a closure without captures: a plain function pointer).
    fn view_nested(
        &self,
        inner: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        (r, a): &(String, String),
    ) -> ArrayView {
        let v = view_array(self, inner, data, &("r".into(), "a".into()));
        ArrayView::new(
            format!("karmem::ArrayOfArrays<'a, {}, M>", v.ty),
            format!(
                "karmem::ArrayOfArrays::new({r}, {a}, {elem_size}, {}, |r, a| {})",
                rust_limit(limit),
                v.view
            ),
            true,
        )
    }

    fn view_aos_inline(&self, id: StructId, stride: u32, (r, a): &(String, String)) -> ArrayView {
        let v = self.view_name(id);
        ArrayView::new(
            format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
            format!("karmem::InlineArray::new({r}, {a}.offset, {a}.len, {stride})"),
            true,
        )
    }

    // A map: its entries' key and value views, made by functions of an
    // entry's position (format.md §5.5).
    fn view_map(&self, id: StructId, stride: u32, (r, a): &(String, String)) -> ArrayView {
        let view = |slot: &Slot, off: u32| {
            let at = Ctx::Pos {
                pos: add("at", off),
                present: "true".into(),
            };
            let (_, ty, body) = self
                .accessor_methods("x", slot, &at, None, "r")
                .methods
                .swap_remove(0);
            let body = if body.contains('\n') {
                format!("{{\n{body}\n}}")
            } else {
                body
            };
            (ty, format!("|r, at| {body}"))
        };
        let sl = self.l.of_struct(id);
        let (kt, key) = view(&sl.fields[0].slot, sl.fields[0].offset);
        let (vt, value) = view(&sl.fields[1].slot, sl.fields[1].offset);
        ArrayView::new(
            format!("karmem::MapView<'a, {kt}, {vt}, M>"),
            format!("karmem::MapView::new({r}, {a}, {stride}, {key}, {value})"),
            true,
        )
    }

    fn view_aos_table(&self, id: StructId, (r, a): &(String, String)) -> ArrayView {
        let v = self.view_name(id);
        ArrayView::new(
            format!("karmem::TableArray<'a, {v}<'a, M>, M>"),
            format!("karmem::TableArray::new({r}, {a}.offset, {a}.len)"),
            true,
        )
    }

    fn view_soa(&self, elem: StructId, (r, a): &(String, String)) -> ArrayView {
        let v = self.soa_name(elem);
        ArrayView::new(format!("{v}<'a, M>"), format!("{v}::new({r}, {a})"), false)
    }

    fn view_union_aos(&self, id: UnionId, arg: &(String, String)) -> ArrayView {
        self.union_array_view(id, "aos", arg)
    }

    fn view_union_soa(&self, id: UnionId, _: u32, arg: &(String, String)) -> ArrayView {
        self.union_array_view(id, "soa", arg)
    }

    fn view_bunch(&self, id: UnionId, soa: bool, (r, a): &(String, String)) -> ArrayView {
        let suffix = if soa { "Bovos" } else { "Bovoa" };
        let v = format!("{}{suffix}", self.n.union_name(id));
        ArrayView::new(
            format!("{v}<'a, M>"),
            format!("{v} {{ {}, a: {a} }}", r_field(r)),
            false,
        )
    }
}

impl Gen<'_> {
    /// The view of a union array laid out as `layout` (`aos`, `soa`).
    fn union_array_view(&self, id: UnionId, layout: &str, (r, a): &(String, String)) -> ArrayView {
        let v = format!("{}Array", self.n.union_name(id));
        ArrayView::new(
            format!("{v}<'a, M>"),
            format!("{v}::{layout}({r}, {a})"),
            false,
        )
    }

    /// Emit the viewer accessor(s) of one slot; `r` is the viewer's
    /// reader (`self.r`, or `self.s.r` in an SoA element view). An absent
    /// field (or SoA column) reads as `default`, else as zero. Returns what
    /// an in-place editor sets where the slot is a table field.
    pub(super) fn view_accessor(
        &mut self,
        ident: &str,
        slot: &Slot,
        ctx: &Ctx,
        doc: &[String],
        default: Option<&DefaultValue>,
        r: &str,
    ) -> Option<Setter> {
        let acc = self.accessor_methods(ident, slot, ctx, default, r);
        for (name, ty, body) in acc.methods {
            self.c.line("");
            for d in doc {
                self.c.line(&format!("/// {d}"));
            }
            self.c.line("#[inline]");
            self.c.open(&format!("pub fn {name}(&self) -> {ty} {{"));
            for line in body.lines() {
                self.c.line(line);
            }
            self.c.close("}");
        }
        acc.edit
    }
}

/// The reader field of a view literal: `r` when the reader is a variable
/// of that name (a map's functions), else `r: self.r`.
fn r_field(r: &str) -> String {
    if r == "r" {
        "r".to_string()
    } else {
        format!("r: {r}")
    }
}

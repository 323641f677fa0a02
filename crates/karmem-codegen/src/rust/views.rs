//! Zero-copy viewers of structs and tables, generic over `karmem::Mode`,
//! and the accessor of each field.

use karmem_layout::{ArrayData, FixedElem, Slot, UNION_OFFSET_AT};
use karmem_schema::model::*;

use super::{add, limit, mul, rust_prim, suffixed, view_ident, Gen};

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
        for (i, f) in sl.fields.iter().enumerate() {
            // A tuple's viewer names its elements `f0`, `f1`...
            let ident = if self.s.structs[id].tuple {
                format!("f{i}")
            } else {
                view_ident(&self.n.field(id, i))
            };
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
            self.view_accessor(&ident, &f.slot, &ctx, &doc, default, "self.r");
        }
        self.c.close("}");
        self.c.line("");
    }

    /// The view of array `a` (an `ArrayRef` expression read through `r`)
    /// and its type: what an element of an array of arrays reads as
    /// (format.md §5.4), text as `&str`.
    fn array_view(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        r: &str,
        a: &str,
    ) -> (String, String) {
        match (array.text, data) {
            // A map: its entries' key and value views, made by functions
            // of an entry's position (format.md §5.5).
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                let view = |slot: &Slot, off: u32| {
                    let at = Ctx::Pos {
                        pos: add("at", off),
                        present: "true".into(),
                    };
                    let (_, ty, body) = self
                        .accessor_methods("x", slot, &at, None, "r")
                        .swap_remove(0);
                    let body = if body.contains('\n') {
                        format!("{{\n{body}\n}}")
                    } else {
                        body
                    };
                    (ty, format!("|r, at| {body}"))
                };
                let sl = self.l.of_struct(*id);
                let (kt, key) = view(&sl.fields[0].slot, sl.fields[0].offset);
                let (vt, value) = view(&sl.fields[1].slot, sl.fields[1].offset);
                (
                    format!("karmem::MapView<'a, {kt}, {vt}, M>"),
                    format!("karmem::MapView::new({r}, {a}, {stride}, {key}, {value})"),
                )
            }
            (Some(Text::Utf8), _) => ("&'a str".into(), format!("{r}.str({a})")),
            (Some(Text::Utf16), _) => (
                "&'a [u16]".into(),
                format!("{r}.slice::<u16>({a}.offset, {a}.len)"),
            ),
            (None, ArrayData::Plain { .. }) => {
                let t = match array.elem {
                    ElemType::Scalar(Primitive::Bool) => "u8",
                    ElemType::Scalar(p) => rust_prim(p),
                    ElemType::Enum(id) => rust_prim(self.s.enums[id].repr),
                    _ => unreachable!("plain arrays hold scalars and enums"),
                };
                (
                    format!("&'a [{t}]"),
                    format!("{r}.slice::<{t}>({a}.offset, {a}.len)"),
                )
            }
            (None, ArrayData::AosInline { id, stride }) => {
                let v = self.view_name(*id);
                (
                    format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
                    format!("karmem::InlineArray::new({r}, {a}.offset, {a}.len, {stride})"),
                )
            }
            (None, ArrayData::AosTable { id }) => {
                let v = self.view_name(*id);
                (
                    format!("karmem::TableArray<'a, {v}<'a, M>, M>"),
                    format!("karmem::TableArray::new({r}, {a}.offset, {a}.len)"),
                )
            }
            (None, ArrayData::Soa { elem }) => {
                let v = self.soa_name(*elem);
                (format!("{v}<'a, M>"), format!("{v}::new({r}, {a})"))
            }
            (None, ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. }) => {
                let v = format!("{}Array", self.n.union_name(*id));
                let layout = if matches!(data, ArrayData::UnionAos { .. }) {
                    "aos"
                } else {
                    "soa"
                };
                (format!("{v}<'a, M>"), format!("{v}::{layout}({r}, {a})"))
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let suffix = if array.layout == ArrayLayout::BoVoS {
                    "Bovos"
                } else {
                    "Bovoa"
                };
                let v = format!("{}{suffix}", self.n.union_name(*id));
                (
                    format!("{v}<'a, M>"),
                    format!("{v} {{ {}, a: {a} }}", r_field(r)),
                )
            }
            // Each element read by a function of the element's reference
            // (a closure without captures: a plain function pointer).
            (None, ArrayData::Arrays { array: inner, data }) => {
                let (ty, view) = self.array_view(inner, data, "r", "a");
                (
                    format!("karmem::ArrayOfArrays<'a, {ty}, M>"),
                    format!(
                        "karmem::ArrayOfArrays::new({r}, {a}, {}, {}, |r, a| {view})",
                        data.elem_size(),
                        limit(inner)
                    ),
                )
            }
        }
    }

    /// The accessor(s) of one slot as `(name, return type, body)`.
    fn accessor_methods(
        &self,
        ident: &str,
        slot: &Slot,
        ctx: &Ctx,
        default: Option<&DefaultValue>,
        r: &str,
    ) -> Vec<(String, String, String)> {
        let size = self.l.slot_size(slot);
        let (pos, present) = ctx.pos_present(size);
        let default = default.map(|d| self.default_expr(slot, d));
        let scalar = |ty: &str| -> String {
            match (ctx, &default) {
                (Ctx::Table { t, off }, None) => format!("{r}.field::<{ty}>({t}, {off})"),
                (_, Some(d)) if ty == "u8" && matches!(slot, Slot::Scalar(Primitive::Bool)) => {
                    format!("if {present} {{ {r}.get::<u8>({pos}) != 0 }} else {{ {d} }}")
                }
                (_, Some(d)) if matches!(slot, Slot::Enum { .. }) => {
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
        };
        let mut methods: Vec<(String, String, String)> = Vec::new(); // (name, type, body)
        match slot {
            Slot::Scalar(Primitive::Bool) if default.is_some() => {
                methods.push((ident.into(), "bool".into(), scalar("u8")))
            }
            Slot::Scalar(Primitive::Bool) => methods.push((
                ident.into(),
                "bool".into(),
                format!("({}) != 0", scalar("u8")),
            )),
            Slot::Scalar(p) => {
                methods.push((ident.into(), rust_prim(*p).into(), scalar(rust_prim(*p))))
            }
            Slot::Enum { id, repr } => {
                let e = self.n.enum_name(*id);
                methods.push((
                    ident.into(),
                    e.clone(),
                    format!("{e}({})", scalar(rust_prim(*repr))),
                ));
            }
            Slot::InlineStruct(id) => {
                let v = self.view_name(*id);
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("{v} {{ {}, at: {pos}, present: {present} }}", r_field(r)),
                ));
            }
            Slot::TableRef(id) => {
                let v = self.view_name(*id);
                let t = match ctx {
                    Ctx::Table { t, off } => format!("{r}.field_table({t}, {off})"),
                    Ctx::Pos { pos, present } if present == "true" => {
                        format!("{r}.table({r}.get::<u32>({pos}))")
                    }
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ {r}.table({r}.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
                    }
                };
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("{v} {{ {}, t: {t} }}", r_field(r)),
                ));
            }
            Slot::OptionalTable(id) => {
                let v = self.view_name(*id);
                let offset = match ctx {
                    Ctx::Table { t, off } => format!("{r}.field::<u32>({t}, {off})"),
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ {r}.get::<u32>({pos}) }} else {{ 0 }}")
                    }
                };
                methods.push((
                    ident.into(),
                    format!("Option<{v}<'a, M>>"),
                    format!(
                        "let offset = {offset};\n(offset != 0).then(|| {v} {{ {}, t: {r}.table(offset) }})",
                        r_field(r)
                    ),
                ));
            }
            // The value's own accessors, each wrapped in an `Option` that is
            // `None` when the presence byte is 0 or the field is absent.
            Slot::Optional { value_at, value } => {
                let inner = Ctx::Pos {
                    pos: ctx.value_pos(*value_at),
                    present: "true".into(),
                };
                let flag = format!("{r}.get::<u8>({pos}) != 0");
                let cond = match ctx {
                    Ctx::Pos { present, .. } if present == "true" => flag,
                    _ => format!("{present} && {flag}"),
                };
                for (name, ty, body) in self.accessor_methods(ident, value, &inner, None, r) {
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
            }
            Slot::Union { id, .. } => {
                let v = self.union_view(*id);
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("if {present} {{ {v}::from_parts({r}, {pos}, {pos} + {UNION_OFFSET_AT}) }} else {{ {v}::None }}"),
                ));
            }
            Slot::FixedArray { elem, len, stride } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let (ty, body) = match elem {
                    FixedElem::Scalar(Primitive::Bool) => (
                        format!("[bool; {len}]"),
                        format!(
                            "core::array::from_fn(|j| {present} && {r}.get::<u8>({epos}) != 0)"
                        ),
                    ),
                    FixedElem::Scalar(p) => {
                        let t = rust_prim(*p);
                        (
                            format!("[{t}; {len}]"),
                            format!("core::array::from_fn(|j| if {present} {{ {r}.get::<{t}>({epos}) }} else {{ core::default::Default::default() }})"),
                        )
                    }
                    FixedElem::Enum { id, repr } => {
                        let e = self.n.enum_name(*id);
                        let t = rust_prim(*repr);
                        (
                            format!("[{e}; {len}]"),
                            format!("core::array::from_fn(|j| {e}(if {present} {{ {r}.get::<{t}>({epos}) }} else {{ core::default::Default::default() }}))"),
                        )
                    }
                    FixedElem::InlineStruct(id) => {
                        let v = self.view_name(*id);
                        (
                            format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
                            format!("karmem::InlineArray::new({r}, {pos}, if {present} {{ {len} }} else {{ 0 }}, {stride})"),
                        )
                    }
                };
                methods.push((ident.into(), ty, body));
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = limit(array);
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
                match (array.text, data) {
                    (Some(Text::Utf8), _) => {
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
                        methods.push((
                            ident.into(),
                            "&'a str".into(),
                            or_default(&format!("{r}.str(a)"), ""),
                        ));
                        methods.push((
                            suffixed(ident, "bytes"),
                            "&'a [u8]".into(),
                            or_default(&format!("{r}.byte_slice(a)"), ".as_bytes()"),
                        ));
                    }
                    // A view that reads the reference more than once
                    // binds it to `a` first; the others take it inline.
                    (_, data) => {
                        let bind = array.text.is_some()
                            || matches!(
                                data,
                                ArrayData::Plain { .. }
                                    | ArrayData::AosInline { .. }
                                    | ArrayData::AosTable { .. }
                                    | ArrayData::Arrays { .. }
                            );
                        let (ty, body) = if bind {
                            let (ty, view) = self.array_view(array, data, r, "a");
                            (ty, format!("{let_a}{view}"))
                        } else {
                            self.array_view(array, data, r, &a)
                        };
                        methods.push((ident.into(), ty, body));
                    }
                }
            }
        }
        methods
    }

    /// Emit the viewer accessor(s) of one slot; `r` is the viewer's
    /// reader (`self.r`, or `self.s.r` in an SoA element view). An absent
    /// field (or SoA column) reads as `default`, else as zero.
    pub(super) fn view_accessor(
        &mut self,
        ident: &str,
        slot: &Slot,
        ctx: &Ctx,
        doc: &[String],
        default: Option<&DefaultValue>,
        r: &str,
    ) {
        let methods = self.accessor_methods(ident, slot, ctx, default, r);
        for (name, ty, body) in methods {
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

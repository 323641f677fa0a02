//! Checked zero-copy viewers: per struct a `{T}View` class whose
//! properties read their field from the message on access (bounded by the
//! message size: a malformed part reads as zero or empty, format.md §4,
//! §5), per SoA element a `{T}Soa` sequence that resolves its columns once
//! and hands out `{T}SoaItem`s, with each number column as a `memoryview`
//! and, when NumPy is there, a NumPy array over the message. Every
//! accessor is printed from the plan by `view_slot` and `view_array`.

use karmem_layout::{ArrayData, FixedElem, Slot, OFFSET_SIZE, UNION_OFFSET_AT};
use karmem_schema::model::*;

use super::{code, elem_at, limit_arg, lines, plus, py_scalar, Gen};
use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};

/// Where a viewer's accessor reads its slot.
#[derive(Clone)]
pub(crate) enum PyCtx {
    /// A field at `off` of the viewed table `self._t`.
    Table { off: u32 },
    /// A field at `off` of the viewed inline struct at `self._at`.
    Inline { off: u32 },
    /// SoA column `k` of element `self._i`, `stride` bytes a value.
    Column { k: usize, stride: u32 },
    /// A position given as an expression, always there (an optional's
    /// value).
    Pos(String),
}

/// A property: its type and its body's lines (each returns the value).
pub(crate) struct Acc {
    pub ty: String,
    pub body: Vec<String>,
}

/// The view of an array block: its type and the expression making it.
pub(crate) struct PyView {
    pub ty: String,
    pub expr: String,
}

const R: &str = "self._r";

impl Gen<'_> {
    pub(crate) fn view_name(&self, id: StructId) -> String {
        format!("{}View", self.struct_name(id))
    }

    fn union_view_type(&self, id: UnionId) -> String {
        format!("{}View | None", self.n.union_name(id))
    }

    /// The position of the slot `at` names, the condition under which it
    /// is present and the one under which it is absent (`None`: always
    /// present).
    fn resolve(&self, at: &ViewAt<PyCtx>) -> (String, Option<(String, String)>) {
        let size = self.l.slot_size(at.slot);
        match at.ctx {
            PyCtx::Table { off } => (
                plus("self._t.offset", *off),
                Some((
                    format!("self._t.used >= {}", off + size),
                    format!("self._t.used < {}", off + size),
                )),
            ),
            PyCtx::Inline { off } => (plus("self._at", *off), None),
            PyCtx::Column { k, stride } => (
                elem_at(&format!("self._cols[{k}]"), "self._i", *stride),
                Some((
                    format!("self._cols[{k}] != 0"),
                    format!("self._cols[{k}] == 0"),
                )),
            ),
            PyCtx::Pos(pos) => (pos.clone(), None),
        }
    }

    /// `return value`, or `zero` when the slot is absent.
    fn read_or(&self, at: &ViewAt<PyCtx>, ty: String, zero: String, value: String) -> Acc {
        let (_, presence) = self.resolve(at);
        let mut body = Vec::new();
        if let Some((_, absent)) = presence {
            body.push(format!("if {absent}:"));
            body.push(format!("    return {zero}"));
        }
        body.push(format!("return {value}"));
        Acc { ty, body }
    }

    fn scalar_acc(&self, p: Primitive, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, _) = self.resolve(at);
        let zero = match at.default {
            Some(d) => self.default_expr(d),
            None => self.zero_of(&FieldType::Scalar(p)),
        };
        let ty = if matches!(at.slot, Slot::Enum { .. }) {
            "int".to_string()
        } else {
            py_scalar(p).to_string()
        };
        self.read_or(at, ty, zero, format!("{R}.{}({pos})", p.name()))
    }

    /// The view class of each struct, and the `view` functions of unions.
    pub(crate) fn view_items(&mut self) {
        for id in 0..self.s.structs.len() {
            self.view_class(id);
        }
        for id in 0..self.s.unions.len() {
            self.union_viewer(id);
        }
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.soa_view_classes(id);
            }
        }
        for (id, u) in self.s.unions.iter().enumerate() {
            let variants: Vec<String> = u.variants.iter().map(|v| self.view_name(v.ty)).collect();
            self.c.line("");
            self.c.line("");
            self.c.line(&format!(
                "{}View: typing.TypeAlias = {}",
                self.n.union_name(id),
                variants.join(" | ")
            ));
            self.c.line(&format!(
                "\"\"\"The view of a value of the union `{}` (None: no value).\"\"\"",
                u.name
            ));
        }
    }

    fn property(&mut self, name: &str, acc: &Acc) {
        self.c.line("");
        self.c.line("@property");
        self.c.open(&format!("def {name}(self) -> {}:", acc.ty));
        for l in &acc.body {
            self.c.line(l);
        }
        self.c.indent -= 1;
    }

    fn view_class(&mut self, id: StructId) {
        let name = self.view_name(id);
        let st = self.s.structs[id].clone();
        let table = self.l.is_table(id);
        self.c.line("");
        self.c.line("");
        self.c.open(&format!("class {name}:"));
        self.c.line(&format!(
            "\"\"\"A checked zero-copy view of a `{}`: each property reads its field on access.\"\"\"",
            st.name
        ));
        self.c.line("");
        if table {
            self.c.line("__slots__ = (\"_r\", \"_t\")");
            self.c.line("");
            self.c
                .open("def __init__(self, r: karmem.Reader, t: karmem.Table) -> None:");
            self.c.line("self._r = r");
            self.c.line("self._t = t");
        } else {
            self.c.line("__slots__ = (\"_at\", \"_r\")");
            self.c.line("");
            self.c
                .open("def __init__(self, r: karmem.Reader, at: int) -> None:");
            self.c.line("self._r = r");
            self.c.line("self._at = at");
        }
        self.c.indent -= 1;
        let plan = self.l.struct_plan(self.s, id);
        for f in &plan.fields {
            let ctx = if table {
                let off = self.l.of_struct(id).fields[f.index].offset;
                PyCtx::Table { off }
            } else {
                let off = self.l.of_struct(id).fields[f.index].offset;
                PyCtx::Inline { off }
            };
            let acc = view_slot(self, f.slot, &ctx, f.default);
            let field = self.n.field(id, f.index);
            self.property(&field, &acc);
            if let PyCtx::Table { off } = ctx {
                self.setters(&field, f.slot, off);
            }
        }
        self.c.indent -= 1;
    }

    fn union_viewer(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut b = lines(1);
        b.line(&format!("tag = r.{}(tag_at)", u.tag.name()));
        b.line("offset = r.u32(offset_at)");
        for v in &u.variants {
            let vt = self.view_name(v.ty);
            if self.l.is_table(v.ty) {
                b.open(&format!("if tag == {}:", v.tag));
                b.line(&format!("return {vt}(r, r.table(offset))"));
            } else {
                let size = self.l.of_struct(v.ty).size;
                b.open(&format!(
                    "if tag == {} and r.inline_at(offset, {size}):",
                    v.tag
                ));
                b.line(&format!("return {vt}(r, offset)"));
            }
            b.indent -= 1;
        }
        b.line("return None");
        self.function(
            &format!(
                "def _view_{name}(r: karmem.Reader, tag_at: int, offset_at: int) -> {}:",
                self.union_view_type(id)
            ),
            b,
        );
        for soa in [false, true] {
            if karmem_layout::plan::uses_bunch(self.l, id, soa) {
                self.bunch_viewer(id, soa);
            }
        }
    }

    /// The element views of a bunch array (format.md §7.1): each
    /// variant's, in declaration order.
    fn bunch_viewer(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let f = if soa { "bovos" } else { "bovoa" };
        let mut b = lines(1);
        let mut types = Vec::new();
        let mut parts = Vec::new();
        for v in &u.variants {
            let data = self.l.bunch_variant_data(v.ty, soa);
            let sub = self.fresh("sub");
            b.line(&format!(
                "{sub} = r.bunch_entry(a, {}, {})",
                v.tag,
                data.elem_size()
            ));
            let view = match data {
                ArrayData::Soa { elem } => self.soa_view(elem, &sub),
                ArrayData::AosTable { id } => self.table_seq(id, &sub),
                ArrayData::AosInline { id, stride } => self.inline_seq(id, stride, &sub),
                _ => unreachable!("a bunch variant is an array of structs"),
            };
            types.push(if soa {
                format!("{}SoaItem", self.struct_name(v.ty))
            } else {
                self.view_name(v.ty)
            });
            parts.push(format!("*{}", view.expr.replace(R, "r")));
        }
        b.line(&format!("return [{}]", parts.join(", ")));
        self.function(
            &format!(
                "def _view_{f}_{name}(r: karmem.Reader, a: karmem.ArrayRef) -> list[{}]:",
                types.join(" | ")
            ),
            b,
        );
    }

    fn inline_seq(&self, id: StructId, stride: u32, a: &str) -> PyView {
        let i = self.fresh("i");
        let v = self.view_name(id);
        PyView {
            ty: format!("karmem.Seq[{v}]"),
            expr: format!(
                "karmem.Seq({a}.len, lambda {i}: {v}({R}, {}))",
                elem_at(&format!("{a}.offset"), &i, stride)
            ),
        }
    }

    fn table_seq(&self, id: StructId, a: &str) -> PyView {
        let i = self.fresh("i");
        let v = self.view_name(id);
        PyView {
            ty: format!("karmem.Seq[{v}]"),
            expr: format!(
                "karmem.Seq({a}.len, lambda {i}: {v}({R}, {R}.table({R}.u32({}))))",
                elem_at(&format!("{a}.offset"), &i, OFFSET_SIZE)
            ),
        }
    }

    fn soa_view(&self, elem: StructId, a: &str) -> PyView {
        let v = format!("{}Soa", self.struct_name(elem));
        PyView {
            ty: v.clone(),
            expr: format!("{v}({R}, {a})"),
        }
    }

    /// `{T}Soa`, the view of an SoA array of `T` (its columns resolved
    /// once), and `{T}SoaItem`, one element's: a property per column.
    fn soa_view_classes(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        let plan = self.l.soa_plan(self.s, id);
        self.c.line("");
        self.c.line("");
        self.c
            .open(&format!("class {name}Soa(karmem.Seq[\"{name}SoaItem\"]):"));
        self.c.line(&format!(
            "\"\"\"A checked zero-copy view of an SoA array of `{}`: its columns are found",
            self.s.structs[id].name
        ));
        self.c
            .line("once; `column_*` and `numpy_*` give a number column whole.\"\"\"");
        self.c.line("");
        self.c.line("__slots__ = (\"_a\", \"_cols\", \"_r\")");
        self.c.line("");
        self.c
            .open("def __init__(self, r: karmem.Reader, a: karmem.ArrayRef) -> None:");
        self.c.line("self._r = r");
        self.c.line("self._a = a");
        self.c
            .line(&format!("self._cols = r.soa_columns(a, _COLS_{name})"));
        self.c.line("super().__init__(a.len, self._item)");
        self.c.indent -= 1;
        self.c.line("");
        self.c
            .open(&format!("def _item(self, i: int) -> {name}SoaItem:"));
        self.c
            .line(&format!("return {name}SoaItem(self._r, self._cols, i)"));
        self.c.indent -= 1;
        for (k, col) in soa.columns.iter().enumerate() {
            // A number column is a native array: zero-copy as a
            // memoryview (format.md §5.3).
            let p = match col.slot {
                Slot::Scalar(p) if p != Primitive::Bool => p,
                Slot::Enum { repr, .. } => repr,
                _ => continue,
            };
            let path = self.column_path(id, k);
            self.c.line("");
            let (ty, f) = column_kind(p);
            self.c
                .open(&format!("def column_{path}(self) -> memoryview[{ty}]:"));
            self.c.line(&format!(
                "return self._r.{f}(self._cols[{k}], self._a.len, \"{}\")",
                code(p)
            ));
            self.c.indent -= 1;
            self.c.line("");
            self.c
                .open(&format!("def numpy_{path}(self) -> typing.Any:"));
            self.c.line(&format!(
                "return karmem.numpy_column(self._r, self._cols[{k}], self._a.len, \"{}\")",
                code(p)
            ));
            self.c.indent -= 1;
        }
        self.c.indent -= 1;

        self.c.line("");
        self.c.line("");
        self.c.open(&format!("class {name}SoaItem:"));
        self.c.line(&format!(
            "\"\"\"One element of an SoA array of `{}`: a property per column.\"\"\"",
            self.s.structs[id].name
        ));
        self.c.line("");
        self.c.line("__slots__ = (\"_cols\", \"_i\", \"_r\")");
        self.c.line("");
        self.c
            .open("def __init__(self, r: karmem.Reader, cols: list[int], i: int) -> None:");
        self.c.line("self._r = r");
        self.c.line("self._cols = cols");
        self.c.line("self._i = i");
        self.c.indent -= 1;
        for (k, f) in plan.columns.iter().enumerate() {
            let ctx = PyCtx::Column {
                k,
                stride: soa.columns[k].size,
            };
            let acc = view_slot(self, f.slot, &ctx, f.default);
            let path = self.column_path(id, k);
            self.property(&path, &acc);
        }
        self.c.indent -= 1;
    }

    /// The name of column `k` of SoA element `id`: its path's fields.
    fn column_path(&self, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let parts: Vec<String> = col
            .steps
            .iter()
            .zip(&col.path)
            .map(|(s, i)| {
                self.n
                    .field(*s, *i as usize)
                    .trim_end_matches('_')
                    .to_string()
            })
            .collect();
        names_escape(parts.join("_"))
    }
}

/// The element type of a memoryview of numbers `p`, and the reader's
/// method making it.
fn column_kind(p: Primitive) -> (&'static str, &'static str) {
    match p {
        Primitive::F32 | Primitive::F64 => ("float", "float_column"),
        _ => ("int", "int_column"),
    }
}

/// A column name escaped as a field name is.
fn names_escape(name: String) -> String {
    crate::names::PYTHON.fields.escape(name, &[])
}

impl ViewPrinter for Gen<'_> {
    type Ctx = PyCtx;
    type Accessor = Acc;
    type Arg = str;
    type View = PyView;

    fn view_bool(&self, at: &ViewAt<PyCtx>) -> Acc {
        self.scalar_acc(Primitive::Bool, at)
    }

    fn view_number(&self, prim: Primitive, at: &ViewAt<PyCtx>) -> Acc {
        self.scalar_acc(prim, at)
    }

    fn view_enum(&self, _id: EnumId, repr: Primitive, at: &ViewAt<PyCtx>) -> Acc {
        self.scalar_acc(repr, at)
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, _) = self.resolve(at);
        let v = self.view_name(id);
        // Absent, it reads as zeros: a view of the empty message.
        self.read_or(
            at,
            v.clone(),
            format!("{v}(karmem.EMPTY_READER, 0)"),
            format!("{v}({R}, {pos})"),
        )
    }

    fn view_table(&self, id: StructId, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, _) = self.resolve(at);
        let v = self.view_name(id);
        let t = match at.ctx {
            PyCtx::Table { off } => format!("{R}.field_table(self._t, {off})"),
            _ => format!("{R}.table({R}.u32({pos}))"),
        };
        self.read_or(
            at,
            v.clone(),
            format!("{v}({R}, karmem.ABSENT)"),
            format!("{v}({R}, {t})"),
        )
    }

    fn view_optional_table(&self, id: StructId, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, presence) = self.resolve(at);
        let v = self.view_name(id);
        let mut body = Vec::new();
        if let Some((_, absent)) = presence {
            body.push(format!("if {absent}:"));
            body.push("    return None".into());
        }
        body.push(format!("offset = {R}.u32({pos})"));
        body.push(format!(
            "return None if offset == 0 else {v}({R}, {R}.table(offset))"
        ));
        Acc {
            ty: format!("{v} | None"),
            body,
        }
    }

    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, presence) = self.resolve(at);
        let inner = view_slot(self, value, &PyCtx::Pos(plus(&pos, value_at)), None);
        let mut body = Vec::new();
        let absent = format!("{R}.u8({pos}) == 0");
        let cond = match presence {
            Some((_, a)) => format!("{a} or {absent}"),
            None => absent,
        };
        body.push(format!("if {cond}:"));
        body.push("    return None".into());
        body.extend(inner.body);
        Acc {
            ty: format!("{} | None", inner.ty),
            body,
        }
    }

    fn view_union(&self, id: UnionId, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, _) = self.resolve(at);
        self.read_or(
            at,
            self.union_view_type(id),
            "None".into(),
            format!(
                "_view_{}({R}, {pos}, {})",
                self.n.union_name(id),
                plus(&pos, UNION_OFFSET_AT)
            ),
        )
    }

    // Fixed arrays are small and embedded: a list of their values.
    fn view_fixed(&self, elem: FixedElem, len: u32, stride: u32, at: &ViewAt<PyCtx>) -> Acc {
        let (pos, _) = self.resolve(at);
        let (ty, zero, value) = match elem {
            FixedElem::Scalar(Primitive::Bool) => (
                "list[bool]".to_string(),
                format!("[False] * {len}"),
                format!("{R}.bools({pos}, {len})"),
            ),
            FixedElem::Scalar(p @ (Primitive::F32 | Primitive::F64)) => (
                "list[float]".to_string(),
                format!("[0.0] * {len}"),
                format!("{R}.floats({pos}, {len}, \"{}\")", code(p)),
            ),
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => (
                "list[int]".to_string(),
                format!("[0] * {len}"),
                format!("{R}.ints({pos}, {len}, \"{}\")", code(p)),
            ),
            FixedElem::InlineStruct(id) => {
                let v = self.view_name(id);
                let j = self.fresh("j");
                (
                    format!("list[{v}]"),
                    format!("[{v}(karmem.EMPTY_READER, 0)] * {len}"),
                    format!(
                        "[{v}({R}, {}) for {j} in range({len})]",
                        elem_at(&pos, &j, stride)
                    ),
                )
            }
        };
        self.read_or(at, ty, zero, value)
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        at: &ViewAt<PyCtx>,
    ) -> Acc {
        let (pos, presence) = self.resolve(at);
        let a = self.fresh("a");
        let load = format!("{R}.array({pos}, {es}, {})", limit_arg(limit));
        let view = view_array(self, array, data, a.as_str());
        let mut body = Vec::new();
        match presence {
            Some((present, _)) => {
                body.push(format!("{a} = karmem.EMPTY"));
                body.push(format!("if {present}:"));
                body.push(format!("    {a} = {load}"));
            }
            None => body.push(format!("{a} = {load}")),
        }
        body.push(format!("return {}", view.expr));
        Acc { ty: view.ty, body }
    }

    fn view_text(&self, utf16: bool, a: &str) -> PyView {
        let f = if utf16 { "utf16" } else { "string" };
        PyView {
            ty: "str".into(),
            expr: format!("{R}.{f}({a})"),
        }
    }

    fn view_plain(&self, elem: ElemType, _size: u32, a: &str) -> PyView {
        let p = match elem {
            ElemType::Scalar(Primitive::Bool) => {
                return PyView {
                    ty: "list[bool]".into(),
                    expr: format!("{R}.bools({a}.offset, {a}.len)"),
                }
            }
            ElemType::Scalar(p) => p,
            ElemType::Enum(id) => self.s.enums[id].repr,
            _ => unreachable!("plain arrays hold numbers and enums"),
        };
        // Zero-copy: the numbers as they are in the message.
        let (ty, f) = column_kind(p);
        PyView {
            ty: format!("memoryview[{ty}]"),
            expr: format!("{R}.{f}({a}.offset, {a}.len, \"{}\")", code(p)),
        }
    }

    fn view_nested(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        a: &str,
    ) -> PyView {
        let inner = self.fresh("a");
        let view = view_array(self, array, data, inner.as_str());
        PyView {
            ty: format!("karmem.Seq[{}]", view.ty),
            expr: format!(
                "{R}.nested({a}, {es}, {}, lambda {inner}: {})",
                limit_arg(limit),
                view.expr
            ),
        }
    }

    fn view_aos_inline(&self, id: StructId, stride: u32, a: &str) -> PyView {
        self.inline_seq(id, stride, a)
    }

    // A map's view is the sequence of its entries, in key order.
    fn view_map(&self, id: StructId, stride: u32, a: &str) -> PyView {
        self.inline_seq(id, stride, a)
    }

    fn view_aos_table(&self, id: StructId, a: &str) -> PyView {
        self.table_seq(id, a)
    }

    fn view_soa(&self, elem: StructId, a: &str) -> PyView {
        self.soa_view(elem, a)
    }

    fn view_union_aos(&self, id: UnionId, a: &str) -> PyView {
        let i = self.fresh("i");
        let at = elem_at(&format!("{a}.offset"), &i, 8);
        PyView {
            ty: format!("karmem.Seq[{}]", self.union_view_type(id)),
            expr: format!(
                "karmem.Seq({a}.len, lambda {i}: _view_{}({R}, {at}, {}))",
                self.n.union_name(id),
                plus(&at, UNION_OFFSET_AT)
            ),
        }
    }

    fn view_union_soa(&self, id: UnionId, tw: u32, a: &str) -> PyView {
        let (t, o) = (self.fresh("tag"), self.fresh("offset"));
        PyView {
            ty: format!("karmem.Seq[{}]", self.union_view_type(id)),
            expr: format!(
                "{R}.union_seq({a}, {tw}, lambda {t}, {o}: _view_{}({R}, {t}, {o}))",
                self.n.union_name(id)
            ),
        }
    }

    fn view_bunch(&self, id: UnionId, soa: bool, a: &str) -> PyView {
        let u = &self.s.unions[id];
        let types: Vec<String> = u
            .variants
            .iter()
            .map(|v| {
                if soa {
                    format!("{}SoaItem", self.struct_name(v.ty))
                } else {
                    self.view_name(v.ty)
                }
            })
            .collect();
        let f = if soa { "bovos" } else { "bovoa" };
        PyView {
            ty: format!("list[{}]", types.join(" | ")),
            expr: format!("_view_{f}_{}({R}, {a})", self.n.union_name(id)),
        }
    }
}

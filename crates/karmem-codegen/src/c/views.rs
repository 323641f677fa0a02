//! Checked zero-copy viewers (docs/c.md, "Viewers"): small by-value view
//! types over a `km_reader` and `static inline` accessors in the header,
//! with Go's viewer semantics (crates/karmem-codegen/src/go/views.rs):
//! nothing is decoded or allocated, and a malformed or absent part reads as
//! the declared default, zero or empty.
//!
//! The trusted viewers (docs/c.md, "Trusted viewers") are the same
//! emitters with `Gen::trusted` set: `_tview` (`_tsoa`, `_tbovoa`, ...)
//! types that hold a `km_trusted` instead of the reader's address and read
//! through the library's `km_trusted_*` functions, which leave out what a
//! validation checked once (bounds, alignment, UTF-8, array sizes and
//! limits, SoA directories, bunch tables, inline union values, the SoA
//! length cap). What a valid message may still lack is tested as in the
//! checked viewers: a table field past `used` (an older writer), an
//! absent table, array or SoA column, an unknown union tag. Indexes a
//! caller passes (`_at(s, i)`) are checked in both. A trusted root comes
//! only from `<type>_trust`, which validates first: no `_root` is printed.
//!
//! Every accessor first finds its slot's position `at`, 0 when the slot is
//! not there (an absent table field, an SoA column the message lacks, an
//! element out of range): no slot lies in the header, so 0 is free to mean
//! "absent", and the read of each slot kind is one emitter
//! ([`Gen::view_read`]) whatever the slot's container.

use std::collections::{BTreeMap, BTreeSet};

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, HEADER_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{limit_arg, limit_expr, Code, Gen};
use crate::names::snake;
use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};

/// Prototypes and definitions of `static inline` functions, emitted
/// separately so that they may call each other in any order.
pub(crate) struct Fns {
    pub decls: Code,
    pub defs: Code,
}

impl Fns {
    fn new() -> Self {
        Fns {
            decls: Code::new(0),
            defs: Code::new(0),
        }
    }

    /// `static inline SIG { body }` with an optional comment.
    fn func(&mut self, doc: &str, sig: &str, body: Code) {
        if !doc.is_empty() {
            self.decls.line(&format!("/* {doc} */"));
        }
        self.decls.line(&format!("static inline {sig};"));
        self.defs.open(&format!("static inline {sig} {{"));
        self.defs.raw(&body.out);
        self.defs.close("}");
    }
}

fn body() -> Code {
    Code::new(1)
}

/// Names the viewers' own functions take after a view type's name (`_root`,
/// `_tag`, `_at`, `_len`, `_of`): a field or variant of that name gets `_`.
fn unreserved(name: String) -> String {
    if ["root", "tag", "at", "len", "of"].contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

impl Gen<'_> {
    // ---- names -----------------------------------------------------------------

    /// The accessor suffix of field `i` of struct `id`.
    pub fn view_field(&self, id: StructId, i: usize) -> String {
        unreserved(self.n.field(id, i))
    }
    /// The accessor suffix of a union's variant of struct `ty`.
    pub fn view_variant(&self, ty: StructId) -> String {
        unreserved(self.n.variant_member(ty))
    }
    /// `t` before the kind in the names of the trusted viewers
    /// (`app_account_data_tview`), nothing in the checked viewers'.
    pub fn mode(&self) -> &'static str {
        if self.trusted {
            "t"
        } else {
            ""
        }
    }
    /// The member a view holds its message by, which is also the first
    /// parameter of the functions making views: `r`, the reader's address
    /// or the trusted message (a pointer and a size, by value).
    fn reader_param(&self) -> &'static str {
        if self.trusted {
            "km_trusted r"
        } else {
            "const km_reader *r"
        }
    }
    /// The library's load of a number stored as `p` (`u32`, `bool`, ...)
    /// at a position: `km_read_u32(r, at)` or `km_trusted_u32(r, at)`.
    fn load(&self, p: &str) -> String {
        if self.trusted {
            format!("km_trusted_{p}")
        } else {
            format!("km_read_{p}")
        }
    }
    /// `app_account_data_view` (trusted: `app_account_data_tview`).
    pub fn view(&self, id: StructId) -> String {
        format!("{}_{}view", self.n.struct_name(id), self.mode())
    }
    /// The AoS array (of tables or inline structs) of `id`.
    pub fn view_array(&self, id: StructId) -> String {
        format!("{}_{}view_array", self.n.struct_name(id), self.mode())
    }
    pub fn soa_view(&self, id: StructId) -> String {
        format!("{}_{}soa", self.n.struct_name(id), self.mode())
    }
    pub fn soa_item(&self, id: StructId) -> String {
        format!("{}_{}soa_item", self.n.struct_name(id), self.mode())
    }
    pub fn union_view(&self, id: UnionId) -> String {
        format!("{}_{}view", self.n.union_name(id), self.mode())
    }
    pub fn union_view_array(&self, id: UnionId) -> String {
        format!("{}_{}view_array", self.n.union_name(id), self.mode())
    }
    pub fn bunch_view(&self, id: UnionId, soa: bool) -> String {
        format!(
            "{}_{}{}",
            self.n.union_name(id),
            self.mode(),
            if soa { "bovos" } else { "bovoa" }
        )
    }

    /// The view type of an array whose block holds `data`, and the function
    /// of `(const km_reader *, km_array)` (trusted: `(km_trusted,
    /// km_array)`) making it.
    pub fn array_view(&self, array: &ArrayType, data: &ArrayData) -> (String, String) {
        let v = view_array(self, array, data, array);
        (v.ty, v.of)
    }

    /// What a viewer of `slot` is (its type; a scalar column's slice), the
    /// same wherever the slot is.
    fn slot_view(&self, slot: &Slot) -> CAccessor {
        let anywhere = CAt {
            name: String::new(),
            param: String::new(),
            r: String::new(),
            at: String::new(),
            doc: String::new(),
        };
        view_slot(self, slot, &anywhere, None)
    }

    // ---- the header part -----------------------------------------------------------

    /// The viewers of every struct and union, and of every array shape the
    /// schema uses, into the header.
    pub(crate) fn views(&self, c: &mut Code) {
        let shapes = self.array_shapes();
        let r = self.reader_param();
        if self.trusted {
            c.line("/* ---- Trusted viewers (docs/c.md, \"Trusted viewers\"): the viewers of a");
            c.line(" * message <type>_trust validated, without the checks the validation made.");
            c.line(" * The message must stay alive and unchanged while they are in use. ---- */");
        } else {
            c.line("/* ---- Viewers (docs/c.md, \"Viewers\"): read a message in place. ---- */");
        }
        c.line("");
        let mut f = Fns::new();
        // Types first: the only view held by value in another is an SoA
        // array in its element view.
        for id in 0..self.s.structs.len() {
            let name = &self.s.structs[id].name;
            if self.l.is_table(id) {
                c.line(&format!(
                    "/* The table {name} in a message ({{0, 0}} table: absent, reads as zero). */"
                ));
                c.line(&format!(
                    "typedef struct {{ {r}; km_table t; }} {};",
                    self.view(id)
                ));
            } else {
                c.line(&format!(
                    "/* The inline struct {name} at `at` in a message (0: absent, reads as zero). */"
                ));
                c.line(&format!(
                    "typedef struct {{ {r}; uint32_t at; }} {};",
                    self.view(id)
                ));
            }
            c.line(&format!(
                "typedef struct {{ {r}; uint32_t offset; uint32_t len; }} {};",
                self.view_array(id)
            ));
            if let Some(soa) = &self.l.soa[id] {
                c.line(&format!(
                    "typedef struct {{ {r}; uint32_t len; uint32_t cols[{}]; }} {};",
                    soa.columns.len().max(1),
                    self.soa_view(id)
                ));
                c.line(&format!(
                    "typedef struct {{ {} s; uint32_t i; }} {};",
                    self.soa_view(id),
                    self.soa_item(id)
                ));
            }
        }
        for id in 0..self.s.unions.len() {
            c.line(&format!(
                "typedef struct {{ {r}; uint32_t tag; uint32_t offset; }} {};",
                self.union_view(id)
            ));
            c.line(&format!(
                "typedef struct {{ {r}; uint32_t len; uint32_t tags; uint32_t tag_stride; uint32_t offsets; uint32_t offset_stride; }} {};",
                self.union_view_array(id)
            ));
        }
        // Arrays of arrays and bunch arrays keep their reference.
        for name in shapes.keys() {
            c.line(&format!("typedef struct {{ {r}; km_array a; }} {name};"));
        }
        // Node views of SoA elements share their item's layout.
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                for (path, _) in self.soa_nodes(id).iter().skip(1) {
                    c.line(&format!(
                        "typedef {} {};",
                        self.soa_item(id),
                        self.soa_node(id, path)
                    ));
                }
            }
        }
        c.line("");
        for id in 0..self.s.structs.len() {
            self.struct_views(&mut f, id);
        }
        for id in 0..self.s.unions.len() {
            self.union_views(&mut f, id);
        }
        for (name, shape) in &shapes {
            match shape {
                Shape::Arrays { array, data } => self.arrays_view(&mut f, name, array, data),
                Shape::Bunch { id, soa } => self.bunch_views(&mut f, *id, *soa),
            }
        }
        c.append(f.decls);
        c.line("");
        c.append(f.defs);
        c.line("");
    }

    /// Arrays of arrays and bunch arrays of the schema, by view name.
    fn array_shapes(&self) -> BTreeMap<String, Shape> {
        let mut out = BTreeMap::new();
        for (array, data) in self.l.array_blocks() {
            let v = view_array(self, array, data, array);
            if let Some(shape) = v.shape {
                out.insert(v.ty, shape);
            }
        }
        out
    }

    // ---- reading a slot at a position ----------------------------------------------

    /// Reads a number, `bool` or enum stored as `p`, of view type `ty`, at
    /// the position in local `at` (0: absent, reads as `absent` or zero)
    /// through reader `r`.
    fn read_scalar(&self, c: &mut Code, p: Primitive, ty: &str, r: &str, absent: Option<String>) {
        let absent = absent.unwrap_or_else(|| "0".to_string());
        let absent = if p == Primitive::Bool && absent == "0" {
            "false".to_string()
        } else {
            absent
        };
        c.open("if (at == 0) {");
        c.line(&format!("return {absent};"));
        c.close("}");
        if p == Primitive::Bool {
            c.line(&format!("return {}({r}, at);", self.load("bool")));
        } else {
            c.line(&format!("return ({ty}){}({r}, at);", self.load(p.name())));
        }
    }

    /// Reads the view `ty` of the inline struct at `at`.
    fn read_inline(&self, c: &mut Code, ty: &str, r: &str) {
        c.line(&format!("{ty} x;"));
        c.line(&format!("x.r = {r};"));
        c.line("x.at = at;");
        c.line("return x;");
    }

    /// Reads the view `ty` of the table whose offset is at `at`.
    fn read_table(&self, c: &mut Code, ty: &str, r: &str) {
        c.line(&format!("{ty} x;"));
        c.line(&format!("x.r = {r};"));
        let table = if self.trusted {
            "km_trusted_view_table"
        } else {
            "km_view_table"
        };
        c.line(&format!("x.t = {table}({r}, at);"));
        c.line("return x;");
    }

    /// The one accessor `name` of a slot of view type `ty`, reading it with
    /// `read` once its position is in local `at`.
    fn one(&self, at: &CAt, ty: String, read: impl FnOnce(&mut Code)) -> CAccessor {
        let mut b = body();
        b.line(&format!("uint32_t at = {};", at.at));
        read(&mut b);
        let sig = format!("{ty} {}({})", at.name, at.param);
        CAccessor {
            funcs: vec![(at.doc.clone(), sig, b)],
            ..CAccessor::new(ty)
        }
    }

    /// `_has`: whether the optional slot at `at` has a value (its presence
    /// byte, or its table offset, stored as `read`, is not 0).
    fn has(&self, at: &CAt, read: &str) -> Func {
        let mut b = body();
        b.line(&format!("uint32_t at = {};", at.at));
        b.line(&format!(
            "return at != 0 && {}({}, at) != 0;",
            self.load(read),
            at.r
        ));
        (
            format!("Whether {} has a value.", at.doc),
            format!("bool {}_has({})", at.name, at.param),
            b,
        )
    }

    /// The accessor(s) `name...` of `slot` for a view parameter `param`
    /// (always named `v`), whose position is the C expression `at` (0:
    /// absent) and reader `r`: one function, or `_has` + value for optional
    /// values, or `_len` + `_at` for fixed arrays. Returns what an in-place
    /// setter of the slot would write, if it has one.
    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &self,
        f: &mut Fns,
        name: &str,
        param: &str,
        r: &str,
        at: &str,
        slot: &Slot,
        default: Option<&DefaultValue>,
        doc: &str,
    ) -> Option<CEdit> {
        let at = CAt {
            name: name.into(),
            param: param.into(),
            r: r.into(),
            at: at.into(),
            doc: doc.into(),
        };
        let acc = view_slot(self, slot, &at, default);
        for (doc, sig, b) in acc.funcs {
            f.func(&doc, &sig, b);
        }
        acc.edit
    }
}

/// What the in-place setters of a table field (over a `km_editor`,
/// format.md §12) write, as Go's `SetF`, `EditF`, `SetFLen`.
pub(crate) enum CEdit {
    /// A number, `bool` or enum of C type `ty`, stored as `p`.
    Scalar { p: Primitive, ty: String },
    /// The elements of a plain array in place (`km_<elem>_edit`), and its
    /// length within its capacity and `limit`.
    Slice {
        elem: &'static str,
        elem_size: u32,
        limit: Option<u32>,
    },
}

/// A C viewer's accessor being printed: its name, its view parameter, the
/// reader expression, the C expression of its slot's position (0:
/// absent), and the field's description for its comment.
#[derive(Clone)]
pub(crate) struct CAt {
    name: String,
    param: String,
    r: String,
    at: String,
    doc: String,
}

/// A `static inline` function: its comment, signature and body.
type Func = (String, String, Code);

/// The accessor(s) of one slot: the view type they return, the functions,
/// for a number, `bool` or enum the element name of a native slice over
/// an SoA column of them (`u8` for `bool`s, an enum's representation), and
/// what an in-place setter writes where the slot is a table field.
pub(crate) struct CAccessor {
    ty: String,
    funcs: Vec<Func>,
    column: Option<&'static str>,
    edit: Option<CEdit>,
}

impl CAccessor {
    fn new(ty: String) -> Self {
        CAccessor {
            ty,
            funcs: Vec::new(),
            column: None,
            edit: None,
        }
    }
}

/// The view of an array block: its type, the function making it, the
/// part of an array-of-arrays type name naming it (before its limit), the
/// view type it declares when it is not one per struct or union (an array
/// of arrays, a bunch array), a map's entry struct, and the element name
/// of a plain array's writable slice (`km_<elem>_edit`).
pub(crate) struct CView {
    ty: String,
    of: String,
    base: String,
    shape: Option<Shape>,
    map_entry: Option<StructId>,
    edit: Option<&'static str>,
}

impl CView {
    fn new((ty, of): (String, String), base: String) -> Self {
        CView {
            ty,
            of,
            base,
            shape: None,
            map_entry: None,
            edit: None,
        }
    }
}

/// A view type `t` and its maker `t_of`.
fn named(t: String) -> (String, String) {
    (t.clone(), format!("{t}_of"))
}

/// The name part of an array block `base` under a `[<N]T` limit.
fn stem(base: &str, limit: Option<u32>) -> String {
    match limit {
        Some(n) => format!("{base}_max{n}"),
        None => base.to_string(),
    }
}

impl ViewPrinter for Gen<'_> {
    type Ctx = CAt;
    type Accessor = CAccessor;
    /// The array whose block is viewed (its limit names an array of
    /// arrays).
    type Arg = ArrayType;
    type View = CView;

    fn view_bool(&self, at: &ViewAt<CAt>) -> CAccessor {
        self.scalar_node(
            Primitive::Bool,
            super::c_prim(Primitive::Bool).into(),
            "u8",
            at,
        )
    }

    fn view_number(&self, prim: Primitive, at: &ViewAt<CAt>) -> CAccessor {
        self.scalar_node(prim, super::c_prim(prim).into(), prim.name(), at)
    }

    fn view_enum(&self, id: EnumId, repr: Primitive, at: &ViewAt<CAt>) -> CAccessor {
        self.scalar_node(repr, self.n.enum_name(id), repr.name(), at)
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<CAt>) -> CAccessor {
        let ty = self.view(id);
        self.one(at.ctx, ty.clone(), |b| self.read_inline(b, &ty, &at.ctx.r))
    }

    fn view_table(&self, id: StructId, at: &ViewAt<CAt>) -> CAccessor {
        let ty = self.view(id);
        self.one(at.ctx, ty.clone(), |b| self.read_table(b, &ty, &at.ctx.r))
    }

    fn view_optional_table(&self, id: StructId, at: &ViewAt<CAt>) -> CAccessor {
        let a = at.ctx;
        let mut acc = self.one(
            &CAt {
                doc: format!("The value of {} (reads as zero without one).", a.doc),
                ..a.clone()
            },
            self.view(id),
            |b| self.read_table(b, &self.view(id), &a.r),
        );
        acc.funcs.insert(0, self.has(a, "u32"));
        acc
    }

    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<CAt>) -> CAccessor {
        let a = at.ctx;
        let inner = CAt {
            at: format!("{}_has(v) ? ({}) + {value_at}u : 0u", a.name, a.at),
            ..a.clone()
        };
        let mut acc = view_slot(self, value, &inner, None);
        acc.funcs.insert(0, self.has(a, "u8"));
        acc.column = None;
        acc.edit = None;
        acc
    }

    fn view_union(&self, id: UnionId, at: &ViewAt<CAt>) -> CAccessor {
        let uv = self.union_view(id);
        let r = &at.ctx.r;
        self.one(at.ctx, uv.clone(), |b| {
            b.line(&format!(
                "return {uv}_at({r}, at, at != 0 ? at + {UNION_OFFSET_AT}u : 0u);"
            ))
        })
    }

    fn view_fixed(&self, elem: FixedElem, len: u32, stride: u32, at: &ViewAt<CAt>) -> CAccessor {
        let a = at.ctx;
        let ty = match elem {
            FixedElem::Scalar(p) => super::c_prim(p).to_string(),
            FixedElem::Enum { id, .. } => self.n.enum_name(id),
            FixedElem::InlineStruct(id) => self.view(id),
        };
        let mut n = body();
        n.line("(void)v;");
        n.line(&format!("return {len}u;"));
        let mut b = body();
        b.line(&format!("uint32_t at = {};", a.at));
        b.line(&format!(
            "at = (at != 0 && i < {len}u) ? at + i * {stride}u : 0u;"
        ));
        match elem {
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => {
                self.read_scalar(&mut b, p, &ty, &a.r, None)
            }
            FixedElem::InlineStruct(_) => self.read_inline(&mut b, &ty, &a.r),
        }
        let funcs = vec![
            (
                format!("The number of elements of {}.", a.doc),
                format!("uint32_t {}_len({})", a.name, a.param),
                n,
            ),
            (
                format!("Element i of {} (zero when i is out of range).", a.doc),
                format!("{ty} {}_at({}, uint32_t i)", a.name, a.param),
                b,
            ),
        ];
        CAccessor {
            funcs,
            ..CAccessor::new(ty)
        }
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        at: &ViewAt<CAt>,
    ) -> CAccessor {
        let CView { ty, of, edit, .. } = view_array(self, array, data, array);
        let r = &at.ctx.r;
        let default = at.default.map(|d| self.default_expr(at.slot, d));
        let acc = self.one(at.ctx, ty, |c| {
            if let Some(text) = default {
                c.open("if (at == 0) {");
                c.line("km_text d;");
                c.line(&format!("d.ptr = {text};"));
                c.line(&format!("d.len = sizeof {text} - 1;"));
                c.line("return d;");
                c.close("}");
            }
            if self.trusted {
                // A validated reference has its size and limit checked.
                c.line(&format!(
                    "return {of}({r}, km_trusted_view_array({r}, at));"
                ));
            } else {
                c.line(&format!(
                    "return {of}({r}, km_view_array({r}, at, {elem_size}u, {}));",
                    limit_expr(limit)
                ));
            }
        });
        CAccessor {
            edit: edit.map(|elem| CEdit::Slice {
                elem,
                elem_size,
                limit,
            }),
            ..acc
        }
    }

    fn view_text(&self, utf16: bool, _: &ArrayType) -> CView {
        if utf16 {
            CView::new(self.slice("u16"), "utf16".into())
        } else {
            let of = if self.trusted {
                "km_trusted_text"
            } else {
                "km_text_of"
            };
            CView::new(("km_text".into(), of.into()), "text".into())
        }
    }

    fn view_plain(&self, elem: ElemType, _: u32, _: &ArrayType) -> CView {
        let (p, base) = match elem {
            ElemType::Scalar(Primitive::Bool) => ("u8", "bool".into()),
            ElemType::Scalar(p) => (p.name(), p.name().into()),
            ElemType::Enum(id) => (self.s.enums[id].repr.name(), snake(&self.s.enums[id].name)),
            _ => unreachable!("plain arrays hold scalars and enums"),
        };
        CView {
            edit: Some(p),
            ..CView::new(self.slice(p), base)
        }
    }

    fn view_nested(
        &self,
        inner: &ArrayType,
        data: &ArrayData,
        _: u32,
        _: Option<u32>,
        outer: &ArrayType,
    ) -> CView {
        let elems = view_array(self, inner, data, inner);
        let elems = stem(&elems.base, inner.limit());
        let base = format!("{elems}_arrays");
        // The mode once, on the outermost level: `app_u8_tarrays`, and
        // `app_u8_arrays_tarrays` for `[][][]u8`.
        let name = stem(&format!("{elems}_{}arrays", self.mode()), outer.limit());
        let ty = format!("{}_{name}", self.prefix);
        CView {
            shape: Some(Shape::Arrays {
                array: *inner,
                data: data.clone(),
            }),
            ..CView::new(named(ty), base)
        }
    }

    fn view_aos_inline(&self, id: StructId, _: u32, _: &ArrayType) -> CView {
        self.struct_array_view(id)
    }

    fn view_map(&self, id: StructId, _: u32, _: &ArrayType) -> CView {
        CView {
            map_entry: Some(id),
            ..self.struct_array_view(id)
        }
    }

    fn view_aos_table(&self, id: StructId, _: &ArrayType) -> CView {
        self.struct_array_view(id)
    }

    fn view_soa(&self, elem: StructId, _: &ArrayType) -> CView {
        CView::new(
            named(self.soa_view(elem)),
            format!("{}_soa", snake(&self.s.structs[elem].name)),
        )
    }

    fn view_union_aos(&self, id: UnionId, _: &ArrayType) -> CView {
        self.union_array_view(id, "aos")
    }

    fn view_union_soa(&self, id: UnionId, _: u32, _: &ArrayType) -> CView {
        self.union_array_view(id, "soa")
    }

    fn view_bunch(&self, id: UnionId, soa: bool, _: &ArrayType) -> CView {
        let base = format!(
            "{}_{}",
            snake(&self.s.unions[id].name),
            if soa { "bovos" } else { "bovoa" }
        );
        CView {
            shape: Some(Shape::Bunch { id, soa }),
            ..CView::new(named(self.bunch_view(id, soa)), base)
        }
    }
}

impl Gen<'_> {
    /// A `km_<p>_slice` type and its maker (`km_<p>_slice_of`,
    /// `km_trusted_<p>_slice_of`).
    fn slice(&self, p: &str) -> (String, String) {
        let trusted = if self.trusted { "trusted_" } else { "" };
        (format!("km_{p}_slice"), format!("km_{trusted}{p}_slice_of"))
    }

    /// A number, `bool` or enum stored as `p`, of view type `ty`; `column`
    /// names a native slice over an SoA column of them.
    fn scalar_node(
        &self,
        p: Primitive,
        ty: String,
        column: &'static str,
        at: &ViewAt<CAt>,
    ) -> CAccessor {
        let absent = at.default.map(|d| self.default_expr(at.slot, d));
        let acc = self.one(at.ctx, ty.clone(), |b| {
            self.read_scalar(b, p, &ty, &at.ctx.r, absent)
        });
        CAccessor {
            column: Some(column),
            edit: Some(CEdit::Scalar { p, ty }),
            ..acc
        }
    }

    /// The AoS array of struct `id` (tables or inline structs).
    fn struct_array_view(&self, id: StructId) -> CView {
        CView::new(named(self.view_array(id)), snake(&self.s.structs[id].name))
    }

    /// An AoS or SoA (`layout`) array of union `id`.
    fn union_array_view(&self, id: UnionId, layout: &str) -> CView {
        let t = self.union_view_array(id);
        CView::new(
            (t.clone(), format!("{t}_{layout}")),
            snake(&self.s.unions[id].name),
        )
    }

    // ---- structs ---------------------------------------------------------------------

    fn struct_views(&self, f: &mut Fns, id: StructId) {
        let view = self.view(id);
        let sl = self.l.of_struct(id);
        let table = self.l.is_table(id);
        let sname = &self.s.structs[id].name;
        if self.trusted {
            self.trust(f, id);
        } else {
            let mut b = body();
            b.line(&format!("{view} v;"));
            b.line("v.r = r;");
            if table {
                b.line("v.t = km_root(r);");
            } else {
                // An inline root that does not fit reads as a whole as zero,
                // as the decoders read it (format.md §1).
                b.line(&format!(
                    "v.at = (uint64_t)r->size >= {}u ? {HEADER_SIZE}u : 0u;",
                    HEADER_SIZE as u64 + sl.size as u64
                ));
            }
            b.line("return v;");
            f.func(
                &format!("The root {sname} of the message r (open: km_reader_open)."),
                &format!("{view} {view}_root(const km_reader *r)"),
                b,
            );
        }
        for (i, fl) in sl.fields.iter().enumerate() {
            let field = &self.s.structs[id].fields[i];
            let at = if table {
                format!(
                    "km_has(v.t, {off}u, {size}u) ? v.t.offset + {off}u : 0u",
                    off = fl.offset,
                    size = self.l.slot_size(&fl.slot)
                )
            } else {
                format!("v.at != 0 ? v.at + {}u : 0u", fl.offset)
            };
            let edit = self.accessor(
                f,
                &format!("{view}_{}", self.view_field(id, i)),
                &format!("{view} v"),
                "v.r",
                &at,
                &fl.slot,
                field.nonzero_default(),
                &format!("{sname}.{}", field.name),
            );
            // Setters on the checked views only: a message edited in place
            // is no longer the one a trusted view's validation read.
            if let Some(edit) = edit.filter(|_| table && !self.trusted) {
                self.setters(f, id, i, &edit);
            }
        }
        // The AoS array of these: offsets to tables or the structs packed.
        let arr = self.view_array(id);
        let mut b = body();
        b.line(&format!("{arr} s;"));
        b.line("s.r = r;");
        b.line("s.offset = a.offset;");
        b.line("s.len = a.len;");
        b.line("return s;");
        f.func(
            &format!(
                "An AoS array of {sname} (a {} km_array).",
                if self.trusted { "validated" } else { "checked" }
            ),
            &format!("{arr} {arr}_of({}, km_array a)", self.reader_param()),
            b,
        );
        let mut b = body();
        b.line("return s.len;");
        f.func("", &format!("uint32_t {arr}_len({arr} s)"), b);
        let mut b = body();
        if table {
            b.line(&format!(
                "uint32_t at = i < s.len ? s.offset + i * {OFFSET_SIZE}u : 0u;"
            ));
            self.read_table(&mut b, &view, "s.r");
        } else {
            b.line(&format!(
                "uint32_t at = i < s.len ? s.offset + i * {}u : 0u;",
                sl.size
            ));
            self.read_inline(&mut b, &view, "s.r");
        }
        f.func(
            "Element i (zero when i is out of range).",
            &format!("{view} {arr}_at({arr} s, uint32_t i)"),
            b,
        );
        if self.map_entries().contains(&id) {
            self.map_get(f, id);
        }
        if self.l.soa[id].is_some() {
            self.soa_views(f, id);
        }
    }

    /// The in-place setters of field `i` of table `id` over a `km_editor`
    /// (format.md §12), as Go's: `_set_<f>` for a number, `bool` or enum,
    /// `_edit_<f>` (the elements, writable) and `_set_<f>_len` for a plain
    /// array. Each is checked like a read; the view must be of the
    /// editor's message (`<type>_view_root(&e.r)`).
    fn setters(&self, f: &mut Fns, id: StructId, i: usize, edit: &CEdit) {
        let view = self.view(id);
        let fname = self.view_field(id, i);
        let doc = format!(
            "{}.{}",
            self.s.structs[id].name, self.s.structs[id].fields[i].name
        );
        let off = self.field_offset(id, i);
        match edit {
            CEdit::Scalar { p, ty } => {
                let mut b = body();
                if *p == Primitive::Bool {
                    // One byte, 0 or 1, as a valid message holds it.
                    b.line("uint8_t byte = (uint8_t)(x ? 1u : 0u);");
                    b.line(&format!("return km_edit_field(e, v.t, {off}, &byte, 1u);"));
                } else {
                    b.line(&format!(
                        "return km_edit_field(e, v.t, {off}, &x, (uint32_t)sizeof x);"
                    ));
                }
                f.func(
                    &format!("Stores {doc} in place (KM_ERR_MALFORMED_TABLE when the message does not hold the field: an older writer's)."),
                    &format!("km_status {view}_set_{fname}({view} v, km_editor *e, {ty} x)"),
                    b,
                );
            }
            CEdit::Slice {
                elem,
                elem_size,
                limit,
            } => {
                let mut b = body();
                b.line(&format!(
                    "uint32_t at = km_has(v.t, {off}, {ARRAY_REF_SIZE}u) ? v.t.offset + {off} : 0u;"
                ));
                b.line(&format!(
                    "return km_edit_{elem}_slice(e, at, {});",
                    limit_expr(*limit)
                ));
                f.func(
                    &format!("{doc} as a writable array in the editor's message: elements [0, len) in place; cap is its capacity (ptr NULL when absent or empty)."),
                    &format!("km_{elem}_edit {view}_edit_{fname}({view} v, km_editor *e)"),
                    b,
                );
                let mut b = body();
                if let Some(n) = limit {
                    b.open(&format!("if (n > {n}u) {{"));
                    b.line("return KM_ERR_TOO_LARGE;");
                    b.close("}");
                }
                b.open(&format!("if (!km_has(v.t, {off}, {ARRAY_REF_SIZE}u)) {{"));
                b.line("return KM_ERR_MALFORMED_TABLE;");
                b.close("}");
                b.line(&format!(
                    "return km_edit_len(e, v.t.offset + {off}, {elem_size}u, n);"
                ));
                f.func(
                    &format!("Changes the length of {doc} in place within its capacity (KM_ERR_TOO_LARGE beyond it or the limit), zeroing the elements between the old and the new length."),
                    &format!("km_status {view}_set_{fname}_len({view} v, km_editor *e, uint32_t n)"),
                    b,
                );
            }
        }
    }

    /// `<type>_trust`: the only way to a trusted view. It validates the
    /// message whose root is `id` and gives the trusted root only when the
    /// validation succeeds, so no unchecked message reaches a trusted
    /// getter; on failure the view is the zero view (`km_trusted` over
    /// nothing, table `{0, 0}` or `at` 0), every field of which reads as
    /// absent without a load.
    fn trust(&self, f: &mut Fns, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view(id);
        let mut b = body();
        b.line(&format!("km_status s = {name}_validate(r, err);"));
        b.line("km_trusted none = {NULL, 0u};");
        b.line("out->r = s == KM_OK ? km_trust(r) : none;");
        if self.l.is_table(id) {
            b.line(&format!(
                "out->t = km_trusted_table(out->r, s == KM_OK ? {HEADER_SIZE}u : 0u);"
            ));
        } else {
            // A valid message holds the whole inline root.
            b.line(&format!("out->at = s == KM_OK ? {HEADER_SIZE}u : 0u;"));
        }
        b.line("return s;");
        f.func(
            &format!(
                "Validates the message r whose root is {} as {name}_validate does (err, if not NULL, gets the located problem) and, when it is valid, sets *out to its root for the trusted viewers, which skip the checks the validation made; otherwise *out is a view of nothing (every field reads as absent). The message must stay alive and unchanged while *out or anything read through it is in use.",
                self.s.structs[id].name
            ),
            &format!("km_status {name}_trust(const km_reader *r, km_error *err, {view} *out)"),
            b,
        );
    }

    /// Entry structs of maps.
    fn map_entries(&self) -> BTreeSet<StructId> {
        self.l
            .array_blocks()
            .into_iter()
            .filter_map(|(array, data)| view_array(self, array, data, array).map_entry)
            .collect()
    }

    /// `_get`: a map's entry by key, by binary search over the keys in
    /// order (format.md §5.5); a map whose keys are out of order (not
    /// valid) may not find a key it holds, but never reads outside it.
    fn map_get(&self, f: &mut Fns, id: StructId) {
        let arr = self.view_array(id);
        let view = self.view(id);
        let key_slot = &self.l.of_struct(id).fields[0].slot;
        let kt = self.slot_view(key_slot).ty;
        let key = format!("{view}_{}", self.view_field(id, 0));
        let mut b = body();
        b.line("uint32_t lo = 0, hi = m.len;");
        b.open("while (lo < hi) {");
        b.line("uint32_t mid = lo + (hi - lo) / 2u;");
        b.line(&format!("{view} e = {arr}_at(m, mid);"));
        b.line(&format!("{kt} k = {key}(e);"));
        if kt == "km_text" {
            b.line("int c = km_text_cmp(k, key);");
        } else {
            b.line("int c = (k > key) - (k < key);");
        }
        b.open("if (c == 0) {");
        b.line("*out = e;");
        b.line("return true;");
        b.close("}");
        b.open("if (c < 0) {");
        b.line("lo = mid + 1u;");
        b.reopen("} else {");
        b.line("hi = mid;");
        b.close("}");
        b.close("}");
        b.line(&format!("*out = {arr}_at(m, m.len);"));
        b.line("return false;");
        f.func(
            "The entry of a map with this key (*out reads as zero and false when none).",
            &format!("bool {arr}_get({arr} m, {kt} key, {view} *out)"),
            b,
        );
    }

    // ---- SoA arrays -----------------------------------------------------------------

    /// The nodes of an SoA element's flattening tree: the element (empty
    /// path) and every struct on a column path, with the struct there.
    pub(crate) fn soa_nodes(&self, id: StructId) -> BTreeMap<Vec<u32>, StructId> {
        let mut nodes = BTreeMap::new();
        nodes.insert(Vec::new(), id);
        for col in &self.l.soa(id).columns {
            for d in 1..col.path.len() {
                nodes.insert(col.path[..d].to_vec(), col.steps[d]);
            }
        }
        nodes
    }

    /// The function returning scalar column `k` of an SoA array of `id`.
    pub fn soa_column(&self, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        format!(
            "{}_{}_column",
            self.soa_view(id),
            self.path_names(id, &col.path).join("_")
        )
    }

    /// The field names along `path` (a column's or a prefix of one), from
    /// the structs the layout's columns walk.
    fn path_names(&self, id: StructId, path: &[u32]) -> Vec<String> {
        let col = self
            .l
            .soa(id)
            .columns
            .iter()
            .find(|c| c.path.starts_with(path))
            .expect("a path of the flattening tree");
        col.steps
            .iter()
            .zip(path)
            .map(|(s, i)| self.n.field(*s, *i as usize))
            .collect()
    }

    /// The view type of node `path` of an SoA element (the item itself for
    /// the empty path).
    pub fn soa_node(&self, id: StructId, path: &[u32]) -> String {
        if path.is_empty() {
            self.soa_item(id)
        } else {
            format!(
                "{}_{}_node",
                self.soa_item(id),
                self.path_names(id, path).join("_")
            )
        }
    }

    fn soa_views(&self, f: &mut Fns, id: StructId) {
        let soa = self.l.soa(id);
        let sv = self.soa_view(id);
        let item = self.soa_item(id);
        let name = self.n.struct_name(id);
        let sname = &self.s.structs[id].name;
        let n = soa.columns.len();
        let mut b = body();
        b.line(&format!("{sv} s;"));
        if self.trusted {
            // The validation charged every element to the budget
            // (km_check_soa), so the length needs no cap here.
            b.line("s.r = r;");
            b.line("s.len = a.len;");
            b.line(&format!(
                "km_trusted_soa_columns(r, a, {name}_columns, {n}u, s.cols);"
            ));
        } else {
            // The block bounds the length only through the columns it has: a
            // hostile length over elements without known columns would make a
            // loop over them run 2^32 times. No valid message's SoA array is
            // longer than its traversal budget (format.md §10): read at most
            // that many elements.
            b.line("uint64_t most = (uint64_t)r->limits.traversal_budget_factor * r->size;");
            b.line("s.r = r;");
            b.line("s.len = (uint64_t)a.len > most ? (uint32_t)most : a.len;");
            b.line(&format!(
                "km_soa_columns(r, a, {name}_columns, {n}u, s.cols);"
            ));
        }
        b.line("return s;");
        f.func(
            &format!("An SoA array of {sname}: its columns resolved once (format.md §5.3)."),
            &format!("{sv} {sv}_of({}, km_array a)", self.reader_param()),
            b,
        );
        let mut b = body();
        b.line("return s.len;");
        f.func("", &format!("uint32_t {sv}_len({sv} s)"), b);
        let mut b = body();
        b.line(&format!("{item} it;"));
        b.line("it.s = s;");
        b.line("it.i = i;");
        b.open("if (i >= s.len) {");
        b.line("memset(it.s.cols, 0, sizeof it.s.cols);");
        b.line("it.s.len = 0;");
        b.line("it.i = 0;");
        b.close("}");
        b.line("return it;");
        f.func(
            "Element i (its fields read as defaults when i is out of range).",
            &format!("{item} {sv}_at({sv} s, uint32_t i)"),
            b,
        );
        for (k, col) in soa.columns.iter().enumerate() {
            let Some(p) = self.slot_view(&col.slot).column else {
                continue;
            };
            let mut b = body();
            let trusted = if self.trusted { "trusted_" } else { "" };
            b.line(&format!(
                "return km_{trusted}{p}_slice_at(s.r, s.cols[{k}], s.len);"
            ));
            f.func(
                "A whole scalar column as a native array in the message (NULL, 0 when the column is absent: an older writer; the items read its default).",
                &format!("km_{p}_slice {}({sv} s)", self.soa_column(id, k)),
                b,
            );
        }
        for (prefix, sid) in self.soa_nodes(id) {
            let node = self.soa_node(id, &prefix);
            for fi in 0..self.s.structs[sid].fields.len() {
                let mut path = prefix.clone();
                path.push(fi as u32);
                let fname = format!("{node}_{}", self.view_field(sid, fi));
                if self.soa_nodes(id).contains_key(&path) {
                    let child = self.soa_node(id, &path);
                    let mut b = body();
                    b.line("return v;");
                    f.func("", &format!("{child} {fname}({node} v)"), b);
                } else if let Some(k) = soa.columns.iter().position(|c| c.path == path) {
                    let col = &soa.columns[k];
                    let at = format!(
                        "v.s.cols[{k}] != 0 ? v.s.cols[{k}] + v.i * {}u : 0u",
                        col.size
                    );
                    let field = col.field(self.s);
                    self.accessor(
                        f,
                        &fname,
                        &format!("{node} v"),
                        "v.s.r",
                        &at,
                        &col.slot,
                        field.nonzero_default(),
                        &format!("{sname}.{}", self.path_names(id, &path).join(".")),
                    );
                }
            }
        }
    }

    // ---- unions ----------------------------------------------------------------------

    fn union_views(&self, f: &mut Fns, id: UnionId) {
        let u = &self.s.unions[id];
        let uv = self.union_view(id);
        let mut b = body();
        b.line(&format!("{uv} u;"));
        b.line("u.r = r;");
        b.line("u.tag = 0;");
        b.line("u.offset = 0;");
        b.open("if (tag_at == 0) {");
        b.line("return u;");
        b.close("}");
        b.line(&format!(
            "u.tag = (uint32_t){}(r, tag_at);",
            self.load(u.tag.name())
        ));
        b.line(&format!("u.offset = {}(r, offset_at);", self.load("u32")));
        // A known inline variant whose value cannot be read reads as no
        // value, as the decoders read it; a validated one can be read.
        let inline: Vec<_> = u
            .variants
            .iter()
            .filter(|v| !self.l.is_table(v.ty))
            .collect();
        if !inline.is_empty() && !self.trusted {
            b.open("switch (u.tag) {");
            for v in inline {
                b.line(&format!("case {}u:", v.tag));
                b.open(&format!(
                    "if (!km_inline_at(r, u.offset, {}u)) {{",
                    self.l.of_struct(v.ty).size
                ));
                b.line("u.tag = 0;");
                b.line("u.offset = 0;");
                b.close("}");
                b.line("break;");
            }
            b.line("default:");
            b.line("    break;");
            b.close("}");
        }
        b.line("return u;");
        f.func(
            &format!(
                "The {} whose tag is at tag_at and value offset at offset_at (tag_at 0: none).",
                u.name
            ),
            &format!(
                "{uv} {uv}_at({}, uint32_t tag_at, uint32_t offset_at)",
                self.reader_param()
            ),
            b,
        );
        let mut b = body();
        b.line("return u.tag;");
        f.func(
            "The tag: 0 (no value), a variant's, or one this schema does not know (a newer writer's).",
            &format!("uint32_t {uv}_tag({uv} u)"),
            b,
        );
        let mut seen = BTreeSet::new();
        for v in &u.variants {
            if !seen.insert(v.ty) {
                continue;
            }
            let tags: Vec<String> = u
                .variants
                .iter()
                .filter(|w| w.ty == v.ty)
                .map(|w| format!("u.tag == {}u", w.tag))
                .collect();
            let vt = self.view(v.ty);
            let mut b = body();
            b.line(&format!(
                "uint32_t at = ({}) ? u.offset : 0u;",
                tags.join(" || ")
            ));
            b.line(&format!("{vt} x;"));
            b.line("x.r = u.r;");
            if self.l.is_table(v.ty) {
                let table = if self.trusted {
                    "km_trusted_table"
                } else {
                    "km_table_at"
                };
                b.line(&format!("x.t = {table}(u.r, at);"));
            } else {
                b.line("x.at = at;");
            }
            b.line("return x;");
            f.func(
                &format!(
                    "The {} value (reads as zero when the tag is another).",
                    self.s.structs[v.ty].name
                ),
                &format!("{vt} {uv}_{}({uv} u)", self.view_variant(v.ty)),
                b,
            );
        }
        // AoS and SoA arrays of the union: slots, or two columns.
        let av = self.union_view_array(id);
        let tw = u.tag.size();
        for (layout, init) in [
            (
                "aos",
                format!(
                    "s.tags = a.offset;\n    s.tag_stride = {UNION_SLOT_SIZE}u;\n    s.offsets = a.offset + {UNION_OFFSET_AT}u;\n    s.offset_stride = {UNION_SLOT_SIZE}u;"
                ),
            ),
            (
                "soa",
                format!(
                    "if (!km_{}union_columns(r, a, {tw}u, &s.tags, &s.offsets)) {{\n        s.len = 0;\n        s.tags = 0;\n        s.offsets = 0;\n    }}\n    s.tag_stride = {tw}u;\n    s.offset_stride = {OFFSET_SIZE}u;",
                    if self.trusted { "trusted_" } else { "" }
                ),
            ),
        ] {
            let mut b = body();
            b.line(&format!("{av} s;"));
            b.line("s.r = r;");
            b.line("s.len = a.len;");
            b.raw(&format!("    {init}\n"));
            b.line("return s;");
            f.func(
                &format!("An {} array of {}.", layout.to_uppercase(), u.name),
                &format!("{av} {av}_{layout}({}, km_array a)", self.reader_param()),
                b,
            );
        }
        let mut b = body();
        b.line("return s.len;");
        f.func("", &format!("uint32_t {av}_len({av} s)"), b);
        let mut b = body();
        b.open("if (i >= s.len) {");
        b.line(&format!("return {uv}_at(s.r, 0u, 0u);"));
        b.close("}");
        b.line(&format!(
            "return {uv}_at(s.r, s.tags + i * s.tag_stride, s.offsets + i * s.offset_stride);"
        ));
        f.func(
            "Element i (no value when i is out of range).",
            &format!("{uv} {av}_at({av} s, uint32_t i)"),
            b,
        );
    }

    /// A `#bovoa`/`#bovos` array: the length, and each variant's values as
    /// an AoS or SoA array of their own.
    fn bunch_views(&self, f: &mut Fns, id: UnionId, soa: bool) {
        let u = &self.s.unions[id];
        let bv = self.bunch_view(id, soa);
        let mut b = body();
        b.line(&format!("{bv} s;"));
        b.line("s.r = r;");
        b.line("s.a = a;");
        b.line("return s;");
        f.func(
            &format!(
                "A #{} array of {}: one homogeneous array per variant (format.md §7.1).",
                if soa { "bovos" } else { "bovoa" },
                u.name
            ),
            &format!("{bv} {bv}_of({}, km_array a)", self.reader_param()),
            b,
        );
        let mut b = body();
        b.line("return s.a.len;");
        f.func(
            "The number of values of all variants.",
            &format!("uint32_t {bv}_len({bv} s)"),
            b,
        );
        for v in &u.variants {
            let data = self.l.bunch_variant_data(v.ty, soa);
            let ty = if soa {
                self.soa_view(v.ty)
            } else {
                self.view_array(v.ty)
            };
            let of = format!("{ty}_of");
            let mut b = body();
            if self.trusted {
                // The validation checked each entry's array with its
                // variant's element size.
                b.line(&format!(
                    "return {of}(s.r, km_trusted_bunch_entry(s.r, s.a, {}u));",
                    v.tag
                ));
            } else {
                b.line(&format!(
                    "return {of}(s.r, km_bunch_entry(s.r, s.a, {}u, {}u));",
                    v.tag,
                    data.elem_size()
                ));
            }
            f.func(
                &format!(
                    "The {} values (the first entry of tag {}).",
                    self.s.structs[v.ty].name, v.tag
                ),
                &format!("{ty} {}({bv} s)", self.bunch_variant(id, soa, v.tag)),
                b,
            );
        }
    }

    /// The accessor of a bunch array's variant of tag `tag`.
    pub fn bunch_variant(&self, id: UnionId, soa: bool, tag: u32) -> String {
        let u = &self.s.unions[id];
        let v = u.variants.iter().find(|v| v.tag == tag).expect("a variant");
        let twice = u.variants.iter().filter(|w| w.ty == v.ty).count() > 1;
        let m = self.view_variant(v.ty);
        if twice {
            format!("{}_{m}_{tag}", self.bunch_view(id, soa))
        } else {
            format!("{}_{m}", self.bunch_view(id, soa))
        }
    }

    /// An array of arrays: each element the view of the inner array.
    fn arrays_view(&self, f: &mut Fns, name: &str, inner: &ArrayType, data: &ArrayData) {
        let (ty, of) = self.array_view(inner, data);
        let mut b = body();
        b.line(&format!("{name} s;"));
        b.line("s.r = r;");
        b.line("s.a = a;");
        b.line("return s;");
        f.func(
            "An array of arrays (format.md §5.4).",
            &format!("{name} {name}_of({}, km_array a)", self.reader_param()),
            b,
        );
        let mut b = body();
        b.line("return s.a.len;");
        f.func("", &format!("uint32_t {name}_len({name} s)"), b);
        let mut b = body();
        b.line(&format!(
            "uint32_t at = i < s.a.len ? s.a.offset + i * {ARRAY_REF_SIZE}u : 0u;"
        ));
        if self.trusted {
            b.line(&format!(
                "return {of}(s.r, km_trusted_view_array(s.r, at));"
            ));
        } else {
            b.line(&format!(
                "return {of}(s.r, km_view_array(s.r, at, {}u, {}));",
                data.elem_size(),
                limit_arg(inner)
            ));
        }
        f.func(
            "Element i (empty when i is out of range).",
            &format!("{ty} {name}_at({name} s, uint32_t i)"),
            b,
        );
    }
}

/// A view type of an array shape that is not one per struct or union.
enum Shape {
    Arrays { array: ArrayType, data: ArrayData },
    Bunch { id: UnionId, soa: bool },
}

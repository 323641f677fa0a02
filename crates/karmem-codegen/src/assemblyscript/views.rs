//! Zero-copy viewers (docs/assemblyscript.md, "Viewers"): per struct a
//! class `{T}View<R> extends StructView<R>` whose getters read their field
//! from the message when called, per union `{U}View<R>` (its `tag` and a
//! getter per variant), per bunch array `{U}BovoaView<R>` /
//! `{U}BovosView<R>`; arrays are the library's generic views
//! (`as/assembly/view.ts`). Every class is generic over its reader `R`:
//! `Validator` for the checked view (`T.view`), `Trusted` for the view
//! after validation (`T.trust`); one printing serves both, as the Zig
//! backend's `TViewOf(R)` does (RATIONALE R11.8).
//!
//! A getter finds its slot's position (`this._kmAt`: 0 when absent, past a
//! table's used size or in a column the directory does not list), returns
//! the default when it is 0, else reads the slot. An SoA element is a
//! struct view in column mode (`_kmColumns`): its leaves are the columns in
//! flattening order, so a flattened inline struct or table is the same
//! view class over a part of them.

use std::collections::BTreeMap;

use karmem_layout::{ArrayData, FixedElem, Slot, UNION_OFFSET_AT};
use karmem_schema::model::*;

use super::{limit_arg, plus, prim, Gen};
use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};

/// Where a getter reads its slot.
pub(crate) enum VCtx {
    /// Field `k` of the viewed struct's flattening (`soa`: the struct can
    /// be an SoA element, so a flattened field has a column-mode branch).
    Field { k: i32, soa: bool },
    /// A position computed by the enclosing getter (an optional's value).
    Pos,
}

/// A getter's parts: its type, statements before the position is found,
/// the value when the slot is absent, and the statements reading it at
/// `$at` (a non-zero position).
pub(crate) struct Acc {
    ty: String,
    pre: Vec<String>,
    zero: String,
    body: Vec<String>,
    /// The value as one expression of `$at`, when it is one (a number).
    expr: Option<String>,
    /// What an in-place setter of the slot writes, when it has one
    /// (`edit.rs`): the node's own answer, not a second match.
    pub(crate) edit: Option<AEdit>,
}

/// What the in-place setters of a table field write (format.md §12).
pub(crate) enum AEdit {
    /// A number, `bool` or enum: its type `ty`, stored as `w`.
    Scalar { ty: String, w: &'static str },
    /// A plain array of `elem_size`-byte elements stored as `w`, read as
    /// `ty`, at most `limit`.
    Plain {
        w: &'static str,
        ty: String,
        elem_size: u32,
        limit: Option<u32>,
    },
}

impl Acc {
    fn value(ty: String, zero: String, expr: String) -> Self {
        Acc {
            ty,
            pre: Vec::new(),
            zero,
            body: vec![format!("return {expr};")],
            expr: Some(expr),
            edit: None,
        }
    }

    fn scalar(ty: String, zero: String, expr: String, w: &'static str) -> Self {
        Acc {
            edit: Some(AEdit::Scalar { ty: ty.clone(), w }),
            ..Acc::value(ty, zero, expr)
        }
    }
}

/// The view of an array block: its type, and the expression making it
/// from the block's offset `$o`, length `$l` and capacity `$c`.
pub(crate) struct AView {
    ty: String,
    make: String,
    /// `Some(utf16)` for text (a string, not a view).
    text: Option<bool>,
    /// A plain array's element: stored as, read as (what `editF` hands out).
    plain: Option<(&'static str, String)>,
}

impl AView {
    fn make(&self, o: &str, l: &str, c: &str) -> String {
        self.make.replace("$o", o).replace("$l", l).replace("$c", c)
    }

    fn zero(&self) -> String {
        if self.text.is_some() {
            "\"\"".into()
        } else {
            self.make("0", "0", "0")
        }
    }
}

const R: &str = "this._kmR";

impl Gen<'_> {
    pub(crate) fn view_name(&self, id: StructId) -> String {
        format!("{}View", self.n.struct_name(id))
    }

    fn view_of(&self, id: StructId) -> String {
        format!("{}<R>", self.view_name(id))
    }

    fn union_view_of(&self, id: UnionId) -> String {
        format!("{}View<R>", self.n.union_name(id))
    }

    /// Per struct that some SoA array flattens, the index of each field's
    /// first leaf in the struct's own flattening (depth-first, the order
    /// of the columns' paths), read from the layout's SoA columns.
    pub(crate) fn leaves(&self) -> BTreeMap<(StructId, usize), i32> {
        let mut out = BTreeMap::new();
        for soa in self.l.soa.iter().flatten() {
            let mut cols: Vec<_> = soa.columns.iter().collect();
            cols.sort_by(|a, b| a.path.cmp(&b.path));
            for (k, col) in cols.iter().enumerate() {
                for d in 0..col.path.len() {
                    // The struct at depth d starts where the first column
                    // with its prefix is.
                    let start = cols
                        .iter()
                        .position(|c| c.path.starts_with(&col.path[..d]))
                        .expect("the column itself");
                    let key = (col.steps[d], col.path[d] as usize);
                    let local = (k - start) as i32;
                    let first = *out.entry(key).or_insert(local);
                    debug_assert!(first <= local);
                }
            }
        }
        out
    }

    /// The list of hash and size of the leaves of SoA element `id`, in
    /// flattening order (what a view's columns are found by).
    pub(crate) fn view_cols(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let mut cols: Vec<_> = self.l.soa(id).columns.iter().collect();
        cols.sort_by(|a, b| a.path.cmp(&b.path));
        let list: Vec<String> = cols
            .iter()
            .map(|c| format!("{:#010x}, {}", c.hash, c.size))
            .collect();
        self.c.line("");
        self.c.line(&format!(
            "/** Hash and size of each SoA column of {name} in flattening order: the leaves a view reads. */"
        ));
        self.c.line(&format!(
            "const _kmViewCols{name}: StaticArray<u32> = [{}];",
            list.join(", ")
        ));
    }

    /// The static `view`, `trust` and `viewOf` of struct `id`'s class.
    pub(crate) fn view_roots(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        let c = &mut self.c;
        c.line("");
        c.line("/**");
        c.line(" * A checked zero-copy view of the message of `length` bytes at `ptr`");
        c.line(" * (8-aligned): getters read their field when called, bounded by the");
        c.line(" * message. Null when the header is refused (`Validator.open` says why).");
        c.line(" */");
        c.open(&format!(
            "static view(ptr: usize, length: usize): {view}<Validator> | null {{"
        ));
        c.line("const v = new Validator();");
        c.line("if (v.open(ptr, length) != KarmemError.None) return null;");
        c.line(&format!("return {name}.viewOf<Validator>(v);"));
        c.close("}");
        c.line("");
        c.line("/**");
        c.line(" * Validates the message (docs/format.md §11), then a view of it whose");
        c.line(" * getters skip the checks validation made. Null when it is not valid");
        c.line(" * (`validate` says why).");
        c.line(" */");
        c.open(&format!(
            "static trust(ptr: usize, length: usize): {view}<Trusted> | null {{"
        ));
        c.line("const v = new Validator();");
        c.line("if (v.open(ptr, length) != KarmemError.None) return null;");
        c.line(&format!(
            "if ({name}._kmValidateRoot(v) != KarmemError.None) return null;"
        ));
        c.line(&format!("return {name}.viewOf<Trusted>(new Trusted(v));"));
        c.close("}");
        c.line("");
        c.line("/** The view of the root over `r`: an opened Validator, or a Trusted over one that validated the message. */");
        c.open(&format!("static viewOf<R>(r: R): {view}<R> {{"));
        c.line(&format!("const x = new {view}<R>(r);"));
        if self.l.is_table(id) {
            c.line("x._kmTable(8);");
        } else {
            // An inline root that does not fit reads as zeros (§1).
            let size = self.l.of_struct(id).size;
            c.line(&format!(
                "if (<u64>r.size >= {}) x._kmInline(8);",
                8 + size as u64
            ));
        }
        c.line("return x;");
        c.close("}");
    }

    /// The view classes of the schema, after its data classes.
    pub(crate) fn view_items(&mut self) {
        let leaves = self.leaves();
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.view_cols(id);
            }
        }
        for id in 0..self.s.structs.len() {
            let in_soa = leaves.keys().any(|(s, _)| *s == id);
            self.struct_view(id, &leaves, in_soa);
        }
        for id in 0..self.s.unions.len() {
            self.union_view(id);
            for soa in [false, true] {
                if self.uses_bunch(id, soa) {
                    self.bunch_view(id, soa);
                }
            }
        }
    }

    fn struct_view(&mut self, id: StructId, leaves: &BTreeMap<(StructId, usize), i32>, soa: bool) {
        let st = self.s.structs[id].clone();
        let kind = if self.l.is_table(id) {
            "table"
        } else {
            "inline struct"
        };
        self.c.line("");
        self.c.line(&format!(
            "/** A zero-copy view of the {kind} `{}` over the reader `R` (Validator: checked; Trusted: validated). */",
            st.name
        ));
        let head = format!(
            "export class {}<R> extends _KmStructView<R> {{",
            self.view_name(id)
        );
        self.c.open(&head);
        let plan = self.l.struct_plan(self.s, id);
        let mut first = true;
        for f in &plan.fields {
            let k = leaves.get(&(id, f.index)).copied().unwrap_or(0);
            let acc = view_slot(self, f.slot, &VCtx::Field { k, soa }, f.default);
            let off = self.l.of_struct(id).fields[f.index].offset;
            let size = self.l.slot_size(f.slot);
            if !first {
                self.c.line("");
            }
            first = false;
            let field = self.n.field(id, f.index);
            self.c.open(&format!("get {field}(): {} {{", acc.ty));
            for l in &acc.pre {
                self.c.line(l);
            }
            self.c
                .line(&format!("const at = this._kmAt({off}, {size}, {k});"));
            self.c.line(&format!("if (at == 0) return {};", acc.zero));
            for l in &acc.body {
                self.c.line(&l.replace("$at", "at"));
            }
            self.c.close("}");
            if let (true, Some(edit)) = (self.l.is_table(id), &acc.edit) {
                self.setters(id, f.index, off, edit);
            }
        }
        self.c.close("}");
    }

    fn union_view(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.union_view_of(id);
        self.c.line("");
        self.c.line(&format!(
            "/** A zero-copy view of a value of the union `{}`: `tag` (0: none) and a getter per variant. */",
            u.name
        ));
        self.c.open(&format!("export class {name} {{"));
        self.c.line("tag: u32 = 0;");
        self.c.line("_kmX: _KmStructView<R> | null = null;");
        self.c.line("");
        self.c.line("/** The value whose tag is at `tagAt` and offset at `offsetAt` (none when `tagAt` is 0). */");
        self.c
            .open("constructor(r: R, tagAt: u32, offsetAt: u32) {");
        self.c
            .line("if (tagAt != 0) this._kmRead(r, tagAt, offsetAt);");
        self.c.close("}");
        self.c.line("");
        self.c
            .open("_kmRead(r: R, tagAt: u32, offsetAt: u32): void {");
        self.c
            .line(&format!("const tag = <u32>r.ld<{}>(tagAt);", prim(u.tag)));
        self.c.line("const offset = r.ld<u32>(offsetAt);");
        self.c.open("switch (tag) {");
        for var in &u.variants {
            let vt = self.view_of(var.ty);
            self.c.open(&format!("case {}: {{", var.tag));
            if self.l.is_table(var.ty) {
                self.c.line(&format!("const x = new {vt}(r);"));
                self.c.line("x._kmTable(offset);");
                self.c.line(&format!("this._kmSet({}, x);", var.tag));
            } else {
                // A known inline variant that does not fit is no value, as
                // the decoder reads it.
                let size = self.l.of_struct(var.ty).size;
                self.c.open(&format!("if (r.inlineAt(offset, {size})) {{"));
                self.c.line(&format!("const x = new {vt}(r);"));
                self.c.line("x._kmInline(offset);");
                self.c.line(&format!("this._kmSet({}, x);", var.tag));
                self.c.close("}");
            }
            self.c.line("break;");
            self.c.close("}");
        }
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.c.open("_kmSet(tag: u32, x: _KmStructView<R>): void {");
        self.c.line("this.tag = tag;");
        self.c.line("this._kmX = x;");
        self.c.close("}");
        let mut getters: Vec<(String, StructId, Vec<u32>)> = Vec::new();
        for var in &u.variants {
            let m = self.n.variant_member(var.ty);
            match getters.iter_mut().find(|g| g.0 == m) {
                Some(g) => g.2.push(var.tag),
                None => getters.push((m, var.ty, vec![var.tag])),
            }
        }
        for (m, ty, tags) in getters {
            let vt = self.view_of(ty);
            let cond: Vec<String> = tags.iter().map(|t| format!("this.tag == {t}")).collect();
            self.c.line("");
            self.c.open(&format!("get {m}(): {vt} | null {{"));
            self.c.line(&format!(
                "return {} ? changetype<{vt}>(this._kmX) : null;",
                cond.join(" || ")
            ));
            self.c.close("}");
        }
        self.c.close("}");
    }

    /// The view of a bunch array (format.md §7.1): the values of each
    /// variant the reader knows, in declaration order, as the decoder
    /// reads them.
    fn bunch_view(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let uv = self.union_view_of(id);
        let name = format!(
            "{}{}View",
            self.n.union_name(id),
            if soa { "Bovos" } else { "Bovoa" }
        );
        let mut parts = Vec::new();
        for (j, var) in u.variants.iter().enumerate() {
            let data = self.l.bunch_variant_data(var.ty, soa);
            let view = match data {
                ArrayData::Soa { elem } => self.view_soa(elem, &()),
                ArrayData::AosTable { id } => self.view_aos_table(id, &()),
                ArrayData::AosInline { id, stride } => self.view_aos_inline(id, stride, &()),
                _ => unreachable!("a bunch variant is an array of structs"),
            };
            parts.push((j, var.tag, data.elem_size(), view));
        }
        self.c.line("");
        self.c.line(&format!(
            "/** A zero-copy view of a bunch array (docs/format.md §7.1) of `{}`: each variant's values, in declaration order. */",
            u.name
        ));
        self.c.open(&format!("export class {name}<R> {{"));
        self.c.line("_kmR: R;");
        for (j, _, _, view) in &parts {
            self.c.line(&format!("_kmV{j}: {};", view.ty));
        }
        self.c.line("length: i32;");
        self.c.line("");
        self.c
            .line("/** The bunch array whose table is at `o`, of capacity `c`. */");
        self.c.open("constructor(r: R, o: u32, c: u32) {");
        self.c.line("this._kmR = r;");
        let mut lens = Vec::new();
        for (j, tag, size, view) in &parts {
            self.c.line(&format!("r.bunchEntry(o, c, {tag}, {size});"));
            let make = view.make("r.aOff", "r.aLen", "r.aCap").replace(R, "r");
            self.c.line(&format!("this._kmV{j} = {make};"));
            lens.push(format!("this._kmV{j}.length"));
        }
        if lens.is_empty() {
            lens.push("0".into());
        }
        self.c.line(&format!("this.length = {};", lens.join(" + ")));
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("@operator(\"[]\") get(i: i32): {uv} | null {{"));
        self.c.line("let k = i;");
        self.c.line("if (k < 0) return null;");
        for (j, tag, _, _) in &parts {
            self.c.open(&format!("if (k < this._kmV{j}.length) {{"));
            self.c
                .line(&format!("const u = new {uv}(this._kmR, 0, 0);"));
            self.c
                .line(&format!("u._kmSet({tag}, this._kmV{j}.get(k));"));
            self.c.line("return u;");
            self.c.close("}");
            self.c.line(&format!("k -= this._kmV{j}.length;"));
        }
        self.c.line("return null;");
        self.c.close("}");
        self.c.close("}");
    }

    /// The view of struct `id` at `$at`: inline (`table` false) or the
    /// table whose offset is there.
    fn struct_acc(&self, id: StructId, table: bool, ctx: &VCtx) -> Acc {
        let v = self.view_of(id);
        let mut pre = vec![format!("const x = new {v}({R});")];
        if let VCtx::Field { k, soa: true } = ctx {
            pre.push(format!("if (this._kmNested(x, {k})) return x;"));
        }
        let set = if table {
            format!("x._kmTable({R}.ld<u32>($at));")
        } else {
            "x._kmInline($at);".into()
        };
        Acc {
            ty: v,
            pre,
            zero: "x".into(),
            body: vec![set, "return x;".into()],
            expr: None,
            edit: None,
        }
    }

    fn zero_or_default(&self, at: &ViewAt<VCtx>, zero: String) -> String {
        match at.default {
            Some(d) => self.default_expr(at.slot, d),
            None => zero,
        }
    }
}

impl ViewPrinter for Gen<'_> {
    type Ctx = VCtx;
    type Accessor = Acc;
    type Arg = ();
    type View = AView;

    fn view_bool(&self, at: &ViewAt<VCtx>) -> Acc {
        let zero = self.zero_or_default(at, "false".into());
        Acc::scalar("bool".into(), zero, format!("{R}.ldBool($at)"), "bool")
    }

    fn view_number(&self, p: Primitive, at: &ViewAt<VCtx>) -> Acc {
        let zero = self.zero_or_default(at, "0".into());
        Acc::scalar(
            prim(p).into(),
            zero,
            format!("{R}.ld<{}>($at)", prim(p)),
            prim(p),
        )
    }

    fn view_enum(&self, id: EnumId, repr: Primitive, at: &ViewAt<VCtx>) -> Acc {
        let zero = self.zero_or_default(at, self.enum_from(id, "0"));
        let read = self.enum_from(id, &format!("{R}.ld<{}>($at)", prim(repr)));
        Acc::scalar(self.enum_type(id), zero, read, prim(repr))
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<VCtx>) -> Acc {
        self.struct_acc(id, false, at.ctx)
    }

    fn view_table(&self, id: StructId, at: &ViewAt<VCtx>) -> Acc {
        self.struct_acc(id, true, at.ctx)
    }

    // An offset of 0 is no value; a malformed table a value that reads as
    // zeros, as the decoder builds it.
    fn view_optional_table(&self, id: StructId, _at: &ViewAt<VCtx>) -> Acc {
        let v = self.view_of(id);
        Acc {
            ty: format!("{v} | null"),
            pre: Vec::new(),
            zero: "null".into(),
            body: vec![
                format!("const o = {R}.ld<u32>($at);"),
                "if (o == 0) return null;".into(),
                format!("const x = new {v}({R});"),
                "x._kmTable(o);".into(),
                "return x;".into(),
            ],
            expr: None,
            edit: None,
        }
    }

    fn view_optional(&self, value_at: u32, value: &Slot, _at: &ViewAt<VCtx>) -> Acc {
        let inner = view_slot(self, value, &VCtx::Pos, None);
        let pos = format!("({})", plus("$at", value_at));
        let mut body = vec![format!("if (!{R}.ldBool($at)) return null;")];
        let ty = match &inner.expr {
            Some(expr) => {
                body.push(format!(
                    "return new Box<{}>({});",
                    inner.ty,
                    expr.replace("$at", &pos)
                ));
                format!("Box<{}> | null", inner.ty)
            }
            None => {
                body.extend(inner.pre.iter().cloned());
                body.extend(inner.body.iter().map(|l| l.replace("$at", &pos)));
                format!("{} | null", inner.ty)
            }
        };
        Acc {
            ty,
            pre: Vec::new(),
            zero: "null".into(),
            body,
            expr: None,
            edit: None,
        }
    }

    fn view_union(&self, id: UnionId, _at: &ViewAt<VCtx>) -> Acc {
        let uv = self.union_view_of(id);
        Acc {
            ty: format!("{uv} | null"),
            pre: Vec::new(),
            zero: "null".into(),
            body: vec![
                format!(
                    "const u = new {uv}({R}, $at, {});",
                    plus("$at", UNION_OFFSET_AT)
                ),
                "return u.tag == 0 ? null : u;".into(),
            ],
            expr: None,
            edit: None,
        }
    }

    // A fixed array is a view of its N elements in place; absent, N zeros.
    fn view_fixed(&self, elem: FixedElem, len: u32, stride: u32, _at: &ViewAt<VCtx>) -> Acc {
        let make = match elem {
            FixedElem::Scalar(Primitive::Bool) => format!("new _KmBools<R>({R}, $at, {len})"),
            FixedElem::Scalar(p) => {
                format!(
                    "new _KmNumbers<R, {}, {}>({R}, $at, {len})",
                    prim(p),
                    prim(p)
                )
            }
            FixedElem::Enum { id, repr } => format!(
                "new _KmNumbers<R, {}, {}>({R}, $at, {len})",
                prim(repr),
                self.enum_type(id)
            ),
            FixedElem::InlineStruct(id) => format!(
                "new _KmInlines<R, {}>({R}, $at, {len}, {stride})",
                self.view_of(id)
            ),
        };
        let ty = make
            .trim_start_matches("new ")
            .split('(')
            .next()
            .unwrap_or_default()
            .to_string();
        Acc {
            ty,
            pre: Vec::new(),
            zero: make.replace("$at", "0"),
            body: vec![format!("return {make};")],
            expr: None,
            edit: None,
        }
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        at: &ViewAt<VCtx>,
    ) -> Acc {
        let view = view_array(self, array, data, &());
        Acc {
            ty: view.ty.clone(),
            pre: Vec::new(),
            // Absent text reads as its declared default.
            zero: self.zero_or_default(at, view.zero()),
            body: vec![
                format!("const r = {R};"),
                format!("r.array($at, {es}, {});", limit_arg(limit)),
                format!("return {};", view.make("r.aOff", "r.aLen", "r.aCap")),
            ],
            expr: None,
            edit: view.plain.clone().map(|(w, ty)| AEdit::Plain {
                w,
                ty,
                elem_size: es,
                limit,
            }),
        }
    }

    fn view_text(&self, utf16: bool, _: &()) -> AView {
        let f = if utf16 { "utf16String" } else { "utf8String" };
        AView {
            ty: "string".into(),
            make: format!("{R}.{f}($o, $l)"),
            text: Some(utf16),
            plain: None,
        }
    }

    fn view_plain(&self, elem: ElemType, _size: u32, _: &()) -> AView {
        let (ty, plain) = match elem {
            ElemType::Scalar(Primitive::Bool) => ("_KmBools<R>".to_string(), ("u8", "bool".into())),
            ElemType::Scalar(p) => (
                format!("_KmNumbers<R, {}, {}>", prim(p), prim(p)),
                (prim(p), prim(p).to_string()),
            ),
            ElemType::Enum(id) => {
                let w = prim(self.s.enums[id].repr);
                let t = self.enum_type(id);
                (format!("_KmNumbers<R, {w}, {t}>"), (w, t))
            }
            _ => unreachable!("plain arrays hold numbers and enums"),
        };
        AView {
            make: format!("new {ty}({R}, $o, <i32>$l)"),
            ty,
            text: None,
            plain: Some(plain),
        }
    }

    fn view_nested(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        _: &(),
    ) -> AView {
        let inner = view_array(self, array, data, &());
        let limit = limit_arg(limit);
        if let Some(utf16) = inner.text {
            return AView {
                ty: "_KmTexts<R>".into(),
                make: format!("new _KmTexts<R>({R}, $o, <i32>$l, {es}, {limit}, {utf16})"),
                text: None,
                plain: None,
            };
        }
        let ty = format!("_KmNested<R, {}>", inner.ty);
        AView {
            make: format!(
                "new {ty}({R}, $o, <i32>$l, {es}, {limit}, {})",
                inner.make("0", "0", "0")
            ),
            ty,
            text: None,
            plain: None,
        }
    }

    fn view_aos_inline(&self, id: StructId, stride: u32, _: &()) -> AView {
        let ty = format!("_KmInlines<R, {}>", self.view_of(id));
        AView {
            make: format!("new {ty}({R}, $o, <i32>$l, {stride})"),
            ty,
            text: None,
            plain: None,
        }
    }

    // A map's view is the view of its entries, in key order.
    fn view_map(&self, id: StructId, stride: u32, arg: &()) -> AView {
        self.view_aos_inline(id, stride, arg)
    }

    fn view_aos_table(&self, id: StructId, _: &()) -> AView {
        let ty = format!("_KmTables<R, {}>", self.view_of(id));
        AView {
            make: format!("new {ty}({R}, $o, <i32>$l)"),
            ty,
            text: None,
            plain: None,
        }
    }

    fn view_soa(&self, elem: StructId, _: &()) -> AView {
        let ty = format!("_KmSoa<R, {}>", self.view_of(elem));
        AView {
            make: format!(
                "new {ty}({R}, $o, <i32>$l, $c, _kmViewCols{})",
                self.n.struct_name(elem)
            ),
            ty,
            text: None,
            plain: None,
        }
    }

    fn view_union_aos(&self, id: UnionId, _: &()) -> AView {
        let ty = format!("_KmUnions<R, {}>", self.union_view_of(id));
        AView {
            make: format!("new {ty}({R}, $o, 8, $o + 4, 8, <i32>$l)"),
            ty,
            text: None,
            plain: None,
        }
    }

    fn view_union_soa(&self, id: UnionId, tag_size: u32, _: &()) -> AView {
        let ty = format!("_KmUnionColumns<R, {}>", self.union_view_of(id));
        AView {
            make: format!("new {ty}({R}, {tag_size}, $o, $l, $c)"),
            ty,
            text: None,
            plain: None,
        }
    }

    fn view_bunch(&self, id: UnionId, soa: bool, _: &()) -> AView {
        let ty = format!(
            "{}{}View<R>",
            self.n.union_name(id),
            if soa { "Bovos" } else { "Bovoa" }
        );
        AView {
            make: format!("new {ty}({R}, $o, $c)"),
            ty,
            text: None,
            plain: None,
        }
    }
}

//! One-pass validators (format.md §11): `validate` per struct, and the
//! per-table, per-inline-struct, per-SoA and per-union checks they call,
//! printed from the layout's `SlotCheck` plans: the same checks and the
//! same traversal-budget charges as the Zig and Go validators, so they
//! accept exactly the same messages.

use karmem_layout::{
    ArrayData, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{elem_at, limit_arg, place, plus, prim, tr, when_present, Code, Gen};
use crate::walk::Ctx;

impl Gen<'_> {
    pub(crate) fn validate_functions(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.is_table(id);
        let c = &mut self.c;
        c.line("");
        c.line("/** Checks the message of `length` bytes at `ptr` (docs/format.md §11). */");
        c.open("static validate(ptr: usize, length: usize): KarmemError {");
        c.line(&format!(
            "return {name}.validateWith(new Validator(), ptr, length);"
        ));
        c.close("}");
        c.line("");
        c.line("/** `validate` with the caller's Validator, which keeps the place of a fault (`faultOffset`, `faultValue`). */");
        c.open("static validateWith(v: Validator, ptr: usize, length: usize): KarmemError {");
        c.line("const e = v.open(ptr, length);");
        c.line("if (e != KarmemError.None) return e;");
        c.line(&format!("return {name}._kmValidateRoot(v);"));
        c.close("}");

        let mut body = Code::new(self.c.indent + 1);
        if table {
            body.line(&format!("return {name}._kmValidateTable(v, 8);"));
        } else {
            let needed = 8 + sl.size as u64;
            body.line(&format!(
                "if (<u64>v.size < {needed}) return v.fail(KarmemError.Truncated, 0, {needed});"
            ));
            body.line(&format!("return {name}._kmValidateAt(v, 8);"));
        }
        self.function(
            "static _kmValidateRoot(v: Validator): KarmemError {",
            body,
            "",
        );

        let mut body = Code::new(self.c.indent + 1);
        if table {
            // At least the table's full size `S` (format.md §10).
            body.line(&tr(&format!("v.checkTable(offset, {})", sl.size)));
            body.line("const to = v.tOff;");
            body.line("const tu = v.tUsed;");
            body.line(&tr("v.enter()"));
        }
        for f in &sl.fields {
            let ctx = if table {
                Ctx::Table { off: f.offset }
            } else {
                Ctx::Pos {
                    pos: plus("at", f.offset),
                    present: None,
                }
            };
            self.validate_slot(&mut body, &f.slot, &ctx);
        }
        if table {
            body.line("v.leave();");
        }
        let sig = if table {
            "static _kmValidateTable(v: Validator, offset: u32): KarmemError {"
        } else {
            "static _kmValidateAt(v: Validator, at: u32): KarmemError {"
        };
        self.function(sig, body, "return KarmemError.None;");
    }

    pub(crate) fn validate_slot(&self, c: &mut Code, slot: &Slot, ctx: &Ctx) {
        let size = self.l.slot_size(slot);
        let (pos, present) = place(ctx, size);
        // A field past its table's `used` is charged what a decoder builds
        // for it beyond the table's bytes: the tables of its zero value
        // (format.md §10).
        let held = ctx.absent_charge(self.l, slot);
        let when = |c: &mut Code, stmt: &str| when_present(c, present.as_deref(), stmt, held);
        match self.l.slot_check(slot) {
            SlotCheck::Nothing => {}
            SlotCheck::Bool => when(c, &tr(&format!("v.boolAt({pos})"))),
            SlotCheck::Inline(id) => when(
                c,
                &tr(&format!("{}._kmValidateAt(v, {pos})", self.struct_name(id))),
            ),
            SlotCheck::Table(id) => when(
                c,
                &tr(&format!(
                    "{}._kmValidateTable(v, v.ld<u32>({pos}))",
                    self.struct_name(id)
                )),
            ),
            SlotCheck::OptionalTable(id) => {
                let o = self.fresh("offset");
                match &present {
                    Some(cond) => c.open(&format!("if ({cond}) {{")),
                    None => c.open("{"),
                }
                c.line(&format!("const {o} = v.ld<u32>({pos});"));
                c.line(&format!(
                    "if ({o} != 0) {}",
                    tr(&format!(
                        "{}._kmValidateTable(v, {o})",
                        self.struct_name(id)
                    ))
                ));
                c.close("}");
            }
            // The presence byte is 0 or 1 (format.md §4.2); the value is
            // checked only when there is one.
            SlotCheck::Optional { value_at, value } => {
                match &present {
                    Some(cond) => c.open(&format!("if ({cond}) {{")),
                    None => c.open("{"),
                }
                c.line(&tr(&format!("v.boolAt({pos})")));
                let mut inner = Code::new(c.indent + 1);
                let at = Ctx::Pos {
                    pos: plus(&pos, value_at),
                    present: None,
                };
                self.validate_slot(&mut inner, value, &at);
                if !inner.out.is_empty() {
                    c.open(&format!("if (v.ldBool({pos})) {{"));
                    c.raw(&inner.into_text());
                    c.close("}");
                }
                c.close("}");
            }
            SlotCheck::Union(id) => when(
                c,
                &tr(&format!(
                    "_kmValidate{}(v, {pos}, {})",
                    self.union_name(id),
                    plus(&pos, UNION_OFFSET_AT)
                )),
            ),
            SlotCheck::Bools { len } => when(c, &tr(&format!("v.bools({pos}, {len})"))),
            SlotCheck::InlineEach { id, len, stride } => {
                let j = self.fresh("j");
                when(
                    c,
                    &format!(
                        "for (let {j}: u32 = 0; {j} < {len}; {j}++) {}",
                        tr(&format!(
                            "{}._kmValidateAt(v, {})",
                            self.struct_name(id),
                            elem_at(&pos, &j, stride)
                        ))
                    ),
                )
            }
            SlotCheck::Array {
                array,
                data,
                elem_size: es,
                limit,
            } => {
                let limit = limit_arg(limit);
                let a = self.fresh("a");
                let call = match ctx {
                    Ctx::Table { off } => {
                        format!("v.checkFieldArray(to, tu, {off}, {es}, {limit})")
                    }
                    Ctx::Pos { .. } => format!("v.checkArray({pos}, {es}, {limit})"),
                };
                // A table's array field is checked through checkFieldArray
                // (absent is valid); a positioned one only when present.
                match (ctx, &present) {
                    (Ctx::Pos { .. }, Some(cond)) => c.open(&format!("if ({cond}) {{")),
                    _ => c.open("{"),
                }
                c.line(&tr(&call));
                let mut inner = Code::new(c.indent);
                self.validate_array(&mut inner, array, data, &a);
                let text = inner.into_text();
                if !text.is_empty() {
                    c.line(&format!("const {a}o = v.aOff;"));
                    c.line(&format!("const {a}l = v.aLen;"));
                    c.line(&format!("const {a}c = v.aCap;"));
                    c.raw(&text);
                }
                c.close("}");
            }
        }
    }

    fn validate_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, a: &str) {
        let (ao, al, ac) = (format!("{a}o"), format!("{a}l"), format!("{a}c"));
        match (array.text, data) {
            // Each element is an array reference, checked as a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let (k, a2) = (self.fresh("k"), self.fresh("a"));
                c.open(&format!("for (let {k}: u32 = 0; {k} < {al}; {k}++) {{"));
                c.line(&tr(&format!(
                    "v.checkArray({}, {}, {})",
                    elem_at(&ao, &k, ARRAY_REF_SIZE),
                    data.elem_size(),
                    limit_arg(inner.limit())
                )));
                let mut each = Code::new(c.indent);
                self.validate_array(&mut each, inner, data, &a2);
                let text = each.into_text();
                if !text.is_empty() {
                    c.line(&format!("const {a2}o = v.aOff;"));
                    c.line(&format!("const {a2}l = v.aLen;"));
                    c.line(&format!("const {a2}c = v.aCap;"));
                    c.raw(&text);
                }
                c.close("}");
            }
            (Some(Text::Utf8), _) => c.line(&tr(&format!("v.utf8({ao}, {al})"))),
            (Some(Text::Utf16), _) => c.line(&tr(&format!("v.utf16({ao}, {al})"))),
            (None, ArrayData::Plain { .. }) => {
                if array.elem == ElemType::Scalar(Primitive::Bool) {
                    c.line(&tr(&format!("v.bools({ao}, {al})")));
                }
            }
            (None, ArrayData::UnionAos { id, .. }) => {
                let i = self.fresh("i");
                let at = elem_at(&ao, &i, UNION_SLOT_SIZE);
                c.line(&format!(
                    "for (let {i}: u32 = 0; {i} < {al}; {i}++) {}",
                    tr(&format!(
                        "_kmValidate{}(v, {at}, {})",
                        self.union_name(*id),
                        plus(&at, UNION_OFFSET_AT)
                    ))
                ));
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                let i = self.fresh("i");
                c.line(&tr(&format!("v.checkUnionColumns({ao}, {ac}, {tw})")));
                c.open(&format!("if ({ac} != 0) {{"));
                c.line(&format!("const {a}t = v.uTags;"));
                c.line(&format!("const {a}f = v.uOffs;"));
                c.line(&format!(
                    "for (let {i}: u32 = 0; {i} < {al}; {i}++) {}",
                    tr(&format!(
                        "_kmValidate{}(v, {}, {})",
                        self.union_name(*id),
                        elem_at(&format!("{a}t"), &i, tw),
                        elem_at(&format!("{a}f"), &i, OFFSET_SIZE)
                    ))
                ));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { id, variants, .. }) => {
                let (n, x, entry) = (self.fresh("n"), self.fresh("x"), self.fresh("entry"));
                c.line(&tr(&format!(
                    "v.bunch({ao}, {al}, {ac}, _kmTags{})",
                    self.union_name(*id)
                )));
                c.line(&format!("const {n} = v.bunchCount;"));
                c.open(&format!("for (let {x}: u32 = 1; {x} <= {n}; {x}++) {{"));
                c.line(&format!("const {entry} = {ao} + {BUNCH_ENTRY_SIZE} * {x};"));
                c.open(&format!("switch (v.ld<u32>({entry})) {{"));
                for bv in variants {
                    let es = bv.data.elem_size();
                    let sub = self.fresh("a");
                    c.open(&format!("case {}: {{", bv.tag));
                    c.line(&tr(&format!(
                        "v.checkArray({entry} + {BUNCH_ENTRY_ARRAY_AT}, {es}, NO_LIMIT)"
                    )));
                    let mut inner = Code::new(c.indent);
                    self.validate_struct_array(&mut inner, &bv.data, &sub);
                    let text = inner.into_text();
                    if !text.is_empty() {
                        c.line(&format!("const {sub}o = v.aOff;"));
                        c.line(&format!("const {sub}l = v.aLen;"));
                        c.line(&format!("const {sub}c = v.aCap;"));
                        c.raw(&text);
                    }
                    c.line("break;");
                    c.close("}");
                }
                c.close("}");
                c.close("}");
            }
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.validate_struct_array(c, data, a);
                // The look-up's binary search relies on the order
                // (format.md §5.5): keys strictly increasing.
                let key = &self.l.of_struct(*id).fields[0];
                let k = self.fresh("k");
                let at = |i: &str| plus(&elem_at(&ao, i, *stride), key.offset);
                let prev = format!("{k} - 1");
                let unordered = match &key.slot {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => format!(
                        "v.ld<{}>({}) >= v.ld<{}>({})",
                        prim(*p),
                        at(&prev),
                        prim(*p),
                        at(&k)
                    ),
                    // Text keys in byte order.
                    _ => format!("v.textOrder({}, {}) >= 0", at(&prev), at(&k)),
                };
                c.line(&format!(
                    "for (let {k}: u32 = 1; {k} < {al}; {k}++) if ({unordered}) return v.fail(KarmemError.MalformedArray, {ao}, 0);"
                ));
            }
            (None, data) => self.validate_struct_array(c, data, a),
        }
    }

    fn validate_struct_array(&self, c: &mut Code, data: &ArrayData, a: &str) {
        let i = self.fresh("i");
        let (ao, al, ac) = (format!("{a}o"), format!("{a}l"), format!("{a}c"));
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    c.line(&format!(
                        "for (let {i}: u32 = 0; {i} < {al}; {i}++) {}",
                        tr(&format!(
                            "{}._kmValidateAt(v, {})",
                            self.struct_name(*id),
                            elem_at(&ao, &i, *stride)
                        ))
                    ));
                }
            }
            ArrayData::AosTable { id } => c.line(&format!(
                "for (let {i}: u32 = 0; {i} < {al}; {i}++) {}",
                tr(&format!(
                    "{}._kmValidateTable(v, v.ld<u32>({}))",
                    self.struct_name(*id),
                    elem_at(&ao, &i, OFFSET_SIZE)
                ))
            )),
            ArrayData::Soa { elem } => c.line(&tr(&format!(
                "_kmValidateSoa{}(v, {ao}, {al}, {ac})",
                self.struct_name(*elem)
            ))),
            _ => unreachable!("only struct arrays here"),
        }
    }

    /// `_kmValidateSoa<T>`: the directory, then each column's checks for
    /// every element (`cols[k]` is 0 when the writer did not write it).
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = Code::new(1);
        body.line(&format!(
            "const cols = new StaticArray<u32>({});",
            soa.columns.len()
        ));
        body.line(&tr(&format!("v.soa(ao, ac, _kmCols{name}, cols)")));
        // What a decoder builds for a column the directory does not list,
        // beyond its width, per element of the capacity.
        self.charge_unlisted(&mut body, id, "ac");
        for (k, col) in soa.columns.iter().enumerate() {
            let i = self.fresh("i");
            let ctx = Ctx::Pos {
                pos: elem_at(&format!("unchecked(cols[{k}])"), &i, col.size),
                present: None,
            };
            let mut each = Code::new(body.indent + 2);
            self.validate_slot(&mut each, &col.slot, &ctx);
            if each.out.is_empty() {
                continue;
            }
            body.open(&format!("if (unchecked(cols[{k}]) != 0) {{"));
            body.open(&format!("for (let {i}: u32 = 0; {i} < al; {i}++) {{"));
            body.raw(&each.into_text());
            body.close("}");
            body.close("}");
        }
        self.function(
            &format!(
                "function _kmValidateSoa{name}(v: Validator, ao: u32, al: u32, ac: u32): KarmemError {{"
            ),
            body,
            "return KarmemError.None;",
        );
    }

    pub(crate) fn union_validator(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.union_name(id);
        let tags: Vec<String> = u.variants.iter().map(|v| v.tag.to_string()).collect();
        self.c.line("");
        self.c.line(&format!(
            "const _kmTags{name}: StaticArray<u32> = [{}];",
            tags.join(", ")
        ));
        let mut b = Code::new(1);
        b.line(&format!("const tag = <u32>v.ld<{}>(tagAt);", prim(u.tag)));
        b.line("const offset = v.ld<u32>(offsetAt);");
        b.open("switch (tag) {");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            b.open(&format!("case {}: {{", var.tag));
            if self.is_table(var.ty) {
                b.line("if (offset == 0) return v.fail(KarmemError.InvalidUnion, tagAt, tag);");
                b.line(&tr(&format!("{ty}._kmValidateTable(v, offset)")));
            } else {
                let size = self.l.of_struct(var.ty).size;
                b.line(&format!(
                    "if (!v.inlineAt(offset, {size})) return v.fail(KarmemError.InvalidUnion, tagAt, tag);"
                ));
                b.line(&tr(&format!("v.charge({size})")));
                b.line(&tr(&format!("{ty}._kmValidateAt(v, offset)")));
            }
            b.line("break;");
            b.close("}");
        }
        // 0 is "no value"; unknown tags come from newer writers and are
        // never dereferenced.
        b.close("}");
        self.function(
            &format!(
                "function _kmValidate{name}(v: Validator, tagAt: u32, offsetAt: u32): KarmemError {{"
            ),
            b,
            "return KarmemError.None;",
        );
    }
}

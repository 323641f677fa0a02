//! One-pass validators (format.md §11): `validate` per struct, and the
//! per-table, per-inline-struct, per-SoA and per-union checks they call,
//! printed from the layout's `SlotCheck` plans: the same checks and the
//! same traversal-budget charges as the Zig and Go validators, so they
//! accept exactly the same messages.

use karmem_layout::{
    ArrayData, BunchVariant, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{elem_at, limit_arg, plus, prim, when_present, Code, Gen};
use crate::walk::{
    validate_array, validate_array_of, validate_slot, Ctx, Here, SlotPrinter, ValidatePrinter,
};

impl Gen<'_> {
    pub(crate) fn validate_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
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
            body.try_line(&format!("v.checkTable(offset, {})", sl.size));
            body.line("const to = v.tOff;");
            body.line("const tu = v.tUsed;");
            body.try_line("v.enter()");
        }
        for f in &self.l.struct_plan(self.s, id).fields {
            validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
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
}

/// AssemblyScript prints the validator's plan (crate::walk): each node
/// below is one kind of check.
impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Code, at: &Here) {
        let stmt = c.tr(&format!("v.boolAt({})", at.pos));
        when(c, at, &stmt);
    }

    fn inline(&self, c: &mut Code, id: StructId, at: &Here) {
        let call = format!("{}._kmValidateAt(v, {})", self.n.struct_name(id), at.pos);
        let stmt = c.tr(&call);
        when(c, at, &stmt);
    }

    fn table(&self, c: &mut Code, id: StructId, at: &Here) {
        let call = format!(
            "{}._kmValidateTable(v, v.ld<u32>({}))",
            self.n.struct_name(id),
            at.pos
        );
        let stmt = c.tr(&call);
        when(c, at, &stmt);
    }

    fn optional_table(&self, c: &mut Code, id: StructId, at: &Here) {
        let o = self.fresh("offset");
        open_when(c, at.present.as_deref());
        c.line(&format!("const {o} = v.ld<u32>({});", at.pos));
        let each = c.tr(&format!(
            "{}._kmValidateTable(v, {o})",
            self.n.struct_name(id)
        ));
        c.line(&format!("if ({o} != 0) {}", each));
        c.close("}");
    }

    // The presence byte is 0 or 1 (format.md §4.2); the value is checked
    // only when there is one.
    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        let pos = &at.pos;
        open_when(c, at.present.as_deref());
        c.try_line(&format!("v.boolAt({pos})"));
        if checked {
            c.open(&format!("if (v.ldBool({pos})) {{"));
            let inner = Ctx::Pos {
                pos: plus(pos, value_at),
                present: None,
            };
            validate_slot(self, c, value, &inner);
            c.close("}");
        }
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, at: &Here) {
        let call = format!(
            "_kmValidate{}(v, {}, {})",
            self.n.union_name(id),
            at.pos,
            plus(&at.pos, UNION_OFFSET_AT)
        );
        let stmt = c.tr(&call);
        when(c, at, &stmt);
    }

    fn bools(&self, c: &mut Code, len: u32, at: &Here) {
        let stmt = c.tr(&format!("v.bools({}, {len})", at.pos));
        when(c, at, &stmt);
    }

    fn inline_each(&self, c: &mut Code, id: StructId, len: u32, stride: u32, at: &Here) {
        let j = self.fresh("j");
        let each = c.tr(&format!(
            "{}._kmValidateAt(v, {})",
            self.n.struct_name(id),
            elem_at(&at.pos, &j, stride)
        ));
        when(
            c,
            at,
            &format!("for (let {j}: u32 = 0; {j} < {len}; {j}++) {each}"),
        );
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        each: bool,
        at: &Here,
    ) {
        let limit = limit_arg(limit);
        let a = self.fresh("a");
        let call = match at.ctx {
            Ctx::Table { off } => format!("v.checkFieldArray(to, tu, {off}, {es}, {limit})"),
            Ctx::Pos { .. } => format!("v.checkArray({}, {es}, {limit})", at.pos),
        };
        // A table's array field is checked through checkFieldArray (absent
        // is valid); a positioned one only when present.
        match at.ctx {
            Ctx::Pos { .. } => open_when(c, at.present.as_deref()),
            Ctx::Table { .. } => c.open("{"),
        }
        c.try_line(&call);
        let mut inner = Code::new(c.indent);
        validate_array(self, &mut inner, array, data, &a);
        if each {
            load_array(c, &a);
            c.splice(&inner);
        }
        c.close("}");
    }

    // Each element is an array reference, checked as a field's.
    fn nested(
        &self,
        c: &mut Code,
        inner: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let (k, a2) = (self.fresh("k"), self.fresh("a"));
        c.open(&format!("for (let {k}: u32 = 0; {k} < {a}l; {k}++) {{"));
        c.try_line(&format!(
            "v.checkArray({}, {elem_size}, {})",
            elem_at(&format!("{a}o"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        ));
        let mut checks = Code::new(c.indent);
        validate_array(self, &mut checks, inner, data, &a2);
        if each {
            load_array(c, &a2);
            c.splice(&checks);
        }
        c.close("}");
    }

    fn text(&self, c: &mut Code, utf16: bool, a: &str) {
        let f = if utf16 { "utf16" } else { "utf8" };
        c.try_line(&format!("v.{f}({a}o, {a}l)"));
    }

    fn bool_block(&self, c: &mut Code, a: &str) {
        c.try_line(&format!("v.bools({a}o, {a}l)"));
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, a: &str) {
        let i = self.fresh("i");
        let at = elem_at(&format!("{a}o"), &i, UNION_SLOT_SIZE);
        let each = c.tr(&format!(
            "_kmValidate{}(v, {at}, {})",
            self.n.union_name(id),
            plus(&at, UNION_OFFSET_AT)
        ));
        c.line(&format!(
            "for (let {i}: u32 = 0; {i} < {a}l; {i}++) {}",
            each
        ));
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, a: &str) {
        let i = self.fresh("i");
        c.try_line(&format!("v.checkUnionColumns({a}o, {a}c, {tw})"));
        c.open(&format!("if ({a}c != 0) {{"));
        c.line(&format!("const {a}t = v.uTags;"));
        c.line(&format!("const {a}f = v.uOffs;"));
        let each = c.tr(&format!(
            "_kmValidate{}(v, {}, {})",
            self.n.union_name(id),
            elem_at(&format!("{a}t"), &i, tw),
            elem_at(&format!("{a}f"), &i, OFFSET_SIZE)
        ));
        c.line(&format!(
            "for (let {i}: u32 = 0; {i} < {a}l; {i}++) {}",
            each
        ));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, variants: &[BunchVariant], a: &str) {
        let (ao, al, ac) = (format!("{a}o"), format!("{a}l"), format!("{a}c"));
        let (n, x, entry) = (self.fresh("n"), self.fresh("x"), self.fresh("entry"));
        c.try_line(&format!(
            "v.bunch({ao}, {al}, {ac}, _kmTags{})",
            self.n.union_name(id)
        ));
        c.line(&format!("const {n} = v.bunchCount;"));
        c.open(&format!("for (let {x}: u32 = 1; {x} <= {n}; {x}++) {{"));
        c.line(&format!("const {entry} = {ao} + {BUNCH_ENTRY_SIZE} * {x};"));
        c.open(&format!("switch (v.ld<u32>({entry})) {{"));
        for bv in variants {
            let es = bv.data.elem_size();
            let sub = self.fresh("a");
            c.open(&format!("case {}: {{", bv.tag));
            c.try_line(&format!(
                "v.checkArray({entry} + {BUNCH_ENTRY_ARRAY_AT}, {es}, NO_LIMIT)"
            ));
            let check = self.l.struct_array_check(&bv.data);
            let mut inner = Code::new(c.indent);
            validate_array_of(self, &mut inner, check, &sub);
            if !check.is_nothing() {
                load_array(c, &sub);
                c.splice(&inner);
            }
            c.line("break;");
            c.close("}");
        }
        c.close("}");
        c.close("}");
    }

    fn map(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        ValidatePrinter::aos_inline(self, c, id, stride, each, a);
        // The look-up's binary search relies on the order (format.md
        // §5.5): keys strictly increasing.
        let (ao, al) = (format!("{a}o"), format!("{a}l"));
        let key = &self.l.of_struct(id).fields[0];
        let k = self.fresh("k");
        let at = |i: &str| plus(&elem_at(&ao, i, stride), key.offset);
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

    fn aos_inline(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        let i = self.fresh("i");
        if each {
            let each = c.tr(&format!(
                "{}._kmValidateAt(v, {})",
                self.n.struct_name(id),
                elem_at(&format!("{a}o"), &i, stride)
            ));
            c.line(&format!(
                "for (let {i}: u32 = 0; {i} < {a}l; {i}++) {}",
                each
            ));
        }
    }

    fn aos_table(&self, c: &mut Code, id: StructId, a: &str) {
        let i = self.fresh("i");
        let each = c.tr(&format!(
            "{}._kmValidateTable(v, v.ld<u32>({}))",
            self.n.struct_name(id),
            elem_at(&format!("{a}o"), &i, OFFSET_SIZE)
        ));
        c.line(&format!(
            "for (let {i}: u32 = 0; {i} < {a}l; {i}++) {}",
            each
        ));
    }

    fn soa(&self, c: &mut Code, elem: StructId, a: &str) {
        self.fresh("i");
        c.try_line(&format!(
            "_kmValidateSoa{}(v, {a}o, {a}l, {a}c)",
            self.n.struct_name(elem)
        ));
    }
}

/// `stmt` when the slot is present; a field past its table's `used` is
/// charged what a decoder builds for it beyond the table's bytes: the
/// tables of its zero value (format.md §10).
fn when(c: &mut Code, at: &Here, stmt: &str) {
    when_present(c, at.present.as_deref(), stmt, at.held);
}

/// Opens a block run when `cond` holds (a plain block when it is `None`).
fn open_when(c: &mut Code, cond: Option<&str>) {
    match cond {
        Some(cond) => c.open(&format!("if ({cond}) {{")),
        None => c.open("{"),
    }
}

/// The checked array reference's offset, length and capacity, as the
/// locals `{a}o`, `{a}l`, `{a}c` the block's checks use.
fn load_array(c: &mut Code, a: &str) {
    c.line(&format!("const {a}o = v.aOff;"));
    c.line(&format!("const {a}l = v.aLen;"));
    c.line(&format!("const {a}c = v.aCap;"));
}

impl Gen<'_> {
    /// `_kmValidateSoa<T>`: the directory, then each column's checks for
    /// every element (`cols[k]` is 0 when the writer did not write it).
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = Code::new(1);
        body.line(&format!(
            "const cols = new StaticArray<u32>({});",
            soa.columns.len()
        ));
        body.try_line(&format!("v.soa(ao, ac, _kmCols{name}, cols)"));
        // What a decoder builds for a column the directory does not list,
        // beyond its width, per element of the capacity.
        self.charge_unlisted(&mut body, id, "ac");
        for (k, col) in soa.columns.iter().enumerate() {
            let i = self.fresh("i");
            let ctx = Ctx::Pos {
                pos: elem_at(&format!("unchecked(cols[{k}])"), &i, col.size),
                present: None,
            };
            if self.l.slot_check(&col.slot) == SlotCheck::Nothing {
                continue;
            }
            let mut each = Code::new(body.indent + 2);
            validate_slot(self, &mut each, &col.slot, &ctx);
            body.open(&format!("if (unchecked(cols[{k}]) != 0) {{"));
            body.open(&format!("for (let {i}: u32 = 0; {i} < al; {i}++) {{"));
            body.splice(&each);
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
        let name = self.n.union_name(id);
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
            let ty = self.n.struct_name(var.ty);
            b.open(&format!("case {}: {{", var.tag));
            if self.l.is_table(var.ty) {
                b.line("if (offset == 0) return v.fail(KarmemError.InvalidUnion, tagAt, tag);");
                b.try_line(&format!("{ty}._kmValidateTable(v, offset)"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                b.line(&format!(
                    "if (!v.inlineAt(offset, {size})) return v.fail(KarmemError.InvalidUnion, tagAt, tag);"
                ));
                b.try_line(&format!("v.charge({size})"));
                b.try_line(&format!("{ty}._kmValidateAt(v, offset)"));
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

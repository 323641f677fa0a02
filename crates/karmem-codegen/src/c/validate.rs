//! One-pass validators (format.md §11): `<type>_validate` and the static
//! checks it calls, sequences of the library's `km_check_*` calls. The
//! plan of each slot is the layout's ([`karmem_layout::SlotCheck`]); the
//! charges are those of the Go validators (SoA columns are checked element
//! by element here, which charges the same units, format.md §11). The
//! slots and array blocks are walked by [`crate::walk`]; `Gen` is its
//! [`ValidatePrinter`].

use karmem_layout::{
    Access, ArrayData, BunchVariant, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, HEADER_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::encode::{add, plus};
use super::{limit_expr, u64_literal, union_column_at, Code, Gen};
use crate::walk::{self, Ctx, Here, SlotPrinter, ValidatePrinter};

impl Gen<'_> {
    pub(crate) fn validate_struct(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id);
        let table = self.l.is_table(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "km_status {name}_validate(const km_reader *r, km_error *err) {{"
        ));
        c.line("km_validator v;");
        c.line("km_status s;");
        c.line("km_validator_init(&v, r);");
        if table {
            c.line("km_table t;");
            c.line(&format!(
                "s = km_check_root(&v, {}, &t);",
                self.full_size(id)
            ));
            c.open("if (s == KM_OK) {");
            c.line(&format!("s = {name}_check_table(&v, t);"));
            c.close("}");
        } else {
            let needed = HEADER_SIZE as u64 + sl.size as u64;
            c.open("if (r->status != KM_OK) {");
            c.line("s = km_fail(&v, r->status, 0, 0);");
            c.reopen(&format!("}} else if ((uint64_t)r->size < {needed}u) {{"));
            c.line(&format!("s = km_fail(&v, KM_ERR_TRUNCATED, 0, {needed}u);"));
            c.reopen("} else {");
            c.line(&format!("s = {name}_check_at(&v, {HEADER_SIZE}u);"));
            c.close("}");
        }
        c.open("if (err != NULL) {");
        c.line("*err = v.error;");
        c.close("}");
        c.line("return s;");
        c.close("}");
        c.line("");

        let mut body = Code::new(1);
        for f in &self.l.struct_plan(self.s, id).fields {
            walk::validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
        }
        let sig = if table {
            format!("static km_status {name}_check_table(km_validator *v, km_table t)")
        } else {
            format!("static km_status {name}_check_at(km_validator *v, uint32_t at)")
        };
        decls.line(&format!("{sig};"));
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line("(void)r;");
        if table {
            c.line("(void)t;");
            c.try_("km_enter(v)");
        } else {
            c.line("(void)at;");
        }
        c.append(body);
        if table {
            c.line("km_leave(v);");
        }
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    pub(crate) fn validate_soa(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let plan = self.l.soa_plan(self.s, id);
        let name = self.n.struct_name(id);
        let n = plan.columns.len();
        let sig = format!("static km_status {name}_check_soa(km_validator *v, km_array a)");
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line(&format!("uint32_t cols[{}];", n.max(1)));
        c.line("(void)r;");
        c.try_(&format!("km_check_soa(v, a, {name}_columns, {n}u, cols)"));
        // What a decoder builds for a column the directory does not list,
        // beyond its width: as the decoder charges it, per element of the
        // capacity (format.md §10).
        self.charge_unlisted(&mut c, &plan.unlisted, "a.cap");
        for col in &plan.columns {
            // Checked element by element, where the directory lists it.
            if self.l.slot_check(col.slot) == SlotCheck::Nothing {
                continue;
            }
            let Access::Column { k, stride } = col.access else {
                unreachable!("an SoA element's fields are columns")
            };
            let ctx = Ctx::Pos {
                pos: plus(&format!("cols[{k}]"), "i", stride),
                present: None,
            };
            c.open(&format!("if (cols[{k}] != 0) {{"));
            c.open("for (uint32_t i = 0; i < a.len; i++) {");
            walk::validate_slot(self, &mut c, col.slot, &ctx);
            c.close("}");
            c.close("}");
        }
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    pub(crate) fn validate_union(&self, decls: &mut Code, defs: &mut Code, id: UnionId) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let sig = format!(
            "static km_status {name}_check(km_validator *v, uint32_t tag_at, uint32_t offset_at)"
        );
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line(&format!(
            "uint32_t tag = km_read_{}(r, tag_at);",
            u.tag.name()
        ));
        c.line("uint32_t offset = km_read_u32(r, offset_at);");
        c.line("(void)offset;");
        c.line("switch (tag) {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            c.open(&format!("case {}u: {{", var.tag));
            if self.l.is_table(var.ty) {
                c.line("km_table t;");
                c.open("if (offset == 0) {");
                c.line("return km_fail(v, KM_ERR_INVALID_UNION, tag_at, tag);");
                c.close("}");
                c.try_(&format!(
                    "km_check_table(v, offset, {}, &t)",
                    self.full_size(var.ty)
                ));
                c.line(&format!("return {ty}_check_table(v, t);"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                c.open(&format!("if (!km_inline_at(r, offset, {size}u)) {{"));
                c.line("return km_fail(v, KM_ERR_INVALID_UNION, tag_at, tag);");
                c.close("}");
                c.try_(&format!("km_charge(v, {size}u)"));
                c.line(&format!("return {ty}_check_at(v, offset);"));
            }
            c.close("}");
        }
        c.line("default:");
        c.line("    /* 0 is no value; unknown tags come from newer writers and are");
        c.line("     * never dereferenced. */");
        c.line("    return KM_OK;");
        c.line("}");
        c.close("}");
        c.line("");
        defs.append(c);
    }
}

impl Gen<'_> {
    /// `body` only when the slot `at` is present, in a block either way;
    /// when absent, the charge of what a decoder builds for it beyond its
    /// table's bytes: the tables of its zero value (format.md §10).
    fn when(&self, c: &mut Code, at: &Here, body: impl FnOnce(&mut Code)) {
        match &at.present {
            Some(cond) => c.open(&format!("if ({cond}) {{")),
            None => c.open("{"),
        }
        body(c);
        if at.held > 0 && at.present.is_some() {
            c.reopen("} else {");
            c.try_(&format!("km_charge(v, {})", u64_literal(at.held)));
        }
        c.close("}");
    }

    /// The checks of table `id` whose offset is read at `pos`.
    fn check_table_at(&self, c: &mut Code, id: StructId, pos: &str) {
        let t = format!("t{}", self.d.get());
        c.line(&format!("km_table {t};"));
        c.try_(&format!(
            "km_check_table(v, km_read_u32(r, {pos}), {}, &{t})",
            self.full_size(id)
        ));
        c.try_(&format!("{}_check_table(v, {t})", self.n.struct_name(id)));
    }
}

impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Code, at: &Here) {
        self.when(c, at, |c| c.try_(&format!("km_check_bool(v, {})", at.pos)));
    }

    fn inline(&self, c: &mut Code, id: StructId, at: &Here) {
        self.when(c, at, |c| {
            c.try_(&format!(
                "{}_check_at(v, {})",
                self.n.struct_name(id),
                at.pos
            ))
        });
    }

    fn table(&self, c: &mut Code, id: StructId, at: &Here) {
        self.when(c, at, |c| self.check_table_at(c, id, &at.pos));
    }

    fn optional_table(&self, c: &mut Code, id: StructId, at: &Here) {
        self.when(c, at, |c| {
            c.open(&format!("if (km_read_u32(r, {}) != 0) {{", at.pos));
            self.check_table_at(c, id, &at.pos);
            c.close("}");
        });
    }

    // The presence byte is 0 or 1 (format.md §4.2); the value is checked
    // only when there is one.
    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        let pos = &at.pos;
        self.when(c, at, |c| {
            c.try_(&format!("km_check_bool(v, {pos})"));
            if checked {
                c.open(&format!("if (km_read_u8(r, {pos}) != 0) {{"));
                let inner = Ctx::Pos {
                    pos: add(pos, value_at),
                    present: None,
                };
                self.deeper(|| walk::validate_slot(self, c, value, &inner));
                c.close("}");
            }
        });
    }

    fn union(&self, c: &mut Code, id: UnionId, at: &Here) {
        self.when(c, at, |c| {
            c.try_(&format!(
                "{}_check(v, {}, {})",
                self.n.union_name(id),
                at.pos,
                add(&at.pos, UNION_OFFSET_AT)
            ))
        });
    }

    fn bools(&self, c: &mut Code, len: u32, at: &Here) {
        self.when(c, at, |c| {
            c.try_(&format!("km_check_bools(v, {}, {len}u)", at.pos))
        });
    }

    fn inline_each(&self, c: &mut Code, id: StructId, len: u32, stride: u32, at: &Here) {
        self.when(c, at, |c| {
            let j = format!("j{}", self.d.get());
            c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
            c.try_(&format!(
                "{}_check_at(v, {})",
                self.n.struct_name(id),
                plus(&format!("({})", at.pos), &j, stride)
            ));
            c.close("}");
        });
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        at: &Here,
    ) {
        let limit = limit_expr(limit);
        let a = format!("a{}", self.d.get());
        // A table's array field is checked through km_check_field_array
        // (absent is valid); a positioned one only when present.
        let call = match at.ctx {
            Ctx::Table { off } => {
                c.open("{");
                format!("km_check_field_array(v, t, {off}u, {elem_size}u, {limit}, &{a})")
            }
            Ctx::Pos { pos, present } => {
                match present {
                    Some(cond) => c.open(&format!("if ({cond}) {{")),
                    None => c.open("{"),
                }
                format!("km_check_array_at(v, {pos}, {elem_size}u, {limit}, &{a})")
            }
        };
        c.line(&format!("km_array {a};"));
        c.try_(&call);
        if each {
            walk::validate_array(self, c, array, data, &a);
        }
        c.close("}");
    }

    fn text(&self, c: &mut Code, utf16: bool, a: &str) {
        let f = if utf16 { "utf16" } else { "utf8" };
        c.try_(&format!("km_check_{f}(v, {a}.offset, {a}.len)"));
    }

    fn bool_block(&self, c: &mut Code, a: &str) {
        c.try_(&format!("km_check_bools(v, {a}.offset, {a}.len)"));
    }

    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let i = self.each(c, "i", a);
        let b = format!("a{}", self.d.get() + 1);
        c.line(&format!("km_array {b};"));
        c.try_(&format!(
            "km_check_array_at(v, {}, {elem_size}u, {}, &{b})",
            plus(&format!("{a}.offset"), &i, ARRAY_REF_SIZE),
            limit_expr(limit)
        ));
        if each {
            self.deeper(|| walk::validate_array(self, c, array, data, &b));
        }
        c.close("}");
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, a: &str) {
        let i = self.each(c, "i", a);
        let at = plus(&format!("{a}.offset"), &i, UNION_SLOT_SIZE);
        c.try_(&format!(
            "{}_check(v, {at}, {at} + {UNION_OFFSET_AT}u)",
            self.n.union_name(id)
        ));
        c.close("}");
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tag_size: u32, a: &str) {
        let (tags, offs) = self.union_columns();
        c.line(&format!("uint32_t {tags}, {offs};"));
        c.try_(&format!(
            "km_check_union_columns(v, {a}, {tag_size}u, &{tags}, &{offs})"
        ));
        let i = self.each(c, "i", a);
        c.try_(&format!(
            "{}_check(v, {})",
            self.n.union_name(id),
            union_column_at(&tags, &offs, &i, tag_size)
        ));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, _id: UnionId, variants: &[BunchVariant], a: &str) {
        let d = self.d.get();
        let tags: Vec<String> = variants.iter().map(|bv| format!("{}u", bv.tag)).collect();
        let (known, entries, e) = (format!("known{d}"), format!("entries{d}"), format!("e{d}"));
        c.line(&format!(
            "static const uint32_t {known}[{}] = {{{}}};",
            tags.len().max(1),
            if tags.is_empty() {
                "0".into()
            } else {
                tags.join(", ")
            }
        ));
        c.line(&format!("uint32_t {entries};"));
        c.try_(&format!(
            "km_check_bunch(v, {a}, {known}, {}u, &{entries})",
            tags.len()
        ));
        c.open(&format!(
            "for (uint32_t {e} = 1; {e} <= {entries}; {e}++) {{"
        ));
        let entry = format!("{a}.offset + {BUNCH_ENTRY_SIZE}u * {e}");
        c.line(&format!("switch (km_read_u32(r, {entry})) {{"));
        for bv in variants {
            c.open(&format!("case {}u: {{", bv.tag));
            let b = format!("a{}", d + 1);
            c.line(&format!("km_array {b};"));
            c.try_(&format!(
                "km_check_array_at(v, {entry} + {BUNCH_ENTRY_ARRAY_AT}u, {}u, KM_NO_LIMIT, &{b})",
                bv.data.elem_size()
            ));
            let check = self.l.struct_array_check(&bv.data);
            self.deeper(|| walk::validate_array_of(self, c, check, &b));
            c.line("break;");
            c.close("}");
        }
        c.line("default:");
        c.line("    break;");
        c.line("}");
        c.close("}");
    }

    fn map(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        self.aos_inline(c, id, stride, each, a);
        // The look-up's binary search relies on the order.
        let i = format!("i{}", self.d.get());
        let key = &self.l.of_struct(id).fields[0];
        let at = |i: &str| add(&plus(&format!("{a}.offset"), i, stride), key.offset);
        let prev = format!("({i} - 1)");
        let bad = match &key.slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => format!(
                "km_read_{n}(r, {}) >= km_read_{n}(r, {})",
                at(&prev),
                at(&i),
                n = p.name()
            ),
            _ => format!("km_compare_text(r, {}, {}) >= 0", at(&prev), at(&i)),
        };
        c.open(&format!("for (uint32_t {i} = 1; {i} < {a}.len; {i}++) {{"));
        c.open(&format!("if ({bad}) {{"));
        c.line(&format!(
            "return km_fail(v, KM_ERR_MALFORMED_ARRAY, {a}.offset, 0);"
        ));
        c.close("}");
        c.close("}");
    }

    fn aos_inline(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        if !each {
            return;
        }
        let i = self.each(c, "i", a);
        c.try_(&format!(
            "{}_check_at(v, {})",
            self.n.struct_name(id),
            plus(&format!("{a}.offset"), &i, stride)
        ));
        c.close("}");
    }

    fn aos_table(&self, c: &mut Code, id: StructId, a: &str) {
        let i = self.each(c, "i", a);
        self.check_table_at(c, id, &plus(&format!("{a}.offset"), &i, OFFSET_SIZE));
        c.close("}");
    }

    fn soa(&self, c: &mut Code, elem: StructId, a: &str) {
        c.try_(&format!("{}_check_soa(v, {a})", self.n.struct_name(elem)));
    }
}

//! One-pass validators (format.md §11): `<type>_validate` and the static
//! checks it calls, sequences of the library's `km_check_*` calls. The
//! plan of each slot is the layout's ([`karmem_layout::SlotCheck`]); the
//! charges are those of the Go validators (SoA columns are checked element
//! by element here, which charges the same units, format.md §11).

use karmem_layout::{
    ArrayData, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    HEADER_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::encode::{add, plus};
use super::{limit_arg, u64_literal, Code, Ctx, Gen};

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
        for f in &sl.fields {
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("at", f.offset),
                    absent: None,
                }
            };
            self.check_slot(&mut body, &f.slot, &ctx, 0);
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

    pub(crate) fn check_slot(&self, c: &mut Code, slot: &Slot, ctx: &Ctx, d: usize) {
        let size = self.l.slot_size(slot);
        let (pos, present): (String, Option<String>) = match ctx {
            Ctx::Table { t, off } => (
                add(&format!("{t}.offset"), *off),
                Some(format!("km_has({t}, {off}u, {size}u)")),
            ),
            Ctx::Pos { pos, absent } => (pos.clone(), absent.as_ref().map(|a| format!("!({a})"))),
        };
        // A field past its table's `used` is charged what a decoder builds
        // for it beyond the table's bytes: the tables of its zero value
        // (format.md §10).
        let held = match ctx {
            Ctx::Table { .. } => self.l.absent_charge(slot),
            Ctx::Pos { .. } => 0,
        };
        // `body` only when the slot is present, in a block either way.
        let when = |c: &mut Code, body: &dyn Fn(&mut Code)| {
            match &present {
                Some(cond) => c.open(&format!("if ({cond}) {{")),
                None => c.open("{"),
            }
            body(c);
            if held > 0 && present.is_some() {
                c.reopen("} else {");
                c.try_(&format!("km_charge(v, {})", u64_literal(held)));
            }
            c.close("}");
        };
        let t = format!("t{d}");
        match self.l.slot_check(slot) {
            SlotCheck::Nothing => {}
            SlotCheck::Bool => when(c, &|c: &mut Code| {
                c.try_(&format!("km_check_bool(v, {pos})"))
            }),
            SlotCheck::Inline(id) => when(c, &|c: &mut Code| {
                c.try_(&format!("{}_check_at(v, {pos})", self.n.struct_name(id)))
            }),
            SlotCheck::Table(id) => when(c, &|c: &mut Code| {
                c.line(&format!("km_table {t};"));
                c.try_(&format!(
                    "km_check_table(v, km_read_u32(r, {pos}), {}, &{t})",
                    self.full_size(id)
                ));
                c.try_(&format!("{}_check_table(v, {t})", self.n.struct_name(id)));
            }),
            SlotCheck::OptionalTable(id) => when(c, &|c: &mut Code| {
                c.open(&format!("if (km_read_u32(r, {pos}) != 0) {{"));
                c.line(&format!("km_table {t};"));
                c.try_(&format!(
                    "km_check_table(v, km_read_u32(r, {pos}), {}, &{t})",
                    self.full_size(id)
                ));
                c.try_(&format!("{}_check_table(v, {t})", self.n.struct_name(id)));
                c.close("}");
            }),
            // The presence byte is 0 or 1 (format.md §4.2); the value is
            // checked only when there is one.
            SlotCheck::Optional { value_at, value } => when(c, &|c: &mut Code| {
                c.try_(&format!("km_check_bool(v, {pos})"));
                let mut inner = Code::new(c.indent + 1);
                let at = Ctx::Pos {
                    pos: add(&pos, value_at),
                    absent: None,
                };
                self.check_slot(&mut inner, value, &at, d + 1);
                if !inner.out.is_empty() {
                    c.open(&format!("if (km_read_u8(r, {pos}) != 0) {{"));
                    c.append(inner);
                    c.close("}");
                }
            }),
            SlotCheck::Union(id) => when(c, &|c: &mut Code| {
                c.try_(&format!(
                    "{}_check(v, {pos}, {})",
                    self.n.union_name(id),
                    add(&pos, UNION_OFFSET_AT)
                ))
            }),
            SlotCheck::Bools { len } => when(c, &|c: &mut Code| {
                c.try_(&format!("km_check_bools(v, {pos}, {len}u)"))
            }),
            SlotCheck::InlineEach { id, len, stride } => when(c, &|c: &mut Code| {
                let j = format!("j{d}");
                c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
                c.try_(&format!(
                    "{}_check_at(v, {})",
                    self.n.struct_name(id),
                    plus(&format!("({pos})"), &j, stride)
                ));
                c.close("}");
            }),
            SlotCheck::Array {
                array,
                data,
                elem_size: es,
                limit: _,
            } => {
                let limit = limit_arg(array);
                let a = format!("a{d}");
                let call = match ctx {
                    Ctx::Table { t, off } => {
                        format!("km_check_field_array(v, {t}, {off}u, {es}u, {limit}, &{a})")
                    }
                    Ctx::Pos { .. } => format!("km_check_array_at(v, {pos}, {es}u, {limit}, &{a})"),
                };
                // A table's array field is checked through
                // km_check_field_array (absent is valid); a positioned one
                // only when present.
                match (ctx, &present) {
                    (Ctx::Pos { .. }, Some(cond)) => c.open(&format!("if ({cond}) {{")),
                    _ => c.open("{"),
                }
                c.line(&format!("km_array {a};"));
                c.try_(&call);
                self.check_array(c, array, data, d);
                c.close("}");
            }
        }
    }

    fn check_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, d: usize) {
        let a = format!("a{d}");
        let i = format!("i{d}");
        let each =
            |c: &mut Code| c.open(&format!("for (uint32_t {i} = 0; {i} < {a}.len; {i}++) {{"));
        match (array.text, data) {
            (None, ArrayData::Arrays { array: inner, data }) => {
                each(c);
                let b = format!("a{}", d + 1);
                c.line(&format!("km_array {b};"));
                c.try_(&format!(
                    "km_check_array_at(v, {}, {}u, {}, &{b})",
                    plus(&format!("{a}.offset"), &i, ARRAY_REF_SIZE),
                    data.elem_size(),
                    limit_arg(inner)
                ));
                self.check_array(c, inner, data, d + 1);
                c.close("}");
            }
            (Some(Text::Utf8), _) => c.try_(&format!("km_check_utf8(v, {a}.offset, {a}.len)")),
            (Some(Text::Utf16), _) => c.try_(&format!("km_check_utf16(v, {a}.offset, {a}.len)")),
            (None, ArrayData::Plain { .. }) => {
                if array.elem == ElemType::Scalar(Primitive::Bool) {
                    c.try_(&format!("km_check_bools(v, {a}.offset, {a}.len)"));
                }
            }
            (None, ArrayData::UnionAos { id, .. }) => {
                each(c);
                let at = plus(&format!("{a}.offset"), &i, UNION_SLOT_SIZE);
                c.try_(&format!(
                    "{}_check(v, {at}, {at} + {UNION_OFFSET_AT}u)",
                    self.n.union_name(*id)
                ));
                c.close("}");
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                let (tags, offs) = (format!("tags{d}"), format!("offsets{d}"));
                c.line(&format!("uint32_t {tags}, {offs};"));
                c.try_(&format!(
                    "km_check_union_columns(v, {a}, {tw}u, &{tags}, &{offs})"
                ));
                each(c);
                c.try_(&format!(
                    "{}_check(v, {}, {})",
                    self.n.union_name(*id),
                    plus(&tags, &i, tw),
                    plus(&offs, &i, OFFSET_SIZE)
                ));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let tags: Vec<String> = variants.iter().map(|bv| format!("{}u", bv.tag)).collect();
                let (known, entries, e) =
                    (format!("known{d}"), format!("entries{d}"), format!("e{d}"));
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
                    self.check_struct_array(c, &bv.data, d + 1);
                    c.line("break;");
                    c.close("}");
                }
                c.line("default:");
                c.line("    break;");
                c.line("}");
                c.close("}");
            }
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.check_struct_array(c, data, d);
                // The look-up's binary search relies on the order.
                let key = &self.l.of_struct(*id).fields[0];
                let at = |i: &str| add(&plus(&format!("{a}.offset"), i, *stride), key.offset);
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
            (None, data) => self.check_struct_array(c, data, d),
        }
    }

    fn check_struct_array(&self, c: &mut Code, data: &ArrayData, d: usize) {
        let a = format!("a{d}");
        let i = format!("i{d}");
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    c.open(&format!("for (uint32_t {i} = 0; {i} < {a}.len; {i}++) {{"));
                    c.try_(&format!(
                        "{}_check_at(v, {})",
                        self.n.struct_name(*id),
                        plus(&format!("{a}.offset"), &i, *stride)
                    ));
                    c.close("}");
                }
            }
            ArrayData::AosTable { id } => {
                c.open(&format!("for (uint32_t {i} = 0; {i} < {a}.len; {i}++) {{"));
                c.line(&format!("km_table t{d};"));
                c.try_(&format!(
                    "km_check_table(v, km_read_u32(r, {}), {}, &t{d})",
                    plus(&format!("{a}.offset"), &i, OFFSET_SIZE),
                    self.full_size(*id)
                ));
                c.try_(&format!("{}_check_table(v, t{d})", self.n.struct_name(*id)));
                c.close("}");
            }
            ArrayData::Soa { elem } => {
                c.try_(&format!("{}_check_soa(v, {a})", self.n.struct_name(*elem)))
            }
            _ => unreachable!("only struct arrays here"),
        }
    }

    pub(crate) fn validate_soa(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let soa = self.l.soa(id);
        let name = self.n.struct_name(id);
        let n = soa.columns.len();
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
        self.charge_unlisted(&mut c, soa, "a.cap");
        for (k, col) in soa.columns.iter().enumerate() {
            let ctx = Ctx::Pos {
                pos: plus(&format!("cols[{k}]"), "i", col.size),
                absent: None,
            };
            let mut each = Code::new(c.indent + 2);
            self.check_slot(&mut each, &col.slot, &ctx, 0);
            if each.out.is_empty() {
                continue;
            }
            c.open(&format!("if (cols[{k}] != 0) {{"));
            c.open("for (uint32_t i = 0; i < a.len; i++) {");
            c.append(each);
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

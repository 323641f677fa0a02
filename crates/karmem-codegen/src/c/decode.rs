//! Object decoders: `<type>_decode` and the static readers it calls.
//! Lenient like the other libraries' decoders (malformed parts read as
//! zero or empty), with the traversal budget and depth limit of
//! format.md §10 charged as the Go decoder charges them: a `km_validator`
//! carries the budget and depth, and what each element costs is the
//! layout's answer ([`karmem_layout::ArrayPlan`]). Every
//! allocation comes from the caller's `km_arena`, and only after the
//! elements it holds were charged, so a hostile length cannot make the
//! decoder allocate more than the budget allows. The slots and array
//! blocks are walked by [`crate::walk`]; `Gen` is its [`DecodePrinter`].

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, HEADER_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::encode::{add, plus};
use super::{c_string, limit_expr, u64_literal, union_column_at, Code, Gen};
use crate::walk::{self, Ctx, DecodePrinter, Here};

/// The checked load of a scalar of type `p` at `pos`.
fn read(p: Primitive, pos: &str) -> String {
    format!("km_read_{}(r, {pos})", p.name())
}

impl Gen<'_> {
    pub(crate) fn decode_struct(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id);
        let table = self.l.is_table(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "km_status {name}_decode({name} *out, const km_reader *r, km_arena *arena) {{"
        ));
        c.line("km_validator v;");
        c.line("memset(out, 0, sizeof *out);");
        // A message that cannot be opened is the error, and leaves out
        // empty (as an absent root reads).
        c.open("if (r->status != KM_OK) {");
        c.line("return r->status;");
        c.close("}");
        c.line("km_validator_init(&v, r);");
        if table {
            c.line(&format!(
                "return {name}_read_table(out, &v, arena, km_root(r));"
            ));
        } else {
            // An inline root that does not fit reads as a whole, every
            // field zero (format.md §1).
            c.open(&format!(
                "if ((uint64_t)r->size < {}u) {{",
                HEADER_SIZE as u64 + sl.size as u64
            ));
            // Its zero value, charged for the tables it holds (format.md
            // §10).
            if self.s.has_defaults(id) {
                c.line(&format!("{name}_zero(out);"));
            }
            if sl.zero > 0 {
                c.line(&format!("return km_charge(&v, {});", u64_literal(sl.zero)));
            } else {
                c.line("return KM_OK;");
            }
            c.close("}");
            c.line(&format!(
                "return {name}_read_at(out, &v, arena, {HEADER_SIZE}u);"
            ));
        }
        c.close("}");
        c.line("");

        if self.s.has_defaults(id) {
            self.zero_struct(decls, &mut c, id);
        }
        let mut body = Code::new(1);
        let plan = self.l.struct_plan(self.s, id);
        walk::read_fields(self, &mut body, &plan.fields, |_, f| {
            format!("x->{}", self.n.field(id, f.index))
        });
        let sig = if table {
            format!(
                "static km_status {name}_read_table({name} *x, km_validator *v, km_arena *arena, km_table t)"
            )
        } else {
            format!(
                "static km_status {name}_read_at({name} *x, km_validator *v, km_arena *arena, uint32_t at)"
            )
        };
        decls.line(&format!("{sig};"));
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line("(void)r;");
        c.line("(void)arena;");
        c.line("(void)x;");
        if table {
            // Absent or malformed: the zero value, paid for whole before it
            // is built, and not read (no level of depth; format.md §10).
            c.open("if (t.used == 0) {");
            c.try_(&format!("km_charge(v, {})", self.zero_size(id)));
            if self.s.has_defaults(id) {
                c.line(&format!("{name}_zero(x);"));
            } else {
                c.line("memset(x, 0, sizeof *x);");
            }
            c.line("return KM_OK;");
            c.close("}");
            c.try_("km_enter(v)");
            // Every field is built, those past `used` too.
            let full = self.full_size(id);
            c.try_(&format!("km_charge(v, t.used > {full} ? t.used : {full})"));
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

    /// `static void <type>_zero(<type> *x)`, for a struct whose zero value
    /// holds a declared default (idl.md §4.3.1): the value an absent or
    /// malformed table decodes to, built without reading or charging
    /// anything (its reader charged its `Z`, format.md §10).
    fn zero_struct(&self, decls: &mut Code, c: &mut Code, id: StructId) {
        let name = self.n.struct_name(id);
        let sig = format!("static void {name}_zero({name} *x)");
        decls.line(&format!("{sig};"));
        c.open(&format!("{sig} {{"));
        c.line("memset(x, 0, sizeof *x);");
        let sl = self.l.of_struct(id);
        for (i, f) in sl.fields.iter().enumerate() {
            let field = &self.s.structs[id].fields[i];
            if field.optional {
                // No value, whatever its type holds.
                continue;
            }
            let place = format!("x->{}", self.n.field(id, i));
            if let Some(d) = field.nonzero_default() {
                let value = self.default_expr(&f.slot, d);
                match &f.slot {
                    Slot::ArrayRef { .. } => {
                        c.line(&format!("{place}.ptr = {value};"));
                        c.line(&format!("{place}.len = sizeof {value} - 1;"));
                    }
                    _ => c.line(&format!("{place} = {value};")),
                }
                continue;
            }
            match &f.slot {
                Slot::TableRef(held) | Slot::InlineStruct(held) if self.s.has_defaults(*held) => {
                    c.line(&format!("{}_zero(&{place});", self.n.struct_name(*held)));
                }
                Slot::FixedArray {
                    elem: FixedElem::InlineStruct(held),
                    len,
                    ..
                } if self.s.has_defaults(*held) => {
                    c.open(&format!("for (uint32_t j = 0; j < {len}u; j++) {{"));
                    c.line(&format!("{}_zero(&{place}[j]);", self.n.struct_name(*held)));
                    c.close("}");
                }
                _ => {}
            }
        }
        c.close("}");
        c.line("");
    }

    /// The statement that sets `place`, a `T` of struct `id`, to its zero
    /// value (its defaults included).
    fn zero_value(&self, id: StructId, place: &str) -> String {
        if self.s.has_defaults(id) {
            format!("{}_zero(&{place});", self.n.struct_name(id))
        } else {
            format!("memset(&{place}, 0, sizeof {place});")
        }
    }

    pub(crate) fn decode_union(&self, decls: &mut Code, defs: &mut Code, id: UnionId) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let sig = format!(
            "static km_status {name}_read({name} *x, km_validator *v, km_arena *arena, uint32_t tag_at, uint32_t offset_at)"
        );
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line(&format!("uint32_t tag = {};", read(u.tag, "tag_at")));
        c.line("uint32_t offset = km_read_u32(r, offset_at);");
        c.line("(void)arena;");
        c.line("(void)offset;");
        c.line("memset(x, 0, sizeof *x);");
        c.line("switch (tag) {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            let m = self.n.variant_member(var.ty);
            c.open(&format!("case {}u: {{", var.tag));
            c.line("void *p;");
            if self.l.is_table(var.ty) {
                // Charged at least its full size (its zero value's, when
                // malformed): refused before it is allocated.
                c.try_(&format!(
                    "km_reserve_each(v, 1u, {})",
                    self.full_size(var.ty)
                ));
                c.try_(&format!("km_arena_alloc(arena, sizeof({ty}), &p)"));
                c.line(&format!("x->tag = {};", self.n.tag(id, var.ty)));
                c.line(&format!("x->as.{m} = p;"));
                c.line(&format!(
                    "return {ty}_read_table(x->as.{m}, v, arena, km_table_at(r, offset));"
                ));
            } else {
                let size = self.l.of_struct(var.ty).size;
                // A malformed inline value reads as no value; a good one
                // is charged like a table, its size (format.md §10).
                c.open(&format!("if (!km_inline_at(r, offset, {size}u)) {{"));
                c.line("return KM_OK;");
                c.close("}");
                c.try_(&format!("km_charge(v, {size}u)"));
                c.try_(&format!("km_arena_alloc(arena, sizeof({ty}), &p)"));
                c.line(&format!("x->tag = {};", self.n.tag(id, var.ty)));
                c.line(&format!("x->as.{m} = p;"));
                c.line(&format!(
                    "return {ty}_read_at(x->as.{m}, v, arena, offset);"
                ));
            }
            c.close("}");
        }
        c.line("default:");
        c.line("    /* 0 is no value; a tag this schema does not know (a newer");
        c.line("     * writer's variant) reads as no value too. */");
        c.line("    return KM_OK;");
        c.line("}");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    pub(crate) fn decode_soa(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let plan = self.l.soa_plan(self.s, id);
        let name = self.n.struct_name(id);
        let n = plan.columns.len();
        let sig = format!(
            "static km_status {name}_read_soa(km_validator *v, km_arena *arena, km_array a, {name} **items, uint32_t *len)"
        );
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line(&format!("uint32_t cols[{}];", n.max(1)));
        c.line(&format!("{name} *s;"));
        c.line("void *p;");
        c.line("(void)r;");
        c.line("*items = NULL;");
        c.line("*len = 0;");
        c.try_(&format!(
            "km_decode_soa_columns(v, a, {name}_columns, {n}u, cols)"
        ));
        c.try_(&format!(
            "km_charge(v, (uint64_t)a.len * {}u)",
            plan.element_charge
        ));
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds.
        self.charge_unlisted(&mut c, &plan.unlisted, "a.len");
        c.try_(&format!("km_arena_array(arena, a.len, sizeof({name}), &p)"));
        c.line("s = p;");
        c.open("for (uint32_t i = 0; i < a.len; i++) {");
        c.line(&format!("{name} *e = &s[i];"));
        c.line("(void)e;");
        walk::read_fields(self, &mut c, &plan.columns, |k, _| {
            self.column_place("(*e)", id, k)
        });
        c.close("}");
        c.line("*items = s;");
        c.line("*len = a.len;");
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    /// Charges, for each column of an SoA element the directory `cols`
    /// does not list (`unlisted`, [`karmem_layout::SoaPlan::unlisted`]),
    /// what its zero value holds (a fixed array of inline structs
    /// holding tables, format.md §10) for each of `count` elements.
    pub(crate) fn charge_unlisted(&self, c: &mut Code, unlisted: &[(usize, u64)], count: &str) {
        for (k, held) in unlisted {
            c.open(&format!("if (cols[{k}] == 0) {{"));
            c.try_(&format!(
                "km_charge_each(v, {count}, {})",
                u64_literal(*held)
            ));
            c.close("}");
        }
    }

    /// `#bovoa`/`#bovos` readers: each variant the schema knows from its
    /// bunch entry (the first with its tag), grouped in declaration order.
    pub(crate) fn decode_bunch(&self, decls: &mut Code, defs: &mut Code, id: UnionId, soa: bool) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let f = if soa { "bovos" } else { "bovoa" };
        let sig = format!(
            "static km_status {name}_read_{f}(km_validator *v, km_arena *arena, km_array a, {name} **items, uint32_t *len)"
        );
        decls.line(&format!("{sig};"));
        let nv = u.variants.len().max(1);
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("const km_reader *r = v->r;");
        c.line(&format!("void *values[{nv}] = {{0}};"));
        c.line(&format!("uint32_t counts[{nv}] = {{0}};"));
        c.line("uint64_t total = 0;");
        c.line(&format!("{name} *s;"));
        c.line("void *p;");
        c.line("uint32_t n = 0;");
        c.line("(void)r;");
        c.line("(void)arena;");
        c.line("*items = NULL;");
        c.line("*len = 0;");
        // The table is read once for all variants (format.md §10).
        c.try_("km_decode_bunch_charge(v, a)");
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(var.ty);
            c.open("{");
            if soa {
                c.line(&format!("{ty} *got;"));
                c.try_(&format!(
                    "{ty}_read_soa(v, arena, km_bunch_entry(r, a, {}u, 0), &got, &counts[{i}])",
                    var.tag
                ));
                c.line(&format!("values[{i}] = got;"));
            } else {
                let data = self.l.bunch_variant_data(var.ty, false);
                let size = data.elem_size();
                let per = self.l.decode_charge(&data).expect("AoS is charged");
                c.line(&format!(
                    "km_array sub = km_bunch_entry(r, a, {}u, {size}u);",
                    var.tag
                ));
                c.line(&format!("{ty} *got;"));
                c.try_(&format!("km_charge(v, (uint64_t)sub.len * {per}u)"));
                if self.l.is_table(var.ty) {
                    // As an AoS array of tables: each element costs at
                    // least its full size, refused before it is allocated.
                    c.try_(&format!(
                        "km_reserve_each(v, sub.len, {})",
                        self.full_size(var.ty)
                    ));
                }
                c.try_(&format!("km_arena_array(arena, sub.len, sizeof({ty}), &p)"));
                c.line("got = p;");
                c.open("for (uint32_t k = 0; k < sub.len; k++) {");
                if self.l.is_table(var.ty) {
                    c.try_(&format!(
                        "{ty}_read_table(&got[k], v, arena, km_table_at(r, km_read_u32(r, sub.offset + k * {OFFSET_SIZE}u)))"
                    ));
                } else {
                    c.try_(&format!(
                        "{ty}_read_at(&got[k], v, arena, sub.offset + k * {size}u)"
                    ));
                }
                c.close("}");
                c.line(&format!("values[{i}] = got;"));
                c.line(&format!("counts[{i}] = sub.len;"));
            }
            c.line(&format!("total += counts[{i}];"));
            c.close("}");
        }
        c.open("if (total > UINT32_MAX) {");
        c.line("return KM_ERR_BUDGET_EXCEEDED;");
        c.close("}");
        c.try_(&format!("km_arena_array(arena, total, sizeof({name}), &p)"));
        c.line("s = p;");
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(var.ty);
            c.open(&format!("for (uint32_t k = 0; k < counts[{i}]; k++) {{"));
            c.line(&format!("s[n].tag = {};", self.n.tag(id, var.ty)));
            c.line(&format!(
                "s[n].as.{} = &(({ty} *)values[{i}])[k];",
                self.n.variant_member(var.ty)
            ));
            c.line("n++;");
            c.close("}");
        }
        c.line("*items = s;");
        c.line("*len = n;");
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }
}

impl Gen<'_> {
    /// `then` when the slot `at` is present, else the charge of what its
    /// zero value holds and `otherwise`.
    fn guarded(&self, c: &mut Code, at: &Here, then: impl FnOnce(&mut Code), otherwise: &str) {
        match &at.present {
            None => then(c),
            Some(cond) => {
                c.open(&format!("if ({cond}) {{"));
                then(c);
                c.reopen("} else {");
                if at.held > 0 {
                    c.try_(&format!("km_charge(v, {})", u64_literal(at.held)));
                }
                c.line(otherwise);
                c.close("}");
            }
        }
    }

    /// Room for the elements of `place` from array `a`, then each element
    /// `k` read by the call `read(k)`.
    fn read_each(&self, c: &mut Code, a: &str, place: &str, read: impl FnOnce(&str) -> String) {
        self.alloc(c, a, place);
        let k = self.each(c, "k", place);
        c.try_(&read(&k));
        c.close("}");
    }

    /// The charge of array `a`'s elements, `charge` units each.
    fn charge_each(&self, c: &mut Code, a: &str, charge: u32) {
        c.try_(&format!("km_charge(v, (uint64_t){a}.len * {charge}u)"));
    }

    /// Room for the `{a}.len` elements of `place` (after they were
    /// charged) and the length.
    fn alloc(&self, c: &mut Code, a: &str, place: &str) {
        let p = format!("p{}", self.d.get());
        let count = format!("{a}.len");
        c.line(&format!("void *{p};"));
        c.try_(&format!(
            "km_arena_array(arena, {count}, sizeof *{place}.ptr, &{p})"
        ));
        c.line(&format!("{place}.ptr = {p};"));
        c.line(&format!("{place}.len = {count};"));
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Code, slot: &Slot, place: &str, at: &Here) {
        let (p, cast) = match slot {
            Slot::Scalar(p) => (*p, String::new()),
            Slot::Enum { id, repr } => (*repr, format!("({})", self.n.enum_name(*id))),
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        match (at.ctx, at.default) {
            (Ctx::Table { off }, None) => c.line(&format!(
                "{place} = {cast}km_field_{}(r, t, {off}u);",
                p.name()
            )),
            (_, default) => {
                let absent = default.map_or("0".into(), |dv| self.default_expr(slot, dv));
                let load = format!("{place} = {cast}{};", read(p, &at.pos));
                self.guarded(
                    c,
                    at,
                    |c: &mut Code| c.line(&load),
                    &format!("{place} = {cast}{absent};"),
                );
            }
        }
    }

    fn inline(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let call = format!(
            "{}_read_at(&{place}, v, arena, {})",
            self.n.struct_name(id),
            at.pos
        );
        self.guarded(
            c,
            at,
            |c: &mut Code| c.try_(&call),
            &self.zero_value(id, place),
        );
    }

    fn table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let name = self.n.struct_name(id);
        let pos = &at.pos;
        match (at.ctx, &at.present) {
            (Ctx::Table { off }, _) => c.try_(&format!(
                "{name}_read_table(&{place}, v, arena, km_field_table(r, t, {off}u))"
            )),
            (Ctx::Pos { .. }, Some(cond)) => c.try_(&format!(
                "{name}_read_table(&{place}, v, arena, ({cond}) ? km_table_at(r, km_read_u32(r, {pos})) : km_table_at(r, 0))"
            )),
            (Ctx::Pos { .. }, None) => c.try_(&format!(
                "{name}_read_table(&{place}, v, arena, km_table_at(r, km_read_u32(r, {pos})))"
            )),
        }
    }

    fn optional_table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let name = self.n.struct_name(id);
        let d = self.d.get();
        let o = format!("o{d}");
        let pos = &at.pos;
        let load = match (at.ctx, &at.present) {
            (Ctx::Table { off }, _) => format!("km_field_u32(r, t, {off}u)"),
            (Ctx::Pos { .. }, Some(cond)) => format!("({cond}) ? km_read_u32(r, {pos}) : 0u"),
            (Ctx::Pos { .. }, None) => format!("km_read_u32(r, {pos})"),
        };
        c.open("{");
        c.line(&format!("uint32_t {o} = {load};"));
        c.line(&format!("{place} = NULL;"));
        c.open(&format!("if ({o} != 0) {{"));
        c.line(&format!("void *p{d};"));
        // It is charged at least its full size (its zero value's, when
        // malformed): refused before it is allocated.
        c.try_(&format!("km_reserve_each(v, 1u, {})", self.full_size(id)));
        c.try_(&format!("km_arena_alloc(arena, sizeof({name}), &p{d})"));
        c.line(&format!("{place} = p{d};"));
        c.try_(&format!(
            "{name}_read_table({place}, v, arena, km_table_at(r, {o}))"
        ));
        c.close("}");
        c.close("}");
    }

    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let flag = format!("km_read_u8(r, {}) != 0", at.pos);
        let cond = match &at.present {
            Some(p) => format!("({p}) && {flag}"),
            None => flag,
        };
        c.open(&format!("if ({cond}) {{"));
        c.line(&format!("{place}.has = true;"));
        let inner = Ctx::Pos {
            pos: add(&at.pos, value_at),
            present: None,
        };
        walk::read_slot(self, c, value, &format!("{place}.value"), &inner, None);
        c.reopen("} else {");
        c.line(&format!("memset(&{place}, 0, sizeof {place});"));
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, place: &str, at: &Here) {
        let call = format!(
            "{}_read(&{place}, v, arena, {}, {})",
            self.n.union_name(id),
            at.pos,
            add(&at.pos, UNION_OFFSET_AT)
        );
        self.guarded(
            c,
            at,
            |c: &mut Code| c.try_(&call),
            &format!("memset(&{place}, 0, sizeof {place});"),
        );
    }

    fn fixed(&self, c: &mut Code, elem: FixedElem, len: u32, stride: u32, place: &str, at: &Here) {
        let j = format!("j{}", self.d.get());
        let epos = plus(&format!("({})", at.pos), &j, stride);
        let body = |c: &mut Code| {
            c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
            match elem {
                FixedElem::Scalar(p) => c.line(&format!("{place}[{j}] = {};", read(p, &epos))),
                FixedElem::Enum { id, repr } => c.line(&format!(
                    "{place}[{j}] = ({}){};",
                    self.n.enum_name(id),
                    read(repr, &epos)
                )),
                FixedElem::InlineStruct(id) => c.try_(&format!(
                    "{}_read_at(&{place}[{j}], v, arena, {epos})",
                    self.n.struct_name(id)
                )),
            }
            c.close("}");
        };
        let otherwise = match elem {
            FixedElem::InlineStruct(id) if self.s.has_defaults(id) => format!(
                "for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{ {} }}",
                self.zero_value(id, &format!("{place}[{j}]"))
            ),
            _ => format!("memset({place}, 0, sizeof {place});"),
        };
        self.guarded(c, at, body, &otherwise);
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    ) {
        let limit = limit_expr(limit);
        let a = format!("a{}", self.d.get());
        // Presence is checked around the read: an absent array (past
        // `used`, or a column the directory does not list) is empty, or
        // its default, and costs nothing (format.md §10).
        match &at.present {
            Some(cond) => c.open(&format!("if ({cond}) {{")),
            None => c.open("{"),
        }
        match at.ctx {
            Ctx::Table { off } => c.line(&format!(
                "km_array {a} = km_field_array(r, t, {off}u, {elem_size}u, {limit});"
            )),
            Ctx::Pos { pos, .. } => c.line(&format!(
                "km_array {a} = km_array_at(r, {pos}, {elem_size}u, {limit});"
            )),
        }
        walk::read_array(self, c, array, data, place, &a);
        if at.present.is_some() {
            c.reopen("} else {");
            match at.default {
                // Text with a default (a literal: it lives as long as the
                // program).
                Some(DefaultValue::Text(text)) => {
                    let text = c_string(text);
                    c.line(&format!("{place}.ptr = {text};"));
                    c.line(&format!("{place}.len = sizeof {text} - 1;"));
                }
                Some(other) => unreachable!("an array's default is text: {other:?}"),
                None => c.line(&format!("memset(&{place}, 0, sizeof {place});")),
            }
        }
        c.close("}");
    }

    fn text(&self, c: &mut Code, utf16: bool, charge: u32, place: &str, a: &str) {
        self.charge_each(c, a, charge);
        if utf16 {
            c.try_(&format!("km_arena_utf16(arena, r, {a}, &{place})"));
        } else {
            c.line(&format!("{place} = km_text_of(r, {a});"));
        }
    }

    fn plain(
        &self,
        c: &mut Code,
        elem: ElemType,
        elem_size: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        self.charge_each(c, a, charge);
        self.alloc(c, a, place);
        if elem == ElemType::Scalar(Primitive::Bool) {
            let k = self.each(c, "k", place);
            c.line(&format!(
                "{place}.ptr[{k}] = km_read_u8(r, {a}.offset + {k}) != 0;"
            ));
            c.close("}");
        } else {
            c.open(&format!("if ({a}.len != 0) {{"));
            c.line(&format!(
                "memcpy({place}.ptr, r->mem + {a}.offset, (size_t){a}.len * {elem_size}u);"
            ));
            c.close("}");
        }
    }

    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        self.charge_each(c, a, charge);
        self.alloc(c, a, place);
        let k = self.each(c, "k", place);
        let d = self.d.get();
        let b = format!("a{}", d + 1);
        c.line(&format!(
            "km_array {b} = km_array_at(r, {}, {elem_size}u, {});",
            plus(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_expr(limit)
        ));
        self.deeper(|| walk::read_array(self, c, array, data, &format!("{place}.ptr[{k}]"), &b));
        c.close("}");
    }

    fn aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        self.charge_each(c, a, charge);
        // A C inline struct holds its tables by value, so an element can
        // take far more memory than its stride: what its tables will be
        // charged (Z(I) each, at least) must fit the budget before the
        // array is allocated.
        let held = self.l.of_struct(id).zero;
        if held > 0 {
            c.try_(&format!("km_reserve_each(v, {a}.len, {held}u)"));
        }
        self.read_each(c, a, place, |k| {
            format!(
                "{}_read_at(&{place}.ptr[{k}], v, arena, {})",
                self.n.struct_name(id),
                plus(&format!("{a}.offset"), k, stride)
            )
        });
    }

    // A map decodes as its entries: an array of them (its key order was
    // the writer's to keep, and a validator's to check).
    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        c: &mut Code,
        _array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        DecodePrinter::aos_inline(self, c, id, stride, charge, place, a);
    }

    fn aos_table(&self, c: &mut Code, id: StructId, charge: u32, place: &str, a: &str) {
        self.charge_each(c, a, charge);
        // Each element is charged at least its full size (its zero value's,
        // when malformed): a length the budget cannot pay is refused
        // before its elements are allocated.
        c.try_(&format!(
            "km_reserve_each(v, {a}.len, {})",
            self.full_size(id)
        ));
        self.read_each(c, a, place, |k| {
            format!(
                "{}_read_table(&{place}.ptr[{k}], v, arena, km_table_at(r, km_read_u32(r, {})))",
                self.n.struct_name(id),
                plus(&format!("{a}.offset"), k, OFFSET_SIZE)
            )
        });
    }

    fn soa(&self, c: &mut Code, elem: StructId, place: &str, a: &str) {
        c.try_(&format!(
            "{}_read_soa(v, arena, {a}, &{place}.ptr, &{place}.len)",
            self.n.struct_name(elem)
        ));
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, charge: u32, place: &str, a: &str) {
        self.charge_each(c, a, charge);
        self.read_each(c, a, place, |k| {
            let at = plus(&format!("{a}.offset"), k, UNION_SLOT_SIZE);
            format!(
                "{}_read(&{place}.ptr[{k}], v, arena, {at}, {at} + {UNION_OFFSET_AT}u)",
                self.n.union_name(id)
            )
        });
    }

    fn union_soa(
        &self,
        c: &mut Code,
        id: UnionId,
        tag_size: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        let (tags, offs) = self.union_columns();
        c.line(&format!("uint32_t {tags}, {offs};"));
        c.open(&format!(
            "if (km_union_columns(r, {a}, {tag_size}u, &{tags}, &{offs})) {{"
        ));
        self.charge_each(c, a, charge);
        self.read_each(c, a, place, |k| {
            format!(
                "{}_read(&{place}.ptr[{k}], v, arena, {})",
                self.n.union_name(id),
                union_column_at(&tags, &offs, k, tag_size)
            )
        });
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, soa: bool, place: &str, a: &str) {
        let f = if soa { "bovos" } else { "bovoa" };
        c.try_(&format!(
            "{}_read_{f}(v, arena, {a}, &{place}.ptr, &{place}.len)",
            self.n.union_name(id)
        ));
    }
}

//! One-pass validators (format.md §11), printed from the layout's
//! `SlotCheck` plans: the same checks and the same traversal-budget
//! charges as the other validators, so all accept exactly the same
//! messages.

use karmem_layout::{
    ArrayData, BunchVariant, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::decode::when_present;
use super::{elem_at, limit_arg, lines, plus, prim, Gen};
use crate::emit::Lines;
use crate::walk::{
    validate_array, validate_array_of, validate_slot, Ctx, Here, SlotPrinter, ValidatePrinter,
};

impl Gen<'_> {
    pub(crate) fn validate_function(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let table = self.l.is_table(id);
        let mut body = lines(1);
        for f in &self.l.struct_plan(self.s, id).fields {
            validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
        }
        let mut full = lines(1);
        if table {
            full.line("v.enter()");
        }
        if body.reads() {
            full.line("r = v.r");
        }
        full.splice(&body);
        if table {
            full.line("v.leave()");
        }
        if full.out.is_empty() {
            full.line("pass");
        }
        let sig = if table {
            format!("def _validate_{name}(v: karmem.Validator, t: karmem.Table) -> None:")
        } else {
            format!("def _validate_{name}(v: karmem.Validator, at: int) -> None:")
        };
        self.function(&sig, full);
    }
}

/// `stmt`, run only when the slot is present; a field past its table's
/// `used` is charged what a decoder builds for it beyond the table's
/// bytes, the tables of its zero value (format.md §10).
fn when(c: &mut Lines, at: &Here, stmt: &str) {
    when_present(c, at.present.as_deref(), stmt, at.held);
}

/// Opens a block run when `cond` holds; whether one was opened.
fn open_when(c: &mut Lines, cond: Option<&str>) -> bool {
    match cond {
        Some(cond) => {
            c.open(&format!("if {cond}:"));
            true
        }
        None => false,
    }
}

/// Python prints the validator's plan (crate::walk).
impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Lines, at: &Here) {
        when(c, at, &format!("v.bool_at({})", at.pos));
    }

    fn inline(&self, c: &mut Lines, id: StructId, at: &Here) {
        when(
            c,
            at,
            &format!("_validate_{}(v, {})", self.struct_name(id), at.pos),
        );
    }

    fn table(&self, c: &mut Lines, id: StructId, at: &Here) {
        let r = c.r();
        when(
            c,
            at,
            &format!(
                "_validate_{}(v, v.table({r}.u32({}), {}))",
                self.struct_name(id),
                at.pos,
                self.l.of_struct(id).size
            ),
        );
    }

    fn optional_table(&self, c: &mut Lines, id: StructId, at: &Here) {
        let r = c.r();
        let o = self.fresh("offset");
        let opened = open_when(c, at.present.as_deref());
        c.line(&format!("{o} = {r}.u32({})", at.pos));
        c.open(&format!("if {o} != 0:"));
        c.line(&format!(
            "_validate_{}(v, v.table({o}, {}))",
            self.struct_name(id),
            self.l.of_struct(id).size
        ));
        c.indent -= 1;
        if opened {
            c.indent -= 1;
        }
    }

    // The presence byte is 0 or 1 (format.md §4.2); the value is checked
    // only when there is one.
    fn optional(&self, c: &mut Lines, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        let r = c.r();
        let pos = &at.pos;
        let opened = open_when(c, at.present.as_deref());
        c.line(&format!("v.bool_at({pos})"));
        if checked {
            c.open(&format!("if {r}.u8({pos}) != 0:"));
            let inner = Ctx::Pos {
                pos: plus(pos, value_at),
                present: None,
            };
            validate_slot(self, c, value, &inner);
            c.indent -= 1;
        }
        if opened {
            c.indent -= 1;
        }
    }

    fn union(&self, c: &mut Lines, id: UnionId, at: &Here) {
        when(
            c,
            at,
            &format!(
                "_validate_{}(v, {}, {})",
                self.n.union_name(id),
                at.pos,
                plus(&at.pos, UNION_OFFSET_AT)
            ),
        );
    }

    fn bools(&self, c: &mut Lines, len: u32, at: &Here) {
        when(c, at, &format!("v.bools({}, {len})", at.pos));
    }

    fn inline_each(&self, c: &mut Lines, id: StructId, len: u32, stride: u32, at: &Here) {
        let j = self.fresh("j");
        let opened = open_when(c, at.present.as_deref());
        c.open(&format!("for {j} in range({len}):"));
        c.line(&format!(
            "_validate_{}(v, {})",
            self.struct_name(id),
            elem_at(&at.pos, &j, stride)
        ));
        c.indent -= 1;
        if opened {
            if at.held > 0 {
                c.reopen("else:");
                c.line(&format!("v.charge({})", at.held));
            }
            c.indent -= 1;
        }
    }

    fn array(
        &self,
        c: &mut Lines,
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
            Ctx::Table { off } => format!("v.field_array(t, {off}, {es}, {limit})"),
            Ctx::Pos { .. } => format!("v.array({}, {es}, {limit})", at.pos),
        };
        // A table's array field is checked through field_array (absent is
        // valid); a positioned one only when present.
        let cond = match at.ctx {
            Ctx::Table { .. } => None,
            Ctx::Pos { .. } => at.present.clone(),
        };
        let opened = open_when(c, cond.as_deref());
        if each {
            c.line(&format!("{a} = {call}"));
            validate_array(self, c, array, data, &a);
        } else {
            c.line(&call);
        }
        if opened {
            c.indent -= 1;
        }
    }

    // Each element is an array reference, checked as a field's.
    fn nested(
        &self,
        c: &mut Lines,
        inner: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let (k, a2) = (self.fresh("k"), self.fresh("a"));
        let call = format!(
            "v.array({}, {elem_size}, {})",
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        );
        c.open(&format!("for {k} in range({a}.len):"));
        if each {
            c.line(&format!("{a2} = {call}"));
            validate_array(self, c, inner, data, &a2);
        } else {
            c.line(&call);
        }
        c.indent -= 1;
    }

    fn text(&self, c: &mut Lines, utf16: bool, a: &str) {
        let f = if utf16 { "utf16" } else { "utf8" };
        c.line(&format!("v.{f}({a}.offset, {a}.len)"));
    }

    fn bool_block(&self, c: &mut Lines, a: &str) {
        c.line(&format!("v.bools({a}.offset, {a}.len)"));
    }

    fn union_aos(&self, c: &mut Lines, id: UnionId, a: &str) {
        let i = self.fresh("i");
        let at = elem_at(&format!("{a}.offset"), &i, UNION_SLOT_SIZE);
        c.open(&format!("for {i} in range({a}.len):"));
        c.line(&format!(
            "_validate_{}(v, {at}, {})",
            self.n.union_name(id),
            plus(&at, UNION_OFFSET_AT)
        ));
        c.indent -= 1;
    }

    fn union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, a: &str) {
        let (i, cols) = (self.fresh("i"), self.fresh("cols"));
        c.line(&format!("{cols} = v.union_columns({a}, {tw})"));
        c.open(&format!("if {cols} is not None:"));
        c.open(&format!("for {i} in range({a}.len):"));
        c.line(&format!(
            "_validate_{}(v, {}, {})",
            self.n.union_name(id),
            elem_at(&format!("{cols}[0]"), &i, tw),
            elem_at(&format!("{cols}[1]"), &i, OFFSET_SIZE)
        ));
        c.indent -= 2;
    }

    fn bunch(&self, c: &mut Lines, _id: UnionId, variants: &[BunchVariant], a: &str) {
        let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
        let (entries, e, entry, tag) = (
            self.fresh("entries"),
            self.fresh("e"),
            self.fresh("entry"),
            self.fresh("tag"),
        );
        let list = if tags.len() == 1 {
            format!("({},)", tags[0])
        } else {
            format!("({})", tags.join(", "))
        };
        c.line(&format!("{entries} = v.bunch({a}, {list})"));
        c.open(&format!("for {e} in range(1, {entries} + 1):"));
        c.line(&format!("{entry} = {a}.offset + {BUNCH_ENTRY_SIZE} * {e}"));
        c.line(&format!("{tag} = v.r.u32({entry})"));
        for (n, bv) in variants.iter().enumerate() {
            let es = bv.data.elem_size();
            let sub = self.fresh("a");
            let check = self.l.struct_array_check(&bv.data);
            let kw = if n == 0 { "if" } else { "elif" };
            c.open(&format!("{kw} {tag} == {}:", bv.tag));
            let call = format!("v.array({entry} + {BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.NO_LIMIT)");
            if check.is_nothing() {
                c.line(&call);
            } else {
                c.line(&format!("{sub} = {call}"));
                validate_array_of(self, c, check, &sub);
            }
            c.indent -= 1;
        }
        c.indent -= 1;
    }

    fn map(&self, c: &mut Lines, id: StructId, stride: u32, each: bool, a: &str) {
        let r = c.r();
        ValidatePrinter::aos_inline(self, c, id, stride, each, a);
        // The look-up's binary search relies on the order (format.md
        // §5.5): keys strictly increasing.
        let key = &self.l.of_struct(id).fields[0];
        let k = self.fresh("k");
        let at = |i: &str| plus(&elem_at(&format!("{a}.offset"), i, stride), key.offset);
        let prev = format!("({k} - 1)");
        let (before, after) = match &key.slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => (
                format!("{r}.{}({})", prim(*p), at(&prev)),
                format!("{r}.{}({})", prim(*p), at(&k)),
            ),
            // Text keys in byte order.
            _ => (
                format!("{r}.bytes_of({r}.array({}, 1, karmem.NO_LIMIT))", at(&prev)),
                format!("{r}.bytes_of({r}.array({}, 1, karmem.NO_LIMIT))", at(&k)),
            ),
        };
        let (p, q) = (self.fresh("prev"), self.fresh("key"));
        c.open(&format!("for {k} in range(1, {a}.len):"));
        c.line(&format!("{p} = {before}"));
        c.line(&format!("{q} = {after}"));
        c.open(&format!("if {p} >= {q}:"));
        c.line(&format!(
            "raise karmem.Error(\"MalformedArray\", {a}.offset)"
        ));
        c.indent -= 2;
    }

    fn aos_inline(&self, c: &mut Lines, id: StructId, stride: u32, each: bool, a: &str) {
        let i = self.fresh("i");
        if each {
            c.open(&format!("for {i} in range({a}.len):"));
            c.line(&format!(
                "_validate_{}(v, {})",
                self.struct_name(id),
                elem_at(&format!("{a}.offset"), &i, stride)
            ));
            c.indent -= 1;
        }
    }

    fn aos_table(&self, c: &mut Lines, id: StructId, a: &str) {
        let i = self.fresh("i");
        c.open(&format!("for {i} in range({a}.len):"));
        c.line(&format!(
            "_validate_{}(v, v.table(v.r.u32({}), {}))",
            self.struct_name(id),
            elem_at(&format!("{a}.offset"), &i, OFFSET_SIZE),
            self.l.of_struct(id).size
        ));
        c.indent -= 1;
    }

    fn soa(&self, c: &mut Lines, elem: StructId, a: &str) {
        c.line(&format!("_validate_soa_{}(v, {a})", self.struct_name(elem)));
    }
}

impl Gen<'_> {
    /// `_validate_soa_<T>`: the directory, then each column's checks for
    /// every element (`cols[k]` is 0 when the writer did not write it).
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut checks = lines(1);
        for (k, col) in soa.columns.iter().enumerate() {
            if self.l.slot_check(&col.slot) == SlotCheck::Nothing {
                continue;
            }
            let i = self.fresh("i");
            let ctx = Ctx::Pos {
                pos: elem_at(&format!("cols[{k}]"), &i, col.size),
                present: None,
            };
            checks.open(&format!("if cols[{k}] != 0:"));
            checks.open(&format!("for {i} in range(a.len):"));
            validate_slot(self, &mut checks, &col.slot, &ctx);
            checks.indent -= 2;
        }
        let mut body = lines(1);
        let held_any = soa
            .columns
            .iter()
            .any(|col| self.l.absent_charge(&col.slot) > 0);
        if checks.out.is_empty() && !held_any {
            body.line(&format!("v.soa(a, _COLS_{name})"));
        } else {
            body.line(&format!("cols = v.soa(a, _COLS_{name})"));
        }
        // What a decoder builds for a column the directory does not list,
        // beyond its width: as the reader charges it, per element of the
        // capacity (format.md §10).
        for (k, col) in soa.columns.iter().enumerate() {
            let held = self.l.absent_charge(&col.slot);
            if held > 0 {
                body.open(&format!("if cols[{k}] == 0 and a.cap > 0:"));
                body.line(&format!("v.charge(a.cap * {held})"));
                body.indent -= 1;
            }
        }
        if checks.reads() {
            body.line("r = v.r");
        }
        body.splice(&checks);
        self.function(
            &format!("def _validate_soa_{name}(v: karmem.Validator, a: karmem.ArrayRef) -> None:"),
            body,
        );
    }

    pub(crate) fn union_validator(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut b = lines(1);
        b.line("r = v.r");
        b.line(&format!("tag = r.{}(tag_at)", prim(u.tag)));
        b.line("offset = r.u32(offset_at)");
        for (i, v) in u.variants.iter().enumerate() {
            let vt = self.struct_name(v.ty);
            let kw = if i == 0 { "if" } else { "elif" };
            b.open(&format!("{kw} tag == {}:", v.tag));
            if self.l.is_table(v.ty) {
                b.open("if offset == 0:");
                b.line("raise karmem.Error(\"InvalidUnion\", tag_at, tag)");
                b.indent -= 1;
                b.line(&format!(
                    "_validate_{vt}(v, v.table(offset, {}))",
                    self.l.of_struct(v.ty).size
                ));
            } else {
                let size = self.l.of_struct(v.ty).size;
                b.open(&format!("if not r.inline_at(offset, {size}):"));
                b.line("raise karmem.Error(\"InvalidUnion\", tag_at, tag)");
                b.indent -= 1;
                b.line(&format!("v.charge({size})"));
                b.line(&format!("_validate_{vt}(v, offset)"));
            }
            b.indent -= 1;
        }
        // 0 is "no value"; unknown tags come from newer writers and are
        // never dereferenced.
        self.function(
            &format!(
                "def _validate_{name}(v: karmem.Validator, tag_at: int, offset_at: int) -> None:"
            ),
            b,
        );
    }
}

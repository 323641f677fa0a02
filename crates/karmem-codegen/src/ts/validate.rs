//! Validation as straight-line code: per table and per inline struct that
//! needs a look a checker of its fields, per SoA element struct a checker
//! of its columns, per union a checker of its slot and of its bunch
//! arrays, each printed only when called. They throw the errors of the
//! library's interpreted `validate` (ts/src/validate.ts) at the same
//! places, charging the same budget in the same order (format.md §10,
//! §11); what the plan checks comes from the shared walker (crate::walk),
//! the checks that do not depend on the schema from `karmem.Checking`.

use std::collections::BTreeSet;

use karmem_layout::{
    ArrayData, BunchVariant, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::decode::{elem_at, plus};
use super::{is_big, prim_str, safe_units, Gen};
use crate::emit::Lines;
use crate::walk::{
    validate_array, validate_array_of, validate_slot, Ctx, Here, SlotPrinter, ValidatePrinter,
};

/// A checker the printed code calls, printed once.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Checker {
    Table(StructId),
    Inline(StructId),
    Soa(StructId),
    Union(UnionId),
}

fn limit_arg(limit: Option<u32>) -> String {
    limit.map_or("null".into(), |n| n.to_string())
}

impl Gen<'_> {
    /// The name of a checker, recorded as called.
    fn checker(&self, k: Checker) -> String {
        self.checkers.borrow_mut().insert(k);
        match k {
            Checker::Table(id) => format!("$check{}", self.check_name(id)),
            Checker::Inline(id) => format!("$checkAt{}", self.check_name(id)),
            Checker::Soa(id) => format!("$checkSoa{}", self.check_name(id)),
            Checker::Union(id) => format!("$check{}", self.n.union_name(id)),
        }
    }

    /// A struct's name in its checkers' names (a checker reads no value,
    /// so a struct without an interface has one too).
    fn check_name(&self, id: StructId) -> String {
        self.n.struct_name(id)
    }

    /// The body of the companion's `validate` up to the viewer: returns
    /// the statements.
    pub(super) fn validate_root(&self, id: StructId) -> Vec<String> {
        let mut v = vec!["const v = new karmem.Checking(input, limits);".to_string()];
        if self.l.is_table(id) {
            v.push(format!("{}(v, 8);", self.checker(Checker::Table(id))));
        } else {
            v.push(format!("v.inlineRoot({});", self.l.of_struct(id).size));
            if self.l.inline_needs_validation(id) {
                v.push(format!("{}(v, 8);", self.checker(Checker::Inline(id))));
            }
        }
        v.push("const r = v.trusted;".to_string());
        v
    }

    /// Every checker called, and those they call, in a stable order.
    pub(super) fn checkers_fns(&self, c: &mut Lines) {
        c.line("");
        c.line("// ---- validation, straight-line per struct (docs/typescript.md) ----");
        let mut done = BTreeSet::new();
        loop {
            let todo: Vec<Checker> = self
                .checkers
                .borrow()
                .iter()
                .filter(|k| !done.contains(*k))
                .copied()
                .collect();
            if todo.is_empty() {
                break;
            }
            for k in todo {
                done.insert(k);
                match k {
                    Checker::Table(id) => self.table_checker(c, id),
                    Checker::Inline(id) => self.inline_checker(c, id),
                    Checker::Soa(id) => self.soa_checker(c, id),
                    Checker::Union(id) => self.union_checker(c, id),
                }
            }
        }
    }

    fn fields_check(&self, body: &mut Lines, id: StructId) {
        let plan = self.l.struct_plan(self.s, id);
        for f in &plan.fields {
            let ctx = self.field_ctx(f.access);
            validate_slot(self, body, f.slot, &ctx);
        }
    }

    fn table_checker(&self, c: &mut Lines, id: StructId) {
        let name = self.checker(Checker::Table(id));
        let size = self.l.of_struct(id).size;
        let plan = self.l.struct_plan(self.s, id);
        let checked = plan
            .fields
            .iter()
            .any(|f| self.l.slot_check(f.slot) != SlotCheck::Nothing);
        let mut body = Lines::new("  ", c.indent + 1);
        if checked {
            body.line(&format!("const tu = v.table(to, {size});"));
        } else {
            body.line(&format!("v.table(to, {size});"));
        }
        self.fields_check(&mut body, id);
        body.line("v.leave();");
        c.line("");
        c.open(&format!(
            "function {name}(v: karmem.Checking, to: number): void {{"
        ));
        if body.reads() {
            c.line("const r = v.r;");
        }
        c.splice(&body);
        c.close("}");
    }

    fn inline_checker(&self, c: &mut Lines, id: StructId) {
        let name = self.checker(Checker::Inline(id));
        let mut body = Lines::new("  ", c.indent + 1);
        self.fields_check(&mut body, id);
        c.line("");
        c.open(&format!(
            "function {name}(v: karmem.Checking, at: number): void {{"
        ));
        if body.reads() {
            c.line("const r = v.r;");
        }
        c.splice(&body);
        c.close("}");
    }

    /// The directory, the width's and the unlisted columns' charges, then
    /// each listed column that needs a look, element by element.
    fn soa_checker(&self, c: &mut Lines, id: StructId) {
        let name = self.checker(Checker::Soa(id));
        let plan = self.l.soa_plan(self.s, id);
        let held: Vec<String> = plan
            .columns
            .iter()
            .map(|col| safe_units(self.l.absent_charge(col.slot)).to_string())
            .collect();
        // Declared with the decoders (an SoA element has a type).
        let cols = format!("$cols{}", self.n.struct_name(id));
        let mut body = Lines::new("  ", c.indent + 1);
        let looked: Vec<usize> = plan
            .columns
            .iter()
            .enumerate()
            .filter(|(_, col)| self.l.slot_check(col.slot) != SlotCheck::Nothing)
            .map(|(k, _)| k)
            .collect();
        let call = format!(
            "v.soa(a, {cols}, {}, [{}])",
            plan.element_charge,
            held.join(", ")
        );
        if looked.is_empty() {
            body.line(&format!("{call};"));
        } else {
            body.line(&format!("const pos = {call};"));
            body.line("if (pos === null) return;");
            for k in looked {
                let col = &plan.columns[k];
                let stride = self.l.soa(id).columns[k].size;
                body.line(&format!("const c{k} = pos[{k}]!;"));
                body.open(&format!("if (c{k} !== 0) {{"));
                body.open("for (let i = 0; i < a.len; i++) {");
                let ctx = Ctx::Pos {
                    pos: elem_at(&format!("c{k}"), "i", stride),
                    present: None,
                };
                validate_slot(self, &mut body, col.slot, &ctx);
                body.close("}");
                body.close("}");
            }
        }
        c.line("");
        c.open(&format!(
            "function {name}(v: karmem.Checking, a: karmem.ArrayRef): void {{"
        ));
        if body.reads() {
            c.line("const r = v.r;");
        }
        c.splice(&body);
        c.close("}");
    }

    /// Tag 0 and tags this schema does not know are no value; a table
    /// variant's offset is not 0, an inline variant's block is in place.
    fn union_checker(&self, c: &mut Lines, id: UnionId) {
        let name = self.checker(Checker::Union(id));
        let u = &self.s.unions[id];
        let mut body = Lines::new("  ", c.indent + 1);
        let r = body.r();
        let tag = if is_big(u.tag) {
            format!("Number({r}.{}(tagAt))", prim_str(u.tag))
        } else {
            format!("{r}.{}(tagAt)", prim_str(u.tag))
        };
        body.open(&format!("switch ({tag}) {{"));
        for var in &u.variants {
            body.open(&format!("case {}: {{", var.tag));
            body.line("const o = r.u32(offAt);");
            if self.l.is_table(var.ty) {
                body.line(&format!("v.tableVariant(tagAt, {}, o);", var.tag));
                body.line(&format!("{}(v, o);", self.checker(Checker::Table(var.ty))));
            } else {
                body.line(&format!(
                    "v.inlineVariant(tagAt, {}, o, {});",
                    var.tag,
                    self.l.of_struct(var.ty).size
                ));
                if self.l.inline_needs_validation(var.ty) {
                    body.line(&format!("{}(v, o);", self.checker(Checker::Inline(var.ty))));
                }
            }
            body.line("return;");
            body.close("}");
        }
        body.close("}");
        c.line("");
        c.open(&format!(
            "function {name}(v: karmem.Checking, tagAt: number, offAt: number): void {{"
        ));
        c.line("const r = v.r;");
        c.splice(&body);
        c.close("}");
    }

    /// A table field past `used`: what its zero value holds (§10).
    fn absent_charge(&self, c: &mut Lines, at: &Here) {
        if at.held > 0 {
            c.line(&format!("else v.charge({});", safe_units(at.held)));
        }
    }

    /// `stmt` when the slot is present, else its absent charge.
    fn when(&self, c: &mut Lines, at: &Here, stmt: &str) {
        match &at.present {
            None => c.line(stmt),
            Some(cond) => {
                c.line(&format!("if ({cond}) {stmt}"));
                self.absent_charge(c, at);
            }
        }
    }

    /// A block when the slot is present, else its absent charge.
    fn when_block(&self, c: &mut Lines, at: &Here, body: impl FnOnce(&mut Lines)) {
        match &at.present {
            None => c.open("{"),
            Some(cond) => c.open(&format!("if ({cond}) {{")),
        }
        body(c);
        if at.present.is_some() && at.held > 0 {
            c.reopen("} else {");
            c.line(&format!("v.charge({});", safe_units(at.held)));
        }
        c.close("}");
    }
}

impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Lines, at: &Here) {
        self.when(c, at, &format!("v.bool({});", at.pos));
    }

    fn inline(&self, c: &mut Lines, id: StructId, at: &Here) {
        let f = self.checker(Checker::Inline(id));
        self.when(c, at, &format!("{f}(v, {});", at.pos));
    }

    fn table(&self, c: &mut Lines, id: StructId, at: &Here) {
        let f = self.checker(Checker::Table(id));
        let r = c.r();
        self.when(c, at, &format!("{f}(v, {r}.u32({}));", at.pos));
    }

    fn optional_table(&self, c: &mut Lines, id: StructId, at: &Here) {
        let f = self.checker(Checker::Table(id));
        let o = self.fresh("o");
        let r = c.r();
        self.when_block(c, at, |c| {
            c.line(&format!("const {o} = {r}.u32({});", at.pos));
            c.line(&format!("if ({o} !== 0) {f}(v, {o});"));
        });
    }

    fn optional(
        &self,
        c: &mut Lines,
        value_at: u32,
        value: &karmem_layout::Slot,
        checked: bool,
        at: &Here,
    ) {
        let r = c.r();
        self.when_block(c, at, |c| {
            c.line(&format!("v.bool({});", at.pos));
            if checked {
                c.open(&format!("if ({r}.u8({}) === 1) {{", at.pos));
                let inner = Ctx::Pos {
                    pos: plus(&at.pos, value_at),
                    present: None,
                };
                validate_slot(self, c, value, &inner);
                c.close("}");
            }
        });
    }

    fn union(&self, c: &mut Lines, id: UnionId, at: &Here) {
        let f = self.checker(Checker::Union(id));
        self.when(
            c,
            at,
            &format!("{f}(v, {}, {});", at.pos, plus(&at.pos, UNION_OFFSET_AT)),
        );
    }

    fn bools(&self, c: &mut Lines, len: u32, at: &Here) {
        let j = self.fresh("j");
        self.when(
            c,
            at,
            &format!(
                "for (let {j} = 0; {j} < {len}; {j}++) v.bool({});",
                elem_at(&at.pos, &j, 1)
            ),
        );
    }

    fn inline_each(&self, c: &mut Lines, id: StructId, len: u32, stride: u32, at: &Here) {
        let f = self.checker(Checker::Inline(id));
        let j = self.fresh("j");
        self.when(
            c,
            at,
            &format!(
                "for (let {j} = 0; {j} < {len}; {j}++) {f}(v, {});",
                elem_at(&at.pos, &j, stride)
            ),
        );
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
        let a = self.fresh("a");
        self.when_block(c, at, |c| {
            let call = format!("v.ref({}, {es}, {})", at.pos, limit_arg(limit));
            if each {
                c.line(&format!("const {a} = {call};"));
                validate_array(self, c, array, data, &a);
            } else {
                c.line(&format!("{call};"));
            }
        });
    }

    fn text(&self, c: &mut Lines, utf16: bool, a: &str) {
        let f = if utf16 { "utf16" } else { "utf8" };
        c.line(&format!("v.{f}({a});"));
    }

    fn bool_block(&self, c: &mut Lines, a: &str) {
        let k = self.fresh("k");
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) v.bool({a}.offset + {k});"
        ));
    }

    fn nested(
        &self,
        c: &mut Lines,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let (k, a2) = (self.fresh("k"), self.fresh("a"));
        c.open(&format!("for (let {k} = 0; {k} < {a}.len; {k}++) {{"));
        let call = format!(
            "v.ref({}, {es}, {})",
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        );
        if each {
            c.line(&format!("const {a2} = {call};"));
            validate_array(self, c, array, data, &a2);
        } else {
            c.line(&format!("{call};"));
        }
        c.close("}");
    }

    fn union_aos(&self, c: &mut Lines, id: UnionId, a: &str) {
        let f = self.checker(Checker::Union(id));
        let k = self.fresh("k");
        let at = elem_at(&format!("{a}.offset"), &k, UNION_SLOT_SIZE);
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {f}(v, {at}, {});",
            plus(&at, UNION_OFFSET_AT)
        ));
    }

    fn union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, a: &str) {
        let f = self.checker(Checker::Union(id));
        let (k, u) = (self.fresh("k"), self.fresh("u"));
        c.line(&format!("const {u} = v.unionColumns({a}, {tw});"));
        c.line(&format!(
            "if ({u} !== null) for (let {k} = 0; {k} < {a}.len; {k}++) {f}(v, {}, {});",
            elem_at(&format!("{u}.tags"), &k, tw),
            elem_at(&format!("{u}.offsets"), &k, OFFSET_SIZE)
        ));
    }

    fn bunch(&self, c: &mut Lines, _id: UnionId, variants: &[BunchVariant], a: &str) {
        let (k, e, s) = (self.fresh("k"), self.fresh("e"), self.fresh("s"));
        let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
        let r = c.r();
        c.line(&format!("const {k} = v.bunch({a}, [{}]);", tags.join(", ")));
        c.open(&format!("for (let {e} = 1; {e} <= {k}; {e}++) {{"));
        c.open(&format!(
            "switch ({r}.u32({})) {{",
            elem_at(&format!("{a}.offset"), &e, BUNCH_ENTRY_SIZE)
        ));
        for bv in variants {
            c.open(&format!("case {}: {{", bv.tag));
            let check = self.l.struct_array_check(&bv.data);
            let call = format!(
                "v.ref({} + {BUNCH_ENTRY_ARRAY_AT}, {}, null)",
                elem_at(&format!("{a}.offset"), &e, BUNCH_ENTRY_SIZE),
                bv.data.elem_size()
            );
            if check.is_nothing() {
                c.line(&format!("{call};"));
            } else {
                c.line(&format!("const {s} = {call};"));
                validate_array_of(self, c, check, &s);
            }
            c.line("break;");
            c.close("}");
        }
        c.close("}");
        c.close("}");
    }

    fn map(&self, c: &mut Lines, id: StructId, stride: u32, each: bool, a: &str) {
        if each {
            ValidatePrinter::aos_inline(self, c, id, stride, true, a);
        }
        let key = &self.l.of_struct(id).fields[0];
        // Keys are numbers, compared as numbers, or text, compared by
        // its bytes (null).
        let prim = match &key.slot {
            karmem_layout::Slot::Scalar(p) | karmem_layout::Slot::Enum { repr: p, .. } => {
                format!("\"{}\"", prim_str(*p))
            }
            _ => "null".into(),
        };
        c.line(&format!(
            "v.mapOrder({a}, {stride}, {}, {prim});",
            key.offset
        ));
    }

    fn aos_inline(&self, c: &mut Lines, id: StructId, stride: u32, each: bool, a: &str) {
        if !each {
            return;
        }
        let f = self.checker(Checker::Inline(id));
        let k = self.fresh("k");
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {f}(v, {});",
            elem_at(&format!("{a}.offset"), &k, stride)
        ));
    }

    fn aos_table(&self, c: &mut Lines, id: StructId, a: &str) {
        let f = self.checker(Checker::Table(id));
        let k = self.fresh("k");
        let r = c.r();
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {f}(v, {r}.u32({}));",
            elem_at(&format!("{a}.offset"), &k, OFFSET_SIZE)
        ));
    }

    fn soa(&self, c: &mut Lines, elem: StructId, a: &str) {
        let f = self.checker(Checker::Soa(elem));
        c.line(&format!("{f}(v, {a});"));
    }
}

//! One-pass validators (format.md §11): `validate` per struct, and the
//! per-table, per-inline-struct, per-SoA and per-union checks they call,
//! printed from the layout's `SlotCheck` plans. The same checks and the
//! same traversal-budget charges as the Go validators, so both accept
//! exactly the same messages. SoA arrays are checked column by column,
//! element by element: the library's column-wise fast paths
//! (`arrayColumn`, `utf8Column`, `soaColumn`) decide and charge the same.

use karmem_layout::{
    ArrayData, BunchVariant, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{elem_at, limit_arg, plus, prim, Gen};
use crate::walk::{
    validate_array, validate_array_of, validate_slot, Ctx, Here, SlotPrinter, ValidatePrinter,
};

impl Gen<'_> {
    pub(crate) fn validate_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let inner = self.c.indent + 1;

        self.c.line("");
        self.c
            .line("/// Checks a whole message whose root is a `Self`, once (docs/format.md");
        self.c
            .line("/// §11). `validateFault` also says where the fault is.");
        self.c
            .open("pub fn validate(r: karmem.Reader) ValidateError!void {");
        self.c.line("var v: karmem.Validator = .init(r);");
        self.c.line(&format!("return {name}.validateRoot(&v);"));
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// `validate`, recording the kind and place of a fault in `fault`.");
        self.c.open(
            "pub fn validateFault(r: karmem.Reader, fault: *karmem.Fault) ValidateError!void {",
        );
        self.c.line("var v: karmem.Validator = .init(r);");
        self.c
            .open(&format!("{name}.validateRoot(&v) catch |err| {{"));
        self.c.line("fault.* = v.fault;");
        self.c.line("return err;");
        self.c.close("};");
        self.c.close("}");

        self.c.line("");
        self.c
            .open("fn validateRoot(v: *karmem.Validator) ValidateError!void {");
        if table {
            self.c.line(&format!(
                "try {name}.validateTable(v, try v.root({}));",
                sl.size
            ));
        } else {
            let needed = 8 + sl.size as u64;
            self.c.open(&format!("if (v.r.size() < {needed}) {{"));
            self.c.line(&format!(
                "v.fault = .{{ .kind = error.Truncated, .offset = 0, .value = {needed} }};"
            ));
            self.c.line("return error.Truncated;");
            self.c.close("}");
            self.c
                .line(&format!("try {name}.validateAt(v, karmem.header_size);"));
        }
        self.c.close("}");

        let mut body = Code::new(inner);
        for f in &self.l.struct_plan(self.s, id).fields {
            validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
        }
        let reads = body.reads();
        let mut full = Code::new(inner);
        if table {
            full.local("v");
            full.line("try v.enter();");
        }
        if reads {
            full.local("v");
            full.line("const r = v.r;");
        }
        full.splice(&body);
        if table {
            full.line("v.leave();");
        }
        let sig = if table {
            "fn validateTable(v: *karmem.Validator, t: karmem.Table) karmem.ValidateError!void {"
        } else {
            "fn validateAt(v: *karmem.Validator, at: u32) karmem.ValidateError!void {"
        };
        self.function(sig, &["v", "t", "at"], full);
    }
}

/// Zig prints the validator's plan (crate::walk): each node below is one
/// kind of check.
impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Code, at: &Here) {
        c.place_of(at);
        c.local("v");
        when(c, at, &format!("try v.boolAt({});", at.pos));
    }

    fn inline(&self, c: &mut Code, id: StructId, at: &Here) {
        c.place_of(at);
        c.local("v");
        when(
            c,
            at,
            &format!("try {}.validateAt(v, {});", self.n.struct_name(id), at.pos),
        );
    }

    fn table(&self, c: &mut Code, id: StructId, at: &Here) {
        c.place_of(at);
        c.local("v");
        let r = c.r();
        when(
            c,
            at,
            &format!(
                "try {}.validateTable(v, try v.table({r}.load(u32, {}), {}));",
                self.n.struct_name(id),
                at.pos,
                self.l.of_struct(id).size
            ),
        );
    }

    fn optional_table(&self, c: &mut Code, id: StructId, at: &Here) {
        c.place_of(at);
        c.local("v");
        let r = c.r();
        let o = self.fresh("offset");
        open_when(c, at.present.as_deref());
        c.line(&format!("const {o} = {r}.load(u32, {});", at.pos));
        c.line(&format!(
            "if ({o} != 0) try {}.validateTable(v, try v.table({o}, {}));",
            self.n.struct_name(id),
            self.l.of_struct(id).size
        ));
        c.close("}");
    }

    // The presence byte is 0 or 1 (format.md §4.2); the value is checked
    // only when there is one.
    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        c.place_of(at);
        c.local("v");
        let r = c.r();
        let pos = &at.pos;
        open_when(c, at.present.as_deref());
        c.line(&format!("try v.boolAt({pos});"));
        if checked {
            c.open(&format!("if ({r}.load(u8, {pos}) != 0) {{"));
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
        c.place_of(at);
        c.local("v");
        when(
            c,
            at,
            &format!(
                "try validate{}(v, {}, {});",
                self.n.union_name(id),
                at.pos,
                plus(&at.pos, UNION_OFFSET_AT)
            ),
        );
    }

    fn bools(&self, c: &mut Code, len: u32, at: &Here) {
        c.place_of(at);
        c.local("v");
        when(c, at, &format!("try v.bools({}, {len});", at.pos));
    }

    fn inline_each(&self, c: &mut Code, id: StructId, len: u32, stride: u32, at: &Here) {
        c.place_of(at);
        c.local("v");
        let j = self.fresh("j");
        when(
            c,
            at,
            &format!(
                "for (0..{len}) |{j}| try {}.validateAt(v, {});",
                self.n.struct_name(id),
                elem_at(&at.pos, &j, stride)
            ),
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
        c.place_of(at);
        c.local("v");
        let limit = limit_arg(limit);
        let a = self.fresh("a");
        let mut inner = Code::new(c.indent + 1);
        validate_array(self, &mut inner, array, data, &a);
        let call = match at.ctx {
            Ctx::Table { off } => format!("v.fieldArray(t, {off}, {es}, {limit})"),
            Ctx::Pos { .. } => format!("v.array({}, {es}, {limit})", at.pos),
        };
        // A table's array field is checked through fieldArray (absent is
        // valid); a positioned one only when present.
        let cond = match at.ctx {
            Ctx::Table { .. } => None,
            Ctx::Pos { .. } => at.present.clone(),
        };
        if !each {
            match &cond {
                Some(cond) => c.line(&format!("if ({cond}) _ = try {call};")),
                None => c.line(&format!("_ = try {call};")),
            }
        } else {
            open_when(c, cond.as_deref());
            c.line(&format!("const {a} = try {call};"));
            c.append(inner);
            c.close("}");
        }
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
        c.local("v");
        let (k, a2) = (self.fresh("k"), self.fresh("a"));
        let call = format!(
            "v.array({}, {elem_size}, {})",
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        );
        let mut checks = Code::new(c.indent + 1);
        validate_array(self, &mut checks, inner, data, &a2);
        if !each {
            c.line(&format!("for (0..{a}.len) |{k}| _ = try {call};"));
        } else {
            c.open(&format!("for (0..{a}.len) |{k}| {{"));
            c.line(&format!("const {a2} = try {call};"));
            c.append(checks);
            c.close("}");
        }
    }

    fn text(&self, c: &mut Code, utf16: bool, a: &str) {
        c.local("v");
        let f = if utf16 { "utf16" } else { "utf8" };
        c.line(&format!("try v.{f}({a}.offset, {a}.len);"));
    }

    fn bool_block(&self, c: &mut Code, a: &str) {
        c.local("v");
        c.line(&format!("try v.bools({a}.offset, {a}.len);"));
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, a: &str) {
        c.local("v");
        let i = self.fresh("i");
        let at = elem_at(&format!("{a}.offset"), &i, UNION_SLOT_SIZE);
        c.line(&format!(
            "for (0..{a}.len) |{i}| try validate{}(v, {at}, {});",
            self.n.union_name(id),
            plus(&at, UNION_OFFSET_AT)
        ));
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, a: &str) {
        c.local("v");
        let (i, cols) = (self.fresh("i"), self.fresh("cols"));
        c.open(&format!("if (try v.unionColumns({a}, {tw})) |{cols}| {{"));
        c.line(&format!(
            "for (0..{a}.len) |{i}| try validate{}(v, {}, {});",
            self.n.union_name(id),
            elem_at(&format!("{cols}.tags"), &i, tw),
            elem_at(&format!("{cols}.offsets"), &i, OFFSET_SIZE)
        ));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, _id: UnionId, variants: &[BunchVariant], a: &str) {
        c.local("v");
        let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
        let (entries, e, entry) = (self.fresh("entries"), self.fresh("e"), self.fresh("entry"));
        // zig fmt: `{1}` for one element, `{ 1, 2 }` for more.
        let list = if tags.len() == 1 {
            format!("{{{}}}", tags[0])
        } else {
            format!("{{ {} }}", tags.join(", "))
        };
        c.line(&format!(
            "const {entries} = try v.bunch({a}, &[_]u32{list});"
        ));
        c.line(&format!("var {e}: u32 = 1;"));
        c.open(&format!("while ({e} <= {entries}) : ({e} += 1) {{"));
        c.line(&format!(
            "const {entry} = {a}.offset + {BUNCH_ENTRY_SIZE} * {e};"
        ));
        c.open(&format!("switch (v.r.load(u32, {entry})) {{"));
        for bv in variants {
            let es = bv.data.elem_size();
            let sub = self.fresh("a");
            let check = self.l.struct_array_check(&bv.data);
            let mut inner = Code::new(c.indent + 1);
            validate_array_of(self, &mut inner, check, &sub);
            let call = format!("v.array({entry} + {BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.no_limit)");
            if check.is_nothing() {
                c.line(&format!("{} => _ = try {call},", bv.tag));
            } else {
                c.open(&format!("{} => {{", bv.tag));
                c.line(&format!("const {sub} = try {call};"));
                c.append(inner);
                c.close("},");
            }
        }
        c.line("else => {},");
        c.close("}");
        c.close("}");
    }

    fn map(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        c.local("v");
        let r = c.r();
        ValidatePrinter::aos_inline(self, c, id, stride, each, a);
        // The look-up's binary search relies on the order (format.md
        // §5.5): keys strictly increasing.
        let key = &self.l.of_struct(id).fields[0];
        let k = self.fresh("k");
        let at = |i: &str| plus(&elem_at(&format!("{a}.offset"), i, stride), key.offset);
        let prev = format!("{k} - 1");
        let ordered = match &key.slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => format!(
                "{r}.load({}, {}) >= {r}.load({}, {})",
                prim(*p),
                at(&prev),
                prim(*p),
                at(&k)
            ),
            // Text keys in byte order.
            _ => format!(
                "std.mem.order(u8, {r}.bytes({r}.array({}, 1, karmem.no_limit)), {r}.bytes({r}.array({}, 1, karmem.no_limit))) != .lt",
                at(&prev),
                at(&k)
            ),
        };
        c.line(&format!("var {k}: usize = 1;"));
        c.open(&format!("while ({k} < {a}.len) : ({k} += 1) {{"));
        c.line(&format!(
            "if ({ordered}) return v.fail(error.MalformedArray, {a}.offset, 0);"
        ));
        c.close("}");
    }

    fn aos_inline(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        let i = self.fresh("i");
        if each {
            c.local("v");
            c.line(&format!(
                "for (0..{a}.len) |{i}| try {}.validateAt(v, {});",
                self.n.struct_name(id),
                elem_at(&format!("{a}.offset"), &i, stride)
            ));
        }
    }

    fn aos_table(&self, c: &mut Code, id: StructId, a: &str) {
        c.local("v");
        let i = self.fresh("i");
        c.line(&format!(
            "for (0..{a}.len) |{i}| try {}.validateTable(v, try v.table(v.r.load(u32, {}), {}));",
            self.n.struct_name(id),
            elem_at(&format!("{a}.offset"), &i, OFFSET_SIZE),
            self.l.of_struct(id).size
        ));
    }

    fn soa(&self, c: &mut Code, elem: StructId, a: &str) {
        c.local("v");
        self.fresh("i");
        c.line(&format!(
            "try validateSoa{}(v, {a});",
            self.n.struct_name(elem)
        ));
    }
}

/// `stmt`, run only when the slot is present; a field past its table's
/// `used` is charged what a decoder builds for it beyond the table's bytes,
/// the tables of its zero value (format.md §10).
fn when(c: &mut Code, at: &Here, stmt: &str) {
    c.when_present(at.present.as_deref(), stmt, at.held);
}

/// Opens a block run when `cond` holds (a plain block when it is `None`).
fn open_when(c: &mut Code, cond: Option<&str>) {
    match cond {
        Some(cond) => c.open(&format!("if ({cond}) {{")),
        None => c.open("{"),
    }
}

impl Gen<'_> {
    /// `validateSoa<T>`: the directory, then each column's checks for
    /// every element (`cols[k]` is 0 when the writer did not write it).
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        let mut checks = Code::new(self.c.indent + 1);
        for (k, col) in soa.columns.iter().enumerate() {
            let i = self.fresh("i");
            let ctx = Ctx::Pos {
                pos: elem_at(&format!("cols[{k}]"), &i, col.size),
                present: None,
            };
            if self.l.slot_check(&col.slot) == SlotCheck::Nothing {
                continue;
            }
            let mut each = Code::new(checks.indent + 2);
            validate_slot(self, &mut each, &col.slot, &ctx);
            checks.open(&format!("if (cols[{k}] != 0) {{"));
            checks.open(&format!("for (0..a.len) |{i}| {{"));
            checks.append(each);
            checks.close("}");
            checks.close("}");
        }
        let reads = checks.reads();
        let text = checks.into_text();
        let mut body = Code::new(self.c.indent + 1);
        body.line(&format!("var cols: [{n}]u32 = undefined;"));
        body.line(&format!("try v.soa(a, &{}, &cols);", self.soa_columns(id)));
        // What a decoder builds for a column the directory does not list,
        // beyond its width: as `readSoa` charges it, per element of the
        // capacity (format.md §10).
        for (k, col) in soa.columns.iter().enumerate() {
            let held = self.l.absent_charge(&col.slot);
            if held > 0 {
                body.line(&format!(
                    "if (cols[{k}] == 0 and a.cap > 0) try v.charge(@as(u64, a.cap) *| {held});"
                ));
            }
        }
        if reads {
            body.line("const r = v.r;");
        }
        body.raw(&text);
        self.function(
            &format!(
                "fn validateSoa{name}(v: *karmem.Validator, a: karmem.ArrayRef) karmem.ValidateError!void {{"
            ),
            &[],
            body,
        );
    }

    pub(crate) fn union_validator(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut b = Code::new(self.c.indent + 1);
        b.line("const r = v.r;");
        if u.tag == Primitive::U32 {
            b.line("const tag = r.load(u32, tag_at);");
        } else {
            b.line(&format!(
                "const tag: u32 = r.load({}, tag_at);",
                prim(u.tag)
            ));
        }
        b.line("const offset = r.load(u32, offset_at);");
        b.open("switch (tag) {");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            b.open(&format!("{} => {{", v.tag));
            if self.l.is_table(v.ty) {
                b.line("if (offset == 0) return v.invalidUnion(tag_at, tag);");
                b.line(&format!(
                    "try {ty}.validateTable(v, try v.table(offset, {}));",
                    self.l.of_struct(v.ty).size
                ));
            } else {
                let size = self.l.of_struct(v.ty).size;
                b.line(&format!(
                    "if (!r.inlineAt(offset, {size})) return v.invalidUnion(tag_at, tag);"
                ));
                b.line(&format!("try v.charge({size});"));
                b.line(&format!("try {ty}.validateAt(v, offset);"));
            }
            b.close("},");
        }
        // 0 is "no value"; unknown tags come from newer writers and are
        // never dereferenced.
        b.line("else => {},");
        b.close("}");
        self.function(
            &format!(
                "fn validate{name}(v: *karmem.Validator, tag_at: u32, offset_at: u32) karmem.ValidateError!void {{"
            ),
            &[],
            b,
        );
    }
}

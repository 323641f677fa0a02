//! One-pass validators (format.md §11): `validate` per struct, and the
//! per-table, per-inline-struct, per-SoA and per-union checks they call,
//! printed from the layout's `SlotCheck` plans. The same checks and the
//! same traversal-budget charges as the Go validators, so both accept
//! exactly the same messages. SoA arrays are checked column by column,
//! element by element: the library's column-wise fast paths
//! (`arrayColumn`, `utf8Column`, `soaColumn`) decide and charge the same.

use karmem_layout::{
    ArrayData, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{elem_at, limit_arg, mentions, plus, prim, Gen};
use crate::walk::Ctx;

impl Gen<'_> {
    pub(crate) fn validate_functions(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.is_table(id);
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
        let text = body.into_text();
        let mut full = Code::new(inner);
        if table {
            full.line("try v.enter();");
        }
        if mentions(&text, "r") {
            full.line("const r = v.r;");
        }
        full.raw(&text);
        if table {
            full.line("v.leave();");
        }
        let sig = if table {
            "fn validateTable(v: *karmem.Validator, t: karmem.Table) karmem.ValidateError!void {"
        } else {
            "fn validateAt(v: *karmem.Validator, at: u32) karmem.ValidateError!void {"
        };
        self.function(sig, &["v", "t", "at"], &[], full);
    }

    pub(crate) fn validate_slot(&self, c: &mut Code, slot: &Slot, ctx: &Ctx) {
        let size = self.l.slot_size(slot);
        let (pos, present): (String, Option<String>) = match ctx {
            Ctx::Table { off } => (
                plus("t.offset", *off),
                Some(format!("t.has({off}, {size})")),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        // One statement, run only when the slot is present; a field past
        // its table's `used` is charged what a decoder builds for it beyond
        // the table's bytes, the tables of its zero value (format.md §10).
        let held = ctx.absent_charge(self.l, slot);
        let when = |c: &mut Code, stmt: &str| c.when_present(present.as_deref(), stmt, held);
        match self.l.slot_check(slot) {
            SlotCheck::Nothing => {}
            SlotCheck::Bool => when(c, &format!("try v.boolAt({pos});")),
            SlotCheck::Inline(id) => when(
                c,
                &format!("try {}.validateAt(v, {pos});", self.struct_name(id)),
            ),
            SlotCheck::Table(id) => when(
                c,
                &format!(
                    "try {}.validateTable(v, try v.table(r.load(u32, {pos}), {}));",
                    self.struct_name(id),
                    self.l.of_struct(id).size
                ),
            ),
            SlotCheck::OptionalTable(id) => {
                let o = self.fresh("offset");
                match &present {
                    Some(cond) => c.open(&format!("if ({cond}) {{")),
                    None => c.open("{"),
                }
                c.line(&format!("const {o} = r.load(u32, {pos});"));
                c.line(&format!(
                    "if ({o} != 0) try {}.validateTable(v, try v.table({o}, {}));",
                    self.struct_name(id),
                    self.l.of_struct(id).size
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
                c.line(&format!("try v.boolAt({pos});"));
                let mut inner = Code::new(c.indent + 1);
                let at = Ctx::Pos {
                    pos: plus(&pos, value_at),
                    present: None,
                };
                self.validate_slot(&mut inner, value, &at);
                if !inner.out.is_empty() {
                    c.open(&format!("if (r.load(u8, {pos}) != 0) {{"));
                    c.append(inner);
                    c.close("}");
                }
                c.close("}");
            }
            SlotCheck::Union(id) => when(
                c,
                &format!(
                    "try validate{}(v, {pos}, {});",
                    self.union_name(id),
                    plus(&pos, UNION_OFFSET_AT)
                ),
            ),
            SlotCheck::Bools { len } => when(c, &format!("try v.bools({pos}, {len});")),
            SlotCheck::InlineEach { id, len, stride } => {
                let j = self.fresh("j");
                when(
                    c,
                    &format!(
                        "for (0..{len}) |{j}| try {}.validateAt(v, {});",
                        self.struct_name(id),
                        elem_at(&pos, &j, stride)
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
                let mut inner = Code::new(c.indent + 1);
                self.validate_array(&mut inner, array, data, &a);
                let call = match ctx {
                    Ctx::Table { off } => format!("v.fieldArray(t, {off}, {es}, {limit})"),
                    Ctx::Pos { .. } => format!("v.array({pos}, {es}, {limit})"),
                };
                // A table's array field is checked through fieldArray
                // (absent is valid); a positioned one only when present.
                let cond = match ctx {
                    Ctx::Table { .. } => None,
                    Ctx::Pos { .. } => present.clone(),
                };
                if inner.out.is_empty() {
                    match &cond {
                        Some(cond) => c.line(&format!("if ({cond}) _ = try {call};")),
                        None => c.line(&format!("_ = try {call};")),
                    }
                } else {
                    match &cond {
                        Some(cond) => c.open(&format!("if ({cond}) {{")),
                        None => c.open("{"),
                    }
                    c.line(&format!("const {a} = try {call};"));
                    c.append(inner);
                    c.close("}");
                }
            }
        }
    }

    fn validate_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, a: &str) {
        match (array.text, data) {
            // Each element is an array reference, checked as a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let (k, a2) = (self.fresh("k"), self.fresh("a"));
                let call = format!(
                    "v.array({}, {}, {})",
                    elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
                    data.elem_size(),
                    limit_arg(inner.limit())
                );
                let mut each = Code::new(c.indent + 1);
                self.validate_array(&mut each, inner, data, &a2);
                if each.out.is_empty() {
                    c.line(&format!("for (0..{a}.len) |{k}| _ = try {call};"));
                } else {
                    c.open(&format!("for (0..{a}.len) |{k}| {{"));
                    c.line(&format!("const {a2} = try {call};"));
                    c.append(each);
                    c.close("}");
                }
            }
            (Some(Text::Utf8), _) => c.line(&format!("try v.utf8({a}.offset, {a}.len);")),
            (Some(Text::Utf16), _) => c.line(&format!("try v.utf16({a}.offset, {a}.len);")),
            (None, ArrayData::Plain { .. }) => {
                if array.elem == ElemType::Scalar(Primitive::Bool) {
                    c.line(&format!("try v.bools({a}.offset, {a}.len);"));
                }
            }
            (None, ArrayData::UnionAos { id, .. }) => {
                let i = self.fresh("i");
                let at = elem_at(&format!("{a}.offset"), &i, UNION_SLOT_SIZE);
                c.line(&format!(
                    "for (0..{a}.len) |{i}| try validate{}(v, {at}, {});",
                    self.union_name(*id),
                    plus(&at, UNION_OFFSET_AT)
                ));
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                let (i, cols) = (self.fresh("i"), self.fresh("cols"));
                c.open(&format!("if (try v.unionColumns({a}, {tw})) |{cols}| {{"));
                c.line(&format!(
                    "for (0..{a}.len) |{i}| try validate{}(v, {}, {});",
                    self.union_name(*id),
                    elem_at(&format!("{cols}.tags"), &i, tw),
                    elem_at(&format!("{cols}.offsets"), &i, OFFSET_SIZE)
                ));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
                let (entries, e, entry) =
                    (self.fresh("entries"), self.fresh("e"), self.fresh("entry"));
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
                    let mut inner = Code::new(c.indent + 1);
                    self.validate_struct_array(&mut inner, &bv.data, &sub);
                    let call =
                        format!("v.array({entry} + {BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.no_limit)");
                    if inner.out.is_empty() {
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
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.validate_struct_array(c, data, a);
                // The look-up's binary search relies on the order
                // (format.md §5.5): keys strictly increasing.
                let key = &self.l.of_struct(*id).fields[0];
                let k = self.fresh("k");
                let at = |i: &str| plus(&elem_at(&format!("{a}.offset"), i, *stride), key.offset);
                let prev = format!("{k} - 1");
                let ordered = match &key.slot {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => format!(
                        "r.load({}, {}) >= r.load({}, {})",
                        prim(*p),
                        at(&prev),
                        prim(*p),
                        at(&k)
                    ),
                    // Text keys in byte order.
                    _ => format!(
                        "std.mem.order(u8, r.bytes(r.array({}, 1, karmem.no_limit)), r.bytes(r.array({}, 1, karmem.no_limit))) != .lt",
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
            (None, data) => self.validate_struct_array(c, data, a),
        }
    }

    fn validate_struct_array(&self, c: &mut Code, data: &ArrayData, a: &str) {
        let i = self.fresh("i");
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    c.line(&format!(
                        "for (0..{a}.len) |{i}| try {}.validateAt(v, {});",
                        self.struct_name(*id),
                        elem_at(&format!("{a}.offset"), &i, *stride)
                    ));
                }
            }
            ArrayData::AosTable { id } => c.line(&format!(
                "for (0..{a}.len) |{i}| try {}.validateTable(v, try v.table(v.r.load(u32, {}), {}));",
                self.struct_name(*id),
                elem_at(&format!("{a}.offset"), &i, OFFSET_SIZE),
                self.l.of_struct(*id).size
            )),
            ArrayData::Soa { elem } => c.line(&format!(
                "try validateSoa{}(v, {a});",
                self.struct_name(*elem)
            )),
            _ => unreachable!("only struct arrays here"),
        }
    }

    /// `validateSoa<T>`: the directory, then each column's checks for
    /// every element (`cols[k]` is 0 when the writer did not write it).
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        let mut checks = Code::new(self.c.indent + 1);
        for (k, col) in soa.columns.iter().enumerate() {
            let i = self.fresh("i");
            let ctx = Ctx::Pos {
                pos: elem_at(&format!("cols[{k}]"), &i, col.size),
                present: None,
            };
            let mut each = Code::new(checks.indent + 2);
            self.validate_slot(&mut each, &col.slot, &ctx);
            if each.out.is_empty() {
                continue;
            }
            checks.open(&format!("if (cols[{k}] != 0) {{"));
            checks.open(&format!("for (0..a.len) |{i}| {{"));
            checks.append(each);
            checks.close("}");
            checks.close("}");
        }
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
        if mentions(&text, "r") {
            body.line("const r = v.r;");
        }
        body.raw(&text);
        self.function(
            &format!(
                "fn validateSoa{name}(v: *karmem.Validator, a: karmem.ArrayRef) karmem.ValidateError!void {{"
            ),
            &[],
            &[],
            body,
        );
    }

    pub(crate) fn union_validator(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.union_name(id);
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
            let ty = self.struct_name(v.ty);
            b.open(&format!("{} => {{", v.tag));
            if self.is_table(v.ty) {
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
            &[],
            b,
        );
    }
}

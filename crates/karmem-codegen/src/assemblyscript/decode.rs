//! Decoding: `decode` (validate, then read), `read` (lenient) and the
//! readers of tables, inline structs, arrays, SoA blocks, unions and bunch
//! arrays. Lenient as every Karmem decoder (malformed parts read as zero
//! or empty), with the traversal budget and depth of format.md §10 charged
//! as the Go and Zig decoders charge them: the same calls in the same
//! places, with what `Layout::decode_charge` says per element.

use karmem_layout::{
    ArrayData, FixedElem, Layout, Slot, ARRAY_REF_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{elem_at, limit_arg, plus, prim, when_present, Code, Gen};
use crate::walk::{read_array, read_fields, read_slot, Ctx, DecodePrinter, Here, SlotPrinter};

/// `n * k` as a 64-bit budget charge.
fn times64(n: &str, k: u32) -> String {
    if k == 1 {
        format!("<u64>{n}")
    } else {
        format!("<u64>{n} * {k}")
    }
}

impl Gen<'_> {
    pub(crate) fn decode_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let c = &mut self.c;
        c.line("");
        c.line("/**");
        c.line(" * Decodes the message of `length` bytes at `ptr` (8-aligned) into `out`,");
        c.line(" * after validating it (docs/format.md §11); on an error `out` is left");
        c.line(" * as it was.");
        c.line(" */");
        c.open(&format!(
            "static decode(ptr: usize, length: usize, out: {name}): KarmemError {{"
        ));
        c.line("const v = new Validator();");
        c.line("let e = v.open(ptr, length);");
        c.line("if (e != KarmemError.None) return e;");
        c.line(&format!("e = {name}._kmValidateRoot(v);"));
        c.line("if (e != KarmemError.None) return e;");
        c.line("v.restart();");
        c.line("return out._kmReadRoot(v);");
        c.close("}");
        c.line("");
        c.line("/**");
        c.line(" * Reads the message leniently, as every Karmem decoder: malformed parts");
        c.line(" * read as zero or empty; the traversal budget and depth limit bound the");
        c.line(" * work (docs/format.md §10).");
        c.line(" */");
        c.open(&format!(
            "static read(ptr: usize, length: usize, out: {name}): KarmemError {{"
        ));
        c.line("const v = new Validator();");
        c.line("const e = v.open(ptr, length);");
        c.line("if (e != KarmemError.None) return e;");
        c.line("return out._kmReadRoot(v);");
        c.close("}");

        let mut body = Code::new(self.c.indent + 1);
        if table {
            body.line("return this._kmReadTable(v, 8);");
        } else {
            // An inline root that does not fit reads as all zero (§1): its
            // zero value, charged for the tables it holds (format.md §10).
            body.line("this._kmReset();");
            let zero = if sl.zero > 0 {
                format!("v.charge({})", sl.zero)
            } else {
                "KarmemError.None".into()
            };
            body.line(&format!(
                "if (<u64>v.size < {}) return {zero};",
                8 + sl.size as u64
            ));
            body.line("return this._kmReadAt(v, 8);");
        }
        self.function("_kmReadRoot(v: Validator): KarmemError {", body, "");

        let mut body = Code::new(self.c.indent + 1);
        if table {
            body.line("v.table(offset);");
            body.line("const to = v.tOff;");
            body.line("const tu = v.tUsed;");
            // An absent or malformed table: its zero value (`Z`, format.md
            // §10), paid for whole before it is built, and not read (no
            // level of depth).
            body.open("if (tu == 0) {");
            body.try_line(&format!("v.charge({})", sl.zero));
            body.line("this._kmReset();");
            body.line("return KarmemError.None;");
            body.close("}");
            body.line("this._kmReset();");
            body.try_line("v.enter()");
            // Every field is built, those past `used` too: at least the
            // table's full size (`S`).
            body.try_line(&format!("v.charge(<u64>max<u32>(tu, {}))", sl.size));
        } else {
            body.line("this._kmReset();");
        }
        let plan = self.l.struct_plan(self.s, id);
        read_fields(self, &mut body, &plan.fields, |_, f| {
            format!("this.{}", self.n.field(id, f.index))
        });
        if table {
            body.line("v.leave();");
        }
        let sig = if table {
            "_kmReadTable(v: Validator, offset: u32): KarmemError {"
        } else {
            "_kmReadAt(v: Validator, at: u32): KarmemError {"
        };
        self.function(sig, body, "return KarmemError.None;");
    }
}

/// AssemblyScript prints the decoder's plan (crate::walk): each node below
/// is one kind of slot or array block. Objects were reset to their initial
/// values, so an absent slot is left as it is: zero, or the declared
/// default.
impl SlotPrinter for Gen<'_> {
    type Code = Code;

    fn layout(&self) -> &Layout {
        self.l
    }

    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        super::place(ctx, size)
    }

    fn inline_pos(&self, off: u32) -> String {
        plus("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            elem_at(&format!("unchecked(cols[{k}])"), "i", stride),
            format!("unchecked(cols[{k}]) != 0"),
        )
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Code, slot: &Slot, place: &str, at: &Here) {
        let pos = &at.pos;
        let stmt = match slot {
            Slot::Scalar(Primitive::Bool) => format!("{place} = v.ldBool({pos});"),
            Slot::Scalar(p) => format!("{place} = v.ld<{}>({pos});", prim(*p)),
            Slot::Enum { id, repr } => format!(
                "{place} = {};",
                self.enum_from(*id, &format!("v.ld<{}>({pos})", prim(*repr)))
            ),
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        when_present(c, at.present.as_deref(), &stmt, at.held);
    }

    fn inline(&self, c: &mut Code, _id: StructId, place: &str, at: &Here) {
        let stmt = c.tr(&format!("{place}._kmReadAt(v, {})", at.pos));
        when_present(c, at.present.as_deref(), &stmt, at.held);
    }

    fn table(&self, c: &mut Code, _id: StructId, place: &str, at: &Here) {
        let offset = self.offset_at(at);
        c.try_line(&format!("{place}._kmReadTable(v, {offset})"));
    }

    fn optional_table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let offset = self.offset_at(at);
        let (o, p) = (self.fresh("offset"), self.fresh("table"));
        let ty = self.n.struct_name(id);
        c.line(&format!("const {o} = {offset};"));
        c.open(&format!("if ({o} != 0) {{"));
        c.line(&format!("const {p} = new {ty}();"));
        c.try_line(&format!("{p}._kmReadTable(v, {o})"));
        c.line(&format!("{place} = {p};"));
        c.close("}");
    }

    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let flag = format!("v.ldBool({})", at.pos);
        let cond = match &at.present {
            Some(p) => format!("{p} && {flag}"),
            None => flag,
        };
        let tmp = self.fresh("value");
        c.open(&format!("if ({cond}) {{"));
        c.line(&format!(
            "let {tmp}: {} = {};",
            self.slot_type(value),
            self.slot_zero(value)
        ));
        let inner = Ctx::Pos {
            pos: plus(&at.pos, value_at),
            present: None,
        };
        read_slot(self, c, value, &tmp, &inner, None);
        if matches!(*value, Slot::Scalar(_) | Slot::Enum { .. }) {
            c.line(&format!(
                "{place} = new Box<{}>({tmp});",
                self.slot_type(value)
            ));
        } else {
            c.line(&format!("{place} = {tmp};"));
        }
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, place: &str, at: &Here) {
        let u = self.fresh("u");
        let name = self.n.union_name(id);
        let mut stmt = Code::new(c.indent + 1);
        stmt.line(&format!("const {u} = new {name}();"));
        stmt.try_line(&format!(
            "{u}._kmRead(v, {}, {})",
            at.pos,
            plus(&at.pos, UNION_OFFSET_AT)
        ));
        stmt.line(&format!("{place} = {u}.tag == 0 ? null : {u};"));
        match &at.present {
            Some(cond) => c.open(&format!("if ({cond}) {{")),
            None => c.open("{"),
        }
        c.splice(&stmt);
        c.close("}");
    }

    fn fixed(&self, c: &mut Code, elem: FixedElem, len: u32, stride: u32, place: &str, at: &Here) {
        let j = self.fresh("j");
        let epos = elem_at(&at.pos, &format!("<u32>{j}"), stride);
        // `j` stays below the array's length: no bounds checks.
        let e = format!("{place}[{j}]");
        let set = |value: String| format!("unchecked(({e} = {value}));");
        let stmt = match elem {
            FixedElem::Scalar(Primitive::Bool) => set(format!("v.ldBool({epos})")),
            FixedElem::Scalar(p) => set(format!("v.ld<{}>({epos})", prim(p))),
            FixedElem::Enum { id, repr } => {
                set(self.enum_from(id, &format!("v.ld<{}>({epos})", prim(repr))))
            }
            FixedElem::InlineStruct(_) => c.tr(&format!("unchecked({e})._kmReadAt(v, {epos})")),
        };
        let lp = format!("for (let {j} = 0; {j} < min({place}.length, {len}); {j}++) {stmt}");
        when_present(c, at.present.as_deref(), &lp, at.held);
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    ) {
        let limit = limit_arg(limit);
        let a = self.fresh("a");
        // Read only when present: an absent array (past `used`, or a column
        // the directory does not list) is left empty, or its default, and
        // costs nothing (format.md §10).
        match &at.present {
            Some(cond) => c.open(&format!("if ({cond}) {{")),
            None => c.open("{"),
        }
        match at.ctx {
            Ctx::Table { off } => c.line(&format!("v.fieldArray(to, tu, {off}, {es}, {limit});")),
            Ctx::Pos { .. } => c.line(&format!("v.array({}, {es}, {limit});", at.pos)),
        }
        c.line(&format!("const {a}o = v.aOff;"));
        c.line(&format!("const {a}l = v.aLen;"));
        c.line(&format!("const {a}c = v.aCap;"));
        read_array(self, c, array, data, place, &a);
        c.close("}");
    }

    // Array blocks: the reference is in the locals `{a}o`, `{a}l`, `{a}c`.

    fn text(&self, c: &mut Code, utf16: bool, charge: u32, place: &str, a: &str) {
        self.array_locals();
        charge_each(c, a, charge);
        let f = if utf16 { "utf16String" } else { "utf8String" };
        c.line(&format!("{place} = v.{f}({a}o, {a}l);"));
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
        let (s, k) = self.array_locals();
        let (ao, al) = (format!("{a}o"), format!("{a}l"));
        charge_each(c, a, charge);
        match elem {
            ElemType::Scalar(Primitive::Bool) => {
                c.line(&format!("const {s} = {place};"));
                c.line(&format!("{s}.length = <i32>{al};"));
                c.line(&format!(
                    "for (let {k}: u32 = 0; {k} < {al}; {k}++) unchecked(({s}[{k}] = v.ldBool({ao} + {k})));"
                ));
                c.line(&format!("{place} = {s};"));
            }
            ElemType::Scalar(p) => {
                c.line(&format!("v.sliceInto<{}>({place}, {ao}, {al});", prim(p)))
            }
            ElemType::Enum(id) => {
                let p = prim(self.s.enums[id].repr);
                c.line(&format!("const {s} = {place};"));
                c.line(&format!("{s}.length = <i32>{al};"));
                c.line(&format!(
                    "for (let {k}: u32 = 0; {k} < {al}; {k}++) unchecked(({s}[{k}] = {}));",
                    self.enum_from(id, &format!("v.ld<{p}>({})", elem_at(&ao, &k, elem_size)))
                ));
                c.line(&format!("{place} = {s};"));
            }
            _ => unreachable!("plain arrays hold numbers"),
        }
    }

    fn nested(
        &self,
        c: &mut Code,
        inner: &ArrayType,
        inner_data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        let (s, k) = self.array_locals();
        let (ao, al) = (format!("{a}o"), format!("{a}l"));
        charge_each(c, a, charge);
        let ty = self.obj_type(&FieldType::Array(*inner));
        let a2 = self.fresh("a");
        // The array object (and its buffer) is reused, emptied by
        // `_kmReset`; elements are appended once read, so an error midway
        // leaves no hole.
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = 0;"));
        c.open(&format!("for (let {k}: u32 = 0; {k} < {al}; {k}++) {{"));
        c.line(&format!(
            "v.array({}, {elem_size}, {});",
            elem_at(&ao, &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        ));
        c.line(&format!("const {a2}o = v.aOff;"));
        c.line(&format!("const {a2}l = v.aLen;"));
        c.line(&format!("const {a2}c = v.aCap;"));
        // Each element is assigned whatever its reference holds (a hole
        // would trap when read).
        let e = self.fresh("e");
        c.line(&format!(
            "let {e}: {ty} = {};",
            self.zero_of(&FieldType::Array(*inner))
        ));
        read_array(self, c, inner, inner_data, &e, &a2);
        c.line(&format!("{s}.push({e});"));
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
        let (s, k) = self.array_locals();
        let read = |x: &str| {
            format!(
                "{x}._kmReadAt(v, {})",
                elem_at(&format!("{a}o"), &k, stride)
            )
        };
        self.aos(c, id, charge, place, a, &s, &k, read);
    }

    // A map decodes as its entries: a slice of them.
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
        let (s, k) = self.array_locals();
        let read = |x: &str| {
            format!(
                "{x}._kmReadTable(v, v.ld<u32>({}))",
                elem_at(&format!("{a}o"), &k, OFFSET_SIZE)
            )
        };
        self.aos(c, id, charge, place, a, &s, &k, read);
    }

    fn soa(&self, c: &mut Code, elem: StructId, place: &str, a: &str) {
        let (s, _) = self.array_locals();
        let ty = self.n.struct_name(elem);
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = 0;"));
        c.try_line(&format!("_kmReadSoa{ty}(v, {a}o, {a}l, {a}c, {s})"));
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, charge: u32, place: &str, a: &str) {
        let (s, k) = self.array_locals();
        let (ao, al) = (format!("{a}o"), format!("{a}l"));
        charge_each(c, a, charge);
        let u = self.n.union_name(id);
        let x = self.fresh("x");
        let at = elem_at(&ao, &k, UNION_SLOT_SIZE);
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = <i32>{al};"));
        c.open(&format!("for (let {k}: u32 = 0; {k} < {al}; {k}++) {{"));
        c.line(&format!("const {x} = new {u}();"));
        c.try_line(&format!(
            "{x}._kmRead(v, {at}, {})",
            plus(&at, UNION_OFFSET_AT)
        ));
        c.line(&format!(
            "unchecked(({s}[{k}] = {x}.tag == 0 ? null : {x}));"
        ));
        c.close("}");
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, charge: u32, place: &str, a: &str) {
        let (s, k) = self.array_locals();
        let (ao, al, ac) = (format!("{a}o"), format!("{a}l"), format!("{a}c"));
        let u = self.n.union_name(id);
        let x = self.fresh("x");
        c.open(&format!("if (v.unionColumns({ao}, {ac}, {tw})) {{"));
        c.line(&format!("const {a}t = v.uTags;"));
        c.line(&format!("const {a}f = v.uOffs;"));
        charge_each(c, a, charge);
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = <i32>{al};"));
        c.open(&format!("for (let {k}: u32 = 0; {k} < {al}; {k}++) {{"));
        c.line(&format!("const {x} = new {u}();"));
        c.try_line(&format!(
            "{x}._kmRead(v, {}, {})",
            elem_at(&format!("{a}t"), &k, tw),
            elem_at(&format!("{a}f"), &k, OFFSET_SIZE)
        ));
        c.line(&format!(
            "unchecked(({s}[{k}] = {x}.tag == 0 ? null : {x}));"
        ));
        c.close("}");
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, soa: bool, place: &str, a: &str) {
        let (s, _) = self.array_locals();
        let f = if soa { "Bovos" } else { "Bovoa" };
        let u = self.n.union_name(id);
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = 0;"));
        c.try_line(&format!("_kmRead{f}{u}(v, {a}o, {a}c, {s})"));
    }
}

/// `len × units` charged before an array's elements are built (format.md
/// §10).
fn charge_each(c: &mut Code, a: &str, units: u32) {
    c.try_line(&format!("v.charge({})", times64(&format!("{a}l"), units)));
}

impl Gen<'_> {
    /// The slice and index names of an array block's reader, taken for
    /// every block alike so that local names number the same whichever
    /// block a schema holds.
    fn array_locals(&self) -> (String, String) {
        (self.fresh("s"), self.fresh("k"))
    }

    /// The table offset a reference slot holds (0 when it is absent).
    fn offset_at(&self, at: &Here) -> String {
        match &at.present {
            Some(cond) => format!("{cond} ? v.ld<u32>({}) : 0", at.pos),
            None => format!("v.ld<u32>({})", at.pos),
        }
    }

    /// An array of inline structs or of tables: each element a new object
    /// that `read` (given its name) fills.
    #[allow(clippy::too_many_arguments)]
    fn aos(
        &self,
        c: &mut Code,
        id: StructId,
        charge: u32,
        place: &str,
        a: &str,
        s: &str,
        k: &str,
        read: impl Fn(&str) -> String,
    ) {
        charge_each(c, a, charge);
        let ty = self.n.struct_name(id);
        let x = self.fresh("x");
        // The array object (and its buffer) is reused; elements are
        // appended once read, so an error midway leaves no hole.
        c.line(&format!("const {s} = {place};"));
        c.line(&format!("{s}.length = 0;"));
        c.open(&format!("for (let {k}: u32 = 0; {k} < {a}l; {k}++) {{"));
        c.line(&format!("const {x} = new {ty}();"));
        c.try_line(&read(&x));
        c.line(&format!("{s}.push({x});"));
        c.close("}");
    }

    // ---- SoA arrays --------------------------------------------------------------

    /// `_kmReadSoa<T>`: the directory (charged each time it is read), then
    /// `len × element charge` (format.md §10), then the elements, column by
    /// column within each element, appended to `out`.
    pub(crate) fn soa_reader(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = Code::new(1);
        body.line(&format!(
            "const cols = new StaticArray<u32>({});",
            soa.columns.len()
        ));
        body.try_line(&format!("v.soaColumns(ao, ac, _kmCols{name}, cols)"));
        body.try_line(&format!(
            "v.charge({})",
            times64("al", soa.element_charge())
        ));
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds.
        self.charge_unlisted(&mut body, id, "al");
        body.open("for (let i: u32 = 0; i < al; i++) {");
        body.line(&format!("const x = new {name}();"));
        let plan = self.l.soa_plan(self.s, id);
        read_fields(self, &mut body, &plan.columns, |k, _| {
            self.column_place("x", id, k)
        });
        body.line("out.push(x);");
        body.close("}");
        self.function(
            &format!(
                "function _kmReadSoa{name}(v: Validator, ao: u32, al: u32, ac: u32, out: Array<{name}>): KarmemError {{"
            ),
            body,
            "return KarmemError.None;",
        );
    }

    // ---- unions --------------------------------------------------------------------

    pub(crate) fn union_reader(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let mut b = Code::new(self.c.indent + 1);
        b.line(&format!("const tag = <u32>v.ld<{}>(tagAt);", prim(u.tag)));
        b.line("const offset = v.ld<u32>(offsetAt);");
        b.open("switch (tag) {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            let f = self.n.variant_member(var.ty);
            b.open(&format!("case {}: {{", var.tag));
            if self.l.is_table(var.ty) {
                b.line(&format!("const x = new {ty}();"));
                b.try_line("x._kmReadTable(v, offset)");
                b.line(&format!("this.tag = {};", var.tag));
                b.line(&format!("this.{f} = x;"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                b.open(&format!("if (v.inlineAt(offset, {size})) {{"));
                // Charged like a table: its size (format.md §10).
                b.try_line(&format!("v.charge({size})"));
                b.line(&format!("const x = new {ty}();"));
                b.try_line("x._kmReadAt(v, offset)");
                b.line(&format!("this.tag = {};", var.tag));
                b.line(&format!("this.{f} = x;"));
                b.close("}");
            }
            b.line("break;");
            b.close("}");
        }
        // 0 is "no value"; a tag unknown to this schema version reads as
        // no value too.
        b.close("}");
        self.function(
            "_kmRead(v: Validator, tagAt: u32, offsetAt: u32): KarmemError {",
            b,
            "return KarmemError.None;",
        );
    }

    /// Readers of bunch arrays (format.md §7.1): the values of each variant
    /// the reader knows, in declaration order (element order is not kept).
    pub(crate) fn bunch_readers(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        for soa in [false, true] {
            if !self.uses_bunch(id, soa) {
                continue;
            }
            let suffix = if soa { "Bovos" } else { "Bovoa" };
            let mut b = Code::new(1);
            // The table is read once for all variants (format.md §10).
            b.try_line("v.chargeBunch(ao, ac)");
            for var in &u.variants {
                let ty = self.n.struct_name(var.ty);
                b.open("{");
                if soa {
                    b.line(&format!("v.bunchEntry(ao, ac, {}, 0);", var.tag));
                    b.line("const so = v.aOff;");
                    b.line("const sl = v.aLen;");
                    b.line("const sc = v.aCap;");
                    b.line(&format!("const values = new Array<{ty}>(0);"));
                    b.try_line(&format!("_kmReadSoa{ty}(v, so, sl, sc, values)"));
                    b.line(&format!(
                        "for (let k = 0; k < values.length; k++) out.push({name}.of{ty}(unchecked(values[k])));"
                    ));
                } else {
                    let data = self.l.bunch_variant_data(var.ty, false);
                    let size = data.elem_size();
                    let per = self
                        .l
                        .decode_charge(&data)
                        .expect("an AoS array is charged per element");
                    b.line(&format!("v.bunchEntry(ao, ac, {}, {size});", var.tag));
                    b.line("const so = v.aOff;");
                    b.line("const sl = v.aLen;");
                    b.try_line(&format!("v.charge({})", times64("sl", per)));
                    b.open("for (let k: u32 = 0; k < sl; k++) {");
                    b.line(&format!("const x = new {ty}();"));
                    if self.l.is_table(var.ty) {
                        b.try_line(&format!(
                            "x._kmReadTable(v, v.ld<u32>({}))",
                            elem_at("so", "k", OFFSET_SIZE)
                        ));
                    } else {
                        b.try_line(&format!("x._kmReadAt(v, {})", elem_at("so", "k", size)));
                    }
                    b.line(&format!("out.push({name}.of{ty}(x));"));
                    b.close("}");
                }
                b.close("}");
            }
            self.function(
                &format!(
                    "function _kmRead{suffix}{name}(v: Validator, ao: u32, ac: u32, out: Array<{name} | null>): KarmemError {{"
                ),
                b,
                "return KarmemError.None;",
            );
        }
    }
}

//! Decoding: `decode` per struct and the readers of tables, inline
//! structs, arrays, SoA blocks, unions and bunch arrays. Lenient as every
//! Karmem decoder (malformed parts read as zero or empty, invalid text as
//! empty), with the traversal budget and depth of format.md §10 charged
//! exactly as the Go decoders charge them: the same calls in the same
//! places, with what `Layout::decode_charge` says per element.

use karmem_layout::{
    ArrayData, FixedElem, Layout, Slot, ARRAY_REF_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{elem_at, limit_arg, plus, prim, times64, variant_name, Gen};
use crate::walk::{read_array, read_fields, read_slot, Ctx, DecodePrinter, Here, SlotPrinter};

impl Gen<'_> {
    pub(crate) fn decode_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let inner = self.c.indent + 1;

        self.c.line("");
        self.c
            .line("/// Decodes a whole message whose root is a `Self`. Slices and text are");
        self.c
            .line("/// allocated from `gpa` (pass an arena and free the decoded value with");
        self.c
            .line("/// it); malformed parts read as zero or empty; the traversal budget and");
        self.c
            .line("/// the depth limit bound the work and memory a hostile message can cause.");
        self.c.open(&format!(
            "pub fn decode(r: karmem.Reader, gpa: std.mem.Allocator) DecodeError!{name} {{"
        ));
        self.c.line("var v: karmem.Validator = .init(r);");
        if table {
            self.c
                .line(&format!("return {name}.readTable(&v, r.root(), gpa);"));
        } else {
            // An inline root that does not fit reads as all zero (§1): its
            // zero value, charged for the tables it holds (format.md §10).
            if sl.zero > 0 {
                self.c
                    .open(&format!("if (r.size() < {}) {{", 8 + sl.size as u64));
                self.c.line(&format!("try v.charge({});", sl.zero));
                self.c.line("return .{};");
                self.c.close("}");
            } else {
                self.c.line(&format!(
                    "if (r.size() < {}) return .{{}};",
                    8 + sl.size as u64
                ));
            }
            self.c.line(&format!(
                "return {name}.readAt(&v, karmem.header_size, gpa);"
            ));
        }
        self.c.close("}");

        let mut body = Code::new(inner);
        let plan = self.l.struct_plan(self.s, id);
        read_fields(self, &mut body, &plan.fields, |_, f| {
            format!("x.{}", self.n.field(id, f.index))
        });
        let reads = body.reads();
        let mut full = Code::new(inner);
        if table {
            // An absent or malformed table: its zero value (`Z`, format.md
            // §10), paid for whole before it is built, and not read (no
            // level of depth).
            full.local("t");
            full.local("v");
            full.open("if (t.isAbsent()) {");
            full.line(&format!("try v.charge({});", sl.zero));
            full.line("return .{};");
            full.close("}");
            full.line("try v.enter();");
            // Every field is built, those past `used` too: at least the
            // table's full size (`S`).
            full.line(&format!("try v.charge(@max(t.used, {}));", sl.size));
        }
        if reads {
            full.local("v");
            full.line("const r = v.r;");
        }
        // Every field's reader assigns it: `x` changes when there is one.
        if plan.fields.is_empty() {
            full.line(&format!("const x: {name} = .{{}};"));
        } else {
            full.line(&format!("var x: {name} = .{{}};"));
        }
        full.splice(&body);
        if table {
            full.line("v.leave();");
        }
        full.line("return x;");
        let sig = if table {
            format!(
                "fn readTable(v: *karmem.Validator, t: karmem.Table, gpa: std.mem.Allocator) DecodeError!{name} {{"
            )
        } else {
            format!(
                "fn readAt(v: *karmem.Validator, at: u32, gpa: std.mem.Allocator) DecodeError!{name} {{"
            )
        };
        self.function(&sig, &["v", "t", "at", "gpa"], full);
    }
}

/// Zig prints the decoder's plan (crate::walk): each node below is one
/// kind of slot or array block.
impl SlotPrinter for Gen<'_> {
    type Code = Code;

    fn layout(&self) -> &Layout {
        self.l
    }

    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (
                plus("t.offset", *off),
                Some(format!("t.has({off}, {size})")),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    fn inline_pos(&self, off: u32) -> String {
        plus("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            elem_at(&format!("cols[{k}]"), "i", stride),
            format!("cols[{k}] != 0"),
        )
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Code, slot: &Slot, place: &str, at: &Here) {
        c.place_of(at);
        let r = c.r();
        let t = match slot {
            Slot::Scalar(p) => prim(*p).to_string(),
            Slot::Enum { id, .. } => self.n.enum_name(*id),
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        match at.ctx {
            Ctx::Table { off } if at.default.is_none() => {
                c.line(&format!("{place} = {r}.field({t}, t, {off});"))
            }
            _ => c.when_present(
                at.present.as_deref(),
                &format!("{place} = {r}.load({t}, {});", at.pos),
                at.held,
            ),
        }
    }

    fn inline(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        c.place_of(at);
        c.local("v");
        c.local("gpa");
        c.when_present(
            at.present.as_deref(),
            &format!(
                "{place} = try {}.readAt(v, {}, gpa);",
                self.n.struct_name(id),
                at.pos
            ),
            at.held,
        );
    }

    fn table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        c.place_of(at);
        c.local("v");
        c.local("gpa");
        let r = c.r();
        let pos = &at.pos;
        let t = match (at.ctx, &at.present) {
            (Ctx::Table { off }, _) => format!("{r}.fieldTable(t, {off})"),
            (_, Some(cond)) => format!("if ({cond}) {r}.table({r}.load(u32, {pos})) else .absent"),
            (_, None) => format!("{r}.table({r}.load(u32, {pos}))"),
        };
        c.line(&format!(
            "{place} = try {}.readTable(v, {t}, gpa);",
            self.n.struct_name(id)
        ));
    }

    fn optional_table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        c.place_of(at);
        c.local("v");
        c.local("gpa");
        let r = c.r();
        let pos = &at.pos;
        let offset = match (at.ctx, &at.present) {
            (Ctx::Table { off }, _) => format!("{r}.field(u32, t, {off})"),
            (_, Some(cond)) => format!("if ({cond}) {r}.load(u32, {pos}) else 0"),
            (_, None) => format!("{r}.load(u32, {pos})"),
        };
        let (o, p) = (self.fresh("offset"), self.fresh("table"));
        let ty = self.n.struct_name(id);
        c.open("{");
        c.line(&format!("const {o} = {offset};"));
        c.open(&format!("if ({o} != 0) {{"));
        c.line(&format!("const {p} = try gpa.create({ty});"));
        c.line(&format!(
            "{p}.* = try {ty}.readTable(v, {r}.table({o}), gpa);"
        ));
        c.line(&format!("{place} = {p};"));
        c.close("}");
        c.close("}");
    }

    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, place: &str, at: &Here) {
        c.place_of(at);
        let r = c.r();
        let flag = format!("{r}.load(u8, {}) != 0", at.pos);
        let cond = match &at.present {
            Some(p) => format!("{p} and {flag}"),
            None => flag,
        };
        let tmp = self.fresh("value");
        c.open(&format!("if ({cond}) {{"));
        c.line(&format!(
            "var {tmp}: {} = {};",
            self.slot_type(value),
            self.slot_zero(value)
        ));
        let inner = Ctx::Pos {
            pos: plus(&at.pos, value_at),
            present: None,
        };
        read_slot(self, c, value, &tmp, &inner, None);
        c.line(&format!("{place} = {tmp};"));
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, place: &str, at: &Here) {
        c.place_of(at);
        c.local("v");
        c.local("gpa");
        c.when_present(
            at.present.as_deref(),
            &format!(
                "{place} = try read{}(v, {}, {}, gpa);",
                self.n.union_name(id),
                at.pos,
                plus(&at.pos, UNION_OFFSET_AT)
            ),
            at.held,
        );
    }

    fn fixed(&self, c: &mut Code, elem: FixedElem, _len: u32, stride: u32, place: &str, at: &Here) {
        c.place_of(at);
        let (e, j) = (self.fresh("e"), self.fresh("j"));
        let epos = elem_at(&at.pos, &j, stride);
        let stmt = match elem {
            FixedElem::Scalar(p) => format!(
                "for (&{place}, 0..) |*{e}, {j}| {e}.* = {}.load({}, {epos});",
                c.r(),
                prim(p)
            ),
            FixedElem::Enum { id, .. } => format!(
                "for (&{place}, 0..) |*{e}, {j}| {e}.* = {}.load({}, {epos});",
                c.r(),
                self.n.enum_name(id)
            ),
            FixedElem::InlineStruct(id) => format!(
                "for (&{place}, 0..) |*{e}, {j}| {e}.* = try {}.readAt({}, {epos}, {});",
                self.n.struct_name(id),
                c.local("v"),
                c.local("gpa")
            ),
        };
        match &at.present {
            Some(cond) => {
                c.open(&format!("if ({cond}) {{"));
                c.line(&stmt);
                if at.held > 0 {
                    c.reopen("} else {");
                    let v = c.local("v");
                    c.line(&format!("try {v}.charge({});", at.held));
                }
                c.close("}");
            }
            None => c.line(&stmt),
        }
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
        c.place_of(at);
        let limit = limit_arg(limit);
        let a = self.fresh("a");
        let r = c.r();
        // Read only when present: an absent array (past `used`, or a column
        // the directory does not list) is left empty, or its default, and
        // costs nothing (format.md §10).
        let load = match at.ctx {
            Ctx::Table { off } => format!("{r}.fieldArray(t, {off}, {es}, {limit})"),
            Ctx::Pos { .. } => format!("{r}.array({}, {es}, {limit})", at.pos),
        };
        match &at.present {
            Some(cond) => c.open(&format!("if ({cond}) {{")),
            None => c.open("{"),
        }
        c.line(&format!("const {a} = {load};"));
        read_array(self, c, array, data, place, &a);
        c.close("}");
    }

    // `place` is always assigned: it may be an element of a freshly
    // allocated slice.

    fn text(&self, c: &mut Code, utf16: bool, charge: u32, place: &str, a: &str) {
        c.local("gpa");
        let r = c.r();
        let (s, _, _) = self.array_locals();
        charge_each(c, a, charge);
        if utf16 {
            c.line(&format!("const {s} = {r}.arraySlice(u16, {a});"));
            c.line(&format!(
                "{place} = karmem.utf16ToUtf8({s}, try gpa.alloc(u8, karmem.utf8LenOfUtf16({s})));"
            ));
        } else {
            c.line(&format!("{place} = try gpa.dupe(u8, {r}.string({a}));"));
        }
    }

    fn plain(&self, c: &mut Code, elem: ElemType, _size: u32, charge: u32, place: &str, a: &str) {
        c.local("gpa");
        let r = c.r();
        charge_each(c, a, charge);
        let (s, e, k) = self.array_locals();
        match elem {
            ElemType::Scalar(Primitive::Bool) => {
                let b = self.fresh("b");
                c.line(&format!("const {b} = {r}.bytes({a});"));
                c.line(&format!("const {s} = try gpa.alloc(bool, {b}.len);"));
                c.line(&format!("for ({s}, {b}) |*{e}, {k}| {e}.* = {k} != 0;"));
                c.line(&format!("{place} = {s};"));
            }
            elem => c.line(&format!(
                "{place} = try gpa.dupe({}, {r}.arraySlice({}, {a}));",
                self.elem_type(elem),
                self.elem_type(elem)
            )),
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
        c.local("gpa");
        let (s, e, k) = self.array_locals();
        charge_each(c, a, charge);
        let r = c.r();
        let ty = self.obj_type(&FieldType::Array(*inner));
        let a2 = self.fresh("a");
        c.line(&format!("const {s} = try gpa.alloc({ty}, {a}.len);"));
        c.open(&format!("for ({s}, 0..) |*{e}, {k}| {{"));
        c.line(&format!(
            "const {a2} = {r}.array({}, {elem_size}, {});",
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        ));
        read_array(self, c, inner, inner_data, &format!("{e}.*"), &a2);
        c.close("}");
        c.line(&format!("{place} = {s};"));
    }

    // Elements of structs grow the slice one at a time, each built as it is
    // read, rather than `len` elements allocated first: an element may hold
    // tables and fixed arrays far larger than the few bytes its reference
    // was charged (format.md §10).

    fn aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        c.local("v");
        c.local("gpa");
        let (s, _, k) = self.array_locals();
        charge_each(c, a, charge);
        let ty = self.n.struct_name(id);
        c.line(&format!("var {s}: std.ArrayList({ty}) = .empty;"));
        c.line(&format!(
            "for (0..{a}.len) |{k}| try {s}.append(gpa, try {ty}.readAt(v, {}, gpa));",
            elem_at(&format!("{a}.offset"), &k, stride)
        ));
        c.line(&format!("{place} = try {s}.toOwnedSlice(gpa);"));
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
        c.local("v");
        c.local("gpa");
        let r = c.r();
        let (s, _, k) = self.array_locals();
        charge_each(c, a, charge);
        let ty = self.n.struct_name(id);
        c.line(&format!("var {s}: std.ArrayList({ty}) = .empty;"));
        c.line(&format!(
            "for (0..{a}.len) |{k}| try {s}.append(gpa, try {ty}.readTable(v, {r}.table({r}.load(u32, {})), gpa));",
            elem_at(&format!("{a}.offset"), &k, OFFSET_SIZE)
        ));
        c.line(&format!("{place} = try {s}.toOwnedSlice(gpa);"));
    }

    fn soa(&self, c: &mut Code, elem: StructId, place: &str, a: &str) {
        c.local("v");
        c.local("gpa");
        self.array_locals();
        c.line(&format!(
            "{place} = try readSoa{}(v, {a}, gpa);",
            self.n.struct_name(elem)
        ));
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, charge: u32, place: &str, a: &str) {
        c.local("v");
        c.local("gpa");
        let (s, e, k) = self.array_locals();
        charge_each(c, a, charge);
        let u = self.n.union_name(id);
        let at = elem_at(&format!("{a}.offset"), &k, UNION_SLOT_SIZE);
        c.line(&format!("const {s} = try gpa.alloc(?{u}, {a}.len);"));
        c.line(&format!(
            "for ({s}, 0..) |*{e}, {k}| {e}.* = try read{u}(v, {at}, {}, gpa);",
            plus(&at, UNION_OFFSET_AT)
        ));
        c.line(&format!("{place} = {s};"));
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, charge: u32, place: &str, a: &str) {
        c.local("v");
        c.local("gpa");
        let r = c.r();
        let (s, e, k) = self.array_locals();
        let u = self.n.union_name(id);
        let cols = self.fresh("cols");
        c.open(&format!("if ({r}.unionColumns({a}, {tw})) |{cols}| {{"));
        charge_each(c, a, charge);
        c.line(&format!("const {s} = try gpa.alloc(?{u}, {a}.len);"));
        c.line(&format!(
            "for ({s}, 0..) |*{e}, {k}| {e}.* = try read{u}(v, {}, {}, gpa);",
            elem_at(&format!("{cols}.tags"), &k, tw),
            elem_at(&format!("{cols}.offsets"), &k, OFFSET_SIZE)
        ));
        c.line(&format!("{place} = {s};"));
        c.close("} else {");
        c.indent += 1;
        c.line(&format!("{place} = &.{{}};"));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, soa: bool, place: &str, a: &str) {
        c.local("v");
        c.local("gpa");
        self.array_locals();
        let f = if soa { "Bovos" } else { "Bovoa" };
        c.line(&format!(
            "{place} = try read{f}{}(v, {a}, gpa);",
            self.n.union_name(id)
        ));
    }
}

impl Gen<'_> {
    /// The slice, element and index names of an array block's reader, taken
    /// for every block alike so that local names number the same whichever
    /// block a schema holds.
    fn array_locals(&self) -> (String, String, String) {
        (self.fresh("s"), self.fresh("e"), self.fresh("k"))
    }
}

/// `try v.charge(len × units)`: an array's elements, charged before they
/// are built (format.md §10).
fn charge_each(c: &mut Code, a: &str, units: u32) {
    let v = c.local("v");
    c.line(&format!(
        "try {v}.charge({});",
        times64(&format!("{a}.len"), units)
    ));
}

impl Gen<'_> {
    // ---- SoA arrays --------------------------------------------------------------

    /// The reader of SoA arrays of `id`: the directory (charged each time
    /// it is read), then `len × element charge` (format.md §10), then the
    /// elements, column by column within each element.
    pub(crate) fn soa_reader(&mut self, id: StructId, _seq: Option<UnionId>) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        let mut each = Code::new(self.c.indent + 2);
        let plan = self.l.soa_plan(self.s, id);
        read_fields(self, &mut each, &plan.columns, |k, _| {
            self.column_place("e", id, k)
        });
        let reads = each.reads();
        let each = each.into_text();
        let mut body = Code::new(self.c.indent + 1);
        if reads {
            body.line("const r = v.r;");
        }
        body.line(&format!("var cols: [{n}]u32 = undefined;"));
        body.line(&format!(
            "try v.soaColumns(a, &{}, &cols);",
            self.soa_columns(id)
        ));
        body.line(&format!(
            "try v.charge({});",
            times64("a.len", plan.element_charge)
        ));
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds: a fixed
        // array of inline structs holding tables (format.md §10).
        for (k, held) in &plan.unlisted {
            body.line(&format!(
                "if (cols[{k}] == 0 and a.len > 0) try v.charge(@as(u64, a.len) *| {held});"
            ));
        }
        body.line(&format!("const s = try gpa.alloc({name}, a.len);"));
        // Every column is read at its element's index `i`.
        if !plan.columns.is_empty() {
            body.open("for (s, 0..) |*e, i| {");
        } else {
            body.open("for (s) |*e| {");
        }
        body.line("e.* = .{};");
        body.raw(&each);
        body.close("}");
        body.line("return s;");
        self.function(
            &format!(
                "fn readSoa{name}(v: *karmem.Validator, a: karmem.ArrayRef, gpa: std.mem.Allocator) DecodeError![]const {name} {{"
            ),
            &[],
            body,
        );
    }

    // ---- unions --------------------------------------------------------------------

    pub(crate) fn union_reader(&mut self, id: UnionId) {
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
            let var = variant_name(&self.s.structs[v.ty].name);
            let pointer = self.variant_is_pointer(id, v.ty);
            let read = if self.l.is_table(v.ty) {
                format!("try {ty}.readTable(v, r.table(offset), gpa)")
            } else {
                format!("try {ty}.readAt(v, offset, gpa)")
            };
            b.open(&format!("{} => {{", v.tag));
            let inner = |b: &mut Code| {
                if pointer {
                    b.line(&format!("const p = try gpa.create({ty});"));
                    b.line(&format!("p.* = {read};"));
                    b.line(&format!("return .{{ .{var} = p }};"));
                } else {
                    b.line(&format!("return .{{ .{var} = {read} }};"));
                }
            };
            if self.l.is_table(v.ty) {
                inner(&mut b);
            } else {
                let size = self.l.of_struct(v.ty).size;
                b.open(&format!("if (r.inlineAt(offset, {size})) {{"));
                // Charged like a table: its size (format.md §10).
                b.line(&format!("try v.charge({size});"));
                inner(&mut b);
                b.close("}");
            }
            b.close("},");
        }
        // 0 is "no value"; a tag unknown to this schema version reads as
        // no value too.
        b.line("else => {},");
        b.close("}");
        b.line("return null;");
        self.function(
            &format!(
                "fn read{name}(v: *karmem.Validator, tag_at: u32, offset_at: u32, gpa: std.mem.Allocator) DecodeError!?{name} {{"
            ),
            &[],
            b,
        );
        self.bunch_readers(id);
    }

    /// Readers of bunch arrays (format.md §7.1): the values of each variant
    /// the reader knows, in declaration order (element order is not kept).
    fn bunch_readers(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        for soa in [false, true] {
            if !self.uses_bunch(id, soa) {
                continue;
            }
            let suffix = if soa { "Bovos" } else { "Bovoa" };
            let mut b = Code::new(self.c.indent + 1);
            b.line("const r = v.r;");
            b.line(&format!("var list: std.ArrayList(?{name}) = .empty;"));
            // The table is read once for all variants (format.md §10).
            b.line("try v.chargeBunch(a);");
            for v in &u.variants {
                let ty = self.n.struct_name(v.ty);
                let var = variant_name(&self.s.structs[v.ty].name);
                let pointer = self.variant_is_pointer(id, v.ty);
                b.open("{");
                if soa {
                    b.line(&format!(
                        "const values = try readSoa{ty}(v, r.bunchEntry(a, {}, 0), gpa);",
                        v.tag
                    ));
                    b.line("try list.ensureUnusedCapacity(gpa, values.len);");
                    if pointer {
                        b.line(&format!(
                            "for (values) |*e| list.appendAssumeCapacity(.{{ .{var} = e }});"
                        ));
                    } else {
                        b.line(&format!(
                            "for (values) |e| list.appendAssumeCapacity(.{{ .{var} = e }});"
                        ));
                    }
                } else {
                    let data = self.l.bunch_variant_data(v.ty, false);
                    let size = data.elem_size();
                    let per = self
                        .l
                        .decode_charge(&data)
                        .expect("an AoS array is charged per element");
                    b.line(&format!("const sub = r.bunchEntry(a, {}, {size});", v.tag));
                    b.line(&format!("try v.charge({});", times64("sub.len", per)));
                    b.line("try list.ensureUnusedCapacity(gpa, sub.len);");
                    let read = if self.l.is_table(v.ty) {
                        format!(
                            "try {ty}.readTable(v, r.table(r.load(u32, {})), gpa)",
                            elem_at("sub.offset", "k", OFFSET_SIZE)
                        )
                    } else {
                        format!(
                            "try {ty}.readAt(v, {}, gpa)",
                            elem_at("sub.offset", "k", size)
                        )
                    };
                    b.open("for (0..sub.len) |k| {");
                    if pointer {
                        b.line(&format!("const p = try gpa.create({ty});"));
                        b.line(&format!("p.* = {read};"));
                        b.line(&format!("list.appendAssumeCapacity(.{{ .{var} = p }});"));
                    } else {
                        b.line(&format!(
                            "list.appendAssumeCapacity(.{{ .{var} = {read} }});"
                        ));
                    }
                    b.close("}");
                }
                b.close("}");
            }
            b.line("return list.items;");
            self.function(
                &format!(
                    "fn read{suffix}{name}(v: *karmem.Validator, a: karmem.ArrayRef, gpa: std.mem.Allocator) DecodeError![]const ?{name} {{"
                ),
                &[],
                b,
            );
        }
    }
}

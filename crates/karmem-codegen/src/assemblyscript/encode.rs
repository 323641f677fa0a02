//! Encoding: `encode` per struct and the writers of tables, inline
//! structs, arrays, SoA blocks, unions and bunch arrays, in the writing
//! order every Karmem library follows (format.md §8). The writer's errors
//! are sticky, so this code is straight-line: `encode` asks `finish()`.

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{elem_at, plus, prim, Code, Gen};
use crate::walk::{write_array, write_slot, EncodePrinter};

impl Gen<'_> {
    pub(crate) fn encode_functions(&mut self, id: StructId) {
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let inner = self.c.indent + 1;

        let mut body = Code::new(inner);
        body.line("w.begin();");
        if table {
            body.line("this._kmWriteTable(w, 0);");
        } else {
            body.line(&format!(
                "this._kmWriteAt(w, w.alloc({}, {OBJECT_ALIGN}));",
                sl.size
            ));
        }
        self.c.line("");
        self.c.line("/**");
        self.c
            .line(" * Encodes this value as the root of a whole message into `w`, which");
        self.c
            .line(" * begins anew; the message is `w.toBytes()` (or `w.dataStart`,");
        self.c
            .line(" * `w.length`) afterwards. `TooLarge` when a fixed writer is full,");
        self.c
            .line(" * `InvalidValue` for a limited array over its limit or map keys out of order.");
        self.c.line(" */");
        self.function(
            "encode(w: Writer): KarmemError {",
            body,
            "return w.finish();",
        );

        let mut body = Code::new(inner);
        if table {
            body.line(&format!("const at = w.alloc({}, {OBJECT_ALIGN});", sl.size));
            body.line(&format!("w.put<u32>(at, {:#x});", sl.header));
            body.line("if (ref != 0) w.put<u32>(ref, at);");
        }
        for (i, f) in sl.fields.iter().enumerate() {
            let value = format!("this.{}", self.n.field(id, i));
            write_slot(self, &mut body, &f.slot, &value, &plus("at", f.offset));
        }
        if table {
            self.function("_kmWriteTable(w: Writer, ref: u32): void {", body, "");
        } else {
            self.function("_kmWriteAt(w: Writer, at: u32): void {", body, "");
        }
    }
}

/// AssemblyScript prints the encoder's plan (crate::walk): each node below
/// is one kind of slot or array block.
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Code, slot: &Slot, value: &str, pos: &str) {
        c.line(&match slot {
            Slot::Scalar(Primitive::Bool) => format!("w.putBool({pos}, {value});"),
            Slot::Scalar(p) => format!("w.put<{}>({pos}, {value});", prim(*p)),
            Slot::Enum { repr, .. } => {
                let p = prim(*repr);
                format!("w.put<{p}>({pos}, <{p}>{value});")
            }
            _ => unreachable!("the walker hands numbers and enums only"),
        });
    }

    fn write_inline(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("{value}._kmWriteAt(w, {pos});"));
    }

    fn write_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("{value}._kmWriteTable(w, {pos});"));
    }

    // null: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        let v = self.fresh("t");
        c.line(&format!("const {v} = {value};"));
        c.line(&format!("if ({v} !== null) {v}._kmWriteTable(w, {pos});"));
    }

    fn write_optional(&self, c: &mut Code, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        let v = self.fresh("o");
        c.line(&format!("const {v} = {value};"));
        c.open(&format!("if ({v} !== null) {{"));
        c.line(&format!("w.put<u8>({pos}, 1);"));
        let boxed = matches!(*inner, Slot::Scalar(_) | Slot::Enum { .. });
        let held = if boxed { format!("{v}.value") } else { v };
        write_slot(self, c, inner, &held, &plus(pos, value_at));
        c.close("}");
    }

    fn write_union(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        c.line(&format!(
            "_kmWrite{}(w, {value}, {pos}, {});",
            self.n.union_name(id),
            plus(pos, UNION_OFFSET_AT)
        ));
    }

    fn write_fixed(
        &self,
        c: &mut Code,
        elem: FixedElem,
        len: u32,
        stride: u32,
        value: &str,
        pos: &str,
    ) {
        let j = self.fresh("j");
        let epos = elem_at(pos, &format!("<u32>{j}"), stride);
        let e = format!("unchecked({value}[{j}])");
        let stmt = match elem {
            FixedElem::Scalar(Primitive::Bool) => format!("w.putBool({epos}, {e});"),
            FixedElem::Scalar(p) => format!("w.put<{}>({epos}, {e});", prim(p)),
            FixedElem::Enum { repr, .. } => {
                let p = prim(repr);
                format!("w.put<{p}>({epos}, <{p}>{e});")
            }
            FixedElem::InlineStruct(_) => format!("{e}._kmWriteAt(w, {epos});"),
        };
        // A caller may have put an array of another length there.
        c.line(&format!(
            "for (let {j} = 0; {j} < min({value}.length, {len}); {j}++) {stmt}"
        ));
    }

    fn write_array_ref(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        write_limit(c, array, value);
        write_array(self, c, array, data, value, pos);
    }

    fn write_text(&self, c: &mut Code, utf16: bool, value: &str, pos: &str) {
        let f = if utf16 { "writeUtf16" } else { "writeString" };
        c.line(&format!("w.{f}({pos}, {value});"));
    }

    fn write_plain(&self, c: &mut Code, elem: ElemType, size: u32, value: &str, pos: &str) {
        match elem {
            ElemType::Scalar(Primitive::Bool) => c.line(&format!("w.writeBools({pos}, {value});")),
            ElemType::Scalar(p) => c.line(&format!("w.writeSlice<{}>({pos}, {value});", prim(p))),
            ElemType::Enum(id) => {
                let p = prim(self.s.enums[id].repr);
                self.write_block(c, value, pos, size, |c, block, k, e| {
                    c.line(&format!(
                        "w.put<{p}>({}, <{p}>{e});",
                        elem_at(block, k, size)
                    ))
                });
            }
            _ => unreachable!("plain arrays hold numbers"),
        }
    }

    fn write_nested(
        &self,
        c: &mut Code,
        inner: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        self.write_block(c, value, pos, ARRAY_REF_SIZE, |c, block, k, e| {
            let at = self.fresh("ref");
            c.line(&format!(
                "const {at} = {};",
                elem_at(block, k, ARRAY_REF_SIZE)
            ));
            write_limit(c, inner, e);
            write_array(self, c, inner, data, e, &at);
        });
    }

    // A map's entries are written in the order given, which must be
    // strictly increasing key order (format.md §5.5): anything else is
    // refused rather than written for every validator to refuse.
    fn write_aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        let key = map.then(|| self.map_key_order(id));
        self.write_block(c, value, pos, stride, |c, block, k, e| {
            if let Some(less) = &key {
                let prev = format!("unchecked({value}[{k} - 1])");
                c.line(&format!(
                    "if ({k} > 0 && !({})) w.fail(KarmemError.InvalidValue);",
                    less(&prev, e)
                ));
            }
            c.line(&format!(
                "{e}._kmWriteAt(w, {});",
                elem_at(block, k, stride)
            ))
        });
    }

    fn write_aos_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        self.write_block(c, value, pos, OFFSET_SIZE, |c, block, k, e| {
            c.line(&format!(
                "{e}._kmWriteTable(w, {});",
                elem_at(block, k, OFFSET_SIZE)
            ))
        });
    }

    fn write_soa(&self, c: &mut Code, elem: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "_kmWriteSoa{}(w, {pos}, {value});",
            self.n.struct_name(elem)
        ));
    }

    fn write_union_aos(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        let u = self.n.union_name(id);
        self.write_block(c, value, pos, UNION_SLOT_SIZE, |c, block, k, e| {
            let at = elem_at(block, k, UNION_SLOT_SIZE);
            c.line(&format!(
                "_kmWrite{u}(w, {e}, {at}, {});",
                plus(&at, UNION_OFFSET_AT)
            ));
        });
    }

    fn write_union_soa(&self, c: &mut Code, id: UnionId, tw: u32, value: &str, pos: &str) {
        let u = self.n.union_name(id);
        let (tags, offsets, k) = (self.fresh("tags"), self.fresh("offs"), self.fresh("k"));
        c.open("{");
        c.line(&format!(
            "const {tags} = w.allocArray({value}.length, {tw});"
        ));
        c.line(&format!(
            "const {offsets} = w.allocArray({value}.length, {OFFSET_SIZE});"
        ));
        c.line(&format!(
            "for (let {k}: u32 = 0; {k} < <u32>{value}.length; {k}++) _kmWrite{u}(w, unchecked({value}[{k}]), {}, {});",
            elem_at(&tags, &k, tw),
            elem_at(&offsets, &k, OFFSET_SIZE)
        ));
        c.line(&format!(
            "w.putArrayRef({pos}, {tags}, {value}.length, {value}.length);"
        ));
        c.close("}");
    }

    fn write_bunch(&self, c: &mut Code, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "Bovos" } else { "Bovoa" };
        c.line(&format!(
            "_kmWrite{f}{}(w, {pos}, {value});",
            self.n.union_name(id)
        ));
    }
}

impl Gen<'_> {
    /// A function of two key expressions (`a`, `b` entries) that is true
    /// when `a`'s key orders strictly before `b`'s (format.md §5.5).
    fn map_key_order(&self, entry: StructId) -> impl Fn(&str, &str) -> String {
        let key = self.n.field(entry, 0);
        let slot = self.l.of_struct(entry).fields[0].slot.clone();
        move |a: &str, b: &str| match &slot {
            Slot::Enum { repr, .. } => {
                let p = prim(*repr);
                format!("<{p}>{a}.{key} < <{p}>{b}.{key}")
            }
            Slot::Scalar(_) => format!("{a}.{key} < {b}.{key}"),
            _ => format!("compareText({a}.{key}, {b}.{key}) < 0"),
        }
    }

    /// An AoS block of `value.length` elements of `size` bytes; `each`
    /// writes element `e` (index `k`) given the block.
    fn write_block(
        &self,
        c: &mut Code,
        value: &str,
        pos: &str,
        size: u32,
        each: impl FnOnce(&mut Code, &str, &str, &str),
    ) {
        let (block, k, e) = (self.fresh("block"), self.fresh("k"), self.fresh("e"));
        c.open("{");
        c.line(&format!(
            "const {block} = w.allocArray({value}.length, {size});"
        ));
        c.open(&format!(
            "for (let {k}: u32 = 0; {k} < <u32>{value}.length; {k}++) {{"
        ));
        c.line(&format!("const {e} = unchecked({value}[{k}]);"));
        each(c, &block, &k, &e);
        c.close("}");
        c.line(&format!(
            "w.putArrayRef({pos}, {block}, {value}.length, {value}.length);"
        ));
        c.close("}");
    }

    // ---- SoA arrays --------------------------------------------------------------

    /// `_kmWriteSoa<T>`: the block and directory, the number columns a loop
    /// each, then one pass over the elements for the other columns in
    /// directory order (their out-of-line data in the order of format.md §8).
    pub(crate) fn soa_writer(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = Code::new(self.c.indent + 1);
        body.line(&format!(
            "const cols = new StaticArray<u32>({});",
            soa.columns.len()
        ));
        body.line(&format!(
            "w.writeSoa(at, items.length, _kmCols{name}, cols);"
        ));
        let mut rest = Vec::new();
        for (k, col) in soa.columns.iter().enumerate() {
            if !matches!(col.slot, Slot::Scalar(_) | Slot::Enum { .. }) {
                rest.push(k);
                continue;
            }
            let place = self.column_place("unchecked(items[i])", id, k);
            let pos = elem_at(&format!("unchecked(cols[{k}])"), "<u32>i", col.size);
            let mut one = Code::new(0);
            write_slot(self, &mut one, &col.slot, &place, &pos);
            body.line(&format!(
                "for (let i = 0; i < items.length; i++) {}",
                one.into_text().trim_end()
            ));
        }
        if !rest.is_empty() {
            body.open("for (let i = 0; i < items.length; i++) {");
            body.line("const x = unchecked(items[i]);");
            for k in rest {
                let col = &soa.columns[k];
                let place = self.column_place("x", id, k);
                let pos = elem_at(&format!("unchecked(cols[{k}])"), "<u32>i", col.size);
                write_slot(self, &mut body, &col.slot, &place, &pos);
            }
            body.close("}");
        }
        self.function(
            &format!(
                "function _kmWriteSoa{name}(w: Writer, at: u32, items: Array<{name}>): void {{"
            ),
            body,
            "",
        );
    }

    // ---- unions --------------------------------------------------------------------

    pub(crate) fn union_writer(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut b = Code::new(self.c.indent + 1);
        b.line("if (value === null) return;");
        b.open("switch (value.tag) {");
        for v in &u.variants {
            let f = self.n.variant_member(v.ty);
            b.open(&format!("case {}: {{", v.tag));
            b.line(&format!("const x = value.{f};"));
            b.open("if (x !== null) {");
            b.line(&format!("w.put<{}>(tagAt, {});", prim(u.tag), v.tag));
            if self.l.is_table(v.ty) {
                b.line("x._kmWriteTable(w, offsetAt);");
            } else {
                b.line(&format!(
                    "const at = w.alloc({}, {OBJECT_ALIGN});",
                    self.l.of_struct(v.ty).size
                ));
                b.line("w.put<u32>(offsetAt, at);");
                b.line("x._kmWriteAt(w, at);");
            }
            b.close("}");
            b.line("break;");
            b.close("}");
        }
        b.close("}");
        self.function(
            &format!(
                "function _kmWrite{name}(w: Writer, value: {name} | null, tagAt: u32, offsetAt: u32): void {{"
            ),
            b,
            "",
        );
        self.bunch_writers(id);
    }

    /// Writers of the bunch arrays of a union (`#bovoa`, `#bovos`, format.md
    /// §7.1): a table of one entry per variant present, in declaration
    /// order, each an array of that variant's values in element order.
    fn bunch_writers(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        for soa in [false, true] {
            if !self.uses_bunch(id, soa) {
                continue;
            }
            let suffix = if soa { "Bovos" } else { "Bovoa" };
            let mut b = Code::new(1);
            // The values of each variant, in element order.
            for (i, v) in u.variants.iter().enumerate() {
                let ty = self.n.struct_name(v.ty);
                b.line(&format!("const v{i} = new Array<{ty}>(0);"));
            }
            b.open("for (let i = 0; i < items.length; i++) {");
            b.line("const x = unchecked(items[i]);");
            b.line("if (x === null) continue;");
            for (i, v) in u.variants.iter().enumerate() {
                let f = self.n.variant_member(v.ty);
                b.line(&format!("const x{i} = x.{f};"));
                b.line(&format!(
                    "if (x.tag == {} && x{i} !== null) v{i}.push(x{i});",
                    v.tag
                ));
            }
            b.close("}");
            let counts: Vec<String> = (0..u.variants.len())
                .map(|i| format!("v{i}.length"))
                .collect();
            let present: Vec<String> = (0..u.variants.len())
                .map(|i| format!("(v{i}.length > 0 ? 1 : 0)"))
                .collect();
            b.line(&format!("const total = {};", counts.join(" + ")));
            b.open("if (total == 0) {");
            b.line("w.putArrayRef(at, 0, 0, 0);");
            b.line("return;");
            b.close("}");
            b.line(&format!(
                "const table = w.writeBunchTable({});",
                present.join(" + ")
            ));
            b.line(&format!("let entry = table + {BUNCH_ENTRY_SIZE};"));
            for (i, v) in u.variants.iter().enumerate() {
                let ty = self.n.struct_name(v.ty);
                b.open(&format!("if (v{i}.length > 0) {{"));
                b.line(&format!("w.put<u32>(entry, {});", v.tag));
                let data = self.l.bunch_variant_data(v.ty, soa);
                let at = format!("entry + {BUNCH_ENTRY_ARRAY_AT}");
                match &data {
                    ArrayData::Soa { .. } => b.line(&format!("_kmWriteSoa{ty}(w, {at}, v{i});")),
                    ArrayData::AosTable { .. } => self.write_block(
                        &mut b,
                        &format!("v{i}"),
                        &at,
                        OFFSET_SIZE,
                        |c, block, k, e| {
                            c.line(&format!(
                                "{e}._kmWriteTable(w, {});",
                                elem_at(block, k, OFFSET_SIZE)
                            ))
                        },
                    ),
                    _ => {
                        let stride = self.l.of_struct(v.ty).size;
                        self.write_block(&mut b, &format!("v{i}"), &at, stride, |c, block, k, e| {
                            c.line(&format!(
                                "{e}._kmWriteAt(w, {});",
                                elem_at(block, k, stride)
                            ))
                        })
                    }
                }
                b.line(&format!("entry += {BUNCH_ENTRY_SIZE};"));
                b.close("}");
            }
            b.line("w.putArrayRef(at, table, total, total);");
            self.function(
                &format!(
                    "function _kmWrite{suffix}{name}(w: Writer, at: u32, items: Array<{name} | null>): void {{"
                ),
                b,
                "",
            );
        }
    }

    /// Whether some array of the schema is a bunch array of union `id`
    /// (`soa`: `#bovos`).
    pub(crate) fn uses_bunch(&self, id: UnionId, soa: bool) -> bool {
        karmem_layout::plan::uses_bunch(self.l, id, soa)
    }
}

/// A writer refuses a value longer than a limited array's `N`.
fn write_limit(c: &mut Code, array: &ArrayType, value: &str) {
    if let ArrayKind::Limited(n) = array.kind {
        let len = match array.text {
            Some(Text::Utf8) => format!("utf8Length({value})"),
            _ => format!("{value}.length"),
        };
        c.line(&format!(
            "if ({len} > {n}) w.fail(KarmemError.InvalidValue);"
        ));
    }
}

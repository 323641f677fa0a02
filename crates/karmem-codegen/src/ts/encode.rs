//! Encoding as straight-line code (issue #19 item 2): per struct a writer
//! of its table (returning its offset) or of the inline struct at a
//! position, per SoA element struct a writer of its block, per union a
//! writer of its slot and of its bunch arrays, in the writing order every
//! Karmem library follows (format.md §8). They write the bytes the
//! library's interpreted `encode` (ts/src/codec.ts) writes and refuse what
//! it refuses with the same errors: a missing property is its default or
//! zero, a missing number is left zero, a value a type cannot hold is
//! `InvalidValue` (the writer's `put*`), an array over its limit
//! `LimitExceeded`.

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::decode::{elem_at, plus};
use super::{int_literal, is_big, Gen};
use crate::emit::Lines;
use crate::walk::{write_array, write_slot, EncodePrinter};

/// The writer method of a scalar type (`putU8`, `putBool`).
fn put(p: Primitive) -> String {
    let name = p.name();
    let mut cs = name.chars();
    let first = cs.next().expect("a type has a name").to_ascii_uppercase();
    format!("put{first}{}", cs.as_str())
}

impl Gen<'_> {
    /// The straight-line encoders of every struct, SoA element and union.
    pub(super) fn encoders(&self, c: &mut Lines, has_class: &[bool]) {
        c.line("");
        c.line("// ---- encoding, straight-line per struct (docs/typescript.md) ----");
        for (id, has) in has_class.iter().enumerate() {
            if !has {
                continue;
            }
            self.struct_writer(c, id);
            if self.l.soa[id].is_some() {
                self.soa_writer(c, id);
            }
        }
        for id in 0..self.s.unions.len() {
            if self.unions_written.borrow().contains(&id) {
                self.union_writer(c, id);
            }
            for soa in [false, true] {
                if karmem_layout::plan::uses_bunch(self.l, id, soa) {
                    self.bunch_writer(c, id, soa);
                }
            }
        }
    }

    /// `$write<U>`, the writer of union `id`'s slot (printed because
    /// called).
    fn write_union_fn(&self, id: UnionId) -> String {
        self.unions_written.borrow_mut().insert(id);
        format!("$write{}", self.n.union_name(id))
    }

    /// The value a struct's field is written from: the property, or its
    /// declared default when the property is missing (`undefined`).
    fn field_value(&self, obj: &str, f: &Field, slot: &Slot) -> String {
        let prop = format!("{obj}.{}", super::prop_name(&f.name));
        match f.nonzero_default() {
            Some(d) => format!(
                "({prop} === undefined ? {} : {prop})",
                self.default_value(slot, d)
            ),
            None => prop,
        }
    }

    fn struct_writer(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let st = &self.s.structs[id];
        let sl = self.l.of_struct(id);
        let table = self.l.is_table(id);
        let mut body = Lines::new("  ", c.indent + 1);
        if !st.fields.is_empty() {
            body.line(&format!("const o: Partial<{name}> = v ?? {{}};"));
        }
        if table {
            body.line(&format!("const at = w.alloc({}, {OBJECT_ALIGN});", sl.size));
            body.line(&format!("w.u32(at, {:#x});", sl.header));
        }
        for (i, f) in st.fields.iter().enumerate() {
            let fl = &sl.fields[i];
            let value = self.field_value("o", f, &fl.slot);
            write_slot(self, &mut body, &fl.slot, &value, &plus("at", fl.offset));
        }
        c.line("");
        let empty = st.fields.is_empty();
        let v = if empty { "_v" } else { "v" };
        if table {
            c.line("/** Writes the table of `v` (a missing one as its zero value); returns its offset. */");
            c.open(&format!(
                "function $write{name}(w: karmem.Writer, {v}: {name} | null | undefined): number {{"
            ));
            c.splice(&body);
            c.line("return at;");
        } else {
            let (w, at) = if empty { ("_w", "_at") } else { ("w", "at") };
            c.line("/** Writes the inline `v` (a missing one as its zero value) at `at`. */");
            c.open(&format!(
                "function $writeAt{name}({w}: karmem.Writer, {v}: {name} | null | undefined, {at}: number): void {{"
            ));
            c.splice(&body);
        }
        c.close("}");
    }

    /// `$writeSoa<T>`: nothing for no elements; else the directory (once
    /// per message), the block, each column's array, then the elements,
    /// column by column within each (their out-of-line data in the order
    /// of format.md §8).
    fn soa_writer(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id);
        let plan = self.l.soa_plan(self.s, id);
        let key: Vec<String> = soa
            .columns
            .iter()
            .map(|col| format!("{}:{}", col.hash, col.size))
            .collect();
        c.line("");
        c.line("/** Writes the SoA block of `items` and its reference at `at`. */");
        c.open(&format!(
            "function $writeSoa{name}(w: karmem.Writer, items: readonly ({name} | null | undefined)[], at: number): void {{"
        ));
        c.line("const n = items.length;");
        c.line("if (n === 0) return;");
        c.line(&format!(
            "const dir = w.soaDir(\"{}\", $cols{name});",
            key.join(",")
        ));
        c.line("const block = w.alloc(4, 4);");
        c.line("w.u32(block, dir);");
        for (k, col) in soa.columns.iter().enumerate() {
            c.line(&format!("const c{k} = w.block(n, {});", col.size));
        }
        if !plan.columns.is_empty() {
            c.open("for (let i = 0; i < n; i++) {");
            c.line("const x = items[i];");
            for (k, col) in plan.columns.iter().enumerate() {
                // A missing struct on the path is a missing leaf.
                let leaf = self.column_place("x", id, k).replace('.', "?.");
                let value = match col.default {
                    Some(d) => {
                        let l = self.fresh("l");
                        c.line(&format!("const {l} = {leaf};"));
                        format!(
                            "({l} === undefined ? {} : {l})",
                            self.default_value(col.slot, d)
                        )
                    }
                    None => leaf,
                };
                let stride = self.l.soa(id).columns[k].size;
                write_slot(
                    self,
                    c,
                    col.slot,
                    &value,
                    &elem_at(&format!("c{k}"), "i", stride),
                );
            }
            c.close("}");
        }
        c.line("w.ref(at, block, n);");
        c.close("}");
    }

    /// A union slot: nothing for null; the tag and the variant's table (or
    /// inline block); `InvalidValue` for a kind the union does not have.
    fn union_writer(&self, c: &mut Lines, id: UnionId) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        c.line("");
        c.line(
            "/** Writes the union value `v` with its tag at `tagAt` and its offset at `offAt`. */",
        );
        c.open(&format!(
            "function $write{name}(w: karmem.Writer, v: {name} | undefined, tagAt: number, offAt: number): void {{"
        ));
        c.line("if (v === null || v === undefined) return;");
        c.open("switch (v.kind) {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            c.open(&format!("case \"{ty}\": {{"));
            c.line(&format!(
                "w.{}(tagAt, {});",
                put(u.tag),
                int_literal(var.tag as i128, is_big(u.tag))
            ));
            if self.l.is_table(var.ty) {
                c.line(&format!("w.u32(offAt, $write{ty}(w, v.value));"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                c.line(&format!("const at = w.alloc({size}, {OBJECT_ALIGN});"));
                c.line(&format!("$writeAt{ty}(w, v.value, at);"));
                c.line("w.u32(offAt, at);");
            }
            c.line("return;");
            c.close("}");
        }
        c.line("default:");
        c.line("  karmem.noVariant(tagAt, 0, (v as { kind: unknown }).kind);");
        c.close("}");
        c.close("}");
    }

    /// A bunch array (format.md §7.1): the values of each variant in
    /// element order, then a table of one entry per variant present, in
    /// declaration order, each that variant's array.
    fn bunch_writer(&self, c: &mut Lines, id: UnionId, soa: bool) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let f = if soa { "BunchSoa" } else { "Bunch" };
        c.line("");
        c.line("/** Writes the bunch array of `items` and its reference at `at`. */");
        c.open(&format!(
            "function $write{f}{name}(w: karmem.Writer, items: readonly {name}[], at: number): void {{"
        ));
        for (i, v) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(v.ty);
            c.line(&format!("const g{i}: ({ty} | undefined)[] = [];"));
        }
        c.open("for (let i = 0; i < items.length; i++) {");
        c.line("const e = items[i];");
        c.line("if (e === null || e === undefined) continue;");
        c.open("switch (e.kind) {");
        for (i, v) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(v.ty);
            c.line(&format!("case \"{ty}\":"));
            c.line(&format!("  g{i}.push(e.value);"));
            c.line("  break;");
        }
        c.line("default:");
        c.line("  karmem.noVariant(at, i, (e as { kind: unknown }).kind);");
        c.close("}");
        c.close("}");
        let counts: Vec<String> = (0..u.variants.len())
            .map(|i| format!("g{i}.length"))
            .collect();
        let present: Vec<String> = (0..u.variants.len())
            .map(|i| format!("(g{i}.length > 0 ? 1 : 0)"))
            .collect();
        c.line(&format!("const total = {};", counts.join(" + ")));
        c.line("if (total === 0) return;");
        c.line(&format!("const k = {};", present.join(" + ")));
        c.line(&format!(
            "const table = w.alloc({BUNCH_ENTRY_SIZE} * (k + 1), {OBJECT_ALIGN});"
        ));
        c.line("w.u32(table, k);");
        c.line(&format!("let entry = table + {BUNCH_ENTRY_SIZE};"));
        for (i, v) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(v.ty);
            let g = format!("g{i}");
            c.open(&format!("if ({g}.length > 0) {{"));
            c.line(&format!("w.u32(entry, {});", v.tag));
            let at = format!("entry + {BUNCH_ENTRY_ARRAY_AT}");
            match self.l.bunch_variant_data(v.ty, soa) {
                ArrayData::Soa { .. } => c.line(&format!("$writeSoa{ty}(w, {g}, {at});")),
                ArrayData::AosTable { .. } => {
                    c.line(&format!("const b = w.block({g}.length, {OFFSET_SIZE});"));
                    c.line(&format!(
                        "for (let j = 0; j < {g}.length; j++) w.u32({}, $write{ty}(w, {g}[j]));",
                        elem_at("b", "j", OFFSET_SIZE)
                    ));
                    c.line(&format!("w.ref({at}, b, {g}.length);"));
                }
                _ => {
                    let stride = self.l.of_struct(v.ty).size;
                    c.line(&format!("const b = w.block({g}.length, {stride});"));
                    c.line(&format!(
                        "for (let j = 0; j < {g}.length; j++) $writeAt{ty}(w, {g}[j], {});",
                        elem_at("b", "j", stride)
                    ));
                    c.line(&format!("w.ref({at}, b, {g}.length);"));
                }
            }
            c.line(&format!("entry += {BUNCH_ENTRY_SIZE};"));
            c.close("}");
        }
        c.line("w.ref(at, table, total);");
        c.close("}");
    }

    /// An array block of `n` elements of `size` bytes in the local `b`;
    /// `each` writes element `k` (its value `e`) at its position.
    fn write_block(
        &self,
        c: &mut Lines,
        value: &str,
        pos: &str,
        size: u32,
        each: impl FnOnce(&mut Lines, &str, &str),
    ) {
        let (b, k) = (self.fresh("b"), self.fresh("k"));
        c.open("{");
        c.line(&format!("const {b} = w.block({value}.length, {size});"));
        c.open(&format!(
            "for (let {k} = 0; {k} < {value}.length; {k}++) {{"
        ));
        each(c, &format!("{value}[{k}]"), &elem_at(&b, &k, size));
        c.close("}");
        c.line(&format!("w.ref({pos}, {b}, {value}.length);"));
        c.close("}");
    }

    /// Refuses a value over a limited array's `N` (as codec.ts: text by its
    /// UTF-8 bytes, at the writer's length; a map by its entries).
    fn write_limit(&self, c: &mut Lines, array: &ArrayType, value: &str, pos: &str) {
        let Some(n) = array.limit() else { return };
        if array.text == Some(Text::Utf8) {
            let len = self.fresh("n");
            c.line(&format!("const {len} = karmem.utf8Length({value});"));
            c.line(&format!(
                "if ({len} > {n}) karmem.overLimit(w.length, {len});"
            ));
        } else if array.is_map() {
            c.line(&format!(
                "if ({value} !== null && {value} !== undefined && {value}.size > {n}) karmem.overLimit({pos}, {value}.size);"
            ));
        } else {
            c.line(&format!(
                "if ({value}.length > {n}) karmem.overLimit({pos}, {value}.length);"
            ));
        }
    }

    /// The array `value` as a local: a missing text is "", a missing array
    /// empty; a missing map stays missing (nothing is written for it).
    fn array_local(&self, c: &mut Lines, array: &ArrayType, value: &str) -> String {
        let x = self.fresh("x");
        let or = if array.is_map() {
            ""
        } else if array.text.is_some() {
            " ?? \"\""
        } else {
            " ?? []"
        };
        c.line(&format!("const {x} = {value}{or};"));
        x
    }
}

/// TypeScript prints the encoder's plan (crate::walk): each node below is
/// one kind of slot or array block, written through the writer `w`.
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Lines, slot: &Slot, value: &str, pos: &str) {
        let p = match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => *p,
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        // A missing number is left zero, as the interpreted encoder does.
        let x = self.fresh("x");
        c.line(&format!("const {x} = {value};"));
        c.line(&format!(
            "if ({x} !== null && {x} !== undefined) w.{}({pos}, {x});",
            put(p)
        ));
    }

    fn write_inline(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "$writeAt{}(w, {value}, {pos});",
            self.n.struct_name(id)
        ));
    }

    fn write_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "w.u32({pos}, $write{}(w, {value}));",
            self.n.struct_name(id)
        ));
    }

    // null: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        let t = self.fresh("t");
        c.line(&format!("const {t} = {value};"));
        c.line(&format!(
            "if ({t} !== null && {t} !== undefined) w.u32({pos}, $write{}(w, {t}));",
            self.n.struct_name(id)
        ));
    }

    fn write_optional(&self, c: &mut Lines, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        let o = self.fresh("o");
        c.line(&format!("const {o} = {value};"));
        c.open(&format!("if ({o} !== null && {o} !== undefined) {{"));
        c.line(&format!("w.u8({pos}, 1);"));
        write_slot(self, c, inner, &o, &plus(pos, value_at));
        c.close("}");
    }

    fn write_union(&self, c: &mut Lines, id: UnionId, value: &str, pos: &str) {
        c.line(&format!(
            "{}(w, {value}, {pos}, {});",
            self.write_union_fn(id),
            plus(pos, UNION_OFFSET_AT)
        ));
    }

    fn write_fixed(
        &self,
        c: &mut Lines,
        elem: FixedElem,
        len: u32,
        stride: u32,
        value: &str,
        pos: &str,
    ) {
        let (s, j) = (self.fresh("s"), self.fresh("j"));
        let epos = elem_at(pos, &j, stride);
        c.open("{");
        c.line(&format!("const {s} = {value} ?? [];"));
        match elem {
            // Tables inside inline elements are written for missing
            // elements too.
            FixedElem::InlineStruct(id) => c.line(&format!(
                "for (let {j} = 0; {j} < {len}; {j}++) $writeAt{}(w, {s}[{j}], {epos});",
                self.n.struct_name(id)
            )),
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => {
                let e = self.fresh("e");
                c.open(&format!(
                    "for (let {j} = 0; {j} < Math.min({s}.length, {len}); {j}++) {{"
                ));
                c.line(&format!("const {e} = {s}[{j}];"));
                c.line(&format!(
                    "if ({e} !== null && {e} !== undefined) w.{}({epos}, {e});",
                    put(p)
                ));
                c.close("}");
            }
        }
        c.close("}");
    }

    fn write_array_ref(
        &self,
        c: &mut Lines,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        c.open("{");
        let x = self.array_local(c, array, value);
        self.write_limit(c, array, &x, pos);
        write_array(self, c, array, data, &x, pos);
        c.close("}");
    }

    fn write_text(&self, c: &mut Lines, utf16: bool, value: &str, pos: &str) {
        let t = self.fresh("t");
        if utf16 {
            let k = self.fresh("k");
            c.line(&format!("const {t} = w.block({value}.length, 2);"));
            c.line(&format!(
                "for (let {k} = 0; {k} < {value}.length; {k}++) w.u16({}, {value}.charCodeAt({k}));",
                elem_at(&t, &k, 2)
            ));
            c.line(&format!("w.ref({pos}, {t}, {value}.length);"));
        } else {
            c.line(&format!("const {t} = w.utf8({value}, null);"));
            c.line(&format!("w.ref({pos}, {t}[0], {t}[1]);"));
        }
    }

    fn write_plain(&self, c: &mut Lines, elem: ElemType, size: u32, value: &str, pos: &str) {
        let p = match elem {
            ElemType::Scalar(p) => p,
            ElemType::Enum(id) => self.s.enums[id].repr,
            _ => unreachable!("plain arrays hold numbers"),
        };
        // Every element is written: a missing one is refused.
        self.write_block(c, value, pos, size, |c, e, at| {
            c.line(&format!("w.{}({at}, {e});", put(p)))
        });
    }

    fn write_nested(
        &self,
        c: &mut Lines,
        inner: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        self.write_block(c, value, pos, ARRAY_REF_SIZE, |c, e, at| {
            let r = self.fresh("ref");
            c.line(&format!("const {r} = {at};"));
            let x = self.array_local(c, inner, e);
            self.write_limit(c, inner, &x, &r);
            write_array(self, c, inner, data, &x, &r);
        });
    }

    // A map's entries are written in key order (format.md §5.5), sorted
    // as the interpreted encoder sorts them.
    fn write_aos_inline(
        &self,
        c: &mut Lines,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        if !map {
            let name = self.n.struct_name(id);
            self.write_block(c, value, pos, stride, |c, e, at| {
                c.line(&format!("$writeAt{name}(w, {e}, {at});"))
            });
            return;
        }
        let (es, b, k, ek, ev) = (
            self.fresh("es"),
            self.fresh("b"),
            self.fresh("k"),
            self.fresh("ek"),
            self.fresh("ev"),
        );
        let sl = self.l.of_struct(id);
        c.open(&format!(
            "if ({value} !== null && {value} !== undefined) {{"
        ));
        c.line(&format!(
            "const {es} = [...{value}.entries()].sort((p, q) => karmem.compareKeys(p[0], q[0]));"
        ));
        c.line(&format!("const {b} = w.block({es}.length, {stride});"));
        c.open(&format!("for (let {k} = 0; {k} < {es}.length; {k}++) {{"));
        c.line(&format!("const [{ek}, {ev}] = {es}[{k}]!;"));
        let at = elem_at(&b, &k, stride);
        write_slot(
            self,
            c,
            &sl.fields[0].slot,
            &ek,
            &plus(&format!("({at})"), sl.fields[0].offset),
        );
        write_slot(
            self,
            c,
            &sl.fields[1].slot,
            &ev,
            &plus(&format!("({at})"), sl.fields[1].offset),
        );
        c.close("}");
        c.line(&format!("w.ref({pos}, {b}, {es}.length);"));
        c.close("}");
    }

    fn write_aos_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        let name = self.n.struct_name(id);
        self.write_block(c, value, pos, OFFSET_SIZE, |c, e, at| {
            c.line(&format!("w.u32({at}, $write{name}(w, {e}));"))
        });
    }

    fn write_soa(&self, c: &mut Lines, elem: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "$writeSoa{}(w, {value}, {pos});",
            self.n.struct_name(elem)
        ));
    }

    fn write_union_aos(&self, c: &mut Lines, id: UnionId, value: &str, pos: &str) {
        let u = self.write_union_fn(id);
        self.write_block(c, value, pos, UNION_SLOT_SIZE, |c, e, at| {
            c.line(&format!(
                "{u}(w, {e}, {at}, {});",
                plus(at, UNION_OFFSET_AT)
            ))
        });
    }

    fn write_union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, value: &str, pos: &str) {
        let u = self.write_union_fn(id);
        let (tags, offs, k) = (self.fresh("tags"), self.fresh("offs"), self.fresh("k"));
        c.line(&format!("const {tags} = w.block({value}.length, {tw});"));
        c.line(&format!(
            "const {offs} = w.block({value}.length, {OFFSET_SIZE});"
        ));
        c.line(&format!(
            "for (let {k} = 0; {k} < {value}.length; {k}++) {u}(w, {value}[{k}], {}, {});",
            elem_at(&tags, &k, tw),
            elem_at(&offs, &k, OFFSET_SIZE)
        ));
        c.line(&format!("w.ref({pos}, {tags}, {value}.length);"));
    }

    fn write_bunch(&self, c: &mut Lines, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "BunchSoa" } else { "Bunch" };
        c.line(&format!(
            "$write{f}{}(w, {value}, {pos});",
            self.n.union_name(id)
        ));
    }
}

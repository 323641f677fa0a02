//! Encoders: `<type>_encode` and the static writers it calls, in the
//! writing order of format.md §8 (the same as the Go and Rust writers, so
//! the bytes are identical). The slots and array blocks are walked by
//! [`crate::walk`]; `Gen` is its [`EncodePrinter`].

use karmem_layout::{
    Access, ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{union_column_at, Code, Gen};
use crate::walk::{self, EncodePrinter};

/// `base + n` as C (just `base` for 0).
pub(crate) fn add(base: &str, n: u32) -> String {
    if n == 0 {
        base.to_string()
    } else {
        format!("{base} + {n}u")
    }
}

/// `base + i * size`.
pub(crate) fn plus(base: &str, i: &str, size: u32) -> String {
    if size == 1 {
        format!("{base} + {i}")
    } else {
        format!("{base} + {i} * {size}u")
    }
}

/// The store of a scalar of type `p` (signed values through the unsigned
/// store of their width: the same bits).
fn put(p: Primitive, pos: &str, value: &str) -> String {
    match p {
        Primitive::I8 => format!("km_put_u8(w, {pos}, (uint8_t){value});"),
        Primitive::I16 => format!("km_put_u16(w, {pos}, (uint16_t){value});"),
        Primitive::I32 => format!("km_put_u32(w, {pos}, (uint32_t){value});"),
        Primitive::I64 => format!("km_put_u64(w, {pos}, (uint64_t){value});"),
        _ => format!("km_put_{}(w, {pos}, {value});", p.name()),
    }
}

/// The store of a scalar of type `p` at pointer `ptr` into the writer's
/// buffer, for loops that keep the buffer's address in a local: `km_put_*`
/// reload `w->buf` at every store (a byte store may alias the writer), which
/// keeps a column loop from being unrolled or vectorised.
fn store(p: Primitive, ptr: &str, value: &str) -> String {
    match p {
        Primitive::Bool => format!("*({ptr}) = {value} ? 1 : 0;"),
        Primitive::U8 | Primitive::I8 => format!("*({ptr}) = (uint8_t){value};"),
        Primitive::U16 | Primitive::I16 => format!("km_store_u16({ptr}, (uint16_t){value});"),
        Primitive::U32 | Primitive::I32 => format!("km_store_u32({ptr}, (uint32_t){value});"),
        Primitive::U64 | Primitive::I64 => format!("km_store_u64({ptr}, (uint64_t){value});"),
        Primitive::F32 => format!("km_store_u32({ptr}, km_f32_bits({value}));"),
        Primitive::F64 => format!("km_store_u64({ptr}, km_f64_bits({value}));"),
    }
}

impl Gen<'_> {
    pub(crate) fn encode_struct(&self, decls: &mut Code, defs: &mut Code, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id);
        let table = self.l.is_table(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "km_status {name}_encode(const {name} *value, km_writer *w) {{"
        ));
        c.try_("km_writer_begin(w)");
        if table {
            c.try_(&format!("{name}_write_table(value, w, 0)"));
        } else {
            c.line("uint32_t at;");
            c.try_(&format!("km_alloc(w, {}u, {OBJECT_ALIGN}u, &at)", sl.size));
            c.try_(&format!("{name}_write_at(value, w, at)"));
        }
        c.line("return km_writer_finish(w);");
        c.close("}");
        c.line("");

        let mut body = Code::new(1);
        for f in &self.l.struct_plan(self.s, id).fields {
            let (Access::Table { off, .. } | Access::Inline { off }) = f.access else {
                unreachable!("a struct's fields are not columns")
            };
            let place = format!("x->{}", self.n.field(id, f.index));
            walk::write_slot(self, &mut body, f.slot, &place, &add("at", off));
        }
        if table {
            let sig = format!(
                "static km_status {name}_write_table(const {name} *x, km_writer *w, uint32_t ref)"
            );
            decls.line(&format!("{sig};"));
            c.open(&format!("{sig} {{"));
            c.line("uint32_t at;");
            c.line("(void)x;");
            c.try_(&format!("km_alloc(w, {}u, {OBJECT_ALIGN}u, &at)", sl.size));
            c.line(&format!("km_put_u32(w, at, {:#x}u);", sl.header));
            c.open("if (ref != 0) {");
            c.line("km_put_u32(w, ref, at);");
            c.close("}");
        } else {
            let sig = format!(
                "static km_status {name}_write_at(const {name} *x, km_writer *w, uint32_t at)"
            );
            decls.line(&format!("{sig};"));
            c.open(&format!("{sig} {{"));
            c.line("(void)x;");
            c.line("(void)w;");
            c.line("(void)at;");
        }
        c.append(body);
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    /// A limited array longer than its limit is refused, as the other
    /// writers refuse it (a UTF-16 text's limit counts its code units).
    fn write_limit(&self, c: &mut Code, array: &ArrayType, place: &str) {
        if let ArrayKind::Limited(n) = array.kind {
            let len = match array.text {
                Some(Text::Utf16) => format!("km_utf16_len({place}.ptr, {place}.len)"),
                _ => format!("{place}.len"),
            };
            c.open(&format!("if ({len} > {n}u) {{"));
            c.line("return KM_ERR_TOO_LARGE;");
            c.close("}");
        }
    }

    /// A map's entries must be in strictly increasing key order (format.md
    /// §5.5): the encoder writes them as given and refuses others rather
    /// than write a malformed map.
    fn check_map_order(&self, c: &mut Code, id: StructId, place: &str, k: &str) {
        let key = self.n.field(id, 0);
        let (prev, cur) = (
            format!("{place}.ptr[{k} - 1].{key}"),
            format!("{place}.ptr[{k}].{key}"),
        );
        let bad = match &self.l.of_struct(id).fields[0].slot {
            Slot::Scalar(_) | Slot::Enum { .. } => format!("{prev} >= {cur}"),
            _ => format!("km_text_cmp({prev}, {cur}) >= 0"),
        };
        c.open(&format!("if ({k} > 0 && {bad}) {{"));
        c.line("return KM_ERR_MALFORMED_ARRAY;");
        c.close("}");
    }

    pub(crate) fn encode_union(&self, decls: &mut Code, defs: &mut Code, id: UnionId) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let sig = format!(
            "static km_status {name}_write(const {name} *x, km_writer *w, uint32_t tag_at, uint32_t offset_at)"
        );
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line("(void)w;");
        c.line("(void)tag_at;");
        c.line("(void)offset_at;");
        c.line("switch (x->tag) {");
        for v in &u.variants {
            let m = self.n.variant_member(v.ty);
            let ty = self.n.struct_name(v.ty);
            c.open(&format!("case {}: {{", self.n.tag(id, v.ty)));
            c.open(&format!("if (x->as.{m} == NULL) {{"));
            c.line("return KM_OK;");
            c.close("}");
            c.line(&put(u.tag, "tag_at", &format!("{}u", v.tag)));
            if self.l.is_table(v.ty) {
                c.line(&format!(
                    "return {ty}_write_table(x->as.{m}, w, offset_at);"
                ));
            } else {
                c.line("uint32_t at;");
                c.try_(&format!(
                    "km_alloc(w, {}u, {OBJECT_ALIGN}u, &at)",
                    self.l.of_struct(v.ty).size
                ));
                c.line("km_put_u32(w, offset_at, at);");
                c.line(&format!("return {ty}_write_at(x->as.{m}, w, at);"));
            }
            c.close("}");
        }
        c.line("default:");
        c.line("    return KM_OK;");
        c.line("}");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    /// `<elem>_write_soa`, or with `in_union` the writer of the elements of
    /// one variant of a `#bovos` array (`count` of them among `items`).
    pub(crate) fn encode_soa(
        &self,
        decls: &mut Code,
        defs: &mut Code,
        id: StructId,
        in_union: Option<UnionId>,
    ) {
        let soa = self.l.soa(id);
        let name = self.n.struct_name(id);
        let n = soa.columns.len();
        let sig = match in_union {
            None => format!(
                "static km_status {name}_write_soa(km_writer *w, uint32_t at, const {name} *items, uint32_t count)"
            ),
            Some(u) => format!(
                "static km_status {name}_write_soa_in_{}(km_writer *w, uint32_t at, const {} *items, uint32_t n_items, uint32_t count)",
                self.s.unions[u].name.to_lowercase(),
                self.n.union_name(u)
            ),
        };
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line(&format!("uint32_t cols[{}];", n.max(1)));
        c.try_(&format!(
            "km_write_soa(w, at, count, {name}_columns, {n}u, cols)"
        ));
        // Scalar columns first, a loop each over the column as a local
        // pointer: they allocate nothing, so the buffer cannot move, and the
        // loop is a strided gather into a dense column (2× faster than one
        // element at a time on the paper's batch, RATIONALE R11.1).
        // Columns that write out-of-line data (text, tables, arrays) keep
        // the element loop, in element order, so the bytes do not change.
        if soa.columns.is_empty() {
            c.line("(void)items;");
        }
        let mut rest = Vec::new();
        for (k, col) in soa.columns.iter().enumerate() {
            match (&col.slot, in_union) {
                (Slot::Scalar(p) | Slot::Enum { repr: p, .. }, None) => {
                    c.open("{");
                    c.line(&format!("uint8_t *col = w->buf + cols[{k}];"));
                    c.open("for (uint32_t i = 0; i < count; i++) {");
                    let place = self.column_place("items[i]", id, k);
                    let ptr = plus("col", "(size_t)i", col.size);
                    c.line(&store(*p, &ptr, &place));
                    c.close("}");
                    c.close("}");
                }
                _ => rest.push(k),
            }
        }
        if rest.is_empty() {
            c.line("return KM_OK;");
            c.close("}");
            c.line("");
            defs.append(c);
            return;
        }
        match in_union {
            None => {
                c.open("for (uint32_t i = 0; i < count; i++) {");
                c.line(&format!("const {name} *e = &items[i];"));
            }
            Some(u) => {
                let tag = self.n.tag(u, id);
                let m = self.n.variant_member(id);
                c.line("uint32_t i = 0;");
                c.open("for (uint32_t j = 0; j < n_items; j++) {");
                c.line(&format!("const {name} *e = items[j].as.{m};"));
                c.open(&format!("if (items[j].tag != {tag} || e == NULL) {{"));
                c.line("continue;");
                c.close("}");
            }
        }
        c.line("(void)e;");
        c.line("(void)cols;");
        for k in rest {
            let col = &soa.columns[k];
            let place = self.column_place("(*e)", id, k);
            let pos = plus(&format!("cols[{k}]"), "i", col.size);
            walk::write_slot(self, &mut c, &col.slot, &place, &pos);
        }
        if in_union.is_some() {
            c.line("i++;");
        }
        c.close("}");
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }

    pub(crate) fn encode_bunch(&self, decls: &mut Code, defs: &mut Code, id: UnionId, soa: bool) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let f = if soa { "bovos" } else { "bovoa" };
        if soa {
            let mut seen = std::collections::BTreeSet::new();
            for v in &u.variants {
                if seen.insert(v.ty) {
                    self.encode_soa(decls, defs, v.ty, Some(id));
                }
            }
        }
        let k = u.variants.len().max(1);
        let sig = format!(
            "static km_status {name}_write_{f}(km_writer *w, uint32_t at, const {name} *items, uint32_t count)"
        );
        decls.line(&format!("{sig};"));
        let mut c = Code::new(0);
        c.open(&format!("{sig} {{"));
        c.line(&format!("uint32_t counts[{k}] = {{0}};"));
        c.line("uint32_t total = 0, entries = 0, table, entry;");
        c.open("for (uint32_t i = 0; i < count; i++) {");
        c.line("switch (items[i].tag) {");
        for (i, v) in u.variants.iter().enumerate() {
            c.line(&format!("case {}:", self.n.tag(id, v.ty)));
            c.line(&format!(
                "    counts[{i}] += items[i].as.{} != NULL ? 1u : 0u;",
                self.n.variant_member(v.ty)
            ));
            c.line("    break;");
        }
        c.line("default:");
        c.line("    break;");
        c.line("}");
        c.close("}");
        c.open(&format!(
            "for (uint32_t i = 0; i < {}u; i++) {{",
            u.variants.len()
        ));
        c.line("total += counts[i];");
        c.line("entries += counts[i] > 0 ? 1u : 0u;");
        c.close("}");
        c.open("if (total == 0) {");
        c.line("km_put_array_ref(w, at, 0, 0, 0);");
        c.line("return KM_OK;");
        c.close("}");
        c.try_("km_write_bunch_table(w, entries, &table)");
        c.line(&format!("entry = table + {BUNCH_ENTRY_SIZE}u;"));
        for (i, v) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(v.ty);
            let m = self.n.variant_member(v.ty);
            let tag = self.n.tag(id, v.ty);
            c.open(&format!("if (counts[{i}] > 0) {{"));
            c.line(&format!("km_put_u32(w, entry, {}u);", v.tag));
            if soa {
                c.try_(&format!(
                    "{ty}_write_soa_in_{}(w, entry + {BUNCH_ENTRY_ARRAY_AT}u, items, count, counts[{i}])",
                    u.name.to_lowercase()
                ));
            } else {
                let (size, write) = if self.l.is_table(v.ty) {
                    (OFFSET_SIZE, "write_table")
                } else {
                    (self.l.of_struct(v.ty).size, "write_at")
                };
                c.line("uint32_t block, k = 0;");
                c.try_(&format!("km_alloc_array(w, counts[{i}], {size}u, &block)"));
                c.open("for (uint32_t j = 0; j < count; j++) {");
                c.open(&format!(
                    "if (items[j].tag != {tag} || items[j].as.{m} == NULL) {{"
                ));
                c.line("continue;");
                c.close("}");
                c.try_(&format!(
                    "{ty}_{write}(items[j].as.{m}, w, {})",
                    plus("block", "k", size)
                ));
                c.line("k++;");
                c.close("}");
                c.line(&format!(
                    "km_put_array_ref(w, entry + {BUNCH_ENTRY_ARRAY_AT}u, block, counts[{i}], counts[{i}]);"
                ));
            }
            c.line(&format!("entry += {BUNCH_ENTRY_SIZE}u;"));
            c.close("}");
        }
        c.line("(void)entry;");
        c.line("km_put_array_ref(w, at, table, total, total);");
        c.line("return KM_OK;");
        c.close("}");
        c.line("");
        defs.append(c);
    }
}

impl Gen<'_> {
    /// One AoS block of `value`'s elements, `size` bytes each (array
    /// references, table offsets, inline structs, map entries included: a
    /// map is written in the order of its entries, which must be the key
    /// order, or union slots), written by `elem` (given the index, the
    /// element's position and the element) in index order, then its
    /// reference at `pos`.
    fn aos_block(
        &self,
        c: &mut Code,
        size: u32,
        value: &str,
        pos: &str,
        elem: impl FnOnce(&mut Code, &str, &str, &str),
    ) {
        let d = self.d.get();
        let block = format!("block{d}");
        c.open("{");
        c.line(&format!("uint32_t {block};"));
        c.try_(&format!(
            "km_alloc_array(w, {value}.len, {size}u, &{block})"
        ));
        let k = self.each(c, "k", value);
        elem(c, &k, &plus(&block, &k, size), &format!("{value}.ptr[{k}]"));
        c.close("}");
        c.line(&format!(
            "km_put_array_ref(w, {pos}, {block}, {value}.len, {value}.len);"
        ));
        c.close("}");
    }
}

/// `value` is an lvalue of the slot's object type.
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Code, slot: &Slot, value: &str, pos: &str) {
        match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => c.line(&put(*p, pos, value)),
            _ => unreachable!("the walker hands numbers and enums only"),
        }
    }

    fn write_inline(&self, c: &mut Code, id: StructId, value: &str, pos: &str) {
        c.try_(&format!(
            "{}_write_at(&{value}, w, {pos})",
            self.n.struct_name(id)
        ));
    }

    fn write_table(&self, c: &mut Code, id: StructId, value: &str, pos: &str) {
        c.try_(&format!(
            "{}_write_table(&{value}, w, {pos})",
            self.n.struct_name(id)
        ));
    }

    // NULL: offset 0, as the zeroed slot already is.
    fn write_optional_table(&self, c: &mut Code, id: StructId, value: &str, pos: &str) {
        c.open(&format!("if ({value} != NULL) {{"));
        c.try_(&format!(
            "{}_write_table({value}, w, {pos})",
            self.n.struct_name(id)
        ));
        c.close("}");
    }

    fn write_optional(&self, c: &mut Code, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        c.open(&format!("if ({value}.has) {{"));
        c.line(&format!("km_put_u8(w, {pos}, 1);"));
        walk::write_slot(
            self,
            c,
            inner,
            &format!("{value}.value"),
            &add(pos, value_at),
        );
        c.close("}");
    }

    fn write_union(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        c.try_(&format!(
            "{}_write(&{value}, w, {pos}, {})",
            self.n.union_name(id),
            add(pos, UNION_OFFSET_AT)
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
        let j = format!("j{}", self.d.get());
        let epos = plus(&format!("({pos})"), &j, stride);
        c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
        match elem {
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => {
                c.line(&put(p, &epos, &format!("{value}[{j}]")))
            }
            FixedElem::InlineStruct(id) => c.try_(&format!(
                "{}_write_at(&{value}[{j}], w, {epos})",
                self.n.struct_name(id)
            )),
        }
        c.close("}");
    }

    fn write_array_ref(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        self.write_limit(c, array, value);
        walk::write_array(self, c, array, data, value, pos);
    }

    fn write_text(&self, c: &mut Code, utf16: bool, value: &str, pos: &str) {
        if utf16 {
            c.try_(&format!(
                "km_write_utf16(w, {pos}, {value}.ptr, {value}.len)"
            ));
        } else {
            c.try_(&format!(
                "km_write_array(w, {pos}, {value}.ptr, {value}.len, 1)"
            ));
        }
    }

    fn write_plain(&self, c: &mut Code, elem: ElemType, elem_size: u32, value: &str, pos: &str) {
        if elem == ElemType::Scalar(Primitive::Bool) {
            c.try_(&format!(
                "km_write_bools(w, {pos}, {value}.ptr, {value}.len)"
            ));
        } else {
            c.try_(&format!(
                "km_write_array(w, {pos}, {value}.ptr, {value}.len, {elem_size}u)"
            ));
        }
    }

    fn write_nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        self.aos_block(c, ARRAY_REF_SIZE, value, pos, |c, _, at, elem| {
            self.write_limit(c, array, elem);
            self.deeper(|| walk::write_array(self, c, array, data, elem, at));
        });
    }

    fn write_aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        self.aos_block(c, stride, value, pos, |c, k, at, elem| {
            if map {
                self.check_map_order(c, id, value, k);
            }
            self.write_inline(c, id, elem, at);
        });
    }

    fn write_aos_table(&self, c: &mut Code, id: StructId, value: &str, pos: &str) {
        self.aos_block(c, OFFSET_SIZE, value, pos, |c, _, at, elem| {
            self.write_table(c, id, elem, at);
        });
    }

    fn write_soa(&self, c: &mut Code, elem: StructId, value: &str, pos: &str) {
        c.try_(&format!(
            "{}_write_soa(w, {pos}, {value}.ptr, {value}.len)",
            self.n.struct_name(elem)
        ));
    }

    fn write_union_aos(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        self.aos_block(c, UNION_SLOT_SIZE, value, pos, |c, _, at, elem| {
            self.write_union(c, id, elem, at);
        });
    }

    fn write_union_soa(&self, c: &mut Code, id: UnionId, tag_size: u32, value: &str, pos: &str) {
        let (tags, offs) = self.union_columns();
        c.open("{");
        c.line(&format!("uint32_t {tags}, {offs};"));
        c.try_(&format!(
            "km_alloc_array(w, {value}.len, {tag_size}u, &{tags})"
        ));
        c.try_(&format!(
            "km_alloc_array(w, {value}.len, {OFFSET_SIZE}u, &{offs})"
        ));
        let k = self.each(c, "k", value);
        c.try_(&format!(
            "{}_write(&{value}.ptr[{k}], w, {})",
            self.n.union_name(id),
            union_column_at(&tags, &offs, &k, tag_size)
        ));
        c.close("}");
        c.line(&format!(
            "km_put_array_ref(w, {pos}, {tags}, {value}.len, {value}.len);"
        ));
        c.close("}");
    }

    fn write_bunch(&self, c: &mut Code, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "bovos" } else { "bovoa" };
        c.try_(&format!(
            "{}_write_{f}(w, {pos}, {value}.ptr, {value}.len)",
            self.n.union_name(id)
        ));
    }
}

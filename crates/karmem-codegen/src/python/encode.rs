//! Encoding: the writers of tables, inline structs, arrays, SoA blocks,
//! unions and bunch arrays. The writing order is the one every Karmem
//! library follows (format.md §8): an object's block first, then the
//! out-of-line data of its slots in declaration order, each element's
//! children in index order.

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{code, elem_at, hex, lines, plus, prim, Gen};
use crate::emit::Lines;
use crate::walk::{write_array, write_slot, EncodePrinter};

impl Gen<'_> {
    pub(crate) fn encode_function(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let mut body = lines(1);
        if table {
            body.line(&format!("at = w.alloc({}, {OBJECT_ALIGN})", sl.size));
            body.line(&format!("w.u32(at, {})", hex(sl.header)));
            body.open("if ref != 0:");
            body.line("w.u32(ref, at)");
            body.indent -= 1;
        }
        for (i, f) in sl.fields.iter().enumerate() {
            let value = format!("x.{}", self.n.field(id, i));
            write_slot(self, &mut body, &f.slot, &value, &plus("at", f.offset));
        }
        if body.out.is_empty() {
            body.line("pass");
        }
        let sig = if table {
            format!("def _write_{name}(w: karmem.Writer, x: {name}, ref: int) -> None:")
        } else {
            format!("def _write_{name}(w: karmem.Writer, x: {name}, at: int) -> None:")
        };
        self.function(&sig, body);
    }
}

/// A writer refuses a value longer than a limited array's `N`.
fn write_limit(c: &mut Lines, array: &ArrayType, value: &str) {
    if let ArrayKind::Limited(n) = array.kind {
        let len = match array.text {
            Some(Text::Utf16) => format!("karmem.utf16_len({value})"),
            Some(Text::Utf8) => format!("karmem.utf8_len({value})"),
            None => format!("len({value})"),
        };
        c.open(&format!("if {len} > {n}:"));
        c.line(&format!("raise karmem.Error(\"TooLarge\", 0, {len})"));
        c.indent -= 1;
    }
}

/// Python prints the encoder's plan (crate::walk).
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Lines, slot: &Slot, value: &str, pos: &str) {
        let p = match slot {
            Slot::Scalar(p) => *p,
            Slot::Enum { repr, .. } => *repr,
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        c.line(&format!("w.{}({pos}, {value})", prim(p)));
    }

    fn write_inline(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "_write_{}(w, {value}, {pos})",
            self.struct_name(id)
        ));
    }

    fn write_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "_write_{}(w, {value}, {pos})",
            self.struct_name(id)
        ));
    }

    // None: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        let v = self.fresh("table");
        c.line(&format!("{v} = {value}"));
        c.open(&format!("if {v} is not None:"));
        c.line(&format!("_write_{}(w, {v}, {pos})", self.struct_name(id)));
        c.indent -= 1;
    }

    fn write_optional(&self, c: &mut Lines, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        let v = self.fresh("some");
        c.line(&format!("{v} = {value}"));
        c.open(&format!("if {v} is not None:"));
        c.line(&format!("w.u8({pos}, 1)"));
        write_slot(self, c, inner, &v, &plus(pos, value_at));
        c.indent -= 1;
    }

    fn write_union(&self, c: &mut Lines, id: UnionId, value: &str, pos: &str) {
        c.line(&format!(
            "_write_{}(w, {value}, {pos}, {})",
            self.n.union_name(id),
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
        match elem {
            FixedElem::Scalar(Primitive::Bool) => {
                c.line(&format!("w.bools({pos}, {len}, {value})"))
            }
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => c.line(&format!(
                "w.numbers({pos}, {len}, \"{}\", {value})",
                code(p)
            )),
            FixedElem::InlineStruct(id) => {
                let (j, e) = (self.fresh("j"), self.fresh("e"));
                c.line(&format!("karmem.check_len({value}, {len})"));
                c.open(&format!("for {j}, {e} in enumerate({value}):"));
                c.line(&format!(
                    "_write_{}(w, {e}, {})",
                    self.struct_name(id),
                    elem_at(pos, &j, stride)
                ));
                c.indent -= 1;
            }
        }
    }

    fn write_array_ref(
        &self,
        c: &mut Lines,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        write_limit(c, array, value);
        write_array(self, c, array, data, value, pos);
    }

    fn write_text(&self, c: &mut Lines, utf16: bool, value: &str, pos: &str) {
        let f = if utf16 { "utf16" } else { "string" };
        c.line(&format!("w.{f}({pos}, {value})"));
    }

    fn write_plain(&self, c: &mut Lines, elem: ElemType, size: u32, value: &str, pos: &str) {
        match elem {
            ElemType::Scalar(Primitive::Bool) => c.line(&format!("w.plain_bools({pos}, {value})")),
            ElemType::Scalar(p) => {
                c.line(&format!("w.plain({pos}, \"{}\", {size}, {value})", code(p)))
            }
            ElemType::Enum(id) => c.line(&format!(
                "w.plain({pos}, \"{}\", {size}, {value})",
                code(self.s.enums[id].repr)
            )),
            _ => unreachable!("plain arrays hold numbers and enums"),
        }
    }

    fn write_nested(
        &self,
        c: &mut Lines,
        inner: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        let (items, block, k, row, at) = (
            self.fresh("items"),
            self.fresh("block"),
            self.fresh("k"),
            self.fresh("row"),
            self.fresh("ref"),
        );
        c.line(&format!("{items} = {value}"));
        c.line(&format!(
            "{block} = w.alloc_array(len({items}), {ARRAY_REF_SIZE})"
        ));
        c.open(&format!("for {k}, {row} in enumerate({items}):"));
        c.line(&format!("{at} = {}", elem_at(&block, &k, ARRAY_REF_SIZE)));
        write_limit(c, inner, &row);
        write_array(self, c, inner, data, &row, &at);
        c.indent -= 1;
        c.line(&format!("w.array_ref({pos}, {block}, len({items}))"));
    }

    // A map is written in key order (format.md §5.5), whatever order the
    // dict was filled in: its bytes do not depend on insertion order.
    fn write_aos_inline(
        &self,
        c: &mut Lines,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        let (items, block, k, e) = (
            self.fresh("items"),
            self.fresh("block"),
            self.fresh("k"),
            self.fresh("e"),
        );
        let ty = self.struct_name(id);
        if map {
            let text_key = matches!(
                &self.s.structs[id].fields[0].ty,
                FieldType::Array(a) if a.text.is_some()
            );
            let key = if text_key {
                ", key=lambda kv: karmem.string_key(kv[0])"
            } else {
                ""
            };
            c.line(&format!(
                "{items} = [{ty}(kv[0], kv[1]) for kv in sorted({value}.items(){key})]"
            ));
        } else {
            c.line(&format!("{items} = {value}"));
        }
        c.line(&format!("{block} = w.alloc_array(len({items}), {stride})"));
        c.open(&format!("for {k}, {e} in enumerate({items}):"));
        c.line(&format!(
            "_write_{ty}(w, {e}, {})",
            elem_at(&block, &k, stride)
        ));
        c.indent -= 1;
        c.line(&format!("w.array_ref({pos}, {block}, len({items}))"));
    }

    fn write_aos_table(&self, c: &mut Lines, id: StructId, value: &str, pos: &str) {
        let (items, block, k, e) = (
            self.fresh("items"),
            self.fresh("block"),
            self.fresh("k"),
            self.fresh("e"),
        );
        c.line(&format!("{items} = {value}"));
        c.line(&format!(
            "{block} = w.alloc_array(len({items}), {OFFSET_SIZE})"
        ));
        c.open(&format!("for {k}, {e} in enumerate({items}):"));
        c.line(&format!(
            "_write_{}(w, {e}, {})",
            self.struct_name(id),
            elem_at(&block, &k, OFFSET_SIZE)
        ));
        c.indent -= 1;
        c.line(&format!("w.array_ref({pos}, {block}, len({items}))"));
    }

    fn write_soa(&self, c: &mut Lines, elem: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "_write_soa_{}(w, {pos}, {value})",
            self.struct_name(elem)
        ));
    }

    fn write_union_aos(&self, c: &mut Lines, id: UnionId, value: &str, pos: &str) {
        let (items, block, k, e) = (
            self.fresh("items"),
            self.fresh("block"),
            self.fresh("k"),
            self.fresh("e"),
        );
        let at = elem_at(&block, &k, UNION_SLOT_SIZE);
        c.line(&format!("{items} = {value}"));
        c.line(&format!(
            "{block} = w.alloc_array(len({items}), {UNION_SLOT_SIZE})"
        ));
        c.open(&format!("for {k}, {e} in enumerate({items}):"));
        c.line(&format!(
            "_write_{}(w, {e}, {at}, {})",
            self.n.union_name(id),
            plus(&at, UNION_OFFSET_AT)
        ));
        c.indent -= 1;
        c.line(&format!("w.array_ref({pos}, {block}, len({items}))"));
    }

    fn write_union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, value: &str, pos: &str) {
        let (items, tags, offsets, k, e) = (
            self.fresh("items"),
            self.fresh("tags"),
            self.fresh("offsets"),
            self.fresh("k"),
            self.fresh("e"),
        );
        c.line(&format!("{items} = {value}"));
        c.line(&format!("{tags} = w.alloc_array(len({items}), {tw})"));
        c.line(&format!(
            "{offsets} = w.alloc_array(len({items}), {OFFSET_SIZE})"
        ));
        c.open(&format!("for {k}, {e} in enumerate({items}):"));
        c.line(&format!(
            "_write_{}(w, {e}, {}, {})",
            self.n.union_name(id),
            elem_at(&tags, &k, tw),
            elem_at(&offsets, &k, OFFSET_SIZE)
        ));
        c.indent -= 1;
        c.line(&format!("w.array_ref({pos}, {tags}, len({items}))"));
    }

    fn write_bunch(&self, c: &mut Lines, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "bovos" } else { "bovoa" };
        c.line(&format!(
            "_write_{f}_{}(w, {pos}, {value})",
            self.n.union_name(id)
        ));
    }
}

impl Gen<'_> {
    /// The writer of SoA arrays of `id` (format.md §5.3): the block, each
    /// number column in one `struct.pack_into` (they allocate nothing, so
    /// they may go first), then every element's other columns in
    /// directory order, so that their out-of-line data is written in the
    /// order of the other libraries (format.md §8).
    pub(crate) fn soa_writer(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = lines(1);
        if soa.columns.is_empty() {
            body.line(&format!("w.soa(at, len(items), _COLS_{name})"));
        } else {
            body.line(&format!("cols = w.soa(at, len(items), _COLS_{name})"));
            let mut each = lines(2);
            for (k, col) in soa.columns.iter().enumerate() {
                let place = self.column_place("e", id, k);
                let p = match col.slot {
                    Slot::Scalar(p) if p != Primitive::Bool => p,
                    Slot::Enum { repr, .. } => repr,
                    _ => {
                        let pos = elem_at(&format!("cols[{k}]"), "i", col.size);
                        write_slot(self, &mut each, &col.slot, &place, &pos);
                        continue;
                    }
                };
                body.line(&format!(
                    "w.column(cols[{k}], \"{}\", [{place} for e in items])",
                    code(p)
                ));
            }
            if !each.out.is_empty() {
                body.open("for i, e in enumerate(items):");
                body.splice(&each);
                body.indent -= 1;
            }
        }
        self.function(
            &format!(
                "def _write_soa_{name}(w: karmem.Writer, at: int, items: list[{name}]) -> None:"
            ),
            body,
        );
    }

    pub(crate) fn union_writer(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let ty = self.union_type(id);
        let mut b = lines(1);
        for (i, v) in u.variants.iter().enumerate() {
            let vt = self.struct_name(v.ty);
            let kw = if i == 0 { "if" } else { "elif" };
            b.open(&format!("{kw} isinstance(value, {vt}):"));
            b.line(&format!("w.{}(tag_at, {})", prim(u.tag), v.tag));
            if self.l.is_table(v.ty) {
                b.line(&format!("_write_{vt}(w, value, offset_at)"));
            } else {
                b.line(&format!(
                    "at = w.alloc({}, {OBJECT_ALIGN})",
                    self.l.of_struct(v.ty).size
                ));
                b.line("w.u32(offset_at, at)");
                b.line(&format!("_write_{vt}(w, value, at)"));
            }
            b.indent -= 1;
        }
        if u.variants.is_empty() {
            b.line("pass");
        }
        self.function(
            &format!(
                "def _write_{name}(w: karmem.Writer, value: {ty}, tag_at: int, offset_at: int) -> None:"
            ),
            b,
        );
        self.bunch_writers(id);
    }

    /// Writers of the bunch arrays of a union (`#bovoa`, `#bovos`, format.md
    /// §7.1): a table of one entry per variant present, in declaration
    /// order, each an array of that variant's values in element order.
    fn bunch_writers(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let ty = self.union_type(id);
        for soa in [false, true] {
            if !karmem_layout::plan::uses_bunch(self.l, id, soa) {
                continue;
            }
            let f = if soa { "bovos" } else { "bovoa" };
            let mut b = lines(1);
            let groups: Vec<String> = (0..u.variants.len()).map(|i| format!("g{i}")).collect();
            for (v, g) in u.variants.iter().zip(&groups) {
                let vt = self.struct_name(v.ty);
                b.line(&format!("{g} = [x for x in items if isinstance(x, {vt})]"));
            }
            let lens: Vec<String> = groups.iter().map(|g| format!("len({g})")).collect();
            let nonempty: Vec<String> = groups.iter().map(|g| format!("bool({g})")).collect();
            b.line(&format!("total = {}", lens.join(" + ")));
            b.open("if total == 0:");
            b.line("w.array_ref(at, 0, 0)");
            b.line("return");
            b.indent -= 1;
            b.line(&format!("table = w.bunch_table({})", nonempty.join(" + ")));
            b.line(&format!("entry = table + {BUNCH_ENTRY_SIZE}"));
            for (v, g) in u.variants.iter().zip(&groups) {
                let vt = self.struct_name(v.ty);
                b.open(&format!("if {g}:"));
                b.line(&format!("w.u32(entry, {})", v.tag));
                match self.l.bunch_variant_data(v.ty, soa) {
                    ArrayData::Soa { .. } => b.line(&format!(
                        "_write_soa_{vt}(w, entry + {BUNCH_ENTRY_ARRAY_AT}, {g})"
                    )),
                    data => {
                        let size = data.elem_size();
                        let e = self.fresh("e");
                        b.line(&format!("block = w.alloc_array(len({g}), {size})"));
                        b.open(&format!("for k, {e} in enumerate({g}):"));
                        b.line(&format!(
                            "_write_{vt}(w, {e}, {})",
                            elem_at("block", "k", size)
                        ));
                        b.indent -= 1;
                        b.line(&format!(
                            "w.array_ref(entry + {BUNCH_ENTRY_ARRAY_AT}, block, len({g}))"
                        ));
                    }
                }
                b.line(&format!("entry += {BUNCH_ENTRY_SIZE}"));
                b.indent -= 1;
            }
            b.line("w.array_ref(at, table, total)");
            self.function(
                &format!(
                    "def _write_{f}_{name}(w: karmem.Writer, at: int, items: list[{ty}]) -> None:"
                ),
                b,
            );
        }
    }
}

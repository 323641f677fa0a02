//! Encoding: `encode` per struct and the writers of tables, inline
//! structs, arrays, SoA blocks, unions and bunch arrays. The writing order
//! is the one every Karmem library follows (format.md §8): an object's
//! block first, then the out-of-line data of its slots in declaration
//! order, each element's children in index order.

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{elem_at, plus, prim, variant_name, Gen};
use crate::walk::{write_array, write_slot, EncodePrinter};

impl Gen<'_> {
    pub(crate) fn encode_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let inner = self.c.indent + 1;

        let mut body = Code::new(inner);
        body.line("try w.begin();");
        if table {
            body.line("try x.writeTable(w, 0);");
        } else {
            body.line(&format!(
                "const at = try w.alloc({}, {OBJECT_ALIGN});",
                sl.size
            ));
            body.line("try x.writeAt(w, at);");
        }
        body.line("try w.finish();");
        // zig fmt allows no blank line right after a struct's `{`.
        if !self.s.structs[id].fields.is_empty() {
            self.c.line("");
        }
        self.c
            .line("/// Encodes `x` as the root of a whole message into `w`, which begins");
        self.c
            .line("/// anew: the message is `w.bytes()` afterwards. Allocates nothing but");
        self.c.line("/// what a growable writer needs to grow.");
        let sig =
            format!("pub fn encode(x: *const {name}, w: *karmem.Writer) karmem.WriteError!void {{");
        self.c.open(&sig);
        self.c.raw(&body.into_text());
        self.c.close("}");

        let mut body = Code::new(inner);
        if table {
            let w = body.local("w");
            body.line(&format!(
                "const at = try {w}.alloc({}, {OBJECT_ALIGN});",
                sl.size
            ));
            body.line(&format!("{w}.put(u32, at, {:#x});", sl.header));
            body.line(&format!("if (ref != 0) {w}.put(u32, ref, at);"));
        }
        for (i, f) in sl.fields.iter().enumerate() {
            // Each field is written from `x`, at `at`, through `w`.
            let (x, at) = (body.local("x"), body.local("at"));
            body.local("w");
            let value = format!("{x}.{}", self.n.field(id, i));
            write_slot(self, &mut body, &f.slot, &value, &plus(at, f.offset));
        }
        if table {
            self.function(
                &format!(
                    "fn writeTable(x: *const {name}, w: *karmem.Writer, ref: u32) karmem.WriteError!void {{"
                ),
                &["x"],
                body,
            );
        } else {
            self.function(
                &format!(
                    "fn writeAt(x: *const {name}, w: *karmem.Writer, at: u32) karmem.WriteError!void {{"
                ),
                &["x", "w", "at"],
                body,
            );
        }
    }
}

/// Zig prints the encoder's plan (crate::walk): each node below is one kind
/// of slot or array block.
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Code, slot: &Slot, value: &str, pos: &str) {
        let t = match slot {
            Slot::Scalar(p) => prim(*p).to_string(),
            Slot::Enum { id, .. } => self.n.enum_name(*id),
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        c.line(&format!("w.put({t}, {pos}, {value});"));
    }

    fn write_inline(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("try {value}.writeAt(w, {pos});"));
    }

    fn write_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("try {value}.writeTable(w, {pos});"));
    }

    // null: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        let v = self.fresh("table");
        c.line(&format!("if ({value}) |{v}| try {v}.writeTable(w, {pos});"));
    }

    fn write_optional(&self, c: &mut Code, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        let v = self.fresh("some");
        c.open(&format!("if ({value}) |{v}| {{"));
        c.line(&format!("w.put(u8, {pos}, 1);"));
        write_slot(self, c, inner, &v, &plus(pos, value_at));
        c.close("}");
    }

    fn write_union(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        c.line(&format!(
            "try write{}(w, {value}, {pos}, {});",
            self.n.union_name(id),
            plus(pos, UNION_OFFSET_AT)
        ));
    }

    fn write_fixed(
        &self,
        c: &mut Code,
        elem: FixedElem,
        _len: u32,
        stride: u32,
        value: &str,
        pos: &str,
    ) {
        let (e, j) = (self.fresh("e"), self.fresh("j"));
        let epos = elem_at(pos, &j, stride);
        let put = |t: String| format!("for ({value}, 0..) |{e}, {j}| w.put({t}, {epos}, {e});");
        c.line(&match elem {
            FixedElem::Scalar(p) => put(prim(p).to_string()),
            FixedElem::Enum { id, .. } => put(self.n.enum_name(id)),
            FixedElem::InlineStruct(_) => {
                format!("for (&{value}, 0..) |*{e}, {j}| try {e}.writeAt(w, {epos});")
            }
        });
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
        c.line(&format!("try w.{f}({pos}, {value});"));
    }

    fn write_plain(&self, c: &mut Code, elem: ElemType, _size: u32, value: &str, pos: &str) {
        match elem {
            ElemType::Scalar(Primitive::Bool) => {
                c.line(&format!("try w.writeBools({pos}, {value});"))
            }
            e => c.line(&format!(
                "try w.writeSlice({}, {pos}, {value});",
                self.elem_type(e)
            )),
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
        let (row, k) = (self.fresh("row"), self.fresh("k"));
        self.write_block(c, value, pos, ARRAY_REF_SIZE, &row, &k, |c, block| {
            let at = self.fresh("ref");
            c.line(&format!(
                "const {at} = {};",
                elem_at(block, &k, ARRAY_REF_SIZE)
            ));
            write_limit(c, inner, &row);
            write_array(self, c, inner, data, &row, &at);
        });
    }

    // A map's entries are its entry structs, written in the order given,
    // which must be strictly increasing key order (format.md §5.5; decoded
    // maps are): the encoder refuses any other rather than write a map
    // every validator refuses.
    fn write_aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        let (e, k) = (self.fresh("e"), self.fresh("k"));
        let key = map.then(|| self.n.field(id, 0));
        self.write_block(c, value, pos, stride, &format!("*{e}"), &k, |c, block| {
            if let Some(key) = &key {
                c.line(&format!(
                    "if ({k} > 0 and karmem.orderKeys(@TypeOf({e}.{key}), {value}[{k} - 1].{key}, {e}.{key}) != .lt) return error.MapOrder;"
                ));
            }
            c.line(&format!(
                "try {e}.writeAt(w, {});",
                elem_at(block, &k, stride)
            ))
        });
    }

    fn write_aos_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        let (e, k) = (self.fresh("e"), self.fresh("k"));
        self.write_block(
            c,
            value,
            pos,
            OFFSET_SIZE,
            &format!("*{e}"),
            &k,
            |c, block| {
                c.line(&format!(
                    "try {e}.writeTable(w, {});",
                    elem_at(block, &k, OFFSET_SIZE)
                ))
            },
        );
    }

    fn write_soa(&self, c: &mut Code, elem: StructId, value: &str, pos: &str) {
        c.line(&format!(
            "try writeSoa{}(w, {pos}, {value});",
            self.n.struct_name(elem)
        ));
    }

    fn write_union_aos(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        let (e, k) = (self.fresh("e"), self.fresh("k"));
        let u = self.n.union_name(id);
        self.write_block(c, value, pos, UNION_SLOT_SIZE, &e, &k, |c, block| {
            let at = elem_at(block, &k, UNION_SLOT_SIZE);
            c.line(&format!(
                "try write{u}(w, {e}, {at}, {});",
                plus(&at, UNION_OFFSET_AT)
            ));
        });
    }

    fn write_union_soa(&self, c: &mut Code, id: UnionId, tw: u32, value: &str, pos: &str) {
        let u = self.n.union_name(id);
        let (tags, offsets, e, k) = (
            self.fresh("tags"),
            self.fresh("offsets"),
            self.fresh("e"),
            self.fresh("k"),
        );
        c.open("{");
        c.line(&format!(
            "const {tags} = try w.allocArray({value}.len, {tw});"
        ));
        c.line(&format!(
            "const {offsets} = try w.allocArray({value}.len, {OFFSET_SIZE});"
        ));
        c.line(&format!(
            "for ({value}, 0..) |{e}, {k}| try write{u}(w, {e}, {}, {});",
            elem_at(&tags, &k, tw),
            elem_at(&offsets, &k, OFFSET_SIZE)
        ));
        c.line(&format!(
            "w.putArrayRef({pos}, {tags}, idx({value}.len), idx({value}.len));"
        ));
        c.close("}");
    }

    fn write_bunch(&self, c: &mut Code, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "Bovos" } else { "Bovoa" };
        c.line(&format!(
            "try write{f}{}(w, {pos}, {value});",
            self.n.union_name(id)
        ));
    }
}

impl Gen<'_> {
    /// An AoS block of `value.len` elements of `size` bytes; `each` writes
    /// the element captured as `capture` (index `k`) given the block.
    #[allow(clippy::too_many_arguments)]
    fn write_block(
        &self,
        c: &mut Code,
        value: &str,
        pos: &str,
        size: u32,
        capture: &str,
        k: &str,
        each: impl FnOnce(&mut Code, &str),
    ) {
        let block = self.fresh("block");
        c.open("{");
        c.line(&format!(
            "const {block} = try w.allocArray({value}.len, {size});"
        ));
        c.open(&format!("for ({value}, 0..) |{capture}, {k}| {{"));
        // Every element's writer places it by its index `k`.
        each(c, &block);
        c.close("}");
        c.line(&format!(
            "w.putArrayRef({pos}, {block}, idx({value}.len), idx({value}.len));"
        ));
        c.close("}");
    }

    // ---- SoA arrays --------------------------------------------------------------

    /// The writer of SoA arrays of `id`: from a slice of them, or (`seq`
    /// names a union) from the values of that variant among a slice of the
    /// union's values (a `#bovos` array, format.md §7.1).
    pub(crate) fn soa_writer(&mut self, id: StructId, seq: Option<UnionId>) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let mut body = Code::new(self.c.indent + 1);
        let count = if seq.is_some() {
            "count"
        } else {
            body.local("items");
            "items.len"
        };
        body.line(&format!(
            "const cols = try w.writeSoaOf(&{}, at, {count});",
            self.soa_columns(id)
        ));
        // Scalar columns first, a loop each over the buffer as a local
        // slice: they allocate nothing, so the buffer cannot move, and the
        // loop is a strided gather into a dense column (`w.put` reloads
        // `w.buf` at every store, which keeps the loop from being unrolled
        // or vectorised: 2× slower on the paper's batch, RATIONALE R11.1).
        let mut rest = Vec::new();
        for (k, col) in soa.columns.iter().enumerate() {
            let ty = match (&col.slot, seq) {
                (Slot::Scalar(p), None) => prim(*p).to_string(),
                (Slot::Enum { id, .. }, None) => self.n.enum_name(*id),
                _ => {
                    rest.push(k);
                    continue;
                }
            };
            let place = self.column_place("e", id, k);
            let size = col.size;
            body.open("{");
            body.line(&format!("const col = w.buf[cols[{k}]..];"));
            body.local("items");
            body.line(&format!(
                "for (items, 0..) |*e, i| karmem.encode({ty}, col[i * {size} ..][0..{size}], {place});"
            ));
            body.close("}");
        }
        // Then one pass over the elements, the other columns of an element
        // in directory order: their out-of-line data is then written in the
        // order of the other libraries (format.md §8).
        let mut each = Code::new(body.indent + 1);
        for &k in &rest {
            let col = &soa.columns[k];
            let place = self.column_place("e", id, k);
            let pos = elem_at(&format!("cols[{k}]"), "i", col.size);
            write_slot(self, &mut each, &col.slot, &place, &pos);
        }
        let each = each.into_text();
        // Each of those columns is written at its element's index `i`.
        let uses_i = !rest.is_empty();
        match seq {
            _ if !uses_i && soa.columns.is_empty() => body.line("_ = cols;"),
            _ if !uses_i => {}
            None => {
                body.local("items");
                body.open("for (items, 0..) |*e, i| {");
                body.raw(&each);
                body.close("}");
            }
            Some(u) => {
                let var = variant_name(&self.s.structs[id].name);
                let capture = if self.variant_is_pointer(u, id) {
                    "p"
                } else {
                    "*p"
                };
                if uses_i {
                    body.line("var i: usize = 0;");
                }
                body.local("items");
                body.open("for (items) |item| {");
                body.line("const x = item orelse continue;");
                body.open("const e = switch (x) {");
                body.line(&format!(".{var} => |{capture}| p,"));
                if self.s.unions[u].variants.len() > 1 {
                    body.line("else => continue,");
                }
                body.close("};");
                body.raw(&each);
                if uses_i {
                    body.line("i += 1;");
                }
                body.close("}");
            }
        }
        let signature = match seq {
            None => format!(
                "fn writeSoa{name}(w: *karmem.Writer, at: u32, items: []const {name}) karmem.WriteError!void {{"
            ),
            Some(u) => format!(
                "fn writeSoa{name}In{}(w: *karmem.Writer, at: u32, items: []const ?{}, count: usize) karmem.WriteError!void {{",
                self.n.union_name(u),
                self.n.union_name(u)
            ),
        };
        self.function(&signature, &["items"], body);
    }

    // ---- unions --------------------------------------------------------------------

    pub(crate) fn union_writer(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut body = Code::new(self.c.indent + 1);
        body.line("const u = value orelse return;");
        body.open("switch (u) {");
        for v in &u.variants {
            let var = variant_name(&self.s.structs[v.ty].name);
            let pointer = self.variant_is_pointer(id, v.ty);
            let capture = if pointer { "x" } else { "*x" };
            body.open(&format!(".{var} => |{capture}| {{"));
            body.line(&format!("w.put({}, tag_at, {});", prim(u.tag), v.tag));
            if self.l.is_table(v.ty) {
                body.line("try x.writeTable(w, offset_at);");
            } else {
                body.line(&format!(
                    "const at = try w.alloc({}, {OBJECT_ALIGN});",
                    self.l.of_struct(v.ty).size
                ));
                body.line("w.put(u32, offset_at, at);");
                body.line("try x.writeAt(w, at);");
            }
            body.close("},");
        }
        body.close("}");
        self.function(
            &format!(
                "fn write{name}(w: *karmem.Writer, value: ?{name}, tag_at: u32, offset_at: u32) karmem.WriteError!void {{"
            ),
            &[],
            body,
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
            let suffix = if soa { "Bovos" } else { "Bovoa" };
            if !self.uses_bunch(id, soa) {
                continue;
            }
            if soa {
                for v in &u.variants {
                    self.soa_writer(v.ty, Some(id));
                }
            }
            let k = u.variants.len();
            let mut b = Code::new(self.c.indent + 1);
            b.line(&format!("var counts: [{k}]usize = @splat(0);"));
            b.open("for (items) |item| {");
            b.line("const x = item orelse continue;");
            b.line("counts[@backingInt(std.meta.activeTag(x))] += 1;");
            b.close("}");
            b.line("var total: usize = 0;");
            b.line("var entries: u32 = 0;");
            b.open("for (counts) |n| {");
            b.line("total += n;");
            b.line("if (n > 0) entries += 1;");
            b.close("}");
            b.open("if (total == 0) {");
            b.line("w.putArrayRef(at, 0, 0, 0);");
            b.line("return;");
            b.close("}");
            b.line("const table = try w.writeBunchTable(entries);");
            b.line(&format!("var entry = table + {BUNCH_ENTRY_SIZE};"));
            for (i, v) in u.variants.iter().enumerate() {
                let ty = self.n.struct_name(v.ty);
                let var = variant_name(&self.s.structs[v.ty].name);
                let pointer = self.variant_is_pointer(id, v.ty);
                b.open(&format!("if (counts[{i}] > 0) {{"));
                b.line(&format!("w.put(u32, entry, {});", v.tag));
                let data = self.l.bunch_variant_data(v.ty, soa);
                match &data {
                    ArrayData::Soa { .. } => b.line(&format!(
                        "try writeSoa{ty}In{name}(w, entry + {BUNCH_ENTRY_ARRAY_AT}, items, counts[{i}]);"
                    )),
                    _ => {
                        let (size, call) = if self.l.is_table(v.ty) {
                            (OFFSET_SIZE, format!("try e.writeTable(w, {});", elem_at("block", "n", OFFSET_SIZE)))
                        } else {
                            let stride = self.l.of_struct(v.ty).size;
                            (stride, format!("try e.writeAt(w, {});", elem_at("block", "n", stride)))
                        };
                        b.line(&format!("const block = try w.allocArray(counts[{i}], {size});"));
                        b.line("var n: usize = 0;");
                        b.open("for (items) |item| {");
                        b.open("if (item) |x| switch (x) {");
                        let cap = if pointer { "e" } else { "*e" };
                        b.open(&format!(".{var} => |{cap}| {{"));
                        b.line(&call);
                        b.line("n += 1;");
                        b.close("},");
                        if u.variants.len() > 1 {
                            b.line("else => {},");
                        }
                        b.close("};");
                        b.close("}");
                        b.line(&format!(
                            "w.putArrayRef(entry + {BUNCH_ENTRY_ARRAY_AT}, block, idx(n), idx(n));"
                        ));
                    }
                }
                b.line(&format!("entry += {BUNCH_ENTRY_SIZE};"));
                b.close("}");
            }
            b.line("w.putArrayRef(at, table, idx(total), idx(total));");
            self.function(
                &format!(
                    "fn write{suffix}{name}(w: *karmem.Writer, at: u32, items: []const ?{name}) karmem.WriteError!void {{"
                ),
                &[],
                b,
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
            Some(Text::Utf16) => format!("karmem.utf16Len({value})"),
            _ => format!("{value}.len"),
        };
        c.line(&format!("if ({len} > {n}) return error.TooLarge;"));
    }
}

//! Object types: the owned struct (`Clone + Debug + Default + PartialEq`),
//! its `write_as_root` / `read_as_root` / `validate` entry points, and the
//! per-slot code that writes a field and decodes it into the object
//! (reusing allocations): `Gen` as the walkers' `EncodePrinter` and
//! `DecodePrinter` (`crate::walk`), and the `SlotPrinter` they and the
//! validator share.

use karmem_layout::{
    Access, ArrayData, FixedElem, Layout, Slot, SlotCheck, ARRAY_REF_SIZE, HEADER_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{add, bunch_kind, mul, rust_limit, rust_prim, Gen};
use crate::names::screaming;
use crate::walk::{
    read_array, read_fields, read_slot, validate_slot, write_array, write_slot, Ctx, DecodePrinter,
    EncodePrinter, Here, SlotPrinter,
};

impl Gen<'_> {
    fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            // `map<K, V>`: its entry struct's key and value, in key order.
            FieldType::Array(a) if a.is_map() => {
                let ElemType::Struct(entry) = a.elem else {
                    unreachable!("a map holds its entry struct")
                };
                let [key, value] = &self.s.structs[entry].fields[..] else {
                    unreachable!("an entry struct has a key and a value")
                };
                format!(
                    "karmem::Map<{}, {}>",
                    self.obj_type(&key.ty),
                    self.obj_type(&value.ty)
                )
            }
            FieldType::Scalar(p) => rust_prim(*p).to_string(),
            FieldType::Enum(id) => self.n.enum_name(*id),
            FieldType::Struct(id) => self.n.struct_name(*id),
            FieldType::Union(id) => format!("Option<{}>", self.union_value(*id)),
            FieldType::Array(a) => {
                let elem = match a.elem {
                    ElemType::Scalar(p) => rust_prim(p).to_string(),
                    ElemType::Enum(id) => self.n.enum_name(id),
                    ElemType::Struct(id) => self.n.struct_name(id),
                    ElemType::Union(id) => format!("Option<{}>", self.union_value(id)),
                    ElemType::Array(id) => self.obj_type(&FieldType::Array(self.s.arrays[id])),
                };
                match (a.kind, a.text) {
                    (ArrayKind::Fixed(n), _) => format!("[{elem}; {n}]"),
                    (_, Some(_)) => "String".to_string(),
                    _ => format!("Vec<{elem}>"),
                }
            }
        }
    }

    pub(super) fn struct_item(&mut self, id: StructId) {
        let st = &self.s.structs[id];
        let name = self.n.struct_name(id);
        let kind = if self.l.is_table(id) {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.c.doc(&st.doc);
        if !st.doc.is_empty() {
            self.c.line("///");
        }
        self.c.line(&format!(
            "/// `{}`: {kind}. Object type: owns its data.",
            st.name
        ));
        self.c.line("#[derive(Clone, Debug, PartialEq)]");
        if self.words_soa(id).is_some() {
            // Field order and no padding are relied on by `write_soa_slice`.
            self.c.line("#[repr(C)]");
        }
        // A tuple `(T0, T1)` is a tuple struct: positional, `.0`, `.1`
        // (docs/idl.md §3.3); serde writes it as a JSON array.
        let tuple = st.tuple;
        if self.serde {
            self.c
                .line("#[derive(serde::Serialize, serde::Deserialize)]");
            if !tuple {
                self.c.line("#[serde(default, deny_unknown_fields)]");
            }
        }
        if tuple {
            self.c.open(&format!("pub struct {name}("));
        } else {
            self.c.open(&format!("pub struct {name} {{"));
        }
        let mut defaults = Vec::new();
        for (i, f) in st.fields.iter().enumerate() {
            for d in &f.doc {
                self.c.line(&format!("/// {d}"));
            }
            let ident = self.n.field(id, i);
            if self.serde && !tuple && ident.trim_end_matches('_') != f.name {
                self.c.line(&format!("#[serde(rename = \"{}\")]", f.name));
            }
            let ty = match &f.ty {
                // Boxed: an optional table may hold its own type (a list,
                // a tree), which a plain `Option<T>` could not.
                FieldType::Struct(s) if f.optional && self.l.is_table(*s) => {
                    format!("Option<Box<{}>>", self.obj_type(&f.ty))
                }
                _ if f.optional => format!("Option<{}>", self.obj_type(&f.ty)),
                _ => self.obj_type(&f.ty),
            };
            if tuple {
                self.c.line(&format!("pub {ty},"));
            } else {
                self.c.line(&format!("pub {ident}: {ty},"));
            }
            let default = match (&f.ty, f.nonzero_default()) {
                _ if f.optional => "None".to_string(),
                (_, Some(DefaultValue::Text(t))) => format!("String::from({t:?})"),
                (_, Some(d)) => {
                    let slot = &self.l.of_struct(id).fields[i].slot;
                    self.default_expr(slot, d)
                }
                (
                    FieldType::Array(ArrayType {
                        kind: ArrayKind::Fixed(_),
                        ..
                    }),
                    None,
                ) => "core::array::from_fn(|_| core::default::Default::default())".to_string(),
                _ => "core::default::Default::default()".to_string(),
            };
            defaults.push(if tuple {
                format!("{default},")
            } else {
                format!("{ident}: {default},")
            });
        }
        self.c.close(if tuple { ");" } else { "}" });
        self.c.line("");
        self.c.line("#[allow(clippy::derivable_impls)]");
        self.c
            .open(&format!("impl core::default::Default for {name} {{"));
        self.c.open("fn default() -> Self {");
        self.c
            .open(&format!("{name}{}", if tuple { "(" } else { " {" }));
        for default in &defaults {
            self.c.line(default);
        }
        self.c.close(if tuple { ")" } else { "}" });
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.struct_impl(id);
        self.view_item(id);
    }

    fn struct_impl(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        self.c.open(&format!("impl {name} {{"));
        for (i, f) in sl.fields.iter().enumerate() {
            let field = &self.s.structs[id].fields[i].name;
            self.c.line(&format!(
                "/// Byte offset of `{field}` in the {} (for in-place updates).",
                if table { "table" } else { "struct" }
            ));
            self.c.line(&format!(
                "pub const {}_OFFSET: u32 = {};",
                screaming(field),
                f.offset
            ));
        }
        if table {
            self.c.line(
                "/// `S` of format.md §10: the table's full size, every field of this schema;",
            );
            self.c
                .line("/// a decoder charges at least this for a table it reads.");
            self.c
                .line(&format!("pub const FULL_SIZE: u32 = {};", sl.size));
            self.c
                .line("/// `Z` of format.md §10: the size of the table's zero value, the tables");
            self.c.line(
                "/// it holds included; a decoder charges it for an absent or malformed one.",
            );
            self.c
                .line(&format!("pub const ZERO_SIZE: u64 = {};", sl.zero));
        }
        // -- encode
        self.c
            .line("/// Encode as the root of a message; `w` is reset first. Reuse the");
        self.c
            .line("/// writer: once it has grown, encoding allocates nothing.");
        self.c.open(
            "pub fn write_as_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {",
        );
        self.c.line("w.begin();");
        if table {
            self.c.line("self.write(w)?;");
        } else {
            self.c
                .line(&format!("let at = w.alloc({}, {OBJECT_ALIGN})?;", sl.size));
            self.c.line("self.write_at(w, at)?;");
        }
        self.c.line("w.finish()?;");
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Encode into a new buffer (convenience; prefer `write_as_root`).");
        self.c
            .open("pub fn to_bytes(&self) -> Result<Vec<u8>, karmem::Error> {");
        self.c.line("let mut w = karmem::Writer::new(1024);");
        self.c.line("self.write_as_root(&mut w)?;");
        self.c.line("Ok(w.bytes().to_vec())");
        self.c.close("}");
        self.c.line("");
        let plan = self.l.struct_plan(self.s, id);
        let places: Vec<String> = (plan.fields.iter())
            .map(|f| format!("self.{}", self.n.field(id, f.index)))
            .collect();
        let mut body = Code::new(2);
        for f in &plan.fields {
            let (Access::Table { off, .. } | Access::Inline { off }) = f.access else {
                unreachable!("a struct's fields are its own")
            };
            write_slot(self, &mut body, f.slot, &places[f.index], &add("at", off));
        }
        let body = body.into_text();
        if table {
            self.c.line("#[doc(hidden)]");
            self.c.open(
                "pub fn write(&self, w: &mut karmem::Writer) -> Result<u32, karmem::Error> {",
            );
            self.c
                .line(&format!("let at = w.alloc({}, {OBJECT_ALIGN})?;", sl.size));
            self.c.line(&format!("w.put::<u32>(at, {:#x});", sl.header));
            self.c.raw(&body);
            self.c.line("Ok(at)");
            self.c.close("}");
        } else {
            let (w, at) = if plan.fields.is_empty() {
                ("_w", "_at")
            } else {
                ("w", "at")
            };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn write_at(&self, {w}: &mut karmem::Writer, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.line("");
        // -- decode
        self.c
            .line("/// Decode a whole message into `self`, reusing its allocations.");
        self.c
            .line("/// Malformed parts read as zero/empty; the traversal budget and depth");
        self.c
            .line("/// limit bound the work and memory a hostile message can cause.");
        self.c.open(
            "pub fn read_as_root(&mut self, r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {",
        );
        self.c.line("let mut v = karmem::Validator::new(*r);");
        if table {
            self.c.line("self.read_table(&mut v, r.root())");
        } else {
            self.c
                .open(&format!("if {HEADER_SIZE} + {} > r.size() {{", sl.size));
            // Its zero value, charged for the tables it holds (format.md
            // §10).
            if sl.zero > 0 {
                self.c.line(&format!("v.charge({})?;", sl.zero));
            }
            self.c.line("*self = Self::default();");
            self.c.line("return Ok(());");
            self.c.close("}");
            self.c.line("self.read_at(&mut v, karmem::HEADER_SIZE)");
        }
        self.c.close("}");
        self.c.line("");
        self.c.line("/// Decode a message into a new object.");
        self.c
            .open("pub fn from_bytes(bytes: &[u8]) -> Result<Self, karmem::Error> {");
        self.c.line("let r = karmem::Reader::new(bytes)?;");
        self.c.line("let mut value = Self::default();");
        self.c.line("value.read_as_root(&r)?;");
        self.c.line("Ok(value)");
        self.c.close("}");
        self.c.line("");
        let mut body = Code::new(2);
        read_fields(self, &mut body, &plan.fields, |k, _| places[k].clone());
        let (uses_r, uses_v) = (body.reads(), body.uses("v"));
        let body = body.into_text();
        if table {
            self.c.line("#[doc(hidden)]");
            self.c.open("pub fn read_table(&mut self, v: &mut karmem::Validator<'_>, t: karmem::Table) -> Result<(), karmem::Error> {");
            // Absent or malformed: the zero value, paid for whole before it
            // is built, and not read (no level of depth; format.md §10).
            self.c.open("if t == karmem::Table::EMPTY {");
            self.c.line("v.charge(Self::ZERO_SIZE)?;");
            self.c.line("*self = Self::default();");
            self.c.line("return Ok(());");
            self.c.close("}");
            self.c.line("v.enter()?;");
            // Every field is built, those past `used` too.
            self.c
                .line("v.charge(t.used.max(Self::FULL_SIZE) as u64)?;");
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("v.leave();");
            self.c.line("Ok(())");
            self.c.close("}");
            self.c.line("");
            self.c
                .line("/// A new value decoded from table `t`: an absent or malformed one is");
            self.c
                .line("/// charged before its zero value is built (format.md §10).");
            self.c.line("#[doc(hidden)]");
            self.c.open("pub fn from_table(v: &mut karmem::Validator<'_>, t: karmem::Table) -> Result<Self, karmem::Error> {");
            self.c.open("if t == karmem::Table::EMPTY {");
            self.c.line("v.charge(Self::ZERO_SIZE)?;");
            self.c.line("return Ok(Self::default());");
            self.c.close("}");
            self.c.line("let mut x = Self::default();");
            self.c.line("x.read_table(v, t)?;");
            self.c.line("Ok(x)");
            self.c.close("}");
        } else {
            // Every field is read at `at` plus its offset.
            let at = if plan.fields.is_empty() { "_at" } else { "at" };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn read_at(&mut self, v: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            // Discarded unless the body uses it, as the code writing each
            // use recorded (`let r = v.reader;` above does not count).
            if !uses_v {
                self.c.line("let _ = v;");
            }
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.line("");
        // -- validate
        self.c
            .line("/// Check the whole message once (format.md §11). On success the");
        self.c
            .line("/// returned viewer reads without bounds checks.");
        self.c.open(&format!(
            "pub fn validate<'a>(r: &karmem::Reader<'a>) -> Result<{view}<'a, karmem::Trusted>, karmem::Error> {{"
        ));
        self.c.line("let mut v = karmem::Validator::new(*r);");
        if table {
            self.c.line("let t = v.root(Self::FULL_SIZE)?;");
            self.c.line("Self::validate_table(&mut v, t)?;");
        } else {
            self.c
                .open(&format!("if {HEADER_SIZE} + {} > r.size() {{", sl.size));
            self.c.line(&format!(
                "return Err(karmem::Error::Truncated {{ needed: 8 + {}, available: r.size() as u64 }});",
                sl.size
            ));
            self.c.close("}");
            self.c
                .line("Self::validate_at(&mut v, karmem::HEADER_SIZE)?;");
        }
        self.c
            .line("// SAFETY: the message passed this root type's validation.");
        self.c.line("let trusted = unsafe { r.assume_trusted() };");
        self.c.line(&format!("Ok({view}::root(&trusted))"));
        self.c.close("}");
        self.c.line("");
        let mut body = Code::new(2);
        for f in &plan.fields {
            validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
        }
        let uses_r = body.reads();
        let body = body.into_text();
        // Fields with checks (each found through `t` or `at`): the plan's
        // answer, not the text's.
        let checked = plan
            .fields
            .iter()
            .any(|f| self.l.slot_check(f.slot) != SlotCheck::Nothing);
        if table {
            let t = if checked { "t" } else { "_t" };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn validate_table(v: &mut karmem::Validator<'_>, {t}: karmem::Table) -> Result<(), karmem::Error> {{"
            ));
            self.c.line("v.enter()?;");
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("v.leave();");
            self.c.line("Ok(())");
            self.c.close("}");
        } else {
            let (v, at) = if !checked { ("_v", "_at") } else { ("v", "at") };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn validate_at({v}: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.close("}");
        self.c.line("");
    }

    // ---- per-slot code: write --------------------------------------------

    /// The entries of a map in key order (the order of the `BTreeMap`),
    /// each written as its entry struct would be (format.md §5.5, §8).
    fn write_map(&self, c: &mut Code, entry: StructId, stride: u32, place: &str, pos: &str) {
        let sl = self.l.of_struct(entry);
        let (key, value) = (&sl.fields[0], &sl.fields[1]);
        c.open("{");
        c.line(&format!(
            "let block = w.alloc_array({place}.len(), {stride})?;"
        ));
        // Numbers are copied out of the map, the rest borrowed.
        let deref = |slot: &Slot| if is_number(slot) { "&" } else { "" };
        c.open(&format!(
            "for (i, ({}key, {}{BORROWED_VALUE})) in {place}.iter().enumerate() {{",
            deref(&key.slot),
            deref(&value.slot)
        ));
        c.line(&format!("let at = block + {};", mul("i as u32", stride)));
        write_slot(self, c, &key.slot, "key", &add("at", key.offset));
        write_slot(
            self,
            c,
            &value.slot,
            BORROWED_VALUE,
            &add("at", value.offset),
        );
        c.close("}");
        c.line(&format!(
            "w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);"
        ));
        c.close("}");
    }

    /// A writer refuses a value longer than a limited array's `N`.
    fn write_limit(&self, c: &mut Code, array: &ArrayType, place: &str) {
        if let ArrayKind::Limited(n) = array.kind {
            let len = match array.text {
                Some(Text::Utf16) => format!("{place}.encode_utf16().count()"),
                _ => format!("{place}.len()"),
            };
            c.open(&format!("if {len} > {n} {{"));
            c.line("return Err(karmem::Error::TooLarge);");
            c.close("}");
        }
    }

    /// A block allocated for `place.len()` elements of `size` bytes, each
    /// element (`binding`, index `i`) written by `each`, then referenced at
    /// `pos`.
    fn write_block(
        c: &mut Code,
        size: u32,
        binding: &str,
        place: &str,
        pos: &str,
        each: impl FnOnce(&mut Code),
    ) {
        c.open("{");
        c.line(&format!(
            "let block = w.alloc_array({place}.len(), {size})?;"
        ));
        c.open(&format!(
            "for (i, {binding}) in {place}.iter().enumerate() {{"
        ));
        each(c);
        c.close("}");
        c.line(&format!(
            "w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);"
        ));
        c.close("}");
    }

    /// An array of structs from an iterator of `&T` with `count` items.
    pub(super) fn write_struct_array(
        &self,
        c: &mut Code,
        data: &ArrayData,
        iter: &str,
        count: &str,
        pos: &str,
    ) {
        match data {
            ArrayData::AosInline { stride, .. } => self.write_inlines(c, *stride, iter, count, pos),
            ArrayData::AosTable { .. } => self.write_tables(c, iter, count, pos),
            ArrayData::Soa { elem } => self.write_soa_items(c, *elem, iter, count, pos),
            _ => unreachable!("only struct arrays here"),
        }
    }

    /// A block of `count` elements of `size` bytes from the iterator
    /// `iter`, each filled by `each` (element `e`, index `i`).
    fn write_items(
        c: &mut Code,
        size: String,
        each: &[String],
        iter: &str,
        count: &str,
        pos: &str,
    ) {
        c.open("{");
        c.line(&format!("let count = {count};"));
        c.line(&format!("let block = w.alloc_array(count, {size})?;"));
        c.open(&format!("for (i, e) in {iter}.enumerate() {{"));
        for l in each {
            c.line(l);
        }
        c.close("}");
        c.line(&format!(
            "w.put_array_ref({pos}, block, count as u32, count as u32);"
        ));
        c.close("}");
    }

    /// Inline structs `stride` bytes apart.
    fn write_inlines(&self, c: &mut Code, stride: u32, iter: &str, count: &str, pos: &str) {
        let each = format!("e.write_at(w, block + {})?;", mul("i as u32", stride));
        Self::write_items(c, stride.to_string(), &[each], iter, count, pos);
    }

    /// Offsets to tables, each written first.
    fn write_tables(&self, c: &mut Code, iter: &str, count: &str, pos: &str) {
        let each = [
            "let child = e.write(w)?;".to_string(),
            format!("w.put::<u32>(block + i as u32 * {OFFSET_SIZE}, child);"),
        ];
        Self::write_items(c, OFFSET_SIZE.to_string(), &each, iter, count, pos);
    }

    /// An SoA block of `elem`, by its `write_soa`.
    fn write_soa_items(&self, c: &mut Code, elem: StructId, iter: &str, count: &str, pos: &str) {
        c.line(&format!(
            "{}::write_soa({iter}, {count}, w, {pos})?;",
            self.n.struct_name(elem)
        ));
    }

    /// The call of union `id`'s `call` (`read_parts(e, v`) on element `i`
    /// of an SoA union block: its tag in the column `tags`, its offset in
    /// the column `offsets`.
    fn union_parts(&self, id: UnionId, call: &str, tag_size: u32) -> String {
        format!(
            "{}::{call}, tags + {}, offsets + i as u32 * {OFFSET_SIZE})?;",
            self.union_value(id),
            mul("i as u32", tag_size)
        )
    }
}

/// Whether `slot` holds a number (copied, not borrowed or filled in place).
fn is_number(slot: &Slot) -> bool {
    matches!(slot, Slot::Scalar(_) | Slot::Enum { .. })
}

/// What an absent slot is built as: `assign`, after the tables its zero
/// value holds are charged (`held` units, format.md §10) through the
/// validator `v`, whose use `c` records.
fn absent(c: &Code, held: u64, assign: String) -> Vec<String> {
    let mut lines = Vec::new();
    if held > 0 {
        let v = c.local("v");
        lines.push(format!("{v}.charge({held})?;"));
    }
    lines.push(assign);
    lines
}

/// `v.charge(…)` for `a.len` elements of `charge` units each.
fn charge(c: &mut Code, charge: u32) {
    let v = c.local("v");
    c.line(&format!("{v}.charge({})?;", mul("a.len as u64", charge)))
}

/// Resized to `a.len` elements (new ones made by `empty`), each filled by
/// `each` (`e`, `i`).
fn resize_each(c: &mut Code, units: u32, place: &str, empty: &str, each: &[String]) {
    charge(c, units);
    c.line(&format!("{place}.resize_with(a.len as usize, {empty});"));
    c.open(&format!("for (i, e) in {place}.iter_mut().enumerate() {{"));
    for l in each {
        c.line(l);
    }
    c.close("}");
}

/// The offset word of a table reference at `at`, read through `r`, as the
/// referenced table (`table`) or as the offset itself; an absent slot holds
/// none.
fn offset_at(r: &str, at: &Here, table: bool) -> String {
    let pos = &at.pos;
    let (field, get, absent) = if table {
        (
            "field_table",
            format!("{r}.table({r}.get::<u32>({pos}))"),
            "karmem::Table::EMPTY",
        )
    } else {
        ("field::<u32>", format!("{r}.get::<u32>({pos})"), "0")
    };
    match (at.ctx, &at.present) {
        (Ctx::Table { off }, _) => format!("{r}.{field}(t, {off})"),
        (Ctx::Pos { .. }, None) => get,
        (Ctx::Pos { .. }, Some(present)) => {
            format!("if {present} {{ {get} }} else {{ {absent} }}")
        }
    }
}

/// The array reference of a slot at `at`, loaded through `via` (the reader
/// `r`, or the validator `v`, which checks it): a table field's past `used`
/// is empty.
pub(super) fn array_ref(via: &str, at: &Here, elem_size: u32, limit: Option<u32>) -> String {
    let limit = rust_limit(limit);
    match at.ctx {
        Ctx::Table { off } => format!("{via}.field_array(t, {off}, {elem_size}, {limit})"),
        Ctx::Pos { .. } => format!("{via}.array({}, {elem_size}, {limit})", at.pos),
    }
}

/// Where an optional slot's value is: `value_at` bytes after the slot,
/// folded into a table field's offset.
pub(super) fn value_pos(ctx: &Ctx, value_at: u32) -> String {
    match ctx {
        Ctx::Table { off } => format!("t.offset + {}", off + value_at),
        Ctx::Pos { pos, .. } => format!("{pos} + {value_at}"),
    }
}

impl SlotPrinter for Gen<'_> {
    type Code = Code;

    fn layout(&self) -> &Layout {
        self.l
    }

    /// A table field of the table `t`; elsewhere the context's own.
    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (
                format!("t.offset + {off}"),
                Some(format!("t.has({off}, {size})")),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    /// Inline fields from `at`, SoA columns of element `i` from `cols`.
    fn inline_pos(&self, off: u32) -> String {
        add("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            format!("cols[{k}] + {}", mul("i", stride)),
            format!("cols[{k}] != 0"),
        )
    }
}

/// Decoding into the object, reusing its allocations: an absent field (or
/// SoA column) reads as its default, else as zero.
impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Code, slot: &Slot, place: &str, at: &Here) {
        let pos = &at.pos;
        let present = at.present.as_deref().unwrap_or("true");
        let default = at.default.map(|d| self.default_expr(slot, d));
        let r = c.r();
        // A number read through `r`.
        let scalar = |ty: &str| -> String {
            match (at.ctx, &default) {
                (Ctx::Pos { .. }, _) if at.present.is_none() => format!("{r}.get::<{ty}>({pos})"),
                (_, Some(d)) if matches!(slot, Slot::Enum { .. }) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d}.0 }}")
                }
                (_, Some(d)) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d} }}")
                }
                (Ctx::Table { off }, None) => format!("{r}.field::<{ty}>(t, {off})"),
                (Ctx::Pos { .. }, None) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
                }
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) => match &default {
                Some(d) => c.line(&format!(
                    "{place} = if {present} {{ {r}.get::<u8>({pos}) != 0 }} else {{ {d} }};"
                )),
                None => c.line(&format!("{place} = {} != 0;", scalar("u8"))),
            },
            Slot::Scalar(p) => c.line(&format!("{place} = {};", scalar(rust_prim(*p)))),
            Slot::Enum { id, repr } => c.line(&format!(
                "{place} = {}({});",
                self.n.enum_name(*id),
                scalar(rust_prim(*repr))
            )),
            _ => unreachable!("the walker hands numbers and enums only"),
        }
    }

    fn inline(&self, c: &mut Code, _id: StructId, place: &str, at: &Here) {
        let pos = &at.pos;
        let otherwise = absent(
            c,
            at.held,
            format!("{place} = core::default::Default::default();"),
        );
        guarded(
            c,
            at.present.as_deref(),
            |c| {
                let v = c.local("v");
                c.line(&format!("{place}.read_at({v}, {pos})?;"))
            },
            &otherwise,
        )
    }

    fn table(&self, c: &mut Code, _id: StructId, place: &str, at: &Here) {
        let t = offset_at(c.r(), at, true);
        let v = c.local("v");
        c.line(&format!("{place}.read_table({v}, {t})?;"));
    }

    fn optional_table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let (r, v) = (c.r(), c.local("v"));
        let offset = offset_at(r, at, false);
        c.line(&format!("let offset = {offset};"));
        c.open("if offset != 0 {");
        // A new value is made by `from_table`, which charges a
        // malformed one before building it.
        c.open(&format!("match &mut {place} {{"));
        c.line(&format!(
            "Some(x) => x.read_table({v}, {r}.table(offset))?,"
        ));
        c.line(&format!(
            "None => {place} = Some(Box::new({}::from_table({v}, {r}.table(offset))?)),",
            self.n.struct_name(id)
        ));
        c.close("}");
        c.reopen("} else {");
        c.line(&format!("{place} = None;"));
        c.close("}");
    }

    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let r = c.r();
        let pos = &at.pos;
        let flag = match &at.present {
            None => format!("{r}.get::<u8>({pos}) != 0"),
            Some(present) => format!("{present} && {r}.get::<u8>({pos}) != 0"),
        };
        c.open(&format!("if {flag} {{"));
        c.line(&format!(
            "let value = {place}.get_or_insert_with(core::default::Default::default);"
        ));
        // Numbers are assigned through the reference, the rest are filled
        // in place by method calls.
        let inner = Ctx::Pos {
            pos: value_pos(at.ctx, value_at),
            present: None,
        };
        let value_place = if is_number(value) {
            "*value"
        } else {
            "(*value)"
        };
        read_slot(self, c, value, value_place, &inner, None);
        c.reopen("} else {");
        c.line(&format!("{place} = None;"));
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, place: &str, at: &Here) {
        let pos = &at.pos;
        guarded(
            c,
            at.present.as_deref(),
            |c| {
                let v = c.local("v");
                c.line(&format!(
                    "{}::read_parts(&mut {place}, {v}, {pos}, {pos} + {UNION_OFFSET_AT})?;",
                    self.union_value(id)
                ))
            },
            &[format!("{place} = None;")],
        )
    }

    fn fixed(&self, c: &mut Code, elem: FixedElem, _len: u32, stride: u32, place: &str, at: &Here) {
        let epos = format!("{} + {}", at.pos, mul("j as u32", stride));
        let inner = match elem {
            FixedElem::Scalar(Primitive::Bool) => {
                format!("*e = {}.get::<u8>({epos}) != 0;", c.r())
            }
            FixedElem::Scalar(p) => format!("*e = {}.get::<{}>({epos});", c.r(), rust_prim(p)),
            FixedElem::Enum { id, repr } => format!(
                "*e = {}({}.get::<{}>({epos}));",
                self.n.enum_name(id),
                c.r(),
                rust_prim(repr)
            ),
            FixedElem::InlineStruct(_) => format!("e.read_at({}, {epos})?;", c.local("v")),
        };
        let otherwise = absent(
            c,
            at.held,
            format!("{place} = core::array::from_fn(|_| core::default::Default::default());"),
        );
        guarded(
            c,
            at.present.as_deref(),
            |c| {
                c.open(&format!("for (j, e) in {place}.iter_mut().enumerate() {{"));
                c.line(&inner);
                c.close("}");
            },
            &otherwise,
        )
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    ) {
        // Presence is checked around the read: an absent array (past
        // `used`, or a column the directory does not list) is empty, or its
        // default, and costs nothing (format.md §10).
        let a = array_ref(c.r(), at, elem_size, limit);
        let read = |c: &mut Code| {
            c.line(&format!("let a = {a};"));
            read_array(self, c, array, data, place, "a");
        };
        match (at.default, at.present.as_deref()) {
            // Only text has a default among arrays (checked).
            (Some(d), present) => {
                let DefaultValue::Text(d) = d else {
                    unreachable!("only text has a default among arrays")
                };
                guarded(
                    c,
                    present,
                    read,
                    &[format!("{place} = String::from({d:?});")],
                )
            }
            (None, Some(present)) => {
                guarded(c, Some(present), read, &[format!("{place}.clear();")])
            }
            (None, None) => {
                c.open("{");
                read(c);
                c.close("}");
            }
        }
    }

    fn text(&self, c: &mut Code, utf16: bool, units: u32, place: &str, _a: &str) {
        charge(c, units);
        c.line(&format!("{place}.clear();"));
        let r = c.r();
        if utf16 {
            c.line(&format!("{place}.extend(char::decode_utf16({r}.slice::<u16>(a.offset, a.len).iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));"));
        } else {
            c.line(&format!("{place}.push_str({r}.str(a));"));
        }
    }

    fn plain(
        &self,
        c: &mut Code,
        elem: ElemType,
        _elem_size: u32,
        units: u32,
        place: &str,
        _a: &str,
    ) {
        let r = c.r();
        let fill = match elem {
            ElemType::Scalar(Primitive::Bool) => {
                format!("{place}.extend({r}.slice::<u8>(a.offset, a.len).iter().map(|b| *b != 0));")
            }
            ElemType::Scalar(p) => format!(
                "{place}.extend_from_slice({r}.slice::<{}>(a.offset, a.len));",
                rust_prim(p)
            ),
            ElemType::Enum(id) => format!(
                "{place}.extend({r}.slice::<{}>(a.offset, a.len).iter().map(|x| {}(*x)));",
                rust_prim(self.s.enums[id].repr),
                self.n.enum_name(id)
            ),
            _ => unreachable!("numbers, bools and enums only"),
        };
        charge(c, units);
        c.line(&format!("{place}.clear();"));
        c.line(&fill);
    }

    /// Each element is an array of its own, read like a field's.
    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        units: u32,
        place: &str,
        _a: &str,
    ) {
        let mut body = Code::new(0);
        let r = body.r();
        body.line(&format!(
            "let a = {r}.array(a.offset + i as u32 * {ARRAY_REF_SIZE}, {elem_size}, {});",
            rust_limit(limit)
        ));
        read_array(self, &mut body, array, data, "(*e)", "a");
        c.reads_as(&body);
        let lines: Vec<String> = body.into_text().lines().map(str::to_string).collect();
        resize_each(c, units, place, "core::default::Default::default", &lines);
    }

    /// A map's entries are decoded into its entry struct, whose key and
    /// value then move into the map.
    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        c: &mut Code,
        _array: &ArrayType,
        id: StructId,
        stride: u32,
        units: u32,
        place: &str,
        _a: &str,
    ) {
        charge(c, units);
        c.line(&format!("{place}.clear();"));
        c.open("for i in 0..a.len {");
        c.line(&format!(
            "let mut entry = {}::default();",
            self.n.struct_name(id)
        ));
        let v = c.local("v");
        c.line(&format!(
            "entry.read_at({v}, a.offset + {})?;",
            mul("i", stride)
        ));
        c.line(&format!("{place}.insert(entry.key, entry.value);"));
        c.close("}");
    }

    /// Elements of structs grow the vector one at a time, each built as it
    /// is read, rather than `a.len` zero values first: a zero value may
    /// hold tables and fixed arrays (format.md §10).
    fn aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        units: u32,
        place: &str,
        _a: &str,
    ) {
        charge(c, units);
        c.line(&format!("{place}.truncate(a.len as usize);"));
        c.open("for i in 0..a.len {");
        c.line(&format!("let at = a.offset + {};", mul("i", stride)));
        // `elem`: `place` may be a field of an outer element `e`.
        let v = c.local("v");
        c.open(&format!("match {place}.get_mut(i as usize) {{"));
        c.line(&format!("Some(elem) => elem.read_at({v}, at)?,"));
        c.open("None => {");
        c.line(&format!(
            "let mut elem = {}::default();",
            self.n.struct_name(id)
        ));
        c.line(&format!("elem.read_at({v}, at)?;"));
        c.line(&format!("{place}.push(elem);"));
        c.close("}");
        c.close("}");
        c.close("}");
    }

    fn aos_table(&self, c: &mut Code, id: StructId, units: u32, place: &str, _a: &str) {
        charge(c, units);
        c.line(&format!("{place}.truncate(a.len as usize);"));
        c.open("for i in 0..a.len {");
        let (r, v) = (c.r(), c.local("v"));
        c.line(&format!(
            "let t = {r}.table({r}.get::<u32>(a.offset + i * {OFFSET_SIZE}));"
        ));
        c.open(&format!("match {place}.get_mut(i as usize) {{"));
        c.line(&format!("Some(elem) => elem.read_table({v}, t)?,"));
        c.line(&format!(
            "None => {place}.push({}::from_table({v}, t)?),",
            self.n.struct_name(id)
        ));
        c.close("}");
        c.close("}");
    }

    fn soa(&self, c: &mut Code, elem: StructId, place: &str, _a: &str) {
        let v = c.local("v");
        c.line(&format!(
            "{}::read_soa(&mut {place}, {v}, a)?;",
            self.n.struct_name(elem)
        ))
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, units: u32, place: &str, _a: &str) {
        let v = c.local("v");
        resize_each(
            c,
            units,
            place,
            "|| None",
            &[
                format!("let at = a.offset + i as u32 * {UNION_SLOT_SIZE};"),
                format!(
                    "{}::read_parts(e, {v}, at, at + {UNION_OFFSET_AT})?;",
                    self.union_value(id)
                ),
            ],
        )
    }

    fn union_soa(
        &self,
        c: &mut Code,
        id: UnionId,
        tag_size: u32,
        units: u32,
        place: &str,
        _a: &str,
    ) {
        let r = c.r();
        c.open(&format!("match {r}.union_columns(a, {tag_size}) {{"));
        c.open("Some((tags, offsets)) => {");
        charge(c, units);
        c.line(&format!("{place}.resize_with(a.len as usize, || None);"));
        c.open(&format!("for (i, e) in {place}.iter_mut().enumerate() {{"));
        let v = c.local("v");
        c.line(&self.union_parts(id, &format!("read_parts(e, {v}"), tag_size));
        c.close("}");
        c.close("}");
        c.line(&format!("None => {place}.clear(),"));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, soa: bool, place: &str, _a: &str) {
        let v = c.local("v");
        c.line(&format!(
            "{}::read_{}(&mut {place}, {v}, a)?;",
            self.union_value(id),
            bunch_kind(soa)
        ));
    }
}

/// The writer: each slot written at `pos` from the object's field `value`.
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Code, slot: &Slot, value: &str, pos: &str) {
        match slot {
            Slot::Scalar(Primitive::Bool) => c.line(&format!("w.put_bool({pos}, {value});")),
            Slot::Scalar(p) => c.line(&format!("w.put::<{}>({pos}, {value});", rust_prim(*p))),
            Slot::Enum { repr, .. } => {
                c.line(&format!("w.put::<{}>({pos}, {value}.0);", rust_prim(*repr)))
            }
            _ => unreachable!("the walker hands numbers and enums only"),
        }
    }

    fn write_inline(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("{value}.write_at(w, {pos})?;"))
    }

    fn write_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.line(&format!("let child = {value}.write(w)?;"));
        c.line(&format!("w.put::<u32>({pos}, child);"));
    }

    /// No value: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.open(&format!("if let Some(value) = &{value} {{"));
        c.line("let child = value.write(w)?;");
        c.line(&format!("w.put::<u32>({pos}, child);"));
        c.close("}");
    }

    fn write_optional(&self, c: &mut Code, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        let by = if is_number(inner) { "" } else { "&" };
        c.open(&format!("if let Some({BORROWED_VALUE}) = {by}{value} {{"));
        c.line(&format!("w.put::<u8>({pos}, 1);"));
        write_slot(
            self,
            c,
            inner,
            BORROWED_VALUE,
            &format!("{pos} + {value_at}"),
        );
        c.close("}");
    }

    fn write_union(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        c.line(&format!(
            "{}::write_slot(&{value}, w, {pos})?;",
            self.union_value(id)
        ))
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
        let epos = format!("{pos} + {}", mul("j as u32", stride));
        let inner = match elem {
            FixedElem::Scalar(Primitive::Bool) => format!("w.put_bool({epos}, *e);"),
            FixedElem::Scalar(p) => format!("w.put::<{}>({epos}, *e);", rust_prim(p)),
            FixedElem::Enum { repr, .. } => format!("w.put::<{}>({epos}, e.0);", rust_prim(repr)),
            FixedElem::InlineStruct(_) => format!("e.write_at(w, {epos})?;"),
        };
        c.open(&format!("for (j, e) in {value}.iter().enumerate() {{"));
        c.line(&inner);
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
        write_array(self, c, array, data, value, pos);
    }

    fn write_text(&self, c: &mut Code, utf16: bool, value: &str, pos: &str) {
        if !utf16 {
            c.line(&format!("w.write_bytes({pos}, {value}.as_bytes())?;"));
            return;
        }
        c.open("{");
        c.line(&format!(
            "let units: Vec<u16> = {value}.encode_utf16().collect();"
        ));
        c.line(&format!("w.write_slice({pos}, &units)?;"));
        c.close("}");
    }

    fn write_plain(&self, c: &mut Code, elem: ElemType, elem_size: u32, value: &str, pos: &str) {
        match elem {
            ElemType::Scalar(Primitive::Bool) => {
                let put = format!("w.put_bool(block + {}, *e);", mul("i as u32", 1));
                Self::write_block(c, elem_size, "e", value, pos, |c| c.line(&put));
            }
            ElemType::Enum(id) => {
                let put = format!(
                    "w.put::<{}>(block + {}, e.0);",
                    rust_prim(self.s.enums[id].repr),
                    mul("i as u32", elem_size)
                );
                Self::write_block(c, elem_size, "e", value, pos, |c| c.line(&put));
            }
            _ => c.line(&format!("w.write_slice({pos}, {})?;", borrowed(value))),
        }
    }

    /// The references first, then each element's data in index order
    /// (format.md §8).
    fn write_nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        Self::write_block(c, ARRAY_REF_SIZE, BORROWED_VALUE, value, pos, |c| {
            c.line(&format!("let at = block + i as u32 * {ARRAY_REF_SIZE};"));
            self.write_limit(c, array, BORROWED_VALUE);
            write_array(self, c, array, data, BORROWED_VALUE, "at");
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
        if map {
            self.write_map(c, id, stride, value, pos)
        } else {
            let (iter, count) = (format!("{value}.iter()"), format!("{value}.len()"));
            self.write_inlines(c, stride, &iter, &count, pos)
        }
    }

    fn write_aos_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        let (iter, count) = (format!("{value}.iter()"), format!("{value}.len()"));
        self.write_tables(c, &iter, &count, pos)
    }

    fn write_soa(&self, c: &mut Code, elem: StructId, value: &str, pos: &str) {
        if self.words_soa(elem).is_some() {
            c.line(&format!(
                "{}::write_soa_slice({}, w, {pos})?;",
                self.n.struct_name(elem),
                borrowed(value)
            ));
            return;
        }
        let (iter, count) = (format!("{value}.iter()"), format!("{value}.len()"));
        self.write_soa_items(c, elem, &iter, &count, pos)
    }

    fn write_union_aos(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        let put = format!(
            "{}::write_slot(e, w, block + i as u32 * {UNION_SLOT_SIZE})?;",
            self.union_value(id)
        );
        Self::write_block(c, UNION_SLOT_SIZE, "e", value, pos, |c| c.line(&put));
    }

    fn write_union_soa(&self, c: &mut Code, id: UnionId, tag_size: u32, value: &str, pos: &str) {
        c.open("{");
        c.line(&format!(
            "let tags = w.alloc_array({value}.len(), {tag_size})?;"
        ));
        c.line(&format!(
            "let offsets = w.alloc_array({value}.len(), {OFFSET_SIZE})?;"
        ));
        c.open(&format!("for (i, e) in {value}.iter().enumerate() {{"));
        c.line(&self.union_parts(id, "write_parts(e, w", tag_size));
        c.close("}");
        c.line(&format!(
            "w.put_array_ref({pos}, tags, {value}.len() as u32, {value}.len() as u32);"
        ));
        c.close("}");
    }

    fn write_bunch(&self, c: &mut Code, id: UnionId, soa: bool, value: &str, pos: &str) {
        c.line(&format!(
            "{}::write_{}({}, w, {pos})?;",
            self.union_value(id),
            bunch_kind(soa),
            borrowed(value)
        ));
    }
}

/// The binding of a value the writer reaches through a reference (an
/// optional field's value, a map's value, an element of an array of
/// arrays: `if let Some(value) = &self.tags`), so already borrowed.
const BORROWED_VALUE: &str = "value";

/// `place` as a reference argument: borrowed, unless it is one already.
fn borrowed(place: &str) -> String {
    if place == BORROWED_VALUE {
        place.to_string()
    } else {
        format!("&{place}")
    }
}

/// `then` when the slot is always there (`present` is `None`); otherwise
/// `if present { then } else { otherwise }`.
fn guarded(
    c: &mut Code,
    present: Option<&str>,
    then: impl FnOnce(&mut Code),
    otherwise: &[String],
) {
    let Some(present) = present else {
        then(c);
        return;
    };
    c.open(&format!("if {present} {{"));
    then(c);
    c.reopen("} else {");
    for line in otherwise {
        c.line(line);
    }
    c.close("}");
}

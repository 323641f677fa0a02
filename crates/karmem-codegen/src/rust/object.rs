//! Object types: the owned struct (`Clone + Debug + Default + PartialEq`),
//! its `write_as_root` / `read_as_root` / `validate` entry points, and the
//! per-slot code that writes a field and decodes it into the object
//! (reusing allocations).

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, HEADER_SIZE, OBJECT_ALIGN, OFFSET_SIZE,
    UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{add, bunch_kind, limit, mul, rust_prim, Ctx, Gen};
use crate::names::screaming;

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
        let mut body = Code::new(2);
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.n.field(id, i));
            let pos = add("at", f.offset);
            self.write_slot(&mut body, &f.slot, &place, &pos);
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
            let (w, at) = if body.is_empty() {
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
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.n.field(id, i));
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("at", f.offset),
                    present: "true".into(),
                }
            };
            let default = self.s.structs[id].fields[i].nonzero_default();
            self.read_slot(&mut body, &f.slot, &place, &ctx, default);
        }
        let uses_r = body.reads();
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
            let at = if body.contains("at") { "at" } else { "_at" };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn read_at(&mut self, v: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            if !body.contains("v.") && !body.contains("(v") && !body.contains(", v") {
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
        for f in &sl.fields {
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("at", f.offset),
                    present: "true".into(),
                }
            };
            self.validate_slot(&mut body, &f.slot, &ctx);
        }
        let uses_r = body.reads();
        let body = body.into_text();
        if table {
            let t = if body.contains('t') { "t" } else { "_t" };
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
            let (v, at) = if body.is_empty() {
                ("_v", "_at")
            } else {
                ("v", "at")
            };
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

    pub(super) fn write_slot(&self, c: &mut Code, slot: &Slot, place: &str, pos: &str) {
        match slot {
            Slot::Scalar(Primitive::Bool) => c.line(&format!("w.put_bool({pos}, {place});")),
            Slot::Scalar(p) => c.line(&format!("w.put::<{}>({pos}, {place});", rust_prim(*p))),
            Slot::Enum { repr, .. } => {
                c.line(&format!("w.put::<{}>({pos}, {place}.0);", rust_prim(*repr)))
            }
            Slot::InlineStruct(_) => c.line(&format!("{place}.write_at(w, {pos})?;")),
            Slot::TableRef(_) => {
                c.line(&format!("let child = {place}.write(w)?;"));
                c.line(&format!("w.put::<u32>({pos}, child);"));
            }
            // No value: offset 0 / presence byte 0, as the zeroed slot is.
            Slot::OptionalTable(_) => {
                c.open(&format!("if let Some(value) = &{place} {{"));
                c.line("let child = value.write(w)?;");
                c.line(&format!("w.put::<u32>({pos}, child);"));
                c.close("}");
            }
            Slot::Optional { value_at, value } => {
                let copy = matches!(**value, Slot::Scalar(_) | Slot::Enum { .. });
                let by = if copy { "" } else { "&" };
                c.open(&format!("if let Some({BORROWED_VALUE}) = {by}{place} {{"));
                c.line(&format!("w.put::<u8>({pos}, 1);"));
                self.write_slot(c, value, BORROWED_VALUE, &format!("{pos} + {value_at}"));
                c.close("}");
            }
            Slot::Union { id, .. } => c.line(&format!(
                "{}::write_slot(&{place}, w, {pos})?;",
                self.union_value(*id)
            )),
            Slot::FixedArray { elem, stride, .. } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let inner = match elem {
                    FixedElem::Scalar(Primitive::Bool) => format!("w.put_bool({epos}, *e);"),
                    FixedElem::Scalar(p) => format!("w.put::<{}>({epos}, *e);", rust_prim(*p)),
                    FixedElem::Enum { repr, .. } => {
                        format!("w.put::<{}>({epos}, e.0);", rust_prim(*repr))
                    }
                    FixedElem::InlineStruct(_) => format!("e.write_at(w, {epos})?;"),
                };
                c.open(&format!("for (j, e) in {place}.iter().enumerate() {{"));
                c.line(&inner);
                c.close("}");
            }
            Slot::ArrayRef { array, data } => {
                self.write_limit(c, array, place);
                self.write_array(c, array, data, place, pos);
            }
        }
    }

    /// The entries of a map in key order (the order of the `BTreeMap`),
    /// each written as its entry struct would be (format.md §5.5, §8).
    fn write_map(&self, c: &mut Code, entry: StructId, stride: u32, place: &str, pos: &str) {
        let sl = self.l.of_struct(entry);
        let (key, value) = (&sl.fields[0], &sl.fields[1]);
        let copy = |slot: &Slot| matches!(slot, Slot::Scalar(_) | Slot::Enum { .. });
        c.open("{");
        c.line(&format!(
            "let block = w.alloc_array({place}.len(), {stride})?;"
        ));
        // Numbers are copied out of the map, the rest borrowed.
        let deref = |slot: &Slot| if copy(slot) { "&" } else { "" };
        c.open(&format!(
            "for (i, ({}key, {}{BORROWED_VALUE})) in {place}.iter().enumerate() {{",
            deref(&key.slot),
            deref(&value.slot)
        ));
        c.line(&format!("let at = block + {};", mul("i as u32", stride)));
        self.write_slot(c, &key.slot, "key", &add("at", key.offset));
        self.write_slot(c, &value.slot, BORROWED_VALUE, &add("at", value.offset));
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

    fn write_array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        pos: &str,
    ) {
        // A block allocated for `place.len()` elements of `size` bytes,
        // filled by `each` (element `e`, index `i`), then referenced at `pos`.
        let block = |c: &mut Code, size: u32, each: &str| {
            c.open("{");
            c.line(&format!(
                "let block = w.alloc_array({place}.len(), {size})?;"
            ));
            c.open(&format!("for (i, e) in {place}.iter().enumerate() {{"));
            c.line(each);
            c.close("}");
            c.line(&format!(
                "w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);"
            ));
            c.close("}");
        };
        match (array.text, data) {
            // The references first, then each element's data in index
            // order (format.md §8).
            (None, ArrayData::Arrays { array: inner, data }) => {
                c.open("{");
                c.line(&format!(
                    "let block = w.alloc_array({place}.len(), {ARRAY_REF_SIZE})?;"
                ));
                c.open(&format!(
                    "for (i, {BORROWED_VALUE}) in {place}.iter().enumerate() {{"
                ));
                c.line(&format!("let at = block + i as u32 * {ARRAY_REF_SIZE};"));
                self.write_limit(c, inner, BORROWED_VALUE);
                self.write_array(c, inner, data, BORROWED_VALUE, "at");
                c.close("}");
                c.line(&format!(
                    "w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);"
                ));
                c.close("}");
            }
            (Some(Text::Utf8), _) => c.line(&format!("w.write_bytes({pos}, {place}.as_bytes())?;")),
            (Some(Text::Utf16), _) => {
                c.open("{");
                c.line(&format!(
                    "let units: Vec<u16> = {place}.encode_utf16().collect();"
                ));
                c.line(&format!("w.write_slice({pos}, &units)?;"));
                c.close("}");
            }
            (None, ArrayData::Plain { elem_size }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) => {
                    let put = format!("w.put_bool(block + {}, *e);", mul("i as u32", 1));
                    block(c, *elem_size, &put);
                }
                ElemType::Enum(id) => {
                    let put = format!(
                        "w.put::<{}>(block + {}, e.0);",
                        rust_prim(self.s.enums[id].repr),
                        mul("i as u32", *elem_size)
                    );
                    block(c, *elem_size, &put);
                }
                _ => c.line(&format!("w.write_slice({pos}, {})?;", borrowed(place))),
            },
            (None, ArrayData::UnionAos { id, .. }) => {
                let put = format!(
                    "{}::write_slot(e, w, block + i as u32 * {UNION_SLOT_SIZE})?;",
                    self.union_value(*id)
                );
                block(c, UNION_SLOT_SIZE, &put);
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                c.open("{");
                c.line(&format!("let tags = w.alloc_array({place}.len(), {tw})?;"));
                c.line(&format!(
                    "let offsets = w.alloc_array({place}.len(), {OFFSET_SIZE})?;"
                ));
                c.open(&format!("for (i, e) in {place}.iter().enumerate() {{"));
                c.line(&format!(
                    "{}::write_parts(e, w, tags + {}, offsets + i as u32 * {OFFSET_SIZE})?;",
                    self.union_value(*id),
                    mul("i as u32", tw)
                ));
                c.close("}");
                c.line(&format!(
                    "w.put_array_ref({pos}, tags, {place}.len() as u32, {place}.len() as u32);"
                ));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                c.line(&format!(
                    "{}::write_{}({}, w, {pos})?;",
                    self.union_value(*id),
                    bunch_kind(array),
                    borrowed(place)
                ));
            }
            (None, ArrayData::Soa { elem }) if self.words_soa(*elem).is_some() => c.line(&format!(
                "{}::write_soa_slice({}, w, {pos})?;",
                self.n.struct_name(*elem),
                borrowed(place)
            )),
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.write_map(c, *id, *stride, place, pos)
            }
            (None, data) => self.write_struct_array(
                c,
                data,
                &format!("{place}.iter()"),
                &format!("{place}.len()"),
                pos,
            ),
        }
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
        let block = |c: &mut Code, size: String, each: &[String]| {
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
        };
        match data {
            ArrayData::AosInline { stride, .. } => block(
                c,
                stride.to_string(),
                &[format!(
                    "e.write_at(w, block + {})?;",
                    mul("i as u32", *stride)
                )],
            ),
            ArrayData::AosTable { .. } => block(
                c,
                OFFSET_SIZE.to_string(),
                &[
                    "let child = e.write(w)?;".to_string(),
                    format!("w.put::<u32>(block + i as u32 * {OFFSET_SIZE}, child);"),
                ],
            ),
            ArrayData::Soa { elem } => c.line(&format!(
                "{}::write_soa({iter}, {count}, w, {pos})?;",
                self.n.struct_name(*elem)
            )),
            _ => unreachable!("only struct arrays here"),
        }
    }

    // ---- per-slot code: object decode ------------------------------------

    /// Decode one slot into `place`; an absent field (or SoA column) reads
    /// as `default`, else as zero.
    pub(super) fn read_slot(
        &self,
        c: &mut Code,
        slot: &Slot,
        place: &str,
        ctx: &Ctx,
        default: Option<&DefaultValue>,
    ) {
        let (pos, present) = ctx.pos_present(self.l.slot_size(slot));
        let default = default.map(|d| self.default_expr(slot, d));
        // A field past its table's `used` is built as its zero value: the
        // tables that holds are charged first (format.md §10; its own bytes
        // are its table's). An SoA column's are charged for the whole array
        // by `read_soa`, before its elements are made.
        let held = match ctx {
            Ctx::Table { .. } => self.l.absent_charge(slot),
            Ctx::Pos { .. } => 0,
        };
        let absent = |assign: String| -> Vec<String> {
            let mut lines = Vec::new();
            if held > 0 {
                lines.push(format!("v.charge({held})?;"));
            }
            lines.push(assign);
            lines
        };
        // A number read through `r` (the reader `c.r()` gives).
        let scalar = |r: &str, ty: &str| -> String {
            match (ctx, &default) {
                (Ctx::Pos { pos, present }, _) if present == "true" => {
                    format!("{r}.get::<{ty}>({pos})")
                }
                (_, Some(d)) if matches!(slot, Slot::Enum { .. }) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d}.0 }}")
                }
                (_, Some(d)) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ {d} }}")
                }
                (Ctx::Table { t, off }, None) => format!("{r}.field::<{ty}>({t}, {off})"),
                (Ctx::Pos { pos, present }, None) => {
                    format!("if {present} {{ {r}.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
                }
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) if default.is_some() => {
                let r = c.r();
                c.line(&format!(
                    "{place} = if {present} {{ {r}.get::<u8>({pos}) != 0 }} else {{ {} }};",
                    default.as_deref().unwrap_or_default()
                ))
            }
            Slot::Scalar(Primitive::Bool) => {
                let value = scalar(c.r(), "u8");
                c.line(&format!("{place} = {value} != 0;"))
            }
            Slot::Scalar(p) => {
                let value = scalar(c.r(), rust_prim(*p));
                c.line(&format!("{place} = {value};"))
            }
            Slot::Enum { id, repr } => {
                let value = scalar(c.r(), rust_prim(*repr));
                c.line(&format!("{place} = {}({value});", self.n.enum_name(*id)))
            }
            Slot::InlineStruct(_) => guarded(
                c,
                &present,
                |c| c.line(&format!("{place}.read_at(v, {pos})?;")),
                &absent(format!("{place} = core::default::Default::default();")),
            ),
            Slot::TableRef(_) => {
                let r = c.r();
                let t = match ctx {
                    Ctx::Table { t, off } => format!("{r}.field_table({t}, {off})"),
                    Ctx::Pos { pos, present } if present == "true" => {
                        format!("{r}.table({r}.get::<u32>({pos}))")
                    }
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ {r}.table({r}.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
                    }
                };
                c.line(&format!("{place}.read_table(v, {t})?;"));
            }
            Slot::Union { id, .. } => guarded(
                c,
                &present,
                |c| {
                    c.line(&format!(
                        "{}::read_parts(&mut {place}, v, {pos}, {pos} + {UNION_OFFSET_AT})?;",
                        self.union_value(*id)
                    ))
                },
                &[format!("{place} = None;")],
            ),
            Slot::FixedArray { elem, stride, .. } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let inner = match elem {
                    FixedElem::Scalar(Primitive::Bool) => {
                        format!("*e = {}.get::<u8>({epos}) != 0;", c.r())
                    }
                    FixedElem::Scalar(p) => {
                        format!("*e = {}.get::<{}>({epos});", c.r(), rust_prim(*p))
                    }
                    FixedElem::Enum { id, repr } => {
                        format!(
                            "*e = {}({}.get::<{}>({epos}));",
                            self.n.enum_name(*id),
                            c.r(),
                            rust_prim(*repr)
                        )
                    }
                    FixedElem::InlineStruct(_) => format!("e.read_at(v, {epos})?;"),
                };
                guarded(
                    c,
                    &present,
                    |c| {
                        c.open(&format!("for (j, e) in {place}.iter_mut().enumerate() {{"));
                        c.line(&inner);
                        c.close("}");
                    },
                    &absent(format!(
                        "{place} = core::array::from_fn(|_| core::default::Default::default());"
                    )),
                )
            }
            Slot::OptionalTable(id) => {
                let r = c.r();
                let offset = match ctx {
                    Ctx::Table { t, off } => format!("{r}.field::<u32>({t}, {off})"),
                    Ctx::Pos { pos, present } if present == "true" => {
                        format!("{r}.get::<u32>({pos})")
                    }
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ {r}.get::<u32>({pos}) }} else {{ 0 }}")
                    }
                };
                c.line(&format!("let offset = {offset};"));
                c.open("if offset != 0 {");
                // A new value is made by `from_table`, which charges a
                // malformed one before building it.
                c.open(&format!("match &mut {place} {{"));
                c.line(&format!("Some(x) => x.read_table(v, {r}.table(offset))?,"));
                c.line(&format!(
                    "None => {place} = Some(Box::new({}::from_table(v, {r}.table(offset))?)),",
                    self.n.struct_name(*id)
                ));
                c.close("}");
                c.reopen("} else {");
                c.line(&format!("{place} = None;"));
                c.close("}");
            }
            Slot::Optional { value_at, value } => {
                let r = c.r();
                let flag = if present == "true" {
                    format!("{r}.get::<u8>({pos}) != 0")
                } else {
                    format!("{present} && {r}.get::<u8>({pos}) != 0")
                };
                c.open(&format!("if {flag} {{"));
                c.line(&format!(
                    "let value = {place}.get_or_insert_with(core::default::Default::default);"
                ));
                // Numbers are assigned through the reference, the rest
                // are filled in place by method calls.
                let copy = matches!(**value, Slot::Scalar(_) | Slot::Enum { .. });
                let inner = Ctx::Pos {
                    pos: ctx.value_pos(*value_at),
                    present: "true".into(),
                };
                let value_place = if copy { "*value" } else { "(*value)" };
                self.read_slot(c, value, value_place, &inner, None);
                c.reopen("} else {");
                c.line(&format!("{place} = None;"));
                c.close("}");
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = limit(array);
                // Presence is checked around the read: an absent array
                // (past `used`, or a column the directory does not list) is
                // empty, or its default, and costs nothing (format.md §10).
                let r = c.r();
                let a = match ctx {
                    Ctx::Table { t, off } => format!("{r}.field_array({t}, {off}, {es}, {limit})"),
                    Ctx::Pos { pos, .. } => format!("{r}.array({pos}, {es}, {limit})"),
                };
                let read = |c: &mut Code| {
                    c.line(&format!("let a = {a};"));
                    self.read_array(c, array, data, place);
                };
                match &default {
                    // Only text has a default among arrays (checked).
                    Some(d) => guarded(
                        c,
                        &present,
                        read,
                        &[format!("{place} = String::from({d});")],
                    ),
                    None if present != "true" => {
                        guarded(c, &present, read, &[format!("{place}.clear();")])
                    }
                    None => {
                        c.open("{");
                        read(c);
                        c.close("}");
                    }
                }
            }
        }
    }

    /// Decode array `a` into `place` (a `Vec` or `String`), reusing it.
    fn read_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, place: &str) {
        // What each element costs the traversal budget is the layout's
        // answer (format.md §10), not this generator's.
        let per_element = self.l.decode_charge(data);
        let charge = |c: &mut Code| {
            let size = per_element.expect("charged per element");
            c.line(&format!("v.charge({})?;", mul("a.len as u64", size)))
        };
        // Resized to `a.len` elements, each filled by `each` (`e`, `i`).
        let each = |c: &mut Code, empty: &str, each: &[String]| {
            charge(c);
            c.line(&format!("{place}.resize_with(a.len as usize, {empty});"));
            c.open(&format!("for (i, e) in {place}.iter_mut().enumerate() {{"));
            for l in each {
                c.line(l);
            }
            c.close("}");
        };
        let default = "core::default::Default::default";
        match (array.text, data) {
            // Each element is an array of its own, read like a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let mut body = Code::new(0);
                let r = body.r();
                body.line(&format!(
                    "let a = {r}.array(a.offset + i as u32 * {ARRAY_REF_SIZE}, {}, {});",
                    data.elem_size(),
                    limit(inner)
                ));
                self.read_array(&mut body, inner, data, "(*e)");
                c.reads_as(&body);
                let lines: Vec<String> = body.into_text().lines().map(str::to_string).collect();
                each(c, default, &lines);
            }
            (Some(Text::Utf8), _) => {
                charge(c);
                c.line(&format!("{place}.clear();"));
                let r = c.r();
                c.line(&format!("{place}.push_str({r}.str(a));"));
            }
            (Some(Text::Utf16), _) => {
                charge(c);
                c.line(&format!("{place}.clear();"));
                let r = c.r();
                c.line(&format!("{place}.extend(char::decode_utf16({r}.slice::<u16>(a.offset, a.len).iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));"));
            }
            (None, ArrayData::Plain { .. }) => {
                let r = c.r();
                let fill = match array.elem {
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
                    _ => unreachable!(),
                };
                charge(c);
                c.line(&format!("{place}.clear();"));
                c.line(&fill);
            }
            // A map's entries are decoded into its entry struct, whose key
            // and value then move into the map.
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                charge(c);
                c.line(&format!("{place}.clear();"));
                c.open("for i in 0..a.len {");
                c.line(&format!(
                    "let mut entry = {}::default();",
                    self.n.struct_name(*id)
                ));
                c.line(&format!(
                    "entry.read_at(v, a.offset + {})?;",
                    mul("i", *stride)
                ));
                c.line(&format!("{place}.insert(entry.key, entry.value);"));
                c.close("}");
            }
            // Elements of structs grow the vector one at a time, each built
            // as it is read, rather than `a.len` zero values first: a zero
            // value may hold tables and fixed arrays (format.md §10).
            (None, ArrayData::AosInline { id, stride }) => {
                charge(c);
                c.line(&format!("{place}.truncate(a.len as usize);"));
                c.open("for i in 0..a.len {");
                c.line(&format!("let at = a.offset + {};", mul("i", *stride)));
                // `elem`: `place` may be a field of an outer element `e`.
                c.open(&format!("match {place}.get_mut(i as usize) {{"));
                c.line("Some(elem) => elem.read_at(v, at)?,");
                c.open("None => {");
                c.line(&format!(
                    "let mut elem = {}::default();",
                    self.n.struct_name(*id)
                ));
                c.line("elem.read_at(v, at)?;");
                c.line(&format!("{place}.push(elem);"));
                c.close("}");
                c.close("}");
                c.close("}");
            }
            (None, ArrayData::AosTable { id }) => {
                charge(c);
                c.line(&format!("{place}.truncate(a.len as usize);"));
                c.open("for i in 0..a.len {");
                let r = c.r();
                c.line(&format!(
                    "let t = {r}.table({r}.get::<u32>(a.offset + i * {OFFSET_SIZE}));"
                ));
                c.open(&format!("match {place}.get_mut(i as usize) {{"));
                c.line("Some(elem) => elem.read_table(v, t)?,");
                c.line(&format!(
                    "None => {place}.push({}::from_table(v, t)?),",
                    self.n.struct_name(*id)
                ));
                c.close("}");
                c.close("}");
            }
            (None, ArrayData::Soa { elem }) => c.line(&format!(
                "{}::read_soa(&mut {place}, v, a)?;",
                self.n.struct_name(*elem)
            )),
            (None, ArrayData::UnionAos { id, .. }) => each(
                c,
                "|| None",
                &[
                    format!("let at = a.offset + i as u32 * {UNION_SLOT_SIZE};"),
                    format!(
                        "{}::read_parts(e, v, at, at + {UNION_OFFSET_AT})?;",
                        self.union_value(*id)
                    ),
                ],
            ),
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                let r = c.r();
                c.open(&format!("match {r}.union_columns(a, {tw}) {{"));
                c.open("Some((tags, offsets)) => {");
                charge(c);
                c.line(&format!("{place}.resize_with(a.len as usize, || None);"));
                c.open(&format!("for (i, e) in {place}.iter_mut().enumerate() {{"));
                c.line(&format!(
                    "{}::read_parts(e, v, tags + {}, offsets + i as u32 * {OFFSET_SIZE})?;",
                    self.union_value(*id),
                    mul("i as u32", tw)
                ));
                c.close("}");
                c.close("}");
                c.line(&format!("None => {place}.clear(),"));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                c.line(&format!(
                    "{}::read_{}(&mut {place}, v, a)?;",
                    self.union_value(*id),
                    bunch_kind(array)
                ));
            }
        }
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

/// `then` when `present` is `true`; otherwise `if present { then } else {
/// otherwise }`.
fn guarded(c: &mut Code, present: &str, then: impl FnOnce(&mut Code), otherwise: &[String]) {
    if present == "true" {
        then(c);
        return;
    }
    c.open(&format!("if {present} {{"));
    then(c);
    c.reopen("} else {");
    for line in otherwise {
        c.line(line);
    }
    c.close("}");
}

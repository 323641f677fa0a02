//! Rust backend: generates, per schema, one module with
//!
//! * object types (`Clone + Debug + Default + PartialEq`) with
//!   `write_as_root` / `read_as_root` (decoding reuses allocations) and
//!   `validate` (returns a trusted viewer);
//! * zero-copy viewers, generic over [`karmem::Mode`]: `Checked` (every
//!   load bounds-checked) or `Trusted` (after validation);
//! * for each struct used in an SoA array, an array view exposing every
//!   scalar column as a native slice, and an element view.
//!
//! The emitted text is valid Rust; the CLI runs `rustfmt` over it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use karmem_layout::{
    ArrayData, Column, FixedElem, Layout, Slot, SoaLayout, ARRAY_ALIGN, ARRAY_REF_SIZE,
    BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE, HEADER_SIZE, OBJECT_ALIGN, OFFSET_SIZE,
    UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use crate::names::{camel, rust_ident, screaming, snake};
use crate::{Backend, Error, GeneratedFile};

/// Most SoA columns copied in one zipped loop. The loop's pattern nests a
/// tuple per column (`((e, x0), x1)…`), and rustfmt's time grows
/// exponentially with that depth (measured: 0.03 s at 12, 0.16 s at 16,
/// 1.7 s at 20; a 46-column element ran for over ten minutes), so wider
/// elements are copied in one loop per group of columns.
const MAX_ZIP: usize = 12;

/// The Rust generator. `serde` adds `serde::Serialize`/`Deserialize`
/// derives following the golden-vector JSON conventions.
#[derive(Clone, Debug, Default)]
pub struct RustBackend {
    pub serde: bool,
}

impl Backend for RustBackend {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut g = Gen {
            s: schema,
            l: layout,
            serde: self.serde,
            out: String::new(),
        };
        g.file();
        Ok(vec![GeneratedFile {
            path: format!("{}.rs", snake(&schema.package)),
            contents: g.out,
        }])
    }
}

struct Gen<'a> {
    s: &'a Schema,
    l: &'a Layout,
    serde: bool,
    out: String,
}

/// Where a field's bytes are, for the code being emitted.
#[derive(Clone)]
enum Ctx {
    /// A table field: `T` is the table expression, `off` its offset.
    Table { t: String, off: u32 },
    /// A fixed position (inline struct, array element): `pos` is a `u32`
    /// expression, `present` a `bool` expression.
    Pos { pos: String, present: String },
}

fn add(base: &str, off: u32) -> String {
    if off == 0 {
        base.to_string()
    } else {
        format!("{base} + {off}")
    }
}

fn mul(i: &str, size: u32) -> String {
    if size == 1 {
        i.to_string()
    } else {
        format!("{i} * {size}")
    }
}

/// `ident` + `_suffix` for a derived method name. A keyword field's ident
/// carries a trailing `_` (`type_`); the suffix already makes the name no
/// keyword, so the escape is dropped: `type_bytes`, not `type__bytes`.
fn suffixed(ident: &str, suffix: &str) -> String {
    let base = ident
        .strip_suffix('_')
        .filter(|base| rust_ident(base) == ident)
        .or_else(|| {
            ident
                .strip_suffix("_field")
                .filter(|base| view_ident(base) == ident)
        })
        .unwrap_or(ident);
    format!("{base}_{suffix}")
}

/// The methods every struct viewer has of its own (`root`, and `table` or
/// `position`, and `reader`), and names whose signatures Rust convention
/// (and clippy) fixes: `new` returns `Self`, `len` comes with `is_empty`.
const VIEW_METHODS: &[&str] = &[
    "root", "table", "position", "reader", "new", "len", "is_empty",
];

/// The accessor of a field in a struct viewer: a field named like one of
/// the viewer's own methods gets `_field` (`position_field()`), as a
/// column named like an SoA array's method gets `_column`. The schema's
/// names are never refused for the Rust target's sake.
fn view_ident(ident: &str) -> String {
    if VIEW_METHODS.contains(&ident) {
        format!("{ident}_field")
    } else {
        ident.to_string()
    }
}

fn rust_prim(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "u8",
        Primitive::U16 => "u16",
        Primitive::U32 => "u32",
        Primitive::U64 => "u64",
        Primitive::I8 => "i8",
        Primitive::I16 => "i16",
        Primitive::I32 => "i32",
        Primitive::I64 => "i64",
        Primitive::F32 => "f32",
        Primitive::F64 => "f64",
        Primitive::Bool => "bool",
    }
}

/// `x as u32` unless `x` already is one.
fn as_u32(expr: &str, p: Primitive) -> String {
    if p == Primitive::U32 {
        expr.to_string()
    } else {
        format!("{expr} as u32")
    }
}

impl Gen<'_> {
    fn w(&mut self, text: &str) {
        self.out.push_str(text);
        self.out.push('\n');
    }

    // ---- names -----------------------------------------------------------

    fn struct_name(&self, id: StructId) -> String {
        camel(&self.s.structs[id].name)
    }
    fn view_name(&self, id: StructId) -> String {
        format!("{}View", self.struct_name(id))
    }
    fn soa_name(&self, id: StructId) -> String {
        format!("{}Soa", self.struct_name(id))
    }
    fn soa_item_name(&self, id: StructId) -> String {
        format!("{}SoaItem", self.struct_name(id))
    }
    fn enum_name(&self, id: EnumId) -> String {
        camel(&self.s.enums[id].name)
    }
    fn union_name(&self, id: UnionId) -> String {
        camel(&self.s.unions[id].name)
    }
    fn union_value(&self, id: UnionId) -> String {
        format!("{}Value", self.union_name(id))
    }
    fn union_view(&self, id: UnionId) -> String {
        format!("{}View", self.union_name(id))
    }
    fn field_ident(&self, id: StructId, index: usize) -> String {
        rust_ident(&snake(&self.s.structs[id].fields[index].name))
    }
    /// `K` when the SoA columns of `id` are exactly its fields, in order,
    /// each a 4-byte number (`Vec3 { x, y, z: f32 }`), 2 ≤ K ≤ 4: such a
    /// struct is emitted `#[repr(C)]` and a slice of it is written by
    /// `Writer::write_soa_words`, which transposes four elements at a time
    /// (RATIONALE R4.4).
    fn words_soa(&self, id: StructId) -> Option<usize> {
        let soa = self.l.soa.get(id)?.as_ref()?;
        let k = soa.columns.len();
        let words = soa.columns.iter().enumerate().all(|(i, c)| {
            c.path == [i as u32]
                && matches!(
                    c.slot,
                    Slot::Scalar(Primitive::I32 | Primitive::U32 | Primitive::F32)
                )
        });
        (words && (2..=4).contains(&k) && self.s.structs[id].fields.len() == k).then_some(k)
    }

    fn is_table(&self, id: StructId) -> bool {
        self.s.structs[id].kind == StructKind::Table
    }

    // ---- file ------------------------------------------------------------

    fn file(&mut self) {
        let header = crate::header("//", self.s);
        self.out.push_str(&header);
        self.w("//");
        self.w(
            "// Usage: `mod <name>;` next to this file, with the `karmem` crate as a dependency.",
        );
        self.w("");
        for item in self.s.order.clone() {
            match item {
                Item::Enum(id) => self.enum_item(id),
                Item::Struct(id) => self.struct_item(id),
                Item::Union(id) => self.union_item(id),
                Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for (id, soa) in self.l.soa.iter().enumerate() {
            if let Some(soa) = soa {
                self.soa_item(id, soa);
            }
        }
        let mut bunches = BTreeSet::new();
        for st in &self.l.structs {
            for f in &st.fields {
                self.collect_bunches(&f.slot, &mut bunches);
            }
        }
        for soa in self.l.soa.iter().flatten() {
            for c in &soa.columns {
                self.collect_bunches(&c.slot, &mut bunches);
            }
        }
        for (id, soa) in bunches {
            self.bunch_item(id, soa);
        }
    }

    fn collect_bunches(&self, slot: &Slot, out: &mut BTreeSet<(UnionId, bool)>) {
        if let Slot::ArrayRef {
            array,
            data: ArrayData::UnionBunch { id, .. },
        } = slot
        {
            out.insert((*id, array.layout == ArrayLayout::BoVoS));
        }
    }

    fn doc(&mut self, doc: &[String]) {
        for d in doc {
            let line = format!("/// {d}");
            self.w(line.trim_end());
        }
    }

    // ---- enums -----------------------------------------------------------

    fn enum_item(&mut self, id: EnumId) {
        let e = &self.s.enums[id];
        let name = self.enum_name(id);
        let repr = rust_prim(e.repr);
        self.doc(&e.doc.clone());
        self.w("///");
        self.w("/// A newtype over the wire value, so values unknown to this schema version survive a round trip.");
        self.w("#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]");
        if self.serde {
            self.w("#[derive(serde::Serialize, serde::Deserialize)]");
            self.w("#[serde(transparent)]");
        }
        self.w("#[repr(transparent)]");
        self.w(&format!("pub struct {name}(pub {repr});"));
        self.w("");
        self.w(&format!(
            "// SAFETY: `repr(transparent)` over `{repr}`, and every `{repr}` is a valid `{name}`."
        ));
        self.w(&format!("unsafe impl karmem::ScalarNewtype for {name} {{"));
        self.w(&format!("    type Repr = {repr};"));
        self.w("}");
        self.w("");
        self.w("#[allow(clippy::derivable_impls)]");
        self.w(&format!("impl core::default::Default for {name} {{"));
        self.w("    fn default() -> Self {");
        self.w(&format!("        {name}(0)"));
        self.w("    }");
        self.w("}");
        self.w("");
        self.w(&format!("impl {name} {{"));
        let mut arms = String::new();
        for v in &e.variants {
            let c = screaming(&v.name);
            for d in &v.doc {
                self.w(&format!("    /// {d}"));
            }
            self.w(&format!("    pub const {c}: {name} = {name}({});", v.value));
            let _ = writeln!(arms, "            {} => Some(\"{}\"),", v.value, v.name);
        }
        self.w("");
        self.w("    /// The schema name of this value, if this schema version knows it.");
        self.w("    pub fn name(self) -> Option<&'static str> {");
        self.w("        match self.0 {");
        self.out.push_str(&arms);
        self.w("            _ => None,");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");
        self.w(&format!("impl core::fmt::Debug for {name} {{"));
        self.w("    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {");
        self.w("        match self.name() {");
        self.w("            Some(n) => f.write_str(n),");
        self.w(&format!(
            "            None => write!(f, \"{name}({{}})\", self.0),"
        ));
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");
    }

    // ---- object types ----------------------------------------------------

    fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => rust_prim(*p).to_string(),
            FieldType::Enum(id) => self.enum_name(*id),
            FieldType::Struct(id) => self.struct_name(*id),
            FieldType::Union(id) => format!("Option<{}>", self.union_value(*id)),
            FieldType::Array(a) => {
                let elem = match a.elem {
                    ElemType::Scalar(p) => rust_prim(p).to_string(),
                    ElemType::Enum(id) => self.enum_name(id),
                    ElemType::Struct(id) => self.struct_name(id),
                    ElemType::Union(id) => format!("Option<{}>", self.union_value(id)),
                };
                match (a.kind, a.text) {
                    (ArrayKind::Fixed(n), _) => format!("[{elem}; {n}]"),
                    (_, Some(_)) => "String".to_string(),
                    _ => format!("Vec<{elem}>"),
                }
            }
        }
    }

    fn struct_item(&mut self, id: StructId) {
        let st = &self.s.structs[id];
        let name = self.struct_name(id);
        let kind = if self.is_table(id) {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.doc(&st.doc.clone());
        if !st.doc.is_empty() {
            self.w("///");
        }
        self.w(&format!(
            "/// `{}`: {kind}. Object type: owns its data.",
            st.name
        ));
        self.w("#[derive(Clone, Debug, PartialEq)]");
        if self.words_soa(id).is_some() {
            // Field order and no padding are relied on by `write_soa_slice`.
            self.w("#[repr(C)]");
        }
        if self.serde {
            self.w("#[derive(serde::Serialize, serde::Deserialize)]");
            self.w("#[serde(default, deny_unknown_fields)]");
        }
        self.w(&format!("pub struct {name} {{"));
        let mut defaults = String::new();
        for (i, f) in st.fields.iter().enumerate() {
            for d in &f.doc {
                self.w(&format!("    /// {d}"));
            }
            let ident = self.field_ident(id, i);
            if self.serde && ident.trim_end_matches('_') != f.name {
                self.w(&format!("    #[serde(rename = \"{}\")]", f.name));
            }
            let ty = self.obj_type(&f.ty);
            self.w(&format!("    pub {ident}: {ty},"));
            let default = match &f.ty {
                FieldType::Array(ArrayType {
                    kind: ArrayKind::Fixed(_),
                    ..
                }) => "core::array::from_fn(|_| core::default::Default::default())".to_string(),
                _ => "core::default::Default::default()".to_string(),
            };
            let _ = writeln!(defaults, "            {ident}: {default},");
        }
        self.w("}");
        self.w("");
        self.w("#[allow(clippy::derivable_impls)]");
        self.w(&format!("impl core::default::Default for {name} {{"));
        self.w("    fn default() -> Self {");
        self.w(&format!("        {name} {{"));
        self.out.push_str(&defaults);
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");
        self.struct_impl(id);
        self.view_item(id);
    }

    fn struct_impl(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.is_table(id);
        self.w(&format!("impl {name} {{"));
        for (i, f) in sl.fields.iter().enumerate() {
            let field = &self.s.structs[id].fields[i].name;
            self.w(&format!(
                "    /// Byte offset of `{field}` in the {} (for in-place updates).",
                if table { "table" } else { "struct" }
            ));
            self.w(&format!(
                "    pub const {}_OFFSET: u32 = {};",
                screaming(field),
                f.offset
            ));
        }
        // -- encode
        self.w("    /// Encode as the root of a message; `w` is reset first. Reuse the");
        self.w("    /// writer: once it has grown, encoding allocates nothing.");
        self.w("    pub fn write_as_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {");
        self.w("        w.begin();");
        if table {
            self.w("        self.write(w)?;");
        } else {
            self.w(&format!(
                "        let at = w.alloc({}, {OBJECT_ALIGN})?;",
                sl.size
            ));
            self.w("        self.write_at(w, at)?;");
        }
        self.w("        w.finish()?;");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    /// Encode into a new buffer (convenience; prefer `write_as_root`).");
        self.w("    pub fn to_bytes(&self) -> Result<Vec<u8>, karmem::Error> {");
        self.w("        let mut w = karmem::Writer::new(1024);");
        self.w("        self.write_as_root(&mut w)?;");
        self.w("        Ok(w.bytes().to_vec())");
        self.w("    }");
        self.w("");
        let mut body = String::new();
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.field_ident(id, i));
            let pos = add("at", f.offset);
            body.push_str(&self.write_slot(&f.slot, &place, &pos, 2));
        }
        if table {
            self.w("    #[doc(hidden)]");
            self.w(
                "    pub fn write(&self, w: &mut karmem::Writer) -> Result<u32, karmem::Error> {",
            );
            self.w(&format!(
                "        let at = w.alloc({}, {OBJECT_ALIGN})?;",
                sl.size
            ));
            self.w(&format!("        w.put::<u32>(at, {:#x});", sl.header));
            self.out.push_str(&body);
            self.w("        Ok(at)");
            self.w("    }");
        } else {
            let (w, at) = if body.is_empty() {
                ("_w", "_at")
            } else {
                ("w", "at")
            };
            self.w("    #[doc(hidden)]");
            self.w(&format!(
                "    pub fn write_at(&self, {w}: &mut karmem::Writer, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            self.out.push_str(&body);
            self.w("        Ok(())");
            self.w("    }");
        }
        self.w("");
        // -- decode
        self.w("    /// Decode a whole message into `self`, reusing its allocations.");
        self.w("    /// Malformed parts read as zero/empty; the traversal budget and depth");
        self.w("    /// limit bound the work and memory a hostile message can cause.");
        self.w("    pub fn read_as_root(&mut self, r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {");
        self.w("        let mut v = karmem::Validator::new(*r);");
        if table {
            self.w("        self.read_table(&mut v, r.root())");
        } else {
            self.w(&format!(
                "        if {HEADER_SIZE} + {} > r.size() {{",
                sl.size
            ));
            self.w("            *self = Self::default();");
            self.w("            return Ok(());");
            self.w("        }");
            self.w("        self.read_at(&mut v, karmem::HEADER_SIZE)");
        }
        self.w("    }");
        self.w("");
        self.w("    /// Decode a message into a new object.");
        self.w("    pub fn from_bytes(bytes: &[u8]) -> Result<Self, karmem::Error> {");
        self.w("        let r = karmem::Reader::new(bytes)?;");
        self.w("        let mut value = Self::default();");
        self.w("        value.read_as_root(&r)?;");
        self.w("        Ok(value)");
        self.w("    }");
        self.w("");
        let mut body = String::new();
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.field_ident(id, i));
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
            body.push_str(&self.read_slot(&f.slot, &place, &ctx, 2));
        }
        let uses_r = mentions(&body, "r");
        if table {
            self.w("    #[doc(hidden)]");
            self.w("    pub fn read_table(&mut self, v: &mut karmem::Validator<'_>, t: karmem::Table) -> Result<(), karmem::Error> {");
            self.w("        v.enter()?;");
            self.w("        v.charge(t.used as u64)?;");
            if uses_r {
                self.w("        let r = v.reader;");
            }
            self.out.push_str(&body);
            self.w("        v.leave();");
            self.w("        Ok(())");
            self.w("    }");
        } else {
            let at = if body.contains("at") { "at" } else { "_at" };
            self.w("    #[doc(hidden)]");
            self.w(&format!(
                "    pub fn read_at(&mut self, v: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.w("        let r = v.reader;");
            }
            if !body.contains("v.") && !body.contains("(v") && !body.contains(", v") {
                self.w("        let _ = v;");
            }
            self.out.push_str(&body);
            self.w("        Ok(())");
            self.w("    }");
        }
        self.w("");
        // -- validate
        self.w("    /// Check the whole message once (format.md §11). On success the");
        self.w("    /// returned viewer reads without bounds checks.");
        self.w(&format!(
            "    pub fn validate<'a>(r: &karmem::Reader<'a>) -> Result<{view}<'a, karmem::Trusted>, karmem::Error> {{"
        ));
        self.w("        let mut v = karmem::Validator::new(*r);");
        if table {
            self.w("        let t = v.root()?;");
            self.w("        Self::validate_table(&mut v, t)?;");
        } else {
            self.w(&format!(
                "        if {HEADER_SIZE} + {} > r.size() {{",
                sl.size
            ));
            self.w(&format!(
                "            return Err(karmem::Error::Truncated {{ needed: 8 + {}, available: r.size() as u64 }});",
                sl.size
            ));
            self.w("        }");
            self.w("        Self::validate_at(&mut v, karmem::HEADER_SIZE)?;");
        }
        self.w("        // SAFETY: the message passed this root type's validation.");
        self.w("        let trusted = unsafe { r.assume_trusted() };");
        self.w(&format!("        Ok({view}::root(&trusted))"));
        self.w("    }");
        self.w("");
        let mut body = String::new();
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
            body.push_str(&self.validate_slot(&f.slot, &ctx, 2));
        }
        let uses_r = mentions(&body, "r");
        if table {
            let t = if body.contains('t') { "t" } else { "_t" };
            self.w("    #[doc(hidden)]");
            self.w(&format!(
                "    pub fn validate_table(v: &mut karmem::Validator<'_>, {t}: karmem::Table) -> Result<(), karmem::Error> {{"
            ));
            self.w("        v.enter()?;");
            if uses_r {
                self.w("        let r = v.reader;");
            }
            self.out.push_str(&body);
            self.w("        v.leave();");
            self.w("        Ok(())");
            self.w("    }");
        } else {
            let (v, at) = if body.is_empty() {
                ("_v", "_at")
            } else {
                ("v", "at")
            };
            self.w("    #[doc(hidden)]");
            self.w(&format!(
                "    pub fn validate_at({v}: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.w("        let r = v.reader;");
            }
            self.out.push_str(&body);
            self.w("        Ok(())");
            self.w("    }");
        }
        self.w("}");
        self.w("");
    }

    // ---- per-slot code: write --------------------------------------------

    fn write_slot(&self, slot: &Slot, place: &str, pos: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match slot {
            Slot::Scalar(Primitive::Bool) => format!("{pad}w.put_bool({pos}, {place});\n"),
            Slot::Scalar(p) => format!("{pad}w.put::<{}>({pos}, {place});\n", rust_prim(*p)),
            Slot::Enum { repr, .. } => {
                format!("{pad}w.put::<{}>({pos}, {place}.0);\n", rust_prim(*repr))
            }
            Slot::InlineStruct(_) => format!("{pad}{place}.write_at(w, {pos})?;\n"),
            Slot::TableRef(_) => {
                format!("{pad}let child = {place}.write(w)?;\n{pad}w.put::<u32>({pos}, child);\n")
            }
            Slot::Union { id, .. } => {
                format!(
                    "{pad}{}::write_slot(&{place}, w, {pos})?;\n",
                    self.union_value(*id)
                )
            }
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
                format!(
                    "{pad}for (j, e) in {place}.iter().enumerate() {{\n{pad}    {inner}\n{pad}}}\n"
                )
            }
            Slot::ArrayRef { array, data } => {
                let mut out = String::new();
                if let ArrayKind::Limited(n) = array.kind {
                    let len = match array.text {
                        Some(Text::Utf16) => format!("{place}.encode_utf16().count()"),
                        _ => format!("{place}.len()"),
                    };
                    let _ = writeln!(out, "{pad}if {len} > {n} {{\n{pad}    return Err(karmem::Error::TooLarge);\n{pad}}}");
                }
                out.push_str(&self.write_array(array, data, place, pos, indent));
                out
            }
        }
    }

    fn write_array(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        pos: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{pad}w.write_bytes({pos}, {place}.as_bytes())?;\n"),
            (Some(Text::Utf16), _) => format!(
                "{pad}{{\n{pad}    let units: Vec<u16> = {place}.encode_utf16().collect();\n{pad}    w.write_slice({pos}, &units)?;\n{pad}}}\n"
            ),
            (None, ArrayData::Plain { elem_size }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) | ElemType::Enum(_) => {
                    let put = match array.elem {
                        ElemType::Scalar(_) => format!("w.put_bool(block + {}, *e);", mul("i as u32", 1)),
                        ElemType::Enum(id) => format!(
                            "w.put::<{}>(block + {}, e.0);",
                            rust_prim(self.s.enums[id].repr),
                            mul("i as u32", *elem_size)
                        ),
                        _ => unreachable!(),
                    };
                    format!(
                        "{pad}{{\n{pad}    let block = w.alloc_array({place}.len(), {elem_size})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {put}\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n"
                    )
                }
                _ => format!("{pad}w.write_slice({pos}, &{place})?;\n"),
            },
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{pad}{{\n{pad}    let block = w.alloc_array({place}.len(), {UNION_SLOT_SIZE})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {}::write_slot(e, w, block + i as u32 * {UNION_SLOT_SIZE})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n",
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                format!(
                    "{pad}{{\n{pad}    let tags = w.alloc_array({place}.len(), {tw})?;\n{pad}    let offsets = w.alloc_array({place}.len(), {OFFSET_SIZE})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {}::write_parts(e, w, tags + {}, offsets + i as u32 * {OFFSET_SIZE})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, tags, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n",
                    self.union_value(*id),
                    mul("i as u32", tw)
                )
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS { "write_bovos" } else { "write_bovoa" };
                format!("{pad}{}::{f}(&{place}, w, {pos})?;\n", self.union_value(*id))
            }
            (None, ArrayData::Soa { elem }) if self.words_soa(*elem).is_some() => format!(
                "{pad}{}::write_soa_slice(&{place}, w, {pos})?;\n",
                self.struct_name(*elem)
            ),
            (None, data) => self.write_struct_array(data, &format!("{place}.iter()"), &format!("{place}.len()"), pos, indent),
        }
    }

    /// An array of structs from an iterator of `&T` with `count` items.
    fn write_struct_array(
        &self,
        data: &ArrayData,
        iter: &str,
        count: &str,
        pos: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        match data {
            ArrayData::AosInline { stride, .. } => format!(
                "{pad}{{\n{pad}    let count = {count};\n{pad}    let block = w.alloc_array(count, {stride})?;\n{pad}    for (i, e) in {iter}.enumerate() {{\n{pad}        e.write_at(w, block + {})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, count as u32, count as u32);\n{pad}}}\n",
                mul("i as u32", *stride)
            ),
            ArrayData::AosTable { .. } => format!(
                "{pad}{{\n{pad}    let count = {count};\n{pad}    let block = w.alloc_array(count, {OFFSET_SIZE})?;\n{pad}    for (i, e) in {iter}.enumerate() {{\n{pad}        let child = e.write(w)?;\n{pad}        w.put::<u32>(block + i as u32 * {OFFSET_SIZE}, child);\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, count as u32, count as u32);\n{pad}}}\n"
            ),
            ArrayData::Soa { elem } => format!(
                "{pad}{}::write_soa({iter}, {count}, w, {pos})?;\n",
                self.struct_name(*elem)
            ),
            _ => unreachable!("only struct arrays here"),
        }
    }

    // ---- per-slot code: object decode ------------------------------------

    fn read_slot(&self, slot: &Slot, place: &str, ctx: &Ctx, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let size = self.l.slot_size(slot);
        let (pos, present) = match ctx {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        let scalar = |ty: &str| -> String {
            match ctx {
                Ctx::Table { t, off } => format!("r.field::<{ty}>({t}, {off})"),
                Ctx::Pos { pos, present } if present == "true" => format!("r.get::<{ty}>({pos})"),
                Ctx::Pos { pos, present } => {
                    format!("if {present} {{ r.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
                }
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) => format!("{pad}{place} = {} != 0;\n", scalar("u8")),
            Slot::Scalar(p) => format!("{pad}{place} = {};\n", scalar(rust_prim(*p))),
            Slot::Enum { id, repr } => format!(
                "{pad}{place} = {}({});\n",
                self.enum_name(*id),
                scalar(rust_prim(*repr))
            ),
            Slot::InlineStruct(_) => self.guarded(
                &present,
                &format!("{place}.read_at(v, {pos})?;"),
                &format!("{place} = core::default::Default::default();"),
                indent,
            ),
            Slot::TableRef(_) => {
                let t = match ctx {
                    Ctx::Table { t, off } => format!("r.field_table({t}, {off})"),
                    Ctx::Pos { pos, present } if present == "true" => {
                        format!("r.table(r.get::<u32>({pos}))")
                    }
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ r.table(r.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
                    }
                };
                format!("{pad}{place}.read_table(v, {t})?;\n")
            }
            Slot::Union { id, .. } => self.guarded(
                &present,
                &format!(
                    "{}::read_parts(&mut {place}, v, {pos}, {pos} + {UNION_OFFSET_AT})?;",
                    self.union_value(*id)
                ),
                &format!("{place} = None;"),
                indent,
            ),
            Slot::FixedArray { elem, stride, .. } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let inner = match elem {
                    FixedElem::Scalar(Primitive::Bool) => format!("*e = r.get::<u8>({epos}) != 0;"),
                    FixedElem::Scalar(p) => format!("*e = r.get::<{}>({epos});", rust_prim(*p)),
                    FixedElem::Enum { id, repr } => {
                        format!(
                            "*e = {}(r.get::<{}>({epos}));",
                            self.enum_name(*id),
                            rust_prim(*repr)
                        )
                    }
                    FixedElem::InlineStruct(_) => format!("e.read_at(v, {epos})?;"),
                };
                let read = format!("for (j, e) in {place}.iter_mut().enumerate() {{\n{pad}        {inner}\n{pad}    }}");
                self.guarded(
                    &present,
                    &read,
                    &format!(
                        "{place} = core::array::from_fn(|_| core::default::Default::default());"
                    ),
                    indent,
                )
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => format!("Some({n})"),
                    _ => "None".into(),
                };
                let a = match ctx {
                    Ctx::Table { t, off } => format!("r.field_array({t}, {off}, {es}, {limit})"),
                    Ctx::Pos { pos, present } if present == "true" => format!("r.array({pos}, {es}, {limit})"),
                    Ctx::Pos { pos, present } => format!(
                        "if {present} {{ r.array({pos}, {es}, {limit}) }} else {{ karmem::ArrayRef::EMPTY }}"
                    ),
                };
                let body = self.read_array(array, data, place, indent + 1);
                format!("{pad}{{\n{pad}    let a = {a};\n{body}{pad}}}\n")
            }
        }
    }

    fn guarded(&self, present: &str, then: &str, otherwise: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        if present == "true" {
            format!("{pad}{then}\n")
        } else {
            format!("{pad}if {present} {{\n{pad}    {then}\n{pad}}} else {{\n{pad}    {otherwise}\n{pad}}}\n")
        }
    }

    /// Decode array `a` into `place` (a `Vec` or `String`), reusing it.
    fn read_array(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        let charge = |size: u32| format!("{pad}v.charge({})?;\n", mul("a.len as u64", size.max(1)));
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{}{pad}{place}.clear();\n{pad}{place}.push_str(r.str(a));\n", charge(1)),
            (Some(Text::Utf16), _) => format!(
                "{}{pad}{place}.clear();\n{pad}{place}.extend(char::decode_utf16(r.slice::<u16>(a.offset, a.len).iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));\n",
                charge(2)
            ),
            (None, ArrayData::Plain { elem_size }) => {
                let fill = match array.elem {
                    ElemType::Scalar(Primitive::Bool) => {
                        format!("{place}.extend(r.slice::<u8>(a.offset, a.len).iter().map(|b| *b != 0));")
                    }
                    ElemType::Scalar(p) => format!("{place}.extend_from_slice(r.slice::<{}>(a.offset, a.len));", rust_prim(p)),
                    ElemType::Enum(id) => format!(
                        "{place}.extend(r.slice::<{}>(a.offset, a.len).iter().map(|x| {}(*x)));",
                        rust_prim(self.s.enums[id].repr),
                        self.enum_name(id)
                    ),
                    _ => unreachable!(),
                };
                format!("{}{pad}{place}.clear();\n{pad}{fill}\n", charge(*elem_size))
            }
            (None, ArrayData::AosInline { stride, .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, core::default::Default::default);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    e.read_at(v, a.offset + {})?;\n{pad}}}\n",
                charge(*stride),
                mul("i as u32", *stride)
            ),
            (None, ArrayData::AosTable { .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, core::default::Default::default);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    e.read_table(v, r.table(r.get::<u32>(a.offset + i as u32 * {OFFSET_SIZE})))?;\n{pad}}}\n",
                charge(OFFSET_SIZE)
            ),
            (None, ArrayData::Soa { elem }) => format!("{pad}{}::read_soa(&mut {place}, v, a)?;\n", self.struct_name(*elem)),
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, || None);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    let at = a.offset + i as u32 * {UNION_SLOT_SIZE};\n{pad}    {}::read_parts(e, v, at, at + {UNION_OFFSET_AT})?;\n{pad}}}\n",
                charge(UNION_SLOT_SIZE),
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => format!(
                "{pad}match r.union_columns(a, {tw}) {{\n{pad}    Some((tags, offsets)) => {{\n{pad}        v.charge(a.len as u64 * {cost})?;\n{pad}        {place}.resize_with(a.len as usize, || None);\n{pad}        for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}            {u}::read_parts(e, v, tags + {ti}, offsets + i as u32 * {OFFSET_SIZE})?;\n{pad}        }}\n{pad}    }}\n{pad}    None => {place}.clear(),\n{pad}}}\n",
                tw = tag.size(),
                cost = tag.size() + OFFSET_SIZE,
                u = self.union_value(*id),
                ti = mul("i as u32", tag.size())
            ),
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS { "read_bovos" } else { "read_bovoa" };
                format!("{pad}{}::{f}(&mut {place}, v, a)?;\n", self.union_value(*id))
            }
        }
    }

    // ---- per-slot code: validation ---------------------------------------

    fn validate_slot(&self, slot: &Slot, ctx: &Ctx, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let size = self.l.slot_size(slot);
        let (pos, present) = match ctx {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        let when = |code: String| -> String {
            if code.is_empty() {
                String::new()
            } else if present == "true" {
                code
            } else {
                let inner: String = code.lines().map(|l| format!("    {l}\n")).collect();
                format!("{pad}if {present} {{\n{inner}{pad}}}\n")
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) => when(format!("{pad}v.bool_at({pos})?;\n")),
            Slot::Scalar(_) | Slot::Enum { .. } => String::new(),
            Slot::InlineStruct(id) => {
                if self.l.inline_needs_validation(*id) {
                    when(format!("{pad}{}::validate_at(v, {pos})?;\n", self.struct_name(*id)))
                } else {
                    String::new()
                }
            }
            Slot::TableRef(id) => when(format!(
                "{pad}let child = v.table(r.get::<u32>({pos}))?;\n{pad}{}::validate_table(v, child)?;\n",
                self.struct_name(*id)
            )),
            Slot::Union { id, .. } => when(format!("{pad}{}::validate_parts(v, {pos}, {pos} + {UNION_OFFSET_AT})?;\n", self.union_value(*id))),
            Slot::FixedArray { elem, len, stride } => match elem {
                FixedElem::Scalar(Primitive::Bool) => when(format!("{pad}v.bools({pos}, {len})?;\n")),
                FixedElem::InlineStruct(id) if self.l.inline_needs_validation(*id) => when(format!(
                    "{pad}for j in 0..{len}u32 {{\n{pad}    {}::validate_at(v, {pos} + {})?;\n{pad}}}\n",
                    self.struct_name(*id),
                    mul("j", *stride)
                )),
                _ => String::new(),
            },
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => format!("Some({n})"),
                    _ => "None".into(),
                };
                let a = match ctx {
                    Ctx::Table { t, off } => format!("v.field_array({t}, {off}, {es}, {limit})?"),
                    Ctx::Pos { pos, .. } => format!("v.array({pos}, {es}, {limit})?"),
                };
                let body = self.validate_array(array, data, indent);
                let (binding, body) = if body.is_empty() { ("_a", body) } else { ("a", body) };
                let code = format!("{pad}let {binding} = {a};\n{body}");
                match ctx {
                    Ctx::Table { .. } => code,
                    Ctx::Pos { .. } => when(code),
                }
            }
        }
    }

    /// The checks of SoA column `k` for all `len` elements of an array
    /// (`cols[k]` is its offset, 0 when the writer did not write it).
    fn validate_column(&self, k: usize, c: &Column) -> String {
        let pad = "    ".repeat(3);
        let col = format!("cols[{k}]");
        let Slot::ArrayRef { array, data } = &c.slot else {
            // Anything else (bools, unions, table references, inline
            // structs with such fields) element by element.
            let ctx = Ctx::Pos {
                pos: format!("{col} + {}", mul("i", c.size)),
                present: "true".into(),
            };
            let body = self.validate_slot(&c.slot, &ctx, 4);
            if body.is_empty() {
                return body;
            }
            return format!("        if {col} != 0 {{\n            for i in 0..len {{\n{body}            }}\n        }}\n");
        };
        let es = data.elem_size();
        let limit = match array.kind {
            ArrayKind::Limited(n) => format!("Some({n})"),
            _ => "None".into(),
        };
        let mut out = format!(
            "        if {col} != 0 {{\n            v.array_column({col}, len, {es}, {limit})?;\n"
        );
        let each = self.validate_array(array, data, 4);
        match data {
            _ if each.is_empty() => {}
            _ if array.text == Some(Text::Utf8) => {
                let _ = writeln!(out, "{pad}v.utf8_column({col}, len)?;");
            }
            // Directories of element types with nothing more to check: one
            // loop in the runtime.
            ArrayData::Soa { elem } if !self.soa_needs_validation(*elem) => {
                let _ = writeln!(
                    out,
                    "{pad}v.soa_column({col}, len, &{}::SOA_COLUMNS)?;",
                    self.struct_name(*elem)
                );
            }
            _ => {
                let lines = self.prefetch_lines(&c.slot, false).unwrap_or(1);
                let _ = write!(
                    out,
                    "{pad}for i in 0..len {{\n{pad}    if i + karmem::PREFETCH_AHEAD < len {{\n{pad}        v.reader.prefetch_array({col} + {ARRAY_REF_SIZE} * (i + karmem::PREFETCH_AHEAD), {lines});\n{pad}    }}\n{pad}    let a = v.column_ref({col}, i);\n{each}{pad}}}\n"
                );
            }
        }
        out.push_str("        }\n");
        out
    }

    /// Does an SoA array of `elem` need checks beyond its directory?
    fn soa_needs_validation(&self, elem: StructId) -> bool {
        self.l
            .soa(elem)
            .columns
            .iter()
            .enumerate()
            .any(|(k, c)| !self.validate_column(k, c).is_empty())
    }

    fn validate_array(&self, array: &ArrayType, data: &ArrayData, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{pad}v.utf8(a.offset, a.len)?;\n"),
            (Some(Text::Utf16), _) => format!("{pad}v.utf16(a.offset, a.len)?;\n"),
            (None, ArrayData::Plain { .. }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) => format!("{pad}v.bools(a.offset, a.len)?;\n"),
                _ => String::new(),
            },
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{pad}for i in 0..a.len {{\n{pad}    let at = a.offset + i * {UNION_SLOT_SIZE};\n{pad}    {}::validate_parts(v, at, at + {UNION_OFFSET_AT})?;\n{pad}}}\n",
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => format!(
                "{pad}if let Some((tags, offsets)) = v.union_columns(a, {})? {{\n{pad}    for i in 0..a.len {{\n{pad}        {}::validate_parts(v, tags + {}, offsets + i * {OFFSET_SIZE})?;\n{pad}    }}\n{pad}}}\n",
                tag.size(),
                self.union_value(*id),
                mul("i", tag.size())
            ),
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let mut arms = String::new();
                for bv in variants {
                    let es = bv.data.elem_size();
                    let inner = self.validate_struct_array(&bv.data, indent + 3);
                    let binding = if inner.is_empty() { "_sub" } else { "a" };
                    let _ = write!(
                        arms,
                        "{pad}        {} => {{\n{pad}            let {binding} = v.array(entry + {BUNCH_ENTRY_ARRAY_AT}, {es}, None)?;\n{inner}{pad}            Ok(())\n{pad}        }}\n",
                        bv.tag
                    );
                }
                let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
                format!(
                    "{pad}v.bunch(a, &[{}], |v, tag, entry| {{\n{pad}    match tag {{\n{arms}{pad}        _ => Ok(()),\n{pad}    }}\n{pad}}})?;\n",
                    tags.join(", ")
                )
            }
            (None, data) => self.validate_struct_array(data, indent),
        }
    }

    fn validate_struct_array(&self, data: &ArrayData, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    format!(
                        "{pad}for i in 0..a.len {{\n{pad}    {}::validate_at(v, a.offset + {})?;\n{pad}}}\n",
                        self.struct_name(*id),
                        mul("i", *stride)
                    )
                } else {
                    String::new()
                }
            }
            ArrayData::AosTable { id } => format!(
                "{pad}for i in 0..a.len {{\n{pad}    let child = v.table(v.reader.get::<u32>(a.offset + i * {OFFSET_SIZE}))?;\n{pad}    {}::validate_table(v, child)?;\n{pad}}}\n",
                self.struct_name(*id)
            ),
            ArrayData::Soa { elem } => format!("{pad}{}::validate_soa(v, a)?;\n", self.struct_name(*elem)),
            _ => unreachable!(),
        }
    }

    // ---- viewers ---------------------------------------------------------

    fn view_item(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.is_table(id);
        self.w(&format!(
            "/// Zero-copy viewer of `{}`. `M` is `karmem::Checked` (every load",
            self.s.structs[id].name
        ));
        self.w("/// bounds-checked; malformed data reads as zero) or `karmem::Trusted`");
        self.w(&format!("/// (returned by `{name}::validate`)."));
        self.w("#[derive(Clone, Copy)]");
        if table {
            self.w(&format!(
                "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
            ));
            self.w("    r: karmem::Reader<'a, M>,");
            self.w("    t: karmem::Table,");
            self.w("}");
            self.w("");
            self.w(&format!(
                "impl<'a, M: karmem::Mode> karmem::FromTable<'a, M> for {view}<'a, M> {{"
            ));
            self.w("    fn from_table(r: karmem::Reader<'a, M>, t: karmem::Table) -> Self {");
            self.w(&format!("        {view} {{ r, t }}"));
            self.w("    }");
            self.w("}");
        } else {
            self.w(&format!(
                "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
            ));
            self.w("    r: karmem::Reader<'a, M>,");
            self.w("    at: u32,");
            self.w("    present: bool,");
            self.w("}");
            self.w("");
            self.w(&format!(
                "impl<'a, M: karmem::Mode> karmem::FromInline<'a, M> for {view}<'a, M> {{"
            ));
            self.w("    fn from_inline(r: karmem::Reader<'a, M>, at: u32) -> Self {");
            self.w(&format!("        {view} {{ r, at, present: true }}"));
            self.w("    }");
            self.w("}");
        }
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.w("    /// The viewer of a message whose root is this type.");
        self.w("    pub fn root(r: &karmem::Reader<'a, M>) -> Self {");
        if table {
            self.w(&format!("        {view} {{ r: *r, t: r.root() }}"));
            self.w("    }");
            self.w("");
            self.w("    /// Where the table is (for in-place updates with `karmem::ReaderMut`);");
            self.w("    /// `Table::EMPTY` when absent or malformed.");
            self.w("    pub fn table(&self) -> karmem::Table {");
            self.w("        self.t");
            self.w("    }");
            self.w("");
            self.w("    pub fn reader(&self) -> karmem::Reader<'a, M> {");
            self.w("        self.r");
        } else {
            self.w(&format!(
                "        {view} {{ r: *r, at: karmem::HEADER_SIZE, present: karmem::HEADER_SIZE + {} <= r.size() }}",
                sl.size
            ));
            self.w("    }");
            self.w("");
            self.w("    /// Position of the struct in the message, if it is present.");
            self.w("    pub fn position(&self) -> Option<u32> {");
            self.w("        self.present.then_some(self.at)");
            self.w("    }");
            self.w("");
            self.w("    pub fn reader(&self) -> karmem::Reader<'a, M> {");
            self.w("        self.r");
        }
        self.w("    }");
        for (i, f) in sl.fields.iter().enumerate() {
            let ident = view_ident(&self.field_ident(id, i));
            let ctx = if table {
                Ctx::Table {
                    t: "self.t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("self.at", f.offset),
                    present: "self.present".into(),
                }
            };
            let doc = self.s.structs[id].fields[i].doc.clone();
            self.view_accessor(&ident, &f.slot, &ctx, &doc);
        }
        self.w("}");
        self.w("");
    }

    /// Emit the viewer accessor(s) of one slot.
    fn view_accessor(&mut self, ident: &str, slot: &Slot, ctx: &Ctx, doc: &[String]) {
        let size = self.l.slot_size(slot);
        let (pos, present) = match ctx {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        let scalar = |ty: &str| -> String {
            match ctx {
                Ctx::Table { t, off } => format!("self.r.field::<{ty}>({t}, {off})"),
                Ctx::Pos { pos, present } => {
                    format!("if {present} {{ self.r.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
                }
            }
        };
        let mut methods: Vec<(String, String, String)> = Vec::new(); // (name, type, body)
        match slot {
            Slot::Scalar(Primitive::Bool) => methods.push((
                ident.into(),
                "bool".into(),
                format!("({}) != 0", scalar("u8")),
            )),
            Slot::Scalar(p) => {
                methods.push((ident.into(), rust_prim(*p).into(), scalar(rust_prim(*p))))
            }
            Slot::Enum { id, repr } => {
                let e = self.enum_name(*id);
                methods.push((
                    ident.into(),
                    e.clone(),
                    format!("{e}({})", scalar(rust_prim(*repr))),
                ));
            }
            Slot::InlineStruct(id) => {
                let v = self.view_name(*id);
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("{v} {{ r: self.r, at: {pos}, present: {present} }}"),
                ));
            }
            Slot::TableRef(id) => {
                let v = self.view_name(*id);
                let t = match ctx {
                    Ctx::Table { t, off } => format!("self.r.field_table({t}, {off})"),
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ self.r.table(self.r.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
                    }
                };
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("{v} {{ r: self.r, t: {t} }}"),
                ));
            }
            Slot::Union { id, .. } => {
                let v = self.union_view(*id);
                methods.push((
                    ident.into(),
                    format!("{v}<'a, M>"),
                    format!("if {present} {{ {v}::from_parts(self.r, {pos}, {pos} + {UNION_OFFSET_AT}) }} else {{ {v}::None }}"),
                ));
            }
            Slot::FixedArray { elem, len, stride } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let (ty, body) = match elem {
                    FixedElem::Scalar(Primitive::Bool) => (
                        format!("[bool; {len}]"),
                        format!(
                            "core::array::from_fn(|j| {present} && self.r.get::<u8>({epos}) != 0)"
                        ),
                    ),
                    FixedElem::Scalar(p) => {
                        let t = rust_prim(*p);
                        (
                            format!("[{t}; {len}]"),
                            format!("core::array::from_fn(|j| if {present} {{ self.r.get::<{t}>({epos}) }} else {{ core::default::Default::default() }})"),
                        )
                    }
                    FixedElem::Enum { id, repr } => {
                        let e = self.enum_name(*id);
                        let t = rust_prim(*repr);
                        (
                            format!("[{e}; {len}]"),
                            format!("core::array::from_fn(|j| {e}(if {present} {{ self.r.get::<{t}>({epos}) }} else {{ core::default::Default::default() }}))"),
                        )
                    }
                    FixedElem::InlineStruct(id) => {
                        let v = self.view_name(*id);
                        (
                            format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
                            format!("karmem::InlineArray::new(self.r, {pos}, if {present} {{ {len} }} else {{ 0 }}, {stride})"),
                        )
                    }
                };
                methods.push((ident.into(), ty, body));
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => format!("Some({n})"),
                    _ => "None".into(),
                };
                let a = match ctx {
                    Ctx::Table { t, off } => format!("self.r.field_array({t}, {off}, {es}, {limit})"),
                    Ctx::Pos { pos, present } => format!(
                        "if {present} {{ self.r.array({pos}, {es}, {limit}) }} else {{ karmem::ArrayRef::EMPTY }}"
                    ),
                };
                let let_a = format!("let a = {a};\n        ");
                match (array.text, data) {
                    (Some(Text::Utf8), _) => {
                        methods.push((
                            ident.into(),
                            "&'a str".into(),
                            format!("{let_a}self.r.str(a)"),
                        ));
                        methods.push((
                            suffixed(ident, "bytes"),
                            "&'a [u8]".into(),
                            format!("{let_a}self.r.byte_slice(a)"),
                        ));
                    }
                    (Some(Text::Utf16), _) => methods.push((
                        ident.into(),
                        "&'a [u16]".into(),
                        format!("{let_a}self.r.slice::<u16>(a.offset, a.len)"),
                    )),
                    (None, ArrayData::Plain { .. }) => {
                        let t = match array.elem {
                            ElemType::Scalar(Primitive::Bool) => "u8",
                            ElemType::Scalar(p) => rust_prim(p),
                            ElemType::Enum(id) => rust_prim(self.s.enums[id].repr),
                            _ => unreachable!(),
                        };
                        methods.push((
                            ident.into(),
                            format!("&'a [{t}]"),
                            format!("{let_a}self.r.slice::<{t}>(a.offset, a.len)"),
                        ));
                    }
                    (None, ArrayData::AosInline { id, stride }) => {
                        let v = self.view_name(*id);
                        methods.push((
                            ident.into(),
                            format!("karmem::InlineArray<'a, {v}<'a, M>, M>"),
                            format!("{let_a}karmem::InlineArray::new(self.r, a.offset, a.len, {stride})"),
                        ));
                    }
                    (None, ArrayData::AosTable { id }) => {
                        let v = self.view_name(*id);
                        methods.push((
                            ident.into(),
                            format!("karmem::TableArray<'a, {v}<'a, M>, M>"),
                            format!("{let_a}karmem::TableArray::new(self.r, a.offset, a.len)"),
                        ));
                    }
                    (None, ArrayData::Soa { elem }) => {
                        let v = self.soa_name(*elem);
                        methods.push((
                            ident.into(),
                            format!("{v}<'a, M>"),
                            format!("{v}::new(self.r, {a})"),
                        ));
                    }
                    (None, ArrayData::UnionAos { id, .. }) => {
                        let v = format!("{}Array", self.union_name(*id));
                        methods.push((
                            ident.into(),
                            format!("{v}<'a, M>"),
                            format!("{v}::aos(self.r, {a})"),
                        ));
                    }
                    (None, ArrayData::UnionSoa { id, .. }) => {
                        let v = format!("{}Array", self.union_name(*id));
                        methods.push((
                            ident.into(),
                            format!("{v}<'a, M>"),
                            format!("{v}::soa(self.r, {a})"),
                        ));
                    }
                    (None, ArrayData::UnionBunch { id, .. }) => {
                        let suffix = if array.layout == ArrayLayout::BoVoS {
                            "Bovos"
                        } else {
                            "Bovoa"
                        };
                        let v = format!("{}{suffix}", self.union_name(*id));
                        methods.push((
                            ident.into(),
                            format!("{v}<'a, M>"),
                            format!("{v} {{ r: self.r, a: {a} }}"),
                        ));
                    }
                }
            }
        }
        for (name, ty, body) in methods {
            self.w("");
            for d in doc {
                self.w(&format!("    /// {d}"));
            }
            self.w("    #[inline]");
            self.w(&format!("    pub fn {name}(&self) -> {ty} {{"));
            self.w(&format!("        {body}"));
            self.w("    }");
        }
    }

    // ---- SoA element helpers and views -------------------------------------

    fn column_ident(&self, soa: &SoaLayout, k: usize) -> String {
        let c = &soa.columns[k];
        let parts: Vec<String> = c
            .steps
            .iter()
            .zip(&c.path)
            .map(|(s, i)| snake(&self.s.structs[*s].fields[*i as usize].name))
            .collect();
        let name = parts.join("_");
        match name.as_str() {
            "len" | "is_empty" | "get" | "iter" | "new" => format!("{name}_column"),
            _ => rust_ident(&name),
        }
    }

    fn column_place(&self, base: &str, soa: &SoaLayout, k: usize) -> String {
        let c = &soa.columns[k];
        let mut place = base.to_string();
        for (s, i) in c.steps.iter().zip(&c.path) {
            place.push('.');
            place.push_str(&self.field_ident(*s, *i as usize));
        }
        place
    }

    /// A struct literal of `id` (at `prefix` inside the SoA element) from
    /// the value expression of each column, by position path: nested
    /// inline structs and tables (flattened into columns) become nested
    /// literals.
    fn soa_literal(
        &self,
        id: StructId,
        prefix: &mut Vec<u32>,
        soa: &SoaLayout,
        values: &[(Vec<u32>, String)],
    ) -> String {
        let mut fields = Vec::new();
        for i in 0..self.s.structs[id].fields.len() {
            prefix.push(i as u32);
            let ident = self.field_ident(id, i);
            if let Some((_, value)) = values.iter().find(|(path, _)| path == prefix) {
                fields.push(format!("{ident}: {value}"));
            } else if let Some(c) = soa.columns.iter().find(|c| c.path.starts_with(prefix)) {
                let child = c.steps[prefix.len()];
                let inner = self.soa_literal(child, prefix, soa, values);
                fields.push(format!("{ident}: {inner}"));
            }
            prefix.pop();
        }
        format!("{} {{ {} }}", self.struct_name(id), fields.join(", "))
    }

    /// Cache lines worth prefetching ahead for an SoA column during a
    /// validation (`decode == false`) or decode loop: the start of an
    /// array's data when the loop will read it (text is checked or copied,
    /// a directory scanned, plain values copied). Array data of successive
    /// elements is scattered through the message, so without a hint each
    /// element costs a cache miss per child, one after another.
    fn prefetch_lines(&self, slot: &Slot, decode: bool) -> Option<u32> {
        let Slot::ArrayRef { array, data } = slot else {
            return None;
        };
        match (array.text, data) {
            (Some(_), _) => Some(1),
            // Directory: count and hashes, then offsets (format.md §5.3).
            (None, ArrayData::Soa { .. }) => Some(2),
            (None, ArrayData::Plain { .. }) => {
                let bools = array.elem == ElemType::Scalar(Primitive::Bool);
                (decode || bools).then_some(1)
            }
            (None, ArrayData::AosInline { id, .. }) => {
                (decode || self.l.inline_needs_validation(*id)).then_some(1)
            }
            (None, _) => Some(1),
        }
    }

    /// The prefetch statements at the top of the decoder's SoA element loop (`i` is
    /// the element, `len` the array length, `r` a reader expression).
    fn soa_prefetch(&self, soa: &SoaLayout, r: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let mut hints = String::new();
        for (k, c) in soa.columns.iter().enumerate() {
            if let Some(lines) = self.prefetch_lines(&c.slot, true) {
                let _ = writeln!(
                    hints,
                    "{pad}if ahead < len && cols[{k}] != 0 {{\n{pad}    {r}.prefetch_array(cols[{k}] + {}, {lines});\n{pad}}}",
                    mul("ahead", c.size)
                );
            }
        }
        if hints.is_empty() {
            return hints;
        }
        format!("{pad}let ahead = i + karmem::PREFETCH_AHEAD;\n{hints}")
    }

    fn soa_item(&mut self, id: StructId, soa: &SoaLayout) {
        let name = self.struct_name(id);
        let n = soa.columns.len();
        let columns: Vec<String> = soa
            .columns
            .iter()
            .map(|c| format!("({:#010x}, {})", c.hash, c.size))
            .collect();
        self.w(&format!("impl {name} {{"));
        self.w("    /// `(hash, size)` of each SoA column, in writing order (format.md §5.3).");
        self.w("    #[doc(hidden)]");
        self.w(&format!(
            "    pub const SOA_COLUMNS: [(u32, u32); {n}] = [{}];",
            columns.join(", ")
        ));
        self.w("");
        // Dense columns (scalars, enums) are written and read column by
        // column in tight loops over one slice each; the rest (references,
        // unions, fixed arrays) element by element, which also fixes the
        // order of out-of-line children (format.md §8).
        let dense: Vec<bool> = soa
            .columns
            .iter()
            .map(|c| matches!(c.slot, Slot::Scalar(_) | Slot::Enum { .. }))
            .collect();
        let flags: Vec<&str> = dense
            .iter()
            .map(|d| if *d { "true" } else { "false" })
            .collect();
        self.w("    #[doc(hidden)]");
        self.w(&format!(
            "    pub const SOA_FILLED: [bool; {n}] = [{}];",
            flags.join(", ")
        ));
        self.w("");
        // write
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_soa<'x>(");
        // An element without columns (an empty table) writes only the
        // directory: its items are not looked at.
        let items = if n == 0 { "_items" } else { "items" };
        self.w(&format!(
            "        {items}: impl Iterator<Item = &'x Self> + Clone,"
        ));
        self.w("        count: usize,");
        self.w("        w: &mut karmem::Writer,");
        self.w("        at: u32,");
        self.w("    ) -> Result<(), karmem::Error> {");
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w(
            "        w.write_soa(at, count, &Self::SOA_COLUMNS, &Self::SOA_FILLED, &mut cols)?;",
        );
        // All dense columns in one pass over the elements: each element is
        // read once (a pass per column would stream a large array through
        // the cache once per column).
        let dense_cols: Vec<usize> = (0..n).filter(|k| dense[*k]).collect();
        if !dense_cols.is_empty() {
            let names: Vec<String> = dense_cols.iter().map(|k| format!("c{k}")).collect();
            let parts: Vec<String> = dense_cols
                .iter()
                .map(|k| {
                    let size = soa.columns[*k].size;
                    let bytes = if size == 1 {
                        "count as u32".to_string()
                    } else {
                        format!("(count * {size}) as u32")
                    };
                    format!("(cols[{k}], {bytes})")
                })
                .collect();
            self.w(&format!(
                "        let [{}] = w.slices_mut([{}]);",
                names.join(", "),
                parts.join(", ")
            ));
            for group in dense_cols.chunks(MAX_ZIP) {
                let mut pattern = "e".to_string();
                let mut iter = "items.clone()".to_string();
                for k in group {
                    pattern = format!("({pattern}, d{k})");
                    let _ = write!(
                        iter,
                        ".zip(c{k}.chunks_exact_mut({}))",
                        soa.columns[*k].size
                    );
                }
                self.w(&format!("        for {pattern} in {iter} {{"));
                for k in group {
                    let place = self.column_place("e", soa, *k);
                    let value = match &soa.columns[*k].slot {
                        Slot::Scalar(Primitive::Bool) => format!("[{place} as u8]"),
                        Slot::Enum { .. } => format!("{place}.0.to_le_bytes()"),
                        _ => format!("{place}.to_le_bytes()"),
                    };
                    self.w(&format!("            d{k}.copy_from_slice(&{value});"));
                }
                self.w("        }");
            }
        }
        if dense.iter().any(|d| !d) {
            self.w("        for (i, e) in items.enumerate() {");
            self.w("            let i = i as u32;");
            for (k, c) in soa.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let pos = format!("cols[{k}] + {}", mul("i", c.size));
                let code = self.write_slot(&c.slot, &place, &pos, 3);
                self.out.push_str(&code);
            }
            self.w("        }");
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        if let Some(k) = self.words_soa(id) {
            self.w("    #[doc(hidden)]");
            self.w("    pub fn write_soa_slice(items: &[Self], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
            self.w(&format!(
                "        const _: () = assert!(core::mem::size_of::<{name}>() == {});",
                4 * k
            ));
            self.w(&format!(
                "        // SAFETY: `{name}` is `#[repr(C)]` with {k} fields of 4-byte numbers and"
            ));
            self.w("        // no padding (size asserted above): each element is that many");
            self.w("        // initialised, 4-aligned words.");
            self.w(&format!(
                "        let words = unsafe {{ core::slice::from_raw_parts(items.as_ptr().cast::<u32>(), items.len() * {k}) }};"
            ));
            self.w("        w.write_soa_words(at, words, &Self::SOA_COLUMNS)");
            self.w("    }");
            self.w("");
        }
        // read
        self.w("    #[doc(hidden)]");
        self.w("    pub fn read_soa(");
        self.w("        items: &mut Vec<Self>,");
        self.w("        v: &mut karmem::Validator<'_>,");
        self.w("        a: karmem::ArrayRef,");
        self.w("    ) -> Result<(), karmem::Error> {");
        if n > 0 {
            self.w("        let r = v.reader;");
        }
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w("        v.soa_columns(a, &Self::SOA_COLUMNS, &mut cols)?;");
        let cost: u32 = soa.columns.iter().map(|c| c.size).sum();
        self.w(&format!(
            "        v.charge({})?;",
            mul("a.len as u64", cost.max(1))
        ));
        let plain_data = !dense.is_empty() && dense.iter().all(|d| *d);
        if !plain_data {
            self.w("        items.resize_with(a.len as usize, core::default::Default::default);");
        }
        // Dense columns as native slices, copied in one pass over the
        // elements when all are present; an absent column (older writer)
        // reads as zeros.
        let mut reads: Vec<(usize, String, String, String)> = Vec::new();
        for (k, c) in soa.columns.iter().enumerate() {
            if !dense[k] {
                continue;
            }
            let place = self.column_place("e", soa, k);
            let x = format!("x{k}");
            let (ty, value) = match &c.slot {
                Slot::Scalar(Primitive::Bool) => ("u8".to_string(), format!("*{x} != 0")),
                Slot::Scalar(p) => (rust_prim(*p).to_string(), format!("*{x}")),
                Slot::Enum { id, repr } => (
                    rust_prim(*repr).to_string(),
                    format!("{}(*{x})", self.enum_name(*id)),
                ),
                _ => unreachable!(),
            };
            self.w(&format!(
                "        let c{k} = r.slice::<{ty}>(cols[{k}], a.len);"
            ));
            reads.push((k, place, value, x));
        }
        let per_column = |g: &mut Self, indent: &str| {
            for (k, place, value, x) in &reads {
                g.w(&format!("{indent}if c{k}.len() == items.len() {{"));
                g.w(&format!(
                    "{indent}    for (e, {x}) in items.iter_mut().zip(c{k}) {{"
                ));
                g.w(&format!("{indent}        {place} = {value};"));
                g.w(&format!("{indent}    }}"));
                g.w(&format!("{indent}}} else {{"));
                g.w(&format!("{indent}    for e in items.iter_mut() {{"));
                g.w(&format!(
                    "{indent}        {place} = core::default::Default::default();"
                ));
                g.w(&format!("{indent}    }}"));
                g.w(&format!("{indent}}}"));
            }
        };
        if plain_data && reads.len() > MAX_ZIP {
            // Too wide for one zipped pass: resized, then filled in groups.
            self.w("        items.resize_with(a.len as usize, core::default::Default::default);");
        }
        if plain_data && reads.len() <= MAX_ZIP {
            // Elements own nothing (every leaf is a scalar column): rebuild
            // them in one pass, each written once, instead of resizing with
            // defaults and overwriting (which writes a new array twice).
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == a.len as usize"))
                .collect();
            self.w(&format!("        if {} {{", all.join(" && ")));
            self.w("            items.clear();");
            let (mut pattern, mut iter) = (String::new(), String::new());
            for (i, (k, _, _, x)) in reads.iter().enumerate() {
                if i == 0 {
                    pattern = x.clone();
                    iter = format!("c{k}.iter()");
                } else {
                    pattern = format!("({pattern}, {x})");
                    let _ = write!(iter, ".zip(c{k})");
                }
            }
            let values: Vec<(Vec<u32>, String)> = reads
                .iter()
                .map(|(k, _, value, _)| (soa.columns[*k].path.clone(), value.clone()))
                .collect();
            let literal = self.soa_literal(soa.elem, &mut Vec::new(), soa, &values);
            self.w(&format!(
                "            items.extend({iter}.map(|{pattern}| {literal}));"
            ));
            self.w("        } else {");
            self.w(
                "            items.resize_with(a.len as usize, core::default::Default::default);",
            );
            per_column(self, "            ");
            self.w("        }");
        } else if reads.len() == 1 {
            per_column(self, "        ");
        } else if !reads.is_empty() {
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == items.len()"))
                .collect();
            self.w(&format!("        if {} {{", all.join(" && ")));
            for group in reads.chunks(MAX_ZIP) {
                let mut pattern = "e".to_string();
                let mut iter = "items.iter_mut()".to_string();
                for (k, _, _, x) in group {
                    pattern = format!("({pattern}, {x})");
                    let _ = write!(iter, ".zip(c{k})");
                }
                self.w(&format!("            for {pattern} in {iter} {{"));
                for (_, place, value, _) in group {
                    self.w(&format!("                {place} = {value};"));
                }
                self.w("            }");
            }
            self.w("        } else {");
            per_column(self, "            ");
            self.w("        }");
        }
        if dense.iter().any(|d| !d) {
            self.w("        let len = a.len;");
            self.w("        for (i, e) in items.iter_mut().enumerate() {");
            self.w("            let i = i as u32;");
            let prefetch = self.soa_prefetch(soa, "r", 3);
            self.out.push_str(&prefetch);
            for (k, c) in soa.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let ctx = Ctx::Pos {
                    pos: format!("cols[{k}] + {}", mul("i", c.size)),
                    present: format!("cols[{k}] != 0"),
                };
                let code = self.read_slot(&c.slot, &place, &ctx, 3);
                self.out.push_str(&code);
            }
            self.w("        }");
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        // validate: column by column (R4.5). Each column's checks run in
        // one tight loop; references are checked as a whole column first,
        // then whatever their data needs (text, nested directories).
        let body: String = soa
            .columns
            .iter()
            .enumerate()
            .map(|(k, c)| self.validate_column(k, c))
            .collect();
        self.w("    #[doc(hidden)]");
        self.w("    #[inline]");
        self.w("    pub fn validate_soa(v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {");
        let cols_mut = if body.is_empty() { "_cols" } else { "cols" };
        self.w(&format!("        let mut {cols_mut} = [0u32; {n}];"));
        self.w(&format!(
            "        v.soa(a, &Self::SOA_COLUMNS, &mut {cols_mut})?;"
        ));
        if !body.is_empty() {
            if mentions(&body, "r") {
                self.w("        let r = v.reader;");
            }
            self.w("        let len = a.len;");
            self.out.push_str(&body);
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("}");
        self.w("");

        // Array view.
        let sv = self.soa_name(id);
        let item = self.soa_item_name(id);
        let st_name = self.s.structs[id].name.clone();
        self.w(&format!(
            "/// SoA array of `{st_name}`: one directory scan when created, then every"
        ));
        self.w("/// scalar column is a native slice and element access is O(1).");
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {sv}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        // Without columns (an empty table) there is nothing to read: the
        // reader and the column offsets are kept for a uniform API.
        let unread = if n == 0 {
            "    #[allow(dead_code)]\n"
        } else {
            ""
        };
        self.out.push_str(unread);
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    len: u32,");
        self.out.push_str(unread);
        self.w(&format!("    cols: [u32; {n}],"));
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {sv}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn new(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w(&format!(
            "        r.soa_columns(a, &{name}::SOA_COLUMNS, &mut cols);"
        ));
        self.w(&format!("        {sv} {{ r, len: a.len, cols }}"));
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn len(&self) -> usize {");
        self.w("        self.len as usize");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn is_empty(&self) -> bool {");
        self.w("        self.len == 0");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w(&format!(
            "    pub fn get(&self, i: usize) -> Option<{item}<'_, 'a, M>> {{"
        ));
        self.w(&format!(
            "        (i < self.len as usize).then_some({item} {{ s: self, i: i as u32 }})"
        ));
        self.w("    }");
        self.w("");
        self.w(&format!(
            "    pub fn iter(&self) -> impl ExactSizeIterator<Item = {item}<'_, 'a, M>> {{"
        ));
        self.w(&format!(
            "        (0..self.len).map(move |i| {item} {{ s: self, i }})"
        ));
        self.w("    }");
        for (k, c) in soa.columns.iter().enumerate() {
            let t = match &c.slot {
                Slot::Scalar(Primitive::Bool) => Some(("u8".to_string(), "slice")),
                Slot::Scalar(p) => Some((rust_prim(*p).to_string(), "slice")),
                Slot::Enum { id, .. } => Some((self.enum_name(*id), "newtype_slice")),
                _ => None,
            };
            if let Some((t, slice)) = t {
                let ident = self.column_ident(soa, k);
                self.w("");
                self.w(&format!(
                    "    /// The whole `{}` column as a native slice (absent column: empty).",
                    ident
                ));
                self.w("    #[inline]");
                self.w(&format!("    pub fn {ident}(&self) -> &'a [{t}] {{"));
                self.w(&format!(
                    "        self.r.{slice}::<{t}>(self.cols[{k}], self.len)"
                ));
                self.w("    }");
            }
        }
        self.w("}");
        self.w("");
        self.w(&format!("/// One element of a [`{sv}`]."));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {item}<'s, 'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        if n == 0 {
            self.w("    #[allow(dead_code)]");
        }
        self.w(&format!("    s: &'s {sv}<'a, M>,"));
        if n == 0 {
            self.w("    #[allow(dead_code)]");
        }
        self.w("    i: u32,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {item}<'_, 'a, M> {{"));
        for (k, c) in soa.columns.iter().enumerate() {
            let ident = self.column_ident(soa, k);
            let ctx = Ctx::Pos {
                pos: format!("self.s.cols[{k}] + {}", mul("self.i", c.size)),
                present: format!("self.s.cols[{k}] != 0"),
            };
            let before = self.out.len();
            self.view_accessor(&ident, &c.slot, &ctx, &[]);
            // Element views reach the reader through the array view (a
            // field, not a helper method, which a column named `r` would
            // clash with).
            let emitted = self
                .out
                .split_off(before)
                .replace("self.r.", "self.s.r.")
                .replace("self.r,", "self.s.r,");
            self.out.push_str(&emitted);
        }
        self.w("}");
        self.w("");
    }

    // ---- unions ------------------------------------------------------------

    fn union_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let view = self.union_view(id);
        let tag_ty = rust_prim(u.tag);
        self.doc(&u.doc);
        self.w(&format!(
            "/// A value of union `{}` (object API; `None` is tag 0).",
            u.name
        ));
        self.w("#[derive(Clone, Debug, PartialEq)]");
        if self.serde {
            self.w("#[derive(serde::Serialize, serde::Deserialize)]");
        }
        self.w(&format!("pub enum {value} {{"));
        for v in &u.variants {
            let ty = self.struct_name(v.ty);
            if self.serde && ty != self.s.structs[v.ty].name {
                self.w(&format!(
                    "    #[serde(rename = \"{}\")]",
                    self.s.structs[v.ty].name
                ));
            }
            self.w(&format!("    {ty}({ty}),"));
        }
        self.w("}");
        self.w("");
        self.w(&format!("impl {value} {{"));
        self.w(&format!(
            "    pub const TAGS: [u32; {}] = [{}];",
            u.variants.len(),
            u.variants
                .iter()
                .map(|v| v.tag.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_slot(v: &Option<Self>, w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
        self.w(&format!(
            "        Self::write_parts(v, w, at, at + {UNION_OFFSET_AT})"
        ));
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_parts(v: &Option<Self>, w: &mut karmem::Writer, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        match v {");
        self.w("            None => {}");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("            Some(Self::{ty}(x)) => {{"));
            self.w(&format!(
                "                w.put::<{tag_ty}>(tag_at, {});",
                var.tag
            ));
            if self.is_table(var.ty) {
                self.w("                let child = x.write(w)?;");
            } else {
                self.w(&format!(
                    "                let child = w.alloc({}, {OBJECT_ALIGN})?;",
                    self.l.of_struct(var.ty).size
                ));
                self.w("                x.write_at(w, child)?;");
            }
            self.w("                w.put::<u32>(offset_at, child);");
            self.w("            }");
        }
        self.w("        }");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn read_parts(place: &mut Option<Self>, v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        let r = v.reader;");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            let (guard, read) = if self.is_table(var.ty) {
                (
                    String::new(),
                    "x.read_table(v, r.table(offset))?".to_string(),
                )
            } else {
                (
                    format!(
                        " if offset != 0 && offset.is_multiple_of(8) && offset as u64 + {} <= r.size() as u64",
                        self.l.of_struct(var.ty).size
                    ),
                    // Charged like a table: its size (format.md §10).
                    format!(
                        "{{ v.charge({})?; x.read_at(v, offset)? }}",
                        self.l.of_struct(var.ty).size
                    ),
                )
            };
            self.w(&format!("            {}{guard} => match place {{", var.tag));
            self.w(&format!("                Some(Self::{ty}(x)) => {read},"));
            self.w("                _ => {");
            self.w(&format!("                    let mut x = {ty}::default();"));
            self.w(&format!("                    {read};"));
            self.w(&format!(
                "                    *place = Some(Self::{ty}(x));"
            ));
            self.w("                }");
            self.w("            },");
        }
        self.w("            _ => *place = None,");
        self.w("        }");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn validate_parts(v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        let r = v.reader;");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("            {} => {{", var.tag));
            if self.is_table(var.ty) {
                self.w("                if offset == 0 {");
                self.w("                    return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.w("                }");
                self.w("                let t = v.table(offset)?;");
                self.w(&format!("                {ty}::validate_table(v, t)"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.w(&format!("                if offset == 0 || !offset.is_multiple_of(8) || offset as u64 + {size} > r.size() as u64 {{"));
                self.w("                    return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.w("                }");
                self.w(&format!("                v.charge({size})?;"));
                self.w(&format!("                {ty}::validate_at(v, offset)"));
            }
            self.w("            }");
        }
        self.w("            // 0 is \"no value\"; unknown tags come from newer writers and are");
        self.w("            // never dereferenced (viewers report them as Unknown).");
        self.w("            _ => Ok(()),");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");

        // View enum.
        self.w(&format!("/// Zero-copy view of a `{}` value.", u.name));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub enum {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    None,");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("    {ty}({}<'a, M>),", self.view_name(var.ty)));
        }
        self.w("    /// A tag this schema version does not know.");
        self.w("    Unknown(u32),");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn from_parts(r: karmem::Reader<'a, M>, tag_at: u32, offset_at: u32) -> Self {");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        self.w("            0 => Self::None,");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            let v = self.view_name(var.ty);
            if self.is_table(var.ty) {
                self.w(&format!(
                    "            {} => Self::{ty}({v} {{ r, t: r.table(offset) }}),",
                    var.tag
                ));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.w(&format!("            {} => {{", var.tag));
                self.w(&format!("                let ok = M::TRUSTED || (offset != 0 && offset.is_multiple_of(8) && offset as u64 + {size} <= r.size() as u64);"));
                self.w(&format!(
                    "                Self::{ty}({v} {{ r, at: offset, present: ok }})"
                ));
                self.w("            }");
            }
        }
        self.w("            other => Self::Unknown(other),");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");

        // AoS/SoA array view (always generated; small).
        let arr = format!("{}Array", self.union_name(id));
        let tw = u.tag.size();
        self.w(&format!("/// An AoS or SoA array of `{}` values.", u.name));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {arr}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    len: u32,");
        self.w("    tags: u32,");
        self.w("    tag_stride: u32,");
        self.w("    offsets: u32,");
        self.w("    offset_stride: u32,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {arr}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn aos(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        {arr} {{ r, len: a.len, tags: a.offset, tag_stride: {UNION_SLOT_SIZE}, offsets: a.offset + {UNION_OFFSET_AT}, offset_stride: {UNION_SLOT_SIZE} }}"));
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn soa(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        match r.union_columns(a, {tw}) {{"));
        self.w(&format!("            Some((tags, offsets)) => {arr} {{ r, len: a.len, tags, tag_stride: {tw}, offsets, offset_stride: {OFFSET_SIZE} }},"));
        self.w(&format!("            None => {arr} {{ r, len: 0, tags: 0, tag_stride: 0, offsets: 0, offset_stride: 0 }},"));
        self.w("        }");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn len(&self) -> usize {");
        self.w("        self.len as usize");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn is_empty(&self) -> bool {");
        self.w("        self.len == 0");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w(&format!(
            "    pub fn get(&self, i: usize) -> Option<{view}<'a, M>> {{"
        ));
        self.w("        let i = i as u32;");
        self.w(&format!("        (i < self.len).then(|| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.w("    }");
        self.w("");
        self.w(&format!(
            "    pub fn iter(&self) -> impl ExactSizeIterator<Item = {view}<'a, M>> + '_ {{"
        ));
        self.w(&format!("        (0..self.len).map(move |i| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.w("    }");
        self.w("}");
        self.w("");
    }

    /// Writer, reader and view of a bunch (`#bovoa` / `#bovos`) array.
    fn bunch_item(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let suffix = if soa { "bovos" } else { "bovoa" };
        let k = u.variants.len();
        self.w(&format!("impl {value} {{"));
        self.w("    #[doc(hidden)]");
        self.w(&format!("    pub fn write_{suffix}(items: &[Option<Self>], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {{"));
        self.w(&format!("        let mut counts = [0usize; {k}];"));
        self.w("        for item in items {");
        self.w("            match item {");
        for (i, var) in u.variants.iter().enumerate() {
            self.w(&format!(
                "                Some(Self::{}(_)) => counts[{i}] += 1,",
                self.struct_name(var.ty)
            ));
        }
        self.w("                None => {}");
        self.w("            }");
        self.w("        }");
        self.w("        let total: usize = counts.iter().sum();");
        self.w("        if total == 0 {");
        self.w("            w.put_array_ref(at, 0, 0, 0);");
        self.w("            return Ok(());");
        self.w("        }");
        self.w("        let entries = counts.iter().filter(|c| **c > 0).count() as u32;");
        self.w(&format!("        let table = w.alloc(({BUNCH_ENTRY_SIZE} * (entries + 1)).div_ceil({ARRAY_ALIGN}) * {ARRAY_ALIGN}, {ARRAY_ALIGN})?;"));
        self.w("        w.put::<u32>(table, entries);");
        self.w(&format!(
            "        let mut entry = table + {BUNCH_ENTRY_SIZE};"
        ));
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.struct_name(var.ty);
            let data = if soa {
                ArrayData::Soa { elem: var.ty }
            } else if self.is_table(var.ty) {
                ArrayData::AosTable { id: var.ty }
            } else {
                ArrayData::AosInline {
                    id: var.ty,
                    stride: self.l.of_struct(var.ty).size,
                }
            };
            self.w(&format!("        if counts[{i}] > 0 {{"));
            self.w(&format!("            w.put::<u32>(entry, {});", var.tag));
            let iter = format!("items.iter().filter_map(|x| match x {{ Some(Self::{ty}(v)) => Some(v), _ => None }})");
            let code = self.write_struct_array(
                &data,
                &iter,
                &format!("counts[{i}]"),
                &format!("entry + {BUNCH_ENTRY_ARRAY_AT}"),
                3,
            );
            self.out.push_str(&code);
            self.w(&format!("            entry += {BUNCH_ENTRY_SIZE};"));
            self.w("        }");
        }
        self.w("        let _ = entry;");
        self.w("        w.put_array_ref(at, table, total as u32, total as u32);");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w(&format!("    pub fn read_{suffix}(items: &mut Vec<Option<Self>>, v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {{"));
        self.w("        let r = v.reader;");
        self.w("        items.clear();");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            if soa {
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, 0);",
                    var.tag
                ));
                self.w("            let mut values = Vec::new();");
                self.w(&format!(
                    "            {ty}::read_soa(&mut values, v, sub)?;"
                ));
                self.w(&format!(
                    "            items.extend(values.into_iter().map(|x| Some(Self::{ty}(x))));"
                ));
                self.w("        }");
            } else if self.is_table(var.ty) {
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.w(&format!(
                    "            v.charge(sub.len as u64 * {OFFSET_SIZE})?;"
                ));
                self.w("            for i in 0..sub.len {");
                self.w(&format!("                let mut x = {ty}::default();"));
                self.w(
                    &format!("                x.read_table(v, r.table(r.get::<u32>(sub.offset + i * {OFFSET_SIZE})))?;"),
                );
                self.w(&format!("                items.push(Some(Self::{ty}(x)));"));
                self.w("            }");
                self.w("        }");
            } else {
                let stride = self.l.of_struct(var.ty).size;
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, {stride});",
                    var.tag
                ));
                self.w(&format!(
                    "            v.charge(sub.len as u64 * {stride})?;"
                ));
                self.w("            for i in 0..sub.len {");
                self.w(&format!("                let mut x = {ty}::default();"));
                self.w(&format!(
                    "                x.read_at(v, sub.offset + {})?;",
                    mul("i", stride)
                ));
                self.w(&format!("                items.push(Some(Self::{ty}(x)));"));
                self.w("            }");
                self.w("        }");
            }
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("}");
        self.w("");
        // View.
        let view = format!(
            "{}{}",
            self.union_name(id),
            if soa { "Bovos" } else { "Bovoa" }
        );
        self.w(&format!(
            "/// A `#{suffix}` array of `{}`: one homogeneous array per variant.",
            u.name
        ));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    a: karmem::ArrayRef,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.w("    /// Number of values across all variants.");
        self.w("    pub fn len(&self) -> usize {");
        self.w("        self.a.len as usize");
        self.w("    }");
        self.w("");
        self.w("    pub fn is_empty(&self) -> bool {");
        self.w("        self.a.len == 0");
        self.w("    }");
        for var in &u.variants {
            let m = match rust_ident(&snake(&self.s.structs[var.ty].name)) {
                m if m == "len" || m == "is_empty" => format!("{m}_variant"),
                m => m,
            };
            self.w("");
            if soa {
                let sv = self.soa_name(var.ty);
                self.w(&format!("    pub fn {m}(&self) -> {sv}<'a, M> {{"));
                self.w(&format!(
                    "        {sv}::new(self.r, self.r.bunch_entry(self.a, {}, 0))",
                    var.tag
                ));
            } else if self.is_table(var.ty) {
                let v = self.view_name(var.ty);
                self.w(&format!(
                    "    pub fn {m}(&self) -> karmem::TableArray<'a, {v}<'a, M>, M> {{"
                ));
                self.w(&format!(
                    "        let sub = self.r.bunch_entry(self.a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.w("        karmem::TableArray::new(self.r, sub.offset, sub.len)");
            } else {
                let v = self.view_name(var.ty);
                let stride = self.l.of_struct(var.ty).size;
                self.w(&format!(
                    "    pub fn {m}(&self) -> karmem::InlineArray<'a, {v}<'a, M>, M> {{"
                ));
                self.w(&format!(
                    "        let sub = self.r.bunch_entry(self.a, {}, {stride});",
                    var.tag
                ));
                self.w(&format!(
                    "        karmem::InlineArray::new(self.r, sub.offset, sub.len, {stride})"
                ));
            }
            self.w("    }");
        }
        self.w("}");
        self.w("");
    }
}

/// Does generated `body` use the local variable `name` (as `name.`/`name,`/`name)`)?
fn mentions(body: &str, name: &str) -> bool {
    let bytes = body.as_bytes();
    body.match_indices(name).any(|(i, _)| {
        let before = i.checked_sub(1).map(|p| bytes[p]);
        let after = bytes.get(i + name.len()).copied();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        !before.is_some_and(|c| ident(c) || c == b'.') && matches!(after, Some(b'.' | b',' | b')'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(source: &str) -> String {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let files = RustBackend::default()
            .generate(&schema, &layout)
            .expect("generates");
        files[0].contents.clone()
    }

    #[test]
    fn fields_named_like_viewer_methods_are_moved_aside() {
        assert_eq!(suffixed("reader_field", "bytes"), "reader_bytes");
        assert_eq!(suffixed("name_field", "bytes"), "name_field_bytes");
        let out = generate(
            "karmem k;\nstruct P inline { Position f32; Len i32; }\n\
             struct A table { Reader []char; Table P; R i32; Ps []P; }\n",
        );
        for method in [
            "pub fn position(&self) -> Option<u32>",
            "pub fn position_field(&self) -> f32",
            "pub fn len_field(&self) -> i32",
            "pub fn reader_field(&self) -> &'a str",
            "pub fn reader_bytes(&self) -> &'a [u8]",
            "pub fn table_field(&self) -> PView<'a, M>",
            "pub fn len_column(&self) -> &'a [i32]",
        ] {
            assert!(out.contains(method), "{method} missing:\n{out}");
        }
        // An SoA element reaches its reader through the array view's field:
        // a column named `r` has no helper method to clash with.
        assert!(!out.contains("fn r(&self) -> karmem::Reader"), "{out}");
    }

    #[test]
    fn derived_names_of_keyword_fields_have_one_underscore() {
        assert_eq!(suffixed("type_", "bytes"), "type_bytes");
        assert_eq!(suffixed("name", "bytes"), "name_bytes");
        // A trailing underscore that is not a keyword escape stays.
        assert_eq!(suffixed("name_", "bytes"), "name__bytes");
        let out = generate("karmem k;\nstruct A table { Type []char; }\n");
        assert!(out.contains("pub fn type_(&self)"), "{out}");
        assert!(out.contains("pub fn type_bytes(&self)"), "{out}");
        assert!(!out.contains("__"), "{out}");
    }

    #[test]
    fn word_structs_get_the_slice_writer() {
        let out = generate(
            "karmem k;\nstruct V inline { X f32; Y i32; Z u32; }\nstruct A table { P []V; }\n",
        );
        assert!(out.contains("#[repr(C)]\npub struct V {"), "{out}");
        assert!(out.contains("V::write_soa_slice(&self.p, w,"), "{out}");
        // Mixed sizes or more than 4 columns: the element-wise writer.
        let out =
            generate("karmem k;\nstruct V inline { X f32; Y u16; }\nstruct A table { P []V; }\n");
        assert!(
            !out.contains("repr(C)") && !out.contains("write_soa_slice"),
            "{out}"
        );
    }
}

//! C backend: generates, per schema, `<prefix>.h` and `<prefix>.c` (C11,
//! the runtime library `c/karmem.h` and the C standard library only) with
//!
//! * object types: a `typedef struct` per schema struct, enums as a
//!   typedef of their underlying integer type with `#define` constants,
//!   text as `km_text` views, arrays as `{ptr, len}`, optional values as
//!   `{has, value}`, optional tables as pointers, unions as a tag and a
//!   C union of pointers to the variant values;
//! * `<prefix>_<type>_encode` (a whole message, format.md §8 order),
//!   `<prefix>_<type>_decode` (lenient, into a `km_arena`, with the
//!   traversal budget and depth limit of format.md §10 charged exactly as
//!   the Go decoder does) and `<prefix>_<type>_validate` (one pass,
//!   format.md §11, the same checks and charges as the Go validators).
//!
//! * checked zero-copy viewers (views.rs): `static inline` view types and
//!   accessors in the header that read a message in place; and the same
//!   viewers again for validated messages (`_tview` names over a
//!   `km_trusted`), reached only through `<prefix>_<type>_trust`, which
//!   validates first;
//! * field offset constants (`<PREFIX>_<TYPE>_<FIELD>_OFFSET`) and, on the
//!   checked views of tables, in-place setters over a `km_editor`
//!   (`_set_<f>`, `_edit_<f>`, `_set_<f>_len`; format.md §12).

mod decode;
mod encode;
mod validate;
mod views;

use std::cell::Cell;
use std::collections::BTreeSet;

use karmem_layout::{ArrayData, FixedElem, Layout, Slot, OFFSET_SIZE};
use karmem_schema::model::*;

use crate::emit::Lines;
use crate::names::{Namer, C};
use crate::walk::{Ctx, SlotPrinter};
use crate::{Backend, Error, GeneratedFile};
use encode::{add, plus};

/// The C generator.
#[derive(Clone, Debug, Default)]
pub struct CBackend;

impl Backend for CBackend {
    fn name(&self) -> &'static str {
        "c"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let g = Gen::new(schema, layout);
        Ok(vec![
            GeneratedFile {
                path: format!("{}.h", g.prefix),
                contents: g.header_file(),
            },
            GeneratedFile {
                path: format!("{}.c", g.prefix),
                contents: g.source_file(),
            },
        ])
    }
}

/// The C prefix of every generated name: `@c.prefix(...)`, else the
/// schema's package name, as a lower-case C identifier.
pub fn prefix(schema: &Schema) -> String {
    Namer::new(&C, schema).prefix().to_string()
}

/// A C member name for a schema field: `snake_case`, keywords get `_`.
pub fn member(name: &str) -> String {
    C.fields.apply(name)
}

pub(crate) fn c_prim(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "uint8_t",
        Primitive::U16 => "uint16_t",
        Primitive::U32 => "uint32_t",
        Primitive::U64 => "uint64_t",
        Primitive::I8 => "int8_t",
        Primitive::I16 => "int16_t",
        Primitive::I32 => "int32_t",
        Primitive::I64 => "int64_t",
        Primitive::F32 => "float",
        Primitive::F64 => "double",
        Primitive::Bool => "bool",
    }
}

/// The `limit` argument of the library's array checks.
pub(crate) fn limit_arg(array: &ArrayType) -> String {
    limit_expr(array.limit())
}

/// The `limit` argument for a `[<N]T` limit of `limit`.
pub(crate) fn limit_expr(limit: Option<u32>) -> String {
    limit.map_or("KM_NO_LIMIT".to_string(), |n| format!("{n}u"))
}

/// The tag and offset positions of element `k` of an SoA union block
/// (its columns at `tags` and `offs`, tags `tag_size` bytes): the last
/// arguments of the union's reader, check and writer.
pub(crate) fn union_column_at(tags: &str, offs: &str, k: &str, tag_size: u32) -> String {
    format!(
        "{}, {}",
        plus(tags, k, tag_size),
        plus(offs, k, OFFSET_SIZE)
    )
}

/// A C string literal of UTF-8 text (bytes outside printable ASCII as
/// octal escapes, which never run into the next character).
pub(crate) fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for b in text.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// C source buffer, four-space indentation.
pub(crate) struct Code(Lines);

crate::emit::deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("    ", indent))
    }
    /// `KM_TRY(expr);`
    pub fn try_(&mut self, expr: &str) {
        self.line(&format!("KM_TRY({expr});"));
    }
    pub fn append(&mut self, other: Code) {
        self.out.push_str(&other.out);
    }
}

pub(crate) struct Gen<'a> {
    pub s: &'a Schema,
    pub l: &'a Layout,
    /// The names of the schema's items (`crate::names::C`).
    pub n: Namer<'a>,
    /// The prefix of every generated name (`n.prefix()`).
    pub prefix: String,
    /// The nesting depth of the array (or, in a validator, optional
    /// value) being printed by the walker's printers (decode.rs,
    /// validate.rs, encode.rs): the suffix of its locals (`a0`, `k1`), set
    /// one deeper around a nested block ([`Gen::deeper`]) and restored
    /// after it, so the trait methods need no depth argument.
    pub d: Cell<usize>,
    /// Printing the trusted viewers (views.rs): `_tview` names over a
    /// `km_trusted`, without the checks a validation made.
    pub trusted: bool,
}

impl<'a> Gen<'a> {
    pub fn new(s: &'a Schema, l: &'a Layout) -> Self {
        let n = Namer::new(&C, s);
        Gen {
            s,
            l,
            prefix: n.prefix().to_string(),
            n,
            d: Cell::new(0),
            trusted: false,
        }
    }

    /// The generator of the trusted viewers (views.rs) of the same schema.
    pub fn trusted(s: &'a Schema, l: &'a Layout) -> Self {
        Gen {
            trusted: true,
            ..Gen::new(s, l)
        }
    }

    /// Opens the loop over the elements of `array` (an array of the
    /// message, or of an object); the index is `i` and the depth.
    pub(crate) fn each(&self, c: &mut Code, i: &str, array: &str) -> String {
        let i = format!("{i}{}", self.d.get());
        c.open(&format!(
            "for (uint32_t {i} = 0; {i} < {array}.len; {i}++) {{"
        ));
        i
    }

    /// Prints `f` one level deeper (the locals of a nested block).
    pub(crate) fn deeper(&self, f: impl FnOnce()) {
        let d = self.d.get();
        self.d.set(d + 1);
        f();
        self.d.set(d);
    }

    /// The locals of an SoA union block's tag and offset columns.
    pub(crate) fn union_columns(&self) -> (String, String) {
        let d = self.d.get();
        (format!("tags{d}"), format!("offsets{d}"))
    }

    // ---- names -------------------------------------------------------------

    /// `APP_PROFILE_DATA_FULL_SIZE`: `S` of a table (format.md §10).
    pub fn full_size(&self, id: StructId) -> String {
        format!("{}_FULL_SIZE", self.n.struct_name(id).to_uppercase())
    }
    /// `APP_PROFILE_DATA_ID_OFFSET`: the byte offset of field `i` of
    /// struct `id` in its table or inline struct, as Rust's `F_OFFSET`.
    pub fn field_offset(&self, id: StructId, i: usize) -> String {
        format!(
            "{}_{}_OFFSET",
            self.n.struct_name(id).to_uppercase(),
            self.n.field(id, i).to_uppercase()
        )
    }
    /// `APP_PROFILE_DATA_ZERO_SIZE`: `Z` of a table (format.md §10).
    pub fn zero_size(&self, id: StructId) -> String {
        format!("{}_ZERO_SIZE", self.n.struct_name(id).to_uppercase())
    }
    // ---- C types -------------------------------------------------------------

    /// The C type of an object field holding `slot`, split in the part
    /// before the member name and the part after it (`[4]` of a fixed
    /// array).
    pub fn slot_type(&self, slot: &Slot) -> (String, String) {
        match slot {
            Slot::Scalar(p) => (c_prim(*p).into(), String::new()),
            Slot::Enum { id, .. } => (self.n.enum_name(*id), String::new()),
            Slot::InlineStruct(id) | Slot::TableRef(id) => (self.n.struct_name(*id), String::new()),
            Slot::OptionalTable(id) => (
                format!("struct {} *", self.n.struct_name(*id)),
                String::new(),
            ),
            Slot::Optional { value, .. } => {
                let (t, suffix) = self.slot_type(value);
                (
                    format!("struct {{ bool has; {t} value{suffix}; }}"),
                    String::new(),
                )
            }
            Slot::Union { id, .. } => (self.n.union_name(*id), String::new()),
            Slot::FixedArray { elem, len, .. } => (self.fixed_elem_type(elem), format!("[{len}]")),
            Slot::ArrayRef { array, data } => (self.array_type(array, data), String::new()),
        }
    }

    pub fn fixed_elem_type(&self, elem: &FixedElem) -> String {
        match elem {
            FixedElem::Scalar(p) => c_prim(*p).into(),
            FixedElem::Enum { id, .. } => self.n.enum_name(*id),
            FixedElem::InlineStruct(id) => self.n.struct_name(*id),
        }
    }

    /// A dynamic or limited array: text is a `km_text`, anything else
    /// `{T *ptr; uint32_t len;}` (a map: its entries, in key order).
    pub fn array_type(&self, array: &ArrayType, data: &ArrayData) -> String {
        if array.text.is_some() {
            return "km_text".into();
        }
        format!(
            "struct {{ {} *ptr; uint32_t len; }}",
            self.elem_type(array, data)
        )
    }

    pub fn elem_type(&self, array: &ArrayType, data: &ArrayData) -> String {
        match data {
            ArrayData::Plain { .. } => match array.elem {
                ElemType::Scalar(p) => c_prim(p).into(),
                ElemType::Enum(id) => self.n.enum_name(id),
                _ => unreachable!("plain arrays hold scalars and enums"),
            },
            ArrayData::AosInline { id, .. }
            | ArrayData::AosTable { id }
            | ArrayData::Soa { elem: id } => format!("struct {}", self.n.struct_name(*id)),
            ArrayData::UnionAos { id, .. }
            | ArrayData::UnionSoa { id, .. }
            | ArrayData::UnionBunch { id, .. } => format!("struct {}", self.n.union_name(*id)),
            ArrayData::Arrays { array, data } => self.array_type(array, data),
        }
    }

    /// Structs a struct holds by value (inline, tables, fixed arrays and
    /// optional values of them): they must be defined before it.
    fn by_value(&self, id: StructId) -> Vec<StructId> {
        fn walk(slot: &Slot, out: &mut Vec<StructId>) {
            match slot {
                Slot::InlineStruct(c) | Slot::TableRef(c) => out.push(*c),
                Slot::FixedArray {
                    elem: FixedElem::InlineStruct(c),
                    ..
                } => out.push(*c),
                Slot::Optional { value, .. } => walk(value, out),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for f in &self.l.of_struct(id).fields {
            walk(&f.slot, &mut out);
        }
        out
    }

    /// Structs in an order where every by-value member is defined first.
    fn struct_order(&self) -> Vec<StructId> {
        fn visit(g: &Gen, id: StructId, done: &mut BTreeSet<StructId>, out: &mut Vec<StructId>) {
            if !done.insert(id) {
                return;
            }
            for c in g.by_value(id) {
                visit(g, c, done, out);
            }
            out.push(id);
        }
        let mut done = BTreeSet::new();
        let mut out = Vec::new();
        for item in &self.s.order {
            if let Item::Struct(id) = item {
                visit(self, *id, &mut done, &mut out);
            }
        }
        for id in 0..self.s.structs.len() {
            visit(self, id, &mut done, &mut out);
        }
        out
    }

    // ---- files -------------------------------------------------------------

    fn guard(&self) -> String {
        format!("{}_KARMEM_H", self.prefix.to_uppercase())
    }

    fn header_file(&self) -> String {
        let mut c = Code::new(0);
        c.raw(&crate::header("//", self.s));
        c.line("// The generated C API of this schema (docs/c.md, \"Generated code\").");
        c.line(&format!("#ifndef {}", self.guard()));
        c.line(&format!("#define {}", self.guard()));
        c.line("");
        c.line("#include \"karmem.h\"");
        c.line("");
        c.line("#ifdef __cplusplus");
        c.line("extern \"C\" {");
        c.line("#endif");
        c.line("");
        for (id, e) in self.s.enums.iter().enumerate() {
            let name = self.n.enum_name(id);
            c.line(&format!(
                "/* enum {} ({}): values this schema does not name are kept as they are. */",
                e.name,
                e.repr.name()
            ));
            c.line(&format!("typedef {} {name};", c_prim(e.repr)));
            for (i, v) in e.variants.iter().enumerate() {
                let value = format!("(({name}){})", int_literal(v.value));
                c.line(&format!("#define {} {value}", self.n.value(id, i)));
            }
            // The name of a value, as the schema spells it (`karmem json`
            // writes enum values so): NULL for a value this schema version
            // does not name.
            c.open(&format!(
                "static inline const char *{name}_name({name} value) {{"
            ));
            if e.variants.is_empty() {
                c.line("(void)value;");
            } else {
                c.open("switch (value) {");
                for (i, v) in e.variants.iter().enumerate() {
                    c.line(&format!(
                        "case {}: return {};",
                        self.n.value(id, i),
                        crate::names::quote(&v.name)
                    ));
                }
                c.line("default: break;");
                c.close("}");
            }
            c.line("return NULL;");
            c.close("}");
            c.line("");
        }
        for id in 0..self.s.structs.len() {
            let name = self.n.struct_name(id);
            c.line(&format!("typedef struct {name} {name};"));
        }
        c.line("");
        for (id, u) in self.s.unions.iter().enumerate() {
            let name = self.n.union_name(id);
            let upper = name.to_uppercase();
            c.line(&format!(
                "/* union {}: tag {upper}_NONE (0, no value) or a variant's tag, and a pointer",
                u.name,
            ));
            c.line(" * to that variant's value. */");
            c.line(&format!("#define {upper}_NONE 0u"));
            for v in &u.variants {
                c.line(&format!("#define {} {}u", self.n.tag(id, v.ty), v.tag));
            }
            c.open(&format!("typedef struct {name} {{"));
            c.line("uint32_t tag;");
            if u.variants.is_empty() {
                c.line("void *none;");
            } else {
                c.open("union {");
                let mut seen = BTreeSet::new();
                for v in &u.variants {
                    if seen.insert(v.ty) {
                        c.line(&format!(
                            "{} *{};",
                            self.n.struct_name(v.ty),
                            self.n.variant_member(v.ty)
                        ));
                    }
                }
                c.close("} as;");
            }
            c.close(&format!("}} {name};"));
            c.line("");
        }
        for id in self.struct_order() {
            let st = &self.s.structs[id];
            let name = self.n.struct_name(id);
            c.line(&format!(
                "/* {} {} */",
                if self.l.is_table(id) {
                    "table"
                } else {
                    "inline struct"
                },
                st.name
            ));
            c.open(&format!("struct {name} {{"));
            if self.l.of_struct(id).fields.is_empty() {
                // C has no empty structs; the member is never read.
                c.line("char km_empty_;");
            }
            for (i, f) in self.l.of_struct(id).fields.iter().enumerate() {
                let (t, suffix) = self.slot_type(&f.slot);
                let sep = if t.ends_with('*') { "" } else { " " };
                c.line(&format!("{t}{sep}{}{suffix};", self.n.field(id, i)));
            }
            c.close("};");
            let sl = self.l.of_struct(id);
            if !sl.fields.is_empty() {
                c.line(&format!(
                    "/* Byte offsets of the fields in the {} (in-place edits: km_edit_field). */",
                    if self.l.is_table(id) {
                        "table"
                    } else {
                        "struct"
                    }
                ));
            }
            for (i, f) in sl.fields.iter().enumerate() {
                c.line(&format!(
                    "#define {} {}u",
                    self.field_offset(id, i),
                    f.offset
                ));
            }
            if self.l.is_table(id) {
                let sl = self.l.of_struct(id);
                c.line("/* S and Z of format.md §10: the table's full size (every field of");
                c.line(" * this schema), which a decoder charges at least for a table it");
                c.line(" * reads, and the size of its zero value (the tables it holds");
                c.line(" * included), which it charges for an absent or malformed one. */");
                c.line(&format!("#define {} {}u", self.full_size(id), sl.size));
                c.line(&format!(
                    "#define {} {}",
                    self.zero_size(id),
                    u64_literal(sl.zero)
                ));
            }
            c.line("");
        }
        for id in 0..self.s.structs.len() {
            let name = self.n.struct_name(id);
            c.line(&format!(
                "/* A message whose root is {}: encode (the writer is reset first),",
                self.s.structs[id].name
            ));
            c.line(" * decode (objects live in the arena, text may point into the message),");
            c.line(" * validate (one pass; err, if not NULL, gets the located problem). */");
            c.line(&format!(
                "km_status {name}_encode(const {name} *value, km_writer *w);"
            ));
            c.line(&format!(
                "km_status {name}_decode({name} *out, const km_reader *r, km_arena *arena);"
            ));
            c.line(&format!(
                "km_status {name}_validate(const km_reader *r, km_error *err);"
            ));
            c.line("");
        }
        self.root_alias(&mut c);
        // The SoA column lists, read by the validators and decoders in
        // the .c file and by the viewers here.
        for id in 0..self.s.structs.len() {
            self.soa_columns(&mut c, id);
        }
        c.line("");
        self.views(&mut c);
        Gen::trusted(self.s, self.l).views(&mut c);
        c.line("#ifdef __cplusplus");
        c.line("}");
        c.line("#endif");
        c.line("");
        c.line(&format!("#endif /* {} */", self.guard()));
        c.into_text()
    }

    /// `<prefix>_root` for a schema that declares `root NAME;`, as Go's and
    /// Rust's `Root`: the type, and its encode, decode, validate and trust.
    fn root_alias(&self, c: &mut Code) {
        let Some(root) = self.s.root else { return };
        let name = self.n.struct_name(root);
        let alias = format!("{}_root", self.prefix);
        // The root is itself `root`, or another struct has the alias's name.
        if (0..self.s.structs.len()).any(|id| self.n.struct_name(id) == alias) {
            return;
        }
        c.line(&format!(
            "/* The schema's root type (`root {};`). */",
            self.s.structs[root].name
        ));
        c.line(&format!("typedef {name} {alias};"));
        for f in ["encode", "decode", "validate", "trust"] {
            c.line(&format!("#define {alias}_{f} {name}_{f}"));
        }
        c.line("");
    }

    fn source_file(&self) -> String {
        let mut c = Code::new(0);
        c.raw(&crate::header("//", self.s));
        c.line(&format!("#include \"{}.h\"", self.prefix));
        c.line("");
        // Every static function is declared first: tables, unions and
        // SoA arrays may refer to each other in any order.
        let mut decls = Code::new(0);
        let mut defs = Code::new(0);
        for id in 0..self.s.structs.len() {
            self.encode_struct(&mut decls, &mut defs, id);
            self.decode_struct(&mut decls, &mut defs, id);
            self.validate_struct(&mut decls, &mut defs, id);
        }
        let uses = self.uses();
        for &id in &uses.unions {
            self.encode_union(&mut decls, &mut defs, id);
            self.decode_union(&mut decls, &mut defs, id);
            self.validate_union(&mut decls, &mut defs, id);
        }
        for id in 0..self.s.structs.len() {
            if uses.soa.contains(&id) {
                self.encode_soa(&mut decls, &mut defs, id, None);
            }
            // Also the variants of `#bovos` arrays, read and checked as
            // SoA arrays of their own.
            if self.l.soa[id].is_some() {
                self.decode_soa(&mut decls, &mut defs, id);
                self.validate_soa(&mut decls, &mut defs, id);
            }
        }
        for &(id, soa) in &uses.bunches {
            self.encode_bunch(&mut decls, &mut defs, id, soa);
            self.decode_bunch(&mut decls, &mut defs, id, soa);
        }
        c.append(decls);
        c.line("");
        c.append(defs);
        c.into_text()
    }

    /// `km_column` tables of the SoA elements (format.md §5.3).
    fn soa_columns(&self, c: &mut Code, id: StructId) {
        let Some(soa) = &self.l.soa[id] else { return };
        let name = self.n.struct_name(id);
        c.line(&format!(
            "/* The SoA columns of {} in writing order: hash, value size, dense. */",
            self.s.structs[id].name
        ));
        // C has no empty arrays: an element without columns gets one
        // unused entry and a count of 0.
        c.open(&format!(
            "static const km_column {name}_columns[{}] = {{",
            soa.columns.len().max(1)
        ));
        if soa.columns.is_empty() {
            c.line("{0u, 0u, false},");
        }
        for col in &soa.columns {
            let dense = matches!(col.slot, Slot::Scalar(_) | Slot::Enum { .. });
            c.line(&format!("{{{:#010x}u, {}u, {dense}}},", col.hash, col.size));
        }
        c.close("};");
    }

    /// Every slot of every struct and SoA column, optional values
    /// unwrapped.
    fn all_slots(&self) -> Vec<&Slot> {
        let mut slots: Vec<&Slot> = Vec::new();
        for st in &self.l.structs {
            slots.extend(st.fields.iter().map(|f| &f.slot));
        }
        for soa in self.l.soa.iter().flatten() {
            slots.extend(soa.columns.iter().map(|c| &c.slot));
        }
        slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Optional { value, .. } => value,
                other => other,
            })
            .collect()
    }

    /// What the schema's slots use: the bunch-of-values arrays as (union,
    /// SoA?), the unions held in slots (a union slot, AoS and SoA union
    /// arrays) and the structs of SoA arrays of structs. The static
    /// functions of the others would be unused, which the strict warnings
    /// refuse.
    fn uses(&self) -> Uses {
        fn note(array: &ArrayType, data: &ArrayData, u: &mut Uses) {
            match data {
                ArrayData::UnionBunch { id, .. } => {
                    u.bunches.insert((*id, array.layout == ArrayLayout::BoVoS));
                }
                ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. } => {
                    u.unions.insert(*id);
                }
                ArrayData::Soa { elem } => {
                    u.soa.insert(*elem);
                }
                ArrayData::Arrays { array, data } => note(array, data, u),
                _ => {}
            }
        }
        let mut u = Uses::default();
        for slot in self.all_slots() {
            match slot {
                Slot::ArrayRef { array, data } => note(array, data, &mut u),
                Slot::Union { id, .. } => {
                    u.unions.insert(*id);
                }
                _ => {}
            }
        }
        u
    }

    /// The C place of SoA leaf `k` of element `base` (`e->data.username`).
    pub fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
        }
        place
    }

    /// A declared default as a C expression of the slot's object type.
    pub fn default_expr(&self, slot: &Slot, d: &DefaultValue) -> String {
        match (slot, d) {
            (Slot::Scalar(Primitive::F32), DefaultValue::Float(v)) => {
                format!("{:?}f", *v as f32)
            }
            (_, DefaultValue::Float(v)) => format!("{v:?}"),
            (_, DefaultValue::Int(v)) => int_literal(*v),
            (_, DefaultValue::Bool(b)) => b.to_string(),
            (Slot::Enum { id, .. }, DefaultValue::Enum { variant, .. }) => {
                self.n.value(*id, *variant)
            }
            (_, DefaultValue::Enum { value, .. }) => int_literal(*value),
            (_, DefaultValue::Text(t)) => c_string(t),
        }
    }
}

/// Where a slot is, in C: a table field through the `km_table t` of the
/// function reading it, an inline struct's field from its position `at`,
/// an SoA column of element `i` from the column's start `cols[k]` (there
/// when the directory lists it).
impl SlotPrinter for Gen<'_> {
    type Code = Code;

    fn layout(&self) -> &Layout {
        self.l
    }

    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (
                add("t.offset", *off),
                Some(format!("km_has(t, {off}u, {size}u)")),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    fn inline_pos(&self, off: u32) -> String {
        add("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            plus(&format!("cols[{k}]"), "i", stride),
            format!("cols[{k}] != 0"),
        )
    }
}

#[derive(Default)]
struct Uses {
    bunches: BTreeSet<(UnionId, bool)>,
    unions: BTreeSet<UnionId>,
    soa: BTreeSet<StructId>,
}

/// An integer constant valid for every C integer type it is assigned to.
pub(crate) fn int_literal(v: i128) -> String {
    if v == i64::MIN as i128 {
        format!("(-{}ll - 1)", i64::MAX)
    } else if v > i64::MAX as i128 {
        format!("{v}ull")
    } else if v > u32::MAX as i128 || v < i32::MIN as i128 {
        format!("{v}ll")
    } else {
        v.to_string()
    }
}

/// A `uint64_t` constant: `UINT64_C(n)`.
pub(crate) fn u64_literal(n: u64) -> String {
    format!("UINT64_C({n})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(source: &str) -> Vec<GeneratedFile> {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        CBackend.generate(&schema, &layout).unwrap()
    }

    #[test]
    fn prefix_from_attribute_or_package() {
        let files = generate("karmem Game;\nstruct A table { X u8; }\n");
        assert_eq!(files[0].path, "game.h");
        assert_eq!(files[1].path, "game.c");
        let files = generate("karmem app @c.prefix(`my_app`);\nstruct A table { X u8; }\n");
        assert_eq!(files[0].path, "my_app.h");
        assert!(files[0]
            .contents
            .contains("typedef struct my_app_a my_app_a;"));
    }

    #[test]
    fn names_are_snake_case_and_constants_screaming() {
        let files = generate(
            "karmem app;\nenum SocialNetwork u8 { Unknown; TikTok; }\n\
             struct ProfileData table { Network SocialNetwork; ID u64; }\n",
        );
        let h = &files[0].contents;
        assert!(h.contains("typedef uint8_t app_social_network;"), "{h}");
        assert!(h.contains("#define APP_SOCIAL_NETWORK_TIK_TOK ((app_social_network)1)"));
        assert!(h.contains("app_social_network network;"));
        assert!(h.contains("uint64_t id;"));
        assert!(h.contains("km_status app_profile_data_encode("));
    }

    /// A value's name (issue #34: C had no enum-to-name function), and the
    /// root type's alias, as Go's and Rust's `Root`.
    #[test]
    fn enum_names_and_the_root_alias() {
        let files = generate(
            "karmem app;\nroot ProfileData;\nenum SocialNetwork u8 { Unknown; TikTok = 4; }\n\
             struct ProfileData table { Network SocialNetwork; }\n",
        );
        let h = &files[0].contents;
        assert!(
            h.contains(
                "static inline const char *app_social_network_name(app_social_network value) {"
            ),
            "{h}"
        );
        assert!(
            h.contains("case APP_SOCIAL_NETWORK_TIK_TOK: return \"TikTok\";"),
            "{h}"
        );
        assert!(h.contains("typedef app_profile_data app_root;"), "{h}");
        assert!(
            h.contains("#define app_root_validate app_profile_data_validate"),
            "{h}"
        );
        // A root type already called `Root` needs no alias.
        let files = generate("karmem app;\nroot Root;\nstruct Root table { X u8; }\n");
        assert!(!files[0].contents.contains("typedef app_root app_root"));
    }

    #[test]
    fn viewers_are_in_the_header_and_avoid_their_own_names() {
        let files = generate(
            "karmem app;\nstruct P inline { Root f32; At i32; }\n\
             struct A table { Email []char; Ps []P; Root i32; }\n",
        );
        let h = &files[0].contents;
        assert!(h.contains("static inline app_a_view app_a_view_root(const km_reader *r)"));
        assert!(h.contains("static inline km_text app_a_view_email(app_a_view v)"));
        assert!(h.contains("static inline app_p_soa app_a_view_ps(app_a_view v)"));
        // A field named like a viewer function moves aside.
        assert!(h.contains("static inline int32_t app_a_view_root_(app_a_view v)"));
        assert!(h.contains("static inline int32_t app_p_view_at_(app_p_view v)"));
        assert!(!files[1].contents.contains("app_a_view"));
    }

    /// The trusted viewers (issue #19 gap 4): the same accessors over a
    /// `km_trusted`, reached only through `_trust`, which validates first.
    #[test]
    fn trusted_viewers_come_only_from_trust() {
        let files = generate(
            "karmem app;\nroot A;\nstruct P inline { X f32; }\n\
             struct A table { Email []char; Ps []P; Ns [][]u8; }\n",
        );
        let h = &files[0].contents;
        assert!(h.contains(
            "static inline km_status app_a_trust(const km_reader *r, km_error *err, app_a_tview *out) {\n    km_status s = app_a_validate(r, err);"
        ), "{h}");
        assert!(h.contains("typedef struct { km_trusted r; km_table t; } app_a_tview;"));
        assert!(h.contains("static inline km_text app_a_tview_email(app_a_tview v)"));
        assert!(h.contains("return km_trusted_text(v.r, km_trusted_view_array(v.r, at));"));
        assert!(h.contains("static inline app_p_tsoa app_a_tview_ps(app_a_tview v)"));
        assert!(h.contains("static inline app_u8_tarrays app_a_tview_ns(app_a_tview v)"));
        assert!(h.contains("#define app_root_trust app_a_trust"));
        // No way to a trusted view of an unvalidated message.
        assert!(!h.contains("app_a_tview_root"));
        assert!(!h.contains("km_trust(r);"));
        // In-place setters (over a km_editor) only on the checked views,
        // and none for text.
        assert!(h.contains("#define APP_A_EMAIL_OFFSET 4u"), "{h}");
        assert!(!h.contains("app_a_tview_set_") && !h.contains("app_a_view_edit_email"));
    }

    #[test]
    fn deterministic() {
        let src = "karmem e;\nstruct A table { X []u8; }\n";
        assert_eq!(generate(src), generate(src));
    }
}

//! Zig backend: generates, per schema, one Zig file (`@zig.name("...")`,
//! else the schema name) that imports the runtime package `karmem` (`zig/`,
//! docs/zig.md) and declares
//!
//! * enums as non-exhaustive `enum(uN) { ..., _ }` (a value unknown to the
//!   schema version is kept, format.md §2);
//! * one Zig struct per schema struct with `encode` (a whole message with
//!   that root, byte for byte what the other libraries write, format.md §8),
//!   `decode` (lenient, the traversal budget and depth enforced as by the Go
//!   decoders, format.md §10) and `validate` (one pass, format.md §11);
//! * unions as `union(enum)` behind `?` (null is "no value");
//! * zero-copy viewers (`zig/views.rs`): per struct and union a generic
//!   `TViewOf(R)` and its instances `TView` (over the checked
//!   `karmem.Reader`) and `TrustedTView` (over `karmem.Trusted`, after
//!   validation).
//!
//! Decoding allocates every slice from the allocator it is given (callers
//! pass an arena: a decoded value is freed as a whole); encoding allocates
//! nothing but the writer's storage. The text is `zig fmt`-clean by
//! construction (4-space indentation, spaced operators, trailing commas in
//! multi-line lists), and no local is left unused, which Zig refuses.

mod code;
mod decode;
mod edit;
mod encode;
mod validate;
mod views;

pub use edit::{column_name, offset_name, setter_names};
pub use views::{accessor_name, variant_accessor_name};

use std::cell::Cell;

use karmem_layout::{Layout, Slot};
use karmem_schema::model::*;

use crate::names::{self, snake, Namer};
use crate::{Backend, Error, GeneratedFile};
use code::Code;

/// The Zig generator.
#[derive(Clone, Debug, Default)]
pub struct ZigBackend;

impl Backend for ZigBackend {
    fn name(&self) -> &'static str {
        "zig"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut g = Gen::new(schema, layout);
        g.file();
        Ok(vec![GeneratedFile {
            path: format!("{}.zig", file_name(schema)),
            contents: g.c.into_text(),
        }])
    }
}

/// The file's name without `.zig`: `@zig.name("...")`, else the schema
/// name, as a Zig identifier (so that `@import` and a module name agree).
pub fn file_name(schema: &Schema) -> String {
    let raw = schema.attribute("zig.name").unwrap_or(&schema.package);
    let mut name: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'k');
    }
    name
}

/// `name` as a Zig declaration name: `@"name"` for keywords and primitive
/// names (`u8`, `i7`, `type`), as the Namer's Zig types rule escapes them.
pub fn ident(name: &str) -> String {
    names::ZIG.types.escape(name.to_string(), &[])
}

/// A Zig type name for a schema name: TitleCase (`monster_data` →
/// `MonsterData`, `Vec3` stays).
pub fn type_name(name: &str) -> String {
    names::ZIG.types.apply(name)
}

/// Whether variant `ty` of union `u` is held through a pointer
/// (`*const T`): when its struct holds the union again by value (fields,
/// inline structs, unions, optional values), the Zig type would be
/// infinite.
pub fn variant_is_pointer(s: &Schema, u: UnionId, ty: StructId) -> bool {
    // Depth first with a vector, each struct once: a chain through unions
    // is not bounded by the schema's nesting limit (idl.md §7), and a
    // struct reached twice is not walked twice.
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![ty];
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for f in &s.structs[id].fields {
            let table = |c: StructId| s.structs[c].kind == StructKind::Table;
            if f.optional && matches!(f.ty, FieldType::Struct(c) if table(c)) {
                continue;
            }
            match &f.ty {
                FieldType::Union(x) if *x == u => return true,
                FieldType::Union(x) => todo.extend(s.unions[*x].variants.iter().map(|v| v.ty)),
                _ => todo.extend(f.held_struct()),
            }
        }
    }
    false
}

/// The Zig name of a field (`ID` → `id`; a declaration every generated
/// struct has moves aside, `encode_`), for code outside the generator that
/// names generated fields (the Zig vector runner).
pub fn field_name(name: &str) -> String {
    names::ZIG.fields.apply(name)
}

/// The Zig name of an enum value or a union variant: snake_case.
pub fn variant_name(name: &str) -> String {
    names::ZIG.values.apply(name)
}

/// The Zig type of a scalar.
pub fn prim(p: Primitive) -> &'static str {
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

/// `x + k` (`x` when k is 0).
pub(crate) fn plus(x: &str, k: u32) -> String {
    if k == 0 {
        x.to_string()
    } else {
        format!("{x} + {k}")
    }
}

/// `base + idx(i) * k` (the position of element `i` of `k`-byte elements).
pub(crate) fn elem_at(base: &str, i: &str, k: u32) -> String {
    if k == 1 {
        format!("{base} + idx({i})")
    } else {
        format!("{base} + idx({i}) * {k}")
    }
}

/// `@as(u64, n) * k`: a budget charge for `n` elements of `k` units.
pub(crate) fn times64(n: &str, k: u32) -> String {
    if k == 1 {
        format!("@as(u64, {n})")
    } else {
        format!("@as(u64, {n}) * {k}")
    }
}

/// The limit argument of an array check.
pub(crate) fn limit_arg(limit: Option<u32>) -> String {
    limit.map_or("karmem.no_limit".into(), |n| n.to_string())
}

pub(crate) struct Gen<'a> {
    pub s: &'a Schema,
    pub l: &'a Layout,
    /// Names of the schema's types, fields and values (`names::ZIG`).
    pub n: Namer<'a>,
    pub c: Code,
    /// Numbers fresh local names: Zig refuses a local shadowing another.
    counter: Cell<u32>,
}

impl<'a> Gen<'a> {
    fn new(s: &'a Schema, l: &'a Layout) -> Self {
        Gen {
            s,
            l,
            n: Namer::new(&names::ZIG, s),
            c: Code::new(0),
            counter: Cell::new(0),
        }
    }

    /// A local name not used before in this file (`base_3`; `i3` would be a
    /// primitive type).
    pub fn fresh(&self, base: &str) -> String {
        let n = self.counter.get();
        self.counter.set(n + 1);
        format!("{base}_{n}")
    }

    /// Whether variant `ty` of union `u` is held through a pointer: when
    /// its struct holds the union again by value (fields, inline structs,
    /// unions, optional values), the Zig type would be infinite.
    pub fn variant_is_pointer(&self, u: UnionId, ty: StructId) -> bool {
        variant_is_pointer(self.s, u, ty)
    }

    // ---- Zig types of object fields -------------------------------------------

    pub fn elem_type(&self, e: ElemType) -> String {
        match e {
            ElemType::Scalar(p) => prim(p).to_string(),
            ElemType::Enum(id) => self.n.enum_name(id),
            ElemType::Struct(id) => self.n.struct_name(id),
            ElemType::Union(id) => format!("?{}", self.n.union_name(id)),
            ElemType::Array(id) => self.obj_type(&FieldType::Array(self.s.arrays[id])),
        }
    }

    pub fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => prim(*p).to_string(),
            FieldType::Enum(id) => self.n.enum_name(*id),
            FieldType::Struct(id) => self.n.struct_name(*id),
            FieldType::Union(id) => format!("?{}", self.n.union_name(*id)),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(n), _) => format!("[{n}]{}", self.fixed_elem(a.elem)),
                (_, Some(_)) => "[]const u8".into(),
                _ => format!("[]const {}", self.elem_type(a.elem)),
            },
        }
    }

    /// Fixed arrays of `char` are bytes.
    fn fixed_elem(&self, e: ElemType) -> String {
        self.elem_type(e)
    }

    /// The type of a struct field: `?T` for an optional value, `?*const T`
    /// for an optional table (a table may hold itself that way, a list).
    pub fn field_type(&self, f: &Field) -> String {
        let t = self.obj_type(&f.ty);
        if !f.optional {
            return t;
        }
        match &f.ty {
            FieldType::Struct(c) if self.l.is_table(*c) => format!("?*const {t}"),
            _ => format!("?{t}"),
        }
    }

    /// The zero value of a field type, as a field default.
    pub fn zero_of(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(Primitive::Bool) => "false".into(),
            FieldType::Scalar(_) => "0".into(),
            FieldType::Enum(_) => "@fromBackingInt(0)".into(),
            FieldType::Struct(_) => ".{}".into(),
            FieldType::Union(_) => "null".into(),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(_), _) => {
                    let e = match a.elem {
                        ElemType::Scalar(Primitive::Bool) => "false",
                        ElemType::Scalar(_) => "0",
                        ElemType::Enum(_) => "@fromBackingInt(0)",
                        _ => ".{}",
                    };
                    format!("@splat({e})")
                }
                (_, Some(_)) => "\"\"".into(),
                _ => "&.{}".into(),
            },
        }
    }

    /// The zero value of what `slot` holds (a local to decode into).
    pub fn slot_zero(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(Primitive::Bool) => "false".into(),
            Slot::Scalar(_) => "0".into(),
            Slot::Enum { .. } => "@fromBackingInt(0)".into(),
            Slot::InlineStruct(_) | Slot::TableRef(_) => ".{}".into(),
            Slot::OptionalTable(_) | Slot::Optional { .. } | Slot::Union { .. } => "null".into(),
            Slot::FixedArray { .. } => "@splat(.{})".into(),
            Slot::ArrayRef { array, .. } if array.text.is_some() => "\"\"".into(),
            Slot::ArrayRef { .. } => "&.{}".into(),
        }
    }

    /// The Zig type of what `slot` holds.
    pub fn slot_type(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(p) => prim(*p).into(),
            Slot::Enum { id, .. } => self.n.enum_name(*id),
            Slot::InlineStruct(id) | Slot::TableRef(id) => self.n.struct_name(*id),
            Slot::OptionalTable(id) => format!("?*const {}", self.n.struct_name(*id)),
            Slot::Union { id, .. } => format!("?{}", self.n.union_name(*id)),
            Slot::ArrayRef { array, .. } => self.obj_type(&FieldType::Array(*array)),
            Slot::Optional { value, .. } => format!("?{}", self.slot_type(value)),
            Slot::FixedArray { .. } => unreachable!("fixed arrays are read in place"),
        }
    }

    /// A declared default (docs/idl.md §4.3.1) as a Zig value of the
    /// field's type.
    pub fn default_expr(&self, slot: &Slot, d: &DefaultValue) -> String {
        if let Some(literal) = crate::scalar_default(slot, d) {
            return literal;
        }
        match (slot, d) {
            (Slot::Enum { id, .. }, DefaultValue::Enum { variant, .. }) => {
                format!(
                    ".{}",
                    variant_name(&self.s.enums[*id].variants[*variant].name)
                )
            }
            (_, DefaultValue::Enum { value, .. }) => format!("@fromBackingInt({value})"),
            (_, DefaultValue::Text(t)) => crate::names::quote(t),
            _ => unreachable!("numbers and booleans are crate::scalar_default's"),
        }
    }

    // ---- the file ---------------------------------------------------------------

    fn file(&mut self) {
        let header = crate::header("//", self.s);
        self.c.raw(&header);
        self.c.line("");
        self.c.line("const std = @import(\"std\");");
        self.c.line("const karmem = @import(\"karmem\");");
        self.c.line("");
        self.c
            .line("/// What decoding can fail with: the traversal budget or the depth limit");
        self.c
            .line("/// (docs/format.md §10), or the allocator decoded values come from.");
        self.c
            .line("pub const DecodeError = karmem.ValidateError || std.mem.Allocator.Error;");
        self.c.line("");
        self.c
            .line("/// What validating can fail with: the kinds of docs/format.md §11, and");
        self.c
            .line("/// `Truncated` for an inline root longer than the message (§1).");
        self.c
            .line("pub const ValidateError = karmem.ValidateError || error{Truncated};");
        self.c.line("");
        self.c
            .line("/// An element index as a message position (indices are below 2^32:");
        self.c.line("/// lengths are `u32`, docs/format.md §5).");
        self.c.open("fn idx(i: usize) u32 {");
        self.c.line("return @intCast(i);");
        self.c.close("}");
        for item in self.s.order.clone() {
            match item {
                Item::Enum(id) => self.enum_item(id),
                Item::Struct(id) => self.struct_item(id),
                Item::Union(id) => self.union_item(id),
                Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.soa_items(id);
            }
        }
        self.views();
        if let Some(root) = self.s.root {
            let name = self.n.struct_name(root);
            if name != "Root" {
                self.c.line("");
                self.c.line(&format!(
                    "/// The schema's root type (`root {};`).",
                    self.s.structs[root].name
                ));
                self.c.line(&format!("pub const Root = {name};"));
            }
        }
    }

    fn doc(&mut self, doc: &[String]) {
        for l in doc {
            let text = format!("/// {l}");
            self.c.line(text.trim_end());
        }
    }

    fn enum_item(&mut self, id: EnumId) {
        let e = self.s.enums[id].clone();
        let name = self.n.enum_name(id);
        self.c.line("");
        self.doc(&e.doc);
        self.c.line(&format!(
            "/// The enum `{}` ({}). Values unknown to this schema version are kept",
            e.name,
            e.repr.name()
        ));
        self.c
            .line("/// (the enum is non-exhaustive, docs/format.md §2).");
        self.c
            .open(&format!("pub const {name} = enum({}) {{", prim(e.repr)));
        for v in &e.variants {
            self.doc(&v.doc);
            self.c
                .line(&format!("{} = {},", variant_name(&v.name), v.value));
        }
        self.c.line("_,");
        self.c.close("};");
    }

    fn struct_item(&mut self, id: StructId) {
        let st = self.s.structs[id].clone();
        let name = self.n.struct_name(id);
        self.c.line("");
        self.doc(&st.doc);
        let kind = if self.l.is_table(id) {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.c.line(&format!("/// The {kind} `{}`.", st.name));
        self.c.open(&format!("pub const {name} = struct {{"));
        let sl = self.l.of_struct(id).clone();
        for (i, f) in st.fields.iter().enumerate() {
            self.doc(&f.doc);
            let default = if f.optional {
                "null".to_string()
            } else {
                match f.nonzero_default() {
                    Some(d) => self.default_expr(&sl.fields[i].slot, d),
                    None => self.zero_of(&f.ty),
                }
            };
            let line = format!(
                "{}: {} = {default},",
                self.n.field(id, i),
                self.field_type(f)
            );
            self.c.line(&line);
        }
        // The viewer from the type, for generic code over `T` such as the
        // guest library's `Arg(T).view()` (`views.rs` prints `XViewOf`);
        // after the fields, a blank line (zig fmt allows none after `{`).
        if !st.fields.is_empty() {
            self.c.line("");
        }
        self.c.line(&format!(
            "/// The viewers of a message whose root is a `{name}` (`{name}ViewOf`)."
        ));
        self.c.line(&format!("pub const ViewOf = {name}ViewOf;"));
        self.encode_functions(id);
        self.decode_functions(id);
        self.validate_functions(id);
        self.c.close("};");
    }

    fn union_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        self.c.line("");
        self.doc(&u.doc);
        self.c.line(&format!(
            "/// A value of the union `{}`; fields hold `?{name}` (null: no value, or a",
            u.name
        ));
        self.c.line("/// tag this schema version does not know).");
        self.c.open(&format!("pub const {name} = union(enum) {{"));
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            let star = if self.variant_is_pointer(id, v.ty) {
                "*const "
            } else {
                ""
            };
            self.c.line(&format!(
                "{}: {star}{ty},",
                variant_name(&self.s.structs[v.ty].name)
            ));
        }
        self.c.close("};");
        self.union_writer(id);
        self.union_reader(id);
        self.union_validator(id);
    }

    fn soa_items(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        self.c.line("");
        self.c.line(&format!(
            "/// Hash and size of each SoA column of {name}, in writing order (docs/format.md §5.3)."
        ));
        if soa.columns.is_empty() {
            self.c.line(&format!(
                "const soa_columns_{} = [_]karmem.Column{{}};",
                snake(&name)
            ));
        } else {
            self.c.open(&format!(
                "const soa_columns_{} = [_]karmem.Column{{",
                snake(&name)
            ));
            for col in &soa.columns {
                let dense = matches!(col.slot, Slot::Scalar(_) | Slot::Enum { .. });
                self.c.line(&format!(
                    ".{{ .hash = {:#010x}, .size = {}, .dense = {dense} }},",
                    col.hash, col.size
                ));
            }
            self.c.close("};");
        }
        self.soa_writer(id, None);
        self.soa_reader(id, None);
        self.soa_validator(id);
    }

    /// The name of the SoA column list constant of `id`.
    pub fn soa_columns(&self, id: StructId) -> String {
        format!("soa_columns_{}", snake(&self.n.struct_name(id)))
    }

    /// The Zig place of leaf `k` of SoA element `base` (`e.data.username`).
    pub fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
        }
        place
    }

    /// Emits a function: its signature, then those of the parameters
    /// `params` it declares that the body does not use discarded (Zig
    /// refuses unused parameters), then the body. What the body uses is
    /// what the code writing it recorded ([`Lines::local`],
    /// [`Code::place_of`]), not what its text mentions.
    ///
    /// [`Lines::local`]: crate::emit::Lines::local
    pub fn function(&mut self, signature: &str, params: &[&str], body: Code) {
        self.c.line("");
        self.c.open(signature);
        for p in params {
            let declared =
                signature.contains(&format!("({p}: ")) || signature.contains(&format!(" {p}: "));
            if declared && !body.uses(p) {
                self.c.line(&format!("_ = {p};"));
            }
        }
        self.c.raw(&body.into_text());
        self.c.close("}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(names::ZIG.fields.apply("ID"), "id");
        assert_eq!(names::ZIG.fields.apply("Username"), "username");
        assert_eq!(names::ZIG.fields.apply("type"), "type");
        assert_eq!(names::ZIG.fields.apply("fn"), "@\"fn\"");
        assert_eq!(names::ZIG.fields.apply("u8"), "u8");
        assert_eq!(type_name("u8"), "U8");
        assert_eq!(ident("u8"), "@\"u8\"");
        assert_eq!(ident("i7"), "@\"i7\"");
        assert_eq!(names::ZIG.fields.apply("encode"), "encode_");
        assert_eq!(type_name("monster_data"), "MonsterData");
        assert_eq!(variant_name("TikTok"), "tik_tok");
    }

    fn generate(source: &str) -> GeneratedFile {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let mut files = ZigBackend.generate(&schema, &layout).unwrap();
        assert_eq!(files.len(), 1);
        files.remove(0)
    }

    #[test]
    fn file_named_by_attribute_or_schema_and_deterministic() {
        let src = "karmem app @zig.name(`km_app`);\nstruct A table { X u8; }\n";
        let f = generate(src);
        assert_eq!(f.path, "km_app.zig");
        assert!(f.contents.contains("const karmem = @import(\"karmem\");"));
        assert_eq!(f.contents, generate(src).contents);
        assert_eq!(
            generate("karmem game;\nstruct A inline { X u8; }\n").path,
            "game.zig"
        );
    }

    #[test]
    fn parameters_the_body_does_not_use_are_discarded() {
        let f = generate("karmem p;\nstruct P inline { X f32; }\nstruct T table { Y P; }\n");
        let fn_at = |name: &str| f.contents.split(name).nth(1).unwrap().to_string();
        let validate_at = fn_at("fn validateAt(");
        assert!(
            validate_at.contains("{\n        _ = v;\n        _ = at;\n    }"),
            "{validate_at}"
        );
        let read_at = fn_at("fn readAt(");
        assert!(
            read_at.contains("{\n        _ = gpa;\n        const r = v.r;"),
            "{read_at}"
        );
        // `Y` is read through `v`, `t` and `gpa`: nothing is discarded.
        let read_table = fn_at("fn readTable(");
        assert!(
            read_table.contains("{\n        if (t.isAbsent())"),
            "{read_table}"
        );
    }

    #[test]
    fn viewers_checked_and_trusted_with_accessors_that_cannot_clash() {
        let f = generate("karmem v;\nstruct T table { Reader u32; U8 u8; X f32; Next ?T; }\n");
        let c = &f.contents;
        assert!(c.contains("pub fn TViewOf(comptime R: type) type {"), "{c}");
        assert!(
            c.contains("pub const TView = TViewOf(karmem.Reader);"),
            "{c}"
        );
        assert!(
            c.contains("pub const TrustedTView = TViewOf(karmem.Trusted);"),
            "{c}"
        );
        // `reader` is a viewer's field, `u8` a primitive; `x` is free.
        assert!(c.contains("pub fn reader_(self: Self) u32 {"), "{c}");
        assert!(c.contains("pub fn @\"u8\"(self: Self) u8 {"), "{c}");
        assert!(c.contains("pub fn x(self: Self) f32 {"), "{c}");
        assert!(c.contains("pub fn next(self: Self) ?TViewOf(R) {"), "{c}");
        assert_eq!(accessor_name("Reader"), "reader_");
        assert_eq!(accessor_name("HitPoints"), "hit_points");
        assert_eq!(variant_accessor_name("Tag"), "tag_");
    }

    #[test]
    fn recursion_through_unions_and_optional_tables_uses_pointers() {
        let f = generate(
            "karmem r;\nunion U u8 { Node; }\nstruct Node table { Child U; Next ?Node; Kids []Node; }\n",
        );
        assert!(f.contents.contains("node: *const Node,"), "{}", f.contents);
        assert!(
            f.contents.contains("next: ?*const Node = null,"),
            "{}",
            f.contents
        );
        assert!(
            f.contents.contains("kids: []const Node = &.{},"),
            "{}",
            f.contents
        );
    }
}

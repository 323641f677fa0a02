//! AssemblyScript backend (`--lang as`, docs/assemblyscript.md): one
//! `<name>.ts` per schema that imports the library `karmem-as/assembly` (`as/`) and
//! declares, straight-line per type as the Zig backend does,
//!
//! * enums as AssemblyScript `enum`s (i32; a `u32` value past 2^31 is kept
//!   as its bit pattern), 64-bit enums as an abstract class of `u64`/`i64`
//!   constants with fields of that integer type;
//! * one class per struct with camelCase fields at their defaults, the
//!   static `decode` (validates, then fills an object), `read` (lenient,
//!   with the traversal budget and depth of format.md §10), `validate`,
//!   `validateWith` and the method `encode` (a whole message);
//! * one class per union (`tag` and one nullable field per variant), held
//!   as `U | null` (null: no value, or a tag this schema does not know).
//!
//! Generated functions return a `KarmemError` (AssemblyScript has no
//! exceptions); internal members start with `_km` so no field name can
//! clash with them.

mod decode;
mod edit;
mod encode;
mod validate;
mod views;

use std::cell::Cell;

use karmem_layout::{Layout, Slot};
use karmem_schema::model::*;

use crate::emit::{deref_lines, Lines};
use crate::names::{self, Namer};
use crate::walk::Ctx;
use crate::{Backend, Error, GeneratedFile};

/// The module specifier generated files import the library by
/// (as/README.md: a package name asc resolves through `node_modules` or
/// `--path`).
pub const LIBRARY: &str = "karmem-as/assembly";

/// The AssemblyScript generator.
#[derive(Clone, Debug, Default)]
pub struct AssemblyScriptBackend;

impl Backend for AssemblyScriptBackend {
    fn name(&self) -> &'static str {
        "as"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut g = Gen::new(schema, layout);
        g.file();
        Ok(vec![GeneratedFile {
            path: format!("{}.ts", file_name(schema)),
            contents: g.c.into_text(),
        }])
    }
}

/// The file's name without `.ts`: the schema's name (`karmem app;` →
/// `app`). The first Karmem's `@assemblyscript.import(...)` named where its
/// own library was and has no effect here (docs/assemblyscript.md).
pub fn file_name(schema: &Schema) -> String {
    let name: String = schema
        .package
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() {
        "karmem".into()
    } else {
        name
    }
}

/// Two-space indented AssemblyScript text.
pub(crate) struct Code(Lines);

deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("  ", indent))
    }

    /// `expr` run for its error, for a statement of this buffer: returns it
    /// from the enclosing function through its local `e`, whose use the
    /// buffer records ([`Lines::local`]) so the function declares it.
    pub fn tr(&self, expr: &str) -> String {
        let e = self.local("e");
        format!("if (({e} = {expr}) != KarmemError.None) return {e};")
    }

    /// [`Code::tr`] as a line of its own.
    pub fn try_line(&mut self, expr: &str) {
        let stmt = self.tr(expr);
        self.line(&stmt);
    }
}

/// A class or enum name: TitleCase (`monster_data` → `MonsterData`), as
/// the TypeScript backend names it (reserved words get a `K` prefix).
pub fn type_name(name: &str) -> String {
    names::ASSEMBLYSCRIPT.types.apply(name)
}

/// A field name: camelCase (`ID` → `id`, `MonsterData` → `monsterData`),
/// as the TypeScript backend names a property; a member every generated
/// class has, a reserved word or `_km…` gets a `_` suffix.
pub fn field_name(name: &str) -> String {
    names::ASSEMBLYSCRIPT.fields.apply(name)
}

/// The name of an enum value: as declared (an enum member, never a field).
pub fn variant_name(name: &str) -> String {
    name.to_string()
}

/// The AssemblyScript type of a scalar.
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

/// Whether an enum of this width is an AssemblyScript `enum` (i32); 64-bit
/// enums are classes of constants over `u64`/`i64`.
pub fn enum_is_native(repr: Primitive) -> bool {
    !matches!(repr, Primitive::U64 | Primitive::I64)
}

/// `x + k` (`x` when k is 0).
pub(crate) fn plus(x: &str, k: u32) -> String {
    if k == 0 {
        x.to_string()
    } else {
        format!("{x} + {k}")
    }
}

/// `base + i * k`: the position of element `i` of `k`-byte elements.
pub(crate) fn elem_at(base: &str, i: &str, k: u32) -> String {
    let i = if i.contains(' ') {
        format!("({i})")
    } else {
        i.to_string()
    };
    if k == 1 {
        format!("{base} + {i}")
    } else {
        format!("{base} + {i} * {k}")
    }
}

/// The limit argument of an array check.
pub(crate) fn limit_arg(limit: Option<u32>) -> String {
    limit.map_or("NO_LIMIT".into(), |n| n.to_string())
}

/// A JavaScript string literal.
pub(crate) fn quote(text: &str) -> String {
    crate::names::quote(text)
}

/// `stmt` when `present` holds (always when it is `None`); when it does
/// not and the slot's zero value holds `held` units of tables (format.md
/// §10), those are charged instead.
pub(crate) fn when_present(c: &mut Code, present: Option<&str>, stmt: &str, held: u64) {
    match present {
        Some(cond) if held > 0 => {
            c.open(&format!("if ({cond}) {{"));
            c.line(stmt);
            c.reopen("} else {");
            c.try_line(&format!("v.charge({held})"));
            c.close("}");
        }
        Some(cond) => c.line(&format!("if ({cond}) {stmt}")),
        None => c.line(stmt),
    }
}

/// A slot's position and presence condition, for a slot of `size` bytes at
/// `ctx`: a table field is at `to + off`, present when it ends within the
/// table's used size `tu`.
pub(crate) fn place(ctx: &Ctx, size: u32) -> (String, Option<String>) {
    match ctx {
        Ctx::Table { off } => (plus("to", *off), Some(format!("tu >= {}", *off + size))),
        Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
    }
}

pub(crate) struct Gen<'a> {
    pub s: &'a Schema,
    pub l: &'a Layout,
    /// Names of the schema's types, fields and values
    /// (`names::ASSEMBLYSCRIPT`).
    pub n: Namer<'a>,
    pub c: Code,
    counter: Cell<u32>,
}

impl<'a> Gen<'a> {
    fn new(s: &'a Schema, l: &'a Layout) -> Self {
        Gen {
            s,
            l,
            n: Namer::new(&names::ASSEMBLYSCRIPT, s),
            c: Code::new(0),
            counter: Cell::new(0),
        }
    }

    /// A local name not used before in this file.
    pub fn fresh(&self, base: &str) -> String {
        let n = self.counter.get();
        self.counter.set(n + 1);
        format!("{base}{n}")
    }

    // ---- types ------------------------------------------------------------------

    /// The type of an enum's values: the enum, or its integer when 64-bit.
    pub fn enum_type(&self, id: EnumId) -> String {
        let e = &self.s.enums[id];
        if enum_is_native(e.repr) {
            self.n.enum_name(id)
        } else {
            prim(e.repr).to_string()
        }
    }

    /// An enum value from its wire integer expression `raw` (of the repr type).
    pub fn enum_from(&self, id: EnumId, raw: &str) -> String {
        if enum_is_native(self.s.enums[id].repr) {
            format!("<{}>{raw}", self.n.enum_name(id))
        } else {
            raw.to_string()
        }
    }

    pub fn elem_type(&self, e: ElemType) -> String {
        match e {
            ElemType::Scalar(p) => prim(p).to_string(),
            ElemType::Enum(id) => self.enum_type(id),
            ElemType::Struct(id) => self.n.struct_name(id),
            ElemType::Union(id) => format!("{} | null", self.n.union_name(id)),
            ElemType::Array(id) => self.obj_type(&FieldType::Array(self.s.arrays[id])),
        }
    }

    pub fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => prim(*p).to_string(),
            FieldType::Enum(id) => self.enum_type(*id),
            FieldType::Struct(id) => self.n.struct_name(*id),
            FieldType::Union(id) => format!("{} | null", self.n.union_name(*id)),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(_), _) => format!("StaticArray<{}>", self.elem_type(a.elem)),
                (_, Some(_)) => "string".into(),
                _ => format!("Array<{}>", self.elem_type(a.elem)),
            },
        }
    }

    /// Whether values of `ty` are numbers (an optional one is boxed).
    pub fn is_value_type(ty: &FieldType) -> bool {
        matches!(ty, FieldType::Scalar(_) | FieldType::Enum(_))
    }

    /// The type of a struct field: `Box<T> | null` for an optional number,
    /// `T | null` for any other optional.
    pub fn field_type(&self, f: &Field) -> String {
        let t = self.obj_type(&f.ty);
        if !f.optional {
            t
        } else if Self::is_value_type(&f.ty) {
            format!("Box<{t}> | null")
        } else {
            format!("{t} | null")
        }
    }

    /// The zero value of a field type.
    pub fn zero_of(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(Primitive::Bool) => "false".into(),
            FieldType::Scalar(_) => "0".into(),
            FieldType::Enum(id) => self.enum_from(*id, "0"),
            FieldType::Struct(id) => format!("new {}()", self.n.struct_name(*id)),
            FieldType::Union(_) => "null".into(),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(n), _) => match a.elem {
                    ElemType::Struct(id) => format!("_kmFixed{}({n})", self.n.struct_name(id)),
                    e => format!("new StaticArray<{}>({n})", self.elem_type(e)),
                },
                (_, Some(_)) => "\"\"".into(),
                _ => format!("new Array<{}>(0)", self.elem_type(a.elem)),
            },
        }
    }

    /// The type of what `slot` holds (a local to decode into).
    pub fn slot_type(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(p) => prim(*p).into(),
            Slot::Enum { id, .. } => self.enum_type(*id),
            Slot::InlineStruct(id) | Slot::TableRef(id) => self.n.struct_name(*id),
            Slot::ArrayRef { array, .. } => self.obj_type(&FieldType::Array(*array)),
            _ => unreachable!("optional values hold numbers, structs and arrays"),
        }
    }

    /// The zero value of what `slot` holds.
    pub fn slot_zero(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(Primitive::Bool) => "false".into(),
            Slot::Scalar(_) => "0".into(),
            Slot::Enum { id, .. } => self.enum_from(*id, "0"),
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                format!("new {}()", self.n.struct_name(*id))
            }
            Slot::ArrayRef { array, .. } => self.zero_of(&FieldType::Array(*array)),
            _ => unreachable!("optional values hold numbers, structs and arrays"),
        }
    }

    /// A declared default as an AssemblyScript value of the field's type.
    pub fn default_expr(&self, slot: &Slot, d: &DefaultValue) -> String {
        if let Some(literal) = crate::scalar_default(slot, d) {
            return literal;
        }
        match (slot, d) {
            (Slot::Enum { id, .. }, DefaultValue::Enum { variant, .. }) => format!(
                "{}.{}",
                self.n.enum_name(*id),
                variant_name(&self.s.enums[*id].variants[*variant].name)
            ),
            (_, DefaultValue::Text(t)) => quote(t),
            _ => unreachable!("numbers and booleans are crate::scalar_default's"),
        }
    }

    /// The initial value of field `i` of struct `id`.
    fn initial(&self, id: StructId, i: usize) -> String {
        let f = &self.s.structs[id].fields[i];
        if f.optional {
            return "null".into();
        }
        match f.nonzero_default() {
            Some(d) => self.default_expr(&self.l.of_struct(id).fields[i].slot, d),
            None => self.zero_of(&f.ty),
        }
    }

    /// The statement resetting field `i` of struct `id` for a decoder
    /// (docs/assemblyscript.md, "decode into an existing object"): a
    /// non-optional struct is reset in place, an array emptied (its
    /// elements are reused by the next decode), a fixed array zeroed in
    /// place; anything else takes its initial value.
    fn reset_stmt(&self, id: StructId, i: usize) -> String {
        let f = &self.s.structs[id].fields[i];
        let place = format!("this.{}", self.n.field(id, i));
        if f.optional {
            return format!("{place} = null;");
        }
        match &f.ty {
            FieldType::Struct(_) => format!("{place}._kmReset();"),
            FieldType::Array(a) => match (a.kind, a.text, a.elem) {
                (ArrayKind::Fixed(_), _, ElemType::Struct(_)) => format!(
                    "for (let i = 0; i < {place}.length; i++) unchecked({place}[i])._kmReset();"
                ),
                (ArrayKind::Fixed(_), _, e) => format!(
                    "memory.fill(changetype<usize>({place}), 0, <usize>{place}.length * sizeof<{}>());",
                    self.elem_type(e)
                ),
                (_, Some(_), _) => format!("{place} = {};", self.initial(id, i)),
                _ => format!("{place}.length = 0;"),
            },
            _ => format!("{place} = {};", self.initial(id, i)),
        }
    }

    // ---- the file ---------------------------------------------------------------

    fn file(&mut self) {
        let header = crate::header("//", self.s);
        self.c.raw(&header);
        self.c.line("");
        self.c.line("import {");
        self.c
            .line("  Box, KarmemError, NO_LIMIT, Validator, Writer, compareText, utf8Length,");
        // The library's view classes under names no schema type can take
        // (a schema may name a type `Tables`).
        self.c
            .line("  Trusted, Editor as _KmEditor, Elements as _KmElements,");
        self.c.line("  Bools as _KmBools, Inlines as _KmInlines, Nested as _KmNested, Numbers as _KmNumbers,");
        self.c.line(
            "  Soa as _KmSoa, StructView as _KmStructView, Tables as _KmTables, Texts as _KmTexts,",
        );
        self.c
            .line("  UnionColumns as _KmUnionColumns, Unions as _KmUnions,");
        self.c.line(&format!("}} from \"{LIBRARY}\";"));
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
            if self.fixed_of(id) {
                let name = self.n.struct_name(id);
                self.c.line("");
                self.c.line(&format!(
                    "/** A fixed array of `n` {name}s at their zero value. */"
                ));
                self.c.open(&format!(
                    "function _kmFixed{name}(n: i32): StaticArray<{name}> {{"
                ));
                self.c
                    .line(&format!("const a = new StaticArray<{name}>(n);"));
                self.c.line(&format!(
                    "for (let i = 0; i < n; i++) unchecked((a[i] = new {name}()));"
                ));
                self.c.line("return a;");
                self.c.close("}");
            }
        }
        self.view_items();
    }

    /// Whether some fixed array of the schema holds struct `id`.
    fn fixed_of(&self, id: StructId) -> bool {
        self.s.structs.iter().any(|st| {
            st.fields.iter().any(|f| {
                matches!(f.ty, FieldType::Array(ArrayType { kind: ArrayKind::Fixed(_), elem: ElemType::Struct(c), .. }) if c == id)
            })
        })
    }

    fn doc(&mut self, doc: &[String]) {
        if doc.is_empty() {
            return;
        }
        self.c.line("/**");
        for l in doc {
            let text = format!(" * {l}");
            self.c.line(text.trim_end());
        }
        self.c.line(" */");
    }

    /// The schema's documentation of an item, then what the generated
    /// item is (`summary`), in one comment.
    fn doc_with(&mut self, doc: &[String], summary: &str) {
        if doc.is_empty() {
            self.c.line(&format!("/** {summary} */"));
            return;
        }
        let mut all = doc.to_vec();
        all.push(String::new());
        all.push(summary.to_string());
        self.doc(&all);
    }

    fn enum_item(&mut self, id: EnumId) {
        let e = self.s.enums[id].clone();
        let name = self.n.enum_name(id);
        self.c.line("");
        if enum_is_native(e.repr) {
            let summary = format!(
                "The enum `{}` ({}); values unknown to this schema version are kept (docs/format.md §2).",
                e.name,
                e.repr.name()
            );
            self.doc_with(&e.doc, &summary);
            self.c.open(&format!("export enum {name} {{"));
            for v in &e.variants {
                self.c.line(&format!(
                    "{} = {},",
                    variant_name(&v.name),
                    enum_literal(e.repr, v.value)
                ));
            }
            self.c.close("}");
        } else {
            let summary = format!(
                "The enum `{}` ({}): fields hold a `{}`; these are its named values.",
                e.name,
                e.repr.name(),
                prim(e.repr)
            );
            self.doc_with(&e.doc, &summary);
            self.c.open(&format!("export abstract class {name} {{"));
            for v in &e.variants {
                self.c.line(&format!(
                    "static readonly {}: {} = {};",
                    variant_name(&v.name),
                    prim(e.repr),
                    enum_literal(e.repr, v.value)
                ));
            }
            self.c.close("}");
        }
    }

    fn struct_item(&mut self, id: StructId) {
        let st = self.s.structs[id].clone();
        let name = self.n.struct_name(id);
        self.c.line("");
        let kind = if self.l.is_table(id) {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.doc_with(&st.doc, &format!("The {kind} `{}`.", st.name));
        self.c.open(&format!("export class {name} {{"));
        for (i, f) in st.fields.iter().enumerate() {
            self.doc(&f.doc);
            let line = format!(
                "{}: {} = {};",
                self.n.field(id, i),
                self.field_type(f),
                self.initial(id, i)
            );
            self.c.line(&line);
        }
        self.c.line("");
        self.c.line("/**");
        self.c
            .line(" * Every field back to its initial value (decoding starts there), keeping");
        self.c
            .line(" * the storage of arrays and nested structs for the decoder to reuse.");
        self.c.line(" */");
        self.c.open("_kmReset(): void {");
        for i in 0..st.fields.len() {
            let line = self.reset_stmt(id, i);
            self.c.line(&line);
        }
        self.c.close("}");
        self.encode_functions(id);
        self.decode_functions(id);
        self.validate_functions(id);
        self.view_roots(id);
        self.c.close("}");
    }

    fn union_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        self.c.line("");
        let summary = format!(
            "A value of the union `{}`: `tag` says which variant field holds it; fields hold `{name} | null` (null: no value).",
            u.name
        );
        self.doc_with(&u.doc, &summary);
        self.c.open(&format!("export class {name} {{"));
        self.c.line("tag: u32 = 0;");
        for v in &u.variants {
            let line = format!(
                "{}: {} | null = null;",
                self.n.variant_member(v.ty),
                self.n.struct_name(v.ty)
            );
            self.c.line(&line);
        }
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            self.c.line("");
            self.c.open(&format!("static of{ty}(x: {ty}): {name} {{"));
            self.c.line(&format!("const u = new {name}();"));
            self.c.line(&format!("u.tag = {};", v.tag));
            let line = format!("u.{} = x;", self.n.variant_member(v.ty));
            self.c.line(&line);
            self.c.line("return u;");
            self.c.close("}");
        }
        self.union_reader(id);
        self.c.close("}");
        self.union_writer(id);
        self.bunch_readers(id);
        self.union_validator(id);
    }

    fn soa_items(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let list: Vec<String> = soa
            .columns
            .iter()
            .map(|c| format!("{:#010x}, {}", c.hash, c.size))
            .collect();
        self.c.line("");
        self.c.line(&format!(
            "/** Hash and size of each SoA column of {name}, in writing order (docs/format.md §5.3). */"
        ));
        self.c.line(&format!(
            "const _kmCols{name}: StaticArray<u32> = [{}];",
            list.join(", ")
        ));
        self.soa_writer(id);
        self.soa_reader(id);
        self.soa_validator(id);
    }

    /// The place of leaf `k` of SoA element `base` (`e.data.username`).
    pub fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
        }
        place
    }

    /// The charge of an SoA array of `id` for the columns its directory
    /// does not list whose zero value holds tables (a fixed array of inline
    /// structs holding them, format.md §10): `n` (a local, the length for
    /// a decoder, the capacity for a validator) times what each holds.
    pub(crate) fn charge_unlisted(&self, body: &mut Code, id: StructId, n: &str) {
        for (k, held) in self.l.soa_plan(self.s, id).unlisted {
            let each = body.tr(&format!("v.chargeEach({n}, {held})"));
            body.line(&format!(
                "if (unchecked(cols[{k}]) == 0 && {n} > 0) {}",
                each
            ));
        }
    }

    /// Emits a function or method with `let e` declared when its body
    /// propagates errors (a [`Code::tr`] statement, which records its use
    /// of `e`).
    pub fn function(&mut self, signature: &str, body: Code, tail: &str) {
        // A doc comment just written belongs to this function.
        if !self.c.out.ends_with("*/\n") {
            self.c.line("");
        }
        self.c.open(signature);
        if body.uses("e") {
            self.c.line("let e = KarmemError.None;");
        }
        self.c.raw(&body.into_text());
        if !tail.is_empty() {
            self.c.line(tail);
        }
        self.c.close("}");
    }
}

/// An enum value as a literal of the AssemblyScript type holding it: a
/// `u32` value past 2^31 as its i32 bit pattern (AssemblyScript enums are
/// i32), 64-bit values in hexadecimal when past the i64 range.
pub fn enum_literal(repr: Primitive, value: i128) -> String {
    match repr {
        Primitive::U32 => (value as u32 as i32).to_string(),
        Primitive::U64 if value > i64::MAX as i128 => format!("0x{:x}", value as u64),
        Primitive::I64 if value == i64::MIN as i128 => "i64.MIN_VALUE".into(),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(field_name("ID"), "id");
        assert_eq!(field_name("MonsterData"), "monsterData");
        assert_eq!(field_name("encode"), "encode_");
        assert_eq!(field_name("F0"), "f0");
        assert_eq!(type_name("monster_data"), "MonsterData");
        assert_eq!(enum_literal(Primitive::U32, 4294967295), "-1");
        assert_eq!(
            enum_literal(Primitive::U64, 18446744073709551615),
            "0xffffffffffffffff"
        );
    }

    #[test]
    fn file_imports_the_library() {
        let (schema, layout) =
            karmem_layout::load("t.km", "karmem app;\nstruct A table { X u8; }\n").unwrap();
        let f = AssemblyScriptBackend
            .generate(&schema, &layout)
            .unwrap()
            .remove(0);
        assert_eq!(f.path, "app.ts");
        assert!(f.contents.contains("from \"karmem-as/assembly\";"));
        assert!(f.contents.contains("export class A {"));
    }
}

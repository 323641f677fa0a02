//! The resolved schema model: what a checked `.km` file means.
//!
//! The parser produces an AST with spans; name resolution and the semantic
//! checks turn it into this model. Every later stage (layout, code generators,
//! the dynamic JSON codec) consumes only this model, never the AST, so that the
//! meaning of a schema is decided in exactly one place.
//!
//! Types refer to each other by index into the `Schema` vectors (`EnumId`,
//! `StructId`, ...), which makes the model cheap to clone and free of
//! reference cycles. Spans are kept so later stages can still point at source.

/// Byte range in the source file (`start..end`, UTF-8 byte offsets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

pub type EnumId = usize;
pub type StructId = usize;
pub type UnionId = usize;
pub type MemoryId = usize;
/// Index of an array type held by another array (`Schema::arrays`).
pub type ArrayId = usize;

/// Scalar types of the wire format. `bool` is one byte (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Bool,
}

impl Primitive {
    /// Size in bytes on the wire; also the alignment.
    pub fn size(self) -> u32 {
        match self {
            Primitive::U8 | Primitive::I8 | Primitive::Bool => 1,
            Primitive::U16 | Primitive::I16 => 2,
            Primitive::U32 | Primitive::I32 | Primitive::F32 => 4,
            Primitive::U64 | Primitive::I64 | Primitive::F64 => 8,
        }
    }

    pub fn is_integer(self) -> bool {
        !matches!(self, Primitive::F32 | Primitive::F64 | Primitive::Bool)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Primitive::I8 | Primitive::I16 | Primitive::I32 | Primitive::I64
        )
    }

    /// Canonical KarmemIDL spelling (`u8`, `f32`, `bool`, ...).
    pub fn name(self) -> &'static str {
        match self {
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

    /// Inclusive value range of an integer primitive (for enum checks).
    pub fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Primitive::U8 => (0, u8::MAX as i128),
            Primitive::U16 => (0, u16::MAX as i128),
            Primitive::U32 => (0, u32::MAX as i128),
            Primitive::U64 => (0, u64::MAX as i128),
            Primitive::I8 => (i8::MIN as i128, i8::MAX as i128),
            Primitive::I16 => (i16::MIN as i128, i16::MAX as i128),
            Primitive::I32 => (i32::MIN as i128, i32::MAX as i128),
            Primitive::I64 => (i64::MIN as i128, i64::MAX as i128),
            _ => return None,
        })
    }
}

/// A complete, checked schema.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// `karmem NAME ...;` — the package name.
    pub package: String,
    /// Header attributes such as `@golang.package(\`app\`)`, `@packed(true)`.
    pub attributes: Vec<Attribute>,
    pub enums: Vec<Enum>,
    pub structs: Vec<Struct>,
    pub unions: Vec<Union>,
    /// The element types of arrays of arrays (`ElemType::Array`).
    pub arrays: Vec<ArrayType>,
    pub memories: Vec<Memory>,
    pub interfaces: Vec<Interface>,
    /// Declaration order of all named items, for generators that want to emit
    /// in source order.
    pub order: Vec<Item>,
    /// SHA-256 of the source text, hex encoded; printed in generated headers.
    pub source_hash: String,
    /// `root NAME;`: the struct a message of this schema holds, when declared
    /// (`karmem json` then needs no `--root`; generators name it `Root`).
    pub root: Option<StructId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Enum(EnumId),
    Struct(StructId),
    Union(UnionId),
    Memory(MemoryId),
    Interface(usize),
}

/// `@name(value)` or `@dotted.name(value)`; value is the raw text inside the
/// parentheses with backticks/quotes removed, or empty when absent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub name: String,
    pub value: String,
    pub span: Span,
}

impl Schema {
    /// Value of a header attribute, e.g. `schema.attribute("golang.package")`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    pub fn struct_by_name(&self, name: &str) -> Option<StructId> {
        self.structs.iter().position(|s| s.name == name)
    }

    pub fn enum_by_name(&self, name: &str) -> Option<EnumId> {
        self.enums.iter().position(|e| e.name == name)
    }

    pub fn union_by_name(&self, name: &str) -> Option<UnionId> {
        self.unions.iter().position(|u| u.name == name)
    }

    /// Whether a fresh value of the struct differs from all-zero: one of
    /// its fields has a non-zero default, or holds (inline, as a table or
    /// in a fixed array) a struct that does. Languages whose zero value
    /// cannot carry defaults (Go) generate a constructor for these.
    /// Each struct held is looked at once, without recursion: a struct
    /// holding another twice, level after level, would otherwise be walked
    /// exponentially many times.
    pub fn has_defaults(&self, id: StructId) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![id];
        while let Some(id) = todo.pop() {
            if !seen.insert(id) {
                continue;
            }
            // An optional field starts with no value, whatever its type
            // holds (and an optional table may hold its own type).
            for f in self.structs[id].fields.iter().filter(|f| !f.optional) {
                if f.nonzero_default().is_some() {
                    return true;
                }
                todo.extend(f.held_struct());
            }
        }
        false
    }
}

#[derive(Clone, Debug)]
pub struct Enum {
    pub name: String,
    /// Underlying integer type (`u8` .. `i64`); defaults to `u32`.
    pub repr: Primitive,
    pub variants: Vec<EnumVariant>,
    pub span: Span,
    pub doc: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct EnumVariant {
    pub name: String,
    /// Always within `repr`'s range (checked).
    pub value: i128,
    pub span: Span,
    pub doc: Vec<String>,
}

/// Inline structs are embedded and frozen; tables are reached through an
/// offset and may gain fields at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructKind {
    Inline,
    Table,
}

#[derive(Clone, Debug)]
pub struct Struct {
    pub name: String,
    pub kind: StructKind,
    pub fields: Vec<Field>,
    pub span: Span,
    pub doc: Vec<String>,
    /// Declared for a tuple type `(T0, T1, ...)` (docs/idl.md §3.3): an
    /// inline struct whose fields `F0`, `F1`... are positional (a Rust
    /// tuple struct, a JSON array).
    pub tuple: bool,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub span: Span,
    pub doc: Vec<String>,
    /// `?T`: the field may hold no value, distinct from zero or empty
    /// (docs/idl.md §4.3.2). Never a union (tag 0 already means "no
    /// value") and never with a default.
    pub optional: bool,
    /// `= value`: what the field reads as when it is absent from a table
    /// (docs/idl.md §4.3.1). Only table fields of scalar, enum or UTF-8
    /// text type have one (checked).
    pub default: Option<DefaultValue>,
}

impl Field {
    /// The struct this field holds in place: its type, or its fixed
    /// array's element type. Its zero value holds that struct's, a table's
    /// too unless the field is optional (a table field is always written,
    /// format.md §8).
    pub fn held_struct(&self) -> Option<StructId> {
        match &self.ty {
            FieldType::Struct(c)
            | FieldType::Array(ArrayType {
                elem: ElemType::Struct(c),
                kind: ArrayKind::Fixed(_),
                ..
            }) => Some(*c),
            _ => None,
        }
    }

    /// The declared default, if it differs from the type's zero value
    /// (generators then emit something; a default equal to zero needs no
    /// code). Text `""`, `0`, `false` and an enum value 0 are zero; `0.0`
    /// is too, `-0.0` is refused by the checker.
    pub fn nonzero_default(&self) -> Option<&DefaultValue> {
        self.default.as_ref().filter(|d| !d.is_zero())
    }
}

/// A declared default value, already checked against the field's type.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    /// An integer scalar's value (within the type's range).
    Int(i128),
    /// A float scalar's value; for `f32` fields already rounded to `f32`.
    Float(f64),
    Bool(bool),
    /// UTF-8 text (`string`, `[]char`, `[<N]char`, `[]u8 @string`).
    Text(String),
    /// An enum value: the variant's index in `Enum::variants` and its
    /// number.
    Enum {
        variant: usize,
        value: i128,
    },
}

impl DefaultValue {
    pub fn is_zero(&self) -> bool {
        match self {
            DefaultValue::Int(v) | DefaultValue::Enum { value: v, .. } => *v == 0,
            DefaultValue::Float(v) => *v == 0.0,
            DefaultValue::Bool(b) => !b,
            DefaultValue::Text(t) => t.is_empty(),
        }
    }
}

/// What a field holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldType {
    Scalar(Primitive),
    Enum(EnumId),
    /// An inline struct is embedded; a table is stored as a `u32` offset.
    Struct(StructId),
    /// Tag + `u32` offset.
    Union(UnionId),
    Array(ArrayType),
}

/// What an array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    Scalar(Primitive),
    Enum(EnumId),
    Struct(StructId),
    Union(UnionId),
    /// A dynamic or limited array: `Schema::arrays[id]` (`[][]f32`,
    /// `[]string`; docs/idl.md §3.1).
    Array(ArrayId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// `[N]T`: exactly N elements, embedded in the parent.
    Fixed(u32),
    /// `[]T`: any length, stored out of line.
    Dynamic,
    /// `[<N]T`: at most N elements, stored out of line.
    Limited(u32),
}

/// Memory layout of a dynamic or limited array.
///
/// Defaults (decided by the checker, never left implicit in the model):
/// arrays of scalars and enums are `Plain`; arrays of structs and unions are
/// `Soa`, except that a field's own array of structs is `Aos` in a file whose
/// header says `@packed(true)`. Fixed arrays are always `Plain`
/// (scalars/enums) or `Aos` (structs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayLayout {
    /// Contiguous scalars or enums.
    Plain,
    /// Array of structures (structs: packed elements / table offsets;
    /// unions: 8-byte tag+offset slots).
    Aos,
    /// Structure of arrays: one column per flattened leaf (structs), or a tag
    /// column and an offset column (unions).
    Soa,
    /// Unions only: one AoS array per variant; element order not kept.
    BoVoA,
    /// Unions only: one SoA array per variant; element order not kept.
    BoVoS,
    /// `map<K, V>`: AoS of the inline entry struct `{ Key K; Value V; }`,
    /// sorted by key, keys unique (format.md §5.5).
    Map,
}

/// Text encoding of a string array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Text {
    /// `[]char`, `[]u8 @string`, `string`: UTF-8 bytes, no terminator.
    Utf8,
    /// `[]u16 @string`: UTF-16 code units, no terminator.
    Utf16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayType {
    pub elem: ElemType,
    pub kind: ArrayKind,
    pub layout: ArrayLayout,
    /// `Some` when the array is marked as text.
    pub text: Option<Text>,
}

impl ArrayType {
    /// Whether this is a map's entry array (`ArrayLayout::Map`).
    pub fn is_map(&self) -> bool {
        self.layout == ArrayLayout::Map
    }

    /// The `N` of a limited array `[<N]T`, which readers enforce on its
    /// length (format.md §5); `None` for `[]T`.
    pub fn limit(&self) -> Option<u32> {
        match self.kind {
            ArrayKind::Limited(n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Union {
    pub name: String,
    /// Tag type: `u8`, `u16` or `u32` (default).
    pub tag: Primitive,
    pub variants: Vec<UnionVariant>,
    pub span: Span,
    pub doc: Vec<String>,
}

/// A union variant is a struct type; tag 0 is reserved for "no value".
#[derive(Clone, Debug)]
pub struct UnionVariant {
    pub ty: StructId,
    /// 1..=max of the tag type; explicit or numbered from 1 in order.
    pub tag: u32,
    pub span: Span,
}

/// Access of one side to a shared memory region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    ReadWrite,
}

/// A shared memory region, declared inside an interface:
/// `NAME: memory (import: read, export: write, PAGES);`
#[derive(Clone, Debug)]
pub struct Memory {
    pub name: String,
    pub exporter: Access,
    pub importer: Access,
    /// Maximum size in 64 KiB pages.
    pub max_pages: u32,
    pub span: Span,
    pub doc: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    Direct,
    FanOut,
    Singleton,
    /// `pool(N)`: N instances.
    Pool(u32),
}

#[derive(Clone, Debug)]
pub struct Interface {
    pub name: String,
    /// `dynamic`: may gain functions and memories later.
    pub dynamic: bool,
    pub pattern: Pattern,
    /// Memories declared in this interface (indices into `Schema::memories`).
    pub memories: Vec<MemoryId>,
    pub functions: Vec<Function>,
    pub span: Span,
    pub doc: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub result: Option<Param>,
    pub span: Span,
    pub doc: Vec<String>,
}

/// A function parameter or result: a struct type, optionally bound to a
/// shared memory region (the value then lives in that region).
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: StructId,
    pub memory: Option<MemoryId>,
    pub span: Span,
}

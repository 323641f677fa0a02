//! Syntax tree of a `.km` file, with spans. Produced by the parser, consumed
//! by the resolver (which turns it into the [`model`](crate::model)).

use crate::model::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct File {
    pub headers: Vec<Header>,
    pub items: Vec<Item>,
    /// `root NAME;` declarations (one is allowed; more are reported).
    pub roots: Vec<RootDecl>,
    /// `import "path";` statements, in source order (docs/idl.md §4.5).
    pub imports: Vec<Import>,
    /// The files merged into this one by imports, in load order; empty for
    /// a file as parsed.
    pub imported: Vec<ImportedFile>,
}

/// An imported file whose declarations were appended to the root file's.
/// Its header is kept because `@packed` applies to the structs a file
/// declares (docs/idl.md §4.1); the rest of it is ignored (§4.5).
#[derive(Clone, Debug)]
pub struct ImportedFile {
    pub header: Option<Header>,
    /// Index in [`File::items`] of its first declaration: its declarations
    /// are the items from here to the next imported file's.
    pub first_item: usize,
}

/// `import "path";`: another schema file whose declarations join this one's.
#[derive(Clone, Debug)]
pub struct Import {
    /// The path as written, quotes removed.
    pub path: String,
    /// The path string, quotes included.
    pub path_span: Span,
    pub span: Span,
}

/// `root NAME;`: the message type a schema is about.
#[derive(Clone, Debug)]
pub struct RootDecl {
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Header {
    pub name: Ident,
    pub attrs: Vec<Attr>,
    pub span: Span,
}

/// `@name.path(value)` or `#name`.
#[derive(Clone, Debug)]
pub struct Attr {
    pub sigil: char,
    pub name: Ident,
    pub value: Option<(String, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Enum(EnumDecl),
    Struct(StructDecl),
    Union(UnionDecl),
    Interface(InterfaceDecl),
}

/// An integer literal as written (sign included) and its span.
#[derive(Clone, Debug)]
pub struct IntLit {
    pub value: Option<i128>,
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub name: Ident,
    pub repr: Option<Ident>,
    pub variants: Vec<EnumVariantDecl>,
    pub doc: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct EnumVariantDecl {
    pub name: Ident,
    pub value: Option<IntLit>,
    pub doc: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct StructDecl {
    pub name: Ident,
    /// `inline`, `table`, or the words inside `( ... )` (paper: `dynamic`).
    pub kind: Vec<Ident>,
    pub fields: Vec<FieldDecl>,
    pub doc: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub name: Ident,
    /// The `?` of an optional field (`next: ?Node;`).
    pub optional: Option<Span>,
    pub ty: TypeExpr,
    pub attrs: Vec<Attr>,
    /// `= literal` after the attributes: the value an absent field reads as.
    pub default: Option<Literal>,
    pub doc: Vec<String>,
    pub span: Span,
}

/// A literal as written in a default value (`= 100`, `= -1.5`, `= "anon"`,
/// `= true`, `= Orcs`). Booleans and enum values are identifiers here; the
/// resolver decides what they mean from the field's type.
#[derive(Clone, Debug)]
pub enum Literal {
    Int(IntLit),
    /// A decimal number with a fraction or an exponent (sign included).
    Float {
        text: String,
        span: Span,
    },
    Str {
        value: String,
        span: Span,
    },
    Ident(Ident),
}

impl Literal {
    pub fn span(&self) -> Span {
        match self {
            Literal::Int(i) => i.span,
            Literal::Float { span, .. } | Literal::Str { span, .. } => *span,
            Literal::Ident(id) => id.span,
        }
    }
}

#[derive(Clone, Debug)]
pub enum TypeExpr {
    Named(Ident),
    Array {
        kind: ArrayKindExpr,
        elem: Box<TypeExpr>,
        span: Span,
    },
    /// `(T0, T1, ...)`: a tuple of two or more types.
    Tuple {
        elems: Vec<TypeExpr>,
        span: Span,
    },
    /// `map<K, V>`.
    Map {
        key: Box<TypeExpr>,
        value: Box<TypeExpr>,
        span: Span,
    },
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(id) => id.span,
            TypeExpr::Array { span, .. }
            | TypeExpr::Map { span, .. }
            | TypeExpr::Tuple { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug)]
pub enum ArrayKindExpr {
    Dynamic,
    Fixed(IntLit),
    Limited(IntLit),
}

#[derive(Clone, Debug)]
pub struct UnionDecl {
    pub name: Ident,
    pub tag: Option<Ident>,
    pub variants: Vec<UnionVariantDecl>,
    pub doc: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct UnionVariantDecl {
    /// Optional label (`p2: Point2D = 1;`); the type names the variant.
    pub label: Option<Ident>,
    pub ty: Ident,
    pub tag: Option<IntLit>,
}

#[derive(Clone, Debug)]
pub struct InterfaceDecl {
    pub name: Ident,
    /// `dynamic`, `direct`, `fanout`, `singleton`, `pool(N)`.
    pub options: Vec<(Ident, Option<IntLit>)>,
    pub memories: Vec<MemoryDecl>,
    pub functions: Vec<FunctionDecl>,
    pub doc: Vec<String>,
    pub span: Span,
}

/// `name: memory (import: read, export: write, PAGES);`
#[derive(Clone, Debug)]
pub struct MemoryDecl {
    pub name: Ident,
    /// `(side, access)` pairs as written.
    pub access: Vec<(Ident, Ident)>,
    pub pages: Option<IntLit>,
    pub doc: Vec<String>,
    pub span: Span,
}

/// `name: fn(a: T @ mem, ...) (res: U @ mem);`
#[derive(Clone, Debug)]
pub struct FunctionDecl {
    pub name: Ident,
    pub params: Vec<ParamDecl>,
    pub results: Vec<ParamDecl>,
    pub doc: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ParamDecl {
    pub name: Ident,
    pub ty: Ident,
    pub memory: Option<Ident>,
    pub span: Span,
}

//! Name resolution and semantic checks: AST → [`Schema`].
//!
//! Every check reports into one list and carries on, so a run shows all
//! problems. Items that fail to resolve are still entered into the model (with
//! a placeholder type) so later checks do not cascade into noise.

use std::collections::HashMap;

use crate::ast::{self, ArrayKindExpr, TypeExpr};
use crate::diagnostic::Diagnostic;
use crate::model::*;

mod contained;
mod declared;
mod defaults;
mod maps;
mod tuples;

/// Largest size any struct may have: offsets are 32 bits.
const MAX_SIZE: u64 = u32::MAX as u64;

#[derive(Clone, Copy, Debug)]
enum Named {
    Primitive(Primitive, bool),
    Enum(EnumId),
    Struct(StructId),
    Union(UnionId),
}

fn primitive(name: &str) -> Option<(Primitive, bool)> {
    use Primitive::*;
    Some(match name {
        "u8" | "uint8" | "byte" => (U8, false),
        "char" => (U8, true),
        "u16" | "uint16" => (U16, false),
        "u32" | "uint32" => (U32, false),
        "u64" | "uint64" => (U64, false),
        "i8" | "int8" => (I8, false),
        "i16" | "int16" => (I16, false),
        "i32" | "int32" => (I32, false),
        "i64" | "int64" => (I64, false),
        "f32" | "float32" => (F32, false),
        "f64" | "float64" => (F64, false),
        "bool" => (Bool, false),
        _ => return None,
    })
}

const BUILTIN_NAMES: &[&str] = &[
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "uint8", "uint16",
    "uint32", "uint64", "int8", "int16", "int32", "int64", "float32", "float64", "byte", "char",
    "string",
];

pub fn resolve(file: &ast::File) -> (Schema, Vec<Diagnostic>) {
    let mut r = Resolver {
        diags: Vec::new(),
        names: HashMap::new(),
        schema: Schema::default(),
        owner: String::new(),
        field: String::new(),
        packed_from: Vec::new(),
        packed: false,
        enum_values: HashMap::new(),
        suggest_budget: SUGGEST_BUDGET,
    };
    r.header(file);
    r.declare(file);
    r.define(file);
    r.defaults(file);
    r.root(file);
    r.check_contained();
    r.check_sizes();
    (r.schema, r.diags)
}

struct Resolver {
    diags: Vec<Diagnostic>,
    /// Every declared name; `None` for interfaces, which share the
    /// namespace but are not data types.
    names: HashMap<String, (Option<Named>, Span)>,
    schema: Schema,
    /// The struct whose fields are being defined, and the field (they
    /// name map entry types).
    owner: String,
    field: String,
    /// `@packed` of each file, by the index in `ast::File::items` of the
    /// file's first declaration (the root file's at 0).
    packed_from: Vec<(usize, bool)>,
    /// `@packed(true)` in the file that declares the struct being defined:
    /// its fields' arrays of structs default to AoS (docs/idl.md §4.1).
    packed: bool,
    /// The index of every value name of an enum, made when a default
    /// first names one of its values.
    enum_values: HashMap<EnumId, HashMap<String, usize>>,
    /// Edit-distance cells the "did you mean" hints may still compute
    /// (see `closest`).
    suggest_budget: usize,
}

/// The work all "did you mean" hints of one schema may do, in
/// edit-distance cells: a few hundred typos against thousands of names,
/// a fraction of a second.
const SUGGEST_BUDGET: usize = 20_000_000;

impl Resolver {
    fn header(&mut self, file: &ast::File) {
        self.diags.extend(header_count(&file.headers, 0));
        let root = file.headers.first().map_or(&[][..], |h| &h.attrs);
        let packed = self.packed_attribute(root);
        self.packed_from.push((0, packed));
        // An imported file's header is otherwise ignored (§4.5), but its
        // `@packed` says how the structs it declares store their arrays:
        // a file compiles to the same bytes alone or imported.
        for imported in &file.imported {
            let attrs = imported.header.as_ref().map_or(&[][..], |h| &h.attrs);
            let packed = self.packed_attribute(attrs);
            self.packed_from.push((imported.first_item, packed));
        }
        let Some(h) = file.headers.first() else {
            return;
        };
        self.schema.package = h.name.name.clone();
        for a in &h.attrs {
            // A warning, not an error: a first-Karmem schema may
            // carry options for generators this compiler does not
            // have. `karmem check --deny-warnings` refuses them.
            let known = a.sigil == '@' && SCHEMA_ATTRIBUTES.contains(&a.name.name.as_str());
            if !known {
                let hint = did_you_mean(
                    '@',
                    &a.name.name,
                    SCHEMA_ATTRIBUTES,
                    "known schema attributes: `@golang.package`, `@zig.name`, `@packed`, `@assemblyscript.import`, `@c.prefix`",
                );
                self.diags.push(
                    Diagnostic::warning(
                        a.span,
                        format!(
                            "unknown schema attribute `{}{}` is ignored",
                            a.sigil, a.name.name
                        ),
                    )
                    .with_label("not known to karmem")
                    .with_hint(hint),
                );
            }
            self.schema.attributes.push(Attribute {
                name: a.name.name.clone(),
                value: a.value.as_ref().map(|v| v.0.clone()).unwrap_or_default(),
                span: a.span,
            });
        }
    }

    /// The value of `@packed` among a file's header attributes: `true`,
    /// `false` (also when absent), or an error. The first Karmem wrote
    /// `@packed(true)`; any other spelling is refused rather than guessed,
    /// since it decides the bytes of every array of structs.
    fn packed_attribute(&mut self, attrs: &[ast::Attr]) -> bool {
        self.duplicate_attributes(attrs);
        let Some(a) = attrs
            .iter()
            .find(|a| a.sigil == '@' && a.name.name == "packed")
        else {
            return false;
        };
        match a.value.as_ref().map(|(v, span)| (v.as_str(), *span)) {
            Some(("true", _)) => true,
            Some(("false", _)) => false,
            value => {
                let (span, found) = match value {
                    Some((v, span)) => (span, format!("`{v}`")),
                    None => (a.span, "no value".to_string()),
                };
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!("`@packed` takes `true` or `false`, found {found}"),
                    )
                    .with_label("not `true` or `false`")
                    .with_hint(
                        "`@packed(true)` stores arrays of structs as AoS by default, \
                         `@packed(false)` (or no `@packed`) as SoA",
                    ),
                );
                false
            }
        }
    }

    /// A header attribute given twice is an error: which one a generator
    /// would read is not something to guess (for `@packed` it decides
    /// bytes).
    fn duplicate_attributes(&mut self, attrs: &[ast::Attr]) {
        let mut first_at: HashMap<(char, &str), Span> = HashMap::new();
        for a in attrs {
            let first = *first_at.entry((a.sigil, &a.name.name)).or_insert(a.span);
            if first != a.span {
                self.diags.push(
                    Diagnostic::error(
                        a.span,
                        format!("duplicate schema attribute `{}{}`", a.sigil, a.name.name),
                    )
                    .with_label("given again")
                    .with_secondary(first, "first given here")
                    .with_hint("a header gives each attribute once: remove one of them"),
                );
            }
        }
    }

    /// `root NAME;`: at most one, naming a struct. Generators call the root
    /// type `Root` too, so another type of that name would be ambiguous.
    fn root(&mut self, file: &ast::File) {
        for extra in file.roots.iter().skip(1) {
            self.diags.push(
                Diagnostic::error(extra.span, "duplicate root declaration")
                    .with_label("second root")
                    .with_secondary(file.roots[0].span, "first root here")
                    .with_hint("a schema has at most one `root NAME;`"),
            );
        }
        let Some(decl) = file.roots.first() else {
            return;
        };
        let what = match self.lookup(&decl.name) {
            None => return, // reported by `lookup`
            Some(Named::Struct(id)) => {
                self.schema.root = Some(id);
                self.check_root_alias_free(decl);
                return;
            }
            Some(Named::Primitive(..)) => "a built-in type",
            Some(Named::Enum(_)) => "an enum",
            Some(Named::Union(_)) => "a union",
        };
        self.diags.push(
            Diagnostic::error(
                decl.name.span,
                format!(
                    "the root type must be a struct, found {what} `{}`",
                    decl.name.name
                ),
            )
            .with_label("not a struct")
            .with_hint(
                "a message holds a struct: declare `root` with a `table` or `inline` struct",
            ),
        );
    }

    /// No other type may take the name `Root` that generators give the
    /// root; case-insensitively, since they capitalise (`root` is Go's and
    /// Rust's `Root` too).
    fn check_root_alias_free(&mut self, decl: &ast::RootDecl) {
        let Some((other, at)) = self
            .names
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("root") && **n != decl.name.name)
            .map(|(n, (_, at))| (n.clone(), *at))
        else {
            return;
        };
        self.diags.push(
            Diagnostic::error(
                decl.name.span,
                format!(
                    "the root is `{}`, but another type is named `{other}`",
                    decl.name.name
                ),
            )
            .with_label("generated code names the root type `Root`")
            .with_secondary(at, format!("`{other}` declared here"))
            .with_hint(format!("rename `{other}`, or make it the root")),
        );
    }

    /// Pass 1: enter every type name, so references may point forward.
    fn declare(&mut self, file: &ast::File) {
        for item in &file.items {
            let (name, named) = match item {
                ast::Item::Enum(e) => {
                    self.schema.order.push(Item::Enum(self.schema.enums.len()));
                    self.schema.enums.push(Enum {
                        name: e.name.name.clone(),
                        repr: Primitive::U32,
                        variants: Vec::new(),
                        span: e.name.span,
                        doc: e.doc.clone(),
                    });
                    (&e.name, Some(Named::Enum(self.schema.enums.len() - 1)))
                }
                ast::Item::Struct(s) => {
                    self.schema
                        .order
                        .push(Item::Struct(self.schema.structs.len()));
                    let kind = self.struct_kind(s);
                    self.schema.structs.push(Struct {
                        name: s.name.name.clone(),
                        kind,
                        fields: Vec::new(),
                        span: s.name.span,
                        doc: s.doc.clone(),
                        tuple: false,
                    });
                    (&s.name, Some(Named::Struct(self.schema.structs.len() - 1)))
                }
                ast::Item::Union(u) => {
                    self.schema
                        .order
                        .push(Item::Union(self.schema.unions.len()));
                    self.schema.unions.push(Union {
                        name: u.name.name.clone(),
                        tag: Primitive::U32,
                        variants: Vec::new(),
                        span: u.name.span,
                        doc: u.doc.clone(),
                    });
                    (&u.name, Some(Named::Union(self.schema.unions.len() - 1)))
                }
                ast::Item::Interface(i) => {
                    // Interfaces share the type namespace so that generated
                    // code never has two items of the same name; as a type
                    // they name nothing a field could hold.
                    (&i.name, None)
                }
            };
            if BUILTIN_NAMES.contains(&name.name.as_str()) {
                self.diags.push(
                    Diagnostic::error(
                        name.span,
                        format!("`{}` is a built-in type name", name.name),
                    )
                    .with_label("cannot be declared")
                    .with_hint("choose another name"),
                );
                continue;
            }
            if let Some((_, first)) = self.names.get(&name.name) {
                self.duplicate_type(name, *first);
            } else {
                self.names.insert(name.name.clone(), (named, name.span));
            }
        }
    }

    fn duplicate_type(&mut self, name: &ast::Ident, first: Span) {
        self.diags.push(
            Diagnostic::error(name.span, format!("duplicate type name `{}`", name.name))
                .with_label("defined again here")
                .with_secondary(first, "first defined here")
                .with_hint(
                    "rename one of them; every type, enum, union and interface needs its own name",
                ),
        );
    }

    fn struct_kind(&mut self, s: &ast::StructDecl) -> StructKind {
        let mut kind: Option<(StructKind, &ast::Ident)> = None;
        for k in &s.kind {
            let this = match k.name.as_str() {
                "inline" => StructKind::Inline,
                "table" | "dynamic" => StructKind::Table,
                other => {
                    self.diags.push(
                        Diagnostic::error(k.span, format!("unknown struct kind `{other}`"))
                            .with_label("expected `inline` or `table`")
                            .with_hint("write `struct NAME table { ... }` (evolvable) or `struct NAME inline { ... }` (frozen); the paper's `(dynamic)` means table"),
                    );
                    continue;
                }
            };
            match kind {
                Some((first, first_word)) if first != this => self.diags.push(
                    Diagnostic::error(
                        k.span,
                        format!(
                            "conflicting struct kinds `{}` and `{}`",
                            first_word.name, k.name
                        ),
                    )
                    .with_label("second kind")
                    .with_secondary(first_word.span, "first kind")
                    .with_hint("a struct is either `inline` (frozen) or `table`/`dynamic` (evolvable); keep one"),
                ),
                Some(_) => {}
                None => kind = Some((this, k)),
            }
        }
        kind.map(|(k, _)| k).unwrap_or(StructKind::Inline)
    }

    /// Pass 2: resolve every declaration's contents.
    fn define(&mut self, file: &ast::File) {
        let (mut e, mut s, mut u) = (0, 0, 0);
        let mut file_at = 0;
        for (index, item) in file.items.iter().enumerate() {
            match item {
                ast::Item::Enum(decl) => {
                    self.define_enum(e, decl);
                    e += 1;
                }
                ast::Item::Struct(decl) => {
                    // The last file starting at or before `index` holds
                    // it (a file without declarations shares its start
                    // with the next one).
                    // `packed_from` is in item order, like this loop: step
                    // through it rather than search it for every struct.
                    while file_at + 1 < self.packed_from.len()
                        && self.packed_from[file_at + 1].0 <= index
                    {
                        file_at += 1;
                    }
                    self.packed = self.packed_from.get(file_at).is_some_and(|&(_, p)| p);
                    self.define_struct(s, decl);
                    s += 1;
                }
                ast::Item::Union(decl) => {
                    self.define_union(u, decl);
                    u += 1;
                }
                ast::Item::Interface(decl) => self.define_interface(decl),
            }
        }
    }

    fn lookup(&mut self, name: &ast::Ident) -> Option<Named> {
        if let Some((p, text)) = primitive(&name.name) {
            return Some(Named::Primitive(p, text));
        }
        match self.names.get(&name.name) {
            Some((Some(named), _)) => return Some(*named),
            Some((None, declared)) => {
                let declared = *declared;
                self.diags.push(
                    Diagnostic::error(
                        name.span,
                        format!("`{}` is an interface, not a data type", name.name),
                    )
                    .with_label("cannot hold a value")
                    .with_secondary(declared, "declared as an interface here")
                    .with_hint(
                        "fields, variants and parameters are scalars, enums, structs or unions",
                    ),
                );
                return None;
            }
            None => {}
        }
        if name.name == "string" {
            // `string` is sugar for the array `[]char`, so it is only a field
            // type; everywhere else an array is not allowed.
            self.diags.push(
                Diagnostic::error(name.span, "`string` is an array (`[]char`) and cannot be used here")
                    .with_label("not a scalar or declared type")
                    .with_hint("use `string` only as a field type; wrap it in a struct where a struct is needed"),
            );
            return None;
        }
        let mut d = Diagnostic::error(name.span, format!("unknown type `{}`", name.name))
            .with_label("not declared in this file");
        d = match self.suggest(&name.name) {
            Some(s) => d.with_hint(format!("did you mean `{s}`?")),
            None => d.with_hint(format!(
                "declare it, e.g. `struct {} table {{ ... }}`, or use a built-in type such as `u32`",
                name.name
            )),
        };
        self.diags.push(d);
        None
    }

    /// The closest known name, if it is close enough to be a typo.
    fn suggest(&mut self, name: &str) -> Option<String> {
        let candidates = self
            .names
            .keys()
            .map(String::as_str)
            .chain(BUILTIN_NAMES.iter().copied());
        closest(name, candidates, &mut self.suggest_budget).map(str::to_string)
    }

    fn integer_type(
        &mut self,
        ident: &ast::Ident,
        what: &str,
        allowed: &[Primitive],
    ) -> Option<Primitive> {
        match self.lookup(ident)? {
            Named::Primitive(p, _) if allowed.contains(&p) => Some(p),
            _ => {
                let list: Vec<&str> = allowed.iter().map(|p| p.name()).collect();
                self.diags.push(
                    Diagnostic::error(
                        ident.span,
                        format!("{what} must be {}, found `{}`", one_of(&list), ident.name),
                    )
                    .with_label("not allowed here")
                    .with_hint(format!("use one of {}", list.join(", "))),
                );
                None
            }
        }
    }

    fn define_enum(&mut self, id: EnumId, decl: &ast::EnumDecl) {
        use Primitive::*;
        let repr = match &decl.repr {
            Some(t) => self
                .integer_type(t, "an enum type", &[U8, U16, U32, U64, I8, I16, I32, I64])
                .unwrap_or(U32),
            None => U32,
        };
        let (min, max) = repr.integer_range().expect("integer");
        let mut variants: Vec<EnumVariant> = Vec::new();
        // The index in `variants` of each name and value taken: looked up
        // in constant time, so an enum of many values is checked in
        // linear time.
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        let mut by_value: HashMap<i128, usize> = HashMap::new();
        let mut next: i128 = 0;
        for v in &decl.variants {
            let value = match &v.value {
                Some(lit) => match lit.value {
                    Some(x) => x,
                    None => continue, // already reported as an invalid number
                },
                None => next,
            };
            let span = v.value.as_ref().map(|l| l.span).unwrap_or(v.name.span);
            if value < min || value > max {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "value {value} is out of range for `{}` ({min}..={max})",
                            repr.name()
                        ),
                    )
                    .with_label("does not fit")
                    .with_hint(format!(
                        "use a value in {min}..={max}, or a wider enum type"
                    )),
                );
            }
            next = value + 1;
            if let Some(prev) = by_name.get(v.name.name.as_str()).map(|&k| &variants[k]) {
                self.diags.push(
                    Diagnostic::error(
                        v.name.span,
                        format!("duplicate enum value name `{}`", v.name.name),
                    )
                    .with_label("declared again here")
                    .with_secondary(prev.span, "first declared here")
                    .with_hint("rename one of them"),
                );
                continue;
            }
            if let Some(prev) = by_value.get(&value).map(|&k| &variants[k]) {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "enum values `{}` and `{}` are both {value}",
                            prev.name, v.name.name
                        ),
                    )
                    .with_label("same number as an earlier value")
                    .with_secondary(prev.span, format!("`{}` is {value}", prev.name))
                    .with_hint("give each value a distinct number"),
                );
            }
            by_name.insert(&v.name.name, variants.len());
            by_value.entry(value).or_insert(variants.len());
            variants.push(EnumVariant {
                name: v.name.name.clone(),
                value,
                span: v.name.span,
                doc: v.doc.clone(),
            });
        }
        if !by_value.contains_key(&0) {
            self.diags.push(
                Diagnostic::error(decl.name.span, format!("enum `{}` has no value equal to 0", decl.name.name))
                    .with_label("needs a zero value")
                    .with_hint("add a first value such as `Unknown;`: zero is what a reader returns for an absent field"),
            );
        }
        let e = &mut self.schema.enums[id];
        e.repr = repr;
        e.variants = variants;
    }

    fn define_struct(&mut self, id: StructId, decl: &ast::StructDecl) {
        self.owner = decl.name.name.clone();
        let mut fields: Vec<Field> = Vec::new();
        // Where each field name is in `fields` (constant-time duplicate
        // check, for structs of many fields).
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for f in &decl.fields {
            if let Some(prev) = by_name.get(f.name.name.as_str()).map(|&k| &fields[k]) {
                self.diags.push(
                    Diagnostic::error(
                        f.name.span,
                        format!("duplicate field `{}` in `{}`", f.name.name, decl.name.name),
                    )
                    .with_label("declared again here")
                    .with_secondary(prev.span, "first declared here")
                    .with_hint("rename one of the fields"),
                );
                continue;
            }
            by_name.insert(&f.name.name, fields.len());
            let Some(ty) = self.field_type(f, self.packed) else {
                // Keep the field so positions (and SoA hashes) stay stable
                // for later checks; the error is already reported.
                fields.push(Field {
                    name: f.name.name.clone(),
                    ty: FieldType::Scalar(Primitive::U8),
                    span: f.name.span,
                    doc: f.doc.clone(),
                    optional: false,
                    default: None,
                });
                continue;
            };
            let optional = f.optional.is_some_and(|q| self.optional_allowed(q, &ty));
            fields.push(Field {
                name: f.name.name.clone(),
                ty,
                span: f.name.span,
                doc: f.doc.clone(),
                optional,
                default: None,
            });
        }
        if fields.is_empty() && self.schema.structs[id].kind == StructKind::Inline {
            self.diags.push(
                Diagnostic::error(
                    decl.name.span,
                    format!("inline struct `{}` has no fields", decl.name.name),
                )
                .with_label("empty")
                .with_hint(
                    "add a field, or make it a `table` (tables may be empty and grow later)",
                ),
            );
        }
        self.schema.structs[id].fields = fields;
    }

    /// The type of field `f`. `packed`: its own array, if it is a dynamic
    /// or limited array of structs without a layout annotation, is AoS
    /// rather than SoA (`@packed(true)`, docs/idl.md §4.1). The arrays
    /// inside a map's value, a tuple or an array of arrays are not the
    /// field's own, and keep the SoA default.
    fn field_type(&mut self, f: &ast::FieldDecl, packed: bool) -> Option<FieldType> {
        self.field = f.name.name.clone();
        if let TypeExpr::Map { key, value, .. } = &f.ty {
            return self.map_type(f, key, value);
        }
        if let TypeExpr::Tuple { elems, span } = &f.ty {
            return self
                .tuple_struct(&f.name.name, elems, *span)
                .map(FieldType::Struct);
        }
        // Annotations first: they shape the array type.
        let mut layout: Option<(ArrayLayout, &ast::Attr)> = None;
        let mut string_attr: Option<&ast::Attr> = None;
        for a in &f.attrs {
            match (a.sigil, a.name.name.as_str()) {
                ('#', name @ ("soa" | "aos" | "bovoa" | "bovos")) => {
                    let l = match name {
                        "soa" => ArrayLayout::Soa,
                        "aos" => ArrayLayout::Aos,
                        "bovoa" => ArrayLayout::BoVoA,
                        _ => ArrayLayout::BoVoS,
                    };
                    if let Some((_, prev)) = layout {
                        self.diags.push(
                            Diagnostic::error(
                                a.span,
                                format!(
                                    "conflicting layout annotations `#{}` and `#{name}`",
                                    prev.name.name
                                ),
                            )
                            .with_label("second layout")
                            .with_secondary(prev.span, "first layout")
                            .with_hint("an array has exactly one layout; keep one annotation"),
                        );
                    } else {
                        layout = Some((l, a));
                    }
                }
                ('#', other) => {
                    let hint = did_you_mean(
                        '#',
                        other,
                        LAYOUT_ANNOTATIONS,
                        "use #soa, #aos, #bovoa or #bovos",
                    );
                    self.diags.push(
                        Diagnostic::error(a.span, format!("unknown layout annotation `#{other}`"))
                            .with_label("not a layout")
                            .with_hint(hint),
                    )
                }
                ('@', "string") => string_attr = Some(a),
                // An error, not a warning: a misspelt `@string` would
                // silently turn text into bytes.
                ('@', other) => {
                    let hint = did_you_mean(
                        '@',
                        other,
                        FIELD_ATTRIBUTES,
                        "the only field attribute is `@string`",
                    );
                    self.diags.push(
                        Diagnostic::error(a.span, format!("unknown field attribute `@{other}`"))
                            .with_label("not known to karmem")
                            .with_hint(hint),
                    )
                }
                _ => {}
            }
        }

        let (kind, elem_expr) = match &f.ty {
            TypeExpr::Named(id) if id.name == "string" => (Some(ArrayKind::Dynamic), None),
            TypeExpr::Named(_) => (None, None),
            TypeExpr::Map { .. } | TypeExpr::Tuple { .. } => {
                unreachable!("maps and tuples are resolved first")
            }
            TypeExpr::Array { kind, elem, .. } => {
                let kind = match kind {
                    ArrayKindExpr::Dynamic => ArrayKind::Dynamic,
                    ArrayKindExpr::Fixed(n) => ArrayKind::Fixed(self.array_len(n)?),
                    ArrayKindExpr::Limited(n) => ArrayKind::Limited(self.array_len(n)?),
                };
                (Some(kind), Some(&**elem))
            }
        };

        let Some(kind) = kind else {
            // Not an array.
            if let Some((_, a)) = layout {
                self.diags.push(
                    Diagnostic::error(
                        a.span,
                        format!(
                            "layout annotation `#{}` on a field that is not an array",
                            a.name.name
                        ),
                    )
                    .with_label("only arrays have a layout")
                    .with_hint("remove the annotation"),
                );
            }
            if let Some(a) = string_attr {
                self.string_misuse(a, "this field is not an array");
            }
            let TypeExpr::Named(id) = &f.ty else {
                unreachable!()
            };
            return Some(match self.lookup(id)? {
                Named::Primitive(p, _) => FieldType::Scalar(p),
                Named::Enum(e) => FieldType::Enum(e),
                Named::Struct(s) => FieldType::Struct(s),
                Named::Union(u) => FieldType::Union(u),
            });
        };

        self.array_type(f.ty.span(), kind, elem_expr, layout, string_attr, packed)
            .map(FieldType::Array)
    }

    /// The array of `kind` whose elements are `elem_expr` (`None`: the
    /// `char`s of `string`). An element that is itself an array (`[][]T`,
    /// `[]string`, docs/idl.md §3.1) is resolved recursively and stored in
    /// `Schema::arrays`; the layout annotation and `@string` apply to the
    /// innermost array, the one that holds the values. `packed`: an array
    /// of structs is AoS by default (see `field_type`).
    fn array_type(
        &mut self,
        span: Span,
        kind: ArrayKind,
        elem_expr: Option<&TypeExpr>,
        layout: Option<(ArrayLayout, &ast::Attr)>,
        string_attr: Option<&ast::Attr>,
        packed: bool,
    ) -> Option<ArrayType> {
        let inner = match elem_expr {
            Some(TypeExpr::Array {
                kind: inner_kind,
                elem,
                span: inner_span,
            }) => Some((inner_kind, Some(&**elem), *inner_span)),
            Some(TypeExpr::Named(id)) if id.name == "string" => {
                Some((&ArrayKindExpr::Dynamic, None, id.span))
            }
            _ => None,
        };
        if let Some(
            map @ TypeExpr::Map {
                key,
                value,
                span: map_span,
            },
        ) = elem_expr
        {
            return self.array_of_maps(span, kind, map, key, value, *map_span);
        }
        if let Some((inner_kind, inner_elem, inner_span)) = inner {
            return self.array_of_arrays(
                span,
                kind,
                (inner_kind, inner_elem, inner_span),
                layout,
                string_attr,
            );
        }
        // `string` is `[]char`.
        let (elem, char_text) = match elem_expr {
            None => (ElemType::Scalar(Primitive::U8), true),
            Some(TypeExpr::Array { .. }) => unreachable!("arrays of arrays are resolved above"),
            Some(TypeExpr::Map { .. }) => unreachable!("arrays of maps are resolved above"),
            Some(TypeExpr::Tuple { elems, span }) => {
                let name = self.field.clone();
                (
                    ElemType::Struct(self.tuple_struct(&name, elems, *span)?),
                    false,
                )
            }
            Some(TypeExpr::Named(id)) => match self.lookup(id)? {
                Named::Primitive(p, text) => (ElemType::Scalar(p), text),
                Named::Enum(e) => (ElemType::Enum(e), false),
                Named::Struct(s) => (ElemType::Struct(s), false),
                Named::Union(u) => (ElemType::Union(u), false),
            },
        };

        let mut text = char_text.then_some(Text::Utf8);
        if let Some(a) = string_attr {
            match elem {
                ElemType::Scalar(Primitive::U8) => text = Some(Text::Utf8),
                ElemType::Scalar(Primitive::U16) => text = Some(Text::Utf16),
                _ => self.string_misuse(a, "the elements are not `u8` or `u16`"),
            }
        }

        let is_fixed = matches!(kind, ArrayKind::Fixed(_));
        if is_fixed {
            let what = match elem {
                ElemType::Struct(s) if self.schema.structs[s].kind == StructKind::Table => {
                    Some("a table")
                }
                ElemType::Union(_) => Some("a union"),
                _ => None,
            };
            if let Some(what) = what {
                self.diags.push(
                    Diagnostic::error(span, format!("a fixed array cannot hold {what}"))
                        .with_label("fixed arrays are embedded in place")
                        .with_hint("use a dynamic array `[]T` or a limited array `[<N]T`"),
                );
                return None;
            }
            if let Some((_, a)) = layout {
                self.diags.push(
                    Diagnostic::error(
                        a.span,
                        format!("`#{}` does not apply to a fixed array", a.name.name),
                    )
                    .with_label("fixed arrays are always embedded in place")
                    .with_hint("remove the annotation, or use `[]T` / `[<N]T`"),
                );
            }
        }

        let default_layout = match elem {
            ElemType::Scalar(_) | ElemType::Enum(_) | ElemType::Array(_) => ArrayLayout::Plain,
            ElemType::Struct(_) if is_fixed || packed => ArrayLayout::Aos,
            ElemType::Struct(_) | ElemType::Union(_) => ArrayLayout::Soa,
        };
        let mut chosen = default_layout;
        if let (Some((l, a)), false) = (layout, is_fixed) {
            let ok = match (elem, l) {
                (ElemType::Scalar(_) | ElemType::Enum(_), _) => {
                    self.diags.push(
                        Diagnostic::error(
                            a.span,
                            format!(
                                "`#{}` applies to arrays of structs or unions, not of scalars",
                                a.name.name
                            ),
                        )
                        .with_label("arrays of scalars are always contiguous")
                        .with_hint("remove the annotation"),
                    );
                    false
                }
                (ElemType::Struct(_), ArrayLayout::BoVoA | ArrayLayout::BoVoS) => {
                    self.diags.push(
                        Diagnostic::error(
                            a.span,
                            format!("`#{}` applies only to arrays of unions", a.name.name),
                        )
                        .with_label("this is an array of structs")
                        .with_hint("use #soa or #aos for arrays of structs"),
                    );
                    false
                }
                _ => true,
            };
            if ok {
                chosen = l;
            }
        }
        Some(ArrayType {
            elem,
            kind,
            layout: chosen,
            text,
        })
    }

    /// `[]map<K, V>` (docs/idl.md §3.2): an array of arrays whose elements
    /// are maps, each an array of the map's entries (format.md §5.4, §5.5).
    /// The entry struct is named after the field and `Item`.
    fn array_of_maps(
        &mut self,
        span: Span,
        kind: ArrayKind,
        map: &TypeExpr,
        key: &TypeExpr,
        value: &TypeExpr,
        map_span: Span,
    ) -> Option<ArrayType> {
        self.no_fixed_outer(span, kind, "use a limited array of maps: `[<N]map<K, V>`")?;
        let element = declared::part(format!("{}Item", self.field), map, Vec::new(), map_span);
        let FieldType::Array(inner) = self.map_type(&element, key, value)? else {
            unreachable!("a map is an array of its entries")
        };
        Some(self.array_of(kind, inner))
    }

    /// A fixed array holds no arrays (an array reference is not fixed
    /// data): `None` after reporting it.
    fn no_fixed_outer(&mut self, span: Span, kind: ArrayKind, hint: &str) -> Option<()> {
        if !matches!(kind, ArrayKind::Fixed(_)) {
            return Some(());
        }
        self.diags.push(
            Diagnostic::error(span, "a fixed array cannot hold an array")
                .with_label("fixed arrays are embedded in place")
                .with_hint(hint.to_string()),
        );
        None
    }

    /// The array of `kind` whose elements are arrays of type `inner`.
    fn array_of(&mut self, kind: ArrayKind, inner: ArrayType) -> ArrayType {
        self.schema.arrays.push(inner);
        ArrayType {
            elem: ElemType::Array(self.schema.arrays.len() - 1),
            kind,
            layout: ArrayLayout::Plain,
            text: None,
        }
    }

    /// `[]A` where `A` is itself a dynamic or limited array (docs/idl.md
    /// §3.1): the outer array holds the inner arrays' references, one after
    /// another. Fixed arrays take no part: an array reference is not fixed
    /// data, and `[][N]T` is an inline struct's job.
    fn array_of_arrays(
        &mut self,
        span: Span,
        kind: ArrayKind,
        (inner_kind, inner_elem, inner_span): (&ArrayKindExpr, Option<&TypeExpr>, Span),
        layout: Option<(ArrayLayout, &ast::Attr)>,
        string_attr: Option<&ast::Attr>,
    ) -> Option<ArrayType> {
        self.no_fixed_outer(span, kind, "use a limited array of arrays: `[<N][]T`")?;
        let inner_kind = match inner_kind {
            ArrayKindExpr::Dynamic => ArrayKind::Dynamic,
            ArrayKindExpr::Limited(n) => ArrayKind::Limited(self.array_len(n)?),
            ArrayKindExpr::Fixed(_) => {
                self.diags.push(
                    Diagnostic::error(inner_span, "an array of fixed arrays is not supported")
                        .with_label("fixed array as an element")
                        .with_hint(
                            "use limited arrays (`[][<N]T`), or wrap the fixed array in an \
                             inline struct: `struct Row inline { Cells [4]f32; }`",
                        ),
                );
                return None;
            }
        };
        let inner = self.array_type(
            inner_span,
            inner_kind,
            inner_elem,
            layout,
            string_attr,
            false,
        )?;
        Some(self.array_of(kind, inner))
    }

    /// `?T` (docs/idl.md §4.3.2): anything but a union, whose tag 0
    /// already means "no value", and a fixed array.
    fn optional_allowed(&mut self, question: Span, ty: &FieldType) -> bool {
        if let FieldType::Array(ArrayType {
            kind: ArrayKind::Fixed(_),
            ..
        }) = ty
        {
            self.diags.push(
                Diagnostic::error(question, "a fixed array cannot be optional")
                    .with_label("optional")
                    .with_hint(
                        "use an optional limited array `?[<N]T`, or put the array in an \
                         inline struct and make that optional",
                    ),
            );
            return false;
        }
        let FieldType::Union(u) = ty else {
            return true;
        };
        let name = self.schema.unions[*u].name.clone();
        self.diags.push(
            Diagnostic::error(question, format!("union `{name}` is optional already"))
                .with_label("tag 0 means no value")
                .with_hint("remove the `?`: a union field without a value reads as none"),
        );
        false
    }

    fn string_misuse(&mut self, a: &ast::Attr, why: &str) {
        self.diags.push(
            Diagnostic::error(a.span, "`@string` applies to arrays of `u8` or `u16`")
                .with_label(why.to_string())
                .with_hint("use `[]u8 @string` (UTF-8), `[]u16 @string` (UTF-16) or `[]char`"),
        );
    }

    fn array_len(&mut self, n: &ast::IntLit) -> Option<u32> {
        let v = n.value?;
        if v < 1 || v > u32::MAX as i128 {
            self.diags.push(
                Diagnostic::error(n.span, format!("array length {v} is out of range"))
                    .with_label("must be 1..=4294967295")
                    .with_hint("an array length or limit is a positive 32-bit number"),
            );
            return None;
        }
        Some(v as u32)
    }

    fn define_union(&mut self, id: UnionId, decl: &ast::UnionDecl) {
        use Primitive::*;
        let tag = match &decl.tag {
            Some(t) => self
                .integer_type(t, "a union tag type", &[U8, U16, U32])
                .unwrap_or(U32),
            None => U32,
        };
        let max = tag.integer_range().expect("integer").1;
        let mut variants: Vec<UnionVariant> = Vec::new();
        // Where each variant type and tag is in `variants`.
        let mut by_type: HashMap<StructId, usize> = HashMap::new();
        let mut by_tag: HashMap<i128, usize> = HashMap::new();
        let mut next: i128 = 1;
        for v in &decl.variants {
            let Some(named) = self.lookup(&v.ty) else {
                continue;
            };
            let Named::Struct(ty) = named else {
                self.diags.push(
                    Diagnostic::error(
                        v.ty.span,
                        format!("union variant `{}` is not a struct", v.ty.name),
                    )
                    .with_label("variants must be structs")
                    .with_hint(format!(
                        "wrap it: `struct {}Value inline {{ Value {}; }}`",
                        v.ty.name, v.ty.name
                    )),
                );
                continue;
            };
            let value = match &v.tag {
                Some(lit) => match lit.value {
                    Some(x) => x,
                    None => continue,
                },
                None => next,
            };
            next = value + 1;
            let span = v.tag.as_ref().map(|l| l.span).unwrap_or(v.ty.span);
            if value == 0 {
                self.diags.push(
                    Diagnostic::error(span, "union tag 0 is reserved for \"no value\"")
                        .with_label("reserved")
                        .with_hint("number variants from 1"),
                );
                continue;
            }
            if value < 0 || value > max {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "tag {value} is out of range for `{}` (1..={max})",
                            tag.name()
                        ),
                    )
                    .with_label("does not fit")
                    .with_hint("use a smaller tag or a wider tag type"),
                );
                continue;
            }
            if let Some(prev) = by_type.get(&ty).map(|&k| &variants[k]) {
                self.diags.push(
                    Diagnostic::error(
                        v.ty.span,
                        format!("duplicate union variant `{}`", v.ty.name),
                    )
                    .with_label("listed again here")
                    .with_secondary(prev.span, "first listed here")
                    .with_hint("each struct can be a variant once"),
                );
                continue;
            }
            if let Some(prev) = by_tag.get(&value).map(|&k| &variants[k]) {
                let prev_name = self.schema.structs[prev.ty].name.clone();
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "union variants `{prev_name}` and `{}` both have tag {value}",
                            v.ty.name
                        ),
                    )
                    .with_label("same tag as an earlier variant")
                    .with_secondary(prev.span, format!("`{prev_name}` is {value}"))
                    .with_hint("give each variant a distinct tag"),
                );
                continue;
            }
            by_type.insert(ty, variants.len());
            by_tag.insert(value, variants.len());
            variants.push(UnionVariant {
                ty,
                tag: value as u32,
                span: v.ty.span,
            });
        }
        if decl.variants.is_empty() {
            self.diags.push(
                Diagnostic::error(
                    decl.name.span,
                    format!("union `{}` has no variants", decl.name.name),
                )
                .with_label("empty")
                .with_hint("list the struct types it can hold: `union Shape { Circle; Square; }`"),
            );
        }
        let u = &mut self.schema.unions[id];
        u.tag = tag;
        u.variants = variants;
    }

    fn define_interface(&mut self, decl: &ast::InterfaceDecl) {
        let mut dynamic = false;
        let mut pattern: Option<(Pattern, Span)> = None;
        for (opt, arg) in &decl.options {
            if let (Some(a), false) = (arg, opt.name == "pool") {
                self.diags.push(
                    Diagnostic::error(a.span, format!("`{}` takes no argument", opt.name))
                        .with_label("unexpected argument")
                        .with_hint("only `pool(N)` has an argument"),
                );
            }
            let p = match opt.name.as_str() {
                "dynamic" => {
                    dynamic = true;
                    None
                }
                "direct" => Some(Pattern::Direct),
                "fanout" => Some(Pattern::FanOut),
                "singleton" => Some(Pattern::Singleton),
                "pool" => match arg.as_ref().and_then(|a| a.value) {
                    Some(n) if (1..=4096).contains(&n) => Some(Pattern::Pool(n as u32)),
                    _ => {
                        let span = arg.as_ref().map(|a| a.span).unwrap_or(opt.span);
                        self.diags.push(
                            Diagnostic::error(span, "pool size must be between 1 and 4096")
                                .with_label("invalid pool size")
                                .with_hint("write the number of instances, e.g. `pool(4)`"),
                        );
                        None
                    }
                },
                other => {
                    self.diags.push(
                        Diagnostic::error(opt.span, format!("unknown interface option `{other}`"))
                            .with_label("not an option")
                            .with_hint("use dynamic, direct, fanout, singleton or pool(N)"),
                    );
                    None
                }
            };
            if let Some(p) = p {
                if let Some((_, first)) = pattern {
                    self.diags.push(
                        Diagnostic::error(opt.span, "an interface has one communication pattern")
                            .with_label("second pattern")
                            .with_secondary(first, "first pattern")
                            .with_hint("keep one of direct, fanout, singleton, pool(N)"),
                    );
                } else {
                    pattern = Some((p, opt.span));
                }
            }
        }

        let mut member_names: HashMap<String, Span> = HashMap::new();
        let mut check_member = |diags: &mut Vec<Diagnostic>, name: &ast::Ident| {
            if let Some(first) = member_names.get(name.name.as_str()) {
                diags.push(
                    Diagnostic::error(
                        name.span,
                        format!(
                            "duplicate member `{}` in interface `{}`",
                            name.name, decl.name.name
                        ),
                    )
                    .with_label("declared again here")
                    .with_secondary(*first, "first declared here")
                    .with_hint("rename one of them"),
                );
                false
            } else {
                member_names.insert(name.name.clone(), name.span);
                true
            }
        };

        let mut memories = Vec::new();
        let mut local: HashMap<String, MemoryId> = HashMap::new();
        for m in &decl.memories {
            if !check_member(&mut self.diags, &m.name) {
                continue;
            }
            if let Some(memory) = self.memory(m) {
                let id = self.schema.memories.len();
                self.schema.order.push(Item::Memory(id));
                self.schema.memories.push(memory);
                local.insert(m.name.name.clone(), id);
                memories.push(id);
            }
        }

        let mut functions = Vec::new();
        for f in &decl.functions {
            if !check_member(&mut self.diags, &f.name) {
                continue;
            }
            let params: Vec<Param> = f
                .params
                .iter()
                .filter_map(|p| self.param(p, &local))
                .collect();
            let mut results: Vec<Param> = f
                .results
                .iter()
                .filter_map(|p| self.param(p, &local))
                .collect();
            if f.results.len() > 1 {
                self.diags.push(
                    Diagnostic::error(f.results[1].span, "a function returns at most one value")
                        .with_label("second result")
                        .with_hint("return one struct that holds every result"),
                );
            }
            functions.push(Function {
                name: f.name.name.clone(),
                params,
                result: if results.is_empty() {
                    None
                } else {
                    Some(results.remove(0))
                },
                span: f.name.span,
                doc: f.doc.clone(),
            });
        }

        self.schema
            .order
            .push(Item::Interface(self.schema.interfaces.len()));
        self.schema.interfaces.push(Interface {
            name: decl.name.name.clone(),
            dynamic,
            pattern: pattern.map(|p| p.0).unwrap_or(Pattern::Direct),
            memories,
            functions,
            span: decl.name.span,
            doc: decl.doc.clone(),
        });
    }

    fn memory(&mut self, m: &ast::MemoryDecl) -> Option<Memory> {
        let mut importer = Access::Read;
        let mut exporter = Access::Read;
        let mut ok = true;
        // Where each side's access was given (its canonical name, the span).
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (side, level) in &m.access {
            let access = match level.name.as_str() {
                "read" | "r" => Access::Read,
                "write" | "rw" | "read_write" => Access::ReadWrite,
                other => {
                    self.diags.push(
                        Diagnostic::error(level.span, format!("unknown memory access `{other}`"))
                            .with_label("expected `read` or `write`")
                            .with_hint("`write` includes reading"),
                    );
                    ok = false;
                    continue;
                }
            };
            let canonical = match side.name.as_str() {
                "import" | "importer" => "import",
                "export" | "exporter" => "export",
                _ => "",
            };
            if let Some(first) = seen.get(canonical).filter(|_| !canonical.is_empty()) {
                self.diags.push(
                    Diagnostic::error(
                        side.span,
                        format!("access of the `{canonical}` side is given twice"),
                    )
                    .with_label("second access")
                    .with_secondary(*first, "first access")
                    .with_hint(
                        "give each side's access once: `(import: read, export: write, PAGES)`",
                    ),
                );
                ok = false;
                continue;
            }
            seen.entry(canonical).or_insert(side.span);
            match side.name.as_str() {
                "import" | "importer" => importer = access,
                "export" | "exporter" => exporter = access,
                other => {
                    self.diags.push(
                        Diagnostic::error(side.span, format!("unknown memory side `{other}`"))
                            .with_label("expected `import` or `export`")
                            .with_hint(
                                "write `name: memory (import: read, export: write, PAGES);`",
                            ),
                    );
                    ok = false;
                }
            }
        }
        let pages = match &m.pages {
            None => {
                self.diags.push(
                    Diagnostic::error(
                        m.name.span,
                        format!("memory `{}` needs a maximum size", m.name.name),
                    )
                    .with_label("no size given")
                    .with_hint(
                        "add the maximum size in 64 KiB pages: `(import: read, export: write, 16)`",
                    ),
                );
                return None;
            }
            Some(lit) => match lit.value {
                Some(v) if (1..=65536).contains(&v) => v as u32,
                _ => {
                    self.diags.push(
                        Diagnostic::error(
                            lit.span,
                            "memory size must be between 1 and 65536 pages",
                        )
                        .with_label("out of range")
                        .with_hint(
                            "one page is 64 KiB; 65536 pages is the whole 4 GiB address space",
                        ),
                    );
                    return None;
                }
            },
        };
        ok.then(|| Memory {
            name: m.name.name.clone(),
            exporter,
            importer,
            max_pages: pages,
            span: m.name.span,
            doc: m.doc.clone(),
        })
    }

    fn param(&mut self, p: &ast::ParamDecl, memories: &HashMap<String, MemoryId>) -> Option<Param> {
        let named = self.lookup(&p.ty)?;
        let Named::Struct(ty) = named else {
            self.diags.push(
                Diagnostic::error(
                    p.ty.span,
                    format!("parameter type must be a struct, found `{}`", p.ty.name),
                )
                .with_label("not a struct")
                .with_hint("wrap the value in a struct; messages are the unit of exchange"),
            );
            return None;
        };
        let memory = match &p.memory {
            None => None,
            Some(m) => match memories.get(&m.name) {
                Some(id) => Some(*id),
                None => {
                    self.diags.push(
                        Diagnostic::error(m.span, format!("unknown memory `{}`", m.name))
                            .with_label("not declared in this interface")
                            .with_hint(format!(
                                "declare it: `{}: memory (import: read, export: write, 1);`",
                                m.name
                            )),
                    );
                    return None;
                }
            },
        };
        Some(Param {
            name: p.name.name.clone(),
            ty,
            memory,
            span: p.span,
        })
    }

    /// Sizes must fit 32-bit offsets. Computed with the format's rules
    /// (natural alignment, inline structs padded to 8).
    fn check_sizes(&mut self) {
        let n = self.schema.structs.len();
        let mut memo: Vec<Option<u64>> = vec![None; n];
        for id in 0..n {
            let size = self.struct_size(id, &mut memo, 0);
            let s = &self.schema.structs[id];
            if size > MAX_SIZE {
                self.diags.push(
                    Diagnostic::error(
                        s.span,
                        format!("struct `{}` is too large: {size} bytes", s.name),
                    )
                    .with_label("exceeds the 4 GiB message limit")
                    .with_hint("use dynamic arrays `[]T` instead of large fixed arrays"),
                );
            }
        }
    }

    fn struct_size(&self, id: StructId, memo: &mut Vec<Option<u64>>, depth: usize) -> u64 {
        if let Some(s) = memo[id] {
            return s;
        }
        // Cycles and chains deeper than the limit are reported by
        // `check_contained`; cut them off here.
        if depth > crate::MAX_NESTING {
            return 0;
        }
        let mut offset: u64 = if self.schema.structs[id].kind == StructKind::Table {
            4
        } else {
            0
        };
        let fields = self.schema.structs[id].fields.clone();
        for f in &fields {
            let (mut size, align) = self.field_size(&f.ty, memo, depth + 1);
            let table = matches!(f.ty, FieldType::Struct(s)
                if self.schema.structs[s].kind == StructKind::Table);
            if f.optional && !table {
                // A presence byte, then the value at its alignment
                // (format.md §4.2).
                size = size.saturating_add(align);
            }
            offset = offset.div_ceil(align).saturating_mul(align);
            offset = offset.saturating_add(size);
        }
        let size = offset.div_ceil(8).saturating_mul(8);
        memo[id] = Some(size);
        size
    }

    fn field_size(&self, ty: &FieldType, memo: &mut Vec<Option<u64>>, depth: usize) -> (u64, u64) {
        match ty {
            FieldType::Scalar(p) => (p.size() as u64, p.size() as u64),
            FieldType::Enum(e) => {
                let s = self.schema.enums[*e].repr.size() as u64;
                (s, s)
            }
            FieldType::Struct(s) if self.schema.structs[*s].kind == StructKind::Inline => {
                (self.struct_size(*s, memo, depth), 8)
            }
            FieldType::Struct(_) => (4, 4),
            FieldType::Union(_) => (8, 4),
            FieldType::Array(a) => match a.kind {
                ArrayKind::Fixed(n) => {
                    let (size, align) = match a.elem {
                        ElemType::Scalar(p) => (p.size() as u64, p.size() as u64),
                        ElemType::Enum(e) => {
                            let s = self.schema.enums[e].repr.size() as u64;
                            (s, s)
                        }
                        ElemType::Struct(s) => (self.struct_size(s, memo, depth), 8),
                        ElemType::Union(_) => (8, 4),
                        // Refused by the checker (no fixed arrays of arrays).
                        ElemType::Array(_) => (12, 4),
                    };
                    (size.saturating_mul(n as u64), align)
                }
                _ => (12, 4),
            },
        }
    }
}

/// A file has exactly one `karmem NAME;` header: errors when it has none
/// (reported at `file_start`, where the file begins) or several. Imported
/// files are held to this too, though only the root's header counts
/// (docs/idl.md §4.5).
pub(crate) fn header_count(headers: &[ast::Header], file_start: usize) -> Vec<Diagnostic> {
    let Some(first) = headers.first() else {
        return vec![Diagnostic::error(
            Span::new(file_start, file_start),
            "missing `karmem NAME;` header",
        )
        .with_label("the schema should start here")
        .with_hint("start the file with `karmem NAME;`, e.g. `karmem app;`")];
    };
    headers
        .iter()
        .skip(1)
        .map(|extra| {
            Diagnostic::error(extra.span, "duplicate `karmem` header")
                .with_label("second header")
                .with_secondary(first.span, "first header here")
                .with_hint("a schema file has exactly one `karmem NAME;` header")
        })
        .collect()
}

fn one_of(list: &[&str]) -> String {
    match list {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|s| format!("`{s}`")).collect();
            format!("{} or `{last}`", init.join(", "))
        }
    }
}

/// The layout annotations of array fields (docs/idl.md).
const LAYOUT_ANNOTATIONS: &[&str] = &["soa", "aos", "bovoa", "bovos"];

/// The attributes a schema header may carry (docs/idl.md §4.1): the Go
/// package name, the C prefix, the Zig file name, and two of the first
/// Karmem's, accepted without effect.
const SCHEMA_ATTRIBUTES: &[&str] = &[
    "golang.package",
    "zig.name",
    "packed",
    "assemblyscript.import",
    "c.prefix",
];

/// The `@` attributes a field may carry (docs/idl.md).
const FIELD_ATTRIBUTES: &[&str] = &["string"];

/// Edit distance (case-insensitive; a swap of two neighbours is one edit),
/// for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_lowercase(), &b.to_lowercase())
}

/// The candidate closest to `name`, if it is close enough to be a typo:
/// at most a third of the name's length away (and at least one edit).
/// `budget`: the edit-distance cells (one name's length times the
/// other's) still to spend on hints, spent here; `None` when it runs out,
/// so that many unknown names against many declared ones, or very long
/// names, cannot make the hints quadratic.
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    budget: &mut usize,
) -> Option<&'c str> {
    let max = (name.len() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // The distance is at least the difference in length (names are
        // ASCII, so bytes are characters).
        if name.len().abs_diff(c.len()) > max {
            continue;
        }
        let cost = name.len().max(1) * c.len().max(1);
        if cost > *budget {
            *budget = 0;
            return None;
        }
        *budget -= cost;
        let d = edit_distance(name, c);
        if d <= max && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The hint for an unknown annotation `{sigil}{name}`: the closest known
/// one, else `otherwise` (which lists them).
fn did_you_mean(sigil: char, name: &str, known: &[&str], otherwise: &str) -> String {
    // A handful of known words: no budget to keep.
    match closest(name, known.iter().copied(), &mut usize::MAX.clone()) {
        Some(s) => format!("did you mean `{sigil}{s}`?"),
        None => otherwise.to_string(),
    }
}

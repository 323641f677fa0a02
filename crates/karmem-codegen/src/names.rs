//! Identifier conventions shared by backends: the casing helpers, and one
//! [`Namer`] driven by a per-language [`Naming`] config (type, field and
//! enum-value casing, reserved words and how a clash is escaped, C's
//! prefix). Every backend names schema items through its language's const
//! config ([`RUST`], [`GO`], [`C`], [`ZIG`], [`TYPESCRIPT`],
//! [`ASSEMBLYSCRIPT`], [`PYTHON`]).

use std::collections::HashMap;

use karmem_schema::model::{EnumId, Schema, StructId, UnionId};

/// `MonsterData` → `monster_data`, `ID` → `id`, `HTTPServer` → `http_server`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `another_struct` → `AnotherStruct`; already-camel names are kept.
pub fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// `TikTok` → `TIK_TOK`.
pub fn screaming(name: &str) -> String {
    snake(name).to_uppercase()
}

/// How a name's words are cased.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// As declared.
    Keep,
    /// `monster_data` ([`snake`]).
    Snake,
    /// `MONSTER_DATA` ([`screaming`]).
    Screaming,
    /// `MonsterData` ([`camel`]: already-camel names are kept).
    Pascal,
    /// `monsterData`: the [`snake`] words joined, all but the first
    /// capitalised (`ID` → `id`).
    LowerCamel,
}

impl Case {
    pub fn apply(self, name: &str) -> String {
        match self {
            Case::Keep => name.to_string(),
            Case::Snake => snake(name),
            Case::Screaming => screaming(name),
            Case::Pascal => camel(name),
            Case::LowerCamel => {
                let mut out = String::new();
                for (i, part) in snake(name).split('_').filter(|p| !p.is_empty()).enumerate() {
                    let mut cs = part.chars();
                    if let Some(f) = cs.next() {
                        if i == 0 {
                            out.push(f);
                        } else {
                            out.extend(f.to_uppercase());
                        }
                        out.extend(cs);
                    }
                }
                out
            }
        }
    }
}

/// `part` (one `_`-free part of a Pascal-cased name) with each word that
/// is one of `initialisms` (ignoring ASCII case) written upper-case:
/// `UserId` → `UserID`, `HttpStatus` → `HTTPStatus`, `Url2` → `URL2`. A
/// word ends before an upper-case letter that follows a lower-case letter
/// or a digit, and before a digit that follows a lower-case letter; a word
/// that is an initialism with the digits after it counts too (`Utf8` →
/// `UTF8`). So `IDs`, `UserIDs` and `HTTPServer` are kept (their words
/// `IDs` and `HTTPServer` are no initialisms) and `Ids` stays `Ids`.
/// staticcheck's ST1003 ends words wherever a lower-case letter is
/// followed by anything else, so each of its words is one or more of these
/// and it finds nothing to change in the result.
pub fn upper_initialisms(part: &str, initialisms: &[&str]) -> String {
    let chars: Vec<char> = part.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut start = 0;
    for i in 1..=chars.len() {
        let ends = i == chars.len()
            || (chars[i].is_uppercase()
                && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit()))
            || (chars[i].is_ascii_digit() && chars[i - 1].is_lowercase());
        if ends {
            words.push(chars[start..i].iter().collect());
            start = i;
        }
    }
    let is = |w: &str| initialisms.iter().any(|n| n.eq_ignore_ascii_case(w));
    let mut out = String::with_capacity(part.len());
    for (i, word) in words.iter().enumerate() {
        let digits: String = words
            .get(i + 1)
            .map(|next| next.chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default();
        if is(word) || (!digits.is_empty() && is(&format!("{word}{digits}"))) {
            out.push_str(&word.to_ascii_uppercase());
        } else {
            out.push_str(word);
        }
    }
    out
}

/// How a name that may not be used as it is gets changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escape {
    /// `name_`.
    Suffix(&'static str),
    /// `Kname`, `_8bit`.
    Prefix(&'static str),
    /// `@"name"` (Zig).
    Quote,
}

impl Escape {
    pub fn apply(self, name: &str) -> String {
        match self {
            Escape::Suffix(s) => format!("{name}{s}"),
            Escape::Prefix(p) => format!("{p}{name}"),
            Escape::Quote => format!("@\"{name}\""),
        }
    }
}

/// How one kind of identifier (types, fields, enum values) is made from a
/// schema name: cased, reduced to identifier characters, then escaped
/// once: as a non-identifier, a reserved word, or a clash with a name the
/// generated code takes for itself.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub case: Case,
    /// Characters other than ASCII letters and digits become `_`.
    pub ascii: bool,
    /// What an empty result becomes (`X` in Go and Zig; `""` keeps it).
    pub empty: &'static str,
    /// How a result that is empty or starts with a digit is escaped
    /// (`None`: it is kept).
    pub not_ident: Option<Escape>,
    /// Words the language reserves.
    pub keywords: &'static [&'static [&'static str]],
    /// Zig's arbitrary-width integer types (`u8`, `i7`) are reserved too.
    pub int_types: bool,
    pub keyword_escape: Escape,
    /// Names the generated code takes for its own members (methods,
    /// declarations), and prefixes it keeps for itself.
    pub members: &'static [&'static [&'static str]],
    pub member_prefixes: &'static [&'static str],
    pub clash_escape: Escape,
    /// Words written all upper-case wherever they are a word of the name
    /// ([`upper_initialisms`]; Go's `ID`, `URL`). Only for [`Case::Pascal`],
    /// whose words these are.
    pub initialisms: &'static [&'static str],
}

impl Rule {
    /// A rule that only cases (no reserved words).
    pub const fn cased(case: Case) -> Rule {
        Rule {
            case,
            ascii: false,
            empty: "",
            not_ident: None,
            keywords: &[],
            int_types: false,
            keyword_escape: Escape::Suffix("_"),
            members: &[],
            member_prefixes: &[],
            clash_escape: Escape::Suffix("_"),
            initialisms: &[],
        }
    }

    /// The identifier for schema name `name`.
    pub fn apply(&self, name: &str) -> String {
        let mut out = if self.initialisms.is_empty() {
            self.case.apply(name)
        } else {
            // Part by part: the Pascal case of `name` is that of its
            // `_`-separated parts joined, and a part's start is a word's.
            debug_assert_eq!(self.case, Case::Pascal);
            name.split('_')
                .map(|part| upper_initialisms(&self.case.apply(part), self.initialisms))
                .collect()
        };
        if self.ascii {
            out = out
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
        }
        if out.is_empty() {
            out = self.empty.to_string();
        }
        self.escape(out, &[])
    }

    /// `ident` (already cased) escaped if it is no identifier, a reserved
    /// word, or one of the members (or of `taken`).
    pub fn escape(&self, mut ident: String, taken: &[String]) -> String {
        if let Some(e) = self.not_ident {
            if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
                ident = e.apply(&ident);
            }
        }
        if self.is_keyword(&ident) {
            self.keyword_escape.apply(&ident)
        } else if self.members.iter().any(|l| l.contains(&ident.as_str()))
            || self.member_prefixes.iter().any(|p| ident.starts_with(p))
            || taken.contains(&ident)
        {
            self.clash_escape.apply(&ident)
        } else {
            ident
        }
    }

    fn is_keyword(&self, ident: &str) -> bool {
        let int_type = self.int_types
            && ident.len() > 1
            && (ident.starts_with('u') || ident.starts_with('i'))
            && ident[1..].chars().all(|c| c.is_ascii_digit());
        int_type || self.keywords.iter().any(|l| l.contains(&ident))
    }
}

/// One language's naming conventions.
#[derive(Clone, Copy, Debug)]
pub struct Naming {
    /// Struct, enum and union names.
    pub types: Rule,
    /// Field names (and a union's member holding a variant, named after
    /// the variant's struct).
    pub fields: Rule,
    /// Enum value (and union tag) names.
    pub values: Rule,
    /// Enum values are named after their type: `(upper, sep)` gives
    /// `{Type}{sep}{Value}`, the type's name upper-cased when `upper`
    /// (Go `TeamOrcs`, C `APP_TEAM_ORCS`).
    pub qualified_values: Option<(bool, &'static str)>,
    /// Type names start with a prefix and `_`: this attribute of the
    /// schema, else its package, as a lower-case identifier (C).
    pub prefix_attribute: Option<&'static str>,
    /// A union gives each of its variant structs the method
    /// `{Union}{suffix}` (Go `ShapeTag`), which a field may not take.
    pub variant_method: Option<&'static str>,
    /// The fields of a tuple struct are positional (`0`, `1`: Rust).
    pub positional_tuples: bool,
}

/// The names of one schema's items in one language.
#[derive(Clone, Debug)]
pub struct Namer<'a> {
    pub config: &'static Naming,
    s: &'a Schema,
    prefix: String,
    /// The methods each struct gets from the unions it is a variant of
    /// (found once, not by a scan of every union for every field).
    taken: HashMap<StructId, Vec<String>>,
}

impl<'a> Namer<'a> {
    pub fn new(config: &'static Naming, s: &'a Schema) -> Self {
        let prefix = config
            .prefix_attribute
            .map(|a| module_ident(s.attribute(a).unwrap_or(&s.package), &[]))
            .unwrap_or_default();
        let mut n = Namer {
            config,
            s,
            prefix,
            taken: HashMap::new(),
        };
        if let Some(suffix) = config.variant_method {
            for (id, u) in s.unions.iter().enumerate() {
                let method = format!("{}{suffix}", n.union_name(id));
                for v in &u.variants {
                    n.taken.entry(v.ty).or_default().push(method.clone());
                }
            }
        }
        n
    }

    /// The prefix of type names (C), empty elsewhere.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The type name for schema name `name`.
    pub fn type_ident(&self, name: &str) -> String {
        let ident = self.config.types.apply(name);
        if self.config.prefix_attribute.is_some() {
            format!("{}_{ident}", self.prefix)
        } else {
            ident
        }
    }
    pub fn struct_name(&self, id: StructId) -> String {
        self.type_ident(&self.s.structs[id].name)
    }
    pub fn enum_name(&self, id: EnumId) -> String {
        self.type_ident(&self.s.enums[id].name)
    }
    pub fn union_name(&self, id: UnionId) -> String {
        self.type_ident(&self.s.unions[id].name)
    }

    /// The name of field `index` of struct `id`, moved aside when it would
    /// take a name the generated code gives the struct.
    pub fn field(&self, id: StructId, index: usize) -> String {
        let st = &self.s.structs[id];
        if self.config.positional_tuples && st.tuple {
            return index.to_string();
        }
        let rule = &self.config.fields;
        let ident = rule.apply(&st.fields[index].name);
        match self.taken.get(&id) {
            Some(taken) => rule.escape(ident, taken),
            None => ident,
        }
    }

    /// The member of a union value holding variant struct `ty`.
    pub fn variant_member(&self, ty: StructId) -> String {
        self.config.fields.apply(&self.s.structs[ty].name)
    }

    /// `{Type}{sep}{value}` (or `value`) for a value named `name` of the type
    /// named `ty` in this language.
    fn qualified(&self, ty: String, name: &str) -> String {
        let value = self.config.values.apply(name);
        match self.config.qualified_values {
            Some((true, sep)) => format!("{}{sep}{value}", ty.to_uppercase()),
            Some((false, sep)) => format!("{ty}{sep}{value}"),
            None => value,
        }
    }

    /// Value `index` of enum `id` (`ORCS`, `TeamOrcs`, `APP_TEAM_ORCS`).
    pub fn value(&self, id: EnumId, index: usize) -> String {
        let e = &self.s.enums[id];
        self.qualified(self.enum_name(id), &e.variants[index].name)
    }

    /// The tag of variant `ty` of union `id` (`SHAPES_SHAPE_CIRCLE`).
    pub fn tag(&self, id: UnionId, ty: StructId) -> String {
        self.qualified(self.union_name(id), &self.s.structs[ty].name)
    }

    /// Two schema items this language names alike, as a sentence: casing
    /// can merge names the schema keeps apart (Go's `Id` and `ID`, `id`
    /// and `Id`, or `UserId` and `user_id`). Types share one scope with
    /// qualified values and tags (Go's package-level constants); the
    /// values of an enum share one, and the fields of a struct one.
    pub fn clash(&self) -> Option<String> {
        let s = self.s;
        let mut package: Vec<(String, String)> = Vec::new();
        let mut scopes: Vec<Vec<(String, String)>> = Vec::new();
        for (id, st) in s.structs.iter().enumerate() {
            package.push((self.struct_name(id), format!("struct `{}`", st.name)));
            if !(self.config.positional_tuples && st.tuple) {
                scopes.push(
                    (0..st.fields.len())
                        .map(|i| {
                            let f = &st.fields[i].name;
                            (self.field(id, i), format!("field `{f}` of `{}`", st.name))
                        })
                        .collect(),
                );
            }
        }
        let mut values = Vec::new();
        for (id, e) in s.enums.iter().enumerate() {
            package.push((self.enum_name(id), format!("enum `{}`", e.name)));
            let named = (0..e.variants.len()).map(|i| {
                let v = &e.variants[i].name;
                (self.value(id, i), format!("value `{v}` of `{}`", e.name))
            });
            values.push(named.collect::<Vec<_>>());
        }
        for (id, u) in s.unions.iter().enumerate() {
            package.push((self.union_name(id), format!("union `{}`", u.name)));
            let named = u.variants.iter().map(|v| {
                let ty = &s.structs[v.ty].name;
                (
                    self.tag(id, v.ty),
                    format!("the tag of `{ty}` in `{}`", u.name),
                )
            });
            values.push(named.collect::<Vec<_>>());
        }
        if self.config.qualified_values.is_some() {
            package.extend(values.into_iter().flatten());
        } else {
            scopes.extend(values);
        }
        std::iter::once(package).chain(scopes).find_map(|scope| {
            let mut seen: HashMap<&str, &str> = HashMap::new();
            scope.iter().find_map(|(ident, what)| {
                seen.insert(ident, what)
                    .map(|first| format!("{first} and {what} are both named `{ident}`"))
            })
        })
    }
}

/// `raw` lower-cased, other characters than ASCII letters and digits as
/// `_` (`vectors/seed` → `vectors_seed`).
pub fn lower_ident(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A module-level name (Go package, C prefix): [`lower_ident`], `k` before
/// a leading digit or an empty name, `_` after one of `keywords`.
pub fn module_ident(raw: &str, keywords: &[&str]) -> String {
    let mut name = lower_ident(raw);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'k');
    }
    if keywords.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

pub const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Rust: `MonsterData`, fields `monster_data` (`type_`; a tuple struct's
/// `0`), values `MONSTER_DATA`.
pub const RUST: Naming = Naming {
    types: Rule::cased(Case::Pascal),
    fields: Rule {
        keywords: &[RUST_KEYWORDS],
        ..Rule::cased(Case::Snake)
    },
    values: Rule::cased(Case::Screaming),
    qualified_values: None,
    prefix_attribute: None,
    variant_method: None,
    positional_tuples: true,
};

pub const GO_KEYWORDS: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];

/// Go's common initialisms: staticcheck's default list for ST1003 (the Go
/// wiki's "Initialisms"), written all upper-case in Go names.
pub const GO_INITIALISMS: &[&str] = &[
    "ACL", "API", "ASCII", "CPU", "CSS", "DNS", "EOF", "GUID", "HTML", "HTTP", "HTTPS", "ID", "IP",
    "JSON", "QPS", "RAM", "RPC", "SLA", "SMTP", "SQL", "SSH", "TCP", "TLS", "TTL", "UDP", "UI",
    "GID", "UID", "UUID", "URI", "URL", "UTF8", "VM", "XML", "XMPP", "XSRF", "XSS", "SIP", "RTP",
    "AMQP", "DB", "TS",
];

/// Exported Go names: TitleCase with initialisms upper-case (`UserID`,
/// `HTTPStatus`), `X` for nothing.
const GO_EXPORTED: Rule = Rule {
    empty: "X",
    initialisms: GO_INITIALISMS,
    ..Rule::cased(Case::Pascal)
};

/// Go: `MonsterData`, fields `MonsterData` (`Table_` where a method is
/// called so, `ShapeTag_` in a variant of the union `Shape`), values
/// `TeamOrcs`; `id`, `Id` and `ID` all give `ID` (`UserId` gives `UserID`).
/// Exported names are never keywords.
pub const GO: Naming = Naming {
    types: GO_EXPORTED,
    fields: Rule {
        // The object's and the viewer's methods.
        members: &[&["WriteAsRoot", "ReadAsRoot"], &["Table", "Position"]],
        ..GO_EXPORTED
    },
    values: GO_EXPORTED,
    qualified_values: Some((false, "")),
    prefix_attribute: None,
    variant_method: Some("Tag"),
    positional_tuples: false,
};

pub const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
];

/// C: `app_monster_data` (prefix `@c.prefix`, else the package), members
/// `monster_data` (`int_`, and `_x_`: leading underscores are the
/// implementation's), values `APP_TEAM_ORCS`.
pub const C: Naming = Naming {
    types: Rule::cased(Case::Snake),
    fields: Rule {
        keywords: &[C_KEYWORDS],
        member_prefixes: &["_"],
        ..Rule::cased(Case::Snake)
    },
    values: Rule::cased(Case::Screaming),
    qualified_values: Some((true, "_")),
    prefix_attribute: Some("c.prefix"),
    variant_method: None,
    positional_tuples: false,
};

pub const ZIG_KEYWORDS: &[&str] = &[
    "addrspace",
    "align",
    "allowzero",
    "and",
    "anyframe",
    "anytype",
    "asm",
    "break",
    "callconv",
    "catch",
    "comptime",
    "const",
    "continue",
    "defer",
    "else",
    "enum",
    "errdefer",
    "error",
    "export",
    "extern",
    "fn",
    "for",
    "if",
    "inline",
    "linksection",
    "noalias",
    "noinline",
    "nosuspend",
    "opaque",
    "or",
    "orelse",
    "packed",
    "pub",
    "resume",
    "return",
    "struct",
    "suspend",
    "switch",
    "test",
    "threadlocal",
    "try",
    "union",
    "unreachable",
    "var",
    "volatile",
    "while",
];

/// Primitive values and types, which declarations may not shadow (fields
/// and enum values may: zig fmt unquotes them there).
pub const ZIG_PRIMITIVES: &[&str] = &[
    "true",
    "false",
    "null",
    "undefined",
    "type",
    "void",
    "bool",
    "anyerror",
    "anyopaque",
    "noreturn",
    "isize",
    "usize",
    "comptime_int",
    "comptime_float",
    "f16",
    "f32",
    "f64",
    "f80",
    "f128",
    "c_char",
    "c_short",
    "c_ushort",
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
    "c_longdouble",
];

/// Zig: `MonsterData` (`@"..."` for keywords and primitive names), fields
/// `monster_data` (`encode_` for a declaration every struct has, `@"fn"`
/// for a keyword), values `monster_data`.
pub const ZIG: Naming = Naming {
    types: Rule {
        empty: "X",
        keywords: &[ZIG_PRIMITIVES, ZIG_KEYWORDS],
        int_types: true,
        keyword_escape: Escape::Quote,
        ..Rule::cased(Case::Pascal)
    },
    fields: Rule {
        keywords: &[ZIG_KEYWORDS],
        keyword_escape: Escape::Quote,
        // Declarations every generated struct has.
        members: &[&[
            "encode",
            "decode",
            "validate",
            "validateFault",
            "writeTable",
            "writeAt",
            "readTable",
            "readAt",
            "validateRoot",
            "validateTable",
            "validateAt",
        ]],
        ..Rule::cased(Case::Snake)
    },
    values: Rule {
        keywords: &[ZIG_KEYWORDS],
        keyword_escape: Escape::Quote,
        ..Rule::cased(Case::Snake)
    },
    qualified_values: None,
    prefix_attribute: None,
    variant_method: None,
    positional_tuples: false,
};

/// TypeScript type names: TitleCase, identifier characters only, `K`
/// before a reserved word, a leading digit or nothing.
const TS_TYPES: Rule = Rule {
    ascii: true,
    not_ident: Some(Escape::Prefix("K")),
    keywords: &[TS_RESERVED],
    keyword_escape: Escape::Prefix("K"),
    ..Rule::cased(Case::Pascal)
};

/// Properties no object may be given.
const TS_PROPERTY_WORDS: &[&str] = &["constructor", "prototype"];

/// TypeScript: `MonsterData` (`KClass`), properties `monsterData`
/// (`constructor_`, `_8bit`), enum values as declared.
pub const TYPESCRIPT: Naming = Naming {
    types: TS_TYPES,
    fields: Rule {
        ascii: true,
        not_ident: Some(Escape::Prefix("_")),
        keywords: &[TS_PROPERTY_WORDS],
        ..Rule::cased(Case::LowerCamel)
    },
    values: Rule::cased(Case::Keep),
    qualified_values: None,
    prefix_attribute: None,
    variant_method: None,
    positional_tuples: false,
};

/// AssemblyScript: TypeScript's names, but a field named like a member
/// every generated class has, a reserved word or `_km…` gets a `_`.
pub const ASSEMBLYSCRIPT: Naming = Naming {
    fields: Rule {
        members: &[
            &[
                "encode",
                "decode",
                "read",
                "validate",
                "validateWith",
                "tag",
            ],
            TS_RESERVED,
        ],
        member_prefixes: &["_km"],
        ..TYPESCRIPT.fields
    },
    ..TYPESCRIPT
};

/// Python's keywords (soft ones too: a field named `match` or `type` would
/// confuse readers of the generated code more than it would the parser).
pub const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "type", "while", "with", "yield",
];

/// Names a generated class body or function reads after its fields are
/// declared: builtins in annotations and calls, and the modules the
/// generated file imports. A field so named would shadow them in the class
/// body (`list: list[int]`).
pub const PYTHON_BUILTINS: &[&str] = &[
    "bool",
    "bytes",
    "dataclasses",
    "dict",
    "enumerate",
    "float",
    "int",
    "isinstance",
    "karmem",
    "len",
    "list",
    "max",
    "object",
    "range",
    "self",
    "sorted",
    "str",
    "sum",
    "tuple",
    "typing",
];

/// Python: classes `MonsterData` (`None_` for a keyword), fields
/// `monster_data` (`list_`, `class_`, `encode_`, `trust_` for a method every
/// generated class has), enum values `MONSTER_DATA`.
pub const PYTHON: Naming = Naming {
    types: Rule {
        ascii: true,
        not_ident: Some(Escape::Prefix("K")),
        keywords: &[PYTHON_KEYWORDS, PYTHON_BUILTINS],
        ..Rule::cased(Case::Pascal)
    },
    fields: Rule {
        ascii: true,
        not_ident: Some(Escape::Prefix("f_")),
        keywords: &[PYTHON_KEYWORDS, PYTHON_BUILTINS],
        members: &[&[
            "encode",
            "decode",
            "decode_into",
            "validate",
            "view",
            "trust",
        ]],
        ..Rule::cased(Case::Snake)
    },
    values: Rule {
        ascii: true,
        not_ident: Some(Escape::Prefix("V_")),
        keywords: &[PYTHON_KEYWORDS],
        members: &[&["NAMES"]],
        ..Rule::cased(Case::Screaming)
    },
    qualified_values: None,
    prefix_attribute: None,
    variant_method: None,
    positional_tuples: false,
};

/// A Rust identifier for a schema name (keywords get a trailing `_`).
pub fn rust_ident(name: &str) -> String {
    RUST.fields.escape(name.to_string(), &[])
}

/// A string literal of `text` that Zig, TypeScript and AssemblyScript all
/// read the same way (`\"`, `\\`, `\n`, `\u{..}` for other controls).
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Words TypeScript (and so AssemblyScript) does not accept as a class, interface or const name.
pub const TS_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "any",
    "boolean",
    "number",
    "string",
    "symbol",
    "bigint",
    "object",
    "never",
    "unknown",
    "undefined",
    "type",
    "layout",
    "viewers",
    "karmem",
    "Map",
    "Array",
    "Uint8Array",
];

/// A TypeScript type name for a schema name: TitleCase, identifier
/// characters only (`monster_data` → `MonsterData`).
pub fn ts_type_name(name: &str) -> String {
    TYPESCRIPT.types.apply(name)
}

/// A property name: camelCase (`ID` → `id`, `Username` → `username`,
/// `field_as_soa` → `fieldAsSoa`). `constructor` and names that are not
/// identifiers get a trailing or leading `_`.
pub fn ts_prop_name(name: &str) -> String {
    TYPESCRIPT.fields.apply(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(snake("MonsterData"), "monster_data");
        assert_eq!(snake("ID"), "id");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("field_as_soa"), "field_as_soa");
        assert_eq!(snake("Vec3"), "vec3");
        assert_eq!(camel("another_struct"), "AnotherStruct");
        assert_eq!(camel("Vec3"), "Vec3");
        assert_eq!(screaming("TikTok"), "TIK_TOK");
        assert_eq!(rust_ident("type"), "type_");
    }

    /// `(schema name, type, field, value)` for each name.
    fn check(lang: &Naming, cases: &[(&str, &str, &str, &str)]) {
        for &(name, ty, field, value) in cases {
            assert_eq!(lang.types.apply(name), ty, "type of {name:?}");
            assert_eq!(lang.fields.apply(name), field, "field of {name:?}");
            assert_eq!(lang.values.apply(name), value, "value of {name:?}");
        }
    }

    #[test]
    fn rust_names() {
        check(
            &RUST,
            &[
                ("ID", "ID", "id", "ID"),
                ("HTTPServer", "HTTPServer", "http_server", "HTTP_SERVER"),
                ("type", "Type", "type_", "TYPE"),
                ("Self", "Self", "self_", "SELF"),
                ("Vec3", "Vec3", "vec3", "VEC3"),
                ("field_as_soa", "FieldAsSoa", "field_as_soa", "FIELD_AS_SOA"),
                ("_x", "X", "_x", "_X"),
            ],
        );
    }

    #[test]
    fn go_names() {
        check(
            &GO,
            &[
                ("ID", "ID", "ID", "ID"),
                ("HTTPServer", "HTTPServer", "HTTPServer", "HTTPServer"),
                ("type", "Type", "Type", "Type"),
                ("Vec3", "Vec3", "Vec3", "Vec3"),
                ("field_as_soa", "FieldAsSoa", "FieldAsSoa", "FieldAsSoa"),
                ("x", "X", "X", "X"),
                ("_", "X", "X", "X"),
                // Methods of the generated types.
                ("table", "Table", "Table_", "Table"),
                ("WriteAsRoot", "WriteAsRoot", "WriteAsRoot_", "WriteAsRoot"),
                // Initialisms are upper-case words.
                ("Id", "ID", "ID", "ID"),
                ("id", "ID", "ID", "ID"),
                ("Url", "URL", "URL", "URL"),
                ("UserId", "UserID", "UserID", "UserID"),
                ("user_id", "UserID", "UserID", "UserID"),
                ("HttpStatus", "HTTPStatus", "HTTPStatus", "HTTPStatus"),
                ("api_key", "APIKey", "APIKey", "APIKey"),
                ("x_id", "XID", "XID", "XID"),
            ],
        );
        let go = |n: &str| GO.fields.apply(n);
        // Words start at an upper-case letter after a lower-case one or a
        // digit; only whole words (and their trailing digits) count.
        assert_eq!(go("Ids"), "Ids");
        assert_eq!(go("ids"), "Ids");
        assert_eq!(go("UserIDs"), "UserIDs");
        assert_eq!(go("UserIds"), "UserIds");
        assert_eq!(go("Idle"), "Idle");
        assert_eq!(go("Url2"), "URL2");
        assert_eq!(go("url_2"), "URL2");
        assert_eq!(go("Http2Server"), "HTTP2Server");
        assert_eq!(go("Utf8"), "UTF8");
        assert_eq!(go("utf8_name"), "UTF8Name");
        assert_eq!(go("Vec3Id"), "Vec3ID");
        assert_eq!(go("Http2x"), "HTTP2x");
        assert_eq!(go("Id2id"), "ID2id");
        assert_eq!(go("Utf16"), "Utf16");
        assert_eq!(go("IPv4"), "IPv4");
        assert_eq!(go("JsonApiUrl"), "JSONAPIURL");
        assert_eq!(go("Ts"), "TS");
        // A method's name still moves aside after casing.
        assert_eq!(go("position"), "Position_");
        // Other languages keep their words as they were.
        assert_eq!(RUST.types.apply("UserId"), "UserId");
        assert_eq!(TYPESCRIPT.types.apply("user_id"), "UserId");
        assert_eq!(ZIG.types.apply("HttpStatus"), "HttpStatus");
        assert_eq!(module_ident("My-App", GO_KEYWORDS), "my_app");
        assert_eq!(module_ident("Type", GO_KEYWORDS), "type_");
        assert_eq!(module_ident("3d", GO_KEYWORDS), "k3d");
    }

    #[test]
    fn c_names() {
        check(
            &C,
            &[
                ("ID", "id", "id", "ID"),
                ("HTTPServer", "http_server", "http_server", "HTTP_SERVER"),
                ("Int", "int", "int_", "INT"),
                ("Vec3", "vec3", "vec3", "VEC3"),
                (
                    "field_as_soa",
                    "field_as_soa",
                    "field_as_soa",
                    "FIELD_AS_SOA",
                ),
                // Leading underscores are the C implementation's.
                ("_x", "_x", "_x_", "_X"),
            ],
        );
    }

    #[test]
    fn zig_names() {
        check(
            &ZIG,
            &[
                ("ID", "ID", "id", "id"),
                ("HTTPServer", "HTTPServer", "http_server", "http_server"),
                ("fn", "Fn", "@\"fn\"", "@\"fn\""),
                // A primitive may name a field (zig fmt unquotes it there).
                ("type", "Type", "type", "type"),
                ("u8", "U8", "u8", "u8"),
                ("Vec3", "Vec3", "vec3", "vec3"),
                ("_x", "X", "_x", "_x"),
                ("Encode", "Encode", "encode_", "encode"),
            ],
        );
        // Declarations: keywords, primitives and integer types are quoted.
        let decl = |n: &str| ZIG.types.escape(n.to_string(), &[]);
        assert_eq!(decl("u8"), "@\"u8\"");
        assert_eq!(decl("i7"), "@\"i7\"");
        assert_eq!(decl("bool"), "@\"bool\"");
        assert_eq!(decl("u"), "u");
    }

    #[test]
    fn typescript_names() {
        check(
            &TYPESCRIPT,
            &[
                ("ID", "ID", "id", "ID"),
                ("HTTPServer", "HTTPServer", "httpServer", "HTTPServer"),
                ("class", "Class", "class", "class"),
                ("constructor", "Constructor", "constructor_", "constructor"),
                ("3d", "K3d", "_3d", "3d"),
                ("field_as_soa", "FieldAsSoa", "fieldAsSoa", "field_as_soa"),
                ("_x", "X", "x", "_x"),
                ("a-b", "A_b", "a_b", "a-b"),
            ],
        );
        // Reserved words are checked after casing: `any` becomes `Any`, which
        // is not one, but `Map` is.
        assert_eq!(TYPESCRIPT.types.apply("any"), "Any");
        assert_eq!(TYPESCRIPT.types.apply("Map"), "KMap");
    }

    #[test]
    fn assemblyscript_names() {
        check(
            &ASSEMBLYSCRIPT,
            &[
                ("ID", "ID", "id", "ID"),
                ("HTTPServer", "HTTPServer", "httpServer", "HTTPServer"),
                ("class", "Class", "class_", "class"),
                ("Type", "Type", "type_", "Type"),
                ("Encode", "Encode", "encode_", "Encode"),
                ("3d", "K3d", "_3d", "3d"),
                ("_km_x", "KmX", "kmX", "_km_x"),
            ],
        );
        assert_eq!(ASSEMBLYSCRIPT.fields.escape("_kmX".into(), &[]), "_kmX_");
    }

    #[test]
    fn namers_name_a_schemas_items() {
        let (s, _) = karmem_layout::load(
            "t.km",
            "karmem app @c.prefix(`My App`);\n\
             enum Team u8 { None; Orcs; }\n\
             struct Circle table { ShapeTag u8; Type u8; Pair (u8, u8); }\n\
             union Shape u8 { Circle; }\n",
        )
        .expect("valid schema");
        let circle = s.structs.iter().position(|x| x.name == "Circle").unwrap();
        let pair = s.structs.iter().position(|x| x.tuple).unwrap();
        let (rust, go, c) = (
            Namer::new(&RUST, &s),
            Namer::new(&GO, &s),
            Namer::new(&C, &s),
        );
        assert_eq!(rust.struct_name(circle), "Circle");
        assert_eq!(rust.field(circle, 1), "type_");
        assert_eq!(rust.field(pair, 1), "1");
        assert_eq!(rust.value(0, 1), "ORCS");
        // `Circle` is a variant of `Shape`: it has the method `ShapeTag`.
        assert_eq!(go.field(circle, 0), "ShapeTag_");
        assert_eq!(go.field(circle, 1), "Type");
        assert_eq!(go.field(pair, 1), "F1");
        assert_eq!(go.value(0, 1), "TeamOrcs");
        assert_eq!(c.prefix(), "my_app");
        assert_eq!(c.struct_name(circle), "my_app_circle");
        assert_eq!(c.enum_name(0), "my_app_team");
        assert_eq!(c.union_name(0), "my_app_shape");
        assert_eq!(c.value(0, 1), "MY_APP_TEAM_ORCS");
        assert_eq!(c.tag(0, circle), "MY_APP_SHAPE_CIRCLE");
        assert_eq!(c.variant_member(circle), "circle");
        assert_eq!(c.field(circle, 1), "type");
        assert_eq!(go.clash(), None);
    }

    #[test]
    fn clashes_after_casing_are_found() {
        let clash = |src: &str| {
            let (s, _) = karmem_layout::load("t.km", &format!("karmem app;\n{src}\n"))
                .expect("valid schema");
            (Namer::new(&GO, &s).clash(), Namer::new(&RUST, &s).clash())
        };
        // Initialisms: `Id` and `ID` are one Go name (Rust: `id` twice).
        assert_eq!(
            clash("struct User table { Id u32; ID u32; }").0.as_deref(),
            Some("field `Id` of `User` and field `ID` of `User` are both named `ID`")
        );
        assert_eq!(
            clash("struct User table { UserId u32; user_id u32; }")
                .0
                .as_deref(),
            Some("field `UserId` of `User` and field `user_id` of `User` are both named `UserID`")
        );
        // Pascal case alone merges too; so do a method's escape and a field.
        assert!(clash("struct A table { x u32; X u32; }").0.is_some());
        assert!(clash("struct A table { table u32; Table_ u32; }")
            .0
            .is_some());
        assert_eq!(
            clash("struct A table { Ids u32; IDs u32; ID u32; }").0,
            None
        );
        // Types and Go's qualified enum values share the package.
        assert_eq!(
            clash("struct Url table { x u32; }\nstruct URL table { y u32; }")
                .0
                .as_deref(),
            Some("struct `Url` and struct `URL` are both named `URL`")
        );
        assert_eq!(
            clash("enum Kind u8 { Id; ID; }").0.as_deref(),
            Some("value `Id` of `Kind` and value `ID` of `Kind` are both named `KindID`")
        );
        assert_eq!(
            clash("enum AB u8 { C; }\nenum A u8 { BC; }").0.as_deref(),
            Some("value `C` of `AB` and value `BC` of `A` are both named `ABC`")
        );
        // Rust's values are per enum: `C` and `BC` are apart there.
        assert_eq!(clash("enum AB u8 { C; }\nenum A u8 { BC; }").1, None);
    }
}

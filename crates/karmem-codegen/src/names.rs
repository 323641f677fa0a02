//! Identifier conventions shared by backends.

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

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// A Rust identifier for a schema name (keywords get a trailing `_`).
pub fn rust_ident(name: &str) -> String {
    if RUST_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
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
    let c = crate::names::camel(name);
    let mut out: String = c
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    if let Some(f) = out.get(0..1) {
        let up = f.to_uppercase();
        out.replace_range(0..1, &up);
    }
    if out.is_empty()
        || out.starts_with(|c: char| c.is_ascii_digit())
        || TS_RESERVED.contains(&out.as_str())
    {
        out.insert(0, 'K');
    }
    out
}

/// A property name: camelCase (`ID` → `id`, `Username` → `username`,
/// `field_as_soa` → `fieldAsSoa`). `constructor` and names that are not
/// identifiers get a trailing or leading `_`.
pub fn ts_prop_name(name: &str) -> String {
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
    let mut out: String = out
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if out == "constructor" || out == "prototype" {
        out.push('_');
    }
    out
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
}

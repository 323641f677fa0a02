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

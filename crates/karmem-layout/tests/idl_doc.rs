//! docs/idl.md cannot drift from the compiler:
//!
//! * every ```` ```km ```` block in it compiles (parse, checks and layout,
//!   as `karmem check` does); a ```` ```km,warning ```` block compiles with
//!   the warnings its `// warning: MESSAGE` lines state; a
//!   ```` ```km,error ```` block fails with every error its
//!   `// error: MESSAGE` lines state;
//! * every diagnostic the compiler can produce (each `Diagnostic::error` /
//!   `Diagnostic::warning` message in the lexer, parser, import loader,
//!   resolver and layout)
//!   is listed in the document.
//!
//! It lives here rather than in karmem-schema because layout errors (SoA
//! flattening) are part of what a schema author sees.

use std::path::Path;

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(info string, first line number, body)` of every fenced block.
fn fenced_blocks(markdown: &str) -> Vec<(String, usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info.trim().to_string(), i + 1, String::new()));
                }
            }
            Some((_, _, body)) => {
                if line.trim_end() == "```" {
                    blocks.push(open.take().expect("open block"));
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "unclosed code block in docs/idl.md");
    blocks
}

/// Messages announced in a block by `// KIND: MESSAGE` comment lines.
fn announced(body: &str, kind: &str) -> Vec<String> {
    let marker = format!("// {kind}: ");
    body.lines()
        .filter_map(|l| l.split_once(&marker).map(|(_, m)| m.trim().to_string()))
        .collect()
}

/// Problems with a block whose `// KIND: MESSAGE` lines must each appear as
/// `KIND: MESSAGE` in the rendered diagnostics `out`.
fn missing(body: &str, kind: &str, out: &str, at: &str) -> Vec<String> {
    let expected = announced(body, kind);
    if expected.is_empty() {
        return vec![format!(
            "{at}: a km,{kind} block needs `// {kind}: ...` lines"
        )];
    }
    expected
        .iter()
        .filter(|m| !out.contains(&format!("{kind}: {m}\n")))
        .map(|m| format!("{at}: no {kind} `{m}` in:\n{out}"))
        .collect()
}

#[test]
fn every_km_block_in_idl_md_behaves_as_stated() {
    let doc = repo_file("docs/idl.md");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (info, line, body) in fenced_blocks(&doc) {
        let mut words = info.split(',').map(str::trim);
        if words.next() != Some("km") {
            continue;
        }
        let mode = words.next().unwrap_or("ok");
        checked += 1;
        let at = format!("docs/idl.md:{line}");
        let result = karmem_layout::load("doc.km", &body);
        let warnings = karmem_schema::compile("doc.km", &body)
            .map(|c| c.warnings.render(false))
            .unwrap_or_default();
        match (mode, result) {
            ("ok", Ok(_)) if warnings.is_empty() => {}
            ("ok", Ok(_)) => failures.push(format!("{at}: unexpected warnings:\n{warnings}")),
            ("warning", Ok(_)) => failures.extend(missing(&body, "warning", &warnings, &at)),
            ("error", Err(d)) => failures.extend(missing(&body, "error", &d.render(false), &at)),
            (_, Err(d)) => failures.push(format!("{at}: does not compile:\n{}", d.render(false))),
            ("error", Ok(_)) => failures.push(format!("{at}: compiles, but is marked as an error")),
            (other, _) => failures.push(format!("{at}: unknown block mode `km,{other}`")),
        }
    }
    assert!(
        checked >= 15,
        "only {checked} km blocks found in docs/idl.md"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The message templates of every diagnostic in `source`: the first string
/// literal after `Diagnostic::error(` / `Diagnostic::warning(`, with each
/// `{...}` placeholder turned into `*`.
fn diagnostic_templates(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in ["Diagnostic::error(", "Diagnostic::warning("] {
        for (pos, _) in source.match_indices(start) {
            let rest = &source[pos + start.len()..];
            let Some(q) = rest.find('"') else { continue };
            let mut template = String::new();
            let mut chars = rest[q + 1..].chars().peekable();
            let mut in_placeholder = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(n) = chars.next() {
                            template.push(n);
                        }
                    }
                    '"' => break,
                    '{' if chars.peek() == Some(&'{') => {
                        chars.next();
                        template.push('{');
                    }
                    '}' if chars.peek() == Some(&'}') => {
                        chars.next();
                        template.push('}');
                    }
                    '{' => {
                        in_placeholder = true;
                        template.push('*');
                    }
                    '}' if in_placeholder => in_placeholder = false,
                    _ if in_placeholder => {}
                    c => template.push(c),
                }
            }
            out.push(template);
        }
    }
    out
}

/// `pattern` (with `*` = one or more characters) matches somewhere in `text`.
fn glob_in(pattern: &str, text: &str) -> bool {
    fn here(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => true,
            Some((b'*', rest)) => (1..=t.len()).any(|n| here(rest, &t[n..])),
            Some((c, rest)) => t.first() == Some(c) && here(rest, &t[1..]),
        }
    }
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    (0..t.len()).any(|i| here(p, &t[i..]))
}

#[test]
fn every_diagnostic_is_documented_in_idl_md() {
    let doc = repo_file("docs/idl.md");
    let mut templates = Vec::new();
    for file in [
        "crates/karmem-schema/src/lexer.rs",
        "crates/karmem-schema/src/parser.rs",
        "crates/karmem-schema/src/resolve.rs",
        "crates/karmem-schema/src/resolve/contained.rs",
        "crates/karmem-schema/src/resolve/defaults.rs",
        "crates/karmem-schema/src/resolve/maps.rs",
        "crates/karmem-schema/src/resolve/tuples.rs",
        "crates/karmem-schema/src/imports.rs",
        "crates/karmem-layout/src/compute.rs",
    ] {
        templates.extend(diagnostic_templates(&repo_file(file)));
    }
    assert!(templates.len() >= 50, "found only {}", templates.len());
    let missing: Vec<&String> = templates
        .iter()
        .filter(|t| !doc.lines().any(|line| glob_in(t, line)))
        .collect();
    assert!(
        missing.is_empty(),
        "diagnostics not listed in docs/idl.md:\n{}",
        missing
            .iter()
            .map(|t| format!("  {t}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn template_extraction_and_matching() {
    let src = r#"Diagnostic::error(a.span, format!("unknown type `{}` in {x:?}")) Diagnostic::warning(s, "tag 0 is \"reserved\"")"#;
    assert_eq!(
        diagnostic_templates(src),
        ["unknown type `*` in *", "tag 0 is \"reserved\""]
    );
    assert!(glob_in(
        "unknown type `*`",
        "| unknown type `Vec4` | when |"
    ));
    assert!(!glob_in("unknown type `*`", "unknown type ``"));
}

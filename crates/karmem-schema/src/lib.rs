//! KarmemIDL front end: lexer, parser, name resolution, semantic checks,
//! diagnostics and the canonical formatter (grammar: `docs/idl.md`).
//!
//! ```
//! let src = "karmem app;\nstruct Point inline { X f32; Y f32; }\n";
//! let compiled = karmem_schema::compile("app.km", src).unwrap();
//! assert_eq!(compiled.schema.structs[0].name, "Point");
//! ```

pub mod ast;
pub mod diagnostic;
mod fmt;
pub mod lexer;
pub mod model;
mod parser;
mod resolve;

pub use diagnostic::{line_col, Diagnostic, Diagnostics, Severity};

use sha2::{Digest, Sha256};

/// A checked schema and the warnings found on the way.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub schema: model::Schema,
    pub warnings: Diagnostics,
}

/// Parse and check a schema. All errors are returned at once.
pub fn compile(file_name: &str, source: &str) -> Result<Compiled, Diagnostics> {
    let (tokens, mut diags) = lexer::lex(source);
    let (file, parse_diags) = parser::parse(&tokens);
    diags.extend(parse_diags);
    let (mut schema, resolve_diags) = resolve::resolve(&file);
    diags.extend(resolve_diags);
    diags.sort_by_key(|d| d.span.start);
    let (errors, warnings): (Vec<_>, Vec<_>) = diags
        .into_iter()
        .partition(|d| d.severity == Severity::Error);
    if !errors.is_empty() {
        let mut all = errors;
        all.extend(warnings);
        return Err(Diagnostics::new(file_name, source, all));
    }
    schema.source_hash = source_hash(source);
    Ok(Compiled {
        schema,
        warnings: Diagnostics::new(file_name, source, warnings),
    })
}

/// Canonical formatting of a schema (for `karmem fmt`). Keeps every comment
/// and the user's spelling of types; fails only on syntax errors.
pub fn format(file_name: &str, source: &str) -> Result<String, Diagnostics> {
    let (tokens, mut diags) = lexer::lex(source);
    let (_, parse_diags) = parser::parse(&tokens);
    diags.extend(parse_diags);
    if !diags.is_empty() {
        return Err(Diagnostics::new(file_name, source, diags));
    }
    Ok(fmt::format_tokens(source, &tokens))
}

/// SHA-256 of the source text, hex encoded (printed in generated headers).
pub fn source_hash(source: &str) -> String {
    Sha256::digest(source.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

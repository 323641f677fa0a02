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
mod imports;
pub mod lexer;
pub mod model;
mod parser;
mod resolve;

pub use diagnostic::{line_col, Diagnostic, Diagnostics, Severity, SourceFile};

/// The candidate closest to `name` when it is close enough to be a typo
/// (case-insensitive, at most a third of its length away), for the "did
/// you mean" hints of tools built on the schema (the CLI's `--root`, a
/// manifest's function names). Bounded: past a million edit-distance cells
/// it gives up (`None`), whatever the number or length of the candidates.
pub fn suggest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    resolve::closest(name, candidates, &mut (1 << 20))
}

/// How deep a schema may nest (docs/idl.md §7): arrays, tuples and maps
/// inside one another in a type, and structs held inside one another by
/// value (inline structs, table fields, fixed arrays). The JSON codec's
/// `max_depth` (docs/format.md §10); every pass over a schema recurses at
/// most this deep (RATIONALE R3.12).
pub const MAX_NESTING: usize = 64;

use sha2::{Digest, Sha256};
use std::io;
use std::path::Path;

/// A checked schema and the warnings found on the way.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub schema: model::Schema,
    pub warnings: Diagnostics,
    /// Every file of the schema, the root first, then what it imports in
    /// load order: the spans of `schema` point into these.
    pub sources: Vec<SourceFile>,
}

impl Compiled {
    /// Diagnostics about this schema found later (layout errors), rendered
    /// against the file each span is in.
    pub fn diagnostics(&self, items: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics::with_sources(&self.sources, items)
    }
}

/// Parse and check a schema of one file. All errors are returned at once.
/// An `import` is an error here: use [`compile_path`] or [`compile_with`].
pub fn compile(file_name: &str, source: &str) -> Result<Compiled, Diagnostics> {
    let access = imports::Access {
        read: None,
        key: imports::normalize,
    };
    check(imports::load(file_name, source, access))
}

/// Parse and check the schema in file `path` and the files it imports
/// (docs/idl.md §4.5), read from the file system.
pub fn compile_path(path: &Path) -> Result<Compiled, Diagnostics> {
    let name = path.display().to_string();
    let mut read = |p: &Path| std::fs::read_to_string(p);
    let source = read(path).map_err(|e| {
        let message = format!("cannot read `{name}`: {e}");
        Diagnostics::new(
            &name,
            "",
            vec![Diagnostic::error(model::Span::new(0, 0), message)],
        )
    })?;
    let access = imports::Access {
        read: Some(&mut read),
        // Two spellings of one file (`a/../b.km`, a symbolic link) load once.
        key: |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| imports::normalize(p)),
    };
    check(imports::load(&name, &source, access))
}

/// Parse and check a schema whose imports `read` provides: it gets each
/// imported path (relative to `file_name`'s directory, as the import says)
/// and returns the file's text. For build scripts and tests with schemas in
/// memory.
///
/// ```
/// use std::path::Path;
/// let common = "karmem common;\nstruct Vec3 inline { X f32; }\n";
/// let app = "karmem app;\nimport \"common.km\";\nstruct A table { P Vec3; }\n";
/// let compiled = karmem_schema::compile_with("app.km", app, |path: &Path| {
///     match path.to_str() {
///         Some("common.km") => Ok(common.to_string()),
///         _ => Err(std::io::ErrorKind::NotFound.into()),
///     }
/// })
/// .unwrap();
/// assert_eq!(compiled.schema.structs.len(), 2);
/// ```
pub fn compile_with(
    file_name: &str,
    source: &str,
    mut read: impl FnMut(&Path) -> io::Result<String>,
) -> Result<Compiled, Diagnostics> {
    let access = imports::Access {
        read: Some(&mut read),
        key: imports::normalize,
    };
    check(imports::load(file_name, source, access))
}

/// Resolve and check loaded files: the compiled schema, or every error.
fn check(loaded: imports::Loaded) -> Result<Compiled, Diagnostics> {
    let mut diags = loaded.diags;
    let (mut schema, resolve_diags) = resolve::resolve(&loaded.file);
    diags.extend(resolve_diags);
    diags.sort_by_key(|d| d.span.start);
    let (errors, warnings): (Vec<_>, Vec<_>) = diags
        .into_iter()
        .partition(|d| d.severity == Severity::Error);
    if !errors.is_empty() {
        let mut all = errors;
        all.extend(warnings);
        return Err(Diagnostics::with_sources(&loaded.sources, all));
    }
    schema.source_hash = sources_hash(&loaded.sources);
    Ok(Compiled {
        schema,
        warnings: Diagnostics::with_sources(&loaded.sources, warnings),
        sources: loaded.sources,
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
    hex(&Sha256::digest(source.as_bytes()))
}

/// [`source_hash`] of a schema over several files: SHA-256 of their texts
/// in load order, a NUL byte between two, so that the generated header
/// changes when an imported file does. Equal to `source_hash` for one file.
fn sources_hash(files: &[SourceFile]) -> String {
    let mut hasher = Sha256::new();
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            hasher.update([0]);
        }
        hasher.update(file.source.as_bytes());
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

//! Diagnostics: an error or warning tied to a span, rendered as
//!
//! ```text
//! error: unknown type `Vec4`
//!  --> game.km:7:9
//!   |
//! 7 |     Pos Vec4;
//!   |         ^^^^ not declared in this file
//!   |
//!   = help: did you mean `Vec3`?
//! ```
//!
//! Rendering is annotate-snippets' (the renderer rustc uses, so the output
//! reads like Rust's own diagnostics); this module owns what a diagnostic
//! holds and the `file:line:col` arithmetic.

use crate::model::Span;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt;

/// The diagnostics [`Diagnostics::render`] shows at most; it counts the
/// others. Each one shows its source lines, so that tens of thousands of
/// them (a hostile or broken generated schema: one error per character of
/// a long line) would take quadratic time to print, and more than anyone
/// reads (docs/idl.md §8).
pub const MAX_RENDERED: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text under the caret.
    pub label: Option<String>,
    pub hint: Option<String>,
    /// Other places worth showing (e.g. the first definition of a duplicate).
    pub secondary: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            hint: None,
            secondary: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }
}

/// One file of a schema and where its spans start. The files of a schema
/// with imports share one offset space (docs/idl.md §4.5): a file's spans
/// are its byte offsets plus its `base`, the root file's base being 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub source: String,
    pub base: usize,
}

/// Diagnostics of a schema, renderable with source context: the root file
/// (`file_name`, `source`, spans from 0) and the files it imports.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub file_name: String,
    pub source: String,
    pub items: Vec<Diagnostic>,
    /// Imported files, by increasing base; empty for a single-file schema.
    pub imported: Vec<SourceFile>,
}

impl Diagnostics {
    pub fn new(file_name: &str, source: &str, items: Vec<Diagnostic>) -> Self {
        Diagnostics {
            file_name: file_name.to_string(),
            source: source.to_string(),
            items,
            imported: Vec::new(),
        }
    }

    /// Diagnostics over several files: `files[0]` is the root file (base 0),
    /// the others follow in increasing base order.
    pub fn with_sources(files: &[SourceFile], items: Vec<Diagnostic>) -> Self {
        let (root, imported) = files
            .split_first()
            .map_or((None, &[][..]), |(r, rest)| (Some(r), rest));
        Diagnostics {
            imported: imported.to_vec(),
            ..Diagnostics::new(
                root.map_or("", |r| r.name.as_str()),
                root.map_or("", |r| r.source.as_str()),
                items,
            )
        }
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// 1-based line and column (in characters) of an offset, in the file
    /// that offset belongs to.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let (_, line, col) = self.locate(offset);
        (line, col)
    }

    /// The file name, line and column of an offset.
    pub fn locate(&self, offset: usize) -> (&str, usize, usize) {
        let file = self.file_of(offset);
        let (line, col) = line_col(file.source, offset - file.base);
        (file.name, line, col)
    }

    /// Human-readable report; `color` adds ANSI colours for terminals.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for d in self.items.iter().take(MAX_RENDERED) {
            out.push_str(&renderer.render(&[self.report(d)]));
            out.push_str("\n\n");
        }
        let hidden = self.items.len().saturating_sub(MAX_RENDERED);
        if hidden > 0 {
            let plural = if hidden == 1 { "" } else { "s" };
            out.push_str(&format!(
                "{}: {hidden} more diagnostic{plural} not shown (the first {MAX_RENDERED} are)\n",
                self.file_name
            ));
        }
        let errors = self
            .items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 0 {
            let plural = if errors == 1 { "" } else { "s" };
            out.push_str(&format!(
                "{}: {errors} error{plural} found\n",
                self.file_name
            ));
        }
        out
    }

    /// One diagnostic as an annotate-snippets report: the message, the
    /// source with the primary span (`^`) and secondary spans (`-`), the
    /// hint as a `help:` line. A secondary span in another file than the
    /// primary one gets a snippet of its own file, after the primary's.
    fn report<'a>(&'a self, d: &'a Diagnostic) -> Group<'a> {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let primary = self.file_of(d.span.start);
        let mut files = vec![primary];
        for (span, _) in &d.secondary {
            let file = self.file_of(span.start);
            if !files.iter().any(|f| f.base == file.base) {
                files.push(file);
            }
        }
        let snippets = files.into_iter().map(|file| {
            let mut snippet = Snippet::source(file.source).path(file.name);
            if file.base == primary.base {
                snippet = snippet.annotation(
                    AnnotationKind::Primary
                        .span(file.clamp(d.span))
                        .label(d.label.as_deref()),
                );
            }
            for (span, label) in &d.secondary {
                if self.file_of(span.start).base == file.base {
                    snippet = snippet.annotation(
                        AnnotationKind::Context
                            .span(file.clamp(*span))
                            .label(label.as_str()),
                    );
                }
            }
            snippet
        });
        let group = level.primary_title(d.message.as_str()).elements(snippets);
        match &d.hint {
            Some(hint) => group.element(Level::HELP.message(hint.as_str())),
            None => group,
        }
    }

    /// The file an offset belongs to: the last one whose base is not past
    /// it (the root file when there are no imports).
    fn file_of(&self, offset: usize) -> FileRef<'_> {
        // Imported files are by increasing base: a binary search, as a
        // schema may import many files and have many diagnostics.
        let after = self.imported.partition_point(|f| f.base <= offset);
        after.checked_sub(1).map(|k| &self.imported[k]).map_or(
            FileRef {
                name: &self.file_name,
                source: &self.source,
                base: 0,
            },
            |f| FileRef {
                name: &f.name,
                source: &f.source,
                base: f.base,
            },
        )
    }
}

/// A borrowed [`SourceFile`], the root file's included.
#[derive(Clone, Copy)]
struct FileRef<'a> {
    name: &'a str,
    source: &'a str,
    base: usize,
}

impl FileRef<'_> {
    /// A span as a byte range inside this file's source, on character
    /// boundaries (spans come from the lexer, so this only guards the
    /// renderer).
    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source.len();
        let mut start = span.start.saturating_sub(self.base).min(len);
        while !self.source.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = span.end.saturating_sub(self.base).clamp(start, len);
        while !self.source.is_char_boundary(end) {
            end += 1;
        }
        start..end
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// 1-based line and column (in characters) of a byte offset in `source`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

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

/// Diagnostics of one source file, renderable with source context.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub file_name: String,
    pub source: String,
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new(file_name: &str, source: &str, items: Vec<Diagnostic>) -> Self {
        Diagnostics {
            file_name: file_name.to_string(),
            source: source.to_string(),
            items,
        }
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.source, offset)
    }

    /// Human-readable report; `color` adds ANSI colours for terminals.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&renderer.render(&[self.report(d)]));
            out.push_str("\n\n");
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
    /// hint as a `help:` line.
    fn report<'a>(&'a self, d: &'a Diagnostic) -> Group<'a> {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let mut snippet = Snippet::source(self.source.as_str())
            .path(self.file_name.as_str())
            .annotation(
                AnnotationKind::Primary
                    .span(self.clamp(d.span))
                    .label(d.label.as_deref()),
            );
        for (span, label) in &d.secondary {
            snippet = snippet.annotation(
                AnnotationKind::Context
                    .span(self.clamp(*span))
                    .label(label.as_str()),
            );
        }
        let group = level.primary_title(d.message.as_str()).element(snippet);
        match &d.hint {
            Some(hint) => group.element(Level::HELP.message(hint.as_str())),
            None => group,
        }
    }

    /// A span as a byte range inside the source, on character boundaries
    /// (spans come from the lexer, so this only guards the renderer).
    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source.len();
        let mut start = span.start.min(len);
        while !self.source.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = span.end.clamp(start, len);
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

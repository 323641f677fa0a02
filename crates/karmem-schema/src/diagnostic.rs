//! Diagnostics: an error or warning tied to a span, rendered as
//!
//! ```text
//! error: unknown type `Vec4`
//!  --> game.km:7:9
//!   |
//! 7 |     Pos Vec4;
//!   |         ^^^^ not declared anywhere in this file
//!   = help: did you mean `Vec3`?
//! ```
//!
//! The renderer is small and written here rather than taken from a crate:
//! the output format is part of the CLI's interface (tests match it), and the
//! crate must stay light enough to build for wasm32.

use crate::model::Span;
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
        let mut out = String::new();
        for d in &self.items {
            self.render_one(d, color, &mut out);
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

    fn render_one(&self, d: &Diagnostic, color: bool, out: &mut String) {
        let (paint, reset) = if color {
            match d.severity {
                Severity::Error => ("\x1b[1;31m", "\x1b[0m"),
                Severity::Warning => ("\x1b[1;33m", "\x1b[0m"),
            }
        } else {
            ("", "")
        };
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.push_str(&format!("{paint}{kind}{reset}: {}\n", d.message));
        let (line, col) = self.line_col(d.span.start);
        let gutter = line.max(self.secondary_max_line(d)).to_string().len();
        let pad = " ".repeat(gutter);
        out.push_str(&format!("{pad}--> {}:{line}:{col}\n", self.file_name));
        out.push_str(&format!("{pad} |\n"));
        // Snippets in source order: a duplicate's first definition (a
        // secondary span) is shown above the later one the error is about.
        let mut snippets: Vec<(Span, Option<&str>, bool)> =
            vec![(d.span, d.label.as_deref(), true)];
        snippets.extend(
            d.secondary
                .iter()
                .map(|(span, label)| (*span, Some(label.as_str()), false)),
        );
        snippets.sort_by_key(|(span, _, _)| span.start);
        for (span, label, primary) in snippets {
            if primary {
                self.render_snippet(span, label, '^', gutter, paint, reset, out);
            } else {
                self.render_snippet(span, label, '-', gutter, "", "", out);
            }
        }
        if let Some(hint) = &d.hint {
            out.push_str(&format!("{pad} = help: {hint}\n"));
        }
        out.push('\n');
    }

    fn secondary_max_line(&self, d: &Diagnostic) -> usize {
        d.secondary
            .iter()
            .map(|(s, _)| self.line_col(s.start).0)
            .max()
            .unwrap_or(0)
    }

    #[allow(clippy::too_many_arguments)]
    fn render_snippet(
        &self,
        span: Span,
        label: Option<&str>,
        mark: char,
        gutter: usize,
        paint: &str,
        reset: &str,
        out: &mut String,
    ) {
        let (line, col) = self.line_col(span.start);
        let text = self.source.lines().nth(line - 1).unwrap_or("");
        // Underline at most to the end of the first line of the span.
        let line_chars = text.chars().count();
        let span_chars = self
            .source
            .get(span.start..span.end.max(span.start))
            .map(|s| s.split('\n').next().unwrap_or("").chars().count())
            .unwrap_or(1);
        let width = span_chars.clamp(1, line_chars.saturating_sub(col - 1).max(1));
        let expanded: String = text.replace('\t', "    ");
        let prefix_width: usize = text
            .chars()
            .take(col - 1)
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        out.push_str(&format!("{line:>gutter$} | {expanded}\n"));
        let marks: String = std::iter::repeat_n(mark, width).collect();
        let label = label.map(|l| format!(" {l}")).unwrap_or_default();
        out.push_str(&format!(
            "{:gutter$} | {}{paint}{marks}{label}{reset}\n",
            "",
            " ".repeat(prefix_width)
        ));
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

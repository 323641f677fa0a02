//! Tokens of KarmemIDL. Comments are tokens too (the formatter keeps them);
//! the parser skips them.

use crate::diagnostic::Diagnostic;
use crate::model::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// Integer literal (decimal or 0x hex), value checked later.
    Int(String),
    /// A decimal number with a fraction or exponent (`1.5`, `2e-3`).
    Float(String),
    /// Backtick or double-quoted string, quotes removed.
    Str(String),
    LineComment(String),
    BlockComment(String),
    /// `///` doc comment (text after the slashes).
    DocComment(String),
    Sym(char),
    /// `->`
    Arrow,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
    /// A blank line precedes this token (kept by the formatter).
    pub blank_before: bool,
    /// A line break precedes this token: it starts a new line of source.
    pub line_before: bool,
}

impl Tok {
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(s) | Tok::Float(s) => format!("number `{s}`"),
            Tok::Str(_) => "a string".into(),
            Tok::LineComment(_) | Tok::BlockComment(_) | Tok::DocComment(_) => "a comment".into(),
            Tok::Sym(c) => format!("`{c}`"),
            Tok::Arrow => "`->`".into(),
            Tok::Eof => "end of file".into(),
        }
    }

    pub fn is_comment(&self) -> bool {
        matches!(
            self,
            Tok::LineComment(_) | Tok::BlockComment(_) | Tok::DocComment(_)
        )
    }
}

const SYMBOLS: &str = "{}()[];:=<>@#,.-?";

/// Splits `source` into tokens. Unknown characters and unterminated
/// strings/comments become diagnostics; lexing continues after them.
pub fn lex(source: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut diags = Vec::new();
    let mut i = 0;
    let mut newlines = 0usize;
    while i < bytes.len() {
        let c = source[i..].chars().next().expect("i is on a char boundary");
        if c == '\n' {
            newlines += 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let blank_before = newlines >= 2;
        let line_before = newlines >= 1;
        newlines = 0;
        let tok = if source[i..].starts_with("///") && !source[i..].starts_with("////") {
            let end = source[i..]
                .find('\n')
                .map(|n| i + n)
                .unwrap_or(source.len());
            let text = source[i + 3..end].trim().to_string();
            i = end;
            Tok::DocComment(text)
        } else if source[i..].starts_with("//") {
            let end = source[i..]
                .find('\n')
                .map(|n| i + n)
                .unwrap_or(source.len());
            let text = source[i + 2..end].trim_end().to_string();
            i = end;
            Tok::LineComment(text)
        } else if source[i..].starts_with("/*") {
            match source[i + 2..].find("*/") {
                Some(n) => {
                    let text = source[i + 2..i + 2 + n].to_string();
                    i = i + 2 + n + 2;
                    Tok::BlockComment(text)
                }
                None => {
                    diags.push(
                        Diagnostic::error(Span::new(i, i + 2), "unterminated block comment")
                            .with_label("comment starts here")
                            .with_hint("close it with `*/`"),
                    );
                    i = source.len();
                    continue;
                }
            }
        } else if c == '`' || c == '"' {
            // The closing quote or the end of the line, whichever comes
            // first: a search to the end of the file for each unclosed
            // quote would be quadratic.
            match source[i + 1..].find([c, '\n']) {
                Some(n) if source[i + 1 + n..].starts_with(c) => {
                    let text = source[i + 1..i + 1 + n].to_string();
                    i = i + 1 + n + 1;
                    Tok::Str(text)
                }
                _ => {
                    diags.push(
                        Diagnostic::error(Span::new(i, i + 1), "unterminated string")
                            .with_label("string starts here")
                            .with_hint(format!("close it with {c} on the same line")),
                    );
                    let end = source[i..]
                        .find('\n')
                        .map(|n| i + n)
                        .unwrap_or(source.len());
                    i = end;
                    continue;
                }
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = source[i..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .map(|n| i + n)
                .unwrap_or(source.len());
            let text = source[i..end].to_string();
            i = end;
            Tok::Ident(text)
        } else if c.is_ascii_digit() {
            let end = number_end(source, i);
            let text = source[i..end].to_string();
            i = end;
            if is_float(&text) {
                Tok::Float(text)
            } else {
                Tok::Int(text)
            }
        } else if source[i..].starts_with("->") {
            i += 2;
            Tok::Arrow
        } else if SYMBOLS.contains(c) {
            i += 1;
            Tok::Sym(c)
        } else {
            diags.push(
                Diagnostic::error(
                    Span::new(i, i + c.len_utf8()),
                    format!("unexpected character `{c}`"),
                )
                .with_label("not part of KarmemIDL")
                .with_hint("remove it; comments start with `//`"),
            );
            i += c.len_utf8();
            continue;
        };
        tokens.push(Token {
            tok,
            span: Span::new(start, i),
            blank_before,
            line_before,
        });
    }
    tokens.push(Token {
        tok: Tok::Eof,
        span: Span::new(source.len(), source.len()),
        blank_before: false,
        line_before: true,
    });
    (tokens, diags)
}

/// End of the number starting at `start`: a run of letters, digits and
/// `_` (so `0x2A` and malformed `12ab` are one token), extended by a
/// fraction (`.` then a digit) and an exponent sign (`1e-3`) for decimals.
fn number_end(source: &str, start: usize) -> usize {
    let bytes = source.as_bytes();
    let run = |from: usize| {
        source[from..]
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .map(|n| from + n)
            .unwrap_or(source.len())
    };
    let digit_at = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
    let mut end = run(start);
    let hex = matches!(&source[start..end.min(start + 2)], "0x" | "0X");
    if hex {
        return end;
    }
    if bytes.get(end) == Some(&b'.') && digit_at(end + 1) {
        end = run(end + 1);
    }
    if matches!(bytes.get(end - 1), Some(b'e' | b'E'))
        && matches!(bytes.get(end), Some(b'+' | b'-'))
        && digit_at(end + 1)
    {
        end = run(end + 1);
    }
    end
}

/// A decimal number with a fraction or an exponent is a float literal.
fn is_float(text: &str) -> bool {
    !text.starts_with("0x")
        && !text.starts_with("0X")
        && (text.contains('.') || text.contains(['e', 'E']))
}

//! Canonical layout of a token stream: one declaration member per line,
//! four-space indentation, a blank line between top-level items (but
//! consecutive `import` lines stay one block), at most one blank line kept
//! from the source, comments kept where they were (trailing comments stay
//! trailing). Tokens are printed as written, so the user's dialect (`uint64`
//! vs `u64`, backticks vs quotes) survives.

use crate::lexer::{Tok, Token};

pub fn format_tokens(source: &str, tokens: &[Token]) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let mut depth = 0usize; // `{` nesting
    let mut parens = 0usize; // `(` / `[` nesting: no line breaks inside
    let mut prev: Option<&Token> = None;
    // A member ended (`;`, or `,` between enum values or union variants)
    // and its line waits only for trailing comments: the next token that is
    // not one of them starts a new line.
    let mut member_done = false;
    let mut after_item = false; // a top-level `}` or header `;` just ended
                                // ... and it was an `import`: consecutive imports stay one block.
    let mut after_import = false;

    let flush = |out: &mut String, line: &mut String, depth: usize| {
        let text = line.trim_end();
        if !text.is_empty() {
            out.push_str(&"    ".repeat(depth));
            out.push_str(text);
            out.push('\n');
        }
        line.clear();
    };

    for (i, t) in tokens.iter().enumerate() {
        if t.tok == Tok::Eof {
            break;
        }
        let text = &source[t.span.start..t.span.end];
        let same_line = prev.is_some_and(|p| !source[p.span.end..t.span.start].contains('\n'));

        if t.tok.is_comment() {
            let comment = match &t.tok {
                Tok::DocComment(c) => format!("/// {c}").trim_end().to_string(),
                Tok::LineComment(c) => format!("//{c}"),
                _ => text.to_string(),
            };
            if same_line && !line.is_empty() {
                // Trailing comment: stays on its line.
                line.push(' ');
                line.push_str(&comment);
                if member_done || matches!(t.tok, Tok::LineComment(_) | Tok::DocComment(_)) {
                    flush(&mut out, &mut line, depth);
                    member_done = false;
                }
            } else {
                flush(&mut out, &mut line, depth);
                blank_line(&mut out, t, after_item, depth);
                after_item = false;
                line.push_str(&comment);
                flush(&mut out, &mut line, depth);
            }
            prev = Some(t);
            continue;
        }

        match t.tok {
            Tok::Sym('}') => {
                flush(&mut out, &mut line, depth);
                depth = depth.saturating_sub(1);
                line.push('}');
                // A comment right after `}` on the same line stays there.
                let next_is_trailing_comment = tokens.get(i + 1).is_some_and(|n| {
                    n.tok.is_comment() && !source[t.span.end..n.span.start].contains('\n')
                });
                if !next_is_trailing_comment {
                    flush(&mut out, &mut line, depth);
                }
                after_item = depth == 0;
                after_import = false;
            }
            _ => {
                if member_done {
                    flush(&mut out, &mut line, depth);
                    member_done = false;
                }
                if line.is_empty() {
                    let grouped = after_import && matches!(&t.tok, Tok::Ident(w) if w == "import");
                    blank_line(&mut out, t, after_item && !grouped, depth);
                    after_item = false;
                } else if needs_space(prev, t, tokens, i) {
                    line.push(' ');
                }
                line.push_str(text);
                match t.tok {
                    Tok::Sym('{') => {
                        flush(&mut out, &mut line, depth);
                        depth += 1;
                    }
                    Tok::Sym('(') | Tok::Sym('[') => parens += 1,
                    Tok::Sym(')') | Tok::Sym(']') => parens = parens.saturating_sub(1),
                    // `map<K, V>`: its `,` separates no members.
                    Tok::Sym('<') if prev.is_some_and(|p| p.tok == Tok::Ident("map".into())) => {
                        parens += 1
                    }
                    Tok::Sym('>') => parens = parens.saturating_sub(1),
                    // A member ends at `;`, and at `,` between the values
                    // of an enum or the variants of a union (inside braces,
                    // outside parentheses): one member per line.
                    Tok::Sym(';') | Tok::Sym(',')
                        if parens == 0 && (t.tok == Tok::Sym(';') || depth > 0) =>
                    {
                        let next_is_trailing_comment = tokens.get(i + 1).is_some_and(|n| {
                            n.tok.is_comment() && !source[t.span.end..n.span.start].contains('\n')
                        });
                        // A top-level statement is one line, so its line
                        // tells what it is.
                        after_import = depth == 0 && line.starts_with("import ");
                        if next_is_trailing_comment {
                            member_done = true;
                        } else {
                            flush(&mut out, &mut line, depth);
                        }
                        after_item = depth == 0;
                    }
                    _ => {}
                }
            }
        }
        prev = Some(t);
    }
    flush(&mut out, &mut line, depth);
    out
}

/// Blank line before a new line: always between top-level items, otherwise
/// only where the source had one (and never right after `{`).
fn blank_line(out: &mut String, t: &Token, after_item: bool, depth: usize) {
    if out.is_empty() || out.ends_with("\n\n") || out.ends_with("{\n") {
        return;
    }
    if (after_item && depth == 0) || t.blank_before {
        out.push('\n');
    }
}

fn needs_space(prev: Option<&Token>, t: &Token, tokens: &[Token], i: usize) -> bool {
    let Some(p) = prev else { return false };
    match (&p.tok, &t.tok) {
        (_, Tok::Sym(';' | ',' | ')' | ']' | ':' | '.')) => false,
        (Tok::Sym('(' | '[' | '@' | '#' | '.' | '<' | '?'), _) => false,
        (Tok::Sym(']'), _) => false,
        (Tok::Sym('-'), Tok::Int(_) | Tok::Float(_)) => false,
        // `map<K, V>` hugs its angle brackets.
        (_, Tok::Sym('>')) => false,
        (Tok::Ident(w), Tok::Sym('<')) if w == "map" => false,
        (Tok::Ident(_), Tok::Sym('(')) => {
            // `@golang.package(`, `fn(`, `pool(` hug their parenthesis;
            // `struct X (dynamic)` and `memory (` do not.
            let word = match &p.tok {
                Tok::Ident(w) => w.as_str(),
                _ => "",
            };
            let in_attr = i >= 2
                && tokens[..i - 1]
                    .iter()
                    .rev()
                    .find(|t| !t.tok.is_comment())
                    .is_some_and(|t| matches!(t.tok, Tok::Sym('@' | '.')));
            !(in_attr || word == "fn" || word == "pool")
        }
        _ => true,
    }
}

//! Long lines broken as `ruff format` breaks them, so the generated text
//! is already formatted: a statement longer than 88 columns is split at
//! the brackets that close it (its "right-hand side"); what they hold goes
//! on a line of its own when it fits there, else one delimiter a line
//! (comprehension clauses; arguments with a trailing comma), each part
//! broken the same way. The generator writes statements simple enough for
//! this: no long conditions, no nested defaults.

/// The widest line `ruff format` keeps.
pub(crate) const WIDTH: usize = 88;

/// `text` with each line longer than [`WIDTH`] broken.
pub(crate) fn wrap(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        // Comments, docstrings and signatures are the generator's to lay
        // out (`Gen::def_line`).
        if body.starts_with('#') || body.starts_with("\"\"\"") || body.starts_with("def ") {
            out.push(line.to_string());
            continue;
        }
        wrap_line(indent, body, &mut out);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn push(out: &mut Vec<String>, indent: usize, body: &str) {
    out.push(format!("{}{body}", " ".repeat(indent)));
}

fn wrap_line(indent: usize, body: &str, out: &mut Vec<String>) {
    if indent + body.chars().count() <= WIDTH {
        push(out, indent, body);
        return;
    }
    let Some((open, close)) = closing_brackets(body) else {
        push(out, indent, body);
        return;
    };
    let head = &body[..=open];
    let inner = body[open + 1..close].trim();
    let tail = &body[close..];
    push(out, indent, head);
    let inner_indent = indent + 4;
    if inner_indent + inner.chars().count() <= WIDTH {
        push(out, inner_indent, inner);
    } else {
        let clauses = split_top(inner, Split::Comprehension);
        let args = split_top(inner, Split::Comma);
        if clauses.len() > 1 {
            for c in clauses {
                wrap_line(inner_indent, &c, out);
            }
        } else if args.len() > 1 {
            for a in args {
                wrap_line(inner_indent, &format!("{a},"), out);
            }
        } else {
            wrap_line(inner_indent, inner, out);
        }
    }
    push(out, indent, tail);
}

/// The byte positions of the bracket that closes `body` (before a final
/// `:` or `,`) and of the one it closes.
fn closing_brackets(body: &str) -> Option<(usize, usize)> {
    let trimmed = body.trim_end_matches([':', ',']);
    let close = trimmed.len().checked_sub(1)?;
    if !matches!(trimmed.as_bytes()[close], b')' | b']' | b'}') {
        return None;
    }
    let mut depth = 0i32;
    let bytes = trimmed.as_bytes();
    let quoted = quoted_mask(trimmed);
    for i in (0..=close).rev() {
        if quoted[i] {
            continue;
        }
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => {
                depth -= 1;
                if depth == 0 {
                    return Some((i, close));
                }
            }
            _ => {}
        }
    }
    None
}

/// Which bytes of `s` are inside a string literal.
fn quoted_mask(s: &str) -> Vec<bool> {
    let mut mask = vec![false; s.len()];
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        match quote {
            Some(q) => {
                mask[i] = true;
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None if b == b'"' || b == b'\'' => {
                mask[i] = true;
                quote = Some(b);
            }
            None => {}
        }
    }
    mask
}

#[derive(Clone, Copy, PartialEq)]
enum Split {
    /// Before each `for` and `if` clause of a comprehension.
    Comprehension,
    /// After each comma.
    Comma,
}

/// `s` split at its top-level delimiters of kind `how`.
fn split_top(s: &str, how: Split) -> Vec<String> {
    let quoted = quoted_mask(s);
    let bytes = s.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    // A lambda's parameters are separated by commas that are no
    // delimiters.
    let mut in_lambda = false;
    while i < bytes.len() {
        if !quoted[i] {
            let word_start =
                i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            match bytes[i] {
                b'l' if depth == 0 && word_start && s[i..].starts_with("lambda ") => {
                    in_lambda = true;
                }
                b':' if depth == 0 && in_lambda => in_lambda = false,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 && how == Split::Comma && !in_lambda => {
                    parts.push(s[start..i].trim().to_string());
                    start = i + 1;
                }
                b' ' if depth == 0 && how == Split::Comprehension => {
                    let rest = &s[i + 1..];
                    if rest.starts_with("for ") || rest.starts_with("if ") {
                        parts.push(s[start..i].trim().to_string());
                        start = i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        parts.push(last.to_string());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_statement_breaks_at_its_closing_brackets() {
        let long = format!(
            "    x.aos = [_read_Shape(v, a.offset + k * 8) for k in range({})]\n",
            "a".repeat(40)
        );
        let w = wrap(&long);
        assert_eq!(
            w,
            format!(
                "    x.aos = [\n        _read_Shape(v, a.offset + k * 8)\n        for k in range({})\n    ]\n",
                "a".repeat(40)
            )
        );
        let short = "    x = f(a, b)\n";
        assert_eq!(wrap(short), short);
    }

    #[test]
    fn arguments_go_one_a_line_with_a_trailing_comma() {
        let line = format!("f({}, {}, \"(,)\")", "a".repeat(40), "b".repeat(40));
        assert_eq!(
            wrap(&line),
            format!(
                "f(\n    {},\n    {},\n    \"(,)\",\n)\n",
                "a".repeat(40),
                "b".repeat(40)
            )
        );
    }
}

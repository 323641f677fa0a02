//! Emitting Rust text: a buffer with the current indentation (four spaces a
//! level), so generator code says what it writes (`open` a block, a
//! `line`, `close` it) instead of spelling out each line's spaces.

/// A Rust source buffer with the current indentation.
#[derive(Default)]
pub(super) struct Code {
    pub out: String,
    pub indent: usize,
}

impl Code {
    /// An empty buffer whose lines start `indent` levels deep (code spliced
    /// into a function body that is being written elsewhere).
    pub fn new(indent: usize) -> Self {
        Code {
            out: String::new(),
            indent,
        }
    }

    /// One line at the current indentation (an empty line stays empty).
    pub fn line(&mut self, s: &str) {
        if !s.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
            self.out.push_str(s);
        }
        self.out.push('\n');
    }

    /// A line opening a block (`... {`, `... (`); indents what follows.
    pub fn open(&mut self, s: &str) {
        self.line(s);
        self.indent += 1;
    }

    /// Ends a block: dedents, then writes `s` (usually `}`).
    pub fn close(&mut self, s: &str) {
        self.indent -= 1;
        self.line(s);
    }

    /// A line that ends one block and opens the next (`} else {`,
    /// `) -> T {`): written one level out, what follows one level in.
    pub fn reopen(&mut self, s: &str) {
        self.indent -= 1;
        self.open(s);
    }

    /// `/// text` doc comment lines (no trailing space on an empty one).
    pub fn doc(&mut self, lines: &[String]) {
        for l in lines {
            let text = format!("/// {l}");
            self.line(text.trim_end());
        }
    }

    /// Text already indented (code produced into another `Code`).
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_indent_what_they_hold() {
        let mut c = Code::new(1);
        c.open("fn f() {");
        c.open("if x {");
        c.line("a();");
        c.reopen("} else {");
        c.line("");
        c.close("}");
        c.close("}");
        c.doc(&["one".into(), String::new()]);
        assert_eq!(
            c.out,
            "    fn f() {\n        if x {\n            a();\n        } else {\n\n        }\n    }\n    /// one\n    ///\n"
        );
    }
}

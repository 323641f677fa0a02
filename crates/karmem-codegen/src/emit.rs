//! The line buffer every backend emits through: text plus the current
//! indentation, so generator code opens and closes blocks instead of
//! spelling out each line's indentation. The data backends wrap it with
//! their own indentation unit and helpers (`go::code::Code`: tabs, `//`
//! comments, error checks; `rust::code::Code`: four spaces, `///`
//! comments); the TypeScript and guest/host binding backends use it as it
//! is, with the unit of their language.

use std::cell::RefCell;
use std::collections::BTreeSet;

/// Source text and the current indentation (`indent` units of `unit`).
pub(crate) struct Lines {
    pub out: String,
    pub indent: usize,
    unit: &'static str,
    /// The function's locals and parameters the code written here uses
    /// (the reader `r`, a parameter, an error variable), recorded by the
    /// generator code that writes each use ([`Lines::local`]).
    uses: RefCell<BTreeSet<&'static str>>,
}

impl Lines {
    pub fn new(unit: &'static str, indent: usize) -> Self {
        Lines {
            out: String::new(),
            indent,
            unit,
            uses: RefCell::default(),
        }
    }

    /// The local reader `r`, for a statement being written to this buffer:
    /// the buffer records the use, and the function declares `r` (Go
    /// `r := v.Reader()`, Rust `let r = v.reader;`, Zig `const r = v.r;`)
    /// only when its body has one ([`Lines::reads`]), rather than looking
    /// for `r` in the text.
    pub fn r(&self) -> &'static str {
        self.local("r")
    }

    /// Whether code written here (or spliced in) uses the local reader `r`.
    pub fn reads(&self) -> bool {
        self.uses("r")
    }

    /// The function local or parameter `name`, for a statement being
    /// written to this buffer: the buffer records the use, so the function
    /// declares (or discards) `name` by what its body uses
    /// ([`Lines::uses`]) rather than by looking for it in the text.
    pub fn local(&self, name: &'static str) -> &'static str {
        self.uses.borrow_mut().insert(name);
        name
    }

    /// Whether code written here (or spliced in) uses the local `name`.
    pub fn uses(&self, name: &str) -> bool {
        self.uses.borrow().contains(name)
    }

    /// Records that code of `other`, copied here by hand, uses what it uses.
    pub fn reads_as(&self, other: &Lines) {
        let theirs = other.uses.borrow().clone();
        self.uses.borrow_mut().extend(theirs);
    }

    /// `other`'s text, as it is, after this buffer's (and what it reads).
    pub fn splice(&mut self, other: &Lines) {
        self.reads_as(other);
        self.out.push_str(&other.out);
    }

    /// One line at the current indentation (an empty line stays empty).
    pub fn line(&mut self, s: &str) {
        if !s.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str(self.unit);
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

    /// Text already indented (code produced into another buffer).
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Comment lines, `prefix` before each text (`"/// "`, `"// "`,
    /// `" * "` inside a block comment), trailing white space removed from
    /// the whole line: an empty text gives the bare prefix (`///`, ` *`).
    pub fn comment(&mut self, prefix: &str, lines: &[String]) {
        for l in lines {
            let text = format!("{prefix}{l}");
            self.line(text.trim_end());
        }
    }

    /// A fixed snippet of several lines (a template in the generator),
    /// each line at the current indentation; the snippet's own relative
    /// indentation is kept and its empty lines stay empty.
    pub fn block(&mut self, text: &str) {
        for l in text.lines() {
            self.line(l);
        }
    }
}

/// `Deref` and `DerefMut` from a backend's `Code(Lines)` to the `Lines`, so
/// `c.line(..)`, `c.indent` and `c.out` reach the shared buffer, and
/// `into_text`.
macro_rules! deref_lines {
    ($code:ident) => {
        impl std::ops::Deref for $code {
            type Target = $crate::emit::Lines;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl std::ops::DerefMut for $code {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }

        impl $code {
            /// The text written.
            #[allow(dead_code)]
            pub fn into_text(self) -> String {
                self.0.out
            }
        }
    };
}
pub(crate) use deref_lines;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_indent_what_they_hold() {
        let mut c = Lines::new("  ", 1);
        c.open("f {");
        c.open("if x {");
        c.line("a");
        c.reopen("} else {");
        c.line("");
        c.close("}");
        c.close("}");
        c.raw("as is\n");
        assert_eq!(
            c.out,
            "  f {\n    if x {\n      a\n    } else {\n\n    }\n  }\nas is\n"
        );
    }

    #[test]
    fn comments_and_snippets() {
        let mut c = Lines::new("\t", 1);
        c.comment("/// ", &["one".into(), String::new()]);
        c.block("\nf {\n  a\n}\n");
        assert_eq!(c.out, "\t/// one\n\t///\n\n\tf {\n\t  a\n\t}\n");
    }

    #[test]
    fn a_buffer_records_that_its_code_reads_through_r() {
        let mut body = Lines::new("\t", 1);
        body.line("x := 1");
        assert!(!body.reads());
        let mut inner = Lines::new("\t", 2);
        let r = inner.r();
        inner.line(&format!("y := {r}.Uint8(0)"));
        assert!(inner.reads());
        body.splice(&inner);
        assert!(body.reads());
        assert_eq!(body.out, "\tx := 1\n\t\ty := r.Uint8(0)\n");
    }

    #[test]
    fn a_buffer_records_the_locals_its_code_uses() {
        let mut body = Lines::new("  ", 1);
        let inner = Lines::new("  ", 2);
        let e = inner.local("e");
        assert_eq!(e, "e");
        assert!(inner.uses("e") && !inner.uses("v") && !inner.reads());
        assert!(!body.uses("e"));
        body.splice(&inner);
        assert!(body.uses("e"));
    }
}

//! Emitting Rust text: the shared line buffer (`crate::emit::Lines`) with
//! four-space indentation, and `///` doc comments.

use crate::emit::{deref_lines, Lines};

/// A Rust source buffer with the current indentation (four spaces a level).
pub(super) struct Code(Lines);

impl Code {
    /// An empty buffer whose lines start `indent` levels deep (code spliced
    /// into a function body that is being written elsewhere).
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("    ", indent))
    }

    /// `/// text` doc comment lines (no trailing space on an empty one).
    pub fn doc(&mut self, lines: &[String]) {
        for l in lines {
            let text = format!("/// {l}");
            self.line(text.trim_end());
        }
    }
}

impl Default for Code {
    fn default() -> Self {
        Code::new(0)
    }
}

deref_lines!(Code);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_spaces_a_level_and_doc_comments() {
        let mut c = Code::new(1);
        c.open("fn f() {");
        c.line("a();");
        c.close("}");
        c.doc(&["one".into(), String::new()]);
        assert_eq!(
            c.out,
            "    fn f() {\n        a();\n    }\n    /// one\n    ///\n"
        );
    }
}

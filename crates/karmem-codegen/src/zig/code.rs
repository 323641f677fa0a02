//! Emitting Zig text that `zig fmt` leaves unchanged: four-space
//! indentation, one statement per line.

use std::cell::Cell;

use crate::emit::{deref_lines, Lines};

/// A Zig source buffer with the current indentation (four spaces), and
/// whether the code written to it reads the message through the function's
/// local `r` (Zig refuses a local that is declared and not used, and one
/// used and not declared).
pub(crate) struct Code(Lines, Cell<bool>);

deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("    ", indent), Cell::new(false))
    }

    /// The local reader `r` (`const r = v.r;`), for a statement being
    /// written to this buffer: the buffer records the use, and the function
    /// declares `r` only when its body has one ([`Code::reads`]), rather
    /// than finding it in the text afterwards.
    pub fn r(&self) -> &'static str {
        self.1.set(true);
        "r"
    }

    /// Whether code written here (or appended) uses the local reader `r`.
    pub fn reads(&self) -> bool {
        self.1.get()
    }

    pub fn append(&mut self, other: Code) {
        self.1.set(self.reads() || other.reads());
        self.out.push_str(&other.out);
    }

    /// `stmt`, run only when `present` holds (always when it is `None`);
    /// when it does not and the slot's zero value holds `held` units of
    /// tables (format.md §10), those are charged instead.
    pub fn when_present(&mut self, present: Option<&str>, stmt: &str, held: u64) {
        match present {
            Some(cond) if held > 0 => {
                self.open(&format!("if ({cond}) {{"));
                self.line(stmt);
                self.reopen("} else {");
                self.line(&format!("try v.charge({held});"));
                self.close("}");
            }
            Some(cond) => self.line(&format!("if ({cond}) {stmt}")),
            None => self.line(stmt),
        }
    }
}

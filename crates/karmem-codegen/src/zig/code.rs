//! Emitting Zig text that `zig fmt` leaves unchanged: four-space
//! indentation, one statement per line.

use crate::emit::{deref_lines, Lines};
use crate::walk::{Ctx, Here};

/// A Zig source buffer with the current indentation (four spaces). Whether
/// its code reads the message through the function's local `r` is the
/// buffer's mark ([`Lines::r`]): Zig refuses a local that is declared and
/// not used, and one used and not declared.
pub(crate) struct Code(Lines);

deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("    ", indent))
    }

    /// Records that code written here reaches the slot `at` describes: a
    /// table field through the function's table `t`, any other slot from
    /// its position, which in a struct's own reader or validator derives
    /// from the parameter `at` (`Gen::function` discards the parameters
    /// the body does not use).
    pub fn place_of(&self, at: &Here) {
        match at.ctx {
            Ctx::Table { .. } => self.local("t"),
            Ctx::Pos { .. } => self.local("at"),
        };
    }

    pub fn append(&mut self, other: Code) {
        self.splice(&other);
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
                let v = self.local("v");
                self.line(&format!("try {v}.charge({held});"));
                self.close("}");
            }
            Some(cond) => self.line(&format!("if ({cond}) {stmt}")),
            None => self.line(stmt),
        }
    }
}

//! Emitting Zig text that `zig fmt` leaves unchanged: four-space
//! indentation, one statement per line.

use crate::emit::{deref_lines, Lines};

/// A Zig source buffer with the current indentation (four spaces).
pub(crate) struct Code(Lines);

deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("    ", indent))
    }

    pub fn append(&mut self, other: Code) {
        self.out.push_str(&other.out);
    }
}

//! Emitting Go text that `gofmt` leaves unchanged: tab indentation, the
//! spacing gofmt gives binary expressions, and tabwriter-style alignment of
//! struct fields and constant blocks.

use crate::emit::{deref_lines, Lines};

/// A Go source buffer with the current indentation (tabs).
pub(crate) struct Code(Lines);

deref_lines!(Code);

impl Code {
    pub fn new(indent: usize) -> Self {
        Code(Lines::new("\t", indent))
    }

    /// The package `name` (`json`, `errors`, `iter`, `strconv`, `karmem`),
    /// for code being written to this buffer: the buffer records the use
    /// ([`Lines::local`]), and the file imports the packages its code uses
    /// rather than looking for them in the text.
    pub fn pkg(&self, name: &'static str) -> &'static str {
        self.local(name)
    }

    /// `if err := CALL; err != nil { return RET }`.
    pub fn try_call(&mut self, call: &str, ret: &str) {
        self.open(&format!("if err := {call}; err != nil {{"));
        self.line(&format!("return {ret}"));
        self.close("}");
    }

    /// `if _, err := CALL; err != nil { return RET }`.
    pub fn try_discard(&mut self, call: &str, ret: &str) {
        self.open(&format!("if _, err := {call}; err != nil {{"));
        self.line(&format!("return {ret}"));
        self.close("}");
    }

    /// `if err != nil { return RET }` after a `x, err :=` line.
    pub fn check_err(&mut self, ret: &str) {
        self.open("if err != nil {");
        self.line(&format!("return {ret}"));
        self.close("}");
    }

    pub fn append(&mut self, other: Code) {
        self.splice(&other);
    }

    /// Doc comment lines (`// text`).
    pub fn doc(&mut self, lines: &[String]) {
        for l in lines {
            let text = format!("// {l}");
            self.line(text.trim_end());
        }
    }
}

/// Rows of cells aligned as gofmt's tabwriter does: every cell but the last
/// is padded to the widest cell of its column plus one space.
pub(crate) fn align(rows: &[Vec<String>]) -> Vec<String> {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for r in rows {
        for (i, cell) in r.iter().enumerate() {
            if i + 1 < r.len() {
                width[i] = width[i].max(cell.chars().count());
            }
        }
    }
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (i, cell) in r.iter().enumerate() {
                line.push_str(cell);
                if i + 1 < r.len() {
                    let pad = width[i] + 1 - cell.chars().count();
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            line
        })
        .collect()
}

/// A byte position: a sum of terms `expr × factor` plus a constant. Rendered
/// the way gofmt prints it: in "normal" position (a lone call argument, an
/// assignment) products lose their spaces only when mixed with sums; in
/// "compact" position (one of several call arguments, an index) no operator
/// has spaces.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pos {
    terms: Vec<(String, u32)>,
    konst: u32,
}

impl Pos {
    pub fn of(base: &str) -> Pos {
        Pos {
            terms: vec![(base.to_string(), 1)],
            konst: 0,
        }
    }

    /// `self + k`.
    pub fn add(&self, k: u32) -> Pos {
        let mut p = self.clone();
        p.konst += k;
        p
    }

    /// `self + expr × factor`.
    pub fn plus(&self, expr: &str, factor: u32) -> Pos {
        let mut p = self.clone();
        p.terms.push((expr.to_string(), factor));
        p
    }

    /// A position back from its compact text (`cols[2]+uint32(i)*12`):
    /// the shared walker (crate::walk) hands positions to the printer as
    /// text. Exact for every position this generator builds, whose terms
    /// hold no `+` or `*` of their own.
    pub fn parse(text: &str) -> Pos {
        let mut p = Pos::default();
        for part in text.split('+') {
            if let Ok(k) = part.parse::<u32>() {
                p.konst += k;
                continue;
            }
            let term = match part.rsplit_once('*') {
                Some((expr, f)) => match f.parse::<u32>() {
                    Ok(f) => (expr.to_string(), f),
                    Err(_) => (part.to_string(), 1),
                },
                None => (part.to_string(), 1),
            };
            p.terms.push(term);
        }
        debug_assert_eq!(p.compact(), text, "a position the generator built");
        p
    }

    fn parts(&self) -> Vec<(String, bool)> {
        let mut parts: Vec<(String, bool)> = self
            .terms
            .iter()
            .map(|(e, f)| {
                if *f == 1 {
                    (e.clone(), false)
                } else {
                    (format!("{e}\u{0}{f}"), true)
                }
            })
            .collect();
        if self.konst != 0 || parts.is_empty() {
            parts.push((self.konst.to_string(), false));
        }
        parts
    }

    pub fn normal(&self) -> String {
        let parts = self.parts();
        if parts.len() == 1 {
            return parts[0].0.replace('\u{0}', " * ");
        }
        parts
            .iter()
            .map(|(p, _)| p.replace('\u{0}', "*"))
            .collect::<Vec<_>>()
            .join(" + ")
    }

    pub fn compact(&self) -> String {
        self.parts()
            .iter()
            .map(|(p, _)| p.replace('\u{0}', "*"))
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// The bytes of an image field at `at`: `v[8:]` (`v[:]` at 0), for the
/// `karmem.Load*` functions (RATIONALE R5.12).
pub(crate) fn image_bytes(at: &Pos) -> String {
    if at.terms.is_empty() && at.konst == 0 {
        "v[:]".to_string()
    } else {
        format!("v[{}:]", at.compact())
    }
}

/// `expr × k` in normal position (`x * 8`, or `x` when k is 1).
pub(crate) fn times(expr: &str, k: u32) -> String {
    if k == 1 {
        expr.to_string()
    } else {
        format!("{expr} * {k}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_render_like_gofmt() {
        let p = Pos::of("cols[2]").plus("uint32(i)", 12);
        assert_eq!(p.normal(), "cols[2] + uint32(i)*12");
        assert_eq!(p.compact(), "cols[2]+uint32(i)*12");
        assert_eq!(Pos::of("at").add(4).normal(), "at + 4");
        assert_eq!(Pos::of("at").compact(), "at");
        assert_eq!(Pos::default().add(8).normal(), "8");
        assert_eq!(Pos::default().plus("j", 8).normal(), "j * 8");
        for p in [
            p,
            Pos::of("t.Offset").add(4),
            Pos::default(),
            Pos::default().add(8),
        ] {
            assert_eq!(Pos::parse(&p.compact()).normal(), p.normal());
        }
    }

    #[test]
    fn alignment() {
        let rows = vec![
            vec!["ID".into(), "uint64".into(), "`json:\"ID\"`".into()],
            vec!["Profiles".into(), "[]Profile".into(), "`x`".into()],
        ];
        assert_eq!(
            align(&rows),
            vec!["ID       uint64    `json:\"ID\"`", "Profiles []Profile `x`"]
        );
    }
}

//! The canonical form of the values a consumer reads (docs/integrity.md §3):
//! the bytes its digest is computed over.

use sha2::{Digest, Sha256};

#[derive(Default)]
pub struct Sink {
    pub bytes: Vec<u8>,
    /// Where each of the root's fields starts in `bytes`: not hashed, for
    /// naming the field where two streams first differ.
    pub marks: Vec<(usize, &'static str)>,
    /// Every NaN fed as one canonical NaN: for comparing with JSON, which
    /// writes a NaN as the string "NaN" and so keeps no payload (RATIONALE
    /// R6.1).
    pub nan_blind: bool,
}

impl Sink {
    pub fn mark(&mut self, field: &'static str) {
        self.marks.push((self.bytes.len(), field));
    }

    /// The root field whose bytes hold offset `at`.
    pub fn field_at(&self, at: usize) -> &'static str {
        self.marks
            .iter()
            .rev()
            .find(|(start, _)| *start <= at)
            .map_or("(before the first field)", |(_, f)| f)
    }

    pub fn u8(&mut self, x: u8) {
        self.bytes.push(x);
    }
    pub fn i8(&mut self, x: i8) {
        self.bytes.push(x as u8);
    }
    pub fn bool(&mut self, x: bool) {
        self.bytes.push(u8::from(x));
    }
    pub fn u16(&mut self, x: u16) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn i16(&mut self, x: i16) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn u32(&mut self, x: u32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn i32(&mut self, x: i32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn u64(&mut self, x: u64) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn i64(&mut self, x: i64) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn f32(&mut self, x: f32) {
        let x = if self.nan_blind && x.is_nan() {
            f32::NAN
        } else {
            x
        };
        self.u32(x.to_bits());
    }
    pub fn f64(&mut self, x: f64) {
        let x = if self.nan_blind && x.is_nan() {
            f64::NAN
        } else {
            x
        };
        self.u64(x.to_bits());
    }

    /// A length or a count: u32 LE. Message lengths are u32 on the wire.
    pub fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }

    /// UTF-8 text and byte arrays: the length in bytes, then the bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.bytes.extend_from_slice(b);
    }

    pub fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// UTF-16 text: the number of code units, then each unit.
    pub fn units(&mut self, units: &[u16]) {
        self.len(units.len());
        for u in units {
            self.u16(*u);
        }
    }

    /// `?T`: 0 for no value, 1 then the value.
    pub fn option<T>(&mut self, x: Option<T>, mut some: impl FnMut(&mut Sink, T)) {
        match x {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                some(self, v);
            }
        }
    }

    /// A counted sequence: its length, then each element.
    pub fn seq<T>(
        &mut self,
        xs: impl ExactSizeIterator<Item = T>,
        mut one: impl FnMut(&mut Sink, T),
    ) {
        self.len(xs.len());
        for x in xs {
            one(self, x);
        }
    }

    pub fn digest_hex(&self) -> String {
        hex(&Sha256::digest(&self.bytes))
    }
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Lowercase or uppercase hex to bytes; `None` for anything else.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.as_bytes()
        .chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

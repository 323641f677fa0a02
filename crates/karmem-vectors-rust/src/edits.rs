//! The generated in-place editors (`{T}Edit`, format.md §12) on every
//! golden vector. For each table type, build.rs prints (`build/edits.rs`)
//! an `Edits` impl that sets every settable field of a vector's message,
//! reached from the root through nested tables, one at a time on a fresh
//! copy, and edits the vector's object the same way: the value must read
//! back through the editor's checked view, the message must validate, and
//! its bytes must be what the encoder writes for the edited object (after
//! a length change that leaves spare capacity, which no encoder writes:
//! what the checked viewers read). The helpers those impls call are here.

use karmem::{AlignedBuf, Reader, ReaderMut};

use crate::{json, typed, views, Generated};

// The printed impls: every edit in a block of its own, editors bound as
// `let mut e` whether or not a nested editor is taken from them.
#[allow(unused_mut)]
mod printed {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/edits.rs"));
}

/// The edits of one table type, printed per schema.
pub trait Edits: Generated + Clone {
    /// Set every settable field of `bytes` (a valid message whose value
    /// is `self`); how many edits were checked.
    fn edits(&self, bytes: &[u8]) -> Result<usize, String>;
    /// `bytes` written by an older schema: every setter of a field its
    /// writer did not know must fail and write nothing; how many did.
    fn edits_absent(bytes: &[u8]) -> Result<usize, String>;
    /// A hostile message: every setter runs (its result ignored) and must
    /// neither panic nor write outside the message (the buffer's slices
    /// would panic first).
    fn edits_hostile(bytes: &[u8]);
}

/// A new value for a scalar setter: never the old one, never NaN.
pub trait Bump: Copy + PartialEq + std::fmt::Debug {
    fn bump(self) -> Self;
}

macro_rules! bump_int {
    ($($t:ty),*) => {$(
        impl Bump for $t {
            fn bump(self) -> Self {
                self.wrapping_add(1)
            }
        }
    )*};
}
bump_int!(u8, u16, u32, u64, i8, i16, i32, i64);

macro_rules! bump_float {
    ($($t:ty),*) => {$(
        impl Bump for $t {
            fn bump(self) -> Self {
                if self == 1.5 { -2.25 } else { 1.5 }
            }
        }
    )*};
}
bump_float!(f32, f64);

impl Bump for bool {
    fn bump(self) -> Self {
        !self
    }
}

/// Every edit of the vector whose value is `value` and message `bytes`.
pub fn edit<T: Edits>(value: &serde_json::Value, bytes: &[u8]) -> Result<usize, String> {
    typed::<T>(value)?.edits(bytes)
}

/// An editor over `buf`.
pub fn open(buf: &mut AlignedBuf) -> Result<ReaderMut<'_>, String> {
    ReaderMut::new(buf.as_mut_slice()).map_err(|e| format!("open: {e}"))
}

/// A copy of `bytes` to edit (8-byte aligned, as a reader needs).
pub fn copy(bytes: &[u8]) -> AlignedBuf {
    AlignedBuf::from_bytes(bytes)
}

/// A setter's result: it must succeed.
pub fn ok(what: &str, r: Result<(), karmem::Error>) -> Result<(), String> {
    r.map_err(|e| format!("{what}: {e}"))
}

/// What a setter must refuse: an error, and not a byte written.
pub fn refused(
    what: &str,
    r: Result<(), karmem::Error>,
    before: &[u8],
    after: &AlignedBuf,
) -> Result<(), String> {
    if r.is_ok() {
        return Err(format!("{what}: accepted, expected an error"));
    }
    if after.as_slice() != before {
        return Err(format!("{what}: refused, but the message changed"));
    }
    Ok(())
}

/// The value read back through the editor's view is the one set.
pub fn read_back<T: PartialEq + std::fmt::Debug>(what: &str, got: T, set: T) -> Result<(), String> {
    if got != set {
        return Err(format!("{what}: reads {got:?} after setting {set:?}"));
    }
    Ok(())
}

/// The edited message validates and its bytes are what the encoder
/// writes for `want`, the object edited the same way.
pub fn same_bytes<T: Generated>(what: &str, want: &T, buf: &AlignedBuf) -> Result<(), String> {
    let got = buf.as_slice();
    validates::<T>(what, got)?;
    let mut w = karmem::Writer::new(64);
    want.write_as_root(&mut w)
        .map_err(|e| format!("{what}: encode: {e}"))?;
    if w.bytes() != got {
        let at = w.bytes().iter().zip(got).position(|(a, b)| a != b);
        return Err(format!(
            "{what}: the edited message differs from the encoder's (first at {at:?})"
        ));
    }
    Ok(())
}

/// The edited message validates and its checked viewers read `want`
/// (after a change of length, whose spare capacity no encoder writes).
pub fn same_view<T: Generated>(what: &str, want: &T, buf: &AlignedBuf) -> Result<(), String> {
    validates::<T>(what, buf.as_slice())?;
    let r = Reader::new(buf.as_slice()).map_err(|e| format!("{what}: open: {e}"))?;
    let expected = json::to_value(want).map_err(|e| e.to_string())?;
    match views::differs(&expected, &T::view_json(&r), "value") {
        Some(d) => Err(format!("{what}: the viewers read {d}")),
        None => Ok(()),
    }
}

fn validates<T: Generated>(what: &str, bytes: &[u8]) -> Result<(), String> {
    let r = Reader::new(bytes).map_err(|e| format!("{what}: open: {e}"))?;
    T::validate(&r).map_err(|e| format!("{what}: the edited message does not validate: {e}"))
}

/// `s` without its last character (a shorter text that still fits).
pub fn shorter(s: &str) -> String {
    let mut s = s.to_string();
    s.pop();
    s
}

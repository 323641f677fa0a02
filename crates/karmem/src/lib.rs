//! Karmem runtime library for Rust: the pieces generated code is built from.
//!
//! * [`Writer`]: a reusable, 64-byte aligned output buffer. Encoding into a
//!   reused writer allocates nothing once it has grown to the message size;
//!   [`Writer::over`] encodes into the caller's buffer (a shared or
//!   exported region) without a copy.
//! * [`Reader`]: bounds-checked, zero-copy access to a message. Every load is
//!   checked; malformed data reads as zero/empty (format.md §4–§5), never as
//!   a panic or an out-of-bounds read.
//! * [`Validator`]: the one-pass checker behind the generated `validate`
//!   functions; a validated message can be read through a
//!   `Reader<'_, Trusted>`, whose loads skip bounds checks and whose text
//!   is not checked for UTF-8 again. A message validated once and read
//!   many times later is re-opened with the `unsafe`
//!   [`Reader::from_validated`] (no header checks) or
//!   [`Reader::assume_trusted`].
//! * [`ReaderMut`]: in-place updates of scalars, of arrays and of text
//!   within their capacity; the generated `TEdit` editors are typed
//!   setters over it.
//!
//! The format itself is specified in `docs/format.md`; this crate follows it
//! section by section.

#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod error;
mod reader;
mod refcheck;
mod scalar;
mod transpose;
mod validate;
mod views;
mod writer;

/// The object type of a `map<K, V>` field: keys in order, as on the wire.
pub use alloc::collections::BTreeMap as Map;
pub use error::Error;
pub use reader::{
    AlignedBuf, ArrayRef, Checked, Directory, Limits, Mode, Reader, ReaderMut, Table, Trusted,
};
pub use scalar::{Scalar, ScalarNewtype};
pub use validate::Validator;
pub use views::{ArrayOfArrays, FromInline, FromTable, InlineArray, MapView, TableArray};
pub use writer::Writer;

/// A generated data type used as a message root: how to view, encode and
/// decode it without naming its generated functions. Implemented by the
/// interface generators (`--lang rust-guest`, `--lang rust-host`) for every
/// struct that is a parameter or result, so their runtime support can be
/// generic over the message type.
pub trait Message: Sized {
    /// The zero-copy, bounds-checked viewer (`TypeView<'a>`).
    type View<'a>;
    /// The viewer of a validated message (`TypeView<'a, Trusted>`), whose
    /// loads skip bounds checks; only [`Message::trust`] returns one.
    type TrustedView<'a>;
    fn view<'a>(r: &Reader<'a>) -> Self::View<'a>;
    /// The trusted viewer of a message read through a trusted reader (one
    /// that [`Reader::assume_trusted`] made after this type's validation).
    fn view_trusted<'a>(r: &Reader<'a, Trusted>) -> Self::TrustedView<'a>;
    fn encode(&self, w: &mut Writer) -> Result<(), Error>;
    fn decode(r: &Reader<'_>) -> Result<Self, Error>;
    /// Validate the whole message as this root type (format.md §11) and
    /// view it trusted (the generated `validate`): what a guest runtime does
    /// to an argument before its function sees it.
    fn trust<'a>(r: &Reader<'a>) -> Result<Self::TrustedView<'a>, Error>;
    /// Validate the whole message as this root type, keeping nothing.
    fn check(r: &Reader<'_>) -> Result<(), Error> {
        Self::trust(r).map(|_| ())
    }
}

/// "No result": what callers of a function without a result receive.
impl Message for () {
    type View<'a> = ();
    type TrustedView<'a> = ();
    fn view<'a>(_: &Reader<'a>) -> Self::View<'a> {}
    fn view_trusted<'a>(_: &Reader<'a, Trusted>) -> Self::TrustedView<'a> {}
    fn encode(&self, _: &mut Writer) -> Result<(), Error> {
        Ok(())
    }
    fn decode(_: &Reader<'_>) -> Result<Self, Error> {
        Ok(())
    }
    fn trust<'a>(_: &Reader<'a>) -> Result<Self::TrustedView<'a>, Error> {
        Ok(())
    }
}

/// The format's constants and the column hash, owned by `karmem-format`
/// (the one layout contract, RATIONALE.md R3.4) and re-exported here.
pub use karmem_format::{natural_align, path_hash, ARRAY_ALIGN, HEADER_SIZE, MAGIC, VERSION};

/// How many elements ahead generated SoA loops prefetch children
/// (see [`Reader::prefetch_array`]).
#[doc(hidden)]
pub const PREFETCH_AHEAD: u32 = 4;

/// `x` rounded up to a multiple of `a` (a power of two), in 64-bit arithmetic
/// so that hostile 32-bit values cannot overflow.
#[inline(always)]
pub const fn align_up(x: u64, a: u64) -> u64 {
    (x + a - 1) & !(a - 1)
}

//! Generated code for every schema under `testdata/` (see build.rs), and the
//! typed checks the golden-vector runner dispatches to.

/// What every generated object type offers; lets one generic check serve
/// all of them.
pub trait Generated:
    Sized + Default + PartialEq + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned
{
    fn write_as_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error>;
    fn read_as_root(&mut self, r: &karmem::Reader<'_>) -> Result<(), karmem::Error>;
    fn validate(r: &karmem::Reader<'_>) -> Result<(), karmem::Error>;
    /// The message read through the checked viewer `TView::root`, as JSON
    /// ([`views`]).
    fn view_json(r: &karmem::Reader<'_>) -> serde_json::Value;
    /// The message read through the trusted viewer `T::validate` returns.
    fn trusted_json(r: &karmem::Reader<'_>) -> Result<serde_json::Value, karmem::Error>;
}

pub mod edits;
pub mod json;
pub mod views;

include!(concat!(env!("OUT_DIR"), "/modules.rs"));
include!(concat!(env!("OUT_DIR"), "/impls.rs"));

/// The golden-vector contract for one generated type.
pub fn check<T: Generated>(value: &serde_json::Value, bytes: &[u8]) -> Result<(), String> {
    let expected: T = typed(value)?;
    let mut w = karmem::Writer::new(64);
    expected
        .write_as_root(&mut w)
        .map_err(|e| format!("encode: {e}"))?;
    if w.bytes() != bytes {
        return Err(format!(
            "encoding differs from the golden bytes ({} vs {} bytes)",
            w.bytes().len(),
            bytes.len()
        ));
    }
    let buf = karmem::AlignedBuf::from_bytes(bytes);
    let r = karmem::Reader::new(buf.as_slice()).map_err(|e| format!("open: {e}"))?;
    let mut got = T::default();
    got.read_as_root(&r).map_err(|e| format!("decode: {e}"))?;
    if !same(&got, &expected, bytes) {
        return Err(format!(
            "decoded value differs:\n{got:?}\nexpected\n{expected:?}"
        ));
    }
    // Decoding again into the used object gives the same value (reuse path).
    got.read_as_root(&r)
        .map_err(|e| format!("decode again: {e}"))?;
    if !same(&got, &expected, bytes) {
        return Err("decoding into a reused object changed the value".into());
    }
    T::validate(&r).map_err(|e| format!("validate: {e}"))?;
    viewed::<T>(&r, value)?;
    // The writer is reused: encoding again must give the same bytes.
    expected
        .write_as_root(&mut w)
        .map_err(|e| format!("encode again: {e}"))?;
    if w.bytes() != bytes {
        return Err("re-encoding with a reused writer changed the bytes".into());
    }
    // A writer whose buffer is full of other bytes: every byte the value
    // does not set (padding, gaps, unused capacity) must still come out zero.
    w.begin();
    let stale = (2 * bytes.len() + 256) as u32;
    let at = w.alloc(stale, 8).map_err(|e| format!("alloc: {e}"))?;
    w.slice_mut(at, stale).fill(0xFF);
    expected
        .write_as_root(&mut w)
        .map_err(|e| format!("encode over stale bytes: {e}"))?;
    if w.bytes() != bytes {
        return Err("encoding over a buffer full of stale bytes changed the bytes".into());
    }
    over_callers_buffer(&expected, bytes)
}

/// One 64-byte aligned line of a caller's buffer (`Writer::over` needs
/// the alignment).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Encoding into a caller's buffer full of other bytes gives the same
/// bytes and touches nothing after the message; a buffer one line short is
/// refused with `TooLarge`, whatever the encoding reached.
fn over_callers_buffer<T: Generated>(value: &T, bytes: &[u8]) -> Result<(), String> {
    let lines = bytes.len().div_ceil(64);
    let mut buf = vec![Line([0xAB; 64]); lines + 1];
    // SAFETY: `buf` is `(lines + 1) * 64` initialised bytes; u8 has no
    // alignment requirement and any byte is a valid u8.
    let raw =
        unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 64) };
    {
        let mut w = karmem::Writer::over(&mut raw[..]).map_err(|e| format!("over: {e}"))?;
        value
            .write_as_root(&mut w)
            .map_err(|e| format!("encode over a caller's buffer: {e}"))?;
        if w.bytes() != bytes {
            return Err("encoding over a caller's buffer changed the bytes".into());
        }
    }
    // The rest of the message's last line is zeroed (the writer works in
    // whole lines); nothing after that line is touched.
    let line_end = lines * 64;
    if raw[..bytes.len()] != *bytes
        || raw[bytes.len()..line_end].iter().any(|b| *b != 0)
        || raw[line_end..].iter().any(|b| *b != 0xAB)
    {
        return Err(
            "a caller's buffer: not the message, or bytes after its last line touched".into(),
        );
    }
    if lines > 1 {
        let mut w =
            karmem::Writer::over(&mut raw[..(lines - 1) * 64]).map_err(|e| format!("over: {e}"))?;
        match value.write_as_root(&mut w) {
            Err(karmem::Error::TooLarge) => {}
            other => return Err(format!("a buffer one line short: {other:?}")),
        }
    }
    Ok(())
}

/// The typed value of a vector's JSON (NaN and infinities included).
pub(crate) fn typed<T: Generated>(value: &serde_json::Value) -> Result<T, String> {
    json::from_value(value.clone())
        .map_err(|e| format!("value does not fit the generated type: {e}"))
}

/// `got` (decoded from `bytes`) equals `expected`, floats by their bits.
/// `PartialEq` cannot say it: NaN is unequal to itself and `-0.0 == 0.0`.
/// `Debug` prints NaN, the infinities and `-0.0` distinctly, and writing
/// `got` again must give exactly `bytes`, which also pins NaN payloads.
fn same<T: Generated>(got: &T, expected: &T, bytes: &[u8]) -> bool {
    if format!("{got:?}") != format!("{expected:?}") {
        return false;
    }
    let mut w = karmem::Writer::new(64);
    got.write_as_root(&mut w).is_ok() && w.bytes() == bytes
}

/// Evolution: the bytes read with the generated type `T` of another schema
/// version (validation must pass) equal the value the vector states.
pub fn check_read<T: Generated>(value: &serde_json::Value, bytes: &[u8]) -> Result<(), String> {
    let expected: T = typed(value)?;
    let buf = karmem::AlignedBuf::from_bytes(bytes);
    let r = karmem::Reader::new(buf.as_slice()).map_err(|e| format!("open: {e}"))?;
    let mut got = T::default();
    got.read_as_root(&r).map_err(|e| format!("decode: {e}"))?;
    T::validate(&r).map_err(|e| format!("validate: {e}"))?;
    if format!("{got:?}") != format!("{expected:?}") {
        return Err(format!("read\n{got:?}\nexpected\n{expected:?}"));
    }
    viewed::<T>(&r, value)
}

/// The message read in place through the checked viewers and, after
/// validation, through the trusted ones must both be `expected` (the
/// vector's JSON, compared strictly: [`views::differs`]).
fn viewed<T: Generated>(
    r: &karmem::Reader<'_>,
    expected: &serde_json::Value,
) -> Result<(), String> {
    if let Some(d) = views::differs(expected, &T::view_json(r), "value") {
        return Err(format!("the value read through the viewers differs: {d}"));
    }
    let trusted = T::trusted_json(r).map_err(|e| format!("validate: {e}"))?;
    if let Some(d) = views::differs(expected, &trusted, "value") {
        return Err(format!(
            "the value read through the trusted viewers differs: {d}"
        ));
    }
    Ok(())
}

/// Decode with the generated type; `strict` also requires validation to
/// pass, otherwise validation only has to not panic. The JSON is the
/// vectors' (NaN and infinities as strings, [`json::to_value`]).
pub fn decode<T: Generated>(bytes: &[u8], strict: bool) -> Result<serde_json::Value, String> {
    let buf = karmem::AlignedBuf::from_bytes(bytes);
    let r = karmem::Reader::new(buf.as_slice()).map_err(|e| format!("open: {e}"))?;
    let mut got = T::default();
    got.read_as_root(&r).map_err(|e| format!("decode: {e}"))?;
    let valid = T::validate(&r);
    if strict {
        valid.map_err(|e| format!("validate: {e}"))?;
    }
    json::to_value(&got).map_err(|e| e.to_string())
}

/// What the generated code decides on a hostile message: whether the
/// validator accepts it, and what the decoder gives (as JSON) or why not.
#[derive(Debug)]
pub struct Verdict {
    pub valid: Result<(), String>,
    pub decoded: Result<serde_json::Value, String>,
    /// What the checked and the trusted viewers read, when the validator
    /// accepts the message. Only then: an invalid one may claim an SoA
    /// array of 2³² elements without columns, which the viewers would
    /// walk element by element (the validator's budget refuses it,
    /// format.md §10).
    pub viewed: Result<(serde_json::Value, serde_json::Value), String>,
}

/// Validate and decode `bytes` with the generated type `T`.
pub fn hostile<T: Generated>(bytes: &[u8]) -> Verdict {
    let buf = karmem::AlignedBuf::from_bytes(bytes);
    let r = match karmem::Reader::new(buf.as_slice()) {
        Ok(r) => r,
        Err(e) => {
            return Verdict {
                valid: Err(format!("open: {e}")),
                decoded: Err(format!("open: {e}")),
                viewed: Err(format!("open: {e}")),
            }
        }
    };
    let mut got = T::default();
    Verdict {
        // The kind's name first (`DirectoryTooLarge { .. }`): vectors may name it.
        valid: T::validate(&r).map_err(|e| format!("{e:?}")),
        decoded: got
            .read_as_root(&r)
            .map_err(|e| e.to_string())
            .and_then(|()| json::to_value(&got).map_err(|e| e.to_string())),
        viewed: T::trusted_json(&r)
            .map(|trusted| (T::view_json(&r), trusted))
            .map_err(|e| format!("{e:?}")),
    }
}

/// Hostile input: decode if possible; never panics.
pub fn decode_lenient(schema: &str, root: &str, bytes: &[u8]) -> Result<serde_json::Value, String> {
    decode_with(schema, root, bytes, false)
}

//! The Rust member of the cross-language integrity suite
//! (docs/integrity.md): a producer (seed → message) and a consumer
//! (message → the canonical bytes of what it reads, and their SHA-256) for
//! both versions of testdata/integrity's schema, and the line protocol
//! every member speaks (`karmem-integrity`, §4).

pub mod harness;
mod rng;
pub mod sink;
mod version;

/// The message itself when it is 8-byte aligned (a guest's window, a
/// writer's buffer: read in place), else an aligned copy in `copy`.
fn aligned<'a>(message: &'a [u8], copy: &'a mut Option<karmem::AlignedBuf>) -> &'a [u8] {
    if (message.as_ptr() as usize).is_multiple_of(8) {
        message
    } else {
        copy.insert(karmem::AlignedBuf::from_bytes(message))
            .as_slice()
    }
}

/// Code generated from testdata/integrity/old.km (build.rs).
#[allow(dead_code, clippy::all)]
pub mod old_schema {
    include!(concat!(env!("OUT_DIR"), "/old.rs"));
}

/// Code generated from testdata/integrity/new.km (build.rs).
#[allow(dead_code, clippy::all)]
pub mod new_schema {
    include!(concat!(env!("OUT_DIR"), "/new.rs"));
}

/// The first version: three colours, two union variants.
pub mod old {
    use crate::old_schema::*;

    crate::version::version! {
        colors: 3,
        shapes: 3,
        item_extra: |_r, _item| {},
        root_extra: |_r, _root| {},
        star: |_r| None,
        walk_item_extra: |_s, _v| {},
        walk_root_extra: |_s, _v| {},
        walk_star: |_s, _v| {},
        walk_bovoa_star: |_s, _b| {},
        walk_bovos_star: |_s, _b| {},
    }
}

/// The second version: a fourth colour, the variant `Star`, and fields
/// appended to `Item` and `Root`.
pub mod new {
    use crate::new_schema::*;

    crate::version::version! {
        colors: 4,
        shapes: 4,
        item_extra: |r, item| {
            item.score = r.i64();
            item.notes = r.vec(None, |r| r.text(None));
        },
        root_extra: |r, root| {
            root.level = r.u8();
            root.extra = r.u64();
            root.more = r.vec(None, item);
        },
        star: |r| Some(ShapeValue::Star(Star { points: r.u8() })),
        walk_item_extra: |s, v| {
            s.i64(v.score());
            s.seq(v.notes().iter(), |s, t| s.text(t));
        },
        walk_root_extra: |s, v| {
            s.mark("level");
            s.u8(v.level());
            s.mark("extra");
            s.u64(v.extra());
            s.mark("more");
            walk_item_soa(s, v.more());
        },
        walk_star: |s, v| {
            if let ShapeView::Star(star) = v {
                s.u32(3);
                s.u8(star.points());
            }
        },
        walk_bovoa_star: |s, b| {
            s.u32(3);
            s.seq(b.star().iter(), |s, x| s.u8(x.points()));
        },
        walk_bovos_star: |s, b| {
            s.u32(3);
            let stars = b.star();
            s.len(stars.len());
            for x in stars.iter() {
                s.u8(x.points());
            }
        },
    }
}

/// A schema version, as the protocol names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Old,
    New,
}

impl Version {
    pub fn parse(s: &str) -> Option<Version> {
        match s {
            "old" => Some(Version::Old),
            "new" => Some(Version::New),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Version::Old => "old",
            Version::New => "new",
        }
    }
}

pub fn produce(version: Version, seed: u64) -> Result<Vec<u8>, String> {
    match version {
        Version::Old => old::produce(seed),
        Version::New => new::produce(seed),
    }
    .map_err(|e| e.to_string())
}

/// The canonical bytes of `message` read with `version` (§3).
pub fn stream(version: Version, message: &[u8]) -> Result<Vec<u8>, String> {
    match version {
        Version::Old => old::stream(message),
        Version::New => new::stream(message),
    }
}

/// What the checked viewers read from a message that was not validated
/// (malformed parts read as zero); an error only for a bad header.
pub fn stream_unvalidated(version: Version, message: &[u8]) -> Result<Vec<u8>, String> {
    match version {
        Version::Old => old::stream_unvalidated(message),
        Version::New => new::stream_unvalidated(message),
    }
}

/// `stream` with every NaN fed as the same NaN: for comparisons with JSON,
/// which keeps no NaN payload.
pub fn stream_nan_blind(version: Version, message: &[u8]) -> Result<Vec<u8>, String> {
    match version {
        Version::Old => old::stream_nan_blind(message),
        Version::New => new::stream_nan_blind(message),
    }
}

/// `message` decoded with the generated decoder of `version` (lenient:
/// malformed parts read as zero, unknown union tags as no value) and
/// encoded again.
pub fn reencode(version: Version, message: &[u8]) -> Result<Vec<u8>, String> {
    match version {
        Version::Old => old::reencode(message),
        Version::New => new::reencode(message),
    }
}

/// The root field whose canonical bytes hold `offset` in the stream of
/// `message` read with `version` (without validation): names the value
/// where two streams first differ.
pub fn field_at(version: Version, message: &[u8], offset: usize) -> Option<&'static str> {
    let sink = match version {
        Version::Old => old::sink_unvalidated(message),
        Version::New => new::sink_unvalidated(message),
    }
    .ok()?;
    Some(sink.field_at(offset))
}

/// Decoding a message of `version` and encoding it again gives it back.
pub fn roundtrip(version: Version, message: &[u8]) -> Result<(), String> {
    match version {
        Version::Old => old::roundtrip(message),
        Version::New => new::roundtrip(message),
    }
}

pub mod protocol;
#[cfg(feature = "host")]
pub mod wasm;

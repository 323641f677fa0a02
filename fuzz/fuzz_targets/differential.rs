//! Differential fuzzing (docs/integrity.md §8): the same bytes go to every
//! implementation this process can reach, and any difference in what they
//! accept, or in the values they read, is a failure:
//!
//! - the Rust validator and readers (`karmem_integrity::stream`: validation,
//!   then the checked and the trusted viewers, which must agree);
//! - the JSON codec (`karmem_json::decode`, the interpretive decoder) and
//!   the generated Rust decoder: both lenient (malformed parts read as zero,
//!   unknown union tags as no value), they must accept the same messages and
//!   read the same values (encoded again, the same canonical stream);
//! - the Go library, through its wasip1 guest loaded by the host
//!   (`guests/out/go-integrity-{old,new}.wasm`): the message is written into
//!   the shared region and read in place there, as a plugin would.
//!
//! The first input byte picks the schema version (old or new); the rest is
//! the message.
#![no_main]
use std::sync::{Mutex, OnceLock};

use karmem_integrity::harness::{Member, Process};
use karmem_integrity::sink::{hex, unhex};
use karmem_integrity::Version;
use libfuzzer_sys::fuzz_target;

struct Compiled {
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
    root: usize,
}

fn compile(name: &str, source: &str) -> Compiled {
    let schema = karmem_schema::compile(name, source)
        .expect("valid schema")
        .schema;
    let layout = karmem_layout::compute(&schema).expect("valid layout");
    let root = schema
        .structs
        .iter()
        .position(|s| s.name == "Root")
        .expect("a Root");
    Compiled {
        schema,
        layout,
        root,
    }
}

fn schemas() -> &'static [Compiled; 2] {
    static C: OnceLock<[Compiled; 2]> = OnceLock::new();
    C.get_or_init(|| {
        [
            compile("old.km", include_str!("../../testdata/integrity/old.km")),
            compile("new.km", include_str!("../../testdata/integrity/new.km")),
        ]
    })
}

/// The Go guests on the host, in a process of their own
/// (`karmem-integrity-host go`, built by scripts/fuzz.sh): wasmtime runs
/// uninstrumented there, so a 4 MB Go module compiles in seconds, once
/// (cached), not in the minutes it takes under the sanitizer.
fn go() -> &'static Mutex<Process> {
    static GO: OnceLock<Mutex<Process>> = OnceLock::new();
    GO.get_or_init(|| {
        let bin = std::env::var_os("KARMEM_INTEGRITY_HOST")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/debug/karmem-integrity-host")
            });
        assert!(
            bin.exists(),
            "{} is missing: cargo build -p karmem-integrity --features host (scripts/fuzz.sh does)",
            bin.display()
        );
        let mut command = std::process::Command::new(bin);
        command.arg("go");
        Mutex::new(Process::start("go-wasm", command))
    })
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, message)) = data.split_first() else {
        return;
    };
    let (version, name) = if pick & 1 == 0 {
        (Version::Old, "old")
    } else {
        (Version::New, "new")
    };
    let schema = &schemas()[usize::from(pick & 1)];

    // Rust: validator, then checked and trusted viewers (which must agree).
    let rust = karmem_integrity::stream(version, message);
    if let Err(e) = &rust {
        assert!(
            !e.contains("checked and the trusted viewers"),
            "Rust's checked and trusted viewers disagree on an accepted message"
        );
    }

    // The JSON codec's decoder (interpretive) and the generated Rust
    // decoder read any message the same way: malformed parts as zero,
    // unknown union tags as no value, the same budget and depth limits. The
    // values they read, encoded again, must stream the same bytes.
    let copy = karmem::AlignedBuf::from_bytes(message);
    let json = karmem_json::decode(&schema.schema, &schema.layout, schema.root, copy.as_slice())
        .map_err(|e| e.to_string())
        .map(|value| {
            karmem_json::encode(&schema.schema, &schema.layout, schema.root, &value)
                .expect("a value the codec read encodes")
        });
    let decoded = karmem_integrity::reencode(version, message);
    assert_eq!(
        json.is_ok(),
        decoded.is_ok(),
        "JSON codec: {:?}; generated decoder: {:?}",
        json.as_ref().err(),
        decoded.as_ref().err()
    );
    if rust.is_ok() {
        assert!(decoded.is_ok(), "a valid message does not decode: {:?}", decoded.err());
    }
    if let (Ok(a), Ok(b)) = (&json, &decoded) {
        // NaNs compare as one value: JSON writes "NaN", without a payload.
        let sa = karmem_integrity::stream_nan_blind(version, a)
            .expect("the codec's encoding validates");
        let sb = karmem_integrity::stream_nan_blind(version, b)
            .expect("the decoder's encoding validates");
        if sa != sb {
            let at = first_difference(&sa, &sb);
            panic!(
                "the JSON codec and the generated decoder read different values, first in {:?}",
                karmem_integrity::field_at(version, a, at)
            );
        }
    }

    // Go, as a guest reading the message in place from the shared region.
    let answer = go()
        .lock()
        .unwrap()
        .ask(&format!("stream {name} {}", hex(message)));
    let go = match answer.strip_prefix("error ") {
        Some(reason) => Err(reason.to_string()),
        None => Ok(unhex(&answer).expect("hex from the Go guest")),
    };
    assert_eq!(
        rust.is_ok(),
        go.is_ok(),
        "Rust: {:?}; Go guest: {:?}",
        rust.as_ref().err(),
        go.as_ref().err()
    );
    if let (Ok(a), Ok(b)) = (&rust, &go) {
        if a != b {
            let at = first_difference(a, b);
            panic!(
                "the Go guest read other values than the Rust viewers, first in {:?}",
                karmem_integrity::field_at(version, message, at)
            );
        }
    }
});

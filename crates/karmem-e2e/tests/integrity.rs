//! The integrity suite with every member (docs/integrity.md §5, §6): Rust
//! and Go natively, and the same producers and consumers as WebAssembly
//! guests on the host, with messages passed through the interface's shared
//! regions — the producer writes its message into `outbox`, the host copies
//! nothing out but reads it there; the host writes a message into `inbox`
//! and the consumer reads it in place.

use std::path::Path;

use karmem_integrity::harness::{self, InProcess, Member};
use karmem_integrity::wasm::Wasm;

fn members() -> Vec<Box<dyn Member>> {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut out: Vec<Box<dyn Member>> = Vec::new();
    if harness::wanted("rust") {
        out.push(Box::new(InProcess));
    }
    if harness::wanted("go") {
        out.push(Box::new(harness::go_native(scratch)));
    }
    for (name, prefix) in [("rust-wasm", ""), ("go-wasm", "go-")] {
        if harness::wanted(name) {
            let m =
                Wasm::load(karmem_e2e::runtime(), name, prefix).unwrap_or_else(|e| panic!("{e}"));
            out.push(Box::new(m));
        }
    }
    assert!(!out.is_empty(), "INTEGRITY_MEMBERS names no member");
    out
}

/// One test, so each guest module is compiled once: a Go guest takes
/// seconds to compile (4 MB of wasm), and both checks need all members.
#[test]
fn every_pair_agrees_natively_and_as_guests() {
    let mut members = members();
    for m in members.iter_mut() {
        harness::refuses_bad_requests(m.as_mut());
    }
    harness::run(&mut members, harness::seeds(12));
}

//! The integrity suite with the native members (docs/integrity.md §5):
//! Rust and Go, and C, TypeScript, Python, Zig and AssemblyScript when
//! their commands are given (harness::BUILT_ELSEWHERE), every producer ×
//! consumer pair, both schema versions in both directions.
//! `INTEGRITY_SEEDS` sets how many seeds (`make integrity` runs many).
//! crates/karmem-e2e/tests/integrity.rs adds the WebAssembly members.

use std::path::Path;
use std::process::Command;

use karmem_integrity::harness::{self, Member, Process};

fn members() -> Vec<Box<dyn Member>> {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut out: Vec<Box<dyn Member>> = Vec::new();
    if harness::wanted("rust") {
        out.push(Box::new(Process::start(
            "rust",
            Command::new(env!("CARGO_BIN_EXE_karmem-integrity")),
        )));
    }
    if harness::wanted("go") {
        out.push(Box::new(harness::go_native(scratch)));
    }
    for m in &harness::BUILT_ELSEWHERE {
        if harness::wanted_built_elsewhere(m) {
            out.push(Box::new(harness::start_built_elsewhere(m)));
        }
    }
    assert!(!out.is_empty(), "INTEGRITY_MEMBERS names no member");
    out
}

#[test]
fn every_pair_agrees_in_both_directions() {
    harness::run(&mut members(), harness::seeds(24));
}

#[test]
fn members_refuse_bad_requests_and_keep_serving() {
    for mut m in members() {
        harness::refuses_bad_requests(m.as_mut());
    }
}

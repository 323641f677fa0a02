//! Zero-allocation evidence: in the steady state, encoding into a reused
//! `karmem::Writer` and decoding into a reused object allocate nothing.
//! Counted by a global allocator, not timed.

use karmem_bench::count::{allocations, Counting};
use karmem_bench::ops::{Ctx, OPS};
use karmem_bench::{kar, Fixture};
use std::sync::Mutex;

#[global_allocator]
static ALLOC: Counting = Counting;

/// The counter is process-wide and tests run on several threads: each test
/// holds this lock while it counts.
static SERIAL: Mutex<()> = Mutex::new(());

fn op(name: &str) -> karmem_bench::ops::Op {
    OPS.iter().find(|(n, _)| *n == name).expect("operation").1
}

#[test]
fn karmem_steady_state_allocates_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Small but complete: every field kind, several SoA arrays per monster.
    let mut ctx = Ctx::new(Fixture::new(40, 300));
    for name in [
        "encode/karmem",
        "decode/karmem (reused object)",
        "sum_paths/karmem (checked viewer)",
        "sum_paths/karmem (validate + trusted viewer)",
        "validate/karmem",
    ] {
        let op = op(name);
        op(&mut ctx);
        assert_eq!(allocations(|| op(&mut ctx)), (0, 0), "{name}");
    }
}

#[test]
fn counter_sees_allocations() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The counter itself works: the peers and new-object decodes allocate.
    let mut ctx = Ctx::new(Fixture::new(40, 300));
    for name in [
        "decode/karmem (new object)",
        "decode/flatbuffers (verify + unpack)",
        "decode/rkyv (validate + deserialize)",
    ] {
        let op = op(name);
        op(&mut ctx);
        let (calls, _) = allocations(|| op(&mut ctx));
        assert!(calls > 0, "{name} allocated nothing?");
    }
}

#[test]
fn reused_writer_after_a_larger_message_allocates_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Shrinking messages reuse the grown buffer; the tail is not leaked.
    let big = kar::from_plain(&karmem_bench::plain::generate(40, 300));
    let small = kar::from_plain(&karmem_bench::plain::generate(3, 5));
    let mut w = karmem::Writer::new(0);
    kar::encode(&big, &mut w);
    let (calls, _) = allocations(|| kar::encode(&small, &mut w));
    assert_eq!(calls, 0);
    let fresh = small.to_bytes().expect("encode");
    assert_eq!(w.bytes(), &fresh[..], "same bytes as a fresh writer");
}

//! E2E guest: a member of the fan-out interface Workers that always fails
//! at the runtime level, so the test can check that the other members'
//! results still arrive and that the caller sees why: `work(1000)` loops
//! (TIMEOUT), `work(2000)` allocates past its memory cap (MEMORY_LIMIT),
//! anything else traps (TRAP).

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{NumView, Text};

#[derive(Default)]
struct Trapper;

impl e2e::workers::Workers for Trapper {
    fn work(&mut self, n: NumView<'_, karmem::Trusted>) -> Result<Text, karmem_guest::Error> {
        match n.value() {
            1000 => {
                let mut i: u64 = 0;
                loop {
                    i = core::hint::black_box(i.wrapping_add(1));
                }
            }
            2000 => {
                let big: Vec<u8> = vec![1; 1 << 30];
                Ok(Text {
                    value: format!("{}", core::hint::black_box(&big).len()),
                })
            }
            _ => core::arch::wasm32::unreachable(),
        }
    }
}

karmem_guest::module! {
    exports: [e2e::workers::export::<Trapper>()],
    imports: [],
}

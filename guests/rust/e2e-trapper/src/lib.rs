//! E2E guest: a member of the fan-out interface Workers that always traps,
//! so the test can check that the other members' results still arrive.

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{NumView, Text};

#[derive(Default)]
struct Trapper;

impl e2e::workers::Workers for Trapper {
    fn work(&mut self, _n: NumView<'_>) -> Result<Text, karmem_guest::Error> {
        core::arch::wasm32::unreachable()
    }
}

karmem_guest::module! {
    exports: [e2e::workers::export::<Trapper>()],
    imports: [],
}

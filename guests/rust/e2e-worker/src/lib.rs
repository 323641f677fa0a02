//! E2E guest: a second member of the fan-out interface Workers.

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{NumView, Text};

#[derive(Default)]
struct Worker;

impl e2e::workers::Workers for Worker {
    fn work(&mut self, n: NumView<'_, karmem::Trusted>) -> Result<Text, karmem_guest::Error> {
        Ok(Text {
            value: format!("worker:{}", n.value() + 1),
        })
    }
}

karmem_guest::module! {
    exports: [e2e::workers::export::<Worker>()],
    imports: [],
}

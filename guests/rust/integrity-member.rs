// The integrity suite's Rust member as a WebAssembly guest
// (docs/integrity.md §6), included by integrity-old and integrity-new, which
// define `VERSION`. Messages travel through the interface's regions: the
// producer writes into `outbox`, the consumer reads `inbox` in place.

// Generated bindings: a guest uses only part of them.
// (`bindings`, not `integrity`: the interface's module is `integrity`.)
#[allow(dead_code)]
mod bindings {
    include!(concat!(env!("OUT_DIR"), "/integrity_guest.rs"));
}

use bindings::{Answer, RootView, SeedView};
use karmem_guest::{Error, RegionSlice};
use karmem_integrity::protocol;

#[derive(Default)]
struct Member;

impl bindings::integrity::Integrity for Member {
    fn produce(&mut self, s: SeedView<'_, karmem::Trusted>) -> Result<RegionSlice, Error> {
        let w = karmem_guest::window("integrity.outbox").ok_or("no window of integrity.outbox")?;
        let message = karmem_integrity::produce(VERSION, s.value())?;
        w.write(0, &message)
    }

    fn consume(&mut self, m: RootView<'_>) -> Result<Answer, Error> {
        Ok(Answer {
            line: protocol::consume(VERSION, m.reader().bytes()),
        })
    }

    fn stream(&mut self, m: RootView<'_>) -> Result<Answer, Error> {
        Ok(Answer {
            line: protocol::stream_line(VERSION, m.reader().bytes()),
        })
    }

    fn roundtrip(&mut self, m: RootView<'_>) -> Result<Answer, Error> {
        Ok(Answer {
            line: protocol::roundtrip_line(VERSION, m.reader().bytes()),
        })
    }
}

karmem_guest::module! {
    exports: [bindings::integrity::export::<Member>()],
    imports: [],
}

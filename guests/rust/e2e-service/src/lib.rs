//! E2E guest exporting Echo (direct), Counter (singleton), Pooled (pool),
//! Shared (a region-bound argument) and one member of Workers (fan-out).

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{Num, NumView, Seen, Text, TextView};
use karmem_guest::Error;

#[derive(Default)]
struct Service {
    total: u64,
    hits: u64,
}

impl e2e::echo::Echo for Service {
    fn echo(&mut self, t: TextView<'_, karmem::Trusted>) -> Result<Text, Error> {
        Ok(Text {
            value: t.value().to_string(),
        })
    }

    fn fail(&mut self, t: TextView<'_, karmem::Trusted>) -> Result<Text, Error> {
        Err(Error::new(format!("failed on purpose: {}", t.value())))
    }

    fn nop(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

impl e2e::counter::Counter for Service {
    fn add(&mut self, n: NumView<'_, karmem::Trusted>) -> Result<Num, Error> {
        self.total += n.value();
        Ok(Num { value: self.total })
    }

    fn reset(&mut self) -> Result<(), Error> {
        self.total = 0;
        Ok(())
    }
}

impl e2e::pooled::Pooled for Service {
    fn hit(&mut self, _n: NumView<'_, karmem::Trusted>) -> Result<Num, Error> {
        self.hits += 1;
        Ok(Num { value: self.hits })
    }
}

impl e2e::workers::Workers for Service {
    fn work(&mut self, n: NumView<'_, karmem::Trusted>) -> Result<Text, Error> {
        Ok(Text {
            value: format!("service:{}", n.value() * 2),
        })
    }
}

impl e2e::shared::Shared for Service {
    fn inspect(&mut self, b: e2e::BlobView<'_>) -> Result<Seen, Error> {
        let w = karmem_guest::window("e2e.shm").ok_or("no window of e2e.shm")?;
        // Where the argument's bytes are: inside our window means the host
        // passed the region's pages, not a copy.
        let at = b.reader().bytes().as_ptr() as usize as u64;
        let start = u64::from(w.ptr());
        let in_window = at >= start && at < start + u64::from(w.len());
        Ok(Seen {
            offset: at.wrapping_sub(start),
            in_window,
            marker: b.marker(),
            sum: b.data().iter().map(|&x| u64::from(x)).sum(),
        })
    }

    fn stamp(
        &mut self,
        n: NumView<'_, karmem::Trusted>,
    ) -> Result<karmem_guest::RegionSlice, Error> {
        let w = karmem_guest::window("e2e.out").ok_or("no window of e2e.out")?;
        let blob = e2e::Blob {
            marker: n.value() as u32,
            data: vec![7; 3],
        };
        // Not at the region's start, so a caller that ignored the offset
        // would read the wrong bytes.
        w.write_message(512, &blob)
    }

    fn scribble(&mut self, b: e2e::BlobView<'_>) -> Result<Seen, Error> {
        let w = karmem_guest::window("e2e.shm").ok_or("no window of e2e.shm")?;
        // Exporters may only read `shm`: this write must fail the call with
        // READ_ONLY_VIOLATION and leave the region unchanged.
        w.write(0, b"scribble")?;
        Ok(Seen {
            marker: b.marker(),
            ..Seen::default()
        })
    }
}

karmem_guest::module! {
    exports: [
        e2e::echo::export::<Service>(),
        e2e::counter::export::<Service>(),
        e2e::pooled::export::<Service>(),
        e2e::workers::export::<Service>(),
        e2e::shared::export::<Service>(),
    ],
    imports: [],
}

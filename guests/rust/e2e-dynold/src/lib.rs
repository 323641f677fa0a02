//! E2E guest exporting the older version of the dynamic interface `Dyn`
//! (guests/e2e_old.km): it has `a` but not `b`.

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{Num, NumView};

#[derive(Default)]
struct Old;

impl e2e::dyn_::Dyn for Old {
    fn a(&mut self, n: NumView<'_, karmem::Trusted>) -> Result<Num, karmem_guest::Error> {
        Ok(Num {
            value: n.value() + 100,
        })
    }
}

karmem_guest::module! {
    exports: [e2e::dyn_::export::<Old>()],
    imports: [],
}

//! Host bindings for the e2e schema, generated at build time like a user's
//! host program would (`karmem build --lang rust-host`), and the guest
//! bindings of the same schemas, compiled here on the host target so that
//! `cargo clippy --workspace` holds generated guest code to -D warnings too.
//! Also the host bindings of the compute guest guests/c/polybench (the
//! bounds-check benchmark, benches/bounds.rs).
use std::path::Path;

use karmem_codegen::{rust_guest::RustGuestBackend, rust_host::RustHostBackend, script};

fn main() {
    let guests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests");
    script::generate(&guests.join("e2e.km"), &RustHostBackend);
    script::generate(&guests.join("e2e.km"), &RustGuestBackend);
    script::generate(&guests.join("c/polybench/polybench.km"), &RustHostBackend);
}

//! Generates the descriptor reader from docs/abi.km with the project's Rust
//! backend, as karmem-guest's build.rs does for the writer: host and guests
//! share one definition of the wire form.
use std::path::Path;

fn main() {
    // `abi.km` is a symbolic link to docs/abi.km: one file in the
    // repository, and a copy inside the packaged crate (cargo follows it).
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("abi.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust::RustBackend::default());
}

//! Generates the descriptor reader from docs/abi.km with the project's Rust
//! backend, as karmem-guest's build.rs does for the writer: host and guests
//! share one definition of the wire form.
use std::path::Path;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/abi.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust::RustBackend::default());
}

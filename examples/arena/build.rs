//! Typed host bindings and message types for arena.km (`karmem build
//! --lang rust-host`), generated at build time.
use std::path::Path;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("arena.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust_host::RustHostBackend);
}

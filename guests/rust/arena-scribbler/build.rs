//! Bindings generated from the arena schema at build time (not committed:
//! RATIONALE.md R1.5).
use std::path::Path;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/arena/arena.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust_guest::RustGuestBackend);
}

//! Bindings for this guest, generated from the schema at build time (not
//! committed: RATIONALE.md R1.5).
use std::path::Path;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/integrity/old.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust_guest::RustGuestBackend);
}

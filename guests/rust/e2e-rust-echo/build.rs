//! Bindings for this guest, generated from the cross-language e2e schema at
//! build time (not committed: RATIONALE.md R1.5).
use std::path::Path;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../polyglot.km");
    karmem_codegen::script::generate(&schema, &karmem_codegen::rust_guest::RustGuestBackend);
}

//! Generates the Rust reader/writer for the module descriptor from
//! docs/abi.km with our own Rust backend, so the host decodes descriptors
//! with exactly the code every Rust guest uses to write them.
use std::path::{Path, PathBuf};

use karmem_codegen::Backend;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/abi.km");
    println!("cargo:rerun-if-changed={}", schema.display());
    let source =
        std::fs::read_to_string(&schema).unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
    let (model, layout) =
        karmem_layout::load("abi.km", &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = karmem_codegen::rust::RustBackend::default()
        .generate(&model, &layout)
        .unwrap_or_else(|e| panic!("generate Rust for abi.km: {e}"));
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("abi.rs");
    std::fs::write(out, &files[0].contents).unwrap();
}

//! Generates the arena's message types from arena.km with our own Rust
//! backend (the same code `karmem build --lang rust` writes).
use std::path::{Path, PathBuf};

use karmem_codegen::Backend;

fn main() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("arena.km");
    println!("cargo:rerun-if-changed={}", schema.display());
    let source =
        std::fs::read_to_string(&schema).unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
    let (model, layout) =
        karmem_layout::load("arena.km", &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = karmem_codegen::rust::RustBackend::default()
        .generate(&model, &layout)
        .unwrap_or_else(|e| panic!("generate Rust for arena.km: {e}"));
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("arena.rs");
    std::fs::write(out, &files[0].contents).unwrap();
}

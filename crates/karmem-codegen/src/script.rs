//! Helpers for Cargo build scripts that generate code from a `.km` file
//! (karmem-host and karmem-guest for docs/abi.km, Rust guests for their
//! interfaces). Build scripts report failure by panicking, so these do too,
//! with the rendered diagnostics as the message.

use std::path::{Path, PathBuf};

use crate::Backend;

/// Generate `backend`'s files for `schema` into `$OUT_DIR` and tell Cargo to
/// rerun when the schema changes. Returns the paths written.
pub fn generate(schema: &Path, backend: &dyn Backend) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={}", schema.display());
    let source =
        std::fs::read_to_string(schema).unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
    let name = schema
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (model, layout) =
        karmem_layout::load(&name, &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = backend
        .generate(&model, &layout)
        .unwrap_or_else(|e| panic!("generate {} for {name}: {e}", backend.name()));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by Cargo"));
    files
        .iter()
        .map(|f| {
            let path = out.join(&f.path);
            std::fs::write(&path, &f.contents)
                .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            path
        })
        .collect()
}

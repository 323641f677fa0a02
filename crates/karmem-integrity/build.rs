//! Generates the Rust code of both versions of the integrity schema
//! (testdata/integrity/old.km and new.km), so the producer and consumer
//! run the generator's real output.
use std::path::{Path, PathBuf};

use karmem_codegen::Backend;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/integrity");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for version in ["old", "new"] {
        let path = dir.join(format!("{version}.km"));
        println!("cargo:rerun-if-changed={}", path.display());
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = karmem_codegen::rust::RustBackend { serde: false }
            .generate(&schema, &layout)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        std::fs::write(out.join(format!("{version}.rs")), &files[0].contents).unwrap();
    }
}

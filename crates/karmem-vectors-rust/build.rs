//! Generates Rust code (with serde derives) for every schema under
//! testdata/schemas and testdata/vectors, one module each, so tests run the
//! generator's real output.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use karmem_codegen::Backend;

fn schemas(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            schemas(&path, out);
        } else if path.extension().is_some_and(|e| e == "km") {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    println!("cargo:rerun-if-changed={}", root.display());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut found = Vec::new();
    schemas(&root, &mut found);
    let mut modules = String::new();
    for path in found {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path.strip_prefix(&root).unwrap().with_extension("");
        let module: String = rel
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
            .collect();
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = karmem_codegen::rust::RustBackend { serde: true }
            .generate(&schema, &layout)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = out_dir.join(format!("{module}.rs"));
        std::fs::write(&file, &files[0].contents).unwrap();
        let _ = writeln!(modules, "pub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));\n}}");
    }
    std::fs::write(out_dir.join("modules.rs"), modules).unwrap();
}

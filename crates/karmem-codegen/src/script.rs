//! Helpers for Cargo build scripts that generate code from a `.km` file
//! (karmem-host and karmem-guest for docs/abi.km, Rust guests for their
//! interfaces). Build scripts report failure by panicking, so these do too,
//! with the rendered diagnostics as the message.

use std::path::{Path, PathBuf};

use crate::Backend;

/// Generate `backend`'s files for `schema` (and the files it imports,
/// docs/idl.md §4.5) into `$OUT_DIR` and tell Cargo to rerun when any of
/// them changes. The files are named after the schema's `karmem NAME;`
/// header, not its file name (`app.rs` for `karmem app;`). Returns the
/// paths written.
pub fn generate(schema: &Path, backend: &dyn Backend) -> Vec<PathBuf> {
    // The root first: Cargo reruns even when it cannot be read yet.
    println!("cargo:rerun-if-changed={}", schema.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by Cargo"));
    let generated = generate_into(schema, backend, &out).unwrap_or_else(|e| panic!("{e}"));
    for file in &generated.imports {
        println!("cargo:rerun-if-changed={file}");
    }
    generated.written
}

/// What [`generate_into`] did.
#[derive(Debug)]
pub struct Generated {
    /// The files written.
    pub written: Vec<PathBuf>,
    /// The schema files `schema` imports (directly or not), as read.
    pub imports: Vec<String>,
}

/// [`generate`] into `out`, with the error as a value: the rendered
/// diagnostics of a schema with errors (`file:line:col`, across imports),
/// or what could not be generated or written.
pub fn generate_into(
    schema: &Path,
    backend: &dyn Backend,
    out: &Path,
) -> Result<Generated, String> {
    let compiled = karmem_schema::compile_path(schema).map_err(|d| d.render(false))?;
    let model = &compiled.schema;
    let layout =
        karmem_layout::compute(model).map_err(|items| compiled.diagnostics(items).render(false))?;
    let files = backend
        .generate(model, &layout)
        .map_err(|e| format!("generate {} for {}: {e}", backend.name(), schema.display()))?;
    let mut written = Vec::new();
    for f in &files {
        let path = out.join(&f.path);
        std::fs::write(&path, &f.contents).map_err(|e| format!("write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(Generated {
        written,
        imports: compiled
            .sources
            .iter()
            .skip(1)
            .map(|f| f.name.clone())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build script's schema may import others (it panicked, "imports
    /// need the file system"): they are followed, and listed for Cargo's
    /// rerun-if-changed; the output is named after the `karmem NAME;`
    /// header.
    #[test]
    fn follows_imports_and_lists_them() {
        let dir = std::env::temp_dir().join(format!("karmem-script-{}", std::process::id()));
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(
            dir.join("main.km"),
            "karmem game;\n\nimport \"common.km\";\n\nstruct Monster table {\n    Pos Vec3;\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("common.km"),
            "karmem common;\n\nstruct Vec3 inline {\n    X f32;\n}\n",
        )
        .unwrap();
        let backend = crate::rust::RustBackend::default();
        let g = generate_into(&dir.join("main.km"), &backend, &out).unwrap();
        assert_eq!(g.written, vec![out.join("game.rs")]);
        assert_eq!(g.imports.len(), 1);
        assert!(g.imports[0].ends_with("common.km"), "{:?}", g.imports);
        assert!(
            Path::new(&g.imports[0]).is_file(),
            "{:?}: a path Cargo can watch",
            g.imports
        );
        let text = std::fs::read_to_string(out.join("game.rs")).unwrap();
        assert!(text.contains("Vec3"));

        // A schema with an error: the diagnostic, as a value.
        std::fs::write(
            dir.join("bad.km"),
            "karmem bad;\n\nstruct A table {\n    X u9;\n}\n",
        )
        .unwrap();
        let e = generate_into(&dir.join("bad.km"), &backend, &out).unwrap_err();
        assert!(e.contains("bad.km:4:"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! For the differential test (tests/generated.rs): the generated Rust
//! validators of several vector topics, built here like a user's
//! `build.rs` would, and for each topic a function that validates a
//! message with the generated `validate` of a root named at run time.
use std::fmt::Write;
use std::path::{Path, PathBuf};

const TOPICS: &[&str] = &[
    "unions",
    "maps",
    "nested",
    "struct_arrays",
    "tuples",
    "optional",
    "game",
    "hostile",
    "tables",
    "inline",
];

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let backend = karmem_codegen::rust::RustBackend::default();
    let mut index = String::new();
    for topic in TOPICS {
        let schema = vectors.join(topic).join("schema.km");
        println!("cargo:rerun-if-changed={}", schema.display());
        let dir = out.join(topic);
        std::fs::create_dir_all(&dir).unwrap();
        let generated = karmem_codegen::script::generate_into(&schema, &backend, &dir)
            .unwrap_or_else(|e| panic!("{e}"));
        let compiled = karmem_schema::compile_path(&schema).unwrap();
        let file = generated.written[0].display().to_string();
        writeln!(
            index,
            "#[allow(dead_code, unused, clippy::all)]\npub mod {topic} {{"
        )
        .unwrap();
        writeln!(index, "    include!({file:?});").unwrap();
        writeln!(index, "    pub fn validate_root(root: &str, r: &karmem::Reader) -> Option<Result<(), karmem::Error>> {{").unwrap();
        writeln!(index, "        Some(match root {{").unwrap();
        for s in &compiled.schema.structs {
            let name = &s.name;
            writeln!(
                index,
                "            {name:?} => {name}::validate(r).map(|_| ()),"
            )
            .unwrap();
        }
        writeln!(
            index,
            "            _ => return None,\n        }})\n    }}\n}}"
        )
        .unwrap();
    }
    std::fs::write(out.join("generated.rs"), index).unwrap();
}

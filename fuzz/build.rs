//! Generates Rust code for the fuzzing schema with our own generator.
use karmem_codegen::Backend;

fn main() {
    println!("cargo:rerun-if-changed=schemas/all.km");
    let source = std::fs::read_to_string("schemas/all.km").unwrap();
    let (schema, layout) =
        karmem_layout::load("all.km", &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = karmem_codegen::rust::RustBackend::default()
        .generate(&schema, &layout)
        .unwrap();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("all.rs"), &files[0].contents).unwrap();
}

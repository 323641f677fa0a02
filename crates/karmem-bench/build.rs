//! Generates the contenders' code: FlatBuffers with Debian's `flatc`
//! (installed by scripts/setup.sh), Karmem with our own generator.
use std::path::PathBuf;
use std::process::Command;

use karmem_codegen::Backend;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let fb_out = out.join("flatbuffers");
    println!("cargo:rerun-if-changed=schemas/game.fbs");
    let status = Command::new("flatc")
        .args(["--rust", "--gen-object-api", "-o"])
        .arg(&fb_out)
        .arg("schemas/game.fbs")
        .status()
        .expect("flatc not found: run scripts/setup.sh (installs flatbuffers-compiler)");
    assert!(status.success(), "flatc failed");

    println!("cargo:rerun-if-changed=schemas/game.km");
    let source = std::fs::read_to_string("schemas/game.km").unwrap();
    let (schema, layout) =
        karmem_layout::load("game.km", &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = karmem_codegen::rust::RustBackend::default()
        .generate(&schema, &layout)
        .expect("generate Rust for game.km");
    std::fs::write(out.join("karmem_game.rs"), &files[0].contents).unwrap();
}

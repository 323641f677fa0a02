//! Generates every contender's code from `schemas/`: Karmem with our own
//! generator, FlatBuffers with Debian's `flatc`, Cap'n Proto with Debian's
//! `capnp` plus the `capnpc` crate (both compilers are installed by
//! scripts/setup.sh). prost, bitcode and rkyv need no schema compiler:
//! their types are derived in `src/`.
use std::path::PathBuf;
use std::process::Command;

use karmem_codegen::Backend;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());

    println!("cargo:rerun-if-changed=schemas/shapes.km");
    let source = std::fs::read_to_string("schemas/shapes.km").unwrap();
    let (schema, layout) =
        karmem_layout::load("shapes.km", &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let files = karmem_codegen::rust::RustBackend::default()
        .generate(&schema, &layout)
        .expect("generate Rust for shapes.km");
    std::fs::write(out.join("karmem_shapes.rs"), &files[0].contents).unwrap();

    println!("cargo:rerun-if-changed=schemas/shapes.fbs");
    let status = Command::new("flatc")
        .args(["--rust", "-o"])
        .arg(out.join("flatbuffers"))
        .arg("schemas/shapes.fbs")
        .status()
        .expect("flatc not found: run scripts/setup.sh (installs flatbuffers-compiler)");
    assert!(status.success(), "flatc failed");

    println!("cargo:rerun-if-changed=schemas/shapes.capnp");
    capnpc::CompilerCommand::new()
        .src_prefix("schemas")
        .file("schemas/shapes.capnp")
        .run()
        .expect("capnp failed: run scripts/setup.sh (installs capnproto)");
}

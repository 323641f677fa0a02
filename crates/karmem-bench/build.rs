//! Generates the contenders' code: FlatBuffers with Debian's `flatc`
//! (installed by scripts/setup.sh), Karmem with our own generator.
use std::path::PathBuf;
use std::process::Command;

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
}

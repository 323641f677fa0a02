//! How long `karmem build` takes, as a user runs it: the binary generates
//! the code and formats it (rustfmt for Rust, gofmt for Go when found).
//! A generated file that is slow to format once took over ten minutes
//! (RATIONALE.md R3.6); these rows keep that visible.
//!
//! `cargo bench -p karmem-cli --bench build` (`make bench-build`).
//!
//! The `1mb` rows check and build a schema of 1 MB of ordinary
//! declarations, generated at the start: the compiler's passes are linear
//! (RATIONALE R3.12), and these rows would show one that is not.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn build(c: &mut Criterion) {
    let out = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for (name, schema) in [
        ("game", "crates/karmem-bench/schemas/game.km"),
        ("all_layouts", "testdata/schemas/all_layouts.km"),
        ("wide", "testdata/schemas/wide.km"),
    ] {
        let schema = repo().join(schema);
        for lang in ["rust", "go"] {
            group.bench_function(format!("{lang}/{name}"), |b| {
                b.iter(|| {
                    let status = Command::new(env!("CARGO_BIN_EXE_karmem"))
                        .args(["build", "--lang", lang, "-o"])
                        .arg(out.path())
                        .arg(&schema)
                        .output()
                        .unwrap();
                    assert!(status.status.success(), "{status:?}");
                })
            });
        }
    }
    let big = out.path().join("big.km");
    std::fs::write(&big, one_megabyte_schema()).unwrap();
    let karmem = |args: &[&str]| {
        let status = Command::new(env!("CARGO_BIN_EXE_karmem"))
            .args(args)
            .arg(&big)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    group.bench_function("check/1mb", |b| b.iter(|| karmem(&["check"])));
    let out_dir = out.path().to_str().unwrap();
    group.bench_function("rust/1mb", |b| {
        b.iter(|| karmem(&["build", "--lang", "rust", "-o", out_dir]))
    });
    group.finish();
}

/// 1 MB of tables of 24 fields (numbers, text, arrays), with an enum and
/// an inline struct every tenth table: about 2 600 declarations.
fn one_megabyte_schema() -> String {
    const TYPES: [&str; 8] = ["u64", "[]char", "f32", "i32", "bool", "[]u16", "u8", "f64"];
    let mut src = String::from("karmem big;\n");
    let mut i = 0;
    while src.len() < 1_000_000 {
        src.push_str(&format!("/// Record {i}.\nstruct R{i} table {{\n"));
        for (k, ty) in TYPES.iter().cycle().take(24).enumerate() {
            src.push_str(&format!("    f{k}: {ty};\n"));
        }
        src.push_str("}\n");
        if i % 10 == 0 {
            src.push_str(&format!("enum E{i} u8 {{ A; B; C; D; }}\n"));
            src.push_str(&format!(
                "struct P{i} inline {{ x: f32; y: f32; e: E{i}; }}\n"
            ));
        }
        i += 1;
    }
    src
}

criterion_group!(benches, build);
criterion_main!(benches);

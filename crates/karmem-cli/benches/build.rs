//! How long `karmem build` takes, as a user runs it: the binary generates
//! the code and formats it (rustfmt for Rust, gofmt for Go when found).
//! A generated file that is slow to format once took over ten minutes
//! (RATIONALE.md R3.6); these rows keep that visible.
//!
//! `cargo bench -p karmem-cli --bench build` (`make bench-build`).

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
    group.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);

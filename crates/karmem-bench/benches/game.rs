//! Game-state benchmark: 1 000 monsters with paths of up to 2 000 points.
//!
//! Every contender encodes the same data, decodes it to owned objects, sums
//! every path coordinate and validates, in one run, so the ratios in
//! docs/benchmarks.md come from one machine state. The operations are the
//! table in `karmem_bench::ops` (also run under callgrind by
//! `examples/ops.rs`). Run: `make bench`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use karmem_bench::ops::{groups, Ctx, OPS};
use karmem_bench::{Fixture, MAX_PATH, MONSTERS};

fn benches(c: &mut Criterion) {
    let mut ctx = Ctx::new(Fixture::new(MONSTERS, MAX_PATH));
    for (format, size) in ctx.f.sizes() {
        println!("message size: {format} {size} B");
    }
    for group in groups() {
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Elements(MONSTERS as u64));
        for (name, op) in OPS
            .iter()
            .filter(|(n, _)| n.split('/').next() == Some(group))
        {
            let contender = &name[group.len() + 1..];
            g.bench_function(contender, |b| b.iter(|| op(&mut ctx)));
        }
        g.finish();
    }
}

criterion_group! {
    name = game;
    // Every operation takes 0.05–5 ms; 50 samples over 5 s keep the
    // confidence intervals narrow on a shared 2-core machine. Override with
    // `-- --warm-up-time S --measurement-time S`.
    config = Criterion::default()
        .sample_size(50)
        .warm_up_time(std::time::Duration::from_secs(2))
        .measurement_time(std::time::Duration::from_secs(5));
    targets = benches
}
criterion_main!(game);

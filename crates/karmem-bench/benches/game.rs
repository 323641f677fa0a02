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
    // Every operation takes 0.02–5 ms. Short measurements, repeated over
    // several runs by scripts/bench-report.py, cope better with a shared
    // machine than one long run. Override with
    // `-- --warm-up-time S --measurement-time S`.
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(game);

//! Message sizes of every contender on the four workloads (the sizes table
//! of docs/benchmarks.md), without timing anything: `cargo run --release
//! -p karmem-bench-shapes --example sizes`.

use karmem_bench_shapes::{kar, Fixture, Log, Mesh, Save, Updates, Workload};

fn sizes<W: Workload>() {
    let f = Fixture::<W>::new();
    f.check();
    let row: Vec<String> = f
        .sizes()
        .iter()
        .map(|(name, size)| format!("{name} {size}"))
        .collect();
    println!("{}: {}", W::NAME, row.join(", "));
}

fn main() {
    sizes::<Log>();
    sizes::<Mesh>();
    sizes::<Save>();
    let aos = kar::from_save_aos(&Save::generate());
    println!(
        "save (nested arrays #aos): karmem {}",
        aos.to_bytes().expect("fits").len()
    );
    sizes::<Updates>();
}

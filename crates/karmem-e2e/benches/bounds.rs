//! Bounds checks: guard pages against explicit checks (docs/benchmarks.md,
//! "Bounds checks"; RATIONALE R8.20), in one run:
//!
//! * `bounds/<kernel>/native`, `…/native_scalar`, `…/guard_pages`,
//!   `…/explicit`: one kernel of the compute guest guests/c/polybench
//!   (gemm, 2mm, jacobi-2d, seidel-2d) run natively (the same kernels.c
//!   with clang-19 -O2, guests/out/polybench-native.so; and without
//!   auto-vectorisation, as the wasm build is, polybench-native-scalar.so)
//!   and as the guest under each `RuntimeConfig::bounds_checks`. One
//!   iteration is one call: the call's own cost (below a microsecond) is
//!   lost in the kernel's 10–50 ms;
//! * `bounds/instantiate/guard_pages`, `…/explicit`: `AppBuilder::build` of
//!   the guest and dropping the application: reserving and freeing its
//!   memory, instantiating it, copying its data segments, its start-up
//!   sequence;
//! * the address space per instance under each strategy, printed on
//!   stderr (not a criterion measurement): the growth of the process's
//!   `VmSize` over [`LIVE`] live instances, divided by their number.
//!
//! Explicit checks run with a 64 MiB reservation, the default memory
//! limit of a module (`ModuleOptions::memory_limit`). Time is the thread's
//! CPU time (benches/common). The guest and the native library must be
//! built first: `make guests` (or `scripts/build-guests.sh`). Run:
//! `cargo bench -p karmem-e2e --bench bounds`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::ThreadTime;
use criterion::{criterion_group, criterion_main, Criterion};
use karmem_e2e::polybench::Checksum;
use karmem_e2e::{guest_path, native_kernels, KERNELS, NATIVE_BUILDS};
use karmem_host::{App, AppBuilder, BoundsChecks, GuestModule, Runtime, RuntimeConfig};

/// The reservation of the explicit-checks runtime: the default memory
/// limit, so a module with default options loses nothing to it.
const EXPLICIT_RESERVATION: u64 = 64 << 20;

/// Instances kept alive to measure the address space each one takes.
const LIVE: usize = 64;

const INTERFACE: &str = "polybench.Kernels";
const MODULE: &str = "polybench";

/// The two strategies, by the name of their benchmarks.
fn strategies() -> [(&'static str, BoundsChecks); 2] {
    [
        ("guard_pages", BoundsChecks::GuardPages),
        (
            "explicit",
            BoundsChecks::Explicit {
                reservation: EXPLICIT_RESERVATION,
            },
        ),
    ]
}

fn load(rt: &Runtime) -> GuestModule {
    let path = guest_path("polybench.wasm").unwrap_or_else(|e| panic!("{e}"));
    rt.load_file(MODULE, &path)
        .unwrap_or_else(|e| panic!("load {}: {e}", path.display()))
}

fn app(rt: &Runtime, module: &GuestModule) -> App {
    AppBuilder::new(rt).module(module.clone()).build().unwrap()
}

/// Runs `function` of the guest and returns its checksum.
fn run(app: &App, function: &str) -> f64 {
    let out = app.call(MODULE, INTERFACE, function, &[]).unwrap();
    Checksum::from_bytes(&out.to_vec(app).unwrap())
        .unwrap()
        .value
}

/// The process's virtual size in bytes (`VmSize` of /proc/self/status).
fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmSize:")).unwrap();
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib << 10
}

fn bounds(c: &mut Criterion<ThreadTime>) {
    let [native, scalar] =
        NATIVE_BUILDS.map(|lib| native_kernels(lib).unwrap_or_else(|e| panic!("{e}")));
    let runtimes: Vec<_> = strategies()
        .into_iter()
        .map(|(name, strategy)| {
            let rt = common::runtime(RuntimeConfig {
                bounds_checks: strategy,
                ..RuntimeConfig::default()
            });
            let module = load(&rt);
            (name, rt, module)
        })
        .collect();
    let apps: Vec<_> = runtimes
        .iter()
        .map(|(name, rt, module)| (*name, app(rt, module)))
        .collect();

    let mut g = c.benchmark_group("bounds");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    for (((function, _), kernel), kernel_scalar) in KERNELS.iter().zip(&native).zip(&scalar) {
        // The same computation everywhere (tests/c_guests.rs checks it too).
        let want = kernel();
        assert_eq!(kernel_scalar().to_bits(), want.to_bits(), "scalar");
        for (name, app) in &apps {
            assert_eq!(run(app, function).to_bits(), want.to_bits(), "{name}");
        }
        g.bench_function(format!("{function}/native"), |b| {
            b.iter(|| black_box(kernel()))
        });
        g.bench_function(format!("{function}/native_scalar"), |b| {
            b.iter(|| black_box(kernel_scalar()))
        });
        for (name, app) in &apps {
            g.bench_function(format!("{function}/{name}"), |b| {
                b.iter(|| black_box(run(app, function)))
            });
        }
    }
    drop(apps);

    g.sample_size(50);
    g.measurement_time(Duration::from_secs(2));
    for (name, rt, module) in &runtimes {
        g.bench_function(format!("instantiate/{name}"), |b| {
            b.iter(|| black_box(app(rt, module)))
        });
    }
    g.finish();

    for (name, rt, module) in &runtimes {
        let before = vm_size();
        let live: Vec<_> = (0..LIVE).map(|_| app(rt, module)).collect();
        let after = vm_size();
        let per_instance = (after - before) / LIVE as u64;
        eprintln!(
            "bounds/address_space/{name}: {per_instance} bytes ({:.1} MiB) of address space per instance, over {LIVE} live instances",
            per_instance as f64 / f64::from(1 << 20)
        );
        drop(live);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadTime);
    targets = bounds
}
criterion_main!(benches);

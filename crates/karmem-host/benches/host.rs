//! Runtime benchmarks (docs/benchmarks.md, "Runtime"):
//!
//! * `fanout/<variant>/<N>/<bytes>`: hand one payload to N modules, either
//!   through a shared region (`region`: the host writes it once, every
//!   module gets a pointer into its window; `inplace`: it is already there,
//!   only the calls remain) or by copying it into each module's memory
//!   (`copy`: what Extism and the Component Model do);
//! * `start/*`: load a module with the cache warm vs compiling it;
//! * `host_export/*`: a guest's call served by another guest vs by a host
//!   function (docs/abi.md §5.4);
//! * `no_data/*`: calls without arguments or result, 1 000 per iteration
//!   from inside a guest's loop (so the per-call figure is the time ÷ 1 000):
//!   a raw wasmtime wasm→host call of a `Func::wrap` import, a Karmem guest's
//!   `karmem.call` of a host function, and of another guest's `nop`; and a
//!   raw host→wasm typed call once per iteration, the reference of #17's
//!   guest→guest goal.
//!
//! Call overhead (host→guest, guest→guest, against a raw wasmtime call and
//! real Rust and Go guests) is measured by `crates/karmem-e2e/benches/calls.rs`.
//!
//! `cargo bench -p karmem-host --bench host` (or `make bench-host`).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use karmem_host::{Access, App, AppBuilder, Arg, ModuleOptions, Pattern, Runtime, RuntimeConfig};
use karmem_testkit::wat_guest::{
    bench_api, echo_guest, func, iface, loop_caller, memory, param, relay_guest, Guest,
    REUSE_ALLOC, REUSE_GLOBALS,
};

fn runtime(cache: bool) -> Runtime {
    let dir = std::env::temp_dir().join(format!("karmem-bench-cache-{}", std::process::id()));
    Runtime::new(RuntimeConfig {
        cache_dir: cache.then_some(dir),
        ..RuntimeConfig::default()
    })
    .unwrap()
}

fn msg(name: &str, memory: Option<&str>) -> karmem_host::ParamDesc {
    param(name, "b.Msg", memory)
}

const REGION: &str = "b.payload";
const MAX_PAYLOAD: usize = 64 << 20;

/// `b.Sink`: read the first and last byte of the payload, passed in the
/// region or copied. Reading little keeps the comparison about passing the
/// data, not processing it.
fn sink() -> Guest {
    let region = memory(
        REGION,
        Access::ReadWrite,
        Access::Read,
        (MAX_PAYLOAD / 65536) as u32,
    );
    let touch = "(local $p i32) (local $l i32)
        (local.set $p (call $arg_ptr (local.get $args) (i32.const 0)))
        (local.set $l (call $arg_len (local.get $args) (i32.const 0)))
        (drop (i32.load8_u (local.get $p)))
        (drop (i32.load8_u (i32.add (local.get $p) (i32.sub (local.get $l) (i32.const 1)))))
        (i32.const 0)";
    let mut g = Guest::new(
        vec![iface(
            "b.Sink",
            Pattern::Direct,
            vec![region],
            vec![
                func("by_region", vec![msg("p", Some(REGION))], None),
                func("by_copy", vec![msg("p", None)], None),
            ],
        )],
        vec![],
    )
    .func("b.Sink", "by_region", touch)
    .func("b.Sink", "by_copy", touch)
    .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

fn fanout_app(rt: &Runtime, n: usize) -> App {
    let module = sink().load_into(rt, "sink0").unwrap();
    let mut b = AppBuilder::new(rt);
    for i in 0..n {
        // Room for one copied 64 MiB payload besides the 64 MiB window
        // (the limit covers both), and the window granted: read-only.
        b.module_with(
            module.renamed(&format!("sink{i}")),
            ModuleOptions {
                memory_limit: 256 << 20,
                ..Default::default()
            }
            .grant(REGION, Access::Read),
        );
    }
    b.build().unwrap()
}

fn fanout(c: &mut Criterion) {
    let rt = runtime(true);
    let payload: Vec<u8> = (0..MAX_PAYLOAD).map(|i| i as u8).collect();
    let mut g = c.benchmark_group("fanout");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(10);
    for n in [1usize, 4, 16] {
        let app = fanout_app(&rt, n);
        let region = app.region(REGION).unwrap();
        let by_region: Vec<_> = (0..n)
            .map(|i| {
                app.export(&format!("sink{i}"), "b.Sink", "by_region")
                    .unwrap()
            })
            .collect();
        let by_copy: Vec<_> = (0..n)
            .map(|i| {
                app.export(&format!("sink{i}"), "b.Sink", "by_copy")
                    .unwrap()
            })
            .collect();
        for size in [1usize << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20] {
            let data = &payload[..size];
            g.throughput(Throughput::Bytes(size as u64));
            g.bench_with_input(
                BenchmarkId::new(format!("region/{n}"), size),
                &size,
                |b, _| {
                    b.iter(|| {
                        // The producer writes the payload once…
                        region.write(0, data).unwrap();
                        let slice = region.slice(0, size as u32).unwrap();
                        // …every consumer gets a pointer to it.
                        for f in &by_region {
                            app.invoke(f, &[Arg::Region(slice)]).unwrap();
                        }
                    })
                },
            );
            // The payload was produced in the region (e.g. a guest wrote
            // it there): only the calls remain.
            region.write(0, data).unwrap();
            let slice = region.slice(0, size as u32).unwrap();
            g.bench_with_input(
                BenchmarkId::new(format!("inplace/{n}"), size),
                &size,
                |b, _| {
                    b.iter(|| {
                        for f in &by_region {
                            app.invoke(f, &[Arg::Region(slice)]).unwrap();
                        }
                    })
                },
            );
            g.bench_with_input(
                BenchmarkId::new(format!("copy/{n}"), size),
                &size,
                |b, _| {
                    b.iter(|| {
                        for f in &by_copy {
                            app.invoke(f, &[Arg::Bytes(data)]).unwrap();
                        }
                    })
                },
            );
        }
    }
    g.finish();
}

/// A module of ~`n` small functions, to give compilation something to do.
fn big_module(n: usize) -> Guest {
    let mut extra = String::new();
    for i in 0..n {
        extra.push_str(&format!(
            "(func $g{i} (param $x i32) (result i32) (local $a i32)
               (local.set $a (i32.mul (local.get $x) (i32.const {i})))
               (block $b (loop $l (br_if $b (i32.gt_u (local.get $a) (i32.const 1000)))
                 (local.set $a (i32.add (i32.xor (local.get $a) (i32.const 0x55)) (i32.const 3))) (br $l)))
               (i32.add (local.get $a) (i32.load (i32.and (local.get $x) (i32.const 0xfffc)))))\n"
        ));
    }
    echo_guest().extra(&extra)
}

fn start(c: &mut Criterion) {
    let wat = big_module(2000).wat();
    let wasm = wat::parse_str(&wat).unwrap();
    let cached = runtime(true);
    let uncached = runtime(false);
    cached.load("big", &wasm).unwrap();
    let mut g = c.benchmark_group("start");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(wasm.len() as u64));
    g.bench_function(BenchmarkId::new("compile", wasm.len()), |b| {
        b.iter(|| uncached.load("big", &wasm).unwrap())
    });
    g.bench_function(BenchmarkId::new("from_cache", wasm.len()), |b| {
        b.iter(|| cached.load("big", &wasm).unwrap())
    });
    let module = cached.load("big", &wasm).unwrap();
    g.bench_function(BenchmarkId::new("new_instance", wasm.len()), |b| {
        b.iter(|| {
            AppBuilder::new(&cached)
                .module(module.clone())
                .build()
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, fanout, start);
/// Calls per iteration of the `no_data` loops.
const LOOP_CALLS: u32 = 1000;

fn no_data_calls(c: &mut Criterion) {
    let mut g = c.benchmark_group("no_data");
    // Raw wasmtime: the engine's defaults, a host function that does
    // nothing, called from a wasm loop; and a typed call into wasm.
    let engine = wasmtime::Engine::default();
    let raw = wasmtime::Module::new(
        &engine,
        format!(
            r#"(module (import "h" "h" (func $h))
                 (func (export "nop"))
                 (func (export "run") (local $i i32)
                   (loop $l (call $h)
                     (local.set $i (i32.add (local.get $i) (i32.const 1)))
                     (br_if $l (i32.lt_u (local.get $i) (i32.const {LOOP_CALLS}))))))"#
        ),
    )
    .unwrap();
    let mut store = wasmtime::Store::new(&engine, ());
    let h = wasmtime::Func::wrap(&mut store, || {});
    let inst = wasmtime::Instance::new(&mut store, &raw, &[h.into()]).unwrap();
    let run = inst.get_typed_func::<(), ()>(&mut store, "run").unwrap();
    let nop = inst.get_typed_func::<(), ()>(&mut store, "nop").unwrap();
    g.bench_function("raw_host_to_wasm_x1", |b| {
        b.iter(|| nop.call(&mut store, ()).unwrap())
    });
    g.bench_function("raw_wasm_to_host_x1000", |b| {
        b.iter(|| run.call(&mut store, ()).unwrap())
    });

    let rt = runtime(true);
    let caller = loop_caller(LOOP_CALLS).load_into(&rt, "loop").unwrap();
    let to_guest = AppBuilder::new(&rt)
        .module(echo_guest().load_into(&rt, "callee").unwrap())
        .module(caller.clone())
        .build()
        .unwrap();
    let to_host = AppBuilder::new(&rt)
        .module(caller)
        .host_export(
            bench_api().with_signature_hash(),
            |_: &karmem_host::HostCall<'_>,
             _: &[Arg<'_>]|
             -> Result<karmem_host::Output, karmem_host::HostError> {
                Ok(karmem_host::Output::Empty)
            },
        )
        .build()
        .unwrap();
    for (name, app) in [
        ("guest_to_host_x1000", &to_host),
        ("guest_to_guest_x1000", &to_guest),
    ] {
        let run = app.export("loop", "b.Loop", "run").unwrap();
        app.invoke(&run, &[]).unwrap();
        g.bench_function(name, |b| b.iter(|| app.invoke(&run, &[]).unwrap()));
    }
    g.finish();
}

criterion_group!(host_exports, host_export_calls, no_data_calls);
criterion_group!(threads, concurrency);
criterion_main!(benches, host_exports, threads);

/// `b.Pool`, a `pool(4)` echo that also maps a region read-only: a window
/// in every instance, as the arena's bots have.
fn pool_guest() -> Guest {
    let api = iface(
        "b.Pool",
        Pattern::Pool,
        vec![memory("b.shared", Access::ReadWrite, Access::Read, 1)],
        vec![func("echo", vec![msg("x", None)], Some(msg("r", None)))],
    )
    .with_pool_size(4);
    let mut g = Guest::new(vec![api], vec![])
        .func(
            "b.Pool",
            "echo",
            "(call $reply (call $arg_ptr (local.get $args) (i32.const 0)) (call $arg_len (local.get $args) (i32.const 0)))",
        )
        .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

fn pool_app(rt: &Runtime) -> App {
    let module = pool_guest().load_into(rt, "pool").unwrap();
    AppBuilder::new(rt)
        .module_with(
            module,
            ModuleOptions::default().grant("b.shared", Access::Read),
        )
        .build()
        .unwrap()
}

/// `threads/<how>/<N>`: N threads each calling `b.Pool.echo` (80 bytes)
/// as fast as they can, all into one application (`one_app`: its pool of
/// instances, one lease path) or each into an application of its own
/// (`own_apps`: nothing shared but the engine). Throughput is calls; with
/// linear scaling N threads make N times the calls of one.
fn concurrency(c: &mut Criterion) {
    let rt = runtime(true);
    let payload = [7u8; 80];
    let mut g = c.benchmark_group("threads");
    g.sample_size(20);
    for n in [1usize, 2] {
        g.throughput(Throughput::Elements(n as u64));
        for how in ["one_app", "own_apps"] {
            let apps: Vec<App> = match how {
                "one_app" => vec![pool_app(&rt); n],
                _ => (0..n).map(|_| pool_app(&rt)).collect(),
            };
            g.bench_function(BenchmarkId::new(how, n), |b| {
                b.iter_custom(|iters| {
                    let start = std::time::Instant::now();
                    std::thread::scope(|s| {
                        for app in &apps {
                            s.spawn(|| {
                                let f = app.export("pool", "b.Pool", "echo").unwrap();
                                let args = [Arg::Bytes(&payload)];
                                for _ in 0..iters {
                                    app.invoke(&f, &args).unwrap();
                                }
                            });
                        }
                    });
                    start.elapsed()
                })
            });
        }
    }
    g.finish();
}

/// `host_export/*`: host → relay → `b.Api.echo` (64 bytes each way), the
/// echo served by a guest (`guest_to_guest`) or by a host function
/// (`guest_to_host`, docs/abi.md §5.4): the same guest code, the same
/// `karmem.call` + `take`.
fn host_export_calls(c: &mut Criterion) {
    let rt = runtime(true);
    let relay_module = relay_guest().load_into(&rt, "relay").unwrap();
    let to_guest = AppBuilder::new(&rt)
        .module(echo_guest().load_into(&rt, "callee").unwrap())
        .module(relay_module.clone())
        .build()
        .unwrap();
    let to_host = AppBuilder::new(&rt)
        .module(relay_module)
        .host_export(
            bench_api().with_signature_hash(),
            |_: &karmem_host::HostCall<'_>,
             args: &[Arg<'_>]|
             -> Result<karmem_host::Output, karmem_host::HostError> {
                match args {
                    // The argument is read in place in the relay's memory;
                    // the result is copied once into a Vec for `take`.
                    [Arg::Bytes(x)] => Ok(karmem_host::Output::Bytes(x.to_vec())),
                    _ => Ok(karmem_host::Output::Empty),
                }
            },
        )
        .build()
        .unwrap();
    let mut g = c.benchmark_group("host_export");
    for (name, app) in [
        ("guest_to_guest_echo_64B", &to_guest),
        ("guest_to_host_echo_64B", &to_host),
    ] {
        let relay = app.export("relay", "b.Relay", "relay").unwrap();
        g.bench_function(name, |b| b.iter(|| app.invoke(&relay, &[]).unwrap()));
    }
    g.finish();
}

//! Creating instances (docs/benchmarks.md "Density", RATIONALE R8.22): what
//! an application per request costs under each
//! [`karmem_host::Instances`], for the WAT reference guest and the echo
//! guest of every language, next to wasmtime's own instantiation of the
//! same module.
//!
//! * `instances/<guest>/on_demand`, `…/pooled`: `AppBuilder::build` of an
//!   application of the guest (its first instance created and started:
//!   memory, data segments, the guest's own start-up, the ABI's start-up
//!   calls), one `nop` call, and dropping it. `pooled` takes memories from
//!   a pool of slots reserved once (copy-on-write data segments, the slot
//!   reset when the instance goes); `on_demand` reserves and unmaps one
//!   per instance.
//! * `instances/wat_region/*`: the same with a one-page region granted
//!   read, so a window mapped into every instance (and, pooled, private
//!   memory put back over it before the slot is reused).
//! * `instances/<guest>/raw_wasmtime_default`, `…/raw_wasmtime_pooled`:
//!   wasmtime alone instantiating the same module from an `InstancePre`
//!   (every import a trap, no start-up run) in a new store, under its
//!   default engine (copy-on-write, memories reserved per instance) and
//!   under its pooling allocator: the floor under the rows above;
//!   `…/raw_wasmtime_pooled_started` also runs the guest's own start-up
//!   (`_initialize`, `karmem_init`; imports return zeros): what of an
//!   application per request is the guest's.
//! * `fanout_build/1000/*`: an application of 1 000 WAT modules (each its
//!   first instance created), built and dropped: the start of a fan-out to
//!   1 000 callees, per instance ÷ 1 000.
//!
//! Time is the benchmark thread's CPU time, user and system (the
//! mappings, page faults and resets are system time). Guests must be
//! built first (`make guests`); a guest that is not built is skipped with
//! a note. Run: `cargo bench -p karmem-e2e --bench instances`.

mod common;

use std::hint::black_box;

use common::ThreadTime;
use criterion::{criterion_group, criterion_main, Criterion};
use karmem_e2e::guest_path;
use karmem_host::{
    Access, AppBuilder, GuestModule, Instances, ModuleOptions, Pattern, Runtime, RuntimeConfig,
};
use karmem_testkit::wat_guest::{
    echo_guest, func, iface, memory, Guest, REUSE_ALLOC, REUSE_GLOBALS,
};

/// Slots of the pooled runtime: room for the fan-out's 1 000 instances.
const SLOTS: u32 = 1100;

/// Modules of the fan-out application.
const FANOUT: usize = 1000;

/// The echo guests of `guests/out`, by benchmark name.
const GUESTS: [(&str, &str); 5] = [
    ("c", "e2e-c-echo.wasm"),
    ("zig", "e2e-zig-echo.wasm"),
    ("rust", "e2e-rust-echo.wasm"),
    ("as", "e2e-as-echo.wasm"),
    ("go", "e2e-go-echo.wasm"),
];

/// The WAT echo with a one-page region the host grants read access to.
fn wat_region() -> Guest {
    let api = iface(
        "d.Echo",
        Pattern::Direct,
        vec![memory("d.shared", Access::ReadWrite, Access::Read, 1)],
        vec![func("nop", vec![], None)],
    );
    let mut g = Guest::new(vec![api], vec![])
        .func("d.Echo", "nop", "(i32.const 0)")
        .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

/// Loads a guest into a runtime.
type Loader = Box<dyn Fn(&Runtime) -> GuestModule>;

/// The interface that exports `nop`.
fn nop_interface(module: &GuestModule) -> String {
    module
        .descriptor()
        .exports
        .iter()
        .find(|i| i.functions.iter().any(|f| f.name == "nop"))
        .map(|i| i.name.clone())
        .expect("a `nop` export")
}

/// Build an application of `module` (every region it declares granted
/// read), call its `nop` once, drop it.
fn one_request(rt: &Runtime, module: &GuestModule, interface: &str) {
    let mut options = ModuleOptions::default();
    for m in &module.descriptor().memories {
        options = options.grant(&m.name, Access::Read);
    }
    let app = AppBuilder::new(rt)
        .module_with(module.clone(), options)
        .build()
        .unwrap_or_else(|e| panic!("build: {e}"));
    black_box(app.call(module.name(), interface, "nop", &[]).expect("nop"));
}

/// wasmtime alone: an `InstancePre` of the module instantiated in a new
/// store per iteration; with `started`, the guest's own start-up run too.
struct Raw {
    engine: wasmtime::Engine,
    pre: wasmtime::InstancePre<()>,
    started: bool,
}

impl Raw {
    /// Every import a trap (nothing runs), or with `started` a function
    /// returning zeros (`common::stub_imports`), so that `_initialize` and
    /// `karmem_init` can run.
    fn new(wasm: &[u8], pooled: bool, started: bool) -> Raw {
        let mut config = wasmtime::Config::new();
        if pooled {
            let mut pool = wasmtime::PoolingAllocationConfig::new();
            // Pages kept resident as the runtime's pool keeps them
            // (`Instances::pooled`), so that a started guest's pages are not
            // faulted in again on every iteration here and not there.
            pool.total_core_instances(SLOTS)
                .total_memories(SLOTS)
                .total_tables(SLOTS)
                .linear_memory_keep_resident(1 << 20)
                .table_keep_resident(1 << 20)
                .pagemap_scan(wasmtime::Enabled::Auto);
            config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool));
        }
        config.wasm_threads(true);
        let engine = wasmtime::Engine::new(&config).expect("engine");
        let module = wasmtime::Module::new(&engine, wasm).expect("compile");
        let mut linker = wasmtime::Linker::new(&engine);
        if started {
            common::stub_imports(&mut linker, &module);
        } else {
            linker
                .define_unknown_imports_as_traps(&module)
                .expect("imports");
        }
        let pre = linker.instantiate_pre(&module).expect("instantiate_pre");
        Raw {
            engine,
            pre,
            started,
        }
    }

    fn instantiate(&self) {
        let mut store = wasmtime::Store::new(&self.engine, ());
        let instance = self.pre.instantiate(&mut store).expect("instantiate");
        if self.started {
            if let Ok(init) = instance.get_typed_func::<(), ()>(&mut store, "_initialize") {
                init.call(&mut store, ()).expect("_initialize");
            }
            let init = instance
                .get_typed_func::<(), i32>(&mut store, "karmem_init")
                .expect("karmem_init");
            assert_eq!(init.call(&mut store, ()).expect("karmem_init"), 0);
        }
        black_box(instance);
    }
}

fn instances(c: &mut Criterion<ThreadTime>) {
    let on_demand = common::runtime(RuntimeConfig::default());
    let pooled = common::runtime(RuntimeConfig {
        instances: Instances::pooled(SLOTS),
        ..RuntimeConfig::default()
    });
    let mut g = c.benchmark_group("instances");
    let mut guests: Vec<(String, Option<Vec<u8>>, Loader)> = vec![
        (
            "wat".into(),
            Some(echo_guest().wat().into_bytes()),
            Box::new(|rt: &Runtime| echo_guest().load_into(rt, "m").expect("load")),
        ),
        (
            "wat_region".into(),
            None,
            Box::new(|rt: &Runtime| wat_region().load_into(rt, "m").expect("load")),
        ),
    ];
    for (name, file) in GUESTS {
        match guest_path(file) {
            Ok(path) => {
                let wasm = std::fs::read(&path).expect("read the guest");
                guests.push((
                    name.into(),
                    Some(wasm),
                    Box::new(move |rt: &Runtime| {
                        rt.load_file("m", &path)
                            .unwrap_or_else(|e| panic!("load {}: {e}", path.display()))
                    }),
                ));
            }
            Err(e) => eprintln!("instances/{name}: skipped ({e})"),
        }
    }
    for (name, wasm, load) in &guests {
        for (variant, rt) in [("on_demand", &on_demand), ("pooled", &pooled)] {
            let module = load(rt);
            let interface = nop_interface(&module);
            g.bench_function(format!("{name}/{variant}"), |b| {
                b.iter(|| one_request(rt, &module, &interface))
            });
        }
        if let Some(wasm) = wasm {
            for (variant, pooled, started) in [
                ("raw_wasmtime_default", false, false),
                ("raw_wasmtime_pooled", true, false),
                ("raw_wasmtime_pooled_started", true, true),
            ] {
                let raw = Raw::new(wasm, pooled, started);
                g.bench_function(format!("{name}/{variant}"), |b| {
                    b.iter(|| raw.instantiate())
                });
            }
        }
    }
    g.finish();

    let mut g = c.benchmark_group("fanout_build");
    g.sample_size(10);
    for (variant, rt) in [("on_demand", &on_demand), ("pooled", &pooled)] {
        let module = echo_guest().load_into(rt, "sink").expect("load");
        g.bench_function(format!("{FANOUT}/{variant}"), |b| {
            b.iter(|| {
                let mut builder = AppBuilder::new(rt);
                for i in 0..FANOUT {
                    builder.module(module.renamed(&format!("sink{i}")));
                }
                black_box(builder.build().expect("build"))
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadTime);
    targets = instances
}
criterion_main!(benches);

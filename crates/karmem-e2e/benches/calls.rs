//! Call overhead into real guest modules (docs/benchmarks.md, "Runtime",
//! "Real guests"), next to the WAT reference guest and a raw wasmtime
//! typed call, in one criterion group so that ratios can be read:
//!
//! * `raw_wasmtime_typed`: plain wasmtime, a typed call of a function that
//!   returns its first argument;
//! * `wat/*`: the WAT guest of the runtime benchmarks
//!   (`karmem_testkit::wat_guest::echo_guest`, `relay_guest`): the runtime's
//!   own cost;
//! * `rust/*`: `guests/rust/e2e-service` (Echo) and `e2e-driver` (Driver,
//!   calls Echo of the service) built with karmem-guest;
//! * `go/*`: `guests/go/e2e-go-echo` (Echo) built with go/guest;
//! * `c/*`: `guests/c/e2e-c-echo` (the same Echo) built with the C guest
//!   runtime (c/karmem_guest.c);
//! * `zig/*`: `guests/zig/e2e-zig-echo` (Echo) built with `karmem.guest`;
//! * `as/*`: `guests/as/e2e-as-echo` (Echo) built with the AssemblyScript
//!   guest runtime (as/assembly/guest.ts);
//! * `guest_floor/*` (a second group, [`floors`]): each guest's own share
//!   of a `nop`, the same modules called by plain wasmtime;
//! * `fuel/*`: what counting fuel costs (`RuntimeConfig::fuel`, docs/
//!   security.md §2.8): the WAT `nop` and `echo` and a loop of 100 000
//!   iterations, in a runtime that counts fuel and in one that does not.
//!
//! Per guest: `nop` (no argument, no result), `echo` (a small message
//! copied in, the same message copied out). For Rust also `driver_idle`
//! (`Driver.run("idle")`: one call with a small argument and result, the
//! driver calls nobody), `driver_nop` (the driver calls `Echo.nop` of the
//! service) and `driver_echo` (the driver calls `Echo.echo`), so the
//! guest→guest call is the difference to `driver_idle`.
//!
//! Time is the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not
//! wall time: on a shared machine a preempted call would count the time
//! other processes ran; the guest and the host both run on this thread. On
//! a quiet machine the two are the same.
//!
//! The guest modules must be built first: `make guests` (or
//! `scripts/build-guests.sh`); `make bench-host` does it. Run:
//! `cargo bench -p karmem-e2e --bench calls`.

mod common;

use std::hint::black_box;

use common::ThreadTime;
use criterion::{criterion_group, criterion_main, Criterion};
use karmem_e2e::e2e::Text;
use karmem_e2e::guest_path;
use karmem_host::{App, AppBuilder, Arg, ExportFn, GuestModule, Output, Runtime, RuntimeConfig};
use karmem_testkit::wat_guest::{echo_guest, relay_guest};

/// The text of the echoed messages: a small message, as a command or a
/// short name would be.
const TEXT: &str = "hello, karmem";

fn runtime() -> Runtime {
    runtime_with(false)
}

fn runtime_with(fuel: bool) -> Runtime {
    common::runtime(RuntimeConfig {
        fuel,
        ..RuntimeConfig::default()
    })
}

/// `b.Loop.spin()`: 100 000 iterations of a counting loop.
fn loop_guest() -> karmem_testkit::wat_guest::Guest {
    use karmem_testkit::wat_guest::{iface, simple, Guest};
    Guest::new(
        vec![iface(
            "b.Loop",
            karmem_host::Pattern::Direct,
            vec![],
            vec![simple("spin")],
        )],
        vec![],
    )
    .func(
        "b.Loop",
        "spin",
        "(local $i i32)
         (loop $l
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const 100000))))
         (i32.const 0)",
    )
}

/// `guests/out/<file>` loaded as `name`; panics with how to build it.
fn load(rt: &Runtime, name: &str, file: &str) -> GuestModule {
    let path = guest_path(file).unwrap_or_else(|e| panic!("{e}"));
    rt.load_file(name, &path)
        .unwrap_or_else(|e| panic!("load {}: {e}", path.display()))
}

fn app(rt: &Runtime, modules: Vec<GuestModule>) -> App {
    let mut b = AppBuilder::new(rt);
    for m in modules {
        b.module(m);
    }
    b.build().unwrap_or_else(|e| panic!("build the app: {e}"))
}

/// The message bytes of `value` as root `root` of the schema at
/// `guests/<schema>` (through karmem-json, so no bindings are needed).
fn encode(schema: &str, root: &str, value: serde_json::Value) -> Vec<u8> {
    let path = karmem_e2e::guests_dir().join(schema);
    let source = std::fs::read_to_string(&path).expect("read the schema");
    let (model, layout) =
        karmem_layout::load(schema, &source).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let root = model
        .structs
        .iter()
        .position(|s| s.name == root)
        .expect("the root struct exists");
    karmem_json::encode(&model, &layout, root, &value).expect("encode the message")
}

/// One call, checked once before it is measured: a benchmark of a call
/// that fails would measure the error path.
fn checked(app: &App, f: &ExportFn, args: &[Arg<'_>], expect: &Output) {
    let out = app
        .invoke(f, args)
        .unwrap_or_else(|e| panic!("{:?}: {e}", f.site()));
    assert_eq!(&out, expect, "{:?}", f.site());
}

fn calls(c: &mut Criterion<ThreadTime>) {
    let rt = runtime();

    // The baseline: plain wasmtime, default engine, a typed call.
    let engine = wasmtime::Engine::default();
    let module = wasmtime::Module::new(
        &engine,
        "(module (func (export \"f\") (param i32 i32 i32) (result i32) (local.get 0)))",
    )
    .unwrap();
    let mut store = wasmtime::Store::new(&engine, ());
    let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
    let raw = instance
        .get_typed_func::<(i32, i32, i32), i32>(&mut store, "f")
        .unwrap();

    // The messages: Rust's Echo takes a Text, Go's a Msg (text and number);
    // the WAT guest echoes any bytes: it gets the Rust one.
    let text = Text { value: TEXT.into() }.to_bytes().unwrap();
    let msg = encode(
        "polyglot.km",
        "Msg",
        serde_json::json!({"Text": TEXT, "Number": 41}),
    );
    let cmd = |c: &str| {
        Text {
            value: c.to_string(),
        }
        .to_bytes()
        .unwrap()
    };
    let (idle, nop_cmd, echo_cmd) = (cmd("idle"), cmd("nop"), cmd(&format!("echo:{TEXT}")));
    eprintln!(
        "calls: message sizes: Text {} B, Msg {} B, Driver commands {}/{}/{} B",
        text.len(),
        msg.len(),
        idle.len(),
        nop_cmd.len(),
        echo_cmd.len()
    );

    let wat = app(
        &rt,
        vec![
            echo_guest().load_into(&rt, "callee").unwrap(),
            relay_guest().load_into(&rt, "relay").unwrap(),
        ],
    );
    let rust = app(
        &rt,
        vec![
            load(&rt, "service", "e2e-service.wasm"),
            load(&rt, "driver", "e2e-driver.wasm"),
            // The driver imports Dyn too: every import needs an exporter.
            load(&rt, "dynold", "e2e-dynold.wasm"),
        ],
    );
    let go = app(&rt, vec![load(&rt, "go-echo", "e2e-go-echo.wasm")]);
    let c_guest = app(&rt, vec![load(&rt, "c-echo", "e2e-c-echo.wasm")]);
    let zig = app(&rt, vec![load(&rt, "zig-echo", "e2e-zig-echo.wasm")]);
    let as_guest = app(&rt, vec![load(&rt, "as-echo", "e2e-as-echo.wasm")]);

    let export = |app: &App, module: &str, iface: &str, function: &str| {
        app.export(module, iface, function)
            .unwrap_or_else(|e| panic!("{module} {iface}.{function}: {e}"))
    };
    let wat_nop = export(&wat, "callee", "b.Api", "nop");
    let wat_echo = export(&wat, "callee", "b.Api", "echo");
    let wat_relay = export(&wat, "relay", "b.Relay", "relay");
    let rust_nop = export(&rust, "service", "e2e.Echo", "nop");
    let rust_echo = export(&rust, "service", "e2e.Echo", "echo");
    let driver = export(&rust, "driver", "e2e.Driver", "run");
    let go_nop = export(&go, "go-echo", "e2e.Echo", "nop");
    let go_echo = export(&go, "go-echo", "e2e.Echo", "echo");
    let c_nop = export(&c_guest, "c-echo", "e2e.Echo", "nop");
    let c_echo = export(&c_guest, "c-echo", "e2e.Echo", "echo");
    let zig_nop = export(&zig, "zig-echo", "e2e.Echo", "nop");
    let zig_echo = export(&zig, "zig-echo", "e2e.Echo", "echo");
    let as_nop = export(&as_guest, "as-echo", "e2e.Echo", "nop");
    let as_echo = export(&as_guest, "as-echo", "e2e.Echo", "echo");

    // Every measured call does what it should.
    let empty_text = Output::Bytes(cmd(""));
    checked(&wat, &wat_nop, &[], &Output::Empty);
    checked(
        &wat,
        &wat_echo,
        &[Arg::Bytes(&text)],
        &Output::Bytes(text.clone()),
    );
    checked(&rust, &rust_nop, &[], &Output::Empty);
    checked(
        &rust,
        &rust_echo,
        &[Arg::Bytes(&text)],
        &Output::Bytes(text.clone()),
    );
    checked(&rust, &driver, &[Arg::Bytes(&idle)], &empty_text);
    checked(&rust, &driver, &[Arg::Bytes(&nop_cmd)], &empty_text);
    checked(
        &rust,
        &driver,
        &[Arg::Bytes(&echo_cmd)],
        &Output::Bytes(cmd(&format!("echo={TEXT}"))),
    );
    checked(&go, &go_nop, &[], &Output::Empty);
    let go_reply = encode(
        "polyglot.km",
        "Msg",
        serde_json::json!({"Text": TEXT, "Number": 42}),
    );
    // The C, Zig and AssemblyScript echoes answer the Go echo's reply, byte
    // for byte.
    for (app, echo) in [
        (&go, &go_echo),
        (&c_guest, &c_echo),
        (&zig, &zig_echo),
        (&as_guest, &as_echo),
    ] {
        checked(
            app,
            echo,
            &[Arg::Bytes(&msg)],
            &Output::Bytes(go_reply.clone()),
        );
    }
    checked(&c_guest, &c_nop, &[], &Output::Empty);
    checked(&zig, &zig_nop, &[], &Output::Empty);
    checked(&as_guest, &as_nop, &[], &Output::Empty);

    let mut g = c.benchmark_group("guest_call");
    g.bench_function("raw_wasmtime_typed", |b| {
        b.iter(|| raw.call(&mut store, black_box((1, 2, 3))).unwrap())
    });
    let mut bench = |name: &str, app: &App, f: &ExportFn, arg: Option<&[u8]>| {
        let args: Vec<Arg<'_>> = arg.map(Arg::Bytes).into_iter().collect();
        g.bench_function(name, |b| {
            b.iter(|| app.invoke(f, black_box(&args)).unwrap())
        });
    };
    bench("wat/nop", &wat, &wat_nop, None);
    bench("wat/echo", &wat, &wat_echo, Some(&text));
    bench("wat/guest_to_guest_echo_64B", &wat, &wat_relay, None);
    bench("rust/nop", &rust, &rust_nop, None);
    bench("rust/echo", &rust, &rust_echo, Some(&text));
    bench("rust/driver_idle", &rust, &driver, Some(&idle));
    bench("rust/driver_nop", &rust, &driver, Some(&nop_cmd));
    bench("rust/driver_echo", &rust, &driver, Some(&echo_cmd));
    bench("go/nop", &go, &go_nop, None);
    bench("go/echo", &go, &go_echo, Some(&msg));
    bench("c/nop", &c_guest, &c_nop, None);
    bench("c/echo", &c_guest, &c_echo, Some(&msg));
    bench("zig/nop", &zig, &zig_nop, None);
    bench("zig/echo", &zig, &zig_echo, Some(&msg));
    bench("as/nop", &as_guest, &as_nop, None);
    bench("as/echo", &as_guest, &as_echo, Some(&msg));
    for fuel in [false, true] {
        let rt = runtime_with(fuel);
        let app = app(
            &rt,
            vec![
                echo_guest().load_into(&rt, "callee").unwrap(),
                loop_guest().load_into(&rt, "loop").unwrap(),
            ],
        );
        let nop = export(&app, "callee", "b.Api", "nop");
        let echo = export(&app, "callee", "b.Api", "echo");
        let spin = export(&app, "loop", "b.Loop", "spin");
        checked(&app, &spin, &[], &Output::Empty);
        let on = if fuel { "on" } else { "off" };
        bench(&format!("fuel_{on}/wat_nop"), &app, &nop, None);
        bench(&format!("fuel_{on}/wat_echo"), &app, &echo, Some(&text));
        bench(&format!("fuel_{on}/loop_100k"), &app, &spin, None);
    }
    g.finish();
}

/// Each guest language's own share of a `nop`, without the runtime: the
/// same module instantiated by plain wasmtime (an engine with epoch
/// interruption, as the runtime's, so the guest's code is the same; every
/// import a function that returns zeros; no rewrite of read-only windows,
/// which changes only stores) after `_initialize` and `karmem_init`, and
///
/// * `<lang>/export_entry`: a typed call of `karmem_abi_version`, the
///   cheapest export a guest library has (it returns a constant): what the
///   toolchain's export entry costs;
/// * `<lang>/dispatch_nop`: a typed call of `karmem_dispatch` for
///   `Echo.nop` with no arguments: the guest library's dispatch as well.
///
/// The runtime's `nop` of `calls` minus `dispatch_nop` is the host's part,
/// the same for every guest (docs/benchmarks.md, "Real guests").
fn floors(c: &mut Criterion<ThreadTime>) {
    let rt = runtime();
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    // As the runtime does (docs/benchmarks.md, "Where the time goes"):
    // with KARMEM_PERFMAP=1 perf can name the guests' functions.
    if std::env::var_os("KARMEM_PERFMAP").is_some_and(|v| v == "1") {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    let engine = wasmtime::Engine::new(&config).unwrap();
    let mut g = c.benchmark_group("guest_floor");
    for (lang, file) in [
        ("wat", ""),
        ("rust", "e2e-service.wasm"),
        ("c", "e2e-c-echo.wasm"),
        ("zig", "e2e-zig-echo.wasm"),
        ("as", "e2e-as-echo.wasm"),
        ("go", "e2e-go-echo.wasm"),
    ] {
        let (bytes, loaded) = if file.is_empty() {
            let guest = echo_guest();
            // wasmtime reads WAT text as well as binary modules.
            (
                guest.wat().into_bytes(),
                guest.load_into(&rt, "wat").unwrap(),
            )
        } else {
            let path = guest_path(file).unwrap_or_else(|e| panic!("{e}"));
            (std::fs::read(&path).unwrap(), load(&rt, lang, file))
        };
        // `Echo.nop`'s export function id (docs/abi.md §3), from the
        // descriptor the runtime read.
        let desc = loaded.descriptor();
        let id = desc
            .exports
            .iter()
            .enumerate()
            .find_map(|(e, i)| {
                let f = i.functions.iter().position(|f| f.name == "nop")?;
                Some(((e as i32) << 16) | f as i32)
            })
            .unwrap_or_else(|| panic!("{lang}: no nop export"));
        let module = wasmtime::Module::new(&engine, &bytes).unwrap();
        let mut store = wasmtime::Store::new(&engine, ());
        store.set_epoch_deadline(u64::MAX / 2);
        let mut linker = wasmtime::Linker::new(&engine);
        common::stub_imports(&mut linker, &module);
        let instance = linker.instantiate(&mut store, &module).unwrap();
        if let Ok(init) = instance.get_typed_func::<(), ()>(&mut store, "_initialize") {
            init.call(&mut store, ()).unwrap();
        }
        let init = instance
            .get_typed_func::<(), i32>(&mut store, "karmem_init")
            .unwrap();
        assert_eq!(init.call(&mut store, ()).unwrap(), 0, "{lang}: karmem_init");
        let version = instance
            .get_typed_func::<(), i32>(&mut store, "karmem_abi_version")
            .unwrap();
        let dispatch = instance
            .get_typed_func::<(i32, i32, i32), i32>(&mut store, "karmem_dispatch")
            .unwrap();
        assert_eq!(
            dispatch.call(&mut store, (id, 0, 0)).unwrap(),
            0,
            "{lang}: nop"
        );
        g.bench_function(format!("{lang}/export_entry"), |b| {
            b.iter(|| version.call(&mut store, ()).unwrap())
        });
        g.bench_function(format!("{lang}/dispatch_nop"), |b| {
            b.iter(|| dispatch.call(&mut store, black_box((id, 0, 0))).unwrap())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadTime);
    targets = calls, floors
}
criterion_main!(benches);

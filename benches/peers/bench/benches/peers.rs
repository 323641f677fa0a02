//! Call overhead of Karmem next to its peers, every row in one run
//! (README.md beside this workspace; docs/benchmarks.md, "Call overhead
//! against raw wasmtime, the Component Model and Extism"):
//!
//! * `raw_wasmtime_typed`: wasmtime 48, default engine, a typed call of a
//!   function that returns its first argument (as
//!   crates/karmem-e2e/benches/calls.rs);
//! * `karmem/*`: `App::invoke` into the WAT echo guest of the project's
//!   call benchmark (`karmem_testkit::wat_guest::echo_guest`), default
//!   `RuntimeConfig` (the per-call deadline is always on);
//! * `extism/*`: `Plugin::call` of Extism's Rust SDK 1.30 (wasmtime 43)
//!   into `guests/extism-echo` (extism-pdk), no WASI, no timeout;
//! * `component/*`: a component of the world `wit/echo.wit`
//!   (`guests/cm-echo`, wit-bindgen), called through the exports
//!   `wasmtime::component::bindgen!` generates, wasmtime 48.
//!
//! Per peer `nop` (no data either way) and `echo` (80 bytes in, the same 80
//! bytes out, handed back to the host). Every call is checked once before
//! it is measured.
//!
//! The group runs twice: `peers` measures the calling thread's CPU time,
//! `peers_process` the process's (src/lib.rs says why both). Run:
//! `benches/peers/run.sh`, which builds the guests first.

use std::hint::black_box;

use criterion::measurement::Measurement;
use criterion::{criterion_group, criterion_main, Criterion};
use karmem_host::{AppBuilder, Arg, Output, Runtime, RuntimeConfig};
use karmem_peers::{guest, ProcessTime, ThreadTime};
use karmem_testkit::wat_guest::echo_guest;

wasmtime::component::bindgen!({
    world: "echo",
    path: "../wit",
});

/// The echoed payload: the size of calls.rs's `echo` message, and bytes
/// that differ from each other, so a reply that was cut or shifted fails
/// the check.
const PAYLOAD_LEN: usize = 80;

fn peers<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let payload: Vec<u8> = (0..PAYLOAD_LEN as u8).map(|i| i.wrapping_mul(7)).collect();

    // Raw wasmtime: the floor every other row is read against.
    let engine = wasmtime::Engine::default();
    let module = wasmtime::Module::new(
        &engine,
        "(module (func (export \"f\") (param i32 i32 i32) (result i32) (local.get 0)))",
    )
    .expect("compile the raw module");
    let mut raw_store = wasmtime::Store::new(&engine, ());
    let raw = wasmtime::Instance::new(&mut raw_store, &module, &[])
        .and_then(|i| i.get_typed_func::<(i32, i32, i32), i32>(&mut raw_store, "f"))
        .expect("instantiate the raw module");
    assert_eq!(raw.call(&mut raw_store, (1, 2, 3)).unwrap(), 1);

    // Karmem: the reference guest of calls.rs.
    let rt = Runtime::new(RuntimeConfig::default()).expect("create the runtime");
    let app = AppBuilder::new(&rt)
        .module(echo_guest().load_into(&rt, "callee").expect("load the WAT guest"))
        .build()
        .expect("build the app");
    let k_nop = app.export("callee", "b.Api", "nop").unwrap();
    let k_echo = app.export("callee", "b.Api", "echo").unwrap();
    let k_args = [Arg::Bytes(&payload)];
    assert_eq!(app.invoke(&k_nop, &[]).unwrap(), Output::Empty);
    assert_eq!(
        app.invoke(&k_echo, &k_args).unwrap(),
        Output::Bytes(payload.clone())
    );

    // Extism: the SDK's defaults but for the cache of compiled modules
    // (off: nothing written to the home directory; it only matters when
    // loading).
    let mut plugin = extism::PluginBuilder::new(guest("extism-echo.wasm"))
        .with_wasi(false)
        .with_cache_disabled()
        .build()
        .expect("load the Extism plug-in");
    // `&[u8]` out: the SDK's cheapest way to read a result, a view of the
    // output where it lies in the kernel's memory, not a copy.
    let out: &[u8] = plugin.call("nop", &[][..]).expect("Extism nop");
    assert!(out.is_empty(), "Extism nop returned {} bytes", out.len());
    let out: &[u8] = plugin.call("echo", &payload[..]).expect("Extism echo");
    assert_eq!(out, &payload[..], "Extism echo");

    // The Component Model: a store and an instance of its own, on an
    // engine with wasmtime's defaults, as the raw row's.
    let component =
        wasmtime::component::Component::new(&engine, guest("cm-echo.component.wasm"))
            .expect("compile the component");
    let linker = wasmtime::component::Linker::new(&engine);
    let mut cm_store = wasmtime::Store::new(&engine, ());
    let cm = Echo::instantiate(&mut cm_store, &component, &linker)
        .expect("instantiate the component");
    cm.call_nop(&mut cm_store).expect("component nop");
    assert_eq!(
        cm.call_echo(&mut cm_store, &payload).expect("component echo"),
        payload,
        "component echo"
    );

    let mut g = c.benchmark_group(group);
    g.bench_function("raw_wasmtime_typed", |b| {
        b.iter(|| raw.call(&mut raw_store, black_box((1, 2, 3))).unwrap())
    });
    g.bench_function("karmem/nop", |b| {
        b.iter(|| app.invoke(&k_nop, black_box(&[])).unwrap())
    });
    g.bench_function("karmem/echo_80B", |b| {
        b.iter(|| app.invoke(&k_echo, black_box(&k_args)).unwrap())
    });
    g.bench_function("extism/nop", |b| {
        b.iter(|| {
            let out: &[u8] = plugin.call("nop", black_box(&[][..])).unwrap();
            out.len()
        })
    });
    g.bench_function("extism/echo_80B", |b| {
        b.iter(|| {
            let out: &[u8] = plugin.call("echo", black_box(&payload[..])).unwrap();
            out.len()
        })
    });
    g.bench_function("component/nop", |b| {
        b.iter(|| cm.call_nop(&mut cm_store).unwrap())
    });
    g.bench_function("component/echo_80B", |b| {
        b.iter(|| cm.call_echo(&mut cm_store, black_box(&payload)).unwrap())
    });
    g.finish();
}

fn thread_time(c: &mut Criterion<ThreadTime>) {
    peers(c, "peers");
}

fn process_time(c: &mut Criterion<ProcessTime>) {
    peers(c, "peers_process");
}

criterion_group! {
    name = by_thread;
    config = Criterion::default().with_measurement(ThreadTime);
    targets = thread_time
}
criterion_group! {
    name = by_process;
    config = Criterion::default().with_measurement(ProcessTime);
    targets = process_time
}
criterion_main!(by_thread, by_process);

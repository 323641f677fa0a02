//! The call path's instruction count, for the regression gate
//! (`scripts/callgrind-gate.sh`, run by `make test`; docs/benchmarks.md
//! "Regression gate"): `callcount <case> <calls>` makes `<calls>` calls
//! inside `measured_calls`, which the gate counts with callgrind
//! (`--toggle-collect`). Instruction counts, not times: they do not change
//! with the load of a shared machine.
//!
//! Cases: `nop` and `echo` (80 bytes in and out) of the WAT echo guest from
//! the host, `relay` (the WAT relay guest calling the echo guest's `echo`
//! with 64 bytes: a guest→guest call), `to_host` and `to_guest` (a guest's
//! `karmem.call` without data, served by a host function or by the echo
//! guest's `nop`: the WAT loop caller makes 100 per host call, and the
//! count is per `karmem.call`); and `build`, an application of the
//! WAT echo guest built (its first instance created and started) and
//! dropped, per "call": start-up is on users' hot path too where they
//! create an application per request; `build_pooled` the same with the
//! instance's memory from a pool of slots (`Instances::Pooled`).

use std::hint::black_box;

use karmem_host::{
    App, AppBuilder, Arg, ExportFn, GuestModule, HostCall, HostError, Instances, Output, Runtime,
    RuntimeConfig,
};
use karmem_testkit::wat_guest::{bench_api, echo_guest, loop_caller, relay_guest};

/// `karmem.call`s per host call in the `to_host` and `to_guest` cases.
const INNER: u32 = 100;

#[inline(never)]
fn measured_calls(app: &App, f: &ExportFn, args: &[Arg<'_>], n: u32) {
    for _ in 0..n {
        black_box(app.invoke(f, black_box(args)).expect("call"));
    }
}

#[inline(never)]
fn measured_builds(rt: &Runtime, module: &GuestModule, n: u32) {
    for _ in 0..n {
        let app = AppBuilder::new(rt)
            .module(module.clone())
            .build()
            .expect("build");
        drop(black_box(app));
    }
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let case = argv.next().unwrap_or_else(|| "nop".into());
    let n: u32 = argv.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    // No disk cache: the count must not depend on the state of a directory.
    let instances = if case == "build_pooled" {
        // Few slots: valgrind manages the client's address space itself,
        // and each slot reserves 4 GiB of it.
        Instances::pooled(2)
    } else {
        Instances::OnDemand
    };
    let rt = Runtime::new(RuntimeConfig {
        cache_dir: None,
        instances,
        ..RuntimeConfig::default()
    })
    .expect("runtime");
    if case == "build" || case == "build_pooled" {
        let module = echo_guest().load_into(&rt, "callee").expect("echo guest");
        // Warm: the engine's lazy state and the allocator's free lists.
        warm_builds(&rt, &module);
        measured_builds(&rt, &module, n);
        return;
    }
    let mut b = AppBuilder::new(&rt);
    if case == "to_host" {
        // The loop's import bound to a host function, not to the echo guest.
        b.host_export(
            bench_api().with_signature_hash(),
            |_: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> { Ok(Output::Empty) },
        );
    } else {
        b.module(echo_guest().load_into(&rt, "callee").expect("echo guest"))
            .module(relay_guest().load_into(&rt, "relay").expect("relay guest"));
    }
    if case == "to_host" || case == "to_guest" {
        b.module(
            loop_caller(INNER)
                .load_into(&rt, "loop")
                .expect("loop guest"),
        );
    }
    let app = b.build().expect("app");
    let msg = [7u8; 80];
    let (f, args): (ExportFn, Vec<Arg<'_>>) = match case.as_str() {
        "nop" => (app.export("callee", "b.Api", "nop").unwrap(), vec![]),
        "echo" => (
            app.export("callee", "b.Api", "echo").unwrap(),
            vec![Arg::Bytes(&msg)],
        ),
        "relay" => (app.export("relay", "b.Relay", "relay").unwrap(), vec![]),
        "to_host" | "to_guest" => (app.export("loop", "b.Loop", "run").unwrap(), vec![]),
        other => {
            eprintln!(
                "unknown case `{other}` (nop, echo, relay, to_host, to_guest, build, build_pooled)"
            );
            std::process::exit(2);
        }
    };
    // Warm: instances exist, buffers have their size.
    warm_up(&app, &f, &args);
    measured_calls(&app, &f, &args, n);
}

/// Not counted (the gate toggles on `measured_builds` only).
#[inline(never)]
fn warm_builds(rt: &Runtime, module: &GuestModule) {
    for _ in 0..20 {
        drop(black_box(
            AppBuilder::new(rt)
                .module(module.clone())
                .build()
                .expect("build"),
        ));
    }
}

/// Not counted (the gate toggles on `measured_calls` only).
#[inline(never)]
fn warm_up(app: &App, f: &ExportFn, args: &[Arg<'_>]) {
    for _ in 0..100 {
        black_box(app.invoke(f, args).expect("call"));
    }
}

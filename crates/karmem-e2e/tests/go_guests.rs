//! Go guest modules (guests/go/, built by scripts/build-guests-go.sh into
//! guests/out/) on the host: a Go export called from the host, a
//! region-bound argument read in place, a Go importer calling exporters
//! (direct and fan-out with one failing member), the arena bots (the
//! hoarder cut off by the memory cap while the host goes on), and the ABI's
//! failure statuses.

mod common;

use common::{module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, GuestModule, ModuleOptions, Output, Status};
use serde_json::{json, Value};

fn e2e() -> Codec {
    Codec::load("guests/go/e2e-go.km")
}

fn arena() -> Codec {
    Codec::load("examples/arena/arena.km")
}

fn bytes(app: &App, out: Output) -> Vec<u8> {
    out.to_vec(app).unwrap()
}

fn app(modules: Vec<GuestModule>) -> App {
    let mut b = AppBuilder::new(runtime());
    for m in modules {
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.build().unwrap()
}

#[test]
fn go_export_called_from_host() {
    let c = e2e();
    let app = app(vec![module("e2e-go-echo")]);
    let msg = c.encode("Msg", json!({"Text": "héllo", "Number": 41}));
    let out = app
        .call("e2e-go-echo", "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
        .unwrap();
    let got = c.decode("Msg", &bytes(&app, out));
    assert_eq!(got["Text"], "héllo");
    assert_eq!(got["Number"], 42);
    // A function without parameters or result (the call benchmarks' nop).
    let out = app.call("e2e-go-echo", "e2e.Echo", "nop", &[]).unwrap();
    assert_eq!(out, Output::Empty);
}

#[test]
fn region_argument_read_in_place() {
    let c = e2e();
    let app = app(vec![module("e2e-go-echo")]);
    let msg = c.encode("Msg", json!({"Text": "in place", "Number": 7}));
    let region = app.region("e2e.shared").unwrap();
    let at = 8192;
    region.write(at, &msg).unwrap();
    let slice = region.slice(at, msg.len() as u32).unwrap();
    let out = app
        .call("e2e-go-echo", "e2e.Echo", "peek", &[Arg::Region(slice)])
        .unwrap();
    let got = c.decode("Msg", &bytes(&app, out));
    assert_eq!(got["Text"], "in place");
    // The guest found the message inside its window, at the offset the
    // host wrote it to: nothing was copied.
    assert_eq!(got["Number"], at);

    // The host itself refuses a copied argument for a region-bound
    // parameter.
    let err = app
        .call("e2e-go-echo", "e2e.Echo", "peek", &[Arg::Bytes(&msg)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
}

#[test]
fn region_result_and_read_only_window() {
    let c = e2e();
    let app = app(vec![module("e2e-go-echo")]);
    let msg = common::stamp_and_scribble(&c, &app, "e2e-go-echo");
    // A fresh instance serves the next call.
    let out = app
        .call("e2e-go-echo", "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
        .unwrap();
    assert_eq!(c.decode("Msg", &bytes(&app, out))["Number"], 2);
}

#[test]
fn bad_argument_and_application_error() {
    let c = e2e();
    let app = app(vec![module("e2e-go-echo")]);
    // Not a Karmem message: the generated handler's validation refuses it.
    let junk = [0xffu8; 24];
    let err = app
        .call("e2e-go-echo", "e2e.Echo", "echo", &[Arg::Bytes(&junk)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
    assert!(err.to_string().contains("argument m"), "{err}");

    let msg = c.encode("Msg", json!({"Text": "on purpose"}));
    let err = app
        .call("e2e-go-echo", "e2e.Echo", "fail", &[Arg::Bytes(&msg)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::ApplicationError), "{err}");
    assert!(err.to_string().contains("fail: on purpose"), "{err}");

    // An application error does not discard the instance; it still works.
    let out = app
        .call("e2e-go-echo", "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
        .unwrap();
    assert_eq!(c.decode("Msg", &bytes(&app, out))["Number"], 1);
    assert_eq!(app.stats().instances_discarded, 0);
}

#[test]
fn go_importer_calls_direct_and_fanout() {
    let c = e2e();
    let yes = c.encode("Msg", json!({"Text": "wat"}));
    let rt = runtime();
    let app = app(vec![
        module("e2e-go-caller"),
        module("e2e-go-echo"),
        common::wat_voter(Some(&yes), "")
            .load_into(rt, "wat-yes")
            .unwrap(),
        common::wat_voter(None, "no vote")
            .load_into(rt, "wat-no")
            .unwrap(),
    ]);
    let msg = c.encode("Msg", json!({"Text": "hi", "Number": 41}));
    let out = app
        .call("e2e-go-caller", "e2e.Driver", "run", &[Arg::Bytes(&msg)])
        .unwrap();
    let got = c.decode("Msg", &bytes(&app, out));
    // echo: direct call, copied argument and result. peek: the caller wrote
    // the message at offset 4096 of its window; the exporter found it at
    // the same offset of its own. votes: every Voter in module order, the
    // failing one reported with its status and message.
    assert_eq!(
        got["Text"],
        "echo=hi/42 peek=hi@4096 votes=1:OK:go,2:OK:wat,\
         3:APPLICATION_ERROR:callee 3: APPLICATION_ERROR: \
         module `wat-no`, e2e.Voter.vote: application error: no vote"
    );
}

/// The `Move` of an `Order` result (enums decode as numbers: Stay 0,
/// North 1, South 2, East 3, West 4).
fn order(c: &Codec, app: &App, out: Output) -> Value {
    c.decode("Order", &bytes(app, out))["Move"].clone()
}

#[test]
fn sweeper_joins_and_walks_to_the_nearest_coin() {
    let c = arena();
    let app = app(vec![module("arena-sweeper")]);
    let rules = c.encode("Rules", json!({"Width": 8, "Height": 8, "Ticks": 10}));
    let hello = app
        .call("arena-sweeper", "arena.Bot", "join", &[Arg::Bytes(&rules)])
        .unwrap();
    let hello = c.decode("Hello", &bytes(&app, hello));
    assert_eq!(hello["Name"], "sweeper");
    assert_eq!(hello["Language"], "Go");

    let cases = [
        (json!([{"X": 5, "Y": 2}, {"X": 0, "Y": 0}]), "East"),
        (json!([{"X": 2, "Y": 0}, {"X": 7, "Y": 7}]), "North"),
        (json!([{"X": 0, "Y": 3}]), "West"),
        (json!([{"X": 2, "Y": 6}]), "South"),
        (json!([]), "Stay"),
    ];
    for (coins, want) in cases {
        let state = common::board_state(&c, &app, "sweeper", coins.clone());
        let out = app
            .call("arena-sweeper", "arena.Bot", "think", &[Arg::Region(state)])
            .unwrap();
        assert_eq!(order(&c, &app, out), want, "coins {coins}");
    }
}

#[test]
fn hoarder_hits_the_memory_limit_and_the_host_goes_on() {
    let c = arena();
    let mut b = AppBuilder::new(runtime());
    // The memory cap examples/arena/arena.toml gives it; the deadline is
    // generous (the arena's is 100 ms, which it also meets here) so
    // that a slow machine cannot turn MEMORY_LIMIT into TIMEOUT.
    b.module_with(
        module("arena-hoarder"),
        ModuleOptions {
            timeout: std::time::Duration::from_secs(5),
            memory_limit: 32 << 20,
            ..ModuleOptions::default()
        },
    )
    .module(module("arena-sweeper"));
    let app = b.build().unwrap();
    let state = common::board_state(&c, &app, "sweeper", json!([{"X": 5, "Y": 2}]));
    let think = |module: &str| app.call(module, "arena.Bot", "think", &[Arg::Region(state)]);
    for tick in 1..=3 {
        let out = think("arena-hoarder").unwrap_or_else(|e| panic!("tick {tick}: {e}"));
        assert_eq!(order(&c, &app, out), "Stay");
    }
    let err = think("arena-hoarder").unwrap_err();
    assert_eq!(err.status(), Some(Status::MemoryLimit), "{err}");
    assert!(err.to_string().contains("arena-hoarder"), "{err}");
    assert_eq!(app.stats().instances_discarded, 1);

    // The other bot is unaffected, and the hoarder gets a fresh instance
    // that plays again (its tick count starts over).
    let out = think("arena-sweeper").unwrap();
    assert_eq!(order(&c, &app, out), "East");
    let out = think("arena-hoarder").unwrap();
    assert_eq!(order(&c, &app, out), "Stay");

    // Fan-out from the host: one result per bot.
    let all = app
        .call_all("arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|r| r.result.is_ok()));
}

#[test]
fn unknown_function_and_describe() {
    let app = app(vec![module("e2e-go-echo")]);
    let m = &app.modules()[0].module;
    let desc = m.descriptor();
    let names: Vec<&str> = desc.exports.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["e2e.Echo", "e2e.Voter"]);
    let regions: Vec<&str> = desc.memories.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(regions, ["e2e.shared", "e2e.out"]);
    assert!(desc.imports.is_empty());
    let err = app
        .call("e2e-go-echo", "e2e.Echo", "nope", &[])
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

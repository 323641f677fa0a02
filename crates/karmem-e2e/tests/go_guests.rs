//! Go guest modules (guests/go/, built by scripts/build-guests-go.sh into
//! guests/out/) on the host: a Go export called from the host, a
//! region-bound argument read in place, a Go importer calling exporters
//! (direct and fan-out with one failing member), the arena bots (the
//! hoarder cut off by the memory cap while the host goes on), and the ABI's
//! failure statuses.

mod common;

use common::{app, arena, board_state, bytes, e2e, echo_suite, order, runtime, wat_voter};
use karmem_host::{AppBuilder, Arg, ModuleOptions, Status};
use serde_json::json;

use common::module as go_module;

#[test]
fn go_export_called_from_host() {
    echo_suite::export_called_from_host("e2e-go-echo");
}

#[test]
fn region_argument_read_in_place() {
    echo_suite::region_argument_read_in_place("e2e-go-echo");
}

#[test]
fn region_result_and_read_only_window() {
    echo_suite::region_result_and_read_only_window("e2e-go-echo");
}

#[test]
fn bad_argument_and_application_error() {
    echo_suite::bad_arguments_and_application_error("e2e-go-echo");
}

#[test]
fn go_importer_calls_direct_and_fanout() {
    let c = e2e();
    let yes = c.encode("Msg", json!({"Text": "wat"}));
    let rt = runtime();
    let app = app(vec![
        go_module("e2e-go-caller"),
        go_module("e2e-go-echo"),
        wat_voter(Some(&yes), "").load_into(rt, "wat-yes").unwrap(),
        wat_voter(None, "no vote").load_into(rt, "wat-no").unwrap(),
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

#[test]
fn sweeper_joins_and_walks_to_the_nearest_coin() {
    let c = arena();
    let app = app(vec![go_module("arena-sweeper")]);
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
        let state = board_state(&c, &app, coins.clone());
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
        go_module("arena-hoarder"),
        ModuleOptions {
            timeout: std::time::Duration::from_secs(5),
            memory_limit: 32 << 20,
            ..ModuleOptions::default()
        },
    )
    .module(go_module("arena-sweeper"));
    let app = b.build().unwrap();
    let state = board_state(&c, &app, json!([{"X": 5, "Y": 2}]));
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
    let app = app(vec![go_module("e2e-go-echo")]);
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

//! Zig guest modules (guests/zig/, built by scripts/build-guests-zig.sh
//! into guests/out/) on the host: every function of the Zig echo called
//! from the host (in-place region argument, region-bound result, a write
//! into a read-only window, malformed arguments), Go and Zig importers
//! calling each other's exporters (direct and fan-out, a trapping member),
//! the Zig arena bot, and a Zig module's descriptor.

mod common;

use common::{
    app, arena, board_state_with, bytes, e2e, echo_suite, module, order, runtime, wat_voter,
};
use karmem_host::{AppBuilder, Arg, ModuleOptions};
use serde_json::json;

#[test]
fn zig_export_called_from_host() {
    echo_suite::export_called_from_host("e2e-zig-echo");
}

#[test]
fn region_argument_read_in_place() {
    echo_suite::region_argument_read_in_place("e2e-zig-echo");
}

#[test]
fn region_result_and_read_only_window() {
    echo_suite::region_result_and_read_only_window("e2e-zig-echo");
}

#[test]
fn bad_arguments_and_application_error() {
    echo_suite::bad_arguments_and_application_error("e2e-zig-echo");
}

/// Runs `caller`'s Driver.run with `text` in an application of `caller`,
/// the Echo exporter `echo` (bound to the caller) and the other `voters`,
/// in this module order.
fn drive(caller: &str, echo: &str, voters: &[&str], text: &str) -> String {
    let c = e2e();
    let mut b = AppBuilder::new(runtime());
    for name in [caller, echo].iter().chain(voters) {
        let m = module(name);
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.bind(caller, "e2e.Echo", echo);
    let app = b.build().unwrap();
    let msg = c.encode("Msg", json!({"Text": text, "Number": 41}));
    let out = app
        .call(caller, "e2e.Driver", "run", &[Arg::Bytes(&msg)])
        .unwrap();
    c.decode("Msg", &bytes(&app, out))["Text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn go_caller_calls_the_zig_echo() {
    // echo: direct, copied argument and result; peek: written at offset
    // 4096 of the caller's window, found at the same offset of the
    // exporter's; votes: every Voter in module order.
    assert_eq!(
        drive("e2e-go-caller", "e2e-zig-echo", &["e2e-go-echo"], "hi"),
        "echo=hi/42 peek=hi@4096 votes=1:OK:zig,2:OK:go"
    );
}

#[test]
fn zig_caller_calls_the_go_echo() {
    assert_eq!(
        drive("e2e-zig-caller", "e2e-go-echo", &["e2e-zig-echo"], "hi"),
        "echo=hi/42 peek=hi@4096 votes=1:OK:go,2:OK:zig"
    );
}

#[test]
fn zig_caller_reports_a_failing_voter_as_the_go_caller_does() {
    let c = e2e();
    let no = wat_voter(None, "no vote")
        .load_into(runtime(), "wat-no")
        .unwrap();
    let mut b = AppBuilder::new(runtime());
    for m in [module("e2e-zig-caller"), module("e2e-zig-echo"), no] {
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    let app = b.build().unwrap();
    let msg = c.encode("Msg", json!({"Text": "hi", "Number": 41}));
    let out = app
        .call("e2e-zig-caller", "e2e.Driver", "run", &[Arg::Bytes(&msg)])
        .unwrap();
    // The same text as go_guests.rs's go_importer_calls_direct_and_fanout.
    assert_eq!(
        c.decode("Msg", &bytes(&app, out))["Text"],
        "echo=hi/42 peek=hi@4096 votes=1:OK:zig,\
         2:APPLICATION_ERROR:callee 2: APPLICATION_ERROR: \
         module `wat-no`, e2e.Voter.vote: application error: no vote"
    );
}

#[test]
fn a_trapping_zig_voter_keeps_the_other_results() {
    // The Zig voter traps on "trap"; the Go voter's result survives, and
    // the trap is reported for its callee only, whichever language calls.
    for (caller, echo, other) in [
        ("e2e-zig-caller", "e2e-go-echo", "e2e-zig-echo"),
        ("e2e-go-caller", "e2e-zig-echo", "e2e-go-echo"),
    ] {
        let got = drive(caller, echo, &[other], "trap");
        let (go_at, zig_at) = if echo == "e2e-go-echo" {
            (1, 2)
        } else {
            (2, 1)
        };
        let go_vote = format!("{go_at}:OK:go");
        let trap = format!("{zig_at}:TRAP:callee {zig_at}: TRAP: ");
        assert!(
            got.starts_with("echo=trap/42 peek=trap@4096 votes="),
            "{caller}: {got}"
        );
        assert!(got.contains(&go_vote), "{caller}: {got}");
        assert!(got.contains(&trap), "{caller}: {got}");
        assert!(got.contains("e2e-zig-echo"), "{caller}: {got}");
    }
}

#[test]
fn ziggy_joins_and_heads_for_the_coin_it_leads_to() {
    let c = arena();
    let app = app(vec![module("arena-ziggy")]);
    let rules = c.encode("Rules", json!({"Width": 8, "Height": 8, "Ticks": 10}));
    let hello = app
        .call("arena-ziggy", "arena.Bot", "join", &[Arg::Bytes(&rules)])
        .unwrap();
    let hello = c.decode("Hello", &bytes(&app, hello));
    assert_eq!(hello["Name"], "ziggy");
    assert_eq!(hello["Language"], "Zig");

    let players = json!([
        {"Name": "hoarder", "Language": "Go", "At": {"X": 0, "Y": 0}},
        {"Name": "ziggy", "Language": "Zig", "At": {"X": 2, "Y": 2}},
    ]);
    let cases = [
        (json!([{"X": 5, "Y": 2}]), "East"),
        (json!([{"X": 2, "Y": 0}]), "North"),
        (json!([{"X": 0, "Y": 3}]), "West"),
        // (1,1) is as near to the hoarder as to ziggy; (2,5) is ziggy's by
        // a wide margin, though farther.
        (json!([{"X": 1, "Y": 1}, {"X": 2, "Y": 5}]), "South"),
        (json!([]), "Stay"),
    ];
    for (coins, want) in cases {
        let state = board_state_with(&c, &app, players.clone(), coins.clone());
        let out = app
            .call("arena-ziggy", "arena.Bot", "think", &[Arg::Region(state)])
            .unwrap();
        assert_eq!(order(&c, &app, out), want, "coins {coins}");
    }
    // A board without ziggy on it: it stays.
    let state = board_state_with(&c, &app, json!([]), json!([{"X": 1, "Y": 1}]));
    let out = app
        .call("arena-ziggy", "arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    assert_eq!(order(&c, &app, out), "Stay");
}

#[test]
fn describe_lists_the_interfaces() {
    let app = app(vec![module("e2e-zig-echo"), module("e2e-zig-caller")]);
    let desc = app.modules()[0].module.descriptor();
    let names: Vec<&str> = desc.exports.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["e2e.Echo", "e2e.Voter"]);
    let regions: Vec<&str> = desc.memories.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(regions, ["e2e.shared", "e2e.out"]);
    assert!(desc.imports.is_empty());
    let functions: Vec<&str> = desc.exports[0]
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        functions,
        ["echo", "peek", "fail", "stamp", "scribble", "nop"]
    );

    let desc = app.modules()[1].module.descriptor();
    let names: Vec<&str> = desc.exports.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["e2e.Driver"]);
    let names: Vec<&str> = desc.imports.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["e2e.Echo", "e2e.Voter"]);

    let err = app
        .call("e2e-zig-echo", "e2e.Echo", "nope", &[])
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

//! Go guest modules (guests/go/, built by scripts/build-guests-go.sh into
//! guests/out/) on the host: the arena bots (the hoarder cut off by the
//! memory cap while the host goes on), unknown functions and the
//! descriptor. The e2e echo and caller are tested with the other
//! languages' in tests/polyglot.rs.

mod common;

use common::{module as go_module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, GuestModule, ModuleOptions, Output, Status};
use serde_json::{json, Value};

fn arena() -> Codec {
    Codec::load("examples/arena/arena.km")
}

fn app(modules: Vec<GuestModule>) -> App {
    let mut b = AppBuilder::new(runtime());
    for m in modules {
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.build().unwrap()
}

/// The Go runtime names the refused argument (the status is checked for
/// every language in tests/polyglot.rs).
#[test]
fn bad_argument_names_the_parameter() {
    let app = app(vec![go_module("e2e-go-echo")]);
    let junk = [0xffu8; 24];
    let err = app
        .call("e2e-go-echo", "e2e.Echo", "echo", &[Arg::Bytes(&junk)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
    assert!(err.to_string().contains("argument m"), "{err}");
}

/// A handler that panics fails its own call with an application error
/// naming the function; the instance is not discarded (no trap) and
/// answers the next call, whose arguments go through the same dispatch.
#[test]
fn a_panicking_handler_fails_its_call_only() {
    let app = app(vec![go_module("e2e-go-echo")]);
    let msgs = Codec::load("guests/polyglot.km");
    let msg = |text: &str| msgs.encode("Msg", json!({"Text": text, "Number": 1}));
    for _ in 0..3 {
        let err = app
            .call(
                "e2e-go-echo",
                "e2e.Echo",
                "fail",
                &[Arg::Bytes(&msg("panic"))],
            )
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::ApplicationError), "{err}");
        assert!(
            err.to_string().contains("e2e.Echo.fail: panic: asked to"),
            "{err}"
        );
        let out = app
            .call(
                "e2e-go-echo",
                "e2e.Echo",
                "echo",
                &[Arg::Bytes(&msg("after"))],
            )
            .unwrap();
        assert_eq!(
            msgs.output("Msg", &app, out),
            json!({"Text": "after", "Number": 2})
        );
        app.call("e2e-go-echo", "e2e.Echo", "nop", &[]).unwrap();
    }
}

/// The `Move` of an `Order` result (enums decode as numbers: Stay 0,
/// North 1, South 2, East 3, West 4).
fn order(c: &Codec, app: &App, out: Output) -> Value {
    c.output("Order", app, out)["Move"].clone()
}

#[test]
fn sweeper_joins_and_walks_to_the_nearest_coin() {
    let c = arena();
    let app = app(vec![go_module("arena-sweeper")]);
    let rules = c.encode("Rules", json!({"Width": 8, "Height": 8, "Ticks": 10}));
    let hello = app
        .call("arena-sweeper", "arena.Bot", "join", &[Arg::Bytes(&rules)])
        .unwrap();
    let hello = c.output("Hello", &app, hello);
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
    let hoarder = go_module("arena-hoarder");
    let options = ModuleOptions {
        timeout: std::time::Duration::from_secs(5),
        memory_limit: 32 << 20,
        ..ModuleOptions::default()
    };
    let sweeper = go_module("arena-sweeper");
    b.module_with(hoarder.clone(), karmem_e2e::trusting(&hoarder, options))
        .module_with(
            sweeper.clone(),
            karmem_e2e::trusting(&sweeper, ModuleOptions::default()),
        );
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

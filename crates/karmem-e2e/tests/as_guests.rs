//! AssemblyScript guest modules (guests/as/, built by
//! scripts/build-guests-as.sh into guests/out/) on the host: what is
//! particular to them. The AssemblyScript echo and caller are tested with
//! every other language's in tests/polyglot.rs.

mod common;

use common::{module, runtime, Codec};
use karmem_host::{AppBuilder, Arg, ModuleOptions, Status};
use serde_json::json;

const BOT: &str = "arena-ascent";

fn arena() -> Codec {
    Codec::load("examples/arena/arena.km")
}

#[test]
fn ascent_joins_and_heads_for_the_richest_coins() {
    let c = arena();
    let m = module(BOT);
    let app = AppBuilder::new(runtime())
        .module_with(
            m.clone(),
            karmem_e2e::trusting(&m, ModuleOptions::default()),
        )
        .build()
        .unwrap();
    let rules = c.encode("Rules", json!({"Width": 8, "Height": 8, "Ticks": 10}));
    let hello = app
        .call(BOT, "arena.Bot", "join", &[Arg::Bytes(&rules)])
        .unwrap();
    let hello = c.output("Hello", &app, hello);
    assert_eq!(hello["Name"], "ascent");
    assert_eq!(hello["Language"], "AssemblyScript");

    let players = json!([
        {"Name": "hoarder", "Language": "Go", "At": {"X": 0, "Y": 0}},
        {"Name": "ascent", "Language": "AssemblyScript", "At": {"X": 2, "Y": 2}},
    ]);
    let cases = [
        (json!([{"X": 5, "Y": 2}]), "East"),
        (json!([{"X": 2, "Y": 0}]), "North"),
        (json!([{"X": 0, "Y": 3}]), "West"),
        // Y first on a tie.
        (json!([{"X": 3, "Y": 3}]), "South"),
        // The lone coin at (1,2) is nearer; the four around (2,5) are
        // worth more together.
        (
            json!([{"X": 1, "Y": 2}, {"X": 2, "Y": 5}, {"X": 2, "Y": 6}, {"X": 2, "Y": 7}, {"X": 3, "Y": 5}]),
            "South",
        ),
        // (1,0) is nearer to the hoarder than to ascent: left to it.
        (json!([{"X": 1, "Y": 0}, {"X": 7, "Y": 2}]), "East"),
        (json!([]), "Stay"),
    ];
    for (coins, want) in cases {
        let state = common::board_state_with(&c, &app, players.clone(), coins.clone());
        let out = app
            .call(BOT, "arena.Bot", "think", &[Arg::Region(state)])
            .unwrap();
        assert_eq!(c.output("Order", &app, out)["Move"], want, "coins {coins}");
    }
    // A board without ascent on it: it stays.
    let state = common::board_state_with(&c, &app, json!([]), json!([{"X": 1, "Y": 1}]));
    let out = app
        .call(BOT, "arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    assert_eq!(c.output("Order", &app, out)["Move"], "Stay");
    assert_eq!(app.stats().instances_discarded, 0);
}

/// The bot reads the board in place and never writes it: the region's
/// bytes are the same after every call. A State that is not a valid
/// message (junk, truncated, misaligned) is refused with BAD_ARGUMENT before
/// the bot's code runs, and the instance survives it; a valid but
/// hostile State (huge coordinates, many players with its name) is
/// answered.
#[test]
fn ascent_survives_hostile_boards_and_never_writes_the_board() {
    let c = arena();
    let m = module(BOT);
    let app = AppBuilder::new(runtime())
        .module_with(
            m.clone(),
            karmem_e2e::trusting(&m, ModuleOptions::default()),
        )
        .build()
        .unwrap();
    let board = app.region("arena.board").unwrap();

    let state = common::board_state(&c, &app, "ascent", json!([{"X": 4, "Y": 2}]));
    let before = board.to_vec(state).unwrap();
    let out = app
        .call(BOT, "arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    assert_eq!(c.output("Order", &app, out)["Move"], "East");
    assert_eq!(board.to_vec(state).unwrap(), before);

    for (what, bytes, at) in [
        ("junk", vec![0xffu8; 64], 0u32),
        ("truncated", before[..before.len() - 8].to_vec(), 0),
        ("misaligned", before.clone(), 4),
    ] {
        let mut bytes = bytes;
        if what == "truncated" {
            // The header still claims the full size.
            bytes.truncate(before.len() - 8);
        }
        board.write(at, &bytes).unwrap();
        let slice = board.slice(at, bytes.len() as u32).unwrap();
        let err = app
            .call(BOT, "arena.Bot", "think", &[Arg::Region(slice)])
            .expect_err(what);
        assert_eq!(err.status(), Some(Status::BadArgument), "{what}: {err}");
        assert_eq!(board.to_vec(slice).unwrap(), bytes, "{what}");
    }

    let mut players = vec![json!({"Name": "ascent", "At": {"X": -32768, "Y": 32767}})];
    for k in 0..200 {
        players.push(json!({"Name": "ascent", "At": {"X": k, "Y": -k}, "Out": k % 2 == 0}));
    }
    let coins: Vec<_> = (0..500)
        .map(|k| json!({"X": 32767 - k, "Y": -32768 + k}))
        .collect();
    let state = common::board_state_with(&c, &app, json!(players), json!(coins));
    let out = app
        .call(BOT, "arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    let order = c.output("Order", &app, out);
    assert!(order["Move"].is_string(), "{order}");
    assert_eq!(app.stats().instances_discarded, 0);
}

/// An AssemblyScript `abort` (a failed `assert` in the voter, on the text
/// "abort") is a trap of that call only, like `unreachable`: the module
/// imports nothing from `env` (it loaded), the instance is replaced and the
/// next call is answered.
#[test]
fn an_abort_fails_only_its_call() {
    let c = Codec::load("guests/polyglot.km");
    let m = module("e2e-as-echo");
    let app = AppBuilder::new(runtime())
        .module_with(
            m.clone(),
            karmem_e2e::trusting(&m, ModuleOptions::default()),
        )
        .build()
        .unwrap();
    for (k, text) in ["abort", "trap"].into_iter().enumerate() {
        let bad = c.encode("Msg", json!({ "Text": text }));
        let err = app
            .call("e2e-as-echo", "e2e.Voter", "vote", &[Arg::Bytes(&bad)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::Trap), "{text}: {err}");
        let ok = c.encode("Msg", json!({"Text": "again"}));
        let out = app
            .call("e2e-as-echo", "e2e.Voter", "vote", &[Arg::Bytes(&ok)])
            .unwrap();
        assert_eq!(c.output("Msg", &app, out)["Text"], "as");
        assert_eq!(app.stats().instances_discarded, k as u64 + 1);
    }
}

/// Memory is reclaimed across guest→guest calls too: 200 runs of the
/// AssemblyScript caller with a 50 KB text (each run encodes it, takes and
/// decodes the echo's copy, writes it into the shared window, decodes the
/// peek and the vote and builds a 100 KB answer: several MB of garbage per
/// run in UTF-16 strings and buffers) stay under a 16 MiB memory limit in
/// one instance of each module.
#[test]
fn the_caller_reclaims_memory_across_calls() {
    let c = Codec::load("guests/polyglot.km");
    let mut b = AppBuilder::new(runtime());
    for name in ["e2e-as-caller", "e2e-as-echo"] {
        let m = module(name);
        let options = ModuleOptions {
            memory_limit: 16 << 20,
            ..ModuleOptions::default()
        };
        b.module_with(m.clone(), karmem_e2e::trusting(&m, options));
    }
    let app = b.build().unwrap();
    let text = "y".repeat(50_000);
    let big = c.encode("Msg", json!({"Text": text, "Number": 1}));
    for k in 0..200 {
        let out = app
            .call("e2e-as-caller", "e2e.Driver", "run", &[Arg::Bytes(&big)])
            .unwrap_or_else(|e| panic!("run {k}: {e}"));
        let answer = c.output("Msg", &app, out);
        let answer = answer["Text"].as_str().unwrap();
        assert!(
            answer.starts_with(&format!("echo={text}/2 peek={text}@4096 votes=")),
            "run {k}"
        );
        assert!(answer.ends_with(":OK:as"), "run {k}");
    }
    assert_eq!(app.stats().instances_discarded, 0);
}

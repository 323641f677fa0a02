//! Zig guest modules (guests/zig/, built by scripts/build-guests-zig.sh
//! into guests/out/) on the host: the Zig arena bot. The Zig echo and
//! caller are tested with every other language's in tests/polyglot.rs.

mod common;

use common::{module, runtime, Codec};
use karmem_host::{AppBuilder, Arg, ModuleOptions};
use serde_json::json;

#[test]
fn ziggy_joins_and_heads_for_the_coin_it_leads_to() {
    let c = Codec::load("examples/arena/arena.km");
    let m = module("arena-ziggy");
    let app = AppBuilder::new(runtime())
        .module_with(
            m.clone(),
            karmem_e2e::trusting(&m, ModuleOptions::default()),
        )
        .build()
        .unwrap();
    let rules = c.encode("Rules", json!({"Width": 8, "Height": 8, "Ticks": 10}));
    let hello = app
        .call("arena-ziggy", "arena.Bot", "join", &[Arg::Bytes(&rules)])
        .unwrap();
    let hello = c.output("Hello", &app, hello);
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
        let state = common::board_state_with(&c, &app, players.clone(), coins.clone());
        let out = app
            .call("arena-ziggy", "arena.Bot", "think", &[Arg::Region(state)])
            .unwrap();
        assert_eq!(c.output("Order", &app, out)["Move"], want, "coins {coins}");
    }
    // A board without ziggy on it: it stays.
    let state = common::board_state_with(&c, &app, json!([]), json!([{"X": 1, "Y": 1}]));
    let out = app
        .call("arena-ziggy", "arena.Bot", "think", &[Arg::Region(state)])
        .unwrap();
    assert_eq!(c.output("Order", &app, out)["Move"], "Stay");
}

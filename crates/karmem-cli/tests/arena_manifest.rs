//! The arena's manifest does what the README says it does: `karmem run
//! examples/arena/arena.toml` plays long enough for the three misbehaving
//! bots (the looper, the scribbler, the hoarder) to be cut off — on
//! 87a4998 it played three ticks, in which none of them ever misbehaved.
//! Needs the guest modules (`make guests`).
#![cfg(feature = "host")]

use std::path::Path;
use std::process::Command;

#[test]
fn the_arena_manifest_puts_the_three_misbehaving_bots_out() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .arg("run")
        .arg(repo.join("examples/arena/arena.toml"))
        .env("KARMEM_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    // The reports are printed as pretty JSON after each call's summary
    // line; the last one is the state after the last tick.
    let json: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with(['{', '}', ' ']))
        .collect();
    let reports: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&json.join("\n"))
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let last = reports.last().expect("no report printed");
    let players = last["Players"].as_array().expect("players");
    for name in ["looper", "scribbler", "hoarder"] {
        let p = players
            .iter()
            .find(|p| p["Name"] == name)
            .unwrap_or_else(|| panic!("{name} did not play: {last}"));
        assert_eq!(p["Out"], true, "{name} was not put out: {p}");
        assert_eq!(p["Strikes"], 3, "{p}");
    }
    // The honest bots are still in.
    for name in ["greedy", "sweeper", "columnist", "ziggy", "ascent"] {
        let p = players.iter().find(|p| p["Name"] == name).unwrap();
        assert_eq!(p["Out"], false, "{name}: {p}");
    }
}

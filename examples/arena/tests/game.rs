//! The arena end to end: the real world and bot modules (guests/out, built
//! by scripts/build-guests.sh) played through the `karmem-arena` binary.
//! Checks what the demo promises: the good bots score, each misbehaving bot
//! is cut off for its own reason, and the game still finishes.

use std::path::Path;
use std::process::Command;

fn play(extra: &[&str]) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = root.join("examples/arena/arena.toml");
    let world = root.join("guests/out/arena-world.wasm");
    assert!(
        world.exists(),
        "{} is missing: run scripts/build-guests.sh (make test does)",
        world.display()
    );
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("module-cache");
    let out = Command::new(env!("CARGO_BIN_EXE_karmem-arena"))
        .arg(&manifest)
        .args(extra)
        .env("KARMEM_CACHE_DIR", &cache)
        .output()
        .expect("run karmem-arena");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "karmem-arena failed\n{stdout}\n{stderr}"
    );
    (stdout, stderr)
}

/// The standings line of `name`.
fn standing<'a>(stdout: &'a str, name: &str) -> &'a str {
    let standings = stdout
        .split("final standings")
        .nth(1)
        .unwrap_or_else(|| panic!("no standings in\n{stdout}"));
    standings
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("{name} missing from the standings\n{stdout}"))
}

fn coins(line: &str) -> u32 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.starts_with("coin"))
        .expect("coins");
    words[at - 1].parse().expect("a number of coins")
}

#[test]
fn good_bots_score_and_every_misbehaving_bot_is_cut_off_for_its_own_reason() {
    let (stdout, stderr) = play(&["--ticks", "25"]);
    for (bot, language) in [("greedy", "Rust"), ("sweeper", "Go")] {
        let line = standing(&stdout, bot);
        assert!(line.contains(language), "{line}");
        assert!(
            line.contains("clean"),
            "{bot} should never fail: {line}\n{stdout}\n{stderr}"
        );
        assert!(
            coins(line) > 0,
            "{bot} should collect coins in 25 ticks: {line}"
        );
    }
    for (bot, why) in [
        ("looper", "timed out"),
        ("scribbler", "wrote into the read-only board"),
        ("hoarder", "hit its memory limit"),
    ] {
        assert!(
            standing(&stdout, bot).contains("out after 3 strikes"),
            "{bot}\n{stdout}"
        );
        assert!(
            stdout.lines().any(|l| l.contains(bot) && l.contains(why)),
            "{bot} should have `{why}` in the tick lines\n{stdout}"
        );
        assert!(
            stdout.contains(&format!("`{bot}` is out, module suspended")),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("final standings after 25 ticks"),
        "{stdout}"
    );
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let args = ["--ticks", "10", "--seed", "7", "--quiet"];
    let (a, _) = play(&args);
    let (b, _) = play(&args);
    let standings = |s: &str| s.split("final standings").nth(1).map(str::to_string);
    assert_eq!(standings(&a), standings(&b));
}

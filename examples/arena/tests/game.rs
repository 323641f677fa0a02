//! The arena end to end: the real world and bot modules (guests/out, built
//! by scripts/build-guests.sh) played through the `karmem-arena` binary.
//! Checks what the demo promises: the good bots score, each misbehaving bot
//! is cut off for its own reason, and the game still finishes.

use std::path::Path;
use std::process::Command;

fn play(extra: &[&str]) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    play_manifest(&root.join("examples/arena/arena.toml"), extra)
}

fn play_manifest(manifest: &Path, extra: &[&str]) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let world = root.join("guests/out/arena-world.wasm");
    assert!(
        world.exists(),
        "{} is missing: run scripts/build-guests.sh (make test does)",
        world.display()
    );
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("module-cache");
    let out = Command::new(env!("CARGO_BIN_EXE_karmem-arena"))
        .arg(manifest)
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
    for (bot, language) in [
        ("greedy", "Rust"),
        ("sweeper", "Go"),
        ("columnist", "C"),
        ("ziggy", "Zig"),
        ("ascent", "AssemblyScript"),
    ] {
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

/// A message of arena.km, encoded from JSON.
fn message(ty: &str, json: serde_json::Value) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("arena.km");
    let (schema, layout) =
        karmem_layout::load("arena.km", &std::fs::read_to_string(path).unwrap()).unwrap();
    let id = schema.struct_by_name(ty).unwrap();
    karmem_json::encode(&schema, &layout, id, &json).unwrap()
}

/// WAT data-segment text of `bytes`.
fn data(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:02x}")).collect()
}

/// docs/security.md §2.3, against the real world and the real bots: a bot
/// that declares an *import* of `arena.Bot` as well as its export asks for
/// the importer's read-write access to the board, and writes it on every
/// `think`. The manifest grants bots read access only: its writes fail,
/// it is put out for them, and the honest bots never notice.
#[test]
fn a_bot_declaring_both_roles_cannot_write_the_board() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = root.join("guests/out");
    // The interface exactly as the world imports it.
    let runtime = karmem_host::Runtime::new(karmem_host::RuntimeConfig {
        cache_dir: None,
        ..Default::default()
    })
    .unwrap();
    let world = runtime
        .load_file("world", &out.join("arena-world.wasm"))
        .unwrap();
    let bot = world
        .descriptor()
        .imports
        .iter()
        .find(|i| i.name == "arena.Bot")
        .unwrap()
        .clone();
    let hello = message(
        "Hello",
        serde_json::json!({ "Name": "agent", "Language": "WAT" }),
    );
    let order = message("Order", serde_json::json!({ "Move": 0 }));
    let agent = karmem_testkit::wat_guest::Guest::new(vec![bot.clone()], vec![bot])
        .func(
            "arena.Bot",
            "join",
            &format!("(call $reply (i32.const 2048) (i32.const {}))", hello.len()),
        )
        .func(
            "arena.Bot",
            "think",
            &format!(
                "(memory.fill (call $win (i32.const 0)) (i32.const 0xff) (i32.const 4096))
                 (call $reply (i32.const 3072) (i32.const {}))",
                order.len()
            ),
        )
        .extra(&format!(
            "(data (i32.const 2048) \"{}\") (data (i32.const 3072) \"{}\")",
            data(&hello),
            data(&order)
        ));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agent.wat"), agent.wat()).unwrap();
    let manifest = std::fs::read_to_string(root.join("examples/arena/arena.toml"))
        .unwrap()
        .replace("../../guests/out", &out.display().to_string())
        .replace("\"arena.km\"", "\"\"")
        + "\n[[module]]\nname = \"agent\"\npath = \"agent.wat\"\ntimeout_ms = 100\ngrant = { \"arena.board\" = \"read\" }\n";
    let manifest = manifest.replace("schemas = [\"\"]", "");
    let path = dir.path().join("arena.toml");
    std::fs::write(&path, manifest).unwrap();

    let (stdout, stderr) = play_manifest(&path, &["--ticks", "12"]);
    for bot in ["greedy", "sweeper"] {
        let line = standing(&stdout, bot);
        assert!(line.contains("clean"), "{bot}: {line}\n{stdout}\n{stderr}");
    }
    assert!(
        standing(&stdout, "agent").contains("out after 3 strikes"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("agent wrote into the read-only board")),
        "{stdout}"
    );
}

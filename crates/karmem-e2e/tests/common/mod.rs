//! Helpers shared by the guest-language tests (go_guests.rs, c_guests.rs,
//! polyglot.rs):
//! one cached runtime, each guest module loaded once per test process, and
//! messages to and from JSON.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use karmem_host::{
    App, Arg, GuestModule, OptLevel, Output, Pattern, Runtime, RuntimeConfig, Status,
};
use karmem_testkit::wat_guest::{func, iface, param, Guest};
use serde_json::{json, Value};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One runtime for every test, with the precompiled-module cache: a Go
/// module takes seconds to compile, a cached one milliseconds.
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("module-cache")),
            opt_level: OptLevel::None,
            ..RuntimeConfig::default()
        })
        .expect("runtime")
    })
}

/// Each module is loaded once per test process: tests run in parallel and
/// would otherwise compile the same module several times on a cold cache.
pub fn module(name: &str) -> GuestModule {
    static LOADED: OnceLock<Mutex<HashMap<String, GuestModule>>> = OnceLock::new();
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap();
    if let Some(m) = loaded.get(name) {
        return m.clone();
    }
    let path = repo().join("guests/out").join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run scripts/build-guests.sh (or make guests)",
        path.display()
    );
    let m = runtime()
        .load_file(name, &path)
        .unwrap_or_else(|e| panic!("loading {name}: {e}"));
    loaded.insert(name.to_string(), m.clone());
    m
}

/// A schema for encoding and decoding test messages as JSON.
pub struct Codec {
    pub schema: karmem_schema::model::Schema,
    pub layout: karmem_layout::Layout,
}

impl Codec {
    pub fn load(rel: &str) -> Codec {
        let path = repo().join(rel);
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        Codec { schema, layout }
    }

    pub fn root(&self, name: &str) -> usize {
        self.schema
            .structs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("no struct {name}"))
    }

    pub fn encode(&self, root: &str, value: Value) -> Vec<u8> {
        karmem_json::encode(&self.schema, &self.layout, self.root(root), &value).unwrap()
    }

    pub fn decode(&self, root: &str, bytes: &[u8]) -> Value {
        karmem_json::decode(&self.schema, &self.layout, self.root(root), bytes).unwrap()
    }

    /// Decode a call's result (copied out of the app).
    pub fn output(&self, root: &str, app: &App, out: Output) -> Value {
        self.decode(root, &out.to_vec(app).unwrap())
    }
}

/// What every e2e.Echo exporter (guests/polyglot.km) does with regions:
/// `stamp` returns its result in place in `e2e.out`, and `scribble`, which
/// writes into the read-only `e2e.shared`, fails with READ_ONLY_VIOLATION
/// and leaves the region's bytes unchanged. Returns the message used.
pub fn stamp_and_scribble(c: &Codec, app: &App, module: &str) -> Vec<u8> {
    let msg = c.encode("Msg", json!({"Text": "stamped", "Number": 1}));
    let out = app
        .call(module, "e2e.Echo", "stamp", &[Arg::Bytes(&msg)])
        .unwrap_or_else(|e| panic!("{module}: {e}"));
    // The result stayed in the region, at the start of the guest's window.
    let Output::Region(slice) = out else {
        panic!("{module}: stamp returned {out:?}, not a region slice");
    };
    assert_eq!(slice.offset, 0, "{module}");
    let got = c.decode(
        "Msg",
        &app.region_by_id(slice.region).to_vec(slice).unwrap(),
    );
    assert_eq!(got["Text"], "stamped", "{module}");
    assert_eq!(got["Number"], 101, "{module}");

    // Writing into a window the exporter may only read fails the call, and
    // the region's bytes are unchanged.
    let region = app.region("e2e.shared").unwrap();
    region.write(0, &msg).unwrap();
    let slice = region.slice(0, msg.len() as u32).unwrap();
    let err = app
        .call(module, "e2e.Echo", "scribble", &[Arg::Region(slice)])
        .unwrap_err();
    assert_eq!(
        err.status(),
        Some(Status::ReadOnlyViolation),
        "{module}: {err}"
    );
    assert_eq!(region.to_vec(slice).unwrap(), msg, "{module}");
    msg
}

/// A WAT exporter of `e2e.Voter` answering with `reply` (a message), or
/// failing with `error` when `reply` is `None`.
pub fn wat_voter(reply: Option<&[u8]>, error: &str) -> Guest {
    let voter = iface(
        "e2e.Voter",
        Pattern::FanOut,
        vec![],
        vec![func(
            "vote",
            vec![param("q", "e2e.Msg", None)],
            Some(param("result", "e2e.Msg", None)),
        )],
    );
    let g = Guest::new(vec![voter], vec![]);
    match reply {
        Some(msg) => {
            let data: String = msg.iter().map(|b| format!("\\{b:02x}")).collect();
            g.func(
                "e2e.Voter",
                "vote",
                &format!("(call $reply (i32.const 2048) (i32.const {}))", msg.len()),
            )
            .extra(&format!("(data (i32.const 2048) \"{data}\")"))
        }
        None => g
            .func(
                "e2e.Voter",
                "vote",
                &format!(
                    "(call $error (i32.const 2048) (i32.const {})) (i32.const 3)",
                    error.len()
                ),
            )
            .extra(&format!("(data (i32.const 2048) \"{error}\")")),
    }
}

/// An arena `State` in the `arena.board` region: bot `me` at (2, 2), another
/// player at (0, 0), on an 8 × 8 board with `coins`.
pub fn board_state(c: &Codec, app: &App, me: &str, coins: Value) -> karmem_host::RegionSlice {
    let players = json!([
        {"Name": "other", "Language": "Go", "At": {"X": 0, "Y": 0}},
        {"Name": me, "Language": "?", "At": {"X": 2, "Y": 2}},
    ]);
    board_state_with(c, app, players, coins)
}

/// An arena `State` with these players and coins on an 8 × 8 board.
pub fn board_state_with(
    c: &Codec,
    app: &App,
    players: Value,
    coins: Value,
) -> karmem_host::RegionSlice {
    let state = c.encode(
        "State",
        json!({"Tick": 1, "Ticks": 10, "Width": 8, "Height": 8, "Players": players, "Coins": coins}),
    );
    let board = app.region("arena.board").unwrap();
    board.write(0, &state).unwrap();
    board.slice(0, state.len() as u32).unwrap()
}

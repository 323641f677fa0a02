//! Helpers of the guest end-to-end tests (go_guests.rs, zig_guests.rs):
//! one runtime with the module cache, modules loaded once per process,
//! JSON codecs of the test schemas, a WAT voter, the arena board.
#![allow(dead_code)] // each test binary uses its part

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use karmem_host::{
    App, AppBuilder, GuestModule, ModuleOptions, OptLevel, Output, Pattern, Runtime, RuntimeConfig,
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
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
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
}

pub fn e2e() -> Codec {
    Codec::load("guests/go/e2e-go.km")
}

pub fn arena() -> Codec {
    Codec::load("examples/arena/arena.km")
}

pub fn bytes(app: &App, out: Output) -> Vec<u8> {
    out.to_vec(app).unwrap()
}

pub fn app(modules: Vec<GuestModule>) -> App {
    let mut b = AppBuilder::new(runtime());
    for m in modules {
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.build().unwrap()
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

/// A `State` on the board (hoarder at 0,0, sweeper at 2,2) with `coins`.
pub fn board_state(c: &Codec, app: &App, coins: Value) -> karmem_host::RegionSlice {
    let players = json!([
        {"Name": "hoarder", "Language": "Go", "At": {"X": 0, "Y": 0}},
        {"Name": "sweeper", "Language": "Go", "At": {"X": 2, "Y": 2}},
    ]);
    board_state_with(c, app, players, coins)
}

/// A `State` with `players` and `coins` written at the start of the board.
pub fn board_state_with(
    c: &Codec,
    app: &App,
    players: Value,
    coins: Value,
) -> karmem_host::RegionSlice {
    let state = c.encode(
        "State",
        json!({
            "Tick": 1, "Ticks": 10, "Width": 8, "Height": 8,
            "Players": players,
            "Coins": coins,
        }),
    );
    let board = app.region("arena.board").unwrap();
    board.write(0, &state).unwrap();
    board.slice(0, state.len() as u32).unwrap()
}

/// The `Move` of an `Order` result (enums decode as numbers: Stay 0,
/// North 1, South 2, East 3, West 4).
pub fn order(c: &Codec, app: &App, out: Output) -> Value {
    c.decode("Order", &bytes(app, out))["Move"].clone()
}

/// The host-side checks of an `e2e.Echo` exporter (guests/go/e2e-go.km),
/// the same whatever language the guest is written in.
pub mod echo_suite {
    use super::{app, bytes, e2e, module};
    use karmem_host::{Arg, Output, Status};
    use serde_json::json;

    /// Echo.echo (also with an absent argument) and Echo.nop of `echo`, and
    /// many calls in one instance.
    pub fn export_called_from_host(echo: &str) {
        let c = e2e();
        let app = app(vec![module(echo)]);
        let msg = c.encode("Msg", json!({"Text": "héllo", "Number": 41}));
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
            .unwrap();
        let got = c.decode("Msg", &bytes(&app, out));
        assert_eq!(got["Text"], "héllo");
        assert_eq!(got["Number"], 42);
        // An absent argument reads as the defaults.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&[])])
            .unwrap();
        let got = c.decode("Msg", &bytes(&app, out));
        assert_eq!(
            (got["Text"].as_str(), got["Number"].as_u64()),
            (Some(""), Some(1))
        );
        let out = app.call(echo, "e2e.Echo", "nop", &[]).unwrap();
        assert_eq!(out, Output::Empty);
        // Many calls in one instance: memory for arguments and results is
        // reused, not leaked (600 calls moving 60 KB in and out each would
        // leak past the default 64 MiB limit).
        let big = c.encode("Msg", json!({"Text": "x".repeat(60_000), "Number": 1}));
        for _ in 0..600 {
            app.call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&big)])
                .unwrap();
        }
        assert_eq!(app.stats().instances_discarded, 0);
    }

    /// Echo.peek reads its region-bound argument in place: the offset it
    /// reports is where the host wrote the message.
    pub fn region_argument_read_in_place(echo: &str) {
        let c = e2e();
        let app = app(vec![module(echo)]);
        let msg = c.encode("Msg", json!({"Text": "in place", "Number": 7}));
        let region = app.region("e2e.shared").unwrap();
        for at in [8192, 64] {
            region.write(at, &msg).unwrap();
            let slice = region.slice(at, msg.len() as u32).unwrap();
            let out = app
                .call(echo, "e2e.Echo", "peek", &[Arg::Region(slice)])
                .unwrap();
            let got = c.decode("Msg", &bytes(&app, out));
            assert_eq!(got["Text"], "in place");
            // The guest found the message inside its window, at the offset the
            // host wrote it to: nothing was copied.
            assert_eq!(got["Number"], at);
        }
        let err = app
            .call(echo, "e2e.Echo", "peek", &[Arg::Bytes(&msg)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
    }

    /// Echo.stamp returns its result in the `out` region; Echo.scribble
    /// writes into the read-only window and fails, leaving it unchanged.
    pub fn region_result_and_read_only_window(echo: &str) {
        let c = e2e();
        let app = app(vec![module(echo)]);
        let msg = c.encode("Msg", json!({"Text": "stamped", "Number": 1}));
        let out = app
            .call(echo, "e2e.Echo", "stamp", &[Arg::Bytes(&msg)])
            .unwrap();
        let Output::Region(slice) = out else {
            panic!("stamp returned {out:?}, not a region slice");
        };
        assert_eq!(slice.offset, 0);
        let out_region = app.region_by_id(slice.region);
        assert_eq!(app.region("e2e.out").unwrap().id(), out_region.id());
        let got = c.decode("Msg", &out_region.to_vec(slice).unwrap());
        assert_eq!(got["Text"], "stamped");
        assert_eq!(got["Number"], 101);

        // Writing into the read-only window fails the call; the region's bytes
        // are unchanged and a fresh instance serves the next call.
        let region = app.region("e2e.shared").unwrap();
        region.write(0, &msg).unwrap();
        let slice = region.slice(0, msg.len() as u32).unwrap();
        let err = app
            .call(echo, "e2e.Echo", "scribble", &[Arg::Region(slice)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::ReadOnlyViolation), "{err}");
        assert_eq!(region.to_vec(slice).unwrap(), msg);
        assert_eq!(app.stats().instances_discarded, 1);
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
            .unwrap();
        assert_eq!(c.decode("Msg", &bytes(&app, out))["Number"], 2);
    }

    /// Malformed arguments are BAD_ARGUMENT, Echo.fail an application error;
    /// neither discards the instance.
    pub fn bad_arguments_and_application_error(echo: &str) {
        let c = e2e();
        let app = app(vec![module(echo)]);
        // Not a Karmem message, and a message whose text is not UTF-8: the
        // generated handler's validation refuses both.
        let junk = [0xffu8; 24];
        let mut broken = c.encode("Msg", json!({"Text": "abcdefgh"}));
        let at = broken.windows(8).position(|w| w == b"abcdefgh").unwrap();
        broken[at] = 0xff;
        for arg in [&junk[..], &broken[..]] {
            let err = app
                .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(arg)])
                .unwrap_err();
            assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
            assert!(err.to_string().contains("argument m"), "{err}");
        }
        // A region argument that is not 8-byte aligned cannot be read in place.
        let msg = c.encode("Msg", json!({"Text": "odd"}));
        let region = app.region("e2e.shared").unwrap();
        region.write(12, &msg).unwrap();
        let slice = region.slice(12, msg.len() as u32).unwrap();
        let err = app
            .call(echo, "e2e.Echo", "peek", &[Arg::Region(slice)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{err}");

        let msg = c.encode("Msg", json!({"Text": "on purpose"}));
        let err = app
            .call(echo, "e2e.Echo", "fail", &[Arg::Bytes(&msg)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::ApplicationError), "{err}");
        assert!(err.to_string().contains("fail: on purpose"), "{err}");
        // Neither discards the instance.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&msg)])
            .unwrap();
        assert_eq!(c.decode("Msg", &bytes(&app, out))["Number"], 1);
        assert_eq!(app.stats().instances_discarded, 0);
    }
}

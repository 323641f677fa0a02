//! The guest conformance suite (docs/abi.md): every guest language's echo
//! module through every edge case of the ABI, with the same status, the
//! same message shape and the same state afterwards required from each.
//! Adding a guest language is adding one row to [`LANGS`].
//!
//! Three layers:
//! * a bare host (wasmtime and nothing of karmem-host) calls the ABI
//!   exports directly, as another host may: start-up order, descriptors,
//!   and `karmem_dispatch` with every malformed call karmem-host itself
//!   never sends (docs/abi.md §5.2's table of checks);
//! * karmem-host runs the echoes through what needs the real host: region
//!   arguments and results, writes into a read-only window by plain
//!   stores, `memory.fill` and `memory.copy`, the access each guest is told
//!   (`karmem_bind_access`), the WASI imports;
//! * a WAT caller bound to each echo misuses `call` and `take` (unknown
//!   ids, wrong counts, ranges, indices, lengths, stale results): what the
//!   host answers must not depend on the callee's language, and is what
//!   docs/abi.md §5.3 says.

mod common;

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use common::{module, runtime, Codec};
use karmem_host::{Access, App, AppBuilder, Arg, ModuleDesc, ModuleOptions, Output, Status};
use serde_json::{json, Value};
use wasmtime::{Caller, Engine, Extern, Instance, Linker, Memory, Module, Store, Val};

/// One guest language: its echo module, what its Voter answers, and the
/// WASI functions it imports (docs/abi.md §8).
struct Lang {
    echo: &'static str,
    wasi: &'static [&'static str],
}

/// What Go 1.26 wasip1 reactors import (docs/abi.md §8).
const GO_WASI: &[&str] = &[
    "args_get",
    "args_sizes_get",
    "clock_time_get",
    "environ_get",
    "environ_sizes_get",
    "fd_close",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_prestat_dir_name",
    "fd_prestat_get",
    "fd_write",
    "poll_oneoff",
    "proc_exit",
    "random_get",
    "sched_yield",
];

const LANGS: &[Lang] = &[
    Lang {
        echo: "e2e-rust-echo",
        wasi: &[],
    },
    Lang {
        echo: "e2e-go-echo",
        wasi: GO_WASI,
    },
    Lang {
        echo: "e2e-c-echo",
        wasi: &[],
    },
    Lang {
        echo: "e2e-zig-echo",
        wasi: &[],
    },
    Lang {
        echo: "e2e-as-echo",
        wasi: &[],
    },
];

/// Export function ids of the echo modules (guests/polyglot.km: `Echo` is
/// export 0, `Voter` export 1).
const ECHO: u32 = 0;
const FAIL: u32 = 2;
const NOP: u32 = 5;

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::load("guests/polyglot.km"))
}

fn msg(v: Value) -> Vec<u8> {
    codec().encode("Msg", v)
}

// ---- the bare host ----------------------------------------------------------

/// What the guest reported during one dispatch through the `karmem`
/// imports.
#[derive(Default)]
struct Reported {
    results: Vec<(u32, u32)>,
    errors: Vec<String>,
}

struct BareState {
    reported: Reported,
    started: Instant,
}

/// One instance on a bare wasmtime store: the guest's imports answer as
/// little as the ABI allows (`call` is −5, `take` −1, WASI as a minimal
/// host would), so what is tested is the guest library alone.
struct Bare {
    store: Store<BareState>,
    instance: Instance,
    memory: Memory,
    /// The exports called, in order.
    calls: Vec<&'static str>,
}

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let mut c = wasmtime::Config::new();
        c.cranelift_opt_level(wasmtime::OptLevel::None);
        Engine::new(&c).unwrap()
    })
}

/// Each echo module compiled once per test process.
fn compiled(name: &str) -> Module {
    static M: OnceLock<Mutex<std::collections::HashMap<String, Module>>> = OnceLock::new();
    let mut m = M.get_or_init(Default::default).lock().unwrap();
    m.entry(name.to_string())
        .or_insert_with(|| {
            let path = common::repo()
                .join("guests/out")
                .join(format!("{name}.wasm"));
            Module::from_file(engine(), &path)
                .unwrap_or_else(|e| panic!("{name}: {e} (run scripts/build-guests.sh)"))
        })
        .clone()
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The bare host's imports: `karmem.*` record what the guest reports, WASI
/// answers what a Go runtime needs to start.
fn linker(module: &Module) -> Linker<BareState> {
    let mut l = Linker::new(engine());
    let mut seen = BTreeSet::new();
    for import in module.imports() {
        let (m, name) = (import.module().to_string(), import.name().to_string());
        // Go imports fd_write twice: one function serves both (abi.md §8).
        if !seen.insert((m.clone(), name.clone())) {
            continue;
        }
        let Some(ty) = import.ty().func().cloned() else {
            continue;
        };
        let answer = name.clone();
        let f = move |mut c: Caller<'_, BareState>, p: &[Val], r: &mut [Val]| {
            let mem = match c.get_export("memory") {
                Some(Extern::Memory(m)) => m,
                _ => return Err(wasmtime::Error::msg("no memory")),
            };
            let i = |k: usize| p[k].unwrap_i32() as u32;
            let put = |c: &mut Caller<'_, BareState>, at: u32, b: &[u8]| {
                mem.write(c, at as usize, b).map_or(21, |()| 0)
            };
            let code: i32 = match answer.as_str() {
                "result" => {
                    c.data_mut().reported.results.push((i(0), i(1)));
                    return Ok(());
                }
                "error" => {
                    let mut b = vec![0; i(1) as usize];
                    mem.read(&c, i(0) as usize, &mut b)?;
                    let text = String::from_utf8_lossy(&b).into_owned();
                    c.data_mut().reported.errors.push(text);
                    return Ok(());
                }
                "log" | "sched_yield" => 0,
                "call" => -5,
                "take" => -1,
                "clock_time_get" => {
                    let ns = c.data().started.elapsed().as_nanos() as u64 + 1;
                    put(&mut c, i(2), &ns.to_le_bytes())
                }
                "random_get" => put(&mut c, i(0), &vec![7; i(1) as usize]),
                "args_sizes_get" | "environ_sizes_get" => {
                    put(&mut c, i(0), &[0; 4]).max(put(&mut c, i(1), &[0; 4]))
                }
                "args_get" | "environ_get" => 0,
                "fd_write" => {
                    let mut list = vec![0; 8 * i(2) as usize];
                    mem.read(&c, i(1) as usize, &mut list)?;
                    let n: u32 = list.chunks(8).map(|e| le32(e, 4)).sum();
                    put(&mut c, i(3), &n.to_le_bytes())
                }
                "fd_fdstat_get" => put(
                    &mut c,
                    i(1),
                    &[
                        2, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    ],
                ),
                "fd_prestat_get" => 8,
                "proc_exit" => return Err(wasmtime::Error::msg("proc_exit")),
                _ => 52,
            };
            if let Some(v) = r.first_mut() {
                *v = Val::I32(code);
            }
            Ok(())
        };
        l.func_new(&m, &name, ty, f).unwrap();
    }
    l
}

impl Bare {
    /// Instantiate and run the start-up sequence of docs/abi.md §2, steps
    /// 1–4, checking the order: `_initialize`, then `karmem_abi_version`
    /// (before `karmem_init`: a library answers it from a constant), then
    /// `karmem_init`. Returns the instance and its descriptor's bytes.
    fn start(name: &str) -> (Bare, Vec<u8>) {
        let module = compiled(name);
        let mut store = Store::new(
            engine(),
            BareState {
                reported: Reported::default(),
                started: Instant::now(),
            },
        );
        let instance = linker(&module)
            .instantiate(&mut store, &module)
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        let mut bare = Bare {
            store,
            instance,
            memory,
            calls: Vec::new(),
        };
        if bare
            .instance
            .get_func(&mut bare.store, "_initialize")
            .is_some()
        {
            bare.call0("_initialize");
        }
        assert_eq!(bare.call0("karmem_abi_version"), Some(1), "{name}");
        assert_eq!(bare.call0("karmem_init"), Some(0), "{name}");
        let at = bare
            .instance
            .get_typed_func::<(), i64>(&mut bare.store, "karmem_describe")
            .unwrap()
            .call(&mut bare.store, ())
            .unwrap() as u64;
        bare.calls.push("karmem_describe");
        let desc = bare.read(at as u32, (at >> 32) as u32);
        (bare, desc)
    }

    /// Call a `() -> ()` or `() -> i32` export.
    fn call0(&mut self, export: &'static str) -> Option<i32> {
        self.calls.push(export);
        let f = self.instance.get_func(&mut self.store, export).unwrap();
        let mut out = vec![Val::I32(0); f.ty(&self.store).results().len()];
        f.call(&mut self.store, &[], &mut out)
            .unwrap_or_else(|e| panic!("{export}: {e:#}"));
        out.first().map(Val::unwrap_i32)
    }

    fn read(&self, ptr: u32, len: u32) -> Vec<u8> {
        let mut b = vec![0; len as usize];
        self.memory.read(&self.store, ptr as usize, &mut b).unwrap();
        b
    }

    fn alloc(&mut self, size: u32, align: u32) -> u32 {
        let f = self
            .instance
            .get_typed_func::<(i32, i32), i32>(&mut self.store, "karmem_alloc")
            .unwrap();
        let p = f
            .call(&mut self.store, (size as i32, align as i32))
            .unwrap() as u32;
        assert_ne!(p, 0, "karmem_alloc({size}, {align})");
        p
    }

    /// Copy `bytes` into guest memory `shift` bytes past a 64-byte aligned
    /// block (0: the alignment the host uses).
    fn place(&mut self, bytes: &[u8], shift: u32) -> u32 {
        let p = self.alloc(bytes.len() as u32 + 64, 64) + shift;
        self.memory
            .write(&mut self.store, p as usize, bytes)
            .unwrap();
        p
    }

    /// `karmem_dispatch(id, array, entries.len())` with the argument array
    /// written as given (`array` false: address 0).
    fn dispatch(&mut self, id: u32, entries: &[(u32, u32)], array: bool) -> (u32, Reported) {
        let args = if array {
            let words: Vec<u8> = entries
                .iter()
                .flat_map(|&(p, l)| [p.to_le_bytes(), l.to_le_bytes()].concat())
                .collect();
            self.place(&words, 0)
        } else {
            0
        };
        self.store.data_mut().reported = Reported::default();
        let f = self
            .instance
            .get_typed_func::<(i32, i32, i32), i32>(&mut self.store, "karmem_dispatch")
            .unwrap();
        let status = f
            .call(
                &mut self.store,
                (id as i32, args as i32, entries.len() as i32),
            )
            .unwrap_or_else(|e| panic!("dispatch {id}: {e:#}")) as u32;
        (status, std::mem::take(&mut self.store.data_mut().reported))
    }
}

/// How a case's message must look (docs/abi.md §5.2).
enum Text {
    None,
    Exactly(&'static str),
    StartsWith(&'static str),
}

/// What a case sends: the argument entries, built in the instance.
type Build = fn(&mut Bare) -> (Vec<(u32, u32)>, bool);

struct Case {
    name: &'static str,
    id: u32,
    args: Build,
    status: Status,
    text: Text,
}

fn good(b: &mut Bare) -> (u32, u32) {
    let m = msg(json!({"Text": "hi", "Number": 41}));
    (b.place(&m, 0), m.len() as u32)
}

fn junk(b: &mut Bare) -> (u32, u32) {
    (b.place(&[0xff; 24], 0), 24)
}

fn truncated(b: &mut Bare) -> (u32, u32) {
    let mut m = msg(json!({"Text": "too long to fit"}));
    let keep = m.len() - 16;
    m.truncate(keep);
    m[4..8].copy_from_slice(&(keep as u32).to_le_bytes());
    (b.place(&m, 0), keep as u32)
}

fn misaligned(b: &mut Bare) -> (u32, u32) {
    let m = msg(json!({"Text": "odd"}));
    (b.place(&m, 4), m.len() as u32)
}

const UNKNOWN_INTERFACE: u32 = 7 << 16;

fn cases() -> Vec<Case> {
    use Status::*;
    vec![
        Case {
            name: "nop, no argument array",
            id: NOP,
            args: |_| (vec![], false),
            status: Ok,
            text: Text::None,
        },
        Case {
            name: "echo",
            id: ECHO,
            args: |b| (vec![good(b)], true),
            status: Ok,
            text: Text::None,
        },
        Case {
            name: "echo, absent argument",
            id: ECHO,
            args: |_| (vec![(0, 0)], true),
            status: Ok,
            text: Text::None,
        },
        Case {
            name: "too many arguments",
            id: ECHO,
            args: |b| (vec![good(b), good(b)], true),
            status: BadArgument,
            text: Text::Exactly("e2e.Echo.echo: 2 arguments for 1 parameters"),
        },
        Case {
            name: "too few arguments",
            id: ECHO,
            args: |_| (vec![], false),
            status: BadArgument,
            text: Text::Exactly("e2e.Echo.echo: 0 arguments for 1 parameters"),
        },
        Case {
            name: "an argument for a function without parameters",
            id: NOP,
            args: |b| (vec![good(b)], true),
            status: BadArgument,
            text: Text::Exactly("e2e.Echo.nop: 1 arguments for 0 parameters"),
        },
        Case {
            name: "unknown interface",
            id: UNKNOWN_INTERFACE,
            args: |_| (vec![], false),
            status: UnknownFunction,
            text: Text::Exactly("no export function 458752"),
        },
        Case {
            name: "unknown function",
            id: 99,
            args: |_| (vec![], false),
            status: UnknownFunction,
            text: Text::Exactly("no export function 99"),
        },
        Case {
            name: "unknown function of the second interface",
            id: (1 << 16) | 1,
            args: |_| (vec![], false),
            status: UnknownFunction,
            text: Text::Exactly("no export function 65537"),
        },
        Case {
            name: "unknown function before a misaligned argument",
            id: 99,
            args: |b| (vec![misaligned(b)], true),
            status: UnknownFunction,
            text: Text::Exactly("no export function 99"),
        },
        Case {
            name: "the count before a misaligned argument",
            id: ECHO,
            args: |b| (vec![misaligned(b), good(b)], true),
            status: BadArgument,
            text: Text::Exactly("e2e.Echo.echo: 2 arguments for 1 parameters"),
        },
        Case {
            name: "argument array at address 0",
            id: ECHO,
            args: |_| (vec![(0, 16)], false),
            status: BadArgument,
            text: Text::Exactly("e2e.Echo.echo: the argument array is at address 0"),
        },
        Case {
            name: "argument at address 0",
            id: ECHO,
            args: |_| (vec![(0, 16)], true),
            status: BadArgument,
            text: Text::StartsWith("e2e.Echo.echo: argument m: "),
        },
        Case {
            name: "misaligned argument",
            id: ECHO,
            args: |b| (vec![misaligned(b)], true),
            status: BadArgument,
            text: Text::StartsWith("e2e.Echo.echo: argument m: "),
        },
        Case {
            name: "junk argument",
            id: ECHO,
            args: |b| (vec![junk(b)], true),
            status: BadArgument,
            text: Text::StartsWith("e2e.Echo.echo: argument m: "),
        },
        Case {
            name: "truncated argument",
            id: ECHO,
            args: |b| (vec![truncated(b)], true),
            status: BadArgument,
            text: Text::StartsWith("e2e.Echo.echo: argument m: "),
        },
        Case {
            name: "application error",
            id: FAIL,
            args: |b| {
                let m = msg(json!({"Text": "on purpose"}));
                (vec![(b.place(&m, 0), m.len() as u32)], true)
            },
            status: ApplicationError,
            text: Text::Exactly("fail: on purpose"),
        },
    ]
}

fn status_name(code: u32) -> String {
    format!("{:?}", Status::from_dispatch(code as i32))
}

/// Every case against every language: one line per (language, case) with
/// what went wrong, so a failure shows the whole table's disagreements.
#[test]
fn every_library_makes_the_same_dispatch_checks() {
    let mut wrong = Vec::new();
    for lang in LANGS {
        let (mut bare, desc) = Bare::start(lang.echo);
        for case in cases() {
            let (entries, array) = (case.args)(&mut bare);
            let (code, rep) = bare.dispatch(case.id, &entries, array);
            let mut fail =
                |what: String| wrong.push(format!("{} / {}: {what}", lang.echo, case.name));
            if Status::from_dispatch(code as i32) != case.status {
                fail(format!(
                    "status {}, want {:?}",
                    status_name(code),
                    case.status
                ));
            }
            let ok = case.status == Status::Ok;
            // Exactly one `error` for a failure, none for success; a result
            // only for success.
            if rep.errors.len() != usize::from(!ok) || (!ok && !rep.results.is_empty()) {
                fail(format!(
                    "{} error and {} result reports: {:?}",
                    rep.errors.len(),
                    rep.results.len(),
                    rep.errors
                ));
            }
            let text = rep.errors.first().map(String::as_str).unwrap_or("");
            let shape = match case.text {
                Text::None => text.is_empty(),
                Text::Exactly(t) => text == t,
                Text::StartsWith(t) => text.starts_with(t) && text.len() > t.len(),
            };
            if !shape {
                fail(format!("message {text:?}"));
            }
            if ok && case.id == ECHO {
                let (p, l) = rep.results.last().copied().unwrap_or_default();
                let got = codec().decode("Msg", &bare.read(p, l));
                let want = if entries[0] == (0, 0) { 1 } else { 42 };
                if got["Number"] != want {
                    fail(format!("result {got}"));
                }
            }
            // The state afterwards: the same instance answers a good call.
            let (p, l) = good(&mut bare);
            let (code, rep) = bare.dispatch(ECHO, &[(p, l)], true);
            let (rp, rl) = rep.results.last().copied().unwrap_or_default();
            if code != 0 || codec().decode("Msg", &bare.read(rp, rl))["Number"] != 42 {
                fail(format!("the next echo answered {}", status_name(code)));
            }
        }
        // Start-up order, and one descriptor for every instance (abi.md §2).
        assert_eq!(
            &bare.calls[..],
            if bare.calls[0] == "_initialize" {
                &[
                    "_initialize",
                    "karmem_abi_version",
                    "karmem_init",
                    "karmem_describe",
                ][..]
            } else {
                &["karmem_abi_version", "karmem_init", "karmem_describe"][..]
            },
            "{}",
            lang.echo
        );
        let decoded = ModuleDesc::decode(&desc).unwrap_or_else(|e| panic!("{}: {e}", lang.echo));
        decoded
            .check()
            .unwrap_or_else(|e| panic!("{}: {e}", lang.echo));
        let (_, again) = Bare::start(lang.echo);
        assert_eq!(
            desc, again,
            "{}: a second instance's descriptor differs",
            lang.echo
        );
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

// ---- through karmem-host ------------------------------------------------------

fn app_with(name: &str, options: ModuleOptions) -> App {
    let mut b = AppBuilder::new(runtime());
    b.module_with(module(name), options);
    b.build().unwrap()
}

fn trusted(name: &str) -> App {
    let m = module(name);
    app_with(name, karmem_e2e::trusting(&m, ModuleOptions::default()))
}

/// Which bulk-memory writes a module contains (so the fill and copy rows
/// below are not vacuous).
fn bulk_writes(name: &str) -> Vec<&'static str> {
    let path = common::repo()
        .join("guests/out")
        .join(format!("{name}.wasm"));
    karmem_rewrite::bulk_writes(&std::fs::read(path).unwrap()).unwrap()
}

/// Region arguments and results, and writes into a read-only window by
/// every means a compiled guest has: a plain store, `memory.fill`,
/// `memory.copy` (no toolchain here emits `memory.init` for guest code;
/// the host's tests/host/isolation.rs covers it with WAT). Each fails the
/// call with READ_ONLY_VIOLATION, leaves the region unchanged, discards the
/// instance, and the next call succeeds.
#[test]
fn every_echo_fails_every_write_into_a_read_only_window() {
    for lang in LANGS {
        let bulk = bulk_writes(lang.echo);
        assert!(
            bulk.contains(&"memory.fill") && bulk.contains(&"memory.copy"),
            "{}: no memory.fill or memory.copy in the module: {bulk:?}",
            lang.echo
        );
        let app = trusted(lang.echo);
        common::stamp_and_scribble(codec(), &app, lang.echo);
        let region = app.region("e2e.shared").unwrap();
        for (k, how) in ["store", "fill", "copy"].into_iter().enumerate() {
            let m = msg(json!({"Text": how, "Number": 7}));
            region.write(64, &m).unwrap();
            let slice = region.slice(64, m.len() as u32).unwrap();
            let err = app
                .call(lang.echo, "e2e.Echo", "scribble", &[Arg::Region(slice)])
                .expect_err(&format!("{}: scribble by {how} succeeded", lang.echo));
            assert_eq!(
                err.status(),
                Some(Status::ReadOnlyViolation),
                "{}, {how}: {err}",
                lang.echo
            );
            assert_eq!(region.to_vec(slice).unwrap(), m, "{}, {how}", lang.echo);
            // stamp_and_scribble discarded one instance already.
            assert_eq!(
                app.stats().instances_discarded,
                k as u64 + 2,
                "{}",
                lang.echo
            );
            let out = app
                .call(lang.echo, "e2e.Echo", "echo", &[Arg::Bytes(&m)])
                .unwrap_or_else(|e| panic!("{}, after {how}: {e}", lang.echo));
            assert_eq!(
                codec().output("Msg", &app, out)["Number"],
                8,
                "{}",
                lang.echo
            );
        }
    }
}

/// Each guest is told its access after the host's grant
/// (`karmem_bind_access`, abi.md §2 step 5, §6): `e2e.out`, which the
/// exporter declares `write`, granted write, granted only read (the
/// downgrade a guest could not see before), and not granted (no window:
/// access none); `e2e.shared` read.
#[test]
fn every_echo_is_told_its_access() {
    let ask = |app: &App, echo: &str, region: &str| -> u64 {
        let out = app
            .call(
                echo,
                "e2e.Echo",
                "access",
                &[Arg::Bytes(&msg(json!({"Text": region})))],
            )
            .unwrap_or_else(|e| panic!("{echo}: {e}"));
        codec().output("Msg", app, out)["Number"].as_u64().unwrap()
    };
    for lang in LANGS {
        let echo = lang.echo;
        for (out_grant, want) in [(Access::ReadWrite, 2), (Access::Read, 1), (Access::None, 0)] {
            let options = ModuleOptions::default()
                .grant("e2e.shared", Access::Read)
                .grant("e2e.out", out_grant);
            let app = app_with(echo, options);
            assert_eq!(
                ask(&app, echo, "e2e.out"),
                want,
                "{echo}: e2e.out granted {out_grant:?}"
            );
            assert_eq!(ask(&app, echo, "e2e.shared"), 1, "{echo}: e2e.shared");
            assert_eq!(
                ask(&app, echo, "e2e.nowhere"),
                0,
                "{echo}: an unknown region"
            );
        }
    }
}

/// The WASI functions each language imports are the ones docs/abi.md §8
/// lists for it, and every one of them is linked (implemented or stubbed):
/// the module loads and starts.
#[test]
fn every_echo_imports_only_the_wasi_it_is_documented_to() {
    for lang in LANGS {
        let module = compiled(lang.echo);
        let wasi: BTreeSet<&str> = module
            .imports()
            .filter(|i| i.module() == "wasi_snapshot_preview1")
            .map(|i| i.name())
            .collect();
        let want: BTreeSet<&str> = lang.wasi.iter().copied().collect();
        assert_eq!(wasi, want, "{}", lang.echo);
        // Linked by the real host: an application with it starts.
        trusted(lang.echo);
    }
}

// ---- call and take, misused ------------------------------------------------------

/// The import function ids of the probe (its only import is `e2e.Echo`).
const PROBE_SEQUENCE: &str = r#"
    (local $l i32)
    ;; out at 40960; args: entries {msg, len} at 41000 and 41008, {far,
    ;; 4096} at 41016; the message at 45056; take's dst at 49152; the
    ;; answers from 53248 (the descriptor is at 4096, the heap at 64 KiB)
    (i32.store (i32.const 41000) (i32.const 45056)) (i32.store (i32.const 41004) (global.get $msg_len))
    (i32.store (i32.const 41008) (i32.const 45056)) (i32.store (i32.const 41012) (global.get $msg_len))
    (i32.store (i32.const 41016) (i32.const 0xffffff00)) (i32.store (i32.const 41020) (i32.const 4096))
    (memory.fill (i32.const 49152) (i32.const 0xaa) (i32.const 512))
    (i32.store (i32.const 53248) (call $call (i32.const 0x70000) (i32.const 0) (i32.const 0) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53252) (call $call (i32.const 99) (i32.const 0) (i32.const 0) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53256) (call $call (i32.const 0) (i32.const 41000) (i32.const 2) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53260) (call $call (i32.const 0) (i32.const 0xfffffff0) (i32.const 1) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53264) (call $call (i32.const 0) (i32.const 41000) (i32.const 1) (i32.const 0xfffffff0) (i32.const 4)))
    (i32.store (i32.const 53268) (call $call (i32.const 0) (i32.const 41016) (i32.const 1) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53272) (call $call (i32.const 0) (i32.const 41000) (i32.const 2) (i32.const 0xfffffff0) (i32.const 4)))
    ;; fail: one callee with APPLICATION_ERROR and a message to take
    (i32.store (i32.const 53276) (call $call (i32.const 2) (i32.const 41000) (i32.const 1) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53280) (i32.load (i32.const 40960)))
    (local.set $l (i32.load (i32.const 40968)))
    (i32.store (i32.const 53284) (i32.gt_u (local.get $l) (i32.const 8)))
    (i32.store (i32.const 53288) (call $take (i32.const 1) (i32.const 49152) (i32.const 256)))
    (i32.store (i32.const 53292) (call $take (i32.const 0) (i32.const 49152) (i32.const 4)))
    (i32.store (i32.const 53296) (i32.eq (i32.load8_u (i32.const 49156)) (i32.const 0xaa)))
    (i32.store (i32.const 53300) (call $take (i32.const 0) (i32.const 49152) (i32.add (local.get $l) (i32.const 16))))
    (i32.store (i32.const 53304) (i32.eq (i32.load8_u (i32.add (i32.const 49152) (local.get $l))) (i32.const 0xaa)))
    (i32.store (i32.const 53308) (call $take (i32.const 0) (i32.const 0xfffffff0) (i32.const 64)))
    (i32.store (i32.const 53312) (call $take (i32.const 0) (i32.const 49152) (local.get $l)))
    ;; nop: OK without a result; the fail message is gone
    (i32.store (i32.const 53316) (call $call (i32.const 5) (i32.const 0) (i32.const 0) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53320) (i32.or (i32.load (i32.const 40960)) (i32.load (i32.const 40968))))
    (i32.store (i32.const 53324) (call $take (i32.const 0) (i32.const 49152) (i32.const 16)))
    ;; stamp: a result in a region the caller sees; nothing to take
    (i32.store (i32.const 53328) (call $call (i32.const 3) (i32.const 41000) (i32.const 1) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53332) (i32.ne (i32.load (i32.const 40972)) (i32.const 0)))
    (i32.store (i32.const 53336) (call $take (i32.const 0) (i32.const 49152) (i32.const 16)))
    ;; echo with out_cap 0: no entry, yet the result can be taken
    (i32.store (i32.const 40960) (i32.const 0x5a5a5a5a))
    (i32.store (i32.const 53340) (call $call (i32.const 0) (i32.const 41000) (i32.const 1) (i32.const 40960) (i32.const 0)))
    (i32.store (i32.const 53344) (i32.eq (i32.load (i32.const 40960)) (i32.const 0x5a5a5a5a)))
    (i32.store (i32.const 53348) (call $take (i32.const 0) (i32.const 49152) (i32.const 256)))
    ;; a failing call drops what was pending too
    (i32.store (i32.const 53352) (call $call (i32.const 0x70000) (i32.const 0) (i32.const 0) (i32.const 40960) (i32.const 4)))
    (i32.store (i32.const 53356) (call $take (i32.const 0) (i32.const 49152) (i32.const 16)))
    (call $reply (i32.const 53248) (i32.const 112))
"#;

/// What docs/abi.md §5.3 says each step of [`PROBE_SEQUENCE`] returns.
const PROBE_WANT: [i32; 28] = [
    -1, -1, -2, -2, -3, -2, -2, // unknown ids, count, array, out, argument, count before out
    1, 3, 1, // fail: one callee, APPLICATION_ERROR, a message
    -1, 0, 1, 0, 1, -2,
    0, // take: index, short (rest untouched), long (past L untouched), range, again
    1, 0, -1, // nop: OK, no result, nothing pending
    1, 1, -1, // stamp: a region result, nothing to take
    1, 1, 0, // out_cap 0: no entry written, result pending
    -1, -1, // a failing call clears pending results
];

/// A WAT caller of `e2e.Echo` (the echo module's own interface
/// description) whose `t.Probe.run` misuses `call` and `take` and replies
/// with every return code; `t.Probe.ro` takes a message into its
/// read-only window of `e2e.out`.
fn probe(echo: &karmem_host::InterfaceDesc) -> karmem_testkit::wat_guest::Guest {
    use karmem_testkit::wat_guest::{func, iface, param, Guest};
    let run = func("run", vec![], Some(param("r", "t.Msg", None)));
    let ro = func("ro", vec![], Some(param("r", "t.Msg", None)));
    let probe = iface(
        "t.Probe",
        karmem_host::Pattern::Direct,
        vec![],
        vec![run, ro],
    );
    let m = msg(json!({"Text": "probe", "Number": 1}));
    let data: String = m.iter().map(|b| format!("\\{b:02x}")).collect();
    // e2e.out is the importer's region 1 (Memories: shared, out).
    let ro_body = "(i32.store (i32.const 41000) (i32.const 45056)) (i32.store (i32.const 41004) (global.get $msg_len))
         (drop (call $call (i32.const 2) (i32.const 41000) (i32.const 1) (i32.const 40960) (i32.const 1)))
         (drop (call $take (i32.const 0) (call $win (i32.const 1)) (i32.load (i32.const 40968))))
         (call $reply (i32.const 53248) (i32.const 4))";
    Guest::new(vec![probe], vec![echo.clone()])
        .func("t.Probe", "run", PROBE_SEQUENCE)
        .func("t.Probe", "ro", ro_body)
        .extra(&format!(
            "(data (i32.const 45056) \"{data}\") (global $msg_len i32 (i32.const {}))",
            m.len()
        ))
}

#[test]
fn call_and_take_misuse_gets_the_documented_answers_whatever_the_callee() {
    for lang in LANGS {
        let echo = module(lang.echo);
        let p = probe(&echo.descriptor().exports[0])
            .load_into(runtime(), "probe")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut b = AppBuilder::new(runtime());
        b.module_with(
            p.clone(),
            karmem_e2e::trusting(&p, ModuleOptions::default()),
        );
        b.module_with(
            echo.clone(),
            karmem_e2e::trusting(&echo, ModuleOptions::default()),
        );
        let app = b.build().unwrap();
        let out = app
            .call("probe", "t.Probe", "run", &[])
            .unwrap_or_else(|e| panic!("{}: {e}", lang.echo));
        let Output::Bytes(bytes) = out else {
            panic!("{}: {out:?}", lang.echo)
        };
        let got: Vec<i32> = bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, PROBE_WANT, "{}", lang.echo);
        // `take` into a read-only window: the host's own write is checked.
        let err = app.call("probe", "t.Probe", "ro", &[]).unwrap_err();
        assert_eq!(
            err.status(),
            Some(Status::ReadOnlyViolation),
            "{}: {err}",
            lang.echo
        );
    }
}

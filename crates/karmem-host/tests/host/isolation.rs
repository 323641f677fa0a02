//! Read-only means read-only, on every write path (docs/abi.md §6): each
//! test makes one path write into a read-only window and checks that the
//! call fails with the precise error, the region's bytes are unchanged, the
//! instance is replaced, and the host and other modules carry on.

use std::sync::Arc;

use karmem_host::{Access, App, Arg, Error, MemoryLog, ModuleOptions, Output, Pattern, Status};

use super::common::*;

const REGION: &str = "t.ro";

const WASI_IMPORTS: &str = r#"  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
"#;

/// Each victim function and the WAT that writes into the window (at
/// `$w` = window + 8).
const PATHS: &[(&str, &str)] = &[
    ("store_i32", "(i32.store (local.get $w) (i32.const 0x11223344))"),
    ("store_i64", "(i64.store (local.get $w) (i64.const 0x1122334455667788))"),
    ("store8", "(i32.store8 (local.get $w) (i32.const 0x55))"),
    ("store16", "(i32.store16 (local.get $w) (i32.const 0x5555))"),
    ("store_f32", "(f32.store (local.get $w) (f32.const 1.5))"),
    ("store_f64", "(f64.store (local.get $w) (f64.const 2.5))"),
    ("store_v128", "(v128.store (local.get $w) (v128.const i64x2 1 2))"),
    ("atomic_store", "(i32.atomic.store (local.get $w) (i32.const 5))"),
    ("atomic_rmw", "(drop (i32.atomic.rmw.add (local.get $w) (i32.const 1)))"),
    ("atomic_cmpxchg", "(drop (i32.atomic.rmw.cmpxchg (local.get $w) (i32.const 0x01010101) (i32.const 7)))"),
    ("fill", "(memory.fill (local.get $w) (i32.const 0xaa) (i32.const 16))"),
    ("copy", "(memory.copy (local.get $w) (i32.const 4096) (i32.const 16))"),
    ("init", "(memory.init $seg (local.get $w) (i32.const 0) (i32.const 4))"),
    // Starts 8 bytes below the window: nothing at all may be written.
    ("fill_straddle", "(memory.fill (i32.sub (local.get $w) (i32.const 16)) (i32.const 0xaa) (i32.const 16))"),
    // dst + len wraps around 2^32: a 32-bit check would call it "below".
    ("copy_wrap", "(memory.copy (i32.const 16) (i32.const 0) (i32.const 0xfffffff8))"),
    ("wasi_fd_read", "(drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 0) (local.get $w)))"),
    ("wasi_random", "(drop (call $random_get (local.get $w) (i32.const 16)))"),
    ("wasi_clock", "(drop (call $clock (i32.const 1) (i64.const 0) (local.get $w)))"),
    ("wasi_fd_write_count", "(i64.store (i32.const 3000) (i64.const 0x0000000400000800)) (drop (call $fd_write (i32.const 1) (i32.const 3000) (i32.const 1) (local.get $w)))"),
];

fn ro() -> karmem_host::MemoryDesc {
    memory(REGION, Access::Read, Access::Read, 1)
}

fn victim_iface() -> karmem_host::InterfaceDesc {
    let mut fns = vec![simple("ok")];
    fns.extend(PATHS.iter().map(|(n, _)| simple(n)));
    iface("t.Victim", Pattern::Direct, vec![ro()], fns)
}

fn modules() -> Vec<(&'static str, karmem_host::GuestModule)> {
    let mut victim = Guest::new(vec![victim_iface()], vec![])
        .func(
            "t.Victim",
            "ok",
            "(call $reply (i32.const 2048) (i32.const 5))",
        )
        .extra("(data (i32.const 2048) \"hello\")\n(data $seg \"abcd\")");
    victim.extra_imports = WASI_IMPORTS.into();
    for (name, write) in PATHS {
        victim = victim.func(
            "t.Victim",
            name,
            &format!("(local $w i32) (local.set $w (i32.add (call $win (i32.const 0)) (i32.const 8)))\n{write}\n(i32.const 0)"),
        );
    }
    // Imports t.Victim (read access to the region) and misuses the host's
    // writes into its own memory.
    let ok_id = 0; // import 0, function `ok`
    let caller = Guest::new(
        vec![iface("t.Caller", Pattern::Direct, vec![], vec![simple("take_into_ro"), simple("out_into_ro"), simple("relay")])],
        vec![victim_iface()],
    )
    .func(
        "t.Caller",
        "take_into_ro",
        &format!("(drop (call $call (i32.const {ok_id}) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)))\n(drop (call $take (i32.const 0) (call $win (i32.const 0)) (i32.load offset=8 (i32.const 1024))))\n(i32.const 0)"),
    )
    .func(
        "t.Caller",
        "out_into_ro",
        &format!("(drop (call $call (i32.const {ok_id}) (i32.const 0) (i32.const 0) (call $win (i32.const 0)) (i32.const 1)))\n(i32.const 0)"),
    )
    .func(
        "t.Caller",
        "relay",
        &format!("(local $len i32) (local $p i32)\n(if (i32.ne (call $call (i32.const {ok_id}) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)) (i32.const 1)) (then (unreachable)))\n(local.set $len (i32.load offset=8 (i32.const 1024)))\n(local.set $p (call $alloc (local.get $len) (i32.const 8)))\n(drop (call $take (i32.const 0) (local.get $p) (local.get $len)))\n(call $reply (local.get $p) (local.get $len))"),
    );
    // Its allocator hands the host the read-only window for arguments.
    let mut evil = Guest::new(
        vec![iface("t.Evil", Pattern::Direct, vec![ro()], vec![func("echo", vec![param("x", "t.Msg", None)], Some(param("r", "t.Msg", None)))])],
        vec![],
    )
    .func("t.Evil", "echo", "(call $reply (call $arg_ptr (local.get $args) (i32.const 0)) (call $arg_len (local.get $args) (i32.const 0)))");
    evil.alloc_prefix = "(if (i32.and (i32.eq (local.get $align) (i32.const 64)) (i32.ne (call $win (i32.const 0)) (i32.const 0))) (then (return (call $win (i32.const 0)))))".into();
    let bystander = replier("t.Other", "bye");
    vec![
        ("victim", victim.load("victim")),
        ("caller", caller.load("caller")),
        ("evil", evil.load("evil")),
        ("bystander", bystander.load("bystander")),
    ]
}

fn app() -> (App, Vec<u8>) {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    // Every module may read the region (a window is the host's grant).
    for (_, m) in modules() {
        b.module_with(m, ModuleOptions::default().grant(REGION, Access::Read));
    }
    // Recognisable initial contents.
    let contents: Vec<u8> = (0..65536u32).map(|i| (i % 251) as u8 | 1).collect();
    b.region_contents(REGION, contents);
    let app = b.build().expect("build");
    let snap = snapshot(&app, REGION);
    (app, snap)
}

/// The call failed with a read-only violation of exactly this site, the
/// region is unchanged, and everything still works afterwards.
fn assert_violation(
    app: &App,
    snap: &[u8],
    result: karmem_host::Result<Output>,
    module: &str,
    interface: &str,
    function: &str,
) {
    let err = result.expect_err("the write must fail");
    match &err {
        Error::ReadOnlyViolation { site, region, .. } => {
            assert_eq!(
                (
                    site.module.as_str(),
                    site.interface.as_str(),
                    site.function.as_str()
                ),
                (module, interface, function)
            );
            assert_eq!(region, REGION);
        }
        other => panic!("{function}: expected a read-only violation, got {other:?}"),
    }
    assert_eq!(err.status(), Some(Status::ReadOnlyViolation));
    let text = err.to_string();
    for part in [
        module,
        interface,
        function,
        "write into read-only region `t.ro`",
    ] {
        assert!(text.contains(part), "{text:?} lacks {part:?}");
    }
    assert!(
        snapshot(app, REGION) == snap,
        "{function}: the region's bytes changed"
    );
    // The host and the other modules carry on; the module gets a fresh
    // instance.
    assert_eq!(
        app.call("victim", "t.Victim", "ok", &[]).unwrap(),
        Output::Bytes(b"hello".to_vec())
    );
    assert_eq!(
        app.call("bystander", "t.Other", "ok", &[]).unwrap(),
        Output::Bytes(b"bye".to_vec())
    );
}

fn guest_path(function: &str) {
    let (app, snap) = app();
    let before = app.stats();
    let r = app.call("victim", "t.Victim", function, &[]);
    assert_violation(&app, &snap, r, "victim", "t.Victim", function);
    assert_eq!(
        app.stats().instances_discarded,
        before.instances_discarded + 1
    );
}

macro_rules! paths {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            guest_path(stringify!($name));
        }
    )*};
}

paths!(
    store_i32,
    store_i64,
    store8,
    store16,
    store_f32,
    store_f64,
    store_v128,
    atomic_store,
    atomic_rmw,
    atomic_cmpxchg,
    fill,
    copy,
    init,
    fill_straddle,
    copy_wrap,
    wasi_fd_read,
    wasi_random,
    wasi_clock,
    wasi_fd_write_count
);

#[test]
fn host_write_of_take_into_read_only() {
    let (app, snap) = app();
    let r = app.call("caller", "t.Caller", "take_into_ro", &[]);
    assert_violation(&app, &snap, r, "caller", "t.Caller", "take_into_ro");
}

#[test]
fn host_write_of_out_entries_into_read_only() {
    let (app, snap) = app();
    let r = app.call("caller", "t.Caller", "out_into_ro", &[]);
    assert_violation(&app, &snap, r, "caller", "t.Caller", "out_into_ro");
}

#[test]
fn host_write_of_argument_into_read_only() {
    let (app, snap) = app();
    let r = app.call("evil", "t.Evil", "echo", &[Arg::Bytes(b"abc")]);
    assert_violation(&app, &snap, r, "evil", "t.Evil", "echo");
}

#[test]
fn guest_to_guest_call_still_works() {
    let (app, _) = app();
    assert_eq!(
        app.call("caller", "t.Caller", "relay", &[]).unwrap(),
        Output::Bytes(b"hello".to_vec())
    );
}

#[test]
fn reading_a_read_only_window_works() {
    let (app, snap) = app();
    // memory.copy *from* the window is a read: allowed.
    let g = Guest::new(vec![iface("t.Reader", Pattern::Direct, vec![ro()], vec![simple("read")])], vec![]).func(
        "t.Reader",
        "read",
        "(memory.copy (i32.const 3000) (call $win (i32.const 0)) (i32.const 8)) (call $reply (i32.const 3000) (i32.const 8))",
    );
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        g.load("reader"),
        ModuleOptions::default().grant(REGION, Access::Read),
    );
    b.region_contents(REGION, snap[..8].to_vec());
    let app2 = b.build().unwrap();
    assert_eq!(
        app2.call("reader", "t.Reader", "read", &[]).unwrap(),
        Output::Bytes(snap[..8].to_vec())
    );
    drop(app);
}

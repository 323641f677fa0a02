//! Communication patterns (docs/abi.md §9) and shared regions.

use std::sync::Arc;

use karmem_host::{Access, Arg, Error, MemoryLog, ModuleOptions, Output, Pattern, Status};

use crate::common::*;

/// `get() -> r` replying with `text`, or trapping when `text` is None.
fn fan_member(text: Option<&str>) -> Guest {
    let g = Guest::new(
        vec![iface("t.Fan", Pattern::FanOut, vec![], vec![simple("get")])],
        vec![],
    );
    match text {
        Some(t) => g
            .func(
                "t.Fan",
                "get",
                &format!("(call $reply (i32.const 2048) (i32.const {}))", t.len()),
            )
            .extra(&format!("(data (i32.const 2048) \"{t}\")")),
        None => g.func("t.Fan", "get", "(unreachable)"),
    }
}

/// Calls its single import function 0 and replies with the `out` entries
/// followed by the taken result of callee 0.
fn hub(import: karmem_host::InterfaceDesc) -> Guest {
    Guest::new(vec![iface("t.Hub", Pattern::Direct, vec![], vec![simple("go")])], vec![import]).func(
        "t.Hub",
        "go",
        "(local $k i32) (local $len i32)
         (local.set $k (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 8)))
         (if (i32.lt_s (local.get $k) (i32.const 1)) (then (unreachable)))
         (local.set $len (i32.load (i32.const 1032)))
         (if (i32.ne (call $take (i32.const 0) (i32.const 2048) (local.get $len)) (i32.const 0)) (then (unreachable)))
         (memory.copy (i32.const 3000) (i32.const 1024) (i32.mul (local.get $k) (i32.const 16)))
         (memory.copy (i32.add (i32.const 3000) (i32.mul (local.get $k) (i32.const 16))) (i32.const 2048) (local.get $len))
         (call $reply (i32.const 3000) (i32.add (i32.mul (local.get $k) (i32.const 16)) (local.get $len)))",
    )
}

fn entries(bytes: &[u8], n: usize) -> Vec<[u32; 4]> {
    (0..n)
        .map(|k| {
            std::array::from_fn(|i| {
                u32::from_le_bytes(
                    bytes[k * 16 + i * 4..k * 16 + i * 4 + 4]
                        .try_into()
                        .unwrap(),
                )
            })
        })
        .collect()
}

#[test]
fn fan_out_one_member_traps_the_others_answer() {
    let fan = iface("t.Fan", Pattern::FanOut, vec![], vec![simple("get")]);
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(fan_member(Some("one")).load("f1"));
    b.module(fan_member(None).load("f2"));
    b.module(fan_member(Some("three")).load("f3"));
    b.module(hub(fan).load("hub"));
    let app = b.build().unwrap();

    // From a guest: three entries, the middle one TRAP with a message.
    let Output::Bytes(out) = app.call("hub", "t.Hub", "go", &[]).unwrap() else {
        panic!()
    };
    let e = entries(&out, 3);
    assert_eq!(e[0], [0, 0, 3, 0]);
    assert_eq!((e[1][0], e[1][1]), (Status::Trap as u32, 1));
    assert!(e[1][2] > 0, "the error message is pending for `take`");
    assert_eq!(e[2], [0, 2, 5, 0]);
    assert_eq!(&out[48..], b"one");

    // From the host.
    let all = app.call_all("t.Fan", "get", &[]).unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].result, Ok(Output::Bytes(b"one".to_vec())));
    assert!(matches!(&all[1].result, Err(Error::Trap { site, .. }) if site.module == "f2"));
    assert_eq!(
        (all[2].callee, all[2].result.clone()),
        (2, Ok(Output::Bytes(b"three".to_vec())))
    );
    // And again: the trapped member got a fresh instance.
    assert_eq!(
        app.call_all("t.Fan", "get", &[]).unwrap()[2].result,
        Ok(Output::Bytes(b"three".to_vec()))
    );
}

#[test]
fn a_suspended_module_is_skipped_by_fan_out_and_refused_to_the_host() {
    let fan = iface("t.Fan", Pattern::FanOut, vec![], vec![simple("get")]);
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(fan_member(Some("one")).load("f1"));
    // A member that would take its full timeout on every call.
    b.module_with(
        Guest::new(
            vec![iface("t.Fan", Pattern::FanOut, vec![], vec![simple("get")])],
            vec![],
        )
        .func("t.Fan", "get", "(loop $l (br $l)) (unreachable)")
        .load("spin"),
        ModuleOptions {
            timeout: std::time::Duration::from_secs(30),
            ..ModuleOptions::default()
        },
    );
    b.module(hub(fan).load("hub"));
    let app = b.build().unwrap();
    app.suspend("spin").unwrap();
    assert!(app.is_suspended("spin").unwrap());

    // From a guest: the suspended member keeps its entry (callee numbering
    // is stable) with status SUSPENDED and an explanation to `take`.
    let Output::Bytes(out) = app.call("hub", "t.Hub", "go", &[]).unwrap() else {
        panic!()
    };
    let e = entries(&out, 2);
    assert_eq!(e[0], [0, 0, 3, 0]);
    assert_eq!((e[1][0], e[1][1]), (Status::Suspended as u32, 1));
    assert!(e[1][2] > 0);

    // From the host: refused without running the guest.
    let all = app.call_all("t.Fan", "get", &[]).unwrap();
    assert_eq!(all[0].result, Ok(Output::Bytes(b"one".to_vec())));
    match &all[1].result {
        Err(err @ Error::Suspended { site }) => {
            assert_eq!(site.module, "spin");
            assert_eq!(err.status(), Some(Status::Suspended));
            assert!(err.to_string().contains("suspended"), "{err}");
        }
        other => panic!("{other:?}"),
    }
    assert!(app.suspend("nobody").is_err());

    app.resume("f1").unwrap();
    app.resume("spin").unwrap();
    assert!(!app.is_suspended("spin").unwrap());
}

/// `inc()`: adds 1 to a global and replies with it (4 bytes).
fn counter(pattern: Pattern) -> Guest {
    Guest::new(
        vec![iface("t.Counter", pattern, vec![], vec![simple("inc")])],
        vec![],
    )
    .func(
        "t.Counter",
        "inc",
        "(global.set $count (i32.add (global.get $count) (i32.const 1)))
             (i32.store (i32.const 2048) (global.get $count))
             (call $reply (i32.const 2048) (i32.const 4))",
    )
    .extra("(global $count (mut i32) (i32.const 0))")
}

fn user(pattern: Pattern) -> Guest {
    let counter = iface("t.Counter", pattern, vec![], vec![simple("inc")]);
    Guest::new(vec![iface("t.Use", Pattern::Direct, vec![], vec![simple("run")])], vec![counter]).func(
        "t.Use",
        "run",
        "(if (i32.ne (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)) (i32.const 1)) (then (unreachable)))
         (if (i32.load (i32.const 1024)) (then (unreachable)))
         (drop (call $take (i32.const 0) (i32.const 2048) (i32.const 4)))
         (call $reply (i32.const 2048) (i32.const 4))",
    )
}

fn count(o: Output) -> u32 {
    let Output::Bytes(b) = o else { panic!("{o:?}") };
    u32::from_le_bytes(b.try_into().unwrap())
}

#[test]
fn singleton_state_is_shared_by_every_importer_and_the_host() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(counter(Pattern::Singleton).load("counter"));
    b.module(user(Pattern::Singleton).load("a"));
    b.module(user(Pattern::Singleton).load("b"));
    let app = b.build().unwrap();
    assert_eq!(count(app.call("a", "t.Use", "run", &[]).unwrap()), 1);
    assert_eq!(count(app.call("b", "t.Use", "run", &[]).unwrap()), 2);
    assert_eq!(count(app.call("a", "t.Use", "run", &[]).unwrap()), 3);
    assert_eq!(
        count(app.call("counter", "t.Counter", "inc", &[]).unwrap()),
        4
    );
}

#[test]
fn direct_gives_each_importer_its_own_instance() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(counter(Pattern::Direct).load("dcounter"));
    b.module(user(Pattern::Direct).load("a"));
    b.module(user(Pattern::Direct).load("b"));
    let app = b.build().unwrap();
    assert_eq!(count(app.call("a", "t.Use", "run", &[]).unwrap()), 1);
    assert_eq!(count(app.call("b", "t.Use", "run", &[]).unwrap()), 1);
    assert_eq!(count(app.call("a", "t.Use", "run", &[]).unwrap()), 2);
    assert_eq!(
        count(app.call("dcounter", "t.Counter", "inc", &[]).unwrap()),
        1
    );
}

/// `slow()`: counts itself in the region, records the highest number of
/// calls running at once, sleeps 150 ms (WASI poll_oneoff), leaves.
fn worker() -> Guest {
    let stats = memory("t.stats", Access::None, Access::ReadWrite, 1);
    let mut g = Guest::new(vec![iface("t.Work", Pattern::Pool, vec![stats], vec![simple("slow")])], vec![]).func(
        "t.Work",
        "slow",
        "(local $w i32) (local $c i32) (local $m i32)
         (local.set $w (call $win (i32.const 0)))
         (local.set $c (i32.add (i32.atomic.rmw.add (local.get $w) (i32.const 1)) (i32.const 1)))
         (block $done (loop $again
           (local.set $m (i32.atomic.load offset=4 (local.get $w)))
           (br_if $done (i32.le_u (local.get $c) (local.get $m)))
           (br_if $done (i32.eq (i32.atomic.rmw.cmpxchg offset=4 (local.get $w) (local.get $m) (local.get $c)) (local.get $m)))
           (br $again)))
         (i64.store (i32.const 3000) (i64.const 0))
         (i64.store (i32.const 3008) (i64.const 0))
         (i64.store (i32.const 3016) (i64.const 1))
         (i64.store (i32.const 3024) (i64.const 150000000))
         (i64.store (i32.const 3032) (i64.const 0))
         (i64.store (i32.const 3040) (i64.const 0))
         (if (call $poll (i32.const 3000) (i32.const 3100) (i32.const 1) (i32.const 3200)) (then (unreachable)))
         (drop (i32.atomic.rmw.sub (local.get $w) (i32.const 1)))
         (i32.const 0)",
    );
    g.extra_imports =
        "(import \"wasi_snapshot_preview1\" \"poll_oneoff\" (func $poll (param i32 i32 i32 i32) (result i32)))\n".into();
    g
}

#[test]
fn pool_serves_concurrent_callers_in_parallel() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        worker().load("worker"),
        ModuleOptions {
            pool_size: Some(2),
            ..Default::default()
        }
        .grant("t.stats", Access::ReadWrite),
    );
    let app = b.build().unwrap();
    let f = app.export("worker", "t.Work", "slow").unwrap();
    std::thread::scope(|s| {
        let calls: Vec<_> = (0..4).map(|_| s.spawn(|| app.invoke(&f, &[]))).collect();
        for c in calls {
            assert_eq!(c.join().unwrap(), Ok(Output::Empty));
        }
    });
    let stats = app.region("t.stats").unwrap();
    let mut w = [0u8; 8];
    stats.read(0, &mut w).unwrap();
    let (running, max) = (
        u32::from_le_bytes(w[..4].try_into().unwrap()),
        u32::from_le_bytes(w[4..].try_into().unwrap()),
    );
    assert_eq!(running, 0);
    assert_eq!(max, 2, "two pool instances run at once, never more");
    // 2 pool instances + the warm-up instance.
    assert!(app.stats().instances_created <= 3);
}

#[test]
fn regions_are_shared_without_copies() {
    // The writer imports t.Board (read-write), the reader exports it
    // (read-only) and returns what it sees at the offset it is given.
    let api = board_api(true);
    let reader = Guest::new(vec![api.clone()], vec![]).func(
        "t.Board",
        "peek",
        // Reply with the argument itself: a region-bound result.
        "(call $reply (call $arg_ptr (local.get $args) (i32.const 0)) (call $arg_len (local.get $args) (i32.const 0)))",
    );
    // Reply with the callee's answer (a pointer into our window).
    let writer = news_poster(
        api,
        "(if (i32.load (i32.const 1024)) (then (unreachable)))
             (call $reply (i32.load (i32.const 1036)) (i32.load (i32.const 1032)))",
    );
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        reader.load("reader"),
        ModuleOptions::default().grant("t.board", Access::Read),
    );
    // Writing shared memory needs the host's grant (docs/security.md §1).
    b.module_with(
        writer.load("writer"),
        ModuleOptions::default().grant("t.board", Access::ReadWrite),
    );
    let app = b.build().unwrap();
    // The writer's result is copied out of its window (its own export's
    // result is not region-bound).
    assert_eq!(
        app.call("writer", "t.Write", "post", &[]).unwrap(),
        Output::Bytes(b"news".to_vec())
    );
    let region = app.region("t.board").unwrap();
    assert_eq!(
        region.to_vec(region.slice(100, 4).unwrap()).unwrap(),
        b"news"
    );
    // The host passes a region slice and gets one back: no copy.
    region.write(4000, b"host").unwrap();
    let slice = region.slice(4000, 4).unwrap();
    assert_eq!(
        app.call("reader", "t.Board", "peek", &[Arg::Region(slice)])
            .unwrap(),
        Output::Region(slice)
    );
    // A region slice where a copied argument is expected, and vice versa.
    assert!(matches!(
        app.call("reader", "t.Board", "peek", &[Arg::Bytes(b"x")]),
        Err(Error::BadArgument { .. })
    ));
}

/// Calls import function 0; replies with the negative return code, or the
/// status of callee 0 and (when OK) its taken result.
fn relay(
    exports: Vec<karmem_host::InterfaceDesc>,
    import: karmem_host::InterfaceDesc,
    interface: &str,
    function: &str,
) -> Guest {
    Guest::new(exports, vec![import]).func(
        interface,
        function,
        "(local $r i32) (local $len i32)
         (local.set $r (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)))
         (if (i32.lt_s (local.get $r) (i32.const 0))
           (then (i32.store (i32.const 2048) (local.get $r)) (return (call $reply (i32.const 2048) (i32.const 4)))))
         (if (i32.load (i32.const 1024))
           (then (return (call $reply (i32.const 1024) (i32.const 4)))))
         (local.set $len (i32.load (i32.const 1032)))
         (local.set $r (call $alloc (local.get $len) (i32.const 8)))
         (drop (call $take (i32.const 0) (local.get $r) (local.get $len)))
         (call $reply (local.get $r) (local.get $len))",
    )
}

fn code(o: Output) -> i32 {
    let Output::Bytes(b) = o else { panic!("{o:?}") };
    i32::from_le_bytes(b.try_into().unwrap())
}

#[test]
fn a_call_back_into_a_busy_singleton_is_refused_not_deadlocked() {
    let s = iface("t.S", Pattern::Singleton, vec![], vec![simple("go")]);
    let back = iface("t.Back", Pattern::Direct, vec![], vec![simple("go")]);
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(relay(vec![s.clone()], back.clone(), "t.S", "go").load("single"));
    b.module(relay(vec![back], s, "t.Back", "go").load("back"));
    let app = b.build().unwrap();
    assert_eq!(code(app.call("single", "t.S", "go", &[]).unwrap()), -4);
}

#[test]
fn unbounded_nesting_stops_at_the_depth_limit() {
    let ping = iface("t.Ping", Pattern::Direct, vec![], vec![simple("go")]);
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(relay(vec![ping.clone()], ping, "t.Ping", "go").load("ping"));
    let app = b.build().unwrap();
    assert_eq!(code(app.call("ping", "t.Ping", "go", &[]).unwrap()), -6);
}

#[test]
fn a_callee_timeout_is_a_status_for_the_caller() {
    let lp = iface("t.Loop", Pattern::Direct, vec![], vec![simple("spin")]);
    let looper = Guest::new(vec![lp.clone()], vec![]).func(
        "t.Loop",
        "spin",
        "(loop $l (br $l)) (i32.const 0)",
    );
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        looper.load("looper"),
        ModuleOptions {
            timeout: std::time::Duration::from_millis(50),
            ..Default::default()
        },
    );
    b.module(
        relay(
            vec![iface("t.Imp", Pattern::Direct, vec![], vec![simple("go")])],
            lp,
            "t.Imp",
            "go",
        )
        .load("impatient"),
    );
    let app = b.build().unwrap();
    assert_eq!(
        code(app.call("impatient", "t.Imp", "go", &[]).unwrap()),
        Status::Timeout as i32
    );
}

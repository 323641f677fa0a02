//! Timeouts and memory caps (docs/abi.md §7): the offending call fails
//! with TIMEOUT / MEMORY_LIMIT, the instance is replaced, everything else
//! carries on.

use std::sync::Arc;
use std::time::Duration;

use karmem_host::{Error, MemoryLog, ModuleOptions, Output, Pattern, Status};

use crate::common::*;

fn looper() -> Guest {
    Guest::new(
        vec![iface(
            "t.Loop",
            Pattern::Direct,
            vec![],
            vec![simple("spin"), simple("ok")],
        )],
        vec![],
    )
    .func("t.Loop", "spin", "(loop $l (br $l)) (i32.const 0)")
    .func(
        "t.Loop",
        "ok",
        "(call $reply (i32.const 2048) (i32.const 2))",
    )
    .extra("(data (i32.const 2048) \"ok\")")
}

fn other() -> Guest {
    replier("t.Other", "bye")
}

#[test]
fn infinite_loop_times_out_and_the_next_call_gets_a_fresh_instance() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        looper().load("looper"),
        ModuleOptions {
            timeout: Duration::from_millis(100),
            ..Default::default()
        },
    );
    b.module(other().load("other"));
    let app = b.build().unwrap();
    let before = app.stats();
    let err = app.call("looper", "t.Loop", "spin", &[]).unwrap_err();
    match &err {
        Error::Timeout { site, timeout } => {
            assert_eq!(
                (site.module.as_str(), site.function.as_str()),
                ("looper", "spin")
            );
            assert_eq!(*timeout, Duration::from_millis(100));
        }
        e => panic!("expected a timeout, got {e:?}"),
    }
    assert_eq!(err.status(), Some(Status::Timeout));
    assert!(err.to_string().contains("looper") && err.to_string().contains("t.Loop.spin"));
    assert_eq!(
        app.call("other", "t.Other", "ok", &[]).unwrap(),
        Output::Bytes(b"bye".to_vec())
    );
    assert_eq!(
        app.call("looper", "t.Loop", "ok", &[]).unwrap(),
        Output::Bytes(b"ok".to_vec())
    );
    let after = app.stats();
    assert_eq!(after.instances_discarded, before.instances_discarded + 1);
    assert_eq!(after.instances_created, before.instances_created + 1);
}

fn hog() -> Guest {
    Guest::new(
        vec![iface("t.Hog", Pattern::Direct, vec![], vec![simple("grow_until_refused"), simple("grow_softly"), simple("ok")])],
        vec![],
    )
    // Grows 1 MiB at a time; traps once growth is refused.
    .func(
        "t.Hog",
        "grow_until_refused",
        "(loop $l (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) (unreachable)",
    )
    // Asks for 100 MiB, is refused, and copes.
    .func(
        "t.Hog",
        "grow_softly",
        "(if (i32.ne (memory.grow (i32.const 1600)) (i32.const -1)) (then (unreachable))) (call $reply (i32.const 2048) (i32.const 2))",
    )
    .func("t.Hog", "ok", "(call $reply (i32.const 2048) (i32.const 2))")
    .extra("(data (i32.const 2048) \"ok\")")
}

#[test]
fn memory_cap_refuses_growth_and_fails_the_call() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        hog().load("hog"),
        ModuleOptions {
            memory_limit: 4 << 20,
            ..Default::default()
        },
    );
    b.module(other().load("other"));
    let app = b.build().unwrap();
    let err = app
        .call("hog", "t.Hog", "grow_until_refused", &[])
        .unwrap_err();
    match &err {
        Error::MemoryLimit { site, limit } => {
            assert_eq!(site.function, "grow_until_refused");
            assert_eq!(*limit, 4 << 20);
        }
        e => panic!("expected a memory limit error, got {e:?}"),
    }
    assert_eq!(err.status(), Some(Status::MemoryLimit));
    // Refused growth the guest handles is not an error.
    assert_eq!(
        app.call("hog", "t.Hog", "grow_softly", &[]).unwrap(),
        Output::Bytes(b"ok".to_vec())
    );
    assert_eq!(
        app.call("hog", "t.Hog", "ok", &[]).unwrap(),
        Output::Bytes(b"ok".to_vec())
    );
    assert_eq!(
        app.call("other", "t.Other", "ok", &[]).unwrap(),
        Output::Bytes(b"bye".to_vec())
    );
}

#[test]
fn a_trap_fails_only_its_call() {
    let g = Guest::new(
        vec![iface(
            "t.Trap",
            Pattern::Direct,
            vec![],
            vec![simple("boom"), simple("div0"), simple("oob"), simple("ok")],
        )],
        vec![],
    )
    .func("t.Trap", "boom", "(unreachable)")
    .func(
        "t.Trap",
        "div0",
        "(drop (i32.div_u (i32.const 1) (i32.const 0))) (i32.const 0)",
    )
    .func(
        "t.Trap",
        "oob",
        "(drop (i32.load (i32.const -4))) (i32.const 0)",
    )
    .func(
        "t.Trap",
        "ok",
        "(call $reply (i32.const 2048) (i32.const 2))",
    )
    .extra("(data (i32.const 2048) \"ok\")");
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(g.load("trapper"));
    let app = b.build().unwrap();
    for (f, needle) in [
        ("boom", "unreachable"),
        ("div0", "divide by zero"),
        ("oob", "out of bounds"),
    ] {
        match app.call("trapper", "t.Trap", f, &[]).unwrap_err() {
            Error::Trap { site, message } => {
                assert_eq!(site.function, f);
                assert!(message.contains(needle), "{message}");
            }
            e => panic!("{f}: expected a trap, got {e:?}"),
        }
        assert_eq!(
            app.call("trapper", "t.Trap", "ok", &[]).unwrap(),
            Output::Bytes(b"ok".to_vec())
        );
    }
}

#[test]
fn guest_error_statuses_reach_the_host() {
    let g = Guest::new(
        vec![iface(
            "t.Err",
            Pattern::Direct,
            vec![],
            vec![simple("fail"), simple("unknown")],
        )],
        vec![],
    )
    .func(
        "t.Err",
        "fail",
        "(call $error (i32.const 2048) (i32.const 7)) (i32.const 3)",
    )
    .func("t.Err", "unknown", "(i32.const 1)")
    .extra("(data (i32.const 2048) \"no luck\")");
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(g.load("failer"));
    let app = b.build().unwrap();
    let before = app.stats();
    assert_eq!(
        app.call("failer", "t.Err", "fail", &[]).unwrap_err(),
        Error::Application {
            site: karmem_host::CallSite {
                module: "failer".into(),
                interface: "t.Err".into(),
                function: "fail".into()
            },
            status: Status::ApplicationError,
            message: "no luck".into(),
        }
    );
    assert_eq!(
        app.call("failer", "t.Err", "unknown", &[])
            .unwrap_err()
            .status(),
        Some(Status::UnknownFunction)
    );
    // An application error is a normal return: the instance is kept.
    assert_eq!(app.stats().instances_discarded, before.instances_discarded);
}

#[test]
fn logs_reach_the_sink() {
    let g = Guest::new(
        vec![iface("t.Log", Pattern::Direct, vec![], vec![simple("say")])],
        vec![],
    )
    .func(
        "t.Log",
        "say",
        "(call $log (i32.const 1) (i32.const 2048) (i32.const 5))
             (i64.store (i32.const 3000) (i64.const 0x0000000600002100))
             (drop (call $fd_write (i32.const 1) (i32.const 3000) (i32.const 1) (i32.const 3100)))
             (i32.const 0)",
    )
    .extra("(data (i32.const 2048) \"hello\")\n(data (i32.const 8448) \"out\\nx\\n\")");
    let mut g = g;
    g.extra_imports = "(import \"wasi_snapshot_preview1\" \"fd_write\" (func $fd_write (param i32 i32 i32 i32) (result i32)))\n".into();
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(g.load("talker"));
    let app = b.build().unwrap();
    assert_eq!(
        app.call("talker", "t.Log", "say", &[]).unwrap(),
        Output::Empty
    );
    let lines = log.take();
    let texts: Vec<(&str, &str)> = lines
        .iter()
        .map(|(m, _, t)| (m.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        texts,
        vec![("talker", "hello"), ("talker", "out"), ("talker", "x")]
    );
    assert_eq!(lines[0].1, karmem_host::LogLevel::Warn);
}

#[test]
fn a_sleep_in_wasi_never_outlasts_the_deadline() {
    // poll_oneoff with a 10 s clock subscription and a 100 ms timeout.
    let mut g = Guest::new(
        vec![iface(
            "t.Sleep",
            Pattern::Direct,
            vec![],
            vec![simple("nap")],
        )],
        vec![],
    )
    .func(
        "t.Sleep",
        "nap",
        "(i64.store (i32.const 3000) (i64.const 0))
         (i64.store (i32.const 3008) (i64.const 0))
         (i64.store (i32.const 3016) (i64.const 1))
         (i64.store (i32.const 3024) (i64.const 10000000000))
         (i64.store (i32.const 3032) (i64.const 0))
         (i64.store (i32.const 3040) (i64.const 0))
         (drop (call $poll (i32.const 3000) (i32.const 3100) (i32.const 1) (i32.const 3200)))
         (i32.const 0)",
    );
    g.extra_imports =
        "(import \"wasi_snapshot_preview1\" \"poll_oneoff\" (func $poll (param i32 i32 i32 i32) (result i32)))\n".into();
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        g.load("sleeper"),
        ModuleOptions {
            timeout: Duration::from_millis(100),
            ..Default::default()
        },
    );
    let app = b.build().unwrap();
    let started = std::time::Instant::now();
    assert!(matches!(
        app.call("sleeper", "t.Sleep", "nap", &[]),
        Err(Error::Timeout { .. })
    ));
    // Not a timing assertion on performance: the call must not sleep 10 s.
    assert!(started.elapsed() < Duration::from_secs(5));
}

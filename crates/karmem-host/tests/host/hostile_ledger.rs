//! Hostile guests, round two: every byte the host spends for a guest is
//! charged to a named limit before it is spent (docs/security.md §2.8, the
//! ledger). Tables count against the memory limit with the linear memory;
//! region windows too, and a region nobody was granted is never created;
//! WASI lists and events are charged to the call's `host_bytes` before the
//! host builds anything; fuel bounds the instructions of a call. Each
//! attack here got through on 87a4998.

use std::sync::Arc;
use std::time::Duration;

use karmem_host::{
    Access, AppBuilder, Budget, CallBudget, Error, MemoryLog, ModuleOptions, Output, Pattern,
    Runtime, RuntimeConfig,
};

use crate::common::*;

fn mib(n: u64) -> ModuleOptions {
    ModuleOptions {
        memory_limit: n << 20,
        ..ModuleOptions::default()
    }
}

/// 100 function tables of a million entries, under a 16 MiB memory limit:
/// the limiter capped entries per table, not tables, and tables were
/// outside the memory limit (782 MiB RSS per instance). Declared that
/// large, the module cannot start; grown at run time, the growth is
/// refused and the call fails with `MEMORY_LIMIT`.
#[test]
fn tables_count_against_the_memory_limit() {
    let mut declared = String::new();
    for k in 0..100 {
        declared.push_str(&format!("(table $t{k} 1000000 funcref)\n"));
    }
    let big = Guest::new(
        vec![iface(
            "t.Tables",
            Pattern::Direct,
            vec![],
            vec![simple("go")],
        )],
        vec![],
    )
    .func("t.Tables", "go", "(i32.const 0)")
    .extra(&declared);
    match runtime().load_with("tables", big.wat().as_bytes(), &mib(16)) {
        Err(Error::Startup { step, message, .. }) => {
            assert_eq!(step, "instantiate", "{message}")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("100 tables of 1 M entries started under 16 MiB"),
    }

    // Grown and filled at run time, one table after another.
    let mut grown = String::new();
    let mut body = String::new();
    for k in 0..100 {
        grown.push_str(&format!("(table $g{k} 0 funcref)\n"));
        body.push_str(&format!(
            "(if (i32.eq (table.grow $g{k} (ref.null func) (i32.const 1000000)) (i32.const -1)) (then (unreachable)))
             (table.fill $g{k} (i32.const 0) (ref.null func) (i32.const 1000000))\n"
        ));
    }
    body.push_str("(i32.const 0)");
    let g = Guest::new(
        vec![iface(
            "t.Tables",
            Pattern::Direct,
            vec![],
            vec![simple("go")],
        )],
        vec![],
    )
    .func("t.Tables", "go", &body)
    .extra(&grown);
    let module = runtime()
        .load_with("grower", g.wat().as_bytes(), &mib(16))
        .unwrap();
    let log = Arc::new(MemoryLog::new());
    let app = builder(&log).module_with(module, mib(16)).build().unwrap();
    match app.call("grower", "t.Tables", "go", &[]) {
        Err(Error::MemoryLimit { limit, .. }) => assert_eq!(limit, 16 << 20),
        other => panic!("{other:?}"),
    }
    // Within the limit, tables work as before.
    let small = Guest::new(
        vec![iface("t.Tables", Pattern::Direct, vec![], vec![simple("go")])],
        vec![],
    )
    .func(
        "t.Tables",
        "go",
        "(if (i32.eq (table.grow $s (ref.null func) (i32.const 100000)) (i32.const -1)) (then (unreachable))) (i32.const 0)",
    )
    .extra("(table $s 0 funcref)");
    let app = builder(&log)
        .module_with(small.load("small"), mib(16))
        .build()
        .unwrap();
    app.call("small", "t.Tables", "go", &[]).unwrap();
}

/// A guest that declares a 1 GiB region of its own: nothing granted it,
/// yet the host created a 1 GiB memfd, granted `read` by default and
/// mapped it (1 040 MiB under a 16 MiB limit). Ungranted, the region is
/// now neither mapped nor created; granted, its window counts against the
/// module's memory limit, so a window larger than the limit is refused
/// before anything is mapped.
#[test]
fn a_region_the_host_did_not_grant_costs_nothing() {
    let huge = memory("t.huge", Access::Read, Access::Read, 16384);
    let g = Guest::new(
        vec![iface("t.Hog", Pattern::Direct, vec![huge], vec![simple("where")])],
        vec![],
    )
    .func(
        "t.Hog",
        "where",
        "(i32.store (i32.const 2000) (call $win (i32.const 0))) (call $reply (i32.const 2000) (i32.const 4))",
    );
    let module = runtime()
        .load_with("hog", g.wat().as_bytes(), &mib(16))
        .unwrap();
    let log = Arc::new(MemoryLog::new());

    let app = builder(&log)
        .module_with(module.clone(), mib(16))
        .build()
        .unwrap();
    assert_eq!(app.access("hog", "t.huge").unwrap(), Access::None);
    assert_eq!(app.requested_access("hog", "t.huge").unwrap(), Access::Read);
    let region = app.region("t.huge").unwrap();
    assert_eq!(region.len(), 0, "an ungranted region is not created");
    assert!(region.read(0, &mut [0u8; 1]).is_err());
    // No window: the guest's table of windows stays empty.
    assert_eq!(
        app.call("hog", "t.Hog", "where", &[]).unwrap(),
        Output::Bytes(vec![0; 4])
    );

    // Granted, the 1 GiB window does not fit a 16 MiB limit.
    match builder(&log)
        .module_with(module, mib(16).grant("t.huge", Access::Read))
        .build()
    {
        Err(Error::WindowsOverLimit {
            module,
            windows,
            limit,
        }) => assert_eq!(
            (module.as_str(), windows, limit),
            ("hog", 1 << 30, 16 << 20)
        ),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a 1 GiB window under a 16 MiB limit"),
    }
}

/// The window lies in the guest's memory and counts with it: a module
/// with a 1 MiB limit and a 512 KiB window can allocate about 512 KiB
/// more, not 1 MiB more.
#[test]
fn windows_count_against_the_memory_limit() {
    let region = memory("t.half", Access::Read, Access::Read, 8);
    let g = Guest::new(
        vec![iface("t.Half", Pattern::Direct, vec![region], vec![simple("grow")])],
        vec![],
    )
    // Grow by 8 pages (512 KiB): over the limit with the window.
    .func(
        "t.Half",
        "grow",
        "(if (i32.eq (memory.grow (i32.const 8)) (i32.const -1)) (then (unreachable))) (i32.const 0)",
    );
    let options = mib(1).grant("t.half", Access::Read);
    let module = runtime()
        .load_with("half", g.wat().as_bytes(), &options)
        .unwrap();
    let log = Arc::new(MemoryLog::new());
    let app = builder(&log).module_with(module, options).build().unwrap();
    assert_eq!(app.region("t.half").unwrap().len(), 8 << 16);
    match app.call("half", "t.Half", "grow", &[]) {
        Err(Error::MemoryLimit { .. }) => {}
        other => panic!("{other:?}"),
    }
}

fn wasi_lists(body: &str) -> Guest {
    let mut g = Guest::new(
        vec![iface("t.Wasi", Pattern::Direct, vec![], vec![simple("go")])],
        vec![],
    )
    .func("t.Wasi", "go", body);
    g.pages = 1100;
    g.extra_imports = "(import \"wasi_snapshot_preview1\" \"fd_write\" (func $fd_write (param i32 i32 i32 i32) (result i32)))
(import \"wasi_snapshot_preview1\" \"poll_oneoff\" (func $poll (param i32 i32 i32 i32) (result i32)))\n"
        .into();
    g
}

/// `poll_oneoff` with 1.4 M subscriptions under `host_bytes` = 1 MiB used
/// to succeed (162 MiB of host copies and events, uncharged); a
/// `fd_write` copied its 64 MiB iovec list before charging it. Both are
/// charged before anything is built now, and the budget stops them.
#[test]
fn wasi_lists_are_charged_before_they_are_read() {
    let budget = CallBudget {
        host_bytes: 1 << 20,
        ..CallBudget::default()
    };
    let options = ModuleOptions {
        timeout: Duration::from_secs(30),
        ..mib(128)
    };
    for (what, body) in [
        (
            "poll_oneoff",
            "(drop (call $poll (i32.const 0x100000) (i32.const 0x100000) (i32.const 1398101) (i32.const 3000))) (i32.const 0)",
        ),
        (
            "fd_write",
            "(drop (call $fd_write (i32.const 1) (i32.const 0x100000) (i32.const 8388608) (i32.const 3000))) (i32.const 0)",
        ),
    ] {
        let module = runtime()
            .load_with("lists", wasi_lists(body).wat().as_bytes(), &options)
            .unwrap();
        let log = Arc::new(MemoryLog::new());
        let mut b = builder(&log);
        b.module_with(module, options.clone()).call_budget(budget);
        let app = b.build().unwrap();
        match app.call("lists", "t.Wasi", "go", &[]) {
            Err(Error::BudgetExceeded { budget, limit, .. }) => {
                assert_eq!((budget, limit), (Budget::HostBytes, 1 << 20), "{what}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

fn fuel_runtime() -> &'static Runtime {
    static RT: std::sync::OnceLock<Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(cache_dir()),
            fuel: true,
            ..RuntimeConfig::default()
        })
        .unwrap()
    })
}

/// `t.Count.count(n)` loops `n` times (n from the first 4 bytes of its
/// argument); `t.Count.relay(n)` asks `t.Count.count` of another module
/// for the same.
fn counter() -> Guest {
    let api = iface(
        "t.Count",
        Pattern::Direct,
        vec![],
        vec![
            func(
                "count",
                vec![param("n", "t.N", None)],
                Some(param("r", "t.Msg", None)),
            ),
            func(
                "relay",
                vec![param("n", "t.N", None)],
                Some(param("r", "t.Msg", None)),
            ),
        ],
    );
    Guest::new(vec![api.clone()], vec![api])
        .func(
            "t.Count",
            "count",
            "(local $i i32) (local $count i32)
             (local.set $count (i32.load (call $arg_ptr (local.get $args) (i32.const 0))))
             (loop $l
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (local.get $count))))
             (i32.const 0)",
        )
        .func(
            "t.Count",
            "relay",
            "(i32.store (i32.const 1200) (call $arg_ptr (local.get $args) (i32.const 0)))
             (i32.store (i32.const 1204) (i32.const 4))
             (drop (call $call (i32.const 0) (i32.const 1200) (i32.const 1) (i32.const 1024) (i32.const 1)))
             (if (i32.load (i32.const 1024)) (then (unreachable)))
             (i32.const 0)",
        )
}

/// With fuel, CPU is a resource of its own: a loop that the deadline
/// would let run for seconds stops at the call's instruction budget, the
/// same budget for the whole call (a callee draws on what its caller
/// left), deterministically: a count that fits passes every time, one
/// that does not fails every time.
#[test]
fn fuel_bounds_the_instructions_of_a_call() {
    let rt = fuel_runtime();
    let options = ModuleOptions {
        timeout: Duration::from_secs(30),
        ..ModuleOptions::default()
    };
    let budget = CallBudget {
        fuel: Some(1_000_000),
        ..CallBudget::default()
    };
    let g = counter();
    let a = g.load_into(rt, "a").unwrap();
    let b_ = g.load_into(rt, "b").unwrap();
    let log = Arc::new(MemoryLog::new());
    let mut b = AppBuilder::new(rt);
    b.log_sink(log)
        .module_with(a, options.clone())
        .module_with(b_, options)
        .bind("a", "t.Count", "b")
        .bind("b", "t.Count", "a")
        .call_budget(budget);
    let app = b.build().unwrap();
    let n = |k: u32| k.to_le_bytes();
    for _ in 0..3 {
        app.call(
            "a",
            "t.Count",
            "count",
            &[karmem_host::Arg::Bytes(&n(10_000))],
        )
        .unwrap();
        match app.call(
            "a",
            "t.Count",
            "count",
            &[karmem_host::Arg::Bytes(&n(10_000_000))],
        ) {
            Err(Error::BudgetExceeded { budget, limit, .. }) => {
                assert_eq!((budget, limit), (Budget::Fuel, 1_000_000))
            }
            other => panic!("{other:?}"),
        }
        // Relayed: the callee runs out of the caller's fuel.
        app.call(
            "a",
            "t.Count",
            "relay",
            &[karmem_host::Arg::Bytes(&n(10_000))],
        )
        .unwrap();
        match app.call(
            "a",
            "t.Count",
            "relay",
            &[karmem_host::Arg::Bytes(&n(10_000_000))],
        ) {
            Err(Error::BudgetExceeded { budget, .. }) => assert_eq!(budget, Budget::Fuel),
            other => panic!("{other:?}"),
        }
    }
    // A fuel budget needs a runtime that counts fuel.
    let mut b = builder(&Arc::new(MemoryLog::new()));
    b.module(replier("t.R", "r").load("r")).call_budget(budget);
    assert!(matches!(b.build(), Err(Error::Engine(_))));
}

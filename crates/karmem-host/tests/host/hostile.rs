//! Hostile guests (docs/security.md): each test is one attack on the
//! runtime's promises — "a guest cannot write what it was given read-only",
//! "a guest never crashes the host", "the deadline covers the call", "one
//! call cannot exhaust the host" — made the way an attacker would, with the
//! outcome the promise requires. The section numbers are docs/security.md's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use karmem_host::{
    Access, AppBuilder, Arg, Budget, CallBudget, Error, LogLevel, MemoryLog, ModuleOptions, Output,
    Pattern, Status,
};

use super::common::*;

const CLOCK: &str = "(import \"wasi_snapshot_preview1\" \"clock_time_get\" (func $clock (param i32 i64 i32) (result i32)))\n";

/// `$busy(ns)`: spin on the monotonic clock for `ns` nanoseconds of wall
/// time (guest code the epoch deadline can interrupt). Needs [`CLOCK`].
const BUSY: &str = "(func $busy (param $ns i64) (local $end i64)
  (drop (call $clock (i32.const 1) (i64.const 0) (i32.const 3500)))
  (local.set $end (i64.add (i64.load (i32.const 3500)) (local.get $ns)))
  (loop $l
    (drop (call $clock (i32.const 1) (i64.const 0) (i32.const 3500)))
    (br_if $l (i64.lt_u (i64.load (i32.const 3500)) (local.get $end)))))";

fn with_timeout(ms: u64) -> ModuleOptions {
    ModuleOptions {
        timeout: Duration::from_millis(ms),
        ..Default::default()
    }
}

// §1. Guard state out of the guest's reach ---------------------------------

/// The rewrite appends the read-only range globals after the module's own;
/// a module that names them by index (invalid as written, valid after the
/// rewrite) used to switch its guard off and fault the process with a
/// `memory.fill` into its read-only window. It is refused at load now.
#[test]
fn a_module_naming_the_guard_globals_is_refused() {
    // The WAT guest defines one global ($heap, index 0): index 1 is the
    // first appended global, `__karmem_ro_start`.
    for body in [
        "(global.set 1 (i64.const 0)) (i32.const 0)",
        "(global.set 1 (i32.const 0)) (global.set 2 (i32.const 0)) (i32.const 0)",
        "(drop (global.get 2)) (i32.const 0)",
    ] {
        let g = Guest::new(
            vec![iface("t.Evil", Pattern::Direct, vec![], vec![simple("go")])],
            vec![],
        )
        .func("t.Evil", "go", body);
        match runtime().load("evil", g.wat().as_bytes()) {
            Err(Error::InvalidModule { message, .. }) => {
                assert!(
                    message.contains("not a valid WebAssembly module"),
                    "{message}"
                )
            }
            Err(e) => panic!("{body}: {e}"),
            Ok(_) => panic!("{body}: loaded"),
        }
    }
}

// §2. The read-only range at the 4 GiB edge ---------------------------------

/// A guest with a 4 GiB memory places its read-only block in the last 64
/// KiB. The range then ends at 2^32, which a 32-bit end wrapped to 0 and
/// switched the guard off; `memory.fill` into the window killed the host.
/// Under explicit bounds checks the memory ends at the reservation
/// instead ([`memory_top`]): the block then ends right at the constant
/// every compiled check compares with, and stays read-only there too.
#[test]
fn a_read_only_window_ending_at_4_gib_stays_read_only() {
    let top = memory_top();
    let region = memory("t.top", Access::Read, Access::Read, 1);
    let api = iface(
        "t.Top",
        Pattern::Direct,
        vec![region],
        vec![
            simple("fill"),
            simple("copy"),
            simple("store"),
            simple("where"),
        ],
    );
    let mut g = Guest::new(vec![api], vec![])
        .func(
            "t.Top",
            "fill",
            "(memory.fill (call $win (i32.const 0)) (i32.const 0x41) (i32.const 16)) (i32.const 0)",
        )
        .func(
            "t.Top",
            "copy",
            "(memory.copy (i32.add (call $win (i32.const 0)) (i32.const 0xfff0)) (i32.const 0) (i32.const 16)) (i32.const 0)",
        )
        .func(
            "t.Top",
            "store",
            "(i32.store (i32.add (call $win (i32.const 0)) (i32.const 0xfffc)) (i32.const 7)) (i32.const 0)",
        )
        .func(
            "t.Top",
            "where",
            "(i32.store (i32.const 2000) (call $win (i32.const 0))) (call $reply (i32.const 2000) (i32.const 4))",
        );
    // The window block goes to the very top of the largest memory.
    let (pages, block) = (top >> 16, top - 65536);
    g.alloc_prefix = format!(
        "(if (i32.eq (local.get $align) (i32.const 65536))
  (then
    (if (i32.lt_u (memory.size) (i32.const {pages}))
      (then (if (i32.eq (memory.grow (i32.sub (i32.const {pages}) (memory.size))) (i32.const -1))
        (then (return (i32.const 0))))))
    (return (i32.const {block}))))"
    );
    let options = ModuleOptions {
        memory_limit: 4 << 30,
        ..Default::default()
    }
    .grant("t.top", Access::Read);
    let module = runtime()
        .load_with("top", g.wat().as_bytes(), &options)
        .unwrap();
    let log = Arc::new(MemoryLog::new());
    let app = builder(&log).module_with(module, options).build().unwrap();
    let at = app.call("top", "t.Top", "where", &[]).unwrap();
    assert_eq!(at, Output::Bytes((block as u32).to_le_bytes().to_vec()));
    let before = snapshot(&app, "t.top");
    for f in ["fill", "copy", "store"] {
        match app.call("top", "t.Top", f, &[]) {
            Err(Error::ReadOnlyViolation { region, .. }) => assert_eq!(region, "t.top", "{f}"),
            other => panic!("{f}: {other:?}"),
        }
        assert_eq!(snapshot(&app, "t.top"), before, "{f}");
    }
}

/// Past the memory's size and up to the end of its reservation lies
/// address space a guest can name but not touch: the rest of 4 GiB under
/// guard pages; under explicit checks the rest of the reservation, which
/// the compiled check lets through and the `PROT_NONE` pages stop. A load
/// or store there traps that call and the host goes on; the memory grows
/// up to the top of the largest memory ([`memory_top`]), not past it, and
/// an access straddling the top traps.
#[test]
fn accesses_past_the_memory_trap_and_growth_stops_at_the_top() {
    let top = memory_top();
    let pages = top >> 16;
    let g = Guest::new(
        vec![iface(
            "t.Past",
            Pattern::Direct,
            vec![],
            vec![
                simple("load"),
                simple("store"),
                simple("grow_past"),
                simple("grow_to_top"),
                simple("last_word"),
                simple("straddle"),
            ],
        )],
        vec![],
    )
    .func(
        "t.Past",
        "load",
        "(drop (i32.load (i32.mul (memory.size) (i32.const 65536)))) (i32.const 0)",
    )
    .func(
        "t.Past",
        "store",
        "(i32.store (i32.add (i32.mul (memory.size) (i32.const 65536)) (i32.const 4096)) (i32.const 1)) (i32.const 0)",
    )
    .func(
        "t.Past",
        "grow_past",
        &format!(
            "(i32.store (i32.const 2000) (memory.grow (i32.sub (i32.const {}) (memory.size))))
             (call $reply (i32.const 2000) (i32.const 4))",
            pages + 1
        ),
    )
    .func(
        "t.Past",
        "grow_to_top",
        &format!(
            "(drop (memory.grow (i32.sub (i32.const {pages}) (memory.size))))
             (i32.store (i32.const 2000) (memory.size))
             (call $reply (i32.const 2000) (i32.const 4))"
        ),
    )
    .func(
        "t.Past",
        "last_word",
        &format!(
            "(drop (memory.grow (i32.sub (i32.const {pages}) (memory.size))))
             (i32.store (i32.const {at}) (i32.const 0x01020304))
             (i32.store (i32.const 2000) (i32.load (i32.const {at})))
             (call $reply (i32.const 2000) (i32.const 4))",
            at = top - 4
        ),
    )
    .func(
        "t.Past",
        "straddle",
        &format!(
            "(drop (memory.grow (i32.sub (i32.const {pages}) (memory.size))))
             (i32.store (i32.const {at}) (i32.const 1)) (i32.const 0)",
            at = top - 2
        ),
    );
    let options = ModuleOptions {
        memory_limit: 4 << 30,
        ..Default::default()
    };
    let log = Arc::new(MemoryLog::new());
    let app = builder(&log)
        .module_with(g.load("past"), options)
        .build()
        .unwrap();
    let word = |f: &str| match app.call("past", "t.Past", f, &[]).unwrap() {
        Output::Bytes(b) => i32::from_le_bytes(b[..4].try_into().unwrap()),
        other => panic!("{f}: {other:?}"),
    };
    for f in ["load", "store", "straddle"] {
        match app.call("past", "t.Past", f, &[]) {
            Err(Error::Trap { message, .. }) => {
                assert!(message.contains("out of bounds"), "{f}: {message}")
            }
            other => panic!("{f}: {other:?}"),
        }
    }
    assert_eq!(word("grow_past"), -1);
    assert_eq!(word("grow_to_top") as u64, pages);
    assert_eq!(word("last_word"), 0x01020304);
}

// §3. Access is granted by the host -----------------------------------------

fn world() -> Guest {
    Guest::new(
        vec![iface("t.World", Pattern::Singleton, vec![], vec![simple("tick")])],
        vec![bot_api()],
    )
    .func(
        "t.World",
        "tick",
        "(local $w i32)
         (local.set $w (call $win (i32.const 0)))
         (i32.store (local.get $w) (i32.const 0x64726f62))
         (i32.store (i32.const 1200) (local.get $w))
         (i32.store (i32.const 1204) (i32.const 4))
         (drop (call $call (i32.const 0) (i32.const 1200) (i32.const 1) (i32.const 1024) (i32.const 4)))
         (call $reply (i32.const 1024) (i32.const 64))",
    )
}

/// A bot that also declares an *import* of `t.Bot`, whose importer access
/// is read-write, and writes the board on every `think`.
fn double_agent() -> Guest {
    Guest::new(vec![bot_api()], vec![bot_api()]).func(
        "t.Bot",
        "think",
        "(i32.store (call $win (i32.const 0)) (i32.const 0x6e776f70)) (i32.const 0)",
    )
}

#[test]
fn declaring_both_roles_does_not_grant_write_access() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        world().load("world"),
        ModuleOptions::default().grant("t.board", Access::ReadWrite),
    );
    // Granted read, as the arena's bots are, whatever it declares.
    b.module_with(
        double_agent().load("agent"),
        ModuleOptions::default().grant("t.board", Access::Read),
    );
    let app = b.build().unwrap();
    assert_eq!(app.access("world", "t.board").unwrap(), Access::ReadWrite);
    assert_eq!(app.access("agent", "t.board").unwrap(), Access::Read);
    assert_eq!(
        app.requested_access("agent", "t.board").unwrap(),
        Access::ReadWrite
    );
    let Output::Bytes(entries) = app.call("world", "t.World", "tick", &[]).unwrap() else {
        panic!("no out entries")
    };
    // Callee 0 is the world itself (it exports nothing of t.Bot: callee 1
    // is the agent, the only exporter): its write was refused.
    let status = u32::from_le_bytes(entries[0..4].try_into().unwrap());
    assert_eq!(status, Status::ReadOnlyViolation as u32);
    assert_eq!(&snapshot(&app, "t.board")[..4], b"bord");
}

/// Write access to shared memory is always the host's explicit decision:
/// granted `read`, a module whose descriptor asks to write gets `read`.
#[test]
fn write_access_needs_a_grant() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    let read = ModuleOptions::default().grant("t.board", Access::Read);
    b.module_with(world().load("world"), read.clone());
    b.module_with(double_agent().load("agent"), read);
    let app = b.build().unwrap();
    assert_eq!(app.access("world", "t.board").unwrap(), Access::Read);
    // The world's own write now fails: it was never granted write.
    match app.call("world", "t.World", "tick", &[]) {
        Err(Error::ReadOnlyViolation { site, region, .. }) => {
            assert_eq!(
                (site.module.as_str(), region.as_str()),
                ("world", "t.board")
            )
        }
        other => panic!("{other:?}"),
    }
}

/// A grant of `None` maps no window at all: the module is not told where
/// the region is (`karmem_bind_memory` is not called).
#[test]
fn a_grant_of_none_maps_no_window() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        world().load("world"),
        ModuleOptions::default().grant("t.board", Access::ReadWrite),
    );
    let peeker = Guest::new(vec![bot_api()], vec![]).func(
        "t.Bot",
        "think",
        "(if (call $win (i32.const 0)) (then unreachable)) (i32.const 0)",
    );
    b.module_with(
        peeker.load("blind"),
        ModuleOptions::default().grant("t.board", Access::None),
    );
    let app = b.build().unwrap();
    assert_eq!(app.access("blind", "t.board").unwrap(), Access::None);
    let Output::Bytes(entries) = app.call("world", "t.World", "tick", &[]).unwrap() else {
        panic!()
    };
    // The state argument is bound to a region the callee cannot see: the
    // call is refused for that callee, not passed a dangling pointer.
    let status = u32::from_le_bytes(entries[0..4].try_into().unwrap());
    assert_eq!(status, Status::BadArgument as u32);
}

#[test]
fn grants_name_regions_that_exist() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        world().load("world"),
        ModuleOptions::default().grant("t.bored", Access::ReadWrite),
    );
    match b.build() {
        Err(Error::UnknownRegion(r)) => assert_eq!(r, "t.bored"),
        other => panic!("{:?}", other.err()),
    }
}

// §4. One deadline per top-level call ---------------------------------------

/// A chain of ten guests, each busy 150 ms and then calling the next, under
/// a 300 ms timeout: the whole chain shares the first call's deadline. It
/// used to run 1.5 s (every callee had a fresh deadline of its own).
#[test]
fn a_chain_of_nested_calls_shares_one_deadline() {
    let link = iface("t.Link", Pattern::Direct, vec![], vec![simple("go")]);
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    const N: usize = 10;
    for i in 0..N {
        let last = i == N - 1;
        let imports = if last { vec![] } else { vec![link.clone()] };
        let body = if last {
            "(call $busy (i64.const 150000000)) (i32.const 0)"
        } else {
            "(call $busy (i64.const 150000000))
             (drop (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)))
             (call $busy (i64.const 20000000))
             (i32.const 0)"
        };
        let mut g = Guest::new(vec![link.clone()], imports)
            .func("t.Link", "go", body)
            .extra(BUSY);
        g.extra_imports = CLOCK.into();
        b.module_with(g.load(&format!("link{i}")), with_timeout(300));
        if !last {
            b.bind(&format!("link{i}"), "t.Link", &format!("link{}", i + 1));
        }
    }
    let app = b.build().unwrap();
    let started = Instant::now();
    let result = app.call("link0", "t.Link", "go", &[]);
    let took = started.elapsed();
    assert!(
        matches!(result, Err(Error::Timeout { .. })),
        "{result:?} after {took:?}"
    );
    // Not a performance assertion: the chain takes 1.5 s when deadlines are
    // per callee; shared, it ends near 300 ms (plus one epoch tick).
    assert!(took < Duration::from_millis(1200), "took {took:?}");
}

/// Start-up runs under the module's own timeout: an `_initialize` that
/// never returns fails the load after the timeout, not after a fixed 10 s.
#[test]
fn start_up_is_bounded_by_the_module_timeout() {
    let g = replier("t.Init", "ok").extra("(func (export \"_initialize\") (loop $l (br $l)))");
    let started = Instant::now();
    match runtime().load_with("stuck", g.wat().as_bytes(), &with_timeout(100)) {
        Err(Error::Startup { step, message, .. }) => {
            assert_eq!(step, "_initialize");
            assert!(message.contains("timeout"), "{message}");
        }
        other => panic!("{:?}", other.err()),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Start-up runs under the module's own memory limit: a module limited to
/// 1 MiB cannot commit 3 GiB while it is being loaded.
#[test]
fn start_up_is_bounded_by_the_module_memory_limit() {
    let small = ModuleOptions {
        memory_limit: 1 << 20,
        ..Default::default()
    };
    let grower = replier("t.Grow", "ok").extra(
        "(func (export \"_initialize\") (if (i32.eq (memory.grow (i32.const 49152)) (i32.const -1)) (then unreachable)))",
    );
    match runtime().load_with("grower", grower.wat().as_bytes(), &small) {
        Err(Error::Startup { step, message, .. }) => {
            assert_eq!(step, "_initialize");
            assert!(message.contains("memory limit"), "{message}");
        }
        other => panic!("{:?}", other.err()),
    }
    // A memory declared larger than the limit cannot even be instantiated.
    let mut big = replier("t.Big", "ok");
    big.pages = 49152;
    match runtime().load_with("big", big.wat().as_bytes(), &small) {
        Err(Error::Startup { step, .. }) => assert_eq!(step, "instantiate"),
        other => panic!("{:?}", other.err()),
    }
}

/// `karmem_describe` may claim a descriptor of gigabytes; it is refused
/// before a byte is copied.
#[test]
fn an_oversized_descriptor_is_refused_before_it_is_copied() {
    // A memory as large as the claim (2 GiB under guard pages, half the
    // reservation under explicit checks), so only the size is refused.
    let claim = memory_top() / 2;
    let mut g = replier("t.Huge", "ok");
    g.pages = (claim >> 16) as u32;
    let wat = g.wat();
    let start = wat.find("(func (export \"karmem_describe\")").unwrap();
    let end = start + wat[start..].find('\n').unwrap();
    let wat = format!(
        "{}(func (export \"karmem_describe\") (result i64) (i64.const {}))\n{}",
        &wat[..start],
        claim << 32,
        &wat[end + 1..]
    );
    let options = ModuleOptions {
        memory_limit: 4 << 30,
        ..Default::default()
    };
    match runtime().load_with("huge", wat.as_bytes(), &options) {
        Err(Error::BadDescriptor { message, .. }) => {
            assert!(message.contains("at most"), "{message}")
        }
        other => panic!("{:?}", other.err()),
    }
}

// §5. Budgets per top-level call --------------------------------------------

/// Exports and imports the fan-out interface `t.Storm`; `go` fans out to
/// every exporter (itself included) and returns 0 whatever happened.
fn storm(pre: &str) -> Guest {
    let storm = iface("t.Storm", Pattern::FanOut, vec![], vec![simple("go")]);
    let mut g = Guest::new(vec![storm.clone()], vec![storm])
        .func(
            "t.Storm",
            "go",
            &format!("{pre} (drop (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 0))) (i32.const 0)"),
        )
        .extra(BUSY);
    g.extra_imports = CLOCK.into();
    g
}

/// Two modules that import and export a fan-out interface: one call used to
/// create instances until `mmap` failed (~21 800), after which no module
/// could get an instance. The instance budget stops it, the call fails
/// with a clear error, and a bystander still answers.
#[test]
fn a_fan_out_storm_stops_at_the_instance_budget_and_a_bystander_answers() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(storm("").load("a"));
    b.module(storm("").load("b"));
    b.module(replier("t.Other", "still here").load("bystander"));
    b.call_budget(CallBudget {
        instances: 40,
        ..CallBudget::default()
    });
    let app = b.build().unwrap();
    let before = app.stats().instances_created;
    for _ in 0..3 {
        match app.call("a", "t.Storm", "go", &[]) {
            Err(Error::BudgetExceeded { budget, limit, .. }) => {
                assert_eq!((budget, limit), (Budget::Instances, 40))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            app.call("bystander", "t.Other", "ok", &[]).unwrap(),
            Output::Bytes(b"still here".to_vec())
        );
    }
    // Every call may create at most 40 instances.
    assert!(app.stats().instances_created - before <= 3 * 40);
}

/// Each module may have at most `max_instances` instances at once, so
/// instances kept by earlier calls cannot pile up across calls either.
#[test]
fn instances_of_a_module_are_capped_across_calls() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    let capped = ModuleOptions {
        max_instances: 6,
        ..Default::default()
    };
    b.module_with(storm("").load("a"), capped.clone());
    b.module_with(storm("").load("b"), capped);
    let app = b.build().unwrap();
    for _ in 0..4 {
        match app.call("a", "t.Storm", "go", &[]) {
            Err(Error::BudgetExceeded { budget, limit, .. }) => {
                assert_eq!((budget, limit), (Budget::ModuleInstances, 6))
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(app.stats().instances_live <= 12, "{:?}", app.stats());
}

/// A fan-out whose members call the fan-out again, each busy 30 ms, under a
/// 300 ms timeout: with three members one call used to run for 37 s. The
/// whole tree shares the first call's deadline.
#[test]
fn a_recursive_fan_out_ends_at_the_top_level_deadline() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    for name in ["x", "y", "z"] {
        b.module_with(
            storm("(call $busy (i64.const 30000000))").load(name),
            with_timeout(300),
        );
    }
    b.call_budget(CallBudget {
        instances: 100_000,
        calls: 1_000_000,
        ..CallBudget::default()
    });
    let app = b.build().unwrap();
    let started = Instant::now();
    let result = app.call("x", "t.Storm", "go", &[]);
    // `TIMEOUT`, or `OK` when the tree unwound within the epoch tick the
    // deadline allows: members whose turn came after the deadline are
    // reported `TIMEOUT` to their callers without being entered, and the
    // storm ignores its callees' statuses.
    assert!(
        matches!(result, Err(Error::Timeout { .. }) | Ok(_)),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// Every guest→guest call counts against the top-level call's budget of
/// nested calls.
#[test]
fn nested_calls_are_counted() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(storm("").load("a"));
    b.call_budget(CallBudget {
        calls: 20,
        ..CallBudget::default()
    });
    let app = b.build().unwrap();
    match app.call("a", "t.Storm", "go", &[]) {
        // One module fanning out to itself: a chain, stopped by the depth
        // limit (32) unless the call budget is smaller.
        Err(Error::BudgetExceeded { budget, limit, .. }) => {
            assert_eq!((budget, limit), (Budget::Calls, 20))
        }
        other => panic!("{other:?}"),
    }
}

/// `fd_write` with 1 024 iovecs all pointing at one 8 MiB buffer asked the
/// host to gather 8 GiB (it aborted the process). Output is now streamed
/// line by line and every byte the host looks at is charged to the call.
#[test]
fn wasi_output_is_streamed_and_charged() {
    let mut g = Guest::new(
        vec![iface("t.Out", Pattern::Direct, vec![], vec![simple("flood"), simple("hello")])],
        vec![],
    )
    .func(
        "t.Out",
        "flood",
        "(local $i i32)
         (loop $l
           (i32.store (i32.add (i32.const 0x100000) (i32.shl (local.get $i) (i32.const 3))) (i32.const 0x200000))
           (i32.store offset=4 (i32.add (i32.const 0x100000) (i32.shl (local.get $i) (i32.const 3))) (i32.const 0x800000))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $l (i32.lt_u (local.get $i) (i32.const 1024))))
         (drop (call $fd_write (i32.const 1) (i32.const 0x100000) (i32.const 1024) (i32.const 3000)))
         (i32.const 0)",
    )
    .func(
        "t.Out",
        "hello",
        "(i32.store (i32.const 3000) (i32.const 2048)) (i32.store (i32.const 3004) (i32.const 12))
         (drop (call $fd_write (i32.const 1) (i32.const 3000) (i32.const 1) (i32.const 3100)))
         (i32.const 0)",
    )
    .extra("(data (i32.const 2048) \"hello\\nworld\\n\")");
    g.pages = 200;
    g.extra_imports = "(import \"wasi_snapshot_preview1\" \"fd_write\" (func $fd_write (param i32 i32 i32 i32) (result i32)))\n".into();
    let log = Arc::new(MemoryLog::new());
    // Time enough to reach the budget (the scan keeps to the deadline: a
    // debug build reads the 256 MiB slowly).
    let app = builder(&log)
        .module_with(g.load("flood"), with_timeout(60_000))
        .build()
        .unwrap();
    match app.call("flood", "t.Out", "flood", &[]) {
        Err(Error::BudgetExceeded { budget, .. }) => assert_eq!(budget, Budget::HostBytes),
        other => panic!("{other:?}"),
    }
    // Whatever reached the log before the budget ran out is in lines of at
    // most 4 KiB of guest bytes (each zero byte shown as `\x00`).
    let flood = log.take();
    assert!(!flood.is_empty());
    assert!(flood.iter().all(|(_, _, m)| m.len() <= 4 * 4096));
    app.call("flood", "t.Out", "hello", &[]).unwrap();
    let lines: Vec<String> = log.take().into_iter().map(|l| l.2).collect();
    assert_eq!(lines, ["hello", "world"]);
}

/// A guest's log line cannot start a line of its own or drive the
/// terminal: control characters (newlines, ESC, BEL, ...) and bidi
/// overrides reach the sink escaped, so every line a sink prints starts
/// with the module's own name.
#[test]
fn guest_log_lines_are_sanitised() {
    let g = Guest::new(
        vec![iface("t.Say", Pattern::Direct, vec![], vec![simple("say")])],
        vec![],
    )
    .func(
        "t.Say",
        "say",
        "(call $log (i32.const 2) (i32.const 2048) (i32.const 31)) (i32.const 0)",
    )
    .extra("(data (i32.const 2048) \"ok\\n[host] error: pwned\\1b[2J\\07\\e2\\80\\ae!\")");
    let log = Arc::new(MemoryLog::new());
    let app = builder(&log).module(g.load("talker")).build().unwrap();
    app.call("talker", "t.Say", "say", &[]).unwrap();
    let lines = log.take();
    assert_eq!(lines.len(), 1);
    let (module, level, message) = &lines[0];
    assert_eq!((module.as_str(), *level), ("talker", LogLevel::Info));
    assert_eq!(message, "ok\\n[host] error: pwned\\x1b[2J\\x07\\u{202e}!");
}

/// The host copies results out of guests; a result of gigabytes is
/// refused instead of copied.
#[test]
fn a_huge_result_is_charged_before_it_is_copied() {
    let mut g = Guest::new(
        vec![iface("t.Big", Pattern::Direct, vec![], vec![simple("big")])],
        vec![],
    )
    .func(
        "t.Big",
        "big",
        "(call $reply (i32.const 0) (i32.const 0x4000000))",
    );
    g.pages = 1100;
    let options = ModuleOptions {
        memory_limit: 128 << 20,
        ..Default::default()
    };
    let module = runtime()
        .load_with("big", g.wat().as_bytes(), &options)
        .unwrap();
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(module, options);
    b.call_budget(CallBudget {
        host_bytes: 16 << 20,
        ..CallBudget::default()
    });
    let app = b.build().unwrap();
    match app.call("big", "t.Big", "big", &[]) {
        Err(Error::BudgetExceeded { budget, limit, .. }) => {
            assert_eq!((budget, limit), (Budget::HostBytes, 16 << 20))
        }
        other => panic!("{other:?}"),
    }
}

/// Budgets are per top-level call: a call after an exhausted one starts
/// from zero.
#[test]
fn budgets_start_afresh_with_each_top_level_call() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(replier("t.Ok", "ok").load("ok"));
    b.call_budget(CallBudget {
        host_bytes: 2,
        ..CallBudget::default()
    });
    let app = b.build().unwrap();
    for _ in 0..3 {
        assert_eq!(
            app.call("ok", "t.Ok", "ok", &[Arg::Empty; 0]).unwrap(),
            Output::Bytes(b"ok".to_vec())
        );
    }
}

// §6. The module cache ------------------------------------------------------

fn cached_runtime(dir: &std::path::Path) -> karmem_host::Runtime {
    karmem_host::Runtime::new(karmem_host::RuntimeConfig {
        cache_dir: Some(dir.to_path_buf()),
        bounds_checks: BOUNDS,
        ..Default::default()
    })
    .unwrap()
}

/// Where a fresh runtime on cache `dir` gets module `wat` from.
fn outcome(dir: &std::path::Path, name: &str, wat: &str) -> karmem_host::CacheOutcome {
    cached_runtime(dir)
        .load(name, wat.as_bytes())
        .unwrap()
        .cache_outcome()
}

fn entries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    v.sort();
    v
}

/// An entry owned by someone else, or one others may write, is not loaded
/// (it is recompiled and replaced): whoever can plant machine code in the
/// cache must not get it run by this user.
#[test]
fn planted_cache_entries_are_not_loaded() {
    use karmem_host::CacheOutcome;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let wat = replier("t.Plant", "ok").wat();
    assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Miss);
    let entry = entries(dir.path()).remove(0);
    std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Replaced);
    // Giving a file away needs root (CI and this machine run as root).
    match std::os::unix::fs::chown(&entry, Some(65534), Some(65534)) {
        Ok(()) => assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Replaced),
        Err(e) => eprintln!("skipped the other-owner case: chown failed ({e})"),
    }
    // A symbolic link is not followed.
    let elsewhere = dir.path().join("elsewhere.bin");
    std::fs::rename(&entry, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &entry).unwrap();
    assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Replaced);
}

/// Something that is not a file of ours planted under an entry's name — a
/// directory at the artifact's, the sidecar's or the secret's path — made
/// every later run fail (exit 3) instead of compiling again. It is a miss
/// now: removed and replaced, or, where it cannot be, the module runs from
/// memory.
#[test]
fn a_directory_planted_under_an_entry_is_replaced() {
    use karmem_host::CacheOutcome;
    let dir = tempfile::tempdir().unwrap();
    let wat = replier("t.Dir", "ok").wat();
    assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Miss);
    let entry = entries(dir.path()).remove(0);
    for path in [
        entry.clone(),
        entry.with_extension("meta"),
        dir.path().join(".secret"),
    ] {
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(path.join("inside")).unwrap();
        let rt = cached_runtime(dir.path());
        let m = rt.load("m", wat.as_bytes()).unwrap();
        assert_ne!(m.cache_outcome(), CacheOutcome::Hit, "{}", path.display());
        let app = AppBuilder::new(&rt).module(m).build().unwrap();
        assert_eq!(
            app.call("m", "t.Dir", "ok", &[]).unwrap(),
            Output::Bytes(b"ok".to_vec())
        );
        assert!(path.is_file(), "{} was not replaced", path.display());
        assert_eq!(outcome(dir.path(), "m", &wat), CacheOutcome::Hit);
    }
}

/// One module's artifact and sidecar copied under another module's key:
/// the sidecar names its own key and module digest, so the swap is seen and
/// the right module is compiled and run.
#[test]
fn a_swapped_cache_entry_is_detected() {
    use karmem_host::CacheOutcome;
    let dir = tempfile::tempdir().unwrap();
    let a = replier("t.Swap", "from a").wat();
    let b_wat = replier("t.Swap", "from b").wat();
    let rt = cached_runtime(dir.path());
    rt.load("a", a.as_bytes()).unwrap();
    rt.load("b", b_wat.as_bytes()).unwrap();
    let before = entries(dir.path());
    assert_eq!(before.len(), 2);
    // Find which entry is b's: the newer one.
    let b_entry = before
        .iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .unwrap()
        .clone();
    let a_entry = before.iter().find(|p| **p != b_entry).unwrap().clone();
    for ext in ["cwasm", "meta"] {
        std::fs::copy(a_entry.with_extension(ext), b_entry.with_extension(ext)).unwrap();
    }
    let rt = cached_runtime(dir.path());
    let b = rt.load("b", b_wat.as_bytes()).unwrap();
    assert_eq!(b.cache_outcome(), CacheOutcome::Replaced);
    let app = AppBuilder::new(&rt).module(b).build().unwrap();
    assert_eq!(
        app.call("b", "t.Swap", "ok", &[]).unwrap(),
        Output::Bytes(b"from b".to_vec())
    );
    // A sidecar whose authentication code does not match is refused too.
    let meta = b_entry.with_extension("meta");
    let text = std::fs::read_to_string(&meta).unwrap();
    let forged: String = text
        .lines()
        .map(|l| {
            if l.starts_with("mac ") {
                format!("mac {}", "0".repeat(64))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&meta, forged + "\n").unwrap();
    assert_eq!(outcome(dir.path(), "b", &b_wat), CacheOutcome::Replaced);
}

// §2 again: the injected guard against the rule, on random ranges ---------

/// The wasm the rewrite injects, run on random read-only ranges and writes
/// up to the 4 GiB edge, traps before writing exactly when
/// `karmem_rewrite::read_only_overlap` says a write would touch the range,
/// and records the same first offset. (A fill the guard lets through may
/// still trap for being outside the 64 KiB memory: that is no guard fault.)
#[test]
fn guard_code_agrees_with_the_rule() {
    use proptest::prelude::*;
    use wasmtime::{Engine, Instance, Module, Store, Val};

    let wasm = wat::parse_str(
        r#"(module (memory (export "memory") 1)
             (func (export "fill") (param i32 i32 i32)
               (memory.fill (local.get 0) (local.get 1) (local.get 2))))"#,
    )
    .unwrap();
    let (out, _) = karmem_rewrite::rewrite(&wasm).unwrap();
    let engine = Engine::default();
    let module = Module::new(&engine, &out).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    // proptest's runner takes an `Fn`: the store goes behind a RefCell.
    let fill = instance
        .get_typed_func::<(i32, i32, i32), ()>(&mut store, "fill")
        .unwrap();
    let global = |store: &mut Store<()>, name| instance.get_global(&mut *store, name).unwrap();
    let (start, end, fault) = (
        global(&mut store, karmem_rewrite::RO_START),
        global(&mut store, karmem_rewrite::RO_END),
        global(&mut store, karmem_rewrite::RO_FAULT),
    );
    let store = std::cell::RefCell::new(store);
    let top = 1u64 << 32;
    let edge = prop_oneof![0..=top, (top - 0x2_0000)..=top, Just(top), Just(0u64)];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2000));
    runner
        .run(
            &(
                edge.clone(),
                0u64..=0x2_0000,
                // Where the write starts: anywhere, or a few bytes either side of
                // one of the range's edges, where an off-by-one in the guard
                // (`>=` for `>`) would show.
                (0u8..3, -4i64..=4, any::<u32>()),
                prop_oneof![0..=0x2_0000u32, any::<u32>(), 1u32..=4],
            ),
            |(ro_start, ro_len, (anchor, delta, anywhere), len)| {
                let mut store = store.borrow_mut();
                let store = &mut *store;
                let ro_end = (ro_start + ro_len).min(top);
                let near = |edge: u64| (edge as i64 + delta).clamp(0, u32::MAX as i64) as u32;
                let dst = match anchor {
                    0 => anywhere,
                    1 => near(ro_start),
                    _ => near(ro_end),
                };
                start.set(&mut *store, Val::I64(ro_start as i64)).unwrap();
                end.set(&mut *store, Val::I64(ro_end as i64)).unwrap();
                fault.set(&mut *store, Val::I64(0)).unwrap();
                let _ = fill.call(&mut *store, (dst as i32, 0, len as i32));
                let got = match fault.get(&mut *store) {
                    Val::I64(0) => None,
                    Val::I64(v) => Some(v as u64 - 1),
                    v => panic!("{v:?}"),
                };
                let want = karmem_rewrite::read_only_overlap(ro_start..ro_end, dst, len);
                prop_assert_eq!(
                    got,
                    want,
                    "range {:#x}..{:#x}, write {:#x}+{:#x}",
                    ro_start,
                    ro_end,
                    dst,
                    len
                );
                Ok(())
            },
        )
        .unwrap();
}

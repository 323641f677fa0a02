//! Instances from a pool of memory slots (`Instances::Pooled`, RATIONALE
//! R8.22). `isolation` and `hostile` run again with a pooled runtime
//! (main.rs: the same files, this module's own copy of `common`), and the
//! tests below try what only a pool can get wrong: a slot's next instance
//! seeing the region a window of its previous instance showed, a slot left
//! read-only, and a pool that is full.

use karmem_host::{
    Access, AppBuilder, Arg, BoundsChecks, Error, Instances, ModuleOptions, Output, Pattern,
    Runtime, RuntimeConfig,
};

use self::common::{func, iface, memory, param, Guest};

/// The runtime of this copy of `isolation` and `hostile`: guard pages, and
/// enough slots for every test of the two files alive at once.
const BOUNDS: BoundsChecks = BoundsChecks::GuardPages;
const INSTANCES: Instances = Instances::pooled(512);

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "common.rs"]
mod common;
#[allow(clippy::duplicate_mod)]
#[path = "hostile.rs"]
mod hostile;
#[allow(clippy::duplicate_mod)]
#[path = "isolation.rs"]
mod isolation;

const REGION: &str = "t.secret";
const SECRET: &[u8; 8] = b"SECRET!!";
/// Where in the region the secret is: past what the next instance's own
/// allocations (its argument blocks) take at the start of the window's
/// former place.
const AT: u32 = 4096;

/// The guest address `AT` bytes into the window at `window`.
fn inside(window: &[u8]) -> [u8; 4] {
    (u32::from_le_bytes(window.try_into().unwrap()) + AT).to_le_bytes()
}

/// Declares a one-page region the guest may read. `at` replies with the
/// region's window address (0 when the region is not granted); `peek`
/// grows memory until the address in its argument is inside, then replies
/// with the 8 bytes there; `poke` writes 8 bytes of 0x77 there.
fn peeker() -> Guest {
    let reach = "(local $a i32)
        (local.set $a (i32.load (call $arg_ptr (local.get $args) (i32.const 0))))
        (block $done (loop $grow
            (br_if $done (i32.gt_u (i32.mul (memory.size) (i32.const 65536)) (i32.add (local.get $a) (i32.const 8))))
            (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
            (br $grow)))";
    Guest::new(
        vec![iface(
            "t.Peek",
            Pattern::Direct,
            vec![memory(REGION, Access::ReadWrite, Access::Read, 1)],
            vec![
                func("at", vec![], Some(param("r", "t.Msg", None))),
                func("peek", vec![param("addr", "t.Msg", None)], Some(param("r", "t.Msg", None))),
                func("poke", vec![param("addr", "t.Msg", None)], None),
            ],
        )],
        vec![],
    )
    .func(
        "t.Peek",
        "at",
        "(i32.store (i32.const 1024) (call $win (i32.const 0))) (call $reply (i32.const 1024) (i32.const 4))",
    )
    .func(
        "t.Peek",
        "peek",
        &format!("{reach} (call $reply (local.get $a) (i32.const 8))"),
    )
    .func(
        "t.Peek",
        "poke",
        &format!("{reach} (i64.store (local.get $a) (i64.const 0x7777777777777777)) (i32.const 0)"),
    )
}

fn pool(slots: u32) -> Runtime {
    pool_keeping(slots, 1 << 20)
}

/// A pool whose slots keep `keep_resident` bytes resident: reset with
/// `memset` up to that much, the rest handed back to the kernel.
fn pool_keeping(slots: u32, keep_resident: u32) -> Runtime {
    Runtime::new(RuntimeConfig {
        cache_dir: Some(common::cache_dir()),
        instances: Instances::Pooled {
            slots,
            keep_resident,
        },
        ..RuntimeConfig::default()
    })
    .expect("pooled runtime")
}

fn bytes(out: Output) -> Vec<u8> {
    match out {
        Output::Bytes(b) => b,
        other => panic!("expected bytes, got {other:?}"),
    }
}

/// One slot, so every instance reuses the previous one's memory. The first
/// maps the region read-only into it; the next, with no window, reads and
/// writes the same addresses: zeros, writable, and its writes never reach
/// the region. A third maps the window again and sees the region. Both
/// ways a slot is reset: pages zeroed in place, and pages handed back.
#[test]
fn a_reused_slot_shows_nothing_of_the_previous_instances_window() {
    reused_slot(pool(1));
    reused_slot(pool_keeping(1, 0));
}

fn reused_slot(rt: Runtime) {
    let module = peeker().load_into(&rt, "p").expect("load");
    let granted = || {
        AppBuilder::new(&rt)
            .module_with(
                module.clone(),
                ModuleOptions::default().grant(REGION, Access::Read),
            )
            .build()
            .expect("build with the window")
    };
    let window = {
        let app = granted();
        app.region(REGION).unwrap().write(AT, SECRET).unwrap();
        let at = bytes(app.call("p", "t.Peek", "at", &[]).unwrap());
        assert_ne!(at, [0; 4], "the window has an address");
        let secret = inside(&at);
        let seen = bytes(
            app.call("p", "t.Peek", "peek", &[Arg::Bytes(&secret)])
                .unwrap(),
        );
        assert_eq!(
            seen, SECRET,
            "the guest reads the region through its window"
        );
        secret
    };
    {
        let app = AppBuilder::new(&rt)
            .module(module.clone())
            .build()
            .expect("build without the window, in the same slot");
        assert_eq!(bytes(app.call("p", "t.Peek", "at", &[]).unwrap()), [0; 4]);
        let seen = bytes(
            app.call("p", "t.Peek", "peek", &[Arg::Bytes(&window)])
                .unwrap(),
        );
        assert_eq!(
            seen, [0; 8],
            "the slot's next instance reads zeros where the window was"
        );
        app.call("p", "t.Peek", "poke", &[Arg::Bytes(&window)])
            .expect("where the read-only window was is the next instance's own writable memory");
        let seen = bytes(
            app.call("p", "t.Peek", "peek", &[Arg::Bytes(&window)])
                .unwrap(),
        );
        assert_eq!(seen, [0x77; 8]);
    }
    let app = granted();
    app.region(REGION).unwrap().write(AT, b"again!!!").unwrap();
    let at = inside(&bytes(app.call("p", "t.Peek", "at", &[]).unwrap()));
    let seen = bytes(app.call("p", "t.Peek", "peek", &[Arg::Bytes(&at)]).unwrap());
    assert_eq!(
        seen, b"again!!!",
        "the window is mapped again in the reused slot"
    );
}

/// A store into the read-only window traps the call and the instance is
/// replaced from the pool, whose only slot is the failed instance's:
/// the slot is freed and reset (windows put back first) before it is
/// taken again.
#[test]
fn an_instance_replaced_after_a_trap_reuses_its_slot() {
    let rt = pool(1);
    let module = peeker().load_into(&rt, "p").expect("load");
    let app = AppBuilder::new(&rt)
        .module_with(module, ModuleOptions::default().grant(REGION, Access::Read))
        .build()
        .expect("build");
    app.region(REGION).unwrap().write(AT, SECRET).unwrap();
    let at = inside(&bytes(app.call("p", "t.Peek", "at", &[]).unwrap()));
    for _ in 0..3 {
        let err = app
            .call("p", "t.Peek", "poke", &[Arg::Bytes(&at)])
            .expect_err("a store into a read-only window");
        assert!(err.to_string().contains("read-only"), "{err}");
        let seen = bytes(app.call("p", "t.Peek", "peek", &[Arg::Bytes(&at)]).unwrap());
        assert_eq!(
            seen, SECRET,
            "the region is unchanged, the window mapped again"
        );
    }
}

/// More live instances than slots: the one too many is refused with an
/// error naming the limit, and a slot freed is taken again.
#[test]
fn a_full_pool_refuses_the_next_instance_and_recovers() {
    let rt = pool(2);
    let module = peeker().load_into(&rt, "p").expect("load");
    let build = || AppBuilder::new(&rt).module(module.clone()).build();
    let a = build().expect("first slot");
    let b = build().expect("second slot");
    let err = match build() {
        Err(e) => e,
        Ok(_) => panic!("a third instance in a pool of 2"),
    };
    assert!(
        matches!(&err, Error::Startup { step, message, .. } if step == "instantiate" && message.contains("limit")),
        "{err:?}"
    );
    drop(a);
    let c = build().expect("a freed slot is taken again");
    drop((b, c));
}

#[test]
fn a_pool_of_no_slots_is_refused() {
    let err = Runtime::new(RuntimeConfig {
        cache_dir: None,
        instances: Instances::pooled(0),
        ..RuntimeConfig::default()
    })
    .err()
    .expect("0 slots");
    assert!(err.to_string().contains("at least 1"), "{err}");
}

/// A slot's table holds at most 20 000 elements (docs/abi.md §7): a
/// module whose table starts larger is refused when it is loaded, by name
/// and with the reason, and the pool is not disturbed.
#[test]
fn a_table_larger_than_a_slot_is_refused_at_load() {
    let rt = pool(2);
    let err = peeker()
        .extra("(table 30000 funcref)")
        .load_into(&rt, "big")
        .err()
        .expect("a 30 000-element table in a 20 000-element slot");
    assert!(
        matches!(&err, Error::InvalidModule { module, message }
            if module == "big" && message.contains("30000 elements") && message.contains("20000")),
        "{err:?}"
    );
    let ok = peeker().load_into(&rt, "p").expect("load");
    AppBuilder::new(&rt)
        .module(ok)
        .build()
        .expect("the pool still serves");
}

/// Under explicit bounds checks a slot is the reservation: a module whose
/// memory starts larger is refused when it is loaded, by name.
#[test]
fn a_memory_larger_than_a_slot_is_refused_at_load() {
    let rt = Runtime::new(RuntimeConfig {
        cache_dir: Some(common::cache_dir()),
        bounds_checks: BoundsChecks::Explicit {
            reservation: 1 << 20,
        },
        instances: Instances::pooled(2),
        ..RuntimeConfig::default()
    })
    .expect("pooled runtime with 1 MiB slots");
    let mut big = peeker();
    big.pages = 32;
    let err = big
        .load_into(&rt, "big")
        .err()
        .expect("a 2 MiB memory in a 1 MiB slot");
    assert!(
        matches!(&err, Error::InvalidModule { module, message }
            if module == "big" && message.contains("32 pages") && message.contains("1048576 bytes")),
        "{err:?}"
    );
    let ok = peeker().load_into(&rt, "p").expect("load");
    AppBuilder::new(&rt)
        .module(ok)
        .build()
        .expect("a module that fits starts");
}

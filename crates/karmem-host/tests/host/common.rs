//! Test setup: one runtime per copy of this module (the tests in
//! `explicit` and `pooled` have their own, main.rs), and the WAT guest builder of
//! `karmem_testkit::wat_guest`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use karmem_host::{
    AppBuilder, BoundsChecks, GuestModule, Instances, MemoryLog, Runtime, RuntimeConfig,
};
pub use karmem_testkit::wat_guest::*;

/// The bounds-check strategy of this copy's runtime (main.rs).
pub const BOUNDS: BoundsChecks = super::BOUNDS;

/// Where this copy's runtime takes instances' memories from (main.rs).
pub const INSTANCES: Instances = super::INSTANCES;

/// One runtime per copy of this module; one cache directory for all (the
/// strategy and the instance allocation are part of the cache key).
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(cache_dir()),
            bounds_checks: BOUNDS,
            instances: INSTANCES,
            ..RuntimeConfig::default()
        })
        .expect("runtime")
    })
}

/// The end of the largest memory this copy's runtime allows: 4 GiB under
/// guard pages, the reservation under explicit checks.
pub fn memory_top() -> u64 {
    BOUNDS.reservation().expect("a valid strategy")
}

pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("karmem-host-cache")
}

/// A region snapshot, for "bytes unchanged" checks.
pub fn snapshot(app: &karmem_host::App, region: &str) -> Vec<u8> {
    let r = app.region(region).unwrap();
    let mut v = vec![0; r.len()];
    r.read(0, &mut v).unwrap();
    v
}

pub fn builder(log: &Arc<MemoryLog>) -> AppBuilder {
    let mut b = AppBuilder::new(runtime());
    b.log_sink(log.clone());
    b
}

/// Load a guest into the shared runtime (panics with the WAT on failure).
pub trait LoadExt {
    fn load(&self, name: &str) -> GuestModule;
}

impl LoadExt for Guest {
    fn load(&self, name: &str) -> GuestModule {
        self.load_into(runtime(), name)
            .unwrap_or_else(|e| panic!("load {name}: {e}\n{}", self.wat()))
    }
}

/// An importer of a region-bound `api` (`peek(at @ region)`), exporting
/// `t.Write.post() -> r`: writes "news" at offset 100 of its window (region
/// 0, local `$w`), passes it by pointer to import function 0, expects one
/// callee (its `out` entry at 1024), then runs `tail`.
pub fn news_poster(api: karmem_host::InterfaceDesc, tail: &str) -> Guest {
    Guest::new(
        vec![iface(
            "t.Write",
            karmem_host::Pattern::Direct,
            vec![],
            vec![simple("post")],
        )],
        vec![api],
    )
    .func(
        "t.Write",
        "post",
        &format!(
            "(local $w i32)
             (local.set $w (call $win (i32.const 0)))
             (i32.store (i32.add (local.get $w) (i32.const 100)) (i32.const 0x7377656e))
             (i32.store (i32.const 1200) (i32.add (local.get $w) (i32.const 100)))
             (i32.store (i32.const 1204) (i32.const 4))
             (if (i32.ne (call $call (i32.const 0) (i32.const 1200) (i32.const 1) (i32.const 1024) (i32.const 1)) (i32.const 1)) (then (unreachable)))
             {tail}"
        ),
    )
}

/// `t.Board { peek(at: t.Msg) -> r: t.Msg }` with region `t.board`
/// (importer read-write, exporter read-only, 2 pages); `at` and `r` are
/// bound to it when `bound`, else copied.
pub fn board_api(bound: bool) -> karmem_host::InterfaceDesc {
    let region = bound.then_some("t.board");
    iface(
        "t.Board",
        karmem_host::Pattern::Direct,
        vec![memory(
            "t.board",
            karmem_host::Access::ReadWrite,
            karmem_host::Access::Read,
            2,
        )],
        vec![func(
            "peek",
            vec![param("at", "t.Msg", region)],
            Some(param("r", "t.Msg", region)),
        )],
    )
    .with_signature_hash()
}

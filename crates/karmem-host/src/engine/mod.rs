//! The engine layer: the wasmtime engine and its configuration, the epoch
//! ticker, linear memories that never move, the module cache, and turning
//! guest bytes into checked, rewritten, compiled code ([`loader`]). Nothing
//! here knows about instances or applications.

pub(crate) mod cache;
pub(crate) mod clock;
pub(crate) mod config;
pub(crate) mod loader;
pub(crate) mod memory;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::error::{Error, Result};
use cache::Cache;
use clock::Clock;
use config::{BoundsChecks, CacheStats, Instances, OptLevel, RuntimeConfig};
use memory::FixedCreator;

/// Native stack one store's wasm code may use (`Config::max_wasm_stack`).
/// wasmtime enforces it per store, so nested calls into *other* stores each
/// get this much again; the instance pool checks that the thread has room
/// before it enters another one.
pub(crate) const MAX_WASM_STACK: usize = 512 << 10;

/// Elements a table of a pool's slot holds (wasmtime's default, stated so
/// that the loader can refuse a larger table by name, loader::inspect).
pub(crate) const POOL_TABLE_ELEMENTS: u64 = 20_000;

/// Guard region on either side of a memory under
/// [`BoundsChecks::GuardPages`]: wasmtime's default on 64-bit hosts.
const GUARD_PAGES_GUARD: u64 = 32 << 20;

/// The engine, its cache and counters; shared by everything a
/// [`crate::Runtime`] creates.
pub(crate) struct EngineCtx {
    pub config: RuntimeConfig,
    pub engine: Engine,
    pub cache: Option<Cache>,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    pub replaced: AtomicU64,
    pub uncached: AtomicU64,
    /// Epoch ticks, counted beside wasmtime's epoch by the ticker.
    pub clock: Clock,
    _ticker: Ticker,
}

impl EngineCtx {
    /// Configure the engine, open the cache and start the epoch ticker.
    pub fn new(config: RuntimeConfig) -> Result<EngineCtx> {
        let engine =
            Engine::new(&engine_config(&config)?).map_err(|e| Error::Engine(format!("{e:#}")))?;
        let cache = match &config.cache_dir {
            Some(dir) => Some(Cache::open(dir, &engine)?),
            None => None,
        };
        let clock = Clock::new(config.epoch_tick);
        let ticker = Ticker::start(engine.clone(), clock.clone(), config.epoch_tick)
            .map_err(|e| Error::Engine(format!("epoch ticker thread: {e}")))?;
        Ok(EngineCtx {
            config,
            engine,
            cache,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            replaced: AtomicU64::new(0),
            uncached: AtomicU64::new(0),
            clock,
            _ticker: ticker,
        })
    }

    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            replaced: self.replaced.load(Ordering::Relaxed),
            uncached: self.uncached.load(Ordering::Relaxed),
        }
    }
}

/// The engine configuration every module is compiled and run with. Changing
/// anything here changes `precompile_compatibility_hash` and thus the cache
/// key. The WebAssembly features it enables must match
/// `karmem_rewrite::features()`, which validates modules before they reach
/// the engine (tested: `engine_and_rewrite_agree_on_features`).
pub(crate) fn engine_config(config: &RuntimeConfig) -> Result<Config> {
    let reservation = config.bounds_checks.reservation().map_err(Error::Engine)?;
    let mut c = Config::new();
    // Windows are mapped at fixed addresses inside the memory: it is
    // reserved whole up front and never moves, under either bounds-check
    // strategy and either instance allocation.
    c.memory_may_move(false);
    match config.instances {
        Instances::OnDemand => {
            // One reservation per memory (FixedCreator). With CoW images
            // and a custom creator, a data segment panics inside wasmtime
            // (memory.rs); segments are copied at instantiation.
            c.with_host_memory(Arc::new(FixedCreator));
            c.memory_init_cow(false);
        }
        Instances::Pooled {
            slots,
            keep_resident,
        } => {
            // The pool's slots are reserved once and never move either;
            // wasmtime maps data segments into them copy-on-write and
            // resets them when an instance is dropped, after the instance
            // has put anonymous memory back over its windows
            // (instance::Live's drop, RATIONALE R8.22).
            if slots == 0 {
                return Err(Error::Engine(
                    "instances: a pool of 0 slots; it needs at least 1".into(),
                ));
            }
            let mut pool = PoolingAllocationConfig::new();
            pool.total_core_instances(slots)
                .total_memories(slots)
                .total_tables(slots)
                .max_memory_size(reservation as usize)
                .table_elements(POOL_TABLE_ELEMENTS as usize);
            // Reset the pages an instance touched with `memset`, found
            // with the PAGEMAP_SCAN ioctl where the kernel has it (6.7+),
            // instead of discarding them: the next instance then takes no
            // page faults for them (RATIONALE R8.22 measures both).
            pool.linear_memory_keep_resident(keep_resident as usize)
                .table_keep_resident(keep_resident as usize)
                .pagemap_scan(wasmtime::Enabled::Auto);
            c.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
            c.memory_init_cow(true);
        }
    }
    c.memory_reservation(reservation);
    c.memory_reservation_for_growth(0);
    match config.bounds_checks {
        // The whole 32-bit space plus a guard on both sides (wasmtime's
        // default size, stated so that the address space per instance
        // in the docs stays true): no compiled checks for offsets below
        // the guard size; an access outside the memory faults.
        BoundsChecks::GuardPages => {
            c.memory_guard_size(GUARD_PAGES_GUARD);
            c.guard_before_linear_memory(true);
        }
        // No guard: Cranelift then compiles a comparison of every address
        // with the reservation (a constant, since the memory cannot move);
        // what lies between the memory's size and the reservation is
        // PROT_NONE and faults (RATIONALE R8.20).
        BoundsChecks::Explicit { .. } => {
            c.memory_guard_size(0);
            c.guard_before_linear_memory(false);
        }
    }
    // Stays on under both strategies: a store into a PROT_READ window is
    // within bounds, passes any compiled check and faults on the page;
    // only wasmtime's signal handler turns that fault into a trap of the
    // call (without it the process dies). Explicit checks trap through it
    // too: an address out of bounds is replaced by null, which faults.
    c.signals_based_traps(true);
    c.epoch_interruption(true);
    c.consume_fuel(config.fuel);
    // Explicit, because nested calls budget native stack with it (pool.rs).
    c.max_wasm_stack(MAX_WASM_STACK);
    // Atomic instructions on unshared memories (the ABI forbids shared
    // memories; see loader). Their stores must trap on read-only windows
    // like plain ones.
    c.wasm_threads(true);
    c.shared_memory(false);
    c.wasm_multi_memory(false);
    c.wasm_memory64(false);
    c.cranelift_opt_level(match config.opt_level {
        OptLevel::None => wasmtime::OptLevel::None,
        OptLevel::Speed => wasmtime::OptLevel::Speed,
    });
    // Diagnostics: with KARMEM_PERFMAP=1 wasmtime appends every loaded
    // module's functions to /tmp/perf-<pid>.map, so that `perf report`
    // names guest code instead of showing anonymous memory
    // (docs/benchmarks.md, "Real guests"). Not part of the compatibility
    // hash: the map is written when a module is loaded, compiled or cached.
    if perfmap_requested(std::env::var_os("KARMEM_PERFMAP").as_deref()) {
        c.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    Ok(c)
}

/// Whether the value of `KARMEM_PERFMAP` asks for a perf map: exactly `1`.
fn perfmap_requested(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

/// Increments the engine's epoch every tick; stops when dropped. The epoch
/// follows the clock, not the number of wake-ups: a thread woken late (a
/// loaded machine) catches up, so an epoch deadline set from a duration
/// passes when that much wall time has, as the deadlines of nested calls
/// (computed from one `Instant`) assume.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine, clock: Clock, tick: Duration) -> std::io::Result<Ticker> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("karmem-epoch".into())
            .spawn(move || {
                let start = std::time::Instant::now();
                let tick_ns = tick.as_nanos().max(1);
                let mut done: u128 = 0;
                while !flag.load(Ordering::Relaxed) {
                    std::thread::park_timeout(tick);
                    let due = start.elapsed().as_nanos() / tick_ns;
                    while done < due {
                        engine.increment_epoch();
                        clock.advance();
                        done += 1;
                    }
                }
            })?;
        Ok(Ticker {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::config::{BoundsChecks, Instances, RuntimeConfig};
    use super::{engine_config, perfmap_requested};
    use crate::error::Error;
    use std::ffi::OsStr;

    /// `karmem_rewrite` validates modules before the engine sees them:
    /// both must accept the same features, or a module the engine would
    /// run is refused (or one the rewrite accepted fails to compile). One
    /// module per feature, on and off.
    #[test]
    fn engine_and_rewrite_agree_on_features() {
        let engine = wasmtime::Engine::new(
            &engine_config(&RuntimeConfig {
                cache_dir: None,
                ..RuntimeConfig::default()
            })
            .unwrap(),
        )
        .unwrap();
        let probes = [
            ("mvp", "(module (func (result i32) (i32.const 1)))"),
            ("simd", "(module (func (drop (v128.const i64x2 1 2))))"),
            ("relaxed simd", "(module (func (result v128) (i32x4.relaxed_trunc_f32x4_s (v128.const i64x2 1 2))))"),
            ("threads", "(module (memory 1) (func (drop (i32.atomic.load (i32.const 0)))))"),
            ("shared memory", "(module (memory 1 1 shared))"),
            ("bulk memory", "(module (memory 1) (func (memory.fill (i32.const 0) (i32.const 0) (i32.const 0))))"),
            ("reference types", "(module (table 1 externref) (func (drop (ref.null extern))))"),
            ("multi-value", "(module (func (result i32 i32) (i32.const 1) (i32.const 2)))"),
            ("sign extension", "(module (func (result i32) (i32.extend8_s (i32.const 1))))"),
            ("saturating conversions", "(module (func (result i32) (i32.trunc_sat_f32_s (f32.const 1))))"),
            ("tail calls", "(module (func $f (return_call $f)))"),
            ("extended const", "(module (global i32 (i32.add (i32.const 1) (i32.const 2))))"),
            ("function references", "(module (type $t (func)) (func $f (call_ref $t (ref.func $f))) (elem declare func $f))"),
            ("multi-memory", "(module (memory 1) (memory 1))"),
            ("memory64", "(module (memory i64 1))"),
            ("exceptions", "(module (tag $e) (func (throw $e)))"),
            ("gc", "(module (type $s (struct (field i32))) (func (drop (struct.new $s (i32.const 1)))))"),
        ];
        for (feature, wat) in probes {
            let wasm = wat::parse_str(wat).unwrap_or_else(|e| panic!("{feature}: {e}"));
            let engine_ok = wasmtime::Module::validate(&engine, &wasm).is_ok();
            let rewrite_ok = karmem_rewrite::validate(&wasm).is_ok();
            assert_eq!(
                engine_ok, rewrite_ok,
                "{feature}: engine {engine_ok}, rewrite {rewrite_ok}"
            );
        }
    }

    /// The strategy is compiled into the code, so it must be part of the
    /// cache key: wasmtime's compatibility hash (which the key includes)
    /// differs between strategies and between reservations.
    /// wasmtime's compatibility hash of an engine made from `config`, the
    /// part of the cache key the engine's configuration decides.
    fn compatibility(config: RuntimeConfig) -> u64 {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let config = RuntimeConfig {
            cache_dir: None,
            ..config
        };
        let engine = wasmtime::Engine::new(&engine_config(&config).unwrap()).unwrap();
        let mut h = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut h);
        h.finish()
    }

    #[test]
    fn the_bounds_check_strategy_is_part_of_the_cache_key() {
        let key = |bounds_checks| {
            compatibility(RuntimeConfig {
                bounds_checks,
                ..RuntimeConfig::default()
            })
        };
        let explicit = |reservation| BoundsChecks::Explicit { reservation };
        let keys = [
            key(BoundsChecks::GuardPages),
            key(explicit(64 << 20)),
            key(explicit(128 << 20)),
            key(explicit(1 << 32)),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b, "{keys:x?}");
            }
        }
        // Equal configurations share entries; a reservation is compiled
        // rounded up to whole pages.
        assert_eq!(key(BoundsChecks::GuardPages), keys[0]);
        assert_eq!(key(explicit((64 << 20) - 100)), keys[1]);
    }

    /// Pooled instances map data segments copy-on-write, which wasmtime
    /// compiles for (a tunable): a pooled runtime must not load an
    /// on-demand runtime's artifacts or the other way round.
    #[test]
    fn the_instance_allocation_is_part_of_the_cache_key() {
        let key = |instances| {
            compatibility(RuntimeConfig {
                instances,
                ..RuntimeConfig::default()
            })
        };
        let on_demand = key(Instances::OnDemand);
        assert_ne!(on_demand, key(Instances::pooled(4)));
        assert_eq!(key(Instances::pooled(4)), key(Instances::pooled(8)));
    }

    #[test]
    fn explicit_reservations_are_whole_pages_up_to_4_gib() {
        let explicit = |reservation| BoundsChecks::Explicit { reservation }.reservation();
        assert_eq!(BoundsChecks::GuardPages.reservation(), Ok(1 << 32));
        assert_eq!(explicit(1), Ok(65536));
        assert_eq!(explicit(65536), Ok(65536));
        assert_eq!(explicit(65537), Ok(131072));
        assert_eq!(explicit(1 << 32), Ok(1 << 32));
        assert!(explicit(0).is_err());
        assert!(explicit((1 << 32) + 1).is_err());
        let refused = engine_config(&RuntimeConfig {
            cache_dir: None,
            bounds_checks: BoundsChecks::Explicit { reservation: 0 },
            ..RuntimeConfig::default()
        });
        assert!(matches!(refused, Err(Error::Engine(m)) if m.contains("bounds_checks")));
    }

    #[test]
    fn perfmap_only_when_asked_for_with_1() {
        assert!(perfmap_requested(Some(OsStr::new("1"))));
        assert!(!perfmap_requested(None));
        assert!(!perfmap_requested(Some(OsStr::new("0"))));
        assert!(!perfmap_requested(Some(OsStr::new(""))));
        assert!(!perfmap_requested(Some(OsStr::new("yes"))));
    }
}

//! Engine configuration and the epoch ticker.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::{Config, Engine, Linker};

use crate::cache::Cache;
use crate::error::{Error, Result};
use crate::instance::State;
use crate::memory::FixedCreator;
use crate::runtime::{CacheStats, OptLevel, Runtime, RuntimeConfig};

pub(crate) struct RuntimeInner {
    pub config: RuntimeConfig,
    pub engine: Engine,
    /// `karmem.*` and the WASI subset; per-module ENOSYS stubs are added to
    /// a clone of it.
    pub linker: Linker<State>,
    pub cache: Option<Cache>,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    pub replaced: AtomicU64,
    _ticker: Ticker,
}

impl RuntimeInner {
    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            replaced: self.replaced.load(Ordering::Relaxed),
        }
    }

    /// Epoch ticks that cover `timeout` (at least one full tick).
    pub fn ticks(&self, timeout: Duration) -> u64 {
        let tick = self.config.epoch_tick.as_nanos().max(1);
        (timeout.as_nanos().div_ceil(tick) as u64).saturating_add(1)
    }
}

/// The engine configuration every module is compiled and run with. Changing
/// anything here changes `precompile_compatibility_hash` and thus the cache
/// key.
pub(crate) fn engine_config(config: &RuntimeConfig) -> Config {
    let mut c = Config::new();
    c.with_host_memory(Arc::new(FixedCreator));
    // Windows are mapped at fixed addresses inside the memory.
    c.memory_may_move(false);
    // With CoW images and a custom creator, a data segment panics inside
    // wasmtime (DESIGN.md §2); segments are copied at instantiation instead.
    c.memory_init_cow(false);
    // Reserve the whole 32-bit space: bounds checks become guard-page
    // faults, and a PROT_READ window turns a guest store into a trap.
    c.memory_reservation(1 << 32);
    c.memory_reservation_for_growth(0);
    c.epoch_interruption(true);
    // Explicit, because nested calls budget native stack with it (pool.rs).
    c.max_wasm_stack(crate::pool::MAX_WASM_STACK);
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
    c
}

/// Whether the value of `KARMEM_PERFMAP` asks for a perf map: exactly `1`.
fn perfmap_requested(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

pub(crate) fn new_runtime(config: RuntimeConfig) -> Result<Runtime> {
    let engine =
        Engine::new(&engine_config(&config)).map_err(|e| Error::Engine(format!("{e:#}")))?;
    let cache = match &config.cache_dir {
        Some(dir) => Some(Cache::open(dir, &engine)?),
        None => None,
    };
    let mut linker = Linker::new(&engine);
    crate::guest::define(&mut linker).map_err(|e| Error::Engine(format!("{e:#}")))?;
    crate::wasi::define(&mut linker).map_err(|e| Error::Engine(format!("{e:#}")))?;
    let ticker = Ticker::start(engine.clone(), config.epoch_tick)
        .map_err(|e| Error::Engine(format!("epoch ticker thread: {e}")))?;
    Ok(Runtime {
        inner: Arc::new(RuntimeInner {
            config,
            engine,
            linker,
            cache,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            replaced: AtomicU64::new(0),
            _ticker: ticker,
        }),
    })
}

/// Increments the engine's epoch every tick; stops when dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine, tick: Duration) -> std::io::Result<Ticker> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("karmem-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::park_timeout(tick);
                    engine.increment_epoch();
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
    use super::perfmap_requested;
    use std::ffi::OsStr;

    #[test]
    fn perfmap_only_when_asked_for_with_1() {
        assert!(perfmap_requested(Some(OsStr::new("1"))));
        assert!(!perfmap_requested(None));
        assert!(!perfmap_requested(Some(OsStr::new("0"))));
        assert!(!perfmap_requested(Some(OsStr::new(""))));
        assert!(!perfmap_requested(Some(OsStr::new("yes"))));
    }
}

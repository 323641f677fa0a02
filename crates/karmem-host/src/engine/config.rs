//! How the engine is set up, and what the module cache reports.

use std::path::PathBuf;
use std::time::Duration;

/// Code generation effort; part of the cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OptLevel {
    /// No optimisation: fastest compile, slowest code.
    None,
    /// Cranelift's default.
    #[default]
    Speed,
}

/// How the engine is set up. Everything here is fixed for the life of the
/// [`Runtime`].
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Directory of precompiled modules; `None` disables the disk cache.
    /// Created with mode 0700 if missing.
    pub cache_dir: Option<PathBuf>,
    /// Period of the epoch ticker: the resolution of timeouts.
    pub epoch_tick: Duration,
    pub opt_level: OptLevel,
    /// Count the instructions guests run (wasmtime's fuel), so that
    /// [`crate::CallBudget::fuel`] can bound each top-level call by a
    /// deterministic instruction budget besides its wall-clock deadline.
    /// Costs time on every call and in every loop (docs/benchmarks.md);
    /// off by default. Part of the cache key.
    pub fuel: bool,
}

impl Default for RuntimeConfig {
    /// Cache in [`default_cache_dir`], 1 ms ticks, optimised code, no
    /// fuel.
    fn default() -> Self {
        RuntimeConfig {
            cache_dir: default_cache_dir(),
            epoch_tick: Duration::from_millis(1),
            opt_level: OptLevel::Speed,
            fuel: false,
        }
    }
}

/// `$KARMEM_CACHE_DIR`, else `$XDG_CACHE_HOME/karmem/modules`, else
/// `$HOME/.cache/karmem/modules`; `None` if none of them is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KARMEM_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("karmem").join("modules"))
}

/// Where a module's machine code came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOutcome {
    /// No cache configured: compiled.
    Disabled,
    /// Loaded from the cache (no compilation).
    Hit,
    /// Not in the cache: compiled and stored.
    Miss,
    /// A cached file was corrupt or unreadable: compiled and replaced.
    Replaced,
    /// Compiled, but the entry could not be stored (something other than
    /// our files stands at its path and cannot be removed, or the disk is
    /// full): the module runs from memory.
    Uncached,
}

/// Counters of the module cache since the runtime was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub replaced: u64,
    pub uncached: u64,
}

//! The engine and module loading: one [`Runtime`] per process is typical; it
//! owns the wasmtime engine (custom memory creator, epoch ticker) and the
//! precompiled-module cache, and turns wasm bytes into [`GuestModule`]s.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::descriptor::ModuleDesc;
use crate::error::Result;

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
}

impl Default for RuntimeConfig {
    /// Cache in [`default_cache_dir`], 1 ms ticks, optimised code.
    fn default() -> Self {
        RuntimeConfig {
            cache_dir: default_cache_dir(),
            epoch_tick: Duration::from_millis(1),
            opt_level: OptLevel::Speed,
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
}

/// Counters of the module cache since the runtime was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub replaced: u64,
}

/// The wasmtime engine, its configuration and the module cache. Cheap to
/// clone (shared).
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<crate::engine::RuntimeInner>,
}

impl Runtime {
    /// Configure the engine and start its epoch ticker.
    pub fn new(config: RuntimeConfig) -> Result<Runtime> {
        crate::engine::new_runtime(config)
    }

    /// Check, rewrite, compile (or load from the cache) and describe a
    /// module: instantiates it once to run the start-up sequence up to
    /// `karmem_describe` (docs/abi.md §2 steps 1–4).
    pub fn load(&self, name: &str, wasm: &[u8]) -> Result<GuestModule> {
        crate::loader::load(self, name, wasm)
    }

    /// [`Runtime::load`] of a file (`.wasm` or `.wat`).
    pub fn load_file(&self, name: &str, path: &Path) -> Result<GuestModule> {
        let bytes = std::fs::read(path).map_err(|e| crate::Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        self.load(name, &bytes)
    }

    /// Cache counters (for tests and diagnostics).
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.cache_stats()
    }

    /// The configuration this runtime was created with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }
}

/// A checked, compiled and described module, ready to be added to an
/// [`crate::AppBuilder`]. Cheap to clone.
#[derive(Clone)]
pub struct GuestModule {
    pub(crate) inner: Arc<crate::loader::LoadedModule>,
}

impl GuestModule {
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What the module exports and imports.
    pub fn descriptor(&self) -> &ModuleDesc {
        &self.inner.desc
    }

    /// Whether the machine code came from the cache.
    pub fn cache_outcome(&self) -> CacheOutcome {
        self.inner.cache_outcome
    }

    /// The same compiled module under another name (e.g. two differently
    /// configured copies in one application).
    pub fn renamed(&self, name: &str) -> GuestModule {
        let mut m = (*self.inner).clone();
        m.name = name.to_string();
        GuestModule { inner: Arc::new(m) }
    }
}

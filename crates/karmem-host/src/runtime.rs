//! The facade over the engine and instance layers: one [`Runtime`] per
//! process is typical; it owns the wasmtime engine (custom memory creator,
//! epoch ticker), the precompiled-module cache and the imports every guest
//! links against, and turns wasm bytes into [`GuestModule`]s.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::{InstancePre, Linker};

pub use crate::engine::config::{
    default_cache_dir, CacheOutcome, CacheStats, OptLevel, RuntimeConfig,
};

use crate::descriptor::{Access, ModuleDesc};
use crate::engine::EngineCtx;
use crate::error::{Error, Result};
use crate::instance::scope::{self, CallBudget};
use crate::instance::{startup, InstanceCtx, Limits, State};
use crate::log::StderrLog;

/// What the host grants one module, and its limits, in an application.
/// The host decides these; a guest's descriptor can only ask for less
/// (docs/security.md §1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleOptions {
    /// Deadline of every call into the module (docs/abi.md §7); nested
    /// calls also end at the deadline of the top-level call they belong to.
    pub timeout: Duration,
    /// Cap on what each instance of the module takes in bytes: its linear
    /// memory, the region windows mapped into it included, and its tables
    /// (8 bytes an entry) — docs/security.md §2.8.
    pub memory_limit: u64,
    /// Instances of the module for its `pool(N)` interfaces; `None` takes
    /// the largest `N` its descriptor declares.
    pub pool_size: Option<u32>,
    /// The most access the module may have to each region, by qualified
    /// name ([`ModuleOptions::grant`]). A region not listed is granted
    /// [`ModuleOptions::DEFAULT_GRANT`].
    pub grants: BTreeMap<String, Access>,
    /// Live instances of the module at most, whoever holds them (the host,
    /// importers, singleton, pool). Default 256.
    pub max_instances: u32,
}

impl Default for ModuleOptions {
    /// 1 s, 64 MiB, pool size from the descriptor, no grants (no access to
    /// any region), 256 instances.
    fn default() -> Self {
        ModuleOptions {
            timeout: Duration::from_secs(1),
            memory_limit: 64 << 20,
            pool_size: None,
            grants: BTreeMap::new(),
            max_instances: 256,
        }
    }
}

impl ModuleOptions {
    /// The grant of a region no grant names: none. Every window into shared
    /// memory, read-only too, is the host's explicit decision: a region a
    /// guest's descriptor declares is otherwise neither mapped nor even
    /// created (docs/security.md §1, §2.8).
    pub const DEFAULT_GRANT: Access = Access::None;

    /// The same options with `region` granted at most `access`.
    pub fn grant(mut self, region: &str, access: Access) -> ModuleOptions {
        self.grants.insert(region.to_string(), access);
        self
    }

    /// The most access the module may have to `region`.
    pub fn granted(&self, region: &str) -> Access {
        self.grants
            .get(region)
            .copied()
            .unwrap_or(Self::DEFAULT_GRANT)
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits {
            timeout: self.timeout,
            memory_limit: self.memory_limit,
            max_instances: self.max_instances,
        }
    }
}

/// The wasmtime engine, its configuration and the module cache. Cheap to
/// clone (shared).
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<RuntimeInner>,
}

pub(crate) struct RuntimeInner {
    pub engine: Arc<EngineCtx>,
    /// `karmem.*` and the WASI subset; per-module stubs are added to a
    /// clone of it.
    pub linker: Linker<State>,
    /// Emptied region files of applications that are gone (R8.23).
    pub spare_regions: Arc<crate::region::SpareFiles>,
}

/// The largest module file [`Runtime::load_file`] reads (a Go guest is
/// about 3 MiB).
pub const MAX_MODULE_BYTES: u64 = 256 << 20;

/// A module as loaded: compiled, linked, and described by its probe.
#[derive(Clone)]
pub(crate) struct LoadedModule {
    pub name: String,
    /// Shared with every application the module is in (not copied per
    /// application: building one is on users' hot path).
    pub desc: Arc<ModuleDesc>,
    /// The descriptor as the guest wrote it (later instances must match).
    pub desc_bytes: Arc<[u8]>,
    pub cache_outcome: CacheOutcome,
    pub pre: InstancePre<State>,
    /// Where the exports every instance looks up are (found once).
    pub exports: startup::ExportIndex,
}

impl Runtime {
    /// Configure the engine and start its epoch ticker.
    pub fn new(config: RuntimeConfig) -> Result<Runtime> {
        let engine = EngineCtx::new(config)?;
        let linker = crate::instance::imports::linker(&engine.engine)?;
        Ok(Runtime {
            inner: Arc::new(RuntimeInner {
                engine: Arc::new(engine),
                linker,
                spare_regions: Arc::default(),
            }),
        })
    }

    /// [`Runtime::load_with`] under the default [`ModuleOptions`] (1 s,
    /// 64 MiB).
    pub fn load(&self, name: &str, wasm: &[u8]) -> Result<GuestModule> {
        self.load_with(name, wasm, &ModuleOptions::default())
    }

    /// Check, validate, rewrite, compile (or load from the cache) and
    /// describe a module: instantiates it once to run the start-up sequence
    /// up to `karmem_describe` (docs/abi.md §2 steps 1–4), under the
    /// timeout and memory limit of `options` — a module's start-up is
    /// bounded by its own limits, as its calls are.
    pub fn load_with(
        &self,
        name: &str,
        wasm: &[u8],
        options: &ModuleOptions,
    ) -> Result<GuestModule> {
        let engine = &self.inner.engine;
        let compiled = crate::engine::loader::compile(engine, name, wasm)?;
        let pre =
            crate::instance::imports::prepare(&self.inner.linker, &engine.engine, name, &compiled)?;
        let exports = startup::ExportIndex::new(pre.module());
        let probe = Arc::new(InstanceCtx {
            name: name.to_string(),
            pre: pre.clone(),
            exports,
            engine: engine.clone(),
            limits: options.limits(),
            timeout_ticks: engine.clock.ticks(options.timeout),
            log: Arc::new(StderrLog),
            windows: Vec::new(),
            ro_len: 0,
            rw_len: 0,
            router: None,
            desc_bytes: None,
            live: AtomicU32::new(0),
        });
        let clock = &engine.clock;
        let _scope = scope::enter(clock, probe.timeout_ticks, &CallBudget::default());
        let bytes = startup::describe(&probe, scope::deadline(clock, probe.timeout_ticks))?;
        let desc = ModuleDesc::decode(&bytes).map_err(|message| Error::BadDescriptor {
            module: name.to_string(),
            message,
        })?;
        Ok(GuestModule {
            inner: Arc::new(LoadedModule {
                name: name.to_string(),
                desc: Arc::new(desc),
                desc_bytes: bytes.into(),
                cache_outcome: compiled.outcome,
                pre,
                exports,
            }),
        })
    }

    /// [`Runtime::load`] of a file (`.wasm` or `.wat`).
    pub fn load_file(&self, name: &str, path: &Path) -> Result<GuestModule> {
        self.load_file_with(name, path, &ModuleOptions::default())
    }

    /// [`Runtime::load_with`] of a file (`.wasm` or `.wat`).
    pub fn load_file_with(
        &self,
        name: &str,
        path: &Path,
        options: &ModuleOptions,
    ) -> Result<GuestModule> {
        use std::io::Read as _;
        let io = |message: String| Error::Io {
            path: path.to_path_buf(),
            message,
        };
        // Bounded: a path naming a device or an endless file is refused,
        // not read until memory runs out.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_MODULE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| io(e.to_string()))?;
        if bytes.len() as u64 > MAX_MODULE_BYTES {
            return Err(io(format!(
                "larger than {} MiB, the most a module file may be",
                MAX_MODULE_BYTES >> 20
            )));
        }
        self.load_with(name, &bytes, options)
    }

    /// Cache counters (for tests and diagnostics).
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.engine.cache_stats()
    }

    /// The configuration this runtime was created with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.engine.config
    }
}

/// A checked, compiled and described module, ready to be added to an
/// [`crate::AppBuilder`]. Cheap to clone.
#[derive(Clone)]
pub struct GuestModule {
    pub(crate) inner: Arc<LoadedModule>,
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

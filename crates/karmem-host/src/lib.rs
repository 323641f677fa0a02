//! The Karmem host runtime on wasmtime.
//!
//! Loads guest modules that follow the guest ABI (docs/abi.md), binds the
//! interfaces they import to the modules that export them, maps shared
//! memory regions into them with per-module permissions, and calls them with
//! the declared pattern (direct, fan-out, singleton, pool) under per-call
//! timeouts and memory caps. A guest that traps, loops, over-allocates or
//! writes into a read-only region fails its own call with an [`Error`]
//! naming the module, interface and function; the host and the other
//! modules continue.
//!
//! The host can also export interfaces to guests itself ("host functions",
//! [`AppBuilder::host_export`]).
//!
//! ```no_run
//! use karmem_host::{AppBuilder, Arg, Runtime, RuntimeConfig};
//! let runtime = Runtime::new(RuntimeConfig::default())?;
//! let game = runtime.load_file("game", "game.wasm".as_ref())?;
//! let app = AppBuilder::new(&runtime).module(game).build()?;
//! let out = app.call("game", "game.Updater", "update", &[Arg::Bytes(b"...")])?;
//! # Ok::<(), karmem_host::Error>(())
//! ```
//!
//! Platform: Linux (memfd, `mmap(MAP_FIXED)`), 64-bit.

// Layers, each using only those below it (docs/security.md says what
// each one defends):
// 1. foundation: `abi` (the ABI's names and numbers), `descriptor`,
//    `error`, `log`, `region`;
// 2. engine (`engine`): the wasmtime engine and its configuration,
//    memories that never move, the module cache, and loading: validation,
//    rewrite and compilation of guest bytes;
// 3. instances (`instance`): stores, start-up, the host's access to guest
//    memory, the imports guests call, pools, the scope (deadline and
//    budgets) of a top-level call;
// 4. modules (`runtime`): `Runtime`, `GuestModule` and `ModuleOptions`:
//    loading plus the load-time probe that reads the descriptor;
// 5. applications (`app`): bindings, grants, dispatch, guest→guest calls,
//    host exports; it plugs into instances through `instance::Router`.
mod abi;
mod app;
pub mod descriptor;
mod engine;
mod error;
mod instance;
mod log;
mod region;
mod runtime;

pub use abi::ABI_VERSION;
pub use app::host_export::{HostCall, HostError, HostInterface, HOST};
pub use app::{
    App, AppBuilder, AppStats, Arg, CalleeResult, ExportFn, ModuleInfo, ModuleOptions, Output,
};
pub use descriptor::{
    Access, FunctionDesc, InterfaceDesc, MemoryDesc, ModuleDesc, ParamDesc, Pattern,
};
pub use engine::config::{BoundsChecks, Instances};
pub use error::{Budget, CallSite, Error, Result, Status};
pub use instance::scope::CallBudget;
pub use log::{
    escape_json_text, escape_text, must_escape, LogLevel, LogRecord, LogSink, MemoryLog, StderrLog,
};
pub use region::{Region, RegionId, RegionSlice};
pub use runtime::{
    default_cache_dir, CacheOutcome, CacheStats, GuestModule, OptLevel, Runtime, RuntimeConfig,
};

/// Version of the load-time rewrite (docs/abi.md §6); part of the cache key.
pub const REWRITE_VERSION: u32 = karmem_rewrite::VERSION;

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

mod app;
mod bind;
mod cache;
pub mod descriptor;
mod dispatch;
mod engine;
mod error;
mod guest;
mod host_export;
mod instance;
mod loader;
mod log;
mod memory;
mod pool;
mod region;
mod rewrite;
mod runtime;
mod wasi;
pub mod wat_guest;

pub use app::{
    App, AppBuilder, AppStats, Arg, CalleeResult, ExportFn, ModuleInfo, ModuleOptions, Output,
};
pub use descriptor::{
    Access, FunctionDesc, InterfaceDesc, MemoryDesc, ModuleDesc, ParamDesc, Pattern,
};
pub use error::{CallSite, Error, Result, Status};
pub use host_export::{HostCall, HostError, HostInterface, HOST};
pub use log::{LogLevel, LogRecord, LogSink, MemoryLog, StderrLog};
pub use region::{Region, RegionId, RegionSlice};
pub use runtime::{
    default_cache_dir, CacheOutcome, CacheStats, GuestModule, OptLevel, Runtime, RuntimeConfig,
};

/// The guest ABI version this host speaks (docs/abi.md §10).
pub const ABI_VERSION: u32 = 1;

/// Version of the load-time rewrite (docs/abi.md §6); part of the cache key.
pub const REWRITE_VERSION: u32 = 1;

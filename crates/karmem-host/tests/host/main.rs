//! Integration tests of the host runtime, with WAT guests. One test binary
//! (wasmtime links once); modules compile once into a cache under
//! target/tmp and load from it afterwards.
//!
//! The tests that try to write read-only windows and the other hostile
//! guests (`isolation`, `hostile`) run three times: at the top level under
//! the default bounds checks (guard pages) and memories reserved per
//! instance, in [`explicit`] under explicit checks with a small
//! reservation, and in [`pooled`] with memories from a pool of slots, so
//! the guarantees of docs/security.md §3 are tried under both strategies
//! (RATIONALE R8.20) and both instance allocations (R8.22). Each copy
//! reaches its runtime through `super::common`, a copy of `common` that
//! reads the configuration from its parent's `BOUNDS` and `INSTANCES`.
mod common;
mod host_exports;
mod hostile;
mod hostile_ledger;
mod hostile_liveness;
mod hostile_text;
mod isolation;
mod limits;
mod loading;
mod patterns;
mod spare_regions;

use karmem_host::{BoundsChecks, Instances};

/// The configuration of the runtime of the top-level tests: the defaults.
const BOUNDS: BoundsChecks = BoundsChecks::GuardPages;
const INSTANCES: Instances = Instances::OnDemand;

/// `isolation` and `hostile` again, under explicit bounds checks.
mod explicit;
/// `isolation` and `hostile` again with a pooled runtime, and what only a
/// pool can get wrong.
mod pooled;

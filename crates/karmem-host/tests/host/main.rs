//! Integration tests of the host runtime, with WAT guests. One test binary
//! (wasmtime links once); modules compile once into a cache under
//! target/tmp and load from it afterwards.
//!
//! The tests that try to write read-only windows and the other hostile
//! guests (`isolation`, `hostile`) run twice: at the top level under the
//! default bounds checks (guard pages), and in [`explicit`] under explicit
//! checks with a small reservation, so the guarantees of docs/security.md
//! §3 are tried under both strategies (RATIONALE R8.20). Each copy reaches
//! its runtime through `super::common`, a copy of `common` that reads the
//! strategy from its parent's `BOUNDS`.
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

use karmem_host::BoundsChecks;

/// The strategy of the runtime of the top-level tests: the default.
const BOUNDS: BoundsChecks = BoundsChecks::GuardPages;

/// `isolation` and `hostile` again, under explicit bounds checks.
mod explicit;

//! Integration tests of the host runtime, with WAT guests. One test binary
//! (wasmtime links once); modules compile once into a cache under
//! target/tmp and load from it afterwards.
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

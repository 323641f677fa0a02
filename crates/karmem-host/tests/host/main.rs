//! Integration tests of the host runtime, with WAT guests. One test binary
//! (wasmtime links once); modules compile once into a cache under
//! target/tmp and load from it afterwards.
mod common;
mod host_exports;
mod hostile;
mod isolation;
mod limits;
mod loading;
mod patterns;

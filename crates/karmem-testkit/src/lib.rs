//! Test support for the Karmem host runtime (`karmem-host`): guests written
//! in WAT around a tiny guest library that follows docs/abi.md, so host
//! tests and benchmarks need no guest toolchain. Not part of any public API.

pub mod wat_guest;

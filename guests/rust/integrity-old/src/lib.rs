//! The integrity suite's Rust member as a WebAssembly guest, reading and
//! writing testdata/integrity/old.km (docs/integrity.md §6).

const VERSION: karmem_integrity::Version = karmem_integrity::Version::Old;

include!("../../integrity-member.rs");

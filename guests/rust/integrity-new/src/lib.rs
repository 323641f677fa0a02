//! The integrity suite's Rust member as a WebAssembly guest, reading and
//! writing testdata/integrity/new.km (docs/integrity.md §6).

const VERSION: karmem_integrity::Version = karmem_integrity::Version::New;

include!("../../integrity-member.rs");

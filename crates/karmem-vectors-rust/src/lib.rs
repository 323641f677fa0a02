//! Generated code for every test schema (see build.rs); the tests live in
//! `tests/`.
include!(concat!(env!("OUT_DIR"), "/modules.rs"));

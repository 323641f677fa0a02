//! KarmemIDL front end (see `docs/idl.md`).
pub mod model;

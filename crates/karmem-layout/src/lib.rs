//! Layout of a checked schema (see `docs/format.md`).
pub mod model;
pub use model::*;

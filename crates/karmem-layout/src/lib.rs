//! Byte layout of a checked schema (normative description: `docs/format.md`).
//!
//! Computed once by [`compute`] and shared by every code generator and by the
//! JSON codec, so that no two consumers can disagree on an offset.
mod compute;
pub mod model;
pub mod plan;

pub use compute::compute;
pub use model::*;
pub use plan::{Access, ArrayCheck, ArrayPlan, FieldPlan, SlotCheck, SoaPlan, StructPlan};

/// Parse, check and lay out a schema in one step: what the CLI and build
/// scripts need. Layout errors are rendered against the same source.
pub fn load(
    file_name: &str,
    source: &str,
) -> Result<(karmem_schema::model::Schema, Layout), karmem_schema::Diagnostics> {
    let compiled = karmem_schema::compile(file_name, source)?;
    let layout = compute(&compiled.schema)
        .map_err(|items| karmem_schema::Diagnostics::new(file_name, source, items))?;
    Ok((compiled.schema, layout))
}

#[cfg(test)]
mod tests;

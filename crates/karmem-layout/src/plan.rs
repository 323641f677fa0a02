//! Per-slot plans: what generated code does with a slot, decided once for
//! every backend, so that a backend only prints the plan in its language.
//! Today: what a validator checks (format.md §11).

use karmem_schema::model::{ArrayLayout, ArrayType, Primitive, StructId, UnionId};

use crate::model::{ArrayData, FixedElem, Layout, Slot};

/// What a one-pass validator checks for one slot (format.md §11), when the
/// slot is present. Scalars (but `bool`), enums (unknown values are valid,
/// §2), fixed arrays of them and inline structs with nothing to check need
/// no check at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotCheck<'l> {
    /// Nothing to check.
    Nothing,
    /// A `bool` byte: 0 or 1.
    Bool,
    /// An inline struct that holds something checkable.
    Inline(StructId),
    /// A table reference: the table, then its fields.
    Table(StructId),
    /// An optional table reference: nothing when 0, else as `Table`.
    OptionalTable(StructId),
    /// An optional value: the presence byte (0 or 1), then, when it is 1,
    /// the value at `value_at` as its own plan says.
    Optional { value_at: u32, value: &'l Slot },
    /// A union slot (tag and value).
    Union(UnionId),
    /// A fixed array of `len` `bool`s.
    Bools { len: u32 },
    /// A fixed array of `len` inline structs, `stride` bytes apart, each
    /// holding something checkable.
    InlineEach { id: StructId, len: u32, stride: u32 },
    /// An array reference: checked against `elem_size` bytes per element
    /// (0: the block is sized by its own checks, SoA and bunch arrays) and
    /// the `[<N]T` limit, then what its block holds (`data`).
    Array {
        array: &'l ArrayType,
        data: &'l ArrayData,
        elem_size: u32,
        limit: Option<u32>,
    },
}

impl Layout {
    /// Does an SoA array of `elem` need checks beyond its directory (the
    /// runtime's one-loop column check)? When one of its columns has a
    /// plan: an array column always (its references are checked), another
    /// when it is not [`SlotCheck::Nothing`]. Decided from the columns
    /// alone, not by following the arrays they hold: an element may hold
    /// an SoA array of itself, and a chain of tables holding arrays of the
    /// next one is as long as the schema.
    pub fn soa_needs_validation(&self, elem: StructId) -> bool {
        self.soa(elem)
            .columns
            .iter()
            .any(|c| self.slot_check(&c.slot) != SlotCheck::Nothing)
    }

    /// The validator's plan for `slot` (see [`SlotCheck`]).
    pub fn slot_check<'l>(&self, slot: &'l Slot) -> SlotCheck<'l> {
        match slot {
            Slot::Scalar(Primitive::Bool) => SlotCheck::Bool,
            Slot::Scalar(_) | Slot::Enum { .. } => SlotCheck::Nothing,
            Slot::InlineStruct(id) if self.inline_needs_validation(*id) => SlotCheck::Inline(*id),
            Slot::InlineStruct(_) => SlotCheck::Nothing,
            Slot::TableRef(id) => SlotCheck::Table(*id),
            Slot::OptionalTable(id) => SlotCheck::OptionalTable(*id),
            Slot::Optional { value_at, value } => SlotCheck::Optional {
                value_at: *value_at,
                value,
            },
            Slot::Union { id, .. } => SlotCheck::Union(*id),
            Slot::FixedArray { elem, len, stride } => match elem {
                FixedElem::Scalar(Primitive::Bool) => SlotCheck::Bools { len: *len },
                FixedElem::InlineStruct(id) if self.inline_needs_validation(*id) => {
                    SlotCheck::InlineEach {
                        id: *id,
                        len: *len,
                        stride: *stride,
                    }
                }
                _ => SlotCheck::Nothing,
            },
            Slot::ArrayRef { array, data } => SlotCheck::Array {
                array,
                data,
                elem_size: data.elem_size(),
                limit: array.limit(),
            },
        }
    }
}

/// Whether some array of the schema laid out as `l` is a bunch array of
/// union `id` (`soa`: `#bovos`): a schema-wide fact the Zig and
/// AssemblyScript encoders and decoders ask before printing a union's bunch
/// helpers, decided here once instead of in one backend the other imports.
pub fn uses_bunch(l: &Layout, id: UnionId, soa: bool) -> bool {
    fn walk(data: &ArrayData, array: &ArrayType, id: UnionId, soa: bool) -> bool {
        match data {
            ArrayData::UnionBunch { id: u, .. } => {
                *u == id && (array.layout == ArrayLayout::BoVoS) == soa
            }
            ArrayData::Arrays { array, data } => walk(data, array, id, soa),
            _ => false,
        }
    }
    let mut slots: Vec<&Slot> = Vec::new();
    for st in &l.structs {
        slots.extend(st.fields.iter().map(|f| &f.slot));
    }
    for soa_l in l.soa.iter().flatten() {
        slots.extend(soa_l.columns.iter().map(|c| &c.slot));
    }
    slots.into_iter().any(|slot| {
        let slot = match slot {
            Slot::Optional { value, .. } => value,
            other => other,
        };
        matches!(slot, Slot::ArrayRef { array, data } if walk(data, array, id, soa))
    })
}

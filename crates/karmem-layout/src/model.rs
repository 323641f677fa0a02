//! Layout model types: where every byte of every type goes.
//!
//! Computed once from a checked [`Schema`](karmem_schema::model::Schema) by
//! [`crate::compute`]; code generators and the dynamic JSON codec read it and
//! never recompute offsets, sizes, columns or hashes themselves.
//! Indices (`StructId`, field index) match the schema model.

use karmem_schema::model::{ArrayType, EnumId, Field, Primitive, Schema, StructId, UnionId};

// The wire constants and the column hash are the format's, not this
// crate's: they live in `karmem-format` (RATIONALE.md R3.4), and are
// re-exported so that the generators ask one crate every layout question.
pub use karmem_format::{
    bunch_table_size, natural_align, path_hash, soa_directory_charge, soa_directory_size,
    ARRAY_ALIGN, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE, BUNCH_TABLE_ALIGN,
    HEADER_SIZE, MAGIC, OBJECT_ALIGN, OFFSET_SIZE, REF_SLOT_ALIGN, SOA_DIRECTORY_ALIGN,
    TABLE_HEADER_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE, VERSION,
};
/// Schema-side limits on flattening (format.md §5.3).
pub const MAX_FLATTEN_DEPTH: usize = 16;
pub const MAX_COLUMNS: usize = 1024;

#[derive(Clone, Debug)]
pub struct Layout {
    /// One entry per schema struct, same index.
    pub structs: Vec<StructLayout>,
    /// One entry per schema union, same index.
    pub unions: Vec<UnionLayout>,
    /// Flattened SoA layout of each struct used as an SoA element (same
    /// index as the schema's structs; `None` for structs never used so).
    /// Kept here rather than inside `ArrayData` because a table may hold an
    /// SoA array of itself (`struct Node table { Children []Node; }`).
    pub soa: Vec<Option<SoaLayout>>,
}

impl Layout {
    pub fn of_struct(&self, id: StructId) -> &StructLayout {
        &self.structs[id]
    }

    /// The flattened columns of `elem` as an SoA element.
    pub fn soa(&self, elem: StructId) -> &SoaLayout {
        self.soa[elem]
            .as_ref()
            .expect("layout computed the SoA of every struct used in an SoA array")
    }

    /// Bytes a slot occupies in its parent (a table, an inline struct, an
    /// SoA column value): what a presence check (`o + s ≤ used`, format.md
    /// §4) compares.
    pub fn slot_size(&self, slot: &Slot) -> u32 {
        match slot {
            Slot::Scalar(p) => p.size(),
            Slot::Enum { repr, .. } => repr.size(),
            Slot::InlineStruct(id) => self.of_struct(*id).size,
            Slot::TableRef(_) | Slot::OptionalTable(_) => OFFSET_SIZE,
            Slot::Optional { value_at, value } => value_at + self.slot_size(value),
            Slot::Union { .. } => UNION_SLOT_SIZE,
            Slot::FixedArray { len, stride, .. } => len * stride,
            Slot::ArrayRef { .. } => ARRAY_REF_SIZE,
        }
    }

    /// Does an inline struct hold anything a validator must look at?
    /// Numbers and enums need no check; a `bool` must be 0 or 1 (format.md
    /// §11), and anything holding an offset must be followed. Generators
    /// skip the validation of inline structs (and of arrays of them) for
    /// which this is false.
    ///
    /// Each inline struct it holds is looked at once, without recursion:
    /// a struct holding another twice, level after level, would otherwise
    /// be walked exponentially many times.
    pub fn inline_needs_validation(&self, id: StructId) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![id];
        while let Some(id) = todo.pop() {
            if !seen.insert(id) {
                continue;
            }
            for f in &self.of_struct(id).fields {
                match &f.slot {
                    Slot::Scalar(Primitive::Bool) => return true,
                    Slot::Scalar(_) | Slot::Enum { .. } => {}
                    Slot::InlineStruct(c) => todo.push(*c),
                    Slot::FixedArray { elem, .. } => match elem {
                        FixedElem::Scalar(Primitive::Bool) => return true,
                        FixedElem::InlineStruct(c) => todo.push(*c),
                        _ => {}
                    },
                    _ => return true,
                }
            }
        }
        false
    }
}

#[derive(Clone, Debug)]
pub struct StructLayout {
    /// Inline: padded size (a multiple of `align`). Table: `total × 8` (header
    /// included) — the bytes a writer reserves.
    pub size: u32,
    /// Inline: same as `size`. Table: used size (end of the last field,
    /// header included); the header stores `size/8` and `size − used`.
    pub used: u32,
    /// 8 for tables; for an inline struct, the largest alignment of its
    /// fields (1 when it has none).
    pub align: u32,
    /// One per schema field, same order. Table field offsets count from the
    /// start of the table (so the first field is at 4 or 8).
    pub fields: Vec<FieldLayout>,
    /// Precomputed table header word (`units | unused << 29`); 0 for inline.
    pub header: u32,
    /// `Z(T)` of format.md §10: traversal-budget units a decoder charges
    /// for building this struct's zero value (an absent or malformed
    /// table, a field past a table's `used`). A table: `size` (`S(T)`)
    /// plus the zero values of its non-optional table fields, through
    /// inline structs and fixed arrays of them, recursively. An inline
    /// struct: only the tables it holds (its bytes are its container's);
    /// 0 when it holds none. Saturating at `u64::MAX`.
    pub zero: u64,
}

#[derive(Clone, Debug)]
pub struct FieldLayout {
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    pub slot: Slot,
}

/// What sits in a field's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Scalar(Primitive),
    Enum {
        id: EnumId,
        repr: Primitive,
    },
    /// Embedded inline struct of `size` bytes.
    InlineStruct(StructId),
    /// `u32` offset to a table.
    TableRef(StructId),
    /// `?T` of a table: a `u32` offset, 0 = no value (format.md §4.2).
    OptionalTable(StructId),
    /// `?T` of anything else but a union: a presence byte (0 = no value,
    /// 1 = a value), then the value at `value_at` (its alignment; the
    /// bytes between are zero). Inline, so the slot is
    /// `value_at + size(value)` bytes.
    Optional {
        value_at: u32,
        value: Box<Slot>,
    },
    /// 8-byte union slot.
    Union {
        id: UnionId,
        tag: Primitive,
    },
    /// `[N]T` embedded: `len` elements of `stride` bytes.
    FixedArray {
        elem: FixedElem,
        len: u32,
        stride: u32,
    },
    /// 12-byte array reference; `data` says what the 8-aligned block holds.
    ArrayRef {
        array: ArrayType,
        data: ArrayData,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixedElem {
    Scalar(Primitive),
    Enum { id: EnumId, repr: Primitive },
    InlineStruct(StructId),
}

/// Contents of an out-of-line array block (format.md §5, §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayData {
    /// Scalars/enums (`elem_size` bytes each), text included.
    Plain { elem_size: u32 },
    /// Inline structs packed, `stride` = struct size.
    AosInline { id: StructId, stride: u32 },
    /// `u32` offsets to tables.
    AosTable { id: StructId },
    /// Directory + columns of the flattened element: `Layout::soa(elem)`.
    Soa { elem: StructId },
    /// 8-byte union slots.
    UnionAos { id: UnionId, tag: Primitive },
    /// Array references (12 bytes each, format.md §5.4), each of an
    /// `array` whose block holds `data`.
    Arrays {
        array: ArrayType,
        data: Box<ArrayData>,
    },
    /// Tag column then offset column.
    UnionSoa { id: UnionId, tag: Primitive },
    /// Bunch table; each variant is an AoS (`#bovoa`) or SoA (`#bovos`)
    /// array of its struct, described in `variants` (same order as the
    /// union's variants).
    UnionBunch {
        id: UnionId,
        tag: Primitive,
        variants: Vec<BunchVariant>,
    },
}

impl ArrayData {
    /// Bytes per element of the data block, as array bounds checks take it
    /// (capacity × this must fit in the message); 0 where the block is an
    /// SoA directory or a bunch table, whose own checks size it.
    pub fn elem_size(&self) -> u32 {
        match self {
            ArrayData::Plain { elem_size } => *elem_size,
            ArrayData::AosInline { stride, .. } => *stride,
            ArrayData::AosTable { .. } => OFFSET_SIZE,
            ArrayData::UnionAos { .. } => UNION_SLOT_SIZE,
            ArrayData::Arrays { .. } => ARRAY_REF_SIZE,
            ArrayData::Soa { .. } | ArrayData::UnionSoa { .. } | ArrayData::UnionBunch { .. } => 0,
        }
    }
}

impl Layout {
    /// Whether `id` is a table (it has a header word; an inline struct
    /// has none).
    pub fn is_table(&self, id: StructId) -> bool {
        self.of_struct(id).header != 0
    }

    /// The array block of one variant's elements in a bunch-of-values
    /// array (format.md §7.1): SoA of the variant's struct (`#bovos`), or
    /// AoS — table offsets or inline structs (`#bovoa`).
    pub fn bunch_variant_data(&self, ty: StructId, soa: bool) -> ArrayData {
        if soa {
            ArrayData::Soa { elem: ty }
        } else if self.is_table(ty) {
            ArrayData::AosTable { id: ty }
        } else {
            ArrayData::AosInline {
                id: ty,
                stride: self.of_struct(ty).size,
            }
        }
    }

    /// Traversal-budget units charged for a field past a table's `used`
    /// (format.md §10), beyond the table's own `S(T)`: what its zero value
    /// holds, `Z(U)` for a table field of type `U`, the tables inside an
    /// inline struct (per element of a fixed array of them), 0 for any
    /// other slot. A decoder charges it before it builds the value, a
    /// validator charges the same for the field.
    pub fn absent_charge(&self, slot: &Slot) -> u64 {
        crate::compute::absent_charge(&self.structs, slot)
    }

    /// Traversal-budget units a decoder charges per element it builds
    /// from an array whose block holds `data` (format.md §10, the decoder
    /// column), at least 1: a plain or text array its element size, AoS
    /// its stride (4 per table offset, 8 per union slot), an SoA union
    /// array its tag width + 4, an SoA array of structs
    /// [`SoaLayout::element_charge`]. `None` for a bunch-of-values array:
    /// each entry is charged as its variant's array
    /// ([`Layout::bunch_variant_data`]).
    pub fn decode_charge(&self, data: &ArrayData) -> Option<u32> {
        match data {
            ArrayData::Soa { elem } => Some(self.soa(*elem).element_charge()),
            ArrayData::UnionSoa { tag, .. } => Some(tag.size() + OFFSET_SIZE),
            ArrayData::UnionBunch { .. } => None,
            other => Some(other.elem_size().max(1)),
        }
    }
}

impl SoaLayout {
    /// Traversal-budget units per element of an SoA array (format.md §10):
    /// the sizes of every column the reader's schema knows, summed, at
    /// least 1 (an element without columns is not free).
    pub fn element_charge(&self) -> u32 {
        self.columns.iter().map(|c| c.size).sum::<u32>().max(1)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BunchVariant {
    pub tag: u32,
    pub ty: StructId,
    /// `AosInline`, `AosTable` or `Soa`.
    pub data: Box<ArrayData>,
}

/// The flattened element of an SoA array of structs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoaLayout {
    /// The element struct.
    pub elem: StructId,
    /// Columns in flattening order (= directory order when writing).
    pub columns: Vec<Column>,
    /// Size of the directory: `4 × (2n + 1)`.
    pub directory_size: u32,
}

/// One leaf of a flattened struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Declaration indices from the element struct down to the leaf.
    pub path: Vec<u32>,
    /// The structs walked, parallel to `path` (`steps[i]` owns field
    /// `path[i]`), so generators can name the column (`Data.Username`).
    pub steps: Vec<StructId>,
    /// FNV-1a of `path` (format.md §5.3).
    pub hash: u32,
    /// Bytes per value; the column stride.
    pub size: u32,
    /// Alignment of one value.
    pub align: u32,
    /// The leaf; never `InlineStruct` or `TableRef` (those are flattened).
    pub slot: Slot,
}

impl Column {
    /// The schema field this column holds: the leaf of `path`. Its default
    /// (docs/idl.md §4.3.1) is what the column reads as when a message's
    /// directory does not list it (an older writer, format.md §9).
    pub fn field<'s>(&self, schema: &'s Schema) -> &'s Field {
        let owner = *self.steps.last().expect("a column has a leaf");
        let index = *self.path.last().expect("a column has a leaf");
        &schema.structs[owner].fields[index as usize]
    }
}

#[derive(Clone, Debug)]
pub struct UnionLayout {
    pub tag: Primitive,
    /// Per variant (same order as the schema): where its value lives.
    pub variants: Vec<UnionVariantLayout>,
}

#[derive(Clone, Debug)]
pub struct UnionVariantLayout {
    pub tag: u32,
    pub ty: StructId,
    /// True when the variant is a table (offset to a table); false when it is
    /// an inline struct stored out of line at an 8-aligned offset.
    pub is_table: bool,
}

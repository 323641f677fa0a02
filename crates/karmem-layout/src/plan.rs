//! Per-slot plans: what generated code does with a slot, decided once for
//! every backend, so that a backend only prints the plan in its language
//! (RATIONALE.md R3.7): what a validator checks (format.md §11,
//! [`SlotCheck`], and in an array block [`ArrayCheck`]), how a decoder reads an array block and what each of its
//! elements costs the traversal budget (format.md §10, [`ArrayPlan`]), and
//! how a field is reached from its container ([`Access`], [`FieldPlan`]).

use karmem_schema::model::{
    ArrayLayout, ArrayType, DefaultValue, ElemType, Primitive, Schema, StructId, StructKind, Text,
    UnionId,
};

use crate::model::{ArrayData, BunchVariant, FixedElem, Layout, Slot};

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
    l.array_blocks().into_iter().any(|(array, data)| {
        matches!(data, ArrayData::UnionBunch { id: u, .. }
            if *u == id && (array.layout == ArrayLayout::BoVoS) == soa)
    })
}

impl Layout {
    /// Every array block of the schema, as `(array, data)`: the block of
    /// each array reference in a struct's field or an SoA column (an
    /// optional's value too), each followed by the blocks it holds when it
    /// is an array of arrays. A schema-wide fact generators ask before
    /// printing a type per block shape (C's viewers of arrays of arrays
    /// and bunch arrays, a map's lookup); a block used twice is listed
    /// twice.
    pub fn array_blocks(&self) -> Vec<(&ArrayType, &ArrayData)> {
        fn walk<'l>(
            array: &'l ArrayType,
            data: &'l ArrayData,
            out: &mut Vec<(&'l ArrayType, &'l ArrayData)>,
        ) {
            out.push((array, data));
            if let ArrayData::Arrays { array, data } = data {
                walk(array, data, out);
            }
        }
        let fields = self
            .structs
            .iter()
            .flat_map(|st| st.fields.iter().map(|f| &f.slot));
        let columns = self
            .soa
            .iter()
            .flatten()
            .flat_map(|soa| soa.columns.iter().map(|c| &c.slot));
        let mut out = Vec::new();
        for slot in fields.chain(columns) {
            let slot = match slot {
                Slot::Optional { value, .. } => value,
                other => other,
            };
            if let Slot::ArrayRef { array, data } = slot {
                walk(array, data, &mut out);
            }
        }
        out
    }
}

/// What one array block holds (format.md §5, §7) as encoders and decoders
/// walk it, with what each element costs a decoder's traversal budget
/// (format.md §10) already decided: every backend's array writer and
/// reader prints one of these, and no backend matches the block's
/// [`ArrayData`] or asks for the charge itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayPlan<'l> {
    /// Text: UTF-8 (or UTF-16 when `utf16`) code units, `charge` per unit.
    Text { utf16: bool, charge: u32 },
    /// Numbers, `bool`s or enums (`elem`), `elem_size` bytes apart.
    Plain {
        elem: ElemType,
        elem_size: u32,
        charge: u32,
    },
    /// Array references, each to an `array` whose block holds `data`; the
    /// inner reference is checked against `elem_size` and `limit`.
    Nested {
        array: &'l ArrayType,
        data: &'l ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        charge: u32,
    },
    /// Inline structs packed `stride` bytes apart; a map's entries when
    /// `map` (a writer refuses keys out of order, format.md §5.5).
    AosInline {
        id: StructId,
        stride: u32,
        map: bool,
        charge: u32,
    },
    /// `u32` offsets to tables.
    AosTable { id: StructId, charge: u32 },
    /// An SoA block of `elem`: the directory and the columns, charged by
    /// the element's SoA reader (it is shared by every array of `elem`).
    Soa { elem: StructId },
    /// 8-byte union slots.
    UnionAos { id: UnionId, charge: u32 },
    /// A tag column of `tag_size`-byte tags, then an offset column.
    UnionSoa {
        id: UnionId,
        tag_size: u32,
        charge: u32,
    },
    /// A bunch table (format.md §7.1) whose entries are AoS (`#bovoa`) or
    /// SoA (`soa`, `#bovos`) arrays of each variant's struct, read by the
    /// union's bunch reader.
    Bunch { id: UnionId, soa: bool },
}

impl Layout {
    /// The decoder's plan for an `array` whose block holds `data`.
    pub fn array_plan<'l>(&self, array: &'l ArrayType, data: &'l ArrayData) -> ArrayPlan<'l> {
        let charge = || self.decode_charge(data).unwrap_or(1);
        match (array.text, data) {
            (Some(text), _) => ArrayPlan::Text {
                utf16: text == Text::Utf16,
                charge: charge(),
            },
            (None, ArrayData::Plain { elem_size }) => ArrayPlan::Plain {
                elem: array.elem,
                elem_size: *elem_size,
                charge: charge(),
            },
            (None, ArrayData::Arrays { array, data: inner }) => ArrayPlan::Nested {
                array,
                data: inner,
                elem_size: inner.elem_size(),
                limit: array.limit(),
                charge: charge(),
            },
            (None, ArrayData::AosInline { id, stride }) => ArrayPlan::AosInline {
                id: *id,
                stride: *stride,
                map: array.is_map(),
                charge: charge(),
            },
            (None, ArrayData::AosTable { id }) => ArrayPlan::AosTable {
                id: *id,
                charge: charge(),
            },
            (None, ArrayData::Soa { elem }) => ArrayPlan::Soa { elem: *elem },
            (None, ArrayData::UnionAos { id, .. }) => ArrayPlan::UnionAos {
                id: *id,
                charge: charge(),
            },
            (None, ArrayData::UnionSoa { id, tag }) => ArrayPlan::UnionSoa {
                id: *id,
                tag_size: tag.size(),
                charge: charge(),
            },
            (None, ArrayData::UnionBunch { id, .. }) => ArrayPlan::Bunch {
                id: *id,
                soa: array.layout == ArrayLayout::BoVoS,
            },
        }
    }
}

/// Where a field's bytes are, relative to its container, and what a reader
/// does when they are not there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A table field at `off` (from the table's start), present when
    /// `off + size ≤ used` (format.md §4); past `used` it reads as its zero
    /// value (or default), and a decoder building it charges `absent`
    /// units for the tables that zero value holds (format.md §10).
    Table { off: u32, size: u32, absent: u64 },
    /// A field of an inline struct at `off` from the struct's start:
    /// always there (the struct is checked whole).
    Inline { off: u32 },
    /// Column `k` of an SoA element, `stride` bytes per element; present
    /// when the directory lists it (format.md §5.3). What an unlisted
    /// column's zero value holds is charged by the SoA reader for the whole
    /// array ([`SoaPlan::unlisted`]), so nothing per element.
    Column { k: usize, stride: u32 },
}

/// One field of a struct, or one column of an SoA element, as every
/// generated reader, writer and validator sees it.
#[derive(Clone, Copy, Debug)]
pub struct FieldPlan<'l> {
    /// The field's index in its own struct (for a column: in the leaf's).
    pub index: usize,
    pub slot: &'l Slot,
    pub access: Access,
    /// The default the field declares when it is not zero (docs/idl.md
    /// §4.3.1): what an absent field reads as (a reader starting from the
    /// object's defaults leaves it alone).
    pub default: Option<&'l DefaultValue>,
}

/// A struct as its generated readers and writers walk it.
#[derive(Clone, Debug)]
pub struct StructPlan<'l> {
    pub id: StructId,
    pub table: bool,
    /// See [`StructLayout::size`](crate::StructLayout::size).
    pub size: u32,
    /// `Z(T)` (format.md §10): charged for an absent table, or for an
    /// inline root that does not fit.
    pub zero: u64,
    pub fields: Vec<FieldPlan<'l>>,
}

/// The flattened element of an SoA array as its readers walk it.
#[derive(Clone, Debug)]
pub struct SoaPlan<'l> {
    pub elem: StructId,
    /// One per column, in directory order, each with [`Access::Column`].
    pub columns: Vec<FieldPlan<'l>>,
    /// Traversal-budget units per element (format.md §10).
    pub element_charge: u32,
    /// `(k, units)` for each column whose zero value holds tables: charged
    /// per element when the directory does not list column `k`.
    pub unlisted: Vec<(usize, u64)>,
}

impl Layout {
    /// The plan of struct `id` of `schema` (the schema this layout was
    /// computed from).
    pub fn struct_plan<'l>(&'l self, schema: &'l Schema, id: StructId) -> StructPlan<'l> {
        let sl = self.of_struct(id);
        let table = schema.structs[id].kind == StructKind::Table;
        let fields = sl
            .fields
            .iter()
            .zip(&schema.structs[id].fields)
            .enumerate()
            .map(|(index, (f, field))| FieldPlan {
                index,
                slot: &f.slot,
                access: if table {
                    Access::Table {
                        off: f.offset,
                        size: self.slot_size(&f.slot),
                        absent: self.absent_charge(&f.slot),
                    }
                } else {
                    Access::Inline { off: f.offset }
                },
                default: field.nonzero_default(),
            })
            .collect();
        StructPlan {
            id,
            table,
            size: sl.size,
            zero: sl.zero,
            fields,
        }
    }

    /// The plan of `elem` as the element of an SoA array.
    pub fn soa_plan<'l>(&'l self, schema: &'l Schema, elem: StructId) -> SoaPlan<'l> {
        let soa = self.soa(elem);
        let columns = soa
            .columns
            .iter()
            .enumerate()
            .map(|(k, col)| FieldPlan {
                index: *col.path.last().expect("a column has a leaf") as usize,
                slot: &col.slot,
                access: Access::Column {
                    k,
                    stride: col.size,
                },
                default: col.field(schema).nonzero_default(),
            })
            .collect();
        let unlisted = soa
            .columns
            .iter()
            .enumerate()
            .filter_map(|(k, col)| {
                let held = self.absent_charge(&col.slot);
                (held > 0).then_some((k, held))
            })
            .collect();
        SoaPlan {
            elem,
            columns,
            element_charge: soa.element_charge(),
            unlisted,
        }
    }
}

/// What a one-pass validator checks in an array block (format.md §11),
/// once the reference itself is checked. Whether there is anything to
/// check at all is the plan's answer ([`ArrayCheck::is_nothing`]), so a
/// printer never looks at the text it produced to decide whether to print
/// the loop around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayCheck<'l> {
    /// Numbers and enums: nothing (unknown enum values are valid, §2).
    Nothing,
    /// UTF-8 (or UTF-16) text.
    Text {
        utf16: bool,
    },
    /// `bool` bytes: each 0 or 1.
    Bools,
    /// Array references, each checked against `elem_size` and `limit` like
    /// a field's, then (when `each`) its block as `array_check(array, data)`.
    Nested {
        array: &'l ArrayType,
        data: &'l ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
    },
    UnionAos {
        id: UnionId,
    },
    UnionSoa {
        id: UnionId,
        tag_size: u32,
    },
    /// A bunch table and, per entry, its variant's struct array.
    Bunch {
        id: UnionId,
        variants: &'l [BunchVariant],
    },
    /// A map's entries (inline structs `stride` apart, each checked when
    /// `each`), then its keys strictly increasing (format.md §5.5).
    Map {
        id: StructId,
        stride: u32,
        each: bool,
    },
    /// Inline structs `stride` apart, each checked when `each` (when it
    /// holds something checkable).
    AosInline {
        id: StructId,
        stride: u32,
        each: bool,
    },
    AosTable {
        id: StructId,
    },
    Soa {
        elem: StructId,
    },
}

impl ArrayCheck<'_> {
    /// Nothing is checked in the block (the reference still is).
    pub fn is_nothing(&self) -> bool {
        matches!(
            self,
            ArrayCheck::Nothing | ArrayCheck::AosInline { each: false, .. }
        )
    }
}

impl Layout {
    /// The validator's plan for an `array` whose block holds `data`.
    pub fn array_check<'l>(&self, array: &'l ArrayType, data: &'l ArrayData) -> ArrayCheck<'l> {
        match (array.text, data) {
            (Some(text), _) => ArrayCheck::Text {
                utf16: text == Text::Utf16,
            },
            (None, ArrayData::Plain { .. }) if array.elem == ElemType::Scalar(Primitive::Bool) => {
                ArrayCheck::Bools
            }
            (None, ArrayData::Plain { .. }) => ArrayCheck::Nothing,
            (None, ArrayData::Arrays { array, data }) => ArrayCheck::Nested {
                array,
                data,
                elem_size: data.elem_size(),
                limit: array.limit(),
                each: !self.array_check(array, data).is_nothing(),
            },
            (None, ArrayData::UnionAos { id, .. }) => ArrayCheck::UnionAos { id: *id },
            (None, ArrayData::UnionSoa { id, tag }) => ArrayCheck::UnionSoa {
                id: *id,
                tag_size: tag.size(),
            },
            (None, ArrayData::UnionBunch { id, variants, .. }) => {
                ArrayCheck::Bunch { id: *id, variants }
            }
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => ArrayCheck::Map {
                id: *id,
                stride: *stride,
                each: self.inline_needs_validation(*id),
            },
            (None, data) => self.struct_array_check(data),
        }
    }

    /// The validator's plan for a block of structs (`AosInline`,
    /// `AosTable` or `Soa`: an array of structs, or one variant's values in
    /// a bunch array).
    pub fn struct_array_check<'l>(&self, data: &ArrayData) -> ArrayCheck<'l> {
        match data {
            ArrayData::AosInline { id, stride } => ArrayCheck::AosInline {
                id: *id,
                stride: *stride,
                each: self.inline_needs_validation(*id),
            },
            ArrayData::AosTable { id } => ArrayCheck::AosTable { id: *id },
            ArrayData::Soa { elem } => ArrayCheck::Soa { elem: *elem },
            other => unreachable!("not a block of structs: {other:?}"),
        }
    }
}

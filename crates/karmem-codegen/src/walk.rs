//! The shared traversal of the layout plan (RATIONALE.md R3.7): one walker
//! decides, for every field, SoA column, slot and array block, which node of
//! the plan (`karmem_layout::plan`) a generated decoder must read
//! ([`DecodePrinter`]), a validator must check ([`ValidatePrinter`]), an
//! encoder must write ([`EncodePrinter`]) or a zero-copy viewer's accessor
//! must read ([`ViewPrinter`]), and
//! a per-language printer only prints that node. A backend never matches a
//! [`Slot`] or an array block itself, never asks for a charge, never looks
//! at the text it printed to decide whether a check is empty, and cannot
//! leave a node out: no node method has a default, so a new kind of
//! slot or block is a compile error in every printer until each answers it.

use karmem_layout::{
    Access, ArrayCheck, ArrayData, ArrayPlan, BunchVariant, FieldPlan, FixedElem, Layout, Slot,
    SlotCheck,
};
use karmem_schema::model::{
    ArrayType, DefaultValue, ElemType, EnumId, Primitive, StructId, UnionId,
};

/// Where a slot's bytes are, in the code being printed.
#[derive(Clone)]
pub(crate) enum Ctx {
    /// A field at `off` of the table the generated function is reading.
    Table { off: u32 },
    /// A position given as an expression; `present` is a condition under
    /// which the slot is there (`None`: always).
    Pos {
        pos: String,
        present: Option<String>,
    },
}

impl Ctx {
    /// What a slot's zero value holds, charged when the slot is a field
    /// past its table's `used` (format.md §10; its own bytes are the
    /// table's). Nothing at a fixed position: an SoA column's are charged
    /// for the whole array, and other positions are always there.
    pub(crate) fn absent_charge(&self, l: &Layout, slot: &Slot) -> u64 {
        match self {
            Ctx::Table { .. } => l.absent_charge(slot),
            Ctx::Pos { .. } => 0,
        }
    }
}

/// One slot as the walker hands it to a printer: where it is, whether it
/// is there, and what to charge when it is not.
pub(crate) struct Here<'a> {
    pub ctx: &'a Ctx,
    /// The expression of the slot's position.
    pub pos: String,
    /// The condition under which the slot is present (`None`: always).
    pub present: Option<String>,
    /// Units charged when the slot is absent and built as its zero value
    /// ([`Ctx::absent_charge`]).
    pub held: u64,
    /// The default an absent slot reads as, when the field declares one
    /// other than zero (docs/idl.md §4.3.1).
    pub default: Option<&'a DefaultValue>,
}

/// What every printer says about positions in its language.
pub(crate) trait SlotPrinter {
    type Code;

    fn layout(&self) -> &Layout;
    /// The position expression and presence condition of a slot of `size`
    /// bytes at `ctx`.
    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>);
    /// The position of a field at `off` in the inline struct at `at`.
    fn inline_pos(&self, off: u32) -> String;
    /// The position of element `i` in SoA column `k` (`stride` bytes a
    /// value), and the condition under which the column is there (the
    /// directory lists it).
    fn column_pos(&self, k: usize, stride: u32) -> (String, String);

    /// The context of a field reached by `access` (a table field, a field
    /// of an inline struct at `at`, an SoA column of element `i`).
    fn field_ctx(&self, access: Access) -> Ctx {
        match access {
            Access::Table { off, .. } => Ctx::Table { off },
            Access::Inline { off } => Ctx::Pos {
                pos: self.inline_pos(off),
                present: None,
            },
            Access::Column { k, stride } => {
                let (pos, present) = self.column_pos(k, stride);
                Ctx::Pos {
                    pos,
                    present: Some(present),
                }
            }
        }
    }

    /// Where `slot` is at `ctx`, for the printer's methods.
    fn here<'c>(&self, slot: &Slot, ctx: &'c Ctx) -> Here<'c> {
        let l = self.layout();
        let (pos, present) = self.place(ctx, l.slot_size(slot));
        // A field past its table's `used` is built as its zero value: the
        // tables that holds are charged first (an SoA reader charges a
        // column's for the whole array, before its elements are made); a
        // validator charges the same for it.
        Here {
            ctx,
            pos,
            present,
            held: ctx.absent_charge(l, slot),
            default: None,
        }
    }
}

/// A decoder's printer: one method per node of the plan. `place` is the
/// target the printed code assigns; `a` names the array reference the
/// printed code loaded (each language keeps it its own way).
pub(crate) trait DecodePrinter: SlotPrinter {
    // ---- slots -----------------------------------------------------------

    /// A number, `bool` or enum (`slot` is `Scalar` or `Enum`).
    fn value(&self, c: &mut Self::Code, slot: &Slot, place: &str, at: &Here);
    fn inline(&self, c: &mut Self::Code, id: StructId, place: &str, at: &Here);
    fn table(&self, c: &mut Self::Code, id: StructId, place: &str, at: &Here);
    fn optional_table(&self, c: &mut Self::Code, id: StructId, place: &str, at: &Here);
    /// `?T` but a table: the presence byte, then the value at `value_at`
    /// (the printer reads it with [`read_slot`]).
    fn optional(&self, c: &mut Self::Code, value_at: u32, value: &Slot, place: &str, at: &Here);
    fn union(&self, c: &mut Self::Code, id: UnionId, place: &str, at: &Here);
    fn fixed(
        &self,
        c: &mut Self::Code,
        elem: FixedElem,
        len: u32,
        stride: u32,
        place: &str,
        at: &Here,
    );
    /// An array reference checked against `elem_size` and `limit`; the
    /// printer loads it and reads its block with [`read_array`].
    #[allow(clippy::too_many_arguments)]
    fn array(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    );

    // ---- array blocks (each `charge` units per element, format.md §10) ---

    fn text(&self, c: &mut Self::Code, utf16: bool, charge: u32, place: &str, a: &str);
    fn plain(
        &self,
        c: &mut Self::Code,
        elem: ElemType,
        elem_size: u32,
        charge: u32,
        place: &str,
        a: &str,
    );
    /// Array references, each read with [`read_array`].
    #[allow(clippy::too_many_arguments)]
    fn nested(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    );
    fn aos_inline(
        &self,
        c: &mut Self::Code,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    );
    /// A map's entries (inline structs `stride` apart, in key order),
    /// decoded into the language's map type (`array` is the map's).
    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    );
    fn aos_table(&self, c: &mut Self::Code, id: StructId, charge: u32, place: &str, a: &str);
    fn soa(&self, c: &mut Self::Code, elem: StructId, place: &str, a: &str);
    fn union_aos(&self, c: &mut Self::Code, id: UnionId, charge: u32, place: &str, a: &str);
    fn union_soa(
        &self,
        c: &mut Self::Code,
        id: UnionId,
        tag_size: u32,
        charge: u32,
        place: &str,
        a: &str,
    );
    fn bunch(&self, c: &mut Self::Code, id: UnionId, soa: bool, place: &str, a: &str);
}

/// Reads every field of `fields` (a struct's, or an SoA element's columns)
/// into the place `place_of` names for it.
pub(crate) fn read_fields<P: DecodePrinter>(
    p: &P,
    c: &mut P::Code,
    fields: &[FieldPlan],
    place_of: impl Fn(usize, &FieldPlan) -> String,
) {
    for (k, f) in fields.iter().enumerate() {
        let ctx = p.field_ctx(f.access);
        read_slot(p, c, f.slot, &place_of(k, f), &ctx, f.default);
    }
}

/// Reads one slot at `ctx` into `place`. Objects start at their defaults,
/// so an absent slot is left as it is: zero, or the declared default when
/// `default`.
pub(crate) fn read_slot<P: DecodePrinter>(
    p: &P,
    c: &mut P::Code,
    slot: &Slot,
    place: &str,
    ctx: &Ctx,
    default: Option<&DefaultValue>,
) {
    let at = Here {
        default,
        ..p.here(slot, ctx)
    };
    match slot {
        Slot::Scalar(_) | Slot::Enum { .. } => p.value(c, slot, place, &at),
        Slot::InlineStruct(id) => p.inline(c, *id, place, &at),
        Slot::TableRef(id) => p.table(c, *id, place, &at),
        Slot::OptionalTable(id) => p.optional_table(c, *id, place, &at),
        Slot::Optional { value_at, value } => p.optional(c, *value_at, value, place, &at),
        Slot::Union { id, .. } => p.union(c, *id, place, &at),
        Slot::FixedArray { elem, len, stride } => p.fixed(c, *elem, *len, *stride, place, &at),
        Slot::ArrayRef { array, data } => {
            p.array(c, array, data, data.elem_size(), array.limit(), place, &at)
        }
    }
}

/// Reads the block of the array reference `a` (loaded by the printer) into
/// `place`, as the layout's [`ArrayPlan`] plan says.
pub(crate) fn read_array<P: DecodePrinter>(
    p: &P,
    c: &mut P::Code,
    array: &ArrayType,
    data: &ArrayData,
    place: &str,
    a: &str,
) {
    match p.layout().array_plan(array, data) {
        ArrayPlan::Text { utf16, charge } => p.text(c, utf16, charge, place, a),
        ArrayPlan::Plain {
            elem,
            elem_size,
            charge,
        } => p.plain(c, elem, elem_size, charge, place, a),
        ArrayPlan::Nested {
            array,
            data,
            elem_size,
            limit,
            charge,
        } => p.nested(c, array, data, elem_size, limit, charge, place, a),
        ArrayPlan::AosInline {
            id,
            stride,
            map: false,
            charge,
        } => p.aos_inline(c, id, stride, charge, place, a),
        ArrayPlan::AosInline {
            id,
            stride,
            map: true,
            charge,
        } => p.map(c, array, id, stride, charge, place, a),
        ArrayPlan::AosTable { id, charge } => p.aos_table(c, id, charge, place, a),
        ArrayPlan::Soa { elem } => p.soa(c, elem, place, a),
        ArrayPlan::UnionAos { id, charge } => p.union_aos(c, id, charge, place, a),
        ArrayPlan::UnionSoa {
            id,
            tag_size,
            charge,
        } => p.union_soa(c, id, tag_size, charge, place, a),
        ArrayPlan::Bunch { id, soa } => p.bunch(c, id, soa, place, a),
    }
}

/// A validator's printer (format.md §11): one method per node of the
/// validator's plan ([`SlotCheck`], [`ArrayCheck`]). Nodes with nothing to
/// check never reach it; `each` says whether a node's inner block has
/// checks, so the printer knows whether to print the loop around them.
pub(crate) trait ValidatePrinter: SlotPrinter {
    // ---- slots -----------------------------------------------------------

    fn bool(&self, c: &mut Self::Code, at: &Here);
    fn inline(&self, c: &mut Self::Code, id: StructId, at: &Here);
    fn table(&self, c: &mut Self::Code, id: StructId, at: &Here);
    fn optional_table(&self, c: &mut Self::Code, id: StructId, at: &Here);
    /// The presence byte, then (when `checked`: the value has checks) the
    /// value at `value_at`, which the printer checks with
    /// [`validate_slot`].
    fn optional(&self, c: &mut Self::Code, value_at: u32, value: &Slot, checked: bool, at: &Here);
    fn union(&self, c: &mut Self::Code, id: UnionId, at: &Here);
    fn bools(&self, c: &mut Self::Code, len: u32, at: &Here);
    fn inline_each(&self, c: &mut Self::Code, id: StructId, len: u32, stride: u32, at: &Here);
    /// An array reference checked against `elem_size` and `limit`; when
    /// `each`, its block then with [`validate_array`].
    #[allow(clippy::too_many_arguments)]
    fn array(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        at: &Here,
    );

    // ---- array blocks ----------------------------------------------------

    fn text(&self, c: &mut Self::Code, utf16: bool, a: &str);
    fn bool_block(&self, c: &mut Self::Code, a: &str);
    #[allow(clippy::too_many_arguments)]
    fn nested(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    );
    fn union_aos(&self, c: &mut Self::Code, id: UnionId, a: &str);
    fn union_soa(&self, c: &mut Self::Code, id: UnionId, tag_size: u32, a: &str);
    /// Each entry's block is checked with [`validate_array_of`] its
    /// variant's [`Layout::struct_array_check`].
    fn bunch(&self, c: &mut Self::Code, id: UnionId, variants: &[BunchVariant], a: &str);
    fn map(&self, c: &mut Self::Code, id: StructId, stride: u32, each: bool, a: &str);
    /// Prints nothing unless `each`.
    fn aos_inline(&self, c: &mut Self::Code, id: StructId, stride: u32, each: bool, a: &str);
    fn aos_table(&self, c: &mut Self::Code, id: StructId, a: &str);
    fn soa(&self, c: &mut Self::Code, elem: StructId, a: &str);
}

/// Checks one slot at `ctx` (nothing when its plan is
/// [`SlotCheck::Nothing`]).
pub(crate) fn validate_slot<P: ValidatePrinter>(p: &P, c: &mut P::Code, slot: &Slot, ctx: &Ctx) {
    let check = p.layout().slot_check(slot);
    if check == SlotCheck::Nothing {
        return;
    }
    let at = p.here(slot, ctx);
    match check {
        SlotCheck::Nothing => {}
        SlotCheck::Bool => p.bool(c, &at),
        SlotCheck::Inline(id) => p.inline(c, id, &at),
        SlotCheck::Table(id) => p.table(c, id, &at),
        SlotCheck::OptionalTable(id) => p.optional_table(c, id, &at),
        SlotCheck::Optional { value_at, value } => {
            let checked = p.layout().slot_check(value) != SlotCheck::Nothing;
            p.optional(c, value_at, value, checked, &at)
        }
        SlotCheck::Union(id) => p.union(c, id, &at),
        SlotCheck::Bools { len } => p.bools(c, len, &at),
        SlotCheck::InlineEach { id, len, stride } => p.inline_each(c, id, len, stride, &at),
        SlotCheck::Array {
            array,
            data,
            elem_size,
            limit,
        } => {
            let each = !p.layout().array_check(array, data).is_nothing();
            p.array(c, array, data, elem_size, limit, each, &at)
        }
    }
}

/// Checks the block of the array reference `a` (checked and loaded by the
/// printer), as the layout's [`ArrayCheck`] plan says.
pub(crate) fn validate_array<P: ValidatePrinter>(
    p: &P,
    c: &mut P::Code,
    array: &ArrayType,
    data: &ArrayData,
    a: &str,
) {
    validate_array_of(p, c, p.layout().array_check(array, data), a)
}

/// Prints the checks of one [`ArrayCheck`] plan on block `a`.
pub(crate) fn validate_array_of<P: ValidatePrinter>(
    p: &P,
    c: &mut P::Code,
    check: ArrayCheck,
    a: &str,
) {
    match check {
        ArrayCheck::Nothing => {}
        ArrayCheck::Text { utf16 } => p.text(c, utf16, a),
        ArrayCheck::Bools => p.bool_block(c, a),
        ArrayCheck::Nested {
            array,
            data,
            elem_size,
            limit,
            each,
        } => p.nested(c, array, data, elem_size, limit, each, a),
        ArrayCheck::UnionAos { id } => p.union_aos(c, id, a),
        ArrayCheck::UnionSoa { id, tag_size } => p.union_soa(c, id, tag_size, a),
        ArrayCheck::Bunch { id, variants } => p.bunch(c, id, variants, a),
        ArrayCheck::Map { id, stride, each } => p.map(c, id, stride, each, a),
        ArrayCheck::AosInline { id, stride, each } => p.aos_inline(c, id, stride, each, a),
        ArrayCheck::AosTable { id } => p.aos_table(c, id, a),
        ArrayCheck::Soa { elem } => p.soa(c, elem, a),
    }
}

/// An encoder's printer (format.md §8): one method per node of the plan.
/// `value` is the expression of what is written, `pos` the position of its
/// slot.
pub(crate) trait EncodePrinter: SlotPrinter {
    // ---- slots -----------------------------------------------------------

    /// A number, `bool` or enum (`slot` is `Scalar` or `Enum`).
    fn write_value(&self, c: &mut Self::Code, slot: &Slot, value: &str, pos: &str);
    fn write_inline(&self, c: &mut Self::Code, id: StructId, value: &str, pos: &str);
    fn write_table(&self, c: &mut Self::Code, id: StructId, value: &str, pos: &str);
    fn write_optional_table(&self, c: &mut Self::Code, id: StructId, value: &str, pos: &str);
    /// The presence byte and the value at `value_at` (the printer writes it
    /// with [`write_slot`]) when there is one.
    fn write_optional(
        &self,
        c: &mut Self::Code,
        value_at: u32,
        inner: &Slot,
        value: &str,
        pos: &str,
    );
    fn write_union(&self, c: &mut Self::Code, id: UnionId, value: &str, pos: &str);
    #[allow(clippy::too_many_arguments)]
    fn write_fixed(
        &self,
        c: &mut Self::Code,
        elem: FixedElem,
        len: u32,
        stride: u32,
        value: &str,
        pos: &str,
    );
    /// An array reference: the printer refuses a value over a limited
    /// array's `N` and writes the block with [`write_array`].
    fn write_array_ref(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    );

    // ---- array blocks ----------------------------------------------------

    fn write_text(&self, c: &mut Self::Code, utf16: bool, value: &str, pos: &str);
    fn write_plain(
        &self,
        c: &mut Self::Code,
        elem: ElemType,
        elem_size: u32,
        value: &str,
        pos: &str,
    );
    /// Array references, each written with [`write_array`].
    fn write_nested(
        &self,
        c: &mut Self::Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    );
    /// `map`: the entries of a map, refused out of key order.
    #[allow(clippy::too_many_arguments)]
    fn write_aos_inline(
        &self,
        c: &mut Self::Code,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    );
    fn write_aos_table(&self, c: &mut Self::Code, id: StructId, value: &str, pos: &str);
    fn write_soa(&self, c: &mut Self::Code, elem: StructId, value: &str, pos: &str);
    fn write_union_aos(&self, c: &mut Self::Code, id: UnionId, value: &str, pos: &str);
    fn write_union_soa(
        &self,
        c: &mut Self::Code,
        id: UnionId,
        tag_size: u32,
        value: &str,
        pos: &str,
    );
    fn write_bunch(&self, c: &mut Self::Code, id: UnionId, soa: bool, value: &str, pos: &str);
}

/// Writes one slot holding `value` at `pos`.
pub(crate) fn write_slot<P: EncodePrinter>(
    p: &P,
    c: &mut P::Code,
    slot: &Slot,
    value: &str,
    pos: &str,
) {
    match slot {
        Slot::Scalar(_) | Slot::Enum { .. } => p.write_value(c, slot, value, pos),
        Slot::InlineStruct(id) => p.write_inline(c, *id, value, pos),
        Slot::TableRef(id) => p.write_table(c, *id, value, pos),
        Slot::OptionalTable(id) => p.write_optional_table(c, *id, value, pos),
        Slot::Optional {
            value_at,
            value: inner,
        } => p.write_optional(c, *value_at, inner, value, pos),
        Slot::Union { id, .. } => p.write_union(c, *id, value, pos),
        Slot::FixedArray { elem, len, stride } => {
            p.write_fixed(c, *elem, *len, *stride, value, pos)
        }
        Slot::ArrayRef { array, data } => p.write_array_ref(c, array, data, value, pos),
    }
}

/// Writes the block of an `array` holding `value` and its reference at
/// `pos`, as the layout's [`ArrayPlan`] says.
pub(crate) fn write_array<P: EncodePrinter>(
    p: &P,
    c: &mut P::Code,
    array: &ArrayType,
    data: &ArrayData,
    value: &str,
    pos: &str,
) {
    match p.layout().array_plan(array, data) {
        ArrayPlan::Text { utf16, .. } => p.write_text(c, utf16, value, pos),
        ArrayPlan::Plain {
            elem, elem_size, ..
        } => p.write_plain(c, elem, elem_size, value, pos),
        ArrayPlan::Nested { array, data, .. } => p.write_nested(c, array, data, value, pos),
        ArrayPlan::AosInline {
            id, stride, map, ..
        } => p.write_aos_inline(c, id, stride, map, value, pos),
        ArrayPlan::AosTable { id, .. } => p.write_aos_table(c, id, value, pos),
        ArrayPlan::Soa { elem } => p.write_soa(c, elem, value, pos),
        ArrayPlan::UnionAos { id, .. } => p.write_union_aos(c, id, value, pos),
        ArrayPlan::UnionSoa { id, tag_size, .. } => p.write_union_soa(c, id, tag_size, value, pos),
        ArrayPlan::Bunch { id, soa } => p.write_bunch(c, id, soa, value, pos),
    }
}

/// One slot as the walker hands it to a viewer's printer: the slot (for
/// its size and its default's literal), where the viewer reads it (the
/// printer's own context: a field of the viewed table or struct, an SoA
/// column of an element, a map entry's key or value), and the default it
/// reads as when absent.
pub(crate) struct ViewAt<'a, C> {
    pub slot: &'a Slot,
    pub ctx: &'a C,
    pub default: Option<&'a DefaultValue>,
}

/// A viewer's printer (checked and trusted zero-copy viewers): one method
/// per node of the plan a viewer's accessor distinguishes, each returning
/// what the printer makes of it (`Accessor` for a slot, `View` for an array
/// block; each language keeps its own shape). `arg` is what a block's view
/// is made from (the printer's reader and reference expressions).
pub(crate) trait ViewPrinter: SlotPrinter {
    type Ctx;
    type Accessor;
    type Arg: ?Sized;
    type View;

    // ---- slots -----------------------------------------------------------

    fn view_bool(&self, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    /// A number but `bool`.
    fn view_number(&self, prim: Primitive, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_enum(&self, id: EnumId, repr: Primitive, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_inline(&self, id: StructId, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_table(&self, id: StructId, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_optional_table(&self, id: StructId, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    /// `?T` but a table: the presence byte, then the value at `value_at`
    /// (the printer views it with [`view_slot`]).
    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_union(&self, id: UnionId, at: &ViewAt<Self::Ctx>) -> Self::Accessor;
    fn view_fixed(
        &self,
        elem: FixedElem,
        len: u32,
        stride: u32,
        at: &ViewAt<Self::Ctx>,
    ) -> Self::Accessor;
    /// An array reference checked against `elem_size` and `limit`; the
    /// printer views its block with [`view_array`].
    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        at: &ViewAt<Self::Ctx>,
    ) -> Self::Accessor;

    // ---- array blocks ----------------------------------------------------

    fn view_text(&self, utf16: bool, arg: &Self::Arg) -> Self::View;
    fn view_plain(&self, elem: ElemType, elem_size: u32, arg: &Self::Arg) -> Self::View;
    /// Array references, each checked against `elem_size` and `limit` and
    /// viewed with [`view_array`].
    fn view_nested(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        arg: &Self::Arg,
    ) -> Self::View;
    fn view_aos_inline(&self, id: StructId, stride: u32, arg: &Self::Arg) -> Self::View;
    /// A map's entries: inline structs `id` (key, then value) `stride`
    /// bytes apart.
    fn view_map(&self, id: StructId, stride: u32, arg: &Self::Arg) -> Self::View;
    fn view_aos_table(&self, id: StructId, arg: &Self::Arg) -> Self::View;
    fn view_soa(&self, elem: StructId, arg: &Self::Arg) -> Self::View;
    fn view_union_aos(&self, id: UnionId, arg: &Self::Arg) -> Self::View;
    fn view_union_soa(&self, id: UnionId, tag_size: u32, arg: &Self::Arg) -> Self::View;
    fn view_bunch(&self, id: UnionId, soa: bool, arg: &Self::Arg) -> Self::View;
}

/// The accessor of one slot at `ctx`, reading as `default` when absent.
pub(crate) fn view_slot<P: ViewPrinter>(
    p: &P,
    slot: &Slot,
    ctx: &P::Ctx,
    default: Option<&DefaultValue>,
) -> P::Accessor {
    let at = ViewAt { slot, ctx, default };
    match slot {
        Slot::Scalar(Primitive::Bool) => p.view_bool(&at),
        Slot::Scalar(prim) => p.view_number(*prim, &at),
        Slot::Enum { id, repr } => p.view_enum(*id, *repr, &at),
        Slot::InlineStruct(id) => p.view_inline(*id, &at),
        Slot::TableRef(id) => p.view_table(*id, &at),
        Slot::OptionalTable(id) => p.view_optional_table(*id, &at),
        Slot::Optional { value_at, value } => p.view_optional(*value_at, value, &at),
        Slot::Union { id, .. } => p.view_union(*id, &at),
        Slot::FixedArray { elem, len, stride } => p.view_fixed(*elem, *len, *stride, &at),
        Slot::ArrayRef { array, data } => {
            p.view_array_ref(array, data, data.elem_size(), array.limit(), &at)
        }
    }
}

/// The view of the block of an `array` holding `data`, as the layout's
/// [`ArrayPlan`] says.
pub(crate) fn view_array<P: ViewPrinter>(
    p: &P,
    array: &ArrayType,
    data: &ArrayData,
    arg: &P::Arg,
) -> P::View {
    match p.layout().array_plan(array, data) {
        ArrayPlan::Text { utf16, .. } => p.view_text(utf16, arg),
        ArrayPlan::Plain {
            elem, elem_size, ..
        } => p.view_plain(elem, elem_size, arg),
        ArrayPlan::Nested {
            array,
            data,
            elem_size,
            limit,
            ..
        } => p.view_nested(array, data, elem_size, limit, arg),
        ArrayPlan::AosInline {
            id,
            stride,
            map: false,
            ..
        } => p.view_aos_inline(id, stride, arg),
        ArrayPlan::AosInline {
            id,
            stride,
            map: true,
            ..
        } => p.view_map(id, stride, arg),
        ArrayPlan::AosTable { id, .. } => p.view_aos_table(id, arg),
        ArrayPlan::Soa { elem } => p.view_soa(elem, arg),
        ArrayPlan::UnionAos { id, .. } => p.view_union_aos(id, arg),
        ArrayPlan::UnionSoa { id, tag_size, .. } => p.view_union_soa(id, tag_size, arg),
        ArrayPlan::Bunch { id, soa } => p.view_bunch(id, soa, arg),
    }
}

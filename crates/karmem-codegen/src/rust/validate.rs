//! Generated validators: the per-slot, per-array and per-SoA-column checks
//! run once over a message (format.md §11) before it is read trusted.

use karmem_layout::{
    ArrayData, Column, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, OFFSET_SIZE,
    UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::{limit, mul, rust_limit, rust_prim, Ctx, Gen};

impl Gen<'_> {
    pub(super) fn validate_slot(&self, c: &mut Code, slot: &Slot, ctx: &Ctx) {
        let (pos, present) = ctx.pos_present(self.l.slot_size(slot));
        // A field past its table's `used` is charged what a decoder builds
        // for it beyond the table's bytes: the tables of its zero value
        // (format.md §10).
        let held = self.l.absent_charge(slot);
        // The checks `code` writes, inside `if present { … }` unless the
        // slot is always there; nothing when there is nothing to check.
        let when = |c: &mut Code, code: &dyn Fn(&mut Code)| {
            if present == "true" {
                code(c);
                return;
            }
            let mut inner = Code::new(c.indent + 1);
            code(&mut inner);
            if !inner.out.is_empty() {
                c.open(&format!("if {present} {{"));
                c.splice(&inner);
                if held > 0 {
                    c.reopen("} else {");
                    c.line(&format!("v.charge({held})?;"));
                }
                c.close("}");
            }
        };
        match self.l.slot_check(slot) {
            SlotCheck::Nothing => {}
            SlotCheck::Bool => when(c, &|c| c.line(&format!("v.bool_at({pos})?;"))),
            SlotCheck::Inline(id) => {
                let s = self.n.struct_name(id);
                when(c, &|c| c.line(&format!("{s}::validate_at(v, {pos})?;")))
            }
            SlotCheck::Table(id) => {
                let s = self.n.struct_name(id);
                when(c, &|c| {
                    let r = c.r();
                    c.line(&format!(
                        "let child = v.table({r}.get::<u32>({pos}), {s}::FULL_SIZE)?;"
                    ));
                    c.line(&format!("{s}::validate_table(v, child)?;"));
                })
            }
            SlotCheck::OptionalTable(id) => {
                let s = self.n.struct_name(id);
                when(c, &|c| {
                    let r = c.r();
                    c.line(&format!("let offset = {r}.get::<u32>({pos});"));
                    c.open("if offset != 0 {");
                    c.line(&format!("let child = v.table(offset, {s}::FULL_SIZE)?;"));
                    c.line(&format!("{s}::validate_table(v, child)?;"));
                    c.close("}");
                })
            }
            // The presence byte is 0 or 1 (format.md §4.2); the value is
            // checked only when there is one.
            SlotCheck::Optional { value_at, value } => when(c, &|c| {
                c.line(&format!("v.bool_at({pos})?;"));
                let mut inner = Code::new(c.indent + 1);
                let at = Ctx::Pos {
                    pos: ctx.value_pos(value_at),
                    present: "true".into(),
                };
                self.validate_slot(&mut inner, value, &at);
                if !inner.out.is_empty() {
                    let r = c.r();
                    c.open(&format!("if {r}.get::<u8>({pos}) != 0 {{"));
                    c.splice(&inner);
                    c.close("}");
                }
            }),
            SlotCheck::Union(id) => {
                let u = self.union_value(id);
                when(c, &|c| {
                    c.line(&format!(
                        "{u}::validate_parts(v, {pos}, {pos} + {UNION_OFFSET_AT})?;"
                    ))
                })
            }
            SlotCheck::Bools { len } => when(c, &|c| c.line(&format!("v.bools({pos}, {len})?;"))),
            SlotCheck::InlineEach { id, len, stride } => {
                let s = self.n.struct_name(id);
                when(c, &|c| {
                    c.open(&format!("for j in 0..{len}u32 {{"));
                    c.line(&format!(
                        "{s}::validate_at(v, {pos} + {})?;",
                        mul("j", stride)
                    ));
                    c.close("}");
                })
            }
            SlotCheck::Array {
                array,
                data,
                elem_size: es,
                limit,
            } => {
                let limit = rust_limit(limit);
                let a = match ctx {
                    Ctx::Table { t, off } => format!("v.field_array({t}, {off}, {es}, {limit})?"),
                    Ctx::Pos { pos, .. } => format!("v.array({pos}, {es}, {limit})?"),
                };
                let code = |c: &mut Code| {
                    let mut body = Code::new(c.indent);
                    self.validate_array(&mut body, array, data);
                    let binding = if body.out.is_empty() { "_a" } else { "a" };
                    c.line(&format!("let {binding} = {a};"));
                    c.splice(&body);
                };
                match ctx {
                    Ctx::Table { .. } => code(c),
                    Ctx::Pos { .. } => when(c, &code),
                }
            }
        }
    }

    /// The checks of SoA column `k` for all `len` elements of an array
    /// (`cols[k]` is its offset, 0 when the writer did not write it).
    pub(super) fn validate_column(&self, k: usize, c: &Column) -> Code {
        let mut out = Code::new(2);
        let col = format!("cols[{k}]");
        let Slot::ArrayRef { array, data } = &c.slot else {
            // Anything else (bools, unions, table references, inline
            // structs with such fields) element by element.
            let ctx = Ctx::Pos {
                pos: format!("{col} + {}", mul("i", c.size)),
                present: "true".into(),
            };
            let mut body = Code::new(4);
            self.validate_slot(&mut body, &c.slot, &ctx);
            if body.out.is_empty() {
                return out;
            }
            out.open(&format!("if {col} != 0 {{"));
            out.open("for i in 0..len {");
            out.splice(&body);
            out.close("}");
            out.close("}");
            return out;
        };
        let es = data.elem_size();
        out.open(&format!("if {col} != 0 {{"));
        out.line(&format!(
            "v.array_column({col}, len, {es}, {})?;",
            limit(array)
        ));
        let mut each = Code::new(4);
        self.validate_array(&mut each, array, data);
        match data {
            _ if each.out.is_empty() => {}
            _ if array.text == Some(Text::Utf8) => {
                out.line(&format!("v.utf8_column({col}, len)?;"));
            }
            // Directories of element types with nothing more to check: one
            // loop in the runtime.
            ArrayData::Soa { elem } if !self.l.soa_needs_validation(*elem) => {
                out.line(&format!(
                    "v.soa_column({col}, len, &{}::SOA_COLUMNS)?;",
                    self.n.struct_name(*elem)
                ));
            }
            _ => {
                let lines = self.prefetch_lines(&c.slot, false).unwrap_or(1);
                out.open("for i in 0..len {");
                out.open("if i + karmem::PREFETCH_AHEAD < len {");
                out.line(&format!("v.reader.prefetch_array({col} + {ARRAY_REF_SIZE} * (i + karmem::PREFETCH_AHEAD), {lines});"));
                out.close("}");
                out.line(&format!("let a = v.column_ref({col}, i);"));
                out.splice(&each);
                out.close("}");
            }
        }
        out.close("}");
        out
    }

    fn validate_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData) {
        match (array.text, data) {
            // Each element is an array reference, checked as a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let mut each = Code::new(c.indent + 1);
                self.validate_array(&mut each, inner, data);
                let binding = if each.out.is_empty() { "_a" } else { "a" };
                c.open("for i in 0..a.len {");
                c.line(&format!(
                    "let {binding} = v.array(a.offset + i * {ARRAY_REF_SIZE}, {}, {})?;",
                    data.elem_size(),
                    limit(inner)
                ));
                c.splice(&each);
                c.close("}");
            }
            (Some(Text::Utf8), _) => c.line("v.utf8(a.offset, a.len)?;"),
            (Some(Text::Utf16), _) => c.line("v.utf16(a.offset, a.len)?;"),
            (None, ArrayData::Plain { .. }) => {
                if array.elem == ElemType::Scalar(Primitive::Bool) {
                    c.line("v.bools(a.offset, a.len)?;");
                }
            }
            (None, ArrayData::UnionAos { id, .. }) => {
                c.open("for i in 0..a.len {");
                c.line(&format!("let at = a.offset + i * {UNION_SLOT_SIZE};"));
                c.line(&format!(
                    "{}::validate_parts(v, at, at + {UNION_OFFSET_AT})?;",
                    self.union_value(*id)
                ));
                c.close("}");
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                c.open(&format!(
                    "if let Some((tags, offsets)) = v.union_columns(a, {})? {{",
                    tag.size()
                ));
                c.open("for i in 0..a.len {");
                c.line(&format!(
                    "{}::validate_parts(v, tags + {}, offsets + i * {OFFSET_SIZE})?;",
                    self.union_value(*id),
                    mul("i", tag.size())
                ));
                c.close("}");
                c.close("}");
            }
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
                c.open(&format!(
                    "v.bunch(a, &[{}], |v, tag, entry| {{",
                    tags.join(", ")
                ));
                c.open("match tag {");
                for bv in variants {
                    let es = bv.data.elem_size();
                    c.open(&format!("{} => {{", bv.tag));
                    let mut inner = Code::new(c.indent);
                    self.validate_struct_array(&mut inner, &bv.data);
                    let binding = if inner.out.is_empty() { "_sub" } else { "a" };
                    c.line(&format!(
                        "let {binding} = v.array(entry + {BUNCH_ENTRY_ARRAY_AT}, {es}, None)?;"
                    ));
                    c.splice(&inner);
                    c.line("Ok(())");
                    c.close("}");
                }
                c.line("_ => Ok(()),");
                c.close("}");
                c.close("})?;");
            }
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.validate_struct_array(c, data);
                // The look-up's binary search relies on the order.
                let key = &self.l.of_struct(*id).fields[0];
                let pos = format!("a.offset + {}", mul("i", *stride));
                let pos = if key.offset == 0 {
                    pos
                } else {
                    format!("{pos} + {}", key.offset)
                };
                let r = c.r();
                let read = match &key.slot {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                        format!("{r}.get::<{}>({pos})", rust_prim(*p))
                    }
                    // Text keys in byte order.
                    _ => format!("{r}.byte_slice({r}.array({pos}, 1, None))"),
                };
                c.line(&format!("v.keys_ascending(a, |i| {read})?;"));
            }
            (None, data) => self.validate_struct_array(c, data),
        }
    }

    fn validate_struct_array(&self, c: &mut Code, data: &ArrayData) {
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    c.open("for i in 0..a.len {");
                    c.line(&format!(
                        "{}::validate_at(v, a.offset + {})?;",
                        self.n.struct_name(*id),
                        mul("i", *stride)
                    ));
                    c.close("}");
                }
            }
            ArrayData::AosTable { id } => {
                c.open("for i in 0..a.len {");
                let s = self.n.struct_name(*id);
                c.line(&format!(
                    "let child = v.table(v.reader.get::<u32>(a.offset + i * {OFFSET_SIZE}), {s}::FULL_SIZE)?;"
                ));
                c.line(&format!("{s}::validate_table(v, child)?;"));
                c.close("}");
            }
            ArrayData::Soa { elem } => c.line(&format!(
                "{}::validate_soa(v, a)?;",
                self.n.struct_name(*elem)
            )),
            _ => unreachable!(),
        }
    }
}

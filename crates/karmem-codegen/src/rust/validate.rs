//! Generated validators: the per-slot, per-array and per-SoA-column checks
//! run once over a message (format.md §11) before it is read trusted.

use karmem_layout::{
    ArrayCheck, ArrayData, BunchVariant, Column, Slot, SlotCheck, ARRAY_REF_SIZE,
    BUNCH_ENTRY_ARRAY_AT, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::Code;
use super::object::{array_ref, value_pos};
use super::{mul, rust_limit, rust_prim, Gen};
use crate::walk::{validate_array, validate_array_of, validate_slot, Ctx, Here, ValidatePrinter};

impl Gen<'_> {
    /// The checks `code` writes, inside `if present { … }` unless the slot
    /// is always there; a field past its table's `used` is charged what a
    /// decoder builds for it beyond the table's bytes: the tables of its
    /// zero value (format.md §10).
    fn when(&self, c: &mut Code, at: &Here, code: impl FnOnce(&mut Code)) {
        let Some(present) = &at.present else {
            code(c);
            return;
        };
        c.open(&format!("if {present} {{"));
        code(c);
        if at.held > 0 {
            c.reopen("} else {");
            c.line(&format!("v.charge({})?;", at.held));
        }
        c.close("}");
    }

    /// The checks of SoA column `k` for all `len` elements of an array
    /// (`cols[k]` is its offset, 0 when the writer did not write it).
    pub(super) fn validate_column(&self, k: usize, c: &Column) -> Code {
        let mut out = Code::new(2);
        let col = format!("cols[{k}]");
        let check = self.l.slot_check(&c.slot);
        let SlotCheck::Array {
            array,
            data,
            elem_size,
            limit,
        } = check
        else {
            // Anything else (bools, unions, table references, inline
            // structs with such fields) element by element.
            if check == SlotCheck::Nothing {
                return out;
            }
            let ctx = Ctx::Pos {
                pos: format!("{col} + {}", mul("i", c.size)),
                present: None,
            };
            let mut body = Code::new(4);
            validate_slot(self, &mut body, &c.slot, &ctx);
            out.open(&format!("if {col} != 0 {{"));
            out.open("for i in 0..len {");
            out.splice(&body);
            out.close("}");
            out.close("}");
            return out;
        };
        out.open(&format!("if {col} != 0 {{"));
        out.line(&format!(
            "v.array_column({col}, len, {elem_size}, {})?;",
            rust_limit(limit)
        ));
        let block = self.l.array_check(array, data);
        match block {
            _ if block.is_nothing() => {}
            ArrayCheck::Text { utf16: false } => {
                out.line(&format!("v.utf8_column({col}, len)?;"));
            }
            // Directories of element types with nothing more to check: one
            // loop in the runtime.
            ArrayCheck::Soa { elem } if !self.l.soa_needs_validation(elem) => {
                out.line(&format!(
                    "v.soa_column({col}, len, &{}::SOA_COLUMNS)?;",
                    self.n.struct_name(elem)
                ));
            }
            _ => {
                let lines = self.prefetch_lines(&c.slot, false).unwrap_or(1);
                out.open("for i in 0..len {");
                out.open("if i + karmem::PREFETCH_AHEAD < len {");
                out.line(&format!("v.reader.prefetch_array({col} + {ARRAY_REF_SIZE} * (i + karmem::PREFETCH_AHEAD), {lines});"));
                out.close("}");
                out.line(&format!("let a = v.column_ref({col}, i);"));
                validate_array_of(self, &mut out, block, "a");
                out.close("}");
            }
        }
        out.close("}");
        out
    }

    /// Inline structs `stride` apart in block `a`, each checked.
    fn validate_inlines(&self, c: &mut Code, id: StructId, stride: u32) {
        c.open("for i in 0..a.len {");
        c.line(&format!(
            "{}::validate_at(v, a.offset + {})?;",
            self.n.struct_name(id),
            mul("i", stride)
        ));
        c.close("}");
    }
}

impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Code, at: &Here) {
        self.when(c, at, |c| c.line(&format!("v.bool_at({})?;", at.pos)))
    }

    fn inline(&self, c: &mut Code, id: StructId, at: &Here) {
        let s = self.n.struct_name(id);
        self.when(c, at, |c| {
            c.line(&format!("{s}::validate_at(v, {})?;", at.pos))
        })
    }

    fn table(&self, c: &mut Code, id: StructId, at: &Here) {
        let s = self.n.struct_name(id);
        self.when(c, at, |c| {
            let r = c.r();
            c.line(&format!(
                "let child = v.table({r}.get::<u32>({}), {s}::FULL_SIZE)?;",
                at.pos
            ));
            c.line(&format!("{s}::validate_table(v, child)?;"));
        })
    }

    fn optional_table(&self, c: &mut Code, id: StructId, at: &Here) {
        let s = self.n.struct_name(id);
        self.when(c, at, |c| {
            let r = c.r();
            c.line(&format!("let offset = {r}.get::<u32>({});", at.pos));
            c.open("if offset != 0 {");
            c.line(&format!("let child = v.table(offset, {s}::FULL_SIZE)?;"));
            c.line(&format!("{s}::validate_table(v, child)?;"));
            c.close("}");
        })
    }

    /// The presence byte is 0 or 1 (format.md §4.2); the value is checked
    /// only when there is one.
    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        let pos = &at.pos;
        self.when(c, at, |c| {
            c.line(&format!("v.bool_at({pos})?;"));
            if checked {
                let r = c.r();
                c.open(&format!("if {r}.get::<u8>({pos}) != 0 {{"));
                let inner = Ctx::Pos {
                    pos: value_pos(at.ctx, value_at),
                    present: None,
                };
                validate_slot(self, c, value, &inner);
                c.close("}");
            }
        })
    }

    fn union(&self, c: &mut Code, id: UnionId, at: &Here) {
        let u = self.union_value(id);
        let pos = &at.pos;
        self.when(c, at, |c| {
            c.line(&format!(
                "{u}::validate_parts(v, {pos}, {pos} + {UNION_OFFSET_AT})?;"
            ))
        })
    }

    fn bools(&self, c: &mut Code, len: u32, at: &Here) {
        self.when(c, at, |c| c.line(&format!("v.bools({}, {len})?;", at.pos)))
    }

    fn inline_each(&self, c: &mut Code, id: StructId, len: u32, stride: u32, at: &Here) {
        let s = self.n.struct_name(id);
        self.when(c, at, |c| {
            c.open(&format!("for j in 0..{len}u32 {{"));
            c.line(&format!(
                "{s}::validate_at(v, {} + {})?;",
                at.pos,
                mul("j", stride)
            ));
            c.close("}");
        })
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        at: &Here,
    ) {
        let a = array_ref("v", at, elem_size, limit);
        let code = |c: &mut Code| {
            let binding = if each { "a" } else { "_a" };
            c.line(&format!("let {binding} = {a}?;"));
            validate_array(self, c, array, data, "a");
        };
        match at.ctx {
            Ctx::Table { .. } => code(c),
            Ctx::Pos { .. } => self.when(c, at, code),
        }
    }

    fn text(&self, c: &mut Code, utf16: bool, _a: &str) {
        if utf16 {
            c.line("v.utf16(a.offset, a.len)?;")
        } else {
            c.line("v.utf8(a.offset, a.len)?;")
        }
    }

    fn bool_block(&self, c: &mut Code, _a: &str) {
        c.line("v.bools(a.offset, a.len)?;");
    }

    /// Each element is an array reference, checked as a field's.
    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let binding = if each { "a" } else { "_a" };
        c.open("for i in 0..a.len {");
        c.line(&format!(
            "let {binding} = v.array(a.offset + i * {ARRAY_REF_SIZE}, {elem_size}, {})?;",
            rust_limit(limit)
        ));
        validate_array(self, c, array, data, a);
        c.close("}");
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, _a: &str) {
        c.open("for i in 0..a.len {");
        c.line(&format!("let at = a.offset + i * {UNION_SLOT_SIZE};"));
        c.line(&format!(
            "{}::validate_parts(v, at, at + {UNION_OFFSET_AT})?;",
            self.union_value(id)
        ));
        c.close("}");
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tag_size: u32, _a: &str) {
        c.open(&format!(
            "if let Some((tags, offsets)) = v.union_columns(a, {tag_size})? {{"
        ));
        c.open("for i in 0..a.len {");
        c.line(&format!(
            "{}::validate_parts(v, tags + {}, offsets + i * {OFFSET_SIZE})?;",
            self.union_value(id),
            mul("i", tag_size)
        ));
        c.close("}");
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, _id: UnionId, variants: &[BunchVariant], a: &str) {
        let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
        c.open(&format!(
            "v.bunch(a, &[{}], |v, tag, entry| {{",
            tags.join(", ")
        ));
        c.open("match tag {");
        for bv in variants {
            let es = bv.data.elem_size();
            c.open(&format!("{} => {{", bv.tag));
            let check = self.l.struct_array_check(&bv.data);
            let binding = if check.is_nothing() { "_sub" } else { "a" };
            c.line(&format!(
                "let {binding} = v.array(entry + {BUNCH_ENTRY_ARRAY_AT}, {es}, None)?;"
            ));
            validate_array_of(self, c, check, a);
            c.line("Ok(())");
            c.close("}");
        }
        c.line("_ => Ok(()),");
        c.close("}");
        c.close("})?;");
    }

    fn map(&self, c: &mut Code, id: StructId, stride: u32, each: bool, _a: &str) {
        if each {
            self.validate_inlines(c, id, stride);
        }
        // The look-up's binary search relies on the order.
        let key = &self.l.of_struct(id).fields[0];
        let pos = format!("a.offset + {}", mul("i", stride));
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

    fn aos_inline(&self, c: &mut Code, id: StructId, stride: u32, each: bool, _a: &str) {
        if each {
            self.validate_inlines(c, id, stride);
        }
    }

    fn aos_table(&self, c: &mut Code, id: StructId, _a: &str) {
        c.open("for i in 0..a.len {");
        let s = self.n.struct_name(id);
        c.line(&format!(
            "let child = v.table(v.reader.get::<u32>(a.offset + i * {OFFSET_SIZE}), {s}::FULL_SIZE)?;"
        ));
        c.line(&format!("{s}::validate_table(v, child)?;"));
        c.close("}");
    }

    fn soa(&self, c: &mut Code, elem: StructId, _a: &str) {
        c.line(&format!(
            "{}::validate_soa(v, a)?;",
            self.n.struct_name(elem)
        ))
    }
}

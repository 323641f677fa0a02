//! Generated validators: the per-slot, per-array and per-SoA-column checks
//! run once over a message (format.md §11) before it is read trusted.

use std::fmt::Write as _;

use karmem_layout::{
    ArrayData, Column, FixedElem, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, OFFSET_SIZE,
    UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{mul, Ctx, Gen};

impl Gen<'_> {
    pub(super) fn validate_slot(&self, slot: &Slot, ctx: &Ctx, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let size = self.l.slot_size(slot);
        let (pos, present) = match ctx {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        let when = |code: String| -> String {
            if code.is_empty() {
                String::new()
            } else if present == "true" {
                code
            } else {
                let inner: String = code.lines().map(|l| format!("    {l}\n")).collect();
                format!("{pad}if {present} {{\n{inner}{pad}}}\n")
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) => when(format!("{pad}v.bool_at({pos})?;\n")),
            Slot::Scalar(_) | Slot::Enum { .. } => String::new(),
            Slot::InlineStruct(id) => {
                if self.l.inline_needs_validation(*id) {
                    when(format!("{pad}{}::validate_at(v, {pos})?;\n", self.struct_name(*id)))
                } else {
                    String::new()
                }
            }
            Slot::TableRef(id) => when(format!(
                "{pad}let child = v.table(r.get::<u32>({pos}))?;\n{pad}{}::validate_table(v, child)?;\n",
                self.struct_name(*id)
            )),
            Slot::Union { id, .. } => when(format!("{pad}{}::validate_parts(v, {pos}, {pos} + {UNION_OFFSET_AT})?;\n", self.union_value(*id))),
            Slot::FixedArray { elem, len, stride } => match elem {
                FixedElem::Scalar(Primitive::Bool) => when(format!("{pad}v.bools({pos}, {len})?;\n")),
                FixedElem::InlineStruct(id) if self.l.inline_needs_validation(*id) => when(format!(
                    "{pad}for j in 0..{len}u32 {{\n{pad}    {}::validate_at(v, {pos} + {})?;\n{pad}}}\n",
                    self.struct_name(*id),
                    mul("j", *stride)
                )),
                _ => String::new(),
            },
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => format!("Some({n})"),
                    _ => "None".into(),
                };
                let a = match ctx {
                    Ctx::Table { t, off } => format!("v.field_array({t}, {off}, {es}, {limit})?"),
                    Ctx::Pos { pos, .. } => format!("v.array({pos}, {es}, {limit})?"),
                };
                let body = self.validate_array(array, data, indent);
                let (binding, body) = if body.is_empty() { ("_a", body) } else { ("a", body) };
                let code = format!("{pad}let {binding} = {a};\n{body}");
                match ctx {
                    Ctx::Table { .. } => code,
                    Ctx::Pos { .. } => when(code),
                }
            }
        }
    }

    /// The checks of SoA column `k` for all `len` elements of an array
    /// (`cols[k]` is its offset, 0 when the writer did not write it).
    pub(super) fn validate_column(&self, k: usize, c: &Column) -> String {
        let pad = "    ".repeat(3);
        let col = format!("cols[{k}]");
        let Slot::ArrayRef { array, data } = &c.slot else {
            // Anything else (bools, unions, table references, inline
            // structs with such fields) element by element.
            let ctx = Ctx::Pos {
                pos: format!("{col} + {}", mul("i", c.size)),
                present: "true".into(),
            };
            let body = self.validate_slot(&c.slot, &ctx, 4);
            if body.is_empty() {
                return body;
            }
            return format!("        if {col} != 0 {{\n            for i in 0..len {{\n{body}            }}\n        }}\n");
        };
        let es = data.elem_size();
        let limit = match array.kind {
            ArrayKind::Limited(n) => format!("Some({n})"),
            _ => "None".into(),
        };
        let mut out = format!(
            "        if {col} != 0 {{\n            v.array_column({col}, len, {es}, {limit})?;\n"
        );
        let each = self.validate_array(array, data, 4);
        match data {
            _ if each.is_empty() => {}
            _ if array.text == Some(Text::Utf8) => {
                let _ = writeln!(out, "{pad}v.utf8_column({col}, len)?;");
            }
            // Directories of element types with nothing more to check: one
            // loop in the runtime.
            ArrayData::Soa { elem } if !self.soa_needs_validation(*elem) => {
                let _ = writeln!(
                    out,
                    "{pad}v.soa_column({col}, len, &{}::SOA_COLUMNS)?;",
                    self.struct_name(*elem)
                );
            }
            _ => {
                let lines = self.prefetch_lines(&c.slot, false).unwrap_or(1);
                let _ = write!(
                    out,
                    "{pad}for i in 0..len {{\n{pad}    if i + karmem::PREFETCH_AHEAD < len {{\n{pad}        v.reader.prefetch_array({col} + {ARRAY_REF_SIZE} * (i + karmem::PREFETCH_AHEAD), {lines});\n{pad}    }}\n{pad}    let a = v.column_ref({col}, i);\n{each}{pad}}}\n"
                );
            }
        }
        out.push_str("        }\n");
        out
    }

    /// Does an SoA array of `elem` need checks beyond its directory?
    fn soa_needs_validation(&self, elem: StructId) -> bool {
        self.l
            .soa(elem)
            .columns
            .iter()
            .enumerate()
            .any(|(k, c)| !self.validate_column(k, c).is_empty())
    }

    fn validate_array(&self, array: &ArrayType, data: &ArrayData, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{pad}v.utf8(a.offset, a.len)?;\n"),
            (Some(Text::Utf16), _) => format!("{pad}v.utf16(a.offset, a.len)?;\n"),
            (None, ArrayData::Plain { .. }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) => format!("{pad}v.bools(a.offset, a.len)?;\n"),
                _ => String::new(),
            },
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{pad}for i in 0..a.len {{\n{pad}    let at = a.offset + i * {UNION_SLOT_SIZE};\n{pad}    {}::validate_parts(v, at, at + {UNION_OFFSET_AT})?;\n{pad}}}\n",
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => format!(
                "{pad}if let Some((tags, offsets)) = v.union_columns(a, {})? {{\n{pad}    for i in 0..a.len {{\n{pad}        {}::validate_parts(v, tags + {}, offsets + i * {OFFSET_SIZE})?;\n{pad}    }}\n{pad}}}\n",
                tag.size(),
                self.union_value(*id),
                mul("i", tag.size())
            ),
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let mut arms = String::new();
                for bv in variants {
                    let es = bv.data.elem_size();
                    let inner = self.validate_struct_array(&bv.data, indent + 3);
                    let binding = if inner.is_empty() { "_sub" } else { "a" };
                    let _ = write!(
                        arms,
                        "{pad}        {} => {{\n{pad}            let {binding} = v.array(entry + {BUNCH_ENTRY_ARRAY_AT}, {es}, None)?;\n{inner}{pad}            Ok(())\n{pad}        }}\n",
                        bv.tag
                    );
                }
                let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
                format!(
                    "{pad}v.bunch(a, &[{}], |v, tag, entry| {{\n{pad}    match tag {{\n{arms}{pad}        _ => Ok(()),\n{pad}    }}\n{pad}}})?;\n",
                    tags.join(", ")
                )
            }
            (None, data) => self.validate_struct_array(data, indent),
        }
    }

    fn validate_struct_array(&self, data: &ArrayData, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    format!(
                        "{pad}for i in 0..a.len {{\n{pad}    {}::validate_at(v, a.offset + {})?;\n{pad}}}\n",
                        self.struct_name(*id),
                        mul("i", *stride)
                    )
                } else {
                    String::new()
                }
            }
            ArrayData::AosTable { id } => format!(
                "{pad}for i in 0..a.len {{\n{pad}    let child = v.table(v.reader.get::<u32>(a.offset + i * {OFFSET_SIZE}))?;\n{pad}    {}::validate_table(v, child)?;\n{pad}}}\n",
                self.struct_name(*id)
            ),
            ArrayData::Soa { elem } => format!("{pad}{}::validate_soa(v, a)?;\n", self.struct_name(*elem)),
            _ => unreachable!(),
        }
    }
}

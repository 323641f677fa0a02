//! In-place setters on the viewers of tables (issue #19 gap 9; format.md
//! §12), as Go's `v.SetF(e, x)`, `v.EditF(e)`, `v.SetFLen(e, n)` and C's
//! `p_t_view_set_f` (RATIONALE R11.7): `setF(e, x)` for a scalar, enum or
//! `bool` field, `editF(e)` (the elements as a writable typed array over
//! the message) and `setFLen(e, n)` for a plain array of them. Each calls
//! the library's `karmem.Editor` with the field's offset from the layout;
//! as in Go and C, fields of inline structs and SoA columns have none.

use karmem_layout::{ArrayData, Slot};
use karmem_schema::model::*;

use super::{prim_str, prop_name, typed_array, Gen};
use crate::emit::Lines;

/// `F` of a setter's name: the property name, first letter capitalised
/// (`id` → `setId`, `fieldAsSoa` → `setFieldAsSoa`).
fn suffix(field: &str) -> String {
    let p = prop_name(field);
    let mut cs = p.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().chain(cs).collect(),
        None => p,
    }
}

impl Gen<'_> {
    /// The setters of field `f` of a table viewer, at `off` in the table.
    pub(super) fn setters(&self, c: &mut Lines, f: &Field, slot: &Slot, off: u32) {
        let name = suffix(&f.name);
        match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                c.line(&format!(
                    "/** Stores `{}` in place (the field must be present in the message: `MalformedTable` otherwise). */",
                    f.name
                ));
                c.open(&format!(
                    "set{name}(e: karmem.Editor, x: {}): void {{",
                    self.type_ts(&f.ty)
                ));
                c.line(&format!("e.set(this.$t, {off}, \"{}\", x);", prim_str(*p)));
                c.close("}");
            }
            Slot::ArrayRef {
                array,
                data: ArrayData::Plain { elem_size },
            } if array.text.is_none() && !array.is_map() => {
                let p = match array.elem {
                    ElemType::Scalar(p) => p,
                    ElemType::Enum(e) => self.s.enums[e].repr,
                    _ => unreachable!("plain arrays hold scalars"),
                };
                let limit = array.limit().map_or("null".into(), |n| n.to_string());
                let ta = typed_array(p);
                c.line(&format!(
                    "/** `{}` as a writable typed array over the message, `length` elements (change the length with `set{name}Len`). */",
                    f.name
                ));
                c.open(&format!("edit{name}(e: karmem.Editor): {ta} {{"));
                c.line(&format!(
                    "return e.elements(this.$t, {off}, \"{}\", {elem_size}, {limit}) as {ta};",
                    prim_str(p)
                ));
                c.close("}");
                c.line(&format!(
                    "/** Changes the length of `{}` in place, within its capacity (`TooLarge` otherwise); elements between the old and the new length are zeroed. */",
                    f.name
                ));
                c.open(&format!(
                    "set{name}Len(e: karmem.Editor, n: number): void {{"
                ));
                c.line(&format!(
                    "e.setLen(this.$t, {off}, {elem_size}, {limit}, n);"
                ));
                c.close("}");
            }
            _ => {}
        }
    }
}

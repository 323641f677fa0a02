//! In-place setters of the checked table views (`karmem.Editor`,
//! format.md §12), printed beside each field's property from the same
//! slot of the layout plan: `set_f(e, x)` for a scalar, enum or `bool`
//! field and for UTF-8 text (rewritten within its capacity); `edit_f(e)`,
//! the elements of a plain number array as a writable `memoryview`, and
//! `set_f_len(e, n)`, its length within its capacity. As in Go and C,
//! inline-struct and SoA fields have no setters; the editor refuses an
//! absent field or a length past the capacity with `karmem.Error`.

use karmem_layout::{ArrayData, Slot};
use karmem_schema::model::*;

use super::{code, limit_arg, py_scalar, Gen};

/// One setter method: its name, signature, docstring and body line.
pub(crate) struct Setter {
    pub name: String,
    signature: String,
    doc: String,
    body: String,
}

impl Setter {
    fn new(name: String, params: &str, result: &str, doc: String, body: String) -> Self {
        let signature = format!("def {name}(self, e: karmem.Editor{params}) -> {result}:");
        Setter {
            name,
            signature,
            doc,
            body,
        }
    }
}

impl Gen<'_> {
    /// The setters of the table field `field` at offset `off` whose slot
    /// is `slot`; none for the slots that cannot be edited in place.
    pub(crate) fn setter_list(&self, field: &str, slot: &Slot, off: u32) -> Vec<Setter> {
        let scalar = match slot {
            Slot::Scalar(p) => Some((*p, py_scalar(*p))),
            Slot::Enum { repr, .. } => Some((*repr, "int")),
            _ => None,
        };
        if let Some((p, ty)) = scalar {
            return vec![Setter::new(
                format!("set_{field}"),
                &format!(", x: {ty}"),
                "None",
                format!("Stores `{field}` in place (the field must be present in the message)."),
                format!("e.set(self._t, {off}, \"{}\", x)", code(p)),
            )];
        }
        let Slot::ArrayRef {
            array,
            data: ArrayData::Plain { elem_size },
        } = slot
        else {
            return Vec::new();
        };
        let limit = limit_arg(array.limit());
        let numbers = match (array.text, array.elem) {
            (Some(Text::Utf8), _) => {
                return vec![Setter::new(
                    format!("set_{field}"),
                    ", x: str",
                    "None",
                    format!("Rewrites `{field}` in place, within its capacity (UTF-8 bytes)."),
                    format!("e.set_text(self._t, {off}, x, {limit})"),
                )];
            }
            (None, ElemType::Scalar(p)) if p != Primitive::Bool => p,
            (None, ElemType::Enum(id)) => self.s.enums[id].repr,
            _ => return Vec::new(),
        };
        let (ty, method) = match numbers {
            Primitive::F32 | Primitive::F64 => ("float", "edit_floats"),
            _ => ("int", "edit_ints"),
        };
        vec![
            Setter::new(
                format!("edit_{field}"),
                "",
                &format!("memoryview[{ty}]"),
                format!(
                    "The elements of `{field}`, writable in place (its length: `set_{field}_len`)."
                ),
                format!(
                    "return e.{method}(self._t, {off}, \"{}\", {limit})",
                    code(numbers)
                ),
            ),
            Setter::new(
                format!("set_{field}_len"),
                ", n: int",
                "None",
                format!("Changes the length of `{field}` in place, within its capacity."),
                format!("e.set_len(self._t, {off}, {elem_size}, n, {limit})"),
            ),
        ]
    }

    /// Prints the setters of a table field (see [`Gen::setter_list`]).
    pub(crate) fn setters(&mut self, field: &str, slot: &Slot, off: u32) {
        for s in self.setter_list(field, slot, off) {
            self.c.line("");
            self.def_line(&s.signature);
            self.c.indent += 1;
            self.c.line(&format!("\"\"\"{}\"\"\"", s.doc));
            self.c.line(&s.body);
            self.c.indent -= 1;
        }
    }

    /// A table field named like the setter of another of its struct's
    /// fields (`set_hp` beside `hp`).
    pub(crate) fn setter_clash(&self) -> Option<String> {
        for id in 0..self.s.structs.len() {
            if !self.l.is_table(id) {
                continue;
            }
            let sl = self.l.of_struct(id);
            let names: Vec<String> = (0..sl.fields.len()).map(|i| self.n.field(id, i)).collect();
            for (i, f) in sl.fields.iter().enumerate() {
                for s in self.setter_list(&names[i], &f.slot, f.offset) {
                    if names.contains(&s.name) {
                        return Some(format!(
                            "the field `{}` has the name of a generated setter",
                            s.name
                        ));
                    }
                }
            }
        }
        None
    }
}

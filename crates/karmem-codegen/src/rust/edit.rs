//! In-place editors of tables (format.md §12): `{T}Edit`, typed setters
//! over `karmem::ReaderMut`, Go's `SetF`/`EditF`/`SetFLen` and C's
//! `_set_f`/`_edit_f`/`_set_f_len` in Rust's shape. Which field gets which
//! method is the view printer's answer for the field's slot (`Accessors`
//! in `views.rs`); what Go and C do not set has none: inline structs,
//! fixed arrays, optional values, unions, UTF-16 text and arrays of
//! anything but numbers, `bool`s and enums (SoA, AoS, maps, arrays of
//! arrays).

use karmem_layout::ARRAY_REF_SIZE;
use karmem_schema::model::*;

use super::{edit_method, rust_limit, Gen};

/// What the editor `{T}Edit` of a table offers for one of its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setter {
    /// `set_f(x)` of a number, `bool` (stored as 0/1) or enum: the Rust
    /// argument type, the wire type and the argument as stored.
    Scalar {
        ty: String,
        wire: &'static str,
        value: &'static str,
    },
    /// `edit_f()`, the editor of the nested table.
    Table(StructId),
    /// `edit_f()`, the elements as a writable slice of `elem`, and
    /// `set_f_len(n)` within the capacity and `limit`.
    Plain {
        elem: &'static str,
        elem_size: u32,
        limit: Option<u32>,
    },
    /// `set_f(&str)` of UTF-8 text, within the capacity and `limit`.
    Text { limit: Option<u32> },
}

impl Gen<'_> {
    fn edit_name(&self, id: StructId) -> String {
        format!("{}Edit", self.n.struct_name(id))
    }

    /// `{T}Edit<'e, 'b>`: a table of a message in a `karmem::ReaderMut`
    /// and the setters of its fields, `(index, offset, setter)` each.
    pub(super) fn edit_item(&mut self, id: StructId, setters: &[(usize, u32, Setter)]) {
        let edit = self.edit_name(id);
        let view = self.view_name(id);
        let name = &self.s.structs[id].name;
        self.c.line(&format!(
            "/// In-place editor of a `{name}` table (format.md §12), over a message in a"
        ));
        self.c
            .line("/// `karmem::ReaderMut`. Each setter writes one present field, each write");
        self.c
            .line("/// checked as a read is; what cannot be done in place is an error and");
        self.c
            .line("/// writes nothing: a field the message's writer did not know (an older");
        self.c
            .line("/// schema), an absent table (`karmem::Error::MalformedTable`), a length");
        self.c.line(
            "/// or text past the array's capacity or `[<N]` limit (`karmem::Error::TooLarge`).",
        );
        self.c
            .line("/// Not set here (as in Go and C): inline-struct, fixed-array, optional and");
        self.c.line(
            "/// union fields, UTF-16 text, and arrays of structs, unions or arrays (SoA included).",
        );
        self.c.open(&format!("pub struct {edit}<'e, 'b> {{"));
        self.c.line("m: &'e mut karmem::ReaderMut<'b>,");
        self.c.line("t: karmem::Table,");
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!("impl<'e, 'b> {edit}<'e, 'b> {{"));
        self.c
            .line("/// The editor of a message whose root is this type.");
        self.c
            .open("pub fn root(m: &'e mut karmem::ReaderMut<'b>) -> Self {");
        self.c.line("let t = m.reader().root();");
        self.c.line(&format!("{edit} {{ m, t }}"));
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Where the table is; `Table::EMPTY` when absent or malformed.");
        self.c.open("pub fn table(&self) -> karmem::Table {");
        self.c.line("self.t");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// The checked viewer of the same table, to read what was written.");
        self.c.open(&format!("pub fn view(&self) -> {view}<'_> {{"));
        self.c
            .line(&format!("{view} {{ r: self.m.reader(), t: self.t }}"));
        self.c.close("}");
        for (i, off, setter) in setters {
            self.setter(id, *i, *off, setter);
        }
        self.c.close("}");
        self.c.line("");
    }

    /// The methods of field `i` (at `off` in the table) for `setter`.
    fn setter(&mut self, id: StructId, i: usize, off: u32, setter: &Setter) {
        let field = self.s.structs[id].fields[i].name.clone();
        let set = edit_method(self.s, &self.n, id, i, "set", "");
        let edit = edit_method(self.s, &self.n, id, i, "edit", "");
        self.c.line("");
        match setter {
            Setter::Scalar { ty, wire, value } => {
                self.c.line(&format!("/// Store `{field}` in place."));
                self.c.open(&format!(
                    "pub fn {set}(&mut self, x: {ty}) -> Result<(), karmem::Error> {{"
                ));
                self.c.line(&format!(
                    "self.m.set_field::<{wire}>(self.t, {off}, {value})"
                ));
                self.c.close("}");
            }
            Setter::Table(child) => {
                let e = self.edit_name(*child);
                self.c.line(&format!(
                    "/// The editor of the `{field}` table (its setters fail when it is absent)."
                ));
                self.c
                    .open(&format!("pub fn {edit}(&mut self) -> {e}<'_, 'b> {{"));
                self.c.line(&format!(
                    "let t = self.m.reader().field_table(self.t, {off});"
                ));
                self.c.line(&format!("{e} {{ m: self.m, t }}"));
                self.c.close("}");
            }
            Setter::Plain {
                elem,
                elem_size,
                limit,
            } => {
                let len = edit_method(self.s, &self.n, id, i, "set", "_len");
                self.c.line(&format!(
                    "/// The elements of `{field}`, writable in place (`bool`s as bytes 0 or 1,"
                ));
                self.c.line(&format!(
                    "/// enums as their numbers); empty when absent. Its length: `{len}`."
                ));
                self.c
                    .open(&format!("pub fn {edit}(&mut self) -> &mut [{elem}] {{"));
                self.c
                    .open(&format!("if !self.t.has({off}, {ARRAY_REF_SIZE}) {{"));
                self.c.line("return &mut [];");
                self.c.close("}");
                self.c.line(&format!(
                    "self.m.slice_mut::<{elem}>(self.t.offset + {off}, {})",
                    rust_limit(*limit)
                ));
                self.c.close("}");
                self.c.line("");
                self.c.line(&format!(
                    "/// Change the length of `{field}` within its capacity: elements past"
                ));
                self.c
                    .line("/// the old length read as zero, dropped ones are zeroed.");
                self.c.open(&format!(
                    "pub fn {len}(&mut self, n: u32) -> Result<(), karmem::Error> {{"
                ));
                if let Some(limit) = limit {
                    self.c.open(&format!("if n > {limit} {{"));
                    self.c.line("return Err(karmem::Error::TooLarge);");
                    self.c.close("}");
                }
                self.present_or_err(off);
                self.c.line(&format!(
                    "self.m.set_len(self.t.offset + {off}, {elem_size}, n)"
                ));
                self.c.close("}");
            }
            Setter::Text { limit } => {
                self.c.line(&format!(
                    "/// Rewrite the text `{field}` in place, within its capacity."
                ));
                self.c.open(&format!(
                    "pub fn {set}(&mut self, x: &str) -> Result<(), karmem::Error> {{"
                ));
                self.present_or_err(off);
                self.c.line(&format!(
                    "self.m.set_text(self.t.offset + {off}, x, {})",
                    rust_limit(*limit)
                ));
                self.c.close("}");
            }
        }
    }

    /// Return `MalformedTable` unless the array reference at `off` is in
    /// the table (an older writer's table may end before it).
    fn present_or_err(&mut self, off: u32) {
        self.c
            .open(&format!("if !self.t.has({off}, {ARRAY_REF_SIZE}) {{"));
        self.c
            .line("return Err(karmem::Error::MalformedTable { offset: self.t.offset });");
        self.c.close("}");
    }
}

//! In-place setters and field offsets of the Zig viewers (docs/zig.md,
//! "Editing in place"; format.md §12), as Go's `SetF`/`EditF`/`SetFLen`
//! and C's `p_t_view_set_f` (RATIONALE R11.7), and the names of SoA
//! column slices. Printed into each `TViewOf(R)` by `views.rs`; the
//! setters compile only for the checked viewer (`R == karmem.Reader`).

use karmem_schema::model::*;

use super::views::ZEdit;
use super::{limit_arg, Gen};
use crate::names::{self, Namer};

/// An identifier without Zig's `@"…"` quoting or the `_` added to a name
/// taken by a declaration: the part other names are built from.
fn bare(name: &str) -> String {
    let name = name
        .strip_prefix("@\"")
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name);
    name.trim_end_matches('_').to_string()
}

fn pascal(name: &str) -> String {
    names::Case::Pascal.apply(name)
}

/// The names of the in-place setters of field `i` of table `id`:
/// `setF` (a number, `bool` or enum), `editF` and `setFLen` (a plain
/// array). camelCase, as Zig functions are: never the name of an
/// accessor, which is snake_case.
pub fn setter_names(s: &Schema, id: StructId, i: usize) -> [String; 3] {
    let n = Namer::new(&names::ZIG, s);
    let p = pascal(&bare(&n.field(id, i)));
    [format!("set{p}"), format!("edit{p}"), format!("set{p}Len")]
}

/// The name of the offset constant of field `i` of struct `id`,
/// `f_offset`, with `_` added while it is the name of an accessor of the
/// same viewer (a field named `f_offset` too).
pub fn offset_name(s: &Schema, id: StructId, i: usize) -> String {
    let n = Namer::new(&names::ZIG, s);
    let accessors: Vec<String> = (0..s.structs[id].fields.len())
        .map(|j| super::views::accessor_of(&n, id, j))
        .collect();
    let mut name = format!("{}_offset", bare(&n.field(id, i)));
    while accessors.contains(&name) {
        name.push('_');
    }
    name
}

/// The name of the native-slice accessor of SoA column `k` of element
/// `elem`: its path's field names joined, then `_column`
/// (`pos_x_column`).
pub fn column_name(s: &Schema, l: &karmem_layout::Layout, elem: StructId, k: usize) -> String {
    let n = Namer::new(&names::ZIG, s);
    let col = &l.soa(elem).columns[k];
    let parts: Vec<String> = col
        .steps
        .iter()
        .zip(&col.path)
        .map(|(st, i)| bare(&n.field(*st, *i as usize)))
        .collect();
    format!("{}_column", parts.join("_"))
}

impl Gen<'_> {
    /// `pub const f_offset: u32 = …;` for every field of struct `id`: its
    /// byte offset in the table or inline struct (for `karmem.Editor` by
    /// hand, as Rust's `F_OFFSET` and C's `P_T_F_OFFSET`).
    pub(crate) fn field_offsets(&mut self, id: StructId) {
        let sl = self.l.of_struct(id).clone();
        if sl.fields.is_empty() {
            return;
        }
        self.c.line("");
        self.c
            .line("/// Byte offsets of the fields (in-place edits by hand: `karmem.Editor`).");
        for (i, f) in sl.fields.iter().enumerate() {
            let name = offset_name(self.s, id, i);
            self.c
                .line(&format!("pub const {name}: u32 = {};", f.offset));
        }
    }

    /// The in-place setters of field `i` of table `id` (format.md §12):
    /// `setF(self, editor, new_value)` for a number, a `bool` (written as
    /// 0 or 1) or an enum; for a plain array `editF(self, editor)`, its
    /// elements writable in place, and `setFLen(self, editor, new_len)`,
    /// its length within its capacity and `[<N]T` limit (zeroing the
    /// elements between the old and the new length). None for inline
    /// structs, text, unions, optional values and other arrays (as Go's
    /// and C's).
    pub(crate) fn setters(&mut self, id: StructId, i: usize, edit_of: &ZEdit) {
        let [set, edit, set_len] = setter_names(self.s, id, i);
        let off = offset_name(self.s, id, i);
        let fname = &self.s.structs[id].fields[i].name;
        let sname = &self.s.structs[id].name;
        let what = format!("`{sname}.{fname}`");
        let check = "comptime karmem.views.checkEditable(R);";
        match edit_of {
            ZEdit::Scalar { ty } => {
                let doc = [
                    format!(
                        "/// Stores {what} in place in `editor`'s message, which this view reads"
                    ),
                    "/// (`root(editor.reader)`); `error.MalformedTable` when the message does"
                        .into(),
                    "/// not hold the field (an absent table, or an older writer's).".into(),
                ];
                self.c.line("");
                for l in doc {
                    self.c.line(&l);
                }
                self.c.open(&format!(
                    "pub fn {set}(self: Self, editor: *karmem.Editor, new_value: {ty}) error{{MalformedTable}}!void {{"
                ));
                self.c.line(check);
                self.c.line(&format!(
                    "return editor.set({ty}, self.table, {off}, new_value);"
                ));
                self.c.close("}");
            }
            ZEdit::Slice {
                elem: ty,
                elem_size,
                limit,
            } => {
                let limit = limit_arg(*limit);
                self.c.line("");
                self.c.line(&format!(
                    "/// The elements of {what}, writable in place in `editor`'s message (which"
                ));
                self.c
                    .line("/// this view reads); empty when the message does not hold the field.");
                let bools = matches!(&self.s.structs[id].fields[i].ty,
                    FieldType::Array(a) if a.elem == ElemType::Scalar(Primitive::Bool));
                if bools {
                    self.c.line("/// Bytes: write 0 or 1.");
                }
                self.c.open(&format!(
                    "pub fn {edit}(self: Self, editor: *karmem.Editor) []{ty} {{"
                ));
                self.c.line(check);
                self.c.line(&format!(
                    "return editor.fieldSlice({ty}, self.table, {off}, {limit});"
                ));
                self.c.close("}");
                self.c.line("");
                self.c.line(&format!(
                    "/// Changes the length of {what} in place, within its capacity (elements"
                ));
                self.c.line(
                    "/// between the old and the new length are zeroed): `error.TooLarge` past it",
                );
                self.c.line(
                    "/// or the limit, `error.MalformedTable` when the message does not hold the field.",
                );
                self.c.open(&format!(
                    "pub fn {set_len}(self: Self, editor: *karmem.Editor, new_len: u32) karmem.EditError!void {{"
                ));
                self.c.line(check);
                self.c.line(&format!(
                    "return editor.setFieldLen(self.table, {off}, {elem_size}, {limit}, new_len);"
                ));
                self.c.close("}");
            }
        }
    }
}

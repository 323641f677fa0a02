//! In-place setters of the checked table viewers (docs/assemblyscript.md,
//! "Editing in place"; format.md §12), as TypeScript's `setF`/`editF`/
//! `setFLen` (RATIONALE R12.8) and Zig's (R11.9): `setF(e, x)` for a
//! number, `bool` or enum field, `editF(e)` (the elements, writable in
//! place) and `setFLen(e, n)` for a plain array of them. Each calls the
//! library's `Editor` (`as/assembly/editor.ts`) with the field's offset;
//! what to print comes from the view node's answer (`Acc::edit`), never a
//! second match on the slot. Fields of inline structs and SoA columns
//! have none, as in the other languages.
//!
//! The viewer class is generic over its reader; a setter is a method of
//! every instance, but asc compiles a method only where it is called, and
//! the setters' first statement is a compile-time `ERROR` unless the
//! reader is the `Validator`: calling one on a trusted view does not
//! compile, so a `Trusted` view never writes.

use karmem_schema::model::StructId;

use super::views::AEdit;
use super::{limit_arg, Gen};
use crate::emit::Lines;

/// The statement that refuses, when asc compiles it, a setter of a
/// viewer whose reader is not the checked `Validator`.
const CHECKED_ONLY: &str = "if (idof<R>() != idof<Validator>()) ERROR(\"in-place setters need the checked view (T.view), not T.trust\");";

/// A setter: its doc, its head (`name(params): type`), and the editor
/// call it returns, refused at compile time on a trusted viewer.
fn method(c: &mut Lines, doc: &str, head: &str, call: &str) {
    c.line("");
    c.line(&format!("/** {doc} */"));
    c.open(&format!("{head} {{"));
    c.line(CHECKED_ONLY);
    c.line(&format!("return {call};"));
    c.close("}");
}

impl Gen<'_> {
    /// The setters of field `i` of table `id`, at `off` in the table.
    pub(super) fn setters(&mut self, id: StructId, i: usize, off: u32, edit: &AEdit) {
        let field = self.n.field(id, i);
        let mut cs = field.trim_start_matches('_').chars();
        let name: String = match cs.next() {
            Some(c) => c.to_uppercase().chain(cs).collect(),
            None => field.clone(),
        };
        let what = format!(
            "`{}.{}`",
            self.s.structs[id].name, self.s.structs[id].fields[i].name
        );
        let c = &mut self.c;
        match edit {
            AEdit::Scalar { ty, w } => {
                let x = if *w == "bool" || ty == w {
                    "x".to_string()
                } else {
                    format!("<{w}>x")
                };
                method(
                    c,
                    &format!("Stores {what} in place in `e`'s message (`MalformedTable` when the message does not hold the field)."),
                    &format!("set{name}(e: _KmEditor, x: {ty}): KarmemError"),
                    &format!("e.set<{w}>(this._kmTo, {off}, {x})"),
                );
            }
            AEdit::Plain {
                w,
                ty,
                elem_size,
                limit,
            } => {
                let limit = limit_arg(*limit);
                method(
                    c,
                    &format!("The elements of {what}, writable in place in `e`'s message; null when refused (`e.fault` says why)."),
                    &format!("edit{name}(e: _KmEditor): _KmElements<{w}, {ty}> | null"),
                    &format!("e.elements<{w}, {ty}>(this._kmTo, {off}, {limit})"),
                );
                method(
                    c,
                    &format!("Changes the length of {what} in place, within its capacity (`TooLarge`) and limit; elements between the old and the new length are zeroed."),
                    &format!("set{name}Len(e: _KmEditor, n: u32): KarmemError"),
                    &format!("e.setLen(this._kmTo, {off}, {elem_size}, {limit}, n)"),
                );
            }
        }
    }
}

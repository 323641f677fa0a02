//! Inline structs the compiler declares for a type written in a field: a
//! map's entries (maps.rs) and a tuple (tuples.rs). Their parts are
//! resolved as fields the user could have written, and the struct enters
//! the schema like a declared one, after the user's.

use super::{Named, Resolver};
use crate::ast::{self, TypeExpr};
use crate::diagnostic::Diagnostic;
use crate::model::*;

/// A field declaration for a part of a type (a map's value, a tuple's
/// element, an array's map), resolved as one the user wrote.
pub(super) fn part(
    name: String,
    ty: &TypeExpr,
    attrs: Vec<ast::Attr>,
    span: Span,
) -> ast::FieldDecl {
    ast::FieldDecl {
        name: ast::Ident { name, span },
        optional: None,
        ty: ty.clone(),
        attrs,
        default: None,
        doc: Vec::new(),
        span,
    }
}

/// A field of a declared struct: no default, not optional.
pub(super) fn field(name: String, ty: FieldType, span: Span) -> Field {
    Field {
        name,
        ty,
        span,
        doc: Vec::new(),
        optional: false,
        default: None,
    }
}

impl Resolver {
    /// `Some` when `name` is free; otherwise the diagnostic `clash` makes
    /// (from the place the name was declared) is reported.
    pub(super) fn free_name(
        &mut self,
        name: &str,
        clash: impl FnOnce(Span) -> Diagnostic,
    ) -> Option<()> {
        match self.names.get(name) {
            Some((_, first)) => {
                let d = clash(*first);
                self.diags.push(d);
                None
            }
            None => Some(()),
        }
    }

    /// Add the inline struct `name` (checked free) to the schema.
    pub(super) fn declare_inline(
        &mut self,
        name: String,
        fields: Vec<Field>,
        span: Span,
        doc: String,
        tuple: bool,
    ) -> StructId {
        let id = self.schema.structs.len();
        self.schema.structs.push(Struct {
            name: name.clone(),
            kind: StructKind::Inline,
            fields,
            span,
            doc: vec![doc],
            tuple,
        });
        self.schema.order.push(Item::Struct(id));
        self.names.insert(name, (Some(Named::Struct(id)), span));
        id
    }
}

/// A field's name as it goes into a generated type's name (docs/idl.md
/// §3.2–3.3): each `_`-separated word capitalised and joined, so
/// `players` in `Game` gives `GamePlayersEntry` and `by_name` gives
/// `…ByNameEntry`; a name already in PascalCase is kept.
pub(super) fn type_part(field: &str) -> String {
    field
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_uppercase().chain(cs).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

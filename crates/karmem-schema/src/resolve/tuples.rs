//! Tuples `(T0, T1, ...)` (docs/idl.md §3.3): an inline struct the compiler
//! declares, `{Struct}{Field}Tuple { F0 T0; F1 T1; ... }`, marked as a
//! tuple so that generators make it positional (a Rust tuple struct, a
//! JSON array). Its bytes are those of the inline struct (format.md §3).

use super::{Named, Resolver};
use crate::ast::{self, TypeExpr};
use crate::diagnostic::Diagnostic;
use crate::model::*;

impl Resolver {
    /// The struct declared for the tuple of `elems` written for `field`
    /// of the struct being defined.
    pub(super) fn tuple_struct(
        &mut self,
        field: &str,
        elems: &[TypeExpr],
        span: Span,
    ) -> Option<StructId> {
        if elems.len() < 2 {
            self.diags.push(
                Diagnostic::error(span, "a tuple needs at least two elements")
                    .with_label("one element")
                    .with_hint("write the element's type without parentheses"),
            );
            return None;
        }
        let owner = self.owner.clone();
        let name = format!("{owner}{field}Tuple");
        if let Some((_, first)) = self.names.get(&name) {
            let first = *first;
            self.diags.push(
                Diagnostic::error(
                    span,
                    format!("the tuple of `{field}` would be named `{name}`, a declared type"),
                )
                .with_label("tuple")
                .with_secondary(first, "declared here")
                .with_hint("rename the field or the type: a tuple's type is its struct's name, the field's, then `Tuple`"),
            );
            return None;
        }
        let mut fields = Vec::with_capacity(elems.len());
        for (i, elem) in elems.iter().enumerate() {
            // Named after the field and position, so that a tuple inside
            // this one gets a name of its own.
            let decl = ast::FieldDecl {
                name: ast::Ident {
                    name: format!("{field}F{i}"),
                    span: elem.span(),
                },
                optional: None,
                ty: elem.clone(),
                attrs: Vec::new(),
                default: None,
                doc: Vec::new(),
                span: elem.span(),
            };
            let ty = self.field_type(&decl)?;
            fields.push(Field {
                name: format!("F{i}"),
                ty,
                span: elem.span(),
                doc: Vec::new(),
                optional: false,
                default: None,
            });
        }
        self.owner = owner;
        let id = self.schema.structs.len();
        self.schema.structs.push(Struct {
            name: name.clone(),
            kind: StructKind::Inline,
            fields,
            span,
            doc: vec![format!("The tuple of `{}.{field}`.", self.owner)],
            tuple: true,
        });
        self.schema.order.push(Item::Struct(id));
        self.names.insert(name, (Some(Named::Struct(id)), span));
        Some(id)
    }
}

//! Tuples `(T0, T1, ...)` (docs/idl.md §3.3): an inline struct the compiler
//! declares, `{Struct}{Field}Tuple { F0 T0; F1 T1; ... }`, marked as a
//! tuple so that generators make it positional (a Rust tuple struct, a
//! JSON array). Its bytes are those of the inline struct (format.md §3).

use super::declared::{self, part, type_part};
use super::Resolver;
use crate::ast::TypeExpr;
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
        let name = format!("{}{}Tuple", self.owner, type_part(field));
        self.free_name(&name, |first| {
            Diagnostic::error(
                span,
                format!("the tuple of `{field}` would be named `{name}`, a declared type"),
            )
            .with_label("tuple")
            .with_secondary(first, "declared here")
            .with_hint("rename the field or the type: a tuple's type is its struct's name, the field's, then `Tuple`")
        })?;
        let mut fields = Vec::with_capacity(elems.len());
        for (i, elem) in elems.iter().enumerate() {
            // Named after the field and position, so that a tuple inside
            // this one gets a name of its own.
            let decl = part(format!("{field}F{i}"), elem, Vec::new(), elem.span());
            fields.push(declared::field(
                format!("F{i}"),
                self.field_type(&decl, false)?,
                elem.span(),
            ));
        }
        let doc = format!("The tuple of `{}.{field}`.", self.owner);
        Some(self.declare_inline(name, fields, span, doc, true))
    }
}

//! `map<K, V>` (docs/idl.md §3.2): an array of a generated inline struct
//! `{Owner}{Field}Entry { Key K; Value V; }` in the `Map` layout (sorted
//! by key, keys unique; format.md §5.5). The entry struct is an ordinary
//! inline struct of the schema, so every layout, writer, reader and
//! validator handles the values of any type without a case of its own.

use super::declared::{field, part, type_part};
use super::{Named, Resolver};
use crate::ast::{self, TypeExpr};
use crate::diagnostic::Diagnostic;
use crate::model::*;

impl Resolver {
    pub(super) fn map_type(
        &mut self,
        f: &ast::FieldDecl,
        key: &TypeExpr,
        value: &TypeExpr,
    ) -> Option<FieldType> {
        let key_ty = self.map_key(key)?;
        // Layout annotations and `@string` of the field apply to the value.
        let value_decl = part(
            format!("{}Value", f.name.name),
            value,
            f.attrs.clone(),
            f.name.span,
        );
        // Not the field's own array: `@packed` leaves it SoA.
        let value_ty = self.field_type(&value_decl, false)?;
        let name = format!("{}{}Entry", self.owner, type_part(&f.name.name));
        self.free_name(&name, |first| {
            Diagnostic::error(
                f.name.span,
                format!("the entries of map `{}` would be named `{name}`, a declared type", f.name.name),
            )
            .with_label("map field")
            .with_secondary(first, "declared here")
            .with_hint("rename the field or the type: a map's entry type is its struct's name, the field's (capitalised), then `Entry`")
        })?;
        let span = f.name.span;
        let doc = format!("An entry of map `{}.{}`.", self.owner, f.name.name);
        let fields = vec![
            field("Key".into(), key_ty, span),
            field("Value".into(), value_ty, span),
        ];
        let entry = self.declare_inline(name, fields, f.span, doc, false);
        Some(FieldType::Array(ArrayType {
            elem: ElemType::Struct(entry),
            kind: ArrayKind::Dynamic,
            layout: ArrayLayout::Map,
            text: None,
        }))
    }

    /// A map key: an integer, an enum or `string` (ordered by number, by
    /// the enum's number, by bytes).
    fn map_key(&mut self, key: &TypeExpr) -> Option<FieldType> {
        if let TypeExpr::Named(id) = key {
            if id.name == "string" {
                return Some(FieldType::Array(ArrayType {
                    elem: ElemType::Scalar(Primitive::U8),
                    kind: ArrayKind::Dynamic,
                    layout: ArrayLayout::Plain,
                    text: Some(Text::Utf8),
                }));
            }
            match self.lookup(id)? {
                Named::Primitive(p, _) if p.is_integer() => return Some(FieldType::Scalar(p)),
                Named::Enum(e) => return Some(FieldType::Enum(e)),
                _ => {}
            }
        }
        self.diags.push(
            Diagnostic::error(
                key.span(),
                "a map key must be an integer, an enum or `string`",
            )
            .with_label("not an orderable key")
            .with_hint(
                "keys are kept sorted for look-up; floats, bools, structs and arrays are not keys",
            ),
        );
        None
    }
}

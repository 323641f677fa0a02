//! Field default values (`hp: u16 = 100;`, docs/idl.md §4.3.1): checked
//! against the field's type once every type is defined (an enum may be
//! declared after the struct that uses it).
//!
//! Only table fields take a default: a default is what a field reads as
//! when it is absent from a table (format.md §4, an older writer), and an
//! inline struct's fields are always present.

use super::{closest, Resolver};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::model::*;

/// What a literal is, for "found …" labels.
fn found(lit: &ast::Literal) -> &'static str {
    match lit {
        ast::Literal::Int(_) => "an integer",
        ast::Literal::Float { .. } => "a decimal number",
        ast::Literal::Str { .. } => "a string",
        ast::Literal::Ident(_) => "a name",
    }
}

/// The source spelling of a literal, for messages.
fn spelling(lit: &ast::Literal) -> String {
    match lit {
        ast::Literal::Int(i) => i.text.clone(),
        ast::Literal::Float { text, .. } => text.clone(),
        ast::Literal::Str { value, .. } => format!("\"{value}\""),
        ast::Literal::Ident(id) => id.name.clone(),
    }
}

impl Resolver {
    pub(super) fn defaults(&mut self, file: &ast::File) {
        let structs = file.items.iter().filter_map(|item| match item {
            ast::Item::Struct(decl) => Some(decl),
            _ => None,
        });
        for (id, decl) in structs.enumerate() {
            // The model's fields are the declared ones in order, but for
            // duplicates, which are left out: the model field of a
            // declared one is found by the span of its name, stepping
            // forward (not searching the struct for every field).
            let mut k = 0;
            for f in &decl.fields {
                let fields = &self.schema.structs[id].fields;
                while fields
                    .get(k)
                    .is_some_and(|m| m.span.start < f.name.span.start)
                {
                    k += 1;
                }
                if fields.get(k).is_none_or(|m| m.span != f.name.span) {
                    continue;
                }
                let Some(lit) = &f.default else { continue };
                let value = self.field_default(id, k, lit);
                self.schema.structs[id].fields[k].default = value;
            }
        }
    }

    fn field_default(
        &mut self,
        id: StructId,
        k: usize,
        lit: &ast::Literal,
    ) -> Option<DefaultValue> {
        let owner = &self.schema.structs[id];
        let field = &owner.fields[k];
        if owner.kind == StructKind::Inline {
            let name = owner.name.clone();
            self.diags.push(
                Diagnostic::error(
                    lit.span(),
                    format!("default value on a field of inline struct `{name}`"),
                )
                .with_label("an inline struct's fields are always present")
                .with_hint(format!(
                    "only a table field can be absent and read its default: make `{name}` a \
                     `table`, or set the value when writing"
                )),
            );
            return None;
        }
        let (field_name, ty) = (field.name.clone(), field.ty.clone());
        if field.optional {
            self.diags.push(
                Diagnostic::error(
                    lit.span(),
                    format!("optional field `{field_name}` cannot have a default"),
                )
                .with_label("an absent optional field reads as none")
                .with_hint("remove the `?` to read absence as the default, or remove `= …`"),
            );
            return None;
        }
        match &ty {
            FieldType::Scalar(Primitive::Bool) => match lit {
                ast::Literal::Ident(id) if id.name == "true" || id.name == "false" => {
                    Some(DefaultValue::Bool(id.name == "true"))
                }
                _ => self.mismatch(lit, "bool", &field_name, "`true` or `false`"),
            },
            FieldType::Scalar(p @ (Primitive::F32 | Primitive::F64)) => {
                self.float_default(*p, &field_name, lit)
            }
            FieldType::Scalar(p) => match lit {
                ast::Literal::Int(i) => {
                    let value = i.value?;
                    let (lo, hi) = p.integer_range().expect("integer primitive");
                    if value < lo || value > hi {
                        self.diags.push(
                            Diagnostic::error(
                                i.span,
                                format!("default `{}` is out of range for `{}`", i.text, p.name()),
                            )
                            .with_label("does not fit")
                            .with_hint(format!("`{}` holds {lo} to {hi}", p.name())),
                        );
                        return None;
                    }
                    Some(DefaultValue::Int(value))
                }
                _ => self.mismatch(lit, p.name(), &field_name, "an integer"),
            },
            FieldType::Enum(e) => self.enum_default(*e, &field_name, lit),
            FieldType::Array(a)
                if a.text == Some(Text::Utf8) && !matches!(a.kind, ArrayKind::Fixed(_)) =>
            {
                let ast::Literal::Str { value, span } = lit else {
                    return self.mismatch(lit, "text", &field_name, "a string");
                };
                if let Some(limit) = a.limit() {
                    if value.len() > limit as usize {
                        self.diags.push(
                            Diagnostic::error(
                                *span,
                                format!("default text is longer than the limit of `{field_name}`"),
                            )
                            .with_label(format!("{} bytes", value.len()))
                            .with_hint(format!("the field holds at most {limit} bytes")),
                        );
                        return None;
                    }
                }
                Some(DefaultValue::Text(value.clone()))
            }
            other => {
                let what = match other {
                    FieldType::Struct(_) => "a struct",
                    FieldType::Union(_) => "a union",
                    FieldType::Array(a) if a.text == Some(Text::Utf16) => "UTF-16 text",
                    FieldType::Array(a) if matches!(a.kind, ArrayKind::Fixed(_)) => "a fixed array",
                    _ => "an array",
                };
                self.diags.push(
                    Diagnostic::error(
                        lit.span(),
                        "a default value needs a scalar, enum or UTF-8 text field",
                    )
                    .with_label(format!("`{field_name}` is {what}"))
                    .with_hint(
                        "defaults apply to `bool`, integers, floats, enums and UTF-8 text \
                         (`string`, `[]char`, `[<N]char`, `[]u8 @string`)",
                    ),
                );
                None
            }
        }
    }

    /// A `= literal` whose kind does not fit the field's type.
    fn mismatch(
        &mut self,
        lit: &ast::Literal,
        ty: &str,
        field: &str,
        expected: &str,
    ) -> Option<DefaultValue> {
        self.diags.push(
            Diagnostic::error(
                lit.span(),
                format!("default for `{ty}` field `{field}` must be {expected}"),
            )
            .with_label(format!("found {}", found(lit)))
            .with_hint(format!("write {expected}, or remove `= {}`", spelling(lit))),
        );
        None
    }

    fn float_default(
        &mut self,
        p: Primitive,
        field: &str,
        lit: &ast::Literal,
    ) -> Option<DefaultValue> {
        let (text, span) = match lit {
            ast::Literal::Int(i) => (i.text.clone(), i.span),
            ast::Literal::Float { text, span } => (text.clone(), *span),
            _ => return self.mismatch(lit, p.name(), field, "a number"),
        };
        let parsed = match lit {
            ast::Literal::Int(i) => i.value.map(|v| v as f64),
            _ => text.replace('_', "").parse::<f64>().ok(),
        };
        let value = parsed.map(|v| {
            if p == Primitive::F32 {
                v as f32 as f64
            } else {
                v
            }
        });
        match value {
            Some(v) if v.is_finite() && !(v == 0.0 && v.is_sign_negative()) => {
                Some(DefaultValue::Float(v))
            }
            Some(0.0) => {
                self.diags.push(
                    Diagnostic::error(span, "a default cannot be negative zero")
                        .with_label("`-0.0`")
                        .with_hint(
                            "write `0.0` (Go constants have no negative zero, so not every \
                             generated language could spell it)",
                        ),
                );
                None
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!("default `{text}` is not a finite `{}`", p.name()),
                    )
                    .with_label("out of range or not a number")
                    .with_hint("write a decimal number such as `1.5` or `-2e-3`"),
                );
                None
            }
        }
    }

    fn enum_default(&mut self, e: EnumId, field: &str, lit: &ast::Literal) -> Option<DefaultValue> {
        let enum_name = self.schema.enums[e].name.clone();
        let ast::Literal::Ident(id) = lit else {
            return self.mismatch(
                lit,
                &enum_name,
                field,
                &format!("a value of `{enum_name}`, by name"),
            );
        };
        let variants = &self.schema.enums[e].variants;
        // An index of the enum's value names, made once per enum: many
        // defaults naming values of a large enum stay linear.
        let index = self.enum_values.entry(e).or_insert_with(|| {
            let names = variants.iter().enumerate();
            names.map(|(k, v)| (v.name.clone(), k)).collect()
        });
        if let Some(&variant) = index.get(&id.name) {
            let value = variants[variant].value;
            return Some(DefaultValue::Enum { variant, value });
        }
        let names = variants.iter().map(|v| v.name.as_str());
        let hint = match closest(&id.name, names, &mut self.suggest_budget) {
            Some(s) => format!("did you mean `{s}`?"),
            None => {
                // The first few: a hint of every value of a large enum
                // would be as long as the enum.
                let names: Vec<&str> = variants.iter().take(8).map(|v| v.name.as_str()).collect();
                let more = if variants.len() > names.len() {
                    ", …"
                } else {
                    ""
                };
                format!("`{enum_name}` has {}{more}", names.join(", "))
            }
        };
        self.diags.push(
            Diagnostic::error(
                id.span,
                format!("`{}` is not a value of enum `{enum_name}`", id.name),
            )
            .with_label("unknown value")
            .with_hint(hint),
        );
        None
    }
}

//! Computing the layout of a checked schema (docs/format.md §3–§7).

use karmem_schema::model::*;
use karmem_schema::Diagnostic;

use crate::model::*;

/// Lay out every struct, union and SoA element of `schema`.
///
/// Fails with diagnostics for problems only visible after flattening:
/// recursion through tables inside an SoA element, too deep or too wide
/// flattening, and column hash collisions.
pub fn compute(schema: &Schema) -> Result<Layout, Vec<Diagnostic>> {
    let mut c = Computer {
        schema,
        structs: vec![None; schema.structs.len()],
        soa: vec![None; schema.structs.len()],
        soa_pending: Vec::new(),
        diags: Vec::new(),
    };
    for id in 0..schema.structs.len() {
        c.struct_layout(id);
    }
    // SoA layouts requested while laying out fields; flattening may request
    // more (arrays inside columns), so drain until none is left.
    while let Some((elem, span)) = c.soa_pending.pop() {
        if c.soa[elem].is_none() {
            let soa = c.flatten(elem, span);
            c.soa[elem] = Some(soa);
        }
    }
    let unions = schema
        .unions
        .iter()
        .map(|u| UnionLayout {
            tag: u.tag,
            variants: u
                .variants
                .iter()
                .map(|v| UnionVariantLayout {
                    tag: v.tag,
                    ty: v.ty,
                    is_table: schema.structs[v.ty].kind == StructKind::Table,
                })
                .collect(),
        })
        .collect();
    if !c.diags.is_empty() {
        return Err(c.diags);
    }
    let mut structs: Vec<StructLayout> = c
        .structs
        .into_iter()
        .map(|s| s.expect("every struct laid out"))
        .collect();
    zero_sizes(&mut structs);
    Ok(Layout {
        structs,
        unions,
        soa: c.soa,
    })
}

/// Fill in every struct's [`StructLayout::zero`]: `Z(T)` of format.md §10,
/// its own bytes (a table's `S(T)`, nothing for an inline struct, whose
/// bytes are its container's) plus what its fields' zero values hold
/// ([`absent_charge`]).
///
/// The structs a zero value holds form a DAG (a struct cannot hold itself
/// through fields, a schema error), so one post-order walk computes each
/// once; iterative, as a chain of tables is as deep as the schema makes
/// it (RATIONALE R3.12). Saturating: a table holding the next one twice,
/// 64 levels deep, has 2^64 tables in its zero value, which is charged
/// `u64::MAX` and refused, never built.
fn zero_sizes(structs: &mut [StructLayout]) {
    let children = |s: &StructLayout| -> Vec<StructId> {
        s.fields
            .iter()
            .filter_map(|f| match &f.slot {
                Slot::TableRef(id) | Slot::InlineStruct(id) => Some(*id),
                Slot::FixedArray {
                    elem: FixedElem::InlineStruct(id),
                    ..
                } => Some(*id),
                _ => None,
            })
            .collect()
    };
    let mut done = vec![false; structs.len()];
    for root in 0..structs.len() {
        // (struct, children pushed?)
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if done[id] {
                continue;
            }
            if !expanded {
                stack.push((id, true));
                for child in children(&structs[id]) {
                    if !done[child] {
                        stack.push((child, false));
                    }
                }
                continue;
            }
            let own = if structs[id].header != 0 {
                structs[id].size as u64
            } else {
                0
            };
            let held = structs[id].fields.iter().fold(0u64, |sum, f| {
                sum.saturating_add(absent_charge(structs, &f.slot))
            });
            structs[id].zero = own.saturating_add(held);
            done[id] = true;
        }
    }
}

/// What the zero value of a slot holds beyond the slot's own bytes, in
/// budget units (format.md §10): `Z(U)` for a table field of type `U`, the
/// tables an inline struct holds (for each element of a fixed array of
/// them), nothing for anything else (an optional table has no value, an
/// array is empty, a union has no value). Needs the `zero` of the structs
/// the slot holds.
pub(crate) fn absent_charge(structs: &[StructLayout], slot: &Slot) -> u64 {
    match slot {
        Slot::TableRef(id) | Slot::InlineStruct(id) => structs[*id].zero,
        Slot::FixedArray {
            elem: FixedElem::InlineStruct(id),
            len,
            ..
        } => structs[*id].zero.saturating_mul(*len as u64),
        _ => 0,
    }
}

struct Computer<'a> {
    schema: &'a Schema,
    structs: Vec<Option<StructLayout>>,
    soa: Vec<Option<SoaLayout>>,
    /// SoA element structs still to flatten, with the span of a field that
    /// uses them (for diagnostics).
    soa_pending: Vec<(StructId, Span)>,
    diags: Vec<Diagnostic>,
}

fn align_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a) * a
}

impl Computer<'_> {
    fn struct_layout(&mut self, id: StructId) -> &StructLayout {
        if self.structs[id].is_none() {
            let s = &self.schema.structs[id];
            let is_table = s.kind == StructKind::Table;
            // The header is the table's first u32 member.
            let mut offset: u32 = if is_table { TABLE_HEADER_SIZE } else { 0 };
            let mut fields = Vec::with_capacity(s.fields.len());
            for f in &s.fields {
                let (size, align, slot) = self.field_slot(f);
                offset = align_up(offset, align);
                fields.push(FieldLayout {
                    offset,
                    size,
                    align,
                    slot,
                });
                // Sizes were checked against u32 by the schema crate.
                offset = offset.saturating_add(size);
            }
            let used = offset;
            // A table is 8-aligned and a multiple of 8 (its header counts
            // 8-byte units); an inline struct takes the largest alignment
            // of its fields and is padded to a multiple of it, so that a
            // `Vec3` of three `f32` is 12 bytes, as in C, Go and Rust
            // (format.md §3, RATIONALE R2.18).
            let align = if is_table {
                OBJECT_ALIGN
            } else {
                fields.iter().map(|f| f.align).max().unwrap_or(1)
            };
            let size = align_up(used, align);
            let header = if is_table {
                (size / OBJECT_ALIGN) | ((size - used) << 29)
            } else {
                0
            };
            self.structs[id] = Some(StructLayout {
                size,
                used: if is_table { used } else { size },
                align,
                fields,
                header,
                // Filled in once every struct is laid out (`zero_sizes`).
                zero: 0,
            });
        }
        self.structs[id].as_ref().expect("just computed")
    }

    /// Size, alignment and slot of a field; an optional one wraps its
    /// value's slot (format.md §4.2).
    fn field_slot(&mut self, f: &Field) -> (u32, u32, Slot) {
        let (size, align, slot) = self.value_slot(&f.ty, f.span);
        match slot {
            _ if !f.optional => (size, align, slot),
            Slot::TableRef(id) => (size, align, Slot::OptionalTable(id)),
            value => (
                // The presence byte takes the value's alignment, so the
                // value stays naturally aligned.
                align.saturating_add(size),
                align,
                Slot::Optional {
                    value_at: align,
                    value: Box::new(value),
                },
            ),
        }
    }

    /// Size, alignment and slot of a value of type `ty`.
    fn value_slot(&mut self, ty: &FieldType, span: Span) -> (u32, u32, Slot) {
        let schema = self.schema;
        match ty {
            FieldType::Scalar(p) => (p.size(), p.size(), Slot::Scalar(*p)),
            FieldType::Enum(id) => {
                let repr = schema.enums[*id].repr;
                (repr.size(), repr.size(), Slot::Enum { id: *id, repr })
            }
            FieldType::Struct(id) if schema.structs[*id].kind == StructKind::Inline => {
                let l = self.struct_layout(*id);
                (l.size, l.align, Slot::InlineStruct(*id))
            }
            FieldType::Struct(id) => (OFFSET_SIZE, REF_SLOT_ALIGN, Slot::TableRef(*id)),
            FieldType::Union(id) => (
                UNION_SLOT_SIZE,
                REF_SLOT_ALIGN,
                Slot::Union {
                    id: *id,
                    tag: schema.unions[*id].tag,
                },
            ),
            FieldType::Array(a) => match a.kind {
                ArrayKind::Fixed(len) => {
                    let (elem, stride, align) = match a.elem {
                        ElemType::Scalar(p) => (FixedElem::Scalar(p), p.size(), p.size()),
                        ElemType::Enum(id) => {
                            let repr = schema.enums[id].repr;
                            (FixedElem::Enum { id, repr }, repr.size(), repr.size())
                        }
                        ElemType::Struct(id) => {
                            let l = self.struct_layout(id);
                            (FixedElem::InlineStruct(id), l.size, l.align)
                        }
                        ElemType::Union(_) | ElemType::Array(_) => {
                            unreachable!(
                                "the schema checker rejects fixed arrays of unions and arrays"
                            )
                        }
                    };
                    (
                        stride.saturating_mul(len),
                        align,
                        Slot::FixedArray { elem, len, stride },
                    )
                }
                ArrayKind::Dynamic | ArrayKind::Limited(_) => {
                    let data = self.array_data(a, span);
                    (
                        ARRAY_REF_SIZE,
                        REF_SLOT_ALIGN,
                        Slot::ArrayRef { array: *a, data },
                    )
                }
            },
        }
    }

    fn array_data(&mut self, a: &ArrayType, span: Span) -> ArrayData {
        let schema = self.schema;
        match a.elem {
            ElemType::Scalar(p) => ArrayData::Plain {
                elem_size: p.size(),
            },
            ElemType::Enum(id) => ArrayData::Plain {
                elem_size: schema.enums[id].repr.size(),
            },
            ElemType::Array(id) => {
                let inner = schema.arrays[id];
                ArrayData::Arrays {
                    array: inner,
                    data: Box::new(self.array_data(&inner, span)),
                }
            }
            ElemType::Struct(id) => match a.layout {
                // A map's entries are an AoS array of its inline entry
                // struct (format.md §5.5).
                ArrayLayout::Aos | ArrayLayout::Plain | ArrayLayout::Map => self.aos_of(id),
                _ => self.soa_of(id, span),
            },
            ElemType::Union(id) => {
                let tag = schema.unions[id].tag;
                match a.layout {
                    // Maps hold entry structs, never unions directly.
                    ArrayLayout::Aos | ArrayLayout::Plain | ArrayLayout::Map => {
                        ArrayData::UnionAos { id, tag }
                    }
                    ArrayLayout::Soa => ArrayData::UnionSoa { id, tag },
                    ArrayLayout::BoVoA | ArrayLayout::BoVoS => {
                        let soa = a.layout == ArrayLayout::BoVoS;
                        let union = &schema.unions[id];
                        // A bunch table has one entry per variant; readers
                        // scan at most MAX_COLUMNS entries (format.md §7.1,
                        // §10), so more variants would be unreadable.
                        if union.variants.len() > MAX_COLUMNS {
                            self.diags.push(
                                Diagnostic::error(
                                    span,
                                    format!(
                                        "`{}` has {} variants; a #bovoa/#bovos array holds at most {MAX_COLUMNS}",
                                        union.name,
                                        union.variants.len()
                                    ),
                                )
                                .with_label("array of this union")
                                .with_hint("use #soa or #aos for this array"),
                            );
                        }
                        let variants = schema.unions[id]
                            .variants
                            .iter()
                            .map(|v| BunchVariant {
                                tag: v.tag,
                                ty: v.ty,
                                data: Box::new(if soa {
                                    self.soa_of(v.ty, span)
                                } else {
                                    self.aos_of(v.ty)
                                }),
                            })
                            .collect();
                        ArrayData::UnionBunch { id, tag, variants }
                    }
                }
            }
        }
    }

    fn aos_of(&mut self, id: StructId) -> ArrayData {
        if self.schema.structs[id].kind == StructKind::Table {
            ArrayData::AosTable { id }
        } else {
            let stride = self.struct_layout(id).size;
            ArrayData::AosInline { id, stride }
        }
    }

    fn soa_of(&mut self, elem: StructId, span: Span) -> ArrayData {
        self.soa_pending.push((elem, span));
        ArrayData::Soa { elem }
    }

    /// Flatten `elem` into columns (format.md §5.3).
    fn flatten(&mut self, elem: StructId, span: Span) -> SoaLayout {
        let mut columns = Vec::new();
        let mut path = Vec::new();
        let mut steps = Vec::new();
        let mut on_path = vec![elem];
        self.flatten_into(
            elem,
            span,
            &mut path,
            &mut steps,
            &mut on_path,
            &mut columns,
        );
        if columns.len() > MAX_COLUMNS {
            let name = &self.schema.structs[elem].name;
            self.diags.push(
                Diagnostic::error(span, format!("`{name}` flattens into more than {MAX_COLUMNS} columns"))
                    .with_label("array of this struct")
                    .with_hint("use #aos for this array, or move rarely used fields into a table behind an array"),
            );
        }
        let hashes: Vec<u32> = columns.iter().map(|c: &Column| c.hash).collect();
        if let Some((i, j)) = first_collision(&hashes) {
            let a = self.column_name(elem, &columns[i]);
            let b = self.column_name(elem, &columns[j]);
            self.diags
                .push(collision_diagnostic(span, &a, &b, hashes[i]));
        }
        if let Some((i, j)) = first_name_clash(&columns, |c| self.column_name(elem, c)) {
            let a = self.column_name(elem, &columns[i]);
            let b = self.column_name(elem, &columns[j]);
            self.diags.push(name_clash_diagnostic(span, &a, &b));
        }
        // Directory order (format.md §5.3): by decreasing natural alignment
        // of the value size, flattening order among equals (a stable sort),
        // so no column needs padding after the first.
        columns.sort_by_key(|c| core::cmp::Reverse(karmem_format::natural_align(c.size)));
        // Fits in u32: more than MAX_COLUMNS columns is an error reported above.
        let directory_size = soa_directory_size(columns.len() as u64) as u32;
        SoaLayout {
            elem,
            columns,
            directory_size,
        }
    }

    fn flatten_into(
        &mut self,
        id: StructId,
        span: Span,
        path: &mut Vec<u32>,
        steps: &mut Vec<StructId>,
        on_path: &mut Vec<StructId>,
        out: &mut Vec<Column>,
    ) {
        let schema = self.schema;
        if path.len() >= MAX_FLATTEN_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    span,
                    format!("SoA flattening is deeper than {MAX_FLATTEN_DEPTH} levels"),
                )
                .with_label("array whose element nests too deeply")
                .with_hint("use #aos for this array"),
            );
            return;
        }
        for (index, field) in schema.structs[id].fields.iter().enumerate() {
            // One column past the limit is enough to report it: a struct
            // holding a struct several times, level after level, would
            // flatten into exponentially many.
            if out.len() > MAX_COLUMNS {
                return;
            }
            path.push(index as u32);
            steps.push(id);
            match &field.ty {
                // An optional table is a column of table offsets (0 =
                // none), never flattened: it may hold the element itself.
                FieldType::Struct(child) if !field.optional => {
                    if on_path.contains(child) {
                        let elem = &schema.structs[on_path[0]].name;
                        self.diags.push(
                            Diagnostic::error(span, format!(
                                "the SoA layout of `{elem}` would flatten table `{}` into itself through field `{}`",
                                schema.structs[*child].name, field.name
                            ))
                            .with_label("array of a recursive struct")
                            .with_secondary(field.span, "recursion through this field")
                            .with_hint("use #aos for this array: each element is then a separate table"),
                        );
                    } else {
                        on_path.push(*child);
                        self.flatten_into(*child, span, path, steps, on_path, out);
                        on_path.pop();
                    }
                }
                _ => {
                    let (size, align, slot) = self.field_slot(field);
                    out.push(Column {
                        path: path.clone(),
                        steps: steps.clone(),
                        hash: path_hash(path),
                        size,
                        align,
                        slot,
                    });
                }
            }
            path.pop();
            steps.pop();
        }
    }

    fn column_name(&self, elem: StructId, column: &Column) -> String {
        let mut names = vec![self.schema.structs[elem].name.clone()];
        for (step, index) in column.steps.iter().zip(&column.path) {
            names.push(
                self.schema.structs[*step].fields[*index as usize]
                    .name
                    .clone(),
            );
        }
        names.join(".")
    }
}

/// The key two column names clash on in some language: the field path
/// without separators or case (`selected_item_slot` and
/// `selected_item.slot` become the Rust accessor `selected_item_slot`;
/// `SelectedItem.Slot` and `SelectedItemSlot` the Go method
/// `SelectedItemSlot`). Accessors that would shadow a view's own methods
/// get a `column` suffix in Rust (`len` becomes `len_column`), so the key
/// carries it too.
fn accessor_key(dotted: &str) -> String {
    // Drop the element's own name, keep the path below it.
    let path = dotted.split_once('.').map_or(dotted, |(_, p)| p);
    let key: String = path
        .chars()
        .filter(|c| *c != '_' && *c != '.')
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "len" | "isempty" | "get" | "iter" | "new" => key + "column",
        _ => key,
    }
}

/// Indices of the first two columns whose accessor names would clash in
/// some generated language ([`accessor_key`]), if any.
pub(crate) fn first_name_clash(
    columns: &[Column],
    name: impl Fn(&Column) -> String,
) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    for (j, c) in columns.iter().enumerate() {
        if let Some(i) = seen.insert(accessor_key(&name(c)), j) {
            return Some((i, j));
        }
    }
    None
}

pub(crate) fn name_clash_diagnostic(span: Span, a: &str, b: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("columns `{a}` and `{b}` would get the same accessor name"),
    )
    .with_label("array whose SoA view would have two equal method names")
    .with_hint("column accessors join the field path without separators or case (`a_b` and `a.b` both give `a_b` / `AB`): rename one field, or use #aos for this array")
}

/// Indices of the first two equal hashes, if any.
pub(crate) fn first_collision(hashes: &[u32]) -> Option<(usize, usize)> {
    let mut sorted: Vec<(u32, usize)> = hashes.iter().copied().zip(0..).collect();
    sorted.sort_unstable();
    sorted
        .windows(2)
        .find(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].1.min(w[1].1), w[0].1.max(w[1].1)))
}

pub(crate) fn collision_diagnostic(span: Span, a: &str, b: &str, hash: u32) -> Diagnostic {
    Diagnostic::error(span, format!("columns `{a}` and `{b}` have the same SoA hash {hash:#010x}"))
        .with_label("array whose directory would be ambiguous")
        .with_hint("add a placeholder field before one of them to change its position path, or use #aos for this array")
}

//! TypeScript backend: one ES module per schema (`<schema>.ts`) over the
//! `karmem` package (`ts/`, docs/typescript.md). It declares
//!
//! * `layout`: the schema's layout contract as data (every offset, size,
//!   header word and column hash from [`karmem_layout`]), which the
//!   library's validator, views and interpreted codec walk (RATIONALE.md
//!   R12.2);
//! * enums as `const` objects of their values and a `number` (`bigint` for
//!   64-bit) type: values unknown to this schema version are kept;
//! * one interface per struct (camelCase properties, `bigint` for 64-bit
//!   integers, `T | null` for optional values and unions), with a
//!   companion object of the same name: `encode`, `decode`, `validate`
//!   and `view`;
//! * one viewer class per struct (`<Name>Viewer`): getters that read a
//!   field from the message when asked, strings decoded on each access.
//! * straight-line encoders and decoders per struct, SoA element and union
//!   (`ts/encode.rs`, `ts/decode.rs`: printers of the shared layout plan), which
//!   the companions' `encode` and `decode` call.
//!
//! The generator prints; it computes no layout of its own.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};

use karmem_layout::{ArrayData, FixedElem, Layout, Slot};
use karmem_schema::model::*;

mod decode;
mod edit;
mod encode;
mod validate;
mod views;

// Zig's string escapes (`\"`, `\\`, `\n`, `\u{1f}`) are JavaScript's.
use crate::emit::Lines;
use crate::names::{self, quote, Namer};
use crate::python::elem_field_type;
use crate::{Backend, Error, GeneratedFile};

/// The TypeScript generator.
#[derive(Clone, Debug, Default)]
pub struct TsBackend;

impl Backend for TsBackend {
    fn name(&self) -> &'static str {
        "ts"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let g = Gen {
            s: schema,
            l: layout,
            n: Namer::new(&names::TYPESCRIPT, schema),
            counter: Cell::new(0),
            unions_read: RefCell::default(),
            unions_written: RefCell::default(),
            checkers: RefCell::default(),
            prev: RefCell::default(),
        };
        Ok(vec![GeneratedFile {
            path: format!("{}.ts", file_name(schema)),
            contents: g.file(),
        }])
    }
}

/// The module's file name without `.ts`: the schema name (`karmem app;`
/// gives `app.ts`), identifier characters only.
pub fn file_name(schema: &Schema) -> String {
    schema
        .package
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A TypeScript type name and property name (`names.rs` holds them, as the
/// AssemblyScript backend names its classes and fields the same way).
pub use crate::names::{ts_prop_name as prop_name, ts_type_name as type_name};

/// The wire type's name, as the library's `Prim` spells it (`u8`, `f32`).
fn prim_str(p: Primitive) -> &'static str {
    p.name()
}

fn is_big(p: Primitive) -> bool {
    matches!(p, Primitive::U64 | Primitive::I64)
}

/// The TypeScript type of a scalar value.
fn prim_ts(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "boolean",
        p if is_big(p) => "bigint",
        _ => "number",
    }
}

/// The typed array a plain array of `p` is seen as.
fn typed_array(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 | Primitive::Bool => "Uint8Array",
        Primitive::I8 => "Int8Array",
        Primitive::U16 => "Uint16Array",
        Primitive::I16 => "Int16Array",
        Primitive::U32 => "Uint32Array",
        Primitive::I32 => "Int32Array",
        Primitive::F32 => "Float32Array",
        Primitive::F64 => "Float64Array",
        Primitive::U64 => "BigUint64Array",
        Primitive::I64 => "BigInt64Array",
    }
}

/// An integer as a TypeScript literal of a `number` or `bigint` value.
fn int_literal(v: i128, big: bool) -> String {
    if big {
        format!("{v}n")
    } else {
        v.to_string()
    }
}

struct Gen<'a> {
    s: &'a Schema,
    l: &'a Layout,
    /// Names of the schema's types and properties (`names::TYPESCRIPT`).
    n: Namer<'a>,
    /// The next number of a local of the straight-line encoders and
    /// decoders (`Gen::fresh`).
    counter: Cell<u32>,
    /// The unions whose slot reader (writer) the code printed so far
    /// calls: only those are printed (an unused function does not compile
    /// under `noUnusedLocals`).
    unions_read: RefCell<BTreeSet<UnionId>>,
    unions_written: RefCell<BTreeSet<UnionId>>,
    /// The straight-line checkers the code printed so far calls.
    checkers: RefCell<BTreeSet<validate::Checker>>,
    /// While a decoder is printed: the expression of the value a place
    /// held before (`f0` → `o?.id`), which `decodeInto` reuses
    /// (`decode.rs`).
    prev: RefCell<HashMap<String, String>>,
}

impl Gen<'_> {
    // ---- the layout as data ------------------------------------------------

    fn slot_data(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(p) => format!("{{ k: \"scalar\", p: \"{}\" }}", prim_str(*p)),
            Slot::Enum { id, repr } => {
                format!("{{ k: \"enum\", p: \"{}\", e: {id} }}", prim_str(*repr))
            }
            Slot::InlineStruct(id) => format!("{{ k: \"inline\", s: {id} }}"),
            Slot::TableRef(id) => format!("{{ k: \"table\", s: {id} }}"),
            Slot::OptionalTable(id) => format!("{{ k: \"otable\", s: {id} }}"),
            Slot::Optional { value_at, value } => format!(
                "{{ k: \"optional\", at: {value_at}, v: {} }}",
                self.slot_data(value)
            ),
            Slot::Union { id, .. } => format!("{{ k: \"union\", u: {id} }}"),
            Slot::FixedArray { elem, len, stride } => {
                let e = match elem {
                    FixedElem::Scalar(p) => Slot::Scalar(*p),
                    FixedElem::Enum { id, repr } => Slot::Enum {
                        id: *id,
                        repr: *repr,
                    },
                    FixedElem::InlineStruct(id) => Slot::InlineStruct(*id),
                };
                format!(
                    "{{ k: \"fixed\", e: {}, len: {len}, stride: {stride} }}",
                    self.slot_data(&e)
                )
            }
            Slot::ArrayRef { array, data } => {
                format!("{{ k: \"array\", a: {} }}", self.array_data(array, data))
            }
        }
    }

    fn array_data(&self, array: &ArrayType, data: &ArrayData) -> String {
        let limit = array.limit().map_or("null".into(), |n| n.to_string());
        let text = match array.text {
            Some(Text::Utf8) => "\"utf8\"",
            Some(Text::Utf16) => "\"utf16\"",
            None => "null",
        };
        format!(
            "{{ limit: {limit}, text: {text}, map: {}, d: {} }}",
            array.is_map(),
            self.data(array.elem, data)
        )
    }

    fn data(&self, elem: ElemType, data: &ArrayData) -> String {
        match data {
            ArrayData::Plain { elem_size } => {
                let e = match elem {
                    ElemType::Enum(id) => Slot::Enum {
                        id,
                        repr: self.s.enums[id].repr,
                    },
                    ElemType::Scalar(p) => Slot::Scalar(p),
                    _ => unreachable!("plain arrays hold scalars"),
                };
                format!(
                    "{{ k: \"plain\", size: {elem_size}, e: {} }}",
                    self.slot_data(&e)
                )
            }
            ArrayData::AosInline { id, stride } => {
                format!("{{ k: \"aosInline\", s: {id}, stride: {stride} }}")
            }
            ArrayData::AosTable { id } => format!("{{ k: \"aosTable\", s: {id} }}"),
            ArrayData::Soa { elem } => format!("{{ k: \"soa\", s: {elem} }}"),
            ArrayData::UnionAos { id, .. } => format!("{{ k: \"unionAos\", u: {id} }}"),
            ArrayData::UnionSoa { id, .. } => format!("{{ k: \"unionSoa\", u: {id} }}"),
            ArrayData::Arrays { array, data } => {
                format!("{{ k: \"arrays\", a: {} }}", self.array_data(array, data))
            }
            ArrayData::UnionBunch { id, variants, .. } => {
                let vs: Vec<String> = variants
                    .iter()
                    .map(|bv| {
                        format!(
                            "{{ tag: {}, s: {}, d: {} }}",
                            bv.tag,
                            bv.ty,
                            self.data(ElemType::Struct(bv.ty), &bv.data)
                        )
                    })
                    .collect();
                format!("{{ k: \"bunch\", u: {id}, v: [{}] }}", vs.join(", "))
            }
        }
    }

    /// A declared default as the decoded value (docs/idl.md §4.3.1): an
    /// `f32` as the `f64` its bits widen to, which is what a reader returns.
    fn default_value(&self, slot: &Slot, d: &DefaultValue) -> String {
        match (slot, d) {
            (Slot::Scalar(Primitive::F32), DefaultValue::Float(v)) => js_float((*v as f32) as f64),
            (_, DefaultValue::Float(v)) => js_float(*v),
            (Slot::Scalar(p), DefaultValue::Int(v)) => int_literal(*v, is_big(*p)),
            (Slot::Enum { repr, .. }, DefaultValue::Enum { value, .. }) => {
                int_literal(*value, is_big(*repr))
            }
            (_, DefaultValue::Int(v)) | (_, DefaultValue::Enum { value: v, .. }) => v.to_string(),
            (_, DefaultValue::Bool(b)) => b.to_string(),
            (_, DefaultValue::Text(t)) => quote(t),
        }
    }

    fn layout(&self, c: &mut Lines) {
        c.line("");
        c.line("/** The layout of every type of this schema (crates/karmem-layout). */");
        c.open("export const layout: karmem.Schema = {");
        c.open("structs: [");
        for (id, st) in self.s.structs.iter().enumerate() {
            let sl = self.l.of_struct(id);
            c.open("{");
            c.line(&format!("name: {},", quote(&st.name)));
            c.line(&format!("ts: {},", quote(&self.n.struct_name(id))));
            c.line(&format!("table: {},", self.l.is_table(id)));
            c.line(&format!("tuple: {},", st.tuple));
            c.line(&format!("size: {},", sl.size));
            c.line(&format!("zero: {},", safe_units(sl.zero)));
            c.line(&format!("header: {},", sl.header));
            c.line(&format!(
                "check: {},",
                self.l.is_table(id) || self.l.inline_needs_validation(id)
            ));
            c.open("fields: [");
            for (i, f) in st.fields.iter().enumerate() {
                let fl = &sl.fields[i];
                let def = f
                    .nonzero_default()
                    .filter(|_| !f.optional)
                    .map(|d| format!(", def: {}", self.default_value(&fl.slot, d)))
                    .unwrap_or_default();
                c.line(&format!(
                    "{{ name: {}, js: {}, off: {}, size: {}, slot: {}{def} }},",
                    quote(&f.name),
                    quote(&prop_name(&f.name)),
                    fl.offset,
                    fl.size,
                    self.slot_data(&fl.slot)
                ));
            }
            c.close("],");
            if let Some(soa) = &self.l.soa[id] {
                c.open("soa: [");
                for col in &soa.columns {
                    let path: Vec<String> = col.path.iter().map(u32::to_string).collect();
                    let steps: Vec<String> = col.steps.iter().map(usize::to_string).collect();
                    c.line(&format!(
                        "{{ hash: {:#010x}, size: {}, path: [{}], steps: [{}], slot: {} }},",
                        col.hash,
                        col.size,
                        path.join(", "),
                        steps.join(", "),
                        self.slot_data(&col.slot)
                    ));
                }
                c.close("],");
            }
            c.close("},");
        }
        c.close("],");
        c.open("unions: [");
        for u in &self.s.unions {
            let vs: Vec<String> = u
                .variants
                .iter()
                .map(|v| format!("{{ tag: {}, s: {} }}", v.tag, v.ty))
                .collect();
            c.line(&format!(
                "{{ name: {}, tag: \"{}\", v: [{}] }},",
                quote(&u.name),
                prim_str(u.tag),
                vs.join(", ")
            ));
        }
        c.close("],");
        c.open("enums: [");
        for e in &self.s.enums {
            let vs: Vec<String> = e
                .variants
                .iter()
                .map(|v| {
                    format!(
                        "[{}, {}]",
                        quote(&v.name),
                        int_literal(v.value, is_big(e.repr))
                    )
                })
                .collect();
            c.line(&format!(
                "{{ name: {}, p: \"{}\", values: [{}] }},",
                quote(&e.name),
                prim_str(e.repr),
                vs.join(", ")
            ));
        }
        c.close("],");
        c.close("};");
    }

    // ---- types -------------------------------------------------------------

    /// An array element's type: that of a field of the same type.
    fn elem_ts(&self, e: ElemType) -> String {
        self.type_ts(&elem_field_type(self.s, e))
    }

    fn type_ts(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => prim_ts(*p).into(),
            FieldType::Enum(id) => self.n.enum_name(*id),
            FieldType::Struct(id) => self.n.struct_name(*id),
            FieldType::Union(id) => self.n.union_name(*id),
            FieldType::Array(a) if a.text.is_some() && !matches!(a.kind, ArrayKind::Fixed(_)) => {
                "string".into()
            }
            FieldType::Array(a) if a.is_map() => {
                let ElemType::Struct(entry) = a.elem else {
                    unreachable!("a map's elements are its entries")
                };
                let st = &self.s.structs[entry];
                format!(
                    "Map<{}, {}>",
                    self.type_ts(&st.fields[0].ty),
                    self.type_ts(&st.fields[1].ty)
                )
            }
            FieldType::Array(a) => format!("{}[]", paren(&self.elem_ts(a.elem))),
        }
    }

    /// What a viewer's getter returns for a value of `ty`: viewers for
    /// structs and union variants, views for arrays and maps (`karmem.viewSlot`).
    fn view_ts(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Struct(id) => format!("{}Viewer", self.n.struct_name(*id)),
            FieldType::Union(id) => format!("{}Viewer", self.n.union_name(*id)),
            FieldType::Array(a) => self.array_view_ts(a),
            _ => self.type_ts(ty),
        }
    }

    /// What a getter of field `f` returns: its view, or null for an
    /// optional value that is not there.
    fn field_view_ts(&self, f: &Field) -> String {
        let t = self.view_ts(&f.ty);
        if f.optional {
            format!("{t} | null")
        } else {
            t
        }
    }

    fn array_view_ts(&self, a: &ArrayType) -> String {
        if let ArrayKind::Fixed(_) = a.kind {
            return format!(
                "karmem.FixedView<{}>",
                self.view_ts(&elem_field_type(self.s, a.elem))
            );
        }
        if a.text.is_some() {
            return "string".into();
        }
        if a.is_map() {
            let ElemType::Struct(entry) = a.elem else {
                unreachable!("a map's elements are its entries")
            };
            let st = &self.s.structs[entry];
            return format!(
                "karmem.MapView<{}, {}>",
                self.type_ts(&st.fields[0].ty),
                self.view_ts(&st.fields[1].ty)
            );
        }
        match a.elem {
            ElemType::Scalar(p) => typed_array(p).into(),
            ElemType::Enum(e) => typed_array(self.s.enums[e].repr).into(),
            ElemType::Struct(id) if a.layout == ArrayLayout::Soa => {
                format!("karmem.SoaView<{}SoaItem>", self.n.struct_name(id))
            }
            ElemType::Struct(id) => {
                format!("karmem.StructArrayView<{}Viewer>", self.n.struct_name(id))
            }
            // Every variant of a `#bovos` array is an SoA array (§7.1).
            ElemType::Union(id) if a.layout == ArrayLayout::BoVoS => {
                format!("karmem.UnionArrayView<{}SoaItem>", self.n.union_name(id))
            }
            ElemType::Union(id) => {
                format!("karmem.UnionArrayView<{}Viewer>", self.n.union_name(id))
            }
            ElemType::Array(id) => format!(
                "karmem.ArraysView<{}>",
                self.array_view_ts(&self.s.arrays[id])
            ),
        }
    }

    fn field_ts(&self, f: &Field) -> String {
        let t = self.type_ts(&f.ty);
        if f.optional {
            format!("{t} | null")
        } else {
            t
        }
    }

    /// A `/** ... */` doc comment (nothing without lines). An empty line
    /// keeps the space after its `*` (the output has always had it).
    fn doc(c: &mut Lines, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        c.line("/**");
        for l in lines {
            let text = l.replace("*/", "* /");
            c.line(&format!(" * {}", text.trim_end()));
        }
        c.line(" */");
    }

    fn enum_item(&self, c: &mut Lines, id: EnumId) {
        let e = &self.s.enums[id];
        let name = type_name(&e.name);
        let big = is_big(e.repr);
        c.line("");
        Self::doc(c, &e.doc);
        c.line(&format!(
            "/** Values of the enum `{}` ({}); a value unknown to this schema version is kept as its number. */",
            e.name,
            e.repr.name()
        ));
        c.open(&format!("export const {name} = {{"));
        for v in &e.variants {
            c.line(&format!(
                "{}: {},",
                quote(&v.name),
                int_literal(v.value, big)
            ));
        }
        c.close("} as const;");
        let ty = if big { "bigint" } else { "number" };
        c.line(&format!("export type {name} = {ty};"));
        // The name of a value, for printing and for `karmem json`, which
        // writes enum values as names (issue #34: enums had no name
        // lookup).
        let lookup = names::TYPESCRIPT.fields.apply(&format!("{}_name", e.name));
        c.line(&format!(
            "/** The name of a value of `{}`; `undefined` for a value this schema version does not know. */",
            e.name
        ));
        c.open(&format!(
            "export function {lookup}(value: {name}): string | undefined {{"
        ));
        c.open("switch (value) {");
        for v in &e.variants {
            c.line(&format!(
                "case {}: return {};",
                int_literal(v.value, big),
                quote(&v.name)
            ));
        }
        c.line("default: return undefined;");
        c.close("}");
        c.close("}");
    }

    fn union_item(&self, c: &mut Lines, id: UnionId) {
        let u = &self.s.unions[id];
        let name = type_name(&u.name);
        c.line("");
        Self::doc(c, &u.doc);
        c.line(&format!(
            "/** A value of the union `{}`: the variant's type and value; null is no value (or a tag this schema does not know). */",
            u.name
        ));
        // `UnionValue<"Circle", Circle> | …`, with `suffix` after each type.
        let variants = |suffix: &str| {
            u.variants
                .iter()
                .map(|v| {
                    let t = self.n.struct_name(v.ty);
                    format!("karmem.UnionValue<{}, {t}{suffix}>", quote(&t))
                })
                .collect::<Vec<_>>()
                .join(" | ")
        };
        c.line(&format!("export type {name} = {} | null;", variants("")));
        c.line(&format!(
            "/** `{}` read in place: the variant's type and its viewer. */",
            u.name
        ));
        c.line(&format!(
            "export type {name}Viewer = {} | null;",
            variants("Viewer")
        ));
        // `#bovos` arrays hold every variant as an SoA array: their
        // elements are item views.
        if u.variants.iter().all(|v| self.l.soa[v.ty].is_some()) {
            c.line(&format!(
                "/** An element of a `#bovos` array of `{}` read in place: the variant's type and its SoA item view. */",
                u.name
            ));
            c.line(&format!(
                "export type {name}SoaItem = {} | null;",
                variants("SoaItem")
            ));
        }
    }

    fn struct_item(&self, c: &mut Lines, id: StructId) {
        let st = &self.s.structs[id];
        let name = self.n.struct_name(id);
        let table = self.l.is_table(id);
        c.line("");
        Self::doc(c, &st.doc);
        c.line(&format!(
            "/** The {} `{}`. */",
            if table { "table" } else { "inline struct" },
            st.name
        ));
        c.open(&format!("export interface {name} {{"));
        for f in &st.fields {
            Self::doc(c, &f.doc);
            c.line(&format!("{}: {};", prop_name(&f.name), self.field_ts(f)));
        }
        c.close("}");
        self.viewer(c, id);
        self.companion(c, id);
    }

    fn companion(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let st = self.l.of_struct(id);
        let root = if self.l.is_table(id) {
            "r.root()".to_string()
        } else {
            format!("r.inline(8, {})", st.size)
        };
        let encode_root = if self.l.is_table(id) {
            vec![
                "const b = karmem.beginMessage(w);".to_string(),
                format!("$write{name}(b, value);"),
                "return b.finish();".to_string(),
            ]
        } else {
            vec![
                "const b = karmem.beginMessage(w);".to_string(),
                format!("$writeAt{name}(b, value, b.alloc({}, 8));", st.size),
                "return b.finish();".to_string(),
            ]
        };
        // `decode` (`x`: None) and `decodeInto` (`x`: the object reused).
        let decode_root = |x: Option<&str>| {
            let into = x.map_or(String::new(), |x| format!(", {x}"));
            let zero = x.map_or(format!("$zero{name}()"), |x| {
                format!("karmem.zeroed({x}, $zero{name})")
            });
            if self.l.is_table(id) {
                return vec![
                    "const d = new karmem.Decoding(input, limits);".to_string(),
                    format!("return $read{name}(d, d.r.root(){into});"),
                ];
            }
            // An inline root that does not fit reads as all zero (§1): its
            // zero value, charged for the tables it holds (§10).
            let mut v = vec![
                "const d = new karmem.Decoding(input, limits);".to_string(),
                format!(
                    "if (d.r.inline(8, {}).used !== 0) return $readAt{name}(d, 8{into});",
                    st.size
                ),
            ];
            if st.zero > 0 {
                v.push(format!("d.charge({});", safe_units(st.zero)));
            }
            v.push(format!("return {zero};"));
            v
        };
        c.line("");
        c.line(&format!(
            "/** Whole messages with a `{name}` root: encode, decode, validate, view. */"
        ));
        c.open(&format!("export const {name} = {{"));
        method(
            c,
            "The message for `value` (docs/format.md §8); `w` is reset and reused.",
            &format!("encode(value: {name}, w?: karmem.Writer): Uint8Array"),
            &encode_root,
        );
        method(
            c,
            "The whole value; throws a KarmemError on a bad header, the depth limit or the budget.",
            &format!("decode(input: karmem.Input | karmem.Reader, limits?: karmem.Limits): {name}"),
            &decode_root(None),
        );
        method(
            c,
            "Decodes into `x`, reusing its arrays, maps and nested objects (values `decode` or `decodeInto` made); returns `x`.",
            &format!(
                "decodeInto(input: karmem.Input | karmem.Reader, x: {name}, limits?: karmem.Limits): {name}"
            ),
            &decode_root(Some("x")),
        );
        method(
            c,
            "Checks the whole message (docs/format.md §11); a viewer over a trusted reader after it.",
            &format!("validate(input: karmem.Input, limits?: karmem.Limits): {name}Viewer"),
            &[
                self.validate_root(id),
                vec![format!("return new {name}Viewer(r, {root});")],
            ]
            .concat(),
        );
        method(
            c,
            "A checked viewer (a bad header reads as an empty message: `reader.error`).",
            &format!("view(input: karmem.Input, limits?: karmem.Limits): {name}Viewer"),
            &[
                "const r = new karmem.Reader(input, limits);".to_string(),
                format!("return new {name}Viewer(r, {root});"),
            ],
        );
        c.close("};");
    }

    /// The absent value of a field read by a viewer: its default, or zero.
    fn absent(&self, f: &Field, slot: &Slot) -> String {
        if let Some(d) = f.nonzero_default() {
            return self.default_value(slot, d);
        }
        match slot {
            Slot::Scalar(Primitive::Bool) => "false".into(),
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => int_literal(0, is_big(*p)),
            _ => unreachable!("scalars only"),
        }
    }

    fn viewer(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let st = &self.s.structs[id];
        let sl = self.l.of_struct(id);
        c.line("");
        c.line(&format!(
            "/** `{name}` read in place: each getter reads its field from the message when called (checked, or trusted after `validate`). */"
        ));
        c.open(&format!("export class {name}Viewer {{"));
        c.open("constructor(");
        c.line("readonly $r: karmem.Reader,");
        c.line("readonly $t: karmem.Table,");
        c.close(") {}");
        for (i, f) in st.fields.iter().enumerate() {
            let fl = &sl.fields[i];
            let (off, size) = (fl.offset, fl.size);
            let at = if off == 0 {
                "this.$t.offset".to_string()
            } else {
                format!("this.$t.offset + {off}")
            };
            let has = format!("karmem.has(this.$t, {off}, {size})");
            // Read in place by the library's views (unions, maps, AoS arrays
            // of structs, arrays of arrays and of unions, fixed arrays,
            // optional values).
            let view = || {
                let t = self.field_view_ts(f);
                let body = format!(
                    "return karmem.viewSlot(this.$r, viewers, layout.structs[{id}]!.fields[{i}]!.slot, {at}, {has}) as {t};"
                );
                (t, body)
            };
            let (ty, body) = match &fl.slot {
                Slot::Union { .. } if !f.optional => view(),
                Slot::Scalar(p) | Slot::Enum { repr: p, .. } => (
                    self.field_ts(f),
                    format!(
                        "return {has} ? this.$r.{}({at}) : {};",
                        prim_str(*p),
                        self.absent(f, &fl.slot)
                    ),
                ),
                Slot::InlineStruct(c) => (
                    format!("{}Viewer", self.n.struct_name(*c)),
                    format!(
                        "return new {}Viewer(this.$r, this.$r.inline({at}, {size}, {has}));",
                        self.n.struct_name(*c)
                    ),
                ),
                Slot::TableRef(c) => (
                    format!("{}Viewer", self.n.struct_name(*c)),
                    format!(
                        "return new {}Viewer(this.$r, this.$r.fieldTable(this.$t, {off}));",
                        self.n.struct_name(*c)
                    ),
                ),
                Slot::OptionalTable(c) => {
                    let v = self.n.struct_name(*c);
                    (
                        format!("{v}Viewer | null"),
                        format!(
                            "const o = {has} ? this.$r.u32({at}) : 0;\nreturn o === 0 ? null : new {v}Viewer(this.$r, this.$r.table(o));"
                        ),
                    )
                }
                Slot::Optional { value_at, value } => match &**value {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => (
                        self.field_ts(f),
                        format!(
                            "return {has} && this.$r.u8({at}) !== 0 ? this.$r.{}({at} + {value_at}) : null;",
                            prim_str(*p)
                        ),
                    ),
                    _ => view(),
                },
                Slot::ArrayRef { array, data } if !array.is_map() => {
                    let limit = array.limit().map_or("null".into(), |n| n.to_string());
                    // An absent text field reads as its default (§4.1).
                    let text = |read: &str, unit: u32| {
                        let value = format!("this.$r.{read}(this.$r.fieldArray(this.$t, {off}, {unit}, {limit}))");
                        let body = match f.nonzero_default() {
                            Some(d) => format!(
                                "return {has} ? {value} : {};",
                                self.default_value(&fl.slot, d)
                            ),
                            None => format!("return {value};"),
                        };
                        ("string".to_string(), body)
                    };
                    match (array.text, data) {
                        (Some(Text::Utf8), _) => text("text", 1),
                        (Some(Text::Utf16), _) => text("text16", 2),
                        (None, ArrayData::Plain { elem_size }) => {
                            let p = match array.elem {
                                ElemType::Scalar(p) => p,
                                ElemType::Enum(e) => self.s.enums[e].repr,
                                _ => unreachable!("plain arrays hold scalars"),
                            };
                            (
                                typed_array(p).into(),
                                format!(
                                    "return karmem.arrayView(this.$r, this.$t, {off}, \"{}\", {elem_size}, {limit}) as {};",
                                    prim_str(p),
                                    typed_array(p)
                                ),
                            )
                        }
                        (None, ArrayData::Soa { elem }) => {
                            let t = format!("{}SoaItem", self.n.struct_name(*elem));
                            (
                                format!("karmem.SoaView<{t}>"),
                                format!(
                                    "return karmem.columnView<{t}>(this.$r, viewers, this.$t, {off}, {elem}, {limit});"
                                ),
                            )
                        }
                        _ => view(),
                    }
                }
                _ => view(),
            };
            Self::doc(c, &f.doc);
            c.open(&format!("get {}(): {ty} {{", prop_name(&f.name)));
            // One statement a line (two for an optional table).
            c.block(&body);
            c.close("}");
            if self.l.is_table(id) {
                self.setters(c, f, &fl.slot, off);
            }
        }
        c.close("}");
    }

    fn file(&self) -> String {
        let mut c = Lines::new("  ", 0);
        c.raw(&crate::header("//", self.s));
        c.line("// TypeScript over the `karmem` package (docs/typescript.md).");
        c.line("");
        c.line("import * as karmem from \"karmem\";");
        self.layout(&mut c);
        for item in &self.s.order {
            match item {
                Item::Enum(id) => self.enum_item(&mut c, *id),
                Item::Union(id) => self.union_item(&mut c, *id),
                Item::Struct(id) => self.struct_item(&mut c, *id),
                Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        self.soa_items(&mut c);
        self.viewers(&mut c);
        let has = self.has_class();
        self.encoders(&mut c, &has);
        self.decoders(&mut c, &has);
        self.checkers_fns(&mut c);
        c.out
    }

    /// Which structs have an interface, a viewer and a companion (all but
    /// map entries, read and written field by field).
    fn has_class(&self) -> Vec<bool> {
        let mut has = vec![false; self.s.structs.len()];
        for item in &self.s.order {
            if let Item::Struct(id) = item {
                has[*id] = true;
            }
        }
        has
    }

    /// The viewer constructors by struct index, which the library's views
    /// use to hand out viewers (`karmem.Viewers`). Structs without a class
    /// (map entries, read field by field) get none.
    fn viewers(&self, c: &mut Lines) {
        let has = self.has_class();
        c.line("");
        c.line("/** Viewer and SoA item view constructors by struct index (`layout.structs`), for the views of unions, maps and arrays. */");
        c.open("export const viewers: karmem.Viewers = {");
        c.line("s: layout,");
        c.open("v: [");
        for (id, h) in has.iter().enumerate() {
            if *h {
                c.line(&format!(
                    "(r, t) => new {}Viewer(r, t),",
                    self.n.struct_name(id)
                ));
            } else {
                c.line("() => null,");
            }
        }
        c.close("],");
        c.open("soa: [");
        for id in 0..self.s.structs.len() {
            if self.soa_order(id).is_some() {
                let name = self.n.struct_name(id);
                c.line(&format!(
                    "(s, i) => new {name}SoaItem(s, i, $columns{name}, 0),"
                ));
            } else {
                c.line("null,");
            }
        }
        c.close("],");
        c.close("};");
    }
}

/// A method of an object literal: a one-line doc comment, the signature
/// and the body's statements.
fn method(c: &mut Lines, doc: &str, signature: &str, body: &[String]) {
    c.line(&format!("/** {doc} */"));
    c.open(&format!("{signature} {{"));
    for l in body {
        c.line(l);
    }
    c.close("},");
}

/// `T` as an array element type (`(A | B)[]` needs the parentheses).
/// A budget charge as a JavaScript number: a `u64` that saturates at
/// `Number.MAX_SAFE_INTEGER` (2^53 − 1), still more than any budget (a
/// message of at most 2^32 − 1 bytes times a factor below 2^21), so a
/// charge held there is refused as `u64::MAX` is, and sums and products of
/// charges stay exact up to it.
fn safe_units(n: u64) -> u64 {
    n.min((1 << 53) - 1)
}

fn paren(t: &str) -> String {
    if t.contains(' ') {
        format!("({t})")
    } else {
        t.to_string()
    }
}

/// A finite `f64` as a JavaScript number literal that reads back as the
/// same value (Rust's shortest round-trip form is valid JavaScript).
fn js_float(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{v:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(prop_name("ID"), "id");
        assert_eq!(prop_name("Username"), "username");
        assert_eq!(prop_name("field_as_soa"), "fieldAsSoa");
        assert_eq!(prop_name("MonsterData"), "monsterData");
        assert_eq!(prop_name("constructor"), "constructor_");
        assert_eq!(type_name("monster_data"), "MonsterData");
        assert_eq!(type_name("string"), "String");
        assert_eq!(type_name("number"), "Number");
        assert_eq!(type_name("layout"), "Layout");
    }

    fn generate(source: &str) -> GeneratedFile {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let mut files = TsBackend.generate(&schema, &layout).unwrap();
        files.remove(0)
    }

    #[test]
    fn file_and_types() {
        let src = "karmem app;\nenum E u64 { A; B = 5; }\nstruct P table { ID u64; Name string; Hp u16 = 100; Tags []f32; Kind E; }\n";
        let f = generate(src);
        assert_eq!(f.path, "app.ts");
        assert!(f.contents.contains("import * as karmem from \"karmem\";"));
        assert!(f.contents.contains("  id: bigint;"), "{}", f.contents);
        assert!(f.contents.contains("  tags: number[];"));
        assert!(f.contents.contains("get tags(): Float32Array"));
        assert!(f.contents.contains("def: 100 }"));
        assert!(f.contents.contains("\"B\": 5n,"));
        assert_eq!(f.contents, generate(src).contents);
    }

    #[test]
    fn straight_line() {
        // `V` is declared but unused: its functions would not compile
        // under `noUnusedLocals`, so none is printed.
        let src = "karmem app;\nstruct A table { X u8; On bool; }\nstruct B inline { Y u32; }\nunion U { A; B; }\nunion V { A; }\n\
            struct R table { One U; Many []B; }\n";
        let f = generate(src).contents;
        for want in [
            "$writeR(b, value);",
            "return $readR(d, d.r.root());",
            "$checkR(v, 8);",
            "function $writeU(w: karmem.Writer, v: U | undefined, tagAt: number, offAt: number): void {",
            "function $readSoaB(d: karmem.Decoding, a: karmem.ArrayRef, prev?: B[]): B[] {",
            "decodeInto(input: karmem.Input | karmem.Reader, x: R, limits?: karmem.Limits): R {",
            "return $readR(d, d.r.root(), x);",
            "function $checkU(v: karmem.Checking, tagAt: number, offAt: number): void {",
            "if (tu >= 6) v.bool(to + 5);",
        ] {
            assert!(f.contains(want), "{want}\n{f}");
        }
        for unwanted in ["$writeV(", "$readV(", "$checkV("] {
            assert!(!f.contains(unwanted), "{unwanted}\n{f}");
        }
    }

    #[test]
    fn views() {
        let src = "karmem app;\nstruct A table { X u8; }\nstruct B inline { Y u32; }\nunion U { A; B; }\n\
            struct R table { One U; Many []U #aos; Grouped []U #bovos; Aos []A #aos; Soa []B; \
            Nested [][]f32; Names map<string, A>; Fixed [2]B; }\n";
        let f = generate(src).contents;
        for want in [
            "export type UViewer = karmem.UnionValue<\"A\", AViewer> | karmem.UnionValue<\"B\", BViewer> | null;",
            "get one(): UViewer {",
            "get many(): karmem.UnionArrayView<UViewer> {",
            "get aos(): karmem.StructArrayView<AViewer> {",
            "get soa(): karmem.SoaView<BSoaItem> {",
            "get grouped(): karmem.UnionArrayView<USoaItem> {",
            "get fixed(): karmem.FixedView<BViewer> {",
            "export class BSoaItem {",
            "(s, i) => new BSoaItem(s, i, $columnsB, 0),",
            "get nested(): karmem.ArraysView<Float32Array> {",
            "get names(): karmem.MapView<string, AViewer> {",
            "export const viewers: karmem.Viewers = {",
            "    (r, t) => new RViewer(r, t),",
        ] {
            assert!(f.contains(want), "{want}\n{f}");
        }
    }
}

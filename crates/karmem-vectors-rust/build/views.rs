//! The JSON printer over the generated viewers, printed per schema: an
//! `impl ViewJson` (src/views.rs) for every struct viewer, SoA array view,
//! SoA element view, union view and enum of one generated module. It reads
//! a message only through the generated accessors, so a wrong accessor
//! prints a value the vector does not state. Which accessor returns what
//! follows the layout's slots and array plans, as the generator's view
//! printer (crates/karmem-codegen/src/rust/views.rs) does; the accessors'
//! names come from `karmem_codegen::rust::api`, the generator's own.

use std::fmt::Write as _;

use karmem_codegen::names::{Namer, RUST};
use karmem_codegen::rust::api;
use karmem_layout::{ArrayData, ArrayPlan, FixedElem, Layout, Slot};
use karmem_schema::model::*;

pub struct Printer<'a> {
    s: &'a Schema,
    l: &'a Layout,
    n: Namer<'a>,
    /// The generated module's path (`crate::vectors_game`).
    m: String,
}

impl<'a> Printer<'a> {
    pub fn new(s: &'a Schema, l: &'a Layout, module: &str) -> Self {
        Printer {
            s,
            l,
            n: Namer::new(&RUST, s),
            m: format!("crate::{module}"),
        }
    }

    /// Every impl of the module.
    pub fn impls(&self) -> String {
        let mut out = String::new();
        let m = &self.m;
        for id in 0..self.s.enums.len() {
            let e = self.n.enum_name(id);
            let _ = writeln!(
                out,
                "impl ViewJson for {m}::{e} {{\n    fn json(&self) -> Value {{\n        named(self.name(), self.0)\n    }}\n}}\n"
            );
        }
        for id in 0..self.s.structs.len() {
            let fields: Vec<String> = self
                .l
                .of_struct(id)
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let call = format!("self.{}()", api::field_accessor(self.s, id, i));
                    self.slot(&f.slot, &call, 0)
                })
                .collect();
            let body = self.fields(id, fields);
            let view = format!("{m}::{}View", self.n.struct_name(id));
            let _ = writeln!(
                out,
                "impl<M: karmem::Mode> ViewJson for {view}<'_, M> {{\n    fn json(&self) -> Value {{\n        {body}\n    }}\n}}\n"
            );
            if self.l.soa[id].is_some() {
                self.soa(&mut out, id);
            }
        }
        for (id, u) in self.s.unions.iter().enumerate() {
            let v = format!("{m}::{}View", self.n.union_name(id));
            let mut arms = format!("{v}::None | {v}::Unknown(_) => Value::Null,\n");
            for var in &u.variants {
                let _ = writeln!(
                    arms,
                    "            {v}::{}(x) => variant({:?}, x.json()),",
                    self.n.struct_name(var.ty),
                    self.s.structs[var.ty].name
                );
            }
            let _ = writeln!(
                out,
                "impl<M: karmem::Mode> ViewJson for {v}<'_, M> {{\n    fn json(&self) -> Value {{\n        match self {{\n            {arms}        }}\n    }}\n}}\n"
            );
        }
        out
    }

    /// The JSON of struct `id` from its fields' values in declaration
    /// order: an object, or an array for a tuple.
    fn fields(&self, id: StructId, values: Vec<String>) -> String {
        let st = &self.s.structs[id];
        if st.tuple {
            return format!("Value::Array(vec![{}])", values.join(", "));
        }
        let pairs: Vec<String> = values
            .iter()
            .zip(&st.fields)
            .map(|(v, f)| format!("({:?}, {v})", f.name))
            .collect();
        format!("object(vec![{}])", pairs.join(", "))
    }

    /// The SoA array view of `id` (each element's JSON, and each native
    /// column slice checked against what the element view reads) and its
    /// element view (the element rebuilt from its flattened columns).
    fn soa(&self, out: &mut String, id: StructId) {
        let m = &self.m;
        let name = self.n.struct_name(id);
        let soa = self.l.soa[id].as_ref().unwrap();
        let mut checks = String::new();
        for (k, col) in soa.columns.iter().enumerate() {
            let c = api::column_accessor(self.s, soa, k);
            let differ = match &col.slot {
                Slot::Scalar(Primitive::Bool) => format!("(c[i] != 0) != it.{c}()"),
                Slot::Scalar(Primitive::F32 | Primitive::F64) => {
                    format!("c[i].to_bits() != it.{c}().to_bits()")
                }
                Slot::Scalar(_) => format!("c[i] != it.{c}()"),
                Slot::Enum { .. } => format!("c[i].0 != it.{c}().0"),
                _ => continue,
            };
            // A column the array does not hold is an empty slice; one it
            // holds must read as the element does, or the element's JSON
            // gets a neighbour no expected value has.
            let _ = write!(
                checks,
                "            let c = self.{c}();\n            if !c.is_empty() && (c.len() != self.len() || {differ}) {{\n                out.push(Value::from(\"column {c} differs\"));\n            }}\n"
            );
        }
        let each = if checks.is_empty() {
            "it in self.iter()"
        } else {
            "(i, it) in self.iter().enumerate()"
        };
        let _ = writeln!(
            out,
            "impl<M: karmem::Mode> ViewJson for {m}::{name}Soa<'_, M> {{\n    fn json(&self) -> Value {{\n        let mut out = Vec::new();\n        for {each} {{\n{checks}            out.push(it.json());\n        }}\n        Value::Array(out)\n    }}\n}}\n"
        );
        let body = self.soa_node(id, id, &[]);
        let _ = writeln!(
            out,
            "impl<M: karmem::Mode> ViewJson for {m}::{name}SoaItem<'_, '_, M> {{\n    fn json(&self) -> Value {{\n        {body}\n    }}\n}}\n"
        );
    }

    /// Struct `sid` at `prefix` inside SoA element `id`: each field is a
    /// column, a struct flattened further, or a struct without columns.
    fn soa_node(&self, id: StructId, sid: StructId, prefix: &[u32]) -> String {
        let soa = self.l.soa[id].as_ref().unwrap();
        let values = (0..self.s.structs[sid].fields.len())
            .map(|fi| {
                let mut path = prefix.to_vec();
                path.push(fi as u32);
                if let Some(k) = soa.columns.iter().position(|c| c.path == path) {
                    let call = format!("self.{}()", api::column_accessor(self.s, soa, k));
                    return self.slot(&soa.columns[k].slot, &call, 0);
                }
                if let Some(c) = soa.columns.iter().find(|c| c.path.starts_with(&path)) {
                    return self.soa_node(id, c.steps[path.len()], &path);
                }
                match &self.s.structs[sid].fields[fi].ty {
                    FieldType::Struct(t) if self.s.structs[*t].tuple => {
                        "Value::Array(vec![])".into()
                    }
                    _ => "object(vec![])".into(),
                }
            })
            .collect();
        self.fields(sid, values)
    }

    /// A `Value` expression for slot `slot` read by expression `e`; `d`
    /// numbers the closures' variables.
    fn slot(&self, slot: &Slot, e: &str, d: usize) -> String {
        let x = format!("x{d}");
        match slot {
            Slot::Scalar(p) => scalar(*p, e),
            Slot::Enum { .. } | Slot::InlineStruct(_) | Slot::TableRef(_) | Slot::Union { .. } => {
                format!("{e}.json()")
            }
            Slot::OptionalTable(_) => format!("{e}.map_or(Value::Null, |{x}| {x}.json())"),
            Slot::Optional { value, .. } => format!(
                "match {e} {{ Some({x}) => {}, None => Value::Null }}",
                self.slot(value, &x, d + 1)
            ),
            Slot::FixedArray { elem, .. } => {
                let each = match elem {
                    FixedElem::Scalar(p) => scalar(*p, &format!("*{x}")),
                    FixedElem::Enum { .. } | FixedElem::InlineStruct(_) => format!("{x}.json()"),
                };
                format!("Value::Array({e}.iter().map(|{x}| {each}).collect())")
            }
            Slot::ArrayRef { array, data } => self.array(array, data, e, d),
        }
    }

    /// A `Value` expression for the view `e` of an array holding `data`.
    fn array(&self, array: &ArrayType, data: &ArrayData, e: &str, d: usize) -> String {
        let x = format!("x{d}");
        let m = &self.m;
        let each = |v: &str| format!("Value::Array({e}.iter().map(|{x}| {v}).collect())");
        match self.l.array_plan(array, data) {
            ArrayPlan::Text { utf16: false, .. } => format!("Value::from({e})"),
            ArrayPlan::Text { utf16: true, .. } => {
                format!("Value::from(String::from_utf16_lossy({e}))")
            }
            ArrayPlan::Plain { elem, .. } => each(&match elem {
                ElemType::Scalar(Primitive::Bool) => format!("Value::Bool(*{x} != 0)"),
                ElemType::Scalar(p) => scalar(p, &format!("*{x}")),
                ElemType::Enum(id) => format!("{m}::{}(*{x}).json()", self.n.enum_name(id)),
                _ => unreachable!("plain arrays hold scalars and enums"),
            }),
            ArrayPlan::Nested { array, data, .. } => each(&self.array(array, data, &x, d + 1)),
            ArrayPlan::AosInline { map: false, .. }
            | ArrayPlan::AosTable { .. }
            | ArrayPlan::UnionAos { .. }
            | ArrayPlan::UnionSoa { .. } => each(&format!("{x}.json()")),
            ArrayPlan::AosInline { id, map: true, .. } => {
                let fields = &self.l.of_struct(id).fields;
                let y = format!("y{d}");
                format!(
                    "map(&{e}, |{x}| {}, |{y}| {})",
                    self.slot(&fields[0].slot, &x, d + 1),
                    self.slot(&fields[1].slot, &y, d + 1)
                )
            }
            ArrayPlan::Soa { .. } => format!("{e}.json()"),
            ArrayPlan::Bunch { id, soa } => {
                // Each variant's values in declaration order, as the
                // decoders group them (testdata/vectors/README.md).
                let mut parts = Vec::new();
                for var in &self.s.unions[id].variants {
                    let get = format!("{e}.{}()", api::bunch_accessor(self.s, var.ty));
                    let name = &self.s.structs[var.ty].name;
                    parts.push(if soa {
                        format!("items({get}.json()).into_iter().map(|{x}| variant({name:?}, {x}))")
                    } else {
                        format!("{get}.iter().map(|{x}| variant({name:?}, {x}.json()))")
                    });
                }
                format!(
                    "Value::Array(std::iter::empty::<Value>(){}.collect())",
                    parts
                        .iter()
                        .map(|p| format!(".chain({p})"))
                        .collect::<String>()
                )
            }
        }
    }
}

/// A `Value` expression for a number or `bool` `e`.
fn scalar(p: Primitive, e: &str) -> String {
    match p {
        Primitive::Bool => format!("Value::Bool({e})"),
        Primitive::F32 | Primitive::F64 => format!("float({e})"),
        _ => format!("Value::from({e})"),
    }
}

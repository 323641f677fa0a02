//! Property tests over every vector schema and every struct in it:
//!
//! * round trip: a random value (generated from the schema model) encodes
//!   to the same bytes in the oracle (`karmem-json`) and in the generated
//!   code, and decodes back to itself, with validation passing;
//! * hostile bytes: mutations and truncations of those messages never
//!   panic either decoder, and where both decode they agree.
use std::path::Path;

use karmem_layout::{ArrayData, FixedElem, Layout, Slot};
use karmem_schema::model::*;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

struct Gen<'a> {
    s: &'a Schema,
    l: &'a Layout,
    rng: Rng,
}

impl Gen<'_> {
    fn scalar(&mut self, p: Primitive) -> Value {
        let r = self.rng.next();
        match p {
            Primitive::Bool => json!(r & 1 == 1),
            // Multiples of 1/8 in a small range: exact in f32 and f64.
            Primitive::F32 | Primitive::F64 => json!((r % 4001) as f64 / 8.0 - 250.0),
            _ => {
                let (min, max) = p.integer_range().unwrap();
                let span = (max - min) as u128 + 1;
                let pick = match r % 4 {
                    0 => min,
                    1 => max,
                    _ => min + (((r >> 2) as u128 * 0x9E37_79B9_7F4A_7C15) % span) as i128,
                };
                if pick < 0 {
                    json!(pick as i64)
                } else {
                    json!(pick as u64)
                }
            }
        }
    }

    fn text(&mut self, max: usize) -> Value {
        const PIECES: [&str; 6] = ["a", "Z", "é", "日", "🦀", " "];
        let mut s = String::new();
        let n = self.rng.below(6) as usize;
        for _ in 0..n {
            let piece = PIECES[self.rng.below(6) as usize];
            if s.len() + piece.len() > max {
                break;
            }
            s.push_str(piece);
        }
        json!(s)
    }

    fn strukt(&mut self, id: StructId, depth: u32) -> Value {
        let mut m = Map::new();
        let fields = self.l.of_struct(id).fields.clone();
        for (i, f) in fields.iter().enumerate() {
            let name = self.s.structs[id].fields[i].name.clone();
            let v = self.slot(&f.slot, depth + 1);
            m.insert(name, v);
        }
        // A tuple is an array in JSON (docs/idl.md §3.3).
        if self.s.structs[id].tuple {
            return Value::Array(m.into_iter().map(|(_, v)| v).collect());
        }
        Value::Object(m)
    }

    fn union(&mut self, id: UnionId, depth: u32, allow_null: bool) -> Value {
        let u = &self.s.unions[id];
        if (allow_null && self.rng.below(4) == 0) || depth > 6 {
            return Value::Null;
        }
        let var = u.variants[self.rng.below(u.variants.len() as u64) as usize].ty;
        let name = self.s.structs[var].name.clone();
        let mut m = Map::new();
        m.insert(name, self.strukt(var, depth + 1));
        Value::Object(m)
    }

    fn slot(&mut self, slot: &Slot, depth: u32) -> Value {
        match slot {
            Slot::Scalar(p) => self.scalar(*p),
            Slot::Enum { repr, .. } => self.scalar(*repr),
            Slot::InlineStruct(id) | Slot::TableRef(id) => self.strukt(*id, depth),
            Slot::Union { id, .. } => self.union(*id, depth, true),
            // No value a third of the time, and always deep down (an
            // optional table may hold its own type).
            Slot::OptionalTable(_) | Slot::Optional { .. }
                if depth > 6 || self.rng.below(3) == 0 =>
            {
                Value::Null
            }
            Slot::OptionalTable(id) => self.strukt(*id, depth),
            Slot::Optional { value, .. } => self.slot(value, depth),
            Slot::FixedArray { elem, len, .. } => Value::Array(
                (0..*len)
                    .map(|_| match elem {
                        FixedElem::Scalar(p) => self.scalar(*p),
                        FixedElem::Enum { repr, .. } => self.scalar(*repr),
                        FixedElem::InlineStruct(id) => self.strukt(*id, depth),
                    })
                    .collect(),
            ),
            Slot::ArrayRef { array, data } => {
                let limit = match array.kind {
                    ArrayKind::Limited(n) => n as u64,
                    _ => 5,
                };
                if let Some(text) = array.text {
                    let max = if text == Text::Utf16 {
                        usize::MAX
                    } else {
                        limit as usize
                    };
                    let v = self.text(max.min(24));
                    if text == Text::Utf16
                        && v.as_str().unwrap().encode_utf16().count() as u64 > limit
                    {
                        return json!("");
                    }
                    return v;
                }
                let n = if depth > 6 {
                    0
                } else {
                    self.rng.below(limit.min(5) + 1)
                };
                // A map: an object of random keys (repeats collapse, as
                // in any JSON object) and values of the entry's value type.
                if let (true, ArrayData::AosInline { id, .. }) = (array.is_map(), data) {
                    let fields = self.l.of_struct(*id).fields.clone();
                    let mut m = Map::new();
                    for _ in 0..n {
                        let key = match self.slot(&fields[0].slot, depth + 1) {
                            Value::String(s) => s,
                            other => other.to_string(),
                        };
                        let value = self.slot(&fields[1].slot, depth + 1);
                        m.insert(key, value);
                    }
                    return Value::Object(m);
                }
                match data {
                    ArrayData::Plain { .. } => {
                        let p = match array.elem {
                            ElemType::Scalar(p) => p,
                            ElemType::Enum(id) => self.s.enums[id].repr,
                            _ => unreachable!(),
                        };
                        Value::Array((0..n).map(|_| self.scalar(p)).collect())
                    }
                    ArrayData::AosInline { id, .. }
                    | ArrayData::AosTable { id }
                    | ArrayData::Soa { elem: id } => {
                        Value::Array((0..n).map(|_| self.strukt(*id, depth)).collect())
                    }
                    ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. } => {
                        Value::Array((0..n).map(|_| self.union(*id, depth, true)).collect())
                    }
                    // Each element an array of its own, one level deeper.
                    ArrayData::Arrays { array: inner, data } => {
                        let slot = Slot::ArrayRef {
                            array: *inner,
                            data: (**data).clone(),
                        };
                        Value::Array((0..n).map(|_| self.slot(&slot, depth + 1)).collect())
                    }
                    ArrayData::UnionBunch { id, .. } => {
                        // Bunch layouts keep order only within a variant:
                        // generate values already grouped, without nulls.
                        let mut items: Vec<Value> =
                            (0..n).map(|_| self.union(*id, depth, false)).collect();
                        let order = |v: &Value| {
                            let name = v
                                .as_object()
                                .and_then(|m| m.keys().next().cloned())
                                .unwrap_or_default();
                            self.s.unions[*id]
                                .variants
                                .iter()
                                .position(|var| self.s.structs[var.ty].name == name)
                        };
                        items.retain(|v| !v.is_null());
                        items.sort_by_key(order);
                        Value::Array(items)
                    }
                }
            }
        }
    }
}

/// Every (schema file, schema, layout) under testdata/vectors.
fn schemas() -> Vec<(String, Schema, Layout)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    karmem_vectors::schema_files(&root)
        .into_iter()
        .map(|f| {
            let src = std::fs::read_to_string(&f).unwrap();
            let (s, l) = karmem_layout::load("x.km", &src).unwrap();
            let rel = f
                .strip_prefix(root.parent().unwrap())
                .unwrap()
                .to_string_lossy()
                .to_string();
            (rel, s, l)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn oracle_and_generated_code_agree(seed in any::<u64>()) {
        for (file, schema, layout) in schemas() {
            for root in 0..schema.structs.len() {
                let mut g = Gen { s: &schema, l: &layout, rng: Rng(seed | 1) };
                let value = g.strukt(root, 0);
                let bytes = karmem_json::encode(&schema, &layout, root, &value)
                    .map_err(|e| TestCaseError::fail(format!("{file}: {e}: {value}")))?;
                let name = &schema.structs[root].name;
                // Generated encode == oracle bytes; decode == value; validate ok.
                // The oracle reads known enum values back as names (the
                // generator writes numbers): the canonical form must encode
                // to the same bytes, and is what generated code must match.
                let canonical = karmem_json::decode(&schema, &layout, root, &bytes).unwrap();
                let again = karmem_json::encode(&schema, &layout, root, &canonical)
                    .map_err(|e| TestCaseError::fail(format!("{file}: {e}: {canonical}")))?;
                prop_assert_eq!(&again, &bytes, "{} {}: oracle round trip", file, name);
                karmem_vectors_rust::check_case(&file, name, &canonical, &bytes)
                    .map_err(|e| TestCaseError::fail(format!("{file} {name}: {e}\nvalue: {value}")))?;
            }
        }
    }

    #[test]
    fn hostile_mutations_never_panic_and_decoders_agree(seed in any::<u64>(), flips in 1usize..8) {
        for (file, schema, layout) in schemas() {
            for root in 0..schema.structs.len() {
                let mut g = Gen { s: &schema, l: &layout, rng: Rng(seed | 1) };
                let value = g.strukt(root, 0);
                let mut bytes = karmem_json::encode(&schema, &layout, root, &value).unwrap();
                let name = &schema.structs[root].name;
                // Corrupt bytes after the header (the header has its own tests).
                for _ in 0..flips {
                    if bytes.len() > 8 {
                        let i = 8 + g.rng.below(bytes.len() as u64 - 8) as usize;
                        bytes[i] = match g.rng.below(4) { 0 => 0xFF, 1 => 0, 2 => 0x40, _ => g.rng.next() as u8 };
                    }
                }
                // Both write NaN and infinities as the vectors do ("NaN", ...).
                let oracle = karmem_json::decode(&schema, &layout, root, &bytes);
                let generated = karmem_vectors_rust::decode_lenient(&file, name, &bytes);
                if let (Ok(a), Ok(b)) = (&oracle, &generated) {
                    prop_assert_eq!(a, b, "{} {}: decoders disagree on corrupted bytes", file, name);
                }
                // A truncated message (header size shrunk) must not panic either.
                let cut = 8 * (1 + g.rng.below(bytes.len() as u64 / 8)) as usize;
                let mut short = bytes[..cut].to_vec();
                short[4..8].copy_from_slice(&(cut as u32).to_le_bytes());
                let _ = karmem_json::decode(&schema, &layout, root, &short);
                let _ = karmem_vectors_rust::decode_lenient(&file, name, &short);
            }
        }
    }
}

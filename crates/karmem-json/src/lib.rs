//! JSON ⇄ Karmem binary, for any schema, at run time.
//!
//! This is a second, deliberately independent implementation of
//! `docs/format.md`: it shares no code with the `karmem` runtime or the
//! generated code, only the layout model. Golden vectors are produced here
//! and checked against generated code, so a bug has to be made twice, the
//! same way, to go unnoticed. It also backs `karmem json encode|decode`.
//!
//! JSON conventions (the cross-language contract, testdata/vectors/README.md):
//! structs are objects keyed by schema field names; integers and floats are
//! numbers (NaN and infinities the strings `"NaN"`, `"Infinity"`,
//! `"-Infinity"`); `bool` is `true`/`false`; an enum value is its name when
//! the schema declares one (a number is accepted too, and printed for values
//! only a newer schema knows);
//! text is a string; other arrays are arrays; a union is `null` or
//! `{"VariantType": value}`.

use std::collections::HashMap;
use std::fmt;

use karmem_layout::{
    bunch_table_size, natural_align, soa_directory_charge, soa_directory_size, ArrayData,
    FixedElem, Layout, Slot, ARRAY_REF_SIZE, BUNCH_TABLE_ALIGN, HEADER_SIZE, OFFSET_SIZE,
    SOA_DIRECTORY_ALIGN,
};
use karmem_schema::model::*;
use serde_json::{Map, Number, Value};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

// ---------------------------------------------------------------- encoding

/// Encode `value` as a message whose root is struct `root`.
pub fn encode(
    schema: &Schema,
    layout: &Layout,
    root: StructId,
    value: &Value,
) -> Result<Vec<u8>, Error> {
    let mut e = Encoder {
        s: schema,
        l: layout,
        buf: Vec::new(),
        directories: HashMap::new(),
    };
    e.alloc(HEADER_SIZE as u64, 8)?;
    if schema.structs[root].kind == StructKind::Table {
        e.table(root, value, "$")?;
    } else {
        let at = e.alloc(layout.of_struct(root).size as u64, 8)?;
        e.fields(root, value, at, "$")?;
    }
    let end = align(e.buf.len() as u64, 8) as usize;
    e.buf.resize(end, 0);
    let size = e.buf.len() as u32;
    e.buf[0..2].copy_from_slice(&karmem_layout::MAGIC);
    e.buf[2] = karmem_layout::VERSION;
    e.buf[3] = 0;
    e.buf[4..8].copy_from_slice(&size.to_le_bytes());
    Ok(e.buf)
}

struct Encoder<'a> {
    s: &'a Schema,
    l: &'a Layout,
    buf: Vec<u8>,
    /// The SoA directories written so far: column list (hash, size) →
    /// offset (format.md §5.3: one per column list per message).
    directories: HashMap<Vec<(u32, u32)>, u32>,
}

impl Encoder<'_> {
    fn alloc(&mut self, size: u64, a: u64) -> Result<u32, Error> {
        let start = align(self.buf.len() as u64, a);
        let end = start + size;
        if end > u32::MAX as u64 {
            return err("message would exceed 4 GiB");
        }
        self.buf.resize(end as usize, 0);
        Ok(start as u32)
    }

    fn alloc_array(&mut self, count: usize, size: u32) -> Result<u32, Error> {
        if count == 0 {
            return Ok(0);
        }
        // At the natural alignment of the element size (format.md §5).
        self.alloc(count as u64 * size as u64, natural_align(size) as u64)
    }

    fn put(&mut self, at: u32, bytes: &[u8]) {
        self.buf[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
    }

    fn put_ref(&mut self, at: u32, offset: u32, len: u32, cap: u32) {
        self.put(at, &offset.to_le_bytes());
        self.put(at + 4, &len.to_le_bytes());
        self.put(at + 8, &cap.to_le_bytes());
    }

    fn table(&mut self, id: StructId, v: &Value, path: &str) -> Result<u32, Error> {
        let sl = self.l.of_struct(id);
        let at = self.alloc(sl.size as u64, 8)?;
        self.put(at, &sl.header.to_le_bytes());
        self.fields(id, v, at, path)?;
        Ok(at)
    }

    fn object<'v>(
        &self,
        id: StructId,
        v: &'v Value,
        path: &str,
    ) -> Result<Option<&'v Map<String, Value>>, Error> {
        match v {
            Value::Null => Ok(None),
            Value::Object(m) => {
                let st = &self.s.structs[id];
                if let Some(k) = m.keys().find(|k| !st.fields.iter().any(|f| &f.name == *k)) {
                    return err(format!("{path}: `{}` has no field `{k}`", st.name));
                }
                Ok(Some(m))
            }
            _ => err(format!(
                "{path}: expected an object for `{}`",
                self.s.structs[id].name
            )),
        }
    }

    fn fields(&mut self, id: StructId, v: &Value, at: u32, path: &str) -> Result<(), Error> {
        self.shape(id, v, path)?;
        let sl = self.l.of_struct(id);
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            let given = member(self.s, id, i, v).unwrap_or(&Value::Null);
            let default = given.is_null().then(|| default_json(self.s, f)).flatten();
            let fv = default.as_ref().unwrap_or(given);
            let fl = &sl.fields[i];
            self.slot(&fl.slot, fv, at + fl.offset, &format!("{path}.{}", f.name))?;
        }
        Ok(())
    }

    fn scalar(&mut self, p: Primitive, v: &Value, at: u32, path: &str) -> Result<(), Error> {
        if v.is_null() {
            return Ok(()); // zero
        }
        let bytes: Vec<u8> = match p {
            Primitive::Bool => match v {
                Value::Bool(b) => vec![*b as u8],
                _ => return err(format!("{path}: expected true or false")),
            },
            Primitive::F32 => vec_of(&float_bits(v, path, true)?.to_le_bytes()[..4]),
            Primitive::F64 => vec_of(&float_bits(v, path, false)?.to_le_bytes()),
            _ => {
                let n = number(v, path)?;
                let x: i128 = if let Some(u) = n.as_u64() {
                    u as i128
                } else if let Some(i) = n.as_i64() {
                    i as i128
                } else {
                    return err(format!("{path}: expected an integer"));
                };
                let (min, max) = p.integer_range().expect("integer type");
                if x < min || x > max {
                    return err(format!("{path}: {x} is out of range for {}", p.name()));
                }
                let le = (x as u128).to_le_bytes();
                le[..p.size() as usize].to_vec()
            }
        };
        self.put(at, &bytes);
        Ok(())
    }

    /// An enum value: the name of one of its values (`"Facebook"`), or a
    /// number (any number of the enum's type: a newer schema's value too).
    fn enum_value(
        &mut self,
        id: EnumId,
        repr: Primitive,
        v: &Value,
        at: u32,
        path: &str,
    ) -> Result<(), Error> {
        let Value::String(name) = v else {
            return self.scalar(repr, v, at, path);
        };
        let e = &self.s.enums[id];
        match e.variants.iter().find(|x| x.name == *name) {
            // The schema checked that the value fits the enum's type.
            Some(x) => {
                let number = number_value(x.value);
                self.scalar(repr, &number, at, path)
            }
            None => {
                let known: Vec<&str> = e.variants.iter().map(|x| x.name.as_str()).collect();
                err(format!(
                    "{path}: `{name}` is not a value of enum `{}` (its values: {})",
                    e.name,
                    known.join(", ")
                ))
            }
        }
    }

    fn slot(&mut self, slot: &Slot, v: &Value, at: u32, path: &str) -> Result<(), Error> {
        match slot {
            Slot::Scalar(p) => self.scalar(*p, v, at, path),
            Slot::Enum { id, repr } => self.enum_value(*id, *repr, v, at, path),
            Slot::InlineStruct(id) => self.fields(*id, v, at, path),
            Slot::TableRef(id) => {
                let child = self.table(*id, v, path)?;
                self.put(at, &child.to_le_bytes());
                Ok(())
            }
            // `null` (or left out) is no value: offset 0, presence byte 0.
            Slot::OptionalTable(_) | Slot::Optional { .. } if v.is_null() => Ok(()),
            Slot::OptionalTable(id) => {
                let child = self.table(*id, v, path)?;
                self.put(at, &child.to_le_bytes());
                Ok(())
            }
            Slot::Optional { value_at, value } => {
                self.put(at, &[1]);
                self.slot(value, v, at + value_at, path)
            }
            Slot::Union { id, .. } => self.union(*id, v, at, at + 4, path),
            Slot::FixedArray { elem, len, stride } => {
                // `null` is N zero elements, written exactly as N `null`s:
                // a table inside an element is still written (format.md §8).
                let items: Option<&[Value]> = match v {
                    Value::Null => None,
                    Value::Array(a) if a.len() == *len as usize => Some(a),
                    _ => {
                        return err(format!(
                            "{path}: expected an array of exactly {len} elements"
                        ))
                    }
                };
                // Zero scalars are the bytes already there.
                let scalars = !matches!(elem, FixedElem::InlineStruct(_));
                let n = if items.is_none() && scalars { 0 } else { *len };
                for j in 0..n as usize {
                    let e = items.map_or(&Value::Null, |a| &a[j]);
                    let pos = at + j as u32 * stride;
                    let p = format!("{path}[{j}]");
                    match elem {
                        FixedElem::Scalar(p2) => self.scalar(*p2, e, pos, &p)?,
                        FixedElem::Enum { id, repr } => self.enum_value(*id, *repr, e, pos, &p)?,
                        FixedElem::InlineStruct(id) => self.fields(*id, e, pos, &p)?,
                    }
                }
                Ok(())
            }
            Slot::ArrayRef { array, data } => self.array(array, data, v, at, path),
        }
    }

    fn array(
        &mut self,
        array: &ArrayType,
        data: &ArrayData,
        v: &Value,
        at: u32,
        path: &str,
    ) -> Result<(), Error> {
        if let (true, ArrayData::AosInline { id, stride }) = (array.is_map(), data) {
            return self.map(*id, *stride, v, at, path);
        }
        let limit = match array.kind {
            ArrayKind::Limited(n) => Some(n as usize),
            _ => None,
        };
        let check = |n: usize| match limit {
            Some(l) if n > l => err(format!("{path}: {n} elements exceed the limit of {l}")),
            _ => Ok(()),
        };
        if let Some(text) = array.text {
            let s = match v {
                Value::Null => "",
                Value::String(s) => s.as_str(),
                _ => return err(format!("{path}: expected a string")),
            };
            let bytes: Vec<u8> = match text {
                Text::Utf8 => s.as_bytes().to_vec(),
                Text::Utf16 => s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect(),
            };
            let unit = if text == Text::Utf8 { 1 } else { 2 };
            let n = bytes.len() / unit;
            check(n)?;
            let block = self.alloc_array(n, unit as u32)?;
            if block != 0 {
                self.put(block, &bytes);
            }
            self.put_ref(at, block, n as u32, n as u32);
            return Ok(());
        }
        let items: Vec<&Value> = match v {
            Value::Null => Vec::new(),
            Value::Array(a) => a.iter().collect(),
            _ => return err(format!("{path}: expected an array")),
        };
        check(items.len())?;
        let n = items.len() as u32;
        match data {
            ArrayData::Plain { elem_size } => {
                let (p, named) = plain_elem(self.s, array.elem);
                let block = self.alloc_array(items.len(), *elem_size)?;
                for (i, e) in items.iter().enumerate() {
                    let pos = block + i as u32 * elem_size;
                    let path = format!("{path}[{i}]");
                    match named {
                        Some(id) => self.enum_value(id, p, e, pos, &path)?,
                        None => self.scalar(p, e, pos, &path)?,
                    }
                }
                self.put_ref(at, block, n, n);
            }
            // The references, then each element as an array of its own
            // (format.md §5.4, §8).
            ArrayData::Arrays { array: inner, data } => {
                let block = self.alloc_array(items.len(), ARRAY_REF_SIZE)?;
                for (i, e) in items.iter().enumerate() {
                    let pos = block + i as u32 * ARRAY_REF_SIZE;
                    self.array(inner, data, e, pos, &format!("{path}[{i}]"))?;
                }
                self.put_ref(at, block, n, n);
            }
            ArrayData::UnionAos { id, .. } => {
                let block = self.alloc_array(items.len(), 8)?;
                for (i, e) in items.iter().enumerate() {
                    let pos = block + 8 * i as u32;
                    self.union(*id, e, pos, pos + 4, &format!("{path}[{i}]"))?;
                }
                self.put_ref(at, block, n, n);
            }
            ArrayData::UnionSoa { id, tag } => {
                let tw = tag.size();
                let tags = self.alloc_array(items.len(), tw)?;
                let offsets = self.alloc_array(items.len(), 4)?;
                for (i, e) in items.iter().enumerate() {
                    self.union(
                        *id,
                        e,
                        tags + i as u32 * tw,
                        offsets + 4 * i as u32,
                        &format!("{path}[{i}]"),
                    )?;
                }
                self.put_ref(at, tags, n, n);
            }
            ArrayData::UnionBunch { id, variants, .. } => {
                let names: Vec<&str> = variants
                    .iter()
                    .map(|bv| self.s.structs[bv.ty].name.as_str())
                    .collect();
                let mut groups: Vec<Vec<&Value>> = vec![Vec::new(); variants.len()];
                for (i, e) in items.iter().enumerate() {
                    match e {
                        Value::Null => {}
                        Value::Object(m) if m.len() == 1 => {
                            let (k, inner) = m.iter().next().expect("one entry");
                            let Some(vi) = names.iter().position(|n| n == k) else {
                                return err(format!(
                                    "{path}[{i}]: `{}` has no variant `{k}`",
                                    self.s.unions[*id].name
                                ));
                            };
                            groups[vi].push(inner);
                        }
                        _ => {
                            return err(format!(
                                "{path}[{i}]: expected null or {{\"Variant\": value}}"
                            ))
                        }
                    }
                }
                let total: usize = groups.iter().map(Vec::len).sum();
                if total == 0 {
                    self.put_ref(at, 0, 0, 0);
                    return Ok(());
                }
                let k = groups.iter().filter(|g| !g.is_empty()).count() as u64;
                let table = self.alloc(bunch_table_size(k), BUNCH_TABLE_ALIGN as u64)?;
                self.put(table, &(k as u32).to_le_bytes());
                let mut entry = table + 16;
                for (bv, group) in variants.iter().zip(&groups) {
                    if group.is_empty() {
                        continue;
                    }
                    self.put(entry, &bv.tag.to_le_bytes());
                    self.struct_array(&bv.data, group, entry + 4, path)?;
                    entry += 16;
                }
                self.put_ref(at, table, total as u32, total as u32);
            }
            data => self.struct_array(data, &items, at, path)?,
        }
        Ok(())
    }

    /// A map: a JSON object whose keys are the map's keys (numbers and
    /// enum values written as text), stored as its entries sorted by key
    /// (format.md §5.5).
    fn map(
        &mut self,
        entry: StructId,
        stride: u32,
        v: &Value,
        at: u32,
        path: &str,
    ) -> Result<(), Error> {
        let object = match v {
            Value::Null => return Ok(()),
            Value::Object(m) => m,
            _ => return err(format!("{path}: expected an object (a map)")),
        };
        let sl = self.l.of_struct(entry);
        let (key, value) = (sl.fields[0].clone(), sl.fields[1].clone());
        let mut entries: Vec<(MapKey, Value, &Value)> = Vec::with_capacity(object.len());
        for (text, val) in object {
            let (order, json) = map_key(self.s, &key.slot, text)
                .ok_or_else(|| Error(format!("{path}: `{text}` is not a key of this map")))?;
            entries.push((order, json, val));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return err(format!("{path}: the key {} is given twice", w[1].1));
        }
        let block = self.alloc_array(entries.len(), stride)?;
        for (i, (_, k, val)) in entries.iter().enumerate() {
            let pos = block + i as u32 * stride;
            let p = format!("{path}[{k}]");
            self.slot(&key.slot, k, pos + key.offset, &p)?;
            self.slot(&value.slot, val, pos + value.offset, &p)?;
        }
        let n = entries.len() as u32;
        self.put_ref(at, block, n, n);
        Ok(())
    }

    fn struct_array(
        &mut self,
        data: &ArrayData,
        items: &[&Value],
        at: u32,
        path: &str,
    ) -> Result<(), Error> {
        let n = items.len() as u32;
        match data {
            ArrayData::AosInline { id, stride } => {
                let block = self.alloc_array(items.len(), *stride)?;
                for (i, e) in items.iter().enumerate() {
                    self.fields(*id, e, block + i as u32 * stride, &format!("{path}[{i}]"))?;
                }
                self.put_ref(at, block, n, n);
            }
            ArrayData::AosTable { id } => {
                let block = self.alloc_array(items.len(), 4)?;
                for (i, e) in items.iter().enumerate() {
                    let child = self.table(*id, e, &format!("{path}[{i}]"))?;
                    self.put(block + 4 * i as u32, &child.to_le_bytes());
                }
                self.put_ref(at, block, n, n);
            }
            ArrayData::Soa { elem } => {
                if items.is_empty() {
                    self.put_ref(at, 0, 0, 0);
                    return Ok(());
                }
                let soa = self.l.soa(*elem);
                // The directory of this column list: written right before
                // the first block that uses it, then shared (format.md §5.3).
                let list: Vec<(u32, u32)> = soa.columns.iter().map(|c| (c.hash, c.size)).collect();
                let dir = match self.directories.get(&list) {
                    Some(&d) => d,
                    None => {
                        let n = list.len() as u32;
                        let d =
                            self.alloc(soa.directory_size as u64, SOA_DIRECTORY_ALIGN as u64)?;
                        self.put(d, &n.to_le_bytes());
                        for (k, (hash, size)) in list.iter().enumerate() {
                            self.put(d + 4 + 4 * k as u32, &hash.to_le_bytes());
                            self.put(d + 4 + 4 * (n + k as u32), &size.to_le_bytes());
                        }
                        self.directories.insert(list, d);
                        d
                    }
                };
                let block = self.alloc(OFFSET_SIZE as u64, SOA_DIRECTORY_ALIGN as u64)?;
                self.put(block, &dir.to_le_bytes());
                let mut cols = Vec::with_capacity(soa.columns.len());
                for c in &soa.columns {
                    cols.push(self.alloc_array(items.len(), c.size)?);
                }
                for (i, e) in items.iter().enumerate() {
                    // Reject unknown keys at every level of the element.
                    self.check_keys(*elem, e, &format!("{path}[{i}]"))?;
                    for (k, c) in soa.columns.iter().enumerate() {
                        let mut leaf: &Value = e;
                        let mut p = format!("{path}[{i}]");
                        for (step, index) in c.steps.iter().zip(&c.path) {
                            let name = &self.s.structs[*step].fields[*index as usize].name;
                            leaf = member(self.s, *step, *index as usize, leaf)
                                .unwrap_or(&Value::Null);
                            p.push('.');
                            p.push_str(name);
                        }
                        let default = leaf
                            .is_null()
                            .then(|| default_json(self.s, c.field(self.s)))
                            .flatten();
                        let leaf = default.as_ref().unwrap_or(leaf);
                        self.slot(&c.slot, leaf, cols[k] + i as u32 * c.size, &p)?;
                    }
                }
                self.put_ref(at, block, n, n);
            }
            _ => unreachable!("struct arrays only"),
        }
        Ok(())
    }

    /// Unknown keys inside a flattened SoA element (recursively through the
    /// struct fields that flattening walks).
    fn check_keys(&self, id: StructId, v: &Value, path: &str) -> Result<(), Error> {
        self.shape(id, v, path)?;
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            if let (FieldType::Struct(c), Some(fv)) = (&f.ty, member(self.s, id, i, v)) {
                self.check_keys(*c, fv, &format!("{path}.{}", f.name))?;
            }
        }
        Ok(())
    }

    /// `v` can be a value of struct `id`: null, an object of its fields
    /// (no others), or for a tuple an array of exactly its elements.
    fn shape(&self, id: StructId, v: &Value, path: &str) -> Result<(), Error> {
        let st = &self.s.structs[id];
        match v {
            Value::Array(a) if st.tuple && a.len() == st.fields.len() => Ok(()),
            _ if st.tuple && !v.is_null() => err(format!(
                "{path}: expected an array of {} elements for the tuple `{}`",
                st.fields.len(),
                st.name
            )),
            _ => self.object(id, v, path).map(|_| ()),
        }
    }

    fn union(
        &mut self,
        id: UnionId,
        v: &Value,
        tag_at: u32,
        off_at: u32,
        path: &str,
    ) -> Result<(), Error> {
        let m = match v {
            Value::Null => return Ok(()),
            Value::Object(m) if m.len() == 1 => m,
            _ => return err(format!("{path}: expected null or {{\"Variant\": value}}")),
        };
        let (k, inner) = m.iter().next().expect("one entry");
        let u = &self.s.unions[id];
        let Some(var) = u
            .variants
            .iter()
            .find(|var| &self.s.structs[var.ty].name == k)
        else {
            return err(format!("{path}: `{}` has no variant `{k}`", u.name));
        };
        let tag = (var.tag as u64).to_le_bytes();
        self.put(tag_at, &tag[..u.tag.size() as usize]);
        let child = if self.s.structs[var.ty].kind == StructKind::Table {
            self.table(var.ty, inner, path)?
        } else {
            let c = self.alloc(self.l.of_struct(var.ty).size as u64, 8)?;
            self.fields(var.ty, inner, c, path)?;
            c
        };
        self.put(off_at, &child.to_le_bytes());
        Ok(())
    }
}

/// A field's declared default as the JSON value it reads as (None when
/// it has none, or it is the zero value). Enum values by name, as the
/// codec prints them (RATIONALE R6.5).
fn default_json(s: &Schema, f: &Field) -> Option<Value> {
    Some(match f.nonzero_default()? {
        DefaultValue::Int(v) => number_value(*v),
        DefaultValue::Float(v) => float(*v),
        DefaultValue::Bool(b) => Value::Bool(*b),
        DefaultValue::Text(t) => Value::String(t.clone()),
        DefaultValue::Enum { variant, .. } => {
            let FieldType::Enum(e) = f.ty else {
                unreachable!("an enum default belongs to an enum field")
            };
            Value::String(s.enums[e].variants[*variant].name.clone())
        }
    })
}

/// Field `i` of struct `id` in a JSON value: by position in a tuple's
/// array (docs/idl.md §3.3), by name in an object.
fn member<'v>(s: &Schema, id: StructId, i: usize, v: &'v Value) -> Option<&'v Value> {
    let st = &s.structs[id];
    if st.tuple {
        v.as_array()?.get(i)
    } else {
        v.get(&st.fields[i].name)
    }
}

fn member_mut<'v>(s: &Schema, id: StructId, i: usize, v: &'v mut Value) -> Option<&'v mut Value> {
    let st = &s.structs[id];
    if st.tuple {
        v.as_array_mut()?.get_mut(i)
    } else {
        v.get_mut(&st.fields[i].name)
    }
}

/// A decoded struct's JSON: its fields' object, or for a tuple their
/// values in order.
fn struct_value(s: &Schema, id: StructId, fields: Map<String, Value>) -> Value {
    if s.structs[id].tuple {
        Value::Array(fields.into_iter().map(|(_, v)| v).collect())
    } else {
        Value::Object(fields)
    }
}

/// A map key's place in the map's order: a number (integers, enums by
/// their number) or bytes (text).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MapKey {
    Number(i128),
    Text(String),
}

/// The key written as JSON object key `text`, for a key of `slot`: its
/// place in the order and the JSON value the codec writes it from. Enum
/// keys are names or numbers, integer keys decimal numbers.
fn map_key(s: &Schema, slot: &Slot, text: &str) -> Option<(MapKey, Value)> {
    match slot {
        Slot::Scalar(p) => {
            let n: i128 = text.parse().ok()?;
            let (lo, hi) = p.integer_range()?;
            ((lo..=hi).contains(&n)).then(|| (MapKey::Number(n), number_value(n)))
        }
        Slot::Enum { id, repr } => {
            let e = &s.enums[*id];
            let n = match e.variants.iter().find(|v| v.name == text) {
                Some(v) => v.value,
                None => text.parse().ok()?,
            };
            let (lo, hi) = repr.integer_range()?;
            ((lo..=hi).contains(&n)).then(|| (MapKey::Number(n), number_value(n)))
        }
        _ => Some((
            MapKey::Text(text.to_string()),
            Value::String(text.to_string()),
        )),
    }
}

/// An integer of any wire type (`i64::MIN ..= u64::MAX`) as a JSON number.
fn number_value(n: i128) -> Value {
    match i64::try_from(n) {
        Ok(i) => Value::from(i),
        Err(_) => Value::from(n as u64),
    }
}

fn vec_of(b: &[u8]) -> Vec<u8> {
    b.to_vec()
}

/// The bits of an `f32` (`narrow`, in the low 32 bits) or `f64` given as a
/// JSON number or as one of the strings of [`NON_FINITE`].
fn float_bits(v: &Value, path: &str, narrow: bool) -> Result<u64, Error> {
    if let Value::String(s) = v {
        return match NON_FINITE.iter().find(|(name, _, _)| name == s) {
            Some(&(_, bits32, bits64)) => Ok(if narrow { bits32 as u64 } else { bits64 }),
            None => err(format!(
                "{path}: expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", found {s:?}"
            )),
        };
    }
    let x = number(v, path)?.as_f64().unwrap_or(0.0);
    Ok(if narrow {
        (x as f32).to_bits() as u64
    } else {
        x.to_bits()
    })
}

/// JSON has no NaN or infinities: they are written as these strings
/// (testdata/vectors/README.md), with these exact `f32` and `f64` bits.
/// "NaN" is the quiet NaN with sign 0 and an empty payload; any NaN decodes
/// as "NaN", so other NaN bit patterns cannot appear in vectors.
pub const NON_FINITE: [(&str, u32, u64); 3] = [
    ("NaN", 0x7fc0_0000, 0x7ff8_0000_0000_0000),
    ("Infinity", 0x7f80_0000, 0x7ff0_0000_0000_0000),
    ("-Infinity", 0xff80_0000, 0xfff0_0000_0000_0000),
];

fn number<'v>(v: &'v Value, path: &str) -> Result<&'v Number, Error> {
    match v {
        Value::Number(n) => Ok(n),
        _ => err(format!("{path}: expected a number")),
    }
}

// ---------------------------------------------------------------- decoding

/// Limits of the decoder (format.md §10).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_directory_entries: u32,
    pub max_depth: u32,
    pub traversal_budget_factor: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_directory_entries: 1024,
            max_depth: 64,
            traversal_budget_factor: 8,
        }
    }
}

/// Decode a message whose root is struct `root`. Malformed parts decode as
/// zero values (as the readers of every language do); a bad header, the
/// depth limit or the traversal budget give an error.
pub fn decode(
    schema: &Schema,
    layout: &Layout,
    root: StructId,
    bytes: &[u8],
) -> Result<Value, Error> {
    decode_with(schema, layout, root, bytes, Limits::default())
}

pub fn decode_with(
    schema: &Schema,
    layout: &Layout,
    root: StructId,
    bytes: &[u8],
    limits: Limits,
) -> Result<Value, Error> {
    if bytes.len() < 8 {
        return err("message truncated: shorter than its header");
    }
    if bytes[0..2] != karmem_layout::MAGIC {
        return err("not a Karmem message (bad magic)");
    }
    if bytes[2] != karmem_layout::VERSION {
        return err(format!("unsupported format version {}", bytes[2]));
    }
    if bytes[3] != 0 {
        return err("reserved header flags set");
    }
    let size = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    if size < 8 || !size.is_multiple_of(8) {
        return err(format!("invalid message size {size}"));
    }
    if size > bytes.len() {
        return err(format!(
            "message truncated: needs {size} bytes, have {}",
            bytes.len()
        ));
    }
    let mut d = Decoder {
        s: schema,
        l: layout,
        b: &bytes[..size],
        budget: size as u64 * limits.traversal_budget_factor,
        depth: 0,
        limits,
        columns: HashMap::new(),
    };
    if schema.structs[root].kind == StructKind::Table {
        let t = d.table(HEADER_SIZE);
        d.table_value(root, t)
    } else if 8 + layout.of_struct(root).size as u64 <= size as u64 {
        d.inline_value(root, HEADER_SIZE, true)
    } else {
        // An inline root that does not fit reads as its zero value, as an
        // absent table does: charged for the tables it holds (format.md §1,
        // §10), nothing when it holds none.
        d.charge_held(layout.of_struct(root).zero)?;
        d.zero_struct(root)
    }
}

struct Decoder<'a> {
    s: &'a Schema,
    l: &'a Layout,
    b: &'a [u8],
    budget: u64,
    depth: u32,
    limits: Limits,
    /// Per SoA element type: column hash → the columns with that hash, so
    /// that a directory is scanned once, in time linear in its entries.
    columns: HashMap<StructId, HashMap<u32, Vec<usize>>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Table {
    offset: u32,
    used: u32,
}

const EMPTY: Table = Table { offset: 0, used: 0 };

#[derive(Clone, Copy)]
struct ArrayRef {
    offset: u32,
    len: u32,
    cap: u32,
}

const EMPTY_ARRAY: ArrayRef = ArrayRef {
    offset: 0,
    len: 0,
    cap: 0,
};

impl Decoder<'_> {
    fn charge(&mut self, n: u64) -> Result<(), Error> {
        let n = n.max(1);
        if n > self.budget {
            let factor = self.limits.traversal_budget_factor;
            let size = self.b.len() as u64;
            return err(format!(
                "message exceeds the traversal budget of {} units ({factor} × its {size} bytes, format.md §10)",
                factor.saturating_mul(size)
            ));
        }
        self.budget -= n;
        Ok(())
    }

    fn bytes(&self, at: u64, n: u64) -> Option<&[u8]> {
        let end = at.checked_add(n)?;
        self.b.get(at as usize..end as usize)
    }

    fn u32(&self, at: u32) -> u32 {
        self.bytes(at as u64, 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .unwrap_or(0)
    }

    fn uint(&self, at: u32, size: u32) -> u64 {
        let mut buf = [0u8; 8];
        if let Some(b) = self.bytes(at as u64, size as u64) {
            buf[..size as usize].copy_from_slice(b);
        }
        u64::from_le_bytes(buf)
    }

    fn table(&self, offset: u32) -> Table {
        if offset == 0 {
            return EMPTY;
        }
        let h = self.u32(offset);
        let total = (h & 0x1FFF_FFFF) as u64 * 8;
        let unused = (h >> 29) as u64;
        if !offset.is_multiple_of(8)
            || total < 8
            || total - unused < 4
            || offset as u64 + total > self.b.len() as u64
        {
            return EMPTY;
        }
        Table {
            offset,
            used: (total - unused) as u32,
        }
    }

    fn array_ref(&self, at: u32, elem_size: u32, limit: Option<u32>) -> ArrayRef {
        let a = ArrayRef {
            offset: self.u32(at),
            len: self.u32(at + 4),
            cap: self.u32(at + 8),
        };
        let ok = a.len <= a.cap
            && limit.is_none_or(|l| a.len <= l)
            && (a.cap == 0
                || (a.offset != 0
                    && a.offset.is_multiple_of(natural_align(elem_size))
                    && a.offset as u64 + a.cap as u64 * elem_size as u64 <= self.b.len() as u64));
        if ok {
            a
        } else {
            EMPTY_ARRAY
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return err("message nesting exceeds the depth limit");
        }
        Ok(())
    }

    fn table_value(&mut self, id: StructId, t: Table) -> Result<Value, Error> {
        let sl = self.l.of_struct(id);
        if t == EMPTY {
            // Absent or malformed: read as the table's zero value, which is
            // charged whole, Z(T), before it is built, and not again
            // inside (format.md §10). It reads nothing, so it is no level
            // of nesting either.
            self.charge(sl.zero)?;
            return self.zero_struct(id);
        }
        self.enter()?;
        // The whole table is built, fields past `used` included (as their
        // defaults or zeros): S(T) at least.
        self.charge((t.used as u64).max(sl.size as u64))?;
        let mut m = Map::new();
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            let fl = &sl.fields[i];
            let present = fl.offset + fl.size <= t.used;
            let v = if present {
                self.slot(&fl.slot, t.offset + fl.offset, true)?
            } else {
                // An absent field (an older writer's table) reads as its
                // default (docs/idl.md §4.3.1), else as its zero value,
                // whose bytes S(T) paid for; the tables it holds (a table
                // field's, an inline struct's) are charged before they are
                // built.
                match default_json(self.s, f) {
                    Some(d) => d,
                    None => {
                        self.charge_held(self.l.absent_charge(&fl.slot))?;
                        self.zero_slot(&fl.slot)?
                    }
                }
            };
            m.insert(f.name.clone(), v);
        }
        self.depth -= 1;
        Ok(Value::Object(m))
    }

    /// Charge `units` for the tables a zero value holds (format.md §10):
    /// nothing when it holds none, which is not the minimum unit of an
    /// object (its bytes were paid for by its container).
    fn charge_held(&mut self, units: u64) -> Result<(), Error> {
        if units == 0 {
            return Ok(());
        }
        self.charge(units)
    }

    fn inline_value(&mut self, id: StructId, at: u32, present: bool) -> Result<Value, Error> {
        // Inline structs are not a nesting level (format.md §10: depth
        // counts tables), and their size is charged by their container.
        let sl = self.l.of_struct(id);
        let mut m = Map::new();
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            let fl = &sl.fields[i];
            let v = self.slot(&fl.slot, at + fl.offset, present)?;
            m.insert(f.name.clone(), v);
        }
        Ok(struct_value(self.s, id, m))
    }

    fn scalar(&self, p: Primitive, at: u32, present: bool) -> Value {
        let raw = if present { self.uint(at, p.size()) } else { 0 };
        match p {
            Primitive::Bool => Value::Bool(raw & 0xFF != 0),
            Primitive::F32 => float(f32::from_bits(raw as u32) as f64),
            Primitive::F64 => float(f64::from_bits(raw)),
            Primitive::I8 => Value::from(raw as u8 as i8),
            Primitive::I16 => Value::from(raw as u16 as i16),
            Primitive::I32 => Value::from(raw as u32 as i32),
            Primitive::I64 => Value::from(raw as i64),
            _ => Value::from(raw),
        }
    }

    /// An enum value as its name, or as a number when this schema has no
    /// name for it (a newer writer's value).
    fn enum_value(&self, id: EnumId, repr: Primitive, at: u32, present: bool) -> Value {
        let number = self.scalar(repr, at, present);
        let value = number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from));
        match self.s.enums[id]
            .variants
            .iter()
            .find(|x| Some(x.value) == value)
        {
            Some(x) => Value::String(x.name.clone()),
            None => number,
        }
    }

    fn slot(&mut self, slot: &Slot, at: u32, present: bool) -> Result<Value, Error> {
        Ok(match slot {
            Slot::Scalar(p) => self.scalar(*p, at, present),
            Slot::Enum { id, repr } => self.enum_value(*id, *repr, at, present),
            Slot::InlineStruct(id) => self.inline_value(*id, at, present)?,
            Slot::TableRef(id) => {
                let t = if present {
                    self.table(self.u32(at))
                } else {
                    EMPTY
                };
                self.table_value(*id, t)?
            }
            Slot::Union { id, .. } => {
                if present {
                    self.union(*id, at, at + 4)?
                } else {
                    Value::Null
                }
            }
            // No value: absent, offset 0 or presence byte 0 (format.md §4.2).
            Slot::OptionalTable(id) => match if present { self.u32(at) } else { 0 } {
                0 => Value::Null,
                offset => {
                    let t = self.table(offset);
                    self.table_value(*id, t)?
                }
            },
            Slot::Optional { value_at, value } => {
                if present && self.uint(at, 1) != 0 {
                    self.slot(value, at + value_at, true)?
                } else {
                    Value::Null
                }
            }
            // A fixed array is bytes of its table, struct or element, which
            // their container has charged (format.md §10).
            Slot::FixedArray { elem, len, stride } => {
                let mut items = Vec::with_capacity(*len as usize);
                for j in 0..*len {
                    let pos = at + j * stride;
                    items.push(match elem {
                        FixedElem::Scalar(p) => self.scalar(*p, pos, present),
                        FixedElem::Enum { id, repr } => self.enum_value(*id, *repr, pos, present),
                        FixedElem::InlineStruct(id) => self.inline_value(*id, pos, present)?,
                    });
                }
                Value::Array(items)
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => Some(n),
                    _ => None,
                };
                let a = if present {
                    self.array_ref(at, es, limit)
                } else {
                    EMPTY_ARRAY
                };
                self.array(array, data, a)?
            }
        })
    }

    fn array(&mut self, array: &ArrayType, data: &ArrayData, a: ArrayRef) -> Result<Value, Error> {
        // A map: an object of its entries, in key order.
        if let (true, ArrayData::AosInline { id, stride }) = (array.is_map(), data) {
            self.charge(a.len as u64 * *stride as u64)?;
            let sl = self.l.of_struct(*id);
            let (key, value) = (sl.fields[0].clone(), sl.fields[1].clone());
            let mut m = Map::new();
            for i in 0..a.len {
                let pos = a.offset + i * stride;
                let k = match self.slot(&key.slot, pos + key.offset, true)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let v = self.slot(&value.slot, pos + value.offset, true)?;
                m.insert(k, v);
            }
            return Ok(Value::Object(m));
        }
        if let Some(text) = array.text {
            return Ok(Value::String(match text {
                Text::Utf8 => {
                    self.charge(a.len as u64)?;
                    let b = if a.len == 0 {
                        &[][..]
                    } else {
                        self.bytes(a.offset as u64, a.len as u64).unwrap_or(&[])
                    };
                    std::str::from_utf8(b).unwrap_or("").to_string()
                }
                Text::Utf16 => {
                    self.charge(2 * a.len as u64)?;
                    let units: Vec<u16> = (0..a.len)
                        .map(|i| self.uint(a.offset + 2 * i, 2) as u16)
                        .collect();
                    char::decode_utf16(units)
                        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                        .collect()
                }
            }));
        }
        let mut items = Vec::new();
        match data {
            ArrayData::Plain { elem_size } => {
                self.charge(a.len as u64 * *elem_size as u64)?;
                let (p, named) = plain_elem(self.s, array.elem);
                for i in 0..a.len {
                    let pos = a.offset + i * elem_size;
                    items.push(match named {
                        Some(id) => self.enum_value(id, p, pos, true),
                        None => self.scalar(p, pos, true),
                    });
                }
            }
            ArrayData::Arrays { array: inner, data } => {
                self.charge(a.len as u64 * ARRAY_REF_SIZE as u64)?;
                for i in 0..a.len {
                    let element = self.array_ref(
                        a.offset + i * ARRAY_REF_SIZE,
                        data.elem_size(),
                        inner.limit(),
                    );
                    items.push(self.array(inner, data, element)?);
                }
            }
            ArrayData::UnionAos { id, .. } => {
                self.charge(a.len as u64 * 8)?;
                for i in 0..a.len {
                    let pos = a.offset + 8 * i;
                    items.push(self.union(*id, pos, pos + 4)?);
                }
            }
            ArrayData::UnionSoa { id, tag } => {
                let tw = tag.size();
                if a.cap > 0 && a.offset.is_multiple_of(natural_align(tw)) {
                    let offsets = align(
                        a.offset as u64 + a.cap as u64 * tw as u64,
                        OFFSET_SIZE as u64,
                    );
                    if offsets + 4 * a.cap as u64 <= self.b.len() as u64 {
                        self.charge(a.len as u64 * (tw as u64 + 4))?;
                        for i in 0..a.len {
                            items.push(self.union(
                                *id,
                                a.offset + i * tw,
                                offsets as u32 + 4 * i,
                            )?);
                        }
                    }
                }
            }
            ArrayData::UnionBunch { variants, .. } => {
                let k = if a.cap > 0 { self.u32(a.offset) } else { 0 };
                let block = bunch_table_size(k as u64);
                let fits = a.offset as u64 + block <= self.b.len() as u64
                    && a.offset.is_multiple_of(BUNCH_TABLE_ALIGN);
                let mut first: HashMap<u32, u32> = HashMap::new();
                if a.cap > 0 && k <= self.limits.max_directory_entries && fits {
                    // The bunch table is read once (its bytes charged,
                    // format.md §10): the first entry of each tag.
                    self.charge(block)?;
                    for e in 1..=k {
                        first
                            .entry(self.u32(a.offset + 16 * e))
                            .or_insert(a.offset + 16 * e);
                    }
                }
                // Every variant is an array of its own, charged as one; a
                // variant without an entry (all of them in an empty or
                // malformed array) is an empty one (format.md §10).
                for bv in variants {
                    let es = match &*bv.data {
                        ArrayData::AosInline { stride, .. } => *stride,
                        ArrayData::AosTable { .. } => 4,
                        _ => 0,
                    };
                    let sub = first
                        .get(&bv.tag)
                        .map(|entry| self.array_ref(entry + 4, es, None))
                        .unwrap_or(EMPTY_ARRAY);
                    let values = self.struct_array(&bv.data, sub)?;
                    let n = self.s.structs[bv.ty].name.clone();
                    items.extend(values.into_iter().map(|v| {
                        let mut m = Map::new();
                        m.insert(n.clone(), v);
                        Value::Object(m)
                    }));
                }
            }
            data => items = self.struct_array(data, a)?,
        }
        Ok(Value::Array(items))
    }

    fn struct_array(&mut self, data: &ArrayData, a: ArrayRef) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        match data {
            ArrayData::AosInline { id, stride } => {
                self.charge(a.len as u64 * *stride as u64)?;
                for i in 0..a.len {
                    items.push(self.inline_value(*id, a.offset + i * stride, true)?);
                }
            }
            ArrayData::AosTable { id } => {
                self.charge(a.len as u64 * 4)?;
                for i in 0..a.len {
                    let t = self.table(self.u32(a.offset + 4 * i));
                    items.push(self.table_value(*id, t)?);
                }
            }
            ArrayData::Soa { elem } => {
                let soa = self.l.soa(*elem);
                let mut cols = vec![0u32; soa.columns.len()];
                if a.cap > 0
                    && a.offset.is_multiple_of(SOA_DIRECTORY_ALIGN)
                    && a.offset as u64 + 4 <= self.b.len() as u64
                {
                    // The block's first word: the shared directory (§5.3).
                    let d = self.u32(a.offset);
                    let n = self.u32(d);
                    let size = soa_directory_size(n as u64);
                    if d != 0
                        && d.is_multiple_of(SOA_DIRECTORY_ALIGN)
                        && n <= self.limits.max_directory_entries
                        && d as u64 + size <= self.b.len() as u64
                    {
                        // Read each time an array uses it: charged each time
                        // (format.md §10).
                        self.charge(soa_directory_charge(n as u64))?;
                        let index = self.columns.remove(elem).unwrap_or_else(|| {
                            let mut index: HashMap<u32, Vec<usize>> = HashMap::new();
                            for (j, c) in soa.columns.iter().enumerate() {
                                index.entry(c.hash).or_default().push(j);
                            }
                            index
                        });
                        // Lay out every column, known or not, by the listed
                        // sizes; the first entry of a known hash with the
                        // reader's size is its column. A block that ends
                        // past the message has no column.
                        let mut pos = a.offset as u64 + 4;
                        let mut found = vec![0u32; cols.len()];
                        let mut fits = true;
                        for k in 0..n {
                            let hash = self.u32(d + 4 + 4 * k);
                            let value_size = self.u32(d + 4 + 4 * (n + k));
                            pos = align(pos, natural_align(value_size) as u64);
                            if pos > self.b.len() as u64 {
                                fits = false;
                                break;
                            }
                            for &j in index.get(&hash).into_iter().flatten() {
                                if found[j] == 0 && soa.columns[j].size == value_size {
                                    found[j] = pos as u32;
                                }
                            }
                            pos += a.cap as u64 * value_size as u64;
                        }
                        if fits && pos <= self.b.len() as u64 {
                            cols = found;
                        }
                        self.columns.insert(*elem, index);
                    }
                }
                // Every element is charged, at least one unit even when it
                // has no columns (an empty table): format.md §10.
                let width: u64 = soa.columns.iter().map(|c| c.size as u64).sum();
                self.charge(a.len as u64 * width.max(1))?;
                // An absent column is zeros the width paid for, but for what
                // its zero value holds (a fixed array of inline structs
                // holding tables), charged before the elements are built.
                for (k, c) in soa.columns.iter().enumerate() {
                    if cols[k] == 0 {
                        let held = self.l.absent_charge(&c.slot);
                        self.charge_held((a.len as u64).saturating_mul(held))?;
                    }
                }
                for i in 0..a.len {
                    // Start from the zero value of the element, then set each
                    // leaf from its column.
                    let mut item = self.zero_struct(*elem)?;
                    for (k, c) in soa.columns.iter().enumerate() {
                        // An absent column: `item` holds its default or
                        // zero already, paid for by the element's width.
                        if cols[k] == 0 {
                            continue;
                        }
                        let v = self.slot(&c.slot, cols[k] + i * c.size, true)?;
                        let mut place = &mut item;
                        for (step, index) in c.steps.iter().zip(&c.path) {
                            place = member_mut(self.s, *step, *index as usize, place)
                                .expect("zero value has every field");
                        }
                        *place = v;
                    }
                    items.push(item);
                }
            }
            _ => unreachable!("struct arrays only"),
        }
        Ok(items)
    }

    /// The value of an absent struct: every field zero, or its default
    /// where it has one. Finite: a struct never holds itself through
    /// fields (a schema error).
    fn zero_struct(&mut self, id: StructId) -> Result<Value, Error> {
        self.uncharged(|d| d.zero_fields(id))
    }

    /// The zero value of a slot (its default is the caller's): a
    /// struct's, a fixed array of zeros, an empty array, no value.
    fn zero_slot(&mut self, slot: &Slot) -> Result<Value, Error> {
        match slot {
            Slot::InlineStruct(c) | Slot::TableRef(c) => self.zero_struct(*c),
            slot => self.uncharged(|d| d.slot(slot, 0, false)),
        }
    }

    /// Build a zero value. It reads nothing, and whoever asked for it paid
    /// for it whole (Z, format.md §10; an SoA element's width; the
    /// generated decoders start from `Default`), so nothing inside it is
    /// charged and no charge can fail: the budget is what it was before.
    fn uncharged(
        &mut self,
        build: impl FnOnce(&mut Self) -> Result<Value, Error>,
    ) -> Result<Value, Error> {
        let budget = core::mem::replace(&mut self.budget, u64::MAX);
        let value = build(self);
        self.budget = budget;
        value
    }

    fn zero_fields(&mut self, id: StructId) -> Result<Value, Error> {
        let sl = self.l.of_struct(id);
        let mut m = Map::new();
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            let v = match (&sl.fields[i].slot, default_json(self.s, f)) {
                (_, Some(d)) => d,
                (Slot::InlineStruct(c) | Slot::TableRef(c), None) => self.zero_struct(*c)?,
                (slot, None) => self.slot(slot, 0, false)?,
            };
            m.insert(f.name.clone(), v);
        }
        Ok(struct_value(self.s, id, m))
    }

    fn union(&mut self, id: UnionId, tag_at: u32, off_at: u32) -> Result<Value, Error> {
        let u = &self.s.unions[id];
        let tag = self.uint(tag_at, u.tag.size()) as u32;
        let offset = self.u32(off_at);
        let Some(var) = u.variants.iter().find(|v| v.tag == tag) else {
            return Ok(Value::Null);
        };
        let (ty, name) = (var.ty, self.s.structs[var.ty].name.clone());
        let value = if self.s.structs[ty].kind == StructKind::Table {
            let t = self.table(offset);
            self.table_value(ty, t)?
        } else {
            let size = self.l.of_struct(ty).size as u64;
            if offset == 0
                || !offset.is_multiple_of(8)
                || offset as u64 + size > self.b.len() as u64
            {
                return Ok(Value::Null);
            }
            // Out of line like a table, so charged like one: its size.
            self.charge(size)?;
            self.inline_value(ty, offset, true)?
        };
        let mut m = Map::new();
        m.insert(name, value);
        Ok(Value::Object(m))
    }
}

/// The string of [`NON_FINITE`] that stands for `x` in JSON (any NaN is
/// "NaN"), or `None` for a finite `x`. Every JSON export uses it: this
/// codec, the Rust vector runner, `karmem run`'s arguments.
pub fn non_finite_name(x: f64) -> Option<&'static str> {
    let i = match () {
        _ if x.is_nan() => 0,
        _ if x == f64::INFINITY => 1,
        _ if x == f64::NEG_INFINITY => 2,
        _ => return None,
    };
    Some(NON_FINITE[i].0)
}

/// Floats as JSON numbers; NaN and the infinities, which JSON numbers
/// cannot hold, as the strings of [`NON_FINITE`].
fn float(x: f64) -> Value {
    match non_finite_name(x) {
        Some(name) => Value::from(name),
        // Finite: always a number.
        None => Number::from_f64(x).map_or(Value::Null, Value::Number),
    }
}

/// The scalar type of a plain array's elements, and the enum when they are
/// enum values (written and read by name).
fn plain_elem(s: &Schema, elem: ElemType) -> (Primitive, Option<EnumId>) {
    match elem {
        ElemType::Scalar(p) => (p, None),
        ElemType::Enum(id) => (s.enums[id].repr, Some(id)),
        _ => unreachable!("plain arrays hold scalars"),
    }
}

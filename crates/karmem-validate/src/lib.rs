//! A one-pass validator (format.md §11) driven by a schema loaded at run
//! time, for `karmem validate` and `karmem json decode` (a crate of its
//! own: karmem-json's codec stays independent of the runtime library): it walks the same
//! layout plan the code generators print (`karmem_layout::plan`:
//! `StructPlan`, `SoaPlan`, `SlotCheck`, `ArrayCheck`; docs/generators.md)
//! and makes its checks and traversal-budget charges (format.md §10)
//! through the `karmem` library's `Validator`, which generated Rust
//! validators call too. So it accepts exactly the messages generated
//! validators accept, with the same error kinds and offsets: tests/vectors.rs
//! runs the golden and hostile vectors, and crates/karmem-vectors-rust's
//! tests/schema_driven.rs compares it with the generated Rust validators on
//! every vector, truncated and with bytes flipped.

use karmem::{AlignedBuf, ArrayRef, Error, Reader, Table, Validator};
use karmem_layout::{
    Access, ArrayCheck, BunchVariant, Layout, Slot, SlotCheck, BUNCH_ENTRY_ARRAY_AT, HEADER_SIZE,
    OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::{Primitive, Schema, StructId, UnionId};

/// Checks a whole message whose root is struct `root`, once. The bytes
/// may have any alignment (they are copied into an aligned buffer).
pub fn validate(
    schema: &Schema,
    layout: &Layout,
    root: StructId,
    bytes: &[u8],
) -> Result<(), Error> {
    let buf = AlignedBuf::from_bytes(bytes);
    let r = Reader::new(buf.as_slice())?;
    let mut v = Validator::new(r);
    let c = Checker {
        s: schema,
        l: layout,
    };
    let size = layout.of_struct(root).size;
    if layout.is_table(root) {
        let t = v.root(size)?;
        c.table(&mut v, root, t)
    } else {
        let needed = HEADER_SIZE as u64 + size as u64;
        if needed > r.size() as u64 {
            return Err(Error::Truncated {
                needed,
                available: r.size() as u64,
            });
        }
        c.inline(&mut v, root, HEADER_SIZE)
    }
}

/// Where a slot is: a field of table `t` at `off`, `size` bytes, whose zero
/// value holds `absent` units of tables; or a position that is there.
#[derive(Clone, Copy)]
enum Place {
    Table {
        t: Table,
        off: u32,
        size: u32,
        absent: u64,
    },
    At(u32),
}

struct Checker<'s> {
    s: &'s Schema,
    l: &'s Layout,
}

impl Checker<'_> {
    fn table(&self, v: &mut Validator, id: StructId, t: Table) -> Result<(), Error> {
        v.enter()?;
        for f in &self.l.struct_plan(self.s, id).fields {
            let place = match f.access {
                Access::Table { off, size, absent } => Place::Table {
                    t,
                    off,
                    size,
                    absent,
                },
                _ => unreachable!("a table's fields are table fields"),
            };
            self.slot(v, f.slot, place)?;
        }
        v.leave();
        Ok(())
    }

    fn inline(&self, v: &mut Validator, id: StructId, at: u32) -> Result<(), Error> {
        for f in &self.l.struct_plan(self.s, id).fields {
            let Access::Inline { off } = f.access else {
                unreachable!("an inline struct's fields are inline")
            };
            self.slot(v, f.slot, Place::At(at + off))?;
        }
        Ok(())
    }

    /// A table (its offset at `pos`) of type `id`, which must be well
    /// formed.
    fn table_at(&self, v: &mut Validator, id: StructId, offset: u32) -> Result<(), Error> {
        let t = v.table(offset, self.l.of_struct(id).size)?;
        self.table(v, id, t)
    }

    fn slot(&self, v: &mut Validator, slot: &Slot, place: Place) -> Result<(), Error> {
        let check = self.l.slot_check(slot);
        if check == SlotCheck::Nothing {
            return Ok(());
        }
        let r = v.reader;
        // Present, and where; a field past its table's `used` is charged
        // what a decoder builds for it, the tables of its zero value.
        let (pos, present, absent) = match place {
            Place::Table {
                t,
                off,
                size,
                absent,
            } => (t.offset + off, t.has(off, size), absent),
            Place::At(pos) => (pos, true, 0),
        };
        let charged = |v: &mut Validator| if absent > 0 { v.charge(absent) } else { Ok(()) };
        match check {
            SlotCheck::Nothing => Ok(()),
            SlotCheck::Array {
                array,
                data,
                elem_size,
                limit,
            } => {
                // A table's array field is checked when present (absent
                // is valid); a positioned one always.
                let a = match place {
                    Place::Table { t, off, .. } => v.field_array(t, off, elem_size, limit)?,
                    Place::At(pos) => v.array(pos, elem_size, limit)?,
                };
                self.array(v, self.l.array_check(array, data), a)
            }
            _ if !present => match check {
                // No zero value to build beyond the table's bytes.
                SlotCheck::OptionalTable(_) | SlotCheck::Optional { .. } => Ok(()),
                _ => charged(v),
            },
            SlotCheck::Bool => v.bool_at(pos),
            SlotCheck::Inline(id) => self.inline(v, id, pos),
            SlotCheck::Table(id) => self.table_at(v, id, r.get::<u32>(pos)),
            SlotCheck::OptionalTable(id) => match r.get::<u32>(pos) {
                0 => Ok(()),
                offset => self.table_at(v, id, offset),
            },
            // The presence byte is 0 or 1 (format.md §4.2); the value is
            // checked only when there is one.
            SlotCheck::Optional { value_at, value } => {
                v.bool_at(pos)?;
                if r.get::<u8>(pos) != 0 {
                    self.slot(v, value, Place::At(pos + value_at))?;
                }
                Ok(())
            }
            SlotCheck::Union(id) => self.union(v, id, pos, pos + UNION_OFFSET_AT),
            SlotCheck::Bools { len } => v.bools(pos, len),
            SlotCheck::InlineEach { id, len, stride } => {
                (0..len).try_for_each(|j| self.inline(v, id, pos + j * stride))
            }
        }
    }

    fn array(&self, v: &mut Validator, check: ArrayCheck, a: ArrayRef) -> Result<(), Error> {
        let r = v.reader;
        match check {
            ArrayCheck::Nothing => Ok(()),
            ArrayCheck::Text { utf16: false } => v.utf8(a.offset, a.len),
            ArrayCheck::Text { utf16: true } => v.utf16(a.offset, a.len),
            ArrayCheck::Bools => v.bools(a.offset, a.len),
            // Each element is an array reference, checked as a field's.
            ArrayCheck::Nested {
                array,
                data,
                elem_size,
                limit,
                each,
            } => {
                for k in 0..a.len {
                    let inner = v.array(a.offset + k * 12, elem_size, limit)?;
                    if each {
                        self.array(v, self.l.array_check(array, data), inner)?;
                    }
                }
                Ok(())
            }
            ArrayCheck::UnionAos { id } => (0..a.len).try_for_each(|i| {
                let at = a.offset + i * UNION_SLOT_SIZE;
                self.union(v, id, at, at + UNION_OFFSET_AT)
            }),
            ArrayCheck::UnionSoa { id, tag_size } => match v.union_columns(a, tag_size)? {
                Some((tags, offsets)) => (0..a.len).try_for_each(|i| {
                    self.union(v, id, tags + i * tag_size, offsets + i * OFFSET_SIZE)
                }),
                None => Ok(()),
            },
            ArrayCheck::Bunch { id: _, variants } => self.bunch(v, variants, a),
            ArrayCheck::Map { id, stride, each } => {
                self.array(v, ArrayCheck::AosInline { id, stride, each }, a)?;
                // The look-up's binary search relies on the order
                // (format.md §5.5): keys strictly increasing.
                let key = &self.l.of_struct(id).fields[0];
                let at = |i: u32| a.offset + i * stride + key.offset;
                match &key.slot {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                        let p = *p;
                        v.keys_ascending(a, |i| int_at(&r, p, at(i)))
                    }
                    // Text keys in byte order (their references were
                    // checked with the entries).
                    _ => v.keys_ascending(a, |i| match r.array_ref(at(i)) {
                        Some(t) => r.slice::<u8>(t.offset, t.len),
                        None => &[],
                    }),
                }
            }
            ArrayCheck::AosInline { id, stride, each } => match each {
                true => (0..a.len).try_for_each(|i| self.inline(v, id, a.offset + i * stride)),
                false => Ok(()),
            },
            ArrayCheck::AosTable { id } => (0..a.len)
                .try_for_each(|i| self.table_at(v, id, r.get::<u32>(a.offset + i * OFFSET_SIZE))),
            ArrayCheck::Soa { elem } => self.soa(v, elem, a),
        }
    }

    /// A bunch table, then each entry's array of its variant's values.
    fn bunch(
        &self,
        v: &mut Validator,
        variants: &[BunchVariant],
        a: ArrayRef,
    ) -> Result<(), Error> {
        let tags: Vec<u32> = variants.iter().map(|bv| bv.tag).collect();
        v.bunch(a, &tags, |v, tag, entry| {
            let Some(bv) = variants.iter().find(|bv| bv.tag == tag) else {
                return Ok(());
            };
            let sub = v.array(entry + BUNCH_ENTRY_ARRAY_AT, bv.data.elem_size(), None)?;
            self.array(v, self.l.struct_array_check(&bv.data), sub)
        })
    }

    /// The directory, the charges of columns it does not list (per element
    /// of the capacity, as a decoder builds them), then each column's
    /// checks for every element.
    fn soa(&self, v: &mut Validator, elem: StructId, a: ArrayRef) -> Result<(), Error> {
        let plan = self.l.soa_plan(self.s, elem);
        let wanted: Vec<(u32, u32)> = self
            .l
            .soa(elem)
            .columns
            .iter()
            .map(|c| (c.hash, c.size))
            .collect();
        let cols = v.soa_columns_of(a, &wanted)?;
        for &(k, held) in &plan.unlisted {
            if cols[k] == 0 && a.cap > 0 {
                v.charge((a.cap as u64).saturating_mul(held))?;
            }
        }
        for (k, col) in plan.columns.iter().enumerate() {
            let Access::Column { stride, .. } = col.access else {
                unreachable!("an SoA element's fields are columns")
            };
            if cols[k] == 0 || self.l.slot_check(col.slot) == SlotCheck::Nothing {
                continue;
            }
            for i in 0..a.len {
                self.slot(v, col.slot, Place::At(cols[k] + i * stride))?;
            }
        }
        Ok(())
    }

    /// A union's tag at `tag_at` and value offset at `offset_at`: a known
    /// variant's value must be there (a table, or an inline struct at an
    /// 8-aligned offset inside the message, charged its size); 0 is no
    /// value, and unknown tags come from newer writers.
    fn union(
        &self,
        v: &mut Validator,
        id: UnionId,
        tag_at: u32,
        offset_at: u32,
    ) -> Result<(), Error> {
        let r = v.reader;
        let u = &self.l.unions[id];
        let tag = int_at(&r, u.tag, tag_at) as u32;
        let offset = r.get::<u32>(offset_at);
        let Some(var) = u.variants.iter().find(|var| var.tag == tag) else {
            return Ok(());
        };
        if var.is_table {
            if offset == 0 {
                return Err(Error::InvalidUnion {
                    offset: tag_at,
                    tag,
                });
            }
            return self.table_at(v, var.ty, offset);
        }
        let size = self.l.of_struct(var.ty).size;
        if offset == 0 || !offset.is_multiple_of(8) || offset as u64 + size as u64 > r.size() as u64
        {
            return Err(Error::InvalidUnion {
                offset: tag_at,
                tag,
            });
        }
        v.charge(size as u64)?;
        self.inline(v, var.ty, offset)
    }
}

/// An integer (or an enum's) of type `p` at `at`, widened for ordering.
fn int_at(r: &Reader, p: Primitive, at: u32) -> i128 {
    match p {
        Primitive::U8 | Primitive::Bool => r.get::<u8>(at) as i128,
        Primitive::U16 => r.get::<u16>(at) as i128,
        Primitive::U32 => r.get::<u32>(at) as i128,
        Primitive::U64 => r.get::<u64>(at) as i128,
        Primitive::I8 => r.get::<i8>(at) as i128,
        Primitive::I16 => r.get::<i16>(at) as i128,
        Primitive::I32 => r.get::<i32>(at) as i128,
        Primitive::I64 => r.get::<i64>(at) as i128,
        // Not a key type (idl.md §3.2); never asked.
        Primitive::F32 | Primitive::F64 => 0,
    }
}

//! Decoding: the readers of tables, inline structs, arrays, SoA blocks,
//! unions and bunch arrays. Lenient as every Karmem decoder (malformed
//! parts read as zero or empty, invalid text as empty), with the traversal
//! budget and depth of format.md §10 charged as the other decoders charge
//! them: the same charges in the same places, with what the plan says per
//! element.

use karmem_layout::{
    ArrayData, FixedElem, Layout, Slot, ARRAY_REF_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{code, elem_at, limit_arg, lines, plus, prim, times, Gen};
use crate::emit::Lines;
use crate::walk::{read_array, read_fields, read_slot, Ctx, DecodePrinter, Here, SlotPrinter};

/// `stmt`, run only when `present` holds (always when it is `None`); when
/// it does not and the slot's zero value holds `held` units of tables
/// (format.md §10), those are charged instead.
pub(super) fn when_present(c: &mut Lines, present: Option<&str>, stmt: &str, held: u64) {
    match present {
        Some(cond) => {
            c.open(&format!("if {cond}:"));
            c.line(stmt);
            if held > 0 {
                c.reopen("else:");
                let v = c.local("v");
                c.line(&format!("{v}.charge({held})"));
            }
            c.indent -= 1;
        }
        None => c.line(stmt),
    }
}

/// `stmts`, run only when `present` holds (always when it is `None`); when
/// it does not, `reset` sets the place back to its default (a decode into
/// an existing object keeps nothing of the previous message) and the units
/// its zero value holds (`held`, format.md §10) are charged.
fn set_or_reset(c: &mut Lines, present: Option<&str>, stmts: &[String], reset: &str, held: u64) {
    match present {
        Some(cond) => {
            c.open(&format!("if {cond}:"));
            for s in stmts {
                c.line(s);
            }
            c.reopen("else:");
            c.line(reset);
            if held > 0 {
                let v = c.local("v");
                c.line(&format!("{v}.charge({held})"));
            }
            c.indent -= 1;
        }
        None => {
            for s in stmts {
                c.line(s);
            }
        }
    }
}

impl Gen<'_> {
    /// The default of a slot (its declared default, else its zero value),
    /// as a new object each time.
    fn slot_default(&self, slot: &Slot, default: Option<&DefaultValue>) -> String {
        if let Some(d) = default {
            return self.default_expr(d);
        }
        match slot {
            Slot::Scalar(p) => self.zero_of(&FieldType::Scalar(*p)),
            Slot::Enum { .. } => "0".into(),
            Slot::InlineStruct(id) | Slot::TableRef(id) => format!("{}()", self.struct_name(*id)),
            Slot::OptionalTable(_) | Slot::Optional { .. } | Slot::Union { .. } => "None".into(),
            Slot::FixedArray { elem, len, .. } => {
                let e = match elem {
                    FixedElem::Scalar(p) => FieldType::Scalar(*p),
                    FixedElem::Enum { id, .. } => FieldType::Enum(*id),
                    FixedElem::InlineStruct(id) => FieldType::Struct(*id),
                };
                match elem {
                    FixedElem::InlineStruct(_) => {
                        format!("[{} for _ in range({len})]", self.zero_of(&e))
                    }
                    _ => format!("[{}] * {len}", self.zero_of(&e)),
                }
            }
            Slot::ArrayRef { array, .. } => self.zero_of(&FieldType::Array(*array)),
        }
    }

    /// The statement that gives `place` its default when the message does
    /// not have it: a number, text or no value is replaced, a list, dict
    /// or object keeps its identity (`karmem.keep`), as in the other
    /// languages' decoders into an existing value.
    fn reset(&self, place: &str, slot: &Slot, default: Option<&DefaultValue>) -> String {
        let value = self.slot_default(slot, default);
        match slot {
            Slot::ArrayRef { array, .. } if array.text.is_none() => format!("{place}.clear()"),
            Slot::FixedArray {
                elem: FixedElem::Scalar(_) | FixedElem::Enum { .. },
                ..
            } => format!("{place}[:] = {value}"),
            Slot::InlineStruct(_) | Slot::TableRef(_) | Slot::FixedArray { .. } => {
                format!("{place} = karmem.keep({place}, {value})")
            }
            _ => format!("{place} = {value}"),
        }
    }

    pub(crate) fn decode_function(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);

        let mut body = lines(1);
        let plan = self.l.struct_plan(self.s, id);
        read_fields(self, &mut body, &plan.fields, |_, f| {
            format!("x.{}", self.n.field(id, f.index))
        });
        let mut full = lines(1);
        if table {
            // An absent or malformed table: its zero value (`Z`, format.md
            // §10), paid for whole before it is built, and not read (no
            // level of depth).
            full.open("if t.used == 0:");
            full.line(&format!("v.charge({})", sl.zero));
            // Every field its default (none left from a previous message),
            // the object kept.
            full.line(&format!("karmem.assign(x, {name}())"));
            full.line("return x");
            full.indent -= 1;
            full.line("v.enter()");
            // Every field is built, those past `used` too: at least the
            // table's full size (`S`).
            full.line(&format!("v.charge(max(t.used, {}))", sl.size));
        }
        if body.reads() {
            full.line("r = v.r");
        }
        full.splice(&body);
        if table {
            full.line("v.leave()");
        }
        full.line("return x");
        let sig = if table {
            format!("def _read_{name}(v: karmem.Validator, t: karmem.Table, x: {name}) -> {name}:")
        } else {
            format!("def _read_{name}(v: karmem.Validator, at: int, x: {name}) -> {name}:")
        };
        self.function(&sig, full);
    }
}

/// Python prints the plan (crate::walk): positions in a table are counted
/// from its offset, presence is a compare against its `used` size.
impl SlotPrinter for Gen<'_> {
    type Code = Lines;

    fn layout(&self) -> &Layout {
        self.l
    }

    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (
                plus("t.offset", *off),
                Some(format!("t.used >= {}", off + size)),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    fn inline_pos(&self, off: u32) -> String {
        plus("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            elem_at(&format!("cols[{k}]"), "i", stride),
            format!("cols[{k}] != 0"),
        )
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Lines, slot: &Slot, place: &str, at: &Here) {
        let r = c.r();
        let p = match slot {
            Slot::Scalar(p) => *p,
            Slot::Enum { repr, .. } => *repr,
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        set_or_reset(
            c,
            at.present.as_deref(),
            &[format!("{place} = {r}.{}({})", prim(p), at.pos)],
            &self.reset(place, slot, at.default),
            at.held,
        );
    }

    fn inline(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let name = self.struct_name(id);
        set_or_reset(
            c,
            at.present.as_deref(),
            &[format!("_read_{name}(v, {}, {place})", at.pos)],
            &self.reset(place, &Slot::InlineStruct(id), None),
            at.held,
        );
    }

    fn table(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let r = c.r();
        let pos = &at.pos;
        let t = match (at.ctx, &at.present) {
            (Ctx::Table { off }, _) => format!("{r}.field_table(t, {off})"),
            (_, Some(cond)) => {
                format!("{r}.table({r}.u32({pos})) if {cond} else karmem.ABSENT")
            }
            (_, None) => format!("{r}.table({r}.u32({pos}))"),
        };
        c.line(&format!(
            "{place} = _read_{}(v, {t}, {place})",
            self.struct_name(id)
        ));
    }

    fn optional_table(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let r = c.r();
        let pos = &at.pos;
        let offset = match &at.present {
            Some(cond) => format!("{r}.u32({pos}) if {cond} else 0"),
            None => format!("{r}.u32({pos})"),
        };
        let o = self.fresh("offset");
        c.line(&format!("{o} = {offset}"));
        c.open(&format!("if {o} != 0:"));
        let name = self.struct_name(id);
        c.line(&format!(
            "{place} = _read_{name}(v, {r}.table({o}), {place} or {name}())"
        ));
        c.reopen("else:");
        c.line(&format!("{place} = None"));
        c.indent -= 1;
    }

    fn optional(&self, c: &mut Lines, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let r = c.r();
        let flag = format!("{r}.u8({}) != 0", at.pos);
        let cond = match &at.present {
            Some(p) => format!("{p} and {flag}"),
            None => flag,
        };
        let tmp = self.fresh("value");
        c.open(&format!("if {cond}:"));
        if !matches!(value, Slot::Scalar(_) | Slot::Enum { .. }) {
            // The previous value, decoded over when there is one.
            c.line(&format!(
                "{tmp} = {place} if {place} is not None else {}",
                self.slot_default(value, None)
            ));
        }
        let inner = Ctx::Pos {
            pos: plus(&at.pos, value_at),
            present: None,
        };
        read_slot(self, c, value, &tmp, &inner, None);
        c.line(&format!("{place} = {tmp}"));
        c.reopen("else:");
        c.line(&format!("{place} = None"));
        c.indent -= 1;
    }

    fn union(&self, c: &mut Lines, id: UnionId, place: &str, at: &Here) {
        set_or_reset(
            c,
            at.present.as_deref(),
            &[format!(
                "{place} = _read_{}(v, {}, {}, {place})",
                self.n.union_name(id),
                at.pos,
                plus(&at.pos, UNION_OFFSET_AT)
            )],
            &format!("{place} = None"),
            at.held,
        );
    }

    fn fixed(&self, c: &mut Lines, elem: FixedElem, len: u32, stride: u32, place: &str, at: &Here) {
        let r = c.r();
        let pos = &at.pos;
        // The same list, its elements decoded over.
        let stmts = match elem {
            FixedElem::Scalar(Primitive::Bool) => {
                vec![format!("{place}[:] = {r}.bools({pos}, {len})")]
            }
            FixedElem::Scalar(p) if matches!(p, Primitive::F32 | Primitive::F64) => {
                vec![format!(
                    "{place}[:] = {r}.floats({pos}, {len}, \"{}\")",
                    code(p)
                )]
            }
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => {
                vec![format!(
                    "{place}[:] = {r}.ints({pos}, {len}, \"{}\")",
                    code(p)
                )]
            }
            FixedElem::InlineStruct(id) => {
                let (j, e) = (self.fresh("j"), self.fresh("e"));
                let name = self.struct_name(id);
                vec![
                    format!("{place} = karmem.fit({place}, {len}, {name})"),
                    format!("for {j}, {e} in enumerate({place}):"),
                    format!("    _read_{name}(v, {}, {e})", elem_at(pos, &j, stride)),
                ]
            }
        };
        let slot = Slot::FixedArray { elem, len, stride };
        set_or_reset(
            c,
            at.present.as_deref(),
            &stmts,
            &self.reset(place, &slot, None),
            at.held,
        );
    }

    fn array(
        &self,
        c: &mut Lines,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    ) {
        let limit = limit_arg(limit);
        let a = self.fresh("a");
        let r = c.r();
        // Read only when present: an absent array (past `used`, or a column
        // the directory does not list) is left empty, or its default, and
        // costs nothing (format.md §10).
        let open = at.present.is_some();
        if let Some(cond) = &at.present {
            c.open(&format!("if {cond}:"));
        }
        c.line(&format!("{a} = {r}.array({}, {es}, {limit})", at.pos));
        read_array(self, c, array, data, place, &a);
        if open {
            c.reopen("else:");
            let slot = Slot::ArrayRef {
                array: *array,
                data: data.clone(),
            };
            c.line(&self.reset(place, &slot, at.default));
            c.indent -= 1;
        }
    }

    fn text(&self, c: &mut Lines, utf16: bool, charge: u32, place: &str, a: &str) {
        let r = c.r();
        charge_each(c, a, charge);
        let f = if utf16 { "utf16" } else { "string" };
        c.line(&format!("{place} = {r}.{f}({a})"));
    }

    fn plain(&self, c: &mut Lines, elem: ElemType, _size: u32, charge: u32, place: &str, a: &str) {
        let r = c.r();
        charge_each(c, a, charge);
        let stmt = match elem {
            ElemType::Scalar(Primitive::Bool) => {
                format!("{place}[:] = {r}.bools({a}.offset, {a}.len)")
            }
            ElemType::Scalar(p @ (Primitive::F32 | Primitive::F64)) => {
                format!(
                    "{place}[:] = {r}.floats({a}.offset, {a}.len, \"{}\")",
                    code(p)
                )
            }
            ElemType::Scalar(p) => {
                format!(
                    "{place}[:] = {r}.ints({a}.offset, {a}.len, \"{}\")",
                    code(p)
                )
            }
            ElemType::Enum(id) => format!(
                "{place}[:] = {r}.ints({a}.offset, {a}.len, \"{}\")",
                code(self.s.enums[id].repr)
            ),
            _ => unreachable!("plain arrays hold numbers and enums"),
        };
        c.line(&stmt);
    }

    fn nested(
        &self,
        c: &mut Lines,
        inner: &ArrayType,
        inner_data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        let r = c.r();
        charge_each(c, a, charge);
        let (s, e, k, a2) = (
            self.fresh("s"),
            self.fresh("e"),
            self.fresh("k"),
            self.fresh("a"),
        );
        // The same list, each inner list (or dict) decoded over.
        let make = if inner.text.is_some() {
            "str"
        } else if inner.is_map() {
            "dict"
        } else {
            "list"
        };
        c.line(&format!("{s} = karmem.fit({place}, {a}.len, {make})"));
        c.open(&format!("for {k}, {e} in enumerate({s}):"));
        c.line(&format!(
            "{a2} = {r}.array({}, {elem_size}, {})",
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        ));
        read_array(self, c, inner, inner_data, &e, &a2);
        c.line(&format!("{s}[{k}] = {e}"));
        c.indent -= 1;
        c.line(&format!("{place} = {s}"));
    }

    fn aos_inline(
        &self,
        c: &mut Lines,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        charge_each(c, a, charge);
        let k = self.fresh("k");
        let at = elem_at(&format!("{a}.offset"), &k, stride);
        self.struct_elems(c, id, place, &format!("{a}.len"), &k, &at);
    }

    // A map decodes into a dict, in key order.
    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        c: &mut Lines,
        _array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        charge_each(c, a, charge);
        let (m, k, e) = (self.fresh("m"), self.fresh("k"), self.fresh("e"));
        let (key, value) = (self.n.field(id, 0), self.n.field(id, 1));
        // The same dict; its values are new.
        c.line(&format!("{m} = {place}"));
        c.line(&format!("{m}.clear()"));
        c.open(&format!("for {k} in range({a}.len):"));
        let name = self.struct_name(id);
        c.line(&format!(
            "{e} = _read_{name}(v, {}, {name}())",
            elem_at(&format!("{a}.offset"), &k, stride)
        ));
        c.line(&format!("{m}[{e}.{key}] = {e}.{value}"));
        c.indent -= 1;
        c.line(&format!("{place} = {m}"));
    }

    fn aos_table(&self, c: &mut Lines, id: StructId, charge: u32, place: &str, a: &str) {
        let r = c.r();
        charge_each(c, a, charge);
        let k = self.fresh("k");
        let at = format!(
            "{r}.table({r}.u32({}))",
            elem_at(&format!("{a}.offset"), &k, OFFSET_SIZE)
        );
        self.struct_elems(c, id, place, &format!("{a}.len"), &k, &at);
    }

    fn soa(&self, c: &mut Lines, elem: StructId, place: &str, a: &str) {
        c.line(&format!(
            "{place} = _read_soa_{}(v, {a}, {place})",
            self.struct_name(elem)
        ));
    }

    fn union_aos(&self, c: &mut Lines, id: UnionId, charge: u32, place: &str, a: &str) {
        charge_each(c, a, charge);
        let k = self.fresh("k");
        let at = elem_at(&format!("{a}.offset"), &k, UNION_SLOT_SIZE);
        let read = format!(
            "_read_{}(v, {at}, {}, {{e}})",
            self.n.union_name(id),
            plus(&at, UNION_OFFSET_AT)
        );
        self.union_elems(c, place, &format!("{a}.len"), &k, &read);
    }

    fn union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, charge: u32, place: &str, a: &str) {
        let r = c.r();
        let (k, cols) = (self.fresh("k"), self.fresh("cols"));
        c.line(&format!("{cols} = {r}.union_columns({a}, {tw})"));
        c.open(&format!("if {cols} is not None:"));
        charge_each(c, a, charge);
        let read = format!(
            "_read_{}(v, {}, {}, {{e}})",
            self.n.union_name(id),
            elem_at(&format!("{cols}[0]"), &k, tw),
            elem_at(&format!("{cols}[1]"), &k, OFFSET_SIZE)
        );
        self.union_elems(c, place, &format!("{a}.len"), &k, &read);
        c.reopen("else:");
        c.line(&format!("{place}.clear()"));
        c.indent -= 1;
    }

    fn bunch(&self, c: &mut Lines, id: UnionId, soa: bool, place: &str, a: &str) {
        let f = if soa { "bovos" } else { "bovoa" };
        // Bunch arrays are read by variant: the values are new, given to
        // the list's elements of the same class.
        c.line(&format!(
            "{place} = karmem.keep({place}, _read_{f}_{}(v, {a}))",
            self.n.union_name(id)
        ));
    }
}

impl Gen<'_> {
    /// The same list `place` cut or grown to `len` structs `id`, each
    /// decoded over by its reader at `at` (a position, or a table).
    fn struct_elems(&self, c: &mut Lines, id: StructId, place: &str, len: &str, k: &str, at: &str) {
        let (e, s) = (self.fresh("e"), self.fresh("s"));
        let name = self.struct_name(id);
        c.line(&format!("{s} = karmem.fit({place}, {len}, {name})"));
        c.open(&format!("for {k}, {e} in enumerate({s}):"));
        c.line(&format!("_read_{name}(v, {at}, {e})"));
        c.indent -= 1;
        c.line(&format!("{place} = {s}"));
    }

    /// The same list `place` cut or grown to `len` union values, each read
    /// by `read` (`{e}` standing for the previous value, decoded over when
    /// it is of the variant read).
    fn union_elems(&self, c: &mut Lines, place: &str, len: &str, k: &str, read: &str) {
        let (e, s) = (self.fresh("e"), self.fresh("s"));
        c.line(&format!("{s} = karmem.fit({place}, {len}, lambda: None)"));
        c.open(&format!("for {k}, {e} in enumerate({s}):"));
        c.line(&format!("{s}[{k}] = {}", read.replace("{e}", &e)));
        c.indent -= 1;
        c.line(&format!("{place} = {s}"));
    }
}

/// `v.charge(len × units)`: an array's elements, charged before they are
/// built (format.md §10).
fn charge_each(c: &mut Lines, a: &str, units: u32) {
    let v = c.local("v");
    c.line(&format!(
        "{v}.charge({})",
        times(&format!("{a}.len"), units as u64)
    ));
}

impl Gen<'_> {
    /// The reader of SoA arrays of `id`: the directory (charged each time
    /// it is read), then `len × element charge` (format.md §10), then the
    /// elements, column by column within each element.
    pub(crate) fn soa_reader(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let mut each = lines(2);
        let plan = self.l.soa_plan(self.s, id);
        read_fields(self, &mut each, &plan.columns, |k, _| {
            self.column_place("e", id, k)
        });
        let mut body = lines(1);
        if each.reads() {
            body.line("r = v.r");
        }
        if plan.columns.is_empty() {
            body.line(&format!("v.soa_columns(a, _COLS_{name})"));
        } else {
            body.line(&format!("cols = v.soa_columns(a, _COLS_{name})"));
        }
        body.line(&format!(
            "v.charge({})",
            times("a.len", plan.element_charge as u64)
        ));
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds: a fixed
        // array of inline structs holding tables (format.md §10).
        for (k, held) in &plan.unlisted {
            body.open(&format!("if cols[{k}] == 0 and a.len > 0:"));
            body.line(&format!("v.charge(a.len * {held})"));
            body.indent -= 1;
        }
        // The same list, its elements decoded over: every column is set,
        // those the directory does not list to their defaults.
        body.line(&format!("karmem.fit(s, a.len, {name})"));
        if !each.out.is_empty() {
            body.open("for i, e in enumerate(s):");
            body.splice(&each);
            body.indent -= 1;
        }
        body.line("return s");
        self.function(
            &format!(
                "def _read_soa_{name}(v: karmem.Validator, a: karmem.ArrayRef, s: list[{name}]) -> list[{name}]:"
            ),
            body,
        );
    }

    pub(crate) fn union_reader(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let ty = self.union_type(id);
        let mut b = lines(1);
        b.line("r = v.r");
        b.line(&format!("tag = r.{}(tag_at)", prim(u.tag)));
        b.line("offset = r.u32(offset_at)");
        for v in &u.variants {
            let vt = self.struct_name(v.ty);
            if self.l.is_table(v.ty) {
                b.open(&format!("if tag == {}:", v.tag));
                b.line(&format!(
                    "return _read_{vt}(v, r.table(offset), old if isinstance(old, {vt}) else {vt}())"
                ));
            } else {
                let size = self.l.of_struct(v.ty).size;
                b.open(&format!(
                    "if tag == {} and r.inline_at(offset, {size}):",
                    v.tag
                ));
                // Charged like a table: its size (format.md §10).
                b.line(&format!("v.charge({size})"));
                b.line(&format!(
                    "return _read_{vt}(v, offset, old if isinstance(old, {vt}) else {vt}())"
                ));
            }
            b.indent -= 1;
        }
        // 0 is "no value"; a tag unknown to this schema version reads as
        // no value too.
        b.line("return None");
        self.function(
            &format!(
                "def _read_{name}(v: karmem.Validator, tag_at: int, offset_at: int, old: {ty}) -> {ty}:"
            ),
            b,
        );
        self.bunch_readers(id);
    }

    /// Readers of bunch arrays (format.md §7.1): the values of each variant
    /// the reader knows, in declaration order (element order is not kept).
    fn bunch_readers(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let ty = self.union_type(id);
        for soa in [false, true] {
            if !karmem_layout::plan::uses_bunch(self.l, id, soa) {
                continue;
            }
            let f = if soa { "bovos" } else { "bovoa" };
            let mut b = lines(1);
            b.line("r = v.r");
            b.line(&format!("out: list[{ty}] = []"));
            // The table is read once for all variants (format.md §10).
            b.line("v.charge_bunch(a)");
            for v in &u.variants {
                let vt = self.struct_name(v.ty);
                if soa {
                    b.line(&format!(
                        "out.extend(_read_soa_{vt}(v, r.bunch_entry(a, {}, 0), []))",
                        v.tag
                    ));
                    continue;
                }
                let data = self.l.bunch_variant_data(v.ty, false);
                let size = data.elem_size();
                let per = self
                    .l
                    .decode_charge(&data)
                    .expect("an AoS array is charged per element");
                let sub = self.fresh("sub");
                b.line(&format!("{sub} = r.bunch_entry(a, {}, {size})", v.tag));
                b.line(&format!(
                    "v.charge({})",
                    times(&format!("{sub}.len"), per as u64)
                ));
                let read = if self.l.is_table(v.ty) {
                    format!(
                        "_read_{vt}(v, r.table(r.u32({})), {vt}())",
                        elem_at(&format!("{sub}.offset"), "k", OFFSET_SIZE)
                    )
                } else {
                    format!(
                        "_read_{vt}(v, {}, {vt}())",
                        elem_at(&format!("{sub}.offset"), "k", size)
                    )
                };
                b.line(&format!("out.extend({read} for k in range({sub}.len))"));
            }
            b.line("return out");
            self.function(
                &format!(
                    "def _read_{f}_{name}(v: karmem.Validator, a: karmem.ArrayRef) -> list[{ty}]:"
                ),
                b,
            );
        }
    }
}

//! Decoding as straight-line code (issue #19 item 2): per struct a reader
//! of its table (or of the inline struct at a position) and its zero
//! value, per SoA element struct a reader of its columns, per union a
//! reader of its slot and of its bunch arrays. They build the values the
//! library's interpreted `decode` (ts/src/codec.ts) builds from the same
//! layout, charging the traversal budget and the depth (format.md §10)
//! the same units in the same order, so errors are the same too; what
//! the layout plan says is read comes from the shared walker
//! (crate::walk), never from matching a slot here.

use karmem_layout::{
    ArrayData, FixedElem, Layout, Slot, ARRAY_REF_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{int_literal, is_big, prim_str, prim_ts, safe_units, Gen};
use crate::emit::Lines;
use crate::walk::{read_array, read_fields, read_slot, Ctx, DecodePrinter, Here, SlotPrinter};

/// `x + k` (`x` when `k` is 0).
pub(super) fn plus(x: &str, k: u32) -> String {
    if k == 0 {
        x.to_string()
    } else {
        format!("{x} + {k}")
    }
}

/// `base + i * k`: element `i` of `k`-byte elements.
pub(super) fn elem_at(base: &str, i: &str, k: u32) -> String {
    if k == 1 {
        format!("{base} + {i}")
    } else {
        format!("{base} + {i} * {k}")
    }
}

/// `n × k` budget units (format.md §10).
fn times(n: &str, k: u32) -> String {
    if k == 1 {
        n.to_string()
    } else {
        format!("{n} * {k}")
    }
}

fn limit_arg(limit: Option<u32>) -> String {
    limit.map_or("null".into(), |n| n.to_string())
}

impl Gen<'_> {
    /// `$read<U>`, the reader of union `id`'s slot (printed because called).
    fn read_union(&self, id: UnionId) -> String {
        self.unions_read.borrow_mut().insert(id);
        format!("$read{}", self.n.union_name(id))
    }

    /// The value `place` held before this decode, as an expression
    /// (`undefined` when there is none): what `decodeInto` reuses.
    fn prev(&self, place: &str) -> String {
        self.prev
            .borrow()
            .get(place)
            .cloned()
            .unwrap_or_else(|| "undefined".into())
    }

    /// `const s: T[] = <prev> ?? [];` cut to `n` elements: the array
    /// `place` held before, reused (elements `< n` are overwritten in
    /// order, which appends to a new array and keeps it packed).
    fn reused_array(&self, c: &mut Lines, s: &str, ty: &str, place: &str, n: &str) {
        let prev = self.prev(place);
        if prev == "undefined" {
            c.line(&format!("const {s}: {}[] = [];", super::paren(ty)));
        } else {
            c.line(&format!(
                "const {s}: {}[] = {prev} ?? [];",
                super::paren(ty)
            ));
            c.line(&format!("if ({s}.length > {n}) {s}.length = {n};"));
        }
    }

    /// `, <prev> ?? undefined`: the struct or array a reader of `place`
    /// reuses (nothing when there is no previous value).
    fn prev_arg(&self, place: &str) -> String {
        match self.prev(place).as_str() {
            "undefined" => String::new(),
            p => format!(", {p} ?? undefined"),
        }
    }

    /// A local name not used before in this file.
    pub(super) fn fresh(&self, base: &str) -> String {
        let n = self.counter.get();
        self.counter.set(n + 1);
        format!("{base}{n}")
    }

    /// The TypeScript type of a fixed array's element.
    fn fixed_elem_ts(&self, elem: FixedElem) -> String {
        match elem {
            FixedElem::Scalar(p) => prim_ts(p).into(),
            FixedElem::Enum { id, .. } => self.n.enum_name(id),
            FixedElem::InlineStruct(id) => self.n.struct_name(id),
        }
    }

    /// The zero value of a slot without a default (what codec.ts's
    /// `zeroSlot` builds): numbers 0, structs their zero value, optional
    /// values and unions null, arrays empty.
    pub(super) fn zero_slot(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(Primitive::Bool) => "false".into(),
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => int_literal(0, is_big(*p)),
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                format!("$zero{}()", self.n.struct_name(*id))
            }
            Slot::OptionalTable(_) | Slot::Optional { .. } | Slot::Union { .. } => "null".into(),
            Slot::FixedArray { elem, len, .. } => {
                let e = match elem {
                    FixedElem::Scalar(p) => Slot::Scalar(*p),
                    FixedElem::Enum { id, repr } => Slot::Enum {
                        id: *id,
                        repr: *repr,
                    },
                    FixedElem::InlineStruct(id) => Slot::InlineStruct(*id),
                };
                format!(
                    "Array.from({{ length: {len} }}, (): {} => {})",
                    self.fixed_elem_ts(*elem),
                    self.zero_slot(&e)
                )
            }
            Slot::ArrayRef { array, .. } if array.text.is_some() => "\"\"".into(),
            Slot::ArrayRef { array, .. } if array.is_map() => {
                format!("new {}()", self.type_ts(&FieldType::Array(*array)))
            }
            Slot::ArrayRef { .. } => "[]".into(),
        }
    }

    /// What an absent slot at `place` reads as: its declared default, or
    /// zero; the array, map or struct `place` held before when
    /// `decodeInto` reuses one (emptied, or given its zero value).
    fn absent_value(&self, slot: &Slot, at: &Here, place: &str) -> String {
        if let Some(d) = at.default {
            return self.default_value(slot, d);
        }
        let zero = self.zero_slot(slot);
        let prev = self.prev(place);
        if prev == "undefined" {
            return zero;
        }
        match slot {
            Slot::ArrayRef { array, .. } if array.text.is_none() => {
                format!("karmem.emptied({prev}, () => {zero})")
            }
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                format!("karmem.zeroed({prev}, $zero{})", self.n.struct_name(*id))
            }
            _ => zero,
        }
    }

    /// Assigns `place` what `read` prints when the slot is present, else
    /// `zero`, charging what an absent slot's zero value holds first.
    fn guarded(
        &self,
        c: &mut Lines,
        at: &Here,
        place: &str,
        zero: &str,
        read: impl FnOnce(&mut Lines),
    ) {
        match &at.present {
            Some(cond) => {
                c.open(&format!("if ({cond}) {{"));
                read(c);
                c.reopen("} else {");
                if at.held > 0 {
                    c.line(&format!("d.charge({});", safe_units(at.held)));
                }
                c.line(&format!("{place} = {zero};"));
                c.close("}");
            }
            None => {
                c.open("{");
                read(c);
                c.close("}");
            }
        }
    }

    /// `place = read` when present, else its absent value.
    fn assign(&self, c: &mut Lines, slot: &Slot, place: &str, at: &Here, read: &str) {
        let zero = self.absent_value(slot, at, place);
        match &at.present {
            None => c.line(&format!("{place} = {read};")),
            Some(cond) if at.held == 0 => c.line(&format!("{place} = {cond} ? {read} : {zero};")),
            Some(_) => self.guarded(c, at, place, &zero, |c| {
                c.line(&format!("{place} = {read};"))
            }),
        }
    }

    /// The straight-line decoders of every struct, SoA element and union
    /// (after the viewers: they read `layout`, declared first).
    pub(super) fn decoders(&self, c: &mut Lines, has_class: &[bool]) {
        c.line("");
        c.line("// ---- decoding, straight-line per struct (docs/typescript.md) ----");
        for (id, has) in has_class.iter().enumerate() {
            if !has {
                continue;
            }
            self.zero_fn(c, id);
            if self.l.is_table(id) {
                self.table_reader(c, id);
            } else {
                self.inline_reader(c, id);
            }
            if self.l.soa[id].is_some() {
                self.soa_reader(c, id);
            }
        }
        for id in 0..self.s.unions.len() {
            if self.unions_read.borrow().contains(&id) {
                self.union_reader(c, id);
            }
            for soa in [false, true] {
                if karmem_layout::plan::uses_bunch(self.l, id, soa) {
                    self.bunch_reader(c, id, soa);
                }
            }
        }
    }

    fn zero_fn(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let st = &self.s.structs[id];
        let sl = self.l.of_struct(id);
        c.line("");
        c.line(&format!(
            "/** The zero value of `{name}`: zeros and declared defaults. */"
        ));
        c.open(&format!("function $zero{name}(): {name} {{"));
        c.open("return {");
        for (i, f) in st.fields.iter().enumerate() {
            let slot = &sl.fields[i].slot;
            let v = match f.nonzero_default() {
                Some(d) => self.default_value(slot, d),
                None => self.zero_slot(slot),
            };
            c.line(&format!("{}: {v},", super::prop_name(&f.name)));
        }
        c.close("};");
        c.close("}");
    }

    /// The fields of struct `id` into locals `f<i>` (each reusing what
    /// `o`, the object `decodeInto` reuses, held there).
    fn read_body(&self, body: &mut Lines, id: StructId) {
        let st = &self.s.structs[id];
        let plan = self.l.struct_plan(self.s, id);
        for f in &plan.fields {
            body.line(&format!(
                "let f{}: {};",
                f.index,
                self.field_ts(&st.fields[f.index])
            ));
            self.prev.borrow_mut().insert(
                format!("f{}", f.index),
                format!("o?.{}", super::prop_name(&st.fields[f.index].name)),
            );
        }
        read_fields(self, body, &plan.fields, |_, f| format!("f{}", f.index));
        self.prev.borrow_mut().clear();
    }

    /// The end of a struct reader: `o` (when given) with the fields
    /// stored in it, else a new object.
    fn object(&self, id: StructId) -> Vec<String> {
        let fields: Vec<(String, usize)> = self.s.structs[id]
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| (super::prop_name(&f.name), i))
            .collect();
        if fields.is_empty() {
            return vec!["return o ?? {};".into()];
        }
        let mut out = vec!["if (o !== undefined) {".to_string()];
        out.extend(fields.iter().map(|(p, i)| format!("  o.{p} = f{i};")));
        out.push("  return o;".into());
        out.push("}".into());
        let all: Vec<String> = fields.iter().map(|(p, i)| format!("{p}: f{i}")).collect();
        out.push(format!("return {{ {} }};", all.join(", ")));
        out
    }

    fn finish_fn(c: &mut Lines, sig: &str, body: Lines, tail: &[String]) {
        c.open(sig);
        if body.reads() {
            c.line("const r = d.r;");
        }
        c.splice(&body);
        for t in tail {
            c.line(t);
        }
        c.close("}");
    }

    fn table_reader(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id);
        c.line("");
        c.line(&format!(
            "/** The table `t` as a `{name}`: an absent or malformed one is its zero value, paid for whole (format.md §10). */"
        ));
        let mut body = Lines::new("  ", c.indent + 1);
        body.open("if (t.used === 0) {");
        body.line(&format!("d.charge({});", safe_units(sl.zero)));
        // Reused: every field overwritten with its zero value or default.
        body.line(&format!("return karmem.zeroed(o, $zero{name});"));
        body.close("}");
        body.line("const to = t.offset;");
        body.line("const tu = t.used;");
        body.line("d.enter(to);");
        // Every field is built, those past `used` too: at least `S`.
        body.line(&format!("d.charge(tu > {0} ? tu : {0});", sl.size));
        self.read_body(&mut body, id);
        body.line("d.leave();");
        Self::finish_fn(
            c,
            &format!(
                "function $read{name}(d: karmem.Decoding, t: karmem.Table, o?: {name}): {name} {{"
            ),
            body,
            &self.object(id),
        );
    }

    fn inline_reader(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        c.line("");
        c.line(&format!("/** The inline `{name}` at `at`. */"));
        let mut body = Lines::new("  ", c.indent + 1);
        self.read_body(&mut body, id);
        // A struct without fields reads nothing.
        let params = if self.s.structs[id].fields.is_empty() {
            "_d: karmem.Decoding, _at: number"
        } else {
            "d: karmem.Decoding, at: number"
        };
        Self::finish_fn(
            c,
            &format!("function $readAt{name}({params}, o?: {name}): {name} {{"),
            body,
            &self.object(id),
        );
    }

    /// The SoA block `a` of `id` elements: its directory and `len ×`
    /// element charge, the columns its directory does not list whose zero
    /// value holds tables, then each element from its zero value, column
    /// by column.
    fn soa_reader(&self, c: &mut Lines, id: StructId) {
        let name = self.n.struct_name(id);
        let plan = self.l.soa_plan(self.s, id);
        c.line("");
        c.line(&format!("const $cols{name} = layout.structs[{id}]!.soa!;"));
        c.line(&format!("/** The SoA block `a` of `{name}` elements. */"));
        let mut body = Lines::new("  ", c.indent + 1);
        let cols = if plan.columns.is_empty() {
            body.line(&format!("d.soa(a, $cols{name}, {});", plan.element_charge));
            String::new()
        } else {
            body.line(&format!(
                "const cols = d.soa(a, $cols{name}, {});",
                plan.element_charge
            ));
            "cols".to_string()
        };
        body.line("const n = a.len;");
        for (k, held) in &plan.unlisted {
            body.line(&format!(
                "if (n > 0 && {cols}[{k}] === 0) d.charge(Math.min(n * {}, karmem.MAX_UNITS));",
                safe_units(*held)
            ));
        }
        for k in 0..plan.columns.len() {
            body.line(&format!("const c{k} = {cols}[{k}]!;"));
        }
        self.prev.borrow_mut().insert("out".into(), "prev".into());
        self.reused_array(&mut body, "out", &name, "out", "n");
        self.prev.borrow_mut().clear();
        body.open("for (let i = 0; i < n; i++) {");
        // Every column is assigned (an unlisted one its default), so a
        // reused element needs no reset.
        body.line(&format!("const x = out[i] ?? $zero{name}();"));
        // A reused element's columns hold its previous values: each is
        // the value its own place reuses.
        for k in 0..plan.columns.len() {
            let place = self.column_place("x", id, k);
            self.prev.borrow_mut().insert(place.clone(), place);
        }
        read_fields(self, &mut body, &plan.columns, |k, _| {
            self.column_place("x", id, k)
        });
        self.prev.borrow_mut().clear();
        body.line("out[i] = x;");
        body.close("}");
        Self::finish_fn(
            c,
            &format!(
                "function $readSoa{name}(d: karmem.Decoding, a: karmem.ArrayRef, prev?: {name}[]): {name}[] {{"
            ),
            body,
            &["return out;".to_string()],
        );
    }

    /// `base.field.field…` of SoA column `k` of `id`.
    pub(super) fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&super::prop_name(
                &self.s.structs[*s].fields[*i as usize].name,
            ));
        }
        place
    }

    /// A union slot (format.md §7): tag 0, a tag this schema does not know
    /// and an inline variant whose block is malformed read as null; an
    /// inline variant is charged its size.
    fn union_reader(&self, c: &mut Lines, id: UnionId) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        c.line("");
        c.line(&format!(
            "/** The union `{name}` with its tag at `tagAt` and its offset at `offAt`. */"
        ));
        let mut body = Lines::new("  ", c.indent + 1);
        let r = body.r();
        let tag = if is_big(u.tag) {
            format!("Number({r}.{}(tagAt))", prim_str(u.tag))
        } else {
            format!("{r}.{}(tagAt)", prim_str(u.tag))
        };
        body.open(&format!("switch ({tag}) {{"));
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            body.open(&format!("case {}: {{", v.tag));
            if self.l.is_table(v.ty) {
                body.line(&format!(
                    "return {{ kind: \"{ty}\", value: $read{ty}(d, r.table(r.u32(offAt))) }};"
                ));
            } else {
                let size = self.l.of_struct(v.ty).size;
                body.line("const o = r.u32(offAt);");
                body.line(&format!(
                    "if (o === 0 || o % 8 !== 0 || o + {size} > r.size) return null;"
                ));
                body.line(&format!("d.charge({size});"));
                body.line(&format!(
                    "return {{ kind: \"{ty}\", value: $readAt{ty}(d, o) }};"
                ));
            }
            body.close("}");
        }
        body.line("default:");
        body.line("  return null;");
        body.close("}");
        Self::finish_fn(
            c,
            &format!(
                "function $read{name}(d: karmem.Decoding, tagAt: number, offAt: number): {name} {{"
            ),
            body,
            &[],
        );
    }

    /// A bunch array (format.md §7.1): the table charged once when it is
    /// well formed, then every variant of this schema as an array of its
    /// own (an empty one without an entry), in declaration order.
    fn bunch_reader(&self, c: &mut Lines, id: UnionId, soa: bool) {
        let u = &self.s.unions[id];
        let name = self.n.union_name(id);
        let f = if soa { "BunchSoa" } else { "Bunch" };
        c.line("");
        c.line(&format!("/** The bunch array `a` of `{name}` values. */"));
        let mut body = Lines::new("  ", c.indent + 1);
        let r = body.r();
        body.line(&format!("const k = {r}.bunchEntries(a);"));
        body.line("if (k >= 0) d.charge(16 * (k + 1));");
        self.prev.borrow_mut().insert("out".into(), "prev".into());
        self.reused_array(&mut body, "out", &name, "out", "0");
        self.prev.borrow_mut().clear();
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            let data = self.l.bunch_variant_data(v.ty, soa);
            body.open("{");
            body.line(&format!(
                "const s = k < 0 ? karmem.EMPTY_ARRAY : r.bunchEntry(a, k, {}, {});",
                v.tag,
                data.elem_size()
            ));
            let each = match &data {
                ArrayData::Soa { .. } => None,
                ArrayData::AosTable { .. } => Some((
                    OFFSET_SIZE,
                    format!("$read{ty}(d, r.table(r.u32(s.offset + i * {OFFSET_SIZE})))"),
                )),
                _ => {
                    let stride = self.l.of_struct(v.ty).size;
                    Some((
                        stride,
                        format!("$readAt{ty}(d, {})", elem_at("s.offset", "i", stride)),
                    ))
                }
            };
            match each {
                None => body.line(&format!(
                    "for (const value of $readSoa{ty}(d, s)) out.push({{ kind: \"{ty}\", value }});"
                )),
                Some((size, read)) => {
                    body.line(&format!("d.charge({});", times("s.len", size.max(1))));
                    body.line(&format!(
                        "for (let i = 0; i < s.len; i++) out.push({{ kind: \"{ty}\", value: {read} }});"
                    ));
                }
            }
            body.close("}");
        }
        Self::finish_fn(
            c,
            &format!(
                "function $read{f}{name}(d: karmem.Decoding, a: karmem.ArrayRef, prev?: {name}[]): {name}[] {{"
            ),
            body,
            &["return out;".to_string()],
        );
    }
}

/// Whether a reader of `slot` reuses the value its place held (a struct,
/// an array other than text, a map), so a previous value is worth passing.
fn reuses(slot: &Slot) -> bool {
    match slot {
        Slot::InlineStruct(_) | Slot::TableRef(_) | Slot::OptionalTable(_) => true,
        Slot::FixedArray { .. } => true,
        Slot::ArrayRef { array, .. } => array.text.is_none(),
        Slot::Optional { value, .. } => reuses(value),
        Slot::Scalar(_) | Slot::Enum { .. } | Slot::Union { .. } => false,
    }
}

/// TypeScript prints the decoder's plan (crate::walk): a table's fields
/// are at `to + off`, present when they end within its `used` bytes `tu`;
/// an inline struct's at `at + off`; SoA column `k` of element `i` at
/// `c<k> + i × stride`, present when its directory lists it.
impl SlotPrinter for Gen<'_> {
    type Code = Lines;

    fn layout(&self) -> &Layout {
        self.l
    }

    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (plus("to", *off), Some(format!("tu >= {}", *off + size))),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    fn inline_pos(&self, off: u32) -> String {
        plus("at", off)
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            elem_at(&format!("c{k}"), "i", stride),
            format!("c{k} !== 0"),
        )
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Lines, slot: &Slot, place: &str, at: &Here) {
        let p = match slot {
            Slot::Scalar(p) | Slot::Enum { repr: p, .. } => *p,
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        let read = format!("{}.{}({})", c.r(), prim_str(p), at.pos);
        self.assign(c, slot, place, at, &read);
    }

    fn inline(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let read = format!(
            "$readAt{}(d, {}{})",
            self.n.struct_name(id),
            at.pos,
            self.prev_arg(place)
        );
        self.assign(c, &Slot::InlineStruct(id), place, at, &read);
    }

    fn table(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let r = c.r();
        let read = format!(
            "$read{}(d, {r}.table({r}.u32({})){})",
            self.n.struct_name(id),
            at.pos,
            self.prev_arg(place)
        );
        self.assign(c, &Slot::TableRef(id), place, at, &read);
    }

    fn optional_table(&self, c: &mut Lines, id: StructId, place: &str, at: &Here) {
        let o = self.fresh("o");
        let r = c.r();
        let name = self.n.struct_name(id);
        self.guarded(c, at, place, "null", |c| {
            c.line(&format!("const {o} = {r}.u32({});", at.pos));
            c.line(&format!(
                "{place} = {o} === 0 ? null : $read{name}(d, {r}.table({o}){});",
                self.prev_arg(place)
            ));
        });
    }

    fn optional(&self, c: &mut Lines, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let r = c.r();
        self.guarded(c, at, place, "null", |c| {
            c.open(&format!("if ({r}.u8({}) !== 0) {{", at.pos));
            let inner = Ctx::Pos {
                pos: plus(&at.pos, value_at),
                present: None,
            };
            read_slot(self, c, value, place, &inner, None);
            c.reopen("} else {");
            c.line(&format!("{place} = null;"));
            c.close("}");
        });
    }

    fn union(&self, c: &mut Lines, id: UnionId, place: &str, at: &Here) {
        let read = format!(
            "{}(d, {}, {})",
            self.read_union(id),
            at.pos,
            plus(&at.pos, UNION_OFFSET_AT)
        );
        match &at.present {
            None => c.line(&format!("{place} = {read};")),
            Some(cond) => c.line(&format!("{place} = {cond} ? {read} : null;")),
        }
    }

    fn fixed(&self, c: &mut Lines, elem: FixedElem, len: u32, stride: u32, place: &str, at: &Here) {
        let slot = Slot::FixedArray { elem, len, stride };
        let zero = self.absent_value(&slot, at, place);
        let (s, j) = (self.fresh("s"), self.fresh("j"));
        let ty = self.fixed_elem_ts(elem);
        let epos = elem_at(&at.pos, &j, stride);
        let r = c.r();
        let read = match elem {
            FixedElem::Scalar(p) | FixedElem::Enum { repr: p, .. } => {
                format!("{r}.{}({epos})", prim_str(p))
            }
            FixedElem::InlineStruct(id) => {
                format!("$readAt{}(d, {epos}, {s}[{j}])", self.n.struct_name(id))
            }
        };
        self.guarded(c, at, place, &zero, |c| {
            self.reused_array(c, &s, &ty, place, &len.to_string());
            c.line(&format!(
                "for (let {j} = 0; {j} < {len}; {j}++) {s}[{j}] = {read};"
            ));
            c.line(&format!("{place} = {s};"));
        });
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
        let a = self.fresh("a");
        let r = c.r();
        let zero = self.absent_value(
            &Slot::ArrayRef {
                array: *array,
                data: data.clone(),
            },
            at,
            place,
        );
        // An absent array (past `used`, or a column the directory does not
        // list) is empty, or its default, and costs nothing (format.md §10).
        self.guarded(c, at, place, &zero, |c| {
            c.line(&format!(
                "const {a} = {r}.array({}, {es}, {});",
                at.pos,
                limit_arg(limit)
            ));
            read_array(self, c, array, data, place, &a);
        });
    }

    // Array blocks: `a` is the checked reference (`offset`, `len`).

    fn text(&self, c: &mut Lines, utf16: bool, charge: u32, place: &str, a: &str) {
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        let f = if utf16 { "text16" } else { "text" };
        c.line(&format!("{place} = {}.{f}({a});", c.r()));
    }

    fn plain(&self, c: &mut Lines, elem: ElemType, es: u32, charge: u32, place: &str, a: &str) {
        let p = match elem {
            ElemType::Scalar(p) => p,
            ElemType::Enum(id) => self.s.enums[id].repr,
            _ => unreachable!("plain arrays hold numbers"),
        };
        let (s, k) = (self.fresh("s"), self.fresh("k"));
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        self.reused_array(c, &s, &self.elem_ts(elem), place, &format!("{a}.len"));
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {s}[{k}] = {}.{}({});",
            c.r(),
            prim_str(p),
            elem_at(&format!("{a}.offset"), &k, es)
        ));
        c.line(&format!("{place} = {s};"));
    }

    fn nested(
        &self,
        c: &mut Lines,
        inner: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        let (s, k, e, a2) = (
            self.fresh("s"),
            self.fresh("k"),
            self.fresh("e"),
            self.fresh("a"),
        );
        let ty = self.type_ts(&FieldType::Array(*inner));
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        self.reused_array(c, &s, &ty, place, &format!("{a}.len"));
        self.prev
            .borrow_mut()
            .insert(e.clone(), format!("{s}[{k}]"));
        c.open(&format!("for (let {k} = 0; {k} < {a}.len; {k}++) {{"));
        c.line(&format!(
            "const {a2} = {}.array({}, {es}, {});",
            c.r(),
            elem_at(&format!("{a}.offset"), &k, ARRAY_REF_SIZE),
            limit_arg(limit)
        ));
        c.line(&format!("let {e}: {ty};"));
        read_array(self, c, inner, data, &e, &a2);
        c.line(&format!("{s}[{k}] = {e};"));
        c.close("}");
        c.line(&format!("{place} = {s};"));
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
        let (s, k) = (self.fresh("s"), self.fresh("k"));
        let name = self.n.struct_name(id);
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        self.reused_array(c, &s, &name, place, &format!("{a}.len"));
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {s}[{k}] = $readAt{name}(d, {}, {s}[{k}]);",
            elem_at(&format!("{a}.offset"), &k, stride)
        ));
        c.line(&format!("{place} = {s};"));
    }

    fn map(
        &self,
        c: &mut Lines,
        array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        let (m, k, e) = (self.fresh("m"), self.fresh("k"), self.fresh("e"));
        let st = &self.s.structs[id];
        let plan = self.l.struct_plan(self.s, id);
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        let prev = self.prev(place);
        // Reused: the map emptied, its old values kept aside by key for
        // the entries read again (a copy of the entries, not of values).
        let value = plan.fields.get(1).map(|f| f.slot);
        let old = (prev != "undefined" && value.is_some_and(reuses)).then(|| self.fresh("old"));
        let ty = self.type_ts(&FieldType::Array(*array));
        if prev == "undefined" {
            c.line(&format!("const {m} = new {ty}();"));
        } else {
            c.line(&format!("const {m} = {prev} ?? new {ty}();"));
            if let Some(old) = &old {
                c.line(&format!(
                    "const {old} = {m}.size > 0 ? new Map({m}) : undefined;"
                ));
            }
            c.line(&format!("{m}.clear();"));
        }
        c.open(&format!("for (let {k} = 0; {k} < {a}.len; {k}++) {{"));
        c.line(&format!(
            "const {e} = {};",
            elem_at(&format!("{a}.offset"), &k, stride)
        ));
        let mut names = Vec::new();
        for f in &plan.fields {
            let x = self.fresh("x");
            c.line(&format!(
                "let {x}: {};",
                self.type_ts(&st.fields[f.index].ty)
            ));
            let off = self.l.of_struct(id).fields[f.index].offset;
            let ctx = Ctx::Pos {
                pos: plus(&e, off),
                present: None,
            };
            if let (Some(old), Some(key)) = (&old, names.first()) {
                self.prev
                    .borrow_mut()
                    .insert(x.clone(), format!("{old}?.get({key})"));
            }
            read_slot(self, c, f.slot, &x, &ctx, None);
            names.push(x);
        }
        c.line(&format!("{m}.set({});", names.join(", ")));
        c.close("}");
        c.line(&format!("{place} = {m};"));
    }

    fn aos_table(&self, c: &mut Lines, id: StructId, charge: u32, place: &str, a: &str) {
        let (s, k) = (self.fresh("s"), self.fresh("k"));
        let name = self.n.struct_name(id);
        let r = c.r();
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        self.reused_array(c, &s, &name, place, &format!("{a}.len"));
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {s}[{k}] = $read{name}(d, {r}.table({r}.u32({})), {s}[{k}]);",
            elem_at(&format!("{a}.offset"), &k, OFFSET_SIZE)
        ));
        c.line(&format!("{place} = {s};"));
    }

    fn soa(&self, c: &mut Lines, elem: StructId, place: &str, a: &str) {
        c.line(&format!(
            "{place} = $readSoa{}(d, {a}{});",
            self.n.struct_name(elem),
            self.prev_arg(place)
        ));
    }

    fn union_aos(&self, c: &mut Lines, id: UnionId, charge: u32, place: &str, a: &str) {
        let (s, k) = (self.fresh("s"), self.fresh("k"));
        let name = self.n.union_name(id);
        let read = self.read_union(id);
        let at = elem_at(&format!("{a}.offset"), &k, UNION_SLOT_SIZE);
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        self.reused_array(c, &s, &name, place, &format!("{a}.len"));
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {s}[{k}] = {read}(d, {at}, {});",
            plus(&at, UNION_OFFSET_AT)
        ));
        c.line(&format!("{place} = {s};"));
    }

    fn union_soa(&self, c: &mut Lines, id: UnionId, tw: u32, charge: u32, place: &str, a: &str) {
        let (s, k, u) = (self.fresh("s"), self.fresh("k"), self.fresh("u"));
        let name = self.n.union_name(id);
        let read = self.read_union(id);
        c.line(&format!("const {u} = {}.unionColumns({a}, {tw});", c.r()));
        self.reused_array(c, &s, &name, place, "0");
        c.open(&format!("if ({u} !== null) {{"));
        c.line(&format!(
            "d.charge({});",
            times(&format!("{a}.len"), charge)
        ));
        c.line(&format!(
            "for (let {k} = 0; {k} < {a}.len; {k}++) {s}[{k}] = {read}(d, {}, {});",
            elem_at(&format!("{u}.tags"), &k, tw),
            elem_at(&format!("{u}.offsets"), &k, OFFSET_SIZE)
        ));
        c.close("}");
        c.line(&format!("{place} = {s};"));
    }

    fn bunch(&self, c: &mut Lines, id: UnionId, soa: bool, place: &str, a: &str) {
        let f = if soa { "BunchSoa" } else { "Bunch" };
        c.line(&format!(
            "{place} = $read{f}{}(d, {a}{});",
            self.n.union_name(id),
            self.prev_arg(place)
        ));
    }
}

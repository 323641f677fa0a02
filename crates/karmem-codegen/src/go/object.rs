//! Object types and their encoding (`WriteAsRoot`) and decoding
//! (`ReadAsRoot`), including SoA arrays, unions and bunch arrays. Byte for
//! byte the same writing order as the Rust backend (format.md §8).

use karmem_layout::{
    ArrayData, FixedElem, Slot, SoaLayout, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::{align, times, Code, Pos};
use super::{go_prim, limit_of, wire, zero_of, Ctx, Gen};

/// How an SoA writer or reader walks its elements: a plain `[]S`, or the
/// values of one variant inside a `[]Union` (bunch arrays, `#bovos`).
#[derive(Clone)]
pub(crate) enum Seq {
    Plain,
    InUnion { union: UnionId, variant: StructId },
}

impl Gen<'_> {
    // ---- struct objects --------------------------------------------------------

    pub(crate) fn struct_object(&mut self, id: StructId) {
        let st = self.s.structs[id].clone();
        let name = self.n.struct_name(id);
        let table = self.l.is_table(id);
        self.c.doc(&st.doc);
        if !st.doc.is_empty() {
            self.c.line("//");
        }
        let kind = if table {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.c.line(&format!(
            "// {name} is the {kind} `{}`. Object type: owns its data.",
            st.name
        ));
        if st.fields.is_empty() {
            self.c.line(&format!("type {name} struct{{}}"));
        } else {
            let rows: Vec<Vec<String>> = st
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    // An optional field is a pointer: nil is no value.
                    let star = if f.optional { "*" } else { "" };
                    vec![
                        self.n.field(id, i),
                        format!("{star}{}", self.obj_type(&f.ty)),
                        format!("`json:\"{}\"`", f.name),
                    ]
                })
                .collect();
            self.c.open(&format!("type {name} struct {{"));
            for row in align(&rows) {
                self.c.line(&row);
            }
            self.c.close("}");
        }
        self.c.line("");
        if st.tuple {
            self.tuple_json(id);
        }
        if self.s.has_defaults(id) {
            self.constructor(id);
        }
        self.write_functions(id);
        self.read_functions(id);
        self.validate_functions(id);
    }

    /// A tuple (docs/idl.md §3.3) in JSON is an array of its elements, as
    /// `karmem json` and the golden vectors write it.
    fn tuple_json(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let n = self.s.structs[id].fields.len();
        let fields: Vec<String> = (0..n)
            .map(|i| format!("x.{}", self.n.field(id, i)))
            .collect();
        self.c
            .line("// MarshalJSON writes the tuple as a JSON array of its elements.");
        self.c
            .open(&format!("func (x {name}) MarshalJSON() ([]byte, error) {{"));
        self.c.line(&format!(
            "return json.Marshal([]any{{{}}})",
            fields.join(", ")
        ));
        self.c.close("}");
        self.c.line("");
        self.c
            .line("// UnmarshalJSON reads the tuple from a JSON array of its elements.");
        self.c.open(&format!(
            "func (x *{name}) UnmarshalJSON(b []byte) error {{"
        ));
        self.c.open("if string(b) == \"null\" {");
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("var items []json.RawMessage");
        self.c.try_call("json.Unmarshal(b, &items)", "err");
        self.c.open(&format!("if len(items) != {n} {{"));
        self.c.line(&format!(
            "return errors.New(\"karmem: a {name} is a JSON array of {n} elements\")"
        ));
        self.c.close("}");
        for (i, f) in fields.iter().enumerate() {
            self.c
                .try_call(&format!("json.Unmarshal(items[{i}], &{f})"), "err");
        }
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("");
    }

    /// `NewX()`: a value holding the schema's defaults (docs/idl.md
    /// §4.3.1), for structs whose zero value (`X{}`) would not.
    fn constructor(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let mut fields = Vec::new();
        let mut loops = Vec::new();
        for (i, f) in self.s.structs[id].fields.iter().enumerate() {
            // An optional field starts with no value (a nil pointer), whatever
            // its type holds: as in Schema::has_defaults.
            if f.optional {
                continue;
            }
            let fname = self.n.field(id, i);
            match (&f.ty, f.nonzero_default()) {
                (_, Some(d)) => fields.push(vec![
                    format!("{fname}:"),
                    format!("{},", self.default_expr(&sl.fields[i].slot, d)),
                ]),
                (FieldType::Struct(c), None) if self.s.has_defaults(*c) => fields.push(vec![
                    format!("{fname}:"),
                    format!("New{}(),", self.n.struct_name(*c)),
                ]),
                (
                    FieldType::Array(ArrayType {
                        elem: ElemType::Struct(c),
                        kind: ArrayKind::Fixed(_),
                        ..
                    }),
                    None,
                ) if self.s.has_defaults(*c) => loops.push((fname, self.n.struct_name(*c))),
                _ => {}
            }
        }
        self.c.line(&format!(
            "// New{name} returns a {name} holding the schema's default values; the"
        ));
        self.c.line(&format!(
            "// zero {name}{{}} holds zeros. Decoding fills absent fields with the defaults."
        ));
        self.c.open(&format!("func New{name}() {name} {{"));
        let literal_open = if loops.is_empty() {
            format!("return {name}{{")
        } else {
            format!("x := {name}{{")
        };
        self.c.open(&literal_open);
        // Aligned as gofmt aligns a composite literal's keys.
        for row in align(&fields) {
            self.c.line(&row);
        }
        self.c.close("}");
        for (fname, elem) in &loops {
            self.c.open(&format!("for j := range x.{fname} {{"));
            self.c.line(&format!("x.{fname}[j] = New{elem}()"));
            self.c.close("}");
        }
        if !loops.is_empty() {
            self.c.line("return x");
        }
        self.c.close("}");
        self.c.line("");
    }

    fn write_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        self.c
            .line("// WriteAsRoot encodes x as the root of a message into w (reset first)");
        self.c
            .line("// and returns the message size. Reuse the writer: once it has grown,");
        self.c.line("// encoding allocates nothing.");
        self.c.open(&format!(
            "func (x *{name}) WriteAsRoot(w *karmem.Writer) (uint, error) {{"
        ));
        self.c.line("w.Begin()");
        if table {
            self.c.try_call("x.writeTable(w, 0)", "0, err");
        } else {
            self.c
                .line(&format!("at, err := w.Alloc({}, {OBJECT_ALIGN})", sl.size));
            self.c.check_err("0, err");
            self.c.try_call("x.writeAt(w, at)", "0, err");
        }
        self.c.try_call("w.Finish()", "0, err");
        self.c.line("return uint(w.Len()), nil");
        self.c.close("}");
        self.c.line("");

        let mut body = Code::new(1);
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("x.{}", self.n.field(id, i));
            self.write_slot(&mut body, &f.slot, &place, &Pos::of("at").add(f.offset));
        }
        if table {
            self.c.line(
                "// writeTable appends the table and stores its offset at ref (0: the root).",
            );
            self.c.open(&format!(
                "func (x *{name}) writeTable(w *karmem.Writer, ref uint32) error {{"
            ));
            self.c
                .line(&format!("at, err := w.Alloc({}, {OBJECT_ALIGN})", sl.size));
            self.c.check_err("err");
            self.c.line(&format!("w.PutUint32(at, {:#x})", sl.header));
            self.c.open("if ref != 0 {");
            self.c.line("w.PutUint32(ref, at)");
            self.c.close("}");
        } else {
            self.c.open(&format!(
                "func (x *{name}) writeAt(w *karmem.Writer, at uint32) error {{"
            ));
        }
        self.c.append(body);
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("");
    }

    /// Encode one slot of `place` at `pos` (format.md §8 order).
    pub(crate) fn write_slot(&self, c: &mut Code, slot: &Slot, place: &str, pos: &Pos) {
        let pc = pos.compact();
        match slot {
            Slot::Scalar(p) => c.line(&format!("w.Put{}({pc}, {})", wire(*p), unparen(place))),
            Slot::Enum { repr, .. } => c.line(&format!(
                "w.Put{}({pc}, {}({}))",
                wire(*repr),
                go_prim(*repr),
                unparen(place)
            )),
            Slot::InlineStruct(_) => c.try_call(&format!("{place}.writeAt(w, {pc})"), "err"),
            Slot::TableRef(_) => c.try_call(&format!("{place}.writeTable(w, {pc})"), "err"),
            // nil: offset 0 / presence byte 0, as the zeroed slot is.
            Slot::OptionalTable(_) => {
                c.open(&format!("if {place} != nil {{"));
                c.try_call(&format!("{place}.writeTable(w, {pc})"), "err");
                c.close("}");
            }
            Slot::Optional { value_at, value } => {
                c.open(&format!("if {place} != nil {{"));
                c.line(&format!("w.PutUint8({pc}, 1)"));
                self.write_slot(c, value, &format!("(*{place})"), &pos.add(*value_at));
                c.close("}");
            }
            Slot::Union { id, .. } => c.try_call(
                &format!(
                    "writeUnion{}(w, {place}, {pc}, {})",
                    self.n.union_name(*id),
                    pos.add(UNION_OFFSET_AT).compact()
                ),
                "err",
            ),
            Slot::FixedArray { elem, stride, .. } => {
                let epos = pos.plus("uint32(j)", *stride).compact();
                c.open(&format!("for j := range {place} {{"));
                match elem {
                    FixedElem::Scalar(p) => {
                        c.line(&format!("w.Put{}({epos}, {place}[j])", wire(*p)))
                    }
                    FixedElem::Enum { repr, .. } => c.line(&format!(
                        "w.Put{}({epos}, {}({place}[j]))",
                        wire(*repr),
                        go_prim(*repr)
                    )),
                    FixedElem::InlineStruct(_) => {
                        c.try_call(&format!("{place}[j].writeAt(w, {epos})"), "err")
                    }
                }
                c.close("}");
            }
            Slot::ArrayRef { array, data } => {
                write_limit(c, array, place);
                self.write_array(c, array, data, place, &pc);
            }
        }
    }

    fn write_array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        pc: &str,
    ) {
        match (array.text, data) {
            // The references first, then each element's data in index
            // order (format.md §8). `row` and `ref` are bound before the
            // element's own block shadows `block` and `k`.
            (None, ArrayData::Arrays { array: inner, data }) => {
                self.write_block(c, place, pc, ARRAY_REF_SIZE, |c| {
                    c.line(&format!(
                        "row, ref := {place}[k], block+uint32(k)*{ARRAY_REF_SIZE}"
                    ));
                    write_limit(c, inner, "row");
                    self.write_array(c, inner, data, "row", "ref");
                });
            }
            (Some(Text::Utf8), _) => c.try_call(&format!("w.WriteString({pc}, {place})"), "err"),
            (Some(Text::Utf16), _) => c.try_call(&format!("w.WriteUTF16({pc}, {place})"), "err"),
            (None, ArrayData::Plain { .. }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) => {
                    c.try_call(&format!("w.WriteBools({pc}, {place})"), "err")
                }
                _ => c.try_call(&format!("karmem.WriteSlice(w, {pc}, {place})"), "err"),
            },
            // A map's entries in key order, each as its entry struct
            // is written (format.md §5.5, §8).
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                let sl = self.l.of_struct(*id);
                c.open("{");
                c.line(&format!("keys := karmem.SortedKeys({place})"));
                c.line(&format!("block, err := w.AllocArray(len(keys), {stride})"));
                c.check_err("err");
                c.open("for k, key := range keys {");
                c.line(&format!(
                    "value, at := {place}[key], block+uint32(k)*{stride}"
                ));
                self.write_slot(
                    c,
                    &sl.fields[0].slot,
                    "key",
                    &Pos::of("at").add(sl.fields[0].offset),
                );
                self.write_slot(
                    c,
                    &sl.fields[1].slot,
                    "value",
                    &Pos::of("at").add(sl.fields[1].offset),
                );
                c.close("}");
                c.line(&format!(
                    "w.PutArrayRef({pc}, block, uint32(len(keys)), uint32(len(keys)))"
                ));
                c.close("}");
            }
            (None, ArrayData::AosInline { stride, .. }) => {
                self.write_block(c, place, pc, *stride, |c| {
                    c.try_call(
                        &format!("{place}[k].writeAt(w, block+uint32(k)*{stride})"),
                        "err",
                    )
                });
            }
            (None, ArrayData::AosTable { .. }) => {
                self.write_block(c, place, pc, OFFSET_SIZE, |c| {
                    c.try_call(
                        &format!("{place}[k].writeTable(w, block+uint32(k)*{OFFSET_SIZE})"),
                        "err",
                    )
                });
            }
            (None, ArrayData::Soa { elem }) => c.try_call(
                &format!("writeSoa{}(w, {pc}, {place})", self.n.struct_name(*elem)),
                "err",
            ),
            (None, ArrayData::UnionAos { id, .. }) => {
                let u = self.n.union_name(*id);
                self.write_block(c, place, pc, UNION_SLOT_SIZE, |c| {
                    c.try_call(
                        &format!(
                            "writeUnion{u}(w, {place}[k], block+uint32(k)*{UNION_SLOT_SIZE}, block+uint32(k)*{UNION_SLOT_SIZE}+{UNION_OFFSET_AT})"
                        ),
                        "err",
                    )
                });
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let u = self.n.union_name(*id);
                let tw = tag.size();
                c.open("{");
                c.line(&format!("tags, err := w.AllocArray(len({place}), {tw})"));
                c.check_err("err");
                c.line(&format!(
                    "offsets, err := w.AllocArray(len({place}), {OFFSET_SIZE})"
                ));
                c.check_err("err");
                c.open(&format!("for k := range {} {{", unparen(place)));
                c.try_call(
                    &format!(
                        "writeUnion{u}(w, {place}[k], tags+{}, offsets+uint32(k)*{OFFSET_SIZE})",
                        Pos::default().plus("uint32(k)", tw).compact()
                    ),
                    "err",
                );
                c.close("}");
                c.line(&format!(
                    "w.PutArrayRef({pc}, tags, uint32(len({place})), uint32(len({place})))"
                ));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS {
                    "writeBovos"
                } else {
                    "writeBovoa"
                };
                c.try_call(
                    &format!("{f}{}(w, {pc}, {place})", self.n.union_name(*id)),
                    "err",
                );
            }
        }
    }

    /// An AoS block of `len(place)` elements of `size` bytes; `each` writes
    /// element `k` at `block + k × size`.
    fn write_block(
        &self,
        c: &mut Code,
        place: &str,
        pc: &str,
        size: u32,
        each: impl FnOnce(&mut Code),
    ) {
        c.open("{");
        c.line(&format!("block, err := w.AllocArray(len({place}), {size})"));
        c.check_err("err");
        c.open(&format!("for k := range {} {{", unparen(place)));
        each(c);
        c.close("}");
        c.line(&format!(
            "w.PutArrayRef({pc}, block, uint32(len({place})), uint32(len({place})))"
        ));
        c.close("}");
    }

    // ---- decoding ----------------------------------------------------------------

    fn read_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        if table {
            self.c.line(&format!(
                "// {name}FullSize is S of format.md §10: the table's full size, every"
            ));
            self.c.line(
                "// field of this schema; a decoder charges at least this for a table it reads.",
            );
            self.c.line(&format!("const {name}FullSize = {}", sl.size));
            self.c.line("");
            self.c.line(&format!(
                "// {name}ZeroSize is Z of format.md §10: the size of the table's zero"
            ));
            self.c
                .line("// value, the tables it holds included; a decoder charges it for an absent");
            self.c.line("// or malformed one.");
            self.c.line(&format!("const {name}ZeroSize = {}", sl.zero));
            self.c.line("");
        }
        self.c
            .line("// ReadAsRoot decodes a whole message into x, reusing the slices,");
        self.c
            .line("// strings and union values x already holds. Malformed parts read as");
        self.c
            .line("// zero/empty; the traversal budget and depth limit bound the work and");
        self.c
            .line("// memory a hostile message can cause. A message that cannot be");
        self.c
            .line("// opened (r.Err()) is returned as the error and leaves x empty, as");
        self.c.line("// an absent root reads.");
        self.c.open(&format!(
            "func (x *{name}) ReadAsRoot(r *karmem.Reader) error {{"
        ));
        // Callers that ignore the error (the first Karmem README does) see
        // an empty value, never the previous message's.
        let empty = if self.s.has_defaults(id) {
            format!("New{name}()")
        } else {
            format!("{name}{{}}")
        };
        self.c.open("if err := r.Err(); err != nil {");
        self.c.line(&format!("*x = {empty}"));
        self.c.line("return err");
        self.c.close("}");
        self.c.line("v := karmem.NewValidator(r)");
        if table {
            self.c.line("return x.readTable(&v, r.Root())");
        } else {
            self.c
                .open(&format!("if uint64(r.Size()) < {} {{", 8 + sl.size as u64));
            // Its zero value, charged for the tables it holds (format.md
            // §10).
            if sl.zero > 0 {
                self.c.try_call(&format!("v.Charge({})", sl.zero), "err");
            }
            self.c.line(&format!("*x = {name}{{}}"));
            self.c.line("return nil");
            self.c.close("}");
            self.c.line("return x.readAt(&v, karmem.HeaderSize)");
        }
        self.c.close("}");
        self.c.line("");

        let mut body = Code::new(1);
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("x.{}", self.n.field(id, i));
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: Pos::of("at").add(f.offset),
                    absent: None,
                }
            };
            let default = self.s.structs[id].fields[i].nonzero_default();
            self.read_slot(&mut body, &f.slot, &place, &ctx, default);
        }
        let uses_r = body.reads();
        if table {
            self.c.open(&format!(
                "func (x *{name}) readTable(v *karmem.Validator, t karmem.Table) error {{"
            ));
            // Absent or malformed: the zero value, paid for whole before it
            // is built, and not read (no level of depth; format.md §10).
            self.c.open("if t == (karmem.Table{}) {");
            self.c.try_call(&format!("v.Charge({name}ZeroSize)"), "err");
            self.c.line(&format!("*x = {empty}"));
            self.c.line("return nil");
            self.c.close("}");
            self.c.try_call("v.Enter()", "err");
            // Every field is built, those past `used` too.
            self.c.try_call(
                &format!("v.Charge(uint64(max(t.Used, {name}FullSize)))"),
                "err",
            );
            if uses_r {
                self.c.line("r := v.Reader()");
            }
            self.c.append(body);
            self.c.line("v.Leave()");
        } else {
            self.c.open(&format!(
                "func (x *{name}) readAt(v *karmem.Validator, at uint32) error {{"
            ));
            if uses_r {
                self.c.line("r := v.Reader()");
            }
            self.c.append(body);
        }
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("");
    }

    /// Decode one slot into `place`; an absent field (or SoA column) reads
    /// as `default`, else as zero.
    pub(crate) fn read_slot(
        &self,
        c: &mut Code,
        slot: &Slot,
        place: &str,
        ctx: &Ctx,
        default: Option<&DefaultValue>,
    ) {
        let size = self.l.slot_size(slot);
        let default = default.map(|d| self.default_expr(slot, d));
        let (pos, present): (Pos, Option<String>) = match ctx {
            Ctx::Table { t, off } => (
                Pos::of(&format!("{t}.Offset")).add(*off),
                Some(format!("{t}.Has({off}, {size})")),
            ),
            Ctx::Pos { pos, absent } => (pos.clone(), absent.as_ref().map(|a| negate(a))),
        };
        let pc = pos.compact();
        // A field past its table's `used` is built as its zero value: the
        // tables that holds are charged first (format.md §10; its own bytes
        // are its table's). An SoA column's are charged for the whole array
        // by `readSoa`, before its elements are made.
        let held = match ctx {
            Ctx::Table { .. } => self.l.absent_charge(slot),
            Ctx::Pos { .. } => 0,
        };
        let guarded = |c: &mut Code, then: &dyn Fn(&mut Code), otherwise: &str| match &present {
            None => then(c),
            Some(cond) => {
                c.open(&format!("if {cond} {{"));
                then(c);
                c.close("} else {");
                c.indent += 1;
                if held > 0 {
                    c.try_call(&format!("v.Charge({held})"), "err");
                }
                c.line(otherwise);
                c.close("}");
            }
        };
        match slot {
            Slot::Scalar(_) | Slot::Enum { .. } => {
                let (p, conv) = match slot {
                    Slot::Scalar(p) => (*p, None),
                    Slot::Enum { id, repr } => (*repr, Some(self.n.enum_name(*id))),
                    _ => unreachable!(),
                };
                let load = match ctx {
                    Ctx::Table { t, off } if default.is_none() => {
                        format!("{}.Field{}({t}, {off})", c.r(), wire(p))
                    }
                    _ => format!("{}.{}({})", c.r(), wire(p), pos.normal()),
                };
                let value = match conv {
                    Some(e) => format!("{e}({load})"),
                    None => load,
                };
                let guard = default.is_some() || matches!(ctx, Ctx::Pos { .. });
                match &present {
                    Some(cond) if guard => {
                        c.open(&format!("if {cond} {{"));
                        c.line(&format!("{} = {value}", unparen(place)));
                        c.close("} else {");
                        c.indent += 1;
                        let absent = default.as_deref().unwrap_or(zero_of(p));
                        c.line(&format!("{} = {absent}", unparen(place)));
                        c.close("}");
                    }
                    _ => c.line(&format!("{} = {value}", unparen(place))),
                }
            }
            Slot::InlineStruct(id) => {
                let zero = format!("{place} = {}{{}}", self.n.struct_name(*id));
                guarded(
                    c,
                    &|c: &mut Code| c.try_call(&format!("{place}.readAt(v, {pc})"), "err"),
                    &zero,
                );
            }
            Slot::TableRef(_) => {
                let t = match ctx {
                    Ctx::Table { t, off } => format!("{}.FieldTable({t}, {off})", c.r()),
                    Ctx::Pos { .. } => {
                        let r = c.r();
                        format!("{r}.Table({r}.Uint32({}))", pos.compact())
                    }
                };
                match (ctx, &present) {
                    (Ctx::Pos { .. }, Some(cond)) => {
                        c.open(&format!("if {cond} {{"));
                        c.try_call(&format!("{place}.readTable(v, {t})"), "err");
                        c.close("} else {");
                        c.indent += 1;
                        c.try_call(&format!("{place}.readTable(v, karmem.Table{{}})"), "err");
                        c.close("}");
                    }
                    _ => c.try_call(&format!("{place}.readTable(v, {t})"), "err"),
                }
            }
            Slot::Union { id, .. } => {
                let call = format!(
                    "readUnion{}(v, {}, {pc}, {})",
                    self.n.union_name(*id),
                    addr(place),
                    pos.add(UNION_OFFSET_AT).compact()
                );
                guarded(
                    c,
                    &|c: &mut Code| c.try_call(&call, "err"),
                    &format!("{place} = nil"),
                );
            }
            Slot::FixedArray { elem, len, stride } => {
                let epos = pos.plus("uint32(j)", *stride);
                let zero = format!("{place} = [{len}]{}{{}}", self.fixed_elem_type(elem));
                let read = |c: &mut Code| {
                    c.open(&format!("for j := range {place} {{"));
                    match elem {
                        FixedElem::Scalar(p) => {
                            let r = c.r();
                            c.line(&format!("{place}[j] = {r}.{}({})", wire(*p), epos.normal()))
                        }
                        FixedElem::Enum { id, repr } => {
                            let r = c.r();
                            c.line(&format!(
                                "{place}[j] = {}({r}.{}({}))",
                                self.n.enum_name(*id),
                                wire(*repr),
                                epos.normal()
                            ))
                        }
                        FixedElem::InlineStruct(_) => {
                            c.try_call(&format!("{place}[j].readAt(v, {})", epos.compact()), "err")
                        }
                    }
                    c.close("}");
                };
                guarded(c, &read, &zero);
            }
            Slot::OptionalTable(id) => {
                let offset = match ctx {
                    Ctx::Table { t, off } => format!("{}.FieldUint32({t}, {off})", c.r()),
                    Ctx::Pos { .. } => format!("{}.Uint32({})", c.r(), pos.normal()),
                };
                let load = match &present {
                    Some(cond) if matches!(ctx, Ctx::Pos { .. }) => {
                        c.line("offset := uint32(0)");
                        c.open(&format!("if {cond} {{"));
                        c.line(&format!("offset = {offset}"));
                        c.close("}");
                        None
                    }
                    _ => Some(offset),
                };
                c.open(&match load {
                    Some(offset) => format!("if offset := {offset}; offset != 0 {{"),
                    None => "if offset != 0 {".into(),
                });
                c.open(&format!("if {place} == nil {{"));
                c.line(&format!("{place} = new({})", self.n.struct_name(*id)));
                c.close("}");
                let r = c.r();
                c.try_call(&format!("{place}.readTable(v, {r}.Table(offset))"), "err");
                c.close("} else {");
                c.indent += 1;
                c.line(&format!("{place} = nil"));
                c.close("}");
            }
            Slot::Optional { value_at, value } => {
                let flag = format!("{}.Uint8({}) != 0", c.r(), pos.compact());
                let cond = match &present {
                    Some(p) => format!("{p} && {flag}"),
                    None => flag,
                };
                c.open(&format!("if {cond} {{"));
                c.open(&format!("if {place} == nil {{"));
                c.line(&format!("{place} = new({})", self.value_type(value)));
                c.close("}");
                let inner = Ctx::Pos {
                    pos: pos.add(*value_at),
                    absent: None,
                };
                self.read_slot(c, value, &format!("(*{place})"), &inner, None);
                c.close("} else {");
                c.indent += 1;
                c.line(&format!("{place} = nil"));
                c.close("}");
            }
            Slot::ArrayRef { array, data } if default.is_some() => {
                // Text with a default: read when present, else the default.
                let es = data.elem_size();
                let limit = limit_of(array);
                let cond = present.clone().unwrap_or_else(|| "true".into());
                c.open(&format!("if {cond} {{"));
                let r = c.r();
                match ctx {
                    Ctx::Table { t, off } => {
                        c.line(&format!("a := {r}.FieldArray({t}, {off}, {es}, {limit})"))
                    }
                    Ctx::Pos { .. } => c.line(&format!("a := {r}.Array({pc}, {es}, {limit})")),
                }
                self.read_array(c, array, data, place);
                c.close("} else {");
                c.indent += 1;
                c.line(&format!(
                    "{place} = {}",
                    default.as_deref().unwrap_or_default()
                ));
                c.close("}");
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = limit_of(array);
                // An absent array (past `used`, or a column the directory
                // does not list) is empty and costs nothing (format.md
                // §10): its value is set without a charge.
                match &present {
                    Some(cond) => c.open(&format!("if {cond} {{")),
                    None => c.open("{"),
                }
                let r = c.r();
                match ctx {
                    Ctx::Table { t, off } => {
                        c.line(&format!("a := {r}.FieldArray({t}, {off}, {es}, {limit})"))
                    }
                    Ctx::Pos { .. } => c.line(&format!("a := {r}.Array({pc}, {es}, {limit})")),
                }
                self.read_array(c, array, data, place);
                if present.is_some() {
                    c.close("} else {");
                    c.indent += 1;
                    self.empty_array(c, array, data, place);
                }
                c.close("}");
            }
        }
    }

    /// The value an empty array decodes to (as `read_array` leaves it for
    /// an array of length 0), set without reading or charging anything.
    fn empty_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, place: &str) {
        match (array.text, data) {
            (Some(_), _) => c.line(&format!("{} = \"\"", unparen(place))),
            (None, ArrayData::AosInline { .. }) if array.is_map() => {
                self.clear_map(c, array, place)
            }
            _ => c.line(&format!("{} = {place}[:0]", unparen(place))),
        }
    }

    /// Empties the map at `place`, reusing it (a new one when it is nil).
    fn clear_map(&self, c: &mut Code, array: &ArrayType, place: &str) {
        c.open(&format!("if {place} == nil {{"));
        c.line(&format!(
            "{place} = {}{{}}",
            self.obj_type(&FieldType::Array(*array))
        ));
        c.close("} else {");
        c.indent += 1;
        c.line(&format!("clear({place})"));
        c.close("}");
    }

    pub(crate) fn fixed_elem_type(&self, elem: &FixedElem) -> String {
        match elem {
            FixedElem::Scalar(p) => go_prim(*p).into(),
            FixedElem::Enum { id, .. } => self.n.enum_name(*id),
            FixedElem::InlineStruct(id) => self.n.struct_name(*id),
        }
    }

    /// Opens `for k := …` over `a.Len` elements of `place`, which keeps the
    /// elements it has (reused) and grows by one zero `T` for each new one.
    fn grow_each(&self, c: &mut Code, place: &str, id: StructId) {
        let p = unparen(place);
        c.line(&format!("{p} = {place}[:min(len({p}), int(a.Len))]"));
        c.open("for k := 0; k < int(a.Len); k++ {");
        c.open(&format!("if k == len({p}) {{"));
        c.line(&format!(
            "{p} = append({p}, {}{{}})",
            self.n.struct_name(id)
        ));
        c.close("}");
    }

    /// Charges, for each column of `soa` the directory `cols` does not
    /// list, what its zero value holds (a fixed array of inline structs
    /// holding tables, format.md §10) for each of `count` elements.
    pub(super) fn charge_unlisted(&self, c: &mut Code, soa: &SoaLayout, count: &str) {
        for (k, col) in soa.columns.iter().enumerate() {
            let held = self.l.absent_charge(&col.slot);
            if held > 0 {
                c.open(&format!("if cols[{k}] == 0 {{"));
                c.try_call(&format!("v.ChargeEach({count}, {held})"), "err");
                c.close("}");
            }
        }
    }

    /// Decode array `a` into `place`, reusing it.
    fn read_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, place: &str) {
        // What each element costs the traversal budget is the layout's
        // answer (format.md §10), not this generator's.
        let per_element = self.l.decode_charge(data);
        let charge = |c: &mut Code| {
            let size = per_element.expect("charged per element");
            c.try_call(
                &format!("v.Charge({})", times("uint64(a.Len)", size)),
                "err",
            )
        };
        match (array.text, data) {
            // Each element is an array of its own, read like a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                charge(c);
                c.line(&format!("{place} = karmem.Resize({place}, int(a.Len))"));
                c.open(&format!("for k := range {} {{", unparen(place)));
                c.line(&format!("row := &{place}[k]"));
                let r = c.r();
                c.line(&format!(
                    "a := {r}.Array(a.Offset+uint32(k)*{ARRAY_REF_SIZE}, {}, {})",
                    data.elem_size(),
                    limit_of(inner)
                ));
                self.read_array(c, inner, data, "(*row)");
                c.close("}");
            }
            (Some(Text::Utf8), _) => {
                charge(c);
                let r = c.r();
                c.line(&format!(
                    "karmem.SetString({}, {r}.ArrayBytes(a))",
                    addr(place)
                ));
            }
            (Some(Text::Utf16), _) => {
                charge(c);
                let r = c.r();
                c.line(&format!(
                    "karmem.SetUTF16({}, karmem.Slice[uint16]({r}, a.Offset, a.Len))",
                    addr(place)
                ));
            }
            (None, ArrayData::Plain { .. }) => {
                charge(c);
                let r = c.r();
                match array.elem {
                    ElemType::Scalar(Primitive::Bool) => c.line(&format!(
                        "{place} = karmem.AppendBools({place}[:0], karmem.Slice[uint8]({r}, a.Offset, a.Len))"
                    )),
                    e => c.line(&format!(
                        "{place} = append({place}[:0], karmem.Slice[{}]({r}, a.Offset, a.Len)...)",
                        self.elem_type(e)
                    )),
                }
            }
            // A map's entries are decoded into its entry struct, whose key
            // and value then go into the map.
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                charge(c);
                self.clear_map(c, array, place);
                c.open("for k := uint32(0); k < a.Len; k++ {");
                c.line(&format!("var entry {}", self.n.struct_name(*id)));
                c.try_call(&format!("entry.readAt(v, a.Offset+k*{stride})"), "err");
                c.line(&format!("{place}[entry.Key] = entry.Value"));
                c.close("}");
            }
            // Elements of structs grow the slice one at a time, each built
            // as it is read, rather than `a.Len` zero values first: a zero
            // value may hold tables and fixed arrays (format.md §10).
            (None, ArrayData::AosInline { id, stride }) => {
                charge(c);
                self.grow_each(c, place, *id);
                c.try_call(
                    &format!("{place}[k].readAt(v, a.Offset+uint32(k)*{stride})"),
                    "err",
                );
                c.close("}");
            }
            (None, ArrayData::AosTable { id }) => {
                charge(c);
                self.grow_each(c, place, *id);
                let r = c.r();
                c.try_call(
                    &format!("{place}[k].readTable(v, {r}.Table({r}.Uint32(a.Offset+uint32(k)*{OFFSET_SIZE})))"),
                    "err",
                );
                c.close("}");
            }
            (None, ArrayData::Soa { elem }) => c.try_call(
                &format!(
                    "readSoa{}(v, a, {})",
                    self.n.struct_name(*elem),
                    addr(place)
                ),
                "err",
            ),
            (None, ArrayData::UnionAos { id, .. }) => {
                charge(c);
                c.line(&format!("{place} = karmem.Resize({place}, int(a.Len))"));
                c.open(&format!("for k := range {} {{", unparen(place)));
                c.line(&format!("at := a.Offset + uint32(k)*{UNION_SLOT_SIZE}"));
                c.try_call(
                    &format!(
                        "readUnion{}(v, &{place}[k], at, at+{UNION_OFFSET_AT})",
                        self.n.union_name(*id)
                    ),
                    "err",
                );
                c.close("}");
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                let r = c.r();
                c.open(&format!(
                    "if tags, offsets, ok := {r}.UnionColumns(a, {tw}); ok {{"
                ));
                charge(c);
                c.line(&format!("{place} = karmem.Resize({place}, int(a.Len))"));
                c.open(&format!("for k := range {} {{", unparen(place)));
                c.try_call(
                    &format!(
                        "readUnion{}(v, &{place}[k], tags+{}, offsets+uint32(k)*{OFFSET_SIZE})",
                        self.n.union_name(*id),
                        Pos::default().plus("uint32(k)", tw).compact()
                    ),
                    "err",
                );
                c.close("}");
                c.close("} else {");
                c.indent += 1;
                c.line(&format!("{place} = {place}[:0]"));
                c.close("}");
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS {
                    "readBovos"
                } else {
                    "readBovoa"
                };
                c.try_call(
                    &format!("{f}{}(v, a, {})", self.n.union_name(*id), addr(place)),
                    "err",
                );
            }
        }
    }

    // ---- SoA arrays ----------------------------------------------------------------

    /// Column table, writer, reader and validator of SoA arrays of `id`.
    pub(crate) fn soa_object(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        self.c.line(&format!(
            "// soaColumns{name}: hash and size of each SoA column of {name}, in writing order (format.md §5.3)."
        ));
        if n == 0 {
            // An element without columns (an empty table): as gofmt has it.
            self.c
                .line(&format!("var soaColumns{name} = [0]karmem.Column{{}}"));
        } else {
            self.c
                .open(&format!("var soaColumns{name} = [{n}]karmem.Column{{"));
            for col in &soa.columns {
                let dense = matches!(col.slot, Slot::Scalar(_) | Slot::Enum { .. });
                self.c.line(&format!(
                    "{{Hash: {:#010x}, Size: {}, Dense: {dense}}},",
                    col.hash, col.size
                ));
            }
            self.c.close("}");
        }
        self.c.line("");
        self.soa_writer(id, &Seq::Plain);
        self.soa_reader(id, &Seq::Plain);
        self.soa_validator(id);
    }

    /// The Go expression of leaf `k` of element `e` (`e.Data.Username`).
    pub(crate) fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
        }
        place
    }

    fn seq_names(&self, id: StructId, seq: &Seq) -> (String, String) {
        let name = self.n.struct_name(id);
        match seq {
            Seq::Plain => (name.clone(), format!("[]{name}")),
            Seq::InUnion { union, .. } => {
                let u = self.n.union_name(*union);
                (format!("{name}In{u}"), format!("[]{u}"))
            }
        }
    }

    /// Opens a loop over the elements binding `e` (a pointer) and `i`.
    fn open_write_loop(&self, c: &mut Code, seq: &Seq) {
        match seq {
            Seq::Plain => {
                c.open("for i := range items {");
                c.line("e := &items[i]");
            }
            Seq::InUnion { variant, .. } => {
                c.line("i := 0");
                c.open("for _, item := range items {");
                c.line(&format!(
                    "e, ok := item.(*{})",
                    self.n.struct_name(*variant)
                ));
                c.open("if !ok || e == nil {");
                c.line("continue");
                c.close("}");
            }
        }
    }

    fn close_write_loop(&self, c: &mut Code, seq: &Seq) {
        if let Seq::InUnion { .. } = seq {
            c.line("i++");
        }
        c.close("}");
    }

    pub(crate) fn soa_writer(&mut self, id: StructId, seq: &Seq) {
        let soa = self.l.soa(id).clone();
        let name = self.n.struct_name(id);
        let n = soa.columns.len();
        let (fname, items_ty) = self.seq_names(id, seq);
        let count = match seq {
            Seq::Plain => "len(items)",
            Seq::InUnion { .. } => "count",
        };
        let mut c = Code::new(0);
        match seq {
            Seq::Plain => c.open(&format!(
                "func writeSoa{fname}(w *karmem.Writer, at uint32, items {items_ty}) error {{"
            )),
            Seq::InUnion { .. } => c.open(&format!(
                "func writeSoa{fname}(w *karmem.Writer, at uint32, items {items_ty}, count int) error {{"
            )),
        }
        c.line(&format!("var cols [{n}]uint32"));
        c.try_call(
            &format!("w.WriteSoa(at, {count}, soaColumns{name}[:], cols[:])"),
            "err",
        );
        // Dense columns (scalars, enums) are filled in one loop over the
        // elements writing every column's native slice (one pass over the
        // objects); the others element by element, which also fixes the
        // order of out-of-line children.
        let mut sparse = Vec::new();
        let mut dense = Vec::new();
        for (k, col) in soa.columns.iter().enumerate() {
            let place = self.column_place("e", id, k);
            match &col.slot {
                Slot::Scalar(Primitive::Bool) => {
                    dense.push((k, "uint8".to_string(), format!("karmem.BoolByte({place})")))
                }
                Slot::Scalar(p) => dense.push((k, go_prim(*p).to_string(), place)),
                Slot::Enum { id, .. } => dense.push((k, self.n.enum_name(*id), place)),
                _ => sparse.push(k),
            }
        }
        if !dense.is_empty() {
            c.open("{");
            for (k, ty, _) in &dense {
                c.line(&format!(
                    "c{k} := karmem.WriterSlice[{ty}](w, cols[{k}], {count})[:{count}]"
                ));
            }
            self.open_write_loop(&mut c, seq);
            for (k, _, value) in &dense {
                c.line(&format!("c{k}[i] = {value}"));
            }
            self.close_write_loop(&mut c, seq);
            c.close("}");
        }
        if !sparse.is_empty() {
            let wrap = matches!(seq, Seq::InUnion { .. });
            if wrap {
                c.open("{");
            }
            self.open_write_loop(&mut c, seq);
            for k in sparse {
                let col = &soa.columns[k];
                let place = self.column_place("e", id, k);
                let pos = Pos::of(&format!("cols[{k}]")).plus("uint32(i)", col.size);
                self.write_slot(&mut c, &col.slot, &place, &pos);
            }
            self.close_write_loop(&mut c, seq);
            if wrap {
                c.close("}");
            }
        }
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }

    pub(crate) fn soa_reader(&mut self, id: StructId, seq: &Seq) {
        let soa = self.l.soa(id).clone();
        let name = self.n.struct_name(id);
        let n = soa.columns.len();
        let (fname, items_ty) = self.seq_names(id, seq);
        let mut c = Code::new(0);
        c.open(&format!(
            "func readSoa{fname}(v *karmem.Validator, a karmem.ArrayRef, items *{items_ty}) error {{"
        ));
        if n > 0 {
            c.line("r := v.Reader()");
        }
        c.line(&format!("var cols [{n}]uint32"));
        c.try_call(
            &format!("v.SoaColumns(a, soaColumns{name}[:], cols[:])"),
            "err",
        );
        c.try_call(
            &format!("v.Charge({})", times("uint64(a.Len)", soa.element_charge())),
            "err",
        );
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds.
        self.charge_unlisted(&mut c, &soa, "a.Len");
        let bind = match seq {
            Seq::Plain => {
                c.line("*items = karmem.Resize(*items, int(a.Len))");
                c.line("s := *items");
                "e := &s[i]".to_string()
            }
            Seq::InUnion { union, variant } => {
                c.line("start := len(*items)");
                c.line("*items = karmem.Resize(*items, start+int(a.Len))");
                c.line("s := (*items)[start:]");
                format!(
                    "e := reuse{}{}(s, i)",
                    self.n.union_name(*union),
                    self.n.struct_name(*variant)
                )
            }
        };
        let mut sparse = Vec::new();
        let mut dense = Vec::new();
        for (k, col) in soa.columns.iter().enumerate() {
            let place = self.column_place("e", id, k);
            // What an absent column (an older writer) reads as.
            let absent = |zero: &str| match col.field(self.s).nonzero_default() {
                Some(d) => self.default_expr(&col.slot, d),
                None => zero.to_string(),
            };
            match &col.slot {
                Slot::Scalar(Primitive::Bool) => dense.push((
                    k,
                    "uint8".to_string(),
                    place,
                    format!("c{k}[i] != 0"),
                    absent("false"),
                )),
                Slot::Scalar(p) => dense.push((
                    k,
                    go_prim(*p).to_string(),
                    place,
                    format!("c{k}[i]"),
                    absent("0"),
                )),
                Slot::Enum { id, .. } => dense.push((
                    k,
                    self.n.enum_name(*id),
                    place,
                    format!("c{k}[i]"),
                    absent("0"),
                )),
                _ => sparse.push(k),
            }
        }
        if !dense.is_empty() {
            // One pass over the objects when every dense column is there
            // (the common case); column by column, zero-filling absent
            // columns (an older writer), otherwise.
            c.open("{");
            for (k, ty, ..) in &dense {
                c.line(&format!("c{k} := karmem.Slice[{ty}](r, cols[{k}], a.Len)"));
            }
            let all: Vec<String> = dense
                .iter()
                .map(|(k, ..)| format!("len(c{k}) == len(s)"))
                .collect();
            let fused = dense.len() > 1;
            if fused {
                c.open(&format!("if {} {{", all.join(" && ")));
                for (k, ..) in &dense {
                    c.line(&format!("c{k} = c{k}[:len(s)]"));
                }
                c.open("for i := range s {");
                c.line(&bind);
                for (_, _, place, value, _) in &dense {
                    c.line(&format!("{place} = {value}"));
                }
                c.close("}");
                c.close("} else {");
                c.indent += 1;
            }
            for (k, _, place, value, zero) in &dense {
                c.open(&format!("if len(c{k}) == len(s) {{"));
                c.open("for i := range s {");
                c.line(&bind);
                c.line(&format!("{place} = {value}"));
                c.close("}");
                c.close("} else {");
                c.indent += 1;
                c.open("for i := range s {");
                c.line(&bind);
                c.line(&format!("{place} = {zero}"));
                c.close("}");
                c.close("}");
            }
            if fused {
                c.close("}");
            }
            c.close("}");
        }
        if !sparse.is_empty() {
            c.open("for i := range s {");
            c.line(&bind);
            for k in sparse {
                let col = &soa.columns[k];
                let place = self.column_place("e", id, k);
                let ctx = Ctx::Pos {
                    pos: Pos::of(&format!("cols[{k}]")).plus("uint32(i)", col.size),
                    absent: Some(format!("cols[{k}] == 0")),
                };
                let default = col.field(self.s).nonzero_default();
                self.read_slot(&mut c, &col.slot, &place, &ctx, default);
            }
            c.close("}");
        } else if soa.columns.is_empty() {
            c.line("_ = s");
        }
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }

    // ---- unions ----------------------------------------------------------------------

    pub(crate) fn union_object(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let tag = self.union_tag(id);
        let variants: Vec<String> = u
            .variants
            .iter()
            .map(|v| format!("*{}", self.n.struct_name(v.ty)))
            .collect();
        self.c.doc(&u.doc);
        if !u.doc.is_empty() {
            self.c.line("//");
        }
        self.c.line(&format!(
            "// {name} is a value of the union `{}`: nil (no value) or one of",
            u.name
        ));
        self.c.line(&format!("// {}.", variants.join(", ")));
        self.c.open(&format!("type {name} interface {{"));
        self.c.line(&format!("{tag}() {tag}"));
        self.c.line(&format!("is{name}()"));
        self.c.close("}");
        self.c.line("");
        self.c.line(&format!(
            "// {tag} is the wire tag of a {name} variant (0: no value)."
        ));
        self.c.line(&format!("type {tag} uint32"));
        self.c.line("");
        let mut rows = vec![vec![format!("{tag}None"), format!("{tag} = 0")]];
        for v in &u.variants {
            rows.push(vec![
                format!("{tag}{}", self.n.struct_name(v.ty)),
                format!("{tag} = {}", v.tag),
            ]);
        }
        self.c.open("const (");
        for row in align(&rows) {
            self.c.line(&row);
        }
        self.c.close(")");
        self.c.line("");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            self.c.line(&format!("// {tag} returns {tag}{ty}."));
            self.c.open(&format!("func (*{ty}) {tag}() {tag} {{"));
            self.c.line(&format!("return {tag}{ty}"));
            self.c.close("}");
            self.c.line("");
            self.c.line(&format!("func (*{ty}) is{name}() {{}}"));
            self.c.line("");
            self.c.line(&format!(
                "// reuse{name}{ty} returns the *{ty} at s[i] for decoding into, making one if s[i] holds another variant."
            ));
            self.c
                .open(&format!("func reuse{name}{ty}(s []{name}, i int) *{ty} {{"));
            self.c
                .open(&format!("if e, ok := s[i].(*{ty}); ok && e != nil {{"));
            self.c.line("return e");
            self.c.close("}");
            self.c.line(&format!("e := new({ty})"));
            self.c.line("s[i] = e");
            self.c.line("return e");
            self.c.close("}");
            self.c.line("");
        }
        self.union_writer(id);
        self.union_reader(id);
        self.union_validator(id);
    }

    fn tag_load(&self, tag: Primitive, at: &str) -> String {
        if tag == Primitive::U32 {
            format!("r.Uint32({at})")
        } else {
            format!("uint32(r.{}({at}))", wire(tag))
        }
    }

    fn union_writer(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "func writeUnion{name}(w *karmem.Writer, value {name}, tagAt, offsetAt uint32) error {{"
        ));
        c.line("switch x := value.(type) {");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            c.line(&format!("case *{ty}:"));
            c.indent += 1;
            c.open("if x == nil {");
            c.line("return nil");
            c.close("}");
            c.line(&format!("w.Put{}(tagAt, {})", wire(u.tag), v.tag));
            if self.l.is_table(v.ty) {
                c.line("return x.writeTable(w, offsetAt)");
            } else {
                c.line(&format!(
                    "at, err := w.Alloc({}, {OBJECT_ALIGN})",
                    self.l.of_struct(v.ty).size
                ));
                c.check_err("err");
                c.line("w.PutUint32(offsetAt, at)");
                c.line("return x.writeAt(w, at)");
            }
            c.indent -= 1;
        }
        c.line("}");
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }

    fn union_reader(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "func readUnion{name}(v *karmem.Validator, place *{name}, tagAt, offsetAt uint32) error {{"
        ));
        c.line("r := v.Reader()");
        c.line(&format!("tag := {}", self.tag_load(u.tag, "tagAt")));
        c.line("offset := r.Uint32(offsetAt)");
        c.line("switch tag {");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            c.line(&format!("case {}:", v.tag));
            c.indent += 1;
            if self.l.is_table(v.ty) {
                c.line(&format!("x, ok := (*place).(*{ty})"));
                c.open("if !ok || x == nil {");
                c.line(&format!("x = new({ty})"));
                c.line("*place = x");
                c.close("}");
                c.line("return x.readTable(v, r.Table(offset))");
            } else {
                c.open(&format!(
                    "if r.InlineAt(offset, {}) {{",
                    self.l.of_struct(v.ty).size
                ));
                // Charged like a table: its size (format.md §10).
                c.try_call(&format!("v.Charge({})", self.l.of_struct(v.ty).size), "err");
                c.line(&format!("x, ok := (*place).(*{ty})"));
                c.open("if !ok || x == nil {");
                c.line(&format!("x = new({ty})"));
                c.line("*place = x");
                c.close("}");
                c.line("return x.readAt(v, offset)");
                c.close("}");
            }
            c.indent -= 1;
        }
        c.line("}");
        c.line("*place = nil");
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }

    // ---- bunch arrays (#bovoa, #bovos) ------------------------------------------------

    pub(crate) fn bunch_object(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let suffix = if soa { "Bovos" } else { "Bovoa" };
        let k = u.variants.len();
        if soa {
            for v in &u.variants {
                let seq = Seq::InUnion {
                    union: id,
                    variant: v.ty,
                };
                self.soa_writer(v.ty, &seq);
                self.soa_reader(v.ty, &seq);
            }
        }
        let mut c = Code::new(0);
        c.open(&format!(
            "func write{suffix}{name}(w *karmem.Writer, at uint32, items []{name}) error {{"
        ));
        c.line(&format!("var counts [{k}]int"));
        c.open("for _, item := range items {");
        c.line("switch x := item.(type) {");
        for (i, v) in u.variants.iter().enumerate() {
            c.line(&format!("case *{}:", self.n.struct_name(v.ty)));
            c.indent += 1;
            c.open("if x != nil {");
            c.line(&format!("counts[{i}]++"));
            c.close("}");
            c.indent -= 1;
        }
        c.line("}");
        c.close("}");
        c.line("total, entries := 0, uint32(0)");
        c.open("for _, n := range counts {");
        c.line("total += n");
        c.open("if n > 0 {");
        c.line("entries++");
        c.close("}");
        c.close("}");
        c.open("if total == 0 {");
        c.line("w.PutArrayRef(at, 0, 0, 0)");
        c.line("return nil");
        c.close("}");
        c.line("table, err := w.WriteBunchTable(entries)");
        c.check_err("err");
        c.line(&format!("entry := table + {BUNCH_ENTRY_SIZE}"));
        for (i, v) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(v.ty);
            c.open(&format!("if counts[{i}] > 0 {{"));
            c.line(&format!("w.PutUint32(entry, {})", v.tag));
            if soa {
                c.try_call(
                    &format!(
                        "writeSoa{ty}In{name}(w, entry+{BUNCH_ENTRY_ARRAY_AT}, items, counts[{i}])"
                    ),
                    "err",
                );
            } else {
                let (size, call) = if self.l.is_table(v.ty) {
                    (
                        OFFSET_SIZE,
                        format!("e.writeTable(w, block+uint32(k)*{OFFSET_SIZE})"),
                    )
                } else {
                    let stride = self.l.of_struct(v.ty).size;
                    (stride, format!("e.writeAt(w, block+uint32(k)*{stride})"))
                };
                c.line(&format!("block, err := w.AllocArray(counts[{i}], {size})"));
                c.check_err("err");
                c.line("k := 0");
                c.open("for _, item := range items {");
                c.line(&format!("e, ok := item.(*{ty})"));
                c.open("if !ok || e == nil {");
                c.line("continue");
                c.close("}");
                c.try_call(&call, "err");
                c.line("k++");
                c.close("}");
                c.line(&format!(
                    "w.PutArrayRef(entry+{BUNCH_ENTRY_ARRAY_AT}, block, uint32(counts[{i}]), uint32(counts[{i}]))"
                ));
            }
            if i + 1 < u.variants.len() {
                c.line(&format!("entry += {BUNCH_ENTRY_SIZE}"));
            }
            c.close("}");
        }
        c.line("w.PutArrayRef(at, table, uint32(total), uint32(total))");
        c.line("return nil");
        c.close("}");
        c.line("");

        c.open(&format!(
            "func read{suffix}{name}(v *karmem.Validator, a karmem.ArrayRef, items *[]{name}) error {{"
        ));
        let mut body = Code::new(1);
        body.line("*items = (*items)[:0]");
        // The table is read once for all variants (format.md §10).
        body.try_call("v.ChargeBunch(a)", "err");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            if soa {
                body.try_call(
                    &format!(
                        "readSoa{ty}In{name}(v, r.BunchEntry(a, {}, 0), items)",
                        v.tag
                    ),
                    "err",
                );
                continue;
            }
            let data = self.l.bunch_variant_data(v.ty, false);
            let size = data.elem_size();
            let per_element = self
                .l
                .decode_charge(&data)
                .expect("an AoS array is charged per element");
            let call = if self.l.is_table(v.ty) {
                format!("e.readTable(v, r.Table(r.Uint32(sub.Offset+uint32(k)*{OFFSET_SIZE})))")
            } else {
                format!("e.readAt(v, sub.Offset+uint32(k)*{size})")
            };
            body.open("{");
            body.line(&format!("sub := r.BunchEntry(a, {}, {size})", v.tag));
            body.try_call(
                &format!("v.Charge({})", times("uint64(sub.Len)", per_element)),
                "err",
            );
            body.line("start := len(*items)");
            body.line("*items = karmem.Resize(*items, start+int(sub.Len))");
            body.line("s := (*items)[start:]");
            body.open("for k := range s {");
            body.line(&format!("e := reuse{name}{ty}(s, k)"));
            body.try_call(&call, "err");
            body.close("}");
            body.close("}");
        }
        c.line("r := v.Reader()");
        c.append(body);
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }
}

/// `x == 0` → `x != 0` (conditions the generator builds are comparisons).
pub(crate) fn negate(cond: &str) -> String {
    if let Some((a, b)) = cond.split_once(" == ") {
        format!("{a} != {b}")
    } else if let Some((a, b)) = cond.split_once(" != ") {
        format!("{a} == {b}")
    } else {
        format!("!({cond})")
    }
}

/// A writer refuses a value longer than a limited array's `N`.
fn write_limit(c: &mut Code, array: &ArrayType, place: &str) {
    if let ArrayKind::Limited(n) = array.kind {
        let len = match array.text {
            Some(Text::Utf16) => format!("karmem.UTF16Len({place})"),
            _ => format!("len({place})"),
        };
        c.open(&format!("if {len} > {n} {{"));
        c.line("return karmem.ErrTooLarge");
        c.close("}");
    }
}

/// `place` as gofmt prints it where a range expression takes it:
/// `(*row)` loses its parentheses there.
fn unparen(place: &str) -> &str {
    place
        .strip_prefix('(')
        .and_then(|p| p.strip_suffix(')'))
        .filter(|p| p.starts_with('*'))
        .unwrap_or(place)
}

/// The address of `place`: `&x.Name`, or `x.Name` for the pointee `(*x.Name)`
/// of an optional field or array element (`&*p` is `p`).
fn addr(place: &str) -> String {
    match place.strip_prefix("(*").and_then(|p| p.strip_suffix(')')) {
        Some(pointer) => pointer.to_string(),
        None => format!("&{place}"),
    }
}

//! Object types and their encoding (`WriteAsRoot`) and decoding
//! (`ReadAsRoot`), including SoA arrays, unions and bunch arrays. Byte for
//! byte the same writing order as the Rust backend (format.md §8).

use karmem_layout::{
    Access, ArrayData, FixedElem, Layout, Slot, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::{align, times, Code, Pos};
use super::{go_limit, go_prim, go_quote, wire, zero_of, Gen};
use crate::walk::{
    read_array, read_fields, read_slot, write_array, write_slot, Ctx, DecodePrinter, EncodePrinter,
    Here, SlotPrinter,
};

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
        let json = self.c.pkg("json");
        self.c.line(&format!(
            "return {json}.Marshal([]any{{{}}})",
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
        self.c.line(&format!("var items []{json}.RawMessage"));
        self.c
            .try_call(&format!("{json}.Unmarshal(b, &items)"), "err");
        self.c.open(&format!("if len(items) != {n} {{"));
        let errors = self.c.pkg("errors");
        self.c.line(&format!(
            "return {errors}.New(\"karmem: a {name} is a JSON array of {n} elements\")"
        ));
        self.c.close("}");
        for (i, f) in fields.iter().enumerate() {
            self.c
                .try_call(&format!("{json}.Unmarshal(items[{i}], &{f})"), "err");
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
        // Every struct has this method: the file imports the runtime
        // package for its uses here and in the rest of the struct's code.
        let km = self.c.pkg("karmem");
        self.c.open(&format!(
            "func (x *{name}) WriteAsRoot(w *{km}.Writer) (uint, error) {{"
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
            let pos = Pos::of("at").add(f.offset).compact();
            write_slot(self, &mut body, &f.slot, &place, &pos);
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

    /// A map's entries in key order, each as its entry struct is written
    /// (format.md §5.5, §8).
    fn write_map(&self, c: &mut Code, id: StructId, stride: u32, value: &str, pos: &str) {
        let sl = self.l.of_struct(id);
        c.open("{");
        c.line(&format!("keys := karmem.SortedKeys({value})"));
        c.line(&format!("block, err := w.AllocArray(len(keys), {stride})"));
        c.check_err("err");
        c.open("for k, key := range keys {");
        c.line(&format!(
            "value, at := {value}[key], block+uint32(k)*{stride}"
        ));
        for (f, name) in sl.fields.iter().zip(["key", "value"]) {
            write_slot(
                self,
                c,
                &f.slot,
                name,
                &Pos::of("at").add(f.offset).compact(),
            );
        }
        c.close("}");
        c.line(&format!(
            "w.PutArrayRef({pos}, block, uint32(len(keys)), uint32(len(keys)))"
        ));
        c.close("}");
    }

    /// An AoS block of `len(place)` elements of `size` bytes; `each` writes
    /// element `k` at `block + k × size`. A block of structs of numbers only
    /// (`plain`) is first offered to `karmem.EncodePlain`, one copy where the
    /// machine allows it (RATIONALE R5.14); the loop runs where it does not.
    fn write_block(
        &self,
        c: &mut Code,
        place: &str,
        pc: &str,
        size: u32,
        plain: bool,
        each: impl FnOnce(&mut Code),
    ) {
        c.open("{");
        c.line(&format!("block, err := w.AllocArray(len({place}), {size})"));
        c.check_err("err");
        if plain {
            c.open(&format!(
                "if !karmem.EncodePlain(w, block, {}, {size}) {{",
                unparen(place)
            ));
        }
        c.open(&format!("for k := range {} {{", unparen(place)));
        each(c);
        c.close("}");
        if plain {
            c.close("}");
        }
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
        let plan = self.l.struct_plan(self.s, id);
        read_fields(self, &mut body, &plan.fields, |_, f| {
            format!("x.{}", self.n.field(id, f.index))
        });
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

    /// The value an empty array decodes to (as `read_array` leaves it for
    /// an array of length 0), set without reading or charging anything.
    fn empty_array(&self, c: &mut Code, array: &ArrayType, place: &str) {
        if array.text.is_some() {
            c.line(&format!("{} = \"\"", unparen(place)));
        } else if array.is_map() {
            self.clear_map(c, array, place);
        } else {
            c.line(&format!("{} = {place}[:0]", unparen(place)));
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

    /// Charges, for each column of SoA element `id` the directory `cols`
    /// does not list, what its zero value holds (a fixed array of inline
    /// structs holding tables, format.md §10) for each of `count` elements.
    pub(super) fn charge_unlisted(&self, c: &mut Code, id: StructId, count: &str) {
        for (k, held) in self.l.soa_plan(self.s, id).unlisted {
            c.open(&format!("if cols[{k}] == 0 {{"));
            c.try_call(&format!("v.ChargeEach({count}, {held})"), "err");
            c.close("}");
        }
    }

    /// Decodes the block of the array reference `a` into `place`, reusing
    /// it: a map's entries into the Go map, any other block as the walker
    /// hands it (crate::walk::read_array).
    /// A map's entries are decoded into its entry struct, whose key and
    /// value then go into the map.
    fn read_map(
        &self,
        c: &mut Code,
        array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
    ) {
        charge_each(c, "a", charge);
        self.clear_map(c, array, place);
        c.open("for k := uint32(0); k < a.Len; k++ {");
        c.line(&format!("var entry {}", self.n.struct_name(id)));
        c.try_call(&format!("entry.readAt(v, a.Offset+k*{stride})"), "err");
        c.line(&format!("{place}[entry.Key] = entry.Value"));
        c.close("}");
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
                let pos = Pos::of(&format!("cols[{k}]"))
                    .plus("uint32(i)", col.size)
                    .compact();
                write_slot(self, &mut c, &col.slot, &place, &pos);
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
        self.charge_unlisted(&mut c, id, "a.Len");
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
            let mut columns = self.l.soa_plan(self.s, id).columns;
            columns.retain(|f| matches!(f.access, Access::Column { k, .. } if sparse.contains(&k)));
            read_fields(self, &mut c, &columns, |_, f| {
                let Access::Column { k, .. } = f.access else {
                    unreachable!("an SoA element's fields are its columns")
                };
                self.column_place("e", id, k)
            });
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

/// Go prints the plan (crate::walk): where a slot is, and, for the
/// decoder, each node below: one kind of slot or array block.
impl SlotPrinter for Gen<'_> {
    type Code = Code;

    fn layout(&self) -> &Layout {
        self.l
    }

    /// Positions travel as their compact text ([`Pos::parse`] reads them
    /// back).
    fn place(&self, ctx: &Ctx, size: u32) -> (String, Option<String>) {
        match ctx {
            Ctx::Table { off } => (
                Pos::of("t.Offset").add(*off).compact(),
                Some(format!("t.Has({off}, {size})")),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        }
    }

    fn inline_pos(&self, off: u32) -> String {
        Pos::of("at").add(off).compact()
    }

    fn column_pos(&self, k: usize, stride: u32) -> (String, String) {
        (
            Pos::of(&format!("cols[{k}]"))
                .plus("uint32(i)", stride)
                .compact(),
            format!("cols[{k}] != 0"),
        )
    }
}

impl DecodePrinter for Gen<'_> {
    fn value(&self, c: &mut Code, slot: &Slot, place: &str, at: &Here) {
        let (p, conv) = match slot {
            Slot::Scalar(p) => (*p, None),
            Slot::Enum { id, repr } => (*repr, Some(self.n.enum_name(*id))),
            _ => unreachable!("the walker hands numbers and enums only"),
        };
        let default = at.default.map(|d| self.default_expr(slot, d));
        let load = match at.ctx {
            Ctx::Table { off } if default.is_none() => {
                format!("{}.Field{}(t, {off})", c.r(), wire(p))
            }
            _ => format!("{}.{}({})", c.r(), wire(p), Pos::parse(&at.pos).normal()),
        };
        let value = match conv {
            Some(e) => format!("{e}({load})"),
            None => load,
        };
        let guard = default.is_some() || matches!(at.ctx, Ctx::Pos { .. });
        match &at.present {
            Some(cond) if guard => {
                c.open(&format!("if {cond} {{"));
                c.line(&format!("{} = {value}", unparen(place)));
                c.reopen("} else {");
                let absent = default.as_deref().unwrap_or(zero_of(p));
                c.line(&format!("{} = {absent}", unparen(place)));
                c.close("}");
            }
            _ => c.line(&format!("{} = {value}", unparen(place))),
        }
    }

    fn inline(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let zero = format!("{place} = {}{{}}", self.n.struct_name(id));
        guarded(
            c,
            at,
            |c| c.try_call(&format!("{place}.readAt(v, {})", at.pos), "err"),
            &zero,
        );
    }

    fn table(&self, c: &mut Code, _id: StructId, place: &str, at: &Here) {
        let r = c.r();
        let t = match at.ctx {
            Ctx::Table { off } => format!("{r}.FieldTable(t, {off})"),
            Ctx::Pos { .. } => format!("{r}.Table({r}.Uint32({}))", at.pos),
        };
        match (at.ctx, &at.present) {
            (Ctx::Pos { .. }, Some(cond)) => {
                c.open(&format!("if {cond} {{"));
                c.try_call(&format!("{place}.readTable(v, {t})"), "err");
                c.reopen("} else {");
                c.try_call(&format!("{place}.readTable(v, karmem.Table{{}})"), "err");
                c.close("}");
            }
            _ => c.try_call(&format!("{place}.readTable(v, {t})"), "err"),
        }
    }

    fn optional_table(&self, c: &mut Code, id: StructId, place: &str, at: &Here) {
        let offset = match at.ctx {
            Ctx::Table { off } => format!("{}.FieldUint32(t, {off})", c.r()),
            Ctx::Pos { .. } => format!("{}.Uint32({})", c.r(), Pos::parse(&at.pos).normal()),
        };
        let load = match &at.present {
            Some(cond) if matches!(at.ctx, Ctx::Pos { .. }) => {
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
        c.line(&format!("{place} = new({})", self.n.struct_name(id)));
        c.close("}");
        let r = c.r();
        c.try_call(&format!("{place}.readTable(v, {r}.Table(offset))"), "err");
        c.reopen("} else {");
        c.line(&format!("{place} = nil"));
        c.close("}");
    }

    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, place: &str, at: &Here) {
        let flag = format!("{}.Uint8({}) != 0", c.r(), at.pos);
        let cond = match &at.present {
            Some(p) => format!("{p} && {flag}"),
            None => flag,
        };
        c.open(&format!("if {cond} {{"));
        c.open(&format!("if {place} == nil {{"));
        c.line(&format!("{place} = new({})", self.value_type(value)));
        c.close("}");
        let inner = Ctx::Pos {
            pos: Pos::parse(&at.pos).add(value_at).compact(),
            present: None,
        };
        read_slot(self, c, value, &format!("(*{place})"), &inner, None);
        c.reopen("} else {");
        c.line(&format!("{place} = nil"));
        c.close("}");
    }

    fn union(&self, c: &mut Code, id: UnionId, place: &str, at: &Here) {
        let call = format!(
            "readUnion{}(v, {}, {}, {})",
            self.n.union_name(id),
            addr(place),
            at.pos,
            Pos::parse(&at.pos).add(UNION_OFFSET_AT).compact()
        );
        guarded(
            c,
            at,
            |c| c.try_call(&call, "err"),
            &format!("{place} = nil"),
        );
    }

    fn fixed(&self, c: &mut Code, elem: FixedElem, len: u32, stride: u32, place: &str, at: &Here) {
        let epos = Pos::parse(&at.pos).plus("uint32(j)", stride);
        let zero = format!("{place} = [{len}]{}{{}}", self.fixed_elem_type(&elem));
        let read = |c: &mut Code| {
            c.open(&format!("for j := range {place} {{"));
            match elem {
                FixedElem::Scalar(p) => {
                    let r = c.r();
                    c.line(&format!("{place}[j] = {r}.{}({})", wire(p), epos.normal()))
                }
                FixedElem::Enum { id, repr } => {
                    let r = c.r();
                    c.line(&format!(
                        "{place}[j] = {}({r}.{}({}))",
                        self.n.enum_name(id),
                        wire(repr),
                        epos.normal()
                    ))
                }
                FixedElem::InlineStruct(_) => {
                    c.try_call(&format!("{place}[j].readAt(v, {})", epos.compact()), "err")
                }
            }
            c.close("}");
        };
        guarded(c, at, read, &zero);
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        place: &str,
        at: &Here,
    ) {
        // An absent array (past `used`, or a column the directory does not
        // list) is empty, or its default (text), and costs nothing
        // (format.md §10): its value is set without a charge.
        match (&at.present, at.default) {
            (Some(cond), _) => c.open(&format!("if {cond} {{")),
            (None, Some(_)) => c.open("if true {"),
            (None, None) => c.open("{"),
        }
        let load = array_ref(c.r(), at, es, limit);
        c.line(&format!("a := {load}"));
        read_array(self, c, array, data, place, "a");
        if let Some(d) = at.default {
            // Text with a default: read when present, else the default.
            let DefaultValue::Text(text) = d else {
                unreachable!("only text arrays declare a default")
            };
            c.reopen("} else {");
            c.line(&format!("{place} = {}", go_quote(text)));
        } else if at.present.is_some() {
            c.reopen("} else {");
            self.empty_array(c, array, place);
        }
        c.close("}");
    }

    // ---- array blocks: `a` is the reference, `place` reused ---------------

    fn text(&self, c: &mut Code, utf16: bool, charge: u32, place: &str, a: &str) {
        charge_each(c, a, charge);
        let r = c.r();
        if utf16 {
            c.line(&format!(
                "karmem.SetUTF16({}, karmem.Slice[uint16]({r}, {a}.Offset, {a}.Len))",
                addr(place)
            ));
        } else {
            c.line(&format!(
                "karmem.SetString({}, {r}.ArrayBytes({a}))",
                addr(place)
            ));
        }
    }

    fn plain(&self, c: &mut Code, elem: ElemType, _size: u32, charge: u32, place: &str, a: &str) {
        charge_each(c, a, charge);
        let r = c.r();
        match elem {
            ElemType::Scalar(Primitive::Bool) => c.line(&format!(
                "{place} = karmem.AppendBools({place}[:0], karmem.Slice[uint8]({r}, {a}.Offset, {a}.Len))"
            )),
            e => c.line(&format!(
                "{place} = append({place}[:0], karmem.Slice[{}]({r}, {a}.Offset, {a}.Len)...)",
                self.elem_type(e)
            )),
        }
    }

    // Each element is an array of its own, read like a field's.
    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        charge_each(c, a, charge);
        c.line(&format!("{place} = karmem.Resize({place}, int({a}.Len))"));
        c.open(&format!("for k := range {} {{", unparen(place)));
        c.line(&format!("row := &{place}[k]"));
        let r = c.r();
        c.line(&format!(
            "a := {r}.Array({a}.Offset+uint32(k)*{ARRAY_REF_SIZE}, {es}, {})",
            go_limit(limit)
        ));
        read_array(self, c, array, data, "(*row)", "a");
        c.close("}");
    }

    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        c: &mut Code,
        array: &ArrayType,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        _a: &str,
    ) {
        self.read_map(c, array, id, stride, charge, place);
    }

    // Elements of structs grow the slice one at a time, each built as it
    // is read, rather than `a.Len` zero values first: a zero value may hold
    // tables and fixed arrays (format.md §10).
    fn aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        charge: u32,
        place: &str,
        a: &str,
    ) {
        charge_each(c, a, charge);
        // A struct of numbers only is its Go memory: one copy where the
        // machine allows it (karmem.DecodePlain, RATIONALE R5.14).
        let plain = !self.l.inline_needs_validation(id);
        if plain {
            let (p, r) = (unparen(place), c.r());
            c.open(&format!(
                "if out, ok := karmem.DecodePlain({p}, {r}, {a}.Offset, {a}.Len, {stride}); ok {{"
            ));
            c.line(&format!("{p} = out"));
            c.reopen("} else {");
        }
        self.grow_each(c, place, id);
        c.try_call(
            &format!("{place}[k].readAt(v, {a}.Offset+uint32(k)*{stride})"),
            "err",
        );
        c.close("}");
        if plain {
            c.close("}");
        }
    }

    fn aos_table(&self, c: &mut Code, id: StructId, charge: u32, place: &str, a: &str) {
        charge_each(c, a, charge);
        self.grow_each(c, place, id);
        let r = c.r();
        c.try_call(
            &format!(
                "{place}[k].readTable(v, {r}.Table({r}.Uint32({a}.Offset+uint32(k)*{OFFSET_SIZE})))"
            ),
            "err",
        );
        c.close("}");
    }

    fn soa(&self, c: &mut Code, elem: StructId, place: &str, a: &str) {
        c.try_call(
            &format!(
                "readSoa{}(v, {a}, {})",
                self.n.struct_name(elem),
                addr(place)
            ),
            "err",
        );
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, charge: u32, place: &str, a: &str) {
        charge_each(c, a, charge);
        c.line(&format!("{place} = karmem.Resize({place}, int({a}.Len))"));
        c.open(&format!("for k := range {} {{", unparen(place)));
        c.line(&format!("at := {a}.Offset + uint32(k)*{UNION_SLOT_SIZE}"));
        c.try_call(
            &format!(
                "readUnion{}(v, &{place}[k], at, at+{UNION_OFFSET_AT})",
                self.n.union_name(id)
            ),
            "err",
        );
        c.close("}");
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, charge: u32, place: &str, a: &str) {
        let r = c.r();
        c.open(&format!(
            "if tags, offsets, ok := {r}.UnionColumns({a}, {tw}); ok {{"
        ));
        charge_each(c, a, charge);
        c.line(&format!("{place} = karmem.Resize({place}, int({a}.Len))"));
        c.open(&format!("for k := range {} {{", unparen(place)));
        c.try_call(
            &format!(
                "readUnion{}(v, &{place}[k], tags+{}, offsets+uint32(k)*{OFFSET_SIZE})",
                self.n.union_name(id),
                Pos::default().plus("uint32(k)", tw).compact()
            ),
            "err",
        );
        c.close("}");
        c.reopen("} else {");
        c.line(&format!("{place} = {place}[:0]"));
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, id: UnionId, soa: bool, place: &str, a: &str) {
        let f = if soa { "readBovos" } else { "readBovoa" };
        c.try_call(
            &format!("{f}{}(v, {a}, {})", self.n.union_name(id), addr(place)),
            "err",
        );
    }
}

/// The call loading (through `recv`: the reader, or the validator, which
/// also checks it) the array reference at `at`, checked against `es` bytes
/// per element and `limit`: a table's field through `FieldArray` (absent:
/// empty), any other position with `Array`.
pub(super) fn array_ref(recv: &str, at: &Here, es: u32, limit: Option<u32>) -> String {
    let limit = go_limit(limit);
    match at.ctx {
        Ctx::Table { off } => format!("{recv}.FieldArray(t, {off}, {es}, {limit})"),
        Ctx::Pos { .. } => format!("{recv}.Array({}, {es}, {limit})", at.pos),
    }
}

/// `then` when the slot is present; else, after charging what its zero
/// value holds (a field past its table's `used`, format.md §10),
/// `otherwise`.
fn guarded(c: &mut Code, at: &Here, then: impl FnOnce(&mut Code), otherwise: &str) {
    match &at.present {
        None => then(c),
        Some(cond) => {
            c.open(&format!("if {cond} {{"));
            then(c);
            c.reopen("} else {");
            if at.held > 0 {
                c.try_call(&format!("v.Charge({})", at.held), "err");
            }
            c.line(otherwise);
            c.close("}");
        }
    }
}

/// Charges `charge` units for each element of the array `a` (format.md
/// §10: the layout's answer, not this generator's).
fn charge_each(c: &mut Code, a: &str, charge: u32) {
    c.try_call(
        &format!("v.Charge({})", times(&format!("uint64({a}.Len)"), charge)),
        "err",
    );
}

/// Go prints the encoder's plan (crate::walk): each node below is one kind
/// of slot or array block, written at `pos` (format.md §8 order).
impl EncodePrinter for Gen<'_> {
    fn write_value(&self, c: &mut Code, slot: &Slot, value: &str, pos: &str) {
        match slot {
            Slot::Scalar(p) => c.line(&format!("w.Put{}({pos}, {})", wire(*p), unparen(value))),
            Slot::Enum { repr, .. } => c.line(&format!(
                "w.Put{}({pos}, {}({}))",
                wire(*repr),
                go_prim(*repr),
                unparen(value)
            )),
            _ => unreachable!("the walker hands numbers and enums only"),
        }
    }

    fn write_inline(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.try_call(&format!("{value}.writeAt(w, {pos})"), "err");
    }

    fn write_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.try_call(&format!("{value}.writeTable(w, {pos})"), "err");
    }

    // nil: offset 0 / presence byte 0, as the zeroed slot is.
    fn write_optional_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        c.open(&format!("if {value} != nil {{"));
        c.try_call(&format!("{value}.writeTable(w, {pos})"), "err");
        c.close("}");
    }

    fn write_optional(&self, c: &mut Code, value_at: u32, inner: &Slot, value: &str, pos: &str) {
        c.open(&format!("if {value} != nil {{"));
        c.line(&format!("w.PutUint8({pos}, 1)"));
        let at = Pos::parse(pos).add(value_at).compact();
        write_slot(self, c, inner, &format!("(*{value})"), &at);
        c.close("}");
    }

    fn write_union(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        c.try_call(
            &format!(
                "writeUnion{}(w, {value}, {pos}, {})",
                self.n.union_name(id),
                Pos::parse(pos).add(UNION_OFFSET_AT).compact()
            ),
            "err",
        );
    }

    fn write_fixed(
        &self,
        c: &mut Code,
        elem: FixedElem,
        _len: u32,
        stride: u32,
        value: &str,
        pos: &str,
    ) {
        let epos = Pos::parse(pos).plus("uint32(j)", stride).compact();
        c.open(&format!("for j := range {value} {{"));
        match elem {
            FixedElem::Scalar(p) => c.line(&format!("w.Put{}({epos}, {value}[j])", wire(p))),
            FixedElem::Enum { repr, .. } => c.line(&format!(
                "w.Put{}({epos}, {}({value}[j]))",
                wire(repr),
                go_prim(repr)
            )),
            FixedElem::InlineStruct(_) => {
                c.try_call(&format!("{value}[j].writeAt(w, {epos})"), "err")
            }
        }
        c.close("}");
    }

    fn write_array_ref(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        write_limit(c, array, value);
        write_array(self, c, array, data, value, pos);
    }

    fn write_text(&self, c: &mut Code, utf16: bool, value: &str, pos: &str) {
        let f = if utf16 { "WriteUTF16" } else { "WriteString" };
        c.try_call(&format!("w.{f}({pos}, {value})"), "err");
    }

    fn write_plain(&self, c: &mut Code, elem: ElemType, _size: u32, value: &str, pos: &str) {
        match elem {
            ElemType::Scalar(Primitive::Bool) => {
                c.try_call(&format!("w.WriteBools({pos}, {value})"), "err")
            }
            _ => c.try_call(&format!("karmem.WriteSlice(w, {pos}, {value})"), "err"),
        }
    }

    // The references first, then each element's data in index order
    // (format.md §8). `row` and `ref` are bound before the element's own
    // block shadows `block` and `k`.
    fn write_nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        value: &str,
        pos: &str,
    ) {
        self.write_block(c, value, pos, ARRAY_REF_SIZE, false, |c| {
            c.line(&format!(
                "row, ref := {value}[k], block+uint32(k)*{ARRAY_REF_SIZE}"
            ));
            write_limit(c, array, "row");
            write_array(self, c, array, data, "row", "ref");
        });
    }

    fn write_aos_inline(
        &self,
        c: &mut Code,
        id: StructId,
        stride: u32,
        map: bool,
        value: &str,
        pos: &str,
    ) {
        if map {
            return self.write_map(c, id, stride, value, pos);
        }
        let plain = !self.l.inline_needs_validation(id);
        self.write_block(c, value, pos, stride, plain, |c| {
            c.try_call(
                &format!("{value}[k].writeAt(w, block+uint32(k)*{stride})"),
                "err",
            )
        });
    }

    fn write_aos_table(&self, c: &mut Code, _id: StructId, value: &str, pos: &str) {
        self.write_block(c, value, pos, OFFSET_SIZE, false, |c| {
            c.try_call(
                &format!("{value}[k].writeTable(w, block+uint32(k)*{OFFSET_SIZE})"),
                "err",
            )
        });
    }

    fn write_soa(&self, c: &mut Code, elem: StructId, value: &str, pos: &str) {
        c.try_call(
            &format!("writeSoa{}(w, {pos}, {value})", self.n.struct_name(elem)),
            "err",
        );
    }

    fn write_union_aos(&self, c: &mut Code, id: UnionId, value: &str, pos: &str) {
        let u = self.n.union_name(id);
        self.write_block(c, value, pos, UNION_SLOT_SIZE, false, |c| {
            c.try_call(
                &format!(
                    "writeUnion{u}(w, {value}[k], block+uint32(k)*{UNION_SLOT_SIZE}, block+uint32(k)*{UNION_SLOT_SIZE}+{UNION_OFFSET_AT})"
                ),
                "err",
            )
        });
    }

    fn write_union_soa(&self, c: &mut Code, id: UnionId, tw: u32, value: &str, pos: &str) {
        let u = self.n.union_name(id);
        c.open("{");
        c.line(&format!("tags, err := w.AllocArray(len({value}), {tw})"));
        c.check_err("err");
        c.line(&format!(
            "offsets, err := w.AllocArray(len({value}), {OFFSET_SIZE})"
        ));
        c.check_err("err");
        c.open(&format!("for k := range {} {{", unparen(value)));
        c.try_call(
            &format!(
                "writeUnion{u}(w, {value}[k], tags+{}, offsets+uint32(k)*{OFFSET_SIZE})",
                Pos::default().plus("uint32(k)", tw).compact()
            ),
            "err",
        );
        c.close("}");
        c.line(&format!(
            "w.PutArrayRef({pos}, tags, uint32(len({value})), uint32(len({value})))"
        ));
        c.close("}");
    }

    fn write_bunch(&self, c: &mut Code, id: UnionId, soa: bool, value: &str, pos: &str) {
        let f = if soa { "writeBovos" } else { "writeBovoa" };
        c.try_call(
            &format!("{f}{}(w, {pos}, {value})", self.n.union_name(id)),
            "err",
        );
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

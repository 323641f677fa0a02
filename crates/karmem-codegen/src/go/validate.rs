//! One-pass validators (format.md §11): `Validate<Root>` per struct, and
//! the per-table, per-inline-struct, per-SoA and per-union checks they
//! call. The same rules and the same traversal-budget charges as the Rust
//! backend, so both languages accept exactly the same messages.

use karmem_layout::{
    ArrayData, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::{Code, Pos};
use super::object::negate;
use super::{go_limit, limit_of, Ctx, Gen};

impl Gen<'_> {
    /// `Trust<Name>` (trusted mode): validates as `Validate<Name>` does and
    /// returns the trusted reader with the trusted viewer of the root.
    pub(crate) fn trust_function(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        // A trusted image is the checked one under its trusted type.
        let root = if self.l.is_table(id) {
            format!("{view}{{t: root.t}}")
        } else {
            format!("{view}(root)")
        };
        self.c.line(&format!(
            "// Trust{name} validates a whole message whose root is a {name}, as"
        ));
        self.c.line(&format!(
            "// Validate{name} does, and returns it as a karmem.Trusted with the trusted"
        ));
        self.c
            .line("// viewer of its root, which read it without further checks.");
        self.c.open(&format!(
            "func Trust{name}(r *karmem.Reader) (karmem.Trusted, {view}, error) {{"
        ));
        self.c
            .line(&format!("t, root, err := karmem.Trust(r, Validate{name})"));
        self.c.line(&format!("return t, {root}, err"));
        self.c.close("}");
        self.c.line("");
    }

    pub(crate) fn validate_functions(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        self.c.line(&format!(
            "// Validate{name} checks a whole message whose root is a {name}, once"
        ));
        self.c
            .line("// (format.md §11), and returns the viewer of its root.");
        self.c.open(&format!(
            "func Validate{name}(r *karmem.Reader) ({view}, error) {{"
        ));
        self.c.try_call("r.Err()", &format!("{view}{{}}, err"));
        self.c.line("v := karmem.NewValidator(r)");
        if table {
            self.c.line(&format!("t, err := v.Root({name}FullSize)"));
            self.c.check_err(&format!("{view}{{}}, err"));
            self.c.try_call(
                &format!("validateTable{name}(&v, t)"),
                &format!("{view}{{}}, err"),
            );
            self.c.line(&format!("return {view}{{t: t}}, nil"));
        } else {
            let needed = 8 + sl.size as u64;
            self.c.open(&format!("if uint64(r.Size()) < {needed} {{"));
            self.c.line(&format!(
                "return {view}{{}}, karmem.ErrorAt(karmem.ErrTruncated, 0, {needed})"
            ));
            self.c.close("}");
            self.c.try_call(
                &format!("validateAt{name}(&v, karmem.HeaderSize)"),
                &format!("{view}{{}}, err"),
            );
            self.c.line(&format!(
                "return karmem.Image[{view}](r, karmem.HeaderSize), nil"
            ));
        }
        self.c.close("}");
        self.c.line("");

        let mut body = Code::new(1);
        for f in &sl.fields {
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
            self.validate_slot(&mut body, &f.slot, &ctx);
        }
        if table {
            self.c.open(&format!(
                "func validateTable{name}(v *karmem.Validator, t karmem.Table) error {{"
            ));
            self.c.try_call("v.Enter()", "err");
            if body.reads() {
                self.c.line("r := v.Reader()");
            }
            self.c.append(body);
            self.c.line("v.Leave()");
        } else {
            self.c.open(&format!(
                "func validateAt{name}(v *karmem.Validator, at uint32) error {{"
            ));
            if body.reads() {
                self.c.line("r := v.Reader()");
            }
            self.c.append(body);
        }
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("");
    }

    pub(crate) fn validate_slot(&self, c: &mut Code, slot: &Slot, ctx: &Ctx) {
        let size = self.l.slot_size(slot);
        let (pos, present): (Pos, Option<String>) = match ctx {
            Ctx::Table { t, off } => (
                Pos::of(&format!("{t}.Offset")).add(*off),
                Some(format!("{t}.Has({off}, {size})")),
            ),
            Ctx::Pos { pos, absent } => (pos.clone(), absent.as_ref().map(|a| negate(a))),
        };
        let pc = pos.compact();
        // A field past its table's `used` is charged what a decoder builds
        // for it beyond the table's bytes: the tables of its zero value
        // (format.md §10).
        let held = match ctx {
            Ctx::Table { .. } => self.l.absent_charge(slot),
            Ctx::Pos { .. } => 0,
        };
        // Runs `body` only when the slot is present, in a block either way
        // so that its locals never collide with the next slot's.
        let when = |c: &mut Code, body: &dyn Fn(&mut Code)| {
            match &present {
                Some(cond) => c.open(&format!("if {cond} {{")),
                None => c.open("{"),
            }
            body(c);
            if held > 0 && present.is_some() {
                c.close("} else {");
                c.indent += 1;
                c.try_call(&format!("v.Charge({held})"), "err");
            }
            c.close("}");
        };
        match self.l.slot_check(slot) {
            SlotCheck::Nothing => {}
            SlotCheck::Bool => when(c, &|c: &mut Code| {
                c.try_call(&format!("v.BoolAt({})", pos.normal()), "err")
            }),
            SlotCheck::Inline(id) => {
                let call = format!("validateAt{}(v, {pc})", self.n.struct_name(id));
                when(c, &|c: &mut Code| c.try_call(&call, "err"));
            }
            SlotCheck::Table(id) => {
                let name = self.n.struct_name(id);
                when(c, &|c: &mut Code| {
                    let r = c.r();
                    c.line(&format!(
                        "child, err := v.Table({r}.Uint32({}), {name}FullSize)",
                        pos.compact()
                    ));
                    c.check_err("err");
                    c.try_call(&format!("validateTable{name}(v, child)"), "err");
                });
            }
            SlotCheck::OptionalTable(id) => {
                let name = self.n.struct_name(id);
                when(c, &|c: &mut Code| {
                    let r = c.r();
                    c.open(&format!(
                        "if offset := {r}.Uint32({}); offset != 0 {{",
                        pos.normal()
                    ));
                    c.line(&format!("child, err := v.Table(offset, {name}FullSize)"));
                    c.check_err("err");
                    c.try_call(&format!("validateTable{name}(v, child)"), "err");
                    c.close("}");
                });
            }
            // The presence byte is 0 or 1 (format.md §4.2); the value is
            // checked only when there is one.
            SlotCheck::Optional { value_at, value } => when(c, &|c: &mut Code| {
                c.try_call(&format!("v.BoolAt({})", pos.normal()), "err");
                let mut inner = Code::new(c.indent + 1);
                let at = Ctx::Pos {
                    pos: pos.add(value_at),
                    absent: None,
                };
                self.validate_slot(&mut inner, value, &at);
                if !inner.out.is_empty() {
                    let r = c.r();
                    c.open(&format!("if {r}.Uint8({}) != 0 {{", pos.compact()));
                    c.append(inner);
                    c.close("}");
                }
            }),
            SlotCheck::Union(id) => {
                let call = format!(
                    "validateUnion{}(v, {pc}, {})",
                    self.n.union_name(id),
                    pos.add(UNION_OFFSET_AT).compact()
                );
                when(c, &|c: &mut Code| c.try_call(&call, "err"));
            }
            SlotCheck::Bools { len } => when(c, &|c: &mut Code| {
                c.try_call(&format!("v.Bools({pc}, {len})"), "err")
            }),
            SlotCheck::InlineEach { id, len, stride } => {
                let name = self.n.struct_name(id);
                when(c, &|c: &mut Code| {
                    c.open(&format!("for j := uint32(0); j < {len}; j++ {{"));
                    c.try_call(
                        &format!("validateAt{name}(v, {})", pos.plus("j", stride).compact()),
                        "err",
                    );
                    c.close("}");
                })
            }
            SlotCheck::Array {
                array,
                data,
                elem_size: es,
                limit,
            } => {
                let limit = go_limit(limit);
                let mut inner = Code::new(c.indent + 1);
                self.validate_array(&mut inner, array, data);
                let call = match ctx {
                    Ctx::Table { t, off } => format!("v.FieldArray({t}, {off}, {es}, {limit})"),
                    Ctx::Pos { .. } => format!("v.Array({pc}, {es}, {limit})"),
                };
                // A table's array field is checked through FieldArray (absent
                // is valid); a positioned one only when present.
                let cond = match ctx {
                    Ctx::Table { .. } => None,
                    Ctx::Pos { .. } => present.clone(),
                };
                match &cond {
                    Some(cond) => c.open(&format!("if {cond} {{")),
                    None => c.open("{"),
                }
                if inner.out.is_empty() {
                    c.try_discard(&call, "err");
                } else {
                    c.line(&format!("a, err := {call}"));
                    c.check_err("err");
                    c.append(inner);
                }
                c.close("}");
            }
        }
    }

    fn validate_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData) {
        match (array.text, data) {
            // Each element is an array reference, checked as a field's.
            (None, ArrayData::Arrays { array: inner, data }) => {
                let call = format!(
                    "v.Array(a.Offset+k*{ARRAY_REF_SIZE}, {}, {})",
                    data.elem_size(),
                    limit_of(inner)
                );
                let mut each = Code::new(c.indent + 1);
                self.validate_array(&mut each, inner, data);
                c.open("for k := uint32(0); k < a.Len; k++ {");
                if each.out.is_empty() {
                    c.try_discard(&call, "err");
                } else {
                    c.line(&format!("a, err := {call}"));
                    c.check_err("err");
                    c.append(each);
                }
                c.close("}");
            }
            (Some(Text::Utf8), _) => c.try_call("v.UTF8(a.Offset, a.Len)", "err"),
            (Some(Text::Utf16), _) => c.try_call("v.UTF16(a.Offset, a.Len)", "err"),
            (None, ArrayData::Plain { .. }) => {
                if array.elem == ElemType::Scalar(Primitive::Bool) {
                    c.try_call("v.Bools(a.Offset, a.Len)", "err");
                }
            }
            (None, ArrayData::UnionAos { id, .. }) => {
                c.open("for i := uint32(0); i < a.Len; i++ {");
                c.line(&format!("at := a.Offset + i*{UNION_SLOT_SIZE}"));
                c.try_call(
                    &format!(
                        "validateUnion{}(v, at, at+{UNION_OFFSET_AT})",
                        self.n.union_name(*id)
                    ),
                    "err",
                );
                c.close("}");
            }
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                c.line(&format!(
                    "tags, offsets, ok, err := v.UnionColumns(a, {tw})"
                ));
                c.check_err("err");
                c.open("if ok {");
                c.open("for i := uint32(0); i < a.Len; i++ {");
                c.try_call(
                    &format!(
                        "validateUnion{}(v, tags+{}, offsets+i*{OFFSET_SIZE})",
                        self.n.union_name(*id),
                        Pos::default().plus("i", tw).compact()
                    ),
                    "err",
                );
                c.close("}");
                c.close("}");
            }
            (None, ArrayData::UnionBunch { variants, .. }) => {
                let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
                c.line(&format!(
                    "entries, err := v.Bunch(a, []uint32{{{}}})",
                    tags.join(", ")
                ));
                c.check_err("err");
                c.open("for e := uint32(1); e <= entries; e++ {");
                c.line(&format!("entry := a.Offset + {BUNCH_ENTRY_SIZE}*e"));
                c.line("switch v.Reader().Uint32(entry) {");
                for bv in variants {
                    c.line(&format!("case {}:", bv.tag));
                    c.indent += 1;
                    let es = bv.data.elem_size();
                    let mut inner = Code::new(c.indent);
                    self.validate_struct_array(&mut inner, &bv.data);
                    if inner.out.is_empty() {
                        c.try_discard(
                            &format!("v.Array(entry+{BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.NoLimit)"),
                            "err",
                        );
                    } else {
                        c.line(&format!(
                            "a, err := v.Array(entry+{BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.NoLimit)"
                        ));
                        c.check_err("err");
                        c.append(inner);
                    }
                    c.indent -= 1;
                }
                c.line("}");
                c.close("}");
            }
            (None, ArrayData::AosInline { id, stride }) if array.is_map() => {
                self.validate_struct_array(c, data);
                // The look-up's binary search relies on the order.
                let key = &self.l.of_struct(*id).fields[0];
                let at = |i: &str| {
                    let pos = format!("a.Offset+{i}*{stride}");
                    if key.offset == 0 {
                        pos
                    } else {
                        format!("{pos}+{}", key.offset)
                    }
                };
                let r = c.r();
                let read = |i: &str| match &key.slot {
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => {
                        format!("{r}.{}({})", super::wire(*p), at(i))
                    }
                    // Text keys in byte order.
                    _ => format!(
                        "string({r}.ArrayBytes({r}.Array({}, 1, karmem.NoLimit)))",
                        at(i)
                    ),
                };
                c.open("for k := uint32(1); k < a.Len; k++ {");
                c.open(&format!("if {} >= {} {{", read("(k-1)"), read("k")));
                c.line("return karmem.ErrMalformedArray");
                c.close("}");
                c.close("}");
            }
            (None, data) => self.validate_struct_array(c, data),
        }
    }

    fn validate_struct_array(&self, c: &mut Code, data: &ArrayData) {
        match data {
            ArrayData::AosInline { id, stride } => {
                if self.l.inline_needs_validation(*id) {
                    c.open("for i := uint32(0); i < a.Len; i++ {");
                    c.try_call(
                        &format!(
                            "validateAt{}(v, a.Offset+{})",
                            self.n.struct_name(*id),
                            Pos::default().plus("i", *stride).compact()
                        ),
                        "err",
                    );
                    c.close("}");
                }
            }
            ArrayData::AosTable { id } => {
                c.open("for i := uint32(0); i < a.Len; i++ {");
                let name = self.n.struct_name(*id);
                c.line(&format!(
                    "child, err := v.Table(v.Reader().Uint32(a.Offset+i*{OFFSET_SIZE}), {name}FullSize)"
                ));
                c.check_err("err");
                c.try_call(&format!("validateTable{name}(v, child)"), "err");
                c.close("}");
            }
            ArrayData::Soa { elem } => c.try_call(
                &format!("validateSoa{}(v, a)", self.n.struct_name(*elem)),
                "err",
            ),
            _ => unreachable!("only struct arrays here"),
        }
    }

    /// `validateSoa<T>`: the directory, then one column at a time
    /// (format.md §11, RATIONALE R5.9): a column of array references
    /// with `ArrayColumn` (folded checks, one charge), then what they lead
    /// to — text with `UTF8Column`, SoA arrays of element types with
    /// nothing beyond their directory to check with `SoaColumn`, anything
    /// else element by element; other columns element by element.
    pub(crate) fn soa_validator(&mut self, id: StructId) {
        let name = self.n.struct_name(id);
        let soa = self.l.soa(id).clone();
        let n = soa.columns.len();
        let mut body = Code::new(1);
        for (k, col) in soa.columns.iter().enumerate() {
            self.validate_column(&mut body, k, col);
        }
        let mut c = Code::new(0);
        c.open(&format!(
            "func validateSoa{name}(v *karmem.Validator, a karmem.ArrayRef) error {{"
        ));
        c.line(&format!("var cols [{n}]uint32"));
        c.try_call(&format!("v.Soa(a, soaColumns{name}[:], cols[:])"), "err");
        // What a decoder builds for a column the directory does not list,
        // beyond its width: as `readSoa` charges it, per element of the
        // capacity (format.md §10).
        self.charge_unlisted(&mut c, &soa, "a.Cap");
        if !body.out.is_empty() {
            if body.reads() {
                c.line("r := v.Reader()");
            }
            c.line("n := a.Len");
            c.append(body);
        }
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }

    /// The checks of SoA column `k` for all `n` elements of an array
    /// (`cols[k]` is its offset, 0 when the writer did not write it).
    fn validate_column(&self, c: &mut Code, k: usize, col: &karmem_layout::Column) {
        let at = format!("cols[{k}]");
        let Slot::ArrayRef { array, data } = &col.slot else {
            // Bools, unions, fixed arrays of them: element by element.
            let ctx = Ctx::Pos {
                pos: Pos::of(&at).plus("i", col.size),
                absent: None,
            };
            // One level in: the slot's code is one `{ … }` block (its
            // locals scoped), which becomes the loop's body.
            let mut each = Code::new(c.indent + 1);
            self.validate_slot(&mut each, &col.slot, &ctx);
            if each.out.is_empty() {
                return;
            }
            let tabs = "\t".repeat(c.indent + 1);
            let (open, close) = (format!("{tabs}{{\n"), format!("{tabs}}}\n"));
            let inner = each
                .out
                .strip_prefix(&open)
                .and_then(|rest| rest.strip_suffix(&close))
                // No line back at the block's own level: one block.
                .filter(|inner| inner.lines().all(|l| l.starts_with(&format!("{tabs}\t"))));
            c.open(&format!("if {at} != 0 {{"));
            c.open("for i := uint32(0); i < n; i++ {");
            c.reads_as(&each);
            match inner {
                Some(inner) => c.out.push_str(inner),
                // Anything else, one tab further in.
                None => each.out.lines().for_each(|l| {
                    if !l.is_empty() {
                        c.out.push('\t');
                    }
                    c.out.push_str(l);
                    c.out.push('\n');
                }),
            }
            c.close("}");
            c.close("}");
            return;
        };
        c.open(&format!("if {at} != 0 {{"));
        c.try_call(
            &format!(
                "v.ArrayColumn({at}, n, {}, {})",
                data.elem_size(),
                limit_of(array)
            ),
            "err",
        );
        let mut each = Code::new(c.indent + 1);
        self.validate_array(&mut each, array, data);
        match data {
            _ if each.out.is_empty() => {}
            _ if array.text == Some(Text::Utf8) => {
                c.try_call(&format!("v.UTF8Column({at}, n)"), "err")
            }
            ArrayData::Soa { elem } if !self.l.soa_needs_validation(*elem) => c.try_call(
                &format!(
                    "v.SoaColumn({at}, n, soaColumns{}[:])",
                    self.n.struct_name(*elem)
                ),
                "err",
            ),
            _ => {
                c.open("for i := uint32(0); i < n; i++ {");
                c.line(&format!("a := v.ColumnRef({at}, i)"));
                c.append(each);
                c.close("}");
            }
        }
        c.close("}");
    }

    pub(crate) fn union_validator(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let mut c = Code::new(0);
        c.open(&format!(
            "func validateUnion{name}(v *karmem.Validator, tagAt, offsetAt uint32) error {{"
        ));
        c.line("r := v.Reader()");
        let load = if u.tag == Primitive::U32 {
            "r.Uint32(tagAt)".to_string()
        } else {
            format!("uint32(r.{}(tagAt))", super::wire(u.tag))
        };
        c.line(&format!("tag := {load}"));
        c.line("offset := r.Uint32(offsetAt)");
        c.line("switch tag {");
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            c.line(&format!("case {}:", v.tag));
            c.indent += 1;
            if self.l.is_table(v.ty) {
                c.open("if offset == 0 {");
                c.line("return karmem.InvalidUnion(tagAt, tag)");
                c.close("}");
                c.line(&format!("t, err := v.Table(offset, {ty}FullSize)"));
                c.check_err("err");
                c.line(&format!("return validateTable{ty}(v, t)"));
            } else {
                let size = self.l.of_struct(v.ty).size;
                c.open(&format!("if !r.InlineAt(offset, {size}) {{"));
                c.line("return karmem.InvalidUnion(tagAt, tag)");
                c.close("}");
                c.try_call(&format!("v.Charge({size})"), "err");
                c.line(&format!("return validateAt{ty}(v, offset)"));
            }
            c.indent -= 1;
        }
        c.line("}");
        c.line("// 0 is \"no value\"; unknown tags come from newer writers and are");
        c.line("// never dereferenced (viewers report them through Tag).");
        c.line("return nil");
        c.close("}");
        c.line("");
        self.c.append(c);
    }
}

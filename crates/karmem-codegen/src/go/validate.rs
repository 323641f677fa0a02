//! One-pass validators (format.md §11): `Validate<Root>` per struct, and
//! the per-table, per-inline-struct, per-SoA and per-union checks they
//! call. The same rules and the same traversal-budget charges as the Rust
//! backend, so both languages accept exactly the same messages.

use karmem_layout::{
    ArrayCheck, ArrayData, BunchVariant, Slot, SlotCheck, ARRAY_REF_SIZE, BUNCH_ENTRY_ARRAY_AT,
    BUNCH_ENTRY_SIZE, OFFSET_SIZE, UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::code::{Code, Pos};
use super::object::array_ref;
use super::{go_limit, Gen};
use crate::walk::{
    validate_array, validate_array_of, validate_slot, Ctx, Here, SlotPrinter, ValidatePrinter,
};

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
        for f in &self.l.struct_plan(self.s, id).fields {
            validate_slot(self, &mut body, f.slot, &self.field_ctx(f.access));
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
}

/// Go prints the validator's plan (crate::walk): each node below is one
/// kind of check.
impl ValidatePrinter for Gen<'_> {
    fn bool(&self, c: &mut Code, at: &Here) {
        let pos = Pos::parse(&at.pos).normal();
        when(c, at, |c| c.try_call(&format!("v.BoolAt({pos})"), "err"));
    }

    fn inline(&self, c: &mut Code, id: StructId, at: &Here) {
        let call = format!("validateAt{}(v, {})", self.n.struct_name(id), at.pos);
        when(c, at, |c| c.try_call(&call, "err"));
    }

    fn table(&self, c: &mut Code, id: StructId, at: &Here) {
        let name = self.n.struct_name(id);
        when(c, at, |c| {
            let r = c.r();
            c.line(&format!(
                "child, err := v.Table({r}.Uint32({}), {name}FullSize)",
                at.pos
            ));
            c.check_err("err");
            c.try_call(&format!("validateTable{name}(v, child)"), "err");
        });
    }

    fn optional_table(&self, c: &mut Code, id: StructId, at: &Here) {
        let name = self.n.struct_name(id);
        let pos = Pos::parse(&at.pos).normal();
        when(c, at, |c| {
            let r = c.r();
            c.open(&format!("if offset := {r}.Uint32({pos}); offset != 0 {{"));
            c.line(&format!("child, err := v.Table(offset, {name}FullSize)"));
            c.check_err("err");
            c.try_call(&format!("validateTable{name}(v, child)"), "err");
            c.close("}");
        });
    }

    // The presence byte is 0 or 1 (format.md §4.2); the value is checked
    // only when there is one.
    fn optional(&self, c: &mut Code, value_at: u32, value: &Slot, checked: bool, at: &Here) {
        let pos = Pos::parse(&at.pos);
        when(c, at, |c| {
            c.try_call(&format!("v.BoolAt({})", pos.normal()), "err");
            if checked {
                let r = c.r();
                c.open(&format!("if {r}.Uint8({}) != 0 {{", at.pos));
                let inner = Ctx::Pos {
                    pos: pos.add(value_at).compact(),
                    present: None,
                };
                validate_slot(self, c, value, &inner);
                c.close("}");
            }
        });
    }

    fn union(&self, c: &mut Code, id: UnionId, at: &Here) {
        let call = format!(
            "validateUnion{}(v, {}, {})",
            self.n.union_name(id),
            at.pos,
            Pos::parse(&at.pos).add(UNION_OFFSET_AT).compact()
        );
        when(c, at, |c| c.try_call(&call, "err"));
    }

    fn bools(&self, c: &mut Code, len: u32, at: &Here) {
        when(c, at, |c| {
            c.try_call(&format!("v.Bools({}, {len})", at.pos), "err")
        });
    }

    fn inline_each(&self, c: &mut Code, id: StructId, len: u32, stride: u32, at: &Here) {
        let name = self.n.struct_name(id);
        let each = Pos::parse(&at.pos).plus("j", stride).compact();
        when(c, at, |c| {
            c.open(&format!("for j := uint32(0); j < {len}; j++ {{"));
            c.try_call(&format!("validateAt{name}(v, {each})"), "err");
            c.close("}");
        });
    }

    fn array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        each: bool,
        at: &Here,
    ) {
        let call = array_ref("v", at, es, limit);
        // A table's array field is checked through FieldArray (absent is
        // valid); a positioned one only when present.
        match (at.ctx, &at.present) {
            (Ctx::Pos { .. }, Some(cond)) => c.open(&format!("if {cond} {{")),
            _ => c.open("{"),
        }
        checked_ref(c, &call, each, |c| {
            validate_array(self, c, array, data, "a")
        });
        c.close("}");
    }

    // Each element is an array reference, checked as a field's.
    fn nested(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        es: u32,
        limit: Option<u32>,
        each: bool,
        a: &str,
    ) {
        let call = format!(
            "v.Array({a}.Offset+k*{ARRAY_REF_SIZE}, {es}, {})",
            go_limit(limit)
        );
        c.open(&format!("for k := uint32(0); k < {a}.Len; k++ {{"));
        checked_ref(c, &call, each, |c| {
            validate_array(self, c, array, data, "a")
        });
        c.close("}");
    }

    fn text(&self, c: &mut Code, utf16: bool, a: &str) {
        let f = if utf16 { "UTF16" } else { "UTF8" };
        c.try_call(&format!("v.{f}({a}.Offset, {a}.Len)"), "err");
    }

    fn bool_block(&self, c: &mut Code, a: &str) {
        c.try_call(&format!("v.Bools({a}.Offset, {a}.Len)"), "err");
    }

    fn union_aos(&self, c: &mut Code, id: UnionId, a: &str) {
        c.open(&format!("for i := uint32(0); i < {a}.Len; i++ {{"));
        c.line(&format!("at := {a}.Offset + i*{UNION_SLOT_SIZE}"));
        c.try_call(
            &format!(
                "validateUnion{}(v, at, at+{UNION_OFFSET_AT})",
                self.n.union_name(id)
            ),
            "err",
        );
        c.close("}");
    }

    fn union_soa(&self, c: &mut Code, id: UnionId, tw: u32, a: &str) {
        c.line(&format!(
            "tags, offsets, ok, err := v.UnionColumns({a}, {tw})"
        ));
        c.check_err("err");
        c.open("if ok {");
        c.open(&format!("for i := uint32(0); i < {a}.Len; i++ {{"));
        c.try_call(
            &format!(
                "validateUnion{}(v, tags+{}, offsets+i*{OFFSET_SIZE})",
                self.n.union_name(id),
                Pos::default().plus("i", tw).compact()
            ),
            "err",
        );
        c.close("}");
        c.close("}");
    }

    fn bunch(&self, c: &mut Code, _id: UnionId, variants: &[BunchVariant], a: &str) {
        let tags: Vec<String> = variants.iter().map(|bv| bv.tag.to_string()).collect();
        c.line(&format!(
            "entries, err := v.Bunch({a}, []uint32{{{}}})",
            tags.join(", ")
        ));
        c.check_err("err");
        c.open("for e := uint32(1); e <= entries; e++ {");
        c.line(&format!("entry := {a}.Offset + {BUNCH_ENTRY_SIZE}*e"));
        c.line("switch v.Reader().Uint32(entry) {");
        for bv in variants {
            c.line(&format!("case {}:", bv.tag));
            c.indent += 1;
            let es = bv.data.elem_size();
            let check = self.l.struct_array_check(&bv.data);
            let call = format!("v.Array(entry+{BUNCH_ENTRY_ARRAY_AT}, {es}, karmem.NoLimit)");
            checked_ref(c, &call, !check.is_nothing(), |c| {
                validate_array_of(self, c, check, "a")
            });
            c.indent -= 1;
        }
        c.line("}");
        c.close("}");
    }

    fn map(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        ValidatePrinter::aos_inline(self, c, id, stride, each, a);
        // The look-up's binary search relies on the order.
        let key = &self.l.of_struct(id).fields[0];
        let at = |i: &str| {
            let pos = format!("{a}.Offset+{i}*{stride}");
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
        c.open(&format!("for k := uint32(1); k < {a}.Len; k++ {{"));
        c.open(&format!("if {} >= {} {{", read("(k-1)"), read("k")));
        c.line("return karmem.ErrMalformedArray");
        c.close("}");
        c.close("}");
    }

    fn aos_inline(&self, c: &mut Code, id: StructId, stride: u32, each: bool, a: &str) {
        if each {
            c.open(&format!("for i := uint32(0); i < {a}.Len; i++ {{"));
            c.try_call(
                &format!(
                    "validateAt{}(v, {a}.Offset+{})",
                    self.n.struct_name(id),
                    Pos::default().plus("i", stride).compact()
                ),
                "err",
            );
            c.close("}");
        }
    }

    fn aos_table(&self, c: &mut Code, id: StructId, a: &str) {
        c.open(&format!("for i := uint32(0); i < {a}.Len; i++ {{"));
        let name = self.n.struct_name(id);
        c.line(&format!(
            "child, err := v.Table(v.Reader().Uint32({a}.Offset+i*{OFFSET_SIZE}), {name}FullSize)"
        ));
        c.check_err("err");
        c.try_call(&format!("validateTable{name}(v, child)"), "err");
        c.close("}");
    }

    fn soa(&self, c: &mut Code, elem: StructId, a: &str) {
        c.try_call(
            &format!("validateSoa{}(v, {a})", self.n.struct_name(elem)),
            "err",
        );
    }
}

/// Runs `body` only when the slot is present, in a block either way so
/// that its locals never collide with the next slot's. A field past its
/// table's `used` is charged what a decoder builds for it beyond the
/// table's bytes: the tables of its zero value (format.md §10).
fn when(c: &mut Code, at: &Here, body: impl FnOnce(&mut Code)) {
    match &at.present {
        Some(cond) => c.open(&format!("if {cond} {{")),
        None => c.open("{"),
    }
    body(c);
    if at.held > 0 && at.present.is_some() {
        c.reopen("} else {");
        c.try_call(&format!("v.Charge({})", at.held), "err");
    }
    c.close("}");
}

/// An array reference checked by `call`; when `each` (its block has
/// checks: the plan's answer), loaded as `a` for `block` to check.
fn checked_ref(c: &mut Code, call: &str, each: bool, block: impl FnOnce(&mut Code)) {
    if each {
        c.line(&format!("a, err := {call}"));
        c.check_err("err");
        block(c);
    } else {
        c.try_discard(call, "err");
    }
}

impl Gen<'_> {
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
        self.charge_unlisted(&mut c, id, "a.Cap");
        if self.l.soa_needs_validation(id) {
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
        let slot_check = self.l.slot_check(&col.slot);
        let SlotCheck::Array {
            array,
            data,
            elem_size,
            limit,
        } = slot_check
        else {
            // Bools, unions, fixed arrays of them: element by element.
            if slot_check == SlotCheck::Nothing {
                return;
            }
            let ctx = Ctx::Pos {
                pos: Pos::of(&at).plus("i", col.size).compact(),
                present: None,
            };
            // One level in: the slot's code is one `{ … }` block (its
            // locals scoped), which becomes the loop's body.
            let mut each = Code::new(c.indent + 1);
            validate_slot(self, &mut each, &col.slot, &ctx);
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
            &format!("v.ArrayColumn({at}, n, {elem_size}, {})", go_limit(limit)),
            "err",
        );
        let check = self.l.array_check(array, data);
        match check {
            _ if check.is_nothing() => {}
            ArrayCheck::Text { utf16: false } => {
                c.try_call(&format!("v.UTF8Column({at}, n)"), "err")
            }
            ArrayCheck::Soa { elem } if !self.l.soa_needs_validation(elem) => c.try_call(
                &format!(
                    "v.SoaColumn({at}, n, soaColumns{}[:])",
                    self.n.struct_name(elem)
                ),
                "err",
            ),
            _ => {
                c.open("for i := uint32(0); i < n; i++ {");
                c.line(&format!("a := v.ColumnRef({at}, i)"));
                validate_array_of(self, c, check, "a");
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

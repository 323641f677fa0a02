//! The in-place setters of the checked viewers through the vectors
//! (docs/assemblyscript.md, "Editing in place"; format.md §12): per root
//! table, `edits{T}(p, n, strict)` sets each settable field of the root
//! and of the tables its fields hold (`setF`, `setFLen`, `editF`) in a
//! copy of the message, one at a time.
//!
//! Strict (a valid vector, or an evolution reader of one): a field the
//! message holds takes its new value, the checked viewer over the editor
//! prints exactly the decoded object with that one field changed, and the
//! message still validates; a field it does not hold (a newer reader's)
//! and a length past the capacity or limit are refused with the bytes
//! unchanged. Not strict (a hostile or damaged message): every setter
//! runs, and a refusal leaves the bytes unchanged; none may trap.

use std::fmt::Write as _;

use karmem_codegen::assemblyscript::{enum_is_native, field_name, prim, type_name};
use karmem_layout::{ArrayData, Slot};
use karmem_schema::model::*;

use crate::Module;

/// `setF`'s `F`: the getter's name, first letter capitalised.
fn suffix(field: &str) -> String {
    let g = field_name(field);
    let g = g.trim_start_matches('_');
    let mut cs = g.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().chain(cs).collect(),
        None => g.to_string(),
    }
}

/// The type a setter takes for element or field type `e`, and `old`
/// changed into another value of it.
fn bumped(m: &Module, e: ElemType, old: &str) -> (String, String) {
    match e {
        ElemType::Scalar(Primitive::Bool) => ("bool".into(), format!("!{old}")),
        ElemType::Scalar(p) => (prim(p).into(), format!("<{}>({old} + 1)", prim(p))),
        ElemType::Enum(id) => {
            let en = &m.schema.enums[id];
            let w = prim(en.repr);
            if enum_is_native(en.repr) {
                let t = format!("{}_{}", m.alias, type_name(&en.name));
                let v = format!("<{t}>(<{w}>(<{w}>{old} + 1))");
                (t, v)
            } else {
                (w.into(), format!("<{w}>({old} + 1)"))
            }
        }
        _ => unreachable!("setters take numbers, bools and enums"),
    }
}

/// The checks of the fields of root `id` of `m` whose JSON printers are
/// `print` (objects) and `vprint` (viewers): the function `edits{ty}`.
pub(crate) fn edits_fn(m: &Module, id: StructId, ty: &str, print: &str, vprint: &str) -> String {
    let mut f = format!(
        r#"
function edits{ty}(p: usize, n: usize, strict: bool): string {{
  const buf = new ArrayBuffer(<i32>n);
  const q = changetype<usize>(buf);
  const e = new Editor();
  const want = new {ty}();
  let k: KarmemError;
  let wt = "";
  const valid = {ty}.validate(p, n) == KarmemError.None;
  if (strict && {ty}.read(p, n, want) != KarmemError.None) return "read refuses";
"#
    );
    if m.layout.is_table(id) {
        let c = Ctx {
            m,
            ty,
            print,
            vprint,
        };
        c.fields(&mut f, id, "", 0);
    }
    f.push_str("  return \"ok\";\n}\n");
    f
}

/// What every field's check needs: the module, the root's driver name
/// and its printers (objects, viewers).
struct Ctx<'a> {
    m: &'a Module,
    ty: &'a str,
    print: &'a str,
    vprint: &'a str,
}

/// The bytes unchanged after a refusal `k`.
fn unchanged(what: &str) -> String {
    format!("    if (memory.compare(q, p, n) != 0) return \"{what}: refused ({{}}) but bytes changed\".replace(\"{{}}\", errorName(k));\n")
}

impl Ctx<'_> {
    /// A fresh copy of the message in `q`, opened, and `want` read anew.
    fn fresh(&self, f: &mut String) {
        let ty = self.ty;
        f.push_str(&format!(
            "  memory.copy(q, p, n);\n  if (e.open(q, n) != KarmemError.None) return \"ok\";\n  if (strict) {ty}.read(p, n, want);\n"
        ));
    }

    /// What the root's viewer over the editor prints, against `want`
    /// (strict only), and the message still valid.
    fn same(&self, what: &str) -> String {
        let (ty, print, vprint) = (self.ty, self.print, self.vprint);
        format!(
            "  if (strict) {{\n    const vo = new Array<string>(0);\n    {vprint}<Validator>(vo, r);\n    const wo = new Array<string>(0);\n    {print}(wo, want);\n    wt = wo.join(\"\");\n    if (vo.join(\"\") != wt) return \"{what}: the viewer prints \" + vo.join(\"\") + \", want \" + wt;\n    if (valid && {ty}.validate(q, n) != KarmemError.None) return \"{what}: the message no longer validates\";\n  }}\n"
        )
    }

    /// The checks of the settable fields of table `id`, the view `r{path}`
    /// of the root view `r` and the object `want{path}`.
    fn fields(&self, f: &mut String, id: StructId, path: &str, depth: u32) {
        let m = self.m;
        let st = &m.schema.structs[id];
        let sl = m.layout.of_struct(id);
        for (fl, field) in sl.fields.iter().zip(&st.fields) {
            let g = field_name(&field.name);
            let name = suffix(&field.name);
            let end = fl.offset + m.layout.slot_size(&fl.slot);
            let what = format!("{}.{}", st.name, field.name);
            let ty = self.ty;
            match &fl.slot {
                Slot::Scalar(_) | Slot::Enum { .. } => {
                    let elem = match field.ty {
                        FieldType::Scalar(p) => ElemType::Scalar(p),
                        FieldType::Enum(e) => ElemType::Enum(e),
                        _ => unreachable!("a scalar slot"),
                    };
                    self.fresh(f);
                    let (_, x) = bumped(self.m, elem, &format!("v.{g}"));
                    write!(
                        f,
                        "  {{\n    const r = {ty}.viewOf<Validator>(e);\n    const v = r{path};\n    const held = v._kmTo != 0 && <u64>v._kmTu >= {end};\n    const x = {x};\n    k = v.set{name}(e, x);\n    if (!held || !strict) {{\n      if (strict && k != KarmemError.MalformedTable) return \"{what}: absent, set gives \" + errorName(k);\n      if (k != KarmemError.None) {{\n{}      }}\n    }} else {{\n      if (k != KarmemError.None) return \"{what}: \" + errorName(k);\n      if (v.{g} != x && x == x) return \"{what}: does not read back\";\n      want{path}.{g} = x;\n{}    }}\n  }}\n",
                        unchanged(&what).replace("\n    ", "\n        ").replacen("    ", "        ", 1),
                        self.same(&what).replace("\n  ", "\n      ").replacen("  ", "      ", 1),
                    )
                    .unwrap();
                }
                Slot::ArrayRef {
                    array,
                    data: ArrayData::Plain { .. },
                } if array.text.is_none() && !array.is_map() => {
                    let (t, x) = bumped(self.m, array.elem, "el[0]");
                    let zero = if t == "bool" {
                        "false".to_string()
                    } else {
                        format!("<{t}>0")
                    };
                    self.fresh(f);
                    write!(
                        f,
                        "  {{\n    const r = {ty}.viewOf<Validator>(e);\n    const v = r{path};\n    const held = v._kmTo != 0 && <u64>v._kmTu >= {end};\n    const len = <u32>v.{g}.length;\n    k = v.set{name}Len(e, 0xFFFFFFFF);\n    if (k == KarmemError.None) return \"{what}: a length past the capacity is accepted\";\n{}    if (!held && strict) {{\n      if (k != KarmemError.MalformedTable) return \"{what}: absent, setLen gives \" + errorName(k);\n    }} else if (!strict) {{\n      v.set{name}Len(e, len >> 1);\n      const el = v.edit{name}(e);\n      if (el !== null && el.length > 0) el.set(0, {x});\n    }} else if (len > 0) {{\n      k = v.set{name}Len(e, len - 1);\n      if (k != KarmemError.None) return \"{what}: setLen(len - 1) gives \" + errorName(k);\n      k = v.set{name}Len(e, len);\n      if (k != KarmemError.None) return \"{what}: setLen(len) gives \" + errorName(k);\n      // The last element was dropped, then exposed again as zero.\n      want{path}.{g}[len - 1] = {zero};\n      const el = v.edit{name}(e);\n      if (el === null) return \"{what}: edit refused: \" + errorName(e.fault);\n      const x = {x};\n      if (el.set(0, x) != KarmemError.None || (el[0] != x && x == x)) return \"{what}: element 0 does not read back\";\n      if (el.set(el.length, x) == KarmemError.None) return \"{what}: an element past the length is written\";\n      want{path}.{g}[0] = x;\n{}    }}\n  }}\n",
                        unchanged(&what),
                        self.same(&what).replace("\n  ", "\n      ").replacen("  ", "      ", 1),
                    )
                    .unwrap();
                }
                // A table's own fields, one level down (a cycle of tables
                // would not end).
                Slot::TableRef(child) if depth == 0 => {
                    self.fields(f, *child, &format!("{path}.{g}"), depth + 1);
                }
                _ => {}
            }
        }
    }
}

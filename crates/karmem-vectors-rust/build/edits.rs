//! The in-place edits of every table type of one generated module, printed
//! as `impl Edits` (src/edits.rs): every field `{T}Edit` sets (which ones,
//! and the methods' names, come from `karmem_codegen::rust::api`, the
//! generator's own), reached from the root through nested tables' editors.

use std::fmt::Write as _;

use karmem_codegen::names::{Namer, RUST};
use karmem_codegen::rust::api::{self, Setter};
use karmem_layout::Layout;
use karmem_schema::model::*;

/// How deep nested tables are followed (a table cannot hold itself but
/// through an optional field or an array, which are not followed).
const MAX_DEPTH: usize = 8;

pub struct Printer<'a> {
    s: &'a Schema,
    l: &'a Layout,
    n: Namer<'a>,
    m: String,
}

/// A settable field: the fields from the root to it, each a `(struct,
/// field)`; all but the last are nested tables.
type Path = Vec<(StructId, usize)>;

impl<'a> Printer<'a> {
    pub fn new(s: &'a Schema, l: &'a Layout, module: &str) -> Self {
        Printer {
            s,
            l,
            n: Namer::new(&RUST, s),
            m: format!("crate::{module}"),
        }
    }

    pub fn impls(&self) -> String {
        let m = &self.m;
        let mut out = String::new();
        for id in 0..self.s.enums.len() {
            let e = self.n.enum_name(id);
            let _ = writeln!(
                out,
                "impl Bump for {m}::{e} {{\n    fn bump(self) -> Self {{\n        {m}::{e}(self.0.bump())\n    }}\n}}\n"
            );
        }
        for id in 0..self.s.structs.len() {
            let ty = format!("{m}::{}", self.n.struct_name(id));
            let mut paths = Vec::new();
            if self.l.is_table(id) {
                self.walk(id, &mut Vec::new(), &mut paths);
            }
            let (mut edits, mut absent, mut hostile) =
                (String::new(), String::new(), String::new());
            for p in &paths {
                edits.push_str(&self.edit(p));
                absent.push_str(&self.absent(p));
                hostile.push_str(&self.hostile(p));
            }
            let _ = writeln!(
                out,
                "impl Edits for {ty} {{\n    fn edits(&self, bytes: &[u8]) -> Result<usize, String> {{\n        let mut n = 0;\n{edits}        let _ = bytes;\n        Ok(n)\n    }}\n    fn edits_absent(bytes: &[u8]) -> Result<usize, String> {{\n        let mut n = 0;\n{absent}        let _ = bytes;\n        Ok(n)\n    }}\n    fn edits_hostile(bytes: &[u8]) {{\n{hostile}        let _ = bytes;\n    }}\n}}\n"
            );
        }
        out
    }

    /// Collect the settable fields under table `id` (reached by `prefix`).
    fn walk(&self, id: StructId, prefix: &mut Path, out: &mut Vec<Path>) {
        for i in 0..self.s.structs[id].fields.len() {
            prefix.push((id, i));
            match api::setter(self.s, self.l, id, i) {
                Some(Setter::Table(child)) if prefix.len() < MAX_DEPTH => {
                    self.walk(child, prefix, out)
                }
                Some(Setter::Table(_)) | None => {}
                Some(_) => out.push(prefix.clone()),
            }
            prefix.pop();
        }
    }

    /// `let mut e = …;` down to the editor of the table holding the last
    /// field of `p`.
    fn chain(&self, p: &Path) -> String {
        let (root, _) = p[0];
        let mut s = format!(
            "let mut e = {}::{}Edit::root(&mut m);",
            self.m,
            self.n.struct_name(root)
        );
        for &(id, i) in &p[..p.len() - 1] {
            let _ = write!(
                s,
                " let mut e = e.{}();",
                api::edit_method(self.s, id, i, "edit", "")
            );
        }
        s
    }

    /// Run `body` (an expression over editor `e`) on a fresh editor of `buf`.
    fn with_e(&self, p: &Path, body: &str) -> String {
        format!(
            "{{ let mut m = open(&mut buf)?; {} {body} }}",
            self.chain(p)
        )
    }

    /// The object's field: `want.a.b`.
    fn object(&self, p: &Path) -> String {
        let mut s = "want".to_string();
        for &(id, i) in p {
            let _ = write!(s, ".{}", self.n.field(id, i));
        }
        s
    }

    fn what(&self, p: &Path) -> String {
        let names: Vec<&str> = p
            .iter()
            .map(|&(id, i)| self.s.structs[id].fields[i].name.as_str())
            .collect();
        names.join(".")
    }

    fn names(&self, p: &Path) -> (String, String, String, String, Setter) {
        let &(id, i) = p.last().unwrap();
        (
            api::field_accessor(self.s, id, i),
            api::edit_method(self.s, id, i, "set", ""),
            api::edit_method(self.s, id, i, "edit", ""),
            api::edit_method(self.s, id, i, "set", "_len"),
            api::setter(self.s, self.l, id, i).unwrap(),
        )
    }

    /// Set the field on a copy of the vector's message, and the object's.
    fn edit(&self, p: &Path) -> String {
        let (acc, set, edit, len, setter) = self.names(p);
        let (what, obj) = (self.what(p), self.object(p));
        let mut b = String::from("        {\n            let mut buf = copy(bytes);\n            let mut want = self.clone();\n");
        let mut line = |l: String| {
            let _ = writeln!(b, "            {l}");
        };
        match setter {
            Setter::Scalar { .. } => {
                line(format!(
                    "let (x, got) = {};",
                    self.with_e(
                        p,
                        &format!("let x = e.view().{acc}().bump(); ok({what:?}, e.{set}(x))?; (x, e.view().{acc}())")
                    )
                ));
                line(format!("read_back({what:?}, got, x)?;"));
                line(format!("{obj} = x;"));
                line(format!("same_bytes({what:?}, &want, &buf)?;"));
            }
            Setter::Plain { .. } => {
                // A bool array's elements are bytes: 0 and 1 swap.
                let flip = if matches!(self.elem_of(p), Some(ElemType::Scalar(Primitive::Bool))) {
                    "*x ^= 1"
                } else {
                    "*x = x.bump()"
                };
                line(format!(
                    "let len = {};",
                    self.with_e(
                        p,
                        &format!("let s = e.{edit}(); if let Some(x) = s.first_mut() {{ {flip}; }} s.len()")
                    )
                ));
                line(format!(
                    "if let Some(x) = {obj}.first_mut() {{ *x = x.bump(); }}"
                ));
                line(format!("read_back(\"{what} length\", len, {obj}.len())?;"));
                line(format!("same_bytes(\"{what}[0]\", &want, &buf)?;"));
                line("let before = buf.as_slice().to_vec();".into());
                line(format!(
                    "let r = {};",
                    self.with_e(p, &format!("e.{len}(len as u32 + 1)"))
                ));
                line(format!(
                    "refused(\"{what} past its capacity\", r, &before, &buf)?;"
                ));
                line("if len > 0 {".into());
                line(format!(
                    "    ok(\"{what} shorter\", {})?;",
                    self.with_e(p, &format!("e.{len}(len as u32 - 1)"))
                ));
                line(format!("    {obj}.pop();"));
                line(format!("    same_view(\"{what} shorter\", &want, &buf)?;"));
                line(format!(
                    "    ok(\"{what} longer\", {})?;",
                    self.with_e(p, &format!("e.{len}(len as u32)"))
                ));
                line(format!("    {obj}.push(Default::default());"));
                line(format!(
                    "    same_bytes(\"{what} longer (zeros)\", &want, &buf)?;"
                ));
                line("}".into());
            }
            Setter::Text { .. } => {
                line(format!(
                    "let old = {};",
                    self.with_e(p, &format!("e.view().{acc}().to_string()"))
                ));
                line("let before = buf.as_slice().to_vec();".into());
                line(format!(
                    "let r = {};",
                    self.with_e(p, &format!("e.{set}(&format!(\"{{old}}x\"))"))
                ));
                line(format!(
                    "refused(\"{what} past its capacity\", r, &before, &buf)?;"
                ));
                line("let short = shorter(&old);".into());
                line(format!(
                    "let got = {};",
                    self.with_e(
                        p,
                        &format!("ok(\"{what} shorter\", e.{set}(&short))?; e.view().{acc}().to_string()")
                    )
                ));
                line(format!("read_back({what:?}, got, short.clone())?;"));
                line(format!("{obj} = short;"));
                line(format!("same_view(\"{what} shorter\", &want, &buf)?;"));
                line("let full = \"x\".repeat(old.len());".into());
                line(format!(
                    "ok(\"{what} rewritten\", {})?;",
                    self.with_e(p, &format!("e.{set}(&full)"))
                ));
                line(format!("{obj} = full;"));
                line(format!("same_bytes(\"{what} rewritten\", &want, &buf)?;"));
            }
            Setter::Table(_) => unreachable!("nested tables are followed"),
        }
        b.push_str("            n += 1;\n        }\n");
        b
    }

    /// An older writer's message: a field past its table's end (or under
    /// an absent table) cannot be set.
    fn absent(&self, p: &Path) -> String {
        let (_, set, edit, len, setter) = self.names(p);
        let &(id, i) = p.last().unwrap();
        let f = &self.l.of_struct(id).fields[i];
        let size = self.l.slot_size(&f.slot);
        let what = self.what(p);
        let tries = match setter {
            Setter::Scalar { .. } => format!("e.{set}(Default::default())"),
            Setter::Plain { .. } => format!(
                "if !e.{edit}().is_empty() {{ return Err(\"{what}: elements of an absent field\".into()); }} e.{len}(0)"
            ),
            Setter::Text { .. } => format!("e.{set}(\"\")"),
            Setter::Table(_) => unreachable!("nested tables are followed"),
        };
        format!(
            "        {{\n            let mut buf = copy(bytes);\n            let present = {};\n            if !present {{\n                let r = {};\n                refused(\"{what} (absent)\", r, bytes, &buf)?;\n                n += 1;\n            }}\n        }}\n",
            self.with_e(p, &format!("e.table().has({}, {size})", f.offset)),
            self.with_e(p, &tries)
        )
    }

    /// Every setter on a hostile message, results ignored.
    fn hostile(&self, p: &Path) -> String {
        let (_, set, edit, len, setter) = self.names(p);
        let tries = match setter {
            Setter::Scalar { .. } => format!("let _ = e.{set}(Default::default());"),
            Setter::Plain { .. } => format!(
                "if let Some(x) = e.{edit}().last_mut() {{ *x = Default::default(); }} let _ = e.{len}(1); let _ = e.{len}(0);"
            ),
            Setter::Text { .. } => format!("let _ = e.{set}(\"x\"); let _ = e.{set}(\"\");"),
            Setter::Table(_) => unreachable!("nested tables are followed"),
        };
        format!(
            "        {{\n            let mut buf = copy(bytes);\n            if let Ok(mut m) = karmem::ReaderMut::new(buf.as_mut_slice()) {{\n                {} {tries}\n            }}\n        }}\n",
            self.chain(p)
        )
    }

    /// The element type of the array at the end of `p`.
    fn elem_of(&self, p: &Path) -> Option<ElemType> {
        let &(id, i) = p.last().unwrap();
        match &self.s.structs[id].fields[i].ty {
            FieldType::Array(a) => Some(a.elem),
            _ => None,
        }
    }
}

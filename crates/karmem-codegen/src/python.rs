//! Python backend: generates, per schema, one module (`{package}.py`) that
//! imports the runtime package `karmem` (`python/`, docs/python.md) and
//! declares
//!
//! * enums as classes of `int` constants with their `NAMES`: an enum field
//!   holds an `int`, so a value unknown to the schema version is kept
//!   (format.md §2);
//! * one `@dataclasses.dataclass(slots=True)` per schema struct with
//!   `encode` (a whole message, byte for byte what the other libraries
//!   write, format.md §8), `decode` (lenient, the traversal budget and
//!   depth enforced as the other decoders do, format.md §10) and
//!   `validate` (one pass, format.md §11);
//! * unions as type aliases of their variants' classes (`None`: no value);
//! * `KARMEM_STRUCTS`, `KARMEM_ENUMS`, `KARMEM_UNIONS`: what each type is
//!   in the JSON conventions of the vectors (testdata/vectors/README.md),
//!   for tools that convert values.
//!
//! Every function body is printed from the layout plan by the shared
//! walker (crate::walk): this module says only how a node reads in Python.
//! The text is `ruff format`-clean by construction (four spaces, double
//! quotes, lines kept short by breaking the long ones the generator
//! knows) and passes `mypy --strict`.

mod decode;
mod edit;
mod encode;
mod validate;
mod views;
mod wrap;

use std::cell::Cell;

use karmem_layout::Layout;
use karmem_schema::model::*;

use crate::emit::Lines;
use crate::names::{self, Namer};
use crate::{Backend, Error, GeneratedFile};

/// The Python generator.
#[derive(Clone, Debug, Default)]
pub struct PythonBackend;

impl Backend for PythonBackend {
    fn name(&self) -> &'static str {
        "python"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        if let Some(clash) = Namer::new(&names::PYTHON, schema).clash() {
            return Err(Error(format!("python: {clash}")));
        }
        let mut g = Gen::new(schema, layout);
        if let Some(clash) = g.view_clash().or_else(|| g.setter_clash()) {
            return Err(Error(format!("python: {clash}")));
        }
        g.file();
        Ok(vec![GeneratedFile {
            path: format!("{}.py", module_name(schema)),
            contents: wrap::wrap(&g.c.out),
        }])
    }
}

/// The module's name: the schema's package as a lower-case identifier.
pub fn module_name(schema: &Schema) -> String {
    names::module_ident(&schema.package, names::PYTHON_KEYWORDS)
}

/// The `struct` format character of a scalar.
pub(crate) fn code(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "B",
        Primitive::U16 => "H",
        Primitive::U32 => "I",
        Primitive::U64 => "Q",
        Primitive::I8 => "b",
        Primitive::I16 => "h",
        Primitive::I32 => "i",
        Primitive::I64 => "q",
        Primitive::F32 => "f",
        Primitive::F64 => "d",
        Primitive::Bool => "?",
    }
}

/// The runtime's reader and writer method of a scalar (`r.u16(pos)`).
pub(crate) fn prim(p: Primitive) -> &'static str {
    p.name()
}

/// The Python type of a scalar.
pub(crate) fn py_scalar(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "bool",
        Primitive::F32 | Primitive::F64 => "float",
        _ => "int",
    }
}

/// `x + k` (`x` when k is 0; `t.offset + 8` for `t.offset + 4` and 4:
/// a constant added last is folded).
pub(crate) fn plus(x: &str, k: u32) -> String {
    if k == 0 {
        return x.to_string();
    }
    if let Some((head, last)) = x.rsplit_once(" + ") {
        if let Ok(n) = last.parse::<u64>() {
            return format!("{head} + {}", n + k as u64);
        }
    }
    format!("{x} + {k}")
}

/// `base + i * k`: element `i` of `k`-byte elements.
pub(crate) fn elem_at(base: &str, i: &str, k: u32) -> String {
    if k == 1 {
        format!("{base} + {i}")
    } else {
        format!("{base} + {i} * {k}")
    }
}

/// `n * k` units of the traversal budget.
pub(crate) fn times(n: &str, k: u64) -> String {
    if k == 1 {
        n.to_string()
    } else {
        format!("{n} * {k}")
    }
}

/// The limit argument of an array check.
pub(crate) fn limit_arg(limit: Option<u32>) -> String {
    limit.map_or("karmem.NO_LIMIT".into(), |n| n.to_string())
}

/// A Python string literal of `text` (double quotes, as `ruff format`
/// writes them).
pub fn quote(text: &str) -> String {
    // Single quotes when they spare escapes, as `ruff format` prefers.
    let q = if text.contains('"') && !text.contains('\'') {
        '\''
    } else {
        '"'
    };
    let mut out = String::from(q);
    for ch in text.chars() {
        match ch {
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// A `u32` in hexadecimal, upper-case digits (as `ruff format` writes
/// them).
pub(crate) fn hex(v: u32) -> String {
    format!("0x{v:X}")
}

pub(crate) struct Gen<'a> {
    pub s: &'a Schema,
    pub l: &'a Layout,
    pub n: Namer<'a>,
    pub c: Lines,
    counter: Cell<u32>,
}

/// A buffer of Python lines (four spaces).
pub(crate) fn lines(indent: usize) -> Lines {
    Lines::new("    ", indent)
}

impl<'a> Gen<'a> {
    fn new(s: &'a Schema, l: &'a Layout) -> Self {
        Gen {
            s,
            l,
            n: Namer::new(&names::PYTHON, s),
            c: lines(0),
            counter: Cell::new(0),
        }
    }

    /// A schema type named like the view class the generator gives
    /// another (`MonsterView` beside `Monster`).
    fn view_clash(&self) -> Option<String> {
        let s = self.s;
        let mut types: Vec<String> = (0..s.structs.len()).map(|i| self.struct_name(i)).collect();
        types.extend((0..s.enums.len()).map(|i| self.n.enum_name(i)));
        types.extend((0..s.unions.len()).map(|i| self.n.union_name(i)));
        let made = (0..s.structs.len())
            .flat_map(|i| {
                let n = self.struct_name(i);
                [format!("{n}View"), format!("{n}Soa"), format!("{n}SoaItem")]
            })
            .chain((0..s.unions.len()).map(|i| format!("{}View", self.n.union_name(i))));
        for m in made {
            if types.contains(&m) {
                return Some(format!(
                    "the type `{m}` has the name of a generated view class"
                ));
            }
        }
        None
    }

    /// A local name not used before in this file (`a_3`).
    pub fn fresh(&self, base: &str) -> String {
        let n = self.counter.get();
        self.counter.set(n + 1);
        format!("{base}_{n}")
    }

    pub fn struct_name(&self, id: StructId) -> String {
        self.n.struct_name(id)
    }

    /// The alias of a union's values, `None` included (`Shape | None`).
    pub fn union_type(&self, id: UnionId) -> String {
        format!("{} | None", self.n.union_name(id))
    }

    // ---- Python types of object fields ----------------------------------------

    pub fn elem_type(&self, e: ElemType) -> String {
        match e {
            ElemType::Scalar(p) => py_scalar(p).into(),
            ElemType::Enum(_) => "int".into(),
            ElemType::Struct(id) => self.struct_name(id),
            ElemType::Union(id) => self.union_type(id),
            ElemType::Array(id) => self.obj_type(&FieldType::Array(self.s.arrays[id])),
        }
    }

    pub fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => py_scalar(*p).into(),
            FieldType::Enum(_) => "int".into(),
            FieldType::Struct(id) => self.struct_name(*id),
            FieldType::Union(id) => self.union_type(*id),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(_), _) => format!("list[{}]", self.elem_type(a.elem)),
                (_, Some(_)) => "str".into(),
                _ if a.is_map() => {
                    let ElemType::Struct(entry) = a.elem else {
                        unreachable!("a map's elements are its entries")
                    };
                    let f = &self.s.structs[entry].fields;
                    format!(
                        "dict[{}, {}]",
                        self.obj_type(&f[0].ty),
                        self.obj_type(&f[1].ty)
                    )
                }
                _ => format!("list[{}]", self.elem_type(a.elem)),
            },
        }
    }

    pub fn field_type(&self, f: &Field) -> String {
        let t = self.obj_type(&f.ty);
        if f.optional {
            format!("{t} | None")
        } else {
            t
        }
    }

    /// The zero value of a type, as an expression (a new object each time).
    pub fn zero_of(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(Primitive::Bool) => "False".into(),
            FieldType::Scalar(Primitive::F32 | Primitive::F64) => "0.0".into(),
            FieldType::Scalar(_) | FieldType::Enum(_) => "0".into(),
            FieldType::Struct(id) => format!("{}()", self.struct_name(*id)),
            FieldType::Union(_) => "None".into(),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(n), _) => {
                    let e = match a.elem {
                        ElemType::Scalar(p) => {
                            return format!("[{}] * {n}", self.zero_of(&FieldType::Scalar(p)))
                        }
                        ElemType::Enum(_) => return format!("[0] * {n}"),
                        other => self.zero_of(&elem_field_type(self.s, other)),
                    };
                    format!("[{e} for _ in range({n})]")
                }
                (_, Some(_)) => "\"\"".into(),
                _ if a.is_map() => "{}".into(),
                _ => "[]".into(),
            },
        }
    }

    /// A declared default (docs/idl.md §4.3.1) as a Python value.
    pub fn default_expr(&self, d: &DefaultValue) -> String {
        match d {
            DefaultValue::Int(v) => v.to_string(),
            DefaultValue::Enum { value, .. } => value.to_string(),
            DefaultValue::Float(v) if v.is_nan() => "float(\"nan\")".into(),
            DefaultValue::Float(v) if v.is_infinite() && *v > 0.0 => "float(\"inf\")".into(),
            DefaultValue::Float(v) if v.is_infinite() => "float(\"-inf\")".into(),
            DefaultValue::Float(v) => format!("{v:?}"),
            DefaultValue::Bool(true) => "True".into(),
            DefaultValue::Bool(false) => "False".into(),
            DefaultValue::Text(t) => quote(t),
        }
    }

    /// The class attribute line's value: a literal, or a factory for a
    /// mutable value (`dataclasses.field(default_factory=...)`).
    fn field_default(&self, f: &Field) -> String {
        if f.optional {
            return "None".into();
        }
        if let Some(d) = f.nonzero_default() {
            return self.default_expr(d);
        }
        let zero = self.zero_of(&f.ty);
        match &f.ty {
            FieldType::Scalar(_) | FieldType::Enum(_) | FieldType::Union(_) => zero,
            FieldType::Array(a) if a.text.is_some() && !matches!(a.kind, ArrayKind::Fixed(_)) => {
                zero
            }
            FieldType::Array(a) if zero == "[]" && !a.is_map() => {
                "dataclasses.field(default_factory=list)".into()
            }
            FieldType::Array(_) if zero == "{}" => "dataclasses.field(default_factory=dict)".into(),
            _ => format!("dataclasses.field(default_factory=lambda: {zero})"),
        }
    }

    // ---- the file ---------------------------------------------------------------

    fn file(&mut self) {
        let header = crate::header("#", self.s);
        self.c.raw(&header);
        self.c.line(&format!(
            "\"\"\"Karmem types of the schema `{}` (docs/python.md).\"\"\"",
            self.s.package
        ));
        self.c.line("");
        self.c.line("from __future__ import annotations");
        self.c.line("");
        let structs = !self.s.structs.is_empty();
        if structs {
            self.c.line("import dataclasses");
        }
        if !self.s.unions.is_empty() || !self.s.enums.is_empty() || structs {
            self.c.line("import typing");
        }
        self.c.line("");
        self.c.line("import karmem");
        for item in self.s.order.clone() {
            match item {
                Item::Enum(id) => self.enum_item(id),
                Item::Struct(id) => self.struct_item(id),
                Item::Union(_) | Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for id in 0..self.s.structs.len() {
            self.struct_functions(id);
        }
        for id in 0..self.s.unions.len() {
            self.union_functions(id);
        }
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.soa_items(id);
            }
        }
        self.view_items();
        for (id, u) in self.s.unions.iter().enumerate() {
            let variants: Vec<String> = u.variants.iter().map(|v| self.struct_name(v.ty)).collect();
            self.c.line("");
            self.c.line("");
            self.c.line(&format!(
                "{}: typing.TypeAlias = {}",
                self.n.union_name(id),
                variants.join(" | ")
            ));
            self.c.line(&format!(
                "\"\"\"A value of the union `{}`; fields hold `{} | None` (None: no value,",
                u.name,
                self.n.union_name(id)
            ));
            self.c
                .line("or a tag this schema version does not know).\"\"\"");
        }
        if let Some(root) = self.s.root {
            let name = self.struct_name(root);
            if name != "Root" {
                self.c.line("");
                self.c.line("");
                self.c.line(&format!("Root = {name}"));
                self.c.line(&format!(
                    "\"\"\"The schema's root type (`root {};`).\"\"\"",
                    self.s.structs[root].name
                ));
            }
        }
        self.descriptors();
    }

    fn doc(&mut self, doc: &[String], extra: &str) {
        let mut lines: Vec<String> = doc.iter().map(|l| l.trim_end().to_string()).collect();
        if !extra.is_empty() {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(extra.to_string());
        }
        let lines: Vec<String> = lines
            .into_iter()
            .map(|l| l.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\""))
            .collect();
        match lines.len() {
            0 => {}
            1 => self.c.line(&format!("\"\"\"{}\"\"\"", lines[0])),
            _ => {
                self.c.line(&format!("\"\"\"{}", lines[0]));
                for l in &lines[1..] {
                    self.c.line(l);
                }
                self.c.line("\"\"\"");
            }
        }
    }

    fn enum_item(&mut self, id: EnumId) {
        let e = self.s.enums[id].clone();
        let name = self.n.enum_name(id);
        self.c.line("");
        self.c.line("");
        self.c.open(&format!("class {name}:"));
        self.doc(
            &e.doc,
            &format!(
                "The values of the enum `{}` ({}): an enum field holds an `int`, so values unknown to this schema version are kept (docs/format.md §2).",
                e.name,
                e.repr.name()
            ),
        );
        self.c.line("");
        for (i, v) in e.variants.iter().enumerate() {
            self.c.line(&format!(
                "{}: typing.Final = {}",
                self.n.value(id, i),
                v.value
            ));
        }
        let names: Vec<String> = e
            .variants
            .iter()
            .map(|v| format!("{}: {}", v.value, quote(&v.name)))
            .collect();
        let dict = format!("{{{}}}", names.join(", "));
        let line = format!("NAMES: typing.Final[dict[int, str]] = {dict}");
        if line.len() + 4 <= 88 {
            self.c.line(&line);
        } else {
            self.c.open("NAMES: typing.Final[dict[int, str]] = {");
            for n in &names {
                self.c.line(&format!("{n},"));
            }
            self.c.close("}");
        }
        self.c
            .line("\"\"\"The name of each value the schema declares.\"\"\"");
        self.c.indent -= 1;
    }

    fn struct_item(&mut self, id: StructId) {
        let st = self.s.structs[id].clone();
        let name = self.struct_name(id);
        let table = self.l.is_table(id);
        self.c.line("");
        self.c.line("");
        self.c.line("@dataclasses.dataclass(slots=True)");
        self.c.open(&format!("class {name}:"));
        let kind = if table {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.doc(&st.doc, &format!("The {kind} `{}`.", st.name));
        if !st.fields.is_empty() {
            self.c.line("");
        }
        for (i, f) in st.fields.iter().enumerate() {
            let line = format!(
                "{}: {} = {}",
                self.n.field(id, i),
                self.field_type(f),
                self.field_default(f)
            );
            self.long_line(&line);
            if !f.doc.is_empty() {
                self.doc(&f.doc, "");
            }
        }
        let sl = self.l.of_struct(id).clone();
        // encode
        self.c.line("");
        self.c
            .open("def encode(self, w: karmem.Writer | None = None) -> bytes:");
        self.c
            .line("\"\"\"Encodes this value as the root of a whole message (docs/format.md");
        self.c
            .line("§8); `w` is a writer to reuse (`karmem.Writer.fixed(buf)` writes into");
        self.c
            .line("`buf` and raises `karmem.Error(\"TooLarge\")` when it does not fit).\"\"\"");
        self.c.open("if w is None:");
        self.c.line("w = karmem.Writer()");
        self.c.indent -= 1;
        self.c.line("w.begin()");
        if table {
            self.c.line(&format!("_write_{name}(w, self, 0)"));
        } else {
            self.c.line(&format!("at = w.alloc({}, 8)", sl.size));
            self.c.line(&format!("_write_{name}(w, self, at)"));
        }
        self.c.line("w.finish()");
        self.c.line("return w.message()");
        self.c.indent -= 1;
        // decode, a new object decoded into (one printed reader)
        self.static_method(
            &format!(
                "def decode(data: karmem.Buffer, limits: karmem.Limits | None = None) -> {name}:"
            ),
            &[
                "\"\"\"Decodes a whole message whose root is this type. Malformed parts",
                "read as zero or empty; the traversal budget and the depth limit bound",
                "the work a hostile message can cause (docs/format.md §10).\"\"\"",
            ],
        );
        self.c.line(&format!("x = {name}()"));
        self.c.line(&format!("{name}.decode_into(data, x, limits)"));
        self.c.line("return x");
        self.c.indent -= 1;
        self.static_method(
            &format!(
                "def decode_into(data: karmem.Buffer, x: {name}, limits: karmem.Limits | None = None) -> None:"
            ),
            &[
                "\"\"\"Decodes as `decode` does, into `x`: its lists and nested objects",
                "are decoded over where the message has them, every other field is",
                "set to its default. On an error `x` holds part of the message.\"\"\"",
            ],
        );
        self.c
            .line("v = karmem.Validator(karmem.Reader(data, limits))");
        if table {
            self.c.line(&format!("_read_{name}(v, v.r.table(8), x)"));
        } else {
            let needed = 8 + sl.size as u64;
            self.c.open(&format!("if v.r.size < {needed}:"));
            // An inline root that does not fit reads as all zero (§1), its
            // zero value charged for the tables it holds (§10).
            if sl.zero > 0 {
                self.c.line(&format!("v.charge({})", sl.zero));
            }
            self.c.line(&format!("karmem.assign(x, {name}())"));
            self.c.line("return");
            self.c.indent -= 1;
            self.c.line(&format!("_read_{name}(v, 8, x)"));
        }
        self.c.indent -= 1;
        // view
        self.static_method(
            &format!(
                "def view(data: karmem.Buffer, limits: karmem.Limits | None = None) -> {name}View:"
            ),
            &[
                "\"\"\"A checked zero-copy view of a whole message whose root is this type:",
                "fields are read on access, from `data`, which must not change.\"\"\"",
            ],
        );
        self.c.line("r = karmem.Reader(data, limits)");
        if table {
            self.c.line(&format!("return {name}View(r, r.table(8))"));
        } else {
            let needed = 8 + sl.size as u64;
            self.c.open(&format!("if r.size < {needed}:"));
            self.c
                .line(&format!("return {name}View(karmem.EMPTY_READER, 0)"));
            self.c.indent -= 1;
            self.c.line(&format!("return {name}View(r, 8)"));
        }
        self.c.indent -= 1;
        // validate
        self.static_method(
            "def validate(data: karmem.Buffer, limits: karmem.Limits | None = None) -> None:",
            &[
                "\"\"\"Checks a whole message whose root is this type, in one pass",
                "(docs/format.md §11); raises `karmem.Error` at the first fault.\"\"\"",
            ],
        );
        self.validate_root(&name, table, sl.size);
        self.c.indent -= 1;
        // trust: validate, then the same view over a trusted reader
        self.static_method(
            &format!(
                "def trust(data: karmem.Buffer, limits: karmem.Limits | None = None) -> {name}View:"
            ),
            &[
                "\"\"\"Validates a whole message whose root is this type, as `validate`;",
                "then a view whose reads skip the checks validation made (over a",
                "`karmem.TrustedReader`): `data` must not change while it is in use.\"\"\"",
            ],
        );
        self.validate_root(&name, table, sl.size);
        self.c.line("r = v.r.trusted()");
        if table {
            self.c.line(&format!("return {name}View(r, r.table(8))"));
        } else {
            self.c.line(&format!("return {name}View(r, 8)"));
        }
        self.c.indent -= 1;
        self.c.indent -= 1;
    }

    /// A `@staticmethod` of a generated class: a blank line, the decorator,
    /// the signature and the docstring's lines; the body is the caller's,
    /// one level in (it closes it).
    fn static_method(&mut self, signature: &str, doc: &[&str]) {
        self.c.line("");
        self.c.line("@staticmethod");
        self.def_line(signature);
        self.c.indent += 1;
        for line in doc {
            self.c.line(line);
        }
    }

    /// The validation of a whole message whose root is `name` (a table or
    /// an inline struct of `size` bytes), in `v`: the body of `validate`,
    /// and the first part of `trust`.
    fn validate_root(&mut self, name: &str, table: bool, size: u32) {
        self.c
            .line("v = karmem.Validator(karmem.Reader(data, limits))");
        if table {
            self.c.line(&format!("_validate_{name}(v, v.root({size}))"));
        } else {
            let needed = 8 + size as u64;
            self.c.open(&format!("if v.r.size < {needed}:"));
            self.c
                .line(&format!("raise karmem.Error(\"Truncated\", 0, {needed})"));
            self.c.indent -= 1;
            self.c.line(&format!("_validate_{name}(v, 8)"));
        }
    }

    /// A line of a class body, broken after its `=` when longer than
    /// `ruff format` keeps on one line.
    fn long_line(&mut self, line: &str) {
        let width = 4 * self.c.indent + line.chars().count();
        if width <= 88 {
            self.c.line(line);
            return;
        }
        if let Some(k) = line.find("dataclasses.field(") {
            let head = &line[..k];
            let inner = &line[k + "dataclasses.field(".len()..line.len() - 1];
            self.c.open(&format!("{head}dataclasses.field("));
            self.c.line(inner);
            self.c.close(")");
        } else {
            self.c.line(line);
        }
    }

    /// A module-level function: two blank lines, the signature, the body.
    pub fn function(&mut self, signature: &str, body: Lines) {
        self.c.line("");
        self.c.line("");
        self.def_line(signature);
        self.c.raw(&body.out);
    }

    /// `def name(params) -> T:`, its parameters one a line when the
    /// signature is longer than a line (`ruff format`'s "magic trailing
    /// comma" style).
    fn def_line(&mut self, signature: &str) {
        if signature.chars().count() + 4 * self.c.indent <= 88 {
            self.c.line(signature);
            return;
        }
        let open = signature.find('(').expect("a def has parameters");
        let close = signature.rfind(") ->").expect("a def has a result");
        let head = &signature[..=open];
        let params = &signature[open + 1..close];
        let tail = &signature[close..];
        let one = format!("    {params}");
        if one.chars().count() + 4 * self.c.indent <= 88 {
            self.c.line(head);
            self.c.line(&one);
            self.c.line(tail);
            return;
        }
        self.c.open(head);
        for p in split_params(params) {
            self.c.line(&format!("{p},"));
        }
        self.c.close(tail);
    }

    fn struct_functions(&mut self, id: StructId) {
        self.encode_function(id);
        self.decode_function(id);
        self.validate_function(id);
    }

    fn union_functions(&mut self, id: UnionId) {
        self.union_writer(id);
        self.union_reader(id);
        self.union_validator(id);
    }

    fn soa_items(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let soa = self.l.soa(id).clone();
        self.c.line("");
        self.c.line("");
        let cols: Vec<String> = soa
            .columns
            .iter()
            .map(|c| format!("(0x{:08X}, {})", c.hash, c.size))
            .collect();
        let head = format!("_COLS_{name}: karmem.Columns = ");
        let one = match cols.len() {
            0 => format!("{head}()"),
            1 => format!("{head}({},)", cols[0]),
            _ => format!("{head}({})", cols.join(", ")),
        };
        if one.chars().count() <= 88 {
            self.c.line(&one);
        } else {
            self.c.open(&format!("{head}("));
            for c in &cols {
                self.c.line(&format!("{c},"));
            }
            self.c.close(")");
        }
        self.c.line(&format!(
            "\"\"\"Hash and size of each SoA column of `{name}`, in writing order (§5.3).\"\"\""
        ));
        self.soa_writer(id);
        self.soa_reader(id);
        self.soa_validator(id);
    }

    /// The Python place of leaf `k` of SoA element `base` (`e.data.name`).
    pub fn column_place(&self, base: &str, id: StructId, k: usize) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut place = base.to_string();
        for (s, i) in col.steps.iter().zip(&col.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
        }
        place
    }

    // ---- descriptors of the JSON conventions --------------------------------

    fn type_desc(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => format!("(\"{}\",)", p.name()),
            FieldType::Enum(id) => format!("(\"enum\", {})", quote(&self.s.enums[*id].name)),
            FieldType::Struct(id) => {
                format!("(\"struct\", {})", quote(&self.s.structs[*id].name))
            }
            FieldType::Union(id) => format!("(\"union\", {})", quote(&self.s.unions[*id].name)),
            FieldType::Array(a) => {
                let elem = self.type_desc(&elem_field_type(self.s, a.elem));
                match (a.kind, a.text) {
                    (ArrayKind::Fixed(n), _) => format!("(\"fixed\", {n}, {elem})"),
                    (_, Some(_)) => "(\"text\",)".into(),
                    _ if a.is_map() => {
                        let ElemType::Struct(entry) = a.elem else {
                            unreachable!("a map's elements are its entries")
                        };
                        let f = &self.s.structs[entry].fields;
                        format!(
                            "(\"map\", {}, {})",
                            self.type_desc(&f[0].ty),
                            self.type_desc(&f[1].ty)
                        )
                    }
                    _ => format!("(\"list\", {elem})"),
                }
            }
        }
    }

    /// A tuple element of a descriptor: `()` when empty, on one line when
    /// it has one element and fits (its comma is the tuple's, not one that
    /// keeps it expanded), else one element a line.
    fn tuple_lines(&mut self, items: &[String]) {
        let one = match items {
            [] => "(),".to_string(),
            [x] => format!("({x},),"),
            _ => String::new(),
        };
        if !one.is_empty() && 4 * self.c.indent + one.len() <= wrap::WIDTH {
            self.c.line(&one);
            return;
        }
        self.c.open("(");
        for x in items {
            self.c.line(&format!("{x},"));
        }
        self.c.close("),");
    }

    /// The descriptors, each collection one element a line with a
    /// trailing comma (which `ruff format` keeps expanded), an empty one
    /// as `{}` or `()`.
    fn descriptors(&mut self) {
        self.c.line("");
        self.c.line("");
        self.c
            .open("KARMEM_STRUCTS: typing.Final[dict[str, karmem.StructInfo]] = {");
        for (id, st) in self.s.structs.iter().enumerate() {
            let tuple = if st.tuple { "True" } else { "False" };
            self.c.open(&format!("{}: (", quote(&st.name)));
            self.c.line(&format!("{},", self.struct_name(id)));
            self.c.line(&format!("{tuple},"));
            let fields: Vec<String> = st
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let mut d = self.type_desc(&f.ty);
                    if f.optional {
                        d = format!("(\"optional\", {d})");
                    }
                    format!("({}, {}, {d})", quote(&f.name), quote(&self.n.field(id, i)))
                })
                .collect();
            self.tuple_lines(&fields);
            self.c.close("),");
        }
        self.c.close("}");
        self.c.line(
            "\"\"\"Each struct's class, tuple flag and fields (JSON name, attribute, type).\"\"\"",
        );
        self.c.line("");
        let head = "KARMEM_ENUMS: typing.Final[dict[str, dict[int, str]]] = {";
        if self.s.enums.is_empty() {
            self.c.line(&format!("{head}}}"));
        } else {
            self.c.open(head);
            for (id, e) in self.s.enums.iter().enumerate() {
                self.c.line(&format!(
                    "{}: {}.NAMES,",
                    quote(&e.name),
                    self.n.enum_name(id)
                ));
            }
            self.c.close("}");
        }
        self.c.line("");
        let head = "KARMEM_UNIONS: typing.Final[dict[str, tuple[tuple[int, str], ...]]] = {";
        if self.s.unions.is_empty() {
            self.c.line(&format!("{head}}}"));
        } else {
            self.c.open(head);
            for u in &self.s.unions {
                let vs: Vec<String> = u
                    .variants
                    .iter()
                    .map(|v| format!("({}, {})", v.tag, quote(&self.s.structs[v.ty].name)))
                    .collect();
                let one = format!("{}: ({},),", quote(&u.name), vs.join(", "));
                if vs.len() == 1 && 4 * self.c.indent + one.len() <= wrap::WIDTH {
                    self.c.line(&one);
                    continue;
                }
                self.c.open(&format!("{}: (", quote(&u.name)));
                for v in &vs {
                    self.c.line(&format!("{v},"));
                }
                self.c.close("),");
            }
            self.c.close("}");
        }
    }
}

/// An element type as the field type it would be.
pub(crate) fn elem_field_type(s: &Schema, e: ElemType) -> FieldType {
    match e {
        ElemType::Scalar(p) => FieldType::Scalar(p),
        ElemType::Enum(id) => FieldType::Enum(id),
        ElemType::Struct(id) => FieldType::Struct(id),
        ElemType::Union(id) => FieldType::Union(id),
        ElemType::Array(id) => FieldType::Array(s.arrays[id]),
    }
}

/// The parameters of a signature, split at the top-level commas.
fn split_params(params: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in params.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(source: &str) -> GeneratedFile {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let mut files = PythonBackend.generate(&schema, &layout).unwrap();
        files.remove(0)
    }

    #[test]
    fn names() {
        assert_eq!(names::PYTHON.fields.apply("ID"), "id");
        assert_eq!(names::PYTHON.fields.apply("class"), "class_");
        assert_eq!(names::PYTHON.fields.apply("List"), "list_");
        assert_eq!(names::PYTHON.fields.apply("encode"), "encode_");
        assert_eq!(names::PYTHON.types.apply("none"), "None_");
        assert_eq!(names::PYTHON.values.apply("TikTok"), "TIK_TOK");
    }

    #[test]
    fn a_field_named_like_a_setter_is_refused() {
        let src = "karmem v;\nstruct A table { Hp u8; SetHp u8; }\n";
        let (schema, layout) = karmem_layout::load("t.km", src).expect("valid schema");
        let err = PythonBackend.generate(&schema, &layout).unwrap_err();
        assert!(err.0.contains("set_hp"), "{err}");
        // Not a setter of a field that has none (a table has no setter).
        generate("karmem v;\nstruct B table { X u8; }\nstruct A table { B B; SetB u8; }\n");
    }

    #[test]
    fn a_type_named_like_a_view_class_is_refused() {
        let src = "karmem v;\nstruct A table { X u8; }\nstruct AView table { Y u8; }\n";
        let (schema, layout) = karmem_layout::load("t.km", src).expect("valid schema");
        let err = PythonBackend.generate(&schema, &layout).unwrap_err();
        assert!(err.0.contains("AView"), "{err}");
    }

    #[test]
    fn module_named_by_package_and_deterministic() {
        let src = "karmem app;\nstruct A table { X u8; }\n";
        let f = generate(src);
        assert_eq!(f.path, "app.py");
        assert!(f
            .contents
            .starts_with("# Code generated by karmem; DO NOT EDIT.\n"));
        assert!(f
            .contents
            .contains("@dataclasses.dataclass(slots=True)\nclass A:"));
        assert_eq!(f.contents, generate(src).contents);
    }
}

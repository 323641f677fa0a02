//! The golden-vector runner for the Zig backend (testdata/vectors/README.md,
//! "Plugging in a new language"). `tests/vectors.rs` drives it: it finds
//! the cases, runs the Zig generator as a library call over every schema of
//! the vectors, writes ONE driver program that imports all the generated
//! files and runs every case (one Zig compilation for the whole run: Zig
//! compiles slowly), then compares what the driver printed with the cases.
//!
//! The driver prints one line per result, `ID<TAB>KIND<TAB>TEXT`: `value`
//! (the decoded object as JSON in the vectors' conventions), `valid`,
//! `bytes` and `reuse` (the message encoded again, `ok` or the first
//! differing offset), `open` and `decode-error` (refusals).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use karmem_codegen::zig::{
    accessor_name, column_name, field_name, offset_name, setter_names, type_name,
    variant_accessor_name, variant_is_pointer, ZigBackend,
};
use karmem_codegen::Backend;
use karmem_layout::{ArrayData, FixedElem, Layout, Slot};
use karmem_schema::model::*;
use serde_json::Value;

pub use karmem_vectors::{load_all, Case};

fn sorted(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

/// One generated schema file in the driver's directory.
struct Module {
    /// `topic/file.km`.
    key: String,
    /// The import alias in the driver (`m3`).
    alias: String,
    schema: Schema,
    layout: Layout,
}

/// Generates every schema of `dir`'s topics into `out/gen/`, and
/// `out/driver.zig` running `cases` with one case's bytes per file in
/// `out/cases/` (embedded, so the driver reads no files).
pub fn write_driver(dir: &Path, cases: &[Case], out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    fs::create_dir_all(out.join("gen")).map_err(io)?;
    fs::create_dir_all(out.join("cases")).map_err(io)?;
    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    let mut driver = String::from(include_str!("prelude.zig"));
    for topic in sorted(dir)? {
        if !topic.is_dir() {
            continue;
        }
        let tname = topic.file_name().unwrap().to_string_lossy().to_string();
        for file in sorted(&topic)? {
            if file.extension().and_then(|e| e.to_str()) != Some("km") {
                continue;
            }
            let fname = file.file_name().unwrap().to_string_lossy().to_string();
            let key = format!("{tname}/{fname}");
            let source = fs::read_to_string(&file).map_err(io)?;
            let (schema, layout) =
                karmem_layout::load(&key, &source).map_err(|d| format!("{key}: {d:?}"))?;
            let files = ZigBackend
                .generate(&schema, &layout)
                .map_err(|e| format!("{key}: {e}"))?;
            let alias = format!("m{}", modules.len());
            let stem = fname.trim_end_matches(".km");
            let path = format!("gen/{tname}_{stem}.zig");
            fs::write(out.join(&path), &files[0].contents).map_err(io)?;
            writeln!(driver, "const {alias} = @import(\"{path}\");").unwrap();
            modules.insert(
                key.clone(),
                Module {
                    key,
                    alias,
                    schema,
                    layout,
                },
            );
        }
    }
    // JSON printers of every type of every schema (Zig analyses only the
    // ones the cases use).
    for m in modules.values() {
        driver.push_str(&Printer::new(m).all());
        driver.push_str(&ViewPrinter::new(m).all());
        driver.push_str(&edits(m));
    }
    // Zig analyses only what is used: every struct's API is referenced
    // here, and every declaration of its checked and trusted viewers, so
    // that all the generated code is compiled, not only what the cases'
    // roots reach.
    driver.push_str("\ncomptime {\n");
    for m in modules.values() {
        for u in &m.schema.unions {
            for name in [
                format!("{}View", type_name(&u.name)),
                format!("Trusted{}View", type_name(&u.name)),
            ] {
                writeln!(driver, "    refViews({}.{name});", m.alias).unwrap();
            }
        }
        for st in &m.schema.structs {
            for f in ["encode", "decode", "validate", "validateFault"] {
                writeln!(driver, "    _ = &{}.{}.{f};", m.alias, type_name(&st.name)).unwrap();
            }
            for v in ["View", "TrustedView"] {
                let name = match v {
                    "View" => format!("{}View", type_name(&st.name)),
                    _ => format!("Trusted{}View", type_name(&st.name)),
                };
                writeln!(driver, "    refViews({}.{name});", m.alias).unwrap();
            }
        }
    }
    driver.push_str("}\n");
    driver.push_str("\npub fn main() !void {\n");
    driver.push_str("    var gpa_state: std.heap.DebugAllocator(.{}) = .init;\n");
    driver.push_str("    defer _ = gpa_state.deinit();\n");
    driver.push_str("    const gpa = gpa_state.allocator();\n");
    for (i, case) in cases.iter().enumerate() {
        let bytes = case
            .bytes
            .as_ref()
            .ok_or(format!("{}: no .hex", case.id()))?;
        fs::write(out.join(format!("cases/{i}.bin")), bytes).map_err(io)?;
        let key = format!("{}/{}", case.topic, case.schema);
        let m = modules
            .get(&key)
            .ok_or(format!("{}: no schema {key}", case.id()))?;
        let (ty, print) = root_of(m, &case.root).ok_or(format!("{}: no root", case.id()))?;
        let bytes = format!("@embedFile(\"cases/{i}.bin\")");
        let edit = edit_of(m, &case.root);
        let strict = case.hostile.is_none();
        writeln!(
            driver,
            "    try runEdits(gpa, \"{i}\", {ty}, {edit}, {strict}, {bytes});"
        )
        .unwrap();
        if case.hostile.is_some() {
            writeln!(
                driver,
                "    try runRead(gpa, \"{i}\", {ty}, {print}, {bytes});"
            )
            .unwrap();
        } else {
            writeln!(
                driver,
                "    try runValue(gpa, \"{i}\", {ty}, {print}, {bytes});"
            )
            .unwrap();
        }
        for (reader, _) in &case.readers {
            let key = format!("{}/{reader}", case.topic);
            let m = modules
                .get(&key)
                .ok_or(format!("{}: no schema {key}", case.id()))?;
            let (ty, print) = root_of(m, &case.root).ok_or(format!("{}: no root", case.id()))?;
            writeln!(
                driver,
                "    try runRead(gpa, \"{i}:{reader}\", {ty}, {print}, {bytes});"
            )
            .unwrap();
            let edit = edit_of(m, &case.root);
            writeln!(
                driver,
                "    try runEdits(gpa, \"{i}:{reader}\", {ty}, {edit}, true, {bytes});"
            )
            .unwrap();
        }
    }
    // The encoder's one refusal no vector can show (vectors hold valid
    // messages): map entries out of key order, or a key twice.
    if let Some(m) = modules.get("maps/schema.km") {
        writeln!(
            driver,
            "    try checkMapOrder({}.Root, {}.RootAgesEntry, gpa);",
            m.alias, m.alias
        )
        .unwrap();
    }
    driver.push_str("    try reportColumns(gpa);\n");
    driver.push_str("}\n");
    fs::write(out.join("driver.zig"), driver).map_err(io)
}

/// The edit walk of root `root` in module `m`: `{alias}_x{id}` for a
/// table, `noEdits` for an inline struct.
fn edit_of(m: &Module, root: &str) -> String {
    match m.schema.struct_by_name(root) {
        Some(id) if m.layout.is_table(id) => format!("{}_x{id}", m.alias),
        _ => "noEdits".into(),
    }
}

/// How many elements of an AoS array of tables, and how deep, the edit
/// walk follows.
const EDIT_ELEMS: u32 = 3;
const EDIT_DEPTH: u32 = 3;

/// `{alias}_x{id}` for every table of module `m`: each settable field
/// (the generated setters': numbers, `bool`, enums, plain arrays of them)
/// through `editScalar`/`editArray` (src/prelude.zig), then the tables
/// it holds (fields, optional ones, the first elements of AoS arrays).
fn edits(m: &Module) -> String {
    let (a, s, l) = (&m.alias, &m.schema, &m.layout);
    let mut out = format!("\n// In-place edits of {}\n", m.key);
    for (id, st) in s.structs.iter().enumerate() {
        if !l.is_table(id) {
            continue;
        }
        let view = format!("{a}.{}View", type_name(&st.name));
        let mut body = String::new();
        let mut children = String::new();
        for (i, fl) in l.of_struct(id).fields.iter().enumerate() {
            let name = accessor_name(&st.fields[i].name);
            // `@field` takes the name unquoted (`@"f32"` is `f32`).
            let bare = name
                .strip_prefix("@\"")
                .and_then(|n| n.strip_suffix('"'))
                .unwrap_or(&name)
                .to_string();
            let [set, edit, set_len] = setter_names(s, id, i);
            let off = format!("{view}.{}", offset_name(s, id, i));
            match &fl.slot {
                Slot::Scalar(p) => writeln!(
                    body,
                    "    editScalar(run, v, \"{bare}\", \"{set}\", {off}, {});",
                    karmem_codegen::zig::prim(*p)
                )
                .unwrap(),
                Slot::Enum { id: e, .. } => writeln!(
                    body,
                    "    editScalar(run, v, \"{bare}\", \"{set}\", {off}, {a}.{});",
                    type_name(&s.enums[*e].name)
                )
                .unwrap(),
                Slot::ArrayRef {
                    array,
                    data: ArrayData::Plain { .. },
                } if array.text.is_none() => {
                    let (ty, is_bool) = match array.elem {
                        ElemType::Scalar(Primitive::Bool) => ("u8".to_string(), true),
                        ElemType::Scalar(p) => (karmem_codegen::zig::prim(p).to_string(), false),
                        ElemType::Enum(e) => (format!("{a}.{}", type_name(&s.enums[e].name)), false),
                        _ => continue,
                    };
                    let limit = array
                        .limit()
                        .map_or("karmem.no_limit".to_string(), |n| n.to_string());
                    writeln!(
                        body,
                        "    try editArray(run, v, \"{bare}\", \"{edit}\", \"{set_len}\", {off}, {ty}, {is_bool}, {limit});"
                    )
                    .unwrap();
                }
                Slot::TableRef(c) => {
                    writeln!(children, "    try {a}_x{c}(run, v.{name}(), depth + 1);").unwrap()
                }
                Slot::OptionalTable(c) => writeln!(
                    children,
                    "    if (v.{name}()) |o| try {a}_x{c}(run, o, depth + 1);"
                )
                .unwrap(),
                Slot::ArrayRef {
                    data: ArrayData::AosTable { id: c },
                    ..
                } => writeln!(
                    children,
                    "    {{\n        const elems = v.{name}();\n        var i: u32 = 0;\n        while (i < elems.len() and i < {EDIT_ELEMS}) : (i += 1) try {a}_x{c}(run, elems.at(i), depth + 1);\n    }}"
                )
                .unwrap(),
                _ => {}
            }
        }
        writeln!(
            out,
            "fn {a}_x{id}(run: *EditRun, v: {view}, depth: u32) anyerror!void {{"
        )
        .unwrap();
        if body.is_empty() && children.is_empty() {
            out.push_str("    _ = run;\n    _ = v;\n");
        }
        out.push_str(&body);
        if children.is_empty() {
            out.push_str("    _ = depth;\n");
        } else {
            writeln!(out, "    if (depth >= {EDIT_DEPTH}) return;").unwrap();
            out.push_str(&children);
        }
        out.push_str("}\n");
    }
    out
}

/// The Zig type of root `root` in module `m` and its printer; then its
/// checked viewer type and the JSON printer over its viewers.
fn root_of(m: &Module, root: &str) -> Option<(String, String)> {
    let id = m.schema.struct_by_name(root)?;
    Some((
        format!("{a}.{t}, {a}.{t}View", a = m.alias, t = type_name(root)),
        format!("{a}_s{id}, {a}_v{id}", a = m.alias),
    ))
}

/// JSON printers (in the vectors' conventions) of one module's types.
struct Printer<'a> {
    m: &'a Module,
    s: &'a Schema,
    n: Cell<usize>,
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module) -> Self {
        Printer {
            m,
            s: &m.schema,
            n: Cell::new(0),
        }
    }

    fn fresh(&self, base: &str) -> String {
        let n = self.n.get();
        self.n.set(n + 1);
        format!("{base}_{n}")
    }

    fn all(&self) -> String {
        let a = &self.m.alias;
        let mut out = format!("\n// JSON printers of {}\n", self.m.key);
        for (id, e) in self.s.enums.iter().enumerate() {
            writeln!(
                out,
                "fn {a}_e{id}(w: *std.Io.Writer, x: {a}.{}, key: bool) std.Io.Writer.Error!void {{",
                type_name(&e.name)
            )
            .unwrap();
            out.push_str("    switch (x) {\n");
            for v in &e.variants {
                writeln!(
                    out,
                    "        .{} => try w.writeAll(\"\\\"{}\\\"\"),",
                    karmem_codegen::zig::variant_name(&v.name),
                    v.name
                )
                .unwrap();
            }
            out.push_str("        else => if (key) try w.print(\"\\\"{d}\\\"\", .{@intFromEnum(x)}) else try w.print(\"{d}\", .{@intFromEnum(x)}),\n");
            out.push_str("    }\n}\n");
        }
        for (id, u) in self.s.unions.iter().enumerate() {
            writeln!(
                out,
                "fn {a}_u{id}(w: *std.Io.Writer, x: ?{a}.{}) std.Io.Writer.Error!void {{",
                type_name(&u.name)
            )
            .unwrap();
            out.push_str("    const u = x orelse return w.writeAll(\"null\");\n    switch (u) {\n");
            for v in &u.variants {
                let sname = &self.s.structs[v.ty].name;
                let cap = if variant_is_pointer(self.s, id, v.ty) {
                    "p"
                } else {
                    "*p"
                };
                writeln!(
                    out,
                    "        .{} => |{cap}| {{\n            try w.writeAll(\"{{\\\"{sname}\\\":\");\n            try {a}_s{}(w, p);\n            try w.writeAll(\"}}\");\n        }},",
                    karmem_codegen::zig::variant_name(sname),
                    v.ty
                )
                .unwrap();
            }
            out.push_str("    }\n}\n");
        }
        for (id, st) in self.s.structs.iter().enumerate() {
            writeln!(
                out,
                "fn {a}_s{id}(w: *std.Io.Writer, x: *const {a}.{}) std.Io.Writer.Error!void {{",
                type_name(&st.name)
            )
            .unwrap();
            let (open, close) = if st.tuple { ("[", "]") } else { ("{", "}") };
            if st.fields.is_empty() {
                out.push_str("    _ = x;\n");
            }
            writeln!(out, "    try w.writeAll(\"{open}\");").unwrap();
            for (i, f) in st.fields.iter().enumerate() {
                let comma = if i > 0 { "," } else { "" };
                if st.tuple {
                    if i > 0 {
                        out.push_str("    try w.writeAll(\",\");\n");
                    }
                } else {
                    writeln!(out, "    try w.writeAll(\"{comma}\\\"{}\\\":\");", f.name).unwrap();
                }
                let place = format!("x.{}", field_name(&f.name));
                if f.optional {
                    let o = self.fresh("o");
                    writeln!(out, "    if ({place}) |{o}| {{").unwrap();
                    let table = matches!(f.ty, FieldType::Struct(c) if self.s.structs[c].kind == StructKind::Table);
                    self.value(&mut out, 2, &f.ty, &o, table);
                    out.push_str("    } else try w.writeAll(\"null\");\n");
                } else {
                    self.value(&mut out, 1, &f.ty, &place, false);
                }
            }
            writeln!(out, "    try w.writeAll(\"{close}\");\n}}").unwrap();
        }
        out
    }

    /// Code printing `expr` of type `ty` (`pointer`: `expr` is a pointer to
    /// the struct).
    fn value(&self, out: &mut String, depth: usize, ty: &FieldType, expr: &str, pointer: bool) {
        let a = &self.m.alias;
        let pad = "    ".repeat(depth);
        let line = |out: &mut String, s: String| {
            out.push_str(&pad);
            out.push_str(&s);
            out.push('\n');
        };
        match ty {
            FieldType::Scalar(Primitive::Bool) => line(
                out,
                format!("try w.writeAll(if ({expr}) \"true\" else \"false\");"),
            ),
            FieldType::Scalar(Primitive::F32 | Primitive::F64) => {
                line(out, format!("try jsonFloat(w, {expr});"))
            }
            FieldType::Scalar(_) => line(out, format!("try w.print(\"{{d}}\", .{{{expr}}});")),
            FieldType::Enum(id) => line(out, format!("try {a}_e{id}(w, {expr}, false);")),
            FieldType::Struct(id) if pointer => line(out, format!("try {a}_s{id}(w, {expr});")),
            FieldType::Struct(id) => line(out, format!("try {a}_s{id}(w, &{expr});")),
            FieldType::Union(id) => line(out, format!("try {a}_u{id}(w, {expr});")),
            FieldType::Array(arr)
                if arr.text.is_some() && !matches!(arr.kind, ArrayKind::Fixed(_)) =>
            {
                line(out, format!("try jsonString(w, {expr});"))
            }
            FieldType::Array(arr) if arr.is_map() => {
                let ElemType::Struct(entry) = arr.elem else {
                    unreachable!("a map holds its entry struct")
                };
                let fields = &self.s.structs[entry].fields;
                let (e, i) = (self.fresh("e"), self.fresh("i"));
                let key = format!("{e}.{}", field_name(&fields[0].name));
                let val = format!("{e}.{}", field_name(&fields[1].name));
                line(out, "try w.writeAll(\"{\");".into());
                line(out, format!("for ({expr}, 0..) |{e}, {i}| {{"));
                line(out, format!("    if ({i} > 0) try w.writeAll(\",\");"));
                match &fields[0].ty {
                    FieldType::Enum(id) => line(out, format!("    try {a}_e{id}(w, {key}, true);")),
                    FieldType::Array(_) => line(out, format!("    try jsonString(w, {key});")),
                    _ => line(
                        out,
                        format!("    try w.print(\"\\\"{{d}}\\\"\", .{{{key}}});"),
                    ),
                }
                line(out, "    try w.writeAll(\":\");".into());
                self.value(out, depth + 1, &fields[1].ty, &val, false);
                out.push_str(&pad);
                out.push_str("}\n");
                out.push_str(&pad);
                out.push_str("try w.writeAll(\"}\");\n");
            }
            FieldType::Array(arr) => {
                let elem = match arr.elem {
                    ElemType::Scalar(p) => FieldType::Scalar(p),
                    ElemType::Enum(id) => FieldType::Enum(id),
                    ElemType::Struct(id) => FieldType::Struct(id),
                    ElemType::Union(id) => FieldType::Union(id),
                    ElemType::Array(id) => FieldType::Array(self.s.arrays[id]),
                };
                let (e, i) = (self.fresh("e"), self.fresh("i"));
                line(out, "try w.writeAll(\"[\");".into());
                line(out, format!("for ({expr}, 0..) |{e}, {i}| {{"));
                line(out, format!("    if ({i} > 0) try w.writeAll(\",\");"));
                self.value(out, depth + 1, &elem, &e, false);
                out.push_str(&pad);
                out.push_str("}\n");
                out.push_str(&pad);
                out.push_str("try w.writeAll(\"]\");\n");
            }
        }
    }
}

/// JSON printers over the generated viewers of one module, in the same
/// conventions as [`Printer`]'s over decoded values: `{alias}_v{id}`
/// prints a struct's viewer, `{alias}_w{id}` a union's. They take the
/// viewer as `anytype`, so one printer reads both the checked viewers and
/// the trusted ones. What each field's accessor returns follows the layout
/// plan (the generator's `ViewPrinter`), so a viewer that reads a wrong
/// place or kind prints a value no case expects.
struct ViewPrinter<'a> {
    m: &'a Module,
    s: &'a Schema,
    l: &'a Layout,
    n: Cell<usize>,
}

impl<'a> ViewPrinter<'a> {
    fn new(m: &'a Module) -> Self {
        ViewPrinter {
            m,
            s: &m.schema,
            l: &m.layout,
            n: Cell::new(0),
        }
    }

    fn fresh(&self, base: &str) -> String {
        let n = self.n.get();
        self.n.set(n + 1);
        format!("{base}_{n}")
    }

    fn all(&self) -> String {
        let a = &self.m.alias;
        let mut out = format!("\n// JSON printers over the viewers of {}\n", self.m.key);
        for id in 0..self.s.structs.len() {
            writeln!(
                out,
                "fn {a}_v{id}(w: *std.Io.Writer, v: anytype) std.Io.Writer.Error!void {{"
            )
            .unwrap();
            if self.s.structs[id].fields.is_empty() {
                out.push_str("    _ = v;\n");
            }
            let fields: Vec<(String, Part)> = self
                .l
                .of_struct(id)
                .fields
                .iter()
                .enumerate()
                .map(|(i, fl)| {
                    (
                        format!("v.{}()", accessor_name(&self.s.structs[id].fields[i].name)),
                        Part::Slot(fl.slot.clone()),
                    )
                })
                .collect();
            self.fields(&mut out, 1, id, &fields);
            out.push_str("}\n");
        }
        for (id, u) in self.s.unions.iter().enumerate() {
            writeln!(
                out,
                "fn {a}_w{id}(w: *std.Io.Writer, u: anytype) std.Io.Writer.Error!void {{"
            )
            .unwrap();
            for v in &u.variants {
                let sname = &self.s.structs[v.ty].name;
                writeln!(out, "    if (u.tag == {}) {{", v.tag).unwrap();
                writeln!(out, "        try w.writeAll(\"{{\\\"{sname}\\\":\");").unwrap();
                writeln!(
                    out,
                    "        try {a}_v{}(w, u.{}());",
                    v.ty,
                    accessor_name(sname)
                )
                .unwrap();
                out.push_str("        return w.writeAll(\"}\");\n    }\n");
            }
            out.push_str("    try w.writeAll(\"null\");\n}\n");
        }
        out
    }

    fn line(out: &mut String, depth: usize, s: &str) {
        out.push_str(&"    ".repeat(depth));
        out.push_str(s);
        out.push('\n');
    }

    /// The fields of struct `id`, each read by its expression.
    fn fields(&self, out: &mut String, d: usize, id: StructId, fields: &[(String, Part)]) {
        let st = &self.s.structs[id];
        let (open, close) = if st.tuple { ("[", "]") } else { ("{", "}") };
        Self::line(out, d, &format!("try w.writeAll(\"{open}\");"));
        for (i, (expr, part)) in fields.iter().enumerate() {
            if st.tuple {
                if i > 0 {
                    Self::line(out, d, "try w.writeAll(\",\");");
                }
            } else {
                let comma = if i > 0 { "," } else { "" };
                Self::line(
                    out,
                    d,
                    &format!("try w.writeAll(\"{comma}\\\"{}\\\":\");", st.fields[i].name),
                );
            }
            match part {
                Part::Slot(slot) => self.slot(out, d, slot, expr),
                Part::Node(sid, nodes) => {
                    Self::line(out, d, "{");
                    let x = self.bind(out, d + 1, expr, nodes);
                    self.fields(out, d + 1, *sid, &self.node_fields(&x, nodes));
                    Self::line(out, d, "}");
                }
                Part::Empty(tuple) => Self::line(
                    out,
                    d,
                    if *tuple {
                        "try w.writeAll(\"[]\");"
                    } else {
                        "try w.writeAll(\"{}\");"
                    },
                ),
            }
        }
        Self::line(out, d, &format!("try w.writeAll(\"{close}\");"));
    }

    /// `const it = expr;` for a node whose fields read it (Zig refuses an
    /// unused local: a node of structs without columns reads nothing).
    fn bind(&self, out: &mut String, d: usize, expr: &str, node: &SoaNode) -> String {
        let it = self.fresh("it");
        if node
            .fields
            .iter()
            .any(|(_, p)| !matches!(p, Part::Empty(_)))
        {
            Self::line(out, d, &format!("const {it} = {expr};"));
        } else {
            Self::line(out, d, &format!("_ = {expr};"));
        }
        it
    }

    /// The fields of SoA node `nodes` (its struct's fields: columns, child
    /// nodes, or structs without columns) read from the node in `x`.
    fn node_fields(&self, x: &str, nodes: &SoaNode) -> Vec<(String, Part)> {
        nodes
            .fields
            .iter()
            .map(|(name, part)| (format!("{x}.{name}()"), part.clone()))
            .collect()
    }

    /// The SoA node of struct `sid` at `prefix` of element `elem`.
    fn soa_node(&self, elem: StructId, sid: StructId, prefix: &[u32]) -> SoaNode {
        let soa = self.l.soa(elem);
        let fields = (0..self.s.structs[sid].fields.len())
            .map(|fi| {
                let mut path = prefix.to_vec();
                path.push(fi as u32);
                let f = &self.s.structs[sid].fields[fi];
                let part = match soa.columns.iter().find(|c| c.path == path) {
                    Some(col) => Part::Slot(col.slot.clone()),
                    None => match soa.columns.iter().find(|c| c.path.starts_with(&path)) {
                        Some(col) => {
                            let child = col.steps[path.len()];
                            Part::Node(child, Box::new(self.soa_node(elem, child, &path)))
                        }
                        None => Part::Empty(
                            matches!(f.ty, FieldType::Struct(c) if self.s.structs[c].tuple),
                        ),
                    },
                };
                (accessor_name(&f.name), part)
            })
            .collect();
        SoaNode { fields }
    }

    /// Code printing the value `expr` of `slot` returns.
    fn slot(&self, out: &mut String, d: usize, slot: &Slot, expr: &str) {
        let a = &self.m.alias;
        match slot {
            Slot::Scalar(Primitive::Bool) => Self::line(
                out,
                d,
                &format!("try w.writeAll(if ({expr}) \"true\" else \"false\");"),
            ),
            Slot::Scalar(Primitive::F32 | Primitive::F64) => {
                Self::line(out, d, &format!("try jsonFloat(w, {expr});"))
            }
            Slot::Scalar(_) => Self::line(out, d, &format!("try w.print(\"{{d}}\", .{{{expr}}});")),
            Slot::Enum { id, .. } => {
                Self::line(out, d, &format!("try {a}_e{id}(w, {expr}, false);"))
            }
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                Self::line(out, d, &format!("try {a}_v{id}(w, {expr});"))
            }
            Slot::OptionalTable(id) => {
                let o = self.fresh("o");
                Self::line(
                    out,
                    d,
                    &format!(
                        "if ({expr}) |{o}| try {a}_v{id}(w, {o}) else try w.writeAll(\"null\");"
                    ),
                );
            }
            Slot::Optional { value, .. } => {
                let o = self.fresh("o");
                Self::line(out, d, &format!("if ({expr}) |{o}| {{"));
                self.slot(out, d + 1, value, &o);
                Self::line(out, d, "} else try w.writeAll(\"null\");");
            }
            Slot::Union { id, .. } => Self::line(out, d, &format!("try {a}_w{id}(w, {expr});")),
            Slot::FixedArray { elem, .. } => {
                let (e, i) = (self.fresh("e"), self.fresh("i"));
                Self::line(out, d, "try w.writeAll(\"[\");");
                Self::line(out, d, &format!("for ({expr}, 0..) |{e}, {i}| {{"));
                Self::line(out, d + 1, &format!("if ({i} > 0) try w.writeAll(\",\");"));
                let inner = match elem {
                    FixedElem::Scalar(p) => Slot::Scalar(*p),
                    FixedElem::Enum { id, repr } => Slot::Enum {
                        id: *id,
                        repr: *repr,
                    },
                    FixedElem::InlineStruct(id) => Slot::InlineStruct(*id),
                };
                self.slot(out, d + 1, &inner, &e);
                Self::line(out, d, "}");
                Self::line(out, d, "try w.writeAll(\"]\");");
            }
            Slot::ArrayRef { array, data } => {
                let x = self.fresh("x");
                Self::line(out, d, "{");
                Self::line(out, d + 1, &format!("const {x} = {expr};"));
                self.array(out, d + 1, array, data, &x);
                Self::line(out, d, "}");
            }
        }
    }

    /// `for` over elements `0..len` of array view `x`, each printed by
    /// `each` as `x.at(i)`, separated by commas.
    fn each(&self, out: &mut String, d: usize, x: &str, each: impl FnOnce(&mut String, &str)) {
        let i = self.fresh("i");
        Self::line(out, d, &format!("var {i}: u32 = 0;"));
        Self::line(out, d, &format!("while ({i} < {x}.len()) : ({i} += 1) {{"));
        Self::line(out, d + 1, &format!("if ({i} > 0) try w.writeAll(\",\");"));
        each(out, &format!("{x}.at({i})"));
        Self::line(out, d, "}");
    }

    /// Code comparing each number, `bool` and enum column of the SoA
    /// array view `x` as a native slice (`F_column`) with the elements
    /// read one by one; a slice that differs, or a present column that is
    /// not one, prints text that is not JSON, so no case's value matches.
    fn columns(&self, out: &mut String, d: usize, elem: StructId, x: &str) {
        for (k, col) in self.l.soa(elem).columns.iter().enumerate() {
            if !matches!(col.slot, Slot::Scalar(_) | Slot::Enum { .. }) {
                continue;
            }
            let item: String = col
                .steps
                .iter()
                .zip(&col.path)
                .map(|(st, i)| {
                    format!(
                        ".{}()",
                        accessor_name(&self.s.structs[*st].fields[*i as usize].name)
                    )
                })
                .collect();
            let (c, e, i) = (self.fresh("c"), self.fresh("e"), self.fresh("i"));
            let name = column_name(self.s, self.l, elem, k);
            Self::line(out, d, &format!("if ({x}.{name}()) |{c}| {{"));
            Self::line(out, d + 1, "columns_read += 1;");
            Self::line(
                out,
                d + 1,
                &format!("if ({c}.len != {x}.len()) try w.writeAll(\"column length differs\");"),
            );
            Self::line(
                out,
                d + 1,
                &format!("for ({c}, 0..) |{e}, {i}| if (!sameElem({e}, {x}.at(@intCast({i})){item})) try w.writeAll(\"column differs\");"),
            );
            Self::line(
                out,
                d,
                &format!("}} else if ({x}.len() > 0 and {x}.cols[{k}] != 0) try w.writeAll(\"column not native\");"),
            );
        }
    }

    /// Code printing the array view in local `x`.
    fn array(&self, out: &mut String, d: usize, array: &ArrayType, data: &ArrayData, x: &str) {
        let a = &self.m.alias;
        match (array.text, data) {
            (Some(Text::Utf8), _) => {
                return Self::line(out, d, &format!("try jsonString(w, {x});"))
            }
            (Some(Text::Utf16), _) => {
                return Self::line(out, d, &format!("try jsonUtf16(w, {x});"))
            }
            _ => {}
        }
        if let (true, ArrayData::AosInline { id, .. }) = (array.is_map(), data) {
            let fields = &self.l.of_struct(*id).fields;
            let names = &self.s.structs[*id].fields;
            let (e, i) = (self.fresh("e"), self.fresh("i"));
            let key = format!("{e}.{}()", accessor_name(&names[0].name));
            Self::line(out, d, "try w.writeAll(\"{\");");
            Self::line(out, d, &format!("var {i}: u32 = 0;"));
            Self::line(out, d, &format!("while ({i} < {x}.len()) : ({i} += 1) {{"));
            Self::line(out, d + 1, &format!("if ({i} > 0) try w.writeAll(\",\");"));
            Self::line(out, d + 1, &format!("const {e} = {x}.at({i});"));
            // The look-up by key must find this very entry: a miss adds a
            // member no expected value has.
            let utf16 = matches!(&fields[0].slot, Slot::ArrayRef { array, .. } if array.text == Some(Text::Utf16));
            if !utf16 {
                Self::line(
                    out,
                    d + 1,
                    &format!("if ({x}.get({key}) == null or {x}.get({key}).?.position != {e}.position) try w.writeAll(\"\\\"get missed\\\":0,\");"),
                );
            }
            match &fields[0].slot {
                Slot::Enum { id, .. } => {
                    Self::line(out, d + 1, &format!("try {a}_e{id}(w, {key}, true);"))
                }
                Slot::Scalar(_) => Self::line(
                    out,
                    d + 1,
                    &format!("try w.print(\"\\\"{{d}}\\\"\", .{{{key}}});"),
                ),
                other => self.slot(out, d + 1, other, &key),
            }
            Self::line(out, d + 1, "try w.writeAll(\":\");");
            self.slot(
                out,
                d + 1,
                &fields[1].slot,
                &format!("{e}.{}()", accessor_name(&names[1].name)),
            );
            Self::line(out, d, "}");
            Self::line(out, d, "try w.writeAll(\"}\");");
            return;
        }
        Self::line(out, d, "try w.writeAll(\"[\");");
        match data {
            ArrayData::Plain { .. } => {
                let (e, i) = (self.fresh("e"), self.fresh("i"));
                Self::line(out, d, &format!("for ({x}, 0..) |{e}, {i}| {{"));
                Self::line(out, d + 1, &format!("if ({i} > 0) try w.writeAll(\",\");"));
                match array.elem {
                    // Bytes: any non-zero byte is true (format.md §2).
                    ElemType::Scalar(Primitive::Bool) => self.slot(
                        out,
                        d + 1,
                        &Slot::Scalar(Primitive::Bool),
                        &format!("{e} != 0"),
                    ),
                    ElemType::Scalar(p) => self.slot(out, d + 1, &Slot::Scalar(p), &e),
                    ElemType::Enum(id) => {
                        Self::line(out, d + 1, &format!("try {a}_e{id}(w, {e}, false);"))
                    }
                    _ => unreachable!("plain arrays hold scalars and enums"),
                }
                Self::line(out, d, "}");
            }
            ArrayData::AosInline { id, .. } | ArrayData::AosTable { id } => {
                self.each(out, d, x, |out, e| {
                    Self::line(out, d + 1, &format!("try {a}_v{id}(w, {e});"))
                })
            }
            ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. } => {
                self.each(out, d, x, |out, e| {
                    Self::line(out, d + 1, &format!("try {a}_w{id}(w, {e});"))
                })
            }
            ArrayData::Soa { elem } => {
                self.columns(out, d, *elem, x);
                let node = self.soa_node(*elem, *elem, &[]);
                self.each(out, d, x, |out, e| {
                    let it = self.bind(out, d + 1, e, &node);
                    self.fields(out, d + 1, *elem, &self.node_fields(&it, &node));
                })
            }
            ArrayData::Arrays { array, data } => self.each(out, d, x, |out, e| {
                let y = self.fresh("y");
                Self::line(out, d + 1, &format!("const {y} = {e};"));
                self.array(out, d + 1, array, data, &y);
            }),
            ArrayData::UnionBunch { id, .. } => {
                // Each variant's values in declaration order, as the
                // decoders group them.
                let soa = array.layout == ArrayLayout::BoVoS;
                let u = &self.s.unions[*id];
                let k = self.fresh("k");
                Self::line(out, d, &format!("var {k}: u32 = 0;"));
                for v in &u.variants {
                    let sname = &self.s.structs[v.ty].name;
                    let twice = u.variants.iter().filter(|w| w.ty == v.ty).count() > 1;
                    let m = if twice {
                        format!("{}_{}", variant_accessor_name(sname), v.tag)
                    } else {
                        variant_accessor_name(sname)
                    };
                    let (y, i) = (self.fresh("y"), self.fresh("i"));
                    Self::line(out, d, "{");
                    Self::line(out, d + 1, &format!("const {y} = {x}.{m}();"));
                    Self::line(out, d + 1, &format!("var {i}: u32 = 0;"));
                    Self::line(
                        out,
                        d + 1,
                        &format!("while ({i} < {y}.len()) : ({i} += 1) {{"),
                    );
                    Self::line(out, d + 2, &format!("if ({k} > 0) try w.writeAll(\",\");"));
                    Self::line(out, d + 2, &format!("{k} += 1;"));
                    Self::line(
                        out,
                        d + 2,
                        &format!("try w.writeAll(\"{{\\\"{sname}\\\":\");"),
                    );
                    if soa {
                        let node = self.soa_node(v.ty, v.ty, &[]);
                        let it = self.bind(out, d + 2, &format!("{y}.at({i})"), &node);
                        self.fields(out, d + 2, v.ty, &self.node_fields(&it, &node));
                    } else {
                        Self::line(out, d + 2, &format!("try {a}_v{}(w, {y}.at({i}));", v.ty));
                    }
                    Self::line(out, d + 2, "try w.writeAll(\"}\");");
                    Self::line(out, d + 1, "}");
                    Self::line(out, d, "}");
                }
            }
        }
        Self::line(out, d, "try w.writeAll(\"]\");");
    }
}

/// What a field of a viewer reads, for [`ViewPrinter`].
#[derive(Clone)]
enum Part {
    Slot(Slot),
    /// A struct flattened into an SoA element's columns: its node.
    Node(StructId, Box<SoaNode>),
    /// A struct without columns (`true`: a tuple).
    Empty(bool),
}

/// The fields of a node of an SoA element, by accessor name.
#[derive(Clone)]
struct SoaNode {
    fields: Vec<(String, Part)>,
}

/// Whether `got` (what the driver printed) is `want` (a case's value):
/// numbers by value (integers exactly, floats by their `f64` bits), every
/// other JSON value as it is. `Err` says where they differ.
pub fn same(want: &Value, got: &Value, path: &str) -> Result<(), String> {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => {
            let ints = (
                a.as_i64().map(i128::from).or(a.as_u64().map(i128::from)),
                b.as_i64().map(i128::from).or(b.as_u64().map(i128::from)),
            );
            let equal = match ints {
                (Some(x), Some(y)) => x == y,
                _ => a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits),
            };
            if equal {
                Ok(())
            } else {
                Err(format!("{path}: expected {a}, got {b}"))
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "{path}: expected {} elements, got {}",
                    a.len(),
                    b.len()
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, x) in a {
                let y = b.get(k).ok_or(format!("{path}.{k}: missing"))?;
                same(x, y, &format!("{path}.{k}"))?;
            }
            match b.keys().find(|k| !a.contains_key(*k)) {
                Some(k) => Err(format!("{path}.{k}: not expected")),
                None => Ok(()),
            }
        }
        _ if want == got => Ok(()),
        _ => Err(format!("{path}: expected {want}, got {got}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_floats_by_bits() {
        assert!(same(&json!(1.0), &json!(1e0), "v").is_ok());
        assert!(same(
            &json!(18446744073709551615u64),
            &json!(18446744073709551615u64),
            "v"
        )
        .is_ok());
        assert!(same(&json!(-0.0), &json!(0.0), "v").is_err());
        assert!(same(&json!({"A": [1, 2]}), &json!({"A": [1, 3]}), "v").is_err());
        assert!(same(&json!({"A": 1}), &json!({"A": 1, "B": 2}), "v").is_err());
        assert!(same(&json!("NaN"), &json!("NaN"), "v").is_ok());
    }
}

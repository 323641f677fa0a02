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

use karmem_codegen::zig::{field_name, type_name, variant_is_pointer, ZigBackend};
use karmem_codegen::Backend;
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
            modules.insert(key.clone(), Module { key, alias, schema });
        }
    }
    // JSON printers of every type of every schema (Zig analyses only the
    // ones the cases use).
    for m in modules.values() {
        driver.push_str(&Printer::new(m).all());
    }
    // Zig analyses only what is used: every struct's API is referenced
    // here, so that all the generated code is compiled, not only what the
    // cases' roots reach.
    driver.push_str("\ncomptime {\n");
    for m in modules.values() {
        for st in &m.schema.structs {
            for f in ["encode", "decode", "validate", "validateFault"] {
                writeln!(driver, "    _ = &{}.{}.{f};", m.alias, type_name(&st.name)).unwrap();
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
    driver.push_str("}\n");
    fs::write(out.join("driver.zig"), driver).map_err(io)
}

/// The Zig type of root `root` in module `m` and its printer.
fn root_of(m: &Module, root: &str) -> Option<(String, String)> {
    let id = m.schema.struct_by_name(root)?;
    Some((
        format!("{}.{}", m.alias, type_name(root)),
        format!("{}_s{id}", m.alias),
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

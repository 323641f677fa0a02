//! The golden-vector runner for the AssemblyScript backend
//! (testdata/vectors/README.md, "Plugging in a new language").
//! `tests/vectors.rs` drives it: it runs the generator as a library call
//! over every schema of the vectors, writes ONE AssemblyScript driver that
//! imports every generated file and has a function per case, compiles it
//! once with asc, runs it under Node (`src/run.mjs`) and compares what it
//! reported with the cases; `src/damage.mjs` then feeds the same compiled
//! code damaged messages.
//!
//! The driver reports one line per result, `ID<TAB>KIND<TAB>TEXT`, as the
//! Zig driver does (`value`, `valid`, `bytes`, `reuse`, `open`,
//! `decode-error`), plus `over` (the message encoded into caller memory
//! with `Writer.over`), `checked` (the checked `decode` refuses exactly
//! what the validator refuses), `view` and `trusted` (the checked and the
//! trusted viewer print what the decoder read) and `into` (decoding into
//! an object that held another message of the type gives this one).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use karmem_codegen::assemblyscript::{field_name, type_name, AssemblyScriptBackend};
use karmem_codegen::Backend;
use karmem_schema::model::*;
pub use karmem_vectors_zig::{load_all, same, Case};

mod edit;

/// The Node program that runs the compiled driver over every case.
pub const RUN_MJS: &str = include_str!("run.mjs");
/// The imports of the compiled driver, for both Node programs.
pub const HOST_MJS: &str = include_str!("host.mjs");
/// The Node program that feeds the compiled driver damaged messages.
pub const DAMAGE_MJS: &str = include_str!("damage.mjs");

/// Generates `schemas` (paths relative to `repo`) into `out/gen/` and
/// writes `out/roundtrip.ts`: for every struct of every schema, its whole
/// API is used (asc compiles only what is used) and its initial value is
/// encoded, decoded (checked) and encoded again, which must give the same
/// bytes, and viewed (checked and trusted). `roundTrip()` returns the number of structs checked, or minus
/// the index of the first that fails.
pub fn write_roundtrip(repo: &Path, schemas: &[&str], out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    fs::create_dir_all(out.join("gen")).map_err(io)?;
    let mut head = String::from("import { KarmemError, Writer } from \"karmem-as/assembly\";\n");
    let mut body = String::from(
        "\n/** Encodes, decodes and encodes again every struct's initial value. */\nexport function roundTrip(): i32 {\n  const w = new Writer(64);\n  const again = new Writer(64);\n  let n = 0;\n",
    );
    for (m, path) in schemas.iter().enumerate() {
        let source = fs::read_to_string(repo.join(path)).map_err(io)?;
        let (schema, layout) =
            karmem_layout::load(path, &source).map_err(|d| format!("{path}: {d:?}"))?;
        let files = AssemblyScriptBackend
            .generate(&schema, &layout)
            .map_err(|e| format!("{path}: {e}"))?;
        let file = format!(
            "gen/s{m}_{}",
            karmem_codegen::assemblyscript::file_name(&schema)
        );
        fs::write(out.join(format!("{file}.ts")), &files[0].contents).map_err(io)?;
        let names: Vec<String> = schema.structs.iter().map(|s| type_name(&s.name)).collect();
        let list: Vec<String> = names.iter().map(|n| format!("{n} as s{m}_{n}")).collect();
        if !list.is_empty() {
            writeln!(head, "import {{ {} }} from \"./{file}\";", list.join(", ")).unwrap();
        }
        for n in &names {
            let t = format!("s{m}_{n}");
            write!(
                body,
                "  n++;\n  if (new {t}().encode(w) != KarmemError.None) return -n;\n  {{\n    const x = new {t}();\n    if ({t}.validate(w.dataStart, w.length) != KarmemError.None) return -n;\n    if ({t}.decode(w.dataStart, w.length, x) != KarmemError.None) return -n;\n    if ({t}.read(w.dataStart, w.length, x) != KarmemError.None) return -n;\n    if (x.encode(again) != KarmemError.None || again.length != w.length) return -n;\n    if (memory.compare(again.dataStart, w.dataStart, <usize>w.length) != 0) return -n;\n    if ({t}.view(w.dataStart, w.length) === null || {t}.trust(w.dataStart, w.length) === null) return -n;\n  }}\n"
            )
            .unwrap();
        }
    }
    body.push_str("  return n;\n}\n");
    fs::write(out.join("roundtrip.ts"), head + &body).map_err(io)
}

/// One generated schema file.
struct Module {
    key: String,
    /// The prefix of its names in the driver (`m3`).
    alias: String,
    schema: Schema,
    layout: karmem_layout::Layout,
}

fn sorted(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

/// Generates every schema of `dir`'s topics into `out/gen/`, writes
/// `out/driver.ts` running `cases` and each case's bytes to
/// `out/cases/N.bin` (the host copies them into the module).
pub fn write_driver(dir: &Path, cases: &[Case], out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    fs::create_dir_all(out.join("gen")).map_err(io)?;
    fs::create_dir_all(out.join("cases")).map_err(io)?;
    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    let mut driver = String::from(include_str!("prelude.ts"));
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
            let files = AssemblyScriptBackend
                .generate(&schema, &layout)
                .map_err(|e| format!("{key}: {e}"))?;
            let alias = format!("m{}", modules.len());
            let stem = fname.trim_end_matches(".km");
            let path = format!("gen/{tname}_{stem}");
            fs::write(out.join(format!("{path}.ts")), &files[0].contents).map_err(io)?;
            let mut names: Vec<String> =
                schema.structs.iter().map(|s| type_name(&s.name)).collect();
            names.extend(schema.enums.iter().map(|e| type_name(&e.name)));
            names.extend(schema.unions.iter().map(|u| type_name(&u.name)));
            // The viewers of structs and unions (`{T}View<R>`).
            names.extend(
                schema
                    .structs
                    .iter()
                    .map(|s| format!("{}View", type_name(&s.name))),
            );
            names.extend(
                schema
                    .unions
                    .iter()
                    .map(|u| format!("{}View", type_name(&u.name))),
            );
            let list: Vec<String> = names
                .iter()
                .map(|n| format!("{n} as {alias}_{n}"))
                .collect();
            writeln!(
                driver,
                "import {{ {} }} from \"./{path}\";",
                list.join(", ")
            )
            .unwrap();
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
    for m in modules.values() {
        driver.push_str(&Printer::new(m, false).all());
        driver.push_str(&Printer::new(m, true).all());
    }
    let mut dispatch = String::new();
    let mut damaged = String::new();
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
        writeln!(dispatch, "    case {i}: {{").unwrap();
        if case.hostile.is_some() {
            driver.push_str(&read_case(
                &format!("c{i}"),
                &i.to_string(),
                &ty,
                &print,
                false,
            ));
        } else {
            driver.push_str(&value_case(&format!("c{i}"), &i.to_string(), &ty, &print));
        }
        writeln!(dispatch, "      c{i}(p, n);").unwrap();
        for (r, (reader, _)) in case.readers.iter().enumerate() {
            let key = format!("{}/{reader}", case.topic);
            let m = modules
                .get(&key)
                .ok_or(format!("{}: no schema {key}", case.id()))?;
            let (ty, print) = root_of(m, &case.root).ok_or(format!("{}: no root", case.id()))?;
            driver.push_str(&read_case(
                &format!("c{i}r{r}"),
                &format!("{i}:{reader}"),
                &ty,
                &print,
                true,
            ));
            writeln!(dispatch, "      c{i}r{r}(p, n);").unwrap();
        }
        writeln!(dispatch, "      break;\n    }}").unwrap();
        writeln!(damaged, "    case {i}: return damaged{ty}(p, n);").unwrap();
    }
    let mut roots: Vec<(String, String)> = Vec::new();
    for case in cases {
        let m = &modules[&format!("{}/{}", case.topic, case.schema)];
        let root = root_of(m, &case.root).unwrap();
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    for (ty, print) in &roots {
        driver.push_str(&damaged_fn(ty, print));
    }
    // The setters' checks of every root type an edited case reads with.
    let mut edited: Vec<String> = Vec::new();
    for case in cases {
        for key in schema_keys(case) {
            let m = &modules[&key];
            let (ty, print) = root_of(m, &case.root).unwrap();
            if !edited.contains(&ty) {
                let id = m.schema.struct_by_name(&case.root).unwrap();
                driver.push_str(&edit::edits_fn(m, id, &ty, &print, &view_printer(&print)));
                edited.push(ty);
            }
        }
    }
    // The object every case (or evolution reader) of a root type decodes
    // into after the previous one (`into`): its arrays and nested structs
    // are reused.
    let mut lasts: Vec<String> = Vec::new();
    for case in cases {
        for key in schema_keys(case) {
            let (ty, _) = root_of(&modules[&key], &case.root).unwrap();
            if !lasts.contains(&ty) {
                writeln!(driver, "\nconst last{ty} = new {ty}();").unwrap();
                lasts.push(ty);
            }
        }
    }
    driver.push_str("\n/** Runs case `i` over the `n` bytes of `input`. */\n");
    driver.push_str("export function run(i: i32, n: i32): void {\n");
    driver.push_str("  const p = changetype<usize>(input);\n  switch (i) {\n");
    driver.push_str(&dispatch);
    driver.push_str("  }\n}\n");
    driver.push_str("\n/** Reads a damaged copy of case `i`'s message (in `input`) with its root type: 1 accepted, 0 refused, 2 a fixed writer wrote outside its range. */\n");
    driver.push_str("export function damaged(i: i32, n: i32): i32 {\n");
    driver.push_str("  const p = changetype<usize>(input);\n  switch (i) {\n");
    driver.push_str(&damaged);
    driver.push_str("  }\n  return -1;\n}\n");
    if let Some(m) = modules.get("maps/schema.km") {
        driver.push_str(&map_order(&m.alias));
    }
    fs::write(out.join("driver.ts"), driver).map_err(io)
}

/// The modules a case is read with: its schema's, then its evolution
/// readers'.
fn schema_keys(case: &Case) -> Vec<String> {
    let mut keys = vec![format!("{}/{}", case.topic, case.schema)];
    keys.extend(
        case.readers
            .iter()
            .map(|(r, _)| format!("{}/{r}", case.topic)),
    );
    keys
}

/// The driver's name of root `root` in module `m`, and its printer.
fn root_of(m: &Module, root: &str) -> Option<(String, String)> {
    let id = m.schema.struct_by_name(root)?;
    Some((
        format!("{}_{}", m.alias, type_name(root)),
        format!("{}_s{id}", m.alias),
    ))
}

/// The JSON printer of viewers of the struct whose object printer is `print`.
fn view_printer(print: &str) -> String {
    print.replacen("_s", "_vs", 1)
}

/// Prints the checked view of the message (`view`) and, when it
/// validates, the trusted view (`trusted`): each must print `text`, what
/// the decoder read. `valid` says whether the message validates.
fn view_checks(ty: &str, print: &str, valid: &str) -> String {
    let vp = view_printer(print);
    format!(
        r#"  const cv = {ty}.view(p, n);
  if (cv === null) report(id, "view", "the header is refused");
  else {{
    const vo = new Array<string>(0);
    {vp}<Validator>(vo, cv);
    const vt = vo.join("");
    report(id, "view", vt == text ? "ok" : "differs: " + vt);
  }}
  const tv = {ty}.trust(p, n);
  if (tv === null) {{
    if ({valid}) report(id, "trusted", "a valid message is not trusted");
  }} else {{
    const to = new Array<string>(0);
    {vp}<Trusted>(to, tv);
    const tt = to.join("");
    report(id, "trusted", tt == text ? "ok" : "differs: " + tt);
  }}
"#
    )
}

/// The start of every case function: the header must open (else the case
/// reports `open`).
const OPEN: &str = r#"  const v = new Validator();
  let e = v.open(p, n);
  if (e != KarmemError.None) {
    report(id, "open", errorName(e));
    return;
  }
"#;

/// A case with a value: decode (printed), validate, the viewers (`view`,
/// `trusted`), encode (the bytes), decode into the same object and encode
/// with the same writer (reuse), decode into the object of the previous
/// case of the type (`into`), encode into caller memory (`Writer.over`).
fn value_case(name: &str, id: &str, ty: &str, print: &str) -> String {
    let views = view_checks(ty, print, "valid == KarmemError.None");
    format!(
        r#"
function {name}(p: usize, n: usize): void {{
  const id = "{id}";
{OPEN}  const x = new {ty}();
  e = {ty}.decode(p, n, x);
  if (e != KarmemError.None) {{
    report(id, "decode-error", errorName(e));
    return;
  }}
  const o = new Array<string>(0);
  {print}(o, x);
  const text = o.join("");
  report(id, "value", text);
  const valid = {ty}.validateWith(v, p, n);
  reportValid(id, valid, v);
{views}  report(id, "edit", edits{ty}(p, n, true));
  const w = new Writer(64);
  reportSame(id, "bytes", x.encode(w), w, p, n);
  e = {ty}.decode(p, n, x);
  if (e != KarmemError.None) {{
    report(id, "reuse", "decode again: " + errorName(e));
    return;
  }}
  reportSame(id, "reuse", x.encode(w), w, p, n);
  // Decoded into the object the previous case of this type was decoded
  // into: what it held (longer or shorter arrays, other elements) is
  // reused, and the value is this message's.
  e = {ty}.decode(p, n, last{ty});
  const io = new Array<string>(0);
  if (e == KarmemError.None) {print}(io, last{ty});
  const it = io.join("");
  report(id, "into", e != KarmemError.None ? "decode: " + errorName(e) : it == text ? "ok" : "differs: " + it);
  const mem = new ArrayBuffer(<i32>n);
  const short = x.encode(Writer.over(changetype<usize>(mem), <i32>n - 8));
  const fixed = Writer.over(changetype<usize>(mem), <i32>n);
  const full = x.encode(fixed);
  reportOver(id, full, short, fixed, p, n);
  // Used last: the collector keeps `mem` until the comparison is done.
  if (mem.byteLength != <i32>n) report(id, "over", "the buffer changed");
}}
"#
    )
}

/// An evolution reader or a hostile message: validate, read leniently
/// (printed, or the error), and the checked decode against the validator.
fn read_case(name: &str, id: &str, ty: &str, print: &str, strict: bool) -> String {
    let views = view_checks(ty, print, "valid == KarmemError.None").replace("\n  ", "\n    ");
    let views = format!("  {}", views.trim_start());
    format!(
        r#"
function {name}(p: usize, n: usize): void {{
  const id = "{id}";
{OPEN}  const valid = {ty}.validateWith(v, p, n);
  reportValid(id, valid, v);
  const x = new {ty}();
  e = {ty}.read(p, n, x);
  if (e != KarmemError.None) {{
    report(id, "decode-error", errorName(e));
  }} else {{
    const o = new Array<string>(0);
    {print}(o, x);
    const text = o.join("");
    report(id, "value", text);
    // Read into the object of the previous case of the type, too.
    e = {ty}.read(p, n, last{ty});
    const io = new Array<string>(0);
    if (e == KarmemError.None) {print}(io, last{ty});
    const it = io.join("");
    report(id, "into", e != KarmemError.None ? "read: " + errorName(e) : it == text ? "ok" : "differs: " + it);
    // What the lenient reader read, viewers read: the checked one on
    // every message the reader reads, the trusted one when it validates.
{views}  }}
  report(id, "edit", edits{ty}(p, n, {strict}));
  const checked = {ty}.decode(p, n, new {ty}());
  if ((checked == KarmemError.None) == (valid == KarmemError.None)) report(id, "checked", "ok");
  else report(id, "checked", "decode gives " + errorName(checked) + ", validate " + errorName(valid));
}}
"#
    )
}

/// Validates, decodes (checked and lenient) and, when that reads a value,
/// encodes it again, growable and into 64 bytes of caller memory between
/// two guard words: a damaged message may be refused, never trap, and the
/// fixed writer never writes outside its range (2 when it does). What the
/// lenient decoder reads, the checked viewer prints the same (3 when it
/// does not), and the trusted viewer too when the message validates (4);
/// reading it into the object the previous one was read into gives the
/// same value (5).
/// Views are printed only when the decoder reads the message: its depth
/// limit and budget bound the walk, which a viewer (read on demand) has
/// not.
fn damaged_fn(ty: &str, print: &str) -> String {
    let vp = view_printer(print);
    format!(
        r#"
function damaged{ty}(p: usize, n: usize): i32 {{
  const valid = {ty}.validate(p, n) == KarmemError.None;
  // Every setter of the root over the damaged message: refused or done,
  // never a trap, and a refusal writes nothing (6 when it does).
  if (edits{ty}(p, n, false) != "ok") return 6;
  {ty}.decode(p, n, new {ty}());
  const x = new {ty}();
  if ({ty}.read(p, n, x) != KarmemError.None) return 0;
  const o = new Array<string>(0);
  {print}(o, x);
  const text = o.join("");
  // Read again into the object the previous damaged message was read
  // into: what its arrays and nested structs held is reused (5 when the
  // value differs).
  if ({ty}.read(p, n, last{ty}) != KarmemError.None) return 5;
  const io = new Array<string>(0);
  {print}(io, last{ty});
  if (io.join("") != text) return 5;
  const cv = {ty}.view(p, n);
  if (cv === null) return 3;
  const vo = new Array<string>(0);
  {vp}<Validator>(vo, cv);
  if (vo.join("") != text) return 3;
  if (valid) {{
    const tv = {ty}.trust(p, n);
    if (tv === null) return 4;
    const to = new Array<string>(0);
    {vp}<Trusted>(to, tv);
    if (to.join("") != text) return 4;
  }}
  x.encode(new Writer(64));
  // `buf` is used after the encode, so the collector keeps it (a bare
  // pointer does not).
  const buf = new ArrayBuffer(80);
  const mem = changetype<usize>(buf);
  store<u64>(mem, 0x5555555555555555);
  store<u64>(mem + 72, 0x5555555555555555);
  x.encode(Writer.over(mem + 8, 64));
  if (load<u64>(changetype<usize>(buf)) != 0x5555555555555555 || load<u64>(mem + 72) != 0x5555555555555555) return 2;
  return 1;
}}
"#
    )
}

/// The encoder's one refusal no vector shows (vectors hold valid
/// messages): map entries out of key order, or a key twice.
fn map_order(a: &str) -> String {
    format!(
        r#"
function entry(key: string, value: u8): {a}_RootAgesEntry {{
  const e = new {a}_RootAgesEntry();
  e.key = key;
  e.value = value;
  return e;
}}

/** `ok` when sorted keys encode and unsorted or repeated ones give InvalidValue. */
export function mapOrder(): void {{
  const w = new Writer(64);
  const x = new {a}_Root();
  x.ages = [entry("a", 1), entry("ab", 2), entry("b", 3)];
  let e = x.encode(w);
  if (e != KarmemError.None) {{
    report("map-order", "result", "sorted: " + errorName(e));
    return;
  }}
  x.ages = [entry("ab", 2), entry("a", 1)];
  e = x.encode(w);
  const swapped = e;
  x.ages = [entry("a", 1), entry("a", 2)];
  e = x.encode(w);
  if (swapped != KarmemError.InvalidValue || e != KarmemError.InvalidValue) {{
    report("map-order", "result", "unordered map: " + errorName(swapped) + ", repeated key: " + errorName(e));
    return;
  }}
  report("map-order", "result", "ok");
}}
"#
    )
}

/// JSON printers (in the vectors' conventions) of one module's types.
/// With `view`, of the viewers (`{a}_vs{id}<R>`, over either reader)
/// rather than the decoded objects (`{a}_s{id}`): the same JSON from the
/// same members, a viewer's getters being named as the object's fields.
struct Printer<'a> {
    m: &'a Module,
    s: &'a Schema,
    n: Cell<usize>,
    view: bool,
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module, view: bool) -> Self {
        Printer {
            m,
            s: &m.schema,
            n: Cell::new(0),
            view,
        }
    }

    /// The printer function of struct `id` or union `id` (`kind` "s" or
    /// "u"), with its type argument when it prints viewers.
    fn printer(&self, kind: &str, id: usize) -> String {
        let a = &self.m.alias;
        if self.view {
            format!("{a}_v{kind}{id}<R>")
        } else {
            format!("{a}_{kind}{id}")
        }
    }

    /// The type a printer of `name` (a struct or union) takes.
    fn class(&self, name: &str) -> String {
        let a = &self.m.alias;
        if self.view {
            format!("{a}_{}View<R>", type_name(name))
        } else {
            format!("{a}_{}", type_name(name))
        }
    }

    fn fresh(&self, base: &str) -> String {
        let n = self.n.get();
        self.n.set(n + 1);
        format!("{base}{n}")
    }

    fn all(&self) -> String {
        let a = &self.m.alias;
        let mut out = format!("\n// JSON printers of {}\n", self.m.key);
        // Enums print the same from objects and viewers.
        let enums = if self.view {
            &[][..]
        } else {
            &self.s.enums[..]
        };
        for (id, e) in enums.iter().enumerate() {
            let native = karmem_codegen::assemblyscript::enum_is_native(e.repr);
            let ty = if native {
                format!("{a}_{}", type_name(&e.name))
            } else {
                karmem_codegen::assemblyscript::prim(e.repr).to_string()
            };
            let p = karmem_codegen::assemblyscript::prim(e.repr);
            writeln!(out, "function {a}_e{id}(x: {ty}, key: bool): string {{").unwrap();
            for v in &e.variants {
                writeln!(
                    out,
                    "  if (x == {a}_{}.{}) return \"\\\"{}\\\"\";",
                    type_name(&e.name),
                    v.name,
                    v.name
                )
                .unwrap();
            }
            writeln!(out, "  const s = (<{p}>x).toString();").unwrap();
            out.push_str("  return key ? \"\\\"\" + s + \"\\\"\" : s;\n}\n");
        }
        for (id, u) in self.s.unions.iter().enumerate() {
            writeln!(
                out,
                "function {}(o: Array<string>, x: {} | null): void {{",
                self.printer("u", id),
                self.class(&u.name)
            )
            .unwrap();
            out.push_str("  if (x !== null) {\n");
            for v in &u.variants {
                let sname = &self.s.structs[v.ty].name;
                writeln!(
                    out,
                    "    const v{} = x.{};\n    if (x.tag == {} && v{} !== null) {{\n      o.push(\"{{\\\"{sname}\\\":\");\n      {}(o, v{});\n      o.push(\"}}\");\n      return;\n    }}",
                    v.tag,
                    field_name(sname),
                    v.tag,
                    v.tag,
                    self.printer("s", v.ty),
                    v.tag
                )
                .unwrap();
            }
            out.push_str("  }\n  o.push(\"null\");\n}\n");
        }
        for (id, st) in self.s.structs.iter().enumerate() {
            writeln!(
                out,
                "function {}(o: Array<string>, x: {}): void {{",
                self.printer("s", id),
                self.class(&st.name)
            )
            .unwrap();
            let (open, close) = if st.tuple { ("[", "]") } else { ("{", "}") };
            writeln!(out, "  o.push(\"{open}\");").unwrap();
            for (i, f) in st.fields.iter().enumerate() {
                if st.tuple {
                    if i > 0 {
                        out.push_str("  o.push(\",\");\n");
                    }
                } else {
                    let comma = if i > 0 { "," } else { "" };
                    writeln!(out, "  o.push(\"{comma}\\\"{}\\\":\");", f.name).unwrap();
                }
                let place = format!("x.{}", field_name(&f.name));
                if f.optional {
                    let v = self.fresh("v");
                    writeln!(out, "  const {v} = {place};").unwrap();
                    writeln!(out, "  if ({v} !== null) {{").unwrap();
                    let held = if matches!(f.ty, FieldType::Scalar(_) | FieldType::Enum(_)) {
                        format!("{v}.value")
                    } else {
                        v.clone()
                    };
                    self.value(&mut out, 2, &f.ty, &held);
                    out.push_str("  } else o.push(\"null\");\n");
                } else {
                    self.value(&mut out, 1, &f.ty, &place);
                }
            }
            writeln!(out, "  o.push(\"{close}\");\n}}").unwrap();
        }
        out
    }

    /// Code printing `expr` of type `ty`.
    fn value(&self, out: &mut String, depth: usize, ty: &FieldType, expr: &str) {
        let a = &self.m.alias;
        let pad = "  ".repeat(depth);
        let line = |out: &mut String, s: String| {
            out.push_str(&pad);
            out.push_str(&s);
            out.push('\n');
        };
        match ty {
            FieldType::Scalar(Primitive::Bool) => {
                line(out, format!("o.push({expr} ? \"true\" : \"false\");"))
            }
            FieldType::Scalar(Primitive::F32 | Primitive::F64) => {
                line(out, format!("o.push(jf(<f64>{expr}));"))
            }
            FieldType::Scalar(_) => line(out, format!("o.push({expr}.toString());")),
            FieldType::Enum(id) => line(out, format!("o.push({a}_e{id}({expr}, false));")),
            FieldType::Struct(id) => line(out, format!("{}(o, {expr});", self.printer("s", *id))),
            FieldType::Union(id) => line(out, format!("{}(o, {expr});", self.printer("u", *id))),
            FieldType::Array(arr)
                if arr.text.is_some() && !matches!(arr.kind, ArrayKind::Fixed(_)) =>
            {
                line(out, format!("o.push(js({expr}));"))
            }
            FieldType::Array(arr) if arr.is_map() => {
                let ElemType::Struct(entry) = arr.elem else {
                    unreachable!("a map holds its entry struct")
                };
                let fields = &self.s.structs[entry].fields;
                let (e, i, l) = (self.fresh("e"), self.fresh("i"), self.fresh("l"));
                let key = format!("{e}.{}", field_name(&fields[0].name));
                let val = format!("{e}.{}", field_name(&fields[1].name));
                line(out, format!("const {l} = {expr};"));
                line(out, "o.push(\"{\");".into());
                line(
                    out,
                    format!("for (let {i} = 0; {i} < {l}.length; {i}++) {{"),
                );
                line(out, format!("  const {e} = {l}[{i}];"));
                line(out, format!("  if ({i} > 0) o.push(\",\");"));
                match &fields[0].ty {
                    FieldType::Enum(id) => line(out, format!("  o.push({a}_e{id}({key}, true));")),
                    FieldType::Array(_) => line(out, format!("  o.push(js({key}));")),
                    _ => line(
                        out,
                        format!("  o.push(\"\\\"\" + {key}.toString() + \"\\\"\");"),
                    ),
                }
                line(out, "  o.push(\":\");".into());
                self.value(out, depth + 1, &fields[1].ty, &val);
                line(out, "}".into());
                line(out, "o.push(\"}\");".into());
            }
            FieldType::Array(arr) => {
                let elem = match arr.elem {
                    ElemType::Scalar(p) => FieldType::Scalar(p),
                    ElemType::Enum(id) => FieldType::Enum(id),
                    ElemType::Struct(id) => FieldType::Struct(id),
                    ElemType::Union(id) => FieldType::Union(id),
                    ElemType::Array(id) => FieldType::Array(self.s.arrays[id]),
                };
                let (e, i, l) = (self.fresh("e"), self.fresh("i"), self.fresh("l"));
                line(out, format!("const {l} = {expr};"));
                line(out, "o.push(\"[\");".into());
                line(
                    out,
                    format!("for (let {i} = 0; {i} < {l}.length; {i}++) {{"),
                );
                line(out, format!("  const {e} = {l}[{i}];"));
                line(out, format!("  if ({i} > 0) o.push(\",\");"));
                self.value(out, depth + 1, &elem, &e);
                line(out, "}".into());
                line(out, "o.push(\"]\");".into());
            }
        }
    }
}

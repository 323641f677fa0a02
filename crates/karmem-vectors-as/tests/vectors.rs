//! The golden vectors and damaged messages through generated
//! AssemblyScript (testdata/vectors/README.md, "Plugging in a new
//! language"): `cargo test -p karmem-vectors-as`.
//!
//! Needs Node (20 or later) and the dev dependencies of `as/` (`npm ci` in
//! `as/`, which `scripts/test-as.sh` runs). Installs nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use karmem_vectors_as::{
    load_all, same, write_driver, write_roundtrip, Case, DAMAGE_MJS, HOST_MJS, RUN_MJS,
};
use serde_json::Value;

/// The cases in the repository today: a runner that silently finds fewer
/// must not pass.
const MIN_CASES: usize = 64;

/// Damaged copies of each case's message (about 80 cases: ~4 000 messages).
const ROUNDS: usize = 50;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(cmd: &mut Command, what: &str) -> Output {
    cmd.output().unwrap_or_else(|e| {
        panic!("{what}: cannot run {cmd:?}: {e} (scripts/test-as.sh installs what it needs)")
    })
}

/// The work directory `name` under the test's temporary directory, with
/// `node_modules/karmem-as` linked to `as/` (asc finds `karmem-as/assembly`
/// there, as/README.md).
fn work_dir(name: &str) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let modules = out.join("node_modules");
    fs::create_dir_all(&modules).unwrap();
    let link = modules.join("karmem-as");
    let _ = fs::remove_file(&link);
    std::os::unix::fs::symlink(repo().join("as").canonicalize().unwrap(), &link).unwrap();
    out
}

/// The AssemblyScript compiler of `as/`'s dev dependencies.
fn asc() -> PathBuf {
    let asc = repo().join("as/node_modules/assemblyscript/bin/asc.js");
    assert!(
        asc.exists(),
        "{} is missing: run `npm ci` in as/",
        asc.display()
    );
    asc
}

/// The work directory with the compiled driver, and the cases: built once
/// for both tests.
fn driver() -> &'static (PathBuf, Vec<Case>) {
    static BUILT: OnceLock<(PathBuf, Vec<Case>)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = repo().join("testdata/vectors");
        let cases = load_all(&dir);
        assert!(
            cases.len() >= MIN_CASES,
            "found {} cases under {}, expected at least {MIN_CASES}",
            cases.len(),
            dir.display()
        );
        let out = work_dir("as-vectors");
        for sub in ["gen", "cases"] {
            let _ = fs::remove_dir_all(out.join(sub));
        }
        write_driver(&dir, &cases, &out).unwrap();
        fs::write(out.join("run.mjs"), RUN_MJS).unwrap();
        fs::write(out.join("damage.mjs"), DAMAGE_MJS).unwrap();
        fs::write(out.join("host.mjs"), HOST_MJS).unwrap();
        // Assertions on (no --noAssert): a bounds check the library missed
        // would show as a trap.
        compile(&out, "driver.ts", "driver.wasm", &["-O1"]);
        (out, cases)
    })
}

/// Compiles `entry` in `dir` into `wasm` with asc (the incremental GC, the
/// default runtime, assertions on) and `extra` options; it must compile
/// without a diagnostic: the generated code and the library are the
/// output users compile, and AssemblyScript has no formatter or linter to
/// hold them to. `--pedantic` adds asc's pedantic notes, which must not
/// point into the generated code or the library either; the test's own
/// `entry` may have them (it indexes arrays, AS904).
fn compile(dir: &Path, entry: &str, wasm: &str, extra: &[&str]) {
    let build = run(
        Command::new("node")
            .arg(asc())
            .args([entry, "-o", wasm, "--runtime", "incremental", "--pedantic"])
            .args(extra)
            .current_dir(dir),
        "asc",
    );
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    assert!(
        build.status.success(),
        "{} does not compile:\n{out}",
        dir.join(entry).display()
    );
    let flagged = diagnostics(&out, entry);
    assert!(
        flagged.is_empty(),
        "asc has diagnostics for {}:\n{}",
        dir.join(entry).display(),
        flagged.join("\n")
    );
}

/// asc's diagnostics in `out` (each a `KIND ASnnn: message` line, the
/// source lines, and `└─ in FILE(line,col)`), but pedantic ones located in
/// `entry`.
fn diagnostics(out: &str, entry: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for line in out.lines() {
        let kind = line.split(' ').next().unwrap_or("");
        let starts = matches!(kind, "ERROR" | "WARNING" | "PEDANTIC" | "INFO")
            && line.split(' ').nth(1).is_some_and(|c| c.starts_with("AS"));
        match blocks.last_mut() {
            Some(b) if !starts => {
                b.push('\n');
                b.push_str(line);
            }
            _ if starts => blocks.push(line.to_string()),
            _ => {}
        }
    }
    let in_entry = format!("in {entry}(");
    blocks
        .into_iter()
        .filter(|b| !(b.starts_with("PEDANTIC") && b.contains(&in_entry)))
        .collect()
}

#[test]
fn asc_diagnostics_are_found() {
    let out = "PEDANTIC AS904: Indexed access may involve bounds checking.\n   :\n 3 │ x[i]\n   └─ in driver.ts(3,1)\n\n\
        WARNING AS907: 'NaN' does not compare equal to any other value.\n   └─ in gen/m0_a.ts(9,2)\n\
        PEDANTIC AS904: Indexed access may involve bounds checking.\n   └─ in gen/m0_a.ts(4,4)\n";
    let found = diagnostics(out, "driver.ts");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("WARNING AS907") && found[0].contains("gen/m0_a.ts(9,2)"));
    assert!(found[1].contains("gen/m0_a.ts(4,4)"));
    assert!(diagnostics("compiled\n", "driver.ts").is_empty());
}

/// What `node ARGS` prints in `dir`; it must succeed.
fn node(dir: &Path, args: &[&str]) -> String {
    let result = run(Command::new("node").args(args).current_dir(dir), "node");
    assert!(
        result.status.success(),
        "node {args:?} failed: {}\n{}",
        result.status,
        String::from_utf8_lossy(&result.stderr)
    );
    String::from_utf8_lossy(&result.stdout).into_owned()
}

#[test]
fn golden_vectors() {
    let (out, cases) = driver();
    let text = node(out, &["run.mjs", "driver.wasm", &cases.len().to_string()]);
    let mut results: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        if let (Some(id), Some(kind), Some(rest)) = (parts.next(), parts.next(), parts.next()) {
            results
                .entry(id.to_string())
                .or_default()
                .insert(kind.to_string(), rest.to_string());
        }
    }
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let map_order = results
        .get("map-order")
        .and_then(|r| r.get("result"))
        .map(String::as_str);
    if map_order != Some("ok") {
        failures
            .entry("maps".into())
            .or_default()
            .push(format!("encoding unordered map entries: {map_order:?}"));
    }
    let mut checked = 0;
    for (i, case) in cases.iter().enumerate() {
        let got = results.get(&i.to_string());
        let mut problems = check(case, got);
        checked += 1;
        if case.hostile.is_none() {
            problems.extend(check_edit(got));
        }
        for (reader, want) in &case.readers {
            let got = results.get(&format!("{i}:{reader}"));
            checked += 1;
            for p in check_read(Some(want), got, Some(true))
                .into_iter()
                .chain(check_edit(got))
            {
                problems.push(format!("read by {reader}: {p}"));
            }
        }
        if !problems.is_empty() {
            failures
                .entry(case.topic.clone())
                .or_default()
                .push(format!("{}: {}", case.id(), problems.join("; ")));
        }
    }
    let topics: BTreeSet<&str> = cases.iter().map(|c| c.topic.as_str()).collect();
    let report: Vec<String> = failures.values().flatten().cloned().collect();
    eprintln!(
        "{} cases ({checked} runs with the evolution readers), {} of {} topics pass",
        cases.len(),
        topics
            .iter()
            .filter(|t| !failures.contains_key(**t))
            .count(),
        topics.len()
    );
    assert!(
        report.is_empty(),
        "{} failures:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The schemas of the e2e guests, the arena and the guest ABI: their
/// generated code compiles, and every struct's initial value round-trips.
#[test]
fn other_schemas_compile_and_round_trip() {
    let out = work_dir("as-schemas");
    let _ = fs::remove_dir_all(out.join("gen"));
    let schemas = [
        "guests/polyglot.km",
        "examples/arena/arena.km",
        "docs/abi.km",
    ];
    write_roundtrip(&repo(), &schemas, &out).unwrap();
    compile(&out, "roundtrip.ts", "roundtrip.wasm", &[]);
    let script = "const fs = require('fs'); const m = new WebAssembly.Module(fs.readFileSync('roundtrip.wasm')); \
        const i = new WebAssembly.Instance(m, { env: { abort(a, b, line, col) { throw new Error('abort ' + line + ':' + col); } } }); \
        console.log(i.exports.roundTrip());";
    let result = run(
        Command::new("node").args(["-e", script]).current_dir(&out),
        "node",
    );
    let text = String::from_utf8_lossy(&result.stdout);
    let n: i64 = text.trim().parse().unwrap_or_else(|_| {
        panic!(
            "roundTrip: {text}{}",
            String::from_utf8_lossy(&result.stderr)
        )
    });
    eprintln!("{n} structs of {} schemas round-trip", schemas.len());
    assert!(n > 10, "roundTrip() = {n}: a struct does not round-trip");
}

/// The library's own checks (`as/tests/lib.ts`): what generated code does
/// not reach by itself.
#[test]
fn library_checks() {
    let out = work_dir("as-lib");
    fs::copy(repo().join("as/tests/lib.ts"), out.join("lib.ts")).unwrap();
    fs::write(out.join("host.mjs"), HOST_MJS).unwrap();
    compile(&out, "lib.ts", "lib.wasm", &[]);
    let script = "import fs from 'node:fs'; import { instantiate } from './host.mjs'; \
        const lines = []; const e = instantiate(new WebAssembly.Module(fs.readFileSync('lib.wasm')), lines); \
        const n = e.check(); console.log([n, ...lines].join('\\n'));";
    let text = node(&out, &["--input-type=module", "-e", script]);
    assert_eq!(
        text.lines().next(),
        Some("0"),
        "library checks failed:\n{text}"
    );
}

/// The in-place setters are the checked viewer's: calling one on a
/// trusted viewer (`T.trust`) does not compile, and the same call on the
/// checked viewer does (src/edit.rs calls them all on that one).
#[test]
fn trusted_views_have_no_setters() {
    let (out, _) = driver();
    let call = |view: &str| {
        format!(
            "import {{ Editor }} from \"karmem-as/assembly\";\nimport {{ Scalars }} from \"./gen/scalars_schema\";\n\
             export function f(p: usize, n: usize): i32 {{\n  const e = new Editor();\n  e.open(p, n);\n  const v = Scalars.{view}(p, n);\n  return v === null ? -1 : <i32>v.setFlag(e, true);\n}}\n"
        )
    };
    for (view, compiles) in [("view", true), ("trust", false)] {
        fs::write(out.join("setter.ts"), call(view)).unwrap();
        let build = run(
            Command::new("node")
                .arg(asc())
                .args(["setter.ts", "-o", "setter.wasm"])
                .current_dir(out),
            "asc",
        );
        let text = String::from_utf8_lossy(&build.stderr);
        assert_eq!(
            build.status.success(),
            compiles,
            "setFlag on Scalars.{view}: {text}"
        );
        if !compiles {
            assert!(
                text.contains("in-place setters need the checked view"),
                "{text}"
            );
        }
    }
}

#[test]
fn damaged_messages_never_trap() {
    let (out, cases) = driver();
    let (rounds, count) = (ROUNDS.to_string(), cases.len().to_string());
    let text = node(
        out,
        &["damage.mjs", "driver.wasm", &count, &rounds, "20261127"],
    );
    let first = text.lines().next().unwrap_or_default();
    let n: Vec<usize> = first
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    assert_eq!(n.len(), 4, "unexpected output: {text}");
    eprintln!(
        "{} damaged messages: {} read, {} refused, {} traps",
        n[0], n[1], n[2], n[3]
    );
    assert_eq!(n[0], cases.len() * ROUNDS);
    // Both outcomes happen: the damage is neither all fatal nor all harmless.
    assert!(n[1] > 0 && n[2] > 0, "{text}");
    assert_eq!(n[3], 0, "damaged messages trapped:\n{text}");
}

/// The in-place setters over a valid message (`edits` in the driver, src/edit.rs).
fn check_edit(got: Option<&BTreeMap<String, String>>) -> Vec<String> {
    match got.and_then(|g| g.get("edit")).map(String::as_str) {
        Some("ok") => Vec::new(),
        Some(other) => vec![format!("edit: {other}")],
        None => vec!["edit: no result".into()],
    }
}

/// The problems of one case's results.
fn check(case: &Case, got: Option<&BTreeMap<String, String>>) -> Vec<String> {
    if let Some(h) = &case.hostile {
        let mut problems = check_read(case.decoded(), got, Some(h.valid));
        problems.extend(got.and_then(|g| h.kind_problem(g.get("valid")?)));
        if let Some(c) = got.and_then(|g| g.get("checked")) {
            if c != "ok" {
                problems.push(format!("checked decode: {c}"));
            }
        }
        return problems;
    }
    let mut problems = check_read(case.decoded(), got, Some(true));
    let Some(got) = got else { return problems };
    for kind in ["bytes", "reuse", "into", "over"] {
        match got.get(kind).map(String::as_str) {
            Some("ok") => {}
            Some(other) => problems.push(format!("{kind}: {other}")),
            None => problems.push(format!("{kind}: no result")),
        }
    }
    problems
}

/// Decoding gives `want` (or refuses when there is none), and the
/// validator decides as `valid` says.
fn check_read(
    want: Option<&Value>,
    got: Option<&BTreeMap<String, String>>,
    valid: Option<bool>,
) -> Vec<String> {
    let Some(got) = got else {
        return vec!["no result (the driver stopped before it)".into()];
    };
    let mut problems = Vec::new();
    if let Some(crash) = got.get("crash") {
        problems.push(format!("the driver trapped: {crash}"));
    }
    if let Some(open) = got.get("open") {
        problems.push(format!("the message does not open: {open}"));
        return problems;
    }
    match (valid, got.get("valid")) {
        (Some(true), Some(v)) if v != "true" => problems.push(format!("validate: {v}")),
        (Some(false), Some(v)) if v == "true" => {
            problems.push("validate: accepts a message it must refuse".into())
        }
        (Some(_), None) => problems.push("validate: no result".into()),
        _ => {}
    }
    match (want, got.get("value"), got.get("decode-error")) {
        (Some(want), Some(text), _) => match serde_json::from_str::<Value>(text) {
            Ok(value) => {
                if let Err(e) = same(want, &value, "value") {
                    problems.push(format!("{e}\n    got: {text}"));
                }
            }
            Err(e) => problems.push(format!("decoded value is not JSON ({e}): {text}")),
        },
        (Some(_), None, Some(err)) => problems.push(format!("decode refuses: {err}")),
        (None, Some(text), _) => problems.push(format!("decode must refuse, gives {text}")),
        (None, None, Some(_)) => {}
        (_, None, None) => problems.push("decode: no result".into()),
    }
    // Whatever the decoder reads, it reads into an object that held
    // another value too (`into`); the checked viewer prints the same, and
    // so does the trusted one when the message validates.
    if let Some(into) = got.get("into").filter(|i| *i != "ok") {
        problems.push(format!("into: {into}"));
    }
    if got.contains_key("value") {
        for kind in ["view", "trusted"] {
            match got.get(kind).map(String::as_str) {
                Some("ok") => {}
                Some(other) => problems.push(format!("{kind}: {other}")),
                None if kind == "view" || valid == Some(true) => {
                    problems.push(format!("{kind}: no result"))
                }
                None => {}
            }
        }
    }
    problems
}

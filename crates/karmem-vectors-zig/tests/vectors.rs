//! The golden vectors through generated Zig code (testdata/vectors/README.md,
//! "Plugging in a new language"): `cargo test -p karmem-vectors-zig`.
//!
//! Needs Zig 0.17 (`scripts/setup-zig.sh`), run as `python3 -m ziglang`, or
//! the command in `ZIG` (e.g. `ZIG=zig`). Installs nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use karmem_vectors_zig::{load_all, same, write_driver, Case};
use serde_json::Value;

/// Topics the Zig backend does not pass yet. Enforced both ways: a listed
/// topic with no failing case fails the test (take it off the list), and
/// a failing case of a topic not listed fails it.
const UNSUPPORTED: &[&str] = &[];

/// The cases in the repository today: a runner that silently finds fewer
/// must not pass.
const MIN_CASES: usize = 64;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Zig command: `ZIG` (split on spaces), else `python3 -m ziglang`.
fn zig() -> Command {
    let spec = std::env::var("ZIG").unwrap_or_else(|_| "python3 -m ziglang".into());
    let mut parts = spec.split_whitespace();
    let mut cmd = Command::new(parts.next().expect("a ZIG command"));
    cmd.args(parts);
    cmd
}

fn run(cmd: &mut Command, what: &str) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("{what}: cannot run {cmd:?}: {e} (scripts/setup-zig.sh installs Zig)")
    });
    out
}

#[test]
fn golden_vectors() {
    let dir = repo().join("testdata/vectors");
    let cases = load_all(&dir);
    assert!(
        cases.len() >= MIN_CASES,
        "found {} cases under {}, expected at least {MIN_CASES}",
        cases.len(),
        dir.display()
    );

    // The work directory keeps Zig's cache between runs; the generated
    // files and case bytes are written anew.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("zig-vectors");
    for sub in ["gen", "cases"] {
        let _ = fs::remove_dir_all(out.join(sub));
    }
    write_driver(&dir, &cases, &out).unwrap();

    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();

    // The generated files are zig fmt-clean as generated.
    let fmt = run(
        zig().arg("fmt").arg("--check").arg("gen").current_dir(&out),
        "zig fmt",
    );
    if !fmt.status.success() {
        for file in String::from_utf8_lossy(&fmt.stdout).lines() {
            failures
                .entry("(zig fmt)".into())
                .or_default()
                .push(format!("{file} is not zig fmt-clean"));
        }
    }

    // One compilation, in Debug: safety checks on.
    let karmem = repo().join("zig/src/karmem.zig");
    let build = run(
        zig()
            .args([
                "build-exe",
                "-ODebug",
                "-j2",
                "--name",
                "driver",
                "--dep",
                "karmem",
            ])
            .arg("-Mroot=driver.zig")
            .arg(format!("-Mkarmem={}", karmem.display()))
            .current_dir(&out),
        "zig build-exe",
    );
    assert!(
        build.status.success(),
        "the driver ({}) does not compile:\n{}",
        out.join("driver.zig").display(),
        String::from_utf8_lossy(&build.stderr)
    );
    let driver = run(&mut Command::new(out.join("driver")), "driver");
    let text = String::from_utf8_lossy(&driver.stderr);
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
    if !driver.status.success() {
        failures.entry("(driver)".into()).or_default().push(format!(
            "the driver crashed ({}): {}",
            driver.status,
            text.lines().rev().take(15).collect::<Vec<_>>().join("\n")
        ));
    }

    // The encoder's refusal of unordered maps (src/prelude.zig).
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

    // In-place edits through the generated setters (src/prelude.zig,
    // `runEdits`), summed over every message: fields set, fields absent
    // from the message refused, lengths past a capacity or limit refused.
    let mut edits = [0u64; 3];
    for (i, case) in cases.iter().enumerate() {
        let got = results.get(&i.to_string());
        let mut problems = check(case, got);
        check_edits(got, &mut edits, &mut problems);
        for (reader, want) in &case.readers {
            let got = results.get(&format!("{i}:{reader}"));
            let mut read = check_read(Some(want), got, Some(true));
            check_views(Some(want), got, &mut read);
            check_edits(got, &mut edits, &mut read);
            for p in read {
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

    // None of the edit checks ran for nothing.
    let [set, absent, beyond] = edits;
    eprintln!("edits: {set} fields set, {absent} absent fields refused, {beyond} lengths refused");
    if set < 100 || absent == 0 || beyond == 0 {
        failures.entry("(edit)".into()).or_default().push(format!(
            "too few edits: {set} fields set, {absent} absent fields refused, {beyond} lengths refused"
        ));
    }
    // SoA number columns read as native slices (compared with the items
    // by the view printers: a difference makes the value unreadable).
    let columns: u64 = results
        .get("columns")
        .and_then(|r| r.get("read"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    eprintln!("SoA columns read as native slices: {columns}");
    if columns == 0 {
        failures
            .entry("(columns)".into())
            .or_default()
            .push("no SoA column was read as a native slice".into());
    }

    // The expected-failure list, both ways.
    let topics: BTreeSet<&str> = cases.iter().map(|c| c.topic.as_str()).collect();
    let mut report = Vec::new();
    for t in UNSUPPORTED {
        if !failures.contains_key(*t) {
            report.push(format!(
                "{t} is listed as unsupported but passes (or has no case): take it off UNSUPPORTED"
            ));
        }
    }
    for (topic, list) in &failures {
        if UNSUPPORTED.contains(&topic.as_str()) {
            continue;
        }
        report.extend(list.iter().cloned());
    }
    let passing = topics
        .iter()
        .filter(|t| !failures.contains_key(**t))
        .count();
    eprintln!(
        "{} cases, {passing} of {} topics pass; unsupported: {UNSUPPORTED:?}",
        cases.len(),
        topics.len()
    );
    assert!(
        report.is_empty(),
        "{} failures:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The problems of one case's results.
fn check(case: &Case, got: Option<&BTreeMap<String, String>>) -> Vec<String> {
    if let Some(h) = &case.hostile {
        let mut problems = check_read(case.decoded(), got, Some(h.valid));
        problems.extend(got.and_then(|g| h.kind_problem(g.get("valid")?)));
        // The checked viewers read every hostile message (the driver runs
        // with Zig's safety checks on: a read outside it panics); a valid
        // one reads as its value, also through the trusted viewers.
        check_views(case.decoded().filter(|_| h.valid), got, &mut problems);
        return problems;
    }
    let mut problems = check_read(case.decoded(), got, Some(true));
    check_views(case.decoded(), got, &mut problems);
    let Some(got) = got else { return problems };
    match got.get("mutants") {
        Some(m) if m.starts_with("ok") => {}
        Some(m) => problems.push(format!("one byte changed: {m}")),
        None => problems.push("mutants: no result".into()),
    }
    for kind in ["bytes", "reuse"] {
        match got.get(kind).map(String::as_str) {
            Some("ok") => {}
            Some(other) => problems.push(format!("{kind}: {other}")),
            None => problems.push(format!("{kind}: no result")),
        }
    }
    problems
}

/// A message that opens was edited in place without a problem
/// (`edit<TAB>ok S A B`); its counts are added to `totals`.
fn check_edits(
    got: Option<&BTreeMap<String, String>>,
    totals: &mut [u64; 3],
    problems: &mut Vec<String>,
) {
    let Some(got) = got else { return };
    if got.contains_key("open") {
        return;
    }
    match got.get("edit").map(|e| e.split(' ').collect::<Vec<_>>()) {
        Some(parts) if parts.len() == 4 && parts[0] == "ok" => {
            for (t, n) in totals.iter_mut().zip(&parts[1..]) {
                *t += n.parse::<u64>().unwrap_or(0);
            }
        }
        Some(_) => problems.push(format!("edit: {}", got["edit"])),
        None => problems.push("edit: no result".into()),
    }
}

/// The checked viewers printed something for an opened message, and when
/// there is a `want`, both the checked and the trusted viewers read it.
fn check_views(
    want: Option<&Value>,
    got: Option<&BTreeMap<String, String>>,
    problems: &mut Vec<String>,
) {
    let Some(got) = got else { return };
    if got.contains_key("open") {
        return;
    }
    let kinds: &[&str] = if want.is_some() {
        &["view", "trusted"]
    } else {
        &["view"]
    };
    for kind in kinds {
        let Some(text) = got.get(*kind) else {
            problems.push(format!("{kind}: no value read through the viewers"));
            continue;
        };
        let Some(want) = want else { continue };
        match serde_json::from_str::<Value>(text) {
            Ok(value) => {
                if let Err(e) = same(want, &value, kind) {
                    problems.push(e);
                }
            }
            Err(e) => problems.push(format!("{kind}: not JSON ({e}): {text}")),
        }
    }
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
                    problems.push(e);
                }
            }
            Err(e) => problems.push(format!("decoded value is not JSON ({e}): {text}")),
        },
        (Some(_), None, Some(err)) => problems.push(format!("decode refuses: {err}")),
        (None, Some(text), _) => problems.push(format!("decode must refuse, gives {text}")),
        (None, None, Some(_)) => {}
        (_, None, None) => problems.push("decode: no result".into()),
    }
    problems
}

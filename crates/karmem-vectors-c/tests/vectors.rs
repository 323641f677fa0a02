//! Every golden vector (testdata/vectors/README.md, "Plugging in a new
//! language") through generated C code: value, bytes, validation, reuse,
//! evolution readers and hostile messages, under ASan and UBSan.
//!
//! Run: `CARGO_TARGET_DIR=... cargo test -p karmem-vectors-c` (needs
//! clang-19 and gcc-12: `scripts/setup-c.sh`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use karmem_vectors::{load_all, Case};
use karmem_vectors_c::{build, differs, repo_root, run_case, Driver, Outcome};
use serde_json::Value;

/// Cases in testdata/vectors today: fewer means the runner lost some.
const MIN_CASES: usize = 64;

/// Topics the C backend does not pass yet. The test enforces the list
/// both ways: a listed topic must still fail (remove it once it passes),
/// and every other topic must pass.
const NOT_YET_SUPPORTED: &[&str] = &[];

#[test]
fn golden_vectors() {
    let root = repo_root().join("testdata/vectors");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-vectors");
    let all = load_all(&root);
    let mut topics: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/vectors")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    topics.sort();
    let mut cases = 0;
    // topic → failures
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen_topics = BTreeSet::new();
    for topic in &topics {
        let tname = topic.file_name().unwrap().to_string_lossy().to_string();
        seen_topics.insert(tname.clone());
        let fails = failures.entry(tname.clone()).or_default();
        // One driver per schema file of the topic.
        let mut drivers: BTreeMap<String, Result<Driver, String>> = BTreeMap::new();
        let mut schemas: Vec<PathBuf> = std::fs::read_dir(topic)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "km"))
            .collect();
        schemas.sort();
        for s in &schemas {
            let file = s.file_name().unwrap().to_string_lossy().to_string();
            let stem = s.file_stem().unwrap().to_string_lossy().to_string();
            drivers.insert(file, build(s, &out.join(&tname).join(stem)));
        }
        for case in all.iter().filter(|c| c.topic == tname) {
            cases += 1;
            let scratch = out.join(&tname).join(format!("{}.bin", case.name));
            if let Err(e) = check_case(case, &drivers, &scratch) {
                fails.push(format!("{}: {e}", case.id()));
            }
        }
    }
    assert!(
        cases >= MIN_CASES,
        "found {cases} cases under {}, expected at least {MIN_CASES}",
        root.display()
    );
    let mut report = Vec::new();
    for t in NOT_YET_SUPPORTED {
        if !seen_topics.contains(*t) {
            report.push(format!("NOT_YET_SUPPORTED lists {t}, which is not a topic"));
        }
    }
    let mut passed = 0;
    for (topic, fails) in &failures {
        let expected_to_fail = NOT_YET_SUPPORTED.contains(&topic.as_str());
        match (fails.is_empty(), expected_to_fail) {
            (true, false) => passed += 1,
            (true, true) => report.push(format!(
                "{topic} passes now: remove it from NOT_YET_SUPPORTED"
            )),
            (false, true) => eprintln!(
                "{topic}: not yet supported ({} failing cases, expected)",
                fails.len()
            ),
            (false, false) => report.extend(fails.iter().cloned()),
        }
    }
    eprintln!(
        "C vectors: {cases} cases in {} topics, {passed} topics passing, {} listed as not yet supported; {} values compared through the viewers, {} through the trusted viewers",
        failures.len(),
        NOT_YET_SUPPORTED.len(),
        VIEWED.load(std::sync::atomic::Ordering::Relaxed),
        TRUSTED.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(
        report.is_empty(),
        "{} failures:\n{}",
        report.len(),
        report.join("\n\n")
    );
}

fn check_case(
    case: &Case,
    drivers: &BTreeMap<String, Result<Driver, String>>,
    scratch: &Path,
) -> Result<(), String> {
    let bytes = case
        .bytes
        .as_ref()
        .ok_or(format!("no {}", case.hex_path().display()))?;
    let root = &case.root;
    let driver = driver_for(drivers, &case.schema)?;
    let o = run_case(driver, root, bytes, scratch)?;
    let mut errors = Vec::new();
    if let Some(h) = &case.hostile {
        // Hostile: the validator decides as `valid` says, the decoder
        // gives `value` or refuses.
        let valid = h.valid;
        if (o.validate == 0) != valid {
            errors.push(format!(
                "the validator returned status {}, the case says valid = {valid}",
                o.validate
            ));
        }
        if let Some(kind) = &h.error {
            let want = status_of(kind);
            if Some(o.validate) != want {
                errors.push(format!(
                    "the validator returned status {}, the case says {kind} ({want:?})",
                    o.validate
                ));
            }
        }
        // The viewers read every hostile message without crashing (the
        // driver runs under ASan and UBSan); a valid one reads as its value.
        if o.view.is_none() {
            errors.push("the viewers printed nothing".into());
        }
        // Only a message the validator accepts reaches the trusted viewers.
        trusted(&o, case.decoded().filter(|_| valid), &mut errors);
        match case.decoded() {
            Some(v) if valid => {
                viewed(&o, v, &mut errors);
                decoded(&o, v, &mut errors)
            }
            Some(v) => decoded(&o, v, &mut errors),
            None if o.decode == 0 => {
                errors.push("the decoder accepted a message every decoder refuses".into())
            }
            None => {}
        }
        return joined(errors);
    }
    let value = &case.value;
    if o.validate != 0 {
        errors.push(format!(
            "the validator refused the bytes (status {})",
            o.validate
        ));
    }
    decoded(&o, value, &mut errors);
    viewed(&o, value, &mut errors);
    trusted(&o, Some(value), &mut errors);
    match &o.encode {
        Some((0, got)) if got == bytes => {}
        Some((0, got)) => {
            let at = got
                .iter()
                .zip(bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(bytes.len()));
            errors.push(format!(
                "encoding differs from the golden bytes at offset {at:#x} ({} vs {} bytes)",
                got.len(),
                bytes.len()
            ));
        }
        Some((s, _)) => errors.push(format!("encoding failed (status {s})")),
        None if o.decode == 0 => errors.push("no encoding".into()),
        None => {}
    }
    match &o.json2 {
        Some(v2) if o.json.as_ref() == Some(v2) => {}
        _ if o.decode != 0 => {}
        _ => errors.push("decoding again into the reset arena gave another value".into()),
    }
    if let Some(r) = &o.reuse {
        if r != "ok" {
            errors.push(format!("reuse: {r}"));
        }
    }
    {
        for (file, expected) in &case.readers {
            let d = driver_for(drivers, file)?;
            let ro = run_case(d, root, bytes, scratch)?;
            if ro.validate != 0 {
                errors.push(format!(
                    "{file}: the validator refused the bytes (status {})",
                    ro.validate
                ));
            }
            let mut e = Vec::new();
            decoded(&ro, expected, &mut e);
            viewed(&ro, expected, &mut e);
            trusted(&ro, Some(expected), &mut e);
            errors.extend(e.into_iter().map(|x| format!("{file}: {x}")));
        }
    }
    joined(errors)
}

fn driver_for<'d>(
    drivers: &'d BTreeMap<String, Result<Driver, String>>,
    file: &str,
) -> Result<&'d Driver, String> {
    match drivers.get(file) {
        Some(Ok(d)) => Ok(d),
        Some(Err(e)) => Err(format!("{file}: {e}")),
        None => Err(format!("no schema {file}")),
    }
}

fn decoded(o: &Outcome, expected: &Value, errors: &mut Vec<String>) {
    if o.decode != 0 {
        errors.push(format!(
            "the decoder refused the bytes (status {})",
            o.decode
        ));
        return;
    }
    match &o.json {
        Some(got) => {
            if let Some(d) = differs(expected, got, "value") {
                errors.push(format!("decoded value differs: {d}"));
            }
        }
        None => errors.push("no decoded value".into()),
    }
}

/// The value read in place through the viewers must be the expected one.
fn viewed(o: &Outcome, expected: &Value, errors: &mut Vec<String>) {
    VIEWED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match &o.view {
        Some(got) => {
            if let Some(d) = differs(expected, got, "value") {
                errors.push(format!("the value read through the viewers differs: {d}"));
            }
        }
        None => errors.push("no value read through the viewers".into()),
    }
}

/// Values compared through the viewers (cases and evolution readers).
static VIEWED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `<type>_trust` must decide as the validator did; a message it refuses
/// must never be read through the trusted viewers, and one it accepts must
/// read through them as `expected` (when the case states a value).
fn trusted(o: &Outcome, expected: Option<&Value>, errors: &mut Vec<String>) {
    if o.trust != Some(o.validate) {
        errors.push(format!(
            "_trust returned status {:?}, the validator {}",
            o.trust, o.validate
        ));
    }
    if o.validate != 0 {
        if o.trusted.is_some() {
            errors.push(
                "a message the validator refused was read through the trusted viewers".into(),
            );
        }
        return;
    }
    TRUSTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match (&o.trusted, expected) {
        (Some(got), Some(expected)) => {
            if let Some(d) = differs(expected, got, "value") {
                errors.push(format!(
                    "the value read through the trusted viewers differs: {d}"
                ));
            }
        }
        (Some(_), None) => {}
        (None, _) => errors.push("no value read through the trusted viewers".into()),
    }
}

/// Valid messages read through the trusted viewers.
static TRUSTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn joined(errors: Vec<String>) -> Result<(), String> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// The `km_status` of an error kind named as the vectors name it
/// (`DirectoryTooLarge` is `KM_ERR_DIRECTORY_TOO_LARGE`): its position in
/// c/karmem.h's enum, which counts up from `KM_OK = 0`.
fn status_of(kind: &str) -> Option<i64> {
    let mut name = String::from("KM_ERR");
    for c in kind.chars() {
        if c.is_ascii_uppercase() {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    let header = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../c/karmem.h"),
    )
    .ok()?;
    let body = header
        .split("typedef enum km_status {")
        .nth(1)?
        .split('}')
        .next()?;
    body.lines()
        .map(|l| {
            l.trim()
                .trim_end_matches(',')
                .split(' ')
                .next()
                .unwrap_or("")
        })
        .filter(|l| l.starts_with("KM_"))
        .position(|l| l == name)
        .map(|i| i as i64)
}

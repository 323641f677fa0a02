//! Every golden vector against the schema-driven validator: valid messages
//! are accepted, by their own schema and by every reader schema of an
//! evolution case; hostile messages are accepted exactly when the vector
//! says every validator accepts them. Damaged messages (every truncation,
//! every byte flipped) give an error or success, never a panic.

use std::path::Path;

use karmem_vectors::load_all;

fn load(dir: &Path, file: &str) -> (karmem_schema::model::Schema, karmem_layout::Layout) {
    let path = dir.join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    karmem_layout::load(&path.display().to_string(), &src)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

#[test]
fn golden_and_hostile_vectors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let cases = load_all(&root);
    assert!(cases.len() >= 20, "the full vector set: {}", cases.len());
    let (mut checked, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.json_path().display().to_string();
        let (schema, layout) = load(&case.dir, &case.schema);
        let id = schema.struct_by_name(&case.root).expect("root type");
        let bytes = match &case.hostile {
            Some(h) => h.bytes(),
            None => case.bytes.clone().expect("a valid case has its bytes"),
        };
        let got = karmem_validate::validate(&schema, &layout, id, &bytes);
        let want = case.hostile.as_ref().is_none_or(|h| h.valid);
        match (&got, want) {
            (Ok(()), false) => {
                failures.push(format!("{name}: accepted, every validator refuses it"))
            }
            (Err(e), true) => failures.push(format!("{name}: {e}")),
            (Err(_), false) => refused += 1,
            _ => {}
        }
        checked += 1;
        for (file, _) in &case.readers {
            let (s2, l2) = load(&case.dir, file);
            let id2 = s2
                .struct_by_name(&case.root)
                .expect("root type in the reader's schema");
            if let Err(e) = karmem_validate::validate(&s2, &l2, id2, &bytes) {
                failures.push(format!("{name} read with {file}: {e}"));
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(refused >= 20, "the hostile vectors refused: {refused}");
    eprintln!("{checked} validations, {refused} hostile messages refused");
}

#[test]
fn damaged_messages_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    for case in load_all(&root).iter().filter(|c| c.hostile.is_none()) {
        let (schema, layout) = load(&case.dir, &case.schema);
        let id = schema.struct_by_name(&case.root).unwrap();
        let bytes = case.bytes.clone().unwrap();
        for n in 0..bytes.len() {
            let _ = karmem_validate::validate(&schema, &layout, id, &bytes[..n]);
        }
        for i in 8..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = karmem_validate::validate(&schema, &layout, id, &b);
        }
    }
}

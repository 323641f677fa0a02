//! The generated in-place editors (`{T}Edit`, docs/rust.md "Editing in
//! place", format.md §12) on every golden vector: every settable field of
//! every valid message set, read back and compared with the encoder's
//! bytes for the edited object (src/edits.rs); lengths and texts past
//! their capacity refused; on every evolution case, each field the older
//! writer did not write refused without a byte changed; every setter run
//! on every hostile message without a panic.
use std::path::Path;

use karmem_vectors::load_all;

#[test]
fn every_settable_field_of_every_vector() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let cases = load_all(&root);
    let mut failures = Vec::new();
    let (mut edits, mut absent, mut hostile, mut valid) = (0, 0, 0, 0);
    for case in &cases {
        let topic = case.dir.file_name().unwrap().to_string_lossy().to_string();
        let schema = format!("vectors/{topic}/{}", case.schema);
        let bytes = case
            .bytes
            .as_ref()
            .expect("run `make vectors` to create the .hex files");
        let name = case.json_path().display().to_string();
        if case.hostile.is_some() {
            karmem_vectors_rust::edit_hostile_case(&schema, &case.root, bytes);
            hostile += 1;
            continue;
        }
        valid += 1;
        match karmem_vectors_rust::edit_case(&schema, &case.root, &case.value, bytes) {
            Ok(n) => edits += n,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        for (file, _) in &case.readers {
            let reader = format!("vectors/{topic}/{file}");
            match karmem_vectors_rust::edit_absent_case(&reader, &case.root, bytes) {
                Ok(n) => absent += n,
                Err(e) => failures.push(format!("{name} edited as {file}: {e}")),
            }
        }
    }
    println!(
        "{valid} valid vectors: {edits} fields edited; {absent} absent fields refused; {hostile} hostile messages"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Floors well under today's counts, so that a printer that stops
    // emitting edits fails here.
    assert!(
        edits >= 100 && absent >= 5 && hostile >= 20,
        "too few edits"
    );
}

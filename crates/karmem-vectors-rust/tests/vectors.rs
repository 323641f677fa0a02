//! Every golden vector through the generated Rust code: equal bytes, equal
//! value, reuse, validation, the value read through the checked and the
//! trusted viewers, and evolution reads across schema versions.
use std::path::Path;

use karmem_vectors::load_all;

#[test]
fn golden_vectors_through_generated_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let cases = load_all(&root);
    assert!(cases.len() >= 20);
    let mut failures = Vec::new();
    for case in &cases {
        let topic = case.dir.file_name().unwrap().to_string_lossy().to_string();
        let schema = format!("vectors/{topic}/{}", case.schema);
        let bytes = case
            .bytes
            .as_ref()
            .expect("run `make vectors` to create the .hex files");
        if let Some(h) = &case.hostile {
            let name = case.json_path().display().to_string();
            match karmem_vectors_rust::hostile_case(&schema, &case.root, bytes) {
                Err(e) => failures.push(format!("{name}: {e}")),
                Ok(v) => {
                    if v.valid.is_ok() != h.valid {
                        failures.push(format!("{name}: validation gives {:?}", v.valid));
                    }
                    if let (Some(kind), Err(e)) = (&h.error, &v.valid) {
                        let got = e;
                        if got.split([' ', '{', '(']).next() != Some(kind.as_str()) {
                            failures.push(format!("{name}: validation gives {got}, not {kind}"));
                        }
                    }
                    // A message the validator accepts reads through both
                    // kinds of viewers as it decodes.
                    if let (true, Ok((checked, trusted))) = (h.valid && h.decodes, &v.viewed) {
                        for (kind, got) in [("viewers", checked), ("trusted viewers", trusted)] {
                            if let Some(d) =
                                karmem_vectors_rust::views::differs(&case.value, got, "value")
                            {
                                failures.push(format!(
                                    "{name}: the value read through the {kind} differs: {d}"
                                ));
                            }
                        }
                    }
                    match v.decoded {
                        Ok(got) if !h.decodes => {
                            failures.push(format!("{name}: decoded, expected an error: {got}"))
                        }
                        Ok(got) if got != case.value => {
                            failures.push(format!("{name}: decoded value differs: {got}"))
                        }
                        Err(e) if h.decodes => failures.push(format!("{name}: decode: {e}")),
                        _ => {}
                    }
                }
            }
            continue;
        }
        if let Err(e) = karmem_vectors_rust::check_case(&schema, &case.root, &case.value, bytes) {
            failures.push(format!("{}: {e}", case.json_path().display()));
        }
        for (file, expected) in &case.readers {
            let reader = format!("vectors/{topic}/{file}");
            // Compared as typed objects, floats by bits (NaN has no JSON number).
            if let Err(e) = karmem_vectors_rust::read_case(&reader, &case.root, expected, bytes) {
                failures.push(format!("{} read by {file}: {e}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

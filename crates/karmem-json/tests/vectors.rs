//! Golden vectors against the interpretive codec: every case encodes to
//! exactly its bytes and decodes back to exactly its value; evolution cases
//! are read by the other schema version. `KARMEM_REGEN=1` rewrites the
//! `.hex` files and canonicalises the `.json` files instead (`make vectors`).

use std::path::Path;

use karmem_vectors::{format_hex, load_all};
use serde_json::{json, Map, Value};

fn load(dir: &Path, file: &str) -> (karmem_schema::model::Schema, karmem_layout::Layout) {
    let path = dir.join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    karmem_layout::load(&path.display().to_string(), &src)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

#[test]
fn golden_vectors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let regen = std::env::var_os("KARMEM_REGEN").is_some();
    let cases = load_all(&root);
    assert!(
        cases.len() >= 20,
        "expected the full vector set, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let (schema, layout) = load(&case.dir, &case.schema);
        let root_id = schema.struct_by_name(&case.root).expect("root type");
        if let Some(h) = &case.hostile {
            let bytes = h.bytes();
            let decoded = karmem_json::decode(&schema, &layout, root_id, &bytes);
            if regen {
                hostile_regen(case, &bytes, decoded.ok());
                continue;
            }
            let name = case.json_path().display().to_string();
            if case.bytes.as_ref() != Some(&bytes) {
                failures.push(format!(
                    "{name}: .hex is not the message (run `make vectors`)"
                ));
            }
            match decoded {
                Ok(v) if !h.decodes => {
                    failures.push(format!("{name}: decoded, expected an error: {v}"))
                }
                Ok(v) if v != case.value => failures.push(format!("{name}: decoded value differs")),
                Err(e) if h.decodes => failures.push(format!("{name}: {e}")),
                _ => {}
            }
            continue;
        }
        let bytes = karmem_json::encode(&schema, &layout, root_id, &case.value)
            .unwrap_or_else(|e| panic!("{}: {e}", case.json_path().display()));
        if regen {
            let canonical = karmem_json::decode(&schema, &layout, root_id, &bytes).unwrap();
            let mut doc = Map::new();
            if case.schema != "schema.km" {
                doc.insert("schema".into(), json!(case.schema));
            }
            doc.insert("root".into(), json!(case.root));
            doc.insert("value".into(), canonical);
            if !case.readers.is_empty() {
                let mut readers = Map::new();
                for (file, _) in &case.readers {
                    let (s2, l2) = load(&case.dir, file);
                    let id2 = s2.struct_by_name(&case.root).unwrap();
                    readers.insert(
                        file.clone(),
                        karmem_json::decode(&s2, &l2, id2, &bytes).unwrap(),
                    );
                }
                doc.insert("readers".into(), Value::Object(readers));
            }
            let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap() + "\n";
            std::fs::write(case.json_path(), text).unwrap();
            std::fs::write(case.hex_path(), format_hex(&bytes)).unwrap();
            continue;
        }
        let name = case.json_path().display().to_string();
        match &case.bytes {
            None => failures.push(format!("{name}: no .hex file (run `make vectors`)")),
            Some(expected) if *expected != bytes => {
                failures.push(format!("{name}: encoding differs from the golden bytes"))
            }
            Some(expected) => {
                let decoded = karmem_json::decode(&schema, &layout, root_id, expected).unwrap();
                if decoded != case.value {
                    failures.push(format!(
                        "{name}: decoded value differs:\n{decoded}\nexpected:\n{}",
                        case.value
                    ));
                }
                for (file, value) in &case.readers {
                    let (s2, l2) = load(&case.dir, file);
                    let id2 = s2.struct_by_name(&case.root).unwrap();
                    let got = karmem_json::decode(&s2, &l2, id2, expected).unwrap();
                    if got != *value {
                        failures.push(format!(
                            "{name}: read by {file}:\n{got}\nexpected:\n{value}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A hostile case is written back with the message it describes and what
/// the oracle decodes from it (no `value`: the oracle refuses it).
fn hostile_regen(case: &karmem_vectors::Case, bytes: &[u8], decoded: Option<Value>) {
    let text = std::fs::read_to_string(case.json_path()).unwrap();
    let mut doc: Map<String, Value> = serde_json::from_str(&text).unwrap();
    doc.remove("value");
    if let Some(v) = decoded {
        doc.insert("value".into(), v);
    }
    let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap() + "\n";
    std::fs::write(case.json_path(), text).unwrap();
    std::fs::write(case.hex_path(), format_hex(bytes)).unwrap();
}

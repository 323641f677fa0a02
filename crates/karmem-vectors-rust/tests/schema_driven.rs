//! Differential: the schema-driven validator (`karmem-validate`, `karmem
//! validate`) against the generated Rust validators on every golden and
//! hostile vector, each also truncated at every length and with each byte
//! flipped two ways: both accept, or both refuse with the same error (kind
//! and offset).

use std::path::Path;

use karmem_vectors::load_all;

#[test]
fn same_verdicts_as_the_generated_validators() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let (mut compared, mut refused) = (0u64, 0u64);
    let mut failures = Vec::new();
    for case in load_all(&root) {
        let topic = case.dir.file_name().unwrap().to_string_lossy().to_string();
        let key = format!("vectors/{topic}/{}", case.schema);
        let src = std::fs::read_to_string(case.dir.join(&case.schema)).unwrap();
        let (schema, layout) = karmem_layout::load(&case.schema, &src).unwrap();
        let id = schema.struct_by_name(&case.root).unwrap();
        let base = match &case.hostile {
            Some(h) => h.bytes(),
            None => case.bytes.clone().unwrap(),
        };
        let mut variants = vec![base.clone()];
        variants.extend((0..base.len()).map(|n| base[..n].to_vec()));
        for i in 8..base.len() {
            for flip in [0x01u8, 0xff] {
                let mut b = base.clone();
                b[i] ^= flip;
                variants.push(b);
            }
        }
        for bytes in variants {
            let buf = karmem::AlignedBuf::from_bytes(&bytes);
            let want = match karmem::Reader::new(buf.as_slice()) {
                Ok(r) => karmem_vectors_rust::validate_case(&key, &case.root, &r)
                    .unwrap_or_else(|| panic!("no generated {} in {key}", case.root)),
                Err(e) => Err(e),
            };
            let got = karmem_validate::validate(&schema, &layout, id, &bytes);
            if got != want {
                failures.push(format!(
                    "{key} {} ({} bytes): generated {want:?}, schema-driven {got:?}",
                    case.name,
                    bytes.len()
                ));
            }
            compared += 1;
            refused += want.is_err() as u64;
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences, first: {}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(compared > 100_000, "compared {compared}");
    eprintln!("{compared} messages compared, {refused} refused by both");
}

//! Differential: the schema-driven validator against the generated Rust
//! validators (build.rs) on every valid vector of ten topics, each
//! truncated at every length and with every byte flipped: both accept, or
//! both refuse with the same error (kind and offset).

use std::path::Path;

use karmem_vectors::load_all;

include!(concat!(env!("OUT_DIR"), "/generated.rs"));

fn generated(topic: &str, root: &str, r: &karmem::Reader) -> Option<Result<(), karmem::Error>> {
    match topic {
        "unions" => unions::validate_root(root, r),
        "maps" => maps::validate_root(root, r),
        "nested" => nested::validate_root(root, r),
        "struct_arrays" => struct_arrays::validate_root(root, r),
        "tuples" => tuples::validate_root(root, r),
        "optional" => optional::validate_root(root, r),
        "game" => game::validate_root(root, r),
        "hostile" => hostile::validate_root(root, r),
        "tables" => tables::validate_root(root, r),
        "inline" => inline::validate_root(root, r),
        _ => None,
    }
}

#[test]
fn same_verdicts_as_the_generated_validators() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let (mut compared, mut refused) = (0u64, 0u64);
    let mut failures = Vec::new();
    for case in load_all(&root) {
        if case.schema != "schema.km" {
            continue;
        }
        let path = case.dir.join(&case.schema);
        let src = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load("schema.km", &src).unwrap();
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
                Ok(r) => match generated(&case.topic, &case.root, &r) {
                    Some(result) => result,
                    None => break, // a topic not generated here
                },
                Err(e) => Err(e),
            };
            let got = karmem_validate::validate(&schema, &layout, id, &bytes);
            if got != want {
                failures.push(format!(
                    "{}/{} ({} bytes): generated {want:?}, schema-driven {got:?}",
                    case.topic,
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
    assert!(compared > 10_000, "compared {compared}");
    eprintln!("{compared} messages compared, {refused} refused by both");
}

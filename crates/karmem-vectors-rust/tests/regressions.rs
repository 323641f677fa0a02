//! Inputs found by fuzzing (`fuzz/`, target `generated_reader`), kept as
//! regression tests for the schema `testdata/schemas/all_layouts.km`: every
//! input may fail validation, but one that validates must decode.
use karmem_vectors_rust::schemas_all_layouts::Root;

#[test]
fn validated_fuzz_inputs_decode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let bytes = std::fs::read(entry.path()).unwrap();
        let buf = karmem::AlignedBuf::from_bytes(&bytes);
        let Ok(r) = karmem::Reader::new(buf.as_slice()) else {
            continue;
        };
        n += 1;
        if Root::validate(&r).is_ok() {
            let mut value = Root::default();
            value
                .read_as_root(&r)
                .unwrap_or_else(|e| panic!("{}: validated but {e}", entry.path().display()));
        }
    }
    assert!(n >= 1, "no regression inputs found");
}

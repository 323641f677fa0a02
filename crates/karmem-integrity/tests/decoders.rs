//! The JSON codec's interpretive decoder and the generated Rust decoder
//! charge the traversal budget alike (format.md §10), so they refuse the
//! same messages: the differential fuzz target's first finding
//! (fuzz/findings/differential/budget-json-vs-generated, SoA arrays of
//! `Item` with missing columns, and a fixed array) decodes in both at the
//! default factor 8 and in neither at 7. The codec used to charge for
//! building the zero value of each element and for fixed arrays, which the
//! generated decoder (and the format) does not.

#[test]
fn both_decoders_run_out_of_budget_at_the_same_factor() {
    let root = env!("CARGO_MANIFEST_DIR");
    let data = std::fs::read(format!(
        "{root}/../../fuzz/findings/differential/budget-json-vs-generated"
    ))
    .unwrap();
    let (_, message) = data.split_first().unwrap();
    let source =
        std::fs::read_to_string(format!("{root}/../../testdata/integrity/new.km")).unwrap();
    let schema = karmem_schema::compile("new.km", &source).unwrap().schema;
    let layout = karmem_layout::compute(&schema).unwrap();
    let id = schema
        .structs
        .iter()
        .position(|s| s.name == "Root")
        .unwrap();
    let copy = karmem::AlignedBuf::from_bytes(message);
    for factor in 1..=12u32 {
        let json = karmem_json::decode_with(
            &schema,
            &layout,
            id,
            copy.as_slice(),
            karmem_json::Limits {
                traversal_budget_factor: u64::from(factor),
                ..Default::default()
            },
        );
        let limits = karmem::Limits {
            traversal_budget_factor: factor,
            ..Default::default()
        };
        let r = karmem::Reader::with_limits(copy.as_slice(), limits).unwrap();
        let generated = karmem_integrity::new_schema::Root::default().read_as_root(&r);
        assert_eq!(
            json.is_ok(),
            generated.is_ok(),
            "factor {factor}: JSON codec {:?}, generated decoder {:?}",
            json.err(),
            generated.err()
        );
        assert_eq!(json.is_ok(), factor >= 8, "factor {factor}");
    }
}

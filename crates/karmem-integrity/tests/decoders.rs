//! The JSON codec's interpretive decoder and the generated Rust decoder
//! charge the traversal budget alike (format.md §10), so they refuse the
//! same messages at every budget factor. The differential fuzz target's
//! first finding (fuzz/findings/differential/budget-json-vs-generated, SoA
//! arrays of `Item` with missing columns, and a fixed array) showed the
//! codec charging for building the zero value of each element and for
//! fixed arrays, which the generated decoder (and the format) does not.
//! Those bytes were found under the first inline-struct layout; since
//! RATIONALE R2.18 they read differently and decode at every factor, so
//! the property is checked on messages that make the same demand today:
//! messages of the older schema (`old.km`) read with the newer one, whose
//! SoA elements miss the columns appended since and whose tables miss
//! fields holding fixed arrays, built as zero values (format.md §10,
//! "Evolution").

use karmem_integrity::{produce, Version};

/// Decodes `message` with `new.km` through both decoders at `factor`:
/// whether each accepted it.
fn both(message: &[u8], factor: u32) -> (bool, bool) {
    let root = env!("CARGO_MANIFEST_DIR");
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
    let generated = match karmem::Reader::with_limits(copy.as_slice(), limits) {
        Ok(r) => karmem_integrity::new_schema::Root::default()
            .read_as_root(&r)
            .is_ok(),
        Err(_) => false,
    };
    (json.is_ok(), generated)
}

#[test]
fn both_decoders_run_out_of_budget_at_the_same_factor() {
    let root = env!("CARGO_MANIFEST_DIR");
    let data = std::fs::read(format!(
        "{root}/../../fuzz/findings/differential/budget-json-vs-generated"
    ))
    .unwrap();
    let (_, finding) = data.split_first().unwrap();
    let mut messages = vec![finding.to_vec()];
    // Seeds 1, 5, 9, …: the sizes with a few elements per array (docs/integrity.md §1).
    messages.extend((0..48).map(|k| produce(Version::Old, 4 * k + 1).unwrap()));
    messages.extend((0..24).map(|k| produce(Version::Old, 4 * k + 2).unwrap()));
    let (mut refused, mut accepted) = (0, 0);
    for (i, m) in messages.iter().enumerate() {
        for factor in 1..=12u32 {
            let (json, generated) = both(m, factor);
            assert_eq!(
                json, generated,
                "message {i}, factor {factor}: JSON codec {json}, generated decoder {generated}"
            );
            if json {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    // Both outcomes occur: the budget is what decides, not the bytes alone.
    assert!(
        refused > 0 && accepted > 0,
        "refused {refused}, accepted {accepted}"
    );
}

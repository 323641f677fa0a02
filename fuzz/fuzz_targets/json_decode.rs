//! The interpretive decoder (`karmem json decode`) and the schema-driven
//! validator (`karmem validate`) on hostile bytes, for every root type of a
//! schema that uses every layout. A message that validates also decodes
//! (the budget a validator charges covers what a decoder builds, format.md
//! §10).
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Compiled {
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
}

fn compile(name: &str, source: &str) -> Compiled {
    let schema = karmem_schema::compile(name, source)
        .expect("valid schema")
        .schema;
    let layout = karmem_layout::compute(&schema).expect("valid layout");
    Compiled { schema, layout }
}

/// A schema that uses every layout, the hostile vectors' schema
/// (elements without columns, AoS tables), and those of optional fields,
/// defaults, arrays of arrays, maps and tuples.
fn compiled() -> &'static [Compiled; 7] {
    static C: OnceLock<[Compiled; 7]> = OnceLock::new();
    C.get_or_init(|| {
        [
            compile("all.km", include_str!("../schemas/all.km")),
            compile(
                "hostile.km",
                include_str!("../../testdata/vectors/hostile/schema.km"),
            ),
            compile(
                "optional.km",
                include_str!("../../testdata/vectors/optional/schema.km"),
            ),
            compile(
                "defaults.km",
                include_str!("../../testdata/vectors/defaults/new.km"),
            ),
            compile(
                "nested.km",
                include_str!("../../testdata/vectors/nested/schema.km"),
            ),
            compile(
                "maps.km",
                include_str!("../../testdata/vectors/maps/schema.km"),
            ),
            compile(
                "tuples.km",
                include_str!("../../testdata/vectors/tuples/schema.km"),
            ),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the schema and the root type so one target
    // covers all of them.
    let Some((&pick, message)) = data.split_first() else {
        return;
    };
    let c = &compiled()[(pick & 7) as usize % 7];
    let root = (pick >> 3) as usize % c.schema.structs.len();
    // The traversal budget bounds the work and memory (format.md §10;
    // scripts/fuzz.sh runs with a 256 MB malloc limit).
    let valid = karmem_validate::validate(&c.schema, &c.layout, root, message).is_ok();
    let decoded = karmem_json::decode(&c.schema, &c.layout, root, message);
    if valid {
        assert!(decoded.is_ok(), "validated but does not decode: {decoded:?}");
    }
    if let Ok(value) = decoded {
        // Whatever decodes re-encodes (the decoder only returns values the
        // schema can express), canonically: decoding the new bytes gives
        // the same value, and encoding it again the same bytes.
        let bytes = karmem_json::encode(&c.schema, &c.layout, root, &value).expect("re-encode");
        // The budget is relative to the message's size (format.md §10), and
        // the canonical encoding may be much smaller than the hostile one
        // (no gaps, shared directories) while it holds as many elements
        // without columns, each charged one unit for no bytes: decode it
        // again with the budget the first decode had.
        let mut limits = karmem_json::Limits::default();
        limits.traversal_budget_factor *= (message.len() / bytes.len().max(1)) as u64 + 1;
        let again = karmem_json::decode_with(&c.schema, &c.layout, root, &bytes, limits)
            .expect("decode again");
        assert_eq!(again, value);
        let bytes2 = karmem_json::encode(&c.schema, &c.layout, root, &again).expect("encode again");
        assert_eq!(bytes, bytes2);
    }
});

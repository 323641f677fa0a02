//! The interpretive decoder (`karmem json decode`) on hostile bytes, for
//! every root type of a schema that uses every layout.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Compiled {
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let source = include_str!("../schemas/all.km");
        let schema = karmem_schema::compile("all.km", source)
            .expect("valid schema")
            .schema;
        let layout = karmem_layout::compute(&schema).expect("valid layout");
        Compiled { schema, layout }
    })
}

fuzz_target!(|data: &[u8]| {
    let c = compiled();
    // The first byte picks the root type so one target covers all of them.
    let Some((&pick, message)) = data.split_first() else {
        return;
    };
    let root = pick as usize % c.schema.structs.len();
    if let Ok(value) = karmem_json::decode(&c.schema, &c.layout, root, message) {
        // Whatever decodes must re-encode (the decoder only returns values
        // the schema can express).
        let _ = karmem_json::encode(&c.schema, &c.layout, root, &value);
    }
});

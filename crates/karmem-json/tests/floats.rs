//! Non-finite floats in the JSON conventions (testdata/vectors/README.md):
//! exact bits on encoding, canonical strings on decoding, other strings
//! refused.
use serde_json::json;

fn floats() -> (karmem_schema::model::Schema, karmem_layout::Layout) {
    karmem_layout::load("t.km", "karmem t;\nstruct F inline { A f32; B f64; }\n")
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

fn encode(value: serde_json::Value) -> Result<Vec<u8>, karmem_json::Error> {
    let (s, l) = floats();
    karmem_json::encode(&s, &l, 0, &value)
}

#[test]
fn strings_give_exact_bits() {
    let b = encode(json!({ "A": "NaN", "B": "-Infinity" })).unwrap();
    assert_eq!(b[8..12], 0x7fc0_0000u32.to_le_bytes());
    assert_eq!(b[16..24], 0xfff0_0000_0000_0000u64.to_le_bytes());
    let b = encode(json!({ "A": -0.0, "B": "Infinity" })).unwrap();
    assert_eq!(b[8..12], 0x8000_0000u32.to_le_bytes());
    assert_eq!(b[16..24], 0x7ff0_0000_0000_0000u64.to_le_bytes());
}

#[test]
fn any_nan_decodes_as_the_string() {
    let (s, l) = floats();
    let mut b = encode(json!({ "A": 1.0, "B": 1.0 })).unwrap();
    // A NaN with sign and payload: still "NaN" (the canonical form).
    b[8..12].copy_from_slice(&0xffc0_0001u32.to_le_bytes());
    b[16..24].copy_from_slice(&0x7ff0_0000_0000_0001u64.to_le_bytes());
    let v = karmem_json::decode(&s, &l, 0, &b).unwrap();
    assert_eq!(v, json!({ "A": "NaN", "B": "NaN" }));
    b[8..12].copy_from_slice(&0xff80_0000u32.to_le_bytes());
    b[16..24].copy_from_slice(&0x8000_0000_0000_0000u64.to_le_bytes());
    let v = karmem_json::decode(&s, &l, 0, &b).unwrap();
    assert_eq!(v, json!({ "A": "-Infinity", "B": -0.0 }));
    assert!(v["B"].as_f64().unwrap().is_sign_negative());
}

#[test]
fn other_strings_are_refused() {
    for bad in ["nan", "inf", "+Infinity", "1.5", ""] {
        let e = encode(json!({ "A": bad })).unwrap_err();
        assert!(e.0.contains("\"NaN\""), "{bad}: {e}");
    }
}

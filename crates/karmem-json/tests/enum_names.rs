//! Enum values in JSON: written as names where the schema declares one,
//! read as names or numbers (testdata/vectors/README.md).

use serde_json::{json, Value};

const SCHEMA: &str = "karmem e;
enum Net u8 { Unknown; Facebook; Instagram = 9; }
struct Inner inline { N Net; }
struct Root table {
    One Net;
    List []Net;
    Fixed [2]Net;
    Items []Inner;
}
";

fn codec() -> (karmem_schema::model::Schema, karmem_layout::Layout, usize) {
    let (schema, layout) = karmem_layout::load("e.km", SCHEMA).unwrap();
    let root = schema.struct_by_name("Root").unwrap();
    (schema, layout, root)
}

fn encode(v: &Value) -> Result<Vec<u8>, String> {
    let (s, l, root) = codec();
    karmem_json::encode(&s, &l, root, v).map_err(|e| e.to_string())
}

fn decode(bytes: &[u8]) -> Value {
    let (s, l, root) = codec();
    karmem_json::decode(&s, &l, root, bytes).unwrap()
}

#[test]
fn names_and_numbers_give_the_same_bytes_and_decode_as_names() {
    let named = json!({
        "One": "Instagram",
        "List": ["Facebook", "Unknown", "Instagram"],
        "Fixed": ["Instagram", "Facebook"],
        "Items": [{"N": "Facebook"}, {"N": "Instagram"}],
    });
    let numbered = json!({
        "One": 9,
        "List": [1, 0, 9],
        "Fixed": [9, 1],
        "Items": [{"N": 1}, {"N": 9}],
    });
    let bytes = encode(&named).unwrap();
    assert_eq!(bytes, encode(&numbered).unwrap());
    assert_eq!(decode(&bytes), named);
}

#[test]
fn numbers_the_schema_does_not_name_stay_numbers() {
    let v = json!({"One": 200, "List": [3], "Fixed": ["Facebook", 7], "Items": [{"N": 5}]});
    assert_eq!(decode(&encode(&v).unwrap()), v);
}

#[test]
fn an_unknown_name_is_an_error_that_lists_the_names() {
    let e = encode(&json!({"One": "Facebok"})).unwrap_err();
    assert!(
        e.contains(
            "`Facebok` is not a value of enum `Net` (its values: Unknown, Facebook, Instagram)"
        ),
        "{e}"
    );
    assert!(e.contains("One"), "the path is named: {e}");
    let e = encode(&json!({"List": ["Facebook", "Tiktok"]})).unwrap_err();
    assert!(e.contains("List[1]"), "{e}");
}

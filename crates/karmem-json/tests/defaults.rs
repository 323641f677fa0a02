//! Declared defaults in the JSON codec (docs/idl.md §4.3.1): a field left
//! out or given as `null` is encoded as its default (in a table, in an SoA
//! element, inside a nested table left out as a whole); a message that
//! lacks a field decodes to its default.

use std::path::Path;

use serde_json::{json, Value};

fn vectors(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/defaults")
        .join(file);
    std::fs::read_to_string(path).unwrap()
}

fn encode(schema: &str, v: &Value) -> Vec<u8> {
    let (s, l) = karmem_layout::load(schema, &vectors(schema)).unwrap();
    let root = s.struct_by_name("Root").unwrap();
    karmem_json::encode(&s, &l, root, v).unwrap()
}

fn decode(schema: &str, bytes: &[u8]) -> Value {
    let (s, l) = karmem_layout::load(schema, &vectors(schema)).unwrap();
    let root = s.struct_by_name("Root").unwrap();
    karmem_json::decode(&s, &l, root, bytes).unwrap()
}

#[test]
fn left_out_and_null_fields_are_written_as_their_defaults() {
    let golden = karmem_vectors::parse_hex(&vectors("new_defaults.hex"));
    let sparse = json!({"Version": 3, "Units": [{"Id": 1}], "Leader": {"Id": 2}});
    assert_eq!(encode("new.km", &sparse), golden);
    let nulls = json!({
        "Version": 3,
        "Units": [{"Id": 1, "Hp": null, "Name": null, "Side": null}],
        "Leader": {"Id": 2, "Speed": null},
        "Guards": null,
        "Motto": null,
    });
    assert_eq!(encode("new.km", &nulls), golden);
}

#[test]
fn an_absent_nested_table_holds_its_defaults() {
    let v = decode("new.km", &encode("new.km", &json!({})));
    assert_eq!(v["Leader"]["Hp"], 100);
    assert_eq!(v["Leader"]["Side"], "Orcs");
    assert_eq!(v["Leader"]["Name"], "anon");
    assert_eq!(v["Motto"], "für alle");
}

#[test]
fn an_older_message_decodes_to_the_defaults() {
    let old = encode(
        "old.km",
        &json!({"Version": 1, "Units": [{"Id": 5}], "Leader": {"Id": 6}}),
    );
    let v = decode("new.km", &old);
    assert_eq!(v["Units"][0]["Hp"], 100);
    assert_eq!(v["Units"][0]["Speed"], 1.5);
    assert_eq!(v["Units"][0]["Alive"], true);
    assert_eq!(v["Units"][0]["Score"], -7);
    assert_eq!(v["Leader"]["Ratio"], 0.1);
    assert_eq!(v["Tag"], "a\"b");
    // Stored zeros are values, not absence.
    let zeros = encode(
        "new.km",
        &json!({"Leader": {"Hp": 0, "Alive": false, "Name": ""}}),
    );
    let v = decode("new.km", &zeros);
    assert_eq!(v["Leader"]["Hp"], 0);
    assert_eq!(v["Leader"]["Alive"], false);
    assert_eq!(v["Leader"]["Name"], "");
}

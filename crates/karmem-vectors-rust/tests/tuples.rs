//! Tuples (docs/idl.md §3.3) through the generated Rust code: tuple
//! structs (`.0`, `.1`), viewers `f0()`, `f1()`, SoA columns of tuple
//! elements, tuples as map values, JSON arrays through serde.
use std::path::Path;

use karmem_vectors_rust::vectors_tuples_schema::*;

fn vector(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/tuples")
        .join(name);
    karmem_vectors::parse_hex(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn tuple_structs_and_views() {
    let buf = karmem::AlignedBuf::from_bytes(&vector("full.hex"));
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let root = Root::validate(&r).unwrap();
    assert_eq!((root.pos().f0(), root.pos().f1()), (1.5, -2.0));
    assert_eq!(root.named().f1(), "seven");
    assert!(root.nested().f1().f1());
    assert_eq!(root.with_table().f1().id(), 9);
    // An SoA array of a tuple: one column per element.
    assert_eq!(root.points().f2(), [3.0, 6.0]);
    assert_eq!(root.scores().get("b").unwrap().f1(), 0.25);

    let value = Root::from_bytes(buf.as_slice()).unwrap();
    let RootNamedTuple(number, text) = &value.named;
    assert_eq!((*number, text.as_str()), (7, "seven"));
    assert_eq!(value.nested.1 .0, -3);
    assert_eq!(value.maybe, Some(RootMaybeTuple(65535, "max".into())));
    assert_eq!(serde_json::to_string(&value.pos).unwrap(), "[1.5,-2.0]");
    assert_eq!(value.to_bytes().unwrap(), buf.as_slice());
}

//! Tuples (docs/idl.md §3.3): the declared struct, one test per
//! diagnostic, and formatting.

mod common;

use common::expect;

#[test]
fn a_tuple_is_a_declared_inline_struct() {
    let src = "karmem t;\nstruct T table { Pos (f32, (u8, string)); Path [](f32, f32); }\n";
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    let pos = &s.structs[s.struct_by_name("TPosTuple").unwrap()];
    assert!(pos.tuple);
    let names: Vec<&str> = pos.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["F0", "F1"]);
    // The tuple inside it is named after the field and its position.
    assert!(s.struct_by_name("TPosF1Tuple").unwrap() > 0);
    assert!(s.struct_by_name("TPathTuple").is_some());
}

#[test]
fn a_tuple_of_one_element() {
    expect(
        "karmem t;\nstruct T table { One (u8); }\n",
        "2:22",
        "a tuple needs at least two elements",
    );
}

#[test]
fn a_tuple_clashing_with_a_declared_type() {
    expect(
        "karmem t;\nstruct TPosTuple inline { X u8; }\nstruct T table { Pos (u8, u8); }\n",
        "3:22",
        "the tuple of `Pos` would be named `TPosTuple`, a declared type",
    );
}

#[test]
fn formatting_keeps_a_tuple_on_one_line() {
    let out =
        karmem_schema::format("t.km", "karmem t;\nstruct T table { Pos ( f32 ,f32 ); }\n").unwrap();
    assert!(out.contains("    Pos (f32, f32);\n"), "{out}");
}

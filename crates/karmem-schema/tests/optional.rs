//! Optional fields (docs/idl.md §4.3.2): what the model holds, the
//! recursion they allow, one test per diagnostic, and formatting.

mod common;

use common::{errors, expect};

#[test]
fn optional_fields_are_marked_in_the_model() {
    let src = "karmem t;
struct P inline { X ?f32; Y f32; }
struct Node table { Value i32; Next: ?Node; Kids ?[]Node; Name ?string; At ?P; }
";
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    let optional: Vec<(&str, bool)> = s
        .structs
        .iter()
        .flat_map(|st| &st.fields)
        .map(|f| (f.name.as_str(), f.optional))
        .collect();
    assert_eq!(
        optional,
        [
            ("X", true),
            ("Y", false),
            ("Value", false),
            ("Next", true),
            ("Kids", true),
            ("Name", true),
            ("At", true)
        ]
    );
}

#[test]
fn a_table_holds_itself_only_through_an_optional_field() {
    // Through `?Node` it compiles (the list above); without it the zero
    // value would be infinite, and the hint says how to fix it.
    let src = "karmem t;\nstruct Node table { Value i32; Next Node; }\n";
    expect(src, "2:32", "struct `Node` contains itself: Node → Node");
    assert!(errors(src).contains("make the field optional (`?Node`)"));
    // An optional inline struct is still embedded: no way out.
    expect(
        "karmem t;\nstruct A inline { X u8; Me ?A; }\n",
        "2:8",
        "inline struct `A` contains itself: A → A",
    );
}

#[test]
fn a_union_is_optional_already() {
    expect(
        "karmem t;\nstruct C table { R f32; }\nunion S { C; }\nstruct T table { Shape ?S; }\n",
        "4:24",
        "union `S` is optional already",
    );
}

#[test]
fn a_fixed_array_cannot_be_optional() {
    expect(
        "karmem t;\nstruct T table { Four ?[4]f32; }\n",
        "2:23",
        "a fixed array cannot be optional",
    );
}

#[test]
fn an_optional_field_has_no_default() {
    expect(
        "karmem t;\nstruct T table { Hp ?u16 = 100; }\n",
        "2:28",
        "optional field `Hp` cannot have a default",
    );
}

#[test]
fn array_elements_cannot_be_optional() {
    expect(
        "karmem t;\nstruct T table { Hps []?u16; }\n",
        "2:24",
        "expected an element type, found `?`",
    );
}

#[test]
fn formatting_keeps_the_question_mark_on_its_type() {
    let src = "karmem t;\nstruct T table { Next: ? T; Tags ? [] u32; }\n";
    let out = karmem_schema::format("t.km", src).unwrap();
    assert!(out.contains("    Next: ?T;\n"), "{out}");
    assert!(out.contains("    Tags ?[]u32;\n"), "{out}");
}

//! `@packed(true)` in a file's header (docs/idl.md §4.1): a field's own
//! dynamic or limited array of structs is AoS unless it says `#soa`;
//! everything else keeps its layout.
use karmem_schema::model::*;

const BODY: &str = "
struct V inline { X f32; Y f32; }
struct T table { N u8; }
union U { V; T; }
enum E u8 { A; B; }

struct S table {
    Inline   []V;
    Tables   []T;
    Limited  [<4]V;
    Optional ?[]V;
    Columns  []V #soa;
    Rows     []V #aos;
    Unions   []U;
    Numbers  []u32;
    Enums    []E;
    Fixed    [2]V;
    Nested   [][]V;
    Values   map<u8, []V>;
    Pairs    [](f32, f32);
}
";

/// The layout of each field of `S` that is an array, by name; for `Nested`
/// and `Values`, the layout of the array that holds the structs.
fn layouts(header: &str) -> Vec<(String, ArrayLayout)> {
    let src = format!("{header}\n{BODY}");
    let s = karmem_schema::compile("t.km", &src)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
        .schema;
    let inner = |a: &ArrayType| match a.elem {
        ElemType::Array(i) => s.arrays[i].layout,
        _ => a.layout,
    };
    s.structs[s.struct_by_name("S").unwrap()]
        .fields
        .iter()
        .map(|f| {
            let layout = match &f.ty {
                FieldType::Array(a) if a.layout == ArrayLayout::Map => {
                    // The entry struct's `Value` field.
                    let ElemType::Struct(entry) = a.elem else {
                        panic!("a map holds entries")
                    };
                    match &s.structs[entry].fields[1].ty {
                        FieldType::Array(v) => v.layout,
                        other => panic!("{other:?}"),
                    }
                }
                FieldType::Array(a) => inner(a),
                other => panic!("{}: {other:?}", f.name),
            };
            (f.name.clone(), layout)
        })
        .collect()
}

fn expected(structs: ArrayLayout) -> Vec<(String, ArrayLayout)> {
    use ArrayLayout::*;
    [
        ("Inline", structs),
        ("Tables", structs),
        ("Limited", structs),
        ("Optional", structs),
        ("Columns", Soa),
        ("Rows", Aos),
        ("Unions", Soa),
        ("Numbers", Plain),
        ("Enums", Plain),
        ("Fixed", Aos),
        ("Nested", Soa),
        ("Values", Soa),
        ("Pairs", structs),
    ]
    .into_iter()
    .map(|(n, l)| (n.to_string(), l))
    .collect()
}

#[test]
fn packed_true_makes_a_fields_arrays_of_structs_aos() {
    assert_eq!(
        layouts("karmem p @packed(true);"),
        expected(ArrayLayout::Aos)
    );
    // Quoted, as other header attribute values may be.
    assert_eq!(
        layouts("karmem p @packed(`true`);"),
        expected(ArrayLayout::Aos)
    );
}

#[test]
fn packed_false_or_absent_keeps_soa() {
    assert_eq!(layouts("karmem p;"), expected(ArrayLayout::Soa));
    assert_eq!(
        layouts("karmem p @packed(false);"),
        expected(ArrayLayout::Soa)
    );
}

#[test]
fn the_seed_readme_schema_is_packed() {
    let src = include_str!("../../../testdata/vectors/seed/schema.km");
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    let account = &s.structs[s.struct_by_name("AccountData").unwrap()];
    let FieldType::Array(profiles) = &account.fields[2].ty else {
        panic!("Profiles is an array")
    };
    assert_eq!(profiles.layout, ArrayLayout::Aos);
}

#[test]
fn a_second_packed_is_an_error() {
    for header in [
        "karmem t @packed(true) @packed(false);",
        "karmem t @packed(true) @golang.package(`t`) @packed(true);",
    ] {
        let src = format!("{header}\n{BODY}");
        let diags = karmem_schema::compile("t.km", &src).expect_err(header);
        let text = diags.render(false);
        assert!(
            text.contains("duplicate schema attribute `@packed`")
                && text.contains("first given here"),
            "{header}: {text}"
        );
    }
}

//! Maps (docs/idl.md §3.2): the entry struct in the model, one test per
//! diagnostic, and formatting.

mod common;

use common::expect;
use karmem_schema::model::*;

#[test]
fn a_map_is_an_array_of_its_entry_struct() {
    let src = "karmem t;\nenum Team u8 { A; B; }\nstruct T table { Ages map<string, u8>; ByTeam map<Team, []f32>; }\n";
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    let t = &s.structs[s.struct_by_name("T").unwrap()];
    let FieldType::Array(a) = &t.fields[0].ty else {
        panic!("a map is an array")
    };
    assert!(a.is_map());
    let ElemType::Struct(entry) = a.elem else {
        panic!("of its entry struct")
    };
    let entry = &s.structs[entry];
    assert_eq!(entry.name, "TAgesEntry");
    assert_eq!(entry.kind, StructKind::Inline);
    let names: Vec<&str> = entry.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["Key", "Value"]);
    assert!(s.struct_by_name("TByTeamEntry").is_some());
}

#[test]
fn a_key_that_cannot_be_ordered() {
    for key in ["f32", "bool", "[]u8", "P"] {
        expect(
            &format!(
                "karmem t;\nstruct P inline {{ X u8; }}\nstruct T table {{ M map<{key}, u8>; }}\n"
            ),
            "3:24",
            "a map key must be an integer, an enum or `string`",
        );
    }
}

#[test]
fn an_array_of_maps_is_an_array_of_arrays() {
    let src = "karmem t;\nstruct T table { M [<4]map<u8, string>; }\n";
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    let FieldType::Array(outer) = &s.structs[0].fields[0].ty else {
        panic!("an array")
    };
    let ElemType::Array(inner) = outer.elem else {
        panic!("of arrays")
    };
    assert!(s.arrays[inner].is_map());
    assert!(s.struct_by_name("TMItemEntry").is_some());
    expect(
        "karmem t;\nstruct T table { M [2]map<u8, u8>; }\n",
        "2:20",
        "a fixed array cannot hold an array",
    );
}

#[test]
fn an_entry_struct_clashing_with_a_declared_type() {
    expect(
        "karmem t;\nstruct TAgesEntry inline { X u8; }\nstruct T table { Ages map<string, u8>; }\n",
        "3:18",
        "the entries of map `Ages` would be named `TAgesEntry`, a declared type",
    );
}

#[test]
fn formatting_hugs_the_angle_brackets() {
    let out = karmem_schema::format(
        "t.km",
        "karmem t;\nstruct T table { M map < string , u8 >; }\n",
    )
    .unwrap();
    assert!(out.contains("    M map<string, u8>;\n"), "{out}");
}

/// The generated names of docs/idl.md §3.2–3.3 for fields written in the
/// paper's lower-case style: the field's words capitalised
/// (`GamePlayersEntry`, not `GameplayersEntry`), for maps, arrays of maps
/// and tuples alike; and the name the doc gives is the one that clashes.
#[test]
fn generated_names_capitalise_the_field() {
    let src = "karmem t;\nstruct Game table {\n    players: map<u64, u8>;\n    by_name: [](string, u8);\n    many: []map<u8, u8>;\n}\n";
    let s = karmem_schema::compile("t.km", src).unwrap().schema;
    for name in ["GamePlayersEntry", "GameByNameTuple", "GameManyItemEntry"] {
        assert!(s.struct_by_name(name).is_some(), "{name}");
    }
    expect(
        "karmem t;\nstruct GamePlayersEntry inline { X u8; }\nstruct Game table { players: map<u64, u8>; }\n",
        "3:21",
        "the entries of map `players` would be named `GamePlayersEntry`, a declared type",
    );
}

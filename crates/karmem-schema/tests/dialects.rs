//! Both dialects compile unchanged; the formatter is idempotent, keeps every
//! comment and never changes what a schema means.
use karmem_schema::model::*;

const SEED_APP: &str = include_str!("../../../testdata/vectors/seed/schema.km");
const SEED_GAME: &str = include_str!("../../../testdata/vectors/game/schema.km");
const PAPER: &str = include_str!("../../../testdata/schemas/paper.km");
const ALL: &str = include_str!("../../../testdata/schemas/all_layouts.km");

fn compile(src: &str) -> Schema {
    karmem_schema::compile("t.km", src)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
        .schema
}

#[test]
fn seed_readme_schema_compiles_unchanged() {
    let s = compile(SEED_APP);
    assert_eq!(s.package, "app");
    assert_eq!(s.attribute("golang.package"), Some("app"));
    assert_eq!(s.attribute("packed"), Some("true"));
    let net = &s.enums[s.enum_by_name("SocialNetwork").unwrap()];
    assert_eq!(net.repr, Primitive::U8);
    let values: Vec<i128> = net.variants.iter().map(|v| v.value).collect();
    assert_eq!(values, [0, 1, 2, 3, 4]);
    let account = &s.structs[s.struct_by_name("AccountData").unwrap()];
    assert_eq!(account.kind, StructKind::Table);
    let FieldType::Array(email) = &account.fields[1].ty else {
        panic!()
    };
    assert_eq!(email.text, Some(Text::Utf8));
    let FieldType::Array(profiles) = &account.fields[2].ty else {
        panic!()
    };
    // `@packed(true)`: AoS, as the first Karmem stored every array.
    assert_eq!(profiles.layout, ArrayLayout::Aos);
    assert_eq!(
        s.structs[s.struct_by_name("Profile").unwrap()].kind,
        StructKind::Inline
    );
}

#[test]
fn seed_game_schema_compiles_unchanged() {
    let s = compile(SEED_GAME);
    let data = &s.structs[s.struct_by_name("MonsterData").unwrap()];
    let kinds: Vec<String> = data.fields.iter().map(|f| format!("{:?}", f.ty)).collect();
    assert!(kinds[5].contains("Limited(128)"), "{kinds:?}");
    assert!(
        kinds[6].contains("Fixed(4)") && kinds[6].contains("F64"),
        "{kinds:?}"
    );
    assert!(
        kinds[8].contains("Limited(128)") && kinds[8].contains("Soa"),
        "{kinds:?}"
    );
}

#[test]
fn paper_dialect_with_interfaces() {
    let s = compile(PAPER);
    let dynamic = &s.structs[s.struct_by_name("another_struct").unwrap()];
    assert_eq!(dynamic.kind, StructKind::Table);
    assert_eq!(
        s.structs[s.struct_by_name("point2d").unwrap()].kind,
        StructKind::Inline
    );
    let particle = &s.structs[s.struct_by_name("particle").unwrap()];
    let FieldType::Array(pos) = &particle.fields[0].ty else {
        panic!()
    };
    assert_eq!(pos.layout, ArrayLayout::BoVoS);
    let FieldType::Array(name) = &particle.fields[1].ty else {
        panic!()
    };
    assert_eq!(name.text, Some(Text::Utf16));
    let u = &s.unions[0];
    assert_eq!(u.tag, Primitive::U8);
    assert_eq!(u.doc, ["Either a 2D or a 3D point (Figure 3)."]);
    let i = &s.interfaces[0];
    assert!(i.dynamic);
    assert_eq!(i.pattern, Pattern::FanOut);
    let shared = &s.memories[i.memories[0]];
    assert_eq!(
        (shared.importer, shared.exporter, shared.max_pages),
        (Access::ReadWrite, Access::Read, 64)
    );
    let f = &i.functions[0];
    assert_eq!(f.params[0].memory, Some(i.memories[0]));
    assert_eq!(f.result.as_ref().unwrap().memory, Some(i.memories[1]));
}

#[test]
fn forward_references_resolve() {
    let s = compile("karmem a;\nstruct A table { B B; L []Later; }\nstruct B inline { X u8; }\nstruct Later table { }\n");
    assert_eq!(s.structs.len(), 3);
}

#[test]
fn formatter_is_idempotent_and_keeps_meaning() {
    for src in [SEED_APP, SEED_GAME, PAPER, ALL] {
        let once = karmem_schema::format("t.km", src).unwrap();
        let twice = karmem_schema::format("t.km", &once).unwrap();
        assert_eq!(once, twice, "not idempotent");
        let strip = |s: &Schema| {
            format!(
                "{:?}",
                (
                    &s.enums
                        .iter()
                        .map(|e| (
                            &e.name,
                            e.repr,
                            e.variants
                                .iter()
                                .map(|v| (&v.name, v.value))
                                .collect::<Vec<_>>()
                        ))
                        .collect::<Vec<_>>(),
                    s.structs
                        .iter()
                        .map(|st| (
                            &st.name,
                            st.kind,
                            st.fields
                                .iter()
                                .map(|f| (&f.name, &f.ty))
                                .collect::<Vec<_>>()
                        ))
                        .collect::<Vec<_>>()
                )
            )
        };
        assert_eq!(
            strip(&compile(src)),
            strip(&compile(&once)),
            "formatting changed the schema"
        );
    }
}

#[test]
fn formatter_keeps_comments_and_dialect() {
    let src = "karmem  app @golang.package(`app`);// header\n/* block */\nenum E uint8 {A;B=5;}\n/// doc\nstruct S table { X uint64; // trailing\n\n\n Y []char; }\n";
    let out = karmem_schema::format("t.km", src).unwrap();
    assert_eq!(
        out,
        "karmem app @golang.package(`app`); // header\n\n/* block */\nenum E uint8 {\n    A;\n    B = 5;\n}\n\n/// doc\nstruct S table {\n    X uint64; // trailing\n\n    Y []char;\n}\n"
    );
}

#[test]
fn formatter_refuses_syntax_errors() {
    let err = karmem_schema::format("t.km", "karmem a;\nstruct {\n").unwrap_err();
    assert!(err.render(false).contains("t.km:2:8"));
}

#[test]
fn enum_type_in_parentheses_means_the_bare_type() {
    let bare = compile("karmem a;\nenum E u8 { A; B = 7; }\nenum S int16 { Z = -1; O; }\n");
    let paren = compile("karmem a;\nenum E (u8) { A; B = 7; }\nenum S (int16) { Z = -1; O; }\n");
    let shape = |s: &Schema| {
        s.enums
            .iter()
            .map(|e| {
                let values: Vec<i128> = e.variants.iter().map(|v| v.value).collect();
                (e.name.clone(), e.repr, values)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&paren), shape(&bare));
    assert_eq!(paren.enums[0].repr, Primitive::U8);
    assert_eq!(paren.enums[1].repr, Primitive::I16);
}

#[test]
fn formatter_prints_parenthesised_enum_and_union_types_canonically() {
    let src = "karmem a;\nenum E(  u8 ){A;B}\nstruct C table { }\nunion U( u16){C}\n";
    let once = karmem_schema::format("t.km", src).unwrap();
    assert_eq!(
        once,
        "karmem a;\n\nenum E (u8) {\n    A;\n    B\n}\n\nstruct C table {\n}\n\nunion U (u16) {\n    C\n}\n"
    );
    let twice = karmem_schema::format("t.km", &once).unwrap();
    assert_eq!(once, twice, "not idempotent");
    assert_eq!(compile(&once).enums[0].repr, Primitive::U8);
}

#[test]
fn formatter_puts_one_member_per_line() {
    // docs/idl.md §11: values separated by `,` and members followed by a
    // block comment on the same line each get their own line; the comment
    // stays with the member before it.
    let src = "karmem a;\nenum F(u8){Z,B=3,}\nunion U u8 { A: F, B: F }\nstruct S table { a: u8; /* c */ b: u8; /* d */ /* e */ c: u8; }\n";
    let once = karmem_schema::format("t.km", src).unwrap();
    assert_eq!(
        once,
        "karmem a;\n\nenum F (u8) {\n    Z,\n    B = 3,\n}\n\nunion U u8 {\n    A: F,\n    B: F\n}\n\nstruct S table {\n    a: u8; /* c */\n    b: u8; /* d */\n    /* e */\n    c: u8;\n}\n"
    );
    let twice = karmem_schema::format("t.km", &once).unwrap();
    assert_eq!(once, twice, "not idempotent");
    // Commas inside parentheses do not break lines.
    let src = "karmem a;\nstruct P table { X u8; }\ninterface I { f: fn(a: P, b: P) -> P; }\n";
    let out = karmem_schema::format("t.km", src).unwrap();
    assert!(out.contains("    f: fn(a: P, b: P) -> P;\n"), "{out}");
}

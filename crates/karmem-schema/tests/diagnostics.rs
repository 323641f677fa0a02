//! One test per diagnostic: the message text, the `file:line:col` it points
//! at, and that a hint is given.

mod common;

use common::{errors, expect};

#[test]
fn missing_header() {
    expect(
        "struct A inline { X u8; }",
        "1:1",
        "missing `karmem NAME;` header",
    );
}

#[test]
fn duplicate_header() {
    expect("karmem a;\nkarmem b;\n", "2:1", "duplicate `karmem` header");
}

#[test]
fn syntax_error_expected_token() {
    // A missing `;` is reported where it belongs: right after `u8`, not at
    // the `}` on the next line.
    expect(
        "karmem a;\nstruct A inline {\n    X u8\n}\n",
        "3:9",
        "expected `;`, found `}`",
    );
    expect(
        "karmem a;\nstruct A inline { X u8 Y u8; }\n",
        "2:23",
        "expected `;`, found `Y`",
    );
}

#[test]
fn a_missing_semicolon_at_a_line_end_is_one_error() {
    // The next line's field is not swallowed by recovery: no second error,
    // and the struct has both fields.
    let src = "karmem a;\nstruct A inline {\n    X u8\n    Y Vec4;\n}\n";
    let out = errors(src);
    assert!(out.contains("--> t.km:3:9"), "{out}");
    assert!(out.contains("unknown type `Vec4`"), "{out}");
    assert!(out.contains("2 errors found"), "{out}");
}

#[test]
fn a_header_without_semicolon_does_not_cascade() {
    // The first error is the missing `;`, at the end of the header; the
    // struct after it is still read (no "missing header", no phantom
    // "unknown type" for the struct the recovery used to skip).
    let src = "karmem a\nstruct P inline { X u8; }\nstruct A table { Ps []P; }\n";
    let out = errors(src);
    let first = out.split("\n\n").next().unwrap();
    assert!(first.contains("expected `;`, found `struct`"), "{out}");
    assert!(first.contains("--> t.km:1:9"), "{out}");
    assert!(!out.contains("missing `karmem NAME;` header"), "{out}");
    assert!(!out.contains("unknown type"), "{out}");
    assert!(out.contains("1 error found"), "{out}");
}

#[test]
fn unexpected_character() {
    expect(
        "karmem a;\nstruct A inline { X u8; $ }\n",
        "2:25",
        "unexpected character `$`",
    );
}

#[test]
fn unterminated_comment_and_string() {
    expect("karmem a @x(`abc);\n", "1:13", "unterminated string");
    expect(
        "karmem a;\n/* never closed\n",
        "2:1",
        "unterminated block comment",
    );
}

#[test]
fn invalid_number() {
    expect(
        "karmem a;\nenum E u8 { A = 0; B = 12ab; }\n",
        "2:24",
        "invalid number `12ab`",
    );
}

#[test]
fn unknown_type_with_suggestion() {
    let src = "karmem a;\nstruct Vec3 inline { X f32; }\nstruct A table {\n    Pos Vec4;\n}\n";
    expect(src, "4:9", "unknown type `Vec4`");
    assert!(errors(src).contains("did you mean `Vec3`?"));
}

#[test]
fn duplicate_type_name() {
    expect(
        "karmem a;\nstruct A inline { X u8; }\nenum A { Z; }\n",
        "3:6",
        "duplicate type name `A`",
    );
}

#[test]
fn builtin_type_name() {
    expect(
        "karmem a;\nstruct u32 inline { X u8; }\n",
        "2:8",
        "`u32` is a built-in type name",
    );
}

#[test]
fn unknown_struct_kind() {
    expect(
        "karmem a;\nstruct A fancy { X u8; }\n",
        "2:10",
        "unknown struct kind `fancy`",
    );
}

#[test]
fn duplicate_field() {
    let src = "karmem a;\nstruct A inline {\n    X u8;\n    X u16;\n}\n";
    expect(src, "4:5", "duplicate field `X` in `A`");
    // The snippets are in source order: the first definition above.
    let out = errors(src);
    let first = out.find("3 |     X u8;").expect(&out);
    let second = out.find("4 |     X u16;").expect(&out);
    assert!(first < second, "{out}");
}

#[test]
fn empty_inline_struct() {
    expect(
        "karmem a;\nstruct A inline { }\n",
        "2:8",
        "inline struct `A` has no fields",
    );
}

#[test]
fn enum_without_zero() {
    expect(
        "karmem a;\nenum E u8 { A = 1; B; }\n",
        "2:6",
        "enum `E` has no value equal to 0",
    );
}

#[test]
fn duplicate_enum_values_say_which() {
    expect(
        "karmem a;\nenum E u8 { A; B; C = 1; }\n",
        "2:23",
        "enum values `B` and `C` are both 1",
    );
}

#[test]
fn duplicate_enum_value_name() {
    expect(
        "karmem a;\nenum E u8 { A; A; }\n",
        "2:16",
        "duplicate enum value name `A`",
    );
}

#[test]
fn enum_value_out_of_range() {
    expect(
        "karmem a;\nenum E u8 { A; B = 256; }\n",
        "2:20",
        "value 256 is out of range for `u8` (0..=255)",
    );
    expect(
        "karmem a;\nenum E u8 { A; B = -1; }\n",
        "2:20",
        "value -1 is out of range for `u8` (0..=255)",
    );
}

#[test]
fn enum_type_must_be_integer() {
    expect(
        "karmem a;\nenum E f32 { A; }\n",
        "2:8",
        "an enum type must be",
    );
}

#[test]
fn inline_struct_cycle() {
    let src = "karmem a;\nstruct A inline { B B; }\nstruct B inline { A A; }\n";
    expect(src, "2:8", "inline struct `A` contains itself: A → B → A");
}

#[test]
fn type_nested_too_deeply() {
    // 64 arrays, tuples and maps inside one another are fine; the 65th is
    // reported where it opens.
    let field = |ty: String| format!("karmem a;\nstruct S table {{ x: {ty}; }}\n");
    let arrays = |n: usize| field(format!("{}u8", "[]".repeat(n)));
    if let Err(d) = karmem_schema::compile("t.km", &arrays(64)) {
        panic!("{}", d.render(false));
    }
    let message = "a type is nested more than 64 levels deep";
    // `x: ` ends at column 20; each `[]` is two columns.
    expect(&arrays(65), &format!("2:{}", 21 + 2 * 64), message);
    let maps = "map<u8, ".repeat(65) + "u8" + &">".repeat(65);
    expect(&field(maps), &format!("2:{}", 21 + 8 * 64), message);
    // Any mix counts: tuples, maps and arrays.
    let mixed = "([]map<u8, ".repeat(22) + "u8" + &">, u8)".repeat(22);
    expect(&field(mixed), &format!("2:{}", 21 + 11 * 21 + 1), message);
}

#[test]
fn structs_nested_too_deeply() {
    // `A0` holds `A1` ... holds `A{n}`, alternating inline structs, table
    // fields and fixed arrays: n + 1 structs held by value.
    let chain = |n: usize| {
        let mut src = String::from("karmem a;\n");
        for i in 0..n {
            let (kind, ty) = match i % 3 {
                0 => ("inline", format!("A{}", i + 1)),
                1 => ("table", format!("A{}", i + 1)),
                _ => ("inline", format!("[2]A{}", i + 1)),
            };
            src.push_str(&format!("struct A{i} {kind} {{ a: {ty}; }}\n"));
        }
        src + &format!("struct A{n} inline {{ a: u8; }}\n")
    };
    if let Err(d) = karmem_schema::compile("t.km", &chain(63)) {
        panic!("{}", d.render(false));
    }
    let message = "struct `A0` holds structs nested more than 64 levels deep";
    expect(&chain(64), "2:8", message);
    // Reported once, where the chain first gets too long: `A36` starts
    // the last 65 of the 101.
    let out = errors(&chain(100));
    assert!(out.contains("struct `A36` holds structs nested"), "{out}");
    assert!(out.contains("1 error found"), "{out}");
    // A tuple is a struct held by value too.
    let tuple = "(".repeat(64) + "u8" + &", u8)".repeat(64);
    let src = format!("karmem a;\nstruct S table {{ x: {tuple}; }}\n");
    expect(
        &src,
        "2:8",
        "struct `S` holds structs nested more than 64 levels deep",
    );
    // An optional table (`A49` is one) ends a chain: two of 49 and 52.
    let ended = chain(100).replace("a: A49;", "a: ?A49;");
    if let Err(d) = karmem_schema::compile("t.km", &ended) {
        panic!("{}", d.render(false));
    }
}

#[test]
fn table_cycle() {
    // Directly: the zero value of `Node` holds a `Node` (format.md §8).
    let src = "karmem a;\nstruct Node table {\n    V u32;\n    Next Node;\n}\n";
    expect(src, "4:5", "struct `Node` contains itself: Node → Node");
    // Through an inline struct and a fixed array.
    let src = "karmem a;\nstruct T table { I [2]I; }\nstruct I inline { T T; }\n";
    expect(src, "3:19", "struct `T` contains itself: T → I → T");
    // An array or a union breaks the cycle: they can be empty.
    for ok in [
        "karmem a;\nstruct Node table { V u32; Next [<1]Node; }\n",
        "karmem a;\nstruct Node table { V u32; Kids []Node; }\n",
        "karmem a;\nstruct Node table { V u32; Next N; }\nunion N { Node; }\n",
    ] {
        if let Err(d) = karmem_schema::compile("t.km", ok) {
            panic!("{ok}: {}", d.render(false));
        }
    }
}

#[test]
fn arrays_of_arrays_but_not_of_fixed_arrays() {
    let s = karmem_schema::compile(
        "t.km",
        "karmem a;\nstruct P inline { V f32; }\nstruct A table { X [][]u8; Y []string; Z [<2][<3][]P #aos; }\n",
    )
    .unwrap()
    .schema;
    // [<2][<3][]f32: three levels, the innermost first in `arrays`.
    assert_eq!(s.arrays.len(), 4);
    expect(
        "karmem a;\nstruct A table { X [][4]u8; }\n",
        "2:22",
        "an array of fixed arrays is not supported",
    );
    expect(
        "karmem a;\nstruct A table { X [4][]u8; }\n",
        "2:20",
        "a fixed array cannot hold an array",
    );
}

#[test]
fn fixed_array_of_tables() {
    expect(
        "karmem a;\nstruct T table { }\nstruct A table { X [2]T; }\n",
        "3:20",
        "a fixed array cannot hold a table",
    );
}

#[test]
fn array_length_out_of_range() {
    expect(
        "karmem a;\nstruct A table { X [0]u8; }\n",
        "2:21",
        "array length 0 is out of range",
    );
}

#[test]
fn struct_too_large() {
    expect(
        "karmem a;\nstruct A inline { X [4000000000]u64; }\n",
        "2:8",
        "struct `A` is too large",
    );
}

/// Found by the `schema_compiler` fuzz target: nested huge fixed arrays
/// saturate the size computation, which must not overflow afterwards.
#[test]
fn struct_too_large_nested_saturates() {
    expect(
        "karmem a;\nstruct A inline { X [4000000000]u64; }\nstruct B inline { Y u8; Z [4000000000]A; }\n",
        "3:8",
        "struct `B` is too large",
    );
}

#[test]
fn layout_on_non_array() {
    expect(
        "karmem a;\nstruct A table { X u8 #soa; }\n",
        "2:23",
        "layout annotation `#soa` on a field that is not an array",
    );
}

#[test]
fn layout_on_scalar_array() {
    expect(
        "karmem a;\nstruct A table { X []u8 #aos; }\n",
        "2:25",
        "`#aos` applies to arrays of structs or unions, not of scalars",
    );
}

#[test]
fn bunch_layout_on_struct_array() {
    expect(
        "karmem a;\nstruct P inline { X u8; }\nstruct A table { X []P #bovoa; }\n",
        "3:24",
        "`#bovoa` applies only to arrays of unions",
    );
}

#[test]
fn layout_on_fixed_array() {
    expect(
        "karmem a;\nstruct P inline { X u8; }\nstruct A table { X [2]P #soa; }\n",
        "3:25",
        "`#soa` does not apply to a fixed array",
    );
}

#[test]
fn conflicting_layouts() {
    expect(
        "karmem a;\nstruct P inline { X u8; }\nstruct A table { X []P #soa #aos; }\n",
        "3:29",
        "conflicting layout annotations `#soa` and `#aos`",
    );
}

#[test]
fn unknown_layout() {
    expect(
        "karmem a;\nstruct P inline { X u8; }\nstruct A table { X []P #columns; }\n",
        "3:24",
        "unknown layout annotation `#columns`",
    );
}

#[test]
fn unknown_annotations_are_errors_with_did_you_mean() {
    // A typo of `@string` must not silently turn text into bytes.
    for typo in ["strng", "stringg", "String"] {
        let src = format!("karmem a;\nstruct A table {{ X []u8 @{typo}; }}\n");
        expect(&src, "2:25", &format!("unknown field attribute `@{typo}`"));
        assert!(errors(&src).contains("did you mean `@string`?"));
    }
    let src = "karmem a;\nstruct A table { X []u8 @json(`x`); }\n";
    expect(src, "2:25", "unknown field attribute `@json`");
    assert!(errors(src).contains("the only field attribute is `@string`"));
    let src = "karmem a;\nstruct P inline { X u8; }\nstruct A table { X []P #aso; }\n";
    expect(src, "3:24", "unknown layout annotation `#aso`");
    assert!(errors(src).contains("did you mean `#aos`?"));
}

#[test]
fn unknown_schema_attribute_is_a_warning_with_did_you_mean() {
    let src = "karmem a @golang.pakage(`x`) @packed(true);\nstruct A table { X u8; }\n";
    let compiled = karmem_schema::compile("t.km", src).unwrap();
    let out = compiled.warnings.render(false);
    assert!(
        out.contains("warning: unknown schema attribute `@golang.pakage` is ignored"),
        "{out}"
    );
    assert!(out.contains("--> t.km:1:10"), "{out}");
    assert!(out.contains("did you mean `@golang.package`?"), "{out}");
    assert_eq!(
        compiled.warnings.items.len(),
        1,
        "`@packed` is known: {out}"
    );
}

#[test]
fn packed_takes_true_or_false() {
    // The value decides the bytes of every array of structs: not guessed.
    expect(
        "karmem a @packed(1);\nstruct A table { X u8; }\n",
        "1:18",
        "`@packed` takes `true` or `false`, found `1`",
    );
    expect(
        "karmem a @golang.package(`a`) @packed(yes);\n",
        "1:39",
        "`@packed` takes `true` or `false`, found `yes`",
    );
    expect(
        "karmem a @packed;\n",
        "1:10",
        "`@packed` takes `true` or `false`, found no value",
    );
}

#[test]
fn string_attribute_misuse() {
    expect(
        "karmem a;\nstruct A table { X []u32 @string; }\n",
        "2:26",
        "`@string` applies to arrays of `u8` or `u16`",
    );
}

#[test]
fn union_tag_type() {
    expect(
        "karmem a;\nstruct C table { }\nunion U u64 { C; }\n",
        "3:9",
        "a union tag type must be",
    );
}

#[test]
fn union_variant_not_struct() {
    expect(
        "karmem a;\nenum E { Z; }\nunion U { E; }\n",
        "3:11",
        "union variant `E` is not a struct",
    );
}

#[test]
fn union_tag_zero_and_range() {
    expect(
        "karmem a;\nstruct C table { }\nunion U u8 { C = 0; }\n",
        "3:18",
        "union tag 0 is reserved",
    );
    expect(
        "karmem a;\nstruct C table { }\nunion U u8 { C = 300; }\n",
        "3:18",
        "tag 300 is out of range for `u8` (1..=255)",
    );
}

#[test]
fn union_duplicates() {
    let src = "karmem a;\nstruct C table { }\nstruct D table { }\nunion U { C = 2; D = 2; }\n";
    expect(src, "4:22", "union variants `C` and `D` both have tag 2");
    expect(
        "karmem a;\nstruct C table { }\nunion U { C; C; }\n",
        "3:14",
        "duplicate union variant `C`",
    );
}

#[test]
fn empty_union() {
    expect(
        "karmem a;\nunion U { }\n",
        "2:7",
        "union `U` has no variants",
    );
}

#[test]
fn interface_errors() {
    let head = "karmem a;\nstruct M table { }\n";
    expect(
        &format!("{head}interface I (sometimes) {{ }}\n"),
        "3:14",
        "unknown interface option `sometimes`",
    );
    expect(
        &format!("{head}interface I (fanout, singleton) {{ }}\n"),
        "3:22",
        "an interface has one communication pattern",
    );
    expect(
        &format!("{head}interface I (pool(0)) {{ }}\n"),
        "3:19",
        "pool size must be between 1 and 4096",
    );
    expect(
        &format!("{head}interface I {{\n    f: fn(x: M @ nowhere);\n}}\n"),
        "4:18",
        "unknown memory `nowhere`",
    );
    expect(
        &format!("{head}interface I {{\n    f: fn(x: u32);\n}}\n"),
        "4:14",
        "parameter type must be a struct, found `u32`",
    );
    expect(
        &format!("{head}interface I {{\n    f: fn();\n    f: fn();\n}}\n"),
        "5:5",
        "duplicate member `f` in interface `I`",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (import: read);\n}}\n"),
        "4:5",
        "memory `m` needs a maximum size",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (import: read, 0);\n}}\n"),
        "4:30",
        "memory size must be between 1 and 65536 pages",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (import: fly, 1);\n}}\n"),
        "4:24",
        "unknown memory access `fly`",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (inside: read, 1);\n}}\n"),
        "4:16",
        "unknown memory side `inside`",
    );
    expect(
        &format!("{head}interface I {{\n    f: fn() (a: M, b: M);\n}}\n"),
        "4:20",
        "a function returns at most one value",
    );
}

#[test]
fn several_errors_in_one_run() {
    let src = "karmem a;\nstruct A table { P Nope; }\nenum E u8 { A = 1; }\nstruct B inline { }\n";
    let out = errors(src);
    assert!(out.contains("unknown type `Nope`"));
    assert!(out.contains("no value equal to 0"));
    assert!(out.contains("has no fields"));
    assert!(out.contains("t.km: 3 errors found"), "{out}");
}

#[test]
fn rendering_shows_source_line_and_caret() {
    let out = errors("karmem a;\nstruct A table {\n    Pos Vec4;\n}\n");
    assert!(out.contains("error: unknown type `Vec4`\n --> t.km:3:9\n  |\n3 |     Pos Vec4;\n  |         ^^^^ not declared in this file\n"), "{out}");
}

#[test]
fn string_outside_a_field_type() {
    expect(
        "karmem a;\nstruct A inline { X [2]string; }\n",
        "2:21",
        "a fixed array cannot hold an array",
    );
    expect(
        "karmem a;\ninterface I {\n    f: fn(x: string);\n}\n",
        "3:14",
        "`string` is an array (`[]char`) and cannot be used here",
    );
    // `[]string` is an array of text (docs/idl.md §3.1), not a misspelt type.
    assert!(karmem_schema::compile("t.km", "karmem a;\nstruct A table { X []string; }\n").is_ok());
}

#[test]
fn conflicting_struct_kinds() {
    expect(
        "karmem a;\nstruct A (dynamic, inline) { X u8; }\n",
        "2:20",
        "conflicting struct kinds `dynamic` and `inline`",
    );
    // Repeating the same kind (or its synonym) is harmless.
    assert!(
        karmem_schema::compile("t.km", "karmem a;\nstruct A (dynamic, table) { X u8; }\n").is_ok()
    );
}

#[test]
fn interface_option_arguments_and_memory_repeats() {
    let head = "karmem a;\nstruct M table { }\n";
    expect(
        &format!("{head}interface I (direct(3)) {{ }}\n"),
        "3:21",
        "`direct` takes no argument",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (import: read, importer: write, 1);\n}}\n"),
        "4:30",
        "access of the `import` side is given twice",
    );
    expect(
        &format!("{head}interface I {{\n    m: memory (import: read, 1, 2);\n}}\n"),
        "4:33",
        "the maximum size of a memory is given twice",
    );
}

#[test]
fn interfaces_are_names_but_not_types() {
    expect(
        "karmem a;\ninterface I { }\nstruct A table {\n    X I;\n}\n",
        "4:7",
        "`I` is an interface, not a data type",
    );
    expect(
        "karmem a;\ninterface u32 { }\n",
        "2:11",
        "`u32` is a built-in type name",
    );
    expect(
        "karmem a;\nstruct I table { }\ninterface I { }\n",
        "3:11",
        "duplicate type name `I`",
    );
}

#[test]
fn enum_type_in_parentheses_malformed() {
    expect(
        "karmem a;\nenum E (u8 { A; }\n",
        "2:12",
        "expected `)`, found `{`",
    );
    assert!(errors("karmem a;\nenum E (u8 { A; }\n").contains("`enum E (u8)`"));
    expect(
        "karmem a;\nenum E () { A; }\n",
        "2:9",
        "expected a type, found `)`",
    );
    assert!(errors("karmem a;\nenum E () { A; }\n").contains("or leave them out"));
    expect(
        "karmem a;\nstruct C table { }\nunion U (u8 { C; }\n",
        "3:13",
        "expected `)`, found `{`",
    );
}

#[test]
fn root_declaration() {
    let ok = karmem_schema::compile(
        "t.km",
        "karmem a;\nroot Account;\nstruct Account table { X u8; }\n",
    )
    .unwrap();
    assert_eq!(ok.schema.root, ok.schema.struct_by_name("Account"));
    let none = karmem_schema::compile("t.km", "karmem a;\nstruct A table { X u8; }\n").unwrap();
    assert_eq!(none.schema.root, None);
}

#[test]
fn root_errors() {
    let src = "karmem a;\nroot Acount;\nstruct Account table { X u8; }\n";
    expect(src, "2:6", "unknown type `Acount`");
    assert!(errors(src).contains("did you mean `Account`?"));
    expect(
        "karmem a;\nenum E u8 { Z; }\nroot E;\n",
        "3:6",
        "the root type must be a struct, found an enum `E`",
    );
    expect(
        "karmem a;\nroot u32;\n",
        "2:6",
        "the root type must be a struct, found a built-in type `u32`",
    );
    expect(
        "karmem a;\nstruct A table { X u8; }\nroot A;\nroot A;\n",
        "4:1",
        "duplicate root declaration",
    );
    expect(
        "karmem a;\nroot A;\nstruct A table { X u8; }\nstruct root inline { Y u8; }\n",
        "2:6",
        "the root is `A`, but another type is named `root`",
    );
    expect(
        "karmem a;\nroot;\n",
        "2:5",
        "expected the root type's name after `root`, found `;`",
    );
}

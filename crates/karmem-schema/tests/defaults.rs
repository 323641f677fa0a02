//! Field default values (docs/idl.md §4.3.1): what the model holds for
//! each literal, one test per diagnostic, and the canonical formatting.

use karmem_schema::model::{DefaultValue, Schema};

fn schema(src: &str) -> Schema {
    match karmem_schema::compile("t.km", src) {
        Ok(c) => c.schema,
        Err(d) => panic!("{}", d.render(false)),
    }
}

fn default_of(s: &Schema, field: &str) -> Option<DefaultValue> {
    s.structs
        .iter()
        .flat_map(|st| &st.fields)
        .find(|f| f.name == field)
        .unwrap_or_else(|| panic!("no field {field}"))
        .default
        .clone()
}

mod common;

/// Compiling `body` (after a header and an enum `Team`) reports `message`
/// at `line:col` (lines of `body`, which starts on line 3), with a hint.
fn expect(body: &str, line_col: &str, message: &str) {
    let src = format!("karmem t;\nenum Team u8 {{ Humans; Orcs; }}\n{body}");
    common::expect(&src, line_col, message);
}

#[test]
fn every_kind_of_literal_lands_in_the_model() {
    let s = schema(
        "karmem t;
struct Unit table {
    Hp u16 = 100;
    Delta: i64 = -9223372036854775808;
    Big u64 = 0xFFFFFFFFFFFFFFFF;
    Speed f32 = 0.1;
    Scale f64 = -2.5e-3;
    Whole f64 = 3;
    Alive bool = true;
    Dead bool = false;
    Side Team = Orcs; // declared below: defaults are checked after every type
    Name string = \"anon\";
    Quoted []char = `say \"hi\"`;
    Short [<4]char = \"abcd\";
    Raw []u8 @string = \"é\";
    Plain u8;
}
enum Team u8 { Humans; Orcs = 7; }
",
    );
    use DefaultValue::*;
    assert_eq!(default_of(&s, "Hp"), Some(Int(100)));
    assert_eq!(default_of(&s, "Delta"), Some(Int(i64::MIN as i128)));
    assert_eq!(default_of(&s, "Big"), Some(Int(u64::MAX as i128)));
    // f32 defaults are rounded to f32 once, here, for every generator.
    assert_eq!(default_of(&s, "Speed"), Some(Float(0.1f32 as f64)));
    assert_eq!(default_of(&s, "Scale"), Some(Float(-2.5e-3)));
    assert_eq!(default_of(&s, "Whole"), Some(Float(3.0)));
    assert_eq!(default_of(&s, "Alive"), Some(Bool(true)));
    assert_eq!(default_of(&s, "Dead"), Some(Bool(false)));
    assert_eq!(
        default_of(&s, "Side"),
        Some(Enum {
            variant: 1,
            value: 7
        })
    );
    assert_eq!(default_of(&s, "Name"), Some(Text("anon".into())));
    assert_eq!(default_of(&s, "Quoted"), Some(Text("say \"hi\"".into())));
    assert_eq!(default_of(&s, "Short"), Some(Text("abcd".into())));
    assert_eq!(default_of(&s, "Raw"), Some(Text("é".into())));
    assert_eq!(default_of(&s, "Plain"), None);
    // A default equal to zero needs no code in any language.
    let dead = s.structs[0]
        .fields
        .iter()
        .find(|f| f.name == "Dead")
        .unwrap();
    assert!(dead.nonzero_default().is_none());
    assert!(s.has_defaults(0));
}

#[test]
fn has_defaults_follows_nested_structs() {
    let s = schema(
        "karmem t;
struct Inner table { Hp u16 = 1; }
struct Holder inline { In Inner; }
struct Outer table { Many [2]Holder; }
struct Plain table { X u8 = 0; }
",
    );
    let id = |n: &str| s.struct_by_name(n).unwrap();
    assert!(s.has_defaults(id("Inner")));
    assert!(s.has_defaults(id("Holder")));
    assert!(s.has_defaults(id("Outer")));
    assert!(!s.has_defaults(id("Plain")));
}

#[test]
fn a_default_on_an_inline_struct_field() {
    expect(
        "struct P inline { X f32 = 1.0; }\n",
        "3:27",
        "default value on a field of inline struct `P`",
    );
}

#[test]
fn a_default_on_a_field_without_defaults() {
    expect(
        "struct P inline { X f32; }\nstruct T table { At P = 1; }\n",
        "4:25",
        "a default value needs a scalar, enum or UTF-8 text field",
    );
    expect(
        "struct T table { Wide []u16 @string = \"x\"; }\n",
        "3:39",
        "a default value needs a scalar, enum or UTF-8 text field",
    );
    expect(
        "struct T table { Code [4]char = \"abcd\"; }\n",
        "3:33",
        "a default value needs a scalar, enum or UTF-8 text field",
    );
}

#[test]
fn a_default_of_the_wrong_kind() {
    expect(
        "struct T table { Hp u16 = \"x\"; }\n",
        "3:27",
        "default for `u16` field `Hp` must be an integer",
    );
    expect(
        "struct T table { Hp u16 = 1.5; }\n",
        "3:27",
        "default for `u16` field `Hp` must be an integer",
    );
    expect(
        "struct T table { On bool = 1; }\n",
        "3:28",
        "default for `bool` field `On` must be `true` or `false`",
    );
    expect(
        "struct T table { Name string = Orcs; }\n",
        "3:32",
        "default for `text` field `Name` must be a string",
    );
    expect(
        "struct T table { Side Team = 1; }\n",
        "3:30",
        "default for `Team` field `Side` must be a value of `Team`, by name",
    );
    expect(
        "struct T table { X f64 = true; }\n",
        "3:26",
        "default for `f64` field `X` must be a number",
    );
}

#[test]
fn an_integer_default_out_of_range() {
    expect(
        "struct T table { Hp u8 = 256; }\n",
        "3:26",
        "default `256` is out of range for `u8`",
    );
    expect(
        "struct T table { Hp u32 = -1; }\n",
        "3:27",
        "default `-1` is out of range for `u32`",
    );
}

#[test]
fn a_float_default_that_is_not_finite() {
    expect(
        "struct T table { X f32 = 1e39; }\n",
        "3:26",
        "default `1e39` is not a finite `f32`",
    );
    expect(
        "struct T table { X f64 = 1e999; }\n",
        "3:26",
        "default `1e999` is not a finite `f64`",
    );
    expect(
        "struct T table { X f64 = -0.0; }\n",
        "3:26",
        "a default cannot be negative zero",
    );
}

#[test]
fn an_unknown_enum_value() {
    expect(
        "struct T table { Side Team = Orc; }\n",
        "3:30",
        "`Orc` is not a value of enum `Team`",
    );
    let src = "karmem t;\nenum Team u8 { Humans; Orcs; }\nstruct T table { Side Team = Orc; }\n";
    let out = karmem_schema::compile("t.km", src)
        .unwrap_err()
        .render(false);
    assert!(out.contains("did you mean `Orcs`?"), "{out}");
}

#[test]
fn default_text_longer_than_its_limit() {
    expect(
        "struct T table { Tag [<2]char = \"abc\"; }\n",
        "3:33",
        "default text is longer than the limit of `Tag`",
    );
}

#[test]
fn a_missing_default_value_is_a_syntax_error() {
    expect(
        "struct T table { Hp u16 = ; }\n",
        "3:27",
        "expected a default value, found `;`",
    );
}

#[test]
fn formatting_keeps_defaults_on_their_field() {
    let src = "karmem t;\nstruct T table { Hp u16=100; X f64 = -2.5e-3; Name string=\"a b\"; }\n";
    let out = karmem_schema::format("t.km", src).unwrap();
    assert!(out.contains("    Hp u16 = 100;\n"), "{out}");
    assert!(out.contains("    X f64 = -2.5e-3;\n"), "{out}");
    assert!(out.contains("    Name string = \"a b\";\n"), "{out}");
    assert_eq!(karmem_schema::format("t.km", &out).unwrap(), out);
}

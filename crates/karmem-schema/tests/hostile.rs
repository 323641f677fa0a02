//! Schemas built to exhaust the compiler (issue #26): nesting far past the
//! limit of docs/idl.md §3 and §7, and sizes that a quadratic pass would
//! not get through. Each compiles in a thread with a small stack, where a
//! recursion as deep as the input fails at once: the parser stops at the
//! limit, and the passes over structs and imports keep their paths in
//! vectors. No test here measures time; the linear passes are measured in
//! RATIONALE R3.12.

use std::io;
use std::path::Path;

use karmem_schema::{compile, compile_with, format, Compiled, Diagnostics};

/// An eighth of the main thread's 8 MiB. The parser's descent into a type
/// takes about 6 KiB a level in a debug build (the crash of issue #26 was
/// at 1 500 levels), so this holds the 64 levels of the limit and not the
/// 1 500 and more of the inputs below.
const SMALL_STACK: usize = 1 << 20;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic")
}

/// The rendered errors of compiling `src` on a small stack, which must
/// fail.
fn compile_errors(src: String) -> String {
    on_small_stack(move || match compile("h.km", &src) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.render(false),
    })
}

fn field(ty: &str) -> String {
    format!("karmem h;\nstruct S table {{ x: {ty}; }}\n")
}

#[test]
fn deeply_nested_arrays_stop_at_the_limit() {
    for n in [1_500, 20_000, 100_000] {
        let src = field(&format!("{}u8", "[]".repeat(n)));
        let out = compile_errors(src.clone());
        assert!(
            out.contains("a type is nested more than 64 levels deep"),
            "{out}"
        );
        assert!(out.contains("1 error found"), "{out}");
        let formatted = on_small_stack(move || format("h.km", &src).map_err(|d| d.render(false)));
        let out = formatted.expect_err("a syntax error");
        assert!(out.contains("nested more than 64 levels"), "{out}");
    }
}

#[test]
fn deeply_nested_tuples_and_maps_stop_at_the_limit() {
    let n = 20_000;
    let tuples = "(".repeat(n) + "u8" + &", u8)".repeat(n);
    let maps = "map<u8, ".repeat(n) + "u8" + &">".repeat(n);
    for ty in [tuples, maps] {
        let out = compile_errors(field(&ty));
        assert!(
            out.contains("a type is nested more than 64 levels deep"),
            "{out}"
        );
        assert!(out.contains("1 error found"), "{out}");
    }
}

/// `struct A0 KIND { a: A1; }` ... `struct A{n} inline { a: u8; }`, the
/// field's type written by `ty` from the next struct's name.
fn chain(n: usize, kind: &str, ty: impl Fn(&str) -> String) -> String {
    let mut src = String::from("karmem h;\n");
    for i in 0..n {
        let next = ty(&format!("A{}", i + 1));
        src.push_str(&format!("struct A{i} {kind} {{ a: {next}; }}\n"));
    }
    src + &format!("struct A{n} {kind} {{ a: u8; }}\n")
}

#[test]
fn long_chains_of_structs_held_by_value_are_an_error() {
    let n = 20_000;
    for src in [
        chain(n, "inline", |next| next.to_string()),
        chain(n, "table", |next| next.to_string()),
        chain(n, "inline", |next| format!("[1]{next}")),
    ] {
        let out = compile_errors(src);
        let at = format!("struct `A{}` holds structs nested more than 64", n - 64);
        assert!(out.contains(&at), "{out}");
        assert!(out.contains("1 error found"), "{out}");
    }
}

#[test]
fn a_long_cycle_is_one_error() {
    let src = chain(20_000, "inline", |next| next.to_string()).replace(
        "struct A20000 inline { a: u8; }",
        "struct A20000 inline { a: A0; }",
    );
    let out = compile_errors(src);
    assert!(out.contains("inline struct `A0` contains itself"), "{out}");
    assert!(out.contains("1 error found"), "{out}");
}

#[test]
fn long_chains_through_arrays_and_optional_tables_compile() {
    // Not held by value: no limit, and no recursion either.
    let n = 20_000;
    for src in [
        chain(n, "table", |next| format!("[]{next}")),
        chain(n, "table", |next| format!("?{next}")),
    ] {
        let compiled =
            on_small_stack(move || compile("h.km", &src).map(|c| c.schema.structs.len()));
        assert_eq!(compiled.expect("compiles"), n + 1);
    }
}

#[test]
fn many_comment_openers() {
    // `/*/` is a comment and `*` an unexpected character, 50 000 times on
    // one line: every error is found, the first 100 are shown.
    let src = format!("karmem h;\n{}", "/*".repeat(150_000));
    let errors = on_small_stack(move || match compile("h.km", &src) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d,
    });
    assert_eq!(errors.items.len(), 50_000);
    let out = errors.render(false);
    assert_eq!(out.matches("unexpected character `*`").count(), 100);
    assert!(
        out.contains("49900 more diagnostics not shown (the first 100 are)"),
        "{out}"
    );
    assert!(out.ends_with("50000 errors found\n"), "{out}");

    // Unterminated, and many comments: one error, and none.
    let open = format!("karmem h;\n/*{}", "/* x\n".repeat(60_000));
    let out = compile_errors(open);
    assert!(out.contains("unterminated block comment"), "{out}");
    assert!(out.contains("1 error found"), "{out}");
    let closed = format!("karmem h;\n{}struct S table {{ }}\n", "/*/".repeat(100_000));
    let ok = on_small_stack(move || compile("h.km", &closed).is_ok());
    assert!(ok);
}

#[test]
fn many_unclosed_quotes() {
    // Each unclosed quote is looked for on its own line only.
    let src = format!("karmem h;\n{}`\n", "\"\n".repeat(50_000));
    let out = compile_errors(src);
    assert!(out.contains("unterminated string"), "{out}");
    assert!(out.contains("50001 errors found"), "{out}");
}

#[test]
fn an_enum_of_100_000_values() {
    let values: String = (0..100_000).map(|i| format!("    V{i};\n")).collect();
    let src =
        format!("karmem h;\nenum E u32 {{\n{values}}}\nstruct S table {{ e: E = V99999; }}\n");
    let compiled = on_small_stack(move || compile("h.km", &src).map(|c| c.schema));
    let schema = compiled.expect("compiles");
    assert_eq!(schema.enums[0].variants.len(), 100_000);

    // Duplicates are still found, each against the first.
    let values: String = (0..100_000)
        .map(|i| format!("    V{};\n", i % 50_000))
        .collect();
    let src = format!("karmem h;\nenum E u32 {{\n{values}}}\n");
    let errors = on_small_stack(move || compile("h.km", &src).expect_err("duplicates"));
    assert_eq!(errors.items.len(), 50_000);
    assert!(errors.items[0]
        .message
        .contains("duplicate enum value name `V0`"));
}

#[test]
fn many_fields_variants_and_unknown_names() {
    let fields: String = (0..50_000).map(|i| format!("f{i}: u8; ")).collect();
    let variants: String = (0..20_000).map(|i| format!("P{i}; ")).collect();
    let structs: String = (0..20_000)
        .map(|i| format!("struct P{i} inline {{ x: u8; }}\n"))
        .collect();
    let src =
        format!("karmem h;\nstruct S table {{ {fields}}}\nunion U {{ {variants}}}\n{structs}");
    assert!(on_small_stack(move || compile("h.km", &src).is_ok()));

    // Many unknown names against many declared ones: every one reported;
    // "did you mean" within its budget.
    let unknown: String = (0..20_000).map(|i| format!("u{i}: Q{i}; ")).collect();
    let src = format!("karmem h;\nstruct S table {{ {unknown}}}\n{structs}");
    let errors = on_small_stack(move || compile("h.km", &src).expect_err("unknown"));
    assert_eq!(errors.items.len(), 20_000);
    assert!(errors.items[0].hint.as_deref() == Some("did you mean `P0`?"));
}

#[test]
fn a_long_name_gets_no_quadratic_hint() {
    let long = "N".repeat(200_000);
    let src = format!(
        "karmem h;\nstruct {long}a inline {{ x: u8; }}\nstruct S table {{ x: {long}b; }}\n"
    );
    let out = compile_errors(src);
    assert!(out.contains("unknown type"), "{out}");
}

/// The schema of a chain of `n` files, `f0.km` importing `f1.km` ... .
fn import_chain(n: usize, last_imports_first: bool) -> Result<Compiled, Diagnostics> {
    let file = move |i: usize| {
        let import = if i + 1 < n {
            format!("import \"f{}.km\";\n", i + 1)
        } else if last_imports_first {
            "import \"f0.km\";\n".to_string()
        } else {
            String::new()
        };
        format!("karmem f{i};\n{import}struct T{i} table {{ x: u8; }}\n")
    };
    let read = move |p: &Path| -> io::Result<String> {
        let name = p.to_str().expect("utf-8");
        let i: usize = name
            .strip_prefix('f')
            .and_then(|r| r.strip_suffix(".km"))
            .and_then(|k| k.parse().ok())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        Ok(file(i))
    };
    compile_with("f0.km", &file(0), read)
}

#[test]
fn a_long_chain_of_imports() {
    let n = 5_000;
    let compiled = on_small_stack(move || import_chain(n, false).map(|c| c.schema.structs.len()));
    assert_eq!(compiled.expect("compiles"), n);
    let errors = on_small_stack(move || import_chain(n, true).expect_err("a cycle"));
    assert_eq!(errors.items.len(), 1);
    assert!(errors.items[0]
        .message
        .starts_with("import cycle: f0.km → f1.km → "));
}

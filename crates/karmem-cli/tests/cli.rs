//! The compiler's commands as a user runs them: `check`, `fmt` and `build`,
//! their exit codes and what they print (README.md "The `karmem` command").

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run `karmem ARGS` in `dir`, with `stdin` on its standard input.
fn karmem(dir: &Path, args: &[&str], stdin: &str) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const WARNS: &str = "karmem app @golang.pakage(`app`);\n\nstruct A table {\n    X u8;\n}\n";
const TYPO: &str = "karmem app;\n\nstruct A table {\n    Name []u8 @strng;\n}\n";

#[test]
fn check_warnings_pass_unless_denied() {
    let dir = dir_with(&[("w.km", WARNS)]);
    let out = karmem(dir.path(), &["check", "w.km"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("warning: unknown schema attribute `@golang.pakage` is ignored"));
    assert!(out.stderr.contains("did you mean `@golang.package`?"));

    let out = karmem(dir.path(), &["check", "--deny-warnings", "w.km"], "");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("w.km: 1 warning denied (--deny-warnings)"));
}

#[test]
fn a_misspelt_string_attribute_fails_the_check() {
    let dir = dir_with(&[("t.km", TYPO)]);
    let out = karmem(dir.path(), &["check", "t.km"], "");
    assert_eq!(out.code, 1);
    assert!(out
        .stderr
        .contains("error: unknown field attribute `@strng`"));
    assert!(out.stderr.contains("--> t.km:4:15"), "{}", out.stderr);
    assert!(out.stderr.contains("did you mean `@string`?"));
}

#[test]
fn fmt_reads_stdin_and_writes_stdout() {
    let dir = dir_with(&[]);
    let out = karmem(dir.path(), &["fmt", "-"], "karmem a;enum F(u8){Z,B=3,}\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "karmem a;\n\nenum F (u8) {\n    Z,\n    B = 3,\n}\n"
    );
    // Syntax errors name `<stdin>` and fail.
    let out = karmem(dir.path(), &["fmt", "-"], "karmem a;\nstruct {\n");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("--> <stdin>:2:8"), "{}", out.stderr);
    // `--check -` only reports.
    let out = karmem(dir.path(), &["fmt", "--check", "-"], "karmem a;\n");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[test]
fn fmt_check_prints_a_diff_and_leaves_the_file() {
    let src = "karmem a;\nstruct A table { X u8; }\n";
    let dir = dir_with(&[("a.km", src)]);
    let out = karmem(dir.path(), &["fmt", "--check", "a.km"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("a.km: not formatted"));
    assert!(
        out.stdout.contains("--- a.km\n+++ a.km (formatted)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("-struct A table { X u8; }\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("+    X u8;\n"), "{}", out.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.km")).unwrap(),
        src
    );
    // Formatting it makes the check pass, silently.
    assert_eq!(karmem(dir.path(), &["fmt", "a.km"], "").code, 0);
    let out = karmem(dir.path(), &["fmt", "--check", "a.km"], "");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[test]
fn fmt_takes_directories() {
    let dir = dir_with(&[
        ("s/a.km", "karmem a;\nstruct A table { X u8; }\n"),
        ("s/b.km", "karmem b;\n\nstruct B table {\n    Y u8;\n}\n"),
        ("s/notes.txt", "not a schema {"),
    ]);
    let out = karmem(dir.path(), &["fmt", "--check", "s"], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("s/a.km: not formatted"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("b.km"), "{}", out.stderr);
    assert_eq!(karmem(dir.path(), &["fmt", "s"], "").code, 0);
    assert_eq!(karmem(dir.path(), &["fmt", "--check", "s"], "").code, 0);
}

const ONE: &str = "karmem one;\n\nstruct A table {\n    X u8;\n}\n";
const TWO: &str = "karmem two;\n\nstruct B table {\n    Y u16;\n}\n";

#[test]
fn build_takes_several_schemas_and_directories() {
    let dir = dir_with(&[("s/one.km", ONE), ("s/two.km", TWO), ("s/notes.txt", "x")]);
    let out = karmem(dir.path(), &["build", "--lang", "go", "-o", "gen", "s"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let gen = dir.path().join("gen");
    assert!(
        gen.join("one.go").is_file() && gen.join("two.go").is_file(),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("wrote gen/one.go\nwrote gen/two.go\n"),
        "sorted: {}",
        out.stderr
    );

    let out = karmem(
        dir.path(),
        &[
            "build", "--lang", "rust", "-o", "rs", "s/one.km", "s/two.km",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(dir.path().join("rs/one.rs").is_file() && dir.path().join("rs/two.rs").is_file());
}

#[test]
fn build_checks_every_schema_before_writing_and_refuses_clashes() {
    let dir = dir_with(&[("one.km", ONE), ("bad.km", TYPO), ("again.km", ONE)]);
    let out = karmem(
        dir.path(),
        &["build", "--lang", "rust", "-o", "out", "one.km", "bad.km"],
        "",
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("unknown field attribute `@strng`"));
    assert!(!dir.path().join("out").exists(), "nothing is written");

    let out = karmem(
        dir.path(),
        &["build", "--lang", "rust", "-o", "out", "one.km", "again.km"],
        "",
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("one.km and again.km both generate out/one.rs"),
        "{}",
        out.stderr
    );

    let empty = dir_with(&[("readme.txt", "")]);
    let out = karmem(empty.path(), &["build", "--lang", "rust", "."], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("holds no `.km` schema files"),
        "{}",
        out.stderr
    );
}

/// `check` counts the structs the schema declares, and apart from them
/// those the compiler declares for maps and tuples.
#[test]
fn check_counts_generated_structs_apart() {
    let dir = dir_with(&[(
        "c.km",
        "karmem c;\n\nstruct Chat table {\n    Reactions map<string, u32>;\n    Pos (f32, f32);\n}\n",
    )]);
    let out = karmem(dir.path(), &["check", "c.km"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("c.km: ok (1 structs and 2 generated for maps and tuples, 0 enums"),
        "{}",
        out.stderr
    );
}

#[test]
fn json_uses_the_declared_root() {
    let with_root =
        "karmem a;\n\nroot Account;\n\nstruct Account table {\n    ID u64;\n    Name []char;\n}\n";
    let without = "karmem a;\n\nstruct Account table {\n    ID u64;\n}\n";
    let dir = dir_with(&[("a.km", with_root), ("b.km", without)]);
    let encoded = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "encode", "a.km"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(br#"{"ID": 7, "Name": "seven"}"#)?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(encoded.status.success());
    std::fs::write(dir.path().join("m.bin"), &encoded.stdout).unwrap();
    let decoded = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "decode", "a.km"])
        .current_dir(dir.path())
        .stdin(std::fs::File::open(dir.path().join("m.bin")).unwrap())
        .output()
        .unwrap();
    assert!(decoded.status.success());
    let value: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(value, serde_json::json!({"ID": 7, "Name": "seven"}));

    // The message as a file argument, the same as on stdin.
    let from_file = karmem(dir.path(), &["json", "decode", "a.km", "m.bin"], "");
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&from_file.stdout).unwrap(),
        value
    );
    std::fs::write(dir.path().join("v.json"), r#"{"ID": 7, "Name": "seven"}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "encode", "a.km", "v.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, encoded.stdout);
    let out = karmem(dir.path(), &["json", "decode", "a.km", "missing.bin"], "");
    assert_eq!(out.code, 3, "an unreadable file is an I/O error");
    assert!(
        out.stderr.contains("cannot read missing.bin"),
        "{}",
        out.stderr
    );

    // A misspelt root: the closest struct, and the list.
    let out = karmem(
        dir.path(),
        &["json", "decode", "--root", "Acount", "a.km", "m.bin"],
        "",
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains(
            "no struct named `Acount` in the schema; did you mean `Account`? (its structs: `Account`)"
        ),
        "{}",
        out.stderr
    );

    let out = karmem(dir.path(), &["json", "decode", "b.km"], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains(
            "b.km declares no root type: pass --root TYPE, or declare `root TYPE;` in the schema"
        ),
        "{}",
        out.stderr
    );
}

/// `karmem validate`: exit 0 for a valid message, 1 with the fault for an
/// invalid one; `json decode` refuses the invalid one too unless
/// `--lenient`, which decodes it as readers do (invalid text as empty).
#[test]
fn validate_and_json_decode_refuse_invalid_messages() {
    let schema =
        "karmem a;\n\nroot Account;\n\nstruct Account table {\n    ID u64;\n    Name []char;\n}\n";
    let dir = dir_with(&[
        ("a.km", schema),
        ("v.json", r#"{"ID": 7, "Name": "seven"}"#),
    ]);
    let encoded = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "encode", "a.km", "v.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(encoded.status.success());
    let mut bytes = encoded.stdout.clone();
    std::fs::write(dir.path().join("m.bin"), &bytes).unwrap();
    let out = karmem(dir.path(), &["validate", "a.km", "m.bin"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("valid: 48 bytes, root Account"),
        "{}",
        out.stdout
    );

    // "seven" with an invalid UTF-8 byte: the C validator said "invalid
    // text", while json decode printed "" and exit 0 (issue #34).
    let at = bytes.windows(5).position(|w| w == b"seven").unwrap();
    bytes[at] = 0xff;
    std::fs::write(dir.path().join("bad.bin"), &bytes).unwrap();
    let out = karmem(dir.path(), &["validate", "a.km", "bad.bin"], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("invalid message: invalid text at offset 40"),
        "{}",
        out.stderr
    );
    let out = karmem(dir.path(), &["json", "decode", "a.km", "bad.bin"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("invalid message"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let out = karmem(
        dir.path(),
        &["json", "decode", "--lenient", "a.km", "bad.bin"],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"Name\": \"\""), "{}", out.stdout);
}

const MAIN: &str = "karmem game;\n\nimport \"common.km\";\n\nroot Monster;\n\nstruct Monster table {\n    Pos Vec3;\n}\n";
const COMMON: &str = "karmem common;\n\nstruct Vec3 inline {\n    X f32;\n    Y f32;\n}\n";

#[test]
fn check_and_build_follow_imports() {
    let dir = dir_with(&[("s/main.km", MAIN), ("s/common.km", COMMON)]);
    let out = karmem(dir.path(), &["check", "s/main.km"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("s/main.km: ok (2 structs,"),
        "{}",
        out.stderr
    );

    let out = karmem(
        dir.path(),
        &["build", "--lang", "rust", "-o", "gen", "s/main.km"],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let code = std::fs::read_to_string(dir.path().join("gen/game.rs")).unwrap();
    assert!(code.contains("Vec3"), "the imported struct is generated");
    assert!(
        !dir.path().join("gen/common.rs").exists(),
        "one module per root schema"
    );

    // `fmt` formats the file it is given and does not follow imports.
    let out = karmem(dir.path(), &["fmt", "--check", "s/main.km"], "");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
}

#[test]
fn errors_in_an_imported_file_name_that_file() {
    let broken = COMMON.replace("Y f32;", "Y f33;");
    let dir = dir_with(&[("main.km", MAIN), ("common.km", &broken)]);
    let out = karmem(dir.path(), &["check", "main.km"], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("error: unknown type `f33`\n --> common.km:5:7\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("main.km: 1 error found"),
        "{}",
        out.stderr
    );

    let dir = dir_with(&[("main.km", MAIN)]);
    let out = karmem(dir.path(), &["check", "main.km"], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("error: cannot read `common.km`: "),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(" --> main.km:3:8\n"), "{}", out.stderr);
}

/// A user's round trip through `karmem json` with the data model of
/// docs/idl.md §3–§4: an imported type, a default, optional fields (a list
/// through an optional table), an array of arrays and a map.
#[test]
fn json_round_trip_of_the_data_model() {
    let common = "karmem common;\n\nenum Team u8 { Humans; Orcs; }\n\nstruct Node table {\n    Value i32;\n    Next ?Node;\n}\n";
    let game = "karmem game;\n\nimport \"common.km\";\n\nroot Game;\n\nstruct Game table {\n    Hp u16 = 100;\n    Side Team = Orcs;\n    Nick ?string;\n    List ?Node;\n    Grid [][]u8;\n    Scores map<string, i32>;\n}\n";
    let dir = dir_with(&[("common.km", common), ("game.km", game)]);
    let encoded = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "encode", "game.km"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(
                br#"{"List": {"Value": 1, "Next": {"Value": 2}}, "Grid": [[1, 2], []], "Scores": {"b": -1, "a": 2}}"#,
            )?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(encoded.status.success());
    std::fs::write(dir.path().join("m.bin"), &encoded.stdout).unwrap();
    let decoded = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["json", "decode", "game.km"])
        .current_dir(dir.path())
        .stdin(std::fs::File::open(dir.path().join("m.bin")).unwrap())
        .output()
        .unwrap();
    assert!(decoded.status.success());
    // Left out: the defaults and no value; the map in key order.
    let text = String::from_utf8(decoded.stdout).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "Hp": 100, "Side": "Orcs", "Nick": null,
            "List": {"Value": 1, "Next": {"Value": 2, "Next": null}},
            "Grid": [[1, 2], []], "Scores": {"a": 2, "b": -1}
        })
    );
    assert!(text.find("\"a\"") < text.find("\"b\""), "{text}");
}

const ECHO: &str =
    "karmem app @golang.package(`app`);\n\nstruct Msg table {\n    Text []char;\n}\n\n\
                    interface Echo {\n    echo: fn(m: Msg) -> Msg;\n}\n";

/// Every `--lang` writes the files its documentation names (docs/guests.md,
/// docs/c.md, docs/zig.md, docs/typescript.md, docs/python.md), and says so.
#[test]
fn build_writes_the_files_of_every_language() {
    let dir = dir_with(&[("app.km", ECHO)]);
    let cases: &[(&str, &[&str])] = &[
        ("rust", &["app.rs"]),
        ("go", &["app.go"]),
        ("c", &["app.h", "app.c"]),
        ("zig", &["app.zig"]),
        ("ts", &["app.ts"]),
        ("as", &["app.ts"]),
        ("python", &["app.py"]),
        ("as-guest", &["app.ts", "app_guest.ts"]),
        ("rust-guest", &["app_guest.rs"]),
        ("rust-host", &["app_host.rs"]),
        ("go-guest", &["app.go", "app_guest.go"]),
        ("c-guest", &["app.h", "app.c", "app_guest.h", "app_guest.c"]),
        ("zig-guest", &["app.zig", "app_guest.zig"]),
    ];
    for &(lang, files) in cases {
        let out_dir = format!("gen-{lang}");
        let out = karmem(
            dir.path(),
            &["build", "--lang", lang, "-o", &out_dir, "app.km"],
            "",
        );
        assert_eq!(out.code, 0, "{lang}: {}", out.stderr);
        let wrote: String = files
            .iter()
            .map(|f| format!("wrote {out_dir}/{f}\n"))
            .collect();
        assert_eq!(out.stderr, wrote, "{lang}");
        for f in files {
            let text = std::fs::read_to_string(dir.path().join(&out_dir).join(f)).unwrap();
            assert!(text.contains("Msg") || text.contains("msg"), "{lang}: {f}");
        }
        // The guest bindings know the interface.
        if lang.ends_with("-guest") || lang == "rust-host" {
            let all: String = files
                .iter()
                .map(|f| std::fs::read_to_string(dir.path().join(&out_dir).join(f)).unwrap())
                .collect();
            assert!(
                all.contains("app.Echo"),
                "{lang}: no descriptor of app.Echo"
            );
        }
    }
}

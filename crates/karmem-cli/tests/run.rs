//! `karmem run <manifest>`: a working application, and each kind of error
//! reported at the manifest entry responsible (file:line:col).
#![cfg(feature = "host")]

use std::path::Path;
use std::process::Command;

use karmem_host::Pattern;
use karmem_testkit::wat_guest::{func, iface, param, replier, simple, Guest};

const SCHEMA: &str = "karmem t;\n\nstruct Msg table {\n    Text []char;\n    N u32;\n}\n";

fn echo() -> Guest {
    echo_of("t.Msg")
}

/// `t.Echo.echo`, which returns its argument of type `ty`.
fn echo_of(ty: &str) -> Guest {
    Guest::new(
        vec![iface(
            "t.Echo",
            Pattern::Direct,
            vec![],
            vec![func("echo", vec![param("x", ty, None)], Some(param("r", ty, None)))],
        )],
        vec![],
    )
    .func(
        "t.Echo",
        "echo",
        "(call $reply (call $arg_ptr (local.get $args) (i32.const 0)) (call $arg_len (local.get $args) (i32.const 0)))",
    )
}

/// Write files into a fresh directory, run `karmem run app.toml` there.
fn run(files: &[(&str, &str)]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .arg("run")
        .arg(dir.path().join("app.toml"))
        .env(
            "KARMEM_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("karmem-cli-cache"),
        )
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

const ECHO_MANIFEST: &str = r#"schemas = ["t.km"]

[[module]]
name = "echo"
path = "echo.wat"
timeout_ms = 500

[[run]]
module = "echo"
interface = "t.Echo"
function = "echo"
args = [{ json = { Text = "hi", N = 3 } }]
times = 2
"#;

#[test]
fn runs_the_calls_and_prints_results_as_json() {
    let (code, out, err) = run(&[
        ("app.toml", ECHO_MANIFEST),
        ("t.km", SCHEMA),
        ("echo.wat", &echo().wat()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("run 1 echo t.Echo.echo #1: ok"), "{out}");
    assert!(out.contains("run 1 echo t.Echo.echo #2: ok"), "{out}");
    assert!(
        out.contains("\"Text\": \"hi\"") && out.contains("\"N\": 3"),
        "{out}"
    );
}

#[test]
fn non_finite_floats_in_and_out_as_the_vectors_write_them() {
    // TOML's nan and inf go in, the JSON strings "NaN", ... come out; the
    // strings are accepted in TOML too.
    let schema = "karmem t;\n\nstruct Msg table {\n    A f32;\n    B []f64;\n    C f64;\n}\n";
    let manifest = ECHO_MANIFEST.replace(
        r#"{ Text = "hi", N = 3 }"#,
        r#"{ A = nan, B = [-inf, 1.5, +inf], C = "-Infinity" }"#,
    );
    let (code, out, err) = run(&[
        ("app.toml", &manifest),
        ("t.km", schema),
        ("echo.wat", &echo().wat()),
    ]);
    assert_eq!(code, 0, "{err}");
    let compact: String = out.split_whitespace().collect();
    assert!(
        compact.contains(r#"{"A":"NaN","B":["-Infinity",1.5,"Infinity"],"C":"-Infinity"}"#),
        "{out}"
    );
}

/// Runs `manifest` with the echo module and schema present; expects exit
/// `code` and `needle` (with its location) on stderr.
fn expect_error(manifest: &str, extra: &[(&str, &str)], code: i32, needle: &str) {
    let echo = echo().wat();
    let mut files = vec![
        ("app.toml", manifest),
        ("t.km", SCHEMA),
        ("echo.wat", echo.as_str()),
    ];
    files.extend_from_slice(extra);
    let (got, out, err) = run(&files);
    assert_eq!(got, code, "stdout: {out}\nstderr: {err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

#[test]
fn missing_manifest() {
    let out = Command::new(env!("CARGO_BIN_EXE_karmem"))
        .args(["run", "/nonexistent/app.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/app.toml"));
}

#[test]
fn missing_module_file() {
    let m = "[[module]]\nname = \"a\"\npath = \"nowhere.wasm\"\n";
    expect_error(m, &[], 3, "app.toml:3:8: error:");
}

#[test]
fn unknown_key() {
    let m = "[[module]]\nname = \"echo\"\npath = \"echo.wat\"\ncolour = \"red\"\n";
    expect_error(m, &[], 1, "app.toml:4:1: error: unknown field `colour`");
}

#[test]
fn wrong_type() {
    let m = "[[module]]\nname = \"echo\"\npath = \"echo.wat\"\ntimeout_ms = \"soon\"\n";
    expect_error(
        m,
        &[],
        1,
        "app.toml:4:14: error: invalid type: string \"soon\"",
    );
}

#[test]
fn unsatisfied_import() {
    let caller = Guest::new(
        vec![iface("t.C", Pattern::Direct, vec![], vec![simple("go")])],
        vec![iface(
            "t.Missing",
            Pattern::Direct,
            vec![],
            vec![simple("x")],
        )],
    )
    .wat();
    let m = "[[module]]\nname = \"echo\"\npath = \"echo.wat\"\n\n[[module]]\nname = \"caller\"\npath = \"caller.wat\"\n";
    expect_error(
        m,
        &[("caller.wat", &caller)],
        1,
        "app.toml:6:8: error: module `caller`, import `t.Missing`: unsatisfied import",
    );
}

#[test]
fn abi_mismatch() {
    let mut g = replier("t.Old", "x");
    g.abi_version = 7;
    let m = "[[module]]\nname = \"old\"\npath = \"old.wat\"\n";
    expect_error(
        m,
        &[("old.wat", &g.wat())],
        1,
        "app.toml:3:8: error: module `old`: ABI mismatch: module speaks version 7",
    );
}

#[test]
fn incompatible_interface() {
    // The importer's t.Echo has another signature than the exporter's.
    let caller = Guest::new(
        vec![iface("t.C", Pattern::Direct, vec![], vec![simple("go")])],
        vec![iface(
            "t.Echo",
            Pattern::Direct,
            vec![],
            vec![simple("echo")],
        )],
    )
    .wat();
    let m = "[[module]]\nname = \"echo\"\npath = \"echo.wat\"\n\n[[module]]\nname = \"caller\"\npath = \"caller.wat\"\n";
    expect_error(m, &[("caller.wat", &caller)], 1, "app.toml:6:8: error: incompatible interface `t.Echo` between importer `caller` and exporter `echo`");
}

#[test]
fn module_failing_to_load() {
    let m = "[[module]]\nname = \"junk\"\npath = \"junk.wasm\"\n";
    expect_error(
        m,
        &[("junk.wasm", "\0asm garbage")],
        1,
        "app.toml:3:8: error: module `junk`: invalid module",
    );
}

#[test]
fn a_failing_call_is_reported_and_sets_the_exit_code() {
    let boom = Guest::new(
        vec![iface("t.B", Pattern::Direct, vec![], vec![simple("boom")])],
        vec![],
    )
    .func("t.B", "boom", "(unreachable)")
    .wat();
    let m = "[[module]]\nname = \"b\"\npath = \"b.wat\"\n\n[[run]]\nmodule = \"b\"\ninterface = \"t.B\"\nfunction = \"boom\"\n";
    expect_error(
        m,
        &[("b.wat", &boom)],
        1,
        "error: module `b`, t.B.boom: trap: ",
    );
}

/// Guest text in a printed result cannot drive the terminal: characters
/// JSON allows raw in strings (C1 controls, bidirectional overrides, the
/// line separator) are printed as `\uXXXX` escapes.
#[test]
fn guest_text_in_results_is_printed_escaped() {
    let manifest = ECHO_MANIFEST.replace(
        "Text = \"hi\"",
        "Text = \"a\\u202Eb\\u0085c\\u2028d\\u001B[2J\"",
    );
    let (code, out, err) = run(&[
        ("app.toml", &manifest),
        ("t.km", SCHEMA),
        ("echo.wat", &echo().wat()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(r#""Text": "a\u202eb\u0085c\u2028d\u001b[2J""#),
        "{out}"
    );
    assert!(
        !out.chars()
            .any(|c| c != '\n' && karmem_host::must_escape(c)),
        "{out:?}"
    );
}

/// A result over 64 KiB is shown as the hex of its first bytes, not
/// decoded: the JSON of a large result costs tens of bytes per element.
#[test]
fn large_results_are_shown_as_hex_not_decoded() {
    let text = "x".repeat(100_000);
    let manifest = ECHO_MANIFEST.replace("Text = \"hi\"", &format!("Text = \"{text}\""));
    let (code, out, err) = run(&[
        ("app.toml", &manifest),
        ("t.km", SCHEMA),
        ("echo.wat", &echo().wat()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("over the 64 KiB shown as JSON"), "{out}");
    assert!(!out.contains("\"Text\""), "decoded anyway");
    // Two results of 256 bytes of hex each, and the lines around them.
    assert!(out.len() < 4096, "{} bytes printed", out.len());
}

/// A 432-byte result holding 100 absent tables of a `[65536]u8` table asks
/// a decoder for 6.5 MB of zero values: refused by the traversal budget
/// (format.md §10), shown as hex with the reason (it took 536 MB to print).
#[test]
fn over_budget_results_are_shown_as_hex_with_the_reason() {
    let schema = "karmem t;\n\nstruct Big table {\n    F [65536]u8;\n}\n\nstruct Bigs table {\n    L []Big #aos;\n}\n";
    let mut msg = vec![0u8; 432];
    msg[..4].copy_from_slice(b"KM\x02\x00");
    msg[4..8].copy_from_slice(&432u32.to_le_bytes());
    msg[8..12].copy_from_slice(&(3u32 | 4 << 29).to_le_bytes());
    for (i, w) in [32u32, 100, 100].iter().enumerate() {
        msg[12 + 4 * i..16 + 4 * i].copy_from_slice(&w.to_le_bytes());
    }
    let hex: String = msg.iter().map(|b| format!("{b:02x}")).collect();
    let echo = echo_of("t.Bigs").wat();
    let manifest = ECHO_MANIFEST.replace(
        "{ json = { Text = \"hi\", N = 3 } }",
        &format!("{{ hex = \"{hex}\" }}"),
    );
    let (code, out, err) = run(&[
        ("app.toml", &manifest),
        ("t.km", schema),
        ("echo.wat", &echo),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("432 bytes (not decoded: message exceeds the traversal budget"),
        "{out}"
    );
    assert!(out.len() < 4096, "{} bytes printed", out.len());
}

/// A module that asks for a region it was not granted is told which grant
/// would give it what it asks (read here: no grant means no window).
#[test]
fn an_ungranted_region_gets_a_note_naming_the_grant() {
    let bot = Guest::new(vec![karmem_testkit::wat_guest::bot_api()], vec![]).func(
        "t.Bot",
        "think",
        "(i32.const 0)",
    );
    let manifest = "[[module]]\nname = \"bot\"\npath = \"bot.wat\"\n";
    let (code, _out, err) = run(&[("app.toml", manifest), ("bot.wat", &bot.wat())]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("asks for read access to `t.board`; granted none")
            && err.contains(r#"grant = { "t.board" = "read" }"#),
        "{err}"
    );
}

/// A function named without its package (or misspelt): the error says
/// which qualified name was meant and lists what the module exports.
#[test]
fn an_unknown_function_gets_the_exports_and_a_suggestion() {
    for (module_line, at) in [
        ("module = \"echo\"\n", "module"),
        ("all = true\n", "function"),
    ] {
        let manifest = format!(
            "schemas = [\"t.km\"]\n\n[[module]]\nname = \"echo\"\npath = \"echo.wat\"\n\n[[run]]\n{module_line}interface = \"Echo\"\nfunction = \"echo\"\n"
        );
        let (code, _, err) = run(&[
            ("app.toml", &manifest),
            ("t.km", SCHEMA),
            ("echo.wat", &echo().wat()),
        ]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("did you mean interface = \"t.Echo\", function = \"echo\"?"),
            "{at}: {err}"
        );
        assert!(err.contains("export: `t.Echo.echo`)"), "{at}: {err}");
    }
}

//! Hostile guests, round two: text from guests and from module bytes is
//! escaped on every path to a terminal or a log (docs/security.md §2.5).
//! On 87a4998 raw ESC, CR and BEL from module bytes reached the terminal
//! through load errors (the WAT parser's source line, wasmtime's "defined
//! twice", wasmparser's duplicate export), and U+2028, U+2029 and ZWJ
//! passed through guest text unescaped.

use std::sync::Arc;

use karmem_host::{Error, LogSink, MemoryLog, Pattern};

use crate::common::*;

/// Every character that must never reach a terminal raw: C0 and C1
/// controls, DEL, the line and paragraph separators, the bidirectional
/// controls, zero-width joiners and spaces, the byte order mark.
fn hostile_chars() -> Vec<char> {
    let mut v: Vec<char> = (0u32..0x20)
        .chain(0x7f..0xa0)
        .chain([
            0x2028, 0x2029, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c, 0xfeff,
        ])
        .chain(0x202a..=0x202e)
        .chain(0x2066..=0x2069)
        .filter_map(char::from_u32)
        .collect();
    v.sort();
    v
}

/// The hostile characters as one string (NUL left out where a format
/// cannot carry it).
fn payload(with_nul: bool) -> String {
    hostile_chars()
        .into_iter()
        .filter(|&c| with_nul || c != '\0')
        .collect()
}

#[track_caller]
fn assert_clean(path: &str, text: &str) {
    let bad: Vec<char> = hostile_chars();
    if let Some(c) = text.chars().find(|c| bad.contains(c)) {
        panic!(
            "{path}: U+{:04X} reaches the output raw: {text:?}",
            c as u32
        );
    }
}

fn load_err(name: &str, bytes: &[u8]) -> Error {
    match runtime().load(name, bytes) {
        Err(e) => e,
        Ok(_) => panic!("{name}: loaded"),
    }
}

/// Errors of loading modules quote module bytes: each is escaped.
#[test]
fn load_errors_quote_module_bytes_escaped() {
    let p = payload(false);
    // The WAT parser shows the offending source line.
    let wat = format!("(module (func $f {p} nonsense))");
    let e = load_err("wat", wat.as_bytes());
    assert!(matches!(e, Error::InvalidModule { .. }), "{e}");
    assert_clean("WAT parse error", &e.to_string());

    // A file that is no module at all: its first line is quoted.
    let e = load_err("text", format!("{p}\nsecond line").as_bytes());
    assert_clean("non-module file", &e.to_string());

    // wasmparser: a duplicate export name made of hostile characters.
    let esc = "\\1b[2J\\07\\0d\\e2\\80\\a8\\e2\\80\\ae";
    let g = replier("t.Dup", "x").extra(&format!(
        "(func (export \"{esc}\")) (func (export \"{esc}\"))"
    ));
    let e = load_err("dup", g.wat().as_bytes());
    assert_clean("duplicate export", &e.to_string());

    // wasmtime: a WASI function the host stubs, imported twice under a
    // hostile name.
    let mut g = replier("t.Stub", "x");
    g.extra_imports = format!(
        "(import \"wasi_snapshot_preview1\" \"{esc}\" (func (param i32)))
         (import \"wasi_snapshot_preview1\" \"{esc}\" (func (param i32)))\n"
    );
    // (It loads: one stub serves both imports.)
    if let Err(e) = runtime().load("stub", g.wat().as_bytes()) {
        assert_clean("stubbed import", &e.to_string());
    }
    // An unknown import module with a hostile name.
    let mut g = replier("t.Imp", "x");
    g.extra_imports = format!("(import \"{esc}\" \"{esc}\" (func))\n");
    let e = load_err("imp", g.wat().as_bytes());
    assert_clean("unsatisfied import", &e.to_string());
}

/// A sink that fails the test on any raw hostile character.
struct Checking(MemoryLog);

impl LogSink for Checking {
    fn log(&self, r: &karmem_host::LogRecord<'_>) {
        assert_clean("log sink", r.message);
        self.0.log(r);
    }
}

/// Guest text reaches sinks and errors escaped: `karmem.log`, WASI stdout
/// and stderr, and the message of `karmem.error`.
#[test]
fn guest_text_is_escaped_on_every_path() {
    let p = payload(true);
    let bytes = p.as_bytes();
    let mut data = String::new();
    for b in bytes {
        data.push_str(&format!("\\{b:02x}"));
    }
    let n = bytes.len();
    let mut g = Guest::new(
        vec![iface(
            "t.Say",
            Pattern::Direct,
            vec![],
            vec![simple("log"), simple("out"), simple("fail")],
        )],
        vec![],
    )
    .func(
        "t.Say",
        "log",
        &format!("(call $log (i32.const 2) (i32.const 2048) (i32.const {n})) (i32.const 0)"),
    )
    .func(
        "t.Say",
        "out",
        &format!(
            "(i32.store (i32.const 3000) (i32.const 2048)) (i32.store (i32.const 3004) (i32.const {n}))
             (drop (call $fd_write (i32.const 1) (i32.const 3000) (i32.const 1) (i32.const 3100)))
             (drop (call $fd_write (i32.const 2) (i32.const 3000) (i32.const 1) (i32.const 3100)))
             (i32.store8 (i32.const 3200) (i32.const 10))
             (i32.store (i32.const 3000) (i32.const 3200)) (i32.store (i32.const 3004) (i32.const 1))
             (drop (call $fd_write (i32.const 1) (i32.const 3000) (i32.const 1) (i32.const 3100)))
             (i32.const 0)"
        ),
    )
    .func(
        "t.Say",
        "fail",
        &format!("(call $error (i32.const 2048) (i32.const {n})) (i32.const 3)"),
    )
    .extra(&format!("(data (i32.const 2048) \"{data}\")"));
    g.extra_imports = "(import \"wasi_snapshot_preview1\" \"fd_write\" (func $fd_write (param i32 i32 i32 i32) (result i32)))\n".into();
    let sink = Arc::new(Checking(MemoryLog::new()));
    let mut b = karmem_host::AppBuilder::new(runtime());
    b.log_sink(sink.clone()).module(g.load("say"));
    let app = b.build().unwrap();
    app.call("say", "t.Say", "log", &[]).unwrap();
    app.call("say", "t.Say", "out", &[]).unwrap();
    let lines = sink.0.take();
    assert!(lines.len() >= 2, "{lines:?}");
    let e = app.call("say", "t.Say", "fail", &[]).unwrap_err();
    match &e {
        Error::Application { message, .. } => assert_clean("karmem.error message", message),
        other => panic!("{other:?}"),
    }
    assert_clean("karmem.error as an error", &e.to_string());
}

//! Helpers shared by the diagnostic tests.

/// The rendered errors of compiling `src`, which must fail.
pub fn errors(src: &str) -> String {
    match karmem_schema::compile("t.km", src) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => d.render(false),
    }
}

/// Assert that compiling `src` reports `message` at `line:col`, with a hint.
pub fn expect(src: &str, line_col: &str, message: &str) {
    let out = errors(src);
    let at = format!("--> t.km:{line_col}\n");
    let found = out
        .split("\n\n")
        .any(|block| block.contains(message) && block.contains(&at) && block.contains("= help: "));
    assert!(
        found,
        "expected `{message}` at {line_col} with a hint, got:\n{out}"
    );
}

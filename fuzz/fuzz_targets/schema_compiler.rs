//! The compiler must turn any text into a schema or diagnostics — never a
//! panic, never a stack overflow — and the formatter must be idempotent on
//! whatever it accepts.
//!
//! Random text rarely nests deeply, so an input starting with the byte
//! 0xFF (never the first byte of UTF-8 text) is a recipe instead: a shape
//! that nests (arrays, tuples, maps, a mix, chains of structs held by
//! value or through arrays, a cycle), a depth of up to 4 095 levels, around
//! the limit of docs/idl.md §3 and §7 or far past it, and the rest of the
//! input as the innermost type's text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = match data.split_first() {
        Some((0xFF, recipe)) => expand(recipe),
        _ => match std::str::from_utf8(data) {
            Ok(text) => text.to_string(),
            Err(_) => return,
        },
    };
    match karmem_schema::compile("fuzz.km", &source) {
        Ok(compiled) => {
            let _ = karmem_layout::compute(&compiled.schema);
        }
        Err(diags) => {
            let _ = diags.render(false);
        }
    }
    if let Ok(once) = karmem_schema::format("fuzz.km", &source) {
        let twice = karmem_schema::format("fuzz.km", &once).expect("formatted output parses");
        assert_eq!(once, twice, "formatter is not idempotent");
    }
});

/// The schema a recipe describes: `[shape, depth_lo, depth_hi, tail...]`.
fn expand(recipe: &[u8]) -> String {
    let byte = |k: usize| recipe.get(k).copied().unwrap_or(0);
    let depth = usize::from(u16::from_le_bytes([byte(1), byte(2)]) & 0x0FFF);
    let tail = recipe.get(3..).unwrap_or_default();
    // The innermost type: a word of the tail, else `u8`.
    let inner: String = tail
        .iter()
        .map(|&b| char::from(b'a' + b % 26))
        .take(8)
        .collect();
    let inner = if inner.is_empty() {
        "u8".to_string()
    } else {
        inner
    };
    let field = |ty: String| format!("karmem f;\nstruct S table {{ x: {ty}; }}\n");
    match byte(0) % 9 {
        0 => field("[]".repeat(depth) + &inner),
        1 => field("(".repeat(depth) + &inner + &", u8)".repeat(depth)),
        2 => field("map<u32, ".repeat(depth) + &inner + &">".repeat(depth)),
        3 => {
            // Each tail byte picks the next level's constructor.
            let (mut open, mut close) = (String::new(), String::new());
            for k in 0..depth {
                match tail.get(k % tail.len().max(1)).copied().unwrap_or(0) % 5 {
                    0 => open.push_str("[]"),
                    1 => open.push_str("[<3]"),
                    2 => open.push_str("[2]"),
                    3 => {
                        open.push('(');
                        close.insert_str(0, ", bool)");
                    }
                    _ => {
                        open.push_str("map<string, ");
                        close.insert(0, '>');
                    }
                }
            }
            field(open + "u8" + &close)
        }
        shape => {
            // A chain of `depth` structs, each holding the next.
            let (kind, hold) = match shape {
                4 => ("inline", ""),
                5 => ("table", ""),
                6 => ("inline", "[2]"),
                7 => ("table", "[]"),
                _ => ("inline", ""),
            };
            let mut src = String::from("karmem f;\n");
            for i in 0..depth {
                src.push_str(&format!("struct A{i} {kind} {{ a: {hold}A{}; }}\n", i + 1));
            }
            // Shape 8 closes the chain into a cycle.
            let last = if shape == 8 { "A0".to_string() } else { inner };
            src + &format!("struct A{depth} {kind} {{ a: {last}; }}\n")
        }
    }
}

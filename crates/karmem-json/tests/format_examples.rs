//! The worked examples of docs/format.md §14 stay true: for each
//! `<!-- example: root=ROOT [vector=TOPIC/NAME] -->` marker, the ```km,
//! ```json and ```hex blocks that follow are read; the value must encode to
//! exactly the annotated bytes and decode back to the value. With `vector=`,
//! the example must also be that golden vector (same value, same bytes).

use std::path::{Path, PathBuf};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[derive(Debug, Default)]
struct Example {
    line: usize,
    root: String,
    vector: Option<String>,
    schema: Option<String>,
    value: Option<String>,
    hex: Option<String>,
}

fn examples(markdown: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut block: Option<(String, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        if let Some((lang, body)) = &mut block {
            if line.trim_end() == "```" {
                let (lang, body) = (std::mem::take(lang), std::mem::take(body));
                block = None;
                if let Some(ex) = out.last_mut() {
                    let slot = match lang.as_str() {
                        "km" => &mut ex.schema,
                        "json" => &mut ex.value,
                        "hex" => &mut ex.hex,
                        _ => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(body);
                    }
                }
            } else {
                body.push_str(line);
                body.push('\n');
            }
        } else if let Some(info) = line.strip_prefix("```") {
            block = Some((info.trim().to_string(), String::new()));
        } else if let Some(rest) = line.trim().strip_prefix("<!-- example:") {
            let mut ex = Example {
                line: i + 1,
                ..Example::default()
            };
            for word in rest.trim_end_matches("-->").split_whitespace() {
                match word.split_once('=') {
                    Some(("root", v)) => ex.root = v.to_string(),
                    Some(("vector", v)) => ex.vector = Some(v.to_string()),
                    _ => panic!("format.md:{}: unknown example option `{word}`", i + 1),
                }
            }
            out.push(ex);
        }
    }
    out
}

/// Bytes of an annotated dump: `OFFSET: xx xx ... | comment` lines and
/// `START..END: 00 | comment` zero runs; offsets must follow each other.
fn parse_dump(dump: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for (i, raw) in dump.lines().enumerate() {
        let line = raw.split_once('|').map_or(raw, |(data, _)| data).trim();
        if line.is_empty() {
            continue;
        }
        let at = |what: &str| format!("dump line {}: {what}: `{raw}`", i + 1);
        let (offset, data) = line.split_once(':').ok_or_else(|| at("no `OFFSET:`"))?;
        let hex = |s: &str| usize::from_str_radix(s.trim(), 16).map_err(|_| at("bad offset"));
        let (start, end) = match offset.split_once("..") {
            Some((a, b)) => (hex(a)?, Some(hex(b)?)),
            None => (hex(offset)?, None),
        };
        if start != bytes.len() {
            return Err(at(&format!("expected offset {:04x}", bytes.len())));
        }
        let values: Vec<u8> = data
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).map_err(|_| at("bad byte")))
            .collect::<Result<_, _>>()?;
        match end {
            Some(end) if values == [0] && end > start => bytes.resize(end, 0),
            Some(_) => return Err(at("a range must be `START..END: 00` with END > START")),
            None if values.is_empty() => return Err(at("no bytes")),
            None => bytes.extend(values),
        }
    }
    Ok(bytes)
}

#[test]
fn worked_examples_match_the_encoder() {
    let doc = std::fs::read_to_string(repo().join("docs/format.md")).unwrap();
    let found = examples(&doc);
    assert!(found.len() >= 4, "expected the worked examples A, B, C, D");
    let mut failures = Vec::new();
    for ex in &found {
        let at = format!("docs/format.md:{}", ex.line);
        let (Some(schema), Some(value), Some(hex)) = (&ex.schema, &ex.value, &ex.hex) else {
            failures.push(format!(
                "{at}: an example needs a km, a json and a hex block"
            ));
            continue;
        };
        let (s, l) = karmem_layout::load("example.km", schema)
            .unwrap_or_else(|d| panic!("{at}: {}", d.render(false)));
        let root = s.struct_by_name(&ex.root).expect("root type");
        let value: Value = serde_json::from_str(value).unwrap();
        let dumped = match parse_dump(hex) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{at}: {e}"));
                continue;
            }
        };
        let encoded = karmem_json::encode(&s, &l, root, &value).unwrap();
        if encoded != dumped {
            failures.push(format!(
                "{at}: the dump differs from the encoder's bytes:\n{}",
                karmem_vectors::format_hex(&encoded)
            ));
        }
        match karmem_json::decode(&s, &l, root, &dumped) {
            Ok(v) if v == value => {}
            other => failures.push(format!("{at}: the bytes decode to {other:?}")),
        }
        if let Some(vector) = &ex.vector {
            let dir = repo().join("testdata/vectors");
            let (topic, name) = vector.split_once('/').expect("vector=TOPIC/NAME");
            let case = karmem_vectors::load_all(&dir)
                .into_iter()
                .find(|c| c.dir.file_name().is_some_and(|d| d == topic) && c.name == name);
            match case {
                Some(c) if c.value == value && c.bytes.as_ref() == Some(&dumped) => {}
                Some(_) => failures.push(format!("{at}: differs from golden vector {vector}")),
                None => failures.push(format!("{at}: no golden vector {vector}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn dump_syntax() {
    assert_eq!(
        parse_dump("0000: 01 02 | two bytes\n   | a comment\n0002..0004: 00\n0004: ff").unwrap(),
        [1, 2, 0, 0, 0xff]
    );
    assert!(
        parse_dump("0001: 01").is_err(),
        "offsets must follow each other"
    );
    assert!(
        parse_dump("0000..0004: 01").is_err(),
        "ranges are zeros only"
    );
}

//! The golden-vector file format (testdata/vectors/README.md): the cases of
//! every topic and their `.hex` files, read once for every runner (the
//! Rust, C, Zig and AssemblyScript ones and karmem-json's, which writes the
//! vectors). Test support, not published.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One case: `NAME.json` + `NAME.hex` in a topic directory.
#[derive(Clone, Debug)]
pub struct Case {
    /// The topic directory (`testdata/vectors/TOPIC`).
    pub dir: PathBuf,
    /// The topic: the directory's name.
    pub topic: String,
    /// The file stem, `NAME`.
    pub name: String,
    /// Schema file the value is written with (default `schema.km`).
    pub schema: String,
    pub root: String,
    pub value: Value,
    /// Other schema files that must read the bytes, with the value each
    /// reads (evolution cases).
    pub readers: Vec<(String, Value)>,
    pub bytes: Option<Vec<u8>>,
    /// A hostile case: the bytes are built from this description, not
    /// encoded from `value` (see [`Hostile`]).
    pub hostile: Option<Hostile>,
}

/// A hostile case (topic `hostile`): a message built word by word, whether
/// validators accept it, and what decoders make of it.
#[derive(Clone, Debug)]
pub struct Hostile {
    /// The message: `size` bytes with a valid header, zero but for the
    /// `words` (`{"offset": u32}`, little-endian).
    pub size: usize,
    pub words: Vec<(usize, u32)>,
    /// Whether every validator accepts the message.
    pub valid: bool,
    /// Whether every decoder decodes it (to `value`); otherwise every
    /// decoder refuses it with an error.
    pub decodes: bool,
    /// The kind of error every validator reports, where format.md §11
    /// names it and the message has one fault (`"DirectoryTooLarge"`: each
    /// library's name for it is this one, `Err` + it in Go, `KM_ERR_` + it
    /// in upper snake case in C).
    pub error: Option<String>,
}

impl Hostile {
    fn parse(v: &Value) -> Option<Hostile> {
        let m = v.get("message")?;
        let words = m["words"].as_object()?.iter().map(|(at, w)| {
            let at = at.parse().expect("a word's offset");
            (at, w.as_u64().expect("a u32 word") as u32)
        });
        Some(Hostile {
            size: m["size"].as_u64().expect("message size") as usize,
            words: words.collect(),
            valid: v["valid"].as_bool().expect("`valid`: true or false"),
            decodes: v.get("value").is_some(),
            error: v
                .get("error")
                .map(|e| e.as_str().expect("`error`: a kind's name").to_string()),
        })
    }

    /// For runners whose driver prints a validator's verdict as `false KIND
    /// at OFFSET (VALUE)`: the problem when the case names an error kind
    /// and the verdict another.
    pub fn kind_problem(&self, verdict: &str) -> Option<String> {
        let kind = self.error.as_deref()?;
        (verdict.split(' ').nth(1) != Some(kind))
            .then(|| format!("validate: {verdict}, the case says {kind}"))
    }

    /// The message's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; self.size];
        b[0..4].copy_from_slice(&[b'K', b'M', karmem_layout::VERSION, 0]);
        b[4..8].copy_from_slice(&(self.size as u32).to_le_bytes());
        for &(at, w) in &self.words {
            b[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
}

impl Case {
    /// `TOPIC/NAME`, as runners report a case.
    pub fn id(&self) -> String {
        format!("{}/{}", self.topic, self.name)
    }

    /// What decoding the bytes gives; `None` for a hostile message every
    /// decoder refuses.
    pub fn decoded(&self) -> Option<&Value> {
        match &self.hostile {
            Some(h) if !h.decodes => None,
            _ => Some(&self.value),
        }
    }

    pub fn json_path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.name))
    }

    pub fn hex_path(&self) -> PathBuf {
        self.dir.join(format!("{}.hex", self.name))
    }
}

/// Every case under `root`, sorted by path.
pub fn load_all(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("vectors directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let topic = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for path in files
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let v: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let readers = match v.get("readers") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|s| (s.as_str().unwrap().to_string(), Value::Null))
                    .collect(),
                Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                _ => Vec::new(),
            };
            let hex = dir.join(format!("{name}.hex"));
            cases.push(Case {
                schema: v
                    .get("schema")
                    .and_then(Value::as_str)
                    .unwrap_or("schema.km")
                    .to_string(),
                root: v["root"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: no root", path.display()))
                    .to_string(),
                value: v.get("value").cloned().unwrap_or(Value::Null),
                readers,
                bytes: std::fs::read_to_string(&hex).ok().map(|t| parse_hex(&t)),
                hostile: Hostile::parse(&v),
                dir: dir.clone(),
                topic: topic.clone(),
                name,
            });
        }
    }
    cases
}

/// Every schema file (`*.km`) under `dir`, depth first, sorted. Symbolic
/// links are skipped: a link is another name of a schema kept elsewhere
/// under `dir` (testdata/schemas/seed_app.km is testdata/vectors/seed/
/// schema.km), whose code is generated once, from the file itself.
pub fn schema_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let (path, kind) = (e.path(), e.file_type().expect("file type"));
            if kind.is_dir() {
                walk(&path, out);
            } else if kind.is_file() && path.extension().is_some_and(|x| x == "km") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

/// `OFFSET: xx xx ...` lines; everything before `:` is a comment.
pub fn parse_hex(text: &str) -> Vec<u8> {
    text.lines()
        .flat_map(|line| {
            line.split_once(':')
                .map(|(_, rest)| rest)
                .unwrap_or(line)
                .split_whitespace()
        })
        .map(|pair| {
            u8::from_str_radix(pair, 16).unwrap_or_else(|_| panic!("bad hex byte `{pair}`"))
        })
        .collect()
}

/// 16 bytes per line, with the offset: diffs of vectors stay reviewable.
pub fn format_hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let pairs: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        out.push_str(&format!("{:04x}: {}\n", i * 16, pairs.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_lines() {
        assert_eq!(
            parse_hex("0000: 4b 4d\n0002: 02 00\n"),
            vec![0x4b, 0x4d, 2, 0]
        );
        assert_eq!(parse_hex(&format_hex(&[7; 17])), vec![7; 17]);
    }
}

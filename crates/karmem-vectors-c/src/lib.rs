//! The C golden-vector runner's machinery (the test is
//! `tests/vectors.rs`): generate C for a schema with the current C backend
//! (a library call, so the test always runs the current generator), write
//! a driver that dispatches on the root type's name, build it with
//! clang-19 under AddressSanitizer and UndefinedBehaviorSanitizer, and run
//! it over a case's bytes. The driver prints what the generated code did
//! (validation, decoding as JSON, encoding, the reuse path); the test
//! compares that with the case.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use karmem_codegen::c::{prefix, CBackend};
use karmem_codegen::Backend;
use serde_json::Value;

use json::{json_printer, view_json_printer};

// The driver's JSON printers (json.rs) are test code, so karmem-codegen
// does not ship them; they name what the C backend generates through the
// backend's own (crate-private) naming, so the backend's sources are
// compiled into this crate a second time, as `c`, for them. Those sources
// address karmem-codegen's root as `crate::`: the few items they use from
// it are at this crate's root too. The code generated for the cases still
// comes from karmem-codegen itself (`CBackend` above).
#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../../karmem-codegen/src/c/mod.rs"]
mod c;
#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../../karmem-codegen/src/emit.rs"]
mod emit;
mod json;
#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../../karmem-codegen/src/walk.rs"]
mod walk;
#[allow(unused_imports)]
use karmem_codegen::{header, names, Error, GeneratedFile};

/// The repository root (this crate is `crates/karmem-vectors-c`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Flags the driver compiles under.
pub const STRICT: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
    "-Wshadow",
];

/// Flags generated code compiles cleanly under: the library's own
/// (docs/c.md), so that a user's strict build accepts both.
pub const GENERATED: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
    "-Wshadow",
    "-Wconversion",
    "-Wstrict-prototypes",
];

/// A built driver for one schema file.
pub struct Driver {
    pub exe: PathBuf,
}

/// Generates the C code of `schema` into `dir` and builds its driver:
/// the generated `.c` alone with gcc-12 and clang-19 under the library's
/// strict flags, then the driver with clang-19 and the sanitizers (the
/// program the cases run).
pub fn build(schema: &Path, dir: &Path) -> Result<Driver, String> {
    let source = std::fs::read_to_string(schema).map_err(|e| format!("read: {e}"))?;
    let name = schema.to_string_lossy().to_string();
    let (s, l) = karmem_layout::load(&name, &source).map_err(|e| format!("schema: {e:?}"))?;
    let files = CBackend
        .generate(&s, &l)
        .map_err(|e| format!("C generator: {e}"))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("mkdir: {e}"))?;
    for f in &files {
        std::fs::write(dir.join(&f.path), &f.contents).map_err(|e| format!("write: {e}"))?;
    }
    let p = prefix(&s);
    let driver = dir.join("driver.c");
    std::fs::write(&driver, driver_source(&s, &l, &p)).map_err(|e| format!("write: {e}"))?;
    let c_dir = repo_root().join("c");
    let generated = dir.join(format!("{p}.c"));
    // The generated code alone, optimised (more warnings), with both
    // compilers: warnings are errors.
    for cc in ["gcc-12", "clang-19"] {
        run(Command::new(cc)
            .args(GENERATED)
            .arg("-O2")
            .arg("-I")
            .arg(&c_dir)
            .arg("-I")
            .arg(dir)
            .arg("-c")
            .arg("-o")
            .arg(dir.join(format!("generated-{cc}.o")))
            .arg(&generated))?;
    }
    let exe = dir.join("driver");
    run(Command::new("clang-19")
        .args(STRICT)
        .args([
            "-D_POSIX_C_SOURCE=200809L",
            "-g",
            "-O1",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ])
        .arg("-I")
        .arg(&c_dir)
        .arg("-I")
        .arg(dir)
        .arg("-o")
        .arg(&exe)
        .arg(&driver)
        .arg(&generated)
        .arg(c_dir.join("karmem.c")))?;
    Ok(Driver { exe })
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            truncate(&String::from_utf8_lossy(&out.stderr), 4000)
        ))
    }
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The C driver: `driver ROOT FILE` reads the message in FILE and, for the
/// struct named ROOT, prints one line each:
///
/// ```text
/// validate: STATUS
/// view: VALUE                    (read in place through the viewers)
/// trust: STATUS                  (<type>_trust: validation again)
/// trusted: VALUE                 (trust succeeded: read through the trusted viewers)
/// decode: STATUS
/// json: VALUE                    (decoding succeeded)
/// encode: STATUS HEX             (the decoded value encoded again)
/// json2: VALUE                   (decoded again into the reset arena)
/// reuse: ok | WHY                (encoding again with the same writer)
/// ```
fn driver_source(s: &karmem_schema::model::Schema, l: &karmem_layout::Layout, p: &str) -> String {
    let mut out = String::new();
    out.push_str("// The golden-vector driver (crates/karmem-vectors-c).\n");
    out.push_str("#include <inttypes.h>\n#include <math.h>\n#include <stdio.h>\n");
    out.push_str("#include <stdlib.h>\n#include <string.h>\n\n");
    let _ = writeln!(out, "#include \"{p}.h\"\n");
    out.push_str(&json_printer(s, l));
    out.push_str(&view_json_printer(s, l, false));
    out.push_str(&view_json_printer(s, l, true));
    out.push_str(
        r#"
static void print_hex(const uint8_t *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        printf("%02x", b[i]);
    }
}
"#,
    );
    for id in 0..s.structs.len() {
        let ty = format!("{p}_{}", karmem_codegen::names::snake(&s.structs[id].name));
        let _ = write!(
            out,
            r#"
static int run_{ty}(const km_reader *r) {{
    km_arena arena;
    km_writer w;
    km_error err;
    km_status s;
    {ty} obj;
    uint8_t *first;
    uint32_t first_len;
    memset(&err, 0, sizeof err);
    s = {ty}_validate(r, &err);
    printf("validate: %d\n", (int)s);
    /* The whole message read in place through the checked viewers: any
     * message, valid or not (they never fail and never read outside it). */
    printf("view: ");
    {ty}_view_json(stdout, {ty}_view_root(r));
    printf("\n");
    /* The trusted viewers, reachable only through a successful _trust. */
    {{
        {ty}_tview tv;
        km_error terr;
        s = {ty}_trust(r, &terr, &tv);
        printf("trust: %d\n", (int)s);
        if (s == KM_OK) {{
            printf("trusted: ");
            {ty}_tview_json(stdout, tv);
            printf("\n");
        }}
    }}
    km_arena_init_growable(&arena, NULL, 0, NULL);
    s = {ty}_decode(&obj, r, &arena);
    printf("decode: %d\n", (int)s);
    if (s != KM_OK) {{
        km_arena_free(&arena);
        return 0;
    }}
    printf("json: ");
    {ty}_json(stdout, &obj);
    printf("\n");
    if (km_writer_init(&w, 64, NULL) != KM_OK) {{
        return 1;
    }}
    s = {ty}_encode(&obj, &w);
    printf("encode: %d ", (int)s);
    print_hex(km_writer_bytes(&w), s == KM_OK ? km_writer_len(&w) : 0);
    printf("\n");
    first_len = s == KM_OK ? km_writer_len(&w) : 0;
    first = malloc(first_len + 1);
    if (first == NULL) {{
        return 1;
    }}
    memcpy(first, km_writer_bytes(&w), first_len);
    km_arena_reset(&arena);
    s = {ty}_decode(&obj, r, &arena);
    printf("json2: ");
    if (s == KM_OK) {{
        {ty}_json(stdout, &obj);
    }}
    printf("\n");
    s = {ty}_encode(&obj, &w);
    if (s != KM_OK || km_writer_len(&w) != first_len ||
        memcmp(km_writer_bytes(&w), first, first_len) != 0) {{
        printf("reuse: encoding again with the same writer changed the bytes\n");
    }} else {{
        printf("reuse: ok\n");
    }}
    free(first);
    km_writer_free(&w);
    km_arena_free(&arena);
    return 0;
}}
"#
        );
    }
    out.push_str(
        r#"
int main(int argc, char **argv) {
    FILE *f;
    uint8_t *buf;
    long n;
    km_reader r;
    if (argc != 3) {
        fprintf(stderr, "usage: driver ROOT FILE\n");
        return 2;
    }
    f = fopen(argv[2], "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    /* malloc's memory is aligned for any object: 8 bytes at least. */
    buf = malloc((size_t)n + 8);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        return 2;
    }
    fclose(f);
    km_reader_open(&r, buf, (size_t)n);
"#,
    );
    for (id, st) in s.structs.iter().enumerate() {
        let ty = format!("{p}_{}", karmem_codegen::names::snake(&st.name));
        let _ = writeln!(
            out,
            "    if (strcmp(argv[1], \"{}\") == 0) {{\n        int rc = run_{ty}(&r);\n        free(buf);\n        return rc;\n    }}",
            st.name
        );
        let _ = id;
    }
    out.push_str(
        "    fprintf(stderr, \"unknown root %s\\n\", argv[1]);\n    free(buf);\n    return 2;\n}\n",
    );
    out
}

/// What the driver printed for one message.
#[derive(Debug, Default)]
pub struct Outcome {
    pub validate: i64,
    pub decode: i64,
    /// The message read through the viewers.
    pub view: Option<Value>,
    /// The status of `<type>_trust` (`None`: not printed).
    pub trust: Option<i64>,
    /// The message read through the trusted viewers (only after `trust`
    /// succeeded).
    pub trusted: Option<Value>,
    pub json: Option<Value>,
    pub encode: Option<(i64, Vec<u8>)>,
    pub json2: Option<Value>,
    pub reuse: Option<String>,
}

/// Runs the driver over `bytes` for root type `root`.
pub fn run_case(
    driver: &Driver,
    root: &str,
    bytes: &[u8],
    scratch: &Path,
) -> Result<Outcome, String> {
    std::fs::write(scratch, bytes).map_err(|e| format!("write: {e}"))?;
    let out = Command::new(&driver.exe)
        .arg(root)
        .arg(scratch)
        .output()
        .map_err(|e| format!("cannot run the driver: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "the driver failed ({}):\n{stdout}{}",
            out.status,
            truncate(&String::from_utf8_lossy(&out.stderr), 4000)
        ));
    }
    let mut o = Outcome::default();
    for line in stdout.lines() {
        let (key, rest) = line
            .split_once(": ")
            .unwrap_or((line.trim_end_matches(':'), ""));
        let json = |t: &str| {
            serde_json::from_str::<Value>(t)
                .map_err(|e| format!("driver printed bad JSON ({e}): {t}"))
        };
        match key {
            "validate" => o.validate = rest.parse().map_err(|_| line.to_string())?,
            "decode" => o.decode = rest.parse().map_err(|_| line.to_string())?,
            "json" => o.json = Some(json(rest)?),
            "view" => o.view = Some(json(rest)?),
            "trust" => o.trust = Some(rest.parse().map_err(|_| line.to_string())?),
            "trusted" => o.trusted = Some(json(rest)?),
            "json2" if !rest.is_empty() => o.json2 = Some(json(rest)?),
            "json2" => {}
            "encode" => {
                let (st, hex) = rest.split_once(' ').unwrap_or((rest, ""));
                o.encode = Some((st.parse().map_err(|_| line.to_string())?, unhex(hex)?));
            }
            "reuse" => o.reuse = Some(rest.to_string()),
            _ => return Err(format!("unexpected driver output: {line}")),
        }
    }
    Ok(o)
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

/// Whether a decoded value (as the driver printed it) equals an expected
/// one in the vectors' conventions: objects key by key (a missing key is
/// `null`), integers by value, floats by bits, everything else as is.
/// Returns the path of the first difference.
pub fn differs(expected: &Value, got: &Value, path: &str) -> Option<String> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for k in e.keys().chain(g.keys()) {
                let null = Value::Null;
                let (ev, gv) = (e.get(k).unwrap_or(&null), g.get(k).unwrap_or(&null));
                if let Some(d) = differs(ev, gv, &format!("{path}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(e), Value::Array(g)) => {
            if e.len() != g.len() {
                return Some(format!(
                    "{path}: {} elements, expected {}",
                    g.len(),
                    e.len()
                ));
            }
            e.iter()
                .zip(g)
                .enumerate()
                .find_map(|(i, (ev, gv))| differs(ev, gv, &format!("{path}[{i}]")))
        }
        (Value::Number(e), Value::Number(g)) => {
            let int = |n: &serde_json::Number| {
                n.as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
            };
            let same = match (int(e), int(g)) {
                (Some(a), Some(b)) => a == b,
                _ => e.as_f64().map(f64::to_bits) == g.as_f64().map(f64::to_bits),
            };
            (!same).then(|| format!("{path}: {g}, expected {e}"))
        }
        _ if expected == got => None,
        _ => Some(format!("{path}: {got}, expected {expected}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_compare_by_bits_and_integers_by_value() {
        assert!(differs(&json!(-0.0), &json!(0.0), "v").is_some());
        assert!(differs(&json!(0.1), &json!(0.1), "v").is_none());
        assert!(differs(
            &json!(18446744073709551615u64),
            &json!(18446744073709551615u64),
            "v"
        )
        .is_none());
        assert!(differs(
            &json!(-9223372036854775808i64),
            &json!(9223372036854775807i64),
            "v"
        )
        .is_some());
        assert!(differs(&json!("NaN"), &json!("NaN"), "v").is_none());
        assert!(differs(&json!("NaN"), &json!(0.0), "v").is_some());
    }

    #[test]
    fn objects_compare_key_by_key_missing_is_null() {
        assert!(differs(&json!({"A": 1, "B": null}), &json!({"A": 1}), "v").is_none());
        assert_eq!(
            differs(&json!({"A": [1, 2]}), &json!({"A": [1, 3]}), "v").as_deref(),
            Some("v.A[1]: 3, expected 2")
        );
        assert!(differs(&json!([1]), &json!([1, 1]), "v").is_some());
    }
}

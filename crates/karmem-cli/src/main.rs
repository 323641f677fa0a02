//! `karmem`: the command-line front end of the compiler.
//!
//! Exit codes are part of the interface (scripts and CI depend on them):
//! 0 success, 1 the schema or message is wrong (diagnostics printed) or
//! `fmt --check` found a file to reformat, 2 bad usage, 3 an I/O error.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod rewrite;
#[cfg(feature = "host")]
mod run;

const EXIT_INVALID: u8 = 1;
const EXIT_IO: u8 = 3;

#[derive(Parser)]
#[command(
    name = "karmem",
    version,
    about = "Compile KarmemIDL schemas, generate code, and inspect and validate Karmem messages",
    after_help = "Examples:
  karmem check app.km                        report errors and warnings
  karmem check --deny-warnings app.km        fail on warnings too (for CI)
  karmem build --lang rust -o src/gen app.km generate Rust code into src/gen/
  karmem build --lang rust --lang go -o gen app.km  Rust and Go code into gen/
  karmem build --lang rust -o gen schemas/   every *.km file of a directory
  karmem build --lang go-guest -o bot app.km      Go guest bindings into bot/
  karmem build --lang c -o gen app.km             C: gen/app.h and gen/app.c
  karmem build --lang c-guest -o gen app.km       C guest bindings (gen/app_guest.h, .c)
  karmem build --lang zig -o gen app.km           Zig: gen/app.zig
  karmem build --lang zig-guest -o gen app.km     Zig guest bindings: gen/app.zig, gen/app_guest.zig
  karmem build --lang ts -o gen app.km            TypeScript: gen/app.ts
  karmem build --lang as -o gen app.km            AssemblyScript: gen/app.ts
  karmem build --lang as-guest -o gen app.km      AssemblyScript guest bindings: gen/app.ts, gen/app_guest.ts
  karmem build --lang python -o gen app.km        Python: gen/app.py
  karmem fmt app.km                          rewrite app.km in canonical form
  karmem fmt --check app.km                  print a diff and exit 1 if app.km is not formatted
  karmem fmt - < app.km                      format stdin to stdout
  karmem fmt --check schemas/                every *.km file of a directory
  karmem json encode --root AccountData app.km < value.json > msg.bin
  karmem json decode app.km msg.bin          (the schema declares `root AccountData;`)
  karmem validate app.km msg.bin             exit 0 when valid, 1 with the fault and its offset
  karmem run app.toml                        run the calls an application manifest lists
  karmem rewrite in.wasm out.wasm            guard bulk-memory writes (docs/abi.md §6)

Exit codes: 0 ok, 1 invalid schema/message or unformatted file, 2 usage, 3 I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate code for one or more languages.
    Build {
        /// Target language (repeat for several).
        #[arg(long = "lang", value_enum, required = true)]
        langs: Vec<Lang>,
        /// Output directory (created if missing).
        #[arg(short = 'o', long = "out", default_value = ".")]
        out: PathBuf,
        /// Schema files, or directories whose `*.km` files are all built.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
    },
    /// Check schemas and print their diagnostics.
    Check {
        /// Fail (exit 1) when a schema has warnings, not only errors.
        #[arg(long)]
        deny_warnings: bool,
        /// Schema files, or directories whose `*.km` files are all checked.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
    },
    /// Format schema files in place (keeps comments); `-` formats stdin to stdout.
    Fmt {
        /// Do not write; print a diff and exit 1 if any file would change.
        #[arg(long)]
        check: bool,
        /// Schema files, directories whose `*.km` files are all formatted,
        /// or `-` for stdin.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
    },
    /// Run an application of wasm modules from a manifest (docs/manifest.md).
    #[cfg(feature = "host")]
    Run {
        /// The manifest (TOML).
        manifest: PathBuf,
    },
    /// Validate a guest module and guard its bulk-memory writes against
    /// read-only windows (docs/abi.md §6), for hosts other than karmem's.
    Rewrite { input: PathBuf, output: PathBuf },
    /// Check a binary message (from INPUT, or stdin) once, as every
    /// generated validator does (docs/format.md §11): exit 0 when it is
    /// valid, 1 with the fault's kind and offset when it is not.
    Validate {
        /// Root struct type (default: the schema's `root NAME;`).
        #[arg(long)]
        root: Option<String>,
        schema: PathBuf,
        /// The message file (default, or `-`: stdin).
        input: Option<PathBuf>,
    },
    /// Convert messages between JSON and the binary format.
    Json {
        #[command(subcommand)]
        action: JsonAction,
    },
}

#[derive(Subcommand)]
enum JsonAction {
    /// Read a JSON value (from INPUT, or stdin), write the binary message
    /// to stdout.
    Encode {
        /// Root struct type (default: the schema's `root NAME;`).
        #[arg(long)]
        root: Option<String>,
        schema: PathBuf,
        /// The JSON file (default, or `-`: stdin).
        input: Option<PathBuf>,
    },
    /// Read a binary message (from INPUT, or stdin), validate it, write it
    /// as JSON to stdout.
    Decode {
        /// Root struct type (default: the schema's `root NAME;`).
        #[arg(long)]
        root: Option<String>,
        /// Decode without validating first, as readers do: malformed parts
        /// read as zero or empty, invalid text as empty (format.md §10).
        #[arg(long)]
        lenient: bool,
        schema: PathBuf,
        /// The message file (default, or `-`: stdin).
        input: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Lang {
    Rust,
    Go,
    /// Rust WebAssembly guest bindings on `karmem-guest` (docs/guests.md).
    RustGuest,
    /// Typed Rust host bindings over `karmem-host` (docs/guests.md).
    RustHost,
    /// Go guest bindings (docs/guests.md): the `go` package plus exporter
    /// interfaces, registration and importer clients.
    GoGuest,
    /// C11 (`<prefix>.h`, `<prefix>.c` over `c/karmem.h`, docs/c.md).
    C,
    /// C guest bindings (docs/c.md, "Guests"): the `c` files plus
    /// `<prefix>_guest.h`/`.c` over `c/karmem_guest.h`.
    CGuest,
    /// Zig: objects with encode, decode and validate (docs/zig.md).
    Zig,
    /// Zig guest bindings (docs/zig.md, "Guests"): the `zig` file plus
    /// exporters, window accessors and importer clients.
    ZigGuest,
    /// TypeScript: interfaces, viewers, encode, decode and validate over
    /// the `karmem` package (`ts/`, docs/typescript.md).
    Ts,
    /// AssemblyScript: classes with encode, decode, read and validate over
    /// the `karmem-as` package (`as/`, docs/assemblyscript.md).
    As,
    /// AssemblyScript guest bindings (docs/assemblyscript.md, "Guests"):
    /// the `as` file plus exporter classes, window accessors and clients.
    AsGuest,
    /// Python: dataclasses with encode, decode and validate over the
    /// `karmem` package (`python/`, docs/python.md).
    Python,
}

/// Why a command failed; decides the exit code and the message.
enum Failure {
    /// Already reported (diagnostics printed).
    Invalid,
    Io(String),
    Message(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build {
            langs,
            out,
            schemas,
        } => expand(&schemas).and_then(|schemas| build(&langs, &out, &schemas)),
        Command::Check {
            deny_warnings,
            schemas,
        } => expand(&schemas).and_then(|schemas| check(&schemas, deny_warnings)),
        Command::Fmt { check, schemas } => expand(&schemas).and_then(|s| fmt(check, &s)),
        Command::Json { action } => json(action),
        Command::Validate {
            root,
            schema,
            input,
        } => validate(root.as_deref(), &schema, input.as_deref()),
        Command::Rewrite { input, output } => rewrite::rewrite(&input, &output),
        #[cfg(feature = "host")]
        Command::Run { manifest } => run::run(&manifest),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Invalid) => ExitCode::from(EXIT_INVALID),
        Err(Failure::Message(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(EXIT_INVALID)
        }
        Err(Failure::Io(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(EXIT_IO)
        }
    }
}

fn color() -> bool {
    std::io::stderr().is_terminal() && !no_color(std::env::var_os("NO_COLOR").as_deref())
}

/// no-color.org: colour is off when `NO_COLOR` is set to a non-empty value
/// (set but empty does not count).
fn no_color(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// Schema paths as given, with each directory replaced by its `*.km` files
/// (sorted, not recursive), so `karmem build schemas/` is one call.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let entries = fs::read_dir(path).map_err(|e| cannot_read(path, e))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "km") && p.is_file())
            .collect();
        if found.is_empty() {
            return Err(Failure::Message(format!(
                "{} holds no `.km` schema files",
                path.display()
            )));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn read_source(path: &Path) -> Result<String, Failure> {
    fs::read_to_string(path).map_err(|e| cannot_read(path, e))
}

fn cannot_read(path: &Path, error: std::io::Error) -> Failure {
    Failure::Io(format!("cannot read {}: {error}", path.display()))
}

/// A checked schema, its layout, and how many warnings were printed.
struct Loaded {
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
    warnings: usize,
}

/// Parse, check and lay out a schema and the files it imports; print
/// warnings, and errors on failure.
fn load(path: &Path) -> Result<Loaded, Failure> {
    // An unreadable schema is an I/O error (exit 3); an unreadable import
    // is a diagnostic of the schema that imports it.
    fs::File::open(path).map_err(|e| cannot_read(path, e))?;
    let compiled = karmem_schema::compile_path(path).map_err(|diags| {
        eprint!("{}", diags.render(color()));
        Failure::Invalid
    })?;
    if !compiled.warnings.items.is_empty() {
        eprint!("{}", compiled.warnings.render(color()));
    }
    let layout = karmem_layout::compute(&compiled.schema).map_err(|items| {
        eprint!("{}", compiled.diagnostics(items).render(color()));
        Failure::Invalid
    })?;
    Ok(Loaded {
        warnings: compiled.warnings.items.len(),
        schema: compiled.schema,
        layout,
    })
}

/// Every schema is checked before anything is written, so a bad schema
/// among several leaves the output directory untouched; two schemas that
/// would write the same file are refused.
fn build(langs: &[Lang], out: &Path, schema_paths: &[PathBuf]) -> Result<(), Failure> {
    let mut loaded = Vec::new();
    let mut failed = false;
    for path in schema_paths {
        match load(path) {
            Ok(l) => loaded.push((path, l)),
            Err(Failure::Invalid) => failed = true,
            Err(other) => return Err(other),
        }
    }
    if failed {
        return Err(Failure::Invalid);
    }
    let mut written: std::collections::HashMap<PathBuf, &Path> = std::collections::HashMap::new();
    for (schema_path, l) in &loaded {
        for lang in langs {
            build_one(*lang, out, schema_path, l, &mut written)?;
        }
    }
    Ok(())
}

fn build_one<'p>(
    lang: Lang,
    out: &Path,
    schema_path: &'p Path,
    loaded: &Loaded,
    written: &mut std::collections::HashMap<PathBuf, &'p Path>,
) -> Result<(), Failure> {
    let (schema, layout) = (&loaded.schema, &loaded.layout);
    let backend: Box<dyn karmem_codegen::Backend> = match lang {
        Lang::Rust => Box::new(karmem_codegen::rust::RustBackend::default()),
        Lang::Go => Box::new(karmem_codegen::go::GoBackend),
        Lang::RustGuest => Box::new(karmem_codegen::rust_guest::RustGuestBackend),
        Lang::RustHost => Box::new(karmem_codegen::rust_host::RustHostBackend),
        Lang::GoGuest => Box::new(karmem_codegen::go_guest::GoGuestBackend),
        Lang::C => Box::new(karmem_codegen::c::CBackend),
        Lang::CGuest => Box::new(karmem_codegen::c_guest::CGuestBackend),
        Lang::Zig => Box::new(karmem_codegen::zig::ZigBackend),
        Lang::ZigGuest => Box::new(karmem_codegen::zig_guest::ZigGuestBackend),
        Lang::Ts => Box::new(karmem_codegen::ts::TsBackend),
        Lang::As => Box::new(karmem_codegen::assemblyscript::AssemblyScriptBackend),
        Lang::AsGuest => Box::new(karmem_codegen::as_guest::AsGuestBackend),
        Lang::Python => Box::new(karmem_codegen::python::PythonBackend),
    };
    let files = backend
        .generate(schema, layout)
        .map_err(|e| Failure::Message(format!("{} generator: {e}", backend.name())))?;
    for file in files {
        let path = out.join(&file.path);
        if let Some(other) = written.insert(path.clone(), schema_path) {
            if other != schema_path {
                return Err(Failure::Message(format!(
                    "{} and {} both generate {}: give them different `karmem NAME;` headers or build them into different directories",
                    other.display(),
                    schema_path.display(),
                    path.display()
                )));
            }
        }
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)
                .map_err(|e| Failure::Io(format!("cannot create {}: {e}", dir.display())))?;
        }
        fs::write(&path, &file.contents)
            .map_err(|e| Failure::Io(format!("cannot write {}: {e}", path.display())))?;
        match lang {
            Lang::Rust | Lang::RustGuest | Lang::RustHost => rustfmt(&path),
            // The Go backend emits gofmt-clean code itself; gofmt (when
            // installed) only normalises it further for the user's tools.
            Lang::Go | Lang::GoGuest => gofmt(&path),
            // The C backend's output is formatted as emitted.
            Lang::C | Lang::CGuest => {}
            // The Zig backend emits `zig fmt`-clean code (docs/zig.md).
            Lang::Zig | Lang::ZigGuest => {}
            // The TypeScript backend's output is formatted as emitted.
            Lang::Ts => {}
            // The AssemblyScript backends' output is formatted as emitted.
            Lang::As | Lang::AsGuest => {}
            // The Python backend emits `ruff format`-clean code.
            Lang::Python => {}
        }
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

fn check(paths: &[PathBuf], deny_warnings: bool) -> Result<(), Failure> {
    let mut failed = false;
    for path in paths {
        match load(path) {
            Ok(l) if deny_warnings && l.warnings > 0 => {
                let plural = if l.warnings == 1 { "" } else { "s" };
                eprintln!(
                    "{}: {} warning{plural} denied (--deny-warnings)",
                    path.display(),
                    l.warnings
                );
                failed = true;
            }
            Ok(Loaded { schema, .. }) => {
                // The inline structs the compiler declares for maps and
                // tuples (docs/idl.md §3.2–3.3) are counted apart from the
                // schema's own.
                let generated = generated_structs(&schema);
                let extra = match generated {
                    0 => String::new(),
                    n => format!(" and {n} generated for maps and tuples"),
                };
                eprintln!(
                    "{}: ok ({} structs{extra}, {} enums, {} unions, {} interfaces)",
                    path.display(),
                    schema.structs.len() - generated,
                    schema.enums.len(),
                    schema.unions.len(),
                    schema.interfaces.len()
                )
            }
            Err(Failure::Invalid) => failed = true,
            Err(other) => return Err(other),
        }
    }
    if failed {
        Err(Failure::Invalid)
    } else {
        Ok(())
    }
}

fn fmt(check_only: bool, paths: &[PathBuf]) -> Result<(), Failure> {
    let mut unformatted = false;
    for path in paths {
        let stdin = path.as_os_str() == "-";
        let (source, name) = if stdin {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Io(format!("cannot read stdin: {e}")))?;
            (text, "<stdin>".to_string())
        } else {
            (read_source(path)?, path.display().to_string())
        };
        let formatted = karmem_schema::format(&name, &source).map_err(|diags| {
            eprint!("{}", diags.render(color()));
            Failure::Invalid
        })?;
        if stdin && !check_only {
            std::io::stdout()
                .write_all(formatted.as_bytes())
                .map_err(|e| Failure::Io(format!("cannot write stdout: {e}")))?;
            continue;
        }
        if formatted == source {
            continue;
        }
        if check_only {
            // The diff on stdout (it is the command's output, as with
            // `rustfmt --check`); the verdict on stderr.
            // Myers' diff takes time quadratic in the lines that differ;
            // past the timeout it settles for a longer, still correct,
            // diff, so a large file that differs everywhere (a generated
            // schema) does not keep `--check` busy for minutes.
            let diff = similar::TextDiff::configure()
                .timeout(std::time::Duration::from_secs(1))
                .diff_lines(&source, &formatted);
            print!(
                "{}",
                diff.unified_diff()
                    .context_radius(2)
                    .header(&name, &format!("{name} (formatted)"))
            );
            eprintln!("{name}: not formatted");
            unformatted = true;
        } else {
            fs::write(path, formatted)
                .map_err(|e| Failure::Io(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("formatted {}", path.display());
        }
    }
    if unformatted {
        Err(Failure::Invalid)
    } else {
        Ok(())
    }
}

/// The root struct: `--root` when given, else the schema's `root NAME;`.
fn root_of(
    schema: &karmem_schema::model::Schema,
    root: Option<&str>,
    schema_path: &Path,
) -> Result<karmem_schema::model::StructId, Failure> {
    match root {
        Some(root) => schema
            .struct_by_name(root)
            .ok_or_else(|| Failure::Message(unknown_root(schema, root))),
        None => schema.root.ok_or_else(|| {
            Failure::Message(format!(
                "{} declares no root type: pass --root TYPE, or declare `root TYPE;` in the schema",
                schema_path.display()
            ))
        }),
    }
}

/// The bytes of INPUT, or of stdin when it is absent or `-`.
fn read_input(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    match path {
        Some(path) if path.as_os_str() != "-" => fs::read(path).map_err(|e| cannot_read(path, e)),
        _ => {
            let mut input = Vec::new();
            std::io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Failure::Io(format!("cannot read stdin: {e}")))?;
            Ok(input)
        }
    }
}

fn validate(root: Option<&str>, schema_path: &Path, input: Option<&Path>) -> Result<(), Failure> {
    let Loaded { schema, layout, .. } = load(schema_path)?;
    let root_id = root_of(&schema, root, schema_path)?;
    let bytes = read_input(input)?;
    karmem_validate::validate(&schema, &layout, root_id, &bytes)
        .map_err(|e| Failure::Message(format!("invalid message: {e}")))?;
    println!(
        "valid: {} bytes, root {}",
        bytes.len(),
        schema.structs[root_id].name
    );
    Ok(())
}

fn json(action: JsonAction) -> Result<(), Failure> {
    let (root, schema_path, input_path, encode, lenient) = match &action {
        JsonAction::Encode {
            root,
            schema,
            input,
        } => (root, schema, input, true, false),
        JsonAction::Decode {
            root,
            schema,
            input,
            lenient,
        } => (root, schema, input, false, *lenient),
    };
    let Loaded { schema, layout, .. } = load(schema_path)?;
    let root_id = root_of(&schema, root.as_deref(), schema_path)?;
    let input = read_input(input_path.as_deref())?;
    let output = if encode {
        let value: serde_json::Value = serde_json::from_slice(&input)
            .map_err(|e| Failure::Message(format!("stdin is not valid JSON: {e}")))?;
        karmem_json::encode(&schema, &layout, root_id, &value)
            .map_err(|e| Failure::Message(format!("cannot encode: {e}")))?
    } else {
        // Validated first unless asked not to: a lenient read turns a
        // malformed part into a zero value that looks like data.
        if !lenient {
            karmem_validate::validate(&schema, &layout, root_id, &input).map_err(|e| {
                Failure::Message(format!(
                    "invalid message: {e} (--lenient decodes it as readers do, malformed parts as zero or empty)"
                ))
            })?;
        }
        let value = karmem_json::decode(&schema, &layout, root_id, &input)
            .map_err(|e| Failure::Message(format!("cannot decode: {e}")))?;
        let mut text = serde_json::to_vec_pretty(&value).expect("a JSON value always serialises");
        text.push(b'\n');
        text
    };
    std::io::stdout()
        .write_all(&output)
        .map_err(|e| Failure::Io(format!("cannot write stdout: {e}")))
}

/// How many of the schema's structs the compiler declared itself: tuples,
/// and the entries of maps (the element of a map-layout array, wherever
/// that array is: a field, an array of arrays).
fn generated_structs(schema: &karmem_schema::model::Schema) -> usize {
    use karmem_schema::model::{ArrayType, ElemType, FieldType};
    let mut generated: std::collections::HashSet<usize> = schema
        .structs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.tuple)
        .map(|(id, _)| id)
        .collect();
    let mut entry = |a: &ArrayType| {
        if let (true, ElemType::Struct(id)) = (a.is_map(), a.elem) {
            generated.insert(id);
        }
    };
    schema.arrays.iter().for_each(&mut entry);
    for s in &schema.structs {
        for f in &s.fields {
            if let FieldType::Array(a) = &f.ty {
                entry(a);
            }
        }
    }
    generated.len()
}

/// The error for a `--root` naming no struct: the closest name when it
/// looks like a typo, and the structs a root can be.
fn unknown_root(schema: &karmem_schema::model::Schema, root: &str) -> String {
    let names: Vec<&str> = schema.structs.iter().map(|s| s.name.as_str()).collect();
    let hint = match karmem_schema::suggest(root, names.iter().copied()) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    };
    format!(
        "no struct named `{root}` in the schema{hint} (its structs: {})",
        list_names(&names)
    )
}

/// Up to 20 names, `, `-separated, and how many more there are.
pub(crate) fn list_names(names: &[&str]) -> String {
    const SHOWN: usize = 20;
    let mut out = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    if names.is_empty() {
        out.push_str("none");
    }
    out
}

/// Generated Rust is formatted by the user's own rustfmt, so it matches
/// `cargo fmt --check` exactly. Without rustfmt the (valid, unformatted)
/// code is kept and a note is printed.
fn rustfmt(path: &Path) {
    let status = std::process::Command::new("rustfmt")
        .args(["--edition", "2021"])
        .arg(path)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => eprintln!("note: rustfmt failed on {} ({s})", path.display()),
        Err(_) => eprintln!(
            "note: rustfmt not found; {} is not formatted",
            path.display()
        ),
    }
}

/// Generated Go is already gofmt-clean; running the user's gofmt keeps it
/// so across Go releases. Without gofmt the file is kept as generated.
fn gofmt(path: &Path) {
    if let Ok(s) = std::process::Command::new("gofmt")
        .arg("-w")
        .arg(path)
        .status()
    {
        if !s.success() {
            eprintln!("note: gofmt failed on {} ({s})", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::no_color;
    use std::ffi::OsStr;

    #[test]
    fn no_color_needs_a_non_empty_value() {
        assert!(!no_color(None));
        assert!(!no_color(Some(OsStr::new(""))));
        assert!(no_color(Some(OsStr::new("1"))));
        assert!(no_color(Some(OsStr::new("0"))), "any non-empty value");
    }
}

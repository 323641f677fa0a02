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

#[cfg(feature = "host")]
mod run;

const EXIT_INVALID: u8 = 1;
const EXIT_IO: u8 = 3;

#[derive(Parser)]
#[command(
    name = "karmem",
    version,
    about = "Compile KarmemIDL schemas, generate code, and inspect Karmem messages",
    after_help = "Examples:
  karmem check app.km                        report errors and warnings
  karmem build --lang rust -o src/gen app.km generate Rust code into src/gen/
  karmem build --lang rust --lang go -o gen app.km  Rust and Go code into gen/
  karmem build --lang go-guest -o bot app.km      Go guest bindings into bot/
  karmem fmt app.km                          rewrite app.km in canonical form
  karmem fmt --check app.km                  exit 1 if app.km is not formatted
  karmem json encode --root AccountData app.km < value.json > msg.bin
  karmem json decode --root AccountData app.km < msg.bin
  karmem run app.toml                        run the calls an application manifest lists

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
        /// The schema file.
        schema: PathBuf,
    },
    /// Check a schema and print its diagnostics.
    Check {
        /// The schema files.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
    },
    /// Format schema files in place (keeps comments).
    Fmt {
        /// Do not write; exit 1 if any file would change.
        #[arg(long)]
        check: bool,
        /// The schema files.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
    },
    /// Run an application of wasm modules from a manifest (docs/manifest.md).
    #[cfg(feature = "host")]
    Run {
        /// The manifest (TOML).
        manifest: PathBuf,
    },
    /// Convert messages between JSON and the binary format.
    Json {
        #[command(subcommand)]
        action: JsonAction,
    },
}

#[derive(Subcommand)]
enum JsonAction {
    /// Read a JSON value on stdin, write the binary message to stdout.
    Encode {
        /// Root struct type.
        #[arg(long)]
        root: String,
        schema: PathBuf,
    },
    /// Read a binary message on stdin, write it as JSON to stdout.
    Decode {
        /// Root struct type.
        #[arg(long)]
        root: String,
        schema: PathBuf,
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
        Command::Build { langs, out, schema } => build(&langs, &out, &schema),
        Command::Check { schemas } => check(&schemas),
        Command::Fmt { check, schemas } => fmt(check, &schemas),
        Command::Json { action } => json(action),
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
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn read_source(path: &Path) -> Result<String, Failure> {
    fs::read_to_string(path)
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display())))
}

/// Parse, check and lay out a schema; print warnings, and errors on failure.
fn load(path: &Path) -> Result<(karmem_schema::model::Schema, karmem_layout::Layout), Failure> {
    let source = read_source(path)?;
    let name = path.display().to_string();
    let compiled = karmem_schema::compile(&name, &source).map_err(|diags| {
        eprint!("{}", diags.render(color()));
        Failure::Invalid
    })?;
    if !compiled.warnings.items.is_empty() {
        eprint!("{}", compiled.warnings.render(color()));
    }
    let layout = karmem_layout::compute(&compiled.schema).map_err(|items| {
        let diags = karmem_schema::Diagnostics {
            file_name: name.clone(),
            source: source.clone(),
            items,
        };
        eprint!("{}", diags.render(color()));
        Failure::Invalid
    })?;
    Ok((compiled.schema, layout))
}

fn build(langs: &[Lang], out: &Path, schema_path: &Path) -> Result<(), Failure> {
    let (schema, layout) = load(schema_path)?;
    for lang in langs {
        let backend: Box<dyn karmem_codegen::Backend> = match lang {
            Lang::Rust => Box::new(karmem_codegen::rust::RustBackend::default()),
            Lang::Go => Box::new(karmem_codegen::go::GoBackend),
            Lang::RustGuest => Box::new(karmem_codegen::rust_guest::RustGuestBackend),
            Lang::RustHost => Box::new(karmem_codegen::rust_host::RustHostBackend),
            Lang::GoGuest => Box::new(karmem_codegen::go_guest::GoGuestBackend),
        };
        let files = backend
            .generate(&schema, &layout)
            .map_err(|e| Failure::Message(format!("{} generator: {e}", backend.name())))?;
        for file in files {
            let path = out.join(&file.path);
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
            }
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

fn check(paths: &[PathBuf]) -> Result<(), Failure> {
    let mut failed = false;
    for path in paths {
        match load(path) {
            Ok((schema, _)) => eprintln!(
                "{}: ok ({} structs, {} enums, {} unions, {} interfaces)",
                path.display(),
                schema.structs.len(),
                schema.enums.len(),
                schema.unions.len(),
                schema.interfaces.len()
            ),
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
        let source = read_source(path)?;
        let name = path.display().to_string();
        let formatted = karmem_schema::format(&name, &source).map_err(|diags| {
            eprint!("{}", diags.render(color()));
            Failure::Invalid
        })?;
        if formatted == source {
            continue;
        }
        if check_only {
            eprintln!("{}: not formatted", path.display());
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

fn json(action: JsonAction) -> Result<(), Failure> {
    let (root, schema_path, encode) = match &action {
        JsonAction::Encode { root, schema } => (root, schema, true),
        JsonAction::Decode { root, schema } => (root, schema, false),
    };
    let (schema, layout) = load(schema_path)?;
    let root_id = schema
        .struct_by_name(root)
        .ok_or_else(|| Failure::Message(format!("no struct named `{root}` in the schema")))?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| Failure::Io(format!("cannot read stdin: {e}")))?;
    let output = if encode {
        let value: serde_json::Value = serde_json::from_slice(&input)
            .map_err(|e| Failure::Message(format!("stdin is not valid JSON: {e}")))?;
        karmem_json::encode(&schema, &layout, root_id, &value)
            .map_err(|e| Failure::Message(format!("cannot encode: {e}")))?
    } else {
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

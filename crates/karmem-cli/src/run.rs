//! `karmem run <manifest>`: load the modules of an application, bind them,
//! and make the calls the manifest lists (docs/manifest.md).
//!
//! Every error that comes from the manifest or from something it names
//! (a module file, a binding) is reported as `manifest:line:col: error:`
//! at the entry responsible, using the spans toml keeps.

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use karmem_host::{
    App, AppBuilder, Arg, Error, ModuleOptions, Output, Runtime, RuntimeConfig, StderrLog,
};
use karmem_layout::Layout;
use karmem_schema::model::Schema;
use serde::Deserialize;
use toml::Spanned;

use crate::Failure;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// Schemas used to convert JSON arguments and print results.
    #[serde(default)]
    schemas: Vec<Spanned<String>>,
    /// Module cache directory; `false` disables it, `true` (default) uses
    /// the default directory.
    #[serde(default)]
    cache: Option<Spanned<CacheSetting>>,
    #[serde(rename = "module")]
    modules: Vec<ModuleEntry>,
    #[serde(default, rename = "bind")]
    binds: Vec<BindEntry>,
    #[serde(default, rename = "region")]
    regions: Vec<RegionEntry>,
    #[serde(default, rename = "run")]
    runs: Vec<RunEntry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CacheSetting {
    Enabled(bool),
    Dir(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModuleEntry {
    name: Spanned<String>,
    path: Spanned<String>,
    timeout_ms: Option<u64>,
    memory_limit_mib: Option<u64>,
    pool_size: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BindEntry {
    interface: Spanned<String>,
    exporter: Spanned<String>,
    importer: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionEntry {
    name: Spanned<String>,
    contents: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunEntry {
    /// Callee module; omit with `all = true`.
    module: Option<Spanned<String>>,
    interface: Spanned<String>,
    function: Spanned<String>,
    #[serde(default)]
    args: Vec<Spanned<ArgEntry>>,
    #[serde(default = "one")]
    times: u32,
    /// Fan out from the host to every exporter.
    #[serde(default)]
    all: bool,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgEntry {
    json: Option<toml::Value>,
    file: Option<String>,
    hex: Option<String>,
    region: Option<String>,
    offset: Option<u32>,
    len: Option<u32>,
}

/// The manifest's text and where it is, for `file:line:col` messages.
struct Source {
    path: PathBuf,
    text: String,
}

impl Source {
    fn at(&self, span: Range<usize>) -> String {
        let before = &self.text[..span.start.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
        format!("{}:{line}:{col}", self.path.display())
    }

    /// Print `file:line:col: error: message`.
    fn report(&self, span: Range<usize>, message: impl std::fmt::Display) {
        eprintln!("{}: error: {message}", self.at(span));
    }

    fn relative(&self, path: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(path)
    }
}

/// Schemas by package, for JSON conversion.
struct Schemas(HashMap<String, (Schema, Layout)>);

impl Schemas {
    /// The schema and struct of a qualified type `package.Type`.
    fn find(&self, ty: &str) -> Option<(&Schema, &Layout, karmem_schema::model::StructId)> {
        let (package, name) = ty.rsplit_once('.')?;
        let (schema, layout) = self.0.get(package)?;
        Some((schema, layout, schema.struct_by_name(name)?))
    }
}

pub(crate) fn run(manifest: &Path) -> Result<(), Failure> {
    let text = fs::read_to_string(manifest)
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", manifest.display())))?;
    let src = Source {
        path: manifest.to_path_buf(),
        text,
    };
    let m: Manifest = toml::from_str(&src.text).map_err(|e| {
        src.report(e.span().unwrap_or(0..0), e.message());
        Failure::Invalid
    })?;

    let mut schemas = HashMap::new();
    for s in &m.schemas {
        let (schema, layout) = crate::load(&src.relative(s.get_ref()))?;
        schemas.insert(schema.package.clone(), (schema, layout));
    }
    let schemas = Schemas(schemas);

    let cache_dir = match m.cache.as_ref().map(|c| c.get_ref()) {
        None | Some(CacheSetting::Enabled(true)) => karmem_host::default_cache_dir(),
        Some(CacheSetting::Enabled(false)) => None,
        Some(CacheSetting::Dir(d)) => Some(src.relative(d)),
    };
    let runtime = Runtime::new(RuntimeConfig {
        cache_dir,
        ..RuntimeConfig::default()
    })
    .map_err(|e| Failure::Message(e.to_string()))?;

    let mut builder = AppBuilder::new(&runtime);
    builder.log_sink(Arc::new(StderrLog));
    let mut spans: HashMap<String, Range<usize>> = HashMap::new();
    for entry in &m.modules {
        let name = entry.name.get_ref();
        let path = src.relative(entry.path.get_ref());
        if spans.insert(name.clone(), entry.name.span()).is_some() {
            src.report(entry.name.span(), format!("a second module named `{name}`"));
            return Err(Failure::Invalid);
        }
        let module = match runtime.load_file(name, &path) {
            Ok(m) => m,
            Err(e @ Error::Io { .. }) => {
                src.report(entry.path.span(), &e);
                return Err(Failure::Io(format!("cannot load module `{name}`")));
            }
            Err(e) => {
                src.report(entry.path.span(), &e);
                return Err(Failure::Invalid);
            }
        };
        builder.module_with(
            module,
            ModuleOptions::from_manifest(entry.timeout_ms, entry.memory_limit_mib, entry.pool_size),
        );
    }
    for b in &m.binds {
        match &b.importer {
            Some(i) => builder.bind(i.get_ref(), b.interface.get_ref(), b.exporter.get_ref()),
            None => builder.bind_all(b.interface.get_ref(), b.exporter.get_ref()),
        };
    }
    for r in &m.regions {
        let path = src.relative(r.contents.get_ref());
        let bytes = fs::read(&path).map_err(|e| {
            src.report(
                r.contents.span(),
                format!("cannot read {}: {e}", path.display()),
            );
            Failure::Io(format!("cannot read {}", path.display()))
        })?;
        builder.region_contents(r.name.get_ref(), bytes);
    }
    let app = builder.build().map_err(|e| {
        src.report(blame(&e, &m, &spans), &e);
        Failure::Invalid
    })?;

    let mut failed = false;
    for step in &m.runs {
        failed |= !run_step(&src, &schemas, &app, step)?;
    }
    if failed {
        return Err(Failure::Invalid);
    }
    Ok(())
}

/// The manifest entry an application error is about.
fn blame(e: &Error, m: &Manifest, modules: &HashMap<String, Range<usize>>) -> Range<usize> {
    let module = |name: &str| modules.get(name).cloned();
    let span = match e {
        Error::Binding {
            module: importer,
            interface,
            ..
        } => m
            .binds
            .iter()
            .find(|b| b.interface.get_ref() == interface)
            .map(|b| b.interface.span())
            .or_else(|| module(importer)),
        Error::IncompatibleInterface { importer, .. } => module(importer),
        Error::IncompatibleMemory { second, .. } => module(second),
        Error::UnknownModule(name) => m
            .binds
            .iter()
            .flat_map(|b| [Some(&b.exporter), b.importer.as_ref()])
            .flatten()
            .find(|s| s.get_ref() == name)
            .map(|s| s.span()),
        Error::UnknownRegion(r) => m
            .regions
            .iter()
            .find(|x| x.name.get_ref() == r)
            .map(|x| x.name.span()),
        Error::Startup { module: name, .. } => module(name),
        _ => None,
    };
    span.unwrap_or(0..0)
}

/// The argument bytes of one `args` entry for a parameter of type `ty`.
/// A `json = …` argument (TOML) as the JSON codec reads it. TOML has
/// `nan` and `inf`, which serde_json would turn into `null`: they become
/// the strings the codec reads for them ("NaN", "Infinity", "-Infinity").
fn json_of(value: &toml::Value) -> Result<serde_json::Value, serde_json::Error> {
    use serde_json::Value;
    Ok(match value {
        toml::Value::Float(x) => match karmem_json::non_finite_name(*x) {
            Some(name) => Value::from(name),
            None => serde_json::to_value(x)?,
        },
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(json_of).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| Ok((k.clone(), json_of(v)?)))
                .collect::<Result<_, _>>()?,
        ),
        other => serde_json::to_value(other)?,
    })
}

fn argument<'a>(
    src: &Source,
    schemas: &Schemas,
    app: &App,
    entry: &Spanned<ArgEntry>,
    ty: Option<&str>,
    owned: &'a mut Vec<u8>,
) -> Result<Arg<'a>, Failure> {
    let a = entry.get_ref();
    let fail = |message: String| {
        src.report(entry.span(), message);
        Failure::Invalid
    };
    let given = [
        a.json.is_some(),
        a.file.is_some(),
        a.hex.is_some(),
        a.region.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(fail(
            "an argument is one of `json`, `file`, `hex` or `region`".into(),
        ));
    }
    if let Some(value) = &a.json {
        let ty = ty.ok_or_else(|| fail("the parameter's type is unknown".into()))?;
        let (schema, layout, id) = schemas
            .find(ty)
            .ok_or_else(|| fail(format!("no schema in `schemas` defines `{ty}`")))?;
        let json = json_of(value).map_err(|e| fail(e.to_string()))?;
        *owned = karmem_json::encode(schema, layout, id, &json)
            .map_err(|e| fail(format!("cannot encode as `{ty}`: {e}")))?;
    } else if let Some(file) = &a.file {
        let path = src.relative(file);
        *owned =
            fs::read(&path).map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?;
    } else if let Some(hex) = &a.hex {
        let clean: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
        if !clean.len().is_multiple_of(2) {
            return Err(fail("odd number of hex digits".into()));
        }
        *owned = (0..clean.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&clean[i..i + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|e| fail(format!("bad hex: {e}")))?;
    } else if let Some(region) = &a.region {
        let r = app.region(region).map_err(|e| fail(e.to_string()))?;
        let slice = r
            .slice(a.offset.unwrap_or(0), a.len.unwrap_or(0))
            .map_err(|e| fail(e.to_string()))?;
        return Ok(Arg::Region(slice));
    } else {
        return Ok(Arg::Empty);
    }
    Ok(Arg::Bytes(owned))
}

/// How a result is shown: JSON when a schema knows its type, else hex.
fn show(schemas: &Schemas, app: &App, ty: Option<&str>, out: &Output) -> String {
    let (bytes, place) = match out {
        Output::Empty => return "(no result)".into(),
        Output::Bytes(b) => (b.clone(), String::new()),
        Output::Region(s) => {
            let region = app.region_by_id(s.region);
            (
                region.to_vec(*s).unwrap_or_default(),
                format!(" in region {} at offset {}", region.name(), s.offset),
            )
        }
    };
    if let Some((schema, layout, id)) = ty.and_then(|t| schemas.find(t)) {
        if let Ok(v) = karmem_json::decode(schema, layout, id, &bytes) {
            let json = serde_json::to_string_pretty(&v).unwrap_or_default();
            return format!("{} bytes{place}\n{json}", bytes.len());
        }
    }
    const SHOWN: usize = 256;
    let hex: String = bytes
        .iter()
        .take(SHOWN)
        .map(|b| format!("{b:02x}"))
        .collect();
    let more = if bytes.len() > SHOWN { "…" } else { "" };
    format!("{} bytes{place}: {hex}{more}", bytes.len())
}

/// Make the calls of one `[[run]]` entry; false if any failed.
fn run_step(src: &Source, schemas: &Schemas, app: &App, step: &RunEntry) -> Result<bool, Failure> {
    let (interface, function) = (
        step.interface.get_ref().as_str(),
        step.function.get_ref().as_str(),
    );
    let targets =
        match (&step.module, step.all) {
            (None, true) => app.exporters(interface, function),
            (Some(module), false) => vec![app
                .export(module.get_ref(), interface, function)
                .map_err(|e| {
                    src.report(module.span(), &e);
                    Failure::Invalid
                })?],
            _ => {
                src.report(
                    step.interface.span(),
                    "a `run` entry names a `module`, or sets `all = true`",
                );
                return Err(Failure::Invalid);
            }
        };
    if targets.is_empty() {
        src.report(
            step.function.span(),
            format!("no module exports {interface}.{function}"),
        );
        return Err(Failure::Invalid);
    }
    let mut ok = true;
    for f in &targets {
        let desc = app.modules()[f.module_index()].module.descriptor();
        let fd = &desc.exports[(f.id() >> 16) as usize].functions[(f.id() & 0xffff) as usize];
        if step.args.len() != fd.params.len() {
            src.report(
                step.function.span(),
                format!(
                    "{interface}.{function} takes {} arguments, `args` has {}",
                    fd.params.len(),
                    step.args.len()
                ),
            );
            return Err(Failure::Invalid);
        }
        let mut owned = vec![Vec::new(); step.args.len()];
        let mut args = Vec::new();
        for ((entry, p), buf) in step.args.iter().zip(&fd.params).zip(owned.iter_mut()) {
            args.push(argument(src, schemas, app, entry, Some(&p.ty), buf)?);
        }
        let result_ty = fd.result.as_ref().map(|r| r.ty.as_str());
        for i in 1..=step.times {
            let site = f.site();
            match app.invoke(f, &args) {
                Ok(out) => println!(
                    "{} {}.{} #{i}: ok, {}",
                    site.module,
                    site.interface,
                    site.function,
                    show(schemas, app, result_ty, &out)
                ),
                Err(e) => {
                    ok = false;
                    println!(
                        "{} {}.{} #{i}: failed",
                        site.module, site.interface, site.function
                    );
                    eprintln!("error: {e}");
                }
            }
        }
    }
    Ok(ok)
}

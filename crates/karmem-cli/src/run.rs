//! `karmem run <manifest>`: load the modules of an application, bind them,
//! and make the calls the manifest lists (docs/manifest.md).
//!
//! Every error that comes from the manifest or from something it names
//! (a module file, a binding) is reported as `manifest:line:col: error:`
//! at the entry responsible, using the spans toml keeps.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use karmem_host::{App, Arg, Output, StderrLog};
use karmem_layout::Layout;
use karmem_manifest::{ArgEntry, ErrorKind, Manifest, ManifestError, RunEntry, Spanned};
use karmem_schema::model::Schema;

use crate::Failure;

/// Print a manifest error; the failure it means for the exit code.
fn report(e: ManifestError) -> Failure {
    eprintln!("{e}");
    match e.kind {
        ErrorKind::Io => Failure::Io(e.message),
        ErrorKind::Invalid => Failure::Invalid,
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
    let m = Manifest::load(manifest).map_err(report)?;

    let mut schemas = HashMap::new();
    for s in &m.file.schemas {
        let crate::Loaded { schema, layout, .. } = crate::load(&m.relative(s.get_ref()))?;
        schemas.insert(schema.package.clone(), (schema, layout));
    }
    let schemas = Schemas(schemas);

    let runtime = m.runtime().map_err(report)?;
    let app = m
        .build(&runtime, Arc::new(StderrLog), |_| {})
        .map_err(report)?;
    notice_clamped_access(&m, &app);

    let mut failed = false;
    for (i, step) in m.file.runs.iter().enumerate() {
        failed |= !run_step(&m, &schemas, &app, i + 1, step)?;
    }
    if failed {
        return Err(Failure::Invalid);
    }
    Ok(())
}

/// Say where a module asks for more access to a region than the manifest
/// grants it: it gets the grant (docs/security.md §1), and a write it then
/// makes fails with a read-only violation, which is easier to understand
/// with this note.
fn notice_clamped_access(m: &Manifest, app: &App) {
    for entry in &m.file.modules {
        let name = entry.name.get_ref();
        for region in app.regions() {
            let (Ok(asked), Ok(got)) = (
                app.requested_access(name, region.name()),
                app.access(name, region.name()),
            ) else {
                continue;
            };
            if asked > got {
                eprintln!(
                    "{}: note: module `{name}` asks for {} access to `{}`; granted {} (add `grant = {{ \"{}\" = \"{}\" }}` to give it that)",
                    m.at(entry.name.span()),
                    asked.keyword(),
                    region.name(),
                    got.keyword(),
                    region.name(),
                    grant_word(asked)
                );
            }
        }
    }
}

/// The manifest's word for a grant of `access`.
fn grant_word(access: karmem_host::Access) -> &'static str {
    match access {
        karmem_host::Access::None => "none",
        karmem_host::Access::Read => "read",
        karmem_host::Access::ReadWrite => "write",
    }
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
    src: &Manifest,
    schemas: &Schemas,
    app: &App,
    entry: &Spanned<ArgEntry>,
    ty: Option<&str>,
    owned: &'a mut Vec<u8>,
) -> Result<Arg<'a>, Failure> {
    let a = entry.get_ref();
    let fail = |message: String| report(src.error(entry.span(), message));
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

/// Results larger than this are shown as hex, not decoded into JSON: a
/// decoded value holds up to `traversal_budget` (8 × size) elements, each a
/// JSON value of 32 bytes or more, so a 16 MiB `[]u8` result took 1.4 GB to
/// print (docs/security.md §2.8). `karmem json decode` decodes any size on
/// request.
const JSON_SHOWN_MAX: usize = 64 << 10;

/// How a result is shown: JSON when a schema knows its type and the result
/// is at most `JSON_SHOWN_MAX` bytes, else hex (its first bytes).
fn show(schemas: &Schemas, app: &App, ty: Option<&str>, out: &Output) -> String {
    let (bytes, mut place) = match out {
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
    let decodable = ty.and_then(|t| schemas.find(t));
    if bytes.len() > JSON_SHOWN_MAX && decodable.is_some() {
        place.push_str(", over the 64 KiB shown as JSON (karmem json decode reads it)");
    }
    if let Some((schema, layout, id)) = decodable.filter(|_| bytes.len() <= JSON_SHOWN_MAX) {
        match karmem_json::decode(schema, layout, id, &bytes) {
            Ok(v) => {
                // Guest text inside: escaped so it cannot drive the terminal.
                let json = serde_json::to_string_pretty(&v).unwrap_or_default();
                let json = karmem_host::escape_json_text(&json);
                return format!("{} bytes{place}\n{json}", bytes.len());
            }
            // Why it is shown as hex: a malformed or over-budget result.
            Err(e) => place.push_str(&format!(
                " (not decoded: {})",
                karmem_host::escape_text(e.to_string().as_bytes(), 512)
            )),
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

/// What the modules export, for an error naming a function none of them
/// (or not `module`) exports: the closest qualified name when the one
/// given looks like a typo or lacks its package (`Moderator.check` for
/// `chat.Moderator.check`), and the list.
fn exports_hint(app: &App, module: Option<&str>, interface: &str, function: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    for m in app.modules() {
        if module.is_some_and(|name| name != m.module.name()) {
            continue;
        }
        for i in &m.module.descriptor().exports {
            for f in &i.functions {
                let name = format!("{}.{}", i.name, f.name);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    let given = format!("{interface}.{function}");
    let suffix = format!(".{given}");
    let close = names
        .iter()
        .find(|n| n.ends_with(&suffix))
        .map(String::as_str)
        .or_else(|| karmem_schema::suggest(&given, names.iter().map(String::as_str)));
    let hint = close
        .map(|n| {
            let (i, f) = n.rsplit_once('.').expect("a qualified function name");
            format!("; did you mean interface = \"{i}\", function = \"{f}\"?")
        })
        .unwrap_or_default();
    let whose = module.map_or("the modules".to_string(), |m| format!("`{m}`"));
    let list: Vec<&str> = names.iter().map(String::as_str).collect();
    format!("{hint} ({whose} export: {})", crate::list_names(&list))
}

/// Make the calls of the `number`-th `[[run]]` entry; false if any failed.
fn run_step(
    src: &Manifest,
    schemas: &Schemas,
    app: &App,
    number: usize,
    step: &RunEntry,
) -> Result<bool, Failure> {
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
                    let hint = match e {
                        karmem_host::Error::UnknownFunction { .. } => {
                            exports_hint(app, Some(module.get_ref()), interface, function)
                        }
                        _ => String::new(),
                    };
                    report(src.error(module.span(), format!("{e}{hint}")))
                })?],
            _ => {
                return Err(report(src.error(
                    step.interface.span(),
                    "a `run` entry names a `module`, or sets `all = true`",
                )))
            }
        };
    if targets.is_empty() {
        return Err(report(src.error(
            step.function.span(),
            format!(
                "no module exports {interface}.{function}{}",
                exports_hint(app, None, interface, function)
            ),
        )));
    }
    let mut ok = true;
    for f in &targets {
        let desc = app.modules()[f.module_index()].module.descriptor();
        let fd = &desc.exports[(f.id() >> 16) as usize].functions[(f.id() & 0xffff) as usize];
        if step.args.len() != fd.params.len() {
            return Err(report(src.error(
                step.function.span(),
                format!(
                    "{interface}.{function} takes {} arguments, `args` has {}",
                    fd.params.len(),
                    step.args.len()
                ),
            )));
        }
        let mut owned = vec![Vec::new(); step.args.len()];
        let mut args = Vec::new();
        for ((entry, p), buf) in step.args.iter().zip(&fd.params).zip(owned.iter_mut()) {
            args.push(argument(src, schemas, app, entry, Some(&p.ty), buf)?);
        }
        let result_ty = fd.result.as_ref().map(|r| r.ty.as_str());
        for i in 1..=step.times {
            let site = f.site();
            // `run N`: the manifest's N-th `[[run]]` entry; `#i`: the
            // call's repetition (`times`).
            let label = format!(
                "run {number} {} {}.{} #{i}",
                site.module, site.interface, site.function
            );
            match app.invoke(f, &args) {
                Ok(out) => println!("{label}: ok, {}", show(schemas, app, result_ty, &out)),
                Err(e) => {
                    ok = false;
                    println!("{label}: failed");
                    eprintln!("error: {e}");
                }
            }
        }
    }
    Ok(ok)
}

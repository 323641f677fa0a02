//! Application manifests (docs/manifest.md): the TOML file that names an
//! application's modules, the host's grants and limits for each, bindings,
//! initial region contents, budgets and calls.
//!
//! [`Manifest::load`] parses one strictly (unknown keys and wrong types are
//! errors); [`Manifest::build`] loads its modules and builds the
//! [`App`]. Every error caused by the manifest, or by a file or module it
//! names, is reported as `manifest:line:col: error: message` at the entry
//! responsible, using the spans toml keeps. `karmem run` and the arena host
//! share this one reader, so the same file means the same application to
//! both.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Read as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use karmem_host::{
    Access, App, AppBuilder, BoundsChecks, CallBudget, Error, Instances, LogSink, ModuleOptions,
    Runtime, RuntimeConfig,
};
use serde::Deserialize;
pub use toml::Spanned;

/// The manifest file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// KarmemIDL files used to convert JSON arguments and print results.
    #[serde(default)]
    pub schemas: Vec<Spanned<String>>,
    /// Module cache directory; `false` disables it, `true` (the default)
    /// uses [`karmem_host::default_cache_dir`].
    #[serde(default)]
    pub cache: Option<Spanned<CacheSetting>>,
    /// How the runtime checks guest memory accesses and where instances'
    /// memories come from (docs/manifest.md `[runtime]`).
    #[serde(default)]
    pub runtime: Option<Spanned<RuntimeEntry>>,
    #[serde(rename = "module")]
    pub modules: Vec<ModuleEntry>,
    #[serde(default, rename = "bind")]
    pub binds: Vec<BindEntry>,
    #[serde(default, rename = "region")]
    pub regions: Vec<RegionEntry>,
    /// The budgets of every top-level call (docs/security.md §2.5).
    #[serde(default)]
    pub budget: Option<BudgetEntry>,
    #[serde(default, rename = "run")]
    pub runs: Vec<RunEntry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub enum CacheSetting {
    Enabled(bool),
    Dir(String),
}

/// How much of a region the host grants a module (docs/security.md §1).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Grant {
    None,
    Read,
    Write,
}

impl From<Grant> for Access {
    fn from(g: Grant) -> Access {
        match g {
            Grant::None => Access::None,
            Grant::Read => Access::Read,
            Grant::Write => Access::ReadWrite,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleEntry {
    pub name: Spanned<String>,
    pub path: Spanned<String>,
    pub timeout_ms: Option<u64>,
    pub memory_limit_mib: Option<u64>,
    pub pool_size: Option<u32>,
    pub max_instances: Option<u32>,
    /// The most access the module gets to each region, by qualified name;
    /// a region not listed is not mapped into the module at all.
    #[serde(default)]
    pub grant: BTreeMap<Spanned<String>, Grant>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindEntry {
    pub interface: Spanned<String>,
    pub exporter: Spanned<String>,
    pub importer: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionEntry {
    pub name: Spanned<String>,
    pub contents: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetEntry {
    pub instances: Option<u32>,
    pub calls: Option<u32>,
    pub host_bytes_mib: Option<u64>,
    /// Fuel (guest instructions) of each top-level call; turns fuel
    /// counting on for the whole runtime (`RuntimeConfig::fuel`).
    pub fuel: Option<u64>,
}

/// The `[runtime]` table: the engine choices of `RuntimeConfig` a manifest
/// may make (RATIONALE R8.20, R8.22).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeEntry {
    /// `"guard-pages"` (the default) or `"explicit"`.
    pub bounds_checks: Option<Spanned<BoundsSetting>>,
    /// Address space per memory with `bounds_checks = "explicit"`; absent:
    /// the largest memory limit of the manifest's modules.
    pub reservation_mib: Option<Spanned<u64>>,
    /// Instances from a pool of this many slots; absent: each instance
    /// reserves its own memory.
    pub instance_slots: Option<Spanned<u32>>,
    /// KiB of each free slot kept resident (default 1024); only with
    /// `instance_slots`.
    pub keep_resident_kib: Option<Spanned<u32>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoundsSetting {
    GuardPages,
    Explicit,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEntry {
    /// Callee module; omit with `all = true`.
    pub module: Option<Spanned<String>>,
    pub interface: Spanned<String>,
    pub function: Spanned<String>,
    #[serde(default)]
    pub args: Vec<Spanned<ArgEntry>>,
    #[serde(default = "one")]
    pub times: u32,
    /// Fan out from the host to every exporter.
    #[serde(default)]
    pub all: bool,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgEntry {
    pub json: Option<toml::Value>,
    pub file: Option<String>,
    pub hex: Option<String>,
    pub region: Option<String>,
    pub offset: Option<u32>,
    pub len: Option<u32>,
}

/// Whether an error is about reading a file (exit code 3 in the CLI) or
/// about what a file says (exit code 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Io,
    Invalid,
}

/// An error with the manifest position it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    pub kind: ErrorKind,
    /// `file:line:col`, or `None` when no entry is responsible.
    pub location: Option<String>,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(at) => write!(f, "{at}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

impl std::error::Error for ManifestError {}

/// A parsed manifest, with its text and location for messages.
pub struct Manifest {
    path: PathBuf,
    text: String,
    pub file: ManifestFile,
}

impl Manifest {
    /// Read and parse a manifest.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|e| ManifestError {
            kind: ErrorKind::Io,
            location: None,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        Manifest::parse(path, text)
    }

    /// Parse manifest `text` that lives at `path` (paths in it are relative
    /// to its directory).
    pub fn parse(path: &Path, text: String) -> Result<Manifest, ManifestError> {
        match toml::from_str(&text) {
            Ok(file) => Ok(Manifest {
                path: path.to_path_buf(),
                text,
                file,
            }),
            Err(e) => {
                let m = Manifest {
                    path: path.to_path_buf(),
                    text,
                    file: ManifestFile::empty(),
                };
                Err(m.error(e.span().unwrap_or(0..0), e.message()))
            }
        }
    }

    /// `file:line:col` of a byte span of the manifest.
    pub fn at(&self, span: Range<usize>) -> String {
        let before = &self.text[..span.start.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
        format!("{}:{line}:{col}", self.path.display())
    }

    /// An error about what the manifest says at `span`.
    pub fn error(&self, span: Range<usize>, message: impl fmt::Display) -> ManifestError {
        ManifestError {
            kind: ErrorKind::Invalid,
            location: Some(self.at(span)),
            message: message.to_string(),
        }
    }

    fn io_error(&self, span: Range<usize>, message: impl fmt::Display) -> ManifestError {
        ManifestError {
            kind: ErrorKind::Io,
            ..self.error(span, message)
        }
    }

    /// A path in the manifest, relative to the manifest's directory.
    pub fn relative(&self, path: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(path)
    }

    /// The module cache directory the manifest asks for.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        match self.file.cache.as_ref().map(Spanned::get_ref) {
            None | Some(CacheSetting::Enabled(true)) => karmem_host::default_cache_dir(),
            Some(CacheSetting::Enabled(false)) => None,
            Some(CacheSetting::Dir(d)) => Some(self.relative(d)),
        }
    }

    /// A runtime with the manifest's module cache, counting fuel when the
    /// budget sets some, with the `[runtime]` table's choices.
    pub fn runtime(&self) -> Result<Runtime, ManifestError> {
        Runtime::new(self.runtime_config()?).map_err(|e| ManifestError {
            kind: ErrorKind::Invalid,
            location: self.file.runtime.as_ref().map(|r| self.at(r.span())),
            message: e.to_string(),
        })
    }

    /// The runtime configuration the manifest asks for. Each key of
    /// `[runtime]` that makes no sense with the others, or a value the
    /// runtime would refuse, is reported where it is written rather than
    /// as a start-up error of the whole runtime.
    pub fn runtime_config(&self) -> Result<RuntimeConfig, ManifestError> {
        let mut config = RuntimeConfig {
            cache_dir: self.cache_dir(),
            fuel: self.call_budget().fuel.is_some(),
            ..RuntimeConfig::default()
        };
        let Some(entry) = &self.file.runtime else {
            return Ok(config);
        };
        let entry = entry.get_ref();
        let explicit = entry
            .bounds_checks
            .as_ref()
            .is_some_and(|b| *b.get_ref() == BoundsSetting::Explicit);
        if let (Some(r), false) = (&entry.reservation_mib, explicit) {
            return Err(self.error(
                r.span(),
                "reservation_mib applies only with bounds_checks = \"explicit\" (guard pages always reserve 4 GiB)",
            ));
        }
        if explicit {
            // Without a reservation: the largest memory any module may
            // reach, so that no limit is cut short by the reservation.
            let largest = self
                .file
                .modules
                .iter()
                .map(|m| Self::module_options(m).memory_limit)
                .max()
                .unwrap_or(ModuleOptions::default().memory_limit);
            let (reservation, span) = match &entry.reservation_mib {
                Some(r) => (r.get_ref().saturating_mul(1 << 20), Some(r.span())),
                None => (largest, None),
            };
            let bounds = BoundsChecks::Explicit { reservation };
            if bounds.reservation().is_err() {
                // Given: the key is wrong. Derived: a module's memory limit
                // is more than any reservation can hold.
                return Err(match (&entry.reservation_mib, span) {
                    (Some(r), Some(span)) => self.error(
                        span,
                        format!("reservation_mib = {}: it must be from 1 to 4096 (4 GiB)", r.get_ref()),
                    ),
                    _ => self.error(
                        entry.bounds_checks.as_ref().map_or(0..0, |b| b.span()),
                        format!(
                            "bounds_checks = \"explicit\" reserves each memory's largest limit, {} MiB here, more than 4 GiB: lower memory_limit_mib or set reservation_mib",
                            largest >> 20
                        ),
                    ),
                });
            }
            if let Some(span) = span {
                if let Some(m) = self
                    .file
                    .modules
                    .iter()
                    .find(|m| Self::module_options(m).memory_limit > reservation)
                {
                    return Err(self.error(
                        span,
                        format!(
                            "reservation_mib {} is below module `{}`'s memory limit of {} MiB: its memory could never grow that far",
                            reservation >> 20,
                            m.name.get_ref(),
                            Self::module_options(m).memory_limit >> 20
                        ),
                    ));
                }
            }
            config.bounds_checks = bounds;
        }
        if let (Some(k), None) = (&entry.keep_resident_kib, &entry.instance_slots) {
            return Err(self.error(
                k.span(),
                "keep_resident_kib applies only to a pool: set instance_slots too",
            ));
        }
        if let Some(slots) = &entry.instance_slots {
            if *slots.get_ref() == 0 {
                return Err(self.error(
                    slots.span(),
                    "instance_slots = 0: a pool needs at least one slot (leave the key out for instances that reserve their own memory)",
                ));
            }
            let keep_resident = match &entry.keep_resident_kib {
                Some(k) => k
                    .get_ref()
                    .checked_mul(1024)
                    .ok_or_else(|| self.error(k.span(), "keep_resident_kib: more than 4 GiB"))?,
                None => 1 << 20,
            };
            config.instances = Instances::Pooled {
                slots: *slots.get_ref(),
                keep_resident,
            };
        }
        Ok(config)
    }

    /// The options a module entry states, each defaulting when absent.
    pub fn module_options(entry: &ModuleEntry) -> ModuleOptions {
        let d = ModuleOptions::default();
        ModuleOptions {
            timeout: entry.timeout_ms.map_or(d.timeout, Duration::from_millis),
            memory_limit: entry.memory_limit_mib.map_or(d.memory_limit, |m| m << 20),
            pool_size: entry.pool_size,
            grants: entry
                .grant
                .iter()
                .map(|(r, g)| (r.get_ref().clone(), Access::from(*g)))
                .collect(),
            max_instances: entry.max_instances.unwrap_or(d.max_instances),
        }
    }

    /// The budgets of every top-level call, each defaulting when absent.
    pub fn call_budget(&self) -> CallBudget {
        let d = CallBudget::default();
        match &self.file.budget {
            None => d,
            Some(b) => CallBudget {
                instances: b.instances.unwrap_or(d.instances),
                calls: b.calls.unwrap_or(d.calls),
                host_bytes: b.host_bytes_mib.map_or(d.host_bytes, |m| m << 20),
                fuel: b.fuel,
            },
        }
    }

    /// Load every module (under its own limits), apply the bindings,
    /// region contents and budgets, let `configure` add what the manifest
    /// cannot say (host exports, ...), and build the application. Guest log
    /// lines go to `log`.
    pub fn build(
        &self,
        runtime: &Runtime,
        log: Arc<dyn LogSink>,
        configure: impl FnOnce(&mut AppBuilder),
    ) -> Result<App, ManifestError> {
        let mut builder = AppBuilder::new(runtime);
        builder.log_sink(log);
        builder.call_budget(self.call_budget());
        let mut spans: HashMap<String, Range<usize>> = HashMap::new();
        for entry in &self.file.modules {
            let name = entry.name.get_ref();
            if spans.insert(name.clone(), entry.name.span()).is_some() {
                return Err(
                    self.error(entry.name.span(), format!("a second module named `{name}`"))
                );
            }
            let options = Manifest::module_options(entry);
            let path = self.relative(entry.path.get_ref());
            let module = runtime
                .load_file_with(name, &path, &options)
                .map_err(|e| match e {
                    Error::Io { .. } => self.io_error(entry.path.span(), e),
                    e => self.error(entry.path.span(), e),
                })?;
            builder.module_with(module, options);
        }
        for b in &self.file.binds {
            match &b.importer {
                Some(i) => builder.bind(i.get_ref(), b.interface.get_ref(), b.exporter.get_ref()),
                None => builder.bind_all(b.interface.get_ref(), b.exporter.get_ref()),
            };
        }
        for r in &self.file.regions {
            let name = r.name.get_ref();
            // The region's size bounds the read: a contents file that is
            // larger (or endless, like a device) is refused, not read whole.
            let size = builder
                .declared_region(name)
                .map(|d| d.size())
                .ok_or_else(|| self.error(r.name.span(), Error::UnknownRegion(name.clone())))?;
            let path = self.relative(r.contents.get_ref());
            let cannot = |e: String| {
                self.io_error(
                    r.contents.span(),
                    format!("cannot read {}: {e}", path.display()),
                )
            };
            let mut bytes = Vec::new();
            std::fs::File::open(&path)
                .and_then(|f| f.take(size + 1).read_to_end(&mut bytes))
                .map_err(|e| cannot(e.to_string()))?;
            if bytes.len() as u64 > size {
                return Err(cannot(format!(
                    "larger than the region `{name}` ({size} bytes)"
                )));
            }
            builder.region_contents(name, bytes);
        }
        configure(&mut builder);
        builder
            .build()
            .map_err(|e| self.error(self.blame(&e, &spans), e))
    }

    /// The manifest entry an application error is about.
    fn blame(&self, e: &Error, modules: &HashMap<String, Range<usize>>) -> Range<usize> {
        let module = |name: &str| modules.get(name).cloned();
        let f = &self.file;
        let span = match e {
            Error::Binding {
                module: importer,
                interface,
                ..
            } => f
                .binds
                .iter()
                .find(|b| b.interface.get_ref() == interface)
                .map(|b| b.interface.span())
                .or_else(|| module(importer)),
            Error::IncompatibleInterface { importer, .. } => module(importer),
            Error::IncompatibleMemory { second, .. } => module(second),
            Error::UnknownModule(name) => f
                .binds
                .iter()
                .flat_map(|b| [Some(&b.exporter), b.importer.as_ref()])
                .flatten()
                .find(|s| s.get_ref() == name)
                .map(|s| s.span()),
            // A region named by a `[[region]]` entry or by a grant.
            Error::UnknownRegion(r) => f
                .regions
                .iter()
                .find(|x| x.name.get_ref() == r)
                .map(|x| x.name.span())
                .or_else(|| {
                    f.modules
                        .iter()
                        .flat_map(|m| m.grant.keys())
                        .find(|k| k.get_ref() == r)
                        .map(|k| k.span())
                }),
            Error::Startup { module: name, .. } => module(name),
            _ => None,
        };
        span.unwrap_or(0..0)
    }
}

impl ManifestFile {
    fn empty() -> ManifestFile {
        ManifestFile {
            schemas: Vec::new(),
            cache: None,
            runtime: None,
            modules: Vec::new(),
            binds: Vec::new(),
            regions: Vec::new(),
            budget: None,
            runs: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;

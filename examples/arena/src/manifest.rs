//! The part of an application manifest (docs/manifest.md) the arena needs:
//! its modules, their limits and the module cache. The same file runs
//! with `karmem run`, which also reads the `[[run]]` entries; this reader
//! ignores what it does not use.

use std::path::{Path, PathBuf};

use karmem_host::ModuleOptions;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Manifest {
    #[serde(default)]
    cache: Option<Cache>,
    #[serde(rename = "module")]
    pub modules: Vec<Module>,
    #[serde(skip)]
    dir: PathBuf,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Cache {
    Enabled(bool),
    Dir(String),
}

#[derive(Deserialize)]
pub struct Module {
    pub name: String,
    pub path: String,
    timeout_ms: Option<u64>,
    memory_limit_mib: Option<u64>,
}

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut m: Manifest =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        m.dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(m)
    }

    /// A path in the manifest, relative to the manifest's directory.
    pub fn relative(&self, path: &str) -> PathBuf {
        self.dir.join(path)
    }

    /// As `karmem run` chooses it.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        match &self.cache {
            None | Some(Cache::Enabled(true)) => karmem_host::default_cache_dir(),
            Some(Cache::Enabled(false)) => None,
            Some(Cache::Dir(d)) => Some(self.relative(d)),
        }
    }
}

impl Module {
    pub fn options(&self) -> ModuleOptions {
        ModuleOptions::from_manifest(self.timeout_ms, self.memory_limit_mib, None)
    }
}

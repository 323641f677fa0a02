//! On-disk cache of precompiled modules.
//!
//! Key: `sha256(sha256(module bytes) ‖ REWRITE_VERSION ‖ engine
//! compatibility hash)` (docs/abi.md §10), so a changed module, a new
//! rewrite or a differently configured engine never finds a stale entry.
//! Each entry is `<key>.cwasm` (wasmtime's serialized module, loaded with
//! `Module::deserialize_file`, i.e. mmap, no copy) and `<key>.sha256` (the
//! digest of the `.cwasm`, checked before loading).
//!
//! Why `deserialize_file`'s unsafety is acceptable here: it trusts the file
//! to be machine code wasmtime produced. We only ever load files this code
//! wrote, from a directory created with mode 0700 (and refused if someone
//! else owns it or others can write to it), written to a temporary name and
//! renamed into place (a crash never leaves a partial entry), and verified
//! against the digest written with it (bit rot or truncation is caught and
//! the entry recompiled). wasmtime itself additionally checks the header,
//! its version and the engine configuration.

use std::fs;
use std::hash::Hasher;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use crate::error::{Error, Result};
use crate::runtime::CacheOutcome;

pub(crate) struct Cache {
    dir: PathBuf,
    engine_hash: [u8; 32],
}

/// Feeds `Hash` output into SHA-256 (the compatibility hash is only
/// available as `impl Hash`).
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    /// Open (creating with mode 0700) the cache directory.
    pub fn open(dir: &Path, engine: &Engine) -> Result<Cache> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io_err(dir, e))?;
        let meta = fs::metadata(dir).map_err(|e| io_err(dir, e))?;
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        if !meta.is_dir() || meta.uid() != uid {
            return Err(Error::Io {
                path: dir.to_path_buf(),
                message: "module cache directory is not a directory owned by this user".into(),
            });
        }
        if meta.mode() & 0o077 != 0 {
            // An existing directory of ours that others can read or write:
            // tighten it rather than trust what may have been planted.
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| io_err(dir, e))?;
        }
        let mut h = ShaHasher(Sha256::new());
        std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut h);
        Ok(Cache {
            dir: dir.to_path_buf(),
            engine_hash: h.0.finalize().into(),
        })
    }

    /// The entry name of a module.
    pub fn key(&self, wasm: &[u8]) -> String {
        let mut h = Sha256::new();
        h.update(Sha256::digest(wasm));
        h.update(crate::REWRITE_VERSION.to_le_bytes());
        h.update(self.engine_hash);
        hex(&h.finalize())
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cwasm"))
    }

    fn sum_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.sha256"))
    }

    /// Load `key` from the cache, or compile with `compile` (which returns
    /// serialized machine code) and store it.
    pub fn get_or_compile(
        &self,
        engine: &Engine,
        key: &str,
        compile: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(Module, CacheOutcome)> {
        let path = self.path(key);
        let mut outcome = CacheOutcome::Miss;
        if path.exists() {
            match self.load(engine, key) {
                Some(m) => return Ok((m, CacheOutcome::Hit)),
                None => outcome = CacheOutcome::Replaced,
            }
        }
        let bytes = compile()?;
        self.store(key, &bytes)?;
        // Load what we just wrote, so a module always runs from its mmap.
        match self.load(engine, key) {
            Some(m) => Ok((m, outcome)),
            None => Err(Error::Io {
                path,
                message: "a freshly written cache entry did not load".into(),
            }),
        }
    }

    /// `None` if the entry is missing, corrupt or from another engine.
    fn load(&self, engine: &Engine, key: &str) -> Option<Module> {
        let path = self.path(key);
        let want = fs::read_to_string(self.sum_path(key)).ok()?;
        let have = hex(&Sha256::digest(fs::read(&path).ok()?));
        if want.trim() != have {
            return None;
        }
        // SAFETY: see the module documentation: a file we wrote into our
        // private directory, verified against its digest.
        unsafe { Module::deserialize_file(engine, &path) }.ok()
    }

    fn store(&self, key: &str, bytes: &[u8]) -> Result<()> {
        let sum = hex(&Sha256::digest(bytes));
        write_atomic(&self.path(key), bytes)?;
        write_atomic(&self.sum_path(key), sum.as_bytes())
    }
}

/// Write to a unique temporary name in the same directory, then rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!(
        "tmp.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(path, e)
    })
}

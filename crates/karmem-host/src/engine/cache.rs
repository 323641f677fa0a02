//! On-disk cache of precompiled modules (docs/abi.md §10, docs/security.md
//! §2.6, RATIONALE R8.5).
//!
//! Key: `blake3(blake3(module bytes) ‖ rewrite version ‖ engine
//! compatibility hash)`, so a changed module, a new rewrite or a
//! differently configured engine never finds a stale entry. Each entry is
//! `<key>.cwasm` (wasmtime's serialized module, mapped by
//! `Module::deserialize_open_file`, no copy) and `<key>.meta`:
//!
//! ```text
//! karmem-cache 2
//! key <key>
//! module <blake3 of the original module bytes>
//! artifact <blake3 of the .cwasm>
//! mac <keyed BLAKE3 under the directory's secret of the four lines above>
//! ```
//!
//! Why `deserialize_open_file`'s unsafety is acceptable here: it trusts the
//! file to be machine code wasmtime produced, so an entry is loaded only
//! when
//! * the directory and both files belong to this user and nobody else can
//!   write them, and neither file is a symbolic link;
//! * the sidecar carries the MAC of this directory's secret (`.secret`, 32
//!   random bytes, mode 0600): an entry made elsewhere is refused;
//! * the sidecar names this very key and module (an entry copied under
//!   another key is refused, not run as the other module);
//! * the artifact matches its digest (bit rot, truncation), read through
//!   the very file handle wasmtime then maps (no second open by path).
//!
//! Anything else is compiled again and replaced. Files are written to a
//! temporary name and renamed into place, so a crash never leaves a partial
//! entry. What remains trusted: whoever can write this directory as this
//! user can read the secret too, and could run native code as this user
//! anyway.

use std::fs;
use std::hash::Hasher;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use wasmtime::{Engine, Module};

use super::config::CacheOutcome;
use crate::error::{Error, Result};

/// The sidecar's first line: its format.
/// (Version 1 was SHA-256 and HMAC-SHA256: its entries are refused, and
/// replaced when their module is next loaded.)
const FORMAT: &str = "karmem-cache 2";
/// The directory's secret.
const SECRET: &str = ".secret";
const SECRET_LEN: usize = 32;
/// Sidecars are a few hundred bytes; anything longer is not ours.
const MAX_META: u64 = 4096;

pub(crate) struct Cache {
    dir: PathBuf,
    engine_hash: [u8; 32],
    secret: [u8; SECRET_LEN],
}

/// Feeds `Hash` output into BLAKE3 (the compatibility hash is only
/// available as `impl Hash`).
struct DigestHasher(blake3::Hasher);

impl Hasher for DigestHasher {
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

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// A file this user may trust: a regular file (not a symbolic link) of
/// this user that nobody else may write (`extra_mode`: further mode bits
/// that must be clear).
fn trusted_file(path: &Path, extra_mode: u32) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| trusted(&m, extra_mode))
}

/// The test of [`trusted_file`] on metadata already read (of a path not
/// followed, or of an open handle).
fn trusted(m: &fs::Metadata, extra_mode: u32) -> bool {
    m.file_type().is_file() && m.uid() == euid() && m.mode() & (0o022 | extra_mode) == 0
}

/// Open a trusted file for reading. The path is checked first (a FIFO
/// planted there would block the open), then the open handle itself, so a
/// file swapped between the two is refused too.
fn open_trusted(path: &Path) -> Option<fs::File> {
    if !trusted_file(path, 0) {
        return None;
    }
    // O_NOFOLLOW: the file checked above cannot have been swapped for a
    // link meanwhile without the open failing.
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    trusted(&f.metadata().ok()?, 0).then_some(f)
}

/// Read at most `max` bytes of a trusted file.
fn read_trusted(path: &Path, max: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    open_trusted(path)?.take(max).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The BLAKE3 digest of an open file's contents, read from that handle
/// (which is then the one wasmtime maps). Reading measured faster than
/// hashing a fresh mapping of it: the mapping's page faults cost more than
/// the copy (RATIONALE R8.5).
fn digest_file(f: &fs::File) -> Option<[u8; 32]> {
    Some(
        *blake3::Hasher::new()
            .update_reader(f)
            .ok()?
            .finalize()
            .as_bytes(),
    )
}

/// The MAC of a sidecar's text: BLAKE3 in its keyed mode (a PRF by design,
/// RATIONALE R8.5), under the directory's 32-byte secret.
fn mac(secret: &[u8; SECRET_LEN], text: &str) -> String {
    hex(blake3::keyed_hash(secret, text.as_bytes()).as_bytes())
}

/// Constant-time equality of two strings of hex digits (the MAC check).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

/// The digest a module is cached under: BLAKE3 of its bytes.
pub(crate) fn digest(wasm: &[u8]) -> [u8; 32] {
    *blake3::hash(wasm).as_bytes()
}

impl Cache {
    /// Open (creating with mode 0700) the cache directory and its secret.
    pub fn open(dir: &Path, engine: &Engine) -> Result<Cache> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io_err(dir, e))?;
        let meta = fs::symlink_metadata(dir).map_err(|e| io_err(dir, e))?;
        if !meta.is_dir() || meta.uid() != euid() {
            return Err(Error::Io {
                path: dir.to_path_buf(),
                message: "module cache directory is not a directory owned by this user".into(),
            });
        }
        if meta.mode() & 0o077 != 0 {
            // An existing directory of ours that others can read or write:
            // tighten it. What others may have planted meanwhile is refused
            // entry by entry (`load`).
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| io_err(dir, e))?;
        }
        let mut h = DigestHasher(blake3::Hasher::new());
        std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut h);
        Ok(Cache {
            dir: dir.to_path_buf(),
            engine_hash: *h.0.finalize().as_bytes(),
            secret: secret(dir)?,
        })
    }

    /// The entry name of a module with digest `digest` ([`digest`]).
    pub fn key(&self, digest: &[u8; 32]) -> String {
        let mut h = blake3::Hasher::new();
        h.update(digest);
        h.update(&karmem_rewrite::VERSION.to_le_bytes());
        h.update(&self.engine_hash);
        hex(h.finalize().as_bytes())
    }

    fn path(&self, key: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{key}.{ext}"))
    }

    /// The sidecar text of an entry, without its `mac` line.
    fn sidecar(key: &str, module: &[u8; 32], artifact: &[u8; 32]) -> String {
        format!(
            "{FORMAT}\nkey {key}\nmodule {}\nartifact {}\n",
            hex(module),
            hex(artifact)
        )
    }

    /// Load the module with digest `module` from the cache, or compile it
    /// with `compile` (which returns serialized machine code) and store it.
    pub fn get_or_compile(
        &self,
        engine: &Engine,
        module: &[u8; 32],
        compile: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(Module, CacheOutcome)> {
        let key = self.key(module);
        let path = self.path(&key, "cwasm");
        let mut outcome = CacheOutcome::Miss;
        if fs::symlink_metadata(&path).is_ok() {
            match self.load(engine, &key, module) {
                Some(m) => return Ok((m, CacheOutcome::Hit)),
                None => outcome = CacheOutcome::Replaced,
            }
        }
        let bytes = compile()?;
        // Load what we just wrote, so a module always runs from its mmap.
        // Whatever stands in the way (a planted directory, a file we cannot
        // replace, a full disk), the cache never stops a module from
        // running: it then runs from memory.
        if self.store(&key, module, &bytes).is_ok() {
            if let Some(m) = self.load(engine, &key, module) {
                return Ok((m, outcome));
            }
        }
        // SAFETY: `bytes` is what this engine's `precompile_module` just
        // produced, in memory, never written to or read from disk.
        let m = unsafe { Module::deserialize(engine, &bytes) }.map_err(|e| Error::Io {
            path,
            message: format!("a freshly compiled module did not load: {e:#}"),
        })?;
        Ok((m, CacheOutcome::Uncached))
    }

    /// `None` unless every condition of the module documentation holds.
    fn load(&self, engine: &Engine, key: &str, module: &[u8; 32]) -> Option<Module> {
        let meta = String::from_utf8(read_trusted(&self.path(key, "meta"), MAX_META)?).ok()?;
        let (body, tag) = meta.rsplit_once("mac ")?;
        // The sidecar first (a few hundred bytes): an entry made elsewhere
        // or for another module costs no hashing of its artifact.
        if !same(tag.trim_end(), &mac(&self.secret, body)) {
            return None;
        }
        let artifact = open_trusted(&self.path(key, "cwasm"))?;
        if body != Self::sidecar(key, module, &digest_file(&artifact)?) {
            return None;
        }
        // SAFETY: see the module documentation: a file of this user that
        // nobody else can write, made for this key and module with this
        // directory's secret, matching its digest; wasmtime maps this same
        // open file.
        unsafe { Module::deserialize_open_file(engine, artifact) }.ok()
    }

    fn store(&self, key: &str, module: &[u8; 32], bytes: &[u8]) -> Result<()> {
        let body = Self::sidecar(key, module, blake3::hash(bytes).as_bytes());
        let meta = format!("{body}mac {}\n", mac(&self.secret, &body));
        write_atomic(&self.path(key, "cwasm"), bytes)?;
        write_atomic(&self.path(key, "meta"), meta.as_bytes())
    }
}

/// The directory's secret: read, or created (32 random bytes, mode 0600).
/// A secret that is not a private file of this user is replaced, which
/// invalidates every entry made with the old one.
fn secret(dir: &Path) -> Result<[u8; SECRET_LEN]> {
    let path = dir.join(SECRET);
    let read = || {
        if !trusted_file(&path, 0o077) {
            return None;
        }
        read_trusted(&path, SECRET_LEN as u64 + 1)?.try_into().ok()
    };
    if let Some(s) = read() {
        return Ok(s);
    }
    let mut fresh = [0u8; SECRET_LEN];
    let mut filled = 0;
    while filled < SECRET_LEN {
        // SAFETY: writes into the unfilled tail of `fresh`.
        let n =
            unsafe { libc::getrandom(fresh[filled..].as_mut_ptr().cast(), SECRET_LEN - filled, 0) };
        if n <= 0 {
            return Err(io_err(&path, std::io::Error::last_os_error()));
        }
        filled += n as usize;
    }
    write_atomic(&path, &fresh)?;
    // Another process may have written its own secret at the same moment:
    // use whichever is in place, so both processes agree from now on.
    read().ok_or_else(|| Error::Io {
        path,
        message: "the cache secret could not be read back".into(),
    })
}

/// Write to a unique temporary name in the same directory (mode 0600),
/// then rename over `path` (a link, FIFO or socket there is replaced, not
/// followed; a directory planted under the name is removed first, since
/// nothing can be renamed over it).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        fs::remove_dir_all(path).map_err(|e| io_err(path, e))?;
    }
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
            .custom_flags(libc::O_NOFOLLOW)
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

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn mac_comparison() {
        assert!(same("00ff", "00ff"));
        assert!(!same("00ff", "00fe"));
        assert!(!same("00ff", "00ff0"));
    }
}

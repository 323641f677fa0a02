//! Helpers for the end-to-end tests in `tests/`: where the built guest
//! modules are, and a runtime to load them with. The guests are built by
//! `scripts/build-guests.sh` (the Makefile's `guests` target) into
//! `guests/out/`; a missing module is an error that says so.

use std::path::PathBuf;
use std::sync::OnceLock;

use karmem_host::{GuestModule, Runtime, RuntimeConfig};

/// The repository's `guests/` directory.
pub fn guests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

/// `guests/out/<file>` (e.g. `e2e-driver.wasm`), or an error telling how to
/// build it.
pub fn guest_path(file: &str) -> Result<PathBuf, String> {
    let path = guests_dir().join("out").join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: run scripts/build-guests.sh (or `make guests`) first",
            path.display()
        ))
    }
}

/// One runtime shared by the tests of a process (the engine and its epoch
/// ticker are meant to be shared; the disk cache is off so tests never
/// depend on state outside the repository).
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: None,
            ..RuntimeConfig::default()
        })
        .expect("create the runtime")
    })
}

/// Load `guests/out/<file>` as module `name`. Panics (this is a test
/// helper) with the reason, including how to build missing guests.
pub fn load(name: &str, file: &str) -> GuestModule {
    let path = guest_path(file).unwrap_or_else(|e| panic!("{e}"));
    runtime()
        .load_file(name, &path)
        .unwrap_or_else(|e| panic!("load {}: {e}", path.display()))
}

/// Typed host bindings of guests/e2e.km (`--lang rust-host`).
#[allow(dead_code)]
pub mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_host.rs"));
}

/// The guest bindings of guests/e2e.km (`--lang rust-guest`), compiled on
/// the host only so that lints cover generated guest code.
#[allow(dead_code)]
mod e2e_guest {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

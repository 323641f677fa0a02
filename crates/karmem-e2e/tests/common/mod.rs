//! Helpers shared by the guest-language tests (go_guests.rs, c_guests.rs):
//! one cached runtime, each guest module loaded once per test process, and
//! messages to and from JSON.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use karmem_host::{GuestModule, OptLevel, Runtime, RuntimeConfig};
use serde_json::Value;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One runtime for every test, with the precompiled-module cache: a Go
/// module takes seconds to compile, a cached one milliseconds.
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("module-cache")),
            opt_level: OptLevel::None,
            ..RuntimeConfig::default()
        })
        .expect("runtime")
    })
}

/// Each module is loaded once per test process: tests run in parallel and
/// would otherwise compile the same module several times on a cold cache.
pub fn module(name: &str) -> GuestModule {
    static LOADED: OnceLock<Mutex<HashMap<String, GuestModule>>> = OnceLock::new();
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap();
    if let Some(m) = loaded.get(name) {
        return m.clone();
    }
    let path = repo().join("guests/out").join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run scripts/build-guests.sh (or make guests)",
        path.display()
    );
    let m = runtime()
        .load_file(name, &path)
        .unwrap_or_else(|e| panic!("loading {name}: {e}"));
    loaded.insert(name.to_string(), m.clone());
    m
}

/// A schema for encoding and decoding test messages as JSON.
pub struct Codec {
    pub schema: karmem_schema::model::Schema,
    pub layout: karmem_layout::Layout,
}

impl Codec {
    pub fn load(rel: &str) -> Codec {
        let path = repo().join(rel);
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        Codec { schema, layout }
    }

    pub fn root(&self, name: &str) -> usize {
        self.schema
            .structs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("no struct {name}"))
    }

    pub fn encode(&self, root: &str, value: Value) -> Vec<u8> {
        karmem_json::encode(&self.schema, &self.layout, self.root(root), &value).unwrap()
    }

    pub fn decode(&self, root: &str, bytes: &[u8]) -> Value {
        karmem_json::decode(&self.schema, &self.layout, self.root(root), bytes).unwrap()
    }
}

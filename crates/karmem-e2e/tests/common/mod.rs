//! What the guest e2e tests share (go_guests.rs, polyglot.rs): a runtime
//! with the precompiled-module cache, modules loaded once per process, and
//! a JSON codec for a schema's messages.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use karmem_host::{App, GuestModule, OptLevel, Output, Runtime, RuntimeConfig};
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

/// `guests/out/<name>.wasm`, loaded once per test process: tests run in
/// parallel and would otherwise compile the same module several times on a
/// cold cache.
pub fn module(name: &str) -> GuestModule {
    static LOADED: OnceLock<Mutex<HashMap<String, GuestModule>>> = OnceLock::new();
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap();
    if let Some(m) = loaded.get(name) {
        return m.clone();
    }
    let path = karmem_e2e::guest_path(&format!("{name}.wasm")).unwrap_or_else(|e| panic!("{e}"));
    let m = runtime()
        .load_file(name, &path)
        .unwrap_or_else(|e| panic!("loading {name}: {e}"));
    loaded.insert(name.to_string(), m.clone());
    m
}

/// A schema for encoding and decoding test messages as JSON.
pub struct Codec {
    schema: karmem_schema::model::Schema,
    layout: karmem_layout::Layout,
}

impl Codec {
    /// The schema at `rel`, a path inside the repository.
    pub fn load(rel: &str) -> Codec {
        let path = repo().join(rel);
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        Codec { schema, layout }
    }

    fn root(&self, name: &str) -> usize {
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

    /// Decode a call's result (copied out of the app).
    pub fn output(&self, root: &str, app: &App, out: Output) -> Value {
        self.decode(root, &out.to_vec(app).unwrap())
    }
}

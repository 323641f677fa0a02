//! The WebAssembly members (docs/integrity.md §6): a language's two guest
//! modules on the host, wrapped as one member that speaks the protocol of
//! §4. The producer writes its message into the `outbox` region, where the
//! host reads it; the host writes a message into the `inbox` region and the
//! consumer reads it in place. Behind the `host` feature: it needs wasmtime,
//! which the guests that depend on this crate must not.

use std::path::{Path, PathBuf};

use karmem_host::{Access, App, AppBuilder, Arg, ModuleOptions, Output, Runtime};

use crate::harness::Member;
use crate::new_schema::{Answer, Seed};
use crate::protocol::{self, Command, Request};
use crate::sink::hex;
use crate::Version;

/// The repository's `guests/out/`, where scripts/build-guests.sh puts the
/// guest modules.
pub fn guests_out() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests/out")
}

const INTERFACE: &str = "integrity.Integrity";

/// A language's guests as one member (§6), one guest per schema version, each in an app of its own
/// (the two versions declare the same interface with different types).
pub struct Wasm {
    name: String,
    /// (module name, app) for "old" and "new".
    apps: Vec<(String, App)>,
}

impl Wasm {
    /// Loads a language's two guests, `guests/out/<prefix>integrity-{old,new}.wasm`
    /// (prefix `""` for Rust, `"go-"` for Go), as the member `name`.
    pub fn load(runtime: &Runtime, name: &str, prefix: &str) -> Result<Wasm, String> {
        let mut apps = Vec::new();
        for v in ["old", "new"] {
            let module_name = format!("integrity-{v}");
            let path = guests_out().join(format!("{prefix}integrity-{v}.wasm"));
            if !path.is_file() {
                return Err(format!(
                    "{} is missing: run scripts/build-guests.sh (or `make guests`)",
                    path.display()
                ));
            }
            let module = runtime
                .load_file(&module_name, &path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            // The host writes the inbox and reads the outbox itself; the
            // guest gets the access its role declares, and more is harmless
            // here (the host's own tests are about grants).
            let options = module
                .descriptor()
                .memories
                .iter()
                .fold(ModuleOptions::default(), |o, m| {
                    o.grant(&m.name, Access::ReadWrite)
                });
            let mut b = AppBuilder::new(runtime);
            b.module_with(module, options);
            let app = b.build().map_err(|e| format!("{}: {e}", path.display()))?;
            apps.push((module_name, app));
        }
        Ok(Wasm {
            name: name.to_string(),
            apps,
        })
    }

    /// The answer to a request, through the guests.
    pub fn answer(&self, request: &str) -> Result<String, String> {
        let Request { version, command } = protocol::parse(request)?;
        let (module, app) = match version {
            Version::Old => &self.apps[0],
            Version::New => &self.apps[1],
        };
        let call = |function: &str, arg: Arg<'_>| {
            app.call(module, INTERFACE, function, &[arg])
                .map_err(|e| e.to_string())
        };
        match &command {
            Command::Produce(value) => {
                let seed = Seed { value: *value }
                    .to_bytes()
                    .map_err(|e| e.to_string())?;
                let Output::Region(slice) = call(command.name(), Arg::Bytes(&seed))? else {
                    return Err("produce did not answer with a region slice".into());
                };
                // Read where the guest wrote it, in the shared region.
                let bytes = app.region_by_id(slice.region).to_vec(slice);
                Ok(hex(&bytes.map_err(|e| e.to_string())?))
            }
            Command::Consume(message) | Command::Stream(message) | Command::Roundtrip(message) => {
                let inbox = app.region("integrity.inbox").map_err(|e| e.to_string())?;
                inbox.write(0, message).map_err(|e| e.to_string())?;
                let slice = inbox
                    .slice(0, message.len() as u32)
                    .map_err(|e| e.to_string())?;
                let out = call(command.name(), Arg::Region(slice))?.to_vec(app);
                let answer = Answer::from_bytes(&out.map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                Ok(answer.line)
            }
        }
    }
}

impl Member for Wasm {
    fn name(&self) -> &str {
        &self.name
    }

    fn ask(&mut self, request: &str) -> String {
        self.answer(request)
            .unwrap_or_else(|e| format!("error {}", e.replace('\n', " ")))
    }
}

//! The integrity suite with every member (docs/integrity.md §5, §6): Rust
//! and Go natively, and the same producers and consumers as WebAssembly
//! guests on the host, with messages passed through the interface's shared
//! regions — the producer writes its message into `outbox`, the host copies
//! nothing out but reads it there; the host writes a message into `inbox`
//! and the consumer reads it in place.

use std::path::Path;

use karmem_host::{App, AppBuilder, Arg, ModuleOptions, Output};
use karmem_integrity::harness::{self, InProcess, Member};
use karmem_integrity::new_schema::{Answer, Seed};
use karmem_integrity::sink::{hex, unhex};

const INTERFACE: &str = "integrity.Integrity";

/// A language's guests, one per schema version, each in an app of its own
/// (the two versions declare the same interface with different types).
struct Wasm {
    name: String,
    /// (module name, app) for "old" and "new".
    apps: Vec<(String, App)>,
}

impl Wasm {
    fn load(lang: &str) -> Wasm {
        let apps = ["old", "new"]
            .iter()
            .map(|v| {
                let name = format!("integrity-{v}");
                let file = match lang {
                    "rust" => format!("integrity-{v}.wasm"),
                    _ => format!("{lang}-integrity-{v}.wasm"),
                };
                let module = karmem_e2e::load(&name, &file);
                let options = karmem_e2e::trusting(&module, ModuleOptions::default());
                let mut b = AppBuilder::new(karmem_e2e::runtime());
                b.module_with(module, options);
                (name, b.build().unwrap_or_else(|e| panic!("{file}: {e}")))
            })
            .collect();
        Wasm {
            name: format!("{lang}-wasm"),
            apps,
        }
    }

    fn answer(&self, request: &str) -> Result<String, String> {
        let words: Vec<&str> = request.split_ascii_whitespace().collect();
        let [cmd, version, arg] = words[..] else {
            return Err(format!(
                "expected `<command> <old|new> <argument>`, got {request:?}"
            ));
        };
        let (module, app) = match version {
            "old" => &self.apps[0],
            "new" => &self.apps[1],
            _ => return Err(format!("unknown version {version:?}")),
        };
        let call = |function: &str, arg: Arg<'_>| {
            app.call(module, INTERFACE, function, &[arg])
                .map_err(|e| e.to_string())
        };
        match cmd {
            "produce" => {
                let value = arg
                    .parse::<u64>()
                    .map_err(|e| format!("seed {arg:?}: {e}"))?;
                let seed = Seed { value }.to_bytes().map_err(|e| e.to_string())?;
                let Output::Region(slice) = call("produce", Arg::Bytes(&seed))? else {
                    return Err("produce did not answer with a region slice".into());
                };
                // Read where the guest wrote it, in the shared region.
                let bytes = app.region_by_id(slice.region).to_vec(slice);
                Ok(hex(&bytes.map_err(|e| e.to_string())?))
            }
            "consume" | "stream" | "roundtrip" => {
                let message = unhex(arg).ok_or("the message is not hex")?;
                let inbox = app.region("integrity.inbox").map_err(|e| e.to_string())?;
                inbox.write(0, &message).map_err(|e| e.to_string())?;
                let slice = inbox
                    .slice(0, message.len() as u32)
                    .map_err(|e| e.to_string())?;
                let out = call(cmd, Arg::Region(slice))?.to_vec(app);
                let answer = Answer::from_bytes(&out.map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                Ok(answer.line)
            }
            other => Err(format!("unknown command {other:?}")),
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

fn members() -> Vec<Box<dyn Member>> {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut out: Vec<Box<dyn Member>> = Vec::new();
    if harness::wanted("rust") {
        out.push(Box::new(InProcess));
    }
    if harness::wanted("go") {
        out.push(Box::new(harness::go_native(scratch)));
    }
    for lang in ["rust"] {
        let name = format!("{lang}-wasm");
        if harness::wanted(&name) {
            out.push(Box::new(Wasm::load(lang)));
        }
    }
    assert!(!out.is_empty(), "INTEGRITY_MEMBERS names no member");
    out
}

#[test]
fn every_pair_agrees_natively_and_as_guests() {
    harness::run(&mut members(), 0..harness::seeds(12));
}

#[test]
fn guests_refuse_bad_requests_and_keep_serving() {
    for mut m in members() {
        harness::refuses_bad_requests(m.as_mut());
    }
}

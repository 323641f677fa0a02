//! A language's integrity guests (docs/integrity.md §6) behind the line
//! protocol of §4 on stdio: `karmem-integrity-host go` serves
//! `guests/out/go-integrity-{old,new}.wasm`, `... rust` the Rust ones. The
//! differential fuzz target reaches the Go library through it, so that
//! wasmtime and Cranelift run uninstrumented in their own process.
//! Compiled modules are cached in `target/module-cache` (or
//! `KARMEM_MODULE_CACHE`), so a restart loads them in milliseconds.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use karmem_host::{Runtime, RuntimeConfig};
use karmem_integrity::harness::Member;
use karmem_integrity::wasm::Wasm;

fn main() -> Result<(), String> {
    let lang = std::env::args().nth(1).unwrap_or_default();
    let prefix = match lang.as_str() {
        "go" => "go-",
        "rust" => "",
        _ => return Err("usage: karmem-integrity-host <go|rust>".into()),
    };
    let cache = std::env::var_os("KARMEM_MODULE_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/module-cache")
        });
    let runtime = Runtime::new(RuntimeConfig {
        cache_dir: Some(cache),
        ..RuntimeConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let mut member = Wasm::load(&runtime, &format!("{lang}-wasm"), prefix)?;
    let mut out = std::io::stdout().lock();
    for request in std::io::stdin().lock().lines() {
        let request = request.map_err(|e| e.to_string())?;
        if request.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", member.ask(&request)).map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

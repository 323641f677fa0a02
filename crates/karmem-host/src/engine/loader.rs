//! From guest bytes to compiled code: the checks of docs/abi.md §1–§2 on
//! the module's shape, validation and the bulk-memory rewrite
//! (`karmem-rewrite`), and compilation through the cache. What it yields
//! is not yet instantiated: the instance layer links and starts it.

use std::borrow::Cow;
use std::collections::HashMap;

use wasmparser::{ExternalKind, Parser, Payload, TypeRef, ValType};
use wasmtime::Module;

use super::config::{CacheOutcome, Instances};
use super::{EngineCtx, POOL_TABLE_ELEMENTS};
use crate::abi;
use crate::error::{Error, Result};

/// A WASI import the host does not implement: the instance layer links a
/// stub of its declared type that returns `ENOSYS`.
#[derive(Clone)]
pub(crate) struct Stub {
    pub name: String,
    pub params: Vec<ValType>,
    pub results: Vec<ValType>,
}

/// A checked, validated, rewritten and compiled module.
pub(crate) struct Compiled {
    pub module: Module,
    pub stubs: Vec<Stub>,
    pub outcome: CacheOutcome,
}

fn invalid(module: &str, message: impl std::fmt::Display) -> Error {
    Error::InvalidModule {
        module: module.to_string(),
        message: message.to_string(),
    }
}

fn sig(params: &[ValType], results: &[ValType]) -> String {
    let list = |v: &[ValType]| {
        v.iter()
            .map(|t| format!("{t}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("({}) -> ({})", list(params), list(results))
}

/// What a slot of a pooled runtime holds (`Instances::Pooled`): wasmtime
/// refuses a larger module when it is deserialised, so the loader refuses
/// it first, by name.
#[derive(Clone, Copy)]
struct Slot {
    table_elements: u64,
    memory_bytes: u64,
}

/// Check imports, memory and exports against the ABI, and tables and
/// memory against a pool's slots (`slot`, under `Instances::Pooled`);
/// return the WASI stubs needed. This gives precise errors for modules of
/// the wrong shape; validity itself is checked by the rewrite.
fn inspect(name: &str, wasm: &[u8], slot: Option<Slot>) -> Result<Vec<Stub>> {
    type FuncSig = (Vec<ValType>, Vec<ValType>);
    let mut types: Vec<Option<FuncSig>> = Vec::new();
    let mut funcs: Vec<u32> = Vec::new();
    let mut stubs = Vec::new();
    let mut memories = 0;
    let mut exports: HashMap<String, (ExternalKind, u32)> = HashMap::new();
    let func_type = |types: &[Option<FuncSig>], t: u32| types.get(t as usize).cloned().flatten();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(|e| invalid(name, e))? {
            Payload::Version { encoding, .. } if encoding != wasmparser::Encoding::Module => {
                return Err(invalid(name, "a component, not a core module"));
            }
            Payload::TypeSection(r) => {
                for group in r {
                    for ty in group.map_err(|e| invalid(name, e))?.into_types() {
                        types.push(match &ty.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(f) => {
                                Some((f.params().to_vec(), f.results().to_vec()))
                            }
                            _ => None,
                        });
                    }
                }
            }
            Payload::ImportSection(r) => {
                for import in r.into_imports() {
                    let import = import.map_err(|e| invalid(name, e))?;
                    let full = format!(
                        "{}.{}",
                        crate::log::escape_text(import.module.as_bytes(), 64),
                        crate::log::escape_text(import.name.as_bytes(), 64)
                    );
                    let unsatisfied = |reason: String| Error::UnsatisfiedImport {
                        module: name.to_string(),
                        import: full.clone(),
                        reason,
                    };
                    let t = match import.ty {
                        TypeRef::Func(t) | TypeRef::FuncExact(t) => t,
                        TypeRef::Memory(_) => {
                            return Err(invalid(name, format!("imports its memory (`{full}`); a module must define and export exactly one memory")))
                        }
                        _ => return Err(unsatisfied("only functions can be imported".into())),
                    };
                    funcs.push(t);
                    let (params, results) = func_type(&types, t)
                        .ok_or_else(|| unsatisfied("not a function type".into()))?;
                    match import.module {
                        abi::KARMEM => {
                            let Some(&(_, n, ret)) =
                                abi::IMPORTS.iter().find(|i| i.0 == import.name)
                            else {
                                return Err(unsatisfied(
                                    "the host provides karmem.call, take, result, error and log"
                                        .into(),
                                ));
                            };
                            let want_p = vec![ValType::I32; n];
                            let want_r = if ret { vec![ValType::I32] } else { vec![] };
                            if params != want_p || results != want_r {
                                return Err(unsatisfied(format!(
                                    "declared as {}, the host provides {}",
                                    sig(&params, &results),
                                    sig(&want_p, &want_r)
                                )));
                            }
                        }
                        abi::WASI => {
                            if !abi::WASI_FUNCTIONS.contains(&import.name) {
                                if params.iter().chain(&results).any(|t| {
                                    !matches!(
                                        t,
                                        ValType::I32 | ValType::I64 | ValType::F32 | ValType::F64
                                    )
                                }) {
                                    return Err(unsatisfied(
                                        "only number types can be stubbed".into(),
                                    ));
                                }
                                // One stub per name: a module may import a
                                // function twice, with the same type.
                                match stubs.iter().find(|s: &&Stub| s.name == import.name) {
                                    Some(s) if s.params == params && s.results == results => {}
                                    Some(_) => {
                                        return Err(unsatisfied(
                                            "imported twice with different types".into(),
                                        ))
                                    }
                                    None => stubs.push(Stub {
                                        name: import.name.to_string(),
                                        params,
                                        results,
                                    }),
                                }
                            }
                        }
                        _ => return Err(unsatisfied(
                            "only imports from `karmem` and `wasi_snapshot_preview1` are provided"
                                .into(),
                        )),
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    funcs.push(t.map_err(|e| invalid(name, e))?);
                }
            }
            Payload::TableSection(r) => {
                for t in r {
                    let t = t.map_err(|e| invalid(name, e))?;
                    let max = slot.map(|s| s.table_elements);
                    if let Some(max) = max.filter(|max| t.ty.initial > *max) {
                        return Err(invalid(
                            name,
                            format!(
                                "a table of {} elements; a slot of this runtime's instance pool holds {max} (RuntimeConfig::instances)",
                                t.ty.initial
                            ),
                        ));
                    }
                }
            }
            Payload::MemorySection(r) => {
                for m in r {
                    let m = m.map_err(|e| invalid(name, e))?;
                    if m.memory64 || m.shared {
                        return Err(invalid(
                            name,
                            "the memory must be a 32-bit, unshared memory",
                        ));
                    }
                    let max = slot.map(|s| s.memory_bytes);
                    if let Some(max) = max.filter(|max| m.initial.saturating_mul(65536) > *max) {
                        return Err(invalid(
                            name,
                            format!(
                                "a memory of {} pages initially; a slot of this runtime's instance pool holds {max} bytes (RuntimeConfig::bounds_checks)",
                                m.initial
                            ),
                        ));
                    }
                    memories += 1;
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e.map_err(|e| invalid(name, e))?;
                    exports.insert(e.name.to_string(), (e.kind, e.index));
                }
            }
            _ => {}
        }
    }
    if memories != 1 {
        return Err(invalid(
            name,
            format!("defines {memories} memories; exactly one is required"),
        ));
    }
    if !matches!(exports.get("memory"), Some((ExternalKind::Memory, 0))) {
        return Err(invalid(name, "the memory is not exported as `memory`"));
    }
    if exports.contains_key("_start") && !exports.contains_key("_initialize") {
        return Err(Error::NotAReactor {
            module: name.to_string(),
        });
    }
    for reserved in [
        karmem_rewrite::RO_START,
        karmem_rewrite::RO_END,
        karmem_rewrite::RO_FAULT,
    ] {
        if exports.contains_key(reserved) {
            return Err(invalid(
                name,
                format!("exports `{reserved}`, a name reserved for the host"),
            ));
        }
    }
    if !exports.contains_key("karmem_abi_version") {
        return Err(Error::AbiMismatch {
            module: name.to_string(),
            found: 0,
            supported: abi::ABI_VERSION,
        });
    }
    for &(export, params, results) in abi::EXPORTS {
        let Some(&(kind, index)) = exports.get(export) else {
            if abi::OPTIONAL_EXPORTS.contains(&export) {
                continue;
            }
            return Err(invalid(name, format!("missing export `{export}`")));
        };
        let ty = (kind == ExternalKind::Func)
            .then(|| {
                funcs
                    .get(index as usize)
                    .and_then(|&t| func_type(&types, t))
            })
            .flatten();
        if ty.as_ref().is_none_or(|(p, r)| p != params || r != results) {
            return Err(invalid(
                name,
                format!(
                    "export `{export}` must be a function {}",
                    sig(params, results)
                ),
            ));
        }
    }
    Ok(stubs)
}

/// Check, validate, rewrite and compile `input` (`.wasm` bytes or WAT
/// text), through the cache when there is one.
///
/// Validation happens inside the rewrite, so no unvalidated module is ever
/// rewritten or compiled. A cache hit skips both: the entry's sidecar names
/// the digest of these very bytes (authenticated, cache.rs), which were
/// validated when the entry was made.
pub(crate) fn compile(engine: &EngineCtx, name: &str, input: &[u8]) -> Result<Compiled> {
    let wasm: Cow<'_, [u8]> = if input.starts_with(b"\0asm") {
        Cow::Borrowed(input)
    } else {
        Cow::Owned(
            wat::parse_bytes(input)
                .map_err(|e| invalid(name, e))?
                .into_owned(),
        )
    };
    let slot = match engine.config.instances {
        Instances::Pooled { .. } => Some(Slot {
            table_elements: POOL_TABLE_ELEMENTS,
            memory_bytes: engine
                .config
                .bounds_checks
                .reservation()
                .map_err(Error::Engine)?,
        }),
        Instances::OnDemand => None,
    };
    let stubs = inspect(name, &wasm, slot)?;
    let rewrite = || -> Result<Vec<u8>> {
        Ok(karmem_rewrite::rewrite(&wasm)
            .map_err(|e| invalid(name, e))?
            .0)
    };
    let (module, outcome) = match &engine.cache {
        Some(cache) => {
            let digest = super::cache::digest(&wasm);
            cache.get_or_compile(&engine.engine, &digest, || {
                engine
                    .engine
                    .precompile_module(&rewrite()?)
                    .map_err(|e| invalid(name, format!("{e:#}")))
            })?
        }
        None => (
            Module::new(&engine.engine, rewrite()?).map_err(|e| invalid(name, format!("{e:#}")))?,
            CacheOutcome::Disabled,
        ),
    };
    let counter = match outcome {
        CacheOutcome::Hit => Some(&engine.hits),
        CacheOutcome::Miss => Some(&engine.misses),
        CacheOutcome::Replaced => Some(&engine.replaced),
        CacheOutcome::Uncached => Some(&engine.uncached),
        CacheOutcome::Disabled => None,
    };
    if let Some(c) = counter {
        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(Compiled {
        module,
        stubs,
        outcome,
    })
}

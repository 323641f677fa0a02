//! Loading a module: the checks of docs/abi.md §1–§2 on the bytes, the
//! rewrite, compilation through the cache, ENOSYS stubs for WASI imports we
//! do not implement, and a probe instance that reports the descriptor.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use wasmparser::{ExternalKind, Parser, Payload, TypeRef, ValType};
use wasmtime::{FuncType, InstancePre, Module};

use crate::app::ModuleOptions;
use crate::descriptor::ModuleDesc;
use crate::error::{Error, Result};
use crate::instance::{ModuleCtx, State};
use crate::log::StderrLog;
use crate::rewrite::{RO_END, RO_FAULT, RO_START};
use crate::runtime::{CacheOutcome, GuestModule, Runtime};

#[derive(Clone)]
pub(crate) struct LoadedModule {
    pub name: String,
    pub desc: ModuleDesc,
    /// The descriptor as the guest wrote it (later instances must match).
    pub desc_bytes: Vec<u8>,
    pub cache_outcome: CacheOutcome,
    pub pre: InstancePre<State>,
}

/// (name, params, results) of the exports the host calls.
const EXPORTS: &[(&str, &[ValType], &[ValType])] = &[
    ("karmem_abi_version", &[], &[ValType::I32]),
    ("karmem_init", &[], &[ValType::I32]),
    ("karmem_describe", &[], &[ValType::I64]),
    (
        "karmem_alloc",
        &[ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    (
        "karmem_bind_memory",
        &[ValType::I32, ValType::I32, ValType::I32],
        &[],
    ),
    (
        "karmem_dispatch",
        &[ValType::I32, ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    ("_initialize", &[], &[]),
];

/// A WASI import we do not implement: stubbed with its declared type.
struct Stub {
    name: String,
    params: Vec<ValType>,
    results: Vec<ValType>,
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

/// Check imports, memory and exports; return the WASI stubs needed.
fn inspect(name: &str, wasm: &[u8]) -> Result<Vec<Stub>> {
    let mut types: Vec<Option<(Vec<ValType>, Vec<ValType>)>> = Vec::new();
    let mut funcs: Vec<u32> = Vec::new();
    let mut stubs = Vec::new();
    let mut memories = 0;
    let mut exports: HashMap<String, (ExternalKind, u32)> = HashMap::new();
    let func_type = |types: &[Option<(Vec<ValType>, Vec<ValType>)>], t: u32| {
        types.get(t as usize).cloned().flatten()
    };
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
                    let full = format!("{}.{}", import.module, import.name);
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
                        "karmem" => {
                            let Some(&(_, n, ret)) =
                                crate::guest::IMPORTS.iter().find(|i| i.0 == import.name)
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
                        crate::wasi::MODULE => {
                            if !crate::wasi::FUNCTIONS.contains(&import.name) {
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
                                stubs.push(Stub {
                                    name: import.name.to_string(),
                                    params,
                                    results,
                                });
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
            Payload::MemorySection(r) => {
                for m in r {
                    let m = m.map_err(|e| invalid(name, e))?;
                    if m.memory64 || m.shared {
                        return Err(invalid(
                            name,
                            "the memory must be a 32-bit, unshared memory",
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
    for reserved in [RO_START, RO_END, RO_FAULT] {
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
            supported: crate::ABI_VERSION,
        });
    }
    for &(export, params, results) in EXPORTS {
        let Some(&(kind, index)) = exports.get(export) else {
            // Only needed when the module uses regions (checked at start-up).
            if export == "_initialize" || export == "karmem_bind_memory" {
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

fn val_type(t: &ValType) -> wasmtime::ValType {
    match t {
        ValType::I64 => wasmtime::ValType::I64,
        ValType::F32 => wasmtime::ValType::F32,
        ValType::F64 => wasmtime::ValType::F64,
        _ => wasmtime::ValType::I32,
    }
}

pub(crate) fn load(rt: &Runtime, name: &str, input: &[u8]) -> Result<GuestModule> {
    let inner = &rt.inner;
    let wasm: Cow<'_, [u8]> = if input.starts_with(b"\0asm") {
        Cow::Borrowed(input)
    } else {
        Cow::Owned(
            wat::parse_bytes(input)
                .map_err(|e| invalid(name, e))?
                .into_owned(),
        )
    };
    let stubs = inspect(name, &wasm)?;
    let rewrite = || -> Result<Vec<u8>> {
        Ok(crate::rewrite::rewrite(&wasm)
            .map_err(|e| invalid(name, e))?
            .0)
    };
    let (module, outcome) = match &inner.cache {
        Some(cache) => {
            let key = cache.key(&wasm);
            cache.get_or_compile(&inner.engine, &key, || {
                inner
                    .engine
                    .precompile_module(&rewrite()?)
                    .map_err(|e| invalid(name, format!("{e:#}")))
            })?
        }
        None => (
            Module::new(&inner.engine, rewrite()?).map_err(|e| invalid(name, format!("{e:#}")))?,
            CacheOutcome::Disabled,
        ),
    };
    let counter = match outcome {
        CacheOutcome::Hit => Some(&inner.hits),
        CacheOutcome::Miss => Some(&inner.misses),
        CacheOutcome::Replaced => Some(&inner.replaced),
        CacheOutcome::Disabled => None,
    };
    if let Some(c) = counter {
        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    let mut linker = inner.linker.clone();
    for s in &stubs {
        let ty = FuncType::new(
            &inner.engine,
            s.params.iter().map(val_type),
            s.results.iter().map(val_type),
        );
        // ENOSYS in the first i32 result, zeros elsewhere.
        let answer: Vec<wasmtime::Val> = s
            .results
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                ValType::I32 if i == 0 => wasmtime::Val::I32(crate::wasi::ENOSYS),
                ValType::I64 => wasmtime::Val::I64(0),
                ValType::F32 => wasmtime::Val::F32(0),
                ValType::F64 => wasmtime::Val::F64(0),
                _ => wasmtime::Val::I32(0),
            })
            .collect();
        linker
            .func_new(
                crate::wasi::MODULE,
                &s.name,
                ty,
                move |_c, _params, results| {
                    results.copy_from_slice(&answer);
                    Ok(())
                },
            )
            .map_err(|e| Error::Engine(format!("{e:#}")))?;
    }
    let pre = linker
        .instantiate_pre(&module)
        .map_err(|e| Error::UnsatisfiedImport {
            module: name.to_string(),
            import: "?".into(),
            reason: format!("{e:#}"),
        })?;

    let mut loaded = LoadedModule {
        name: name.to_string(),
        desc: ModuleDesc::default(),
        desc_bytes: Vec::new(),
        cache_outcome: outcome,
        pre,
    };
    // The probe: generous limits (the application's own apply later).
    let ctx = Arc::new(ModuleCtx {
        module: Arc::new(loaded.clone()),
        options: ModuleOptions {
            timeout: Duration::from_secs(10),
            memory_limit: 4 << 30,
            pool_size: None,
        },
        runtime: inner.clone(),
        app: Weak::new(),
        log: Arc::new(StderrLog),
        windows: Vec::new(),
        ro_len: 0,
        rw_len: 0,
        imports: Vec::new(),
        exports: Vec::new(),
    });
    let (probe, bytes) = crate::instance::create(&ctx, true)?;
    drop(probe);
    loaded.desc = ModuleDesc::decode(&bytes).map_err(|message| Error::BadDescriptor {
        module: name.to_string(),
        message,
    })?;
    loaded.desc_bytes = bytes;
    Ok(GuestModule {
        inner: Arc::new(loaded),
    })
}

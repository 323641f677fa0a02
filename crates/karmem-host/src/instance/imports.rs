//! What a guest imports (docs/abi.md §4, §8): the `karmem` functions, the
//! WASI subset, and `ENOSYS` stubs for the WASI functions the host does not
//! implement. `karmem.call` is handed to the module's [`super::Router`].

use wasmtime::{Caller, FuncType, InstancePre, Linker};

use super::access::{guest_slice, guest_write, WriteError};
use super::classify::{abort, charge, Abort};
use super::State;
use crate::abi::{ENOSYS, KARMEM, MAX_ERROR, WASI};
use crate::engine::loader::Compiled;
use crate::error::{Budget, Error, Result};
use crate::log::{escape_text, LogLevel, LogRecord, LINE_COST, MAX_LINE};

/// `call`'s return when no exporter is bound to the import (docs/abi.md
/// §5.3): the load-time probe has no application behind it.
const E_UNBOUND: i32 = -5;

/// A bad pointer pair in `result`/`error`/`log` fails the call.
fn bad_range(what: &str, ptr: i32, len: i32) -> wasmtime::Error {
    wasmtime::Error::new(Abort::Guest(format!(
        "{what}: {} bytes at {:#x} are outside the memory",
        len as u32, ptr as u32
    )))
}

/// The linker every module of an engine shares: `karmem.*` and the WASI
/// subset (per-module stubs are added by [`prepare`]).
pub(crate) fn linker(engine: &wasmtime::Engine) -> Result<Linker<State>> {
    let mut linker = Linker::new(engine);
    define(&mut linker)
        .and_then(|()| super::wasi::define(&mut linker))
        .map_err(|e| Error::Engine(format!("{e:#}")))?;
    Ok(linker)
}

fn define(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    linker.func_wrap(
        KARMEM,
        "result",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| {
            if guest_slice(&c, ptr as u32, len as u32).is_none() {
                return Err(bad_range("karmem.result", ptr, len));
            }
            c.data_mut().call.result = Some((ptr as u32, len as u32));
            Ok(())
        },
    )?;
    linker.func_wrap(
        KARMEM,
        "error",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| {
            let Some(b) = guest_slice(&c, ptr as u32, len as u32) else {
                return Err(bad_range("karmem.error", ptr, len));
            };
            let kept = b.len().min(MAX_ERROR);
            let msg = escape_text(b, MAX_ERROR);
            charge(Budget::HostBytes, kept as u64)?;
            c.data_mut().call.error = Some(msg);
            Ok(())
        },
    )?;
    linker.func_wrap(
        KARMEM,
        "log",
        |c: Caller<'_, State>, level: i32, ptr: i32, len: i32| {
            let Some(b) = guest_slice(&c, ptr as u32, len as u32) else {
                return Err(bad_range("karmem.log", ptr, len));
            };
            charge(Budget::HostBytes, b.len().min(MAX_LINE) as u64 + LINE_COST)?;
            let message = escape_text(b, MAX_LINE);
            let ctx = &c.data().ctx;
            ctx.log.log(&LogRecord {
                module: &ctx.name,
                level: LogLevel::from_guest(level),
                message: &message,
            });
            Ok(())
        },
    )?;
    linker.func_wrap(
        KARMEM,
        "take",
        |mut c: Caller<'_, State>, index: i32, dst: i32, len: i32| {
            let Some(Some(bytes)) = c
                .data_mut()
                .pending
                .get_mut(index as u32 as usize)
                .map(Option::take)
            else {
                return Ok(-1);
            };
            let n = bytes.len().min(len as u32 as usize);
            let r = charge(Budget::HostBytes, n as u64)
                .map(|()| guest_write(&mut c, dst as u32, &bytes[..n]));
            // Keep it for another attempt (e.g. after a bad range).
            c.data_mut().pending[index as usize] = Some(bytes);
            match r? {
                Ok(()) => Ok(0),
                Err(WriteError::OutOfRange) => Ok(-2),
                Err(WriteError::ReadOnly(a)) => abort(a),
            }
        },
    )?;
    linker.func_wrap(
        KARMEM,
        "call",
        |mut c: Caller<'_, State>, function: i32, args: i32, count: i32, out: i32, out_cap: i32| {
            let Some(router) = c.data().ctx.router.clone() else {
                return Ok(E_UNBOUND);
            };
            router.call(
                &mut c,
                function as u32,
                args as u32,
                count as u32,
                out as u32,
                out_cap as u32,
            )
        },
    )?;
    Ok(())
}

fn val_type(t: &wasmparser::ValType) -> wasmtime::ValType {
    match t {
        wasmparser::ValType::I64 => wasmtime::ValType::I64,
        wasmparser::ValType::F32 => wasmtime::ValType::F32,
        wasmparser::ValType::F64 => wasmtime::ValType::F64,
        _ => wasmtime::ValType::I32,
    }
}

/// Link a compiled module: the shared imports plus an `ENOSYS` stub of the
/// declared type for each WASI function the host does not implement.
pub(crate) fn prepare(
    base: &Linker<State>,
    engine: &wasmtime::Engine,
    name: &str,
    compiled: &Compiled,
) -> Result<InstancePre<State>> {
    let mut linker = base.clone();
    for s in &compiled.stubs {
        let ty = FuncType::new(
            engine,
            s.params.iter().map(val_type),
            s.results.iter().map(val_type),
        );
        // ENOSYS in the first i32 result, zeros elsewhere.
        let answer: Vec<wasmtime::Val> = s
            .results
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                wasmparser::ValType::I32 if i == 0 => wasmtime::Val::I32(ENOSYS),
                wasmparser::ValType::I64 => wasmtime::Val::I64(0),
                wasmparser::ValType::F32 => wasmtime::Val::F32(0),
                wasmparser::ValType::F64 => wasmtime::Val::F64(0),
                _ => wasmtime::Val::I32(0),
            })
            .collect();
        linker
            .func_new(WASI, &s.name, ty, move |_c, _params, results| {
                results.copy_from_slice(&answer);
                Ok(())
            })
            .map_err(|e| Error::Engine(format!("{e:#}")))?;
    }
    linker
        .instantiate_pre(&compiled.module)
        .map_err(|e| Error::UnsatisfiedImport {
            module: name.to_string(),
            import: "?".into(),
            reason: format!("{e:#}"),
        })
}

//! The `karmem` imports (docs/abi.md §4, §5.3): `call`, `take`, `result`,
//! `error`, `log`.

use std::sync::Arc;

use wasmtime::{Caller, Linker};

use crate::app::Arg;
use crate::bind::{AppInner, Exporter};
use crate::descriptor::Pattern;
use crate::dispatch::{invoke_leased, lease_error, ArgSrc};
use crate::error::Status;
use crate::host_export::{call_host, HostCall};
use crate::instance::{guest_base, guest_slice, guest_write, Abort, State, WriteError};
use crate::log::{LogLevel, LogRecord};
use crate::pool::{InstancePool, LeaseError};
use crate::region::RegionSlice;

/// Longest log line and error message kept (longer ones are truncated).
const MAX_LOG: usize = 4096;
const MAX_ERROR: usize = 64 * 1024;

/// Negative returns of `call` (docs/abi.md §5.3).
const E_UNKNOWN: i32 = -1;
const E_ARGS: i32 = -2;
const E_OUT: i32 = -3;
const E_REENTRANT: i32 = -4;
const E_UNBOUND: i32 = -5;
const E_DEPTH: i32 = -6;

/// The import names and types a guest may use (checked at load time).
pub(crate) const IMPORTS: &[(&str, usize, bool)] = &[
    // (name, i32 params, returns i32)
    ("call", 5, true),
    ("take", 3, true),
    ("result", 2, false),
    ("error", 2, false),
    ("log", 3, false),
];

fn trap<T>(a: Abort) -> wasmtime::Result<T> {
    Err(wasmtime::Error::new(a))
}

/// A bad pointer pair in `result`/`error`/`log` fails the call.
fn bad_range(what: &str, ptr: i32, len: i32) -> wasmtime::Error {
    wasmtime::Error::new(Abort::Guest(format!(
        "{what}: {} bytes at {:#x} are outside the memory",
        len as u32, ptr as u32
    )))
}

fn text(bytes: &[u8], max: usize) -> String {
    let mut s = String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned();
    while s.ends_with('\n') || s.ends_with('\r') {
        s.pop();
    }
    s
}

pub(crate) fn define(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    linker.func_wrap(
        "karmem",
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
        "karmem",
        "error",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| {
            let Some(b) = guest_slice(&c, ptr as u32, len as u32) else {
                return Err(bad_range("karmem.error", ptr, len));
            };
            let msg = text(b, MAX_ERROR);
            c.data_mut().call.error = Some(msg);
            Ok(())
        },
    )?;
    linker.func_wrap(
        "karmem",
        "log",
        |c: Caller<'_, State>, level: i32, ptr: i32, len: i32| {
            let Some(b) = guest_slice(&c, ptr as u32, len as u32) else {
                return Err(bad_range("karmem.log", ptr, len));
            };
            let message = text(b, MAX_LOG);
            let ctx = &c.data().ctx;
            ctx.log.log(&LogRecord {
                module: ctx.name(),
                level: LogLevel::from_guest(level),
                message: &message,
            });
            Ok(())
        },
    )?;
    linker.func_wrap(
        "karmem",
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
            let r = guest_write(&mut c, dst as u32, &bytes[..n]);
            // Keep it for another attempt (e.g. after a bad range).
            c.data_mut().pending[index as usize] = Some(bytes);
            match r {
                Ok(()) => Ok(0),
                Err(WriteError::OutOfRange) => Ok(-2),
                Err(WriteError::ReadOnly(a)) => trap(a),
            }
        },
    )?;
    linker.func_wrap(
        "karmem",
        "call",
        |mut c: Caller<'_, State>, function: i32, args: i32, count: i32, out: i32, out_cap: i32| {
            guest_call(
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

/// One callee's entry for the caller: status, result or message.
struct Entry {
    status: u32,
    callee: u32,
    len: u32,
    ptr: u32,
    pending: Option<Vec<u8>>,
}

/// `karmem.call`: route by pattern, call every target, write the `out`
/// entries and keep copied results for `take`.
fn guest_call(
    c: &mut Caller<'_, State>,
    function: u32,
    args: u32,
    count: u32,
    out: u32,
    out_cap: u32,
) -> wasmtime::Result<i32> {
    c.data_mut().pending.clear();
    let ctx = c.data().ctx.clone();
    let Some(app) = ctx.app.upgrade() else {
        return Ok(E_UNBOUND);
    };
    let (i, f) = ((function >> 16) as usize, (function & 0xffff) as usize);
    let Some(route) = ctx.imports.get(i) else {
        return Ok(E_UNKNOWN);
    };
    let Some(params) = route.params.get(f) else {
        return Ok(E_UNKNOWN);
    };
    if route.targets.is_empty() {
        return Ok(E_UNBOUND);
    }
    // The argument array and each argument, checked against the caller.
    if count as usize != params.len() {
        return Ok(E_ARGS);
    }
    let Some(array) = guest_slice(&*c, args, count.saturating_mul(8)).map(<[u8]>::to_vec) else {
        return Ok(E_ARGS);
    };
    if guest_slice(&*c, out, out_cap.saturating_mul(16)).is_none() {
        return Ok(E_OUT);
    }
    let Some((base, _)) = guest_base(&*c) else {
        return Ok(E_ARGS);
    };
    let mut srcs = Vec::with_capacity(params.len());
    for (k, region) in params.iter().enumerate() {
        let word = |o: usize| {
            u32::from_le_bytes(array[k * 8 + o..k * 8 + o + 4].try_into().unwrap_or([0; 4]))
        };
        let (ptr, len) = (word(0), word(4));
        if ptr == 0 && len == 0 {
            srcs.push(ArgSrc::Empty);
            continue;
        }
        if guest_slice(&*c, ptr, len).is_none() {
            return Ok(E_ARGS);
        }
        srcs.push(match region {
            Some(r) => {
                let Some(w) = c.data().window_of(*r) else {
                    return Ok(E_ARGS);
                };
                if ptr < w.start
                    || u64::from(ptr) + u64::from(len) > u64::from(w.start) + u64::from(w.len)
                {
                    return Ok(E_ARGS);
                }
                ArgSrc::Region(RegionSlice {
                    region: *r,
                    offset: ptr - w.start,
                    len,
                })
            }
            // SAFETY: in bounds (checked above) of the caller's memory, which
            // stays mapped while the caller waits in this import.
            None => ArgSrc::Guest(unsafe { base.add(ptr as usize) }, len),
        });
    }

    let mut entries = Vec::with_capacity(route.targets.len());
    for t in &route.targets {
        let callee = match t.exporter {
            Exporter::Module { module, .. } => module as u32,
            // The host's callee number: after the modules.
            Exporter::Host(_) => app.modules.len() as u32,
        };
        let Some(callee_fn) = t.functions[f] else {
            entries.push(Entry {
                status: Status::UnknownFunction as u32,
                callee,
                len: 0,
                ptr: 0,
                pending: None,
            });
            continue;
        };
        let (module, export) = match t.exporter {
            Exporter::Module { module, export } => (module, export),
            Exporter::Host(h) => {
                let result = host_target(c, &app, h, callee_fn, &srcs);
                entries.push(entry(c, &app, callee, result));
                continue;
            }
        };
        let pool = match app.shared_pool(module, route.pattern) {
            Some(p) => p.clone(),
            None => child(c, &app, module),
        };
        let id = ((export as u32) << 16) | u32::from(callee_fn);
        let meta = &app.modules[module].exports[export][callee_fn as usize];
        if let Err(e) = app.check_suspended(module, &meta.site) {
            entries.push(entry(c, &app, callee, Err(e)));
            continue;
        }
        let timeout = pool.ctx.options.timeout;
        let result = match pool.lease(timeout) {
            Ok(lease) => invoke_leased(lease, id, meta, &srcs),
            // Routing failures the ABI reports as return codes.
            Err(LeaseError::Reentrant) => return Ok(E_REENTRANT),
            Err(LeaseError::TooDeep) => return Ok(E_DEPTH),
            Err(e) => Err(lease_error(e, &meta.site, timeout)),
        };
        entries.push(entry(c, &app, callee, result));
    }
    if route.pattern != Pattern::FanOut && entries.len() > 1 {
        entries.truncate(1);
    }
    // The out entries: a host write into the caller, checked.
    let mut bytes = Vec::with_capacity(entries.len().min(out_cap as usize) * 16);
    for e in entries.iter().take(out_cap as usize) {
        for v in [e.status, e.callee, e.len, e.ptr] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    match guest_write(c, out, &bytes) {
        Ok(()) => {}
        Err(WriteError::OutOfRange) => return Ok(E_OUT),
        Err(WriteError::ReadOnly(a)) => return trap(a),
    }
    let n = entries.len() as i32;
    c.data_mut().pending = entries.into_iter().map(|e| e.pending).collect();
    Ok(n)
}

/// Call host export `h`'s function `function` with the caller's arguments.
/// Copied arguments are handed over in place (a borrow of the caller's
/// memory, which cannot change while the caller waits here) unless they lie
/// in a window: another instance may write a region concurrently, so those
/// bytes are copied first.
fn host_target(
    c: &Caller<'_, State>,
    app: &Arc<AppInner>,
    h: usize,
    function: u16,
    srcs: &[ArgSrc<'_>],
) -> crate::Result<crate::Output> {
    let export = &app.host_exports[h];
    let st = c.data();
    // `ArgSrc::Guest` points into the caller's memory; its offset there.
    let base = guest_base(c).map_or(0, |(b, _)| b as usize);
    let offset = |p: *const u8| (p as usize).wrapping_sub(base) as u32;
    let copies: Vec<Option<Vec<u8>>> = srcs
        .iter()
        .map(|src| match *src {
            ArgSrc::Guest(p, len)
                if st.windows.iter().any(|w| {
                    u64::from(offset(p)) < u64::from(w.start) + u64::from(w.len)
                        && u64::from(offset(p)) + u64::from(len) > u64::from(w.start)
                }) =>
            {
                let mut v = vec![0; len as usize];
                // SAFETY: `guest_call` checked `p .. p + len` inside the
                // caller's memory, which stays mapped while it waits here;
                // a raw copy because another thread may be writing.
                unsafe { std::ptr::copy(p, v.as_mut_ptr(), v.len()) };
                Some(v)
            }
            _ => None,
        })
        .collect();
    let mut args = Vec::with_capacity(srcs.len());
    for (src, copy) in srcs.iter().zip(&copies) {
        args.push(match (src, copy) {
            (_, Some(v)) => Arg::Bytes(v),
            (ArgSrc::Region(s), None) => Arg::Region(*s),
            (ArgSrc::Guest(p, len), None) => {
                Arg::Bytes(guest_slice(c, offset(*p), *len).unwrap_or_default())
            }
            (ArgSrc::Empty | ArgSrc::Host(_), None) => Arg::Empty,
        });
    }
    let call = HostCall {
        app,
        caller: st.ctx.name(),
        site: &export.functions[function as usize].site,
        index: function as usize,
        deadline: st.deadline,
    };
    call_host(&call, export, &args)
}

/// The caller's own instance of `module` (direct and fan-out patterns).
fn child(c: &mut Caller<'_, State>, app: &Arc<AppInner>, module: usize) -> Arc<InstancePool> {
    let counters = app.counters.clone();
    c.data_mut()
        .children
        .entry(module)
        .or_insert_with(|| Arc::new(InstancePool::new(app.modules[module].clone(), 1, counters)))
        .clone()
}

fn entry(
    c: &Caller<'_, State>,
    app: &AppInner,
    callee: u32,
    result: crate::Result<crate::Output>,
) -> Entry {
    let ok = |len: u32, ptr: u32, pending| Entry {
        status: 0,
        callee,
        len,
        ptr,
        pending,
    };
    match result {
        Ok(crate::Output::Empty) => ok(0, 0, None),
        Ok(crate::Output::Bytes(b)) => ok(b.len() as u32, 0, Some(b)),
        Ok(crate::Output::Region(s)) => match c.data().window_of(s.region) {
            Some(w) => ok(s.len, w.start + s.offset, None),
            // The caller cannot see the region: hand it a copy instead.
            None => {
                let bytes = crate::Region {
                    inner: app.regions[s.region.0 as usize].clone(),
                }
                .to_vec(s)
                .unwrap_or_default();
                ok(bytes.len() as u32, 0, Some(bytes))
            }
        },
        Err(e) => {
            let status = e.status().unwrap_or(Status::Trap) as u32;
            let msg = e.to_string().into_bytes();
            Entry {
                status,
                callee,
                len: msg.len() as u32,
                ptr: 0,
                pending: Some(msg),
            }
        }
    }
}

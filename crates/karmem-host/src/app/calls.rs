//! `karmem.call` (docs/abi.md §5.3): a guest calling the interfaces it
//! imports, routed by pattern to exporter instances or to the host, with
//! the results kept for `take`.

use std::sync::Arc;

use smallvec::SmallVec;

use wasmtime::Caller;

use super::bind::{AppInner, Exporter};
use super::dispatch::{invoke_leased, lease_error, ArgSrc};
use super::host_export::{call_host, HostCall};
use super::Arg;
use crate::descriptor::Pattern;
use crate::error::{Budget, Error, Status};
use crate::instance::access::{guest_base, guest_slice, guest_write, WriteError};
use crate::instance::classify::{abort, charge};
use crate::instance::pool::{InstancePool, LeaseError};
use crate::instance::{scope, State};
use crate::region::RegionSlice;

/// Negative returns of `call` (docs/abi.md §5.3).
const E_UNKNOWN: i32 = -1;
const E_ARGS: i32 = -2;
const E_OUT: i32 = -3;
const E_REENTRANT: i32 = -4;
pub(crate) const E_UNBOUND: i32 = -5;
const E_DEPTH: i32 = -6;

/// One callee's entry for the caller: status, result or message.
struct Entry {
    status: u32,
    callee: u32,
    len: u32,
    ptr: u32,
    pending: Option<Vec<u8>>,
}

/// `karmem.call` of an instance of module `caller_module`: route by pattern, call
/// every target (each one charged to the top-level call's budget of
/// calls), write the `out` entries and keep copied results for `take`.
#[allow(clippy::too_many_arguments)] // the import's five arguments, and where it runs
pub(crate) fn guest_call(
    c: &mut Caller<'_, State>,
    app: &Arc<AppInner>,
    caller_module: usize,
    function: u32,
    args: u32,
    count: u32,
    out: u32,
    out_cap: u32,
) -> wasmtime::Result<i32> {
    c.data_mut().pending.clear();
    let ctx = app.modules[caller_module].clone();
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
    // Copied: the caller's memory must not change under the checks below
    // (another instance may write a window it lies in).
    let Some(array) =
        guest_slice(&*c, args, count.saturating_mul(8)).map(SmallVec::<[u8; 64]>::from_slice)
    else {
        return Ok(E_ARGS);
    };
    if guest_slice(&*c, out, out_cap.saturating_mul(16)).is_none() {
        return Ok(E_OUT);
    }
    let Some((base, _)) = guest_base(&*c) else {
        return Ok(E_ARGS);
    };
    let mut srcs: SmallVec<[ArgSrc<'_>; 4]> = SmallVec::with_capacity(params.len());
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

    let mut entries: SmallVec<[Entry; 2]> = SmallVec::with_capacity(route.targets.len());
    for t in &route.targets {
        let callee = match t.exporter {
            Exporter::Module { module, .. } => module as u32,
            // The host's callee number: after the modules.
            Exporter::Host(_) => app.modules.len() as u32,
        };
        charge(Budget::Calls, 1)?;
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
                let result = host_target(c, app, h, callee_fn, &srcs);
                entries.push(entry(c, app, callee, result)?);
                continue;
            }
        };
        let pool = match app.shared_pool(module, route.pattern) {
            Some(p) => p.clone(),
            None => child(c, app, module),
        };
        let id = ((export as u32) << 16) | u32::from(callee_fn);
        let meta = &app.modules[module].exports[export][callee_fn as usize];
        if let Err(e) = app.check_suspended(module, &meta.site) {
            entries.push(entry(c, app, callee, Err(e))?);
            continue;
        }
        let timeout = pool.ctx.limits.timeout;
        let clock = &pool.ctx.engine.clock;
        let deadline = scope::deadline(clock, pool.ctx.timeout_ticks);
        if clock.now() >= deadline {
            // The call's time is up: the remaining fan-out members are not
            // entered at all (each would otherwise run up to an epoch tick).
            let site = (*meta.site).clone();
            entries.push(entry(
                c,
                app,
                callee,
                Err(Error::Timeout { site, timeout }),
            )?);
            continue;
        }
        let result = match pool.lease(deadline) {
            Ok(lease) => invoke_leased(lease, deadline, id, meta, &srcs),
            // Routing failures the ABI reports as return codes.
            // A module starting up that calls back into itself is on
            // this call stack as surely as a leased one (docs/abi.md §5.3).
            Err(LeaseError::Reentrant | LeaseError::Starting) => return Ok(E_REENTRANT),
            Err(LeaseError::TooDeep) => return Ok(E_DEPTH),
            Err(e) => Err(lease_error(e, &meta.site, timeout)),
        };
        entries.push(entry(c, app, callee, result)?);
    }
    if route.pattern != Pattern::FanOut && entries.len() > 1 {
        entries.truncate(1);
    }
    // The out entries: a host write into the caller, checked.
    let mut bytes: SmallVec<[u8; 32]> =
        SmallVec::with_capacity(entries.len().min(out_cap as usize) * 16);
    for e in entries.iter().take(out_cap as usize) {
        for v in [e.status, e.callee, e.len, e.ptr] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    match guest_write(c, out, &bytes) {
        Ok(()) => {}
        Err(WriteError::OutOfRange) => return Ok(E_OUT),
        Err(WriteError::ReadOnly(a)) => return abort(a),
    }
    let n = entries.len() as i32;
    // Into the caller's list, which keeps its capacity from call to call.
    let pending = &mut c.data_mut().pending;
    pending.clear();
    pending.extend(entries.into_iter().map(|e| e.pending));
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
        caller: &st.ctx.name,
        site: &export.functions[function as usize].site,
        index: function as usize,
        deadline: st.ctx.engine.clock.instant(st.deadline),
    };
    call_host(&call, export, &args)
}

/// The caller's own instance of `module` (direct and fan-out patterns).
fn child(c: &mut Caller<'_, State>, app: &Arc<AppInner>, module: usize) -> Arc<InstancePool> {
    let counters = app.counters.clone();
    c.data_mut()
        .children
        .entry(module)
        .or_insert_with(|| {
            Arc::new(InstancePool::new(
                app.modules[module].inst.clone(),
                1,
                counters,
            ))
        })
        .clone()
}

/// The entry of one callee. Bytes kept for `take` (a region result the
/// caller cannot see, copied; an error message) are charged to the call.
fn entry(
    c: &Caller<'_, State>,
    app: &AppInner,
    callee: u32,
    result: crate::Result<crate::Output>,
) -> wasmtime::Result<Entry> {
    let ok = |len: u32, ptr: u32, pending| Entry {
        status: 0,
        callee,
        len,
        ptr,
        pending,
    };
    Ok(match result {
        Ok(crate::Output::Empty) => ok(0, 0, None),
        // Charged when it was copied out of the callee (dispatch.rs).
        Ok(crate::Output::Bytes(b)) => ok(b.len() as u32, 0, Some(b)),
        Ok(crate::Output::Region(s)) => match c.data().window_of(s.region) {
            Some(w) => ok(s.len, w.start + s.offset, None),
            // The caller cannot see the region: hand it a copy instead.
            None => {
                charge(Budget::HostBytes, u64::from(s.len))?;
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
            charge(Budget::HostBytes, msg.len() as u64)?;
            Entry {
                status,
                callee,
                len: msg.len() as u32,
                ptr: 0,
                pending: Some(msg),
            }
        }
    })
}

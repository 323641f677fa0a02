//! One call into one exporter instance (docs/abi.md §5.1–5.2), shared by
//! host calls and guest→guest calls.

use std::sync::Arc;

use smallvec::SmallVec;

use super::bind::{export_pattern, AppInner, FnMeta};
use super::{Arg, ExportFn, Output};
use crate::engine::clock::Tick;
use crate::error::{Budget, CallSite, Error, Result, Status};
use crate::instance::access::{guest_copy_in, guest_slice, guest_write, WriteError};
use crate::instance::classify::{classify, Abort};
use crate::instance::pool::{InstancePool, Lease, LeaseError};
use crate::instance::{scope, Live};
use crate::region::RegionSlice;

/// Where an argument's bytes come from.
#[derive(Clone, Copy)]
pub(crate) enum ArgSrc<'a> {
    Empty,
    /// Host memory: copied into the callee.
    Host(&'a [u8]),
    /// A checked range of the calling guest's memory (which cannot move or
    /// be unmapped while the caller waits in the import): copied directly.
    Guest(*const u8, u32),
    /// Bytes of a region: passed as a pointer into the callee's window.
    Region(RegionSlice),
}

/// The error of a lease that could not be had.
pub(crate) fn lease_error(e: LeaseError, site: &CallSite, timeout: std::time::Duration) -> Error {
    let site = site.clone();
    match e {
        LeaseError::Budget(budget, limit) => Error::BudgetExceeded {
            site,
            budget,
            limit,
        },
        LeaseError::Timeout => Error::Timeout { site, timeout },
        LeaseError::Reentrant => Error::Trap {
            site,
            message: "re-entrant call: the instance is already on this call stack".into(),
        },
        LeaseError::Starting => Error::Trap {
            site,
            message: "re-entrant call: the module is starting up on this call stack".into(),
        },
        LeaseError::TooDeep => Error::Trap {
            site,
            message: format!(
                "too many nested calls (at most {}, with {} KiB of native stack each)",
                crate::instance::pool::MAX_DEPTH,
                crate::engine::MAX_WASM_STACK >> 10
            ),
        },
        LeaseError::Create(e) => Error::Instantiate {
            site,
            message: e.to_string(),
        },
    }
}

/// Call export function `id` of an instance leased from `pool`, by the
/// callee's deadline (`scope::deadline`).
pub(crate) fn invoke(
    pool: &InstancePool,
    id: u32,
    meta: &FnMeta,
    args: &[ArgSrc<'_>],
) -> Result<Output> {
    let timeout = pool.ctx.limits.timeout;
    let clock = &pool.ctx.engine.clock;
    let deadline = scope::deadline(clock, pool.ctx.timeout_ticks);
    if clock.now() >= deadline {
        // The top-level call's time is up: do not even start an instance.
        return Err(Error::Timeout {
            site: (*meta.site).clone(),
            timeout,
        });
    }
    match pool.lease(deadline) {
        Ok(lease) => invoke_leased(lease, deadline, id, meta, args),
        Err(e) => Err(lease_error(e, &meta.site, timeout)),
    }
}

/// Call export function `id` on a leased instance, to end by `deadline`;
/// return the instance or discard it.
pub(crate) fn invoke_leased(
    mut lease: Lease<'_>,
    deadline: Tick,
    id: u32,
    meta: &FnMeta,
    args: &[ArgSrc<'_>],
) -> Result<Output> {
    let site = &*meta.site;
    let live = lease.live();
    live.arm(deadline);
    let timeout = live.store.data().ctx.limits.timeout;
    let outcome = run(live, id, meta, args);
    crate::instance::fuel_out(&mut live.store);
    // A call that returns after its deadline (plus the epoch tick that
    // bounds how late an interrupt can come) is late whatever it returns:
    // a nested callee that was interrupted at the shared deadline does not
    // let its caller finish past it.
    if outcome.as_ref().is_ok_and(|r| r.is_ok())
        && live.store.data().ctx.engine.clock.now() > deadline + 1
    {
        lease.finish(true);
        return Err(Error::Timeout {
            site: site.clone(),
            timeout,
        });
    }
    match outcome {
        Ok(Ok(out)) => {
            lease.finish(true);
            Ok(out)
        }
        // The guest answered with an error status: a normal return.
        Ok(Err(e @ Error::Application { .. })) | Ok(Err(e @ Error::BadArgument { .. })) => {
            lease.finish(true);
            Err(e)
        }
        Ok(Err(e)) => {
            lease.finish(false);
            Err(e)
        }
        Err(trap) => {
            let e = classify(&mut lease.live().store, trap, site);
            lease.finish(false);
            Err(e)
        }
    }
}

fn write_error(site: &crate::CallSite, what: &str, e: WriteError) -> Error {
    match e {
        WriteError::OutOfRange => Error::Guest {
            site: site.clone(),
            message: format!("{what}: karmem_alloc returned a block outside the memory"),
        },
        WriteError::ReadOnly(Abort::ReadOnly { region, offset }) => Error::ReadOnlyViolation {
            site: site.clone(),
            region,
            offset,
        },
        WriteError::ReadOnly(other) => Error::Guest {
            site: site.clone(),
            message: other.to_string(),
        },
    }
}

/// Allocate `len` bytes in the callee for the host to fill.
fn alloc(
    live: &mut Live,
    len: u32,
    align: u32,
    what: &str,
    site: &crate::CallSite,
) -> wasmtime::Result<Result<u32>> {
    let ptr = live.alloc(len, align)?;
    if ptr == 0 {
        let st = live.store.data();
        return Ok(Err(if st.limiter.denied {
            Error::MemoryLimit {
                site: site.clone(),
                limit: st.ctx.limits.memory_limit,
            }
        } else {
            Error::Guest {
                site: site.clone(),
                message: format!("karmem_alloc({len}, {align}) for {what} returned 0"),
            }
        }));
    }
    Ok(Ok(ptr))
}

/// The call itself. Outer error: the guest trapped (classified by the
/// caller); inner error: a failure the host detected.
fn run(
    live: &mut Live,
    id: u32,
    meta: &FnMeta,
    args: &[ArgSrc<'_>],
) -> wasmtime::Result<Result<Output>> {
    let site = &*meta.site;
    if args.len() != meta.params.len() {
        return Ok(Err(Error::BadArgument {
            site: site.clone(),
            message: format!(
                "{} arguments for {} parameters",
                args.len(),
                meta.params.len()
            ),
        }));
    }
    // No arguments (a `nop`, a getter): no argument array.
    let array = if args.is_empty() {
        0
    } else {
        match copy_args(live, meta, args)? {
            Ok(array) => array,
            Err(e) => return Ok(Err(e)),
        }
    };
    let code = live.dispatch.call(
        &mut live.store,
        (id as i32, array as i32, args.len() as i32),
    )?;
    let st = live.store.data();
    match Status::from_dispatch(code) {
        Status::Ok => {}
        Status::Trap => {
            return Ok(Err(Error::Trap {
                site: site.clone(),
                message: format!("karmem_dispatch returned the unknown status {code}"),
            }))
        }
        status => {
            return Ok(Err(Error::Application {
                site: site.clone(),
                status,
                message: st.call.error.clone().unwrap_or_default(),
            }))
        }
    }
    let Some((ptr, len)) = st.call.result else {
        return Ok(Ok(Output::Empty));
    };
    if let Some(Some(region)) = meta.result {
        let inside = st.window_of(region).filter(|w| {
            ptr >= w.start
                && u64::from(ptr) + u64::from(len) <= u64::from(w.start) + u64::from(w.len)
        });
        return Ok(match inside {
            Some(w) => Ok(Output::Region(RegionSlice { region, offset: ptr - w.start, len })),
            None => Err(Error::Guest {
                site: site.clone(),
                message: format!("the result ({len} bytes at {ptr:#x}) is bound to a region but lies outside its window"),
            }),
        });
    }
    // The copy out is charged before it is made: a result of gigabytes is
    // refused, not copied.
    if let Err((budget, limit)) = scope::charge(Budget::HostBytes, u64::from(len)) {
        return Ok(Err(Error::BudgetExceeded {
            site: site.clone(),
            budget,
            limit,
        }));
    }
    // Checked when `result` was called; the memory cannot have shrunk.
    Ok(match guest_slice(&live.store, ptr, len) {
        Some(b) => Ok(Output::Bytes(b.to_vec())),
        None => Err(Error::Guest {
            site: site.clone(),
            message: "result out of range".into(),
        }),
    })
}

/// Check every argument, then copy each into memory the callee allocates
/// and write the argument array (docs/abi.md §5.1); its address. Outer
/// error: the guest trapped; inner: a failure the host detected.
fn copy_args(live: &mut Live, meta: &FnMeta, args: &[ArgSrc<'_>]) -> wasmtime::Result<Result<u32>> {
    let site = &*meta.site;
    // Check every argument before allocating anything in the callee.
    let mut plan: SmallVec<[ArgSrc<'_>; 4]> = SmallVec::with_capacity(args.len());
    for (i, (arg, region)) in args.iter().zip(&meta.params).enumerate() {
        let bad = |message: String| {
            Ok(Err(Error::BadArgument {
                site: site.clone(),
                message: format!("argument {i}: {message}"),
            }))
        };
        plan.push(match (*arg, region) {
            (ArgSrc::Empty, _) | (ArgSrc::Host([]), None) | (ArgSrc::Guest(_, 0), None) => {
                ArgSrc::Empty
            }
            (ArgSrc::Region(s), Some(r)) if s.region == *r => {
                let Some(w) = live.store.data().window_of(*r) else {
                    return bad("the module has no window of its region".into());
                };
                if u64::from(s.offset) + u64::from(s.len) > u64::from(w.len) {
                    return bad(format!(
                        "{} bytes at offset {} exceed the region",
                        s.len, s.offset
                    ));
                }
                ArgSrc::Region(s)
            }
            (ArgSrc::Region(_), _) => {
                return bad("a region slice for a parameter not bound to that region".into())
            }
            (_, Some(_)) => {
                return bad("the parameter is bound to a region; pass a region slice".into())
            }
            (a, None) => a,
        });
    }
    // One block for the argument array and every copied argument (abi.md
    // §5.1): the array first, each argument at the next 64-byte boundary.
    // One `karmem_alloc` entry into the guest instead of one per argument
    // plus one for the array (RATIONALE R8.21).
    let array_len = args.len() as u64 * 8;
    let mut total = array_len;
    let mut copied = 0u64;
    let mut offsets: SmallVec<[u64; 4]> = SmallVec::with_capacity(args.len());
    for arg in &plan {
        let len = match arg {
            ArgSrc::Host(b) => b.len() as u64,
            ArgSrc::Guest(_, len) => u64::from(*len),
            ArgSrc::Empty | ArgSrc::Region(_) => 0,
        };
        total = total.next_multiple_of(64);
        offsets.push(total);
        total += len;
        copied += len;
    }
    // The copies are charged before anything is allocated: arguments of
    // gigabytes are refused, not copied.
    if copied > 0 {
        if let Err((budget, limit)) = scope::charge(Budget::HostBytes, copied) {
            return Ok(Err(Error::BudgetExceeded {
                site: site.clone(),
                budget,
                limit,
            }));
        }
    }
    let Ok(total) = u32::try_from(total) else {
        return Ok(Err(Error::BadArgument {
            site: site.clone(),
            message: format!("{total} bytes of arguments exceed a 32-bit memory"),
        }));
    };
    let block = match alloc(live, total, 64, "the arguments", site)? {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let mut entries: SmallVec<[u8; 32]> = SmallVec::with_capacity(args.len() * 8);
    for ((arg, region), offset) in plan.into_iter().zip(&meta.params).zip(offsets) {
        let (src, len) = match arg {
            ArgSrc::Empty => (std::ptr::null(), 0),
            ArgSrc::Region(s) => {
                // Checked above: the window exists.
                let start = region
                    .and_then(|r| live.store.data().window_of(r))
                    .map_or(0, |w| w.start);
                entries.extend_from_slice(&(start + s.offset).to_le_bytes());
                entries.extend_from_slice(&s.len.to_le_bytes());
                continue;
            }
            ArgSrc::Host(b) => (b.as_ptr(), b.len() as u32),
            ArgSrc::Guest(p, len) => (p, len),
        };
        let ptr = if len == 0 {
            0
        } else {
            // Inside the block (`offset + len <= total`, a u32).
            let ptr = block.wrapping_add(offset as u32);
            if let Err(e) = guest_copy_in(&mut live.store, ptr, src, len as usize) {
                return Ok(Err(write_error(site, "an argument", e)));
            }
            ptr
        };
        entries.extend_from_slice(&ptr.to_le_bytes());
        entries.extend_from_slice(&len.to_le_bytes());
    }
    if let Err(e) = guest_write(&mut live.store, block, &entries) {
        return Ok(Err(write_error(site, "the argument array", e)));
    }
    Ok(Ok(block))
}

/// A call from the host (docs/abi.md §9 for which instance serves it).
pub(crate) fn host_invoke(app: &AppInner, f: &ExportFn, args: &[Arg<'_>]) -> Result<Output> {
    let ctx = &app.modules[f.module];
    let (e, fi) = ((f.id >> 16) as usize, (f.id & 0xffff) as usize);
    let meta = &ctx.exports[e][fi];
    app.check_suspended(f.module, &meta.site)?;
    // The top-level call: its deadline and budgets cover every nested call
    // (a host function calling back in joins the one in progress).
    let entry = scope::enter(&ctx.inst.engine.clock, ctx.inst.timeout_ticks, &app.budget);
    let pool: &Arc<InstancePool> = app
        .shared_pool(f.module, export_pattern(ctx, e))
        .unwrap_or(&app.host[f.module]);
    let mut srcs: SmallVec<[ArgSrc<'_>; 4]> = SmallVec::with_capacity(args.len());
    for a in args {
        srcs.push(match *a {
            Arg::Empty => ArgSrc::Empty,
            Arg::Bytes(b) => ArgSrc::Host(b),
            Arg::Region(s) => {
                let region = app.regions.get(s.region.0 as usize);
                if region.is_none_or(|r| u64::from(s.offset) + u64::from(s.len) > r.len as u64) {
                    return Err(Error::BadArgument {
                        site: (*meta.site).clone(),
                        message: format!(
                            "region slice {s:?} is not inside a region of this application"
                        ),
                    });
                }
                ArgSrc::Region(s)
            }
        });
    }
    let result = invoke(pool, f.id, meta, &srcs);
    match entry.exceeded() {
        // Whatever the guests made of a callee's exhausted budget, the
        // top-level call fails with it.
        Some((budget, limit)) if entry.outermost() => Err(Error::BudgetExceeded {
            site: (*meta.site).clone(),
            budget,
            limit,
        }),
        _ => result,
    }
}

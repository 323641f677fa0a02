//! A minimal `wasi_snapshot_preview1` (docs/abi.md §8) for toolchains that
//! need it (Go). No filesystem, no sockets; every write into guest memory
//! goes through the read-only check (`guest_write`), so a WASI call cannot
//! be used to write into a read-only window either. Imports not listed in
//! `crate::abi::WASI_FUNCTIONS` get `ENOSYS` stubs of the declared type
//! (imports.rs).

use std::time::{Duration, Instant, SystemTime};

use wasmtime::{Caller, Linker};

use super::access::{guest_slice, guest_write, WriteError};
use super::classify::{charge, Abort, Pace};
use super::State;
use crate::abi::{ENOSYS, WASI};
use crate::error::Budget;
use crate::log::{escape_text, LogLevel, LogRecord, LINE_COST, MAX_LINE};

const SUCCESS: i32 = 0;
const EBADF: i32 = 8;
const EFAULT: i32 = 21;
const EINVAL: i32 = 28;

/// Write into guest memory: `EFAULT` when out of range, a trap of the call
/// when into a read-only window.
fn put(c: &mut Caller<'_, State>, ptr: i32, bytes: &[u8]) -> wasmtime::Result<i32> {
    match guest_write(c, ptr as u32, bytes) {
        Ok(()) => Ok(SUCCESS),
        Err(WriteError::OutOfRange) => Ok(EFAULT),
        Err(WriteError::ReadOnly(a)) => Err(wasmtime::Error::new(a)),
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Process-wide origin of the monotonic clock.
fn monotonic_ns() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

fn clock_ns(id: i32) -> Option<u64> {
    match id {
        0 => Some(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .ok()?
                .as_nanos() as u64,
        ),
        1..=3 => Some(monotonic_ns()),
        _ => None,
    }
}

/// Forward the complete lines in guest memory `[ptr, ptr+len)` written to
/// stdout (fd 1) / stderr (fd 2) to the log, read in place: an unfinished
/// line is kept (at most [`MAX_LINE`] bytes; a longer one is forwarded in
/// pieces). Each line forwarded is charged [`LINE_COST`] more to the call:
/// a sink pays per line, so a flood of empty lines is bounded too. The scan
/// keeps to the call's deadline (`pace`).
fn emit_lines(
    c: &mut Caller<'_, State>,
    fd: usize,
    ptr: u32,
    len: u32,
    pace: &mut Pace,
) -> wasmtime::Result<()> {
    let level = if fd == 1 {
        LogLevel::Info
    } else {
        LogLevel::Warn
    };
    let ctx = c.data().ctx.clone();
    let Some(memory) = c.data().memory else {
        return Ok(());
    };
    let (data, state) = memory.data_and_store_mut(&mut *c);
    let Some(bytes) = data.get(ptr as usize..ptr as usize + len as usize) else {
        return Ok(());
    };
    let buf = &mut state.lines[fd - 1];
    for piece in bytes.split_inclusive(|&b| b == b'\n') {
        pace.step(1 + piece.len() as u64 / 64)?;
        let mut rest = piece;
        while !rest.is_empty() {
            let take = rest.len().min(MAX_LINE - buf.len());
            buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if buf.ends_with(b"\n") || buf.len() >= MAX_LINE {
                charge(Budget::HostBytes, LINE_COST)?;
                ctx.log.log(&LogRecord {
                    module: &ctx.name,
                    level,
                    message: &escape_text(buf, MAX_LINE),
                });
                buf.clear();
            }
        }
    }
    Ok(())
}

/// Bytes of one WASI `iovec` / `ciovec` entry, charged for each entry read.
const IOVEC: u32 = 8;
/// Bytes of one `subscription` and one `event` of `poll_oneoff`.
const SUBSCRIPTION: u32 = 48;
const EVENT: u32 = 32;

/// The `(ptr, len)` pair of entry `k` of an iovec list at `list`, read in
/// place (the list was bounds-checked whole).
fn iovec(c: &Caller<'_, State>, list: u32, k: u32) -> (u32, u32) {
    let entry = guest_slice(c, list + k * IOVEC, IOVEC).unwrap_or(&[0; 8]);
    (u32_at(entry, 0), u32_at(entry, 4))
}

pub(crate) fn define(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    let m = WASI;
    linker.func_wrap(
        m,
        "fd_write",
        |mut c: Caller<'_, State>, fd: i32, iovs: i32, n: i32, written: i32| {
            if fd != 1 && fd != 2 {
                return Ok(EBADF);
            }
            // The iovec list is read in place, one entry at a time: its
            // length is the guest's choice, so it is never copied. Each
            // entry and the bytes it names are charged to the call before
            // they are looked at, the data is never gathered, and the loop
            // keeps to the deadline.
            let (list, n) = (iovs as u32, n as u32);
            let in_memory = n
                .checked_mul(IOVEC)
                .is_some_and(|bytes| guest_slice(&c, list, bytes).is_some());
            if !in_memory {
                return Ok(EFAULT);
            }
            let mut pace = Pace::new(&c);
            let mut total: u32 = 0;
            for k in 0..n {
                pace.step(1)?;
                let (ptr, len) = iovec(&c, list, k);
                charge(Budget::HostBytes, u64::from(IOVEC) + u64::from(len))?;
                if guest_slice(&c, ptr, len).is_none() {
                    return Ok(EFAULT);
                }
                emit_lines(&mut c, fd as usize, ptr, len, &mut pace)?;
                total = total.saturating_add(len);
            }
            put(&mut c, written, &total.to_le_bytes())
        },
    )?;
    linker.func_wrap(
        m,
        "fd_read",
        |mut c: Caller<'_, State>, fd: i32, _iovs: i32, _n: i32, read: i32| {
            if fd != 0 {
                return Ok(EBADF);
            }
            // stdin is empty: end of file, nothing written but the count.
            put(&mut c, read, &0u32.to_le_bytes())
        },
    )?;
    linker.func_wrap(m, "fd_close", |_c: Caller<'_, State>, fd: i32| {
        Ok(if (0..=2).contains(&fd) {
            SUCCESS
        } else {
            EBADF
        })
    })?;
    linker.func_wrap(
        m,
        "fd_fdstat_get",
        |mut c: Caller<'_, State>, fd: i32, out: i32| {
            if !(0..=2).contains(&fd) {
                return Ok(EBADF);
            }
            // filetype 2 = character device; rights: fd_read (bit 1) for stdin,
            // fd_write (bit 6) for stdout/stderr.
            let mut stat = [0u8; 24];
            stat[0] = 2;
            let rights: u64 = if fd == 0 { 1 << 1 } else { 1 << 6 };
            stat[8..16].copy_from_slice(&rights.to_le_bytes());
            put(&mut c, out, &stat)
        },
    )?;
    // No preopened directories: EBADF ends the guest's preopen scan.
    linker.func_wrap(
        m,
        "fd_prestat_get",
        |_c: Caller<'_, State>, _fd: i32, _out: i32| Ok(EBADF),
    )?;
    linker.func_wrap(
        m,
        "clock_time_get",
        |mut c: Caller<'_, State>, id: i32, _precision: i64, out: i32| match clock_ns(id) {
            Some(ns) => put(&mut c, out, &ns.to_le_bytes()),
            None => Ok(EINVAL),
        },
    )?;
    linker.func_wrap(
        m,
        "clock_res_get",
        |mut c: Caller<'_, State>, id: i32, out: i32| {
            if clock_ns(id).is_none() {
                return Ok(EINVAL);
            }
            put(&mut c, out, &1000u64.to_le_bytes())
        },
    )?;
    linker.func_wrap(
        m,
        "random_get",
        |mut c: Caller<'_, State>, buf: i32, len: i32| {
            let len = len as u32 as usize;
            if len > 1 << 20 {
                return Ok(EINVAL);
            }
            charge(Budget::HostBytes, len as u64)?;
            let mut bytes = vec![0u8; len];
            let mut filled = 0;
            while filled < len {
                // SAFETY: writes into the unfilled tail of `bytes`.
                let n = unsafe {
                    libc::getrandom(bytes[filled..].as_mut_ptr().cast(), len - filled, 0)
                };
                if n <= 0 {
                    return Ok(EFAULT);
                }
                filled += n as usize;
            }
            put(&mut c, buf, &bytes)
        },
    )?;
    for (get, sizes) in [
        ("args_get", "args_sizes_get"),
        ("environ_get", "environ_sizes_get"),
    ] {
        linker.func_wrap(m, get, |_c: Caller<'_, State>, _a: i32, _b: i32| {
            Ok(SUCCESS)
        })?;
        linker.func_wrap(
            m,
            sizes,
            |mut c: Caller<'_, State>, count: i32, size: i32| {
                let r = put(&mut c, count, &0u32.to_le_bytes())?;
                if r != SUCCESS {
                    return Ok(r);
                }
                put(&mut c, size, &0u32.to_le_bytes())
            },
        )?;
    }
    linker.func_wrap(
        m,
        "proc_exit",
        |_c: Caller<'_, State>, code: i32| -> wasmtime::Result<()> {
            Err(wasmtime::Error::new(Abort::Exit(code)))
        },
    )?;
    linker.func_wrap(m, "sched_yield", |_c: Caller<'_, State>| Ok(SUCCESS))?;
    linker.func_wrap(m, "poll_oneoff", poll_oneoff)?;
    Ok(())
}

/// Clock subscriptions sleep (never past the call's deadline); others are
/// answered at once with `ENOSYS`, each in its own event. The
/// subscriptions are read in place and the events written out are charged
/// to the call before anything is built (docs/security.md §2.8); both
/// passes over the guest's list keep to the deadline.
fn poll_oneoff(
    mut c: Caller<'_, State>,
    subs: i32,
    events: i32,
    n: i32,
    nevents: i32,
) -> wasmtime::Result<i32> {
    let (list, n) = (subs as u32, n as u32);
    if n == 0 {
        return Ok(EINVAL);
    }
    let in_memory = n
        .checked_mul(SUBSCRIPTION)
        .is_some_and(|bytes| guest_slice(&c, list, bytes).is_some());
    if !in_memory {
        return Ok(EFAULT);
    }
    charge(
        Budget::HostBytes,
        u64::from(n) * u64::from(SUBSCRIPTION + EVENT),
    )?;
    let mut pace = Pace::new(&c);
    // Subscription `k`: (userdata, tag, wait if a clock).
    let read = |c: &Caller<'_, State>, k: u32| {
        let s = guest_slice(c, list + k * SUBSCRIPTION, SUBSCRIPTION).unwrap_or(&[0; 48]);
        let (userdata, tag) = (u64_at(s, 0), s[8]);
        let wait = (tag == 0).then(|| {
            let (id, timeout, flags) = (
                u32_at(s, 16),
                u64_at(s, 24),
                u16::from_le_bytes([s[40], s[41]]),
            );
            Duration::from_nanos(if flags & 1 != 0 {
                timeout.saturating_sub(clock_ns(id as i32).unwrap_or(0))
            } else {
                timeout
            })
        });
        (userdata, tag, wait)
    };
    // The shortest clock wait, or none at all if anything else is asked
    // for (it is answered at once).
    let mut sleep: Option<Duration> = None;
    let mut other = false;
    for k in 0..n {
        pace.step(1)?;
        match read(&c, k).2 {
            Some(w) => sleep = Some(sleep.map_or(w, |s| s.min(w))),
            None => other = true,
        }
    }
    let wait = if other {
        Duration::ZERO
    } else {
        sleep.unwrap_or(Duration::ZERO)
    };
    let left = c.data().ctx.engine.clock.left(c.data().deadline);
    if wait > left {
        std::thread::sleep(left);
        return Err(wasmtime::Error::new(Abort::Timeout));
    }
    std::thread::sleep(wait);
    let mut out = Vec::new();
    let mut count = 0u32;
    for k in 0..n {
        pace.step(1)?;
        let (userdata, tag, w) = read(&c, k);
        let error = match w {
            Some(w) if w > wait => continue,
            Some(_) => 0u16,
            None => ENOSYS as u16,
        };
        let mut e = [0u8; EVENT as usize];
        e[0..8].copy_from_slice(&userdata.to_le_bytes());
        e[8..10].copy_from_slice(&error.to_le_bytes());
        e[10] = tag;
        out.extend_from_slice(&e);
        count += 1;
    }
    let r = put(&mut c, events, &out)?;
    if r != SUCCESS {
        return Ok(r);
    }
    put(&mut c, nevents, &count.to_le_bytes())
}

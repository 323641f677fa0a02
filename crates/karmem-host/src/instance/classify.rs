//! Turning the error of a failed guest call into a precise [`Error`]:
//! read-only violation, timeout, memory limit, budget, trap.

use wasmtime::{Store, Val};

use super::State;
use crate::error::{Budget, CallSite, Error};

/// A failure the host detects inside an import; carried through wasmtime
/// as the error of the call and turned into an [`Error`] by [`classify`].
#[derive(Debug)]
pub(crate) enum Abort {
    ReadOnly { region: String, offset: u32 },
    Guest(String),
    Exit(i32),
    Timeout,
    Budget(Budget, u64),
}

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Abort::ReadOnly { region, offset } => {
                write!(
                    f,
                    "write into read-only region `{region}` (at offset {offset})"
                )
            }
            Abort::Guest(m) => f.write_str(m),
            Abort::Exit(c) => write!(f, "proc_exit({c})"),
            Abort::Timeout => f.write_str("deadline passed while waiting in the host"),
            Abort::Budget(b, limit) => {
                write!(f, "budget exceeded: {} (limit {limit})", b.describe())
            }
        }
    }
}

impl std::error::Error for Abort {}

/// Trap the calling guest: the error of a host import.
pub(crate) fn abort<T>(a: Abort) -> wasmtime::Result<T> {
    Err(wasmtime::Error::new(a))
}

/// Charge the current top-level call (`super::scope::charge`) from inside
/// a host import: an exhausted budget traps the guest.
pub(crate) fn charge(kind: Budget, n: u64) -> wasmtime::Result<()> {
    super::scope::charge(kind, n).or_else(|(b, limit)| abort(Abort::Budget(b, limit)))
}

/// Keeps a host loop over a guest-chosen count (WASI iovecs and
/// subscriptions, bytes of output) to the deadline of the call it serves
/// (docs/security.md §2.8): every [`Pace::CHECK_EVERY`] units of work it
/// reads the tick clock, and once the deadline has passed it traps the guest
/// with a timeout. A unit is one entry or 64 bytes looked at, a few
/// nanoseconds, so a call ends well within an epoch tick of its deadline
/// whatever host function it is in, and the clock is read rarely enough
/// not to show.
pub(crate) struct Pace {
    clock: crate::engine::clock::Clock,
    deadline: crate::engine::clock::Tick,
    work: u64,
}

impl Pace {
    pub const CHECK_EVERY: u64 = 4096;

    /// Pace the loops of a host import serving the call of `c`'s instance.
    pub fn new(c: &wasmtime::Caller<'_, State>) -> Pace {
        Pace {
            clock: c.data().ctx.engine.clock.clone(),
            deadline: c.data().deadline,
            work: 0,
        }
    }

    /// Account for `units` of work; a timeout once the deadline has passed.
    pub fn step(&mut self, units: u64) -> wasmtime::Result<()> {
        self.work = self.work.saturating_add(units);
        if self.work >= Self::CHECK_EVERY {
            self.work = 0;
            if self.clock.now() >= self.deadline {
                return abort(Abort::Timeout);
            }
        }
        Ok(())
    }
}

/// Turn the error of a failed guest call into a precise [`Error`].
pub(crate) fn classify(store: &mut Store<State>, e: wasmtime::Error, site: &CallSite) -> Error {
    let site = site.clone();
    if let Some(a) = e.downcast_ref::<Abort>() {
        return match a {
            Abort::ReadOnly { region, offset } => Error::ReadOnlyViolation {
                site,
                region: region.clone(),
                offset: *offset,
            },
            Abort::Guest(m) => Error::Guest {
                site,
                message: m.clone(),
            },
            Abort::Exit(_) => Error::Trap {
                site,
                message: a.to_string(),
            },
            Abort::Timeout => Error::Timeout {
                site,
                timeout: store.data().ctx.limits.timeout,
            },
            Abort::Budget(budget, limit) => Error::BudgetExceeded {
                site,
                budget: *budget,
                limit: *limit,
            },
        };
    }
    // The bulk-memory guard (karmem-rewrite) records where it refused to
    // write: 1 + the offset within the read-only range.
    if let Some(fault) = store.data().fault {
        if let Val::I64(v) = fault.get(&mut *store) {
            if v != 0 {
                let addr = store.data().ro.0 + (v as u64 - 1);
                if let Some(w) = store.data().window_at(addr) {
                    let offset = (addr - u64::from(w.start)) as u32;
                    return Error::ReadOnlyViolation {
                        site,
                        region: w.name.clone(),
                        offset,
                    };
                }
            }
        }
    }
    let trap = e.downcast_ref::<wasmtime::Trap>().copied();
    if trap == Some(wasmtime::Trap::MemoryOutOfBounds) {
        // A store into a PROT_READ window faults inside the memory; wasmtime
        // reports the wasm address in the error's context.
        if let Some(addr) = fault_address(&e) {
            if let Some(w) = store.data().window_at(addr).filter(|w| !w.writable) {
                let offset = (addr - u64::from(w.start)) as u32;
                return Error::ReadOnlyViolation {
                    site,
                    region: w.name.clone(),
                    offset,
                };
            }
        }
    }
    if trap == Some(wasmtime::Trap::OutOfFuel) {
        let (budget, limit) = super::scope::fuel_exhausted();
        return Error::BudgetExceeded {
            site,
            budget,
            limit,
        };
    }
    if trap == Some(wasmtime::Trap::Interrupt) {
        return Error::Timeout {
            site,
            timeout: store.data().ctx.limits.timeout,
        };
    }
    if store.data().limiter.denied {
        return Error::MemoryLimit {
            site,
            limit: store.data().ctx.limits.memory_limit,
        };
    }
    Error::Trap {
        site,
        message: trap_message(&e),
    }
}

/// The first line of each error in the chain, without wasm backtraces,
/// escaped (a guest's names can appear in it).
fn trap_message(e: &wasmtime::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string();
        let line = s.lines().next().unwrap_or("").to_string();
        if !line.is_empty() && !line.starts_with("error while executing at wasm backtrace") {
            parts.push(line);
        }
    }
    crate::log::escape_text(parts.join(": ").as_bytes(), crate::log::MAX_LINE)
}

/// wasmtime adds "memory fault at wasm address 0x… in linear memory of
/// size 0x…" as context of a fault; its type is not public, so read the
/// text (tests pin this against the wasmtime version in use).
fn fault_address(e: &wasmtime::Error) -> Option<u64> {
    const MARK: &str = "memory fault at wasm address 0x";
    e.chain().find_map(|c| {
        let s = c.to_string();
        let at = s.find(MARK)? + MARK.len();
        let hex: String = s[at..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        u64::from_str_radix(&hex, 16).ok()
    })
}

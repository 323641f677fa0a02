//! The top-level call every nested call belongs to (docs/security.md
//! §2.4, §2.5): one deadline and one set of budgets, shared by everything a
//! call from the host causes — guest→guest calls, fan-out members, host
//! functions that call back in, instances created on the way.
//!
//! All of a top-level call's nested work runs on the thread that made it
//! (calls between stores are synchronous), so the current scope is a
//! thread-local: the outermost [`enter`] on a thread opens one, nested
//! entries join it, and it closes when that outermost entry ends.

use std::cell::{Cell, RefCell};

use crate::engine::clock::{Clock, Tick};
use crate::error::Budget;

/// Limits on what one top-level call may cause, whatever the guests do
/// (docs/security.md §2.5). Exhausting one fails the call that hit it with
/// [`crate::Error::BudgetExceeded`], and the top-level call with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallBudget {
    /// Instances created (start-up sequence run). Default 64.
    pub instances: u32,
    /// Guest→guest and guest→host calls; each fan-out member counts.
    /// Default 4 096.
    pub calls: u32,
    /// Bytes the host copies or buffers for guests: copied arguments and
    /// results, replies and messages kept for `take`, log and WASI output
    /// it reads. Default 256 MiB.
    pub host_bytes: u64,
    /// Fuel every guest the call runs shares (wasmtime counts roughly one
    /// unit per WebAssembly instruction), start-up of instances created on
    /// the way included: a deterministic budget of CPU work besides the
    /// wall-clock deadline. Needs [`crate::RuntimeConfig::fuel`]; `None`
    /// (the default) counts nothing.
    pub fuel: Option<u64>,
}

impl Default for CallBudget {
    fn default() -> Self {
        CallBudget {
            instances: 64,
            calls: 4096,
            host_bytes: 256 << 20,
            fuel: None,
        }
    }
}

/// The shared state of one top-level call. One per thread, reused by every
/// top-level call on it: entering a call allocates nothing.
struct Scope {
    /// Open entries on this thread (0: no call in progress).
    depth: Cell<u32>,
    /// The engine's clock (set by the outermost entry).
    clock: RefCell<Option<Clock>>,
    deadline: Cell<Tick>,
    budget: Cell<CallBudget>,
    instances: Cell<u64>,
    calls: Cell<u64>,
    host_bytes: Cell<u64>,
    /// Fuel left for the guests of the call.
    fuel: Cell<u64>,
    /// The first budget exhausted, and its limit; once set, every charge
    /// fails, so the whole call winds down.
    exceeded: Cell<Option<(Budget, u64)>>,
}

thread_local! {
    static CURRENT: Scope = const {
        Scope {
            depth: Cell::new(0),
            clock: RefCell::new(None),
            deadline: Cell::new(0),
            budget: Cell::new(CallBudget {
                instances: 0,
                calls: 0,
                host_bytes: 0,
                fuel: None,
            }),
            instances: Cell::new(0),
            calls: Cell::new(0),
            host_bytes: Cell::new(0),
            fuel: Cell::new(0),
            exceeded: Cell::new(None),
        }
    };
}

/// An entry into the runtime on this thread: the outermost one opens the
/// scope and closes it when dropped. Not `Send`: it belongs to its thread.
pub(crate) struct Entry {
    outermost: bool,
    _thread_bound: std::marker::PhantomData<*const ()>,
}

/// Enter a call whose callee has a timeout of `timeout_ticks`, charged to `budget` if this is
/// the outermost entry on the thread (a call from the host); a nested entry
/// (a host function calling back in) joins the scope already open.
pub(crate) fn enter(clock: &Clock, timeout_ticks: u64, budget: &CallBudget) -> Entry {
    let outermost = CURRENT.with(|s| {
        let depth = s.depth.get();
        s.depth.set(depth + 1);
        if depth > 0 {
            return false;
        }
        let mut c = s.clock.borrow_mut();
        // The same engine as the last call on this thread, mostly: keep
        // its clock rather than clone it again.
        if !c.as_ref().is_some_and(|c| c.same(clock)) {
            *c = Some(clock.clone());
        }
        s.deadline.set(clock.after(timeout_ticks));
        s.budget.set(*budget);
        s.instances.set(0);
        s.calls.set(0);
        s.host_bytes.set(0);
        s.fuel.set(budget.fuel.unwrap_or(u64::MAX));
        s.exceeded.set(None);
        true
    });
    Entry {
        outermost,
        _thread_bound: std::marker::PhantomData,
    }
}

impl Entry {
    /// Whether this entry opened the scope (a top-level call).
    pub fn outermost(&self) -> bool {
        self.outermost
    }

    /// The budget exhausted during the scope, with its limit.
    pub fn exceeded(&self) -> Option<(Budget, u64)> {
        CURRENT.with(|s| s.exceeded.get())
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        CURRENT.with(|s| s.depth.set(s.depth.get().saturating_sub(1)));
    }
}

/// `f` of the open scope, or `None` outside any.
fn with<T>(f: impl FnOnce(&Scope) -> T) -> Option<T> {
    CURRENT.with(|s| (s.depth.get() > 0).then(|| f(s)))
}

/// When a call into a callee with a timeout of `timeout_ticks` must end:
/// the earlier of its own timeout from now and the top-level call's
/// deadline.
pub(crate) fn deadline(clock: &Clock, timeout_ticks: u64) -> Tick {
    let own = clock.after(timeout_ticks);
    with(|s| s.deadline.get().min(own)).unwrap_or(own)
}

/// Charge `n` to budget `kind` of the current scope; the exhausted budget
/// and its limit when it (or an earlier one) is used up. Outside any scope
/// nothing is charged: every entry into guest code opens one (calls,
/// instance warm-up, the load-time probe).
pub(crate) fn charge(kind: Budget, n: u64) -> Result<(), (Budget, u64)> {
    with(|s| {
        if let Some(e) = s.exceeded.get() {
            return Err(e);
        }
        let budget = s.budget.get();
        let (used, limit) = match kind {
            Budget::Instances => (&s.instances, u64::from(budget.instances)),
            Budget::Calls => (&s.calls, u64::from(budget.calls)),
            Budget::HostBytes => (&s.host_bytes, budget.host_bytes),
            // Not a per-call budget: the pool counts it; recorded here so
            // the top-level call fails with it too. Fuel is counted by
            // wasmtime: its exhaustion is recorded the same way.
            Budget::ModuleInstances | Budget::Fuel => {
                s.exceeded.set(Some((kind, n)));
                return Err((kind, n));
            }
        };
        let total = used.get().saturating_add(n);
        used.set(total);
        if total > limit {
            s.exceeded.set(Some((kind, limit)));
            return Err((kind, limit));
        }
        Ok(())
    })
    .unwrap_or(Ok(()))
}

/// Fuel left for the current top-level call (`u64::MAX`: unlimited, or
/// outside any scope). A store is given this much when a guest is entered
/// and hands back what it did not burn ([`set_fuel`]), so every guest of
/// the call draws on the one budget.
pub(crate) fn fuel() -> u64 {
    with(|s| s.fuel.get()).unwrap_or(u64::MAX)
}

/// Record the fuel left after a guest ran.
pub(crate) fn set_fuel(left: u64) {
    with(|s| s.fuel.set(left));
}

/// Record that the call's fuel ran out; the exhausted budget and its limit.
pub(crate) fn fuel_exhausted() -> (Budget, u64) {
    let limit = with(|s| s.budget.get().fuel.unwrap_or(u64::MAX)).unwrap_or(u64::MAX);
    charge(Budget::Fuel, limit)
        .err()
        .unwrap_or((Budget::Fuel, limit))
}

/// Record that a module's instance cap (`limit`) stopped the call.
pub(crate) fn module_instances_exhausted(limit: u64) -> (Budget, u64) {
    charge(Budget::ModuleInstances, limit)
        .err()
        .unwrap_or((Budget::ModuleInstances, limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn nested_entries_share_the_outermost_scope() {
        let budget = CallBudget {
            calls: 3,
            ..CallBudget::default()
        };
        let clock = Clock::new(Duration::from_millis(1));
        let outer = enter(&clock, 1001, &budget);
        assert!(outer.outermost());
        assert_eq!(deadline(&clock, 60_001), 1001);
        {
            let inner = enter(&clock, 60_001, &CallBudget::default());
            assert!(!inner.outermost());
            assert_eq!(charge(Budget::Calls, 2), Ok(()));
        }
        assert_eq!(charge(Budget::Calls, 1), Ok(()));
        assert_eq!(charge(Budget::Calls, 1), Err((Budget::Calls, 3)));
        // Once exhausted, every charge fails with the first exhausted one.
        assert_eq!(charge(Budget::HostBytes, 1), Err((Budget::Calls, 3)));
        assert_eq!(outer.exceeded(), Some((Budget::Calls, 3)));
        drop(outer);
        // A new top-level call starts afresh.
        let again = enter(&clock, 1001, &budget);
        assert!(again.outermost());
        assert_eq!(charge(Budget::Calls, 3), Ok(()));
    }

    #[test]
    fn outside_a_scope_nothing_is_charged() {
        assert_eq!(charge(Budget::HostBytes, u64::MAX), Ok(()));
    }
}

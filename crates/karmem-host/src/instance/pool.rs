//! Sets of interchangeable instances of one module: a singleton (size 1,
//! shared by everyone), a `pool(N)`, or one importer's own instance (size 1).
//!
//! A caller *leases* an idle instance (creating it if the set is not full),
//! runs its call without holding any lock, and returns it, or discards it
//! after a failure (the next lease creates a fresh one). Busy sets make
//! callers wait until their deadline. A thread-local stack of leased sets
//! detects re-entrant calls (an instance calling, through others, into
//! itself) and bounds the depth of nested calls, instead of deadlocking.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use super::startup::create;
use super::{scope, InstanceCtx, Live};
use crate::engine::MAX_WASM_STACK;
use crate::error::{Budget, Error};

/// Nested guest→guest calls allowed on one thread (each level is a host
/// frame plus a wasm stack).
pub(crate) const MAX_DEPTH: usize = 32;

/// Native stack kept for host frames around a guest call (wasmtime's
/// trampolines, our imports, the signal handler).
const HOST_MARGIN: usize = 256 << 10;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// Lowest address of this thread's stack (0: unknown).
    static STACK_LOW: usize = stack_low();
}

fn stack_low() -> usize {
    // SAFETY: plain pthread queries on the current thread into zeroed
    // out-parameters; the attribute object is destroyed after use.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if ok {
            addr as usize
        } else {
            0
        }
    }
}

/// Bytes of native stack left below the current frame (`usize::MAX` when
/// the platform does not tell).
pub(crate) fn stack_left() -> usize {
    let here = 0u8;
    let sp = std::ptr::addr_of!(here) as usize;
    match STACK_LOW.with(|l| *l) {
        0 => usize::MAX,
        low => sp.saturating_sub(low),
    }
}

thread_local! {
    /// Ids of the sets this thread holds a lease on, innermost last.
    static HELD: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Why no instance could be leased.
pub(crate) enum LeaseError {
    /// Every instance of the set is held further up this thread's stack.
    Reentrant,
    /// Too many nested calls on this thread, or too little native stack
    /// left for another guest.
    TooDeep,
    /// All instances stayed busy until the deadline.
    Timeout,
    /// A fresh instance failed its start-up sequence.
    Create(Error),
    /// Creating an instance would exceed a budget: the top-level call's
    /// instance budget or the module's instance cap (with its limit).
    Budget(Budget, u64),
}

struct Slots {
    /// Boxed: a lease moves its instance in and out of this list, and a
    /// `Live` is 136 bytes.
    #[allow(clippy::vec_box)]
    idle: Vec<Box<Live>>,
    /// Instances that exist (idle or leased).
    live: usize,
    /// Callers waiting for an instance: `notify` only then (std's condvar
    /// makes a futex syscall on every notify, which would dominate a call).
    waiting: usize,
}

pub(crate) struct InstancePool {
    id: u64,
    pub ctx: Arc<InstanceCtx>,
    size: usize,
    slots: Mutex<Slots>,
    freed: Condvar,
    /// Instances created / discarded (shared with the application).
    counters: Arc<Counters>,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub created: AtomicU64,
    pub discarded: AtomicU64,
}

/// An instance on loan; give it back with [`Lease::finish`].
pub(crate) struct Lease<'a> {
    pool: &'a InstancePool,
    live: Option<Box<Live>>,
}

impl InstancePool {
    pub fn new(ctx: Arc<InstanceCtx>, size: usize, counters: Arc<Counters>) -> InstancePool {
        InstancePool {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            ctx,
            size: size.max(1),
            slots: Mutex::new(Slots {
                idle: Vec::new(),
                live: 0,
                waiting: 0,
            }),
            freed: Condvar::new(),
            counters,
        }
    }

    fn held_here(&self) -> (usize, usize) {
        HELD.with(|h| {
            let h = h.borrow();
            (h.iter().filter(|&&id| id == self.id).count(), h.len())
        })
    }

    /// Create an instance now (at build time) so start-up errors surface
    /// early; it joins the idle set. Runs in a scope of its own (the
    /// module's timeout, `budget`).
    pub fn warm_up(&self, budget: &scope::CallBudget) -> Result<(), Error> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if slots.live > 0 {
            return Ok(());
        }
        let timeout = self.ctx.limits.timeout;
        let _scope = scope::enter(timeout, budget);
        let slot = self.ctx.reserve().ok_or_else(|| Error::Startup {
            module: self.ctx.name.clone(),
            step: "instantiate".into(),
            message: format!(
                "the module may have at most {} instances",
                self.ctx.limits.max_instances
            ),
        })?;
        let live = create(&self.ctx, slot, scope::deadline(timeout))?;
        self.counters.created.fetch_add(1, Ordering::Relaxed);
        slots.live += 1;
        slots.idle.push(Box::new(live));
        Ok(())
    }

    /// Lease an idle instance, creating one if fewer than `size` exist,
    /// else wait for one until `deadline` (which also bounds the start-up
    /// of a new one). A new instance is charged to the top-level call's
    /// instance budget and needs a place under the module's instance cap.
    pub fn lease(&self, deadline: Instant) -> Result<Lease<'_>, LeaseError> {
        let (mine, depth) = self.held_here();
        if depth >= MAX_DEPTH || stack_left() < MAX_WASM_STACK + HOST_MARGIN {
            return Err(LeaseError::TooDeep);
        }
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(live) = slots.idle.pop() {
                return Ok(self.enter(live));
            }
            if slots.live < self.size {
                let Some(slot) = self.ctx.reserve() else {
                    let (b, limit) =
                        scope::module_instances_exhausted(u64::from(self.ctx.limits.max_instances));
                    return Err(LeaseError::Budget(b, limit));
                };
                if let Err((b, limit)) = scope::charge(Budget::Instances, 1) {
                    return Err(LeaseError::Budget(b, limit));
                }
                slots.live += 1;
                drop(slots);
                return match create(&self.ctx, slot, deadline) {
                    Ok(live) => {
                        self.counters.created.fetch_add(1, Ordering::Relaxed);
                        Ok(self.enter(Box::new(live)))
                    }
                    Err(e) => {
                        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
                        slots.live -= 1;
                        if slots.waiting > 0 {
                            self.freed.notify_one();
                        }
                        Err(LeaseError::Create(e))
                    }
                };
            }
            // All `size` instances are leased; if this thread holds all of
            // them, waiting would deadlock.
            if mine >= self.size {
                return Err(LeaseError::Reentrant);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(LeaseError::Timeout);
            }
            slots.waiting += 1;
            slots = self
                .freed
                .wait_timeout(slots, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            slots.waiting -= 1;
        }
    }

    fn enter(&self, live: Box<Live>) -> Lease<'_> {
        HELD.with(|h| h.borrow_mut().push(self.id));
        Lease {
            pool: self,
            live: Some(live),
        }
    }
}

impl Lease<'_> {
    pub fn live(&mut self) -> &mut Live {
        // Present until `finish` consumes the lease.
        self.live.as_mut().expect("lease already finished")
    }

    /// Return the instance to the set (`keep`) or discard it after a
    /// failure: its state may be inconsistent.
    pub fn finish(mut self, keep: bool) {
        self.release(keep);
    }

    fn release(&mut self, keep: bool) {
        let Some(live) = self.live.take() else { return };
        HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(i) = h.iter().rposition(|&id| id == self.pool.id) {
                h.remove(i);
            }
        });
        let mut slots = self.pool.slots.lock().unwrap_or_else(|p| p.into_inner());
        let wake = slots.waiting > 0;
        if keep {
            slots.idle.push(live);
            drop(slots);
        } else {
            slots.live -= 1;
            self.pool.counters.discarded.fetch_add(1, Ordering::Relaxed);
            drop(slots);
            // Unmaps the memory and its windows.
            drop(live);
        }
        if wake {
            self.pool.freed.notify_one();
        }
    }
}

impl Drop for Lease<'_> {
    /// A lease dropped without `finish` (an early return) discards: the
    /// call did not complete normally.
    fn drop(&mut self) {
        self.release(false);
    }
}

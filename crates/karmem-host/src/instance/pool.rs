//! Sets of interchangeable instances of one module: a singleton (size 1,
//! shared by everyone), a `pool(N)`, or one importer's own instance (size 1).
//!
//! A caller *leases* an idle instance (creating it if the set is not full),
//! runs its call without holding any lock, and returns it, or discards it
//! after a failure (the next lease creates a fresh one). Busy sets make
//! callers wait until their deadline. No lock is held while guest code runs
//! (start-up included): a thread-local stack of the sets this thread holds
//! or is starting an instance of detects re-entrant calls (an instance
//! calling, through others, into itself, or into a module it is starting
//! up) and bounds the depth of nested calls, instead of deadlocking.

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

/// How this thread holds an instance of a set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    /// Leased: a call into it is on this thread's stack.
    Leased,
    /// Being created: its start-up sequence is on this thread's stack.
    Starting,
}

thread_local! {
    /// The sets this thread holds an instance of, innermost last.
    static HELD: RefCell<Vec<(u64, Hold)>> = const { RefCell::new(Vec::new()) };
}

/// Marks an instance of a set as being started by this thread while it
/// lives.
struct StartingGuard(u64);

impl StartingGuard {
    fn new(id: u64) -> StartingGuard {
        HELD.with(|h| h.borrow_mut().push((id, Hold::Starting)));
        StartingGuard(id)
    }
}

impl Drop for StartingGuard {
    fn drop(&mut self) {
        remove_held(self.0, Hold::Starting);
    }
}

fn remove_held(id: u64, hold: Hold) {
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        if let Some(i) = h.iter().rposition(|&e| e == (id, hold)) {
            h.remove(i);
        }
    });
}

/// Why no instance could be leased.
pub(crate) enum LeaseError {
    /// Every instance of the set is held further up this thread's stack.
    Reentrant,
    /// Every instance of the set is held further up this thread's stack
    /// and at least one of them is still starting up (its `_initialize` or
    /// `karmem_init` called back into its own module).
    Starting,
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

    /// Instances of this set this thread holds (leased, starting), and
    /// the depth of its stack of held sets.
    fn held_here(&self) -> (usize, usize, usize) {
        HELD.with(|h| {
            let h = h.borrow();
            let count = |hold| h.iter().filter(|&&e| e == (self.id, hold)).count();
            (count(Hold::Leased), count(Hold::Starting), h.len())
        })
    }

    /// Create an instance now (at build time) so start-up errors surface
    /// early; it joins the idle set. Runs in a scope of its own (the
    /// module's timeout, `budget`). Like every lease, it holds no lock
    /// while the start-up sequence runs: a `karmem_init` that calls back
    /// into its own module fails that call instead of waiting for itself.
    pub fn warm_up(&self, budget: &scope::CallBudget) -> Result<(), Error> {
        let timeout = self.ctx.limits.timeout;
        let _scope = scope::enter(timeout, budget);
        let startup = |message: String| Error::Startup {
            module: self.ctx.name.clone(),
            step: "instantiate".into(),
            message,
        };
        match self.lease(scope::deadline(timeout)) {
            Ok(lease) => {
                lease.finish(true);
                Ok(())
            }
            Err(LeaseError::Create(e)) => Err(e),
            Err(LeaseError::Budget(Budget::ModuleInstances, limit)) => Err(startup(format!(
                "the module may have at most {limit} instances"
            ))),
            Err(LeaseError::Budget(b, limit)) => Err(startup(format!(
                "budget exceeded: {} (limit {limit})",
                b.describe()
            ))),
            Err(LeaseError::Timeout) => Err(startup(format!(
                "no instance became free within {} ms",
                timeout.as_millis()
            ))),
            Err(LeaseError::Reentrant | LeaseError::Starting | LeaseError::TooDeep) => Err(
                startup("warm-up from inside a call into the same module".into()),
            ),
        }
    }

    /// Lease an idle instance, creating one if fewer than `size` exist,
    /// else wait for one until `deadline` (which also bounds the start-up
    /// of a new one). A new instance is charged to the top-level call's
    /// instance budget and needs a place under the module's instance cap.
    pub fn lease(&self, deadline: Instant) -> Result<Lease<'_>, LeaseError> {
        let (leased, starting, depth) = self.held_here();
        if depth >= MAX_DEPTH || stack_left() < MAX_WASM_STACK + HOST_MARGIN {
            return Err(LeaseError::TooDeep);
        }
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(live) = slots.idle.pop() {
                return Ok(self.enter(live));
            }
            if slots.live < self.size {
                if Instant::now() >= deadline {
                    // Start-up would run until an epoch tick past it.
                    return Err(LeaseError::Timeout);
                }
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
                // No lock from here on: start-up runs guest code, which may
                // call back into this set (and finds it `Starting`).
                let starting = StartingGuard::new(self.id);
                let created = create(&self.ctx, slot, deadline);
                drop(starting);
                return match created {
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
            // All `size` instances are leased or starting; if this thread
            // holds all of them, waiting would deadlock.
            if leased + starting >= self.size {
                return Err(if starting > 0 {
                    LeaseError::Starting
                } else {
                    LeaseError::Reentrant
                });
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
        HELD.with(|h| h.borrow_mut().push((self.id, Hold::Leased)));
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
        remove_held(self.pool.id, Hold::Leased);
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

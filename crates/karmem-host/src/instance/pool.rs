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

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::startup::create;
use super::{scope, InstanceCtx, Live};
use crate::engine::clock::Tick;
use crate::engine::MAX_WASM_STACK;
use crate::error::{Budget, Error};

/// Nested guest→guest calls allowed on one thread (each level is a host
/// frame plus a wasm stack).
pub(crate) const MAX_DEPTH: usize = 32;

/// Native stack kept for host frames around a guest call (wasmtime's
/// trampolines, our imports, the signal handler).
const HOST_MARGIN: usize = 256 << 10;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Hands each thread its number, once: the hot slot it uses is that
/// number modulo the pool's slot count.
static NEXT_THREAD: AtomicUsize = AtomicUsize::new(0);

/// At most this many hot slots per pool: one per core that calls it is
/// what matters.
const MAX_HOT_SLOTS: usize = 16;

thread_local! {
    /// This thread's number (see `NEXT_THREAD`); `usize::MAX` until first
    /// asked.
    static THREAD_NUMBER: Cell<usize> = const { Cell::new(usize::MAX) };
    /// Lowest address of this thread's stack: `usize::MAX` until first
    /// asked, 0 when the platform does not tell.
    static STACK_LOW: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn thread_number() -> usize {
    THREAD_NUMBER.with(|n| {
        if n.get() == usize::MAX {
            n.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
        }
        n.get()
    })
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
    let low = STACK_LOW.with(|l| {
        if l.get() == usize::MAX {
            l.set(stack_low());
        }
        l.get()
    });
    match low {
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

impl Hold {
    /// A stack entry: the set's id and the hold in its low bit.
    fn entry(self, id: u64) -> u64 {
        id << 1 | u64::from(self == Hold::Starting)
    }
}

/// The sets this thread holds an instance of, innermost last: a fixed
/// stack in one thread-local (no allocation, no `RefCell`), because every
/// call pushes and pops it. A lease is refused at `MAX_DEPTH` entries, so
/// it never overflows.
struct Held {
    len: Cell<usize>,
    entries: [Cell<u64>; MAX_DEPTH],
}

thread_local! {
    static HELD: Held = const {
        Held {
            len: Cell::new(0),
            entries: [const { Cell::new(0) }; MAX_DEPTH],
        }
    };
}

fn push_held(id: u64, hold: Hold) {
    HELD.with(|h| {
        let n = h.len.get();
        // The depth check of `lease` keeps `n` below the capacity.
        if let Some(e) = h.entries.get(n) {
            e.set(hold.entry(id));
            h.len.set(n + 1);
        }
    });
}

fn remove_held(id: u64, hold: Hold) {
    HELD.with(|h| {
        let n = h.len.get();
        let want = hold.entry(id);
        // Almost always the innermost entry.
        if let Some(i) = (0..n).rev().find(|&i| h.entries[i].get() == want) {
            for k in i..n - 1 {
                h.entries[k].set(h.entries[k + 1].get());
            }
            h.len.set(n - 1);
        }
    });
}

/// Marks an instance of a set as being started by this thread while it
/// lives.
struct StartingGuard(u64);

impl StartingGuard {
    fn new(id: u64) -> StartingGuard {
        push_held(id, Hold::Starting);
        StartingGuard(id)
    }
}

impl Drop for StartingGuard {
    fn drop(&mut self) {
        remove_held(self.0, Hold::Starting);
    }
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
    /// Instances that exist (idle, in the hot slot, starting or leased).
    live: usize,
}

pub(crate) struct InstancePool {
    id: u64,
    pub ctx: Arc<InstanceCtx>,
    size: usize,
    /// Idle instances leased and returned without the lock: the
    /// uncontended call (RATIONALE R8.16). One per calling thread, up to
    /// the pool's size and the cores: a thread takes and returns its own
    /// (its number modulo the count), so threads calling one pool do not
    /// pass one slot's cache line between cores on every call. Each is
    /// null when empty and owns the `Box<Live>` it points to otherwise.
    hot: Box<[HotSlot]>,
    slots: Mutex<Slots>,
    freed: Condvar,
    /// Callers waiting for an instance: `notify` only then (std's condvar
    /// makes a futex syscall on every notify, which would dominate a call).
    waiting: AtomicUsize,
    /// Instances created / discarded (shared with the application).
    counters: Arc<Counters>,
}

/// A hot slot on a cache line of its own (128 bytes: two lines, for the
/// adjacent-line prefetcher).
#[repr(align(128))]
struct HotSlot(AtomicPtr<Live>);

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
        let size = size.max(1);
        // Asked once per process: std reads the cgroup files for it, tens
        // of microseconds, which would double the cost of an application.
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let cores =
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        // A power of two, so a thread finds its slot with a mask.
        let wanted = size.min(cores).min(MAX_HOT_SLOTS);
        let hot_slots = 1usize << wanted.ilog2();
        InstancePool {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            ctx,
            size,
            hot: (0..hot_slots)
                .map(|_| HotSlot(AtomicPtr::new(std::ptr::null_mut())))
                .collect(),
            slots: Mutex::new(Slots {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
            waiting: AtomicUsize::new(0),
            counters,
        }
    }

    /// Instances of this set this thread holds (leased, starting), and
    /// the depth of its stack of held sets.
    fn held_here(&self) -> (usize, usize, usize) {
        HELD.with(|h| {
            let n = h.len.get();
            let (leased, starting) = (Hold::Leased.entry(self.id), Hold::Starting.entry(self.id));
            let (mut l, mut st) = (0, 0);
            for e in &h.entries[..n] {
                l += usize::from(e.get() == leased);
                st += usize::from(e.get() == starting);
            }
            (l, st, n)
        })
    }

    /// Create an instance now (at build time) so start-up errors surface
    /// early; it joins the idle set. Runs in a scope of its own (the
    /// module's timeout, `budget`). Like every lease, it holds no lock
    /// while the start-up sequence runs: a `karmem_init` that calls back
    /// into its own module fails that call instead of waiting for itself.
    pub fn warm_up(&self, budget: &scope::CallBudget) -> Result<(), Error> {
        let timeout = self.ctx.limits.timeout;
        let clock = &self.ctx.engine.clock;
        let _scope = scope::enter(clock, self.ctx.timeout_ticks, budget);
        let startup = |message: String| Error::Startup {
            module: self.ctx.name.clone(),
            step: "instantiate".into(),
            message,
        };
        match self.lease(scope::deadline(clock, self.ctx.timeout_ticks)) {
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
    pub fn lease(&self, deadline: Tick) -> Result<Lease<'_>, LeaseError> {
        let (leased, starting, depth) = self.held_here();
        if depth >= MAX_DEPTH || stack_left() < MAX_WASM_STACK + HOST_MARGIN {
            return Err(LeaseError::TooDeep);
        }
        // The uncontended case: this thread's hot instance, without the lock.
        if let Some(live) = self.take_hot(self.own_slot()) {
            return Ok(self.enter(live));
        }
        let clock = &self.ctx.engine.clock;
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(live) = slots.idle.pop().or_else(|| self.take_any_hot()) {
                return Ok(self.enter(live));
            }
            if slots.live < self.size {
                if clock.now() >= deadline {
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
                        if self.waiting.load(Ordering::SeqCst) > 0 {
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
            if clock.now() >= deadline {
                return Err(LeaseError::Timeout);
            }
            // Announce the wait, then look at the hot slots once more: a
            // lease returned to one meanwhile either is seen now or sees
            // this waiter and notifies (both sides use SeqCst).
            self.waiting.fetch_add(1, Ordering::SeqCst);
            if let Some(live) = self.take_any_hot() {
                self.waiting.fetch_sub(1, Ordering::SeqCst);
                return Ok(self.enter(live));
            }
            slots = self
                .freed
                .wait_timeout(slots, clock.left(deadline).max(Duration::from_micros(100)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// This thread's hot slot.
    fn own_slot(&self) -> &HotSlot {
        // The length is a power of two (`new`).
        &self.hot[thread_number() & (self.hot.len() - 1)]
    }

    /// The instance in any hot slot, this thread's first.
    fn take_any_hot(&self) -> Option<Box<Live>> {
        let (n, own) = (self.hot.len(), thread_number());
        (0..n).find_map(|i| self.take_hot(&self.hot[(own + i) & (n - 1)]))
    }

    /// The instance in the hot slot `slot`, if any.
    fn take_hot(&self, slot: &HotSlot) -> Option<Box<Live>> {
        let p = slot.0.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: a non-null pointer in `hot` came from `Box::into_raw` in
        // `release` and is owned by the slot; the swap took it out.
        (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
    }

    fn enter(&self, live: Box<Live>) -> Lease<'_> {
        push_held(self.id, Hold::Leased);
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
        let pool = self.pool;
        if keep {
            // The uncontended case: into this thread's hot slot, without
            // the lock.
            let p = Box::into_raw(live);
            match pool.own_slot().0.compare_exchange(
                std::ptr::null_mut(),
                p,
                Ordering::SeqCst,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    if pool.waiting.load(Ordering::SeqCst) > 0 {
                        // Under the lock: a waiter is then either waiting
                        // (and woken) or has not yet looked at the slot.
                        let _slots = pool.slots.lock().unwrap_or_else(|p| p.into_inner());
                        pool.freed.notify_one();
                    }
                    return;
                }
                Err(_) => {
                    // SAFETY: `p` came from `Box::into_raw` just above and
                    // was not stored anywhere.
                    let live = unsafe { Box::from_raw(p) };
                    let mut slots = pool.slots.lock().unwrap_or_else(|p| p.into_inner());
                    slots.idle.push(live);
                }
            }
        } else {
            let mut slots = pool.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.live -= 1;
            pool.counters.discarded.fetch_add(1, Ordering::Relaxed);
            drop(slots);
            // Unmaps the memory and its windows.
            drop(live);
        }
        if pool.waiting.load(Ordering::SeqCst) > 0 {
            let _slots = pool.slots.lock().unwrap_or_else(|p| p.into_inner());
            pool.freed.notify_one();
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

impl Drop for InstancePool {
    fn drop(&mut self) {
        // The hot slots own their instances.
        while self.take_any_hot().is_some() {}
    }
}

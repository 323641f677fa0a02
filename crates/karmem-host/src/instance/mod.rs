//! The instance layer: one guest instance (its store, the checked access
//! the host has to its memory, its start-up sequence), the host functions
//! it imports, sets of interchangeable instances, and the scope of the
//! top-level call it runs in. It knows nothing of applications: a module's
//! `karmem.call` goes to the [`Router`] its context was given.

pub(crate) mod access;
pub(crate) mod classify;
pub(crate) mod imports;
pub(crate) mod pool;
pub(crate) mod scope;
pub(crate) mod startup;
mod wasi;

use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::{
    AsContextMut, Caller, Global, InstancePre, Memory, ResourceLimiter, Store, TypedFunc,
};

use crate::engine::clock::Tick;
use crate::engine::EngineCtx;
use crate::log::LogSink;
use crate::region::{RegionId, RegionInner};

/// The limits of one module's instances (docs/abi.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Longest a call into an instance may run (less when the top-level
    /// call's deadline comes first).
    pub timeout: Duration,
    /// Cap on what an instance's memory and tables take together, in
    /// bytes: the linear memory (its region windows included) and every
    /// table's entries.
    pub memory_limit: u64,
    /// Live instances of the module at most.
    pub max_instances: u32,
}

/// Where a module's `karmem.call` goes: implemented by the application
/// layer, which knows the bindings.
pub(crate) trait Router: Send + Sync {
    /// `karmem.call(function, args, count, out, out_cap)` of an instance
    /// (docs/abi.md §5.3).
    fn call(
        &self,
        caller: &mut Caller<'_, State>,
        function: u32,
        args: u32,
        count: u32,
        out: u32,
        out_cap: u32,
    ) -> wasmtime::Result<i32>;
}

/// A region window of one module, planned at bind time.
pub(crate) struct WindowPlan {
    /// The `index` argument of `karmem_bind_memory`.
    pub bind_index: u32,
    pub region: Arc<RegionInner>,
    pub writable: bool,
    /// Offset inside the read-only or the read-write block.
    pub offset: usize,
}

/// Everything the instances of one module share.
pub(crate) struct InstanceCtx {
    pub name: String,
    pub pre: InstancePre<State>,
    /// Where the exports of `pre`'s module are that every instance looks up.
    pub exports: startup::ExportIndex,
    pub engine: Arc<EngineCtx>,
    pub limits: Limits,
    /// `limits.timeout` in epoch ticks, computed once (a division the call
    /// path should not make).
    pub timeout_ticks: u64,
    pub log: Arc<dyn LogSink>,
    pub windows: Vec<WindowPlan>,
    pub ro_len: usize,
    pub rw_len: usize,
    /// `None` for the load-time probe: its `karmem.call` is unbound.
    pub router: Option<Arc<dyn Router>>,
    /// The descriptor every instance must report (the one seen at load);
    /// `None` for the probe, which reports it first.
    pub desc_bytes: Option<Arc<[u8]>>,
    /// Live instances of the module (capped by `limits.max_instances`).
    pub live: AtomicU32,
}

/// What the host allocates per table entry: a function reference is one
/// pointer in wasmtime's table storage.
pub(crate) const TABLE_ENTRY_BYTES: u64 = 8;

/// The per-instance ledger (docs/security.md §2.8): the linear memory and
/// every table are charged, together, against the module's memory limit
/// before wasmtime allocates them — at instantiation (wasmtime asks for the
/// initial sizes too) and at every `memory.grow` / `table.grow`. Remembers
/// a refusal so a trap that follows is reported as `MEMORY_LIMIT`.
pub(crate) struct Limiter {
    pub cap: u64,
    /// Bytes of the linear memory.
    pub memory: u64,
    /// Bytes of every table's entries.
    pub tables: u64,
    pub denied: bool,
}

impl Limiter {
    pub fn new(cap: u64) -> Limiter {
        Limiter {
            cap,
            memory: 0,
            tables: 0,
            denied: false,
        }
    }

    /// Whether `memory + tables` may become `total`; a refusal is kept.
    fn admit(&mut self, total: u64) -> bool {
        if total > self.cap {
            self.denied = true;
            return false;
        }
        true
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let desired = desired as u64;
        if !self.admit(self.tables.saturating_add(desired)) {
            return Ok(false);
        }
        self.memory = desired;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let more = (desired.saturating_sub(current) as u64).saturating_mul(TABLE_ENTRY_BYTES);
        let tables = self.tables.saturating_add(more);
        if !self.admit(self.memory.saturating_add(tables)) {
            return Ok(false);
        }
        self.tables = tables;
        Ok(true)
    }
}

/// A mapped window.
pub(crate) struct Window {
    pub region: RegionId,
    pub name: String,
    pub start: u32,
    pub len: u32,
    pub writable: bool,
}

impl Window {
    /// One past the last byte, in 64 bits (a window may end at 4 GiB).
    pub fn end(&self) -> u64 {
        u64::from(self.start) + u64::from(self.len)
    }

    pub fn contains(&self, addr: u64) -> bool {
        addr >= u64::from(self.start) && addr < self.end()
    }
}

/// Per-dispatch state: what `result` and `error` reported.
#[derive(Default)]
pub(crate) struct CallCtx {
    pub result: Option<(u32, u32)>,
    pub error: Option<String>,
}

/// The data of an instance's store.
pub(crate) struct State {
    pub ctx: Arc<InstanceCtx>,
    pub limiter: Limiter,
    pub memory: Option<Memory>,
    pub windows: Vec<Window>,
    /// The contiguous read-only range `[start, end)`; `end` may be 2^32.
    pub ro: (u64, u64),
    /// The blocks (guest address, length) that windows are mapped into,
    /// recorded before the first window is mapped: what `Live`'s drop puts
    /// anonymous memory back over when the memory is a pool's slot.
    pub window_blocks: [(u32, u32); 2],
    pub fault: Option<Global>,
    pub call: CallCtx,
    /// Results and error messages of the last `karmem.call`, for `take`.
    pub pending: Vec<Option<Vec<u8>>>,
    /// This instance's own instances of the modules it imports from
    /// (direct and fan-out), by exporter module index.
    pub children: HashMap<usize, Arc<pool::InstancePool>>,
    /// When the current call into this instance must end.
    pub deadline: Tick,
    /// Unfinished lines written to WASI stdout (0) and stderr (1).
    pub lines: [Vec<u8>; 2],
}

impl State {
    pub fn new(ctx: Arc<InstanceCtx>) -> State {
        let cap = ctx.limits.memory_limit;
        State {
            ctx,
            limiter: Limiter::new(cap),
            memory: None,
            windows: Vec::new(),
            ro: (0, 0),
            window_blocks: [(0, 0); 2],
            fault: None,
            call: CallCtx::default(),
            pending: Vec::new(),
            children: HashMap::new(),
            deadline: 0,
            lines: [Vec::new(), Vec::new()],
        }
    }

    pub fn name(&self) -> &str {
        &self.ctx.name
    }

    /// The window containing guest address `addr`.
    pub fn window_at(&self, addr: u64) -> Option<&Window> {
        self.windows.iter().find(|w| w.contains(addr))
    }

    /// This instance's window of a region.
    pub fn window_of(&self, region: RegionId) -> Option<&Window> {
        self.windows.iter().find(|w| w.region == region)
    }

    /// The read-only window overlapping `[ptr, ptr+len)`, with the offset
    /// in the region of the first overlapping byte
    /// (`karmem_rewrite::read_only_overlap`, the rule the guard follows).
    pub fn read_only_overlap(&self, ptr: u32, len: u32) -> Option<(&Window, u32)> {
        self.windows.iter().filter(|w| !w.writable).find_map(|w| {
            karmem_rewrite::read_only_overlap(u64::from(w.start)..w.end(), ptr, len)
                .map(|offset| (w, offset as u32))
        })
    }
}

/// Hand a store the fuel left to the top-level call before its guest runs
/// (when the engine counts fuel, [`crate::RuntimeConfig::fuel`]).
#[inline]
pub(crate) fn fuel_in(cx: &mut impl AsContextMut<Data = State>) {
    let mut cx = cx.as_context_mut();
    if cx.data().ctx.engine.config.fuel {
        // Fails only when the engine does not count fuel (checked above).
        let _ = cx.set_fuel(scope::fuel());
    }
}

/// Take back what a store's guest did not burn, for the next guest of the
/// call (nested calls draw on the same budget).
#[inline]
pub(crate) fn fuel_out(cx: &mut impl AsContextMut<Data = State>) {
    let cx = cx.as_context_mut();
    if cx.data().ctx.engine.config.fuel {
        if let Ok(left) = cx.get_fuel() {
            scope::set_fuel(left);
        }
    }
}

/// A live instance with the exports the host calls. Counts towards its
/// module's live instances until dropped.
pub(crate) struct Live {
    pub store: Store<State>,
    pub dispatch: TypedFunc<(i32, i32, i32), i32>,
    pub alloc: TypedFunc<(i32, i32), i32>,
}

impl Drop for Live {
    fn drop(&mut self) {
        let st = self.store.data();
        st.ctx
            .live
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        if matches!(
            st.ctx.engine.config.instances,
            crate::engine::config::Instances::Pooled { .. }
        ) {
            self.unmap_windows();
        }
    }
}

impl Live {
    /// Put private zero pages back where the windows were, before the
    /// store (and with it the memory slot) goes back to the pool: wasmtime
    /// resets a slot by zeroing or discarding its pages, which would write
    /// into a read-only window (a fault in the host) or leave the region's
    /// shared pages mapped for the slot's next instance to read (RATIONALE
    /// R8.22). A memory of its own (`Instances::OnDemand`) is unmapped
    /// whole instead. Replacing a mapping by one of the same range does not
    /// add mappings, so this does not fail in practice; if it did, the
    /// process stops here rather than show one tenant's region to another.
    fn unmap_windows(&mut self) {
        let blocks = self.store.data().window_blocks;
        let base = access::guest_base(&self.store).map(|(base, _)| base);
        for &(at, len) in blocks.iter().filter(|(_, len)| *len > 0) {
            let done = base
                .ok_or_else(|| std::io::Error::other("no memory"))
                .and_then(|base| {
                    // SAFETY: `at .. at + len` is a block of this store's slot
                    // that windows were mapped into (map_windows checked it);
                    // no reference into guest memory is alive while the store
                    // is being dropped.
                    unsafe { crate::engine::memory::unmap_window(base, at as usize, len as usize) }
                });
            if let Err(e) = done {
                eprintln!(
                    "karmem-host: module `{}`: putting private memory back over its region windows failed ({e}); stopping rather than reuse the memory slot with a region mapped",
                    self.store.data().ctx.name
                );
                std::process::abort();
            }
        }
    }

    /// Arm `deadline` and reset per-call state before entering the guest.
    pub fn arm(&mut self, deadline: Tick) {
        let now = self.store.data().ctx.engine.clock.now();
        // At least one tick: a guest entered at its deadline still stops.
        self.store
            .set_epoch_deadline(deadline.saturating_sub(now).max(1));
        let st = self.store.data_mut();
        st.deadline = deadline;
        st.limiter.denied = false;
        st.call = CallCtx::default();
        st.pending.clear();
        fuel_in(&mut self.store);
    }

    /// `karmem_alloc(size, align)` with the current deadline.
    pub fn alloc(&mut self, size: u32, align: u32) -> wasmtime::Result<u32> {
        Ok(self
            .alloc
            .call(&mut self.store, (size as i32, align as i32))? as u32)
    }
}

//! One guest instance: its store state, the checked access the host has to
//! its memory, and the start-up sequence (docs/abi.md §2).

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use wasmtime::{AsContext, AsContextMut, Global, Memory, ResourceLimiter, Store, TypedFunc, Val};

use crate::app::ModuleOptions;
use crate::bind::{AppInner, FnMeta, ImportRoute};
use crate::engine::RuntimeInner;
use crate::error::{CallSite, Error};
use crate::loader::LoadedModule;
use crate::log::LogSink;
use crate::pool::InstancePool;
use crate::region::{RegionId, RegionInner};
use crate::rewrite::{RO_END, RO_FAULT, RO_START};

/// A region window of one module, planned at bind time.
pub(crate) struct WindowPlan {
    /// The `index` argument of `karmem_bind_memory`.
    pub bind_index: u32,
    pub region: Arc<RegionInner>,
    pub writable: bool,
    /// Offset inside the read-only or the read-write block.
    pub offset: usize,
}

/// Everything the instances of one module in one application share.
pub(crate) struct ModuleCtx {
    pub module: Arc<LoadedModule>,
    pub options: ModuleOptions,
    pub runtime: Arc<RuntimeInner>,
    pub app: Weak<AppInner>,
    pub log: Arc<dyn LogSink>,
    pub windows: Vec<WindowPlan>,
    pub ro_len: usize,
    pub rw_len: usize,
    /// Per import interface: where calls go.
    pub imports: Vec<ImportRoute>,
    /// Per export interface, per function: call site and region bindings.
    pub exports: Vec<Vec<FnMeta>>,
}

impl ModuleCtx {
    pub fn name(&self) -> &str {
        &self.module.name
    }

    /// Memory cap including the windows (docs/abi.md §7).
    pub fn memory_cap(&self) -> u64 {
        self.options
            .memory_limit
            .saturating_add((self.ro_len + self.rw_len) as u64)
    }
}

/// A failure the host detects inside an import; carried through wasmtime
/// as the error of the call and turned into an [`Error`] by `classify`.
#[derive(Debug)]
pub(crate) enum Abort {
    ReadOnly { region: String, offset: u32 },
    Guest(String),
    Exit(i32),
    Timeout,
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
        }
    }
}

impl std::error::Error for Abort {}

/// Memory cap of a store; remembers a refused growth so a trap that
/// follows can be reported as `MEMORY_LIMIT`.
pub(crate) struct Limiter {
    pub cap: u64,
    pub denied: bool,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired as u64 > self.cap {
            self.denied = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Tables hold function references, 8–16 bytes each: a million is
        // plenty and bounds what a guest can make the host allocate.
        Ok(desired <= 1 << 20)
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

/// Per-dispatch state: what `result` and `error` reported.
#[derive(Default)]
pub(crate) struct CallCtx {
    pub result: Option<(u32, u32)>,
    pub error: Option<String>,
}

/// The data of an instance's store.
pub(crate) struct State {
    pub ctx: Arc<ModuleCtx>,
    pub limiter: Limiter,
    pub memory: Option<Memory>,
    pub windows: Vec<Window>,
    /// The contiguous read-only range `[start, end)`.
    pub ro: (u32, u32),
    pub fault: Option<Global>,
    pub call: CallCtx,
    /// Results and error messages of the last `karmem.call`, for `take`.
    pub pending: Vec<Option<Vec<u8>>>,
    /// This instance's own instances of the modules it imports from
    /// (direct and fan-out), by exporter module index.
    pub children: HashMap<usize, Arc<InstancePool>>,
    /// When the current call into this instance must end.
    pub deadline: Instant,
    /// Unfinished lines written to WASI stdout (0) and stderr (1).
    pub lines: [Vec<u8>; 2],
}

impl State {
    pub fn new(ctx: Arc<ModuleCtx>) -> State {
        let cap = ctx.memory_cap();
        State {
            ctx,
            limiter: Limiter { cap, denied: false },
            memory: None,
            windows: Vec::new(),
            ro: (0, 0),
            fault: None,
            call: CallCtx::default(),
            pending: Vec::new(),
            children: HashMap::new(),
            deadline: Instant::now(),
            lines: [Vec::new(), Vec::new()],
        }
    }

    /// The window containing guest address `addr`.
    pub fn window_at(&self, addr: u64) -> Option<&Window> {
        self.windows
            .iter()
            .find(|w| addr >= u64::from(w.start) && addr < u64::from(w.start) + u64::from(w.len))
    }

    /// This instance's window of a region.
    pub fn window_of(&self, region: RegionId) -> Option<&Window> {
        self.windows.iter().find(|w| w.region == region)
    }

    /// The read-only window overlapping `[ptr, ptr+len)`, with the offset
    /// in the region of the first overlapping byte.
    pub fn read_only_overlap(&self, ptr: u32, len: u32) -> Option<(&Window, u32)> {
        let (start, end) = (u64::from(ptr), u64::from(ptr) + u64::from(len));
        self.windows.iter().filter(|w| !w.writable).find_map(|w| {
            let (ws, we) = (u64::from(w.start), u64::from(w.start) + u64::from(w.len));
            (len > 0 && start < we && end > ws).then(|| (w, (start.max(ws) - ws) as u32))
        })
    }
}

/// Bounds-checked view of guest memory `[ptr, ptr+len)`.
pub(crate) fn guest_slice(cx: &impl AsContext<Data = State>, ptr: u32, len: u32) -> Option<&[u8]> {
    let memory = cx.as_context().data().memory?;
    let data = memory.data(cx);
    let start = ptr as usize;
    data.get(start..start.checked_add(len as usize)?)
}

/// Base pointer and size of the guest memory.
pub(crate) fn guest_base(cx: &impl AsContext<Data = State>) -> Option<(*mut u8, usize)> {
    let memory = cx.as_context().data().memory?;
    Some((memory.data_ptr(cx), memory.data_size(cx)))
}

/// Why a host write into guest memory was refused.
pub(crate) enum WriteError {
    OutOfRange,
    ReadOnly(Abort),
}

/// Check a host write into guest memory: in range, and not into a
/// read-only window (where it would fault in host code, killing the
/// process). Every host write goes through here first.
pub(crate) fn check_write(
    cx: &impl AsContext<Data = State>,
    ptr: u32,
    len: u32,
) -> Result<*mut u8, WriteError> {
    let (base, size) = guest_base(cx).ok_or(WriteError::OutOfRange)?;
    if u64::from(ptr) + u64::from(len) > size as u64 {
        return Err(WriteError::OutOfRange);
    }
    if let Some((w, offset)) = cx.as_context().data().read_only_overlap(ptr, len) {
        return Err(WriteError::ReadOnly(Abort::ReadOnly {
            region: w.name.clone(),
            offset,
        }));
    }
    // SAFETY: in bounds of the live memory.
    Ok(unsafe { base.add(ptr as usize) })
}

/// Copy `bytes` into guest memory at `ptr`, checked by [`check_write`].
pub(crate) fn guest_write(
    cx: &mut impl AsContextMut<Data = State>,
    ptr: u32,
    bytes: &[u8],
) -> Result<(), WriteError> {
    // SAFETY (of the copy): `check_write` proved the range writable and in
    // bounds; raw copies, because windows may be shared with other threads.
    guest_copy_in(cx, ptr, bytes.as_ptr(), bytes.len())
}

/// Like [`guest_write`] from a raw source (another guest's memory).
pub(crate) fn guest_copy_in(
    cx: &mut impl AsContextMut<Data = State>,
    ptr: u32,
    src: *const u8,
    len: usize,
) -> Result<(), WriteError> {
    let len32 = u32::try_from(len).map_err(|_| WriteError::OutOfRange)?;
    let dst = check_write(&cx.as_context_mut(), ptr, len32)?;
    // SAFETY: `dst` is checked; `src..src+len` is readable (caller's
    // contract: host bytes or a checked range of another live memory).
    unsafe { std::ptr::copy(src, dst, len) };
    Ok(())
}

/// A live instance with the exports the host calls.
pub(crate) struct Live {
    pub store: Store<State>,
    pub dispatch: TypedFunc<(i32, i32, i32), i32>,
    pub alloc: TypedFunc<(i32, i32), i32>,
}

impl Live {
    /// Arm the deadline and reset per-call state before entering the guest.
    pub fn arm(&mut self, timeout: Duration) {
        let ticks = self.store.data().ctx.runtime.ticks(timeout);
        self.store.set_epoch_deadline(ticks);
        let st = self.store.data_mut();
        st.deadline = Instant::now() + timeout;
        st.limiter.denied = false;
        st.call = CallCtx::default();
        st.pending.clear();
    }

    /// `karmem_alloc(size, align)` with the current deadline.
    pub fn alloc(&mut self, size: u32, align: u32) -> wasmtime::Result<u32> {
        Ok(self
            .alloc
            .call(&mut self.store, (size as i32, align as i32))? as u32)
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
                timeout: store.data().ctx.options.timeout,
            },
        };
    }
    // The bulk-memory guard (rewrite.rs) records where it refused to write.
    if let Some(fault) = store.data().fault {
        if let Val::I32(v) = fault.get(&mut *store) {
            if v != 0 {
                let addr = u64::from(store.data().ro.0) + u64::from(v as u32 - 1);
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
    if trap == Some(wasmtime::Trap::Interrupt) {
        return Error::Timeout {
            site,
            timeout: store.data().ctx.options.timeout,
        };
    }
    if store.data().limiter.denied {
        return Error::MemoryLimit {
            site,
            limit: store.data().ctx.options.memory_limit,
        };
    }
    Error::Trap {
        site,
        message: trap_message(&e),
    }
}

/// The first line of each error in the chain, without wasm backtraces.
fn trap_message(e: &wasmtime::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string();
        let line = s.lines().next().unwrap_or("").to_string();
        if !line.is_empty() && !line.starts_with("error while executing at wasm backtrace") {
            parts.push(line);
        }
    }
    parts.join(": ")
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

fn startup_err(ctx: &ModuleCtx, step: &str, message: impl std::fmt::Display) -> Error {
    Error::Startup {
        module: ctx.name().to_string(),
        step: step.to_string(),
        message: message.to_string(),
    }
}

/// The message of a trap during start-up, with the cause made precise.
fn startup_trap(store: &mut Store<State>, e: wasmtime::Error, step: &str) -> Error {
    let site = CallSite {
        module: store.data().ctx.name().to_string(),
        interface: String::new(),
        function: step.to_string(),
    };
    let err = classify(store, e, &site);
    let message = match &err {
        Error::Trap { message, .. } => message.clone(),
        other => other.to_string(),
    };
    startup_err(&store.data().ctx, step, message)
}

/// Instantiate and run the start-up sequence. `probe` (the load-time
/// instance) returns the raw descriptor bytes instead of checking them.
pub(crate) fn create(ctx: &Arc<ModuleCtx>, probe: bool) -> Result<(Live, Vec<u8>), Error> {
    let rt = &ctx.runtime;
    let timeout = ctx.options.timeout;
    let mut store = Store::new(&rt.engine, State::new(ctx.clone()));
    store.limiter(|s| &mut s.limiter);
    store.epoch_deadline_trap();
    store.set_epoch_deadline(rt.ticks(timeout));
    store.data_mut().deadline = Instant::now() + timeout;

    let instance = match ctx.module.pre.instantiate(&mut store) {
        Ok(i) => i,
        Err(e) => return Err(startup_trap(&mut store, e, "instantiate")),
    };
    let memory = instance
        .get_memory(&mut store, "memory")
        .ok_or_else(|| startup_err(ctx, "instantiate", "no exported memory `memory`"))?;
    store.data_mut().memory = Some(memory);
    store.data_mut().fault = instance.get_global(&mut store, RO_FAULT);

    // 1. `_initialize` (reactor start).
    if let Ok(init) = instance.get_typed_func::<(), ()>(&mut store, "_initialize") {
        init.call(&mut store, ())
            .map_err(|e| startup_trap(&mut store, e, "_initialize"))?;
    }
    // 2. ABI version, before anything else of ours.
    let version = match instance.get_typed_func::<(), i32>(&mut store, "karmem_abi_version") {
        Ok(f) => {
            f.call(&mut store, ())
                .map_err(|e| startup_trap(&mut store, e, "karmem_abi_version"))? as u32
        }
        Err(_) => 0,
    };
    if version != crate::ABI_VERSION {
        return Err(Error::AbiMismatch {
            module: ctx.name().to_string(),
            found: version,
            supported: crate::ABI_VERSION,
        });
    }
    let func = |store: &mut Store<State>, name: &str| {
        instance
            .get_func(&mut *store, name)
            .ok_or_else(|| startup_err(ctx, name, "export missing"))
    };
    // 3. karmem_init.
    let init = func(&mut store, "karmem_init")?
        .typed::<(), i32>(&store)
        .map_err(|e| startup_err(ctx, "karmem_init", e))?;
    let code = init
        .call(&mut store, ())
        .map_err(|e| startup_trap(&mut store, e, "karmem_init"))?;
    if code != 0 {
        return Err(startup_err(
            ctx,
            "karmem_init",
            format!("returned {code}, expected 0"),
        ));
    }
    // 4. The descriptor.
    let describe = func(&mut store, "karmem_describe")?
        .typed::<(), i64>(&store)
        .map_err(|e| startup_err(ctx, "karmem_describe", e))?;
    let at = describe
        .call(&mut store, ())
        .map_err(|e| startup_trap(&mut store, e, "karmem_describe"))? as u64;
    let (ptr, len) = (at as u32, (at >> 32) as u32);
    let desc = guest_slice(&store, ptr, len)
        .ok_or_else(|| Error::BadDescriptor {
            module: ctx.name().to_string(),
            message: format!(
                "karmem_describe returned {len} bytes at {ptr:#x}, outside the memory"
            ),
        })?
        .to_vec();
    if !probe && desc != ctx.module.desc_bytes {
        return Err(Error::BadDescriptor {
            module: ctx.name().to_string(),
            message: "the descriptor differs from the one the module reported when it was loaded"
                .into(),
        });
    }
    let dispatch = func(&mut store, "karmem_dispatch")?
        .typed::<(i32, i32, i32), i32>(&store)
        .map_err(|e| startup_err(ctx, "karmem_dispatch", e))?;
    let alloc = func(&mut store, "karmem_alloc")?
        .typed::<(i32, i32), i32>(&store)
        .map_err(|e| startup_err(ctx, "karmem_alloc", e))?;
    let mut live = Live {
        store,
        dispatch,
        alloc,
    };
    // 5. Windows.
    if !ctx.windows.is_empty() {
        map_windows(ctx, &mut live, &instance)?;
    }
    Ok((live, desc))
}

/// Allocate one block for the read-only windows and one for the read-write
/// ones, map the regions there, publish the read-only range to the guard
/// globals, then tell the guest where each window is.
fn map_windows(
    ctx: &ModuleCtx,
    live: &mut Live,
    instance: &wasmtime::Instance,
) -> Result<(), Error> {
    let step = "mapping region windows";
    let block = |live: &mut Live, len: usize| -> Result<u32, Error> {
        if len == 0 {
            return Ok(0);
        }
        let len32 =
            u32::try_from(len).map_err(|_| startup_err(ctx, step, "windows larger than 4 GiB"))?;
        let ptr = live
            .alloc(len32, 65536)
            .map_err(|e| startup_trap(&mut live.store, e, "karmem_alloc (windows)"))?;
        let (_, size) = guest_base(&live.store).unwrap_or((std::ptr::null_mut(), 0));
        if ptr == 0 || ptr % 65536 != 0 || u64::from(ptr) + len as u64 > size as u64 {
            let why = if live.store.data().limiter.denied {
                " (memory limit)"
            } else {
                ""
            };
            return Err(startup_err(
                ctx,
                step,
                format!("karmem_alloc({len}, 65536) returned {ptr:#x}: not a 64 KiB aligned block inside the memory{why}"),
            ));
        }
        Ok(ptr)
    };
    let ro = block(live, ctx.ro_len)?;
    let rw = block(live, ctx.rw_len)?;
    let (base, _) = guest_base(&live.store).ok_or_else(|| startup_err(ctx, step, "no memory"))?;
    let mut windows = Vec::new();
    for w in &ctx.windows {
        let start = if w.writable { rw } else { ro } as usize + w.offset;
        // SAFETY: `start..start+len` lies in a block the guest allocated
        // (checked above) inside the never-moving memory; no Rust reference
        // into guest memory is alive here.
        unsafe {
            crate::memory::map_window(
                base,
                start,
                w.region.len,
                std::os::fd::AsFd::as_fd(&w.region.fd),
                w.writable,
            )
        }
        .map_err(|e| startup_err(ctx, step, format!("mmap of `{}`: {e}", w.region.desc.name)))?;
        windows.push(Window {
            region: w.region.id,
            name: w.region.desc.name.clone(),
            start: start as u32,
            len: w.region.len as u32,
            writable: w.writable,
        });
    }
    let st = live.store.data_mut();
    st.ro = (ro, ro + ctx.ro_len as u32);
    st.windows = windows;
    for (name, value) in [(RO_START, ro), (RO_END, ro + ctx.ro_len as u32)] {
        let g = instance
            .get_global(&mut live.store, name)
            .ok_or_else(|| startup_err(ctx, step, format!("rewrite global `{name}` missing")))?;
        g.set(&mut live.store, Val::I32(value as i32))
            .map_err(|e| startup_err(ctx, step, e))?;
    }
    let bind = instance
        .get_typed_func::<(i32, i32, i32), ()>(&mut live.store, "karmem_bind_memory")
        .map_err(|e| startup_err(ctx, "karmem_bind_memory", e))?;
    for (w, plan) in live
        .store
        .data()
        .windows
        .iter()
        .map(|w| (w.start, w.len))
        .collect::<Vec<_>>()
        .into_iter()
        .zip(&ctx.windows)
    {
        bind.call(
            &mut live.store,
            (plan.bind_index as i32, w.0 as i32, w.1 as i32),
        )
        .map_err(|e| startup_trap(&mut live.store, e, "karmem_bind_memory"))?;
    }
    Ok(())
}

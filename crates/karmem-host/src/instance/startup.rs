//! Creating an instance: instantiation and the start-up sequence of
//! docs/abi.md §2 (`_initialize`, ABI version, `karmem_init`, the
//! descriptor, the region windows), under the module's limits and the
//! deadline of the call that needs it.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use wasmtime::{Extern, Func, Module, ModuleExport, Store, Val};

use super::access::guest_base;
use super::classify::classify;
use super::{fuel_in, fuel_out, InstanceCtx, Live, State, Window};
use crate::abi::{ABI_VERSION, MAX_DESCRIPTOR};
use crate::engine::clock::Tick;
use crate::error::{CallSite, Error};

/// A reserved place among a module's live instances
/// ([`super::Limits::max_instances`]); given back when dropped unless an
/// instance took it.
pub(crate) struct Slot<'a>(&'a InstanceCtx);

impl InstanceCtx {
    /// Reserve a place for one more live instance; `None` at the cap.
    pub fn reserve(&self) -> Option<Slot<'_>> {
        self.live
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limits.max_instances).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(self))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::AcqRel);
    }
}

fn startup_err(ctx: &InstanceCtx, step: &str, message: impl std::fmt::Display) -> Error {
    Error::Startup {
        module: ctx.name.clone(),
        step: step.to_string(),
        message: message.to_string(),
    }
}

/// The message of a failure during start-up, with the cause made precise
/// (trap, timeout, memory limit, ...).
fn startup_trap(store: &mut Store<State>, e: wasmtime::Error, step: &str) -> Error {
    let site = CallSite {
        module: store.data().name().to_string(),
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

/// Where the exports the host looks up in every new instance are in the
/// module: found by name once per module ([`ExportIndex::new`], when it is
/// loaded) rather than by name in every instance, where the look-up was a
/// tenth of creating one (docs/benchmarks.md, the gate's `build` case).
#[derive(Clone, Copy)]
pub(crate) struct ExportIndex {
    memory: Option<ModuleExport>,
    fault: Option<ModuleExport>,
    initialize: Option<ModuleExport>,
    abi_version: Option<ModuleExport>,
    init: Option<ModuleExport>,
    describe: Option<ModuleExport>,
    dispatch: Option<ModuleExport>,
    alloc: Option<ModuleExport>,
    ro_start: Option<ModuleExport>,
    ro_end: Option<ModuleExport>,
    bind_memory: Option<ModuleExport>,
    bind_access: Option<ModuleExport>,
}

impl ExportIndex {
    pub fn new(module: &Module) -> ExportIndex {
        let at = |name: &str| module.get_export_index(name);
        ExportIndex {
            memory: at("memory"),
            fault: at(karmem_rewrite::RO_FAULT),
            initialize: at("_initialize"),
            abi_version: at("karmem_abi_version"),
            init: at("karmem_init"),
            describe: at("karmem_describe"),
            dispatch: at("karmem_dispatch"),
            alloc: at("karmem_alloc"),
            ro_start: at(karmem_rewrite::RO_START),
            ro_end: at(karmem_rewrite::RO_END),
            bind_memory: at("karmem_bind_memory"),
            bind_access: at("karmem_bind_access"),
        }
    }
}

/// The export at `at` of `instance`, if the module has one there.
fn export(
    instance: &wasmtime::Instance,
    store: &mut Store<State>,
    at: Option<ModuleExport>,
) -> Option<Extern> {
    instance.get_module_export(store, &at?)
}

/// The exported function at `at`, if the module has one there.
fn func_at(
    instance: &wasmtime::Instance,
    store: &mut Store<State>,
    at: Option<ModuleExport>,
) -> Option<Func> {
    export(instance, store, at).and_then(Extern::into_func)
}

/// Create an instance in `slot` and run its start-up sequence, which must
/// end by `deadline`. The instance must report the descriptor it reported
/// at load time.
pub(crate) fn create(
    ctx: &Arc<InstanceCtx>,
    slot: Slot<'_>,
    deadline: Tick,
) -> Result<Live, Error> {
    start(ctx, slot, deadline).map(|(live, _)| live)
}

/// Run the start-up sequence of a fresh instance up to the descriptor and
/// return the descriptor's bytes (the load-time probe).
pub(crate) fn describe(ctx: &Arc<InstanceCtx>, deadline: Tick) -> Result<Vec<u8>, Error> {
    let slot = ctx
        .reserve()
        .ok_or_else(|| startup_err(ctx, "instantiate", "no instance allowed (max_instances 0)"))?;
    start(ctx, slot, deadline).map(|(_, desc)| desc)
}

fn start(ctx: &Arc<InstanceCtx>, slot: Slot<'_>, deadline: Tick) -> Result<(Live, Vec<u8>), Error> {
    let mut store = Store::new(&ctx.engine.engine, State::new(ctx.clone()));
    store.limiter(|s| &mut s.limiter);
    store.epoch_deadline_trap();
    let now = ctx.engine.clock.now();
    store.set_epoch_deadline(deadline.saturating_sub(now).max(1));
    store.data_mut().deadline = deadline;
    // Start-up draws on the fuel of the call that needs the instance, on
    // every path (a failed start-up burnt fuel too).
    fuel_in(&mut store);
    let started = start_up(ctx, &mut store);
    fuel_out(&mut store);
    let (instance, dispatch, alloc, desc) = started?;
    // The instance now holds the slot (released when `Live` drops).
    std::mem::forget(slot);
    let mut live = Live {
        store,
        dispatch,
        alloc,
    };
    // 5. Windows.
    if !ctx.windows.is_empty() {
        fuel_in(&mut live.store);
        let mapped = map_windows(ctx, &mut live, &instance);
        fuel_out(&mut live.store);
        mapped?;
    }
    Ok((live, desc))
}

/// The exports the host calls, and the descriptor's bytes.
type Started = (
    wasmtime::Instance,
    wasmtime::TypedFunc<(i32, i32, i32), i32>,
    wasmtime::TypedFunc<(i32, i32), i32>,
    Vec<u8>,
);

/// Steps 1–4 of the start-up sequence on a fresh store.
fn start_up(ctx: &Arc<InstanceCtx>, store: &mut Store<State>) -> Result<Started, Error> {
    let instance = match ctx.pre.instantiate(&mut *store) {
        Ok(i) => i,
        Err(e) => return Err(startup_trap(&mut *store, e, "instantiate")),
    };
    let ix = &ctx.exports;
    let memory = export(&instance, store, ix.memory)
        .and_then(Extern::into_memory)
        .ok_or_else(|| startup_err(ctx, "instantiate", "no exported memory `memory`"))?;
    store.data_mut().memory = Some(memory);
    store.data_mut().fault = export(&instance, store, ix.fault).and_then(Extern::into_global);
    let func_at = |store: &mut Store<State>, at| func_at(&instance, store, at);

    // 1. `_initialize` (reactor start).
    if let Some(init) = func_at(store, ix.initialize).and_then(|f| f.typed::<(), ()>(&*store).ok())
    {
        init.call(&mut *store, ())
            .map_err(|e| startup_trap(&mut *store, e, "_initialize"))?;
    }
    // 2. ABI version, before anything else of ours.
    let version =
        match func_at(store, ix.abi_version).and_then(|f| f.typed::<(), i32>(&*store).ok()) {
            Some(f) => f
                .call(&mut *store, ())
                .map_err(|e| startup_trap(&mut *store, e, "karmem_abi_version"))?
                as u32,
            None => 0,
        };
    if version != ABI_VERSION {
        return Err(Error::AbiMismatch {
            module: ctx.name.clone(),
            found: version,
            supported: ABI_VERSION,
        });
    }
    let func = |store: &mut Store<State>, at, name: &str| {
        func_at(store, at).ok_or_else(|| startup_err(ctx, name, "export missing"))
    };
    // 3. karmem_init.
    let init = func(&mut *store, ix.init, "karmem_init")?
        .typed::<(), i32>(&*store)
        .map_err(|e| startup_err(ctx, "karmem_init", e))?;
    let code = init
        .call(&mut *store, ())
        .map_err(|e| startup_trap(&mut *store, e, "karmem_init"))?;
    if code != 0 {
        return Err(startup_err(
            ctx,
            "karmem_init",
            format!("returned {code}, expected 0"),
        ));
    }
    // 4. The descriptor: its size is bounded before anything is copied.
    let describe = func(&mut *store, ix.describe, "karmem_describe")?
        .typed::<(), i64>(&*store)
        .map_err(|e| startup_err(ctx, "karmem_describe", e))?;
    let at = describe
        .call(&mut *store, ())
        .map_err(|e| startup_trap(&mut *store, e, "karmem_describe"))? as u64;
    let (ptr, len) = (at as u32, (at >> 32) as u32);
    let bad = |message: String| Error::BadDescriptor {
        module: ctx.name.clone(),
        message,
    };
    if len > MAX_DESCRIPTOR {
        return Err(bad(format!(
            "karmem_describe reported {len} bytes; a descriptor is at most {MAX_DESCRIPTOR} bytes"
        )));
    }
    let reported = super::access::guest_slice(&*store, ptr, len).ok_or_else(|| {
        bad(format!(
            "karmem_describe returned {len} bytes at {ptr:#x}, outside the memory"
        ))
    })?;
    // Later instances are compared in place with the descriptor seen at
    // load time; only the load-time probe copies it.
    let desc = match ctx.desc_bytes.as_deref() {
        Some(d) if d != reported => {
            return Err(bad(
                "the descriptor differs from the one the module reported when it was loaded".into(),
            ))
        }
        Some(_) => Vec::new(),
        None => reported.to_vec(),
    };
    let dispatch = func(&mut *store, ix.dispatch, "karmem_dispatch")?
        .typed::<(i32, i32, i32), i32>(&*store)
        .map_err(|e| startup_err(ctx, "karmem_dispatch", e))?;
    let alloc = func(&mut *store, ix.alloc, "karmem_alloc")?
        .typed::<(i32, i32), i32>(&*store)
        .map_err(|e| startup_err(ctx, "karmem_alloc", e))?;
    Ok((instance, dispatch, alloc, desc))
}

/// Allocate one block for the read-only windows and one for the read-write
/// ones, map the regions there, publish the read-only range to the guard
/// globals, then tell the guest where each window is.
fn map_windows(
    ctx: &InstanceCtx,
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
        // 64-bit: a block may end exactly at 4 GiB.
        if ptr == 0 || ptr % 65536 != 0 || u64::from(ptr) + u64::from(len32) > size as u64 {
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
    // Before any window is mapped: a failure from here on still drops an
    // instance whose blocks are known (Live's drop).
    live.store.data_mut().window_blocks = [(ro, ctx.ro_len as u32), (rw, ctx.rw_len as u32)];
    let (base, _) = guest_base(&live.store).ok_or_else(|| startup_err(ctx, step, "no memory"))?;
    let mut windows = Vec::new();
    for w in &ctx.windows {
        let (file, at) =
            w.region.file.as_ref().ok_or_else(|| {
                startup_err(ctx, step, "a window of a region that was not created")
            })?;
        let block = if w.writable { rw } else { ro };
        let start = u32::try_from(u64::from(block) + w.offset as u64)
            .map_err(|_| startup_err(ctx, step, "a window starts past 4 GiB"))?;
        // SAFETY: `start..start+len` lies in a block the guest allocated
        // (checked above) inside the never-moving memory; no Rust reference
        // into guest memory is alive here.
        unsafe {
            crate::engine::memory::map_window(
                base,
                start as usize,
                w.region.len,
                file.fd(),
                *at,
                w.writable,
            )
        }
        .map_err(|e| startup_err(ctx, step, format!("mmap of `{}`: {e}", w.region.desc.name)))?;
        windows.push(Window {
            region: w.region.id,
            name: w.region.desc.name.clone(),
            start,
            len: w.region.len as u32,
            writable: w.writable,
        });
    }
    let ro_range = (u64::from(ro), u64::from(ro) + ctx.ro_len as u64);
    let st = live.store.data_mut();
    st.ro = ro_range;
    st.windows = windows;
    let ix = &ctx.exports;
    for (name, at, value) in [
        (karmem_rewrite::RO_START, ix.ro_start, ro_range.0),
        (karmem_rewrite::RO_END, ix.ro_end, ro_range.1),
    ] {
        let g = export(instance, &mut live.store, at)
            .and_then(Extern::into_global)
            .ok_or_else(|| startup_err(ctx, step, format!("rewrite global `{name}` missing")))?;
        g.set(&mut live.store, Val::I64(value as i64))
            .map_err(|e| startup_err(ctx, step, e))?;
    }
    let bind = func_at(instance, &mut live.store, ix.bind_memory)
        .ok_or_else(|| startup_err(ctx, "karmem_bind_memory", "export missing"))?
        .typed::<(i32, i32, i32), ()>(&live.store)
        .map_err(|e| startup_err(ctx, "karmem_bind_memory", e))?;
    // Optional (docs/abi.md §2, step 5): the guest's access to each window,
    // told just before the window itself. The loader checked its type.
    let access = func_at(instance, &mut live.store, ix.bind_access)
        .and_then(|f| f.typed::<(i32, i32), ()>(&live.store).ok());
    let mapped: Vec<(u32, u32)> = live
        .store
        .data()
        .windows
        .iter()
        .map(|w| (w.start, w.len))
        .collect();
    for ((start, len), plan) in mapped.into_iter().zip(&ctx.windows) {
        if let Some(access) = &access {
            let level = if plan.writable {
                crate::abi::ACCESS_READ_WRITE
            } else {
                crate::abi::ACCESS_READ
            };
            access
                .call(&mut live.store, (plan.bind_index as i32, level))
                .map_err(|e| startup_trap(&mut live.store, e, "karmem_bind_access"))?;
        }
        bind.call(
            &mut live.store,
            (plan.bind_index as i32, start as i32, len as i32),
        )
        .map_err(|e| startup_trap(&mut live.store, e, "karmem_bind_memory"))?;
    }
    Ok(())
}

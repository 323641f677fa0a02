//! Building an application: region and interface compatibility, grants,
//! binding imports to exporters by pattern, and the per-module call tables.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Weak};

use super::host_export::{HostExport, HOST};
use super::{App, AppBuilder, AppStats, ExportFn, ModuleInfo, ModuleOptions};
use crate::descriptor::{Access, FunctionDesc, InterfaceDesc, MemoryDesc, ModuleDesc, Pattern};
use crate::error::{CallSite, Error, Result};
use crate::instance::pool::{Counters, InstancePool};
use crate::instance::scope::CallBudget;
use crate::instance::{InstanceCtx, Router, State, WindowPlan};
use crate::log::{LogSink, StderrLog};
use crate::region::{Region, RegionId, RegionInner};

/// What the application knows of one module: its instances' context, its
/// options, where its imports go, and what its exports take.
pub(crate) struct ModuleCtx {
    pub inst: Arc<InstanceCtx>,
    pub desc: Arc<ModuleDesc>,
    pub options: ModuleOptions,
    /// Per import interface: where calls go.
    pub imports: Vec<ImportRoute>,
    /// Per export interface, per function: call site and region bindings.
    pub exports: Vec<Vec<FnMeta>>,
}

impl ModuleCtx {
    /// The access the module has to `region`: what its descriptor asks
    /// for, at most what the host granted (docs/security.md §1).
    pub fn access(&self, region: &str) -> Access {
        self.desc.access(region).min(self.options.granted(region))
    }
}

/// The application's side of a module's `karmem.call`.
struct ModuleRouter {
    app: Weak<AppInner>,
    module: usize,
}

impl Router for ModuleRouter {
    fn call(
        &self,
        caller: &mut wasmtime::Caller<'_, State>,
        function: u32,
        args: u32,
        count: u32,
        out: u32,
        out_cap: u32,
    ) -> wasmtime::Result<i32> {
        let Some(app) = self.app.upgrade() else {
            return Ok(super::calls::E_UNBOUND);
        };
        // The callees draw on the fuel the caller has not burnt yet; the
        // caller goes on with what they leave.
        crate::instance::fuel_out(caller);
        let r = super::calls::guest_call(
            caller,
            &app,
            self.module,
            function,
            args,
            count,
            out,
            out_cap,
        );
        crate::instance::fuel_in(caller);
        r
    }
}

/// One exported function as the host calls it.
pub(crate) struct FnMeta {
    pub site: Arc<CallSite>,
    /// Region of each parameter bound to one.
    pub params: Vec<Option<RegionId>>,
    /// `None`: no result; `Some(None)`: copied; `Some(Some(r))`: in `r`.
    pub result: Option<Option<RegionId>>,
}

/// Who serves an import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exporter {
    /// Module `module`, its `Exports[export]`.
    Module { module: usize, export: usize },
    /// The host: [`AppInner::host_exports`]`[h]`.
    Host(usize),
}

/// An exporter an import is bound to.
pub(crate) struct Target {
    pub exporter: Exporter,
    /// Importer function index → exporter function index (`None`: the
    /// exporter of a dynamic interface lacks it).
    pub functions: Vec<Option<u16>>,
}

/// Where one imported interface's calls go.
pub(crate) struct ImportRoute {
    pub pattern: Pattern,
    pub targets: Vec<Target>,
    /// Region of each parameter of each importer function.
    pub params: Vec<Vec<Option<RegionId>>>,
}

pub(crate) struct AppInner {
    pub infos: Vec<ModuleInfo>,
    pub regions: Vec<Arc<RegionInner>>,
    pub region_ids: HashMap<String, RegionId>,
    pub modules: Vec<Arc<ModuleCtx>>,
    /// Per module: the one shared instance serving its singleton interfaces.
    pub singletons: Vec<Arc<InstancePool>>,
    /// Per module: the instances serving its `pool(N)` interfaces.
    pub pools: Vec<Arc<InstancePool>>,
    /// Per module: the host's own instance (direct and fan-out calls from
    /// the host).
    pub host: Vec<Arc<InstancePool>>,
    pub counters: Arc<Counters>,
    /// Per module: cut off by the host ([`crate::App::suspend`]); calls
    /// to it fail with `SUSPENDED` without entering the guest.
    pub suspended: Vec<AtomicBool>,
    /// Interfaces the host exports (`AppBuilder::host_export`).
    pub host_exports: Vec<HostExport>,
    /// The budgets of each top-level call.
    pub budget: CallBudget,
}

impl AppInner {
    /// The error of a call into `module` when the host has suspended it.
    pub fn check_suspended(&self, module: usize, site: &CallSite) -> Result<()> {
        if self.suspended[module].load(Ordering::Acquire) {
            return Err(Error::Suspended { site: site.clone() });
        }
        Ok(())
    }

    pub fn module_index(&self, name: &str) -> Result<usize> {
        self.infos
            .iter()
            .position(|m| m.module.name() == name)
            .ok_or_else(|| Error::UnknownModule(name.to_string()))
    }

    pub fn export(&self, module: &str, interface: &str, function: &str) -> Result<ExportFn> {
        let m = self.module_index(module)?;
        let desc = self.infos[m].module.descriptor();
        let id = desc
            .export_id(interface, function)
            .ok_or_else(|| Error::UnknownFunction {
                module: module.to_string(),
                interface: interface.to_string(),
                function: function.to_string(),
            })?;
        let meta = &self.modules[m].exports[(id >> 16) as usize][(id & 0xffff) as usize];
        Ok(ExportFn {
            module: m,
            id,
            site: meta.site.clone(),
        })
    }

    pub fn exporters(&self, interface: &str, function: &str) -> Vec<ExportFn> {
        (0..self.infos.len())
            .filter_map(|m| {
                self.export(self.infos[m].module.name(), interface, function)
                    .ok()
            })
            .collect()
    }

    pub fn region(&self, name: &str) -> Result<Region> {
        let id = self
            .region_ids
            .get(name)
            .ok_or_else(|| Error::UnknownRegion(name.to_string()))?;
        Ok(Region {
            inner: self.regions[id.0 as usize].clone(),
        })
    }

    pub fn stats(&self) -> AppStats {
        AppStats {
            instances_created: self.counters.created.load(Ordering::Relaxed),
            instances_discarded: self.counters.discarded.load(Ordering::Relaxed),
            instances_live: self
                .modules
                .iter()
                .map(|m| u64::from(m.inst.live.load(Ordering::Relaxed)))
                .sum(),
        }
    }

    /// The instances that serve `pattern` calls into `module` when no
    /// importer instance owns them (singleton, pool), or `None` for
    /// per-importer patterns.
    pub fn shared_pool(&self, module: usize, pattern: Pattern) -> Option<&Arc<InstancePool>> {
        match pattern {
            Pattern::Singleton => Some(&self.singletons[module]),
            Pattern::Pool => Some(&self.pools[module]),
            Pattern::Direct | Pattern::FanOut => None,
        }
    }
}

/// The pattern of export interface `e` of module `m`.
pub(crate) fn export_pattern(ctx: &ModuleCtx, e: usize) -> Pattern {
    ctx.desc.exports[e].pattern
}

/// The application's regions and their ids by name.
type Regions = (Vec<Arc<RegionInner>>, HashMap<String, RegionId>);

fn regions(b: &AppBuilder) -> Result<Regions> {
    let mut first: HashMap<&str, (&MemoryDesc, &str)> = HashMap::new();
    let mut order: Vec<&MemoryDesc> = Vec::new();
    // The host's exports declare regions like a module's (and are checked
    // the same way), after the modules.
    let declared = b
        .modules
        .iter()
        .flat_map(|(m, _)| m.descriptor().memories.iter().map(|d| (d, m.name())))
        .chain(
            b.host_exports
                .iter()
                .flat_map(|(i, _)| i.memories.iter().map(|d| (d, HOST))),
        );
    for (d, name) in declared {
        match first.get(d.name.as_str()) {
            None => {
                first.insert(&d.name, (d, name));
                order.push(d);
            }
            Some((f, owner)) if *f != d => {
                let reason = if f.importer != d.importer || f.exporter != d.exporter {
                    format!(
                        "access import={}/export={} vs import={}/export={}",
                        f.importer.keyword(),
                        f.exporter.keyword(),
                        d.importer.keyword(),
                        d.exporter.keyword()
                    )
                } else {
                    format!("{} pages vs {} pages", f.max_pages, d.max_pages)
                };
                return Err(Error::IncompatibleMemory {
                    region: d.name.clone(),
                    first: owner.to_string(),
                    second: name.to_string(),
                    reason,
                });
            }
            Some(_) => {}
        }
    }
    // A region is created only for someone who can use it: a module
    // granted access, the host's own exports, or initial contents the host
    // gives. What a descriptor merely declares costs the host nothing.
    let mut used: HashSet<&str> = b.region_init.keys().map(String::as_str).collect();
    used.extend(
        b.host_exports
            .iter()
            .flat_map(|(i, _)| i.memories.iter().map(|d| d.name.as_str())),
    );
    for (m, o) in &b.modules {
        for (name, asked) in m.descriptor().accesses() {
            if asked.min(o.granted(name)) != Access::None {
                used.insert(name);
            }
        }
    }
    // One file for all of them, each region at a 64 KiB boundary in it.
    let mut at = HashMap::new();
    let mut total = 0usize;
    for d in order.iter().filter(|d| used.contains(d.name.as_str())) {
        at.insert(d.name.as_str(), total);
        total = usize::try_from(d.size())
            .ok()
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| Error::Engine("the regions exceed the address space".into()))?;
    }
    let file = match total {
        0 => None,
        n => Some(Arc::new(b.runtime.inner.spare_regions.file(n)?)),
    };
    let mut list = Vec::new();
    let mut ids = HashMap::new();
    for (i, d) in order.into_iter().enumerate() {
        let id = RegionId(i as u32);
        list.push(Arc::new(match (&file, at.get(d.name.as_str())) {
            (Some(file), Some(&offset)) => RegionInner::in_file(id, d, file, offset),
            _ => RegionInner::unused(id, d),
        }));
        ids.insert(d.name.clone(), id);
    }
    Ok((list, ids))
}

fn same_function(a: &FunctionDesc, b: &FunctionDesc) -> Result<(), String> {
    let sig = |f: &FunctionDesc| {
        let mut v: Vec<(String, Option<String>)> = f
            .params
            .iter()
            .map(|p| (p.ty.clone(), p.memory.clone()))
            .collect();
        v.push(
            f.result
                .as_ref()
                .map(|r| (r.ty.clone(), r.memory.clone()))
                .unwrap_or_default(),
        );
        v
    };
    if sig(a) != sig(b) {
        return Err(format!(
            "function `{}` has different parameter or result types or regions",
            a.name
        ));
    }
    Ok(())
}

/// Whether importer `imp` can call exporter `exp` (docs/abi.md §3.1), and
/// the function map.
fn match_interface(imp: &InterfaceDesc, exp: &InterfaceDesc) -> Result<Vec<Option<u16>>, String> {
    if imp.pattern != exp.pattern {
        return Err(format!("pattern {:?} vs {:?}", imp.pattern, exp.pattern));
    }
    if imp.hash == exp.hash {
        // Equal hashes are taken as equal signatures only if the texts are
        // equal too: FNV-1a is no defence against a guest that crafts a
        // collision, and a function map built on one would send calls to
        // functions the exporter does not have. (Names are identifiers,
        // so the text is unambiguous: descriptor.rs.)
        if imp.signature() != exp.signature() {
            return Err(format!(
                "signature hashes are equal ({:#018x}) but the signatures differ",
                imp.hash
            ));
        }
        return Ok((0..imp.functions.len()).map(|f| Some(f as u16)).collect());
    }
    if !(imp.dynamic && exp.dynamic) {
        return Err(format!(
            "signature hashes differ ({:#018x} vs {:#018x}) and the interface is not dynamic on both sides",
            imp.hash, exp.hash
        ));
    }
    // By name, through a map: both lists may hold 65 535 functions.
    let by_name: HashMap<&str, usize> = exp
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    imp.functions
        .iter()
        .map(|f| match by_name.get(f.name.as_str()) {
            Some(&i) => same_function(f, &exp.functions[i]).map(|_| Some(i as u16)),
            None => Ok(None),
        })
        .collect()
}

fn region_of(ids: &HashMap<String, RegionId>, memory: &Option<String>) -> Option<RegionId> {
    memory.as_ref().and_then(|m| ids.get(m).copied())
}

/// Every exporter of each interface name, in module order, the host last:
/// built once, so binding is linear in the descriptors' sizes.
fn exporters(b: &AppBuilder) -> HashMap<&str, Vec<Exporter>> {
    let mut map: HashMap<&str, Vec<Exporter>> = HashMap::new();
    for (x, (module, _)) in b.modules.iter().enumerate() {
        // Names are unique in a descriptor's export list (descriptor.rs).
        for (e, iface) in module.descriptor().exports.iter().enumerate() {
            map.entry(&iface.name).or_default().push(Exporter::Module {
                module: x,
                export: e,
            });
        }
    }
    for (h, (iface, _)) in b.host_exports.iter().enumerate() {
        let list = map.entry(&iface.name).or_default();
        // One host export per interface: the first.
        if !list.iter().any(|e| matches!(e, Exporter::Host(_))) {
            list.push(Exporter::Host(h));
        }
    }
    map
}

/// Choose the exporters of import `iface` of module `m`.
fn targets(
    b: &AppBuilder,
    index: &HashMap<&str, Vec<Exporter>>,
    m: usize,
    iface: &InterfaceDesc,
) -> Result<Vec<Target>> {
    let importer = b.modules[m].0.name();
    let exporters: Vec<Exporter> = index.get(iface.name.as_str()).cloned().unwrap_or_default();
    let name = |x: &Exporter| match *x {
        Exporter::Module { module, .. } => b.modules[module].0.name(),
        Exporter::Host(_) => HOST,
    };
    let binding_err = |message: String| Error::Binding {
        module: importer.to_string(),
        interface: iface.name.clone(),
        message,
    };
    if exporters.is_empty() {
        return Err(binding_err(
            "unsatisfied import: no module (nor the host) exports this interface".into(),
        ));
    }
    let chosen: Vec<Exporter> = if iface.pattern == Pattern::FanOut {
        exporters
    } else {
        let named = b
            .bindings
            .iter()
            .rev()
            .find(|(i, n, _)| n == &iface.name && i.as_deref() == Some(importer))
            .or_else(|| {
                b.bindings
                    .iter()
                    .rev()
                    .find(|(i, n, _)| n == &iface.name && i.is_none())
            })
            .map(|(_, _, x)| x.as_str());
        match named {
            Some(x) => {
                let pick = exporters.iter().find(|e| name(e) == x);
                vec![*pick.ok_or_else(|| {
                    binding_err(format!(
                        "bound to `{x}`, which does not export this interface"
                    ))
                })?]
            }
            None if exporters.len() == 1 => exporters,
            None => {
                let names: Vec<&str> = exporters.iter().map(name).collect();
                return Err(binding_err(format!(
                    "ambiguous: exported by {}; choose one (manifest `bind`)",
                    names.join(", ")
                )));
            }
        }
    };
    chosen
        .into_iter()
        .map(|x| {
            let exp = match x {
                Exporter::Module { module, export } => {
                    &b.modules[module].0.descriptor().exports[export]
                }
                Exporter::Host(h) => &b.host_exports[h].0,
            };
            let functions =
                match_interface(iface, exp).map_err(|reason| Error::IncompatibleInterface {
                    interface: iface.name.clone(),
                    importer: importer.to_string(),
                    exporter: name(&x).to_string(),
                    reason,
                })?;
            Ok(Target {
                exporter: x,
                functions,
            })
        })
        .collect()
}

/// Window layout of one module: all read-only windows in one block, all
/// read-write ones in another (docs/abi.md §6), each window as the module
/// asks for it and at most as the host grants it. The windows lie in the
/// module's linear memory, so they count against its memory limit: a
/// module whose windows alone exceed it is refused here, before anything
/// is mapped.
fn windows(
    name: &str,
    desc: &ModuleDesc,
    options: &ModuleOptions,
    regions: &[Arc<RegionInner>],
    ids: &HashMap<String, RegionId>,
) -> Result<(Vec<WindowPlan>, usize, usize)> {
    let (mut ro, mut rw) = (0usize, 0usize);
    let mut plans = Vec::new();
    let asked = desc.accesses();
    for (i, m) in desc.memories.iter().enumerate() {
        let access = asked
            .get(m.name.as_str())
            .copied()
            .unwrap_or(Access::None)
            .min(options.granted(&m.name));
        if access == Access::None {
            continue;
        }
        let region = regions[ids[&m.name].0 as usize].clone();
        let writable = access == Access::ReadWrite;
        let at = if writable { &mut rw } else { &mut ro };
        plans.push(WindowPlan {
            bind_index: i as u32,
            offset: *at,
            writable,
            region: region.clone(),
        });
        *at += region.len;
    }
    let total = (ro + rw) as u64;
    if total > options.memory_limit {
        return Err(Error::WindowsOverLimit {
            module: name.to_string(),
            windows: total,
            limit: options.memory_limit,
        });
    }
    Ok((plans, ro, rw))
}

/// The host's exports follow the rules of a guest's descriptor, and the
/// name `host` is not also a module's.
fn check_host_exports(b: &AppBuilder, names: &HashMap<&str, usize>) -> Result<()> {
    if b.host_exports.is_empty() {
        return Ok(());
    }
    if names.contains_key(HOST) {
        // The host is an exporter named `host` (docs/abi.md §5.4).
        return Err(Error::DuplicateModule(HOST.to_string()));
    }
    let mut desc = ModuleDesc::default();
    for (i, _) in &b.host_exports {
        for m in &i.memories {
            if !desc.memories.contains(m) {
                desc.memories.push(m.clone());
            }
        }
        desc.exports.push(i.clone());
    }
    desc.check().map_err(|message| Error::BadDescriptor {
        module: HOST.to_string(),
        message,
    })
}

/// Call sites and region bindings of each function of `iface`, exported by
/// `module` (a module's name or `host`).
fn fn_metas(
    module: &str,
    iface: &InterfaceDesc,
    region_ids: &HashMap<String, RegionId>,
) -> Vec<FnMeta> {
    iface
        .functions
        .iter()
        .map(|f| FnMeta {
            site: Arc::new(CallSite {
                module: module.to_string(),
                interface: iface.name.clone(),
                function: f.name.clone(),
            }),
            params: f
                .params
                .iter()
                .map(|p| region_of(region_ids, &p.memory))
                .collect(),
            result: f.result.as_ref().map(|r| region_of(region_ids, &r.memory)),
        })
        .collect()
}

pub(crate) fn build(b: &AppBuilder) -> Result<App> {
    if b.budget.fuel.is_some() && !b.runtime.config().fuel {
        return Err(Error::Engine(
            "the call budget sets fuel, but the runtime does not count it (RuntimeConfig::fuel)"
                .into(),
        ));
    }
    let mut names = HashMap::new();
    for (i, (m, _)) in b.modules.iter().enumerate() {
        if names.insert(m.name(), i).is_some() {
            return Err(Error::DuplicateModule(m.name().to_string()));
        }
    }
    check_host_exports(b, &names)?;
    for (importer, iface, exporter) in &b.bindings {
        let host = !b.host_exports.is_empty() && exporter == HOST;
        for name in importer.iter().chain((!host).then_some(exporter)) {
            if !names.contains_key(name.as_str()) {
                return Err(Error::UnknownModule(name.clone()));
            }
        }
        if let Some(i) = importer {
            if !b.modules[names[i.as_str()]]
                .0
                .descriptor()
                .imports
                .iter()
                .any(|d| &d.name == iface)
            {
                return Err(Error::Binding {
                    module: i.clone(),
                    interface: iface.clone(),
                    message: "bound in the manifest, but the module does not import this interface"
                        .into(),
                });
            }
        }
    }
    let (regions, region_ids) = regions(b)?;
    // A grant names a region of this application: a typo must not leave a
    // module with the default instead of the grant that was meant.
    for (_, options) in &b.modules {
        if let Some(r) = options.grants.keys().find(|r| !region_ids.contains_key(*r)) {
            return Err(Error::UnknownRegion(r.clone()));
        }
    }
    for (name, bytes) in &b.region_init {
        let id = region_ids
            .get(name)
            .ok_or_else(|| Error::UnknownRegion(name.clone()))?;
        Region {
            inner: regions[id.0 as usize].clone(),
        }
        .write(0, bytes)
        .map_err(|_| Error::Binding {
            module: "<host>".into(),
            interface: name.clone(),
            message: format!(
                "initial contents ({} bytes) larger than the region ({} bytes)",
                bytes.len(),
                regions[id.0 as usize].len
            ),
        })?;
    }

    let index = exporters(b);
    let mut routes = Vec::new();
    for (m, (module, _)) in b.modules.iter().enumerate() {
        let mut list = Vec::new();
        for iface in &module.descriptor().imports {
            list.push(ImportRoute {
                pattern: iface.pattern,
                targets: targets(b, &index, m, iface)?,
                params: iface
                    .functions
                    .iter()
                    .map(|f| {
                        f.params
                            .iter()
                            .map(|p| region_of(&region_ids, &p.memory))
                            .collect()
                    })
                    .collect(),
            });
        }
        routes.push(list);
    }

    let mut plans = Vec::new();
    for (module, options) in &b.modules {
        plans.push(windows(
            module.name(),
            module.descriptor(),
            options,
            &regions,
            &region_ids,
        )?);
    }

    let host_exports: Vec<HostExport> = b
        .host_exports
        .iter()
        .map(|(desc, imp)| HostExport {
            functions: fn_metas(HOST, desc, &region_ids),
            imp: imp.clone(),
        })
        .collect();
    let log: Arc<dyn LogSink> = b.log.clone().unwrap_or_else(|| Arc::new(StderrLog));
    let counters = Arc::new(Counters::default());
    let inner = Arc::new_cyclic(|weak| {
        let mut modules = Vec::new();
        for (m, (((module, options), imports), (windows, ro_len, rw_len))) in
            b.modules.iter().zip(routes).zip(plans).enumerate()
        {
            let desc = module.descriptor();
            let exports = desc
                .exports
                .iter()
                .map(|iface| fn_metas(module.name(), iface, &region_ids))
                .collect();
            let router: Arc<dyn Router> = Arc::new(ModuleRouter {
                app: weak.clone(),
                module: m,
            });
            let inst = Arc::new(InstanceCtx {
                name: module.name().to_string(),
                pre: module.inner.pre.clone(),
                exports: module.inner.exports,
                engine: b.runtime.inner.engine.clone(),
                limits: options.limits(),
                timeout_ticks: b.runtime.inner.engine.clock.ticks(options.timeout),
                log: log.clone(),
                windows,
                ro_len,
                rw_len,
                router: Some(router),
                desc_bytes: Some(module.inner.desc_bytes.clone()),
                live: AtomicU32::new(0),
            });
            modules.push(Arc::new(ModuleCtx {
                inst,
                desc: module.inner.desc.clone(),
                options: options.clone(),
                imports,
                exports,
            }));
        }
        let pool = |size: usize| -> Vec<Arc<InstancePool>> {
            modules
                .iter()
                .map(|c| Arc::new(InstancePool::new(c.inst.clone(), size, counters.clone())))
                .collect()
        };
        let singletons = pool(1);
        let host = pool(1);
        let pools = modules
            .iter()
            .map(|c| {
                let declared = c
                    .desc
                    .exports
                    .iter()
                    .map(|i| i.pool_size)
                    .max()
                    .unwrap_or(1);
                let size = c.options.pool_size.unwrap_or(declared).max(1);
                Arc::new(InstancePool::new(
                    c.inst.clone(),
                    size as usize,
                    counters.clone(),
                ))
            })
            .collect();
        AppInner {
            infos: b
                .modules
                .iter()
                .map(|(m, o)| ModuleInfo {
                    module: m.clone(),
                    options: o.clone(),
                })
                .collect(),
            regions,
            region_ids,
            modules,
            singletons,
            pools,
            host,
            counters: counters.clone(),
            suspended: (0..b.modules.len())
                .map(|_| AtomicBool::new(false))
                .collect(),
            host_exports,
            budget: b.budget,
        }
    });
    if b.warm_up {
        for m in 0..inner.modules.len() {
            let exports = &inner.modules[m].desc.exports;
            let pool = if exports.iter().any(|i| i.pattern == Pattern::Singleton) {
                &inner.singletons[m]
            } else {
                &inner.host[m]
            };
            pool.warm_up(&inner.budget)?;
        }
    }
    Ok(App { inner })
}

#[cfg(test)]
mod tests {
    use super::match_interface;
    use crate::descriptor::{FunctionDesc, InterfaceDesc, Pattern};

    /// Equal hashes with different signatures (a crafted FNV collision):
    /// refused, never a function map into functions the exporter lacks.
    #[test]
    fn equal_hashes_bind_only_equal_signatures() {
        let importer = InterfaceDesc::new(
            "t.I",
            Pattern::Direct,
            vec![],
            vec![
                FunctionDesc::new("f", vec![], None),
                FunctionDesc::new("g", vec![], None),
            ],
        );
        let mut exporter = InterfaceDesc::new(
            "t.I",
            Pattern::Direct,
            vec![],
            vec![FunctionDesc::new("f", vec![], None)],
        );
        assert!(match_interface(&importer, &exporter).is_err());
        exporter.hash = importer.hash;
        let e = match_interface(&importer, &exporter).unwrap_err();
        assert!(e.contains("signatures differ"), "{e}");
        assert_eq!(
            match_interface(&importer, &importer.clone()).unwrap(),
            vec![Some(0), Some(1)]
        );
    }
}

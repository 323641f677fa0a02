//! The application layer: loaded modules bound to each other through their
//! interfaces, with shared regions, grants, limits, budgets and patterns;
//! and the host's calls into it.

pub(crate) mod bind;
pub(crate) mod calls;
pub(crate) mod dispatch;
pub(crate) mod host_export;

use std::collections::HashMap;
use std::sync::Arc;

use crate::descriptor::{Access, InterfaceDesc};
use crate::error::{CallSite, Result};
use crate::instance::scope::CallBudget;
use crate::log::LogSink;
use crate::region::{Region, RegionSlice};
pub use crate::runtime::ModuleOptions;
use crate::runtime::{GuestModule, Runtime};
use host_export::HostInterface;

/// Builds an [`App`]: add modules (their order is the `callee` index of
/// fan-out results), choose exporters for ambiguous bindings, then
/// [`AppBuilder::build`].
pub struct AppBuilder {
    pub(crate) runtime: Runtime,
    pub(crate) modules: Vec<(GuestModule, ModuleOptions)>,
    /// (importer or `None` for every importer, interface) → exporter.
    pub(crate) bindings: Vec<(Option<String>, String, String)>,
    pub(crate) region_init: HashMap<String, Vec<u8>>,
    pub(crate) log: Option<Arc<dyn LogSink>>,
    pub(crate) warm_up: bool,
    pub(crate) host_exports: Vec<(InterfaceDesc, Arc<dyn HostInterface>)>,
    pub(crate) budget: CallBudget,
}

impl AppBuilder {
    pub fn new(runtime: &Runtime) -> AppBuilder {
        AppBuilder {
            runtime: runtime.clone(),
            modules: Vec::new(),
            bindings: Vec::new(),
            region_init: HashMap::new(),
            log: None,
            warm_up: true,
            host_exports: Vec::new(),
            budget: CallBudget::default(),
        }
    }

    /// The budgets of every top-level call into the application
    /// (docs/security.md §2.5): what one call from the host, with
    /// everything it causes, may use at most.
    pub fn call_budget(&mut self, budget: CallBudget) -> &mut AppBuilder {
        self.budget = budget;
        self
    }

    /// Add a module with default options.
    pub fn module(&mut self, module: GuestModule) -> &mut AppBuilder {
        self.module_with(module, ModuleOptions::default())
    }

    pub fn module_with(&mut self, module: GuestModule, options: ModuleOptions) -> &mut AppBuilder {
        self.modules.push((module, options));
        self
    }

    /// `importer`'s import of `interface` binds to `exporter` (direct,
    /// singleton and pool interfaces with several exporters).
    pub fn bind(&mut self, importer: &str, interface: &str, exporter: &str) -> &mut AppBuilder {
        self.bindings.push((
            Some(importer.to_string()),
            interface.to_string(),
            exporter.to_string(),
        ));
        self
    }

    /// Every importer of `interface` binds to `exporter`, unless a
    /// [`AppBuilder::bind`] for that importer says otherwise.
    pub fn bind_all(&mut self, interface: &str, exporter: &str) -> &mut AppBuilder {
        self.bindings
            .push((None, interface.to_string(), exporter.to_string()));
        self
    }

    /// The host exports `interface` itself, implemented by `implementation`
    /// ("host functions"): guests that import it call the host with
    /// `karmem.call` exactly as they would call a guest exporter
    /// (docs/abi.md §5.4). The host is an exporter named [`crate::HOST`]
    /// (`"host"`): bindings choose it like a module (`bind(importer,
    /// interface, "host")`, `bind_all(interface, "host")`), it is chosen
    /// automatically when it is the only exporter, and a fan-out includes it
    /// after the modules, with callee number = the number of modules.
    ///
    /// `interface.hash` must be its signature hash
    /// ([`InterfaceDesc::new`] sets it); [`AppBuilder::build`]
    /// checks the descriptor like a guest's (`Error::BadDescriptor` naming
    /// `host`) and each importer's declaration against it like a guest
    /// exporter's (`Error::IncompatibleInterface`). One host export per
    /// interface. The pattern must be the importer's; the host has no
    /// instances, so direct, singleton and pool all call the same
    /// `implementation`, from as many threads as call it at once.
    ///
    /// The implementation runs on the calling guest's thread while that
    /// guest waits in `karmem.call`; no lock is held. It may call into the
    /// application ([`HostCall::app`]): a call back into the calling
    /// instance (or any instance on the same call stack) fails with a
    /// re-entrant-call error instead of deadlocking, calls into other
    /// instances work (at most 32 nested calls). A panic fails that one
    /// call with status `TRAP`; the host, the caller and later calls carry
    /// on.
    ///
    /// ```no_run
    /// use karmem_host::{
    ///     AppBuilder, Arg, FunctionDesc, HostCall, HostError, InterfaceDesc, Output, ParamDesc,
    ///     Pattern, Runtime,
    /// };
    ///
    /// // `interface World { fn query(q: game.Query) -> r: game.Answer; }`
    /// let world = InterfaceDesc::new(
    ///     "game.World",
    ///     Pattern::Direct,
    ///     vec![],
    ///     vec![FunctionDesc::new(
    ///         "query",
    ///         vec![ParamDesc::new("q", "game.Query", None)],
    ///         Some(ParamDesc::new("r", "game.Answer", None)),
    ///     )],
    /// );
    /// let runtime = Runtime::new(Default::default())?;
    /// let bot = runtime.load_file("bot", "bot.wasm".as_ref())?;
    /// let app = AppBuilder::new(&runtime)
    ///     .module(bot)
    ///     .host_export(world, |call: &HostCall<'_>, args: &[Arg<'_>]| {
    ///         match (call.function(), args) {
    ///             ("query", [Arg::Bytes(q)]) => Ok(Output::Bytes(q.to_vec())),
    ///             (f, _) => Err(HostError::new(format!("unexpected call {f}"))),
    ///         }
    ///     })
    ///     .build()?;
    /// # Ok::<(), karmem_host::Error>(())
    /// ```
    pub fn host_export(
        &mut self,
        interface: InterfaceDesc,
        implementation: impl HostInterface,
    ) -> &mut AppBuilder {
        self.host_exports
            .push((interface, Arc::new(implementation)));
        self
    }

    /// The declaration of `region` by the modules added so far or the
    /// host's exports (the first one: [`AppBuilder::build`] checks that
    /// they agree), e.g. to know its size before reading its contents.
    pub fn declared_region(&self, region: &str) -> Option<&crate::MemoryDesc> {
        self.modules
            .iter()
            .flat_map(|(m, _)| &m.descriptor().memories)
            .chain(self.host_exports.iter().flat_map(|(i, _)| &i.memories))
            .find(|d| d.name == region)
    }

    /// Initial bytes of a region (the rest is zero).
    pub fn region_contents(&mut self, region: &str, bytes: Vec<u8>) -> &mut AppBuilder {
        self.region_init.insert(region.to_string(), bytes);
        self
    }

    /// Where guest log lines go (default: [`crate::StderrLog`]).
    pub fn log_sink(&mut self, sink: Arc<dyn LogSink>) -> &mut AppBuilder {
        self.log = Some(sink);
        self
    }

    /// Whether `build` creates one instance of every module right away, so
    /// start-up failures (window allocation, …) surface there rather than
    /// at the first call. Default: true.
    pub fn warm_up(&mut self, yes: bool) -> &mut AppBuilder {
        self.warm_up = yes;
        self
    }

    /// Check compatibility (interfaces, regions), bind imports, create the
    /// regions, and (by default) create a first instance of each module.
    pub fn build(&self) -> Result<App> {
        bind::build(self)
    }
}

/// An argument of a host call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// Absent or empty value (`{0, 0}` in the argument array).
    Empty,
    /// A message, copied into the callee's memory.
    Bytes(&'a [u8]),
    /// A message in a region (the parameter must be bound to that region):
    /// passed by offset, never copied.
    Region(RegionSlice),
}

/// What a call returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The function returns nothing (or reported no result).
    Empty,
    /// A copied result message.
    Bytes(Vec<u8>),
    /// A result bound to a region: where it is (read it with
    /// [`App::region_by_id`]).
    Region(RegionSlice),
}

impl Output {
    /// The result bytes, reading region results out of their region.
    pub fn to_vec(&self, app: &App) -> Result<Vec<u8>> {
        match self {
            Output::Empty => Ok(Vec::new()),
            Output::Bytes(b) => Ok(b.clone()),
            Output::Region(s) => app.region_by_id(s.region).to_vec(*s),
        }
    }
}

/// A resolved exported function of one module: resolve once with
/// [`App::export`], call many times with [`App::invoke`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExportFn {
    pub(crate) module: usize,
    pub(crate) id: u32,
    pub(crate) site: Arc<CallSite>,
}

impl ExportFn {
    /// Index of the module in the application (its `callee` number).
    pub fn module_index(&self) -> usize {
        self.module
    }

    /// The export function id `(e << 16) | f` (docs/abi.md §3).
    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn site(&self) -> &CallSite {
        &self.site
    }
}

/// The outcome of one callee of [`App::call_all`].
#[derive(Clone, Debug, PartialEq)]
pub struct CalleeResult {
    /// Index of the module in the application.
    pub callee: usize,
    pub module: String,
    pub result: Result<Output>,
}

/// A module of an application.
#[derive(Clone)]
pub struct ModuleInfo {
    pub module: GuestModule,
    pub options: ModuleOptions,
}

/// Counters of an application (observability and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppStats {
    /// Instances created (start-up sequence run) since `build`.
    pub instances_created: u64,
    /// Instances discarded after a trap, timeout, limit or violation.
    pub instances_discarded: u64,
    /// Instances alive now, of every module.
    pub instances_live: u64,
}

/// A running application. `Send + Sync` and cheap to clone: call it from
/// many threads (pool interfaces then run in parallel; other instances
/// serialise their callers).
#[derive(Clone)]
pub struct App {
    pub(crate) inner: Arc<bind::AppInner>,
}

impl App {
    /// The modules in the order they were added.
    pub fn modules(&self) -> &[ModuleInfo] {
        &self.inner.infos
    }

    /// Index of a module by name.
    pub fn module_index(&self, name: &str) -> Result<usize> {
        self.inner.module_index(name)
    }

    /// Resolve `module`'s export `interface.function`.
    pub fn export(&self, module: &str, interface: &str, function: &str) -> Result<ExportFn> {
        self.inner.export(module, interface, function)
    }

    /// Every module exporting `interface.function`, in module order.
    pub fn exporters(&self, interface: &str, function: &str) -> Vec<ExportFn> {
        self.inner.exporters(interface, function)
    }

    /// Call a resolved export with the host as the importer. The instance
    /// is chosen by the interface's pattern: the module's singleton
    /// instance, an idle pool instance, or (direct, fan-out) the host's own
    /// instance of the module.
    ///
    /// This is a *top-level call* (docs/security.md §2.4–2.5): it and every
    /// nested call it causes end by the callee's timeout from now, and
    /// share the application's [`CallBudget`]. Called from inside a host
    /// function, it joins the top-level call in progress instead.
    pub fn invoke(&self, f: &ExportFn, args: &[Arg<'_>]) -> Result<Output> {
        dispatch::host_invoke(&self.inner, f, args)
    }

    /// [`App::export`] + [`App::invoke`].
    pub fn call(
        &self,
        module: &str,
        interface: &str,
        function: &str,
        args: &[Arg<'_>],
    ) -> Result<Output> {
        let f = self.export(module, interface, function)?;
        self.invoke(&f, args)
    }

    /// Fan-out from the host: call `interface.function` on every exporter,
    /// in module order, each a top-level call of its own; one failing
    /// callee does not stop the others. Fails as a whole only when no
    /// module exports the function.
    pub fn call_all(
        &self,
        interface: &str,
        function: &str,
        args: &[Arg<'_>],
    ) -> Result<Vec<CalleeResult>> {
        let fs = self.exporters(interface, function);
        if fs.is_empty() {
            return Err(crate::Error::UnknownFunction {
                module: "*".into(),
                interface: interface.into(),
                function: function.into(),
            });
        }
        Ok(fs
            .iter()
            .map(|f| CalleeResult {
                callee: f.module,
                module: f.site.module.clone(),
                result: self.invoke(f, args),
            })
            .collect())
    }

    /// Cut `module` off: from now on every call into it, from the host or
    /// from a guest, fails with [`crate::Error::Suspended`] (status
    /// `SUSPENDED` in a guest's `call` entries) without running guest code.
    /// Fan-out calls skip it and still report it, so callers keep their
    /// callee numbering. A call already running finishes normally. For
    /// hosts that decide a module misbehaves (the arena disqualifies a bot
    /// after repeated failures) and do not want to pay its timeouts again.
    pub fn suspend(&self, module: &str) -> Result<()> {
        let m = self.module_index(module)?;
        self.inner.suspended[m].store(true, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Undo [`App::suspend`].
    pub fn resume(&self, module: &str) -> Result<()> {
        let m = self.module_index(module)?;
        self.inner.suspended[m].store(false, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Whether [`App::suspend`] cut `module` off.
    pub fn is_suspended(&self, module: &str) -> Result<bool> {
        let m = self.module_index(module)?;
        Ok(self.inner.suspended[m].load(std::sync::atomic::Ordering::Acquire))
    }

    /// A region by qualified name.
    pub fn region(&self, name: &str) -> Result<Region> {
        self.inner.region(name)
    }

    /// A region by id (ids come from [`RegionSlice`]s this app made).
    ///
    /// # Panics
    /// If `id` is not a region of this application.
    pub fn region_by_id(&self, id: crate::RegionId) -> Region {
        Region {
            inner: self.inner.regions[id.0 as usize].clone(),
        }
    }

    /// Every region, in id order.
    pub fn regions(&self) -> Vec<Region> {
        self.inner
            .regions
            .iter()
            .map(|r| Region { inner: r.clone() })
            .collect()
    }

    pub fn stats(&self) -> AppStats {
        self.inner.stats()
    }

    /// The access `module` has to `region`: what its descriptor asks for,
    /// at most what the host granted it (docs/security.md §1).
    pub fn access(&self, module: &str, region: &str) -> Result<Access> {
        let m = self.module_index(module)?;
        self.region(region)?;
        Ok(self.inner.modules[m].access(region))
    }

    /// The access to `region` that `module`'s descriptor asks for, granted
    /// or not.
    pub fn requested_access(&self, module: &str, region: &str) -> Result<Access> {
        let m = self.module_index(module)?;
        self.region(region)?;
        Ok(self.inner.infos[m].module.descriptor().access(region))
    }
}

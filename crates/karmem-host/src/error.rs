//! Errors of loading, binding and calling. Every failure of a call names the
//! module, the interface and the function it happened in (a [`CallSite`]);
//! nothing a guest does makes the host panic or abort.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where a call failed: the callee module and the exported function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallSite {
    /// The module name given to [`crate::Runtime::load`].
    pub module: String,
    /// Qualified interface name, `package.Interface`.
    pub interface: String,
    /// Function name within the interface.
    pub function: String,
}

impl fmt::Display for CallSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "module `{}`, {}.{}",
            self.module, self.interface, self.function
        )
    }
}

/// The status of one call as the guest ABI numbers it (docs/abi.md §5.2,
/// §5.3): what a guest sees in a `call` out entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Status {
    Ok = 0,
    UnknownFunction = 1,
    BadArgument = 2,
    ApplicationError = 3,
    Trap = 16,
    Timeout = 17,
    MemoryLimit = 18,
    ReadOnlyViolation = 19,
    /// The host has suspended the callee module ([`crate::App::suspend`]);
    /// it was not called.
    Suspended = 20,
    /// The top-level call this call belongs to exhausted one of its budgets
    /// ([`crate::CallBudget`], docs/security.md §2.5).
    BudgetExceeded = 21,
}

impl Status {
    /// The status for a `karmem_dispatch` return value; unknown values are
    /// a guest bug and count as a trap.
    pub fn from_dispatch(code: i32) -> Status {
        match code {
            0 => Status::Ok,
            1 => Status::UnknownFunction,
            2 => Status::BadArgument,
            3 => Status::ApplicationError,
            _ => Status::Trap,
        }
    }
}

/// A limit on what one top-level call may cause (docs/security.md §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Instances created during the call ([`crate::CallBudget::instances`]).
    Instances,
    /// Guest→guest and guest→host calls ([`crate::CallBudget::calls`]).
    Calls,
    /// Bytes the host copied or buffered for guests
    /// ([`crate::CallBudget::host_bytes`]).
    HostBytes,
    /// Live instances of one module ([`crate::ModuleOptions::max_instances`]).
    ModuleInstances,
    /// Fuel (WebAssembly instructions, by wasmtime's count) the guests of
    /// the call may run ([`crate::CallBudget::fuel`]).
    Fuel,
}

impl Budget {
    /// What the limit counts, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Budget::Instances => "instances created by one top-level call",
            Budget::Calls => "nested calls made by one top-level call",
            Budget::HostBytes => "bytes the host copied or buffered for one top-level call",
            Budget::ModuleInstances => "live instances of the module",
            Budget::Fuel => "fuel (guest instructions) of one top-level call",
        }
    }
}

/// Everything that can go wrong. Load and bind errors name the module (and
/// interface or region); call errors carry the [`CallSite`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    Io {
        path: PathBuf,
        message: String,
    },
    /// The engine could not be configured (a bug or an unsupported platform).
    Engine(String),
    /// Not a valid WebAssembly module, or one the ABI does not accept
    /// (memory missing or not exactly one 32-bit unshared memory, a
    /// required export missing or mistyped, a reserved name).
    InvalidModule {
        module: String,
        message: String,
    },
    /// Exports `_start` but not `_initialize` (a WASI command).
    NotAReactor {
        module: String,
    },
    /// An import the host does not provide, or with the wrong type.
    UnsatisfiedImport {
        module: String,
        import: String,
        reason: String,
    },
    /// `karmem_abi_version` returned another version (0: export missing).
    AbiMismatch {
        module: String,
        found: u32,
        supported: u32,
    },
    /// A start-up step (docs/abi.md §2) failed.
    Startup {
        module: String,
        step: String,
        message: String,
    },
    /// The module descriptor is not a valid `ModuleDesc` or breaks a rule.
    BadDescriptor {
        module: String,
        message: String,
    },
    /// An importer and an exporter disagree about an interface.
    IncompatibleInterface {
        interface: String,
        importer: String,
        exporter: String,
        reason: String,
    },
    /// Two modules declare the same region differently.
    IncompatibleMemory {
        region: String,
        first: String,
        second: String,
        reason: String,
    },
    /// A module's region windows are larger than its memory limit, which
    /// covers them (docs/security.md §2.8).
    WindowsOverLimit {
        module: String,
        windows: u64,
        limit: u64,
    },
    /// An import no exporter satisfies, an ambiguous direct binding, or a
    /// binding that names something that does not exist.
    Binding {
        module: String,
        interface: String,
        message: String,
    },
    /// Two modules share a name in one application, or a module is named
    /// `host` while the host exports interfaces ([`crate::HOST`]).
    DuplicateModule(String),
    UnknownModule(String),
    UnknownRegion(String),
    UnknownFunction {
        module: String,
        interface: String,
        function: String,
    },
    /// The host passed arguments that do not fit the function.
    BadArgument {
        site: CallSite,
        message: String,
    },
    /// The guest returned `UNKNOWN_FUNCTION`, `BAD_ARGUMENT` or
    /// `APPLICATION_ERROR`, with its error message.
    Application {
        site: CallSite,
        status: Status,
        message: String,
    },
    /// The guest trapped (including `unreachable`, stack overflow,
    /// out-of-bounds access outside any region, `proc_exit`).
    Trap {
        site: CallSite,
        message: String,
    },
    /// The call ran past its deadline (or waited that long for a busy
    /// instance).
    Timeout {
        site: CallSite,
        timeout: Duration,
    },
    /// The guest trapped after the host refused to grow its memory.
    MemoryLimit {
        site: CallSite,
        limit: u64,
    },
    /// The host has suspended the callee module ([`crate::App::suspend`]):
    /// the call was refused without running any guest code.
    Suspended {
        site: CallSite,
    },
    /// The top-level call exhausted a budget (docs/security.md §2.5): the
    /// call that hit it fails, and so does the top-level call.
    BudgetExceeded {
        site: CallSite,
        budget: Budget,
        limit: u64,
    },
    /// The guest (or the host on its behalf) tried to write into a region
    /// it may only read. The region's bytes are unchanged.
    ReadOnlyViolation {
        site: CallSite,
        region: String,
        offset: u32,
    },
    /// The guest handed the host a bad pointer or length.
    Guest {
        site: CallSite,
        message: String,
    },
    /// A fresh instance could not be created for the call.
    Instantiate {
        site: CallSite,
        message: String,
    },
}

impl Error {
    /// The ABI status of a call failure, `None` for load/bind errors.
    pub fn status(&self) -> Option<Status> {
        Some(match self {
            Error::Application { status, .. } => *status,
            Error::BadArgument { .. } => Status::BadArgument,
            Error::Trap { .. } | Error::Guest { .. } | Error::Instantiate { .. } => Status::Trap,
            Error::Timeout { .. } => Status::Timeout,
            Error::MemoryLimit { .. } => Status::MemoryLimit,
            Error::ReadOnlyViolation { .. } => Status::ReadOnlyViolation,
            Error::Suspended { .. } => Status::Suspended,
            Error::BudgetExceeded { .. } => Status::BudgetExceeded,
            _ => return None,
        })
    }

    /// The call site of a call failure.
    pub fn site(&self) -> Option<&CallSite> {
        match self {
            Error::BadArgument { site, .. }
            | Error::Application { site, .. }
            | Error::Trap { site, .. }
            | Error::Timeout { site, .. }
            | Error::MemoryLimit { site, .. }
            | Error::ReadOnlyViolation { site, .. }
            | Error::Suspended { site }
            | Error::BudgetExceeded { site, .. }
            | Error::Guest { site, .. }
            | Error::Instantiate { site, .. } => Some(site),
            _ => None,
        }
    }
}

/// Longest error text shown, in bytes (longer text is cut).
const MAX_ERROR_TEXT: usize = 16 << 10;

impl fmt::Display for Error {
    /// One line, escaped by [`crate::escape_text`]: messages quote guest
    /// text and module bytes (wasmparser, wasmtime and the WAT parser
    /// report names and source lines from them), which must not reach a
    /// terminal or log raw (docs/security.md §2.5).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let raw = Unescaped(self).to_string();
        f.write_str(&crate::log::escape_text(raw.as_bytes(), MAX_ERROR_TEXT))
    }
}

/// The text of an error as composed, before escaping.
struct Unescaped<'a>(&'a Error);

impl fmt::Display for Unescaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::Io { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Engine(m) => write!(f, "engine: {m}"),
            Error::InvalidModule { module, message } => {
                write!(f, "module `{module}`: invalid module: {message}")
            }
            Error::NotAReactor { module } => write!(
                f,
                "module `{module}`: exports `_start` but not `_initialize`: a WASI command, not a reactor (build it as a reactor/library)"
            ),
            Error::UnsatisfiedImport { module, import, reason } => {
                write!(f, "module `{module}`: unsatisfied import `{import}`: {reason}")
            }
            Error::AbiMismatch { module, found, supported } => {
                if *found == 0 {
                    write!(f, "module `{module}`: ABI mismatch: no `karmem_abi_version` export (host supports version {supported})")
                } else {
                    write!(f, "module `{module}`: ABI mismatch: module speaks version {found}, host supports version {supported}")
                }
            }
            Error::Startup { module, step, message } => {
                write!(f, "module `{module}`: start-up failed in {step}: {message}")
            }
            Error::BadDescriptor { module, message } => {
                write!(f, "module `{module}`: bad module descriptor: {message}")
            }
            Error::IncompatibleInterface { interface, importer, exporter, reason } => write!(
                f,
                "incompatible interface `{interface}` between importer `{importer}` and exporter `{exporter}`: {reason}"
            ),
            Error::IncompatibleMemory { region, first, second, reason } => write!(
                f,
                "region `{region}` is declared differently by `{first}` and `{second}`: {reason}"
            ),
            Error::Binding { module, interface, message } => {
                write!(f, "module `{module}`, import `{interface}`: {message}")
            }
            Error::WindowsOverLimit { module, windows, limit } => write!(
                f,
                "module `{module}`: its region windows take {windows} bytes, more than its memory limit of {limit} bytes (the limit covers the windows)"
            ),
            Error::DuplicateModule(m) => write!(f, "two modules are named `{m}`"),
            Error::UnknownModule(m) => write!(f, "no module named `{m}`"),
            Error::UnknownRegion(r) => write!(f, "no region named `{r}`"),
            Error::UnknownFunction { module, interface, function } => {
                write!(f, "module `{module}` exports no function {interface}.{function}")
            }
            Error::BadArgument { site, message } => write!(f, "{site}: bad argument: {message}"),
            Error::Application { site, status, message } => match status {
                Status::UnknownFunction => write!(f, "{site}: the guest has no such function"),
                Status::BadArgument => write!(f, "{site}: the guest rejected an argument: {message}"),
                _ => write!(f, "{site}: application error: {message}"),
            },
            Error::Trap { site, message } => write!(f, "{site}: trap: {message}"),
            Error::Timeout { site, timeout } => {
                write!(f, "{site}: timeout: the call exceeded {} ms", timeout.as_millis())
            }
            Error::MemoryLimit { site, limit } => {
                write!(f, "{site}: memory limit: growth past {limit} bytes was refused")
            }
            Error::ReadOnlyViolation { site, region, offset } => write!(
                f,
                "{site}: write into read-only region `{region}` (at offset {offset})"
            ),
            Error::Guest { site, message } => write!(f, "{site}: bad guest request: {message}"),
            Error::Suspended { site } => {
                write!(f, "{site}: the module is suspended by the host")
            }
            Error::Instantiate { site, message } => {
                write!(f, "{site}: could not create an instance: {message}")
            }
            Error::BudgetExceeded { site, budget, limit } => write!(
                f,
                "{site}: budget exceeded: {} (limit {limit})",
                budget.describe()
            ),
        }
    }
}

impl std::error::Error for Error {}

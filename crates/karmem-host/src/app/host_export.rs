//! Interfaces the host itself exports to guests ("host functions",
//! docs/abi.md §5.4): registration types, and the call from a guest's
//! `karmem.call` into a host implementation.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use super::bind::{AppInner, FnMeta};
use super::{App, Arg, Output};
use crate::error::{CallSite, Error, Status};
use crate::region::RegionSlice;

/// The exporter name of the host in bindings ([`crate::AppBuilder::bind`],
/// [`crate::AppBuilder::bind_all`]) and in call sites of errors. While the
/// host exports anything, no module may be named `host`.
pub const HOST: &str = "host";

/// Why a host function failed. The calling guest sees the status
/// (`APPLICATION_ERROR` or `BAD_ARGUMENT`) in its `call` entry and the
/// message through `take`, as for a guest exporter's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    status: Status,
    message: String,
}

impl HostError {
    /// The function failed (`APPLICATION_ERROR`).
    pub fn new(message: impl Into<String>) -> HostError {
        HostError {
            status: Status::ApplicationError,
            message: message.into(),
        }
    }

    /// An argument is not a valid message for its type (`BAD_ARGUMENT`).
    pub fn bad_argument(message: impl Into<String>) -> HostError {
        HostError {
            status: Status::BadArgument,
            message: message.into(),
        }
    }

    /// `ApplicationError` or `BadArgument`.
    pub fn status(&self) -> Status {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}

impl From<String> for HostError {
    fn from(message: String) -> HostError {
        HostError::new(message)
    }
}

impl From<&str> for HostError {
    fn from(message: &str) -> HostError {
        HostError::new(message)
    }
}

/// What a host function knows about the call it serves.
pub struct HostCall<'a> {
    pub(crate) app: &'a Arc<AppInner>,
    pub(crate) caller: &'a str,
    pub(crate) site: &'a CallSite,
    pub(crate) index: usize,
    pub(crate) deadline: Instant,
}

impl HostCall<'_> {
    /// The application (to read regions, or to call other modules: see
    /// [`crate::AppBuilder::host_export`] on re-entrancy). Use it during
    /// the call; an implementation that keeps it (in its own state) keeps
    /// the application alive through a reference cycle.
    pub fn app(&self) -> App {
        App {
            inner: self.app.clone(),
        }
    }

    /// Name of the calling module.
    pub fn caller(&self) -> &str {
        self.caller
    }

    /// Qualified interface name.
    pub fn interface(&self) -> &str {
        &self.site.interface
    }

    /// Name of the called function.
    pub fn function(&self) -> &str {
        &self.site.function
    }

    /// Index of the called function in the descriptor given to
    /// [`crate::AppBuilder::host_export`] (not the importer's index: they
    /// differ for dynamic interfaces).
    pub fn function_index(&self) -> usize {
        self.index
    }

    /// When the caller's call ends. The host function is not interrupted
    /// at the deadline (it is native code); the caller traps with `TIMEOUT`
    /// as soon as it runs again after it, so long work should check this.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The bytes of a region argument (or any slice of a region of this
    /// application), copied out.
    pub fn region_bytes(&self, slice: RegionSlice) -> crate::Result<Vec<u8>> {
        match self.app.regions.get(slice.region.0 as usize) {
            Some(r) => crate::Region { inner: r.clone() }.to_vec(slice),
            None => Err(Error::UnknownRegion(format!("id {}", slice.region.0))),
        }
    }
}

/// A host implementation of an interface. Implemented for every
/// `Fn(&HostCall, &[Arg]) -> Result<Output, HostError> + Send + Sync`.
///
/// `args` has one entry per declared parameter: [`Arg::Empty`] for an
/// absent value, [`Arg::Bytes`] for a copied parameter (the caller's bytes,
/// read in place: not yet validated, decode them with a validating reader),
/// [`Arg::Region`] for a parameter bound to a region. The result must match
/// the declaration: [`Output::Empty`] when there is none, [`Output::Bytes`]
/// for a copied result, [`Output::Region`] (inside the declared region)
/// for a region-bound one.
pub trait HostInterface: Send + Sync + 'static {
    fn call(&self, call: &HostCall<'_>, args: &[Arg<'_>]) -> Result<Output, HostError>;
}

impl<F> HostInterface for F
where
    F: Fn(&HostCall<'_>, &[Arg<'_>]) -> Result<Output, HostError> + Send + Sync + 'static,
{
    fn call(&self, call: &HostCall<'_>, args: &[Arg<'_>]) -> Result<Output, HostError> {
        self(call, args)
    }
}

/// A registered host export, as the application keeps it.
pub(crate) struct HostExport {
    pub imp: Arc<dyn HostInterface>,
    /// Per function: call site and region bindings.
    pub functions: Vec<FnMeta>,
}

/// The text of a panic payload.
fn panic_text(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<&str>()
        .copied()
        .or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Run function `f` of a host export for a guest caller. A panic in the
/// implementation is caught here: it must not unwind through wasmtime's
/// frames, and it fails only this call.
pub(crate) fn call_host(
    call: &HostCall<'_>,
    export: &HostExport,
    args: &[Arg<'_>],
) -> crate::Result<Output> {
    let meta = &export.functions[call.index];
    let site = &*meta.site;
    let out = match catch_unwind(AssertUnwindSafe(|| export.imp.call(call, args))) {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            return Err(Error::Application {
                site: site.clone(),
                status: e.status,
                message: e.message,
            })
        }
        Err(p) => {
            return Err(Error::Trap {
                site: site.clone(),
                message: format!("the host function panicked: {}", panic_text(&*p)),
            })
        }
    };
    let wrong = |what: &str| {
        Err(Error::Trap {
            site: site.clone(),
            message: format!("the host function returned {what}"),
        })
    };
    match (&out, meta.result) {
        (Output::Empty, _) => Ok(out),
        (_, None) => wrong("a result, but the function declares none"),
        (Output::Bytes(_), Some(None)) => Ok(out),
        (Output::Bytes(_), Some(Some(_))) => {
            wrong("bytes for a result bound to a region (return a region slice)")
        }
        (Output::Region(s), Some(Some(r))) if s.region == r => {
            let len = call.app.regions[r.0 as usize].len as u64;
            if u64::from(s.offset) + u64::from(s.len) > len {
                return wrong(&format!("a region slice {s:?} outside its region"));
            }
            Ok(out)
        }
        (Output::Region(_), _) => wrong("a region slice for a result not bound to that region"),
    }
}

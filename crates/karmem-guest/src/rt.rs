//! The runtime state of a guest instance and the ABI entry points.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::any::Any;
use core::cell::UnsafeCell;
use core::fmt;
use core::marker::PhantomData;

use crate::desc::{self, IfaceInfo, RegionInfo};
use crate::{sys, RegionSlice};

/// Mutable global state. wasm32 guests are single-threaded and the host
/// never re-enters an instance (abi.md §5.3 refuses re-entrant calls), so
/// each cell is only borrowed by one entry point at a time; the accessors
/// below keep borrows short and never hold two of the same cell.
struct Global<T>(UnsafeCell<T>);

// SAFETY: see above; off wasm32 the cells are only touched by unit tests of
// pure functions.
unsafe impl<T> Sync for Global<T> {}

impl<T> Global<T> {
    const fn new(v: T) -> Self {
        Global(UnsafeCell::new(v))
    }

    /// # Safety
    /// No other borrow of this cell may be live.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

/// A dispatch status (abi.md §5.2) or a callee's status as seen by a caller
/// (§5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ok,
    UnknownFunction,
    BadArgument,
    ApplicationError,
    Trap,
    Timeout,
    MemoryLimit,
    ReadOnlyViolation,
    /// The host has suspended the callee module (`App::suspend`); it was
    /// not called.
    Suspended,
    /// The top-level call used up a budget (abi.md §7).
    BudgetExceeded,
    /// A code this library does not know (a newer host).
    Other(u32),
}

impl Status {
    pub fn code(self) -> u32 {
        match self {
            Status::Ok => 0,
            Status::UnknownFunction => 1,
            Status::BadArgument => 2,
            Status::ApplicationError => 3,
            Status::Trap => 16,
            Status::Timeout => 17,
            Status::MemoryLimit => 18,
            Status::ReadOnlyViolation => 19,
            Status::Suspended => 20,
            Status::BudgetExceeded => 21,
            Status::Other(n) => n,
        }
    }

    pub fn from_code(code: u32) -> Status {
        match code {
            0 => Status::Ok,
            1 => Status::UnknownFunction,
            2 => Status::BadArgument,
            3 => Status::ApplicationError,
            16 => Status::Trap,
            17 => Status::Timeout,
            18 => Status::MemoryLimit,
            19 => Status::ReadOnlyViolation,
            20 => Status::Suspended,
            21 => Status::BudgetExceeded,
            n => Status::Other(n),
        }
    }
}

/// An application error of an exported function: reported to the caller
/// with status `APPLICATION_ERROR` and this message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Error {
    fn from(s: &str) -> Error {
        Error(s.into())
    }
}

impl From<String> for Error {
    fn from(s: String) -> Error {
        Error(s)
    }
}

impl From<karmem::Error> for Error {
    fn from(e: karmem::Error) -> Error {
        Error(alloc::format!("karmem: {e:?}"))
    }
}

impl From<CallError> for Error {
    fn from(e: CallError) -> Error {
        Error(alloc::format!("{e}"))
    }
}

/// Why a guest→guest call failed as a whole (abi.md §5.3), or why one
/// callee failed ([`CalleeReply::into_result`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// The interface is not in this module's `imports`.
    NotImported(&'static str),
    /// −1: the host does not know the function id.
    UnknownFunction,
    /// −2: an argument is out of range or outside its window.
    BadArgument,
    /// −4: the callee is already on this call stack.
    Reentrant,
    /// −5: no exporter is bound to this import (also: not running in a host).
    NotBound,
    /// −6: more than 32 nested calls.
    TooDeep,
    /// Another negative code (−3, or a newer host's).
    Host(i32),
    /// A direct call reached no exporter.
    NoCallee,
    /// The callee failed: its status and message.
    Callee {
        callee: u32,
        status: Status,
        message: String,
    },
    /// The callee answered `OK` with bytes that are not a valid message of
    /// the result type (abi.md §5.3).
    InvalidResult { callee: u32, error: karmem::Error },
    /// A region-bound argument names a region this module has no window of.
    NoWindow(&'static str),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::NotImported(i) => {
                write!(f, "interface `{i}` is not imported by this module")
            }
            CallError::UnknownFunction => {
                f.write_str("the host does not know this import function")
            }
            CallError::BadArgument => {
                f.write_str("an argument is out of range or outside its window")
            }
            CallError::Reentrant => {
                f.write_str("re-entrant call: the callee is already on this call stack")
            }
            CallError::NotBound => f.write_str("no exporter is bound to this import"),
            CallError::TooDeep => f.write_str("too many nested calls"),
            CallError::Host(n) => write!(f, "the host refused the call ({n})"),
            CallError::NoCallee => f.write_str("the call reached no exporter"),
            CallError::Callee {
                callee,
                status,
                message,
            } => write!(f, "callee {callee} failed ({status:?}): {message}"),
            CallError::InvalidResult { callee, error } => {
                write!(f, "callee {callee}: invalid result: {error:?}")
            }
            CallError::NoWindow(r) => write!(f, "no window of region `{r}` in this module"),
        }
    }
}

pub use karmem::Message;

/// A valid message whose root table is empty: what an absent argument or
/// result reads as (every field zero/empty).
#[repr(C, align(8))]
struct Empty([u8; 16]);
static EMPTY: Empty = Empty([
    b'K',
    b'M',
    karmem::VERSION,
    0,
    16,
    0,
    0,
    0, // header, size 16
    1,
    0,
    0,
    0x80,
    0,
    0,
    0,
    0, // root table: total 1 unit, 4 unused bytes
]);

/// Open a message; an empty slice is the empty message.
fn reader(bytes: &[u8]) -> Result<karmem::Reader<'_>, karmem::Error> {
    if bytes.is_empty() {
        karmem::Reader::new(&EMPTY.0)
    } else {
        karmem::Reader::new(bytes)
    }
}

/// The bytes of guest memory at `ptr..ptr+len` (pointers from the host or
/// into windows).
fn memory(ptr: u32, len: u32) -> &'static [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: on wasm32 the host has checked the range against the memory
    // (abi.md §5.1), or it lies in a window mapped for the instance's life.
    unsafe { core::slice::from_raw_parts(ptr as usize as *const u8, len as usize) }
}

// ---- module registration ---------------------------------------------------

/// The per-interface dispatcher generated for exports: `function` is the
/// index within the interface, `args` the argument messages.
pub type DispatchFn = fn(
    state: &mut Option<Box<dyn Any>>,
    function: u16,
    args: &[&'static [u8]],
) -> Result<(), Status>;

/// An exported interface and its dispatcher.
pub struct Export {
    pub info: &'static IfaceInfo,
    pub dispatch: DispatchFn,
}

/// What a module exports and imports (in descriptor order).
pub struct Module {
    pub exports: Vec<Export>,
    pub imports: Vec<&'static IfaceInfo>,
}

struct Registered {
    module: Module,
    regions: Vec<(&'static RegionInfo, u8)>,
    descriptor: Vec<u8>,
}

static MODULE: Global<Option<Registered>> = Global::new(None);
/// The implementation value of each export, created on its first call.
static STATES: Global<Vec<Option<Box<dyn Any>>>> = Global::new(Vec::new());
/// `(ptr, len, access)` of each region's window, by module region index;
/// access as docs/abi.km's `Access`, 0 until `karmem_bind_access` tells it.
static WINDOWS: Global<Vec<(u32, u32, u8)>> = Global::new(Vec::new());
/// Blocks the host allocated for the current call's arguments.
#[cfg(target_arch = "wasm32")]
static PENDING: Global<Vec<(usize, core::alloc::Layout)>> = Global::new(Vec::new());
/// The reusable writer of results and of argument messages.
static WRITERS: Global<Vec<karmem::Writer<'static>>> = Global::new(Vec::new());

fn module() -> Option<&'static Registered> {
    // SAFETY: written once by `register` (from `karmem_init`), read-only
    // afterwards.
    unsafe { MODULE.get() }.as_ref()
}

/// Register the module (called by `karmem_init`, which [`crate::module!`]
/// defines). Returns 0, or 1 after logging why the module is inconsistent.
pub fn register(module: Module) -> i32 {
    let exports: Vec<&IfaceInfo> = module.exports.iter().map(|e| e.info).collect();
    let built = desc::module_regions(&exports, &module.imports).and_then(|regions| {
        desc::encode(&regions, &exports, &module.imports).map(|d| (regions, d))
    });
    match built {
        Ok((regions, descriptor)) => {
            // SAFETY: karmem_init runs once, before any other entry point
            // but the ABI version check.
            unsafe {
                STATES.get().clear();
                STATES.get().resize_with(module.exports.len(), || None);
                WINDOWS.get().clear();
                WINDOWS.get().resize(regions.len(), (0, 0, 0));
                *MODULE.get() = Some(Registered {
                    module,
                    regions,
                    descriptor,
                });
            }
            0
        }
        Err(e) => {
            sys::log(0, &e);
            1
        }
    }
}

/// The encoded descriptor (empty before registration).
pub fn describe_bytes() -> &'static [u8] {
    module().map(|m| m.descriptor.as_slice()).unwrap_or(&[])
}

/// Log a line through the host (level 0 error … 4 trace).
pub fn log(level: u32, msg: &str) {
    sys::log(level, msg);
}

// ---- windows ----------------------------------------------------------------

/// Where a region is mapped in this instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    ptr: u32,
    len: u32,
    access: u8,
}

/// The window of a region (qualified name), once the host has bound it.
pub fn window(region: &str) -> Option<Window> {
    let m = module()?;
    let i = m.regions.iter().position(|(r, _)| r.name == region)?;
    // SAFETY: short read of the table; `karmem_bind_memory` runs only
    // before calls.
    let (ptr, len, access) = *unsafe { WINDOWS.get() }.get(i)?;
    (ptr != 0).then_some(Window { ptr, len, access })
}

impl Window {
    /// The region's bytes as this instance sees them. Other modules may
    /// write the region concurrently: read through a checked reader.
    pub fn bytes(&self) -> &'static [u8] {
        memory(self.ptr, self.len)
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the window in linear memory.
    pub fn ptr(&self) -> u32 {
        self.ptr
    }

    /// Whether the host said this instance may write the window
    /// (`karmem_bind_access`, abi.md §2): its grant may be less than the
    /// access the interface declares. False when the host did not say.
    pub fn writable(&self) -> bool {
        self.access == 2
    }

    /// The bytes of `s`, or `None` when `s` is outside the region.
    pub fn get(&self, s: RegionSlice) -> Option<&'static [u8]> {
        let end = u64::from(s.offset) + u64::from(s.len);
        (end <= u64::from(self.len)).then(|| memory(self.ptr + s.offset, s.len))
    }

    /// A viewer of the message at `s` (the empty message when `s` is
    /// outside the region or not a message: checked viewers never fail).
    pub fn view<T: Message>(&self, s: RegionSlice) -> T::View<'static> {
        let bytes = self.get(s).unwrap_or(&[]);
        match reader(bytes) {
            Ok(r) => T::view(&r),
            Err(_) => T::view(&reader(&[]).expect("the empty message is valid")),
        }
    }

    /// Copy `bytes` into the region at `offset`. A write into a window this
    /// module may only read traps (`READ_ONLY_VIOLATION`, abi.md §6).
    pub fn write(&self, offset: u32, bytes: &[u8]) -> Result<RegionSlice, Error> {
        let len = u32::try_from(bytes.len()).map_err(|_| Error::new("message too large"))?;
        if u64::from(offset) + u64::from(len) > u64::from(self.len) {
            return Err(Error(alloc::format!(
                "{len} bytes at offset {offset} do not fit a region of {} bytes",
                self.len
            )));
        }
        // SAFETY: the range is inside the window (checked above), which is
        // mapped for the instance's life; nothing else in this instance
        // holds a Rust reference into it across this call.
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.ptr + offset) as usize as *mut u8,
                bytes.len(),
            )
        };
        Ok(RegionSlice { offset, len })
    }

    /// Encode `value` and place it in the region at `offset` (a multiple
    /// of 8: readers need 8-byte aligned messages).
    pub fn write_message<T: Message>(&self, offset: u32, value: &T) -> Result<RegionSlice, Error> {
        if !offset.is_multiple_of(8) {
            return Err(Error(alloc::format!(
                "offset {offset} is not a multiple of 8"
            )));
        }
        with_writer(0, |w| {
            value.encode(w)?;
            self.write(offset, w.bytes())
        })
    }
}

/// Run `f` with reusable writer `k` (0 results and region writes, 1.. the
/// arguments of a call).
fn with_writer<R>(k: usize, f: impl FnOnce(&mut karmem::Writer) -> R) -> R {
    // SAFETY: entry points never nest a use of the same writer: results use
    // writer 0 after the function body returned; argument writers are used
    // only while building one call.
    let writers = unsafe { WRITERS.get() };
    while writers.len() <= k {
        writers.push(karmem::Writer::new(1024));
    }
    f(&mut writers[k])
}

// ---- exports: dispatch ----------------------------------------------------

/// The implementation value of an export (created with `Default` on the
/// first call), for generated dispatchers.
pub fn state<T: Default + 'static>(slot: &mut Option<Box<dyn Any>>) -> Result<&mut T, Status> {
    slot.get_or_insert_with(|| Box::new(T::default()))
        .downcast_mut::<T>()
        .ok_or(Status::ApplicationError)
}

/// The export function of the current dispatch: its interface's name and
/// its description, for error messages (abi.md §5.2 gives their shape).
static CURRENT: Global<Option<(&'static str, &'static desc::FuncInfo)>> = Global::new(None);

/// `package.Interface.function` of the current dispatch.
fn current_name() -> String {
    // SAFETY: short read; set by `dispatch` before the function runs.
    match unsafe { CURRENT.get() } {
        Some((iface, f)) => alloc::format!("{iface}.{}", f.name),
        None => String::new(),
    }
}

/// Fail the current dispatch with `BAD_ARGUMENT` and the message
/// `<interface>.<function>: argument <parameter>: <why>` (abi.md §5.2).
fn bad_argument(k: usize, why: fmt::Arguments<'_>) -> Status {
    // SAFETY: short read, as in `current_name`.
    let param = unsafe { CURRENT.get() }
        .and_then(|(_, f)| f.params.get(k))
        .map_or("?", |p| p.name);
    sys::error(&alloc::format!(
        "{}: argument {param}: {why}",
        current_name()
    ));
    Status::BadArgument
}

/// Argument `k` as a message reader, for generated dispatchers. A missing
/// or empty argument reads as the empty message; one that is not a message
/// fails the call with `BAD_ARGUMENT`.
pub fn arg(args: &[&'static [u8]], k: usize) -> Result<karmem::Reader<'static>, Status> {
    reader(args.get(k).copied().unwrap_or(&[]))
        .map_err(|e| bad_argument(k, format_args!("not a message: {e:?}")))
}

fn fail(e: &Error) -> Status {
    sys::error(&e.0);
    Status::ApplicationError
}

/// Report a function's copied result (or its error), for generated
/// dispatchers.
pub fn reply<T: Message>(out: Result<T, Error>) -> Result<(), Status> {
    let value = out.map_err(|e| fail(&e))?;
    with_writer(0, |w| match value.encode(w) {
        Ok(()) => {
            let b = w.bytes();
            sys::result(b.as_ptr() as usize, b.len());
            Ok(())
        }
        Err(e) => Err(fail(&e.into())),
    })
}

/// Report a result placed in a region (abi.md §5.2: a pointer into the
/// window, passed on without a copy).
pub fn reply_region(region: &'static str, out: Result<RegionSlice, Error>) -> Result<(), Status> {
    let s = out.map_err(|e| fail(&e))?;
    let w =
        window(region).ok_or_else(|| fail(&Error(alloc::format!("no window of `{region}`"))))?;
    let bytes = w.get(s).ok_or_else(|| {
        fail(&Error(alloc::format!(
            "result {s:?} lies outside region `{region}`"
        )))
    })?;
    sys::result(bytes.as_ptr() as usize, bytes.len());
    Ok(())
}

/// Report success of a function without a result.
pub fn reply_none(out: Result<(), Error>) -> Result<(), Status> {
    out.map_err(|e| fail(&e))
}

/// The trusted viewer of argument `k` (`TView<'static, karmem::Trusted>`),
/// read in place in the argument memory this dispatch copied it into, for
/// generated dispatchers. The argument is validated here, before the
/// viewer exists (abi.md §5.2): a message that is not valid for its type
/// fails the call with `BAD_ARGUMENT` and the function never runs; the
/// validation is what lets the viewer skip bounds checks. An absent
/// (empty) argument reads as the empty message, which is validated too (it
/// is valid for every table).
pub fn arg_view<T: Message>(
    args: &[&'static [u8]],
    k: usize,
) -> Result<T::TrustedView<'static>, Status> {
    let r = arg(args, k)?;
    T::trust(&r).map_err(|e| bad_argument(k, format_args!("not a valid message: {e}")))
}

/// The checked viewer of region-bound argument `k`, read in place in the
/// region's window, for generated dispatchers. It is validated first, as
/// every argument (a message that is not valid fails the call with
/// `BAD_ARGUMENT`), but the viewer keeps its bounds checks: the window is
/// shared, and a module with write access (the exporter itself, during
/// the call) may change the message after it was validated.
pub fn arg_region_view<T: Message>(
    args: &[&'static [u8]],
    k: usize,
) -> Result<T::View<'static>, Status> {
    let r = arg(args, k)?;
    if args.get(k).is_some_and(|a| !a.is_empty()) {
        T::check(&r).map_err(|e| bad_argument(k, format_args!("not a valid message: {e}")))?;
    }
    Ok(T::view(&r))
}

// ---- imports: calls ----------------------------------------------------------

/// An argument of a guest→guest call.
pub enum Arg<'a> {
    /// A message to copy into the callee.
    Value(&'a dyn ErasedMessage),
    /// A message already in a region (the callee reads it in place).
    Region(&'static str, RegionSlice),
}

/// Object-safe encoding, so [`Arg`] can hold any [`Message`].
pub trait ErasedMessage {
    fn encode_erased(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error>;
}

impl<T: Message> ErasedMessage for T {
    fn encode_erased(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {
        self.encode(w)
    }
}

/// A result: copied into this instance, or in place in a region.
pub struct Reply<T> {
    /// Owned copies are 8-byte aligned (`u64` storage).
    owned: Vec<u64>,
    len: usize,
    in_region: Option<&'static [u8]>,
    /// The copied result passed `T`'s validation when the call returned
    /// (abi.md §5.3), and `owned` has not changed since.
    validated: bool,
    _t: PhantomData<T>,
}

impl<T: Message> Reply<T> {
    fn empty() -> Self {
        Reply {
            owned: Vec::new(),
            len: 0,
            in_region: None,
            validated: false,
            _t: PhantomData,
        }
    }

    /// The message bytes (empty when the function has no result).
    pub fn bytes(&self) -> &[u8] {
        if let Some(b) = self.in_region {
            return b;
        }
        // SAFETY: `owned` holds at least `len` initialised bytes.
        unsafe { core::slice::from_raw_parts(self.owned.as_ptr().cast::<u8>(), self.len) }
    }

    /// Whether the result lives in a region (no copy was made).
    pub fn is_in_region(&self) -> bool {
        self.in_region.is_some()
    }

    /// A zero-copy viewer; a malformed result reads as empty.
    pub fn view(&self) -> T::View<'_> {
        match reader(self.bytes()) {
            Ok(r) => T::view(&r),
            Err(_) => T::view(&reader(&[]).expect("the empty message is valid")),
        }
    }

    /// The trusted viewer of a copied result (`TView<'_, karmem::Trusted>`,
    /// loads without bounds checks): `Some` when the result was copied into
    /// this instance, where [`call`] validated it as it arrived; `None` for
    /// a result in a region (its window is shared and may change after the
    /// check: read it with [`Reply::view`]) and for no result.
    pub fn trusted(&self) -> Option<T::TrustedView<'_>> {
        if !self.validated || self.in_region.is_some() {
            return None;
        }
        let r = reader(self.bytes()).ok()?;
        // SAFETY: `validated` is set only after `T::check` accepted these
        // bytes, which `owned` keeps unchanged (nothing writes to it).
        Some(T::view_trusted(&unsafe { r.assume_trusted() }))
    }

    /// Decode into an owned object.
    pub fn decode(&self) -> Result<T, karmem::Error> {
        T::decode(&reader(self.bytes())?)
    }
}

/// One callee's answer to a call (abi.md §5.3).
pub struct CalleeReply<T> {
    /// The exporter's index in the application (manifest order).
    pub callee: u32,
    pub status: Status,
    /// The result when `status` is `Ok` and `invalid` is `None`.
    pub reply: Reply<T>,
    /// The error message when `status` is not `Ok` (may be empty).
    pub message: String,
    /// Why the result is not a valid message of its type, when the callee
    /// answered `Ok` with such bytes (abi.md §5.3: the caller's library
    /// checks every result); `reply` is then empty.
    pub invalid: Option<karmem::Error>,
}

impl<T: Message> CalleeReply<T> {
    /// `Ok(reply)` or the callee's failure as an error.
    pub fn into_result(self) -> Result<Reply<T>, CallError> {
        if let Some(error) = self.invalid {
            Err(CallError::InvalidResult {
                callee: self.callee,
                error,
            })
        } else if self.status == Status::Ok {
            Ok(self.reply)
        } else {
            Err(CallError::Callee {
                callee: self.callee,
                status: self.status,
                message: self.message,
            })
        }
    }
}

/// Entries of the `out` array: room for this many callees per call.
const OUT_CAP: usize = 1024;
static OUT: Global<Vec<[u32; 4]>> = Global::new(Vec::new());

/// Call function `function` of the imported interface `iface` with `args`;
/// one [`CalleeReply`] per callee (one for direct, singleton and pool; one
/// per exporter for fan-out, in manifest order).
pub fn call<T: Message>(
    iface: &'static IfaceInfo,
    function: u16,
    args: &[Arg<'_>],
) -> Result<Vec<CalleeReply<T>>, CallError> {
    let m = module().ok_or(CallError::NotImported(iface.name))?;
    let i = m
        .module
        .imports
        .iter()
        .position(|x| core::ptr::eq(*x, iface) || x.name == iface.name)
        .ok_or(CallError::NotImported(iface.name))?;
    // Encode the copied arguments into reusable writers 1.., then collect
    // the pointers (writers do not move while we hold these).
    let mut pairs: Vec<[u32; 2]> = Vec::with_capacity(args.len());
    for (k, a) in args.iter().enumerate() {
        let pair = match a {
            Arg::Value(v) => with_writer(k + 1, |w| {
                v.encode_erased(w).map_err(|_| CallError::BadArgument)?;
                let b = w.bytes();
                Ok([b.as_ptr() as usize as u32, b.len() as u32])
            })?,
            Arg::Region(name, s) => {
                let w = window(name).ok_or(CallError::NoWindow(name))?;
                let b = w.get(*s).ok_or(CallError::BadArgument)?;
                [b.as_ptr() as usize as u32, b.len() as u32]
            }
        };
        pairs.push(pair);
    }
    // SAFETY: only `call` uses OUT, and calls do not nest within a guest.
    let out = unsafe { OUT.get() };
    out.resize(OUT_CAP, [0; 4]);
    let id = ((i as u32) << 16) | u32::from(function);
    let n = sys::call(id, &pairs, out);
    if n < 0 {
        return Err(match n {
            -1 => CallError::UnknownFunction,
            -2 => CallError::BadArgument,
            -4 => CallError::Reentrant,
            -5 => CallError::NotBound,
            -6 => CallError::TooDeep,
            n => CallError::Host(n),
        });
    }
    let n = (n as usize).min(OUT_CAP);
    let mut replies = Vec::with_capacity(n);
    for (k, &[status, callee, len, ptr]) in out[..n].iter().enumerate() {
        let status = Status::from_code(status);
        let mut r = CalleeReply {
            callee,
            status,
            reply: Reply::empty(),
            message: String::new(),
            invalid: None,
        };
        if status == Status::Ok && ptr != 0 {
            r.reply.in_region = Some(memory(ptr, len));
        } else if len > 0 {
            let mut buf: Vec<u64> = alloc::vec![0; (len as usize).div_ceil(8)];
            // SAFETY: `buf` has room for `len` bytes.
            let dst = unsafe {
                core::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), len as usize)
            };
            if sys::take(k as u32, dst) == 0 {
                if status == Status::Ok {
                    r.reply.owned = buf;
                    r.reply.len = len as usize;
                } else {
                    r.message = String::from_utf8_lossy(dst).into_owned();
                }
            }
        }
        // The host moved the result's bytes without reading them: check them
        // as a dispatcher checks its arguments (abi.md §5.2, §5.3).
        let bytes = r.reply.bytes();
        if status == Status::Ok && !bytes.is_empty() {
            r.invalid = reader(bytes).and_then(|rd| T::check(&rd)).err();
            if r.invalid.is_some() {
                r.reply = Reply::empty();
            } else {
                r.reply.validated = true;
            }
        }
        replies.push(r);
    }
    Ok(replies)
}

/// [`call`] for patterns with exactly one callee: its result, or its
/// failure as an error.
pub fn call_one<T: Message>(
    iface: &'static IfaceInfo,
    function: u16,
    args: &[Arg<'_>],
) -> Result<Reply<T>, CallError> {
    call::<T>(iface, function, args)?
        .into_iter()
        .next()
        .ok_or(CallError::NoCallee)?
        .into_result()
}

// ---- the ABI exports (wasm32) -----------------------------------------------

#[cfg(target_arch = "wasm32")]
mod exports {
    use super::*;

    #[no_mangle]
    pub extern "C" fn karmem_abi_version() -> i32 {
        1
    }

    #[no_mangle]
    pub extern "C" fn karmem_describe() -> i64 {
        let d = describe_bytes();
        (d.as_ptr() as usize as u32 as i64) | ((d.len() as i64) << 32)
    }

    /// Windows (64 KiB alignment) live as long as the instance; everything
    /// else the host allocates is argument memory, freed after the
    /// dispatch that uses it (abi.md §5.2).
    #[no_mangle]
    pub extern "C" fn karmem_alloc(size: i32, align: i32) -> i32 {
        let Ok(layout) = core::alloc::Layout::from_size_align(
            (size as u32).max(1) as usize,
            align as u32 as usize,
        ) else {
            return 0;
        };
        // SAFETY: non-zero size.
        let p = unsafe { alloc::alloc::alloc(layout) };
        if p.is_null() {
            return 0;
        }
        if layout.align() < 65536 {
            // SAFETY: short borrow; the host never calls us re-entrantly.
            unsafe { PENDING.get() }.push((p as usize, layout));
        }
        p as usize as i32
    }

    #[no_mangle]
    pub extern "C" fn karmem_bind_memory(index: i32, ptr: i32, len: i32) {
        // SAFETY: runs at start-up, before any call.
        if let Some(w) = unsafe { WINDOWS.get() }.get_mut(index as u32 as usize) {
            (w.0, w.1) = (ptr as u32, len as u32);
        }
    }

    #[no_mangle]
    pub extern "C" fn karmem_bind_access(index: i32, access: i32) {
        // SAFETY: runs at start-up, before any call.
        if let Some(w) = unsafe { WINDOWS.get() }.get_mut(index as u32 as usize) {
            w.2 = access.clamp(0, 2) as u8;
        }
    }

    #[no_mangle]
    pub extern "C" fn karmem_dispatch(function: i32, args: i32, count: i32) -> i32 {
        let status = dispatch(function as u32, args as u32, count as u32);
        // The argument memory is ours now (abi.md §5.2): free it.
        // SAFETY: short borrow, after the dispatch finished.
        for (p, layout) in unsafe { PENDING.get() }.drain(..) {
            unsafe { alloc::alloc::dealloc(p as *mut u8, layout) };
        }
        status.code() as i32
    }

    /// The checks every guest library makes, in this order (abi.md §5.2):
    /// the function id, the number of arguments, then each argument.
    fn dispatch(function: u32, args: u32, count: u32) -> Status {
        // SAFETY: short borrow; cleared so that no message of an earlier
        // dispatch names this one.
        unsafe { *CURRENT.get() = None };
        let (e, f) = ((function >> 16) as usize, (function & 0xffff) as usize);
        let Some((export, info)) = module()
            .and_then(|m| m.module.exports.get(e))
            .and_then(|x| Some((x, x.info.functions.get(f)?)))
        else {
            sys::error(&alloc::format!("no export function {function}"));
            return Status::UnknownFunction;
        };
        // SAFETY: short borrow, read by the messages of this dispatch.
        unsafe { *CURRENT.get() = Some((export.info.name, info)) };
        if count as usize != info.params.len() {
            sys::error(&alloc::format!(
                "{}: {count} arguments for {} parameters",
                current_name(),
                info.params.len()
            ));
            return Status::BadArgument;
        }
        if count > 0 && args == 0 {
            sys::error(&alloc::format!(
                "{}: the argument array is at address 0",
                current_name()
            ));
            return Status::BadArgument;
        }
        let table = memory(args, count.saturating_mul(8));
        let mut slices: Vec<&'static [u8]> = Vec::with_capacity(count as usize);
        for (k, c) in table.chunks_exact(8).enumerate() {
            let ptr = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let len = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
            // Address 0 is never an argument's (karmem_alloc returns 0 only
            // for "out of memory"), and a slice there would be a null
            // pointer in Rust.
            if ptr == 0 && len > 0 {
                return bad_argument(k, format_args!("{len} bytes at address 0"));
            }
            slices.push(memory(ptr, len));
        }
        // SAFETY: one export's state is borrowed by its dispatch only; the
        // host refuses re-entrant calls into this instance.
        let states = unsafe { STATES.get() };
        let Some(slot) = states.get_mut(e) else {
            return Status::UnknownFunction;
        };
        match (export.dispatch)(slot, f as u16, &slices) {
            Ok(()) => Status::Ok,
            Err(s) => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_message_is_valid() {
        let r = reader(&[]).unwrap();
        assert_eq!(r.size(), 16);
        assert!(!r.root().has(4, 1));
    }

    #[test]
    fn status_codes_round_trip() {
        for c in [0, 1, 2, 3, 16, 17, 18, 19, 20, 99] {
            assert_eq!(Status::from_code(c).code(), c);
        }
        assert_eq!(Status::from_code(20), Status::Suspended);
        assert_eq!(Status::from_code(99), Status::Other(99));
    }

    #[test]
    fn calls_off_wasm_report_no_host() {
        static I: IfaceInfo = IfaceInfo {
            name: "t.I",
            hash: 0,
            dynamic: false,
            pattern: 0,
            pool_size: 0,
            regions: &[],
            functions: &[],
        };
        assert!(matches!(
            call_one::<()>(&I, 0, &[]),
            Err(CallError::NotImported("t.I"))
        ));
    }
}

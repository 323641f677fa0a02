//! The host's access to a guest's linear memory: every read bounds-checked,
//! every write bounds-checked *and* checked against the read-only range
//! first (a host write into a `PROT_READ` window would fault in host code
//! and kill the process).

use wasmtime::{AsContext, AsContextMut};

use super::classify::Abort;
use super::State;

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
/// read-only window. Every host write goes through here first.
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
    // contract: host bytes or a checked range of another live memory);
    // raw copies, because windows may be shared with other threads.
    unsafe { std::ptr::copy(src, dst, len) };
    Ok(())
}

//! Shared memory regions (docs/abi.md §6): one `memfd` per region, mapped
//! into every module that uses it and into the host.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use crate::descriptor::MemoryDesc;
use crate::error::{Error, Result};

/// Index of a region in its [`crate::App`] (stable for the app's life).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegionId(pub u32);

/// A byte range of a region: how a region-bound argument or result travels
/// (no copy; every module sees the same bytes at the same offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegionSlice {
    pub region: RegionId,
    pub offset: u32,
    pub len: u32,
}

/// A region of an application, as the host sees it. Cheap to clone.
///
/// The host always has read-write access. Guests may write the region
/// concurrently while they run; the safe accessors copy with plain
/// (non-`&[u8]`) memory operations, the `unsafe` ones hand out slices and
/// leave it to the caller to know that no guest writes meanwhile.
#[derive(Clone)]
pub struct Region {
    pub(crate) inner: Arc<RegionInner>,
}

pub(crate) struct RegionInner {
    pub id: RegionId,
    pub desc: MemoryDesc,
    /// `None` for a region nobody may use (see [`RegionInner::unused`]).
    pub fd: Option<OwnedFd>,
    /// The host's own read-write mapping of the whole region (null when
    /// `len` is 0).
    pub base: *mut u8,
    pub len: usize,
}

// SAFETY: `base` points to a shared mapping owned by this struct for its
// whole life; all accesses through it are raw copies (see `Region`).
unsafe impl Send for RegionInner {}
unsafe impl Sync for RegionInner {}

impl Drop for RegionInner {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: `base..base+len` is the mapping made in `RegionInner::new`.
            unsafe { libc::munmap(self.base.cast(), self.len) };
        }
    }
}

impl RegionInner {
    /// A region that a descriptor declares but that no module may map (no
    /// grant) and the host neither exports nor fills: nothing is created
    /// for it, so a guest cannot make the host spend memory or a file
    /// descriptor by declaring regions (docs/security.md §2.8). It reads as
    /// 0 bytes long.
    pub fn unused(id: RegionId, desc: &MemoryDesc) -> RegionInner {
        RegionInner {
            id,
            desc: desc.clone(),
            fd: None,
            base: std::ptr::null_mut(),
            len: 0,
        }
    }

    /// Create the memfd of `desc.size()` bytes (zero-filled) and map it
    /// read-write into the host.
    pub fn new(id: RegionId, desc: &MemoryDesc) -> Result<RegionInner> {
        let len =
            usize::try_from(desc.size()).map_err(|_| Error::Engine("region too large".into()))?;
        let name = std::ffi::CString::new(format!("karmem:{}", desc.name)).unwrap_or_default();
        // SAFETY: plain syscalls; the fd is owned right away.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(os_error("memfd_create", &desc.name));
        }
        // SAFETY: `fd` was just created and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a valid fd.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(os_error("ftruncate", &desc.name));
        }
        // SAFETY: a fresh shared mapping of the whole file.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_error("mmap", &desc.name));
        }
        Ok(RegionInner {
            id,
            desc: desc.clone(),
            fd: Some(fd),
            base: base.cast(),
            len,
        })
    }
}

fn os_error(what: &str, region: &str) -> Error {
    Error::Engine(format!(
        "region `{region}`: {what}: {}",
        std::io::Error::last_os_error()
    ))
}

impl Region {
    pub fn id(&self) -> RegionId {
        self.inner.id
    }

    /// Qualified name, `package.memory`.
    pub fn name(&self) -> &str {
        &self.inner.desc.name
    }

    /// The declaration (accesses, pages).
    pub fn desc(&self) -> &MemoryDesc {
        &self.inner.desc
    }

    /// Size in bytes (`max_pages × 65536`), or 0 for a region that was not
    /// created because no module may map it and the host does not use it.
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// Whether the region was not created (see [`Region::len`]).
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    fn check(&self, offset: u32, len: usize) -> Result<usize> {
        let start = offset as usize;
        match start.checked_add(len) {
            Some(end) if end <= self.inner.len => Ok(start),
            _ => Err(Error::BadArgument {
                site: crate::CallSite {
                    module: "<host>".into(),
                    interface: String::new(),
                    function: format!("region `{}`", self.name()),
                },
                message: format!(
                    "{len} bytes at offset {offset} do not fit in {} bytes",
                    self.inner.len
                ),
            }),
        }
    }

    /// A slice descriptor for arguments, bounds-checked.
    pub fn slice(&self, offset: u32, len: u32) -> Result<RegionSlice> {
        self.check(offset, len as usize)?;
        Ok(RegionSlice {
            region: self.inner.id,
            offset,
            len,
        })
    }

    /// Copy `buf.len()` bytes at `offset` out of the region.
    pub fn read(&self, offset: u32, buf: &mut [u8]) -> Result<()> {
        let start = self.check(offset, buf.len())?;
        if buf.is_empty() {
            // An unused region has no mapping (a null base).
            return Ok(());
        }
        // SAFETY: in bounds of the live mapping; a raw copy tolerates
        // concurrent writers (the bytes may be torn, never out of bounds).
        unsafe { std::ptr::copy(self.inner.base.add(start), buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    /// The bytes of a slice, copied.
    pub fn to_vec(&self, slice: RegionSlice) -> Result<Vec<u8>> {
        let mut v = vec![0; slice.len as usize];
        self.read(slice.offset, &mut v)?;
        Ok(v)
    }

    /// Copy `bytes` into the region at `offset` (bounds-checked; the host
    /// may write every region).
    pub fn write(&self, offset: u32, bytes: &[u8]) -> Result<()> {
        let start = self.check(offset, bytes.len())?;
        if bytes.is_empty() {
            return Ok(());
        }
        // SAFETY: in bounds of the live, writable host mapping.
        unsafe { std::ptr::copy(bytes.as_ptr(), self.inner.base.add(start), bytes.len()) };
        Ok(())
    }

    /// The whole region as a slice, for zero-copy reads by the host.
    ///
    /// # Safety
    /// No guest call that may write this region may run while the slice is
    /// alive (e.g. read between calls, or only while readers run).
    pub unsafe fn as_slice(&self) -> &[u8] {
        if self.inner.len == 0 {
            return &[];
        }
        // SAFETY: the mapping lives as long as `self`; exclusivity is the
        // caller's promise.
        unsafe { std::slice::from_raw_parts(self.inner.base, self.inner.len) }
    }

    /// The whole region as a mutable slice, for zero-copy writes by the
    /// host (e.g. a `karmem::Writer` target).
    ///
    /// # Safety
    /// No guest call that uses this region may run while the slice is
    /// alive, and no other slice of it may exist.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_slice(&self) -> &mut [u8] {
        if self.inner.len == 0 {
            return &mut [];
        }
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts_mut(self.inner.base, self.inner.len) }
    }
}

//! Shared memory regions (docs/abi.md §6): one `memfd` per application
//! holding all of its regions, each region mapped into every module that
//! uses it and into the host.

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

/// The memory behind all of an application's regions: one `memfd`, one
/// host mapping. One file for every region, not one each: an application
/// then costs the host one file descriptor and one mapping however many
/// regions it has (`vm.max_map_count` and the descriptor limit bound how
/// many applications a process holds: RATIONALE R8.17). When the last
/// reference goes (the application and every instance that maps a window
/// of it, every `Region` handle), the file is emptied and kept for the next
/// application of the runtime that needs one of the same size
/// ([`SpareFiles`], R8.23).
pub(crate) struct RegionFile {
    /// `None` only while being dropped.
    memory: Option<FileMemory>,
    spares: Arc<SpareFiles>,
}

/// A `memfd` and the host's own read-write mapping of the whole of it.
struct FileMemory {
    fd: OwnedFd,
    base: *mut u8,
    len: usize,
}

// SAFETY: `base` points to a shared mapping owned by this struct for its
// whole life; all accesses through it are raw copies (see `Region`).
unsafe impl Send for FileMemory {}
unsafe impl Sync for FileMemory {}

impl Drop for FileMemory {
    fn drop(&mut self) {
        // SAFETY: `base..base+len` is the mapping made in `FileMemory::new`.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

impl FileMemory {
    /// A zero-filled file of `len` bytes, mapped read-write into the host.
    fn new(len: usize) -> Result<FileMemory> {
        // SAFETY: plain syscalls; the fd is owned right away.
        let fd = unsafe { libc::memfd_create(c"karmem:regions".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(os_error("memfd_create"));
        }
        // SAFETY: `fd` was just created and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a valid fd.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(os_error("ftruncate"));
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
            return Err(os_error("mmap"));
        }
        Ok(FileMemory {
            fd,
            base: base.cast(),
            len,
        })
    }

    /// Give every page of the file back to the kernel: it reads as zeros
    /// again, through every mapping of it.
    fn empty(&self) -> bool {
        // SAFETY: a valid fd; the range is the file's.
        unsafe {
            libc::fallocate(
                self.fd.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                0,
                self.len as libc::off_t,
            ) == 0
        }
    }
}

/// Region files of applications that are gone, emptied, for the next
/// applications of the same runtime (R8.23): creating a file and its
/// mapping, and unmapping and closing it, are four system calls that
/// change the process's mappings, where emptying it is one. At most
/// [`SpareFiles::MAX`] are kept (each holds a descriptor and a mapping,
/// the resources that bound how many applications a process holds, and no
/// memory: an emptied file has no pages).
#[derive(Default)]
pub(crate) struct SpareFiles {
    files: std::sync::Mutex<Vec<FileMemory>>,
}

impl SpareFiles {
    const MAX: usize = 16;

    /// A zero-filled file of `len` bytes (a multiple of 64 KiB, not 0),
    /// mapped read-write into the host: a spare one of that size if there
    /// is one.
    pub fn file(self: &Arc<Self>, len: usize) -> Result<RegionFile> {
        let spare = {
            let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
            files
                .iter()
                .position(|f| f.len == len)
                .map(|i| files.swap_remove(i))
        };
        let memory = match spare {
            Some(m) => m,
            None => FileMemory::new(len)?,
        };
        Ok(RegionFile {
            memory: Some(memory),
            spares: self.clone(),
        })
    }
}

impl Drop for RegionFile {
    fn drop(&mut self) {
        let Some(memory) = self.memory.take() else {
            return;
        };
        // Emptied first, then kept only if that worked: a spare file never
        // holds a previous application's bytes. Nothing maps it any more
        // but the host (every window's instance held this file).
        if memory.empty() {
            let mut files = self.spares.files.lock().unwrap_or_else(|p| p.into_inner());
            if files.len() < SpareFiles::MAX {
                files.push(memory);
            }
        }
    }
}

impl RegionFile {
    fn memory(&self) -> &FileMemory {
        self.memory
            .as_ref()
            .expect("a region file's memory lives until it is dropped")
    }

    /// The file, to map windows of.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.memory().fd)
    }
}

pub(crate) struct RegionInner {
    pub id: RegionId,
    pub desc: MemoryDesc,
    /// The application's region file and where this region starts in it
    /// (a multiple of 64 KiB); `None` for a region nobody may use (see
    /// [`RegionInner::unused`]).
    pub file: Option<(Arc<RegionFile>, usize)>,
    /// This region in the host's mapping (null when `len` is 0).
    pub base: *mut u8,
    pub len: usize,
}

// SAFETY: `base` points into the mapping of `file`, which lives as long as
// this struct; all accesses through it are raw copies (see `Region`).
unsafe impl Send for RegionInner {}
unsafe impl Sync for RegionInner {}

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
            file: None,
            base: std::ptr::null_mut(),
            len: 0,
        }
    }

    /// Region `desc` at `offset` of `file` (`desc.size()` bytes, zero).
    pub fn in_file(
        id: RegionId,
        desc: &MemoryDesc,
        file: &Arc<RegionFile>,
        offset: usize,
    ) -> RegionInner {
        let len = desc.size() as usize;
        debug_assert!(offset + len <= file.memory().len && offset.is_multiple_of(65536));
        RegionInner {
            id,
            desc: desc.clone(),
            // SAFETY: `offset + len` is inside the file's mapping (the
            // caller sized the file for every region).
            base: unsafe { file.memory().base.add(offset) },
            file: Some((file.clone(), offset)),
            len,
        }
    }
}

fn os_error(what: &str) -> Error {
    Error::Engine(format!(
        "regions: {what}: {}",
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

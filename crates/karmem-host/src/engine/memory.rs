//! Linear memories that never move, and the windows mapped into them.
//!
//! wasmtime's pooling allocator ignores custom memory creators, and its
//! copy-on-write initialisation panics on a module with a data segment when
//! a custom creator is used (seen with wasmtime 48); so the engine uses this creator
//! with `memory_init_cow(false)`. Each memory is one `PROT_NONE` reservation
//! of the configured size (`RuntimeConfig::bounds_checks`: 4 GiB, or the
//! explicit-checks reservation) plus the configured guard on both sides
//! (none under explicit checks), made accessible (`PROT_READ|PROT_WRITE`)
//! as it grows, never past the reservation. Because the base never moves,
//! a region window mapped with `MAP_FIXED` stays where the guest was told
//! it is, and host pointers into guest memory stay valid for the
//! instance's life.

use std::os::fd::{AsRawFd, BorrowedFd};

use wasmtime::{LinearMemory, MemoryCreator, MemoryType};

/// Memory creator installed with `Config::with_host_memory`.
pub(crate) struct FixedCreator;

struct FixedMemory {
    /// Start of the whole mapping (pre-guard included).
    mapping: *mut u8,
    mapping_len: usize,
    /// Start of the linear memory.
    base: *mut u8,
    /// Accessible bytes.
    size: usize,
    /// Reserved bytes after `base` (growth never goes past it).
    reserved: usize,
}

// SAFETY: the mapping is owned by this value; wasmtime serialises access to
// a memory through its store.
unsafe impl Send for FixedMemory {}
unsafe impl Sync for FixedMemory {}

impl Drop for FixedMemory {
    fn drop(&mut self) {
        // Unmaps the windows too: they live inside this range.
        // SAFETY: exactly the mapping made in `new_memory`.
        unsafe { libc::munmap(self.mapping.cast(), self.mapping_len) };
    }
}

fn protect_rw(at: *mut u8, len: usize) -> std::io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    // SAFETY: callers pass a page-aligned range inside a reservation they own.
    if unsafe { libc::mprotect(at.cast(), len, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

// SAFETY: `as_ptr` is stable for the memory's life, `byte_capacity` bytes
// are reserved after it and `guard` unmapped bytes after that.
unsafe impl LinearMemory for FixedMemory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.reserved
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        if new_size > self.reserved {
            wasmtime::bail!(
                "memory cannot grow past its {} byte reservation",
                self.reserved
            );
        }
        if new_size > self.size {
            // Only the new tail changes protection: windows lie below `size`.
            // SAFETY: `base + size .. base + new_size` is inside the reservation.
            protect_rw(unsafe { self.base.add(self.size) }, new_size - self.size)?;
            self.size = new_size;
        }
        Ok(())
    }

    fn as_ptr(&self) -> *mut u8 {
        self.base
    }
}

// SAFETY: the memories returned satisfy the reservation and guard
// requirements (see `FixedMemory`), and are zero-filled (fresh anonymous
// pages).
unsafe impl MemoryCreator for FixedCreator {
    fn new_memory(
        &self,
        ty: MemoryType,
        minimum: usize,
        _maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String> {
        if ty.is_64() || ty.is_shared() {
            return Err("only unshared 32-bit memories are supported".into());
        }
        // Without a reservation from the engine, reserve the whole 32-bit
        // space: the memory must never move.
        let reserved = reserved_size_in_bytes.unwrap_or(1 << 32);
        // A declared maximum above the reservation is no reason to refuse
        // the module: growth stops at the reservation (wasmtime refuses to
        // grow an immovable memory past `byte_capacity`), as it would at a
        // memory limit. Only an initial size that does not fit is refused.
        if minimum > reserved {
            return Err(format!(
                "the memory's initial {minimum} bytes do not fit its {reserved} byte reservation (RuntimeConfig::bounds_checks)"
            ));
        }
        let guard = guard_size_in_bytes;
        let mapping_len = guard + reserved + guard;
        // SAFETY: a fresh anonymous reservation, no access.
        let mapping = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapping_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if mapping == libc::MAP_FAILED {
            return Err(format!(
                "reserving {mapping_len} bytes: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mapping: *mut u8 = mapping.cast();
        // SAFETY: inside the mapping.
        let base = unsafe { mapping.add(guard) };
        let mem = FixedMemory {
            mapping,
            mapping_len,
            base,
            size: 0,
            reserved,
        };
        let mut mem = mem;
        mem.grow_to(minimum).map_err(|e| e.to_string())?;
        Ok(Box::new(mem))
    }
}

/// Map `len` bytes of the region file `fd`, from `file_offset` (page
/// aligned), over guest memory at `base + offset`, shared, read-only or
/// read-write.
///
/// # Safety
/// `base + offset .. + len` must be inside a live linear memory made by
/// [`FixedCreator`], page-aligned, and not in use by any Rust reference.
pub(crate) unsafe fn map_window(
    base: *mut u8,
    offset: usize,
    len: usize,
    fd: BorrowedFd<'_>,
    file_offset: usize,
    writable: bool,
) -> std::io::Result<()> {
    let prot = if writable {
        libc::PROT_READ | libc::PROT_WRITE
    } else {
        libc::PROT_READ
    };
    // SAFETY: per the contract, the target range belongs to a reservation
    // we own; MAP_FIXED replaces the anonymous pages there.
    let at = unsafe { base.add(offset) };
    let got = unsafe {
        libc::mmap(
            at.cast(),
            len,
            prot,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd.as_raw_fd(),
            file_offset as libc::off_t,
        )
    };
    if got == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Replace `len` bytes of guest memory at `base + offset` (a block that
/// windows were mapped into) with private zero pages, readable and
/// writable, as they were before the windows: what a pool's slot must hold
/// before wasmtime resets it for the next instance (RATIONALE R8.22).
///
/// # Safety
/// `base + offset .. + len` must be inside a live linear memory that does
/// not move, page-aligned, and not in use by any Rust reference.
pub(crate) unsafe fn unmap_window(base: *mut u8, offset: usize, len: usize) -> std::io::Result<()> {
    // SAFETY: per the contract; MAP_FIXED replaces the shared pages.
    let at = unsafe { base.add(offset) };
    let got = unsafe {
        libc::mmap(
            at.cast(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if got == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

//! How the engine is set up, and what the module cache reports.

use std::path::PathBuf;
use std::time::Duration;

/// Code generation effort; part of the cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OptLevel {
    /// No optimisation: fastest compile, slowest code.
    None,
    /// Cranelift's default.
    #[default]
    Speed,
}

/// How guest memory accesses are kept inside the guest's linear memory;
/// part of the engine configuration and so of the cache key (docs/abi.md
/// §7, RATIONALE R8.20). Read-only windows are enforced the same way under
/// both (docs/security.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BoundsChecks {
    /// Each memory reserves the whole 32-bit space, 4 GiB, with a 32 MiB
    /// guard region on either side: compiled code checks no address, and
    /// an access outside the memory faults in the reservation. 4 GiB +
    /// 64 MiB of address space per instance.
    #[default]
    GuardPages,
    /// Each memory reserves `reservation` bytes (rounded up to whole 64 KiB
    /// pages; at least one page, at most 4 GiB) and no guard region:
    /// compiled code compares every address with that constant. The
    /// reservation is also the most any memory of the runtime may grow to:
    /// past it `memory.grow` fails as it does at a module's memory limit,
    /// and a module whose initial memory is larger cannot be instantiated.
    /// Choose it at least as large as the largest `memory_limit` of the
    /// modules the runtime runs.
    Explicit {
        /// Bytes of address space per memory.
        reservation: u64,
    },
}

impl BoundsChecks {
    /// The bytes each memory reserves: 4 GiB for [`BoundsChecks::GuardPages`],
    /// the reservation rounded up to 64 KiB pages for
    /// [`BoundsChecks::Explicit`]. An error names a reservation that is 0
    /// or above 4 GiB.
    pub fn reservation(&self) -> Result<u64, String> {
        const PAGE: u64 = 1 << 16;
        match *self {
            BoundsChecks::GuardPages => Ok(1 << 32),
            BoundsChecks::Explicit { reservation } if (1..=1 << 32).contains(&reservation) => {
                Ok(reservation.div_ceil(PAGE) * PAGE)
            }
            BoundsChecks::Explicit { reservation } => Err(format!(
                "bounds_checks: a reservation of {reservation} bytes; it must be more than 0 and at most 4 GiB"
            )),
        }
    }
}

/// Where instances' memories and tables come from (RATIONALE R8.22,
/// docs/benchmarks.md "Density"). Not part of what a window or a limit
/// promises: both hold the same way under either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Instances {
    /// Each instance reserves its memory when it is created and unmaps it
    /// when it is dropped; data segments are copied in. No limit on the
    /// number of live instances but the process's address space and
    /// mappings.
    #[default]
    OnDemand,
    /// `slots` memory and table slots reserved once, when the runtime is
    /// created (wasmtime's pooling allocator): an instance takes a free
    /// slot, maps its module's data segments copy-on-write (once per slot
    /// and module: a slot remembers the module it last held), and gives the
    /// slot back reset when it is dropped. Creating an instance then costs
    /// no reservation, no `munmap` and no copy of the data segments. At
    /// most `slots` instances are alive at once across the runtime; one
    /// more is refused with [`crate::Error::Startup`] naming the limit.
    /// Each slot reserves the address space of one memory
    /// ([`BoundsChecks`]) up front: 4 GiB + 64 MiB under guard pages, so
    /// 10 000 slots take 40 TiB of the 128 TiB a process has. Tables hold
    /// at most 20 000 elements in a slot (a module whose table starts
    /// larger, or whose memory starts larger than a slot, is refused when
    /// it is loaded). Part of the cache key.
    /// [`Instances::pooled`] picks `keep_resident`.
    Pooled {
        /// Instances alive at once, at most; at least 1.
        slots: u32,
        /// Bytes of a slot's memory (and of its table) reset in place
        /// with `memset` when its instance goes, instead of being handed
        /// back to the kernel: the pages the instance touched, up to this
        /// much, stay resident, so the slot's next instance takes no page
        /// faults for them. The price is memory: a free slot keeps up to
        /// this much resident, so a pool holds at most `slots ×
        /// keep_resident` bytes for instances that are gone. 0 hands
        /// every page back.
        keep_resident: u32,
    },
}

impl Instances {
    /// A pool of `slots` with 1 MiB of each kept resident (the size of
    /// the echo guests' touched memory in C, Zig and Rust, measured in
    /// docs/benchmarks.md "Density").
    pub const fn pooled(slots: u32) -> Instances {
        Instances::Pooled {
            slots,
            keep_resident: 1 << 20,
        }
    }
}

/// How the engine is set up. Everything here is fixed for the life of the
/// [`Runtime`].
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Directory of precompiled modules; `None` disables the disk cache.
    /// Created with mode 0700 if missing.
    pub cache_dir: Option<PathBuf>,
    /// Period of the epoch ticker: the resolution of timeouts.
    pub epoch_tick: Duration,
    pub opt_level: OptLevel,
    /// Count the instructions guests run (wasmtime's fuel), so that
    /// [`crate::CallBudget::fuel`] can bound each top-level call by a
    /// deterministic instruction budget besides its wall-clock deadline.
    /// Costs time on every call and in every loop (docs/benchmarks.md);
    /// off by default. Part of the cache key.
    pub fuel: bool,
    /// How guest memory accesses are bounds-checked: guard pages (the
    /// default) or compiled checks against a smaller reservation, which
    /// cost guest code time (0–61 % on the kernels measured in
    /// docs/benchmarks.md, "Bounds checks") and save address space per
    /// instance (64 MiB instead of 4 160 MiB). Part of the cache key.
    pub bounds_checks: BoundsChecks,
    /// Where instances' memories come from: reserved per instance (the
    /// default) or from a pool of slots reserved once, which makes
    /// creating an instance several times cheaper (docs/benchmarks.md,
    /// "Density").
    pub instances: Instances,
}

impl Default for RuntimeConfig {
    /// Cache in [`default_cache_dir`], 1 ms ticks, optimised code, no
    /// fuel, guard pages, memories reserved per instance.
    fn default() -> Self {
        RuntimeConfig {
            cache_dir: default_cache_dir(),
            epoch_tick: Duration::from_millis(1),
            opt_level: OptLevel::Speed,
            fuel: false,
            bounds_checks: BoundsChecks::GuardPages,
            instances: Instances::OnDemand,
        }
    }
}

/// `$KARMEM_CACHE_DIR`, else `$XDG_CACHE_HOME/karmem/modules`, else
/// `$HOME/.cache/karmem/modules`; `None` if none of them is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KARMEM_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("karmem").join("modules"))
}

/// Where a module's machine code came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOutcome {
    /// No cache configured: compiled.
    Disabled,
    /// Loaded from the cache (no compilation).
    Hit,
    /// Not in the cache: compiled and stored.
    Miss,
    /// A cached file was corrupt or unreadable: compiled and replaced.
    Replaced,
    /// Compiled, but the entry could not be stored (something other than
    /// our files stands at its path and cannot be removed, or the disk is
    /// full): the module runs from memory.
    Uncached,
}

/// Counters of the module cache since the runtime was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub replaced: u64,
    pub uncached: u64,
}

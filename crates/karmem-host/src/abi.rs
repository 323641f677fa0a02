//! The names, types and numbers of the guest ABI (docs/abi.md §2, §4, §5,
//! §8) that more than one layer of the host needs: the loader checks a
//! module's imports and exports against them, the instance layer implements
//! them.

use wasmparser::ValType;

/// The guest ABI version this host speaks (docs/abi.md §10).
pub const ABI_VERSION: u32 = 1;

/// The module guests import the host's functions from.
pub(crate) const KARMEM: &str = "karmem";

/// `karmem.*` imports: (name, number of `i32` parameters, returns `i32`).
pub(crate) const IMPORTS: &[(&str, usize, bool)] = &[
    ("call", 5, true),
    ("take", 3, true),
    ("result", 2, false),
    ("error", 2, false),
    ("log", 3, false),
];

/// (name, params, results) of the exports the host calls.
pub(crate) const EXPORTS: &[(&str, &[ValType], &[ValType])] = &[
    ("karmem_abi_version", &[], &[ValType::I32]),
    ("karmem_init", &[], &[ValType::I32]),
    ("karmem_describe", &[], &[ValType::I64]),
    (
        "karmem_alloc",
        &[ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    (
        "karmem_bind_memory",
        &[ValType::I32, ValType::I32, ValType::I32],
        &[],
    ),
    (
        "karmem_dispatch",
        &[ValType::I32, ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    ("_initialize", &[], &[]),
    ("karmem_bind_access", &[ValType::I32, ValType::I32], &[]),
];

/// Exports a module may leave out: `_initialize` (no reactor start needed),
/// `karmem_bind_memory` (only called when the module uses regions) and
/// `karmem_bind_access` (an addition to version 1: a guest that wants to
/// know its access to each window exports it, docs/abi.md §2).
pub(crate) const OPTIONAL_EXPORTS: &[&str] =
    &["_initialize", "karmem_bind_memory", "karmem_bind_access"];

/// The `access` argument of `karmem_bind_access`: docs/abi.km's `Access`
/// (`None` is never passed: such a region has no window).
pub(crate) const ACCESS_READ: i32 = 1;
pub(crate) const ACCESS_READ_WRITE: i32 = 2;

/// The WASI module Go guests import (docs/abi.md §8).
pub(crate) const WASI: &str = "wasi_snapshot_preview1";

/// The WASI functions the host implements; any other WASI import gets a
/// stub returning [`ENOSYS`].
pub(crate) const WASI_FUNCTIONS: &[&str] = &[
    "fd_write",
    "fd_read",
    "fd_close",
    "fd_fdstat_get",
    "fd_prestat_get",
    "clock_time_get",
    "clock_res_get",
    "random_get",
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "proc_exit",
    "sched_yield",
    "poll_oneoff",
];

/// WASI's "function not implemented".
pub(crate) const ENOSYS: i32 = 52;

/// Largest descriptor `karmem_describe` may report; refused before it is
/// copied (docs/security.md §2.4). Real descriptors are a few KiB.
pub(crate) const MAX_DESCRIPTOR: u32 = 1 << 20;

/// Longest error message kept from `karmem.error`.
pub(crate) const MAX_ERROR: usize = 64 * 1024;

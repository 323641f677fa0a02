//! The Karmem wire contract, written once.
//!
//! Everything two parts of Karmem must agree on byte for byte lives here, and
//! every part reads it from here:
//!
//! * the format's constants ([`MAGIC`], [`VERSION`], [`HEADER_SIZE`],
//!   [`ARRAY_ALIGN`], the sizes of the fixed slots and the bunch-table
//!   geometry; `docs/format.md`), used by the runtime (`karmem`, which
//!   re-exports them), the layout model (`karmem-layout`) and, through it,
//!   by the code generators, which spell these numbers into generated code
//!   but never write them down themselves;
//! * the hashes: FNV-1a in 32 and 64 bits ([`fnv1a32`], [`fnv1a64`]) and the
//!   SoA column hash [`path_hash`] (format.md §5.3);
//! * the guest ABI's canonical interface signature and its hash
//!   ([`Signature`], docs/abi.md §3.1), built from a neutral description by
//!   the code generator (for guests' descriptors) and by the host (to check
//!   them), so the two cannot drift apart.
//!
//! The crate has no dependencies and is `no_std` (it needs `alloc` only for
//! [`Signature::text`]), so `no_std` guests link it as they link `karmem`.
//! RATIONALE.md R3.4 says why the contract is a crate of its own.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod signature;

pub use signature::{Access, Function, Memory, Param, Signature};

// ---- message (format.md §1) ------------------------------------------------

/// `"KM"`: the first two bytes of every message.
pub const MAGIC: [u8; 2] = *b"KM";
/// The format version this contract describes: the second edition
/// (format.md §1; RATIONALE.md R2.11 says what changed from the first).
pub const VERSION: u8 = 2;
/// Size of the message header; the root object starts here.
pub const HEADER_SIZE: u32 = 8;
/// Alignment of every object that is not an array block: the message size,
/// tables, inline structs, inline union values (format.md §1, §3, §4, §7).
pub const OBJECT_ALIGN: u32 = 8;
/// The largest alignment an array data block or SoA column needs (§5): the
/// widest scalar. Blocks and columns start at [`natural_align`] of their
/// element size, at most this. (The first edition put each on a 64-byte
/// line, its first step of the second edition on 8: RATIONALE.md R2.11.)
pub const ARRAY_ALIGN: u32 = 8;

/// The natural alignment of an array element or column value of `size`
/// bytes (format.md §5): the largest power of two dividing `size`, at most
/// 8 — text 1, `u16` 2, a 12-byte array reference 4, an inline struct
/// (a multiple of 8) 8. A size of 0 (an SoA, SoA-union or bunch block,
/// whose reference does not say what it holds) gives 1: such blocks are
/// checked by their own readers ([`SOA_DIRECTORY_ALIGN`],
/// [`BUNCH_TABLE_ALIGN`], the tag width of a union array).
pub const fn natural_align(size: u32) -> u32 {
    if size == 0 {
        return 1;
    }
    let low = size & size.wrapping_neg();
    if low > ARRAY_ALIGN {
        ARRAY_ALIGN
    } else {
        low
    }
}

/// Alignment of an SoA directory and of an SoA array's block (§5.3): both
/// start with `u32` words.
pub const SOA_DIRECTORY_ALIGN: u32 = 4;
/// Alignment of a bunch table (§7.1): the natural alignment of its 16-byte
/// entries.
pub const BUNCH_TABLE_ALIGN: u32 = 8;

// ---- tables (§4) -------------------------------------------------------------

/// Size of a table's header word (total size in 8-byte units, unused tail
/// bytes): the first field of a table starts after it.
pub const TABLE_HEADER_SIZE: u32 = 4;

// ---- fixed-size slots ------------------------------------------------------

/// Size of a `u32` offset: a table field (§4), an element of an AoS array of
/// tables (§5.2), an entry of a union array's offset column (§7.1).
pub const OFFSET_SIZE: u32 = 4;
/// Size of an array reference (`offset`, `length`, `capacity`; §5).
pub const ARRAY_REF_SIZE: u32 = 12;
/// Size of a union slot: the tag padded to 4 bytes, then an offset (§7).
pub const UNION_SLOT_SIZE: u32 = 8;
/// Alignment of the offset, array-reference and union slots: each is made
/// of `u32`s.
pub const REF_SLOT_ALIGN: u32 = 4;
/// Where the offset of a union slot starts, after the padded tag (§7).
pub const UNION_OFFSET_AT: u32 = 4;

// ---- SoA directory (§5.3) ---------------------------------------------------

/// Size of an SoA directory of `n` columns, shared by every SoA array of
/// its column list in a message: `u32 n`, then `n` hashes, then the `n`
/// value sizes, `4 × (2n + 1)` bytes. 64-bit, so that a hostile `n` cannot
/// overflow.
pub const fn soa_directory_size(n: u64) -> u64 {
    OFFSET_SIZE as u64 * (2 * n + 1)
}

/// What reading an SoA directory of `n` columns costs the traversal budget
/// each time it is read (format.md §10): the directory and the `u32` of the
/// array's block that points to it, `8 × (n + 1)`.
pub const fn soa_directory_charge(n: u64) -> u64 {
    soa_directory_size(n) + OFFSET_SIZE as u64
}

// ---- bunch table of a bunch-of-values union array (§7.1) --------------------

/// Size of a bunch-table entry `{tag, offset, length, capacity}`, and of the
/// table's head (`u32 k` and 12 zero bytes): entry `i` starts at
/// `BUNCH_ENTRY_SIZE × (i + 1)`.
pub const BUNCH_ENTRY_SIZE: u32 = 16;
/// Where the array reference of a bunch entry starts, after its `u32` tag.
pub const BUNCH_ENTRY_ARRAY_AT: u32 = 4;

/// Bytes of a bunch table with `k` entries: head and entries, `16 × (k + 1)`
/// (a multiple of [`ARRAY_ALIGN`]). 64-bit, so that a hostile `k` cannot
/// overflow.
pub const fn bunch_table_size(k: u64) -> u64 {
    BUNCH_ENTRY_SIZE as u64 * (k + 1)
}

// ---- hashes ----------------------------------------------------------------

const FNV32_BASIS: u32 = 0x811C_9DC5;
const FNV32_PRIME: u32 = 0x0100_0193;
const FNV64_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 32 bit.
pub const fn fnv1a32(bytes: &[u8]) -> u32 {
    fnv1a32_from(FNV32_BASIS, bytes)
}

const fn fnv1a32_from(mut h: u32, bytes: &[u8]) -> u32 {
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u32;
        h = h.wrapping_mul(FNV32_PRIME);
        i += 1;
    }
    h
}

/// FNV-1a, 64 bit: the hash of a canonical interface signature
/// (docs/abi.md §3.1).
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_from(FNV64_BASIS, bytes)
}

const fn fnv1a64_from(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(FNV64_PRIME);
        i += 1;
    }
    h
}

/// FNV-1a (32-bit) over the little-endian `u32` encoding of each index: the
/// hash of an SoA column's position path (format.md §5.3).
pub const fn path_hash(path: &[u32]) -> u32 {
    let mut h = FNV32_BASIS;
    let mut i = 0;
    while i < path.len() {
        h = fnv1a32_from(h, &path[i].to_le_bytes());
        i += 1;
    }
    h
}

#[cfg(test)]
mod tests;

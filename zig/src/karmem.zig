//! The Zig runtime library of Karmem, a zero-copy, little-endian,
//! bounds-checked binary format (docs/format.md, second edition).
//!
//! Generated code is built from these pieces:
//!
//!   - `Reader`: bounds-checked, zero-copy access to one message. Malformed
//!     data reads as zero or empty (docs/format.md §4–§5), never as a panic
//!     or an out-of-bounds read.
//!   - `Validator`: the state of one validation or decoding pass (traversal
//!     budget, depth limit, docs/format.md §10–§11), with the place of the
//!     first fault it found.
//!   - `Trusted`: reads of a message a validator accepted, without checks.
//!   - `Writer`: a growable writer (explicit allocator) or a fixed writer
//!     over a caller's buffer.
//!   - `Editor`: in-place updates of scalars and array lengths (§12).
//!
//! Nothing here allocates but the growable `Writer`, through the allocator
//! it was given. Views (text, native slices, images) alias the message
//! buffer: see docs/zig.md for the alignment and lifetime rules.

const std = @import("std");
const builtin = @import("builtin");

/// Checked, zero-copy reads of one message (reader.zig, docs/format.md §1–§7).
pub const Reader = @import("reader.zig").Reader;
/// One validation or decoding pass: budget, depth, fault (validator.zig, §10–§11).
pub const Validator = @import("validator.zig").Validator;
/// Reads of a validated message without checks (trusted.zig, §11).
pub const Trusted = @import("trusted.zig").Trusted;
/// Validates a message and returns a Trusted over it (trusted.zig).
pub const trust = @import("trusted.zig").trust;
/// What `trust` returns: the Trusted and the validation's result.
pub const Trust = @import("trusted.zig").Trust;
/// Growable or fixed output buffer for messages (writer.zig, §8).
pub const Writer = @import("writer.zig").Writer;
/// In-place updates of a message (editor.zig, §12).
pub const Editor = @import("editor.zig").Editor;
/// Inline structs viewed as byte images (images.zig, §3, §5.2).
pub const images = @import("images.zig");
/// An array reference from its 12 bytes, unchecked (§5).
pub const loadArrayRef = images.loadArrayRef;
/// The UTF-16 length of UTF-8 text, as `Writer.writeUtf16` writes it (§6).
pub const utf16Len = @import("writer.zig").utf16Len;
/// Arrays of arrays, maps and text decoding for generated code (views.zig).
pub const views = @import("views.zig");
/// An array of arrays (§5.4).
pub const Arrays = views.Arrays;
/// A map looked up by binary search (§5.5).
pub const Map = views.Map;
/// How two map keys compare (§5.5): generated encoders check entry order.
pub const orderKeys = views.orderKeys;
/// UTF-16 to UTF-8, unpaired surrogates as U+FFFD (§6).
pub const utf16ToUtf8 = views.utf16ToUtf8;
/// The UTF-8 length `utf16ToUtf8` writes (§6).
pub const utf8LenOfUtf16 = views.utf8LenOfUtf16;
/// The guest side of the WebAssembly ABI (docs/abi.md, guest.zig): for
/// modules built for `wasm32-freestanding` (docs/zig.md, "Guests").
pub const guest = @import("guest.zig");

/// The size of the message header; the root object starts right after it
/// (docs/format.md §1).
pub const header_size: u32 = 8;

/// The format version this library reads and writes: the second edition
/// (docs/format.md §1). Messages of any other version are refused.
pub const version: u8 = 2;

/// The largest alignment of an array block or SoA column: the widest
/// scalar. Each block starts at `naturalAlign` of its element size, at
/// most this (docs/format.md §5); it is also the alignment a message
/// buffer must have (§1).
pub const array_align: u32 = 8;

/// The alignment of an SoA directory and of an SoA block: both are `u32`
/// words (docs/format.md §5.3).
pub const directory_align: u32 = 4;

/// The alignment of a bunch table, whose entries are 16 bytes
/// (docs/format.md §7.1).
pub const bunch_table_align: u32 = 8;

/// The size of an array reference (offset, length, capacity;
/// docs/format.md §5), also the element of an array of arrays (§5.4).
pub const array_ref_size: u32 = 12;

/// The limit argument for arrays that are not limited (`[]T` rather than
/// `[<N]T`, docs/format.md §5).
pub const no_limit: u32 = std.math.maxInt(u32);

/// Every way a message, or a write, can fail. The names are the error kinds
/// of the other Karmem libraries (Go's `Err*`, Rust's `Error`), so a fault
/// reads the same in every language.
pub const Error = error{
    /// The buffer is shorter than the header or than the size it states
    /// (docs/format.md §1).
    Truncated,
    /// The buffer does not start at an 8-byte aligned address (§1).
    Misaligned,
    /// The first two bytes are not "KM" (§1).
    BadMagic,
    /// The version byte is not 2 (§1).
    UnsupportedVersion,
    /// The reserved flags byte is not 0 (§1, §13).
    BadFlags,
    /// The stated size is below 8 or not a multiple of 8 (§1).
    BadSize,
    /// A table that must be present is malformed (§4).
    MalformedTable,
    /// An array reference, SoA block, directory or bunch table is
    /// malformed (§5, §5.3, §7.1).
    MalformedArray,
    /// A limited array `[<N]T` is longer than N (§5).
    LimitExceeded,
    /// Text that is not valid UTF-8 or UTF-16 (§6).
    InvalidText,
    /// A bool or presence byte other than 0 or 1 (§2, §4.2).
    InvalidBool,
    /// A union slot of a known tag without a valid value (§7).
    InvalidUnion,
    /// An SoA directory or bunch table over `Limits.max_directory_entries`
    /// (§10).
    DirectoryTooLarge,
    /// Tables nested deeper than `Limits.max_depth` (§10).
    DepthExceeded,
    /// The traversal budget is spent (§10).
    BudgetExceeded,
    /// A message or array over what the format (4 GiB) or a fixed buffer
    /// can hold, or an array grown past its capacity (§12).
    TooLarge,
};

/// The errors of opening a message: the header checks of docs/format.md §1.
pub const HeaderError = error{ Truncated, Misaligned, BadMagic, UnsupportedVersion, BadFlags, BadSize };

/// The errors a validator reports (docs/format.md §10–§11).
pub const ValidateError = error{
    MalformedTable,
    MalformedArray,
    LimitExceeded,
    InvalidText,
    InvalidBool,
    InvalidUnion,
    DirectoryTooLarge,
    DepthExceeded,
    BudgetExceeded,
};

/// The errors of writing: a fixed buffer or the format's 4 GiB is full,
/// or the growable writer's allocator failed; or (generated encoders) a
/// map's entries are not in strictly increasing key order (§5.5), which
/// no validator would accept.
pub const WriteError = error{ TooLarge, OutOfMemory, MapOrder };

/// The errors of changing a message in place (docs/format.md §12,
/// `Editor`): a field or table the message does not hold
/// (`MalformedTable`: a field past an older writer's table cannot be
/// added), a malformed array reference, a length past an array's capacity
/// or a `[<N]T` limit (`TooLarge`).
pub const EditError = error{ MalformedTable, MalformedArray, TooLarge };

/// Where a fault was found, since a Zig error carries no payload: `offset`
/// is a byte position in the message and `value` an extra number (a
/// length, tag, size, entry count or charge) when the kind has one. The
/// validator fills one in for every error it returns; `Reader.init` does
/// when given one.
pub const Fault = struct {
    kind: ?Error = null,
    offset: u32 = 0,
    value: u64 = 0,
};

/// Limits a reader enforces against hostile messages (docs/format.md §10).
pub const Limits = struct {
    /// Entries scanned in one SoA directory or bunch table at most.
    max_directory_entries: u32 = 1024,
    /// Nesting of tables the validator and the decoders follow at most.
    max_depth: u32 = 64,
    /// The validator and decoders visit at most this many times the
    /// message size in bytes.
    traversal_budget_factor: u32 = 8,
};

/// The limits of docs/format.md §10: 1 024 directory entries, depth 64,
/// budget 8 × size.
pub const default_limits: Limits = .{};

/// A table found at `offset` whose first `used` bytes hold fields
/// (docs/format.md §4). The zero Table (`Table.absent`) stands for an
/// absent or malformed table: every field reads as zero.
pub const Table = struct {
    offset: u32 = 0,
    used: u32 = 0,

    /// The absent or malformed table.
    pub const absent: Table = .{};

    /// Whether a field at `offset` with `size` bytes lies in the used part
    /// of the table: a field past it is absent, an older writer's table
    /// (docs/format.md §4, §9).
    pub inline fn has(t: Table, offset: u32, size: u32) bool {
        return @as(u64, offset) + size <= t.used;
    }

    /// Whether this is the absent (or malformed) table.
    pub inline fn isAbsent(t: Table) bool {
        return t.used == 0;
    }
};

/// A checked array reference: `len` elements at `offset`, room for `cap`
/// (docs/format.md §5). The zero ArrayRef (`ArrayRef.empty`) is the empty
/// array: a zero capacity means "no block" whatever the offset says.
pub const ArrayRef = struct {
    offset: u32 = 0,
    len: u32 = 0,
    cap: u32 = 0,

    /// The empty array `0, 0, 0`.
    pub const empty: ArrayRef = .{};

    /// Whether two references are the same three words.
    pub inline fn eql(a: ArrayRef, b: ArrayRef) bool {
        return a.offset == b.offset and a.len == b.len and a.cap == b.cap;
    }
};

/// One SoA column (docs/format.md §5.3): the hash of its position path and
/// the size of one value. `dense` tells the writer that the caller fills
/// every value itself, so the column is not zeroed first.
pub const Column = struct {
    hash: u32,
    size: u32,
    dense: bool = false,
};

/// The alignment of an array block or SoA column whose elements are `size`
/// bytes (docs/format.md §5): the largest power of two dividing `size`, at
/// most 8. 0 (a block whose reference does not say what it holds: SoA, SoA
/// union, bunch) gives 1, as those blocks are checked by their readers.
pub fn naturalAlign(size: u32) u32 {
    if (size == 0) return 1;
    return @min(size & (~size +% 1), array_align);
}

/// `x` rounded up to a multiple of `a` (a power of two), in 64 bits so
/// that hostile 32-bit values cannot overflow.
pub inline fn alignUp(x: u64, a: u64) u64 {
    return (x + a - 1) & ~(a - 1);
}

/// FNV-1a (32-bit) over the little-endian `u32` encoding of each index: the
/// hash of an SoA column's position path (docs/format.md §5.3). Usable at
/// compile time, so generated column lists are constants.
pub fn pathHash(path: []const u32) u32 {
    var h: u32 = 0x811C9DC5;
    for (path) |index| {
        inline for (0..4) |k| {
            h ^= (index >> (8 * k)) & 0xFF;
            h *%= 0x01000193;
        }
    }
    return h;
}

/// The size of an SoA directory of `n` entries: `n`, `n` hashes, `n` value
/// sizes (docs/format.md §5.3).
pub inline fn directorySize(n: u64) u64 {
    return 4 * (2 * n + 1);
}

/// What reading a directory of `n` entries costs the traversal budget each
/// time it is read: the directory and the block's word, 8 × (n + 1)
/// (docs/format.md §10).
pub inline fn directoryCharge(n: u64) u64 {
    return directorySize(n) + 4;
}

/// The size of a bunch table of `k` entries (docs/format.md §7.1).
pub inline fn bunchTableSize(k: u64) u64 {
    return 16 * (k + 1);
}

/// The wire byte of a bool (docs/format.md §2).
pub inline fn boolByte(v: bool) u8 {
    return @intFromBool(v);
}

/// Whether `T` is a wire scalar: an integer of 8 to 64 bits, `f32`, `f64`,
/// `bool`, or an enum over such an integer (docs/format.md §2).
pub fn isScalar(comptime T: type) bool {
    return switch (@typeInfo(T)) {
        .int => |i| i.bits == 8 or i.bits == 16 or i.bits == 32 or i.bits == 64,
        .float => |f| f.bits == 32 or f.bits == 64,
        .bool => true,
        .@"enum" => |e| isScalar(e.tag_type),
        else => false,
    };
}

fn checkScalar(comptime T: type) void {
    if (!comptime isScalar(T)) @compileError("karmem: " ++ @typeName(T) ++ " is not a wire scalar (docs/format.md §2)");
    if (@typeInfo(T) == .@"enum" and @typeInfo(T).@"enum".mode == .exhaustive)
        @compileError("karmem: enum " ++ @typeName(T) ++ " must be non-exhaustive (`_`): readers return unknown values unchanged (docs/format.md §2)");
}

/// The unsigned integer with the bits of scalar `T`.
pub fn Bits(comptime T: type) type {
    return @Int(.unsigned, 8 * @sizeOf(T));
}

/// Decodes a little-endian scalar from its bytes (docs/format.md §2): any
/// non-zero byte is a true bool, float bit patterns are kept (NaN payloads
/// included), enum values unknown to `T` are kept. `T` is checked at
/// compile time; an exhaustive enum is refused, since a hostile value
/// outside it would be illegal.
pub inline fn decode(comptime T: type, bytes: *const [@sizeOf(T)]u8) T {
    comptime checkScalar(T);
    const raw = std.mem.readInt(Bits(T), bytes, .little);
    return switch (@typeInfo(T)) {
        .bool => raw != 0,
        .@"enum" => |e| @fromBackingInt(@as(e.tag_type, @bitCast(raw))),
        else => @bitCast(raw),
    };
}

/// Encodes a scalar into its little-endian bytes (docs/format.md §2).
pub inline fn encode(comptime T: type, bytes: *[@sizeOf(T)]u8, v: T) void {
    comptime checkScalar(T);
    const raw: Bits(T) = switch (@typeInfo(T)) {
        .bool => @intFromBool(v),
        .@"enum" => @bitCast(@backingInt(v)),
        else => @bitCast(v),
    };
    std.mem.writeInt(Bits(T), bytes, raw, .little);
}

/// The zero value of a scalar: what an absent field, an out-of-bounds load
/// or a malformed part reads as (docs/format.md §4).
pub inline fn zero(comptime T: type) T {
    const bytes: [@sizeOf(T)]u8 = @splat(0);
    return decode(T, &bytes);
}

/// Checks at compile time that native slices of `T` may be made over a
/// message: a number type (or an enum over one) on a little-endian target.
/// `bool` is refused: a hostile byte 2 is not a valid Zig bool, so bool
/// arrays are viewed as bytes (docs/format.md §2).
pub fn checkSliceable(comptime T: type) void {
    comptime checkScalar(T);
    if (T == bool) @compileError("karmem: bool arrays are viewed as []const u8 (a hostile byte 2 is not a Zig bool)");
    if (builtin.cpu.arch.endian() != .little)
        @compileError("karmem: native slices reinterpret little-endian bytes; this target is big-endian");
}

/// Whether `buf` starts at an 8-byte aligned address, as a message must
/// (docs/format.md §1).
pub fn isAligned(buf: []const u8) bool {
    return @intFromPtr(buf.ptr) % array_align == 0;
}

/// Copies a message of unknown alignment into a new 8-aligned buffer owned
/// by the caller (docs/format.md §1: readers refuse misaligned input rather
/// than misread it).
pub fn alignedCopy(gpa: std.mem.Allocator, buf: []const u8) std.mem.Allocator.Error![]align(8) u8 {
    const out = try gpa.alignedAlloc(u8, .@"8", buf.len);
    @memcpy(out, buf);
    return out;
}

test {
    _ = @import("reader.zig");
    _ = @import("validator.zig");
    _ = @import("trusted.zig");
    _ = @import("images.zig");
    _ = @import("writer.zig");
    _ = @import("editor.zig");
    _ = @import("views.zig");
    _ = @import("tests.zig");
    _ = @import("fuzz.zig");
    _ = @import("guest.zig");
}

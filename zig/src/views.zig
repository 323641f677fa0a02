//! Views generated code builds on: arrays of arrays (docs/format.md §5.4),
//! maps (§5.5), and text decoding that never fails (§6). None allocates.

const std = @import("std");
const builtin = @import("builtin");
const km = @import("karmem.zig");

const Reader = km.Reader;
const Trusted = km.Trusted;
const ArrayRef = km.ArrayRef;

/// An array of arrays (`[][]f32`, `[]string`; docs/format.md §5.4): its
/// elements are array references, each read as an array of `elem_size`
/// byte elements within `limit`. An element that breaks the rules reads as
/// empty, and the others are not affected; an index out of range reads as
/// an empty element. O(1) per element.
pub const Arrays = struct {
    a: ArrayRef = .empty,
    elem_size: u32 = 0,
    limit: u32 = km.no_limit,

    /// The number of elements.
    pub fn len(x: Arrays) u32 {
        return x.a.len;
    }

    /// Element `i`, checked as an array field (`Reader.array`).
    pub fn at(x: Arrays, r: Reader, i: u32) ArrayRef {
        if (i >= x.a.len) return .empty;
        return r.array(x.a.offset + km.array_ref_size * i, x.elem_size, x.limit);
    }

    /// Element `i` of a validated message: the validator checked every
    /// reference (`Trusted.array`).
    pub fn atTrusted(x: Arrays, t: Trusted, i: u32) ArrayRef {
        if (i >= x.a.len) return .empty;
        return t.array(x.a.offset + km.array_ref_size * i);
    }
};

/// Generated viewers (docs/zig.md, "Viewers") are generic over their
/// reader `R`: `Reader` (checked) or `Trusted` (a validated message). The
/// functions below are the few reads whose signature or checks differ
/// between the two; every other read calls the method both have. A
/// position `at` of 0 is an absent slot (no slot lies in the header).
fn checkReader(comptime R: type) void {
    if (R != Reader and R != Trusted) @compileError("karmem: a viewer reads through Reader or Trusted, not " ++ @typeName(R));
}

/// The array reference at `at` (checked against `elem_size` and `limit`
/// by a Reader; a Trusted's validation did that), empty when `at` is 0.
pub inline fn arrayAt(r: anytype, at: u32, elem_size: u32, limit: u32) ArrayRef {
    comptime checkReader(@TypeOf(r));
    if (at == 0) return .empty;
    if (@TypeOf(r) == Trusted) return r.array(at);
    return r.array(at, elem_size, limit);
}

/// The table whose offset is at `at` (absent when `at` is 0, or the table
/// is absent or malformed, docs/format.md §4).
pub inline fn tableAt(r: anytype, at: u32) km.Table {
    comptime checkReader(@TypeOf(r));
    if (at == 0) return .absent;
    return r.table(r.load(u32, at));
}

/// The array of variant `tag` in the bunch table of `a` (docs/format.md
/// §7.1), its elements `elem_size` bytes (checked by a Reader).
pub inline fn bunchEntry(r: anytype, a: ArrayRef, tag: u32, elem_size: u32) ArrayRef {
    comptime checkReader(@TypeOf(r));
    if (@TypeOf(r) == Trusted) return r.bunchEntry(a, tag);
    return r.bunchEntry(a, tag, elem_size);
}

/// Whether the value of a known inline union variant of `n` bytes can be
/// read at `offset` (docs/format.md §7); a validated message's can.
pub inline fn inlineAt(r: anytype, offset: u32, n: u32) bool {
    comptime checkReader(@TypeOf(r));
    if (@TypeOf(r) == Trusted) return offset != 0;
    return r.inlineAt(offset, n);
}

/// The number of elements an SoA array view reads. The block bounds the
/// length only through the columns it has: a hostile length over elements
/// whose columns are all unknown would make a loop over them run 2^32
/// times. No valid message's SoA array is longer than its traversal budget
/// (docs/format.md §10), so a Reader reads at most that many; a validated
/// message's length is within it.
pub inline fn soaLen(r: anytype, a: ArrayRef) u32 {
    comptime checkReader(@TypeOf(r));
    if (@TypeOf(r) == Trusted) return a.len;
    const most = @as(u64, r.limits.traversal_budget_factor) * r.mem.len;
    return if (a.len > most) @intCast(most) else a.len;
}

/// Generated setters (docs/zig.md, "Editing in place") are on the
/// checked viewers only: a trusted view reads the message its validation
/// saw, and a message edited in place is another one (view it again
/// through `TView.trust`).
pub inline fn checkEditable(comptime R: type) void {
    if (R != Reader) @compileError("karmem: edit through a checked view, TView.root(editor.reader), not a trusted one (an edited message is no longer the one validated)");
}

/// Whether SoA columns of `T` can be native slices over the message: the
/// format is little-endian, and a column is aligned to its element size
/// (docs/format.md §5.3), which must be enough for `T` on this target.
pub fn nativeColumn(comptime T: type) bool {
    return builtin.cpu.arch.endian() == .little and @alignOf(T) <= km.naturalAlign(@sizeOf(T));
}

/// The `n` elements of the SoA column at `at` (0: absent) as a native
/// slice in the message, for generated `F_column` accessors; null when it
/// cannot be one: the column is absent (an older writer's; its elements
/// read the default), or (a message that does not validate) it lies
/// outside the message or misaligned, or the target cannot view it
/// natively (`nativeColumn`). The elements are then read one by one
/// through the SoA item. A column of no elements is empty.
pub inline fn column(r: anytype, comptime T: type, at: u32, n: u32) ?[]const T {
    comptime checkReader(@TypeOf(r));
    if (comptime !nativeColumn(T)) {
        return null;
    } else {
        if (n == 0) return &.{};
        if (at == 0) return null;
        const s = r.slice(T, at, n);
        return if (s.len == n) s else null;
    }
}

/// How two map keys compare: numbers (and enums) by value, text by its
/// bytes, shorter first on a common prefix (docs/format.md §5.5).
pub fn orderKeys(comptime K: type, a: K, b: K) std.math.Order {
    if (K == []const u8) return std.mem.order(u8, a, b);
    return switch (@typeInfo(K)) {
        .@"enum" => std.math.order(@backingInt(a), @backingInt(b)),
        else => std.math.order(a, b),
    };
}

/// A map (`map<K, V>`, docs/format.md §5.5): its entries, sorted by key,
/// `stride` bytes apart from `a.offset`. `find` is a binary search, O(log
/// n) key reads. On a message that was not validated the entries may be
/// out of order: a look-up may then miss, but every read stays inside the
/// message. `R` is `Reader` or `Trusted`; `keyAt` reads the key of the
/// entry at a position (generated code).
pub fn Map(comptime R: type, comptime K: type, comptime keyAt: fn (R, u32) K) type {
    return struct {
        a: ArrayRef = .empty,
        stride: u32 = 0,

        const Self = @This();

        /// The number of entries.
        pub fn len(m: Self) u32 {
            return m.a.len;
        }

        /// The position of the entry with `key`, or null; the generated
        /// code reads its value there.
        pub fn find(m: Self, r: R, key: K) ?u32 {
            var lo: u32 = 0;
            var hi: u32 = m.a.len;
            while (lo < hi) {
                const mid = lo + (hi - lo) / 2;
                const entry = m.a.offset +% mid *% m.stride;
                switch (orderKeys(K, keyAt(r, entry), key)) {
                    .lt => lo = mid + 1,
                    .gt => hi = mid,
                    .eq => return entry,
                }
            }
            return null;
        }

        /// The position of entry `i` in key order, or null out of range.
        pub fn entryAt(m: Self, i: u32) ?u32 {
            if (i >= m.a.len) return null;
            return m.a.offset +% i *% m.stride;
        }
    };
}

/// UTF-16 code units as code points; each unpaired surrogate is U+FFFD
/// (docs/format.md §6: decoding never fails).
pub const Utf16Iterator = struct {
    units: []const u16,
    i: usize = 0,

    /// The next code point, or null at the end.
    pub fn next(it: *Utf16Iterator) ?u21 {
        if (it.i >= it.units.len) return null;
        const u = it.units[it.i];
        it.i += 1;
        if (u < 0xD800 or u > 0xDFFF) return u;
        if (u < 0xDC00 and it.i < it.units.len) {
            const lo = it.units[it.i];
            if (lo >= 0xDC00 and lo <= 0xDFFF) {
                it.i += 1;
                return 0x10000 + ((@as(u21, u) - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
        return 0xFFFD;
    }
};

/// The UTF-8 length of UTF-16 text, unpaired surrogates as U+FFFD.
pub fn utf8LenOfUtf16(units: []const u16) usize {
    var n: usize = 0;
    var it: Utf16Iterator = .{ .units = units };
    while (it.next()) |c| n += std.unicode.utf8CodepointSequenceLength(c) catch unreachable;
    return n;
}

/// Decodes UTF-16 text into `out` as UTF-8 (unpaired surrogates as
/// U+FFFD) and returns the bytes written; `out` holds at least
/// `utf8LenOfUtf16(units)` bytes.
pub fn utf16ToUtf8(units: []const u16, out: []u8) []u8 {
    var n: usize = 0;
    var it: Utf16Iterator = .{ .units = units };
    while (it.next()) |c| n += std.unicode.utf8Encode(c, out[n..]) catch unreachable;
    return out[0..n];
}

//! Reads of a message a validator accepted, without the checks of
//! docs/format.md §4–§6 on every access: where a `Reader` tests that a
//! table, array, column or scalar is inside the message and well formed, a
//! `Trusted` relies on the validation having done so once for the whole
//! message (docs/format.md §11: "After a successful validation a program
//! may use unchecked accessors").

const std = @import("std");
const km = @import("karmem.zig");
const rd = @import("reader.zig");
const images = @import("images.zig");

const Reader = km.Reader;
const Table = km.Table;
const ArrayRef = km.ArrayRef;
const Column = km.Column;

/// A validated message. What the format says of valid messages still holds:
/// absent tables, fields past a table's used size, absent SoA columns and
/// bunch variants without an entry read as zero or empty.
///
/// A Trusted is obtained by validating (`trust`, or a generated trust
/// function). The buffer must not change while it, or a view read through
/// it, is in use: in Debug and ReleaseSafe every load still goes through
/// Zig's slice bounds check (a changed message panics, never reads outside
/// it), but in ReleaseFast and ReleaseSmall those checks are compiled out
/// and a changed message is undefined behaviour. Use a `Reader` for memory
/// that another party may write.
pub const Trusted = struct {
    /// The message, header included, cut to its size.
    mem: []align(8) const u8 = &.{},

    /// An empty message.
    pub const empty: Trusted = .{};

    /// Only for a message a validator accepted (generated trust functions).
    pub fn assumeValid(r: Reader) Trusted {
        return .{ .mem = r.mem };
    }

    /// The message size in bytes.
    pub inline fn size(t: Trusted) u32 {
        return @intCast(t.mem.len);
    }

    /// Loads a scalar at `offset` (the slice bounds check is the only one).
    pub inline fn load(t: Trusted, comptime T: type, offset: u32) T {
        return km.decode(T, t.mem[offset..][0..@sizeOf(T)]);
    }

    /// Loads a scalar field of table `t`; a field past its used size (an
    /// older writer, docs/format.md §4) reads as zero, as in a valid message
    /// it may.
    pub inline fn field(t: Trusted, comptime T: type, tb: Table, offset: u32) T {
        if (!tb.has(offset, @sizeOf(T))) return km.zero(T);
        return t.load(T, tb.offset + offset);
    }

    /// The table at `offset`; offset 0 (an absent optional table) gives
    /// `Table.absent`. A validated message has no malformed table.
    pub fn table(t: Trusted, offset: u32) Table {
        if (offset == 0) return .absent;
        const header = t.load(u32, offset);
        // Wrapping, as a validated header never wraps: a changed message
        // then reads wrong fields, never panics here.
        return .{ .offset = offset, .used = (header & 0x1FFFFFFF) *% 8 -% (header >> 29) };
    }

    /// The root table (docs/format.md §1); absent in the empty message
    /// (`empty`, what an absent guest argument views).
    pub fn root(t: Trusted) Table {
        if (t.mem.len == 0) return .absent;
        return t.table(km.header_size);
    }

    /// The table a field of `tb` refers to.
    pub fn fieldTable(t: Trusted, tb: Table, offset: u32) Table {
        if (!tb.has(offset, 4)) return .absent;
        return t.table(t.load(u32, tb.offset + offset));
    }

    /// The array reference stored at `at`; a zero capacity gives the empty
    /// reference, as `Reader.array` does.
    pub fn array(t: Trusted, at: u32) ArrayRef {
        return images.loadArrayRef(t.mem[at..][0..12]);
    }

    /// An array field of table `tb` (empty when absent).
    pub fn fieldArray(t: Trusted, tb: Table, offset: u32) ArrayRef {
        if (!tb.has(offset, 12)) return .empty;
        return t.array(tb.offset + offset);
    }

    /// `n` values of `T` at `offset` as a native slice (no copy); empty for
    /// offset 0 or n 0.
    pub fn slice(t: Trusted, comptime T: type, offset: u32, n: u32) []const T {
        comptime km.checkSliceable(T);
        if (offset == 0 or n == 0) return &.{};
        const b = t.mem[offset..][0 .. @as(usize, n) * @sizeOf(T)];
        // Only a message changed after validation can be misaligned here.
        if (offset % @alignOf(T) != 0) return &.{};
        const p: [*]const T = @ptrCast(@alignCast(b.ptr));
        return p[0..n];
    }

    /// The `len` elements of array `a` as a native slice.
    pub fn arraySlice(t: Trusted, comptime T: type, a: ArrayRef) []const T {
        return t.slice(T, a.offset, a.len);
    }

    /// The bytes of an array of `u8` or `bool`.
    pub fn bytes(t: Trusted, a: ArrayRef) []const u8 {
        return t.slice(u8, a.offset, a.len);
    }

    /// UTF-8 text: the validator checked the encoding, so it is not checked
    /// again.
    pub fn string(t: Trusted, a: ArrayRef) []const u8 {
        return t.bytes(a);
    }

    /// Resolves SoA columns as `Reader.soaColumns` does, over a block and
    /// directory the validator found well formed (docs/format.md §5.3):
    /// `out[j]` receives the offset of column `wanted[j]`, or 0 if absent.
    pub fn soaColumns(t: Trusted, a: ArrayRef, wanted: []const Column, out: []u32) void {
        @memset(out, 0);
        if (a.cap == 0) return;
        const dir: usize = t.load(u32, a.offset);
        const n = t.load(u32, @intCast(dir));
        // The hashes, then the value sizes: one slice, one bounds check.
        const entries = t.mem[dir + 4 ..][0 .. 8 * @as(usize, n)];
        var layout: rd.ColumnLayout = .init(a.offset, a.cap);
        for (0..n) |k| {
            const e = rd.directoryEntry(entries, n, k);
            const col = layout.next(e.size);
            // A validated directory lists each known column once, with the
            // reader's size, and its block lies inside the message.
            if (rd.wantedIndex(wanted, k, e.hash)) |j| out[j] = @intCast(col);
        }
    }

    /// `soaColumns` over a column list known at compile time.
    pub fn soa(t: Trusted, comptime wanted: []const Column, a: ArrayRef) [wanted.len]u32 {
        var out: [wanted.len]u32 = @splat(0);
        t.soaColumns(a, wanted, &out);
        return out;
    }

    /// The tag and offset columns of an SoA array of unions
    /// (docs/format.md §7.1); null for an empty array.
    pub fn unionColumns(t: Trusted, a: ArrayRef, tag_size: u32) ?Reader.UnionColumns {
        _ = t;
        if (a.cap == 0) return null;
        return .{ .tags = a.offset, .offsets = @intCast(rd.unionOffsetColumn(a, tag_size)) };
    }

    /// The array of variant `tag` in a bunch table (docs/format.md §7.1);
    /// empty if the variant has no entry.
    pub fn bunchEntry(t: Trusted, a: ArrayRef, tag: u32) ArrayRef {
        if (a.cap == 0) return .empty;
        // The whole table at once: one bounds check, and a loop bounded by
        // the message even if it changed.
        const k: u64 = t.load(u32, a.offset);
        const tbl = t.mem[a.offset..][0..@intCast(km.bunchTableSize(k))];
        var e: usize = 16;
        while (e < tbl.len) : (e += 16) {
            if (std.mem.readInt(u32, tbl[e..][0..4], .little) == tag)
                return t.array(a.offset + @as(u32, @intCast(e)) + 4);
        }
        return .empty;
    }

    /// The image of an inline struct at `offset` (see images.zig); zero for
    /// offset 0.
    pub fn image(t: Trusted, comptime V: type, offset: u32) V {
        comptime images.checkImage(V);
        if (offset == 0) return @splat(0);
        return t.mem[offset..][0..@sizeOf(V)].*;
    }

    /// `n` images at `offset` as a native slice (an AoS array of inline
    /// structs).
    pub fn imageSlice(t: Trusted, comptime V: type, offset: u32, n: u32) []const V {
        comptime images.checkImage(V);
        if (offset == 0 or n == 0) return &.{};
        const b = t.mem[offset..][0 .. @as(usize, n) * @sizeOf(V)];
        const p: [*]const V = @ptrCast(b.ptr);
        return p[0..n];
    }
};

/// What `trust` returns: the trusted message and what the validation
/// function returned (the checked root viewer, for generated code).
pub fn Trust(comptime V: type) type {
    return struct { trusted: Trusted, root: V };
}

/// Runs `validate` (a generated validate function) on `r` and, when it
/// accepts the message, returns a Trusted over it with what `validate`
/// returned. A function that accepts messages it did not check gives a
/// Trusted that may panic (or worse in ReleaseFast) on them.
pub fn trust(comptime V: type, r: Reader, validate: *const fn (Reader) km.ValidateError!V) km.ValidateError!Trust(V) {
    const root = try validate(r);
    return .{ .trusted = .assumeValid(r), .root = root };
}

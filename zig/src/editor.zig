//! In-place updates of a message (docs/format.md §12): scalars of present
//! table fields, elements of plain arrays, and array lengths within
//! capacity. Every write is checked like a read; a write that does not fit
//! fails instead of touching other bytes.

const std = @import("std");
const km = @import("karmem.zig");

const Reader = km.Reader;
const Table = km.Table;
const ArrayRef = km.ArrayRef;

/// A writable message. `reader` reads it (checked, as any `Reader`); the
/// methods here change values without moving anything: offsets,
/// capacities, table headers, directories and bunch tables stay as they
/// are, and nothing is appended (docs/format.md §12).
pub const Editor = struct {
    /// The message, writable, cut to its size.
    mem: []align(8) u8,
    /// A checked reader over the same bytes.
    reader: Reader,

    /// Opens `buf` (8-byte aligned, as for `Reader.open`) for updates.
    pub fn open(buf: []u8) km.HeaderError!Editor {
        const r = try Reader.open(buf);
        const mem: []align(8) u8 = @alignCast(buf[0..r.mem.len]);
        return .{ .mem = mem, .reader = r };
    }

    /// The `n` bytes of field `offset` of table `t`, or null when the field
    /// is not present in the message (a field past `used` cannot be added
    /// in place, §12).
    fn slot(e: *Editor, t: Table, offset: u32, n: u32) ?[]u8 {
        if (t.used == 0 or !t.has(offset, n) or !e.reader.fits(t.offset + offset, n)) return null;
        return e.mem[t.offset + offset ..][0..n];
    }

    /// Sets a scalar field of table `t` (docs/format.md §12);
    /// `error.MalformedTable` when the field is not present in the table or
    /// the table is absent.
    pub fn set(e: *Editor, comptime T: type, t: Table, offset: u32, v: T) error{MalformedTable}!void {
        const b = e.slot(t, offset, @sizeOf(T)) orelse return error.MalformedTable;
        km.encode(T, b[0..@sizeOf(T)], v);
    }

    /// The elements `0..length` of the plain array whose reference is at
    /// `at`, as a writable native slice over the message; empty for a
    /// malformed array.
    pub fn slice(e: *Editor, comptime T: type, at: u32) []T {
        const all = e.capacitySlice(T, at);
        const a = e.reader.array(at, @sizeOf(T), km.no_limit);
        return all[0..@min(a.len, all.len)];
    }

    /// All `capacity` elements of the plain array at `at`: the room past
    /// the length is writable too (publish a new length with `setLen`).
    pub fn capacitySlice(e: *Editor, comptime T: type, at: u32) []T {
        comptime km.checkSliceable(T);
        const a = e.reader.array(at, @sizeOf(T), km.no_limit);
        const view = e.reader.slice(T, a.offset, a.cap);
        if (view.len == 0) return &.{};
        const p: [*]T = @ptrCast(@alignCast(e.mem.ptr + a.offset));
        return p[0..view.len];
    }

    /// The position of the array reference that is field `offset` of
    /// table `t`, or 0 when the message does not hold the field (an
    /// absent table, or an older writer's, §4).
    fn fieldAt(t: Table, offset: u32) u32 {
        return if (t.has(offset, km.array_ref_size)) t.offset + offset else 0;
    }

    /// The elements `0..length` of the plain array that is field `offset`
    /// of table `t`, writable in place (docs/format.md §12; generated
    /// `editF` setters call it); empty when the table does not hold the
    /// field, or the array is malformed or longer than `limit`.
    pub fn fieldSlice(e: *Editor, comptime T: type, t: Table, offset: u32, limit: u32) []T {
        comptime km.checkSliceable(T);
        const at = fieldAt(t, offset);
        if (at == 0) return &.{};
        const a = e.reader.array(at, @sizeOf(T), limit);
        // The reader's checks (bounds, alignment) decide; the bytes are ours.
        const view = e.reader.arraySlice(T, a);
        if (view.len == 0) return &.{};
        const p: [*]T = @ptrCast(@alignCast(e.mem.ptr + a.offset));
        return p[0..view.len];
    }

    /// Changes the length of the plain array that is field `offset` of
    /// table `t` (see `setLen`; generated `setFLen` setters call it):
    /// `error.TooLarge` past `limit` (the N of `[<N]T`) or the capacity,
    /// `error.MalformedTable` when the table does not hold the field.
    pub fn setFieldLen(e: *Editor, t: Table, offset: u32, elem_size: u32, limit: u32, length: u32) km.EditError!void {
        if (length > limit) return error.TooLarge;
        const at = fieldAt(t, offset);
        if (at == 0) return error.MalformedTable;
        return e.setLen(at, elem_size, length);
    }

    /// Changes the length of the array at `at` within its capacity. The
    /// elements between the old and the new length are zeroed both ways:
    /// dropped ones so that unused capacity stays zero, exposed ones
    /// because a message from elsewhere may hold anything there
    /// (docs/format.md §12). `error.MalformedArray` for a malformed
    /// reference, `error.TooLarge` past the capacity.
    pub fn setLen(e: *Editor, at: u32, elem_size: u32, length: u32) error{ MalformedArray, TooLarge }!void {
        const a = e.reader.array(at, elem_size, km.no_limit);
        if (!e.reader.fits(at, 12) or (a.cap == 0 and e.reader.load(u32, at + 8) != 0)) return error.MalformedArray;
        if (length > a.cap) return error.TooLarge;
        const from = @as(usize, a.offset) + @as(usize, @min(length, a.len)) * elem_size;
        const to = @as(usize, a.offset) + @as(usize, @max(length, a.len)) * elem_size;
        @memset(e.mem[from..to], 0);
        std.mem.writeInt(u32, e.mem[at + 4 ..][0..4], length, .little);
    }
};

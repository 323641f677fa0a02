//! The writer: a growable writer over memory from an explicit allocator, or
//! a fixed writer over a caller's buffer (docs/format.md §8). Everything it
//! hands out is zero-filled or filled by the caller, so padding and unused
//! capacity are zero and nothing of a previous message leaks into the next.

const std = @import("std");
const km = @import("karmem.zig");

const Allocator = std.mem.Allocator;
const Column = km.Column;
const WriteError = km.WriteError;

/// A reusable output buffer for messages.
///
/// `init` makes a growable writer whose storage, from the given allocator,
/// starts on a 64-byte line (more than the 8 bytes the format needs,
/// docs/format.md §1, so no column shares a line with data before the
/// message). `initFixed` writes into the caller's 8-aligned buffer and never
/// grows nor allocates: an allocation that does not fit fails with
/// `error.TooLarge` and nothing is written past the buffer.
///
/// Offsets handed out by `alloc` are positions in the message. The writer
/// remembers the SoA directories of the current message (docs/format.md
/// §5.3: one per column list, shared by every later array of that list):
/// the first `inline_directories` in the writer itself, the rest, for a
/// growable writer, in memory from its allocator; a fixed writer refuses a
/// message with more distinct column lists than that (`error.TooLarge`).
pub const Writer = struct {
    /// The storage; its length is the capacity.
    buf: []align(8) u8,
    /// Bytes written so far.
    n: usize = 0,
    /// The allocator of a growable writer; null for a fixed writer.
    gpa: ?Allocator,
    /// The SoA directories of the current message, found again by the
    /// address of the caller's column list (generated code passes one
    /// constant every time) or, failing that, by their bytes.
    dirs: [inline_directories]WrittenDirectory = undefined,
    /// How many of `dirs` hold a directory.
    n_dirs: usize = 0,
    /// The directories past `dirs` (a growable writer only).
    more_dirs: std.ArrayList(WrittenDirectory) = .empty,

    /// Column lists a writer remembers without allocating.
    pub const inline_directories = 64;

    /// A directory of the current message and the column list it was
    /// first written for.
    pub const WrittenDirectory = struct { columns: [*]const Column, offset: u32 };

    /// The alignment of a growable writer's storage: a cache line.
    pub const line_size = 64;

    /// A growable writer with room for `capacity` bytes before it grows.
    /// Free it with `deinit`.
    pub fn init(gpa: Allocator, capacity: usize) Allocator.Error!Writer {
        const buf = try gpa.alignedAlloc(u8, .fromByteUnits(line_size), @max(capacity, line_size));
        return .{ .buf = buf, .gpa = gpa };
    }

    /// A fixed writer over `buf`: messages are encoded into it in place (a
    /// region a WebAssembly module exported, shared memory). `buf` must
    /// hold at least the 8-byte header. Whatever it held is overwritten
    /// where the message reaches and left alone after it.
    pub fn initFixed(buf: []align(8) u8) error{TooLarge}!Writer {
        if (buf.len < km.header_size) return error.TooLarge;
        return .{ .buf = buf, .gpa = null };
    }

    /// `initFixed` for a buffer whose alignment is only known at run time:
    /// `error.Misaligned` unless it starts at an 8-byte aligned address.
    pub fn initFixedBytes(buf: []u8) error{ TooLarge, Misaligned }!Writer {
        if (buf.len < km.header_size) return error.TooLarge;
        if (!km.isAligned(buf)) return error.Misaligned;
        return initFixed(@alignCast(buf));
    }

    /// Frees the storage of a growable writer (a fixed writer owns none).
    pub fn deinit(w: *Writer) void {
        if (w.gpa) |gpa| {
            const owned: []align(line_size) u8 = @alignCast(w.buf);
            gpa.free(owned);
            w.more_dirs.deinit(gpa);
        }
        w.* = undefined;
    }

    /// Forgets the current message and keeps the buffer.
    pub fn reset(w: *Writer) void {
        w.n = 0;
        w.n_dirs = 0;
        w.more_dirs.clearRetainingCapacity();
    }

    /// The bytes written so far (the finished message after `finish`).
    /// They alias the writer's buffer: copy them before the writer is
    /// reused, and do not keep them across an allocation (a growable
    /// writer may move).
    pub fn bytes(w: *const Writer) []align(8) u8 {
        return w.buf[0..w.n];
    }

    /// The number of bytes written so far.
    pub fn len(w: *const Writer) usize {
        return w.n;
    }

    /// Starts a message: resets the writer and reserves the header. The
    /// root object must be allocated next (it lands at offset 8,
    /// docs/format.md §1).
    pub fn begin(w: *Writer) WriteError!void {
        w.reset();
        try w.grow(km.header_size); // a fixed buffer holds at least the header
        @memset(w.buf[0..km.header_size], 0);
        w.n = km.header_size;
    }

    /// Pads the message to a multiple of 8 and fills in the header
    /// (docs/format.md §1, §8 rule 6).
    pub fn finish(w: *Writer) WriteError!void {
        const end = km.alignUp(w.n, 8);
        if (end > std.math.maxInt(u32)) return error.TooLarge;
        try w.extend(@intCast(end), true);
        w.buf[0] = 'K';
        w.buf[1] = 'M';
        w.buf[2] = km.version;
        w.buf[3] = 0;
        std.mem.writeInt(u32, w.buf[4..8], @intCast(w.n), .little);
    }

    /// Makes room for `end` bytes, keeping what was written; a fixed
    /// buffer cannot grow.
    fn grow(w: *Writer, end: usize) WriteError!void {
        if (end <= w.buf.len) return;
        const gpa = w.gpa orelse return error.TooLarge;
        const old: []align(line_size) u8 = @alignCast(w.buf);
        const new = try gpa.alignedAlloc(u8, .fromByteUnits(line_size), @max(end, 2 * w.buf.len));
        @memcpy(new[0..w.n], old[0..w.n]);
        gpa.free(old);
        w.buf = new;
    }

    /// Moves the end of the message to `end`, zeroing the added bytes
    /// when `zero` is set (otherwise the caller overwrites all of them).
    fn extend(w: *Writer, end: usize, zero: bool) WriteError!void {
        try w.grow(end);
        if (zero) @memset(w.buf[w.n..end], 0);
        w.n = end;
    }

    fn reserve(w: *Writer, size: u32, alignment: u32, zero: bool) WriteError!u32 {
        const start = km.alignUp(w.n, alignment);
        const end = start + size;
        if (end > std.math.maxInt(u32)) return error.TooLarge;
        try w.grow(@intCast(end));
        @memset(w.buf[w.n..@intCast(start)], 0);
        w.n = @intCast(start);
        try w.extend(@intCast(end), zero);
        return @intCast(start);
    }

    /// Reserves `size` zeroed bytes at the next multiple of `alignment` (a
    /// power of two); the gap before them is zeroed too (docs/format.md §8
    /// rule 5). Returns their offset.
    pub fn alloc(w: *Writer, size: u32, alignment: u32) WriteError!u32 {
        return w.reserve(size, alignment, true);
    }

    /// `alloc` for a block the caller fills completely: only the alignment
    /// gap before it is zeroed (array data would otherwise be written
    /// twice).
    pub fn allocFilled(w: *Writer, size: u32, alignment: u32) WriteError!u32 {
        return w.reserve(size, alignment, false);
    }

    fn arrayBytes(count: usize, elem_size: u32) WriteError!u32 {
        const nbytes = std.math.mul(u64, count, elem_size) catch return error.TooLarge;
        return std.math.cast(u32, nbytes) orelse error.TooLarge;
    }

    /// Reserves a zeroed array block of `count` elements of `elem_size`
    /// bytes at `naturalAlign(elem_size)` (docs/format.md §5). An empty
    /// array has no block: it returns 0.
    pub fn allocArray(w: *Writer, count: usize, elem_size: u32) WriteError!u32 {
        if (count == 0) return 0;
        return w.reserve(try arrayBytes(count, elem_size), km.naturalAlign(elem_size), true);
    }

    /// `allocArray` for a block the caller fills completely.
    pub fn allocArrayFilled(w: *Writer, count: usize, elem_size: u32) WriteError!u32 {
        if (count == 0) return 0;
        return w.reserve(try arrayBytes(count, elem_size), km.naturalAlign(elem_size), false);
    }

    /// Stores a little-endian scalar at `offset`, inside an earlier
    /// allocation (bounds-checked in safe builds only, like any slice).
    pub inline fn put(w: *Writer, comptime T: type, offset: u32, v: T) void {
        km.encode(T, w.buf[offset..][0..@sizeOf(T)], v);
    }

    /// Writes the 12-byte array reference at `at` (docs/format.md §5).
    pub fn putArrayRef(w: *Writer, at: u32, offset: u32, length: u32, capacity: u32) void {
        w.put(u32, at, offset);
        w.put(u32, at + 4, length);
        w.put(u32, at + 8, capacity);
    }

    /// Writes text (UTF-8 bytes, or any bytes of a `[]u8`) as a plain `u8`
    /// array: its block, and the reference at `at` (docs/format.md §5.1).
    pub fn writeString(w: *Writer, at: u32, s: []const u8) WriteError!void {
        const offset = try w.allocArrayFilled(s.len, 1);
        if (s.len > 0) @memcpy(w.buf[offset..][0..s.len], s);
        w.putArrayRef(at, offset, @intCast(s.len), @intCast(s.len));
    }

    /// Writes a bool array as bytes 0 and 1 (docs/format.md §2): its block,
    /// and the reference at `at`.
    pub fn writeBools(w: *Writer, at: u32, values: []const bool) WriteError!void {
        const offset = try w.allocArrayFilled(values.len, 1);
        for (values, 0..) |v, i| w.buf[offset + i] = km.boolByte(v);
        w.putArrayRef(at, offset, @intCast(values.len), @intCast(values.len));
    }

    /// Writes UTF-8 `s` as UTF-16 text (`[]u16 @string`, docs/format.md
    /// §6): its block, and the reference at `at`. Each byte of `s` that is
    /// not valid UTF-8 is written as U+FFFD.
    pub fn writeUtf16(w: *Writer, at: u32, s: []const u8) WriteError!void {
        const n = utf16Len(s);
        const offset = try w.allocArrayFilled(n, 2);
        var o = offset;
        var it: CodePoints = .{ .s = s };
        while (it.next()) |c| {
            if (c >= 0x10000) {
                const d = c - 0x10000;
                w.put(u16, o, @intCast(0xD800 + (d >> 10)));
                w.put(u16, o + 2, @intCast(0xDC00 + (d & 0x3FF)));
                o += 4;
            } else {
                w.put(u16, o, @intCast(c));
                o += 2;
            }
        }
        w.putArrayRef(at, offset, @intCast(n), @intCast(n));
    }

    /// Writes a plain array of numbers or enums (docs/format.md §5.1): its
    /// block, and the reference at `at`. On a little-endian target the
    /// values are copied as they are in memory.
    pub fn writeSlice(w: *Writer, comptime T: type, at: u32, values: []const T) WriteError!void {
        comptime km.checkSliceable(T);
        const offset = try w.allocArrayFilled(values.len, @sizeOf(T));
        if (values.len > 0) @memcpy(w.buf[offset..][0 .. values.len * @sizeOf(T)], std.mem.sliceAsBytes(values));
        w.putArrayRef(at, offset, @intCast(values.len), @intCast(values.len));
    }

    /// `n` values of `T` at `offset` of the buffer as a native slice, for
    /// generated code that fills an SoA column in one loop. Valid until the
    /// next allocation (a growable writer may move).
    pub fn slice(w: *Writer, comptime T: type, offset: u32, n: usize) []T {
        comptime km.checkSliceable(T);
        if (n == 0) return &.{};
        const b = w.buf[offset..][0 .. n * @sizeOf(T)];
        const p: [*]T = @ptrCast(@alignCast(b.ptr));
        return p[0..n];
    }

    /// Writes the block of an SoA array of `count` elements
    /// (docs/format.md §5.3): the offset of the directory of its column
    /// list, then one column per entry of `columns`, each at the natural
    /// alignment of its size. The directory is written right before the
    /// block the first time the message has an SoA array of this column
    /// list; later arrays refer to it (§8 rule 3). The reference goes to
    /// `at` and the column offsets to `out` (same order). Dense columns are
    /// not zeroed: the caller writes every value of them.
    pub fn writeSoa(w: *Writer, at: u32, count: usize, columns: []const Column, out: []u32) WriteError!void {
        if (count == 0) {
            w.putArrayRef(at, 0, 0, 0);
            @memset(out, 0);
            return;
        }
        const count32 = std.math.cast(u32, count) orelse return error.TooLarge;
        const dir = w.findDirectory(columns) orelse try w.writeDirectory(columns);
        const block = try w.alloc(4, km.directory_align);
        w.put(u32, block, dir);
        for (columns, 0..) |c, k| {
            out[k] = if (c.dense) try w.allocArrayFilled(count, c.size) else try w.allocArray(count, c.size);
        }
        w.putArrayRef(at, block, count32, count32);
    }

    /// `writeSoa` over a column list known at compile time: the column
    /// offsets come back in an array.
    pub fn writeSoaOf(w: *Writer, comptime columns: []const Column, at: u32, count: usize) WriteError![columns.len]u32 {
        var out: [columns.len]u32 = @splat(0);
        try w.writeSoa(at, count, columns, &out);
        return out;
    }

    fn directories(w: *const Writer) []const WrittenDirectory {
        return w.dirs[0..w.n_dirs];
    }

    /// The directory of this column list written earlier in the message.
    fn findDirectory(w: *const Writer, columns: []const Column) ?u32 {
        // The directory written for the same list before is tried first:
        // one comparison instead of a scan. Its bytes are compared all the
        // same, as a caller's slice may hold other columns by now.
        for ([_][]const WrittenDirectory{ w.directories(), w.more_dirs.items }) |list| {
            for (list) |d| {
                if (d.columns == columns.ptr and w.lists(d.offset, columns)) return d.offset;
            }
        }
        for ([_][]const WrittenDirectory{ w.directories(), w.more_dirs.items }) |list| {
            for (list) |d| {
                if (w.lists(d.offset, columns)) return d.offset;
            }
        }
        return null;
    }

    /// Whether the directory at `d` lists exactly `columns`.
    fn lists(w: *const Writer, d: u32, columns: []const Column) bool {
        const n: u32 = @intCast(columns.len);
        if (std.mem.readInt(u32, w.buf[d..][0..4], .little) != n) return false;
        for (columns, 0..) |c, k| {
            const e = d + 4 + 4 * @as(u32, @intCast(k));
            if (std.mem.readInt(u32, w.buf[e..][0..4], .little) != c.hash or
                std.mem.readInt(u32, w.buf[e + 4 * n ..][0..4], .little) != c.size) return false;
        }
        return true;
    }

    /// Writes the directory of a column list (n, the hashes, the value
    /// sizes) and remembers it for the rest of the message.
    fn writeDirectory(w: *Writer, columns: []const Column) WriteError!u32 {
        const n = std.math.cast(u32, columns.len) orelse return error.TooLarge;
        const dsize = std.math.cast(u32, km.directorySize(n)) orelse return error.TooLarge;
        const entry: WrittenDirectory = .{ .columns = columns.ptr, .offset = 0 };
        // Room to remember it first, so that a failure leaves no directory
        // the writer does not know.
        if (w.n_dirs == inline_directories) {
            const gpa = w.gpa orelse return error.TooLarge;
            try w.more_dirs.ensureUnusedCapacity(gpa, 1);
        }
        const d = try w.alloc(dsize, km.directory_align);
        w.put(u32, d, n);
        for (columns, 0..) |c, k| {
            const kk: u32 = @intCast(k);
            w.put(u32, d + 4 + 4 * kk, c.hash);
            w.put(u32, d + 4 + 4 * (n + kk), c.size);
        }
        var e = entry;
        e.offset = d;
        if (w.n_dirs < inline_directories) {
            w.dirs[w.n_dirs] = e;
            w.n_dirs += 1;
        } else {
            w.more_dirs.appendAssumeCapacity(e);
        }
        return d;
    }

    /// Reserves a bunch table of `entries` entries (docs/format.md §7.1)
    /// and stores the count; entry e (0-based) starts at the returned
    /// offset + 16 × (e + 1).
    pub fn writeBunchTable(w: *Writer, entries: u32) WriteError!u32 {
        const size = std.math.cast(u32, km.bunchTableSize(entries)) orelse return error.TooLarge;
        const tbl = try w.alloc(size, km.bunch_table_align);
        w.put(u32, tbl, entries);
        return tbl;
    }
};

/// The code points of UTF-8 text; each byte that does not start a valid
/// sequence is one U+FFFD (as Go's `range` over a string).
const CodePoints = struct {
    s: []const u8,
    i: usize = 0,

    fn next(it: *CodePoints) ?u21 {
        if (it.i >= it.s.len) return null;
        const rest = it.s[it.i..];
        if (std.unicode.utf8ByteSequenceLength(rest[0])) |n| {
            if (n <= rest.len) {
                if (std.unicode.utf8Decode(rest[0..n])) |c| {
                    it.i += n;
                    return c;
                } else |_| {}
            }
        } else |_| {}
        it.i += 1;
        return 0xFFFD;
    }
};

/// The number of UTF-16 code units of UTF-8 `s` (invalid bytes count as
/// U+FFFD, one unit each): the length `Writer.writeUtf16` writes.
pub fn utf16Len(s: []const u8) usize {
    var n: usize = 0;
    var it: CodePoints = .{ .s = s };
    while (it.next()) |c| n += if (c >= 0x10000) 2 else 1;
    return n;
}

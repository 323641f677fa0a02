//! The checked reader: zero-copy, bounds-checked access to one message
//! (docs/format.md §1–§7). Every load is bounded by the message size;
//! malformed tables and arrays read as absent or empty, never as a panic.

const std = @import("std");
const km = @import("karmem.zig");

const Table = km.Table;
const ArrayRef = km.ArrayRef;
const Column = km.Column;
const Limits = km.Limits;

/// Zero-copy, bounds-checked access to one message.
///
/// A Reader is a small value (the message as an 8-aligned slice cut to the
/// size in its header, and the limits): pass it by value. Text and slices it
/// returns alias the buffer, which must not be changed or freed while they
/// are in use (docs/zig.md). `Reader.empty` is an empty message: every read
/// gives zero, for callers that keep going after a refused header.
pub const Reader = struct {
    /// The message, header included, cut to the size in the header.
    mem: []align(8) const u8,
    /// The limits of docs/format.md §10 this reader enforces.
    limits: Limits = km.default_limits,

    /// The empty message: every read gives zero or empty.
    pub const empty: Reader = .{ .mem = &.{} };

    /// How to open a message: the limits to enforce, and where to record
    /// the place of a header fault.
    pub const Options = struct {
        limits: Limits = km.default_limits,
        fault: ?*km.Fault = null,
    };

    /// Opens a message with the default limits (docs/format.md §1). The
    /// buffer may be followed by unrelated bytes: the header's size bounds
    /// every access. It must start at an 8-byte aligned address.
    pub fn open(buf: []const u8) km.HeaderError!Reader {
        return init(buf, .{});
    }

    /// Opens a message with the given options, checking the header and
    /// the alignment before anything is read (docs/format.md §1).
    pub fn init(buf: []const u8, options: Options) km.HeaderError!Reader {
        var fault: km.Fault = .{};
        const r = check(buf, options.limits, &fault) catch |err| {
            if (options.fault) |f| f.* = fault;
            return err;
        };
        return r;
    }

    fn check(buf: []const u8, limits: Limits, fault: *km.Fault) km.HeaderError!Reader {
        if (buf.len < km.header_size) {
            fault.* = .{ .kind = error.Truncated, .offset = 0, .value = buf.len };
            return error.Truncated;
        }
        if (!km.isAligned(buf)) {
            fault.* = .{ .kind = error.Misaligned };
            return error.Misaligned;
        }
        if (buf[0] != 'K' or buf[1] != 'M') {
            fault.* = .{ .kind = error.BadMagic };
            return error.BadMagic;
        }
        if (buf[2] != km.version) {
            fault.* = .{ .kind = error.UnsupportedVersion, .offset = 2, .value = buf[2] };
            return error.UnsupportedVersion;
        }
        if (buf[3] != 0) {
            fault.* = .{ .kind = error.BadFlags, .offset = 3, .value = buf[3] };
            return error.BadFlags;
        }
        const stated = std.mem.readInt(u32, buf[4..8], .little);
        if (stated < km.header_size or stated % 8 != 0) {
            fault.* = .{ .kind = error.BadSize, .offset = 4, .value = stated };
            return error.BadSize;
        }
        if (stated > buf.len) {
            fault.* = .{ .kind = error.Truncated, .offset = 4, .value = stated };
            return error.Truncated;
        }
        const aligned: []align(8) const u8 = @alignCast(buf[0..stated]);
        return .{ .mem = aligned, .limits = limits };
    }

    /// The message size in bytes (0 for `Reader.empty`).
    pub inline fn size(r: Reader) u32 {
        return @intCast(r.mem.len);
    }

    /// Whether `n` bytes at `offset` lie inside the message.
    pub inline fn fits(r: Reader, offset: u32, n: u64) bool {
        return @as(u64, offset) + n <= r.mem.len;
    }

    /// Loads a scalar at `offset`; a load that does not fit the message
    /// reads as zero (docs/format.md §1: every access is bounded by the
    /// size). `T` is an integer, float, bool or non-exhaustive enum.
    pub inline fn load(r: Reader, comptime T: type, offset: u32) T {
        if (!r.fits(offset, @sizeOf(T))) return km.zero(T);
        return km.decode(T, r.mem[offset..][0..@sizeOf(T)]);
    }

    /// Returns the table at `offset`, or `Table.absent` if it is absent
    /// (offset 0) or malformed: misaligned, its header past the end, used
    /// size below 4, or its total size past the end (docs/format.md §4).
    pub fn table(r: Reader, offset: u32) Table {
        if (offset == 0 or offset % 8 != 0 or !r.fits(offset, 8)) return .absent;
        const header = std.mem.readInt(u32, r.mem[offset..][0..4], .little);
        const total = @as(u64, header & 0x1FFFFFFF) * 8;
        const unused: u64 = header >> 29;
        if (total < 8 or total - unused < 4 or !r.fits(offset, total)) return .absent;
        return .{ .offset = offset, .used = @intCast(total - unused) };
    }

    /// The root table, at offset 8 (docs/format.md §1).
    pub fn root(r: Reader) Table {
        return r.table(km.header_size);
    }

    /// The table a field of `t` at `offset` refers to (absent when the field
    /// is, docs/format.md §4).
    pub fn fieldTable(r: Reader, t: Table, offset: u32) Table {
        if (!t.has(offset, 4)) return .absent;
        return r.table(r.load(u32, t.offset + offset));
    }

    /// Loads a scalar field of table `t`; a field past the table's used
    /// size (an older writer, docs/format.md §4, §9) reads as zero.
    pub inline fn field(r: Reader, comptime T: type, t: Table, offset: u32) T {
        if (!t.has(offset, @sizeOf(T))) return km.zero(T);
        return r.load(T, t.offset + offset);
    }

    /// The array reference stored at `at`, checked (docs/format.md §5):
    /// empty if malformed. `elem_size` is the bytes per element of the data
    /// block (0 where the block is an SoA block or bunch table, checked on
    /// use); `limit` is the N of `[<N]T`, or `no_limit`.
    pub fn array(r: Reader, at: u32, elem_size: u32, limit: u32) ArrayRef {
        if (!r.fits(at, 12)) return .empty;
        // A zero capacity means "no block" whatever the offset says:
        // loadArrayRef normalises it, which keeps hostile offsets of empty
        // arrays away from every later offset computation.
        return r.checkArray(km.loadArrayRef(r.mem[at..][0..12]), elem_size, limit);
    }

    /// An array field of table `t` (empty when the field is absent).
    pub fn fieldArray(r: Reader, t: Table, offset: u32, elem_size: u32, limit: u32) ArrayRef {
        if (!t.has(offset, 12)) return .empty;
        return r.array(t.offset + offset, elem_size, limit);
    }

    /// Returns `a` when it is a well-formed reference into the message
    /// (docs/format.md §5), the empty reference otherwise: `array` for a
    /// reference read from an inline struct's image.
    pub fn checkArray(r: Reader, a: ArrayRef, elem_size: u32, limit: u32) ArrayRef {
        if (a.cap == 0 or !arrayOk(a, elem_size, limit, r.mem.len)) return .empty;
        return a;
    }

    /// The array reference at `at` as it is stored, unchecked (a load of
    /// three words, each zero past the end).
    pub fn rawArrayRef(r: Reader, at: u32) ArrayRef {
        return .{ .offset = r.load(u32, at), .len = r.load(u32, at + 4), .cap = r.load(u32, at + 8) };
    }

    /// `n` values of `T` at `offset` as a native slice over the message (no
    /// copy). Offset 0, n 0, a range past the end or a misaligned offset
    /// give the empty slice. `T` is a number type or an enum over one, not
    /// bool (docs/format.md §2); the message being 8-aligned, every column
    /// at its natural alignment is aligned in memory (§1).
    pub fn slice(r: Reader, comptime T: type, offset: u32, n: u32) []const T {
        comptime km.checkSliceable(T);
        if (offset == 0 or n == 0) return &.{};
        if (!r.fits(offset, @as(u64, n) * @sizeOf(T))) return &.{};
        // Unreachable for a message opened by `open` (8-aligned base,
        // aligned offsets); refuse rather than misread.
        if (offset % @alignOf(T) != 0) return &.{};
        const p: [*]const T = @ptrCast(@alignCast(r.mem.ptr + offset));
        return p[0..n];
    }

    /// The `len` elements of array `a` as a native slice (see `slice`).
    pub fn arraySlice(r: Reader, comptime T: type, a: ArrayRef) []const T {
        return r.slice(T, a.offset, a.len);
    }

    /// The bytes of an array of `u8` or `bool` (a view, no copy): bool
    /// arrays are bytes, any non-zero byte true (docs/format.md §2).
    pub fn bytes(r: Reader, a: ArrayRef) []const u8 {
        return r.slice(u8, a.offset, a.len);
    }

    /// UTF-8 text aliasing the message (no copy). Text that is not valid
    /// UTF-8 reads as "" (docs/format.md §6), as in every other Karmem
    /// library; `bytes` gives the raw bytes and the validator reports it.
    pub fn string(r: Reader, a: ArrayRef) []const u8 {
        const b = r.bytes(a);
        if (b.len == 0 or !std.unicode.utf8ValidateSlice(b)) return "";
        return b;
    }

    /// A well-formed SoA directory: its offset and number of entries.
    pub const Directory = struct { offset: u32, n: u32 };

    /// The SoA directory of `a` (docs/format.md §5.3): the one the first word
    /// of its block points to. Null when `a` has no block, or the block's
    /// word or the directory is malformed (misaligned, past the end, over
    /// `max_directory_entries`). Whether the columns end inside the message
    /// is checked when they are laid out.
    pub fn directory(r: Reader, a: ArrayRef) ?Directory {
        if (a.cap == 0 or a.offset % km.directory_align != 0 or !r.fits(a.offset, 4)) return null;
        const dir = r.load(u32, a.offset);
        if (dir == 0 or dir % km.directory_align != 0 or !r.fits(dir, 4)) return null;
        const n = r.load(u32, dir);
        if (n > r.limits.max_directory_entries or !r.fits(dir, km.directorySize(n))) return null;
        return .{ .offset = dir, .n = n };
    }

    /// Resolves SoA columns in one pass over the directory of `a`
    /// (docs/format.md §5.3): `out[j]` receives the offset of column
    /// `wanted[j]`, or 0 when it is absent or the block is malformed (the
    /// column then reads as zeros). The first entry of a wanted hash with
    /// the wanted size is its column.
    pub fn soaColumns(r: Reader, a: ArrayRef, wanted: []const Column, out: []u32) void {
        @memset(out, 0);
        if (r.directory(a)) |d| r.resolveColumns(a, d, wanted, out);
    }

    /// `soaColumns` over a column list known at compile time (a generated
    /// element type): the offsets come back in an array, no slice to pass.
    pub fn soa(r: Reader, comptime wanted: []const Column, a: ArrayRef) [wanted.len]u32 {
        var out: [wanted.len]u32 = @splat(0);
        r.soaColumns(a, wanted, &out);
        return out;
    }

    /// `soaColumns` over a directory `directory` found well formed; `out`
    /// is zero. A block that ends past the message has no column.
    pub fn resolveColumns(r: Reader, a: ArrayRef, d: Directory, wanted: []const Column, out: []u32) void {
        if (!r.findColumns(a, d, wanted, out).fits) @memset(out, 0);
    }

    /// What `findColumns` found: whether the block ends inside the message,
    /// and whether no wanted hash is listed twice or with another size
    /// (which a validator refuses, docs/format.md §5.3).
    pub const Found = struct { fits: bool, strict: bool };

    /// Lays out the block of `a` over the well-formed directory `d`
    /// (docs/format.md §5.3) and puts into `out` (zero on entry) the first
    /// column of each wanted hash listed with the wanted size. Unknown
    /// hashes, repeated or not, are only laid out.
    pub fn findColumns(r: Reader, a: ArrayRef, d: Directory, wanted: []const Column, out: []u32) Found {
        const limit: u64 = r.mem.len;
        const entries = r.mem[@as(usize, d.offset) + 4 ..][0 .. 8 * @as(usize, d.n)];
        var layout: ColumnLayout = .init(a.offset, a.cap);
        var strict = true;
        for (0..d.n) |k| {
            const e = directoryEntry(entries, d.n, k);
            const col = layout.next(e.size);
            if (col > limit) return .{ .fits = false, .strict = strict };
            // Column hashes of one struct are distinct (the schema compiler
            // refuses collisions), so at most one wanted column matches.
            if (wantedIndex(wanted, k, e.hash)) |j| {
                const size_ok = wanted[j].size == e.size;
                strict = strict and out[j] == 0 and size_ok;
                if (out[j] == 0 and size_ok) out[j] = @intCast(col);
            }
        }
        return .{ .fits = layout.pos <= limit, .strict = strict };
    }

    /// Whether the directory at `dir` (well formed or not) lists exactly
    /// `wanted`'s hashes and sizes, in order: the one a writer of the
    /// reader's schema version writes (docs/format.md §5.3).
    pub fn sameDirectory(r: Reader, dir: u32, wanted: []const Column) bool {
        if (dir == 0 or dir % km.directory_align != 0) return false;
        const n: u32 = std.math.cast(u32, wanted.len) orelse return false;
        if (n > (std.math.maxInt(u32) - 1) / 2) return false;
        const words = r.slice(u32, dir, 2 * n + 1);
        if (words.len != 2 * n + 1 or words[0] != n) return false;
        const hashes = words[1 .. 1 + n];
        const sizes = words[1 + n ..];
        var good = true;
        for (wanted, hashes, sizes) |c, h, s| good = good and h == c.hash and s == c.size;
        return good;
    }

    /// The tag and offset columns of an SoA array of unions.
    pub const UnionColumns = struct { tags: u32, offsets: u32 };

    /// The tag and offset columns of an SoA array of unions with tags of
    /// `tag_size` bytes (docs/format.md §7.1); null when the array is empty,
    /// its tag column misaligned or its offset column past the end.
    pub fn unionColumns(r: Reader, a: ArrayRef, tag_size: u32) ?UnionColumns {
        if (a.cap == 0) return null;
        const offs = unionOffsetColumn(a, tag_size);
        if (a.offset % km.naturalAlign(tag_size) != 0 or offs + 4 * @as(u64, a.cap) > r.mem.len) return null;
        return .{ .tags = a.offset, .offsets = @intCast(offs) };
    }

    /// The array of variant `tag` in the bunch table of `a` (docs/format.md
    /// §7.1), checked like any array reference with elements of
    /// `elem_size` bytes; empty if the variant has no entry or the table is
    /// malformed (misaligned, past the end, over `max_directory_entries`).
    /// The first entry of a tag is used.
    pub fn bunchEntry(r: Reader, a: ArrayRef, tag: u32, elem_size: u32) ArrayRef {
        const k = r.bunchEntries(a) orelse return .empty;
        var e: u32 = 1;
        while (e <= k) : (e += 1) {
            const entry = a.offset + 16 * e;
            if (r.load(u32, entry) == tag) return r.array(entry + 4, elem_size, km.no_limit);
        }
        return .empty;
    }

    /// The number of entries of the bunch table of `a` (docs/format.md
    /// §7.1), or null when `a` is empty or its table is malformed
    /// (misaligned, over the entry limit, past the end): its variants then
    /// read as empty.
    pub fn bunchEntries(r: Reader, a: ArrayRef) ?u32 {
        if (a.cap == 0) return null;
        const k = r.load(u32, a.offset);
        if (a.offset % km.bunch_table_align != 0 or k > r.limits.max_directory_entries or
            !r.fits(a.offset, km.bunchTableSize(k))) return null;
        return k;
    }

    /// Whether an inline struct of `n` bytes can be read at `offset`:
    /// non-zero, 8-aligned, inside the message. The check of an inline
    /// union value (docs/format.md §7).
    pub fn inlineAt(r: Reader, offset: u32, n: u32) bool {
        return offset != 0 and offset % 8 == 0 and r.fits(offset, n);
    }
};

/// Applies the checks of docs/format.md §5 to an array reference: length
/// within capacity and limit; with a block, a non-zero offset at the
/// natural alignment of the elements and the whole block inside `size`.
pub fn arrayOk(a: ArrayRef, elem_size: u32, limit: u32, size: usize) bool {
    if (a.len > a.cap or a.len > limit) return false;
    if (a.cap == 0) return true;
    return a.offset != 0 and a.offset % km.naturalAlign(elem_size) == 0 and
        @as(u64, a.offset) + @as(u64, a.cap) * elem_size <= size;
}

/// Where the offset column of an SoA union array starts: after the tag
/// column, at the alignment of a `u32` (docs/format.md §7.1).
pub fn unionOffsetColumn(a: ArrayRef, tag_size: u32) u64 {
    return km.alignUp(@as(u64, a.offset) + @as(u64, a.cap) * tag_size, 4);
}

/// Walks the columns of an SoA block (docs/format.md §5.3): each starts at
/// the natural alignment of its value size after the end of the one
/// before, the first after the block's word. Callers that do not trust the
/// message check each start against its size before the next step, so in
/// 64 bits nothing wraps: a step adds at most (2^32−1)² to a position of
/// at most 2^32.
pub const ColumnLayout = struct {
    /// Where the last column laid out ends.
    pos: u64,
    /// The elements each column has room for.
    capacity: u64,

    /// The layout of the block at `block` with room for `capacity`
    /// elements: the first column starts after the block's word.
    pub fn init(block: u32, capacity: u32) ColumnLayout {
        return .{ .pos = @as(u64, block) + 4, .capacity = capacity };
    }

    /// Where the column of values of `size` bytes starts; `pos` is then
    /// where it ends.
    pub fn next(l: *ColumnLayout, size: u32) u64 {
        const start = km.alignUp(l.pos, km.naturalAlign(size));
        l.pos = start + l.capacity * size;
        return start;
    }
};

/// The hash and value size of entry `k` of a directory of `n` entries,
/// from the words after its count (docs/format.md §5.3).
pub inline fn directoryEntry(entries: []const u8, n: u32, k: usize) struct { hash: u32, size: u32 } {
    return .{
        .hash = std.mem.readInt(u32, entries[4 * k ..][0..4], .little),
        .size = std.mem.readInt(u32, entries[4 * (n + k) ..][0..4], .little),
    };
}

/// The index in `wanted` of the column that directory entry `k` with
/// `hash` holds, or null when the reader does not know it. Writers list
/// columns in the reader's order when both know the same schema version:
/// the same position is tried first.
pub inline fn wantedIndex(wanted: []const Column, k: usize, hash: u32) ?usize {
    if (k < wanted.len and wanted[k].hash == hash) return k;
    for (wanted, 0..) |c, i| {
        if (c.hash == hash) return i;
    }
    return null;
}

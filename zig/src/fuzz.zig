//! The fuzz target of the Zig library: the properties the C library's
//! libFuzzer target checks (c/fuzz/fuzz_reader.c), in Zig, over any bytes
//! (docs/zig.md, "Fuzzing"). `check` takes one input; `zig build fuzz`
//! (fuzz_main.zig) runs it over every golden vector and seeded mutations
//! of them.
//!
//! Any bytes are a message. Every Reader and Validator function is called
//! at every 4-byte position of (up to) the first 4 KiB with the element
//! sizes the format uses, and beyond "no panic, no out-of-bounds read"
//! (Zig's safety checks, on in Debug and ReleaseSafe) it checks what the
//! format promises (docs/format.md §5, §6, §7.1, §10, §11):
//!
//!   - every view the Reader returns lies inside the message;
//!   - an array reference the Validator accepts reads the same through the
//!     Reader (non-empty ones), and one the Reader finds well formed is
//!     accepted by the Validator, or refused only for the budget;
//!   - SoA columns the Validator accepts are those the Reader resolves,
//!     and the Validator's same-version path decides and charges as its
//!     scan;
//!   - the column-wise checks decide and charge as the element-wise ones;
//!   - non-empty text the Reader returns is valid UTF-8, and the Validator
//!     accepts it;
//!   - a bunch table the Validator accepts gives each known variant's
//!     entry through the Reader: the first entry of the tag, the same
//!     reference the Validator accepts there; and one the Reader reads,
//!     whose lengths add up and whose known tags are listed once, the
//!     Validator accepts (or refuses for the budget).
//!
//! The Trusted reader is not used: it is for validated messages only.

const std = @import("std");
const km = @import("karmem.zig");

const Reader = km.Reader;
const Validator = km.Validator;
const ArrayRef = km.ArrayRef;
const Column = km.Column;

/// The element sizes the format uses (docs/format.md §2, §5): 0 for SoA
/// blocks and bunch tables, bytes, u16, u32/f32, u64/f64, array references
/// and a 24-byte inline struct.
pub const elem_sizes = [_]u32{ 0, 1, 2, 4, 8, 12, 24 };

/// The columns of a small SoA element (the C target's): `u32` at path 0,
/// a 12-byte column at 0.0, a byte at 0.2.
pub const wanted = [_]Column{
    .{ .hash = 0x4b95f515, .size = 4 },
    .{ .hash = 0x9be17165, .size = 12 },
    .{ .hash = 0x3c39ef87, .size = 1 },
};

/// The variants a reader of a bunch array knows.
pub const known_tags = [_]u32{ 1, 2 };

/// The largest input `check` reads; longer ones are cut.
pub const max_input = 1 << 16;

/// Positions of the message `check` visits: its first 4 KiB.
pub const max_positions = 4096;

/// Stops with the place of a property that does not hold.
fn require(ok: bool, src: std.builtin.SourceLocation) void {
    if (!ok) std.debug.panic("fuzz: {s}:{d}: property does not hold", .{ src.file, src.line });
}

/// Whether `n` bytes at `p` lie inside the message (an empty view always
/// does).
fn inside(r: Reader, p: [*]const u8, n: u64) bool {
    if (n == 0) return true;
    const base = @intFromPtr(r.mem.ptr);
    const at = @intFromPtr(p);
    return at >= base and @as(u64, at - base) + n <= r.mem.len;
}

/// Whether `n` bytes at offset `offset` lie inside the message.
fn insideAt(r: Reader, offset: u64, n: u64) bool {
    return n == 0 or offset + n <= r.mem.len;
}

fn insideSlice(r: Reader, comptime T: type, s: []const T) bool {
    return inside(r, @ptrCast(s.ptr), @as(u64, s.len) * @sizeOf(T));
}

/// One input: any bytes. Copied into an 8-aligned buffer (a message must
/// be, docs/format.md §1); inputs past `max_input` are cut.
pub fn check(data: []const u8) void {
    const S = struct {
        var buf: [max_input]u8 align(64) = undefined;
    };
    const n = @min(data.len, max_input);
    @memcpy(S.buf[0..n], data[0..n]);
    checkAligned(S.buf[0..n]);
}

/// `check` over a buffer that is already 8-aligned.
pub fn checkAligned(buf: []align(8) const u8) void {
    var fault: km.Fault = .{};
    const r = Reader.init(buf, .{ .fault = &fault }) catch |err| {
        // A refused header is refused with its fault recorded.
        require(fault.kind != null and fault.kind.? == err, @src());
        checkEmpty();
        return;
    };
    require(r.mem.len <= buf.len and r.mem.ptr == buf.ptr, @src());
    var at: u32 = 0;
    while (at < r.size() and at < max_positions) : (at += 4) checkPosition(r, at);
    // The root, the whole message's validation entry point.
    var v: Validator = .init(r);
    if (v.root(8)) |t| {
        require(t.offset == 8 and t.used == r.root().used, @src());
    } else |_| require(r.root().isAbsent(), @src());
}

/// `Reader.empty` reads zero everywhere.
fn checkEmpty() void {
    const r = Reader.empty;
    require(r.load(u64, 0) == 0 and r.root().isAbsent(), @src());
    require(r.array(0, 1, km.no_limit).cap == 0, @src());
}

fn checkPosition(r: Reader, at: u32) void {
    checkTable(r, at);
    checkLoads(r, at);
    inline for (elem_sizes) |es| checkArray(r, at, es);
    checkColumns(r, at);
}

/// Tables: one the Reader finds is the one the Validator accepts.
fn checkTable(r: Reader, at: u32) void {
    const t = r.table(at);
    var v: Validator = .init(r);
    // 8: the full size of a table without fields, the smallest there is.
    const checked = v.table(at, 8);
    if (t.isAbsent()) {
        require(if (checked) |_| false else |_| true, @src());
        return;
    }
    require(insideAt(r, t.offset, t.used), @src());
    const c = checked catch {
        require(false, @src());
        unreachable;
    };
    require(c.offset == t.offset and c.used == t.used, @src());
    _ = r.field(u64, t, 8);
    _ = r.field(f32, t, 4);
    _ = r.field(bool, t, 12);
    const sub = r.fieldTable(t, 4);
    if (!sub.isAbsent()) require(insideAt(r, sub.offset, sub.used), @src());
    inline for (elem_sizes) |es| {
        const a = r.fieldArray(t, 4, es, km.no_limit);
        if (a.cap != 0) require(insideAt(r, a.offset, @as(u64, a.cap) * es), @src());
        var w: Validator = .init(r);
        if (w.fieldArray(t, 4, es, km.no_limit)) |va| {
            if (va.cap != 0) require(va.eql(a), @src());
        } else |_| {}
    }
    // Depth: entering and leaving balance.
    v.enter() catch {};
    v.leave();
}

/// Scalar loads, images and inline values at `at`.
fn checkLoads(r: Reader, at: u32) void {
    _ = r.load(u8, at);
    _ = r.load(u16, at);
    _ = r.load(u32, at);
    _ = r.load(u64, at);
    _ = r.load(f64, at);
    _ = r.load(bool, at);
    _ = r.inlineAt(at, 16);
    const ref = r.rawArrayRef(at);
    require(ref.eql(.{ .offset = r.load(u32, at), .len = r.load(u32, at + 4), .cap = r.load(u32, at + 8) }), @src());
    _ = km.images.image([16]u8, r, at);
    const imgs = km.images.imageSlice([8]u8, r, at, 3);
    require(insideSlice(r, [8]u8, imgs), @src());
    var v: Validator = .init(r);
    v.boolAt(at) catch require(r.load(u8, at) > 1, @src());
}

fn checkArray(r: Reader, at: u32, comptime es: u32) void {
    const a = r.array(at, es, km.no_limit);
    var v: Validator = .init(r);
    const checked = v.array(at, es, km.no_limit);
    if (a.cap != 0) {
        // Well formed to the Reader: accepted, or refused for the budget.
        if (checked) |_| {} else |err| require(err == error.BudgetExceeded, @src());
        require(insideAt(r, a.offset, @as(u64, a.cap) * es), @src());
        require(a.len <= a.cap, @src());
    }
    if (checked) |va| {
        if (va.cap != 0) require(va.eql(a), @src());
    } else |_| {}
    // The same reference through checkArray (an image's) and a limit.
    const raw = refBytes(r, at);
    require(r.checkArray(km.loadArrayRef(&raw), es, km.no_limit).eql(a), @src());
    const limited = r.array(at, es, 3);
    if (limited.cap != 0) {
        require(limited.eql(a) and limited.len <= 3, @src());
    }
    var lv: Validator = .init(r);
    if (lv.array(at, es, 3)) |la| {
        if (la.cap != 0) require(la.eql(limited), @src());
    } else |err| if (err == error.LimitExceeded) require(limited.cap == 0, @src());

    switch (es) {
        0 => checkBlock(r, a),
        1 => {
            const b = r.bytes(a);
            require(insideSlice(r, u8, b), @src());
            const text = r.string(a);
            if (text.len != 0) {
                require(insideSlice(r, u8, text), @src());
                require(std.unicode.utf8ValidateSlice(text), @src());
                var tv: Validator = .init(r);
                tv.utf8(a.offset, a.len) catch require(false, @src());
            }
            var tv: Validator = .init(r);
            if (tv.utf8(a.offset, a.len)) |_| {
                // Text the Validator accepts reads as itself.
                if (a.len != 0) require(text.len == a.len, @src());
            } else |_| {}
            var bv: Validator = .init(r);
            _ = bv.bools(a.offset, a.len) catch {};
        },
        2 => {
            const units = r.arraySlice(u16, a);
            require(insideSlice(r, u16, units), @src());
            var uv: Validator = .init(r);
            if (uv.utf16(a.offset, a.len)) |_| {} else |_| {}
            // Decoding never fails.
            var out: [3 * 64]u8 = undefined;
            const some = units[0..@min(units.len, 64)];
            const s = km.utf16ToUtf8(some, &out);
            require(s.len == km.utf8LenOfUtf16(some) and std.unicode.utf8ValidateSlice(s), @src());
        },
        4 => {
            require(insideSlice(r, u32, r.arraySlice(u32, a)), @src());
            require(insideSlice(r, f32, r.arraySlice(f32, a)), @src());
        },
        8 => {
            require(insideSlice(r, f64, r.arraySlice(f64, a)), @src());
            require(insideSlice(r, u64, r.slice(u64, a.offset, a.cap)), @src());
        },
        12 => {
            // An array of arrays: each element is checked on its own.
            const x: km.Arrays = .{ .a = a, .elem_size = 1 };
            var i: u32 = 0;
            while (i < @min(x.len(), 4)) : (i += 1) {
                const e = x.at(r, i);
                if (e.cap != 0) require(insideAt(r, e.offset, e.cap), @src());
            }
            require(x.at(r, a.len).cap == 0, @src());
        },
        24 => {
            const imgs = km.images.imageSlice([24]u8, r, a.offset, a.len);
            require(insideSlice(r, [24]u8, imgs), @src());
        },
        else => comptime unreachable,
    }
}

/// The 12 bytes at `at`, zeros past the end (what `rawArrayRef` reads).
fn refBytes(r: Reader, at: u32) [12]u8 {
    var b: [12]u8 = undefined;
    const ref = r.rawArrayRef(at);
    std.mem.writeInt(u32, b[0..4], ref.offset, .little);
    std.mem.writeInt(u32, b[4..8], ref.len, .little);
    std.mem.writeInt(u32, b[8..12], ref.cap, .little);
    return b;
}

/// A block whose reference does not say what it holds: SoA, SoA union,
/// bunch (docs/format.md §5.3, §7.1).
fn checkBlock(r: Reader, a: ArrayRef) void {
    // SoA columns.
    var cols: [wanted.len]u32 = undefined;
    r.soaColumns(a, &wanted, &cols);
    for (wanted, cols) |c, col| {
        if (col != 0) require(insideAt(r, col, @as(u64, a.cap) * c.size), @src());
    }
    const same = r.soa(&wanted, a);
    require(std.mem.eql(u32, &same, &cols), @src());
    if (r.directory(a)) |d| {
        require(insideAt(r, d.offset, km.directorySize(d.n)), @src());
        var found: [wanted.len]u32 = @splat(0);
        const f = r.findColumns(a, d, &wanted, &found);
        if (f.fits) require(std.mem.eql(u32, &found, &cols), @src());
        _ = r.sameDirectory(d.offset, &wanted);
    }
    var v: Validator = .init(r);
    var vcols: [wanted.len]u32 = undefined;
    const soa_ok = if (v.soa(a, &wanted, &vcols)) |_| true else |_| false;
    if (soa_ok) require(std.mem.eql(u32, &cols, &vcols), @src());
    // The same-version path decides and charges as the scan.
    var slow: Validator = .init(r);
    var scols: [wanted.len]u32 = undefined;
    const slow_ok = if (slow.soaChecked(a, &wanted, &scols, false)) |_| true else |_| false;
    require(slow_ok == soa_ok, @src());
    if (soa_ok) require(slow.budget == v.budget and std.mem.eql(u32, &scols, &vcols), @src());
    // A decoder's resolution is the Reader's.
    var dv: Validator = .init(r);
    var dcols: [wanted.len]u32 = undefined;
    if (dv.soaColumns(a, &wanted, &dcols)) |_| {
        require(std.mem.eql(u32, &dcols, &cols), @src());
    } else |_| {}
    // Other column lists: none, and one value of another size.
    var none: [0]u32 = .{};
    var nv: Validator = .init(r);
    _ = nv.soa(a, &.{}, &none) catch {};
    const other = [_]Column{.{ .hash = wanted[0].hash, .size = 8 }};
    var ocol: [1]u32 = undefined;
    r.soaColumns(a, &other, &ocol);
    if (ocol[0] != 0) require(insideAt(r, ocol[0], @as(u64, a.cap) * 8), @src());

    // SoA union columns, tags of 1, 2 and 4 bytes.
    inline for (.{ 1, 2, 4 }) |tag_size| {
        const uc = r.unionColumns(a, tag_size);
        if (uc) |u| {
            require(insideAt(r, u.tags, @as(u64, a.cap) * tag_size), @src());
            require(insideAt(r, u.offsets, 4 * @as(u64, a.cap)), @src());
        }
        var uv: Validator = .init(r);
        if (uv.unionColumns(a, tag_size)) |vu| {
            if (vu) |x| {
                require(uc != null and uc.?.tags == x.tags and uc.?.offsets == x.offsets, @src());
            } else require(a.cap == 0, @src());
        } else |err| if (err == error.MalformedArray) require(uc == null, @src());
    }

    // Bunch tables.
    const entries = r.bunchEntries(a);
    if (entries) |k| require(insideAt(r, a.offset, km.bunchTableSize(k)), @src());
    var bv: Validator = .init(r);
    const bunch = bv.bunch(a, &known_tags);
    // A table the Reader reads, whose lengths add up to the array's and
    // that lists each known tag at most once, the Validator accepts (or
    // refuses for the budget).
    if (entries) |k| {
        var total: u64 = 0;
        var once = true;
        var i: u32 = 1;
        while (i <= k) : (i += 1) total += r.load(u32, a.offset + 16 * i + 8);
        for (known_tags) |tag| {
            var times: u32 = 0;
            i = 1;
            while (i <= k) : (i += 1) times += @intFromBool(r.load(u32, a.offset + 16 * i) == tag);
            once = once and times <= 1;
        }
        if (total == a.len and once) {
            if (bunch) |_| {} else |err| require(err == error.BudgetExceeded, @src());
        }
    }
    if (bunch) |k| {
        if (a.cap != 0) require(entries != null and entries.? == k, @src());
        for (known_tags) |tag| {
            const e = r.bunchEntry(a, tag, 4);
            require(insideAt(r, e.offset, 4 * @as(u64, e.cap)), @src());
            // The entry of the tag, if listed (once: the Validator said
            // so), read through the Validator: the same reference.
            var i: u32 = 1;
            var listed: ?u32 = null;
            while (i <= k) : (i += 1) {
                const entry = a.offset + 16 * i;
                if (r.load(u32, entry) == tag) {
                    require(listed == null, @src());
                    listed = entry;
                }
            }
            if (listed) |entry| {
                var ev: Validator = .init(r);
                if (ev.array(entry + 4, 4, km.no_limit)) |va| {
                    if (va.cap != 0) require(va.eql(e), @src());
                } else |err| if (err != error.BudgetExceeded) require(e.cap == 0, @src());
            } else require(e.cap == 0, @src());
        }
    } else |_| {}
    var cv: Validator = .init(r);
    cv.chargeBunch(a) catch |err| require(err == error.BudgetExceeded, @src());
}

/// The column-wise checks of SoA arrays (docs/format.md §11) decide and
/// charge as the element-wise ones, on `n` references at `at` (a column
/// inside the message, as `soa` places them; one past the end is refused,
/// where an element-wise load past the end reads as the empty array).
fn checkColumns(r: Reader, at: u32) void {
    inline for (.{ 1, 2, 3 }) |n| {
        var past = Validator.init(r);
        if (!r.fits(at, 12 * n)) {
            require(if (past.arrayColumn(at, n, 4, km.no_limit)) |_| false else |_| true, @src());
            return;
        }
        inline for (.{ 0, 1, 4, 12 }) |es| {
            var col: Validator = .init(r);
            const col_ok = if (col.arrayColumn(at, n, es, km.no_limit)) |_| true else |_| false;
            var el: Validator = .init(r);
            var el_ok = true;
            var i: u32 = 0;
            while (i < n) : (i += 1) {
                const va = el.array(at + 12 * i, es, km.no_limit) catch {
                    el_ok = false;
                    break;
                };
                require(va.eql(col.columnRef(at, i)) or !col_ok, @src());
            }
            require(col_ok == el_ok, @src());
            if (col_ok) {
                require(col.budget == el.budget, @src());
                if (es == 1) checkTextColumn(r, at, n);
                if (es == 0) checkSoaColumn(r, at, n);
            }
        }
    }
}

fn checkTextColumn(r: Reader, at: u32, n: u32) void {
    var col: Validator = .init(r);
    const col_ok = if (col.utf8Column(at, n)) |_| true else |_| false;
    var el: Validator = .init(r);
    var el_ok = true;
    var i: u32 = 0;
    while (i < n) : (i += 1) {
        const a = el.columnRef(at, i);
        el.utf8(a.offset, a.len) catch {
            el_ok = false;
            break;
        };
    }
    require(col_ok == el_ok, @src());
}

fn checkSoaColumn(r: Reader, at: u32, n: u32) void {
    var col: Validator = .init(r);
    const col_ok = if (col.soaColumn(at, n, &wanted)) |_| true else |_| false;
    var el: Validator = .init(r);
    var el_ok = true;
    var i: u32 = 0;
    var out: [wanted.len]u32 = undefined;
    while (i < n) : (i += 1) {
        el.soa(el.columnRef(at, i), &wanted, &out) catch {
            el_ok = false;
            break;
        };
    }
    require(col_ok == el_ok, @src());
    if (col_ok) require(col.budget == el.budget, @src());
}

test "fuzz target: empty, short and header-only inputs" {
    check("");
    check("KM");
    check("KM\x02\x00\x08\x00\x00\x00");
    check("KM\x02\x00\x10\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00");
    check("KM\x02\x00\x10\x00\x00\x00\x01\x00\x00\x20\x00\x00\x00\x00");
}

/// Every golden vector (docs/format.md §14) as a fuzz input: a slice the
/// Smith reads (its length as a little-endian `u32`, then its bytes).
fn vectorCorpus(gpa: std.mem.Allocator, io: std.Io, dir_path: []const u8) !std.ArrayList([]const u8) {
    var corpus: std.ArrayList([]const u8) = .empty;
    errdefer freeCorpus(gpa, &corpus);
    var root = try std.Io.Dir.cwd().openDir(io, dir_path, .{ .iterate = true });
    defer root.close(io);
    var topics = root.iterate();
    while (try topics.next(io)) |topic| {
        if (topic.kind != .directory) continue;
        var dir = try root.openDir(io, topic.name, .{ .iterate = true });
        defer dir.close(io);
        var files = dir.iterate();
        while (try files.next(io)) |file| {
            if (!std.mem.endsWith(u8, file.name, ".hex")) continue;
            const text = try dir.readFileAlloc(io, file.name, gpa, .limited(1 << 24));
            defer gpa.free(text);
            const parsed = try gpa.alloc(u8, 4 + text.len / 2);
            defer gpa.free(parsed);
            const n = try parseHex(parsed[4..], text);
            std.mem.writeInt(u32, parsed[0..4], @intCast(n), .little);
            const input = try gpa.dupe(u8, parsed[0 .. 4 + n]);
            errdefer gpa.free(input);
            try corpus.append(gpa, input);
        }
    }
    return corpus;
}

fn freeCorpus(gpa: std.mem.Allocator, corpus: *std.ArrayList([]const u8)) void {
    for (corpus.items) |input| gpa.free(input);
    corpus.deinit(gpa);
}

/// The bytes of a `.hex` vector: the hexadecimal pairs after the first
/// `:` of each line.
fn parseHex(out: []u8, text: []const u8) !usize {
    var n: usize = 0;
    var lines = std.mem.splitScalar(u8, text, '\n');
    while (lines.next()) |line| {
        const data = if (std.mem.indexOfScalar(u8, line, ':')) |i| line[i + 1 ..] else line;
        var words = std.mem.tokenizeAny(u8, data, " \t\r");
        while (words.next()) |w| {
            if (n == out.len) return error.Overflow;
            out[n] = try std.fmt.parseInt(u8, w, 16);
            n += 1;
        }
    }
    return n;
}

fn fuzzOne(_: void, smith: *std.testing.Smith) anyerror!void {
    const S = struct {
        var input: [max_input]u8 = undefined;
    };
    const n = smith.slice(&S.input);
    check(S.input[0..n]);
}

test "fuzz: any bytes, every position (seeded with the golden vectors)" {
    const gpa = std.testing.allocator;
    var corpus = try vectorCorpus(gpa, std.testing.io, @import("build_options").vectors);
    defer freeCorpus(gpa, &corpus);
    // A runner that silently finds no vector must not pass.
    try std.testing.expect(corpus.items.len >= 64);
    try std.testing.fuzz({}, fuzzOne, .{ .corpus = corpus.items });
}

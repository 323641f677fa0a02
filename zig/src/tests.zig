//! Tests of the reader, validator, column checks, trusted reader, images,
//! writer and editor: the substance of the Go library's tests
//! (go/*_test.go), the worked examples of docs/format.md §14, the hostile
//! golden vectors checked by hand-written validators, and every golden
//! vector's header.

const std = @import("std");
const km = @import("karmem.zig");
const validator = @import("validator.zig");

const testing = std.testing;
const expect = testing.expect;
const expectEqual = testing.expectEqual;
const expectError = testing.expectError;

const Reader = km.Reader;
const Validator = km.Validator;
const Writer = km.Writer;
const Trusted = km.Trusted;
const Editor = km.Editor;
const Table = km.Table;
const ArrayRef = km.ArrayRef;
const Column = km.Column;

/// Writes a header and `body` into `out` and returns the message (its size
/// rounded up to 8).
fn message(out: []align(8) u8, body: []const u8) []align(8) u8 {
    const n: usize = @intCast(km.alignUp(km.header_size + body.len, 8));
    @memset(out[0..n], 0);
    @memcpy(out[0..4], "KM\x02\x00");
    std.mem.writeInt(u32, out[4..8], @intCast(n), .little);
    @memcpy(out[8..][0..body.len], body);
    return out[0..n];
}

/// Parses hexadecimal bytes, as in a `.hex` vector (the text after the
/// first `:` of each line) or a format.md dump.
fn parseHex(out: []u8, text: []const u8) ![]u8 {
    var n: usize = 0;
    var lines = std.mem.splitScalar(u8, text, '\n');
    while (lines.next()) |line| {
        const data = if (std.mem.indexOfScalar(u8, line, ':')) |i| line[i + 1 ..] else line;
        var words = std.mem.tokenizeAny(u8, data, " \t\r");
        while (words.next()) |w| {
            out[n] = try std.fmt.parseInt(u8, w, 16);
            n += 1;
        }
    }
    return out[0..n];
}

// ---------------------------------------------------------------- hashes

test "pathHash is FNV-1a over little-endian u32 indices (format.md §5.3)" {
    // The Go library's expected values (go/karmem_test.go).
    try expectEqual(@as(u32, 0x811c9dc5), km.pathHash(&.{}));
    try expectEqual(@as(u32, 0x4b95f515), km.pathHash(&.{0}));
    try expectEqual(@as(u32, 0xded89066), km.pathHash(&.{ 1, 2 }));
    try expectEqual(@as(u32, 0x9be17165), km.pathHash(&.{ 0, 0 }));
    try expectEqual(@as(u32, 0x3c39ef87), km.pathHash(&.{ 0, 2 }));
    // format.md §14 Example B, computed at compile time.
    const y = comptime km.pathHash(&.{1});
    try expectEqual(@as(u32, 0xfb69b604), y);
    try expectEqual(@as(u32, 0xebee7337), km.pathHash(&.{2}));
}

test "default limits are format.md §10's" {
    try expectEqual(km.Limits{ .max_directory_entries = 1024, .max_depth = 64, .traversal_budget_factor = 8 }, km.default_limits);
}

test "naturalAlign" {
    try expectEqual(@as(u32, 1), km.naturalAlign(0));
    try expectEqual(@as(u32, 1), km.naturalAlign(1));
    try expectEqual(@as(u32, 2), km.naturalAlign(2));
    try expectEqual(@as(u32, 4), km.naturalAlign(12));
    try expectEqual(@as(u32, 8), km.naturalAlign(24));
    try expectEqual(@as(u32, 8), km.naturalAlign(64));
    try expectEqual(@as(u32, 1), km.naturalAlign(3));
}

// ---------------------------------------------------------------- header

test "hostile headers are refused before any field is read (format.md §1)" {
    var buf: [64]u8 align(8) = undefined;
    const good = message(&buf, &.{ 1, 0, 0, 0x80, 0, 0, 0, 0 });
    _ = try Reader.open(good);

    var fault: km.Fault = .{};
    try expectError(error.Truncated, Reader.init(good[0..7], .{ .fault = &fault }));
    try expectEqual(@as(u64, 7), fault.value);
    try expectError(error.Misaligned, Reader.open(buf[1..17]));

    var bad: [64]u8 align(8) = undefined;
    @memcpy(bad[0..16], good[0..16]);
    bad[0] = 'J';
    try expectError(error.BadMagic, Reader.open(bad[0..16]));
    bad[0] = 'K';
    for ([_]u8{ 0, 1, 3, 255 }) |v| {
        bad[2] = v;
        try expectError(error.UnsupportedVersion, Reader.init(bad[0..16], .{ .fault = &fault }));
        try expectEqual(km.Fault{ .kind = error.UnsupportedVersion, .offset = 2, .value = v }, fault);
    }
    bad[2] = 2;
    bad[3] = 1;
    try expectError(error.BadFlags, Reader.open(bad[0..16]));
    bad[3] = 0;
    for ([_]u32{ 0, 4, 7, 12, 17 }) |s| {
        std.mem.writeInt(u32, bad[4..8], s, .little);
        try expectError(error.BadSize, Reader.init(bad[0..16], .{ .fault = &fault }));
        try expectEqual(@as(u32, 4), fault.offset);
    }
    // A size past the buffer: truncated.
    std.mem.writeInt(u32, bad[4..8], 24, .little);
    try expectError(error.Truncated, Reader.open(bad[0..16]));
    // A message followed by unrelated bytes: the size bounds every access.
    std.mem.writeInt(u32, bad[4..8], 16, .little);
    const r = try Reader.open(bad[0..64]);
    try expectEqual(@as(u32, 16), r.size());
    try expectEqual(@as(u8, 0), r.load(u8, 20));
}

test "out-of-bounds loads read zero" {
    var buf: [32]u8 align(8) = undefined;
    const m = message(&buf, &.{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
    const r = try Reader.open(m);
    try expectEqual(@as(u64, 0xffffffffffffffff), r.load(u64, 8));
    try expectEqual(@as(u64, 0), r.load(u64, 12));
    try expectEqual(@as(u32, 0xffffffff), r.load(u32, 12));
    try expectEqual(@as(u8, 0), r.load(u8, 16));
    try expectEqual(@as(u32, 0), r.load(u32, std.math.maxInt(u32)));
    try expectEqual(@as(u16, 0), r.load(u16, std.math.maxInt(u32) - 1));
    try expectEqual(@as(f64, 0), r.load(f64, 9));
    try expectEqual(true, r.load(bool, 8));
    try expectEqual(@as(i16, -1), r.load(i16, 8));
    try expectEqual(@as(u32, 0), Reader.empty.load(u32, 0));
    // Enums: unknown values are kept (format.md §2).
    const E = enum(u8) { a, b, _ };
    try expectEqual(@as(u8, 0xff), @backingInt(r.load(E, 8)));
    // Float bit patterns are kept, NaN payloads included (format.md §1).
    const nan_bits: u32 = 0x7fc00001;
    var nb: [4]u8 = undefined;
    km.encode(f32, &nb, @bitCast(nan_bits));
    try expectEqual(nan_bits, @as(u32, @bitCast(km.decode(f32, &nb))));
}

// ---------------------------------------------------------------- tables

test "tables: presence by used size, malformed tables read as absent (format.md §4)" {
    var buf: [64]u8 align(8) = undefined;
    // A table at 8: 2 units (16 bytes), 4 unused → used 12.
    const m = message(&buf, &.{ 2, 0, 0, 0x80, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 });
    const r = try Reader.open(m);
    const root = r.root();
    try expectEqual(Table{ .offset = 8, .used = 12 }, root);
    try expectEqual(@as(u32, 7), r.field(u32, root, 4));
    try expectEqual(@as(u32, 0), r.field(u32, root, 12));
    try expectEqual(@as(u64, 0), r.field(u64, root, 8));
    for ([_]u32{ 0, 4, 12, 16, 24, 1 << 31 }) |off| try expect(r.table(off).isAbsent());
    // Total beyond the message, used < 4.
    for ([_][4]u8{ .{ 3, 0, 0, 0 }, .{ 1, 0, 0, 0xA0 }, .{ 0, 0, 0, 0 } }) |h| {
        var b2: [64]u8 align(8) = undefined;
        var body: [16]u8 = @splat(0);
        body[0..4].* = h;
        const bad = message(&b2, &body);
        try expect((try Reader.open(bad)).root().isAbsent());
        var v: Validator = .init(try Reader.open(bad));
        try expectError(error.MalformedTable, v.root(8));
        try expectEqual(@as(u32, 8), v.fault.offset);
    }
    // A field table at offset 0 is malformed to a validator (format.md §4).
    var v: Validator = .init(r);
    try expectError(error.MalformedTable, v.table(0, 8));
    try expect(r.fieldTable(root, 4).isAbsent()); // 7 is misaligned
    try expect(r.fieldTable(root, 12).isAbsent()); // past used
}

// ---------------------------------------------------------------- arrays

test "arrays and native slices over the message" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const at = try w.alloc(48, 8);
    try w.writeSlice(f32, at, &.{ 1.5, 2.5 });
    try w.writeString(at + 12, "hé");
    try w.writeSlice(u64, at + 24, &.{7});
    try w.finish();
    const r = try Reader.open(w.bytes());
    const floats = r.arraySlice(f32, r.array(at, 4, km.no_limit));
    try expectEqual(@as(usize, 2), floats.len);
    try expectEqual(@as(f32, 2.5), floats[1]);
    const s = r.string(r.array(at + 12, 1, km.no_limit));
    try testing.expectEqualStrings("hé", s);
    try expectEqual(@as([*]const u8, w.bytes().ptr + r.load(u32, at + 12)), s.ptr); // aliases the message
    // A limited array over its limit reads as empty.
    try expect(r.array(at + 12, 1, 2).eql(.empty));
    // An array block beyond the message reads as empty.
    try expect(r.array(at + 24, 1 << 30, km.no_limit).eql(.empty));
    // Misaligned or out-of-bounds ranges never become native slices.
    try expectEqual(@as(usize, 0), r.slice(u64, r.load(u32, at + 24) + 4, 1).len);
    try expectEqual(@as(usize, 0), r.slice(u64, r.load(u32, at + 24), 1 << 20).len);
    try expectEqual(@as(usize, 0), r.slice(u64, 0, 1).len);
    // Length over capacity, offset 0 with a capacity, a misaligned block.
    var b: [128]u8 align(8) = undefined;
    const refs = [_][3]u32{ .{ 16, 2, 1 }, .{ 0, 1, 1 }, .{ 18, 1, 1 } };
    for (refs) |ref| {
        var body: [40]u8 = @splat(0);
        for (ref, 0..) |word, i| std.mem.writeInt(u32, body[4 * i ..][0..4], word, .little);
        const m = message(&b, &body);
        const rr = try Reader.open(m);
        try expect(rr.array(8, 4, km.no_limit).eql(.empty));
        var v: Validator = .init(rr);
        try expectError(error.MalformedArray, v.array(8, 4, km.no_limit));
    }
    // A zero capacity is the empty array whatever the offset says.
    {
        var body: [40]u8 = @splat(0);
        std.mem.writeInt(u32, body[0..4], 0xffff_fff0, .little);
        const rr = try Reader.open(message(&b, &body));
        try expect(rr.array(8, 4, km.no_limit).eql(.empty));
    }
}

test "text that is not UTF-8 reads as empty, its bytes stay readable (format.md §6)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const at = try w.alloc(24, 8);
    try w.writeString(at, "ok\xff");
    try w.writeString(at + 12, "\xed\xa0\x80"); // an encoded surrogate
    try w.finish();
    const r = try Reader.open(w.bytes());
    const a = r.array(at, 1, km.no_limit);
    try testing.expectEqualStrings("", r.string(a));
    try testing.expectEqualSlices(u8, "ok\xff", r.bytes(a));
    var v: Validator = .init(r);
    try expectError(error.InvalidText, v.utf8(a.offset, a.len));
    const s = r.array(at + 12, 1, km.no_limit);
    try testing.expectEqualStrings("", r.string(s));
    try expectError(error.InvalidText, v.utf8(s.offset, s.len));
}

test "UTF-8 outside the message is refused, not read as empty and valid" {
    var buf: [32]u8 align(8) = undefined;
    const m = message(&buf, &.{ 1, 0, 0, 0x80, 0, 0, 0, 0 });
    var v: Validator = .init(try Reader.open(m));
    const size: u32 = @intCast(m.len);
    try v.utf8(8, 0);
    for ([_][2]u32{ .{ size, 1 }, .{ size - 4, 5 }, .{ std.math.maxInt(u32) - 2, 8 } }) |c| {
        try expectError(error.MalformedArray, v.utf8(c[0], c[1]));
    }
}

test "asciiWords agrees with utf8ValidateSlice, also at the message end" {
    var prng: std.Random.DefaultPrng = .init(5);
    const rng = prng.random();
    var buf: [256]u8 align(8) = @splat(0);
    @memcpy(buf[0..8], "KM\x02\x00\x00\x01\x00\x00");
    const r = try Reader.open(&buf);
    const mem: []u8 = &buf;
    for (0..5000) |_| {
        const offset: u32 = 8 + rng.uintLessThan(u32, 200);
        const n: u32 = rng.uintLessThan(u32, 40);
        var i = offset;
        while (i < offset + 48 and i < mem.len) : (i += 1) mem[i] = 'a' + rng.uintLessThan(u8, 26);
        if (rng.boolean()) mem[offset + rng.uintLessThan(u32, n + 8)] = 0x80 | rng.uintLessThan(u8, 128);
        var ascii = true;
        for (mem[offset..][0..n]) |c| ascii = ascii and c < 0x80;
        try expectEqual(ascii, validator.asciiWords(r, offset, n));
        var v: Validator = .init(r);
        const ok = if (v.utf8(offset, n)) true else |_| false;
        try expectEqual(std.unicode.utf8ValidateSlice(mem[offset..][0..n]), ok);
    }
    // Text ending at the message end: the word holding its last byte
    // crosses the end, so the last bytes are read one by one.
    const end: u32 = @intCast(mem.len);
    var v: Validator = .init(r);
    var n: u32 = 1;
    while (n <= 16) : (n += 1) {
        @memset(mem[end - n ..], 'a');
        try expect(validator.asciiWords(r, end - n, n));
        try v.utf8(end - n, n);
        mem[end - 1] = 0xC3;
        try expect(!validator.asciiWords(r, end - n, n));
        try expectError(error.InvalidText, v.utf8(end - n, n));
        if (n >= 2) {
            @memcpy(mem[end - 2 ..], "é");
            try v.utf8(end - n, n);
        }
    }
    try expect(!validator.asciiWords(r, end - 4, 5));
}

test "UTF-16: round trips, unpaired surrogates refused (format.md §6)" {
    const texts = [_][]const u8{ "", "abc", "ñ and 😀", "日本語" };
    for (texts) |s| {
        var w = try Writer.init(testing.allocator, 0);
        defer w.deinit();
        try w.begin();
        const at = try w.alloc(12, 4);
        try w.writeUtf16(at, s);
        try w.finish();
        const r = try Reader.open(w.bytes());
        const a = r.array(at, 2, km.no_limit);
        const units = r.arraySlice(u16, a);
        try expectEqual(km.utf16Len(s), units.len);
        var back: [64]u8 = undefined;
        const n = try std.unicode.utf16LeToUtf8(&back, units);
        try testing.expectEqualStrings(s, back[0..n]);
        var v: Validator = .init(r);
        try v.utf16(a.offset, a.len);
    }
    // Invalid UTF-8 input is written as U+FFFD, one unit per bad byte.
    try expectEqual(@as(usize, 3), km.utf16Len("a\xff\xfe"));
    // Unpaired surrogates.
    const bad = [_][]const u16{ &.{0xD800}, &.{ 'a', 0xDC00 }, &.{ 0xD800, 'a' }, &.{ 0xDBFF, 0xDBFF, 0xDC00 } };
    for (bad, 0..) |units, k| {
        var buf: [64]u8 align(8) = undefined;
        const m = message(&buf, std.mem.sliceAsBytes(units));
        var v: Validator = .init(try Reader.open(m));
        try expectError(error.InvalidText, v.utf16(8, @intCast(units.len)));
        try expectEqual(@as(u64, if (k == 1) 1 else 0), v.fault.value);
    }
    var buf: [64]u8 align(8) = undefined;
    const pair = [_]u16{ 0xD83D, 0xDE00, 'x' };
    var v: Validator = .init(try Reader.open(message(&buf, std.mem.sliceAsBytes(&pair))));
    try v.utf16(8, 3);
}

test "bools: 0 and 1 only to a validator, any non-zero byte true to a reader" {
    var buf: [32]u8 align(8) = undefined;
    const m = message(&buf, &.{ 0, 1, 2, 1 });
    const r = try Reader.open(m);
    try expect(r.load(bool, 10));
    var v: Validator = .init(r);
    try v.bools(8, 2);
    try v.boolAt(9);
    try expectError(error.InvalidBool, v.bools(8, 4));
    try expectEqual(@as(u32, 10), v.fault.offset);
    try expectError(error.InvalidBool, v.boolAt(10));
}

// ---------------------------------------------------------------- budget and depth

test "traversal budget and depth (format.md §10)" {
    var buf: [32]u8 align(8) = undefined;
    const m = message(&buf, &.{ 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 });
    const r = try Reader.open(m);
    var v: Validator = .init(r);
    try expectEqual(@as(u64, 8 * 24), v.budget);
    _ = try v.root(8); // charges total × 8 = 16
    try expectEqual(@as(u64, 8 * 24 - 16), v.budget);
    // A table shorter than its type costs the type's full size (§10).
    var longer: Validator = .init(r);
    _ = try longer.root(40);
    try expectEqual(@as(u64, 8 * 24 - 40), longer.budget);
    try v.charge(0); // at least one unit
    try expectEqual(@as(u64, 8 * 24 - 17), v.budget);
    try v.charge(v.budget - 1);
    try v.charge(1);
    try expectEqual(@as(u64, 0), v.budget);
    try expectError(error.BudgetExceeded, v.charge(0));
    try expectEqual(@as(?km.Error, error.BudgetExceeded), v.fault.kind);

    var d: Validator = .init(r);
    for (0..64) |_| try d.enter();
    try expectError(error.DepthExceeded, d.enter());
    d.leave();
    d.leave();
    try d.enter();

    // Other limits.
    const tight = try Reader.init(m, .{ .limits = .{ .max_depth = 1, .traversal_budget_factor = 1 } });
    var t: Validator = .init(tight);
    try t.enter();
    try expectError(error.DepthExceeded, t.enter());
    try expectEqual(@as(u64, 24), t.budget);
}

// ---------------------------------------------------------------- SoA

const point_columns = [_]Column{.{ .hash = km.pathHash(&.{0}), .size = 4 }};

/// One SoA array of `count` elements with `columns` behind a one-field root
/// table: the message, and the position of the array reference.
fn soaMessage(w: *Writer, count: usize, columns: []const Column, out: []u32) !u32 {
    try w.begin();
    const root = try w.alloc(16, 8);
    w.put(u32, root, 2);
    try w.writeSoa(root + 4, count, columns, out);
    try w.finish();
    return root + 4;
}

test "SoA directories: absent, misaligned, past the end, too many entries (format.md §5.3)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    var cols: [1]u32 = undefined;
    const at = try soaMessage(&w, 3, &point_columns, &cols);
    const good = try testing.allocator.alignedAlloc(u8, .@"8", w.len());
    defer testing.allocator.free(good);
    @memcpy(good, w.bytes());
    {
        const r = try Reader.open(good);
        const a = r.array(at, 0, km.no_limit);
        try expectEqual(cols, r.soa(&point_columns, a));
        var v: Validator = .init(r);
        try expectEqual(cols, try v.soaOf(&point_columns, a));
        // An empty array has no columns and is valid.
        try expectEqual([1]u32{0}, r.soa(&point_columns, .empty));
        try expectEqual([1]u32{0}, try v.soaOf(&point_columns, .empty));
    }
    const block = std.mem.readInt(u32, good[at..][0..4], .little);
    const dir = std.mem.readInt(u32, good[block..][0..4], .little);
    const Case = struct { at: u32, value: u32, err: km.ValidateError };
    const cases = [_]Case{
        .{ .at = at, .value = block + 2, .err = error.MalformedArray }, // block misaligned
        .{ .at = at, .value = @intCast(good.len), .err = error.MalformedArray }, // block past the end
        .{ .at = block, .value = 0, .err = error.MalformedArray }, // directory offset 0
        .{ .at = block, .value = dir + 4, .err = error.DirectoryTooLarge }, // its "n" is a hash, over the limit
        .{ .at = block, .value = dir + 2, .err = error.DirectoryTooLarge }, // misaligned, its "n" over the limit (as Go)
        .{ .at = block, .value = @intCast(good.len), .err = error.MalformedArray }, // past the end
        .{ .at = dir, .value = 1025, .err = error.DirectoryTooLarge }, // too many entries
        .{ .at = dir, .value = 1000, .err = error.MalformedArray }, // entries past the end
        .{ .at = dir + 8, .value = 8, .err = error.MalformedArray }, // column of another size
        .{ .at = dir + 8, .value = 0x1000_0000, .err = error.MalformedArray }, // block past the end
        .{ .at = at + 8, .value = 0x1000_0000, .err = error.MalformedArray }, // capacity past the end
    };
    for (cases) |c| {
        const m = try testing.allocator.alignedAlloc(u8, .@"8", good.len);
        defer testing.allocator.free(m);
        @memcpy(m, good);
        std.mem.writeInt(u32, m[c.at..][0..4], c.value, .little);
        const r = try Reader.open(m);
        const a = r.rawArrayRef(at);
        // To a reader every column of a malformed block is absent.
        try expectEqual([1]u32{0}, r.soa(&point_columns, a));
        var v: Validator = .init(r);
        try expectError(c.err, v.soaOf(&point_columns, a));
        var scan: Validator = .init(r);
        var out: [1]u32 = undefined;
        try expectError(c.err, scan.soaChecked(a, &point_columns, &out, false));
        // The decoder's resolution reads them as absent too, charging only
        // a directory it could read.
        var dec: Validator = .init(r);
        try dec.soaColumns(a, &point_columns, &out);
        try expectEqual([1]u32{0}, out);
    }
    // An unknown column of another size is only laid out; the known one
    // after it is found past it. Entry limits lower than the default.
    const r = try Reader.init(good, .{ .limits = .{ .max_directory_entries = 0 } });
    try expectEqual([1]u32{0}, r.soa(&point_columns, r.array(at, 0, km.no_limit)));
    var v: Validator = .init(r);
    try expectError(error.DirectoryTooLarge, v.soaOf(&point_columns, r.array(at, 0, km.no_limit)));
}

test "SoA: a known hash listed twice is refused, unknown hashes may repeat" {
    const wanted = [_]Column{ .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xB2, .size = 4 }, .{ .hash = 0xC3, .size = 2 } };
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    {
        const dir = [_]Column{ .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xC3, .size = 2 } };
        var cols: [3]u32 = undefined;
        const at = try soaMessage(&w, 3, &dir, &cols);
        const r = try Reader.open(w.bytes());
        const a = r.array(at, 0, km.no_limit);
        var v: Validator = .init(r);
        try expectError(error.MalformedArray, v.soaOf(&wanted, a));
        // A reader uses the first entry.
        try expectEqual([3]u32{ cols[0], 0, cols[2] }, r.soa(&wanted, a));
    }
    {
        const dir = [_]Column{ .{ .hash = 0xEE, .size = 8 }, .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xEE, .size = 8 }, .{ .hash = 0xB2, .size = 4 }, .{ .hash = 0xC3, .size = 2 } };
        var cols: [5]u32 = undefined;
        const at = try soaMessage(&w, 3, &dir, &cols);
        const r = try Reader.open(w.bytes());
        const a = r.array(at, 0, km.no_limit);
        var v: Validator = .init(r);
        try expectEqual([3]u32{ cols[1], cols[3], cols[4] }, try v.soaOf(&wanted, a));
        try expectEqual([3]u32{ cols[1], cols[3], cols[4] }, r.soa(&wanted, a));
        const t: Trusted = .assumeValid(r);
        try expectEqual([3]u32{ cols[1], cols[3], cols[4] }, t.soa(&wanted, a));
    }
}

test "SoA charges: the directory each time, every known column present or not (format.md §10)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    // An older writer: only the first column.
    const older = [_]Column{.{ .hash = 0xA1, .size = 4 }};
    const wanted = [_]Column{ .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xB2, .size = 2 } };
    var cols: [1]u32 = undefined;
    const at = try soaMessage(&w, 5, &older, &cols);
    const r = try Reader.open(w.bytes());
    const a = r.array(at, 0, km.no_limit);
    var v: Validator = .init(r);
    const before = v.budget;
    const out = try v.soaOf(&wanted, a);
    try expectEqual([2]u32{ cols[0], 0 }, out);
    try expectEqual(@as(u64, 8 * 2 + 5 * 4 + 5 * 2), before - v.budget);
    // The same-version path charges as the scan.
    var same: Validator = .init(r);
    _ = try same.soaOf(&older, a);
    var scan: Validator = .init(r);
    var o: [1]u32 = undefined;
    try scan.soaChecked(a, &older, &o, false);
    try expectEqual(scan.budget, same.budget);
    try expectEqual(@as(u64, 8 * 2 + 5 * 4), before - same.budget);
    // A reader that knows no column (an SoA array of empty tables, a
    // newer writer's column): one unit per element.
    var none: Validator = .init(r);
    var empty_out: [0]u32 = .{};
    try none.soa(a, &.{}, &empty_out);
    try expectEqual(@as(u64, 8 * 2 + 5), before - none.budget);
}

test "shared directories: written once, read by each array (format.md §5.3)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const at = try w.alloc(12, 4);
    var cols: [2]u32 = undefined;
    const two = [_]Column{ .{ .hash = 0x11, .size = 4 }, .{ .hash = 0x22, .size = 1 } };
    try w.writeSoa(at, 3, &two, &cols);
    // The directory (4-aligned) right after the reference at 20, 20 bytes;
    // the block at 40 with the directory's offset, then the columns.
    try expectEqual([2]u32{ 44, 56 }, cols);
    const b = w.bytes();
    try testing.expectEqualSlices(u8, &.{ 2, 0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0 }, b[20..40]);
    try testing.expectEqualSlices(u8, &.{ 20, 0, 0, 0 }, b[40..44]);
    try testing.expectEqualSlices(u8, &.{ 40, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0 }, b[8..20]);
    // A second array of the same list refers to the same directory.
    const at2 = try w.alloc(12, 4);
    try w.writeSoa(at2, 1, &two, &cols);
    const block = std.mem.readInt(u32, w.bytes()[at2..][0..4], .little);
    try expectEqual(@as(u32, 20), std.mem.readInt(u32, w.bytes()[block..][0..4], .little));
    try expectEqual([2]u32{ block + 4, block + 8 }, cols);
    try w.finish();
    const r = try Reader.open(w.bytes());
    var v: Validator = .init(r);
    const first = try v.soaOf(&two, r.array(at, 0, km.no_limit));
    const second = try v.soaOf(&two, r.array(at2, 0, km.no_limit));
    try expectEqual([2]u32{ 44, 56 }, first);
    try expectEqual([2]u32{ block + 4, block + 8 }, second);
    // A new message forgets the directories of the last one.
    try w.begin();
    const at3 = try w.alloc(12, 4);
    try w.writeSoa(at3, 1, &two, &cols);
    const b3 = w.bytes();
    try expectEqual(at3 + 12, std.mem.readInt(u32, b3[std.mem.readInt(u32, b3[at3..][0..4], .little)..][0..4], .little));
}

test "directories are found by contents, whatever slice the caller passes" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const at = try w.alloc(12 * 4, 4);
    var list = [_]Column{ .{ .hash = 0x11, .size = 4 }, .{ .hash = 0x22, .size = 1 } };
    const copied = list;
    var out: [2]u32 = undefined;
    const Dir = struct {
        fn of(wr: *Writer, block: u32) u32 {
            return std.mem.readInt(u32, wr.bytes()[block..][0..4], .little);
        }
        fn write(wr: *Writer, ref: u32, c: []const Column, o: []u32) !u32 {
            try wr.writeSoa(ref, 2, c, o);
            return std.mem.readInt(u32, wr.bytes()[ref..][0..4], .little);
        }
    };
    const a = try Dir.write(&w, at, &list, &out);
    const b = try Dir.write(&w, at + 12, &copied, &out);
    try expectEqual(Dir.of(&w, a), Dir.of(&w, b));
    list[1] = .{ .hash = 0x33, .size = 2 };
    const c = try Dir.write(&w, at + 24, &list, &out);
    const d = try Dir.write(&w, at + 36, &list, &out);
    try expect(Dir.of(&w, a) != Dir.of(&w, c));
    try expectEqual(Dir.of(&w, c), Dir.of(&w, d));
}

// ---------------------------------------------------------------- unions

test "SoA union columns: misaligned tags, offsets past the end (format.md §7.1)" {
    var buf: [128]u8 align(8) = undefined;
    var body: [64]u8 = @splat(0);
    const m = message(&buf, &body); // 72 bytes
    const r = try Reader.open(m);
    // 3 u8 tags at 16, offsets at align(19, 4) = 20.
    try expectEqual(Reader.UnionColumns{ .tags = 16, .offsets = 20 }, r.unionColumns(.{ .offset = 16, .len = 3, .cap = 3 }, 1).?);
    // u16 tags at an odd offset: misaligned.
    try expect(r.unionColumns(.{ .offset = 17, .len = 3, .cap = 3 }, 2) == null);
    // The offset column ends at 72 exactly: fits; one more element: past.
    try expect(r.unionColumns(.{ .offset = 32, .len = 8, .cap = 8 }, 1) != null);
    try expect(r.unionColumns(.{ .offset = 32, .len = 9, .cap = 9 }, 1) == null);
    try expect(r.unionColumns(.empty, 1) == null);
    var v: Validator = .init(r);
    const before = v.budget;
    _ = (try v.unionColumns(.{ .offset = 16, .len = 3, .cap = 3 }, 4)).?;
    try expectEqual(@as(u64, 3 * 8), before - v.budget);
    try expectError(error.MalformedArray, v.unionColumns(.{ .offset = 32, .len = 9, .cap = 9 }, 1));
    try expect((try v.unionColumns(.empty, 4)) == null);
    const t: Trusted = .assumeValid(r);
    try expectEqual(@as(u32, 20), t.unionColumns(.{ .offset = 16, .len = 3, .cap = 3 }, 1).?.offsets);
    // Inline union values: non-zero, 8-aligned, inside the message.
    try expect(r.inlineAt(64, 8));
    try expect(!r.inlineAt(64, 9));
    try expect(!r.inlineAt(0, 8));
    try expect(!r.inlineAt(60, 4));
    try expectError(error.InvalidUnion, @as(km.ValidateError!void, v.invalidUnion(12, 3)));
    try expectEqual(km.Fault{ .kind = error.InvalidUnion, .offset = 12, .value = 3 }, v.fault);
}

/// A message whose root table holds one bunch array reference of length `n`
/// and a bunch table of the given (tag, length) entries, each with its own
/// data block. Returns the position of the array reference.
fn bunchMessage(w: *Writer, n: u32, entries: []const [2]u32) !u32 {
    try w.begin();
    const at = try w.alloc(16, 8);
    w.put(u32, at, 2);
    const tbl = try w.writeBunchTable(@intCast(entries.len));
    for (entries, 0..) |e, i| {
        const entry = tbl + 16 * @as(u32, @intCast(i + 1));
        const data = try w.alloc(64, 64);
        w.put(u32, entry, e[0]);
        // Element size 0 below: any length fits the block.
        w.putArrayRef(entry + 4, data, e[1], e[1]);
    }
    w.putArrayRef(at + 4, tbl, n, @max(n, 1));
    try w.finish();
    return at + 4;
}

test "bunch tables: entries' lengths add up to the array's length (format.md §7.1)" {
    const max = std.math.maxInt(u32);
    const Case = struct { n: u32, entries: []const [2]u32, ok: bool };
    const cases = [_]Case{
        .{ .n = 6, .entries = &.{ .{ 1, 2 }, .{ 9, 3 }, .{ 4, 1 } }, .ok = true }, // tag 9: unknown, counted
        .{ .n = 0, .entries = &.{}, .ok = true },
        .{ .n = 7, .entries = &.{ .{ 1, 2 }, .{ 9, 3 }, .{ 4, 1 } }, .ok = false },
        .{ .n = 5, .entries = &.{ .{ 1, 2 }, .{ 9, 3 }, .{ 4, 1 } }, .ok = false },
        .{ .n = 1, .entries = &.{}, .ok = false },
        .{ .n = 1, .entries = &.{ .{ 1, max }, .{ 4, 2 } }, .ok = false }, // wraps to 1 in u32
        .{ .n = max, .entries = &.{ .{ 1, max }, .{ 4, max }, .{ 5, 1 } }, .ok = false },
    };
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    for (cases) |c| {
        const at = try bunchMessage(&w, c.n, c.entries);
        const r = try Reader.open(w.bytes());
        const a = r.array(at, 0, km.no_limit);
        try expectEqual(c.n, a.len);
        var v: Validator = .init(r);
        if (c.ok) {
            const before = v.budget;
            try expectEqual(@as(u32, @intCast(c.entries.len)), try v.bunch(a, &.{ 1, 4 }));
            // The table, and one unit for each known variant without an
            // entry, as a decoder charges its empty array (format.md §10).
            var missing: u64 = 2;
            for (c.entries) |e| {
                if (e[0] == 1 or e[0] == 4) missing -= 1;
            }
            try expectEqual(km.bunchTableSize(c.entries.len) + missing, before - v.budget);
        } else {
            try expectError(error.MalformedArray, v.bunch(a, &.{ 1, 4 }));
        }
    }
    // Not validated, an entry claiming a billion elements reads as empty.
    const at = try bunchMessage(&w, 1, &.{.{ 1, 1_000_000_000 }});
    const r = try Reader.open(w.bytes());
    try expect(r.bunchEntry(r.array(at, 0, km.no_limit), 1, 4).eql(.empty));
}

test "bunch tables: a known tag listed twice is refused, unknown tags may repeat" {
    const Case = struct { n: u32, entries: []const [2]u32, ok: bool };
    const cases = [_]Case{
        .{ .n = 3, .entries = &.{ .{ 1, 1 }, .{ 4, 1 }, .{ 1, 1 } }, .ok = false },
        .{ .n = 2, .entries = &.{ .{ 4, 1 }, .{ 4, 1 } }, .ok = false },
        .{ .n = 4, .entries = &.{ .{ 9, 1 }, .{ 4, 1 }, .{ 9, 1 }, .{ 4, 1 } }, .ok = false },
        .{ .n = 1, .entries = &.{ .{ 1, 1 }, .{ 1, 0 } }, .ok = false }, // also when one is empty
        .{ .n = 4, .entries = &.{ .{ 9, 1 }, .{ 1, 1 }, .{ 9, 1 }, .{ 4, 1 } }, .ok = true },
    };
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    for (cases) |c| {
        const at = try bunchMessage(&w, c.n, c.entries);
        const r = try Reader.open(w.bytes());
        var v: Validator = .init(r);
        if (c.ok) {
            _ = try v.bunch(r.array(at, 0, km.no_limit), &.{ 1, 4 });
        } else {
            try expectError(error.MalformedArray, v.bunch(r.array(at, 0, km.no_limit), &.{ 1, 4 }));
        }
    }
    // A reader that does not validate uses the first entry of a tag.
    const at = try bunchMessage(&w, 3, &.{ .{ 1, 1 }, .{ 4, 1 }, .{ 1, 2 } });
    const r = try Reader.open(w.bytes());
    const a = r.array(at, 0, km.no_limit);
    try expectEqual(@as(u32, 1), r.bunchEntry(a, 1, 4).len);
    try expectEqual(@as(u32, 1), Trusted.assumeValid(r).bunchEntry(a, 1).len);
    try expect(r.bunchEntry(a, 7, 4).eql(.empty));
    try expect(Trusted.assumeValid(r).bunchEntry(a, 7).eql(.empty));
}

test "bunch tables over the entry limit, misaligned or past the end" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    const at = try bunchMessage(&w, 1, &.{.{ 1, 1 }});
    const good = try testing.allocator.alignedAlloc(u8, .@"8", w.len());
    defer testing.allocator.free(good);
    @memcpy(good, w.bytes());
    const tbl = std.mem.readInt(u32, good[at..][0..4], .little);
    const Case = struct { at: u32, value: u32, err: km.ValidateError };
    for ([_]Case{
        .{ .at = tbl, .value = 1025, .err = error.DirectoryTooLarge },
        .{ .at = tbl, .value = 1000, .err = error.MalformedArray },
        .{ .at = at, .value = tbl + 4, .err = error.MalformedArray },
    }) |c| {
        const m = try testing.allocator.alignedAlloc(u8, .@"8", good.len);
        defer testing.allocator.free(m);
        @memcpy(m, good);
        std.mem.writeInt(u32, m[c.at..][0..4], c.value, .little);
        const r = try Reader.open(m);
        const a = r.rawArrayRef(at);
        try expect(r.bunchEntry(a, 1, 4).eql(.empty));
        var v: Validator = .init(r);
        try expectError(c.err, v.bunch(a, &.{1}));
    }
}

// ---------------------------------------------------------------- column-wise checks

const columns_wanted = [_]Column{ .{ .hash = 0xA1, .size = 4 }, .{ .hash = 0xB2, .size = 4 }, .{ .hash = 0xC3, .size = 2 } };
const columns_limit = 40;

/// A message with two SoA columns of `count` references each, as a
/// generated writer lays them out: one of SoA arrays (directories of
/// `columns_wanted`; some elements with an older or a reordered, newer
/// directory) and one of text (ASCII or not).
fn columnsMessage(w: *Writer, rng: std.Random, count: u32) !struct { arrays: u32, texts: u32 } {
    try w.begin();
    const tbl = try w.alloc(8, 8);
    w.put(u32, tbl, 1);
    const arrays = try w.alloc(12 * count, 64);
    const texts = try w.alloc(12 * count, 64);
    const words = [_][]const u8{ "", "orc", "twenty ascii letters", "ünïcödé", "日本語のテキスト", "x", "sixteen letters!" };
    const older = [_]Column{ columns_wanted[0], columns_wanted[2] };
    const newer = [_]Column{ columns_wanted[2], .{ .hash = 0xEE, .size = 8 }, columns_wanted[0], columns_wanted[1] };
    var out: [4]u32 = undefined;
    for (0..count) |i| {
        const n = rng.uintAtMost(u32, columns_limit);
        const at = arrays + 12 * @as(u32, @intCast(i));
        const dir: []const Column = switch (rng.uintLessThan(u32, 6)) {
            0 => &older,
            1 => &newer,
            else => &columns_wanted,
        };
        try w.writeSoa(at, n, dir, &out);
        try w.writeString(texts + 12 * @as(u32, @intCast(i)), words[rng.uintLessThan(usize, words.len)]);
    }
    try w.finish();
    return .{ .arrays = arrays, .texts = texts };
}

fn byColumn(r: Reader, budget: u64, arrays: u32, texts: u32, count: u32) struct { u64, bool } {
    var v: Validator = .init(r);
    v.budget = budget;
    const ok = blk: {
        v.arrayColumn(arrays, count, 0, columns_limit) catch break :blk false;
        v.soaColumn(arrays, count, &columns_wanted) catch break :blk false;
        v.arrayColumn(texts, count, 1, km.no_limit) catch break :blk false;
        v.utf8Column(texts, count) catch break :blk false;
        break :blk true;
    };
    return .{ v.budget, ok };
}

fn byElement(r: Reader, budget: u64, arrays: u32, texts: u32, count: u32) struct { u64, bool, ?km.Error } {
    var v: Validator = .init(r);
    v.budget = budget;
    var out: [columns_wanted.len]u32 = undefined;
    const err: ?km.Error = blk: {
        for (0..count) |i| {
            const a = v.array(arrays + 12 * @as(u32, @intCast(i)), 0, columns_limit) catch |e| break :blk e;
            v.soaChecked(a, &columns_wanted, &out, false) catch |e| break :blk e;
        }
        for (0..count) |i| {
            const a = v.array(texts + 12 * @as(u32, @intCast(i)), 1, km.no_limit) catch |e| break :blk e;
            if (!std.unicode.utf8ValidateSlice(r.slice(u8, a.offset, a.len))) break :blk error.InvalidText;
        }
        break :blk null;
    };
    return .{ v.budget, err == null, err };
}

test "column-wise checks accept and charge exactly as element-wise checks" {
    var prng: std.Random.DefaultPrng = .init(1);
    const rng = prng.random();
    var w = try Writer.init(testing.allocator, 64);
    defer w.deinit();
    var accepted: usize = 0;
    var refused: usize = 0;
    var over_budget: usize = 0;
    for (0..3000) |round| {
        const count = 1 + rng.uintLessThan(u32, 9);
        const where = try columnsMessage(&w, rng, count);
        const m = w.bytes();
        const size: u32 = @intCast(m.len);
        const word = struct {
            fn at(b: []const u8, o: u32) u32 {
                return std.mem.readInt(u32, b[o..][0..4], .little);
            }
        }.at;
        const edits: usize = if (round % 5 != 0) 1 + rng.uintLessThan(usize, 3) else 0;
        for (0..edits) |_| {
            const block = word(m, where.arrays + 12 * rng.uintLessThan(u32, count));
            const text = word(m, where.texts + 12 * rng.uintLessThan(u32, count));
            const k = rng.uintLessThan(u32, 5);
            var at: u32 = undefined;
            if (k == 0) {
                at = where.arrays + 4 * rng.uintLessThan(u32, 3 * count);
            } else if (k == 1) {
                at = where.texts + 4 * rng.uintLessThan(u32, 3 * count);
            } else if (k == 2 and block >= 8 and block + 4 <= size and word(m, block) >= 8 and word(m, block) + 28 <= size) {
                at = block;
                if (rng.uintLessThan(u32, 4) != 0) at = word(m, block) + 4 * rng.uintLessThan(u32, 7);
            } else if (k == 3 and text >= 64 and text + 8 < size) {
                at = text + 4 * rng.uintLessThan(u32, 2);
            } else {
                at = 8 + 4 * rng.uintLessThan(u32, (size - 8) / 4);
            }
            const value: u32 = switch (rng.uintLessThan(u32, 7)) {
                0 => 0,
                1 => rng.int(u32),
                2 => size -% 64 * rng.uintLessThan(u32, 3),
                3 => @as(u32, 0x80616161) >> @intCast(8 * rng.uintLessThan(u32, 4)),
                4 => columns_limit + rng.uintLessThan(u32, 2),
                5 => columns_wanted[rng.uintLessThan(usize, 3)].hash,
                else => word(m, at) ^ (@as(u32, 1) << @intCast(rng.uintLessThan(u32, 32))),
            };
            std.mem.writeInt(u32, m[at..][0..4], value, .little);
        }
        const factors = [_]u32{ 1, 2, 8 };
        const entries = [_]u32{ 2, 3, 4, 1024 };
        const r = try Reader.init(m, .{ .limits = .{
            .traversal_budget_factor = factors[rng.uintLessThan(usize, 3)],
            .max_directory_entries = entries[rng.uintLessThan(usize, 4)],
        } });
        var budget = Validator.init(r).budget;
        const unlimited = byElement(r, std.math.maxInt(u64), where.arrays, where.texts, count);
        if (round % 2 == 0 and unlimited[0] > std.math.maxInt(u64) / 2) {
            const used = std.math.maxInt(u64) - unlimited[0];
            budget = used / 2 + rng.uintAtMost(u64, used);
        }
        const col = byColumn(r, budget, where.arrays, where.texts, count);
        const elem = byElement(r, budget, where.arrays, where.texts, count);
        if (col[1] != elem[1]) {
            std.debug.print("round {d}: column-wise {}, element-wise {?}\n", .{ round, col[1], elem[2] });
            return error.TestUnexpectedResult;
        }
        if (!col[1]) {
            refused += 1;
            if (elem[2] != null and elem[2].? == error.BudgetExceeded) over_budget += 1;
            continue;
        }
        try expectEqual(elem[0], col[0]);
        accepted += 1;
    }
    // Both outcomes must be common, or the comparison proves little.
    try expect(accepted > 300 and refused > 300 and over_budget > 90);
}

test "soa's same-version path agrees with its scan" {
    var prng: std.Random.DefaultPrng = .init(3);
    const rng = prng.random();
    var w = try Writer.init(testing.allocator, 64);
    defer w.deinit();
    var accepted: usize = 0;
    for (0..2000) |round| {
        const where = try columnsMessage(&w, rng, 1);
        const m = w.bytes();
        const size: u32 = @intCast(m.len);
        const block = std.mem.readInt(u32, m[where.arrays..][0..4], .little);
        if (block == 0) continue;
        var at = block;
        if (rng.uintLessThan(u32, 4) != 0) at = std.mem.readInt(u32, m[block..][0..4], .little) + 4 * rng.uintLessThan(u32, 7);
        const values = [_]u32{ 0, 3, 4, 8, columns_wanted[rng.uintLessThan(usize, 3)].hash, columns_wanted[rng.uintLessThan(usize, 3)].size, size - 64, size, rng.int(u32) };
        if (round % 4 != 0) std.mem.writeInt(u32, m[at..][0..4], values[rng.uintLessThan(usize, values.len)], .little);
        const factors = [_]u32{ 1, 8 };
        const entries = [_]u32{ 2, 3, 1024 };
        const r = try Reader.init(m, .{ .limits = .{
            .traversal_budget_factor = factors[rng.uintLessThan(usize, 2)],
            .max_directory_entries = entries[rng.uintLessThan(usize, 3)],
        } });
        const a = r.rawArrayRef(where.arrays);
        var fast: Validator = .init(r);
        var scan: Validator = .init(r);
        var fast_out: [3]u32 = undefined;
        var scan_out: [3]u32 = undefined;
        const fast_ok = if (fast.soaChecked(a, &columns_wanted, &fast_out, true)) true else |_| false;
        const scan_ok = if (scan.soaChecked(a, &columns_wanted, &scan_out, false)) true else |_| false;
        try expectEqual(scan_ok, fast_ok);
        try expectEqual(scan.budget, fast.budget);
        if (scan_ok) {
            accepted += 1;
            try expectEqual(scan_out, fast_out);
        }
    }
    try expect(accepted > 500 and accepted < 1800);
}

test "a bad reference of a column is named as array names it" {
    var prng: std.Random.DefaultPrng = .init(7);
    var w = try Writer.init(testing.allocator, 64);
    defer w.deinit();
    const where = try columnsMessage(&w, prng.random(), 6);
    const m = w.bytes();
    // Element 3's length and capacity over the limit.
    std.mem.writeInt(u32, m[where.arrays + 36 + 4 ..][0..4], columns_limit + 1, .little);
    std.mem.writeInt(u32, m[where.arrays + 36 + 8 ..][0..4], columns_limit + 1, .little);
    var v: Validator = .init(try Reader.open(m));
    try expectError(error.LimitExceeded, v.arrayColumn(where.arrays, 6, 0, columns_limit));
    try expectEqual(km.Fault{ .kind = error.LimitExceeded, .offset = where.arrays + 36, .value = columns_limit + 1 }, v.fault);
    try expect(v.columnRef(where.arrays, 3).len == columns_limit + 1);
}

test "soaColumn over more columns than its scratch agrees with soa" {
    var wide: [70]Column = undefined;
    for (&wide, 0..) |*c, i| c.* = .{ .hash = km.pathHash(&.{@intCast(i)}), .size = if (i % 3 == 0) 8 else 2 };
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const tbl = try w.alloc(8, 8);
    w.put(u32, tbl, 1);
    const col = try w.alloc(36, 4);
    var out: [70]u32 = undefined;
    try w.writeSoa(col, 3, &wide, &out);
    // An older writer's directory: the same-version path is not taken.
    try w.writeSoa(col + 12, 2, wide[0..69], &out);
    try w.writeSoa(col + 24, 1, wide[1..], &out);
    try w.finish();
    const r = try Reader.open(w.bytes());
    var by_column: Validator = .init(r);
    try by_column.soaColumn(col, 3, &wide);
    var by_element: Validator = .init(r);
    for (0..3) |i| try by_element.soa(r.rawArrayRef(col + 12 * @as(u32, @intCast(i))), &wide, &out);
    try expectEqual(by_element.budget, by_column.budget);
    // A duplicate known hash in the wide directory is refused by both.
    const m = w.bytes();
    const block = std.mem.readInt(u32, m[col + 12 ..][0..4], .little);
    const dir = std.mem.readInt(u32, m[block..][0..4], .little);
    std.mem.writeInt(u32, m[dir + 8 ..][0..4], wide[0].hash, .little);
    const bad = try Reader.open(m);
    var c2: Validator = .init(bad);
    try expectError(error.MalformedArray, c2.soaColumn(col, 3, &wide));
    var e2: Validator = .init(bad);
    try expectError(error.MalformedArray, e2.soa(bad.rawArrayRef(col + 12), &wide, &out));
}

// ---------------------------------------------------------------- trusted

fn validateMesh(r: Reader) km.ValidateError!Table {
    var v: Validator = .init(r);
    try v.enter();
    const t = try v.root(8);
    const a = try v.fieldArray(t, 8, 0, km.no_limit);
    _ = try v.soaOf(&vec3_columns, a);
    v.leave();
    return t;
}

fn refuseAll(r: Reader) km.ValidateError!Table {
    _ = r;
    return error.MalformedTable;
}

const vec3_columns = [_]Column{
    .{ .hash = km.pathHash(&.{0}), .size = 4 },
    .{ .hash = km.pathHash(&.{1}), .size = 4 },
    .{ .hash = km.pathHash(&.{2}), .size = 4 },
};

/// format.md §14 Example B: an SoA array of Vec3 and its directory.
const example_b =
    \\0000: 4b 4d 02 00 58 00 00 00
    \\0008: 03 00 00 80 07 00 00 00 3c 00 00 00 02 00 00 00 02 00 00 00 00 00 00 00
    \\0020: 03 00 00 00 15 f5 95 4b 04 b6 69 fb 37 73 ee eb
    \\0030: 04 00 00 00 04 00 00 00 04 00 00 00 20 00 00 00
    \\0040: 00 00 80 3f 00 00 80 bf 00 00 00 40 00 00 00 3f
    \\0050: 00 00 40 40 00 00 00 00
;

test "format.md Example B: written byte for byte, read checked and trusted" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const root = try w.alloc(24, 8); // total 24, used 20, unused 4
    w.put(u32, root, 3 | 4 << 29);
    w.put(u16, root + 4, 7);
    const cols = try w.writeSoaOf(&vec3_columns, root + 8, 2);
    const xs = w.slice(f32, cols[0], 2);
    xs[0] = 1.0;
    xs[1] = -1.0;
    w.put(f32, cols[1], 2.0);
    w.put(f32, cols[1] + 4, 0.5);
    w.put(f32, cols[2], 3.0);
    try w.finish();
    var expected: [256]u8 = undefined;
    try testing.expectEqualSlices(u8, try parseHex(&expected, example_b), w.bytes());

    const r = try Reader.open(w.bytes());
    const t = r.root();
    try expectEqual(@as(u16, 7), r.field(u16, t, 4));
    const a = r.fieldArray(t, 8, 0, km.no_limit);
    const c = r.soa(&vec3_columns, a);
    try testing.expectEqualSlices(f32, &.{ 1.0, -1.0 }, r.slice(f32, c[0], a.len));
    try testing.expectEqualSlices(f32, &.{ 2.0, 0.5 }, r.slice(f32, c[1], a.len));
    try testing.expectEqualSlices(f32, &.{ 3.0, 0.0 }, r.slice(f32, c[2], a.len));

    const got = try km.trust(Table, r, &validateMesh);
    const tr = got.trusted;
    try expectEqual(t, got.root);
    try expectEqual(t, tr.root());
    try expectEqual(@as(u16, 7), tr.field(u16, tr.root(), 4));
    try expectEqual(@as(u64, 0), tr.field(u64, tr.root(), 16)); // past used
    const ta = tr.fieldArray(tr.root(), 8);
    try expect(ta.eql(a));
    const tc = tr.soa(&vec3_columns, ta);
    try expectEqual(c, tc);
    try testing.expectEqualSlices(f32, &.{ 2.0, 0.5 }, tr.slice(f32, tc[1], ta.len));
    try expectError(error.MalformedTable, km.trust(Table, r, &refuseAll));

    // Budget: the table (24), the array (1: an SoA block's element size is
    // 0), the directory 8 × 4, the elements 2 × 12.
    var v: Validator = .init(r);
    const before = v.budget;
    _ = try v.root(8);
    _ = try v.soaOf(&vec3_columns, try v.fieldArray(t, 8, 0, km.no_limit));
    try expectEqual(@as(u64, 24 + 1 + 32 + 24), before - v.budget);
}

const enchant = [_]Column{
    .{ .hash = km.pathHash(&.{0}), .size = 2, .dense = true },
    .{ .hash = km.pathHash(&.{1}), .size = 1, .dense = true },
};

/// format.md §14 Example D: two SoA arrays sharing a directory.
const example_d =
    \\0000: 4b 4d 02 00 90 00 00 00 02 00 00 00 18 00 00 00 02 00 00 00 02 00 00 00
    \\0018: 20 00 00 00 60 00 00 00
    \\0020: 04 00 00 80 40 00 00 00 03 00 00 00 03 00 00 00 58 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00
    \\0040: 61 78 65 00 02 00 00 00 15 f5 95 4b 04 b6 69 fb 02 00 00 00 01 00 00 00
    \\0058: 44 00 00 00 07 00 02 00
    \\0060: 04 00 00 80 80 00 00 00 03 00 00 00 03 00 00 00 84 00 00 00 02 00 00 00 02 00 00 00 00 00 00 00
    \\0080: 62 6f 77 00 44 00 00 00 03 00 09 00 01 05 00 00
;

test "format.md Example D: the second array points to the first one's directory" {
    const Item = struct { name: []const u8, kinds: []const u16, levels: []const u8 };
    const items = [_]Item{
        .{ .name = "axe", .kinds = &.{7}, .levels = &.{2} },
        .{ .name = "bow", .kinds = &.{ 3, 9 }, .levels = &.{ 1, 5 } },
    };
    var storage: [256]u8 align(8) = @splat(0xAA); // a fixed writer over dirty memory
    var w = try Writer.initFixed(&storage);
    try w.begin();
    const bag = try w.alloc(16, 8);
    w.put(u32, bag, 2);
    const block = try w.allocArray(items.len, 4);
    w.putArrayRef(bag + 4, block, items.len, items.len);
    for (items, 0..) |item, i| {
        const t = try w.alloc(32, 8);
        w.put(u32, t, 4 | 4 << 29);
        w.put(u32, block + 4 * @as(u32, @intCast(i)), t);
        try w.writeString(t + 4, item.name);
        const cols = try w.writeSoaOf(&enchant, t + 16, item.kinds.len);
        @memcpy(w.slice(u16, cols[0], item.kinds.len), item.kinds);
        @memcpy(w.slice(u8, cols[1], item.levels.len), item.levels);
    }
    try w.finish();
    var expected: [256]u8 = undefined;
    try testing.expectEqualSlices(u8, try parseHex(&expected, example_d), w.bytes());
    try expectEqual(@as(u8, 0xAA), storage[0x90]); // nothing written past the message

    // Read back: each array reads the shared directory, charged each time.
    const r = try Reader.open(w.bytes());
    var v: Validator = .init(r);
    try v.enter();
    const root = try v.root(8);
    const arr = try v.fieldArray(root, 4, 4, km.no_limit);
    const before = v.budget;
    for (0..arr.len) |i| {
        try v.enter();
        const t = try v.table(r.load(u32, arr.offset + 4 * @as(u32, @intCast(i))), 8);
        const name = try v.fieldArray(t, 4, 1, km.no_limit);
        try v.utf8(name.offset, name.len);
        const ench = try v.fieldArray(t, 16, 0, km.no_limit);
        const cols = try v.soaOf(&enchant, ench);
        try testing.expectEqualSlices(u16, items[i].kinds, r.slice(u16, cols[0], ench.len));
        try testing.expectEqualSlices(u8, items[i].levels, r.slice(u8, cols[1], ench.len));
        try testing.expectEqualStrings(items[i].name, r.string(name));
        v.leave();
    }
    // Two tables (32 each), two names (3 each), two SoA references (1
    // each), the directory twice (24 each), 1 + 2 elements of 3 bytes.
    try expectEqual(@as(u64, 64 + 6 + 2 + 48 + 9), before - v.budget);
}

// ---------------------------------------------------------------- images

const Pair = [8]u8;

fn pairA(p: Pair) u32 {
    return km.images.field(u32, p[0..]);
}

fn pairB(p: Pair) f32 {
    return km.images.field(f32, p[4..]);
}

fn imagesMessage(w: *Writer) !struct { ref: u32, at: u32 } {
    try w.begin();
    const ref = try w.alloc(12, 4);
    const at = try w.allocArray(3, 8);
    for (0..3) |i| {
        const o = at + 8 * @as(u32, @intCast(i));
        w.put(u32, o, 10 + @as(u32, @intCast(i)));
        w.put(f32, o + 4, 1.5);
    }
    w.putArrayRef(ref, at, 3, 3);
    try w.finish();
    return .{ .ref = ref, .at = at };
}

test "images: AoS arrays of inline structs are slices over the message" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    const where = try imagesMessage(&w);
    const r = try Reader.open(w.bytes());
    const a = r.array(where.ref, 8, km.no_limit);
    const pairs = km.images.imageSlice(Pair, r, a.offset, a.len);
    try expectEqual(@as(usize, 3), pairs.len);
    try expectEqual(@intFromPtr(r.mem.ptr + where.at), @intFromPtr(pairs.ptr));
    for (pairs, 0..) |p, i| {
        try expectEqual(10 + @as(u32, @intCast(i)), pairA(p));
        try expectEqual(@as(f32, 1.5), pairB(p));
    }
    try expectEqual(@as(u32, 11), pairA(km.images.image(Pair, r, where.at + 8)));
    const tr: Trusted = .assumeValid(r);
    try expectEqual(pairs.ptr, tr.imageSlice(Pair, where.at, 3).ptr);
    try expectEqual(@as(u32, 12), pairA(tr.image(Pair, where.at + 16)));
    // Outside the message: empty, or all zero.
    const size = r.size();
    try expectEqual(@as(usize, 0), km.images.imageSlice(Pair, r, where.at, 1 << 30).len);
    try expectEqual(@as(usize, 0), km.images.imageSlice(Pair, r, size - 4, 1).len);
    try expectEqual(@as(usize, 0), km.images.imageSlice(Pair, r, 0, 3).len);
    try expectEqual(@as(usize, 0), km.images.imageSlice(Pair, r, where.at, 0).len);
    try expectEqual(@as(Pair, @splat(0)), km.images.image(Pair, r, size - 4));
    try expectEqual(@as(Pair, @splat(0)), km.images.image(Pair, r, 0));
    try expectEqual(@as(Pair, @splat(0)), km.images.imageOf(Pair, &@as([7]u8, @splat(1))));
    try expectEqual(@as(u32, 10), pairA(km.images.imageOf(Pair, r.mem[where.at..])));
}

test "array references in images: loadArrayRef and checkArray" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    const where = try imagesMessage(&w);
    const r = try Reader.open(w.bytes());
    const raw = r.mem[where.ref..][0..12];
    try expectEqual(ArrayRef{ .offset = where.at, .len = 3, .cap = 3 }, r.checkArray(km.loadArrayRef(raw), 8, km.no_limit));
    try expect(r.checkArray(km.loadArrayRef(raw), 8, 2).eql(.empty));
    try expect(r.checkArray(.{ .offset = where.at, .len = 3, .cap = 1 << 28 }, 8, km.no_limit).eql(.empty));
    try expect(r.checkArray(.{ .offset = where.at + 1, .len = 1, .cap = 1 }, 8, km.no_limit).eql(.empty));
    try expect(km.loadArrayRef(&.{ 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 }).eql(.empty));
}

// ---------------------------------------------------------------- writer

test "writer: aligned, zeroed, deterministic, grows keeping its data" {
    var w = try Writer.init(testing.allocator, 16);
    defer w.deinit();
    try w.begin();
    const a = try w.alloc(100, 8);
    @memset(w.slice(u8, a, 100), 0xAB);
    try w.finish();
    try expectEqual(@as(usize, 0), @intFromPtr(w.bytes().ptr) % 64);
    try w.begin();
    const b = try w.alloc(3, 1);
    const c = try w.alloc(4, 64);
    try expectEqual(@as(u32, 8), b);
    try expectEqual(@as(u32, 64), c);
    for (w.bytes()[8..68]) |x| try expectEqual(@as(u8, 0), x); // no stale byte
    try w.finish();
    try testing.expectEqualSlices(u8, &.{ 'K', 'M', 2, 0, 72, 0, 0, 0 }, w.bytes()[0..8]);
    // Growth keeps what was written and the alignment.
    try w.begin();
    const at = try w.alloc(8, 8);
    w.put(u64, at, 0x0102030405060708);
    const big = try w.allocArray(10000, 8);
    try expectEqual(@as(usize, 0), @intFromPtr(w.bytes().ptr + big) % 8);
    try expectEqual(@as(u8, 8), w.bytes()[at]);
    // Bools and plain arrays.
    try w.begin();
    const refs = try w.alloc(24, 4);
    try w.writeBools(refs, &.{ true, false, true });
    try w.writeSlice(i16, refs + 12, &.{ -1, 2 });
    try w.finish();
    const r = try Reader.open(w.bytes());
    try testing.expectEqualSlices(u8, &.{ 1, 0, 1 }, r.bytes(r.array(refs, 1, km.no_limit)));
    try testing.expectEqualSlices(i16, &.{ -1, 2 }, r.arraySlice(i16, r.array(refs + 12, 2, km.no_limit)));
    // Empty arrays have no block.
    try expectEqual(@as(u32, 0), try w.allocArray(0, 8));
    // Arrays over 4 GiB are refused.
    try expectError(error.TooLarge, w.allocArray(1 << 30, 8));
}

test "fixed writer: never writes past the caller's buffer (error.TooLarge)" {
    var storage: [256]u8 align(64) = undefined;
    try expectError(error.Misaligned, Writer.initFixedBytes(storage[4..72]));
    try expectError(error.TooLarge, Writer.initFixedBytes(storage[0..7]));
    @memset(&storage, 0xEE);
    var w = try Writer.initFixed(storage[0..128]);
    try w.begin();
    _ = try w.alloc(120, 8); // 120 bytes after the header fit 128
    try w.begin();
    try expectError(error.TooLarge, w.alloc(121, 8));
    try w.begin();
    try expectError(error.TooLarge, w.allocArray(200, 1));
    try expectError(error.TooLarge, w.writeString(8, &@as([200]u8, @splat('x'))));
    try w.begin();
    const at = try w.alloc(8, 8);
    w.put(u32, at, 1 | 4 << 29);
    try w.finish();
    try expectEqual(@as([*]u8, &storage), w.bytes().ptr);
    for (storage[128..]) |x| try expectEqual(@as(u8, 0xEE), x);
    _ = try Reader.open(w.bytes());

    // A message whose padding does not fit the buffer.
    var small: [16]u8 align(8) = undefined;
    var f = try Writer.initFixed(&small);
    try f.begin();
    _ = try f.alloc(3, 1);
    try f.finish();
    try f.begin();
    _ = try f.alloc(8, 1);
    try expectError(error.TooLarge, f.alloc(1, 1));

    // Directories: a fixed writer remembers `inline_directories` column
    // lists; one more distinct list is refused, never written.
    var big: [16384]u8 align(8) = undefined;
    var d = try Writer.initFixed(&big);
    try d.begin();
    const refs = try d.alloc(12 * (Writer.inline_directories + 2), 4);
    var out: [1]u32 = undefined;
    for (0..Writer.inline_directories) |i| {
        const list = [_]Column{.{ .hash = @intCast(i), .size = 4 }};
        try d.writeSoa(refs + 12 * @as(u32, @intCast(i)), 1, &list, &out);
    }
    const before = d.len();
    const extra = [_]Column{.{ .hash = 999, .size = 4 }};
    try expectError(error.TooLarge, d.writeSoa(refs, 1, &extra, &out));
    try expectEqual(before, d.len());
    // A list it knows is still shared.
    const known = [_]Column{.{ .hash = 3, .size = 4 }};
    try d.writeSoa(refs, 1, &known, &out);
    // A growable writer remembers any number of them.
    var g = try Writer.init(testing.allocator, 0);
    defer g.deinit();
    try g.begin();
    const grefs = try g.alloc(12 * 100, 4);
    for (0..100) |i| {
        const list = [_]Column{.{ .hash = @intCast(i), .size = 4 }};
        try g.writeSoa(grefs + 12 * @as(u32, @intCast(i)), 1, &list, &out);
    }
    const len_before = g.len();
    const again = [_]Column{.{ .hash = 90, .size = 4 }};
    try g.writeSoa(grefs, 1, &again, &out);
    try expectEqual(len_before + 8, g.len()); // the block's word and one value
}

test "the growable writer reports allocation failure" {
    var failing: testing.FailingAllocator = .init(testing.allocator, .{ .fail_index = 1 });
    var w = try Writer.init(failing.allocator(), 64);
    defer w.deinit();
    try w.begin();
    try expectError(error.OutOfMemory, w.alloc(1000, 8));
}

// ---------------------------------------------------------------- editor

test "editor: in-place scalars and lengths within capacity (format.md §12)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const root = try w.alloc(24, 8);
    w.put(u32, root, 3); // 24 bytes, used 24
    try w.writeSlice(i32, root + 4, &.{ 1, 2, 3 });
    try w.finish();
    const buf = try km.alignedCopy(testing.allocator, w.bytes());
    defer testing.allocator.free(buf);
    var e = try Editor.open(buf);
    const t = e.reader.root();
    try e.set(i32, t, 16, -9);
    try expectEqual(@as(i32, -9), e.reader.field(i32, t, 16));
    try expectError(error.MalformedTable, e.set(u64, t, 20, 1)); // past the table
    try expectError(error.MalformedTable, e.set(u8, .absent, 4, 1));
    const s = e.slice(i32, root + 4);
    try expectEqual(@as(usize, 3), s.len);
    s[0] = 42;
    try e.setLen(root + 4, 4, 1);
    const a = e.reader.array(root + 4, 4, km.no_limit);
    try testing.expectEqualSlices(i32, &.{ 42, 0, 0 }, e.reader.slice(i32, a.offset, 3));
    try expectError(error.TooLarge, e.setLen(root + 4, 4, 4));
    // Bytes a hostile writer left in unused capacity (validation does not
    // read it) must not be exposed by growth.
    const room = e.capacitySlice(i32, root + 4);
    try expectEqual(@as(usize, 3), room.len);
    room[1] = 0x0bad;
    room[2] = 0x0bad;
    try e.setLen(root + 4, 4, 3);
    try testing.expectEqualSlices(i32, &.{ 42, 0, 0 }, e.slice(i32, root + 4));
    // A malformed reference.
    std.mem.writeInt(u32, buf[root + 4 + 8 ..][0..4], 1 << 20, .little);
    try expectError(error.MalformedArray, e.setLen(root + 4, 4, 1));
    try expectEqual(@as(usize, 0), e.slice(i32, root + 4).len);
    try expectError(error.Truncated, Editor.open(@constCast("nope")));
}

test "editor: array fields of a table for the generated setters, within a limit (format.md §12)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const root = try w.alloc(24, 8);
    w.put(u32, root, 3);
    try w.writeSlice(u16, root + 4, &.{ 1, 2, 3 });
    try w.finish();
    const buf = try km.alignedCopy(testing.allocator, w.bytes());
    defer testing.allocator.free(buf);
    var e = try Editor.open(buf);
    const t = e.reader.root();
    const s = e.fieldSlice(u16, t, 4, km.no_limit);
    try testing.expectEqualSlices(u16, &.{ 1, 2, 3 }, s);
    s[2] = 7;
    try testing.expectEqualSlices(u16, &.{ 1, 2, 7 }, e.reader.arraySlice(u16, e.reader.fieldArray(t, 4, 2, km.no_limit)));
    // Over a [<2]u16 limit: no elements, no length past it.
    try expectEqual(@as(usize, 0), e.fieldSlice(u16, t, 4, 2).len);
    try expectError(error.TooLarge, e.setFieldLen(t, 4, 2, 2, 3));
    try e.setFieldLen(t, 4, 2, km.no_limit, 1);
    try testing.expectEqualSlices(u16, &.{1}, e.fieldSlice(u16, t, 4, km.no_limit));
    try expectError(error.TooLarge, e.setFieldLen(t, 4, 2, km.no_limit, 4)); // the capacity is 3
    // A field past the table's used size, or an absent table: refused.
    try expectEqual(@as(usize, 0), e.fieldSlice(u16, t, 20, km.no_limit).len);
    try expectError(error.MalformedTable, e.setFieldLen(t, 20, 2, km.no_limit, 0));
    try expectError(error.MalformedTable, e.setFieldLen(.absent, 4, 2, km.no_limit, 0));
}

test "views.column: a native slice, null when absent or out of the message" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const at = try w.alloc(16, 8);
    try w.writeSlice(u32, at, &.{ 5, 6 }); // an array block: its elements at `offset`
    try w.finish();
    const r = try Reader.open(w.bytes());
    const a = r.array(at, 4, km.no_limit);
    try testing.expectEqualSlices(u32, &.{ 5, 6 }, km.views.column(r, u32, a.offset, 2).?);
    try expectEqual(@as(?[]const u32, null), km.views.column(r, u32, 0, 2)); // absent
    try expectEqual(@as(?[]const u32, null), km.views.column(r, u32, a.offset, 1 << 20)); // past the end
    try expectEqual(@as(usize, 0), km.views.column(r, u32, 0, 0).?.len);
    const t = Trusted.assumeValid(r);
    try testing.expectEqualSlices(u32, &.{ 5, 6 }, km.views.column(t, u32, a.offset, 2).?);
}

// ---------------------------------------------------------------- hostile vectors

const build_options = @import("build_options");

/// The hand-written equivalent of the generated validators of
/// testdata/vectors/hostile/schema.km: what each root type's validator
/// does with the library's checks.
fn validateHostile(root: []const u8, r: Reader) km.ValidateError!void {
    var v: Validator = .init(r);
    if (std.mem.eql(u8, root, "Triple")) {
        // An inline root must fit the message (format.md §1).
        if (!r.fits(km.header_size, 24)) return error.MalformedTable;
        return;
    }
    // The roots' full sizes `S` (format.md §10), as the generator computes
    // them for testdata/vectors/hostile/schema.km.
    const full: u32 = if (std.mem.eql(u8, root, "Shared"))
        32
    else if (std.mem.eql(u8, root, "Nests"))
        24
    else if (std.mem.eql(u8, root, "Short"))
        184
    else if (std.mem.eql(u8, root, "EmptiesList") or std.mem.eql(u8, root, "Padded"))
        32
    else
        16;
    try v.enter();
    const t = try v.root(full);
    if (std.mem.eql(u8, root, "Columns")) {
        _ = try v.soaOf(&point_columns, try v.fieldArray(t, 4, 0, km.no_limit));
    } else if (std.mem.eql(u8, root, "Shared")) {
        _ = try v.soaOf(&point_columns, try v.fieldArray(t, 4, 0, km.no_limit));
        _ = try v.soaOf(&point_columns, try v.fieldArray(t, 16, 0, km.no_limit));
    } else if (std.mem.eql(u8, root, "Zeros")) {
        var none: [0]u32 = .{};
        try v.soa(try v.fieldArray(t, 4, 0, km.no_limit), &.{}, &none);
    } else if (std.mem.eql(u8, root, "Tables") or std.mem.eql(u8, root, "Bigs")) {
        // An AoS array of `Leaf` (S = 8) or of `Big` (S = 72).
        const leaf_full: u32 = if (std.mem.eql(u8, root, "Bigs")) 72 else 8;
        const a = try v.fieldArray(t, 4, 4, km.no_limit);
        for (0..a.len) |i| {
            try v.enter();
            _ = try v.table(r.load(u32, a.offset + 4 * @as(u32, @intCast(i))), leaf_full);
            v.leave();
        }
    } else if (std.mem.eql(u8, root, "Nests")) {
        // `N Nest` past `used` costs Z(Nest) = 40 + 3 × 40 (§10).
        _ = try v.fieldArray(t, 4, 1, km.no_limit);
        if (t.has(16, 4)) try validateNest(&v, r.load(u32, t.offset + 16)) else try v.charge(160);
    } else if (std.mem.eql(u8, root, "Short")) {
        _ = try v.fieldArray(t, 4, 1, km.no_limit);
        const s = try v.fieldArray(t, 160, 1, km.no_limit);
        try v.utf8(s.offset, s.len);
        _ = try v.fieldArray(t, 172, 4, km.no_limit);
    } else if (std.mem.eql(u8, root, "EmptiesList")) {
        const a = try v.fieldArray(t, 4, 4, km.no_limit);
        for (0..a.len) |i| {
            try v.enter();
            const e = try v.table(r.load(u32, a.offset + 4 * @as(u32, @intCast(i))), 40);
            _ = try v.fieldArray(e, 4, 1, km.no_limit);
            const text = try v.fieldArray(e, 16, 1, km.no_limit);
            try v.utf8(text.offset, text.len);
            const leaves = try v.fieldArray(e, 28, 4, km.no_limit);
            for (0..leaves.len) |j| {
                try v.enter();
                _ = try v.table(r.load(u32, leaves.offset + 4 * @as(u32, @intCast(j))), 8);
                v.leave();
            }
            v.leave();
        }
        _ = try v.fieldArray(t, 16, 1, km.no_limit);
    } else if (std.mem.eql(u8, root, "Text")) {
        const a = try v.fieldArray(t, 4, 1, km.no_limit);
        try v.utf8(a.offset, a.len);
    } else if (std.mem.eql(u8, root, "Holder")) {
        if (t.has(4, 8) and r.load(u8, t.offset + 4) == 1) {
            const off = r.load(u32, t.offset + 8);
            try v.enter();
            _ = v.table(off, 8) catch return v.invalidUnion(t.offset + 4, 1);
            v.leave();
        }
    } else if (std.mem.eql(u8, root, "Marks")) {
        // `M Mark` at 4: a `Leaf` table (tag 1) or an inline `Dot` of 8
        // bytes at an 8-aligned offset inside the message (tag 2, §7).
        if (t.has(4, 8)) {
            const tag = r.load(u8, t.offset + 4);
            const off = r.load(u32, t.offset + 8);
            if (tag == 1) {
                try v.enter();
                _ = v.table(off, 8) catch return v.invalidUnion(t.offset + 4, 1);
                v.leave();
            } else if (tag == 2) {
                if (off == 0 or off % 8 != 0 or !r.fits(off, 8)) return v.invalidUnion(t.offset + 4, 2);
                try v.charge(8);
            }
        }
    } else if (std.mem.eql(u8, root, "Padded")) {
        // A u8 at 4, the inline `Gappy` at 8 (numbers: nothing to check,
        // padding ignored, §11), `L []u16` at 16.
        _ = try v.fieldArray(t, 16, 2, km.no_limit);
    } else if (std.mem.eql(u8, root, "Bunch")) {
        const a = try v.fieldArray(t, 4, 0, km.no_limit);
        const k = try v.bunch(a, &.{1});
        var e: u32 = 1;
        while (e <= k) : (e += 1) {
            const entry = a.offset + 16 * e;
            if (r.load(u32, entry) != 1) continue;
            const leaves = try v.array(entry + 4, 4, km.no_limit);
            for (0..leaves.len) |i| {
                try v.enter();
                _ = try v.table(r.load(u32, leaves.offset + 4 * @as(u32, @intCast(i))), 8);
                v.leave();
            }
        }
    } else return error.MalformedTable;
    v.leave();
}

/// `Nest` of testdata/vectors/hostile/schema.km (S = 40): each of its
/// `Inner` tables (S = 40) past `used` costs Z(Inner) = 40 (format.md §10).
fn validateNest(v: *Validator, offset: u32) km.ValidateError!void {
    const r = v.r;
    const t = try v.table(offset, 40);
    try v.enter();
    // A, B and the `Inner` of the inline `W` (at 12: an inline struct of
    // 4-byte fields is 4-aligned, format.md §3).
    for ([_][2]u32{ .{ 4, 4 }, .{ 8, 4 }, .{ 12, 8 } }) |field| {
        if (t.has(field[0], field[1])) {
            try v.enter();
            _ = try v.table(r.load(u32, t.offset + field[0]), 40);
            v.leave();
        } else try v.charge(40);
    }
    if (t.has(20, 4) and r.load(u32, t.offset + 20) != 0) {
        try v.enter();
        _ = try v.table(r.load(u32, t.offset + 20), 40);
        v.leave();
    }
    _ = try v.fieldArray(t, 24, 1, km.no_limit);
    v.leave();
}

/// A `.hex` vector's bytes in an 8-aligned buffer: `message` is the part
/// of `storage` that holds them.
const Vector = struct {
    storage: []align(8) u8,
    message: []align(8) u8,

    fn read(gpa: std.mem.Allocator, dir: std.Io.Dir, name: []const u8) !Vector {
        const io = testing.io;
        const text = try dir.readFileAlloc(io, name, gpa, .limited(1 << 24));
        defer gpa.free(text);
        const storage = try gpa.alignedAlloc(u8, .@"8", text.len / 2 + 1);
        errdefer gpa.free(storage);
        const parsed = try parseHex(storage, text);
        return .{ .storage = storage, .message = storage[0..parsed.len] };
    }

    fn deinit(v: Vector, gpa: std.mem.Allocator) void {
        gpa.free(v.storage);
    }
};

test "every golden vector opens and its size is the message's (testdata/vectors)" {
    const gpa = testing.allocator;
    const io = testing.io;
    var root = try std.Io.Dir.cwd().openDir(io, build_options.vectors, .{ .iterate = true });
    defer root.close(io);
    var topics = root.iterate();
    var count: usize = 0;
    while (try topics.next(io)) |topic| {
        if (topic.kind != .directory) continue;
        var dir = try root.openDir(io, topic.name, .{ .iterate = true });
        defer dir.close(io);
        var files = dir.iterate();
        while (try files.next(io)) |file| {
            if (!std.mem.endsWith(u8, file.name, ".hex")) continue;
            const vector = try Vector.read(gpa, dir, file.name);
            defer vector.deinit(gpa);
            const full = vector.message;
            const r = Reader.open(full) catch |err| {
                std.debug.print("{s}/{s}: {}\n", .{ topic.name, file.name, err });
                return err;
            };
            try expectEqual(full.len, r.mem.len);
            try expectEqual(@as(u32, @intCast(full.len)), std.mem.readInt(u32, full[4..8], .little));
            count += 1;
        }
    }
    // The repository holds 64 vectors today: a runner that
    // silently finds nothing must not pass.
    try expect(count >= 64);
}

test "hostile vectors: the library's checks decide as `valid` says" {
    const gpa = testing.allocator;
    const io = testing.io;
    var dir = try std.Io.Dir.cwd().openDir(io, build_options.vectors, .{});
    defer dir.close(io);
    var hostile = try dir.openDir(io, "hostile", .{ .iterate = true });
    defer hostile.close(io);
    var files = hostile.iterate();
    var count: usize = 0;
    while (try files.next(io)) |file| {
        if (!std.mem.endsWith(u8, file.name, ".json")) continue;
        const json = try hostile.readFileAlloc(io, file.name, gpa, .limited(1 << 20));
        defer gpa.free(json);
        const Case = struct { root: []const u8, valid: bool };
        const case = try std.json.parseFromSlice(Case, gpa, json, .{ .ignore_unknown_fields = true });
        defer case.deinit();
        const stem = file.name[0 .. file.name.len - ".json".len];
        var hex_name: [256]u8 = undefined;
        const name = try std.fmt.bufPrint(&hex_name, "{s}.hex", .{stem});
        const vector = try Vector.read(gpa, hostile, name);
        defer vector.deinit(gpa);
        const full = vector.message;
        const r = try Reader.open(full);
        const valid = if (validateHostile(case.value.root, r)) true else |_| false;
        if (valid != case.value.valid) {
            std.debug.print("hostile/{s}: validator says {}, the vector {}\n", .{ stem, valid, case.value.valid });
            return error.TestUnexpectedResult;
        }
        count += 1;
    }
    try expect(count >= 30);
}

// ---------------------------------------------------------------- views

test "arrays of arrays: a malformed element reads as empty, the others as written (format.md §5.4)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const ref = try w.alloc(12, 4);
    const block = try w.allocArray(3, km.array_ref_size);
    w.putArrayRef(ref, block, 3, 3);
    try w.writeSlice(f32, block, &.{ 1, 2 });
    w.putArrayRef(block + 12, 2, 1, 1); // misaligned for f32: malformed
    try w.writeSlice(f32, block + 24, &.{3});
    try w.finish();
    const r = try Reader.open(w.bytes());
    const x: km.Arrays = .{ .a = r.array(ref, km.array_ref_size, km.no_limit), .elem_size = 4 };
    try expectEqual(@as(u32, 3), x.len());
    try testing.expectEqualSlices(f32, &.{ 1, 2 }, r.arraySlice(f32, x.at(r, 0)));
    try expect(x.at(r, 1).eql(.empty));
    try testing.expectEqualSlices(f32, &.{3}, r.arraySlice(f32, x.at(r, 2)));
    try expect(x.at(r, 3).eql(.empty));
    const limited: km.Arrays = .{ .a = x.a, .elem_size = 4, .limit = 1 };
    try expect(limited.at(r, 0).eql(.empty)); // over its limit
    try expectEqual(@as(u32, 1), limited.at(r, 2).len);
    try testing.expectEqualSlices(f32, &.{ 1, 2 }, Trusted.assumeValid(r).arraySlice(f32, x.atTrusted(.assumeValid(r), 0)));
}

fn u64KeyAt(r: Reader, at: u32) u64 {
    return r.load(u64, at);
}

fn textKeyAt(r: Reader, at: u32) []const u8 {
    return r.string(r.array(at, 1, km.no_limit));
}

test "maps: binary search over sorted entries (format.md §5.5)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const refs = try w.alloc(24, 4);
    // map<u64, u32>: entries { Key u64; Value u32; } of 16 bytes.
    const keys = [_]u64{ 0, 5, 9, std.math.maxInt(u64) };
    const block = try w.allocArray(keys.len, 16);
    w.putArrayRef(refs, block, keys.len, keys.len);
    for (keys, 0..) |k, i| {
        w.put(u64, block + 16 * @as(u32, @intCast(i)), k);
        w.put(u32, block + 16 * @as(u32, @intCast(i)) + 8, @intCast(i + 100));
    }
    // map<string, u8>: entries { Key string; Value u8; } of 16 bytes.
    const names = [_][]const u8{ "", "a", "ab", "b", "é" };
    const tblock = try w.allocArray(names.len, 16);
    w.putArrayRef(refs + 12, tblock, names.len, names.len);
    for (names, 0..) |n, i| {
        const entry = tblock + 16 * @as(u32, @intCast(i));
        try w.writeString(entry, n);
        w.put(u8, entry + 12, @intCast(i));
    }
    try w.finish();
    const r = try Reader.open(w.bytes());
    const M = km.Map(Reader, u64, u64KeyAt);
    const m: M = .{ .a = r.array(refs, 16, km.no_limit), .stride = 16 };
    for (keys, 0..) |k, i| try expectEqual(@as(u32, @intCast(i + 100)), r.load(u32, m.find(r, k).? + 8));
    try expect(m.find(r, 6) == null);
    try expectEqual(block + 16, m.entryAt(1).?);
    try expect(m.entryAt(4) == null);
    const T = km.Map(Reader, []const u8, textKeyAt);
    const t: T = .{ .a = r.array(refs + 12, 16, km.no_limit), .stride = 16 };
    for (names, 0..) |n, i| try expectEqual(@as(u8, @intCast(i)), r.load(u8, t.find(r, n).? + 12));
    try expect(t.find(r, "c") == null);
    try expect((M{}).find(r, 0) == null); // an absent map
}

test "UTF-16 decoding never fails: unpaired surrogates are U+FFFD (format.md §6)" {
    var out: [32]u8 = undefined;
    const units = [_]u16{ 0xD800, 'a', 0xDC00, 0xD83D, 0xDE00 };
    try expectEqual(@as(usize, 3 + 1 + 3 + 4), km.utf8LenOfUtf16(&units));
    try testing.expectEqualStrings("\u{FFFD}a\u{FFFD}😀", km.utf16ToUtf8(&units, &out));
}

// ---------------------------------------------------------------- hostile shapes

/// A validator of `struct Node table { Next ?Node; }` written by hand: the
/// recursion a generated validator does, one table per level.
fn validateNode(v: *Validator, offset: u32) km.ValidateError!void {
    try v.enter();
    defer v.leave();
    const t = try v.table(offset, 8);
    if (t.has(4, 4)) {
        const next = v.r.load(u32, t.offset + 4);
        if (next != 0) try validateNode(v, next);
    }
}

test "depth: a chain of 64 tables validates, 65 exceed the limit (format.md §10)" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    for ([_]u32{ 64, 65 }) |levels| {
        try w.begin();
        var prev: u32 = 0;
        for (0..levels) |_| {
            const t = try w.alloc(8, 8);
            w.put(u32, t, 1);
            if (prev != 0) w.put(u32, prev + 4, t);
            prev = t;
        }
        try w.finish();
        var v: Validator = .init(try Reader.open(w.bytes()));
        if (levels == 64) {
            try validateNode(&v, 8);
            try expectEqual(@as(u32, 0), v.depth);
        } else {
            try expectError(error.DepthExceeded, validateNode(&v, 8));
            try expectEqual(@as(u64, 65), v.fault.value);
        }
    }
}

test "budget: offsets reused to amplify work are stopped (format.md §10)" {
    // An AoS array of n table offsets, all pointing to one 64-byte table:
    // each visit is charged, so the work stays linear in the message size.
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    for ([_]u32{ 10, 200 }) |n| {
        try w.begin();
        const root = try w.alloc(16, 8);
        w.put(u32, root, 2);
        const leaf = try w.alloc(64, 8);
        w.put(u32, leaf, 8);
        const block = try w.allocArray(n, 4);
        w.putArrayRef(root + 4, block, n, n);
        for (0..n) |i| w.put(u32, block + 4 * @as(u32, @intCast(i)), leaf);
        try w.finish();
        const r = try Reader.open(w.bytes());
        var v: Validator = .init(r);
        const result = blk: {
            const t = v.root(8) catch |e| break :blk e;
            const a = v.fieldArray(t, 4, 4, km.no_limit) catch |e| break :blk e;
            for (0..a.len) |i| _ = v.table(r.load(u32, a.offset + 4 * @as(u32, @intCast(i))), 8) catch |e| break :blk e;
            break :blk {};
        };
        // 10 visits: 16 + 40 + 640 units of a budget of 8 × 128; 200
        // visits: 12 800 units of 8 × 888.
        if (n == 10) try result else try expectError(error.BudgetExceeded, result);
    }
}

test "decoders are charged a shared directory each time they read it" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const refs = try w.alloc(24, 4);
    var out: [1]u32 = undefined;
    try w.writeSoa(refs, 2, &point_columns, &out);
    try w.writeSoa(refs + 12, 3, &point_columns, &out);
    try w.finish();
    const r = try Reader.open(w.bytes());
    var v: Validator = .init(r);
    const before = v.budget;
    try v.soaColumns(r.array(refs, 0, km.no_limit), &point_columns, &out);
    try v.soaColumns(r.array(refs + 12, 0, km.no_limit), &point_columns, &out);
    try expectEqual(@as(u64, 2 * km.directoryCharge(1)), before - v.budget);
    try expectEqual(out, r.soa(&point_columns, r.array(refs + 12, 0, km.no_limit)));
    // An empty array reads no directory and costs nothing.
    try v.soaColumns(.empty, &point_columns, &out);
    try expectEqual(@as(u64, 2 * km.directoryCharge(1)), before - v.budget);
}

test "utf8Column refuses the first invalid text of a column" {
    var w = try Writer.init(testing.allocator, 0);
    defer w.deinit();
    try w.begin();
    const col = try w.alloc(36, 4);
    try w.writeString(col, "fine");
    try w.writeString(col + 12, "ünïcödé");
    try w.writeString(col + 24, "bad\xc3");
    try w.finish();
    const r = try Reader.open(w.bytes());
    var v: Validator = .init(r);
    try v.arrayColumn(col, 3, 1, km.no_limit);
    try expectError(error.InvalidText, v.utf8Column(col, 3));
    try expectEqual(r.load(u32, col + 24), v.fault.offset);
    try v.utf8Column(col, 2);
    // Over a limit, named as `array` names it.
    try expectError(error.LimitExceeded, v.arrayColumn(col, 3, 1, 4));
    try expectEqual(col + 12, v.fault.offset);
}

test "alignedCopy and isAligned" {
    var raw: [40]u8 align(8) = undefined;
    for (&raw, 0..) |*b, i| b.* = @intCast(i);
    try expect(km.isAligned(&raw));
    try expect(!km.isAligned(raw[1..]));
    const c = try km.alignedCopy(testing.allocator, raw[1..33]);
    defer testing.allocator.free(c);
    try expect(km.isAligned(c));
    try testing.expectEqualSlices(u8, raw[1..33], c);
}

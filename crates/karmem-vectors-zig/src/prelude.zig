// The fixed part of the golden-vector driver (crates/karmem-vectors-zig):
// what it runs for each case, and JSON in the vectors' conventions
// (testdata/vectors/README.md). The generated part (case functions, JSON
// printers per type, imports of the generated files) follows it.

const std = @import("std");
const karmem = @import("karmem");

/// Writes one result line, `ID<TAB>KIND<TAB>TEXT`, to stderr at once, so
/// that a crash loses nothing printed before it.
fn report(id: []const u8, kind: []const u8, text: []const u8) void {
    std.debug.print("{s}\t{s}\t{s}\n", .{ id, kind, text });
}

/// A float as JSON: the shortest text that reads back as the same `f64`
/// (an `f32` is widened exactly), `-0.0` with its sign, non-finite values
/// as the strings of the vectors' conventions.
fn jsonFloat(w: *std.Io.Writer, x: f64) std.Io.Writer.Error!void {
    if (std.math.isNan(x)) return w.writeAll("\"NaN\"");
    if (std.math.isInf(x)) return w.writeAll(if (x > 0) "\"Infinity\"" else "\"-Infinity\"");
    if (x == 0) return w.writeAll(if (std.math.signbit(x)) "-0.0" else "0.0");
    try w.print("{e}", .{x});
}

/// Text as a JSON string.
fn jsonString(w: *std.Io.Writer, s: []const u8) std.Io.Writer.Error!void {
    try w.writeByte('"');
    for (s) |c| {
        switch (c) {
            '"' => try w.writeAll("\\\""),
            '\\' => try w.writeAll("\\\\"),
            0...0x1f => try w.print("\\u{x:0>4}", .{c}),
            else => try w.writeByte(c),
        }
    }
    try w.writeByte('"');
}

/// UTF-16 text as a JSON string of UTF-8, unpaired surrogates as U+FFFD
/// (format.md §6), as the decoders convert it.
fn jsonUtf16(w: *std.Io.Writer, units: []const u16) std.Io.Writer.Error!void {
    try w.writeByte('"');
    var it: karmem.views.Utf16Iterator = .{ .units = units };
    while (it.next()) |c| {
        switch (c) {
            '"' => try w.writeAll("\\\""),
            '\\' => try w.writeAll("\\\\"),
            0...0x1f => try w.print("\\u{x:0>4}", .{c}),
            else => {
                var buf: [4]u8 = undefined;
                const n = std.unicode.utf8Encode(c, &buf) catch unreachable;
                try w.writeAll(buf[0..n]);
            },
        }
    }
    try w.writeByte('"');
}

/// The message read in place through the generated viewers: the checked
/// viewer of any message (`view`: valid or not, it never fails nor reads
/// outside it), and the trusted viewer when the message validates
/// (`trusted`).
fn reportViews(gpa: std.mem.Allocator, id: []const u8, comptime View: type, comptime printView: anytype, r: karmem.Reader) !void {
    var out: std.Io.Writer.Allocating = .init(gpa);
    defer out.deinit();
    try printView(&out.writer, View.root(r));
    report(id, "view", out.written());
    const trusted = View.trust(r) catch return;
    var out2: std.Io.Writer.Allocating = .init(gpa);
    defer out2.deinit();
    try printView(&out2.writer, trusted);
    report(id, "trusted", out2.written());
}

/// Every message one byte away from `bytes` (each byte set to 0x00, 0x01,
/// 0x80 and 0xFF in turn) read through the checked viewers: in Debug a
/// read outside the message, an overflow or a bad cast panics, failing the
/// run. When such a message still validates, the trusted viewers must read
/// it as the checked ones do. Reported as `mutants<TAB>ok` or where they
/// first differ.
fn mutateViews(gpa: std.mem.Allocator, id: []const u8, comptime T: type, comptime View: type, comptime printView: anytype, bytes: []const u8) !void {
    const message = try karmem.alignedCopy(gpa, bytes);
    defer gpa.free(message);
    var checked: std.Io.Writer.Allocating = .init(gpa);
    defer checked.deinit();
    var trusted: std.Io.Writer.Allocating = .init(gpa);
    defer trusted.deinit();
    var opened: usize = 0;
    var valid: usize = 0;
    for (0..message.len) |at| {
        const was = message[at];
        defer message[at] = was;
        for ([_]u8{ 0x00, 0x01, 0x80, 0xFF }) |b| {
            if (b == was) continue;
            message[at] = b;
            const r = karmem.Reader.open(message) catch continue;
            opened += 1;
            checked.clearRetainingCapacity();
            try printView(&checked.writer, View.root(r));
            T.validate(r) catch continue;
            valid += 1;
            trusted.clearRetainingCapacity();
            try printView(&trusted.writer, try View.trust(r));
            if (!std.mem.eql(u8, checked.written(), trusted.written())) {
                const text = try std.fmt.allocPrint(gpa, "byte {d} = {d}: checked {s}, trusted {s}", .{ at, b, checked.written(), trusted.written() });
                defer gpa.free(text);
                return report(id, "mutants", text);
            }
        }
    }
    const text = try std.fmt.allocPrint(gpa, "ok ({d} read, {d} valid)", .{ opened, valid });
    defer gpa.free(text);
    report(id, "mutants", text);
}

/// References every declaration of a viewer type and of the types it
/// declares (`Array`, `Soa`, `SoaItem`, ...): Zig compiles only what is
/// referenced, and the cases' roots do not reach every accessor.
fn refViews(comptime T: type) void {
    @setEvalBranchQuota(100_000);
    inline for (comptime std.meta.declarations(T)) |name| {
        const x = @field(T, name);
        if (@TypeOf(x) == type) {
            if (x != T and @typeInfo(x) == .@"struct") refViews(x);
        } else _ = &x;
    }
}

/// `value` printed by `print`, as one report line.
fn reportValue(gpa: std.mem.Allocator, id: []const u8, comptime T: type, comptime print: anytype, value: *const T) !void {
    var out: std.Io.Writer.Allocating = .init(gpa);
    defer out.deinit();
    try print(&out.writer, value);
    report(id, "value", out.written());
}

/// The first offset where two messages differ, as a report line.
fn reportSame(gpa: std.mem.Allocator, id: []const u8, kind: []const u8, got: []const u8, want: []const u8) !void {
    if (std.mem.eql(u8, got, want)) return report(id, kind, "ok");
    const n = @min(got.len, want.len);
    var at: usize = n;
    for (got[0..n], want[0..n], 0..) |a, b, i| {
        if (a != b) {
            at = i;
            break;
        }
    }
    const text = try std.fmt.allocPrint(gpa, "differs at offset {d} (encoded {d} bytes, expected {d})", .{ at, got.len, want.len });
    defer gpa.free(text);
    report(id, kind, text);
}

fn reportValid(gpa: std.mem.Allocator, id: []const u8, comptime T: type, r: karmem.Reader) !void {
    var fault: karmem.Fault = .{};
    if (T.validateFault(r, &fault)) |_| {
        report(id, "valid", "true");
    } else |err| {
        const text = try std.fmt.allocPrint(gpa, "false {s} at {d} ({d})", .{ @errorName(err), fault.offset, fault.value });
        defer gpa.free(text);
        report(id, "valid", text);
    }
}

/// A case with a value: read through the viewers, decode (printed),
/// validate, encode again (the bytes), then decode and encode again with
/// the same writer (reuse).
fn runValue(gpa: std.mem.Allocator, id: []const u8, comptime T: type, comptime View: type, comptime print: anytype, comptime printView: anytype, bytes: []const u8) !void {
    var arena_state: std.heap.ArenaAllocator = .init(gpa);
    defer arena_state.deinit();
    const arena = arena_state.allocator();
    const message = try karmem.alignedCopy(arena, bytes);
    const r = karmem.Reader.open(message) catch |err| return report(id, "open", @errorName(err));
    try reportViews(gpa, id, View, printView, r);
    const value = T.decode(r, arena) catch |err| return report(id, "decode-error", @errorName(err));
    try reportValue(gpa, id, T, print, &value);
    try reportValid(gpa, id, T, r);
    var w: karmem.Writer = try .init(gpa, 64);
    defer w.deinit();
    try value.encode(&w);
    try reportSame(gpa, id, "bytes", w.bytes(), bytes);
    const again = T.decode(r, arena) catch |err| return report(id, "reuse", @errorName(err));
    try again.encode(&w);
    try reportSame(gpa, id, "reuse", w.bytes(), bytes);
    try mutateViews(gpa, id, T, View, printView, bytes);
}

/// An evolution reader or a hostile message: validate, read through the
/// viewers, then decode (printed, or the error).
fn runRead(gpa: std.mem.Allocator, id: []const u8, comptime T: type, comptime View: type, comptime print: anytype, comptime printView: anytype, bytes: []const u8) !void {
    var arena_state: std.heap.ArenaAllocator = .init(gpa);
    defer arena_state.deinit();
    const arena = arena_state.allocator();
    const message = try karmem.alignedCopy(arena, bytes);
    const r = karmem.Reader.open(message) catch |err| return report(id, "open", @errorName(err));
    try reportValid(gpa, id, T, r);
    try reportViews(gpa, id, View, printView, r);
    const value = T.decode(r, arena) catch |err| return report(id, "decode-error", @errorName(err));
    try reportValue(gpa, id, T, print, &value);
}

/// Encoding a map whose entries are out of key order, or hold a key twice,
/// fails with `error.MapOrder` (format.md §5.5: no validator accepts such
/// a map); in order, it encodes. Reported as `map-order<TAB>result<TAB>…`.
fn checkMapOrder(comptime Root: type, comptime Entry: type, gpa: std.mem.Allocator) !void {
    var w: karmem.Writer = try .init(gpa, 64);
    defer w.deinit();
    const sorted = [_]Entry{ .{ .key = "a", .value = 1 }, .{ .key = "ab", .value = 2 }, .{ .key = "b", .value = 3 } };
    const swapped = [_]Entry{ .{ .key = "ab", .value = 2 }, .{ .key = "a", .value = 1 } };
    const twice = [_]Entry{ .{ .key = "a", .value = 1 }, .{ .key = "a", .value = 2 } };
    (Root{ .ages = &sorted }).encode(&w) catch |err| return report("map-order", "result", @errorName(err));
    inline for (.{ &swapped, &twice }) |entries| {
        if ((Root{ .ages = entries }).encode(&w)) |_| {
            return report("map-order", "result", "an unordered map was encoded");
        } else |err| if (err != error.MapOrder) return report("map-order", "result", @errorName(err));
    }
    report("map-order", "result", "ok");
}

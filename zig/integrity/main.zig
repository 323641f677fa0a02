//! karmem-integrity-zig: the Zig member's command of the cross-language
//! integrity suite (docs/integrity.md §4). It reads requests from standard
//! input, one per line, and answers each with one line on standard
//! output, flushed at once (the harness waits for it before the next
//! request), until the input ends. Lines carry whole messages as hex
//! (hundreds of kilobytes): a line is read into memory that grows.

const std = @import("std");
const karmem = @import("karmem");
const member = @import("member.zig");

const Old = member.Member(@import("old"), false);
const New = member.Member(@import("new"), true);

const hex_digits = "0123456789abcdef";

fn writeHex(w: *std.Io.Writer, bytes: []const u8) !void {
    for (bytes) |b| try w.writeAll(&.{ hex_digits[b >> 4], hex_digits[b & 15] });
}

/// Answers one request line into `out` (without the line end).
fn answer(a: std.mem.Allocator, line: []const u8, out: *std.Io.Writer) !void {
    var words = std.mem.tokenizeAny(u8, line, " \t\r");
    const cmd = words.next() orelse return out.writeAll("error empty request");
    const version = words.next() orelse return out.writeAll("error no version");
    const arg = words.next() orelse return out.writeAll("error no argument");
    const newer = if (std.mem.eql(u8, version, "new")) true else if (std.mem.eql(u8, version, "old")) false else return out.print("error unknown version {s}", .{version});
    var w: karmem.Writer = try .init(a, 1024);
    defer w.deinit();
    if (std.mem.eql(u8, cmd, "produce")) {
        const seed = std.fmt.parseInt(u64, arg, 10) catch return out.writeAll("error bad seed");
        (if (newer) New.produce(a, &w, seed) else Old.produce(a, &w, seed)) catch |err| return out.print("error {s}", .{@errorName(err)});
        return writeHex(out, w.bytes());
    }
    if (arg.len % 2 != 0) return out.writeAll("error odd hex");
    const raw = try a.alloc(u8, arg.len / 2);
    _ = std.fmt.hexToBytes(raw, arg) catch return out.writeAll("error bad hex");
    const message = try karmem.alignedCopy(a, raw);
    const r = karmem.Reader.open(message) catch |err| return out.print("error {s}", .{@errorName(err)});
    if (std.mem.eql(u8, cmd, "consume") or std.mem.eql(u8, cmd, "stream")) {
        const s = (if (newer) New.stream(a, r) else Old.stream(a, r)) catch |err| return out.print("error {s}", .{@errorName(err)});
        if (std.mem.eql(u8, cmd, "stream")) return writeHex(out, s);
        var digest: [32]u8 = undefined;
        std.crypto.hash.sha2.Sha256.hash(s, &digest, .{});
        return writeHex(out, &digest);
    }
    if (std.mem.eql(u8, cmd, "roundtrip")) {
        const same = (if (newer) New.roundtrip(a, &w, r) else Old.roundtrip(a, &w, r)) catch |err| return out.print("error {s}", .{@errorName(err)});
        return out.writeAll(if (same) "ok" else "error the bytes encoded again differ");
    }
    return out.print("error unknown request {s}", .{cmd});
}

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    var in_buf: [1 << 16]u8 = undefined;
    var stdin = std.Io.File.stdin().reader(init.io, &in_buf);
    var out_buf: [1 << 16]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(init.io, &out_buf);
    const out = &stdout.interface;
    var line: std.Io.Writer.Allocating = .init(gpa);
    defer line.deinit();
    while (true) {
        line.clearRetainingCapacity();
        var last = false;
        _ = stdin.interface.streamDelimiter(&line.writer, '\n') catch |err| switch (err) {
            error.EndOfStream => last = true,
            else => return err,
        };
        if (!last) stdin.interface.toss(1);
        const text = std.mem.trim(u8, line.written(), " \t\r");
        if (text.len > 0) {
            // One arena per request: everything it needs, freed at once.
            var arena: std.heap.ArenaAllocator = .init(gpa);
            defer arena.deinit();
            try answer(arena.allocator(), text, out);
            try out.writeByte('\n');
            try out.flush();
        }
        if (last) break;
    }
}

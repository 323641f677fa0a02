//! The Zig side of the quick start (docs/quickstart.md): reads the message
//! the Go program wrote (the file named by the first argument), validates
//! it once, decodes it into an arena and prints it as the other languages
//! do.

const std = @import("std");
const karmem = @import("karmem");
const chat = @import("chat");

pub fn main(init: std.process.Init) !void {
    var out_buf: [1024]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(init.io, &out_buf);
    const out = &stdout.interface;
    var arena: std.heap.ArenaAllocator = .init(init.gpa);
    defer arena.deinit();
    const a = arena.allocator();

    const args = try init.minimal.args.toSlice(a);
    if (args.len < 2) return error.Usage;
    const text = try std.Io.Dir.cwd().readFileAlloc(init.io, args[1], a, .limited(1 << 20));
    // A reader needs the message 8-byte aligned.
    const bytes = try a.alignedAlloc(u8, .@"8", text.len);
    @memcpy(bytes, text);

    const reader = try karmem.Reader.open(bytes);
    try chat.Message.validate(reader);
    const m = try chat.Message.decode(reader, a);
    try out.print("message {d} \"{s}\" tags [", .{ m.id, m.text });
    for (m.tags, 0..) |e, i| try out.print("{s}{s}={d}", .{ if (i > 0) " " else "", e.key, e.value });
    try out.writeAll("] reactions [");
    for (m.reactions, 0..) |r, i| try out.print("{s}{s}={d}", .{ if (i > 0) " " else "", r.emoji, r.count });
    try out.print("] edited {d} {}\n", .{ m.edited_at orelse 0, m.edited_at != null });
    try out.flush();
}

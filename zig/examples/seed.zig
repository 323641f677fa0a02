//! The first Karmem README's example, in Zig: encode an account with three
//! profiles, validate the message once and print each username read in
//! place through the generated trusted viewers (nothing decoded, nothing
//! copied); then decode it into an arena and check both agree. The schema is the README's, unchanged
//! (testdata/vectors/seed/schema.km); `karmem build --lang zig` writes app.zig
//! from it. docs/zig.md, "The seed README's example".
//!
//! With `--hex`, prints the message instead, in the golden vectors' hex
//! form: scripts/test-zig.sh checks it against testdata/vectors/seed.

const std = @import("std");
const karmem = @import("karmem");
const app = @import("app");

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    var out_buf: [1024]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(init.io, &out_buf);
    const out = &stdout.interface;

    const content: app.AccountData = .{
        .id = 42,
        .email = "example@email.com",
        .profiles = &.{
            .{ .data = .{ .network = .facebook, .username = "inkeliz", .id = 123 } },
            .{ .data = .{ .network = .facebook, .username = "karmem", .id = 231 } },
            .{ .data = .{ .network = .instagram, .username = "inkeliz", .id = 312 } },
        },
    };

    // Encode: a growable writer, reused for every message it writes.
    var writer: karmem.Writer = try .init(gpa, 1024);
    defer writer.deinit();
    try content.encode(&writer);
    const encoded = writer.bytes();

    const args = try init.minimal.args.toSlice(init.arena.allocator());
    if (args.len > 1 and std.mem.eql(u8, args[1], "--hex")) {
        var line: usize = 0;
        while (line < encoded.len) : (line += 16) {
            try out.print("{x:0>4}:", .{line});
            for (encoded[line..@min(line + 16, encoded.len)]) |byte| try out.print(" {x:0>2}", .{byte});
            try out.writeByte('\n');
        }
        return out.flush();
    }

    // Read in place: open the message, validate it once (`trust`), then
    // read through the trusted viewers, which skip the checks the
    // validation made. The text aliases `encoded`.
    const reader = try karmem.Reader.open(encoded);
    const account = try app.AccountDataView.trust(reader);
    try out.print("account {d} <{s}>, {d} bytes\n", .{ account.id(), account.email(), encoded.len });
    const profiles = account.profiles();
    var i: u32 = 0;
    while (i < profiles.len()) : (i += 1) try out.print("{s}\n", .{profiles.at(i).data().username()});

    // Or decode into an arena (the text is copied there too): the same
    // values, as objects that outlive the message.
    var arena: std.heap.ArenaAllocator = .init(gpa);
    defer arena.deinit();
    const decoded = try app.AccountData.decode(reader, arena.allocator());
    for (decoded.profiles, 0..) |p, k| {
        if (!std.mem.eql(u8, p.data.username, profiles.at(@intCast(k)).data().username())) return error.Differs;
    }
    try out.flush();
}

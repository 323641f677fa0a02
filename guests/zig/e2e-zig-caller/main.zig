//! e2e-zig-caller exports e2e.Driver; its run calls e2e.Echo (direct,
//! copied and region-bound arguments) and e2e.Voter (fan-out) from inside
//! a guest, answering exactly as guests/go/e2e-go-caller does.

const std = @import("std");
const karmem = @import("karmem");
const guest = karmem.guest;
const e2e = @import("e2e");
const Msg = e2e.types.Msg;

pub const panic = guest.panic;

pub const module: guest.Module = .{
    .exports = &.{e2e.Driver.exporter(Driver)},
    .imports = &.{ e2e.Echo.interface, e2e.Voter.interface },
};

comptime {
    guest.exportAbi(module);
}

const echo = e2e.Echo.client(module);
const voters = e2e.Voter.client(module);

const Driver = struct {
    /// Answers `echo=<text>/<n> peek=<text>@<offset> votes=<callee>:<status>:<text>,...`.
    pub fn run(m: guest.Arg(Msg)) !Msg {
        const in = try m.value();
        var text: std.Io.Writer.Allocating = .init(guest.scratch());
        const w = &text.writer;

        const echo_reply = try echo.echo(&in);
        const got = echo_reply.get() catch return guest.fail("echo: {f}", .{echo_reply});
        const echoed = got.view(); // a copied result, validated as it arrived
        try w.print("echo={s}/{d}", .{ echoed.text(), echoed.number() });

        // A region-bound argument is written into this module's window and
        // passed by position.
        const at = 4096;
        const window = e2e.Echo.sharedWindow();
        if (window.len < at) return guest.fail("peek: no window of e2e.shared", .{});
        const placed = try guest.writeInto(window[at..], &in);
        const peek_reply = try echo.peek(placed);
        const peeked = try (peek_reply.get() catch return guest.fail("peek: {f}", .{peek_reply})).value();
        try w.print(" peek={s}@{d}", .{ peeked.text, peeked.number });

        const votes = try voters.vote(&in);
        try w.writeAll(" votes=");
        for (votes, 0..) |v, k| {
            if (k > 0) try w.writeByte(',');
            try w.print("{d}:{f}:", .{ v.callee, v.status });
            if (v.failure != null) {
                try w.print("{f}", .{v});
            } else {
                try w.writeAll((try v.result.value()).text);
            }
        }
        return .{ .text = text.written() };
    }
};

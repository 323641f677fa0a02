//! e2e-zig-echo exports e2e.Echo and e2e.Voter (guests/polyglot.km) with
//! the behaviour of guests/go/e2e-go-echo, for the Zig guest tests
//! (crates/karmem-e2e/tests/zig_guests.rs).

const std = @import("std");
const karmem = @import("karmem");
const guest = karmem.guest;
const e2e = @import("e2e");
const Msg = e2e.types.Msg;

pub const panic = guest.panic;

const Echo = struct {
    pub fn echo(m: guest.Arg(Msg)) Msg {
        const v = m.view();
        return .{ .text = v.text(), .number = v.number() +% 1 };
    }

    /// Proves the argument was not copied: its bytes lie in this module's
    /// window of the region, and the reply says where.
    pub fn peek(m: guest.Arg(Msg)) !Msg {
        const at = guest.offsetIn("e2e.shared", m.bytes) orelse
            return guest.fail("peek: the argument is not in the shared window", .{});
        const v = m.checkedView();
        return .{ .text = v.text(), .number = at };
    }

    pub fn fail(m: guest.Arg(Msg)) !Msg {
        return guest.fail("fail: {s}", .{m.view().text()});
    }

    /// Returns its result in place in the `out` region: the host passes it
    /// on by position, without a copy.
    pub fn stamp(m: guest.Arg(Msg)) ![]const u8 {
        const v = m.view();
        const reply: Msg = .{ .text = v.text(), .number = v.number() +% 100 };
        return guest.writeInto(e2e.Echo.outWindow(), &reply) catch |err|
            guest.fail("stamp: {s}", .{@errorName(err)});
    }

    /// Writes into a read-only window, the way the text says: the host
    /// must stop it. `@memset` and `@memcpy` are memory.fill and
    /// memory.copy (the default wasm32 CPU has bulk memory).
    pub fn scribble(m: guest.Arg(Msg)) !void {
        const text = m.checkedView().text();
        // The argument is the exporter's read-only view of the region;
        // casting the constness away is the bug this function stands for.
        const bytes: []u8 = @constCast(m.bytes);
        if (std.mem.eql(u8, text, "fill")) {
            @memset(bytes, 0);
        } else if (std.mem.eql(u8, text, "copy")) {
            const src = try guest.scratch().alloc(u8, bytes.len);
            @memset(src, 0xee);
            @memcpy(bytes, src);
        } else {
            const p: [*]volatile u8 = bytes.ptr;
            for (0..bytes.len) |i| p[i] = 0xee;
        }
    }

    /// Does nothing: the cheapest call there is.
    pub fn nop() void {}

    pub fn access(m: guest.Arg(Msg)) Msg {
        const text = m.view().text();
        return .{ .text = text, .number = @backingInt(guest.windowAccess(text)) };
    }
};

const Voter = struct {
    /// Answers "zig"; a vote on the text "trap" traps, so the fan-out tests
    /// have a member that fails with TRAP.
    pub fn vote(q: guest.Arg(Msg)) Msg {
        if (std.mem.eql(u8, q.view().text(), "trap")) @trap();
        return .{ .text = "zig" };
    }
};

pub const module: guest.Module = .{
    .exports = &.{ e2e.Echo.exporter(Echo), e2e.Voter.exporter(Voter) },
};

comptime {
    guest.exportAbi(module);
}

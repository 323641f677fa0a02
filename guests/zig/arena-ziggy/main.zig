//! arena-ziggy is a Zig bot for the arena demo (examples/arena/arena.km).
//! Each tick it reads the State from the read-only `board` region and
//! heads for the coin it leads the race to by the widest margin (its
//! distance minus the nearest rival's), stepping along the axis with the
//! larger gap first: it leaves coins a rival is about to take.

const std = @import("std");
const karmem = @import("karmem");
const guest = karmem.guest;
const arena = @import("arena");
const types = arena.types;

pub const panic = guest.panic;

const name = "ziggy";

const Bot = struct {
    pub fn join(_: guest.Arg(types.Rules)) types.Hello {
        return .{ .name = name, .language = "Zig" };
    }

    pub fn think(state: guest.Arg(types.State)) !types.Order {
        // Decoded into dispatch memory, freed when the call returns.
        const s = try state.value();
        const me = for (s.players) |p| {
            if (std.mem.eql(u8, p.name, name)) break p.at;
        } else return .{ .move = .stay };
        const target = choose(me, s.players, s.coins) orelse return .{ .move = .stay };
        return .{ .move = towards(me, target) };
    }
};

fn distance(a: types.Point, b: types.Point) i32 {
    const dx = @as(i32, a.x) - b.x;
    const dy = @as(i32, a.y) - b.y;
    return @as(i32, @intCast(@abs(dx))) + @as(i32, @intCast(@abs(dy)));
}

/// The coin with the smallest (my distance − the nearest rival's), the
/// nearer one on a tie; null when there is none.
fn choose(me: types.Point, players: []const types.Player, coins: []const types.Point) ?types.Point {
    var best: ?types.Point = null;
    var best_lead: i32 = 0;
    var best_dist: i32 = 0;
    for (coins) |c| {
        const mine = distance(me, c);
        var rival: i32 = std.math.maxInt(i16) * 4;
        for (players) |p| {
            if (p.out or std.mem.eql(u8, p.name, name)) continue;
            rival = @min(rival, distance(p.at, c));
        }
        const lead = mine - rival;
        if (best == null or lead < best_lead or (lead == best_lead and mine < best_dist)) {
            best, best_lead, best_dist = .{ c, lead, mine };
        }
    }
    return best;
}

/// One step from `me` to `target` along the axis with the larger gap
/// (X on a tie). North is towards smaller Y.
fn towards(me: types.Point, target: types.Point) types.Move {
    const dx = @as(i32, target.x) - me.x;
    const dy = @as(i32, target.y) - me.y;
    if (dx != 0 and @abs(dx) >= @abs(dy)) return if (dx > 0) .east else .west;
    if (dy != 0) return if (dy > 0) .south else .north;
    return .stay;
}

pub const module: guest.Module = .{
    .exports = &.{arena.Bot.exporter(Bot)},
};

comptime {
    guest.exportAbi(module);
}

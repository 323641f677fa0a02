//! The Zig member of the cross-language integrity suite (docs/integrity.md
//! §7): a producer (seed → message, §2) over the generated encoders and a
//! consumer (message → the canonical stream of every value the generated
//! checked viewers read, §3) for both schema versions, over the files
//! `karmem build --lang zig` writes from testdata/integrity/{old,new}.km
//! (modules `old` and `new`; scripts/build-integrity-zig.sh).
//!
//! Zig's union viewers keep a tag this schema does not know, and a bunch
//! array's viewer has its total length: unlike the TypeScript and Python
//! members, the consumer reads everything through the viewers.

const std = @import("std");
const karmem = @import("karmem");

/// SplitMix64 and the derived draws of §1.
const Rand = struct {
    state: u64,

    fn next(r: *Rand) u64 {
        r.state +%= 0x9E3779B97F4A7C15;
        var z = r.state;
        z = (z ^ (z >> 30)) *% 0xBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) *% 0x94D049BB133111EB;
        return z ^ (z >> 31);
    }

    fn below(r: *Rand, n: u64) u64 {
        return r.next() % n;
    }

    fn boolean(r: *Rand) bool {
        return r.next() & 1 == 1;
    }

    /// The low bits of a draw as `T` (two's complement for signed).
    fn int(r: *Rand, comptime T: type) T {
        const U = @Int(.unsigned, @bitSizeOf(T));
        return @bitCast(@as(U, @truncate(r.next())));
    }

    /// A 24-bit integer over 256: exact in `f32`.
    fn float32(r: *Rand) f32 {
        const v: i64 = @as(i64, @intCast(r.next() >> 40)) - 8388608;
        return @as(f32, @floatFromInt(v)) / 256.0;
    }

    fn float64(r: *Rand) f64 {
        const v: i64 = @as(i64, @intCast(r.next() >> 11)) - 4503599627370496;
        return @as(f64, @floatFromInt(v)) / 1024.0;
    }

    fn length(r: *Rand, largest: u64, limit: ?u64) usize {
        const bound = if (limit) |l| @min(largest, l) else largest;
        return @intCast(r.below(bound + 1));
    }
};

/// The 16 characters of §1's text, in order.
const alphabet = [_][]const u8{ "a", "b", "c", "x", "y", "z", "0", "9", " ", "-", "é", "ß", "€", "中", "😀", "\"" };

/// The largest length of a message's arrays and text (§1).
fn largestOf(seed: u64) u64 {
    return ([_]u64{ 0, 3, 16, 200 })[seed % 4];
}

/// The largest length inside an array element or a map entry.
fn inner(largest: u64) u64 {
    return @min(largest, 8);
}

/// The member for one schema version: `M` its generated module, `newer`
/// whether it is new.km (a fourth color, the `Star` variant, fields
/// appended).
pub fn Member(comptime M: type, comptime newer: bool) type {
    return struct {
        const colors: u64 = if (newer) 4 else 3;
        const tags: u64 = if (newer) 4 else 3;

        // ---- the producer (§2) ----------------------------------------------

        const Producer = struct {
            r: Rand,
            a: std.mem.Allocator,

            fn text(p: *Producer, largest: u64, limit: ?u64) ![]const u8 {
                const n = p.r.length(largest, limit);
                var out: std.ArrayList(u8) = .empty;
                for (0..n) |_| try out.appendSlice(p.a, alphabet[@intCast(p.r.below(16))]);
                return out.items;
            }

            fn texts(p: *Producer, largest: u64) ![]const []const u8 {
                const out = try p.a.alloc([]const u8, p.r.length(largest, null));
                for (out) |*t| t.* = try p.text(inner(largest), null);
                return out;
            }

            fn numbers(p: *Producer, comptime T: type, largest: u64, limit: ?u64) ![]const T {
                const out = try p.a.alloc(T, p.r.length(largest, limit));
                for (out) |*x| x.* = p.r.int(T);
                return out;
            }

            fn color(p: *Producer) M.Color {
                return @fromBackingInt(@as(u8, @intCast(p.r.below(colors))));
            }

            fn vec3(p: *Producer) M.Vec3 {
                const x = p.r.float32();
                const y = p.r.float32();
                const z = p.r.float32();
                return .{ .x = x, .y = y, .z = z };
            }

            fn vec3s(p: *Producer, largest: u64) ![]const M.Vec3 {
                const out = try p.a.alloc(M.Vec3, p.r.length(largest, null));
                for (out) |*v| v.* = p.vec3();
                return out;
            }

            fn dot(p: *Producer) M.Dot {
                const hue = p.color();
                return .{ .hue = hue, .at = p.vec3() };
            }

            fn item(p: *Producer, largest: u64) !M.Item {
                var it: M.Item = .{};
                it.id = p.r.int(u32);
                it.name = try p.text(largest, null);
                it.pos = p.vec3();
                it.tags = try p.texts(largest);
                if (newer) {
                    it.score = p.r.int(i64);
                    it.notes = try p.texts(largest);
                }
                return it;
            }

            fn items(p: *Producer, largest: u64) ![]const M.Item {
                const out = try p.a.alloc(M.Item, p.r.length(largest, null));
                for (out) |*it| it.* = try p.item(inner(largest));
                return out;
            }

            fn shape(p: *Producer, largest: u64) !?M.Shape {
                switch (p.r.below(tags)) {
                    1 => {
                        const radius = p.r.float64();
                        return .{ .circle = .{ .radius = radius, .label = try p.text(largest, null) } };
                    },
                    2 => return .{ .dot = p.dot() },
                    3 => if (newer) return .{ .star = .{ .points = p.r.int(u8) } } else unreachable,
                    else => return null,
                }
            }

            fn shapes(p: *Producer, largest: u64) ![]const ?M.Shape {
                const out = try p.a.alloc(?M.Shape, p.r.length(largest, null));
                for (out) |*s| s.* = try p.shape(inner(largest));
                return out;
            }

            /// Entries in drawing order, a key drawn again replacing the
            /// earlier entry's value; then in key order, as the encoder
            /// wants them (format.md §5.5).
            fn put(comptime E: type, list: *std.ArrayList(E), a: std.mem.Allocator, e: E) !void {
                for (list.items) |*x| {
                    if (karmem.orderKeys(@TypeOf(e.key), x.key, e.key) == .eq) {
                        x.value = e.value;
                        return;
                    }
                }
                try list.append(a, e);
            }

            fn sorted(comptime E: type, list: *std.ArrayList(E)) []const E {
                const less = struct {
                    fn f(_: void, x: E, y: E) bool {
                        return karmem.orderKeys(@TypeOf(x.key), x.key, y.key) == .lt;
                    }
                }.f;
                std.mem.sort(E, list.items, {}, less);
                return list.items;
            }

            fn root(p: *Producer, mx: u64) !M.Root {
                const r = &p.r;
                var x: M.Root = .{};
                x.u8 = r.int(u8);
                x.i8 = r.int(i8);
                x.u16 = r.int(u16);
                x.i16 = r.int(i16);
                x.u32 = r.int(u32);
                x.i32 = r.int(i32);
                x.u64 = r.int(u64);
                x.i64 = r.int(i64);
                x.f32 = r.float32();
                x.f64 = r.float64();
                x.flag = r.boolean();
                x.hue = p.color();
                x.name = try p.text(mx, null);
                x.wide = try p.text(mx, null);
                x.pos = p.vec3();
                for (&x.fixed) |*e| e.* = r.int(i16);
                x.small = try p.numbers(u8, mx, 8);
                x.bytes = try p.numbers(u8, mx, null);
                const cs = try p.a.alloc(M.Color, r.length(mx, null));
                for (cs) |*c| c.* = p.color();
                x.colors = cs;
                x.soa_points = try p.vec3s(mx);
                x.aos_points = try p.vec3s(mx);
                x.soa_items = try p.items(mx);
                x.aos_items = try p.items(mx);
                const dots = try p.a.alloc(M.Dot, r.length(mx, 64));
                for (dots) |*d| d.* = p.dot();
                x.dots = dots;
                x.shape = try p.shape(mx);
                x.aos_shapes = try p.shapes(mx);
                x.soa_shapes = try p.shapes(mx);
                x.bovoa_shapes = try p.shapes(mx);
                x.bovos_shapes = try p.shapes(mx);
                x.maybe_u32 = if (r.boolean()) r.int(u32) else null;
                x.maybe_name = if (r.boolean()) try p.text(mx, null) else null;
                if (r.boolean()) {
                    const it = try p.a.create(M.Item);
                    it.* = try p.item(mx);
                    x.maybe_item = it;
                }
                var lookup: std.ArrayList(M.RootLookupEntry) = .empty;
                for (0..r.length(mx, null)) |_| {
                    const key = try p.text(inner(mx), null);
                    try put(M.RootLookupEntry, &lookup, p.a, .{ .key = key, .value = r.int(u32) });
                }
                x.lookup = sorted(M.RootLookupEntry, &lookup);
                var by_id: std.ArrayList(M.RootByIdEntry) = .empty;
                for (0..r.length(mx, null)) |_| {
                    const key = r.int(u16);
                    try put(M.RootByIdEntry, &by_id, p.a, .{ .key = key, .value = try p.item(inner(mx)) });
                }
                x.by_id = sorted(M.RootByIdEntry, &by_id);
                const grid = try p.a.alloc([]const f32, r.length(mx, null));
                for (grid) |*row| {
                    const fs = try p.a.alloc(f32, r.length(inner(mx), null));
                    for (fs) |*f| f.* = r.float32();
                    row.* = fs;
                }
                x.grid = grid;
                const f0 = r.int(u16);
                x.pair = .{ .f0 = f0, .f1 = try p.text(mx, null) };
                x.hp = r.int(u16);
                if (newer) {
                    x.level = r.int(u8);
                    x.extra = r.int(u64);
                    x.more = try p.items(mx);
                }
                return x;
            }
        };

        /// The message of `seed` (§2), written by `w`: `w.bytes()`.
        pub fn produce(a: std.mem.Allocator, w: *karmem.Writer, seed: u64) !void {
            var p: Producer = .{ .r = .{ .state = seed }, .a = a };
            const x = try p.root(largestOf(seed));
            try x.encode(w);
        }

        // ---- the consumer (§3) ----------------------------------------------

        const Consumer = struct {
            out: *std.ArrayList(u8),
            a: std.mem.Allocator,

            fn put(c: Consumer, comptime T: type, x: T) !void {
                const U = @Int(.unsigned, @bitSizeOf(T));
                var b: [@sizeOf(T)]u8 = undefined;
                std.mem.writeInt(U, &b, @bitCast(x), .little);
                try c.out.appendSlice(c.a, &b);
            }

            fn text(c: Consumer, s: []const u8) !void {
                try c.put(u32, @intCast(s.len));
                try c.out.appendSlice(c.a, s);
            }

            fn texts(c: Consumer, xs: anytype) !void {
                try c.put(u32, xs.len());
                var i: u32 = 0;
                while (i < xs.len()) : (i += 1) try c.text(xs.at(i));
            }

            fn vec(c: Consumer, v: anytype) !void {
                try c.put(f32, v.x());
                try c.put(f32, v.y());
                try c.put(f32, v.z());
            }

            fn item(c: Consumer, it: anytype) !void {
                try c.put(u32, it.id());
                try c.text(it.name());
                try c.vec(it.pos());
                try c.texts(it.tags());
                if (newer) {
                    try c.put(i64, it.score());
                    try c.texts(it.notes());
                }
            }

            fn items(c: Consumer, xs: anytype) !void {
                try c.put(u32, xs.len());
                var i: u32 = 0;
                while (i < xs.len()) : (i += 1) try c.item(xs.at(i));
            }

            fn points(c: Consumer, xs: anytype) !void {
                try c.put(u32, xs.len());
                var i: u32 = 0;
                while (i < xs.len()) : (i += 1) try c.vec(xs.at(i));
            }

            fn dot(c: Consumer, d: anytype) !void {
                try c.put(u8, @backingInt(d.hue()));
                try c.vec(d.at());
            }

            fn circle(c: Consumer, x: anytype) !void {
                try c.put(f64, x.radius());
                try c.text(x.label());
            }

            fn star(c: Consumer, x: anytype) !void {
                try c.put(u8, x.points());
            }

            fn shape(c: Consumer, u: anytype) !void {
                try c.put(u32, u.tag);
                switch (u.tag) {
                    1 => try c.circle(u.circle()),
                    2 => try c.dot(u.dot()),
                    3 => if (newer) try c.star(u.star()),
                    else => {},
                }
            }

            fn shapes(c: Consumer, xs: anytype) !void {
                try c.put(u32, xs.len());
                var i: u32 = 0;
                while (i < xs.len()) : (i += 1) try c.shape(xs.at(i));
            }

            /// A `#bovoa`/`#bovos` array: the length, then each variant this
            /// version knows, in declaration order: tag, count, elements.
            fn bunch(c: Consumer, b: anytype) !void {
                try c.put(u32, b.len());
                try c.put(u32, 1);
                const cs = b.circle();
                try c.put(u32, cs.len());
                var i: u32 = 0;
                while (i < cs.len()) : (i += 1) try c.circle(cs.at(i));
                try c.put(u32, 2);
                const ds = b.dot();
                try c.put(u32, ds.len());
                i = 0;
                while (i < ds.len()) : (i += 1) try c.dot(ds.at(i));
                if (newer) {
                    try c.put(u32, 3);
                    const ss = b.star();
                    try c.put(u32, ss.len());
                    i = 0;
                    while (i < ss.len()) : (i += 1) try c.star(ss.at(i));
                }
            }

            fn root(c: Consumer, v: M.RootView) !void {
                try c.put(u8, v.u8());
                try c.put(i8, v.i8());
                try c.put(u16, v.u16());
                try c.put(i16, v.i16());
                try c.put(u32, v.u32());
                try c.put(i32, v.i32());
                try c.put(u64, v.u64());
                try c.put(i64, v.i64());
                try c.put(f32, v.f32());
                try c.put(f64, v.f64());
                try c.put(u8, @intFromBool(v.flag()));
                try c.put(u8, @backingInt(v.hue()));
                try c.text(v.name());
                const wide = v.wide();
                try c.put(u32, @intCast(wide.len));
                for (wide) |unit| try c.put(u16, unit);
                try c.vec(v.pos());
                for (v.fixed()) |e| try c.put(i16, e);
                try c.text(v.small());
                try c.text(v.bytes());
                const cs = v.colors();
                try c.put(u32, @intCast(cs.len));
                for (cs) |col| try c.put(u8, @backingInt(col));
                try c.points(v.soa_points());
                try c.points(v.aos_points());
                try c.items(v.soa_items());
                try c.items(v.aos_items());
                const dots = v.dots();
                try c.put(u32, dots.len());
                var i: u32 = 0;
                while (i < dots.len()) : (i += 1) try c.dot(dots.at(i));
                try c.shape(v.shape());
                try c.shapes(v.aos_shapes());
                try c.shapes(v.soa_shapes());
                try c.bunch(v.bovoa_shapes());
                try c.bunch(v.bovos_shapes());
                if (v.maybe_u32()) |x| {
                    try c.put(u8, 1);
                    try c.put(u32, x);
                } else try c.put(u8, 0);
                if (v.maybe_name()) |x| {
                    try c.put(u8, 1);
                    try c.text(x);
                } else try c.put(u8, 0);
                if (v.maybe_item()) |x| {
                    try c.put(u8, 1);
                    try c.item(x);
                } else try c.put(u8, 0);
                const lookup = v.lookup();
                try c.put(u32, lookup.len());
                i = 0;
                while (i < lookup.len()) : (i += 1) {
                    try c.text(lookup.at(i).key());
                    try c.put(u32, lookup.at(i).value());
                }
                const by_id = v.by_id();
                try c.put(u32, by_id.len());
                i = 0;
                while (i < by_id.len()) : (i += 1) {
                    try c.put(u16, by_id.at(i).key());
                    try c.item(by_id.at(i).value());
                }
                const grid = v.grid();
                try c.put(u32, grid.len());
                i = 0;
                while (i < grid.len()) : (i += 1) {
                    const row = grid.at(i);
                    try c.put(u32, @intCast(row.len));
                    for (row) |f| try c.put(f32, f);
                }
                const pair = v.pair();
                try c.put(u16, pair.f0());
                try c.text(pair.f1());
                try c.put(u16, v.hp());
                if (newer) {
                    try c.put(u8, v.level());
                    try c.put(u64, v.extra());
                    try c.items(v.more());
                }
            }
        };

        /// The canonical stream of the message in `r` (§3), after it
        /// validates, read through the checked viewers.
        pub fn stream(a: std.mem.Allocator, r: karmem.Reader) ![]const u8 {
            try M.Root.validate(r);
            var out: std.ArrayList(u8) = .empty;
            const c: Consumer = .{ .out = &out, .a = a };
            try c.root(M.RootView.root(r));
            return out.items;
        }

        /// Whether decoding the message and encoding it again gives its
        /// bytes (the writer is canonical).
        pub fn roundtrip(a: std.mem.Allocator, w: *karmem.Writer, r: karmem.Reader) !bool {
            const x = try M.Root.decode(r, a);
            try x.encode(w);
            return std.mem.eql(u8, w.bytes(), r.mem);
        }
    };
}

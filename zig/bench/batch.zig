//! The Karmem paper's serialisation benchmark (its Tables 5 and 6) in Zig:
//! write a batch of N temperature readings, and read one back, analyse it
//! (average, maximum, minimum) and write the result, with
//!
//!   raw     the program's own slice of structs: write is a copy into a
//!           buffer, read a loop over it (the floor);
//!   karmem  the generated Zig encoder (`karmem build --lang zig` of
//!           c/bench/batch/batch.km, the schema the C benchmark uses);
//!           reading in place through the checked reader (the Value column
//!           as a native `[]const f32`), and through the generated decoder;
//!   json    std.json: stringify, and parse into the same structs.
//!
//! FlatBuffers has no Zig generator; the C benchmark (c/bench/batch)
//! compares against it. For N = 10 and 10 000, natively and as a wasm32-wasi
//! module. Each case runs `rounds` samples of about a millisecond; the median
//! time per operation is printed with its ratio to Karmem's.
//!
//! Build and run: scripts/bench-batch.sh (docs/benchmarks.md, "Guests: the
//! paper's Tables 5 and 6").

const std = @import("std");
const karmem = @import("karmem");
const batch = @import("batch");

const rounds = 21;

/// The SoA columns of TemperatureReading in the generated encoder's order:
/// Timestamp i64, Value f32 (their path hashes, format.md §5.3; `main`
/// checks them against what the generated encoder writes).
const reading_columns = [_]karmem.Column{
    .{ .hash = 0x4b95f515, .size = 8 },
    .{ .hash = 0xfb69b604, .size = 4 },
};
/// TemperatureBatch.Readings: the array reference at byte 4 of the table.
const readings_at = 4;

const Analysis = struct { average: f32, max: f32, min: f32 };

/// The shape std.json reads and writes: the same fields as the schema.
const JsonBatch = struct { readings: []const JsonReading };
const JsonReading = struct { timestamp: i64, value: f32 };

fn analyse(values: anytype) Analysis {
    if (values.len == 0) return .{ .average = 0, .max = 0, .min = 0 };
    var a: Analysis = .{ .average = 0, .max = values[0], .min = values[0] };
    var sum: f32 = 0;
    for (values) |v| {
        sum += v;
        a.max = if (v > a.max) v else a.max;
        a.min = if (v < a.min) v else a.min;
    }
    a.average = sum / @as(f32, @floatFromInt(values.len));
    return a;
}

const Bench = struct {
    io: std.Io,
    gpa: std.mem.Allocator,
    readings: []batch.TemperatureReading,
    json_readings: []JsonReading,
    values: []f32,
    w: karmem.Writer,
    result: karmem.Writer,
    raw: []batch.TemperatureReading,
    json_out: std.Io.Writer.Allocating,
    arena: std.heap.ArenaAllocator,
    /// The analysis the last read found (checked before timing).
    last: Analysis = .{ .average = 0, .max = 0, .min = 0 },
    sink: usize = 0,

    fn nowNs(b: *Bench) i96 {
        return std.Io.Clock.awake.now(b.io).nanoseconds;
    }

    /// The median nanoseconds per call of `f(b, arg)`.
    fn measure(b: *Bench, comptime f: anytype, arg: anytype) f64 {
        var iters: usize = 1;
        while (true) {
            const t0 = b.nowNs();
            for (0..iters) |_| b.sink +%= f(b, arg);
            if (b.nowNs() - t0 > std.time.ns_per_ms or iters > 1 << 24) break;
            iters *= 2;
        }
        var samples: [rounds]f64 = undefined;
        for (&samples) |*s| {
            const t0 = b.nowNs();
            for (0..iters) |_| b.sink +%= f(b, arg);
            s.* = @as(f64, @floatFromInt(b.nowNs() - t0)) / @as(f64, @floatFromInt(iters));
        }
        std.mem.sort(f64, &samples, {}, std.sort.asc(f64));
        return samples[rounds / 2];
    }

    // ---- write ----

    fn rawWrite(b: *Bench, n: usize) usize {
        @memcpy(b.raw[0..n], b.readings[0..n]);
        return n * @sizeOf(batch.TemperatureReading);
    }

    fn karmemWrite(b: *Bench, n: usize) usize {
        const x: batch.TemperatureBatch = .{ .readings = b.readings[0..n] };
        x.encode(&b.w) catch return 0;
        return b.w.len();
    }

    fn jsonWrite(b: *Bench, n: usize) usize {
        b.json_out.clearRetainingCapacity();
        std.json.Stringify.value(JsonBatch{ .readings = b.json_readings[0..n] }, .{}, &b.json_out.writer) catch return 0;
        return b.json_out.written().len;
    }

    // ---- read, analyse, write the result ----

    fn karmemResult(b: *Bench, a: Analysis) usize {
        b.last = a;
        const x: batch.AnalysisResult = .{ .average_temperature = a.average, .max_temperature = a.max, .min_temperature = a.min };
        x.encode(&b.result) catch return 0;
        return b.result.len();
    }

    fn rawRead(b: *Bench, n: usize) usize {
        var sum: f32 = 0;
        var a: Analysis = .{ .average = 0, .max = b.raw[0].value, .min = b.raw[0].value };
        for (b.raw[0..n]) |r| {
            sum += r.value;
            a.max = if (r.value > a.max) r.value else a.max;
            a.min = if (r.value < a.min) r.value else a.min;
        }
        a.average = sum / @as(f32, @floatFromInt(n));
        b.last = a;
        return @sizeOf(Analysis);
    }

    fn karmemRead(b: *Bench, msg: []const u8) usize {
        const r = karmem.Reader.open(msg) catch return 0;
        const a = r.fieldArray(r.root(), readings_at, 0, karmem.no_limit);
        const cols = r.soa(&reading_columns, a);
        const values = r.slice(f32, cols[1], a.len);
        return b.karmemResult(analyse(values));
    }

    fn karmemDecode(b: *Bench, msg: []const u8) usize {
        _ = b.arena.reset(.retain_capacity);
        const r = karmem.Reader.open(msg) catch return 0;
        const x = batch.TemperatureBatch.decode(r, b.arena.allocator()) catch return 0;
        for (x.readings, 0..) |reading, i| b.values[i] = reading.value;
        return b.karmemResult(analyse(b.values[0..x.readings.len]));
    }

    fn jsonRead(b: *Bench, text: []const u8) usize {
        _ = b.arena.reset(.retain_capacity);
        const x = std.json.parseFromSliceLeaky(JsonBatch, b.arena.allocator(), text, .{}) catch return 0;
        for (x.readings, 0..) |reading, i| b.values[i] = reading.value;
        const a = analyse(b.values[0..x.readings.len]);
        b.last = a;
        b.json_out.clearRetainingCapacity();
        std.json.Stringify.value(.{ .average_temperature = a.average, .max_temperature = a.max, .min_temperature = a.min }, .{}, &b.json_out.writer) catch return 0;
        return b.json_out.written().len;
    }
};

fn printRow(name: []const u8, ns: f64, karmem_ns: f64, bytes: usize) void {
    std.debug.print("  {s:<28} {d:>14.1} {d:>9.2}x {d:>10}\n", .{ name, ns, ns / karmem_ns, bytes });
}

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    const max_n = 10000;
    var b: Bench = .{
        .io = init.io,
        .gpa = gpa,
        .readings = try gpa.alloc(batch.TemperatureReading, max_n),
        .json_readings = try gpa.alloc(JsonReading, max_n),
        .values = try gpa.alloc(f32, max_n),
        .w = try .init(gpa, 1 << 16),
        .result = try .init(gpa, 64),
        .raw = try gpa.alloc(batch.TemperatureReading, max_n),
        .json_out = .init(gpa),
        .arena = .init(gpa),
    };
    var seed: u32 = 2026;
    for (b.readings, b.json_readings, 0..) |*r, *j, i| {
        seed = seed *% 1664525 +% 1013904223;
        r.* = .{ .timestamp = 1764201600000 + @as(i64, @intCast(i)) * 1000, .value = 15.0 + @as(f32, @floatFromInt(seed >> 8)) / (1 << 24) * 20.0 };
        j.* = .{ .timestamp = r.timestamp, .value = r.value };
    }

    for ([_]usize{ 10, 10000 }) |n| {
        const karmem_w = b.measure(Bench.karmemWrite, n);
        std.debug.print("\nwrite, {d} readings\n  {s:<28} {s:>14} {s:>10} {s:>10}\n", .{ n, "", "ns/op", "vs karmem", "bytes" });
        printRow("raw struct (memcpy)", b.measure(Bench.rawWrite, n), karmem_w, b.rawWrite(n));
        printRow("karmem", karmem_w, karmem_w, b.karmemWrite(n));
        printRow("json (std.json)", b.measure(Bench.jsonWrite, n), karmem_w, b.jsonWrite(n));

        // The messages read, made before timing (the Karmem one 8-aligned).
        _ = b.karmemWrite(n);
        const msg = try gpa.alignedAlloc(u8, .@"8", b.w.len());
        defer gpa.free(msg);
        @memcpy(msg, b.w.bytes());
        _ = b.jsonWrite(n);
        const text = try gpa.dupe(u8, b.json_out.written());
        defer gpa.free(text);
        _ = b.rawWrite(n);

        // Every reader must find the same analysis before it is timed; the
        // column hashes above are checked by this too.
        _ = b.rawRead(n);
        const reference = b.last;
        try check("karmem (checked, in place)", &b, Bench.karmemRead, msg, reference);
        try check("karmem (decode to objects)", &b, Bench.karmemDecode, msg, reference);
        try check("json (std.json)", &b, Bench.jsonRead, text, reference);

        const karmem_r = b.measure(Bench.karmemRead, msg);
        std.debug.print("\nread + analyse + write the result, {d} readings\n  {s:<28} {s:>14} {s:>10} {s:>10}\n", .{ n, "", "ns/op", "vs karmem", "bytes" });
        printRow("raw struct", b.measure(Bench.rawRead, n), karmem_r, n * @sizeOf(batch.TemperatureReading));
        printRow("karmem (checked, in place)", karmem_r, karmem_r, msg.len);
        printRow("karmem (decode to objects)", b.measure(Bench.karmemDecode, msg), karmem_r, msg.len);
        printRow("json (std.json)", b.measure(Bench.jsonRead, text), karmem_r, text.len);
    }
    if (b.sink == 0) std.debug.print("(no work)\n", .{});
}

/// Runs `f` once and compares the analysis it found with `want` (JSON's
/// decimal text may round the average's last bit).
fn check(name: []const u8, b: *Bench, comptime f: anytype, arg: anytype, want: Analysis) !void {
    b.last = .{ .average = 0, .max = 0, .min = 0 };
    const ok = f(b, arg) != 0 and b.last.max == want.max and b.last.min == want.min and
        @abs(b.last.average - want.average) <= 1e-3 * @abs(want.average);
    if (!ok) {
        std.debug.print("{s}: wrong analysis {any}, want {any}\n", .{ name, b.last, want });
        return error.WrongAnalysis;
    }
}

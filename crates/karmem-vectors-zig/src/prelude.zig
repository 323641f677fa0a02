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
        // A trusted viewer's setters are a compile error by design
        // (`karmem.views.checkEditable`): only the checked ones compile.
        if (comptime isTrusted(T) and isSetter(name)) continue;
        const x = @field(T, name);
        if (@TypeOf(x) == type) {
            if (x != T and @typeInfo(x) == .@"struct") refViews(x);
        } else _ = &x;
    }
}

fn isTrusted(comptime T: type) bool {
    return @typeInfo(T) == .@"struct" and @hasField(T, "reader") and @FieldType(T, "reader") == karmem.Trusted;
}

/// `setF`, `editF`, `setFLen`: camelCase, where accessors are snake_case.
fn isSetter(comptime name: []const u8) bool {
    inline for (.{ "set", "edit" }) |prefix| {
        if (name.len > prefix.len and std.mem.startsWith(u8, name, prefix) and std.ascii.isUpper(name[prefix.len])) return true;
    }
    return false;
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

// ---- In-place edits (docs/zig.md, "Editing in place") -------------------

/// One message's pass over its settable fields through the generated
/// setters of the checked viewers (the `{alias}_x{id}` functions, one per
/// table, walk the root and the tables it holds).
const EditRun = struct {
    gpa: std.mem.Allocator,
    e: *karmem.Editor,
    /// The message before any edit: restored after each field.
    original: []const u8,
    /// Whether the message validated before the edits: then it must after each.
    valid: bool,
    validate: *const fn (karmem.Reader) bool,
    /// Not a hostile case: a Karmem writer's message (`failStrict`).
    strict: bool,
    /// Fields set and read back; setters refused for a field the message
    /// does not hold; lengths refused past a capacity or a limit.
    set: usize = 0,
    absent: usize = 0,
    beyond: usize = 0,
    problem: ?[]const u8 = null,
    field: []const u8 = "",

    fn fail(run: *EditRun, field: []const u8, problem: []const u8) void {
        if (run.problem != null) return;
        run.problem = problem;
        run.field = field;
    }

    /// A problem that only a message whose parts do not overlap rules
    /// out. A hostile writer's message may be valid with an array over
    /// its own table (hostile/empty_arrays_at): a write there changes
    /// what overlaps it, so on hostile messages only the refusals and the
    /// absence of crashes are checked.
    fn failStrict(run: *EditRun, field: []const u8, problem: []const u8) void {
        if (run.strict) run.fail(field, problem);
    }

    fn restore(run: *EditRun) void {
        @memcpy(run.e.mem, run.original);
    }

    fn unchanged(run: *EditRun) bool {
        return std.mem.eql(u8, run.e.mem, run.original);
    }

    /// Whether the bytes that differ from the original all lie in
    /// `[from, to)` or `[from2, to2)`.
    fn changedOnlyIn(run: *EditRun, from: usize, to: usize, from2: usize, to2: usize) bool {
        for (run.e.mem, run.original, 0..) |a, b, i| {
            if (a != b and (i < from or i >= to) and (i < from2 or i >= to2)) return false;
        }
        return true;
    }

    fn stillValid(run: *EditRun) bool {
        return !run.valid or run.validate(run.e.reader);
    }
};

fn validator(comptime T: type) *const fn (karmem.Reader) bool {
    return struct {
        fn f(r: karmem.Reader) bool {
            T.validate(r) catch return false;
            return true;
        }
    }.f;
}

/// A value other than `x` (bits, for floats).
fn other(comptime T: type, x: T) T {
    return switch (@typeInfo(T)) {
        .bool => !x,
        .@"enum" => @fromBackingInt(@backingInt(x) +% 1),
        .int => x +% 1,
        .float => @bitCast(@as(karmem.Bits(T), @bitCast(x)) ^ 1),
        else => @compileError("not a scalar: " ++ @typeName(T)),
    };
}

fn sameBits(a: anytype, b: @TypeOf(a)) bool {
    return std.mem.eql(u8, std.mem.asBytes(&a), std.mem.asBytes(&b));
}

/// A column element and the SoA item's read of it (`bool` columns are bytes).
fn sameElem(c: anytype, item: anytype) bool {
    if (@TypeOf(item) == bool) return (c != 0) == item;
    return sameBits(c, item);
}

/// SoA columns read as native slices (and compared with the items).
var columns_read: usize = 0;

/// Sets scalar field `name` of the table `v` views to another value
/// through `setter`: read back through the viewer, only its bytes
/// changed, the message still valid, and the old value set back gives the
/// original message. A field the message does not hold is refused and
/// changes nothing.
fn editScalar(run: *EditRun, v: anytype, comptime name: []const u8, comptime setter: []const u8, comptime offset: u32, comptime T: type) void {
    const V = @TypeOf(v);
    const old: T = @field(V, name)(v);
    const new = other(T, old);
    const present = v.table.has(offset, @sizeOf(T));
    if (@field(V, setter)(v, run.e, new)) |_| {
        if (!present) return run.fail(name, "set a field the message does not hold");
    } else |err| {
        if (present) return run.fail(name, @errorName(err));
        if (!run.unchanged()) return run.fail(name, "a refused set changed the message");
        run.absent += 1;
        return;
    }
    defer run.restore();
    run.set += 1;
    if (!sameBits(@field(V, name)(v), new)) return run.fail(name, "reads back another value");
    const at = v.table.offset + offset;
    if (!run.changedOnlyIn(at, at + @sizeOf(T), 0, 0)) return run.fail(name, "changed bytes outside the field");
    if (!run.stillValid()) return run.failStrict(name, "no longer validates");
    if (run.valid) {
        @field(V, setter)(v, run.e, old) catch return run.fail(name, "cannot set the old value back");
        if (!run.unchanged()) return run.fail(name, "the old value set back is not the original message");
    }
}

/// The plain array field `name` through `edit` and `set_len`: its
/// elements changed in place and read back through the viewer, its
/// length shrunk (the dropped element zeroed) and grown back (the exposed
/// one zero), each change only where it must be and the message still
/// valid; lengths past the capacity or the limit refused, changing
/// nothing. A field the message does not hold gives no elements and a
/// refused length.
fn editArray(run: *EditRun, v: anytype, comptime name: []const u8, comptime edit: []const u8, comptime set_len: []const u8, comptime offset: u32, comptime E: type, comptime is_bool: bool, limit: u32) !void {
    const V = @TypeOf(v);
    const present = v.table.has(offset, karmem.array_ref_size);
    const view = @field(V, name)(v);
    const elems = @field(V, edit)(v, run.e);
    if (!present) {
        if (elems.len != 0) return run.fail(name, "edits a field the message does not hold");
        if (@field(V, set_len)(v, run.e, 0)) |_| {
            return run.fail(name, "set the length of a field the message does not hold");
        } else |err| if (err != error.MalformedTable) return run.fail(name, @errorName(err));
        if (!run.unchanged()) return run.fail(name, "a refused length changed the message");
        run.absent += 1;
        return;
    }
    if (elems.len != view.len or (elems.len > 0 and @intFromPtr(elems.ptr) != @intFromPtr(view.ptr)))
        return run.fail(name, "the writable elements are not the viewed ones");
    run.set += 1;
    const at = v.table.offset + offset;
    const size: u32 = @sizeOf(E);
    // Past the capacity (and past a `[<N]T` limit): refused, nothing changed.
    const cap = run.e.reader.array(at, size, karmem.no_limit).cap;
    const beyond = [_]u32{ cap +| 1, limit +| 1 };
    for (beyond[0..if (limit == karmem.no_limit) 1 else 2]) |n| {
        if (@field(V, set_len)(v, run.e, n)) |_| {
            run.restore();
            return run.fail(name, "a length past the capacity or limit was set");
        } else |err| if (run.valid and err != error.TooLarge) return run.fail(name, @errorName(err));
        if (!run.unchanged()) return run.fail(name, "a refused length changed the message");
        run.beyond += 1;
    }
    // Every element changed in place, read back through the viewer.
    const start: usize = if (view.len > 0) @intFromPtr(view.ptr) - @intFromPtr(run.e.mem.ptr) else 0;
    const old = try run.gpa.dupe(E, view);
    defer run.gpa.free(old);
    defer run.restore();
    for (elems) |*x| x.* = if (is_bool) @intFromBool(x.* == 0) else other(E, x.*);
    if (!run.changedOnlyIn(start, start + old.len * size, 0, 0)) return run.fail(name, "changed bytes outside the elements");
    const back = @field(V, name)(v);
    if (back.len != old.len) return run.failStrict(name, "the length changed");
    for (back, old) |b, o| {
        if (!sameBits(b, if (is_bool) @as(u8, @intFromBool(o == 0)) else other(E, o))) return run.failStrict(name, "reads back other elements");
    }
    if (!run.stillValid()) return run.failStrict(name, "no longer validates with other elements");
    run.restore();
    if (old.len == 0) return;
    // Shrink by one: the dropped element zeroed; grow back: it reads zero.
    const n: u32 = @intCast(old.len);
    const last = start + (n - 1) * size;
    @field(V, set_len)(v, run.e, n - 1) catch |err| return run.failStrict(name, @errorName(err));
    if (!run.changedOnlyIn(at + 4, at + 8, last, last + size)) return run.fail(name, "shrinking changed other bytes");
    if (@field(V, name)(v).len != n - 1) return run.failStrict(name, "the length did not shrink");
    if (!std.mem.allEqual(u8, run.e.mem[last..][0..size], 0)) return run.failStrict(name, "the dropped element is not zeroed");
    if (!run.stillValid()) return run.failStrict(name, "no longer validates shrunk");
    @field(V, set_len)(v, run.e, n) catch |err| return run.failStrict(name, @errorName(err));
    const grown = @field(V, name)(v);
    if (grown.len != n or !sameBits(grown[n - 1], std.mem.zeroes(E))) return run.failStrict(name, "the exposed element is not zero");
    if (!run.changedOnlyIn(last, last + size, 0, 0)) return run.failStrict(name, "growing back changed other bytes");
    if (!run.stillValid()) return run.failStrict(name, "no longer validates grown back");
}

/// Runs `edit` (a table root's `{alias}_x{id}`, or `noEdits`) over a copy
/// of the message opened by a `karmem.Editor` (`strict`: not a hostile
/// case, see `failStrict`); reported as `edit<TAB>ok S A
/// B` (fields set, absent ones refused, lengths refused) or the problem.
fn runEdits(gpa: std.mem.Allocator, id: []const u8, comptime T: type, comptime View: type, comptime edit: anytype, strict: bool, bytes: []const u8) !void {
    const message = try karmem.alignedCopy(gpa, bytes);
    defer gpa.free(message);
    var e = karmem.Editor.open(message) catch return;
    const original = try gpa.dupe(u8, e.mem);
    defer gpa.free(original);
    var run: EditRun = .{ .gpa = gpa, .e = &e, .original = original, .valid = false, .validate = validator(T), .strict = strict };
    run.valid = run.validate(e.reader);
    try edit(&run, View.root(e.reader), 0);
    const text = if (run.problem) |p|
        try std.fmt.allocPrint(gpa, "{s}: {s}", .{ run.field, p })
    else
        try std.fmt.allocPrint(gpa, "ok {d} {d} {d}", .{ run.set, run.absent, run.beyond });
    defer gpa.free(text);
    report(id, "edit", text);
}

/// The edits of a root that is not a table (an inline struct has no setters).
fn noEdits(run: *EditRun, v: anytype, depth: u32) anyerror!void {
    _ = run;
    _ = v;
    _ = depth;
}

/// How many SoA columns were read as native slices, as `columns<TAB>read<TAB>N`.
fn reportColumns(gpa: std.mem.Allocator) !void {
    const text = try std.fmt.allocPrint(gpa, "{d}", .{columns_read});
    defer gpa.free(text);
    report("columns", "read", text);
}

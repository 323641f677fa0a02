//! The Zig side of the Karmem guest ABI (docs/abi.md): the exports a host
//! calls (`karmem_init`, `karmem_alloc`, `karmem_dispatch`, ...), the
//! `karmem` imports a guest calls (`call`, `take`, `result`, ...), the
//! table of shared-region windows and the module descriptor.
//!
//! A module is described at compile time: a `Module` value lists the
//! interfaces it exports (each with the handlers `karmem build --lang
//! zig-guest` generates around the author's functions) and those it
//! imports; `exportAbi(module)` in a `comptime` block of the root file
//! exports the ABI functions. Build for `wasm32-freestanding` (no libc, no
//! WASI): docs/zig.md, "Guests".
//!
//! Memory: windows (64 KiB aligned, docs/abi.md §6) are whole pages taken
//! with `memory.grow` and never given back. Everything else — the argument
//! memory the host asks for with `karmem_alloc`, results, the messages of
//! outgoing calls, callees' replies — comes from one bump arena that is
//! emptied when a dispatch returns (`scratch()` hands it to guest code).
//! Nothing else allocates.
//!
//! Natively (tests, `zig build test`) the package builds, the arena runs
//! over a static buffer and every call into the host fails as if no
//! exporter were bound.

const std = @import("std");
const builtin = @import("builtin");
const km = @import("karmem.zig");

/// The descriptor types of docs/abi.km (`karmem build --lang zig`).
pub const abi = @import("abi.zig");

pub const Interface = abi.InterfaceDesc;
pub const Memory = abi.MemoryDesc;
pub const Function = abi.FunctionDesc;
pub const Param = abi.ParamDesc;
pub const Access = abi.Access;
pub const Pattern = abi.Pattern;

/// The version of docs/abi.md this library follows.
pub const abi_version = 1;

/// How many callees one `call` can report: the size of the `out` array
/// handed to the host (docs/abi.md §5.3). A fan-out reaching more callees
/// reports the first ones and fails with `error.TooManyCallees`.
pub const max_callees = 256;

const in_host = builtin.cpu.arch.isWasm();

/// A dispatch status (docs/abi.md §5.2) or, in a `Reply`, one of the
/// host's failure statuses (§5.3). Non-exhaustive: a newer host's status
/// is kept.
pub const Status = enum(u32) {
    ok = 0,
    unknown_function = 1,
    bad_argument = 2,
    application_error = 3,
    trap = 16,
    timeout = 17,
    memory_limit = 18,
    read_only_violation = 19,
    suspended = 20,
    budget_exceeded = 21,
    _,

    /// The ABI's name of the status (`APPLICATION_ERROR`), or null for a
    /// status this library does not know.
    pub fn name(s: Status) ?[]const u8 {
        return switch (s) {
            .ok => "OK",
            .unknown_function => "UNKNOWN_FUNCTION",
            .bad_argument => "BAD_ARGUMENT",
            .application_error => "APPLICATION_ERROR",
            .trap => "TRAP",
            .timeout => "TIMEOUT",
            .memory_limit => "MEMORY_LIMIT",
            .read_only_violation => "READ_ONLY_VIOLATION",
            .suspended => "SUSPENDED",
            .budget_exceeded => "BUDGET_EXCEEDED",
            _ => null,
        };
    }

    /// `{f}` prints the ABI's name, or `status N`.
    pub fn format(s: Status, w: *std.Io.Writer) std.Io.Writer.Error!void {
        if (s.name()) |n| return w.writeAll(n);
        return w.print("status {d}", .{@backingInt(s)});
    }
};

// ---------------------------------------------------------------------------
// Memory

/// A bump arena over whole wasm pages. `reset` empties it; `keep` makes
/// what it holds permanent (the descriptor, encoded at start-up). When the
/// memory grown for it is not contiguous with its end (a window was mapped
/// in between, which happens once, at start-up), it continues in the new
/// pages and the rest of the old ones is not used again.
const Arena = struct {
    base: usize = 0,
    pos: usize = 0,
    end: usize = 0,

    fn alloc(a: *Arena, len: usize, alignment: usize) ?[*]u8 {
        const start = std.mem.alignForward(usize, a.pos, alignment);
        if (start >= a.pos and len <= a.end -| start) {
            a.pos = start + len;
            return @ptrFromInt(start);
        }
        const need = std.math.add(usize, len, alignment) catch return null;
        const pages_start = pages.grow(need) orelse return null;
        if (pages_start.start != a.end or a.end == 0) {
            a.base = pages_start.start;
            a.pos = pages_start.start;
        }
        a.end = pages_start.end;
        const at = std.mem.alignForward(usize, a.pos, alignment);
        if (len > a.end -| at) return null;
        a.pos = at + len;
        return @ptrFromInt(at);
    }

    /// Extends the last allocation in place when there is room.
    fn resize(a: *Arena, memory: []u8, new_len: usize) bool {
        const start = @intFromPtr(memory.ptr);
        if (start + memory.len != a.pos) return new_len <= memory.len;
        if (new_len > a.end - start) return false;
        a.pos = start + new_len;
        return true;
    }

    fn reset(a: *Arena) void {
        a.pos = a.base;
    }

    fn keep(a: *Arena) void {
        a.base = a.pos;
    }

    fn allocator(a: *Arena) std.mem.Allocator {
        return .{ .ptr = a, .vtable = &arena_vtable };
    }
};

const arena_vtable: std.mem.Allocator.VTable = .{
    .alloc = arenaAlloc,
    .resize = arenaResize,
    .remap = arenaRemap,
    .free = arenaFree,
};

fn arenaAlloc(ctx: *anyopaque, len: usize, alignment: std.mem.Alignment, _: usize) ?[*]u8 {
    const a: *Arena = @ptrCast(@alignCast(ctx));
    return a.alloc(len, alignment.toByteUnits());
}

fn arenaResize(ctx: *anyopaque, memory: []u8, _: std.mem.Alignment, new_len: usize, _: usize) bool {
    const a: *Arena = @ptrCast(@alignCast(ctx));
    return a.resize(memory, new_len);
}

fn arenaRemap(ctx: *anyopaque, memory: []u8, alignment: std.mem.Alignment, new_len: usize, ret: usize) ?[*]u8 {
    return if (arenaResize(ctx, memory, alignment, new_len, ret)) memory.ptr else null;
}

fn arenaFree(_: *anyopaque, _: []u8, _: std.mem.Alignment, _: usize) void {}

const page_size = 65536;

/// Where the pages come from: `memory.grow` in a host, a static buffer
/// natively.
const pages = if (in_host) struct {
    const Span = struct { start: usize, end: usize };
    fn grow(bytes: usize) ?Span {
        const n = std.math.divCeil(usize, bytes, page_size) catch return null;
        // The last page ends at 2^32, which a wasm32 usize cannot hold:
        // that page is never used.
        if (n >= 65536) return null;
        const old = @wasmMemoryGrow(0, n);
        if (old < 0) return null;
        const start = @as(usize, @intCast(old)) * page_size;
        const end = std.math.add(usize, start, n * page_size) catch return null;
        return .{ .start = start, .end = end };
    }
} else struct {
    const Span = struct { start: usize, end: usize };
    var buffer: [16 * page_size]u8 align(page_size) = undefined;
    var used: usize = 0;
    fn grow(bytes: usize) ?Span {
        const n = std.math.divCeil(usize, bytes, page_size) catch return null;
        if (n * page_size > buffer.len - used) return null;
        const start = @intFromPtr(&buffer) + used;
        used += n * page_size;
        return .{ .start = start, .end = start + n * page_size };
    }
};

var arena: Arena = .{};

/// The per-dispatch allocator: everything allocated from it is freed when
/// the current dispatch returns (free itself does nothing). Decode
/// arguments and replies with it; never keep what it returns past the
/// dispatch.
pub fn scratch() std.mem.Allocator {
    return arena.allocator();
}

/// `karmem_alloc`: windows (64 KiB alignment, docs/abi.md §2, §6) are fresh
/// pages, kept forever; everything else is dispatch memory.
fn allocate(size: u32, alignment: u32) u32 {
    if (alignment == 0 or !std.math.isPowerOfTwo(alignment) or alignment > page_size) return 0;
    // A distinct, non-zero address even for an empty block (0 is "out of
    // memory").
    const len = @max(size, 1);
    if (alignment == page_size) {
        const span = pages.grow(len) orelse return 0;
        return addr(span.start);
    }
    const p = arena.alloc(len, alignment) orelse return 0;
    return addr(@intFromPtr(p));
}

fn addr(p: usize) u32 {
    return @truncate(p);
}

// ---------------------------------------------------------------------------
// The module

/// One exported interface: its descriptor and one handler per function,
/// in declaration order. Generated code builds it (`<Interface>.exporter`).
pub const Export = struct {
    interface: Interface,
    handlers: []const Handler,
};

/// Implements one exported function. `args` holds one message per
/// declared parameter (checked by the caller of the handler), each 8-byte
/// aligned or empty; the returned bytes (null: no result) are reported as
/// the result. A failure's message is set with `fail` or `badArgument`
/// before the error is returned.
pub const Handler = *const fn (args: []const []align(8) const u8) HandlerError!?[]const u8;

/// How a handler fails: `BadArgument` ends the dispatch with BAD_ARGUMENT,
/// `ApplicationError` with APPLICATION_ERROR (docs/abi.md §5.2).
pub const HandlerError = error{ BadArgument, ApplicationError };

/// What a module exports and imports, known at compile time.
pub const Module = struct {
    exports: []const Export = &.{},
    imports: []const Interface = &.{},

    /// The index of interface `name` in `imports` (the high half of its
    /// import function ids, docs/abi.md §3); a compile error when the
    /// module does not import it.
    pub fn importIndex(comptime m: Module, comptime name: []const u8) u16 {
        for (m.imports, 0..) |i, k| {
            if (std.mem.eql(u8, i.name, name)) return k;
        }
        @compileError("the module does not import " ++ name ++ ": list its interface in .imports");
    }

    /// The regions of every interface, first use first (exports, then
    /// imports): the `index` of `karmem_bind_memory`.
    pub fn memories(comptime m: Module) []const Memory {
        comptime {
            var out: []const Memory = &.{};
            for (m.exports) |e| out = addMemories(out, e.interface);
            for (m.imports) |i| out = addMemories(out, i);
            return out;
        }
    }

    /// The module descriptor (docs/abi.md §3).
    pub fn descriptor(comptime m: Module) abi.ModuleDesc {
        comptime {
            var exports: [m.exports.len]Interface = undefined;
            for (m.exports, &exports) |e, *d| d.* = e.interface;
            const frozen = exports;
            return .{ .memories = m.memories(), .exports = &frozen, .imports = m.imports };
        }
    }

    fn check(comptime m: Module) void {
        comptime {
            if (m.exports.len > 0xffff or m.imports.len > 0xffff) @compileError("too many interfaces");
            for (m.exports, 0..) |e, k| {
                if (e.handlers.len != e.interface.functions.len)
                    @compileError(e.interface.name ++ ": one handler per function");
                for (m.exports[0..k]) |o| {
                    if (std.mem.eql(u8, o.interface.name, e.interface.name))
                        @compileError(e.interface.name ++ " exported twice");
                }
            }
            for (m.imports, 0..) |i, k| {
                for (m.imports[0..k]) |o| {
                    if (std.mem.eql(u8, o.name, i.name)) @compileError(i.name ++ " imported twice");
                }
            }
        }
    }
};

fn addMemories(comptime have: []const Memory, comptime i: Interface) []const Memory {
    var out = have;
    outer: for (i.memories) |mem| {
        for (out) |h| {
            if (std.mem.eql(u8, h.name, mem.name)) continue :outer;
        }
        out = out ++ &[_]Memory{mem};
    }
    return out;
}

/// The running module's state: set by `karmem_init`.
const State = struct {
    exports: []const Export,
    memories: []const Memory,
    windows: [][]u8,
    /// By region index: what `karmem_bind_access` said (`.none` until then).
    access: []Access,
    encoded: []const u8 = &.{},
};

var self: ?State = null;

/// Registers `m` and encodes its descriptor into permanent memory.
fn register(comptime m: Module) bool {
    const Windows = struct {
        var windows: [m.memories().len][]u8 = @splat(&.{});
        var access: [m.memories().len]Access = @splat(.none);
    };
    const desc = comptime m.descriptor();
    var w = km.Writer.init(arena.allocator(), 1024) catch return false;
    desc.encode(&w) catch return false;
    // The descriptor stays where it was encoded: keep it out of the
    // arena's reach.
    arena.keep();
    self = .{ .exports = m.exports, .memories = desc.memories, .windows = &Windows.windows, .access = &Windows.access, .encoded = w.bytes() };
    return true;
}

/// `karmem_bind_memory`: false for an index the module did not declare.
fn bind(index: u32, win: []u8) bool {
    const s = &(self orelse return false);
    if (index >= s.windows.len) return false;
    s.windows[index] = win;
    return true;
}

/// `karmem_bind_access`: false for an index the module did not declare or
/// an access that is not one.
fn bindAccess(index: u32, access: u32) bool {
    const s = &(self orelse return false);
    if (index >= s.access.len or access > @backingInt(Access.read_write)) return false;
    s.access[index] = @fromBackingInt(@intCast(access));
    return true;
}

/// This module's access to region `name` as the host granted it
/// (`karmem_bind_access`, docs/abi.md §2): it may be less than the
/// interface declares. `.none` when the module has no window of the
/// region, or the host did not say.
pub fn windowAccess(name: []const u8) Access {
    const s = self orelse return .none;
    for (s.memories, s.windows, s.access) |m, win, a| {
        if (std.mem.eql(u8, m.name, name)) return if (win.len > 0) a else .none;
    }
    return .none;
}

/// The window of region `name` (qualified: `package.memory`) in this
/// module's memory: empty when the module has no access to it, or before
/// the host bound it. Writing into a read-only window fails the current
/// call (READ_ONLY_VIOLATION). Generated code has one accessor per region.
pub fn window(name: []const u8) []u8 {
    const s = self orelse return &.{};
    for (s.memories, s.windows) |m, win| {
        if (std.mem.eql(u8, m.name, name)) return win;
    }
    return &.{};
}

/// Whether `bytes` lies inside the window of region `name`.
pub fn inWindow(name: []const u8, bytes: []const u8) bool {
    const win = window(name);
    const lo = @intFromPtr(win.ptr);
    const at = @intFromPtr(bytes.ptr);
    return win.len > 0 and at >= lo and bytes.len <= win.len and at - lo <= win.len - bytes.len;
}

/// The offset of `bytes` within the window of region `name`, null when it
/// is not inside it.
pub fn offsetIn(name: []const u8, bytes: []const u8) ?u32 {
    if (!inWindow(name, bytes)) return null;
    return @intCast(@intFromPtr(bytes.ptr) - @intFromPtr(window(name).ptr));
}

// ---------------------------------------------------------------------------
// Dispatch

/// The message of the current dispatch's failure (set by `fail`).
var failure: []const u8 = "";
var failure_buffer: [256]u8 = undefined;

/// Sets the current dispatch's error message and returns
/// `error.ApplicationError`: `return guest.fail("no such key: {s}", .{k});`.
/// The text lives in dispatch memory (a short fixed buffer when that is
/// exhausted, truncated).
pub fn fail(comptime fmt: []const u8, args: anytype) error{ApplicationError} {
    setFailure(fmt, args);
    return error.ApplicationError;
}

/// `fail`, ending the dispatch with BAD_ARGUMENT.
pub fn badArgument(comptime fmt: []const u8, args: anytype) error{BadArgument} {
    setFailure(fmt, args);
    return error.BadArgument;
}

fn setFailure(comptime fmt: []const u8, args: anytype) void {
    failure = std.fmt.allocPrint(scratch(), fmt, args) catch
        std.fmt.bufPrint(&failure_buffer, fmt, args) catch &failure_buffer;
}

/// Turns an author's error into the handler's: `error.BadArgument` stays
/// one, every other error is an application error whose message is the
/// one `fail` set, else the error's name.
pub fn failed(err: anyerror) HandlerError {
    if (failure.len == 0) failure = @errorName(err);
    if (err == error.BadArgument) return error.BadArgument;
    return error.ApplicationError;
}

/// The payload of an author's function's return type.
pub fn Payload(comptime T: type) type {
    return switch (@typeInfo(T)) {
        .error_union => |e| e.payload,
        else => T,
    };
}

/// What an author's function returned, its error (if it can return one)
/// made a handler error by `failed`.
pub inline fn settle(x: anytype) HandlerError!Payload(@TypeOf(x)) {
    if (@typeInfo(@TypeOf(x)) == .error_union) return x catch |err| failed(err);
    return x;
}

/// A message of type `T` (a generated struct), validated, read in place:
/// an argument (in memory the host wrote for this dispatch, or in a
/// region's window) or a callee's reply. `bytes` is empty for the ABI's
/// absent value, which reads as `T`'s defaults. Never keep it past the
/// dispatch.
pub fn Arg(comptime T: type) type {
    return struct {
        const Self = @This();

        bytes: []align(8) const u8 = &.{},
        reader: km.Reader = .empty,
        /// The message lies in a region's window (a region-bound argument
        /// or result), which may change after validation: `view` refuses
        /// it, `checkedView` reads it.
        shared: bool = false,

        /// Opens and validates `bytes` as a `T` message.
        pub fn open(bytes: []align(8) const u8) !Self {
            if (bytes.len == 0) return .{};
            const r = try km.Reader.open(bytes);
            try T.validate(r);
            return .{ .bytes = bytes, .reader = r };
        }

        /// The trusted viewer of the message (`T.ViewOf(karmem.Trusted)`,
        /// docs/zig.md "Viewers"): `open` validated it, so its reads skip
        /// the checks the validation made. The absent value views an empty
        /// message (every field at its default). Only for a message that
        /// nothing changes while the viewer is in use, an argument or a
        /// result copied into dispatch memory: one in a region's window
        /// (`shared`) panics here, read it with `checkedView`.
        pub fn view(a: Self) T.ViewOf(km.Trusted) {
            if (a.shared) @panic("guest.Arg.view: the message is in a shared window; use checkedView");
            // Trusting is sound: `open` validated every non-empty message.
            const t = if (a.bytes.len == 0) km.Trusted.empty else km.Trusted.assumeValid(a.reader);
            return T.ViewOf(km.Trusted).root(t);
        }

        /// The checked viewer of the message (`T.ViewOf(karmem.Reader)`),
        /// for one in a region's window, which another module (or this
        /// one) may change after validation.
        pub fn checkedView(a: Self) T.ViewOf(km.Reader) {
            return T.ViewOf(km.Reader).root(a.reader);
        }

        /// Decodes the whole message (slices and text allocated from
        /// `gpa`); the absent value is `T`'s defaults.
        pub fn decode(a: Self, gpa: std.mem.Allocator) !T {
            // An empty reader has no traversal budget to decode with.
            if (a.bytes.len == 0) return .{};
            return T.decode(a.reader, gpa);
        }

        /// `decode` into dispatch memory.
        pub fn value(a: Self) !T {
            return a.decode(scratch());
        }
    };
}

/// Opens argument `name` for a handler: BAD_ARGUMENT when it is not a
/// valid `T` message.
pub fn argument(comptime T: type, comptime name: []const u8, bytes: []align(8) const u8) error{BadArgument}!Arg(T) {
    return Arg(T).open(bytes) catch |err| badArgument("argument " ++ name ++ ": {s}", .{@errorName(err)});
}

/// `argument` for a region-bound parameter: the message is read in place
/// in the region's window, so it is marked `shared` (checked views only).
pub fn sharedArgument(comptime T: type, comptime name: []const u8, bytes: []align(8) const u8) error{BadArgument}!Arg(T) {
    var a = try argument(T, name, bytes);
    a.shared = true;
    return a;
}

/// Encodes a handler's result into dispatch memory (the host copies it out
/// before the dispatch returns).
pub fn encodeResult(comptime T: type, x: *const T) HandlerError![]const u8 {
    var w = km.Writer.init(scratch(), 256) catch return fail("result: out of memory", .{});
    x.encode(&w) catch |err| return fail("result: {s}", .{@errorName(err)});
    return w.bytes();
}

/// Checks a handler's region-bound result: it must lie in the window of
/// `region` (docs/abi.md §5.2).
pub fn regionResult(comptime region: []const u8, bytes: []const u8) HandlerError!?[]const u8 {
    if (bytes.len == 0) return null;
    if (!inWindow(region, bytes)) return fail("the result is not inside the window of " ++ region, .{});
    return bytes;
}

/// Encodes `x` (a generated struct) as a whole message at the start of
/// `buf` (8-byte aligned: a window is) without allocating: the message's
/// bytes. For results bound to a region: write them into its window.
pub fn writeInto(buf: []u8, x: anytype) ![]u8 {
    var w = try km.Writer.initFixedBytes(buf);
    try x.encode(&w);
    return w.bytes();
}

/// The outcome of one dispatch.
const Outcome = struct {
    status: Status,
    result: ?[]const u8 = null,
    message: []const u8 = "",
};

/// The export function `id` names (docs/abi.md §3: `(e << 16) | f`), or
/// the failure of the first two checks of every dispatch, in the order of
/// docs/abi.md §5.2: the function id, then the number of arguments.
fn lookup(id: u32, count: u32) union(enum) { found: struct { ex: Export, f: u32 }, failed: Outcome } {
    failure = "";
    const e = id >> 16;
    const f = id & 0xffff;
    const exports = if (self) |s| s.exports else &.{};
    if (e >= exports.len or f >= exports[e].handlers.len) {
        setFailure("no export function {d}", .{id});
        return .{ .failed = .{ .status = .unknown_function, .message = failure } };
    }
    const ex = exports[e];
    const params = ex.interface.functions[f].params.len;
    if (count != params) {
        setFailure("{s}.{s}: {d} arguments for {d} parameters", .{ ex.interface.name, ex.interface.functions[f].name, count, params });
        return .{ .failed = .{ .status = .bad_argument, .message = failure } };
    }
    return .{ .found = .{ .ex = ex, .f = f } };
}

/// Runs export function `id` (docs/abi.md §3: `(e << 16) | f`) with
/// `args`.
fn dispatch(id: u32, args: []const []align(8) const u8) Outcome {
    const found = switch (lookup(id, @intCast(args.len))) {
        .found => |x| x,
        .failed => |o| return o,
    };
    const ex = found.ex;
    const f = found.f;
    const result = ex.handlers[f](args) catch |err| {
        if (err == error.BadArgument) {
            // Every library names the function first (docs/abi.md §5.2).
            setFailure("{s}.{s}: {s}", .{ ex.interface.name, ex.interface.functions[f].name, failure });
            return .{ .status = .bad_argument, .message = failure };
        }
        return .{ .status = .application_error, .message = if (failure.len > 0) failure else @errorName(err) };
    };
    return .{ .status = .ok, .result = result };
}

// ---------------------------------------------------------------------------
// Calls

/// One entry of the `out` array (docs/abi.md §5.3).
const Entry = extern struct { status: u32, callee: u32, len: u32, ptr: u32 };

var entries: [max_callees]Entry = undefined;

/// Why a call reached no callee: the negative returns of the host's `call`
/// (docs/abi.md §5.3), `NoCallee` for a direct call that reached none,
/// the dispatch memory running out, and an argument the encoder refuses
/// (`karmem.WriteError`: too large, a map out of key order).
pub const CallError = error{
    UnknownImport,
    ArgumentOutOfRange,
    OutOfRange,
    Reentrant,
    NoExporter,
    TooDeep,
    NoCallee,
    TooManyCallees,
} || km.WriteError;

fn callError(code: i32) CallError {
    return switch (code) {
        -1 => error.UnknownImport,
        -2 => error.ArgumentOutOfRange,
        -3 => error.OutOfRange,
        -4 => error.Reentrant,
        -5 => error.NoExporter,
        else => error.TooDeep,
    };
}

/// One callee's reply to a call, its result opened as a `T` (`void`: the
/// function has none).
pub fn Reply(comptime T: type) type {
    return struct {
        const Self = @This();

        /// The exporter's index in the application (manifest order).
        callee: u32,
        status: Status,
        /// The result when `failure` is null (empty for a function without
        /// one). A region-bound result lies in this module's window of the
        /// region; a copied one in dispatch memory.
        result: if (T == void) void else Arg(T) = if (T == void) {} else .{},
        /// Why the reply is not usable: the callee's error message when
        /// `status` is not OK, or why its result is not a valid message.
        failure: ?[]const u8 = null,

        /// The result, or `error.CalleeFailed` (see `failure`).
        pub fn get(r: Self) error{CalleeFailed}!(if (T == void) void else Arg(T)) {
            if (r.failure != null) return error.CalleeFailed;
            return r.result;
        }

        /// `{f}` prints `callee N: STATUS: message` for a failed reply
        /// (what the Go guest library's errors say), `callee N: OK`
        /// otherwise.
        pub fn format(r: Self, w: *std.Io.Writer) std.Io.Writer.Error!void {
            try w.print("callee {d}: {f}", .{ r.callee, r.status });
            if (r.failure) |msg| {
                if (msg.len > 0) try w.print(": {s}", .{msg});
            }
        }
    };
}

/// Encodes `x` as an argument message in dispatch memory.
pub fn encodeArgument(x: anytype) CallError![]align(8) const u8 {
    var w = try km.Writer.init(scratch(), 256);
    try x.encode(&w);
    return w.bytes();
}

/// Calls import function `function` (`(import << 16) | f`, docs/abi.md
/// §3) with one message per parameter (empty: absent; a region-bound one
/// must lie in this module's window of the region) and returns every
/// callee's reply, in dispatch memory. Generated clients call this.
pub fn call(comptime T: type, function: u32, args: []const []const u8) CallError![]Reply(T) {
    const words = try scratch().alloc(u32, 2 * args.len);
    for (args, 0..) |a, k| {
        words[2 * k] = if (a.len == 0) 0 else addr(@intFromPtr(a.ptr));
        words[2 * k + 1] = @intCast(a.len);
    }
    const n = host.call(function, words.ptr, @intCast(args.len), &entries, max_callees);
    if (n < 0) return callError(n);
    const count: usize = @min(@as(usize, @intCast(n)), max_callees);
    const replies = try scratch().alloc(Reply(T), count);
    for (replies, entries[0..count], 0..) |*r, e, k| {
        const status: Status = @fromBackingInt(e.status);
        r.* = .{ .callee = e.callee, .status = status };
        var msg: []align(8) const u8 = &.{};
        if (status == .ok and e.ptr != 0) {
            // A region-bound result: already in this module's window.
            if (e.ptr % 8 != 0) {
                r.failure = "the result is not 8-byte aligned";
                continue;
            }
            const p: [*]align(8) const u8 = @ptrFromInt(e.ptr);
            msg = p[0..e.len];
        } else if (e.len > 0) {
            const dst = try scratch().alignedAlloc(u8, .@"8", e.len);
            const rc = host.take(@intCast(k), dst.ptr, e.len);
            if (rc != 0) {
                r.status = .trap;
                r.failure = "take failed";
                continue;
            }
            msg = dst;
        }
        if (status != .ok) {
            r.failure = msg;
            continue;
        }
        if (T != void) {
            r.result = Arg(T).open(msg) catch |err| {
                r.failure = std.fmt.allocPrint(scratch(), "invalid result: {s}", .{@errorName(err)}) catch "invalid result";
                continue;
            };
            r.result.shared = e.ptr != 0;
        }
    }
    if (n > max_callees) return error.TooManyCallees;
    return replies;
}

/// The one reply of a direct, singleton or pool call.
pub fn single(comptime T: type, replies: []Reply(T)) CallError!Reply(T) {
    if (replies.len == 0) return error.NoCallee;
    return replies[0];
}

/// Log levels (docs/abi.md §4).
pub const Level = enum(u32) { err = 0, warn = 1, info = 2, debug = 3, trace = 4 };

/// Sends a line to the host's log (truncated by the host to 4 KiB),
/// formatted in dispatch memory.
pub fn log(level: Level, comptime fmt: []const u8, args: anytype) void {
    const line = std.fmt.allocPrint(scratch(), fmt, args) catch fmt;
    host.log(@backingInt(level), line.ptr, @intCast(line.len));
}

/// A panic handler that logs the message before trapping; opt in with
/// `pub const panic = karmem.guest.panic;` in the root file. The call
/// fails with TRAP and the host discards the instance (docs/abi.md §5.2).
pub const panic = std.debug.FullPanic(panicLog);

fn panicLog(msg: []const u8, _: ?usize) noreturn {
    @branchHint(.cold);
    host.log(@backingInt(Level.err), msg.ptr, @intCast(msg.len));
    @trap();
}

// ---------------------------------------------------------------------------
// The host

const host = if (in_host) struct {
    extern "karmem" fn call(function: u32, args: [*]const u32, count: u32, out: *[max_callees]Entry, out_cap: u32) i32;
    extern "karmem" fn take(index: u32, dst: [*]u8, len: u32) i32;
    extern "karmem" fn result(ptr: [*]const u8, len: u32) void;
    extern "karmem" fn @"error"(ptr: [*]const u8, len: u32) void;
    extern "karmem" fn log(level: u32, ptr: [*]const u8, len: u32) void;
} else struct {
    // Natively nothing is bound; tests may set `fake` to answer calls.
    var fake: ?*const fn (u32, []const u32, *[max_callees]Entry) i32 = null;
    var fake_take: ?*const fn (u32, []u8) i32 = null;
    fn call(function: u32, args: [*]const u32, count: u32, out: *[max_callees]Entry, _: u32) i32 {
        const f = fake orelse return -5;
        return f(function, args[0 .. 2 * count], out);
    }
    fn take(index: u32, dst: [*]u8, len: u32) i32 {
        const f = fake_take orelse return -1;
        return f(index, dst[0..len]);
    }
    fn result(_: [*]const u8, _: u32) void {}
    fn @"error"(_: [*]const u8, _: u32) void {}
    fn log(_: u32, _: [*]const u8, _: u32) void {}
};

/// Exports the ABI functions (docs/abi.md §2) for module `m`. Call it from
/// a `comptime` block of the root file:
///
///     comptime {
///         karmem.guest.exportAbi(module);
///     }
pub fn exportAbi(comptime m: Module) void {
    comptime m.check();
    if (!in_host) return;
    const exports = struct {
        fn version() callconv(.c) i32 {
            return abi_version;
        }
        fn init() callconv(.c) i32 {
            return if (register(m)) 0 else 1;
        }
        fn describe() callconv(.c) i64 {
            const s = self orelse return 0;
            return @as(i64, addr(@intFromPtr(s.encoded.ptr))) | @as(i64, @intCast(s.encoded.len)) << 32;
        }
        fn alloc(size: i32, alignment: i32) callconv(.c) i32 {
            return @bitCast(allocate(@bitCast(size), @bitCast(alignment)));
        }
        fn bindMemory(index: i32, ptr: i32, len: i32) callconv(.c) void {
            const p: u32 = @bitCast(ptr);
            if (p == 0) return;
            const bytes: [*]u8 = @ptrFromInt(p);
            _ = bind(@bitCast(index), bytes[0..@as(u32, @bitCast(len))]);
        }
        fn bindAccessRaw(index: i32, access: i32) callconv(.c) void {
            _ = bindAccess(@bitCast(index), @bitCast(access));
        }
        fn dispatchRaw(function: i32, args: i32, count: i32) callconv(.c) i32 {
            // Everything allocated for this dispatch — the host's argument
            // memory included — is the guest's from here on, and freed
            // when it returns (docs/abi.md §5.2).
            defer arena.reset();
            const n: u32 = @bitCast(count);
            // The function and the count are checked before the argument
            // array is read (docs/abi.md §5.2).
            const found = switch (lookup(@bitCast(function), n)) {
                .found => |x| x,
                .failed => |o| return report(o),
            };
            const name = found.ex.interface.name;
            const func = found.ex.interface.functions[found.f];
            if (n > 0 and args == 0) {
                setFailure("{s}.{s}: the argument array is at address 0", .{ name, func.name });
                return report(.{ .status = .bad_argument, .message = failure });
            }
            // allowzero: a call without arguments may come with a null array.
            const words: [*]allowzero const u32 = @ptrFromInt(@as(u32, @bitCast(args)));
            const list = scratch().alloc([]align(8) const u8, n) catch return report(.{ .status = .application_error, .message = "out of memory" });
            for (list, 0..) |*a, k| {
                const ptr = words[2 * k];
                const len = words[2 * k + 1];
                // Address 0 is never an argument's (karmem_alloc returns
                // 0 only when out of memory).
                if (len > 0 and (ptr == 0 or ptr % 8 != 0)) {
                    if (ptr == 0) {
                        setFailure("{s}.{s}: argument {s}: {d} bytes at address 0", .{ name, func.name, func.params[k].name, len });
                    } else {
                        setFailure("{s}.{s}: argument {s}: not 8-byte aligned", .{ name, func.name, func.params[k].name });
                    }
                    return report(.{ .status = .bad_argument, .message = failure });
                }
                a.* = if (len == 0) &.{} else @as([*]align(8) const u8, @ptrFromInt(ptr))[0..len];
            }
            return report(dispatch(@bitCast(function), list));
        }
    };
    @export(&exports.version, .{ .name = "karmem_abi_version" });
    @export(&exports.init, .{ .name = "karmem_init" });
    @export(&exports.describe, .{ .name = "karmem_describe" });
    @export(&exports.alloc, .{ .name = "karmem_alloc" });
    @export(&exports.bindMemory, .{ .name = "karmem_bind_memory" });
    @export(&exports.bindAccessRaw, .{ .name = "karmem_bind_access" });
    @export(&exports.dispatchRaw, .{ .name = "karmem_dispatch" });
}

fn report(o: Outcome) i32 {
    if (o.status != .ok) {
        host.@"error"(o.message.ptr, @intCast(o.message.len));
    } else if (o.result) |r| {
        if (r.len > 0) host.result(r.ptr, @intCast(r.len));
    }
    return @intCast(@backingInt(o.status));
}

// ---------------------------------------------------------------------------
// Tests (natively: the arena over its static buffer, a fake host)

const testing = std.testing;

const TestMsg = struct {
    text: []const u8 = "",

    pub fn encode(x: *const TestMsg, w: *km.Writer) km.WriteError!void {
        try w.begin();
        const at = try w.alloc(24, 8);
        w.put(u32, at, 0x80000003);
        try w.writeString(at + 4, x.text);
        try w.finish();
    }

    pub fn validate(r: km.Reader) km.ValidateError!void {
        var v: km.Validator = .init(r);
        const t = try v.root(24);
        const a = try v.fieldArray(t, 4, 1, km.no_limit);
        try v.utf8(a.offset, a.len);
    }

    pub fn decode(r: km.Reader, gpa: std.mem.Allocator) !TestMsg {
        const a = r.fieldArray(r.root(), 4, 1, km.no_limit);
        return .{ .text = try gpa.dupe(u8, r.string(a)) };
    }

    /// What a generated `ViewOf` is to `Arg.view`: a viewer over either
    /// reader.
    pub fn ViewOf(comptime R: type) type {
        return struct {
            reader: R,
            table: km.Table,

            pub fn root(reader: R) @This() {
                return .{ .reader = reader, .table = reader.root() };
            }

            pub fn text(v: @This()) []const u8 {
                const a = if (R == km.Trusted)
                    v.reader.fieldArray(v.table, 4)
                else
                    v.reader.fieldArray(v.table, 4, 1, km.no_limit);
                return v.reader.string(a);
            }
        };
    }
};

fn testIface(comptime name: []const u8, comptime mem: []const u8) Interface {
    const mems: []const Memory = if (mem.len == 0) &.{} else &.{.{ .name = mem, .importer = .read_write, .exporter = .read, .max_pages = 1 }};
    return .{ .name = name, .hash = 1, .memories = mems, .functions = &.{
        .{ .name = "ok", .result = .{ .name = "r", .type = "t.Msg" } },
        .{ .name = "bad", .params = &.{.{ .name = "x", .type = "t.Msg" }} },
        .{ .name = "boom" },
    } };
}

const test_handlers = struct {
    fn ok(_: []const []align(8) const u8) HandlerError!?[]const u8 {
        return try encodeResult(TestMsg, &.{ .text = "hi" });
    }
    fn bad(args: []const []align(8) const u8) HandlerError!?[]const u8 {
        const m = try argument(TestMsg, "x", args[0]);
        const v = m.value() catch |err| return failed(err);
        return fail("got {s}", .{v.text});
    }
    fn boom(_: []const []align(8) const u8) HandlerError!?[]const u8 {
        return failed(error.Boom);
    }
};

const test_module: Module = .{
    .exports = &.{.{ .interface = testIface("t.A", "t.shared"), .handlers = &.{ test_handlers.ok, test_handlers.bad, test_handlers.boom } }},
    .imports = &.{ testIface("t.B", "t.shared"), testIface("t.C", "t.other") },
};

test "arena: alignment, in-place growth, reset and keep" {
    var a: Arena = .{};
    for ([_]usize{ 1, 8, 64, 4096 }) |al| {
        const p = a.alloc(100, al).?;
        try testing.expect(@intFromPtr(p) % al == 0);
    }
    const last = a.alloc(10, 8).?;
    try testing.expect(a.resize(last[0..10], 500));
    try testing.expect(!a.resize(last[0..10], 1 << 20));
    const kept = a.pos;
    a.keep();
    _ = a.alloc(1000, 8).?;
    a.reset();
    try testing.expectEqual(kept, a.pos);
    // More than what is left: fresh pages.
    const big = a.alloc(3 * page_size, 8).?;
    try testing.expect(@intFromPtr(big) >= kept);
    try testing.expect(a.alloc(1 << 30, 8) == null);
    try testing.expectEqual(@as(u32, 0), allocate(8, 3));
    try testing.expectEqual(@as(u32, 0), allocate(8, 1 << 17));
}

test "descriptor: regions first use first, reads back" {
    try testing.expectEqual(@as(u16, 1), comptime test_module.importIndex("t.C"));
    try testing.expect(register(test_module));
    const r = try km.Reader.open(self.?.encoded);
    try abi.ModuleDesc.validate(r);
    var back_arena: std.heap.ArenaAllocator = .init(testing.allocator);
    defer back_arena.deinit();
    const back = try abi.ModuleDesc.decode(r, back_arena.allocator());
    try testing.expectEqual(@as(usize, 2), back.memories.len);
    try testing.expectEqualStrings("t.shared", back.memories[0].name);
    try testing.expectEqualStrings("t.other", back.memories[1].name);
    try testing.expectEqual(@as(usize, 1), back.exports.len);
    try testing.expectEqual(@as(usize, 2), back.imports.len);
    try testing.expectEqualStrings("boom", back.exports[0].functions[2].name);
    try testing.expectEqualStrings("t.Msg", back.exports[0].functions[0].result.type);

    // Windows by index; an unknown index is refused.
    var buf: [64]u8 align(8) = undefined;
    try testing.expect(bind(0, &buf));
    try testing.expect(!bind(2, &buf));
    try testing.expectEqual(Access.none, windowAccess("t.shared"));
    try testing.expect(bindAccess(0, 1));
    try testing.expect(!bindAccess(0, 3));
    try testing.expect(!bindAccess(2, 1));
    try testing.expectEqual(Access.read, windowAccess("t.shared"));
    try testing.expectEqual(Access.none, windowAccess("t.other"));
    try testing.expectEqual(@as(usize, 64), window("t.shared").len);
    try testing.expectEqual(@as(usize, 0), window("t.other").len);
    try testing.expect(inWindow("t.shared", buf[8..16]));
    try testing.expect(!inWindow("t.shared", buf[60..64].ptr[0..8]));
    try testing.expectEqual(@as(?u32, 8), offsetIn("t.shared", buf[8..16]));
    try testing.expect(!inWindow("t.other", buf[0..8]));
}

test "dispatch: statuses and messages" {
    try testing.expect(register(test_module));
    defer arena.reset();
    const msg = try encodeArgument(&TestMsg{ .text = "yo" });
    const junk: [16]u8 align(8) = @splat(0xff);
    const cases = [_]struct { id: u32, args: []const []align(8) const u8, status: Status, text: []const u8 }{
        .{ .id = 0, .args = &.{}, .status = .ok, .text = "" },
        .{ .id = 1, .args = &.{msg}, .status = .application_error, .text = "got yo" },
        .{ .id = 1, .args = &.{&junk}, .status = .bad_argument, .text = "t.A.bad: argument x: " },
        .{ .id = 1, .args = &.{}, .status = .bad_argument, .text = "0 arguments for 1 parameters" },
        .{ .id = 2, .args = &.{}, .status = .application_error, .text = "Boom" },
        .{ .id = 3, .args = &.{}, .status = .unknown_function, .text = "no export function 3" },
        .{ .id = 1 << 16, .args = &.{}, .status = .unknown_function, .text = "no export function 65536" },
    };
    for (cases) |c| {
        const o = dispatch(c.id, c.args);
        testing.expectEqual(c.status, o.status) catch |err| {
            std.debug.print("case {d}: {s}\n", .{ c.id, o.message });
            return err;
        };
        try testing.expect(std.mem.indexOf(u8, o.message, c.text) != null);
    }
    const o = dispatch(0, &.{});
    const back = try Arg(TestMsg).open(@alignCast(o.result.?));
    try testing.expectEqualStrings("hi", (try back.value()).text);
}

const fake_host = struct {
    var seen_function: u32 = 0;
    var seen_args: usize = 0;
    var reply: [64]u8 align(8) = undefined;
    var reply_len: usize = 0;
    fn call(function: u32, args: []const u32, out: *[max_callees]Entry) i32 {
        seen_function = function;
        seen_args = args.len / 2;
        out[0] = .{ .status = 0, .callee = 4, .len = @intCast(reply_len), .ptr = 0 };
        out[1] = .{ .status = 3, .callee = 7, .len = 4, .ptr = 0 };
        out[2] = .{ .status = 16, .callee = 9, .len = 0, .ptr = 0 };
        return 3;
    }
    fn take(index: u32, dst: []u8) i32 {
        switch (index) {
            0 => @memcpy(dst, reply[0..reply_len]),
            1 => @memcpy(dst, "nope"),
            else => return -1,
        }
        return 0;
    }
};

test "call: replies per callee, failures kept" {
    defer arena.reset();
    // Outside a host nothing is bound.
    try testing.expectError(error.NoExporter, call(TestMsg, 0, &.{}));
    const m = try encodeArgument(&TestMsg{ .text = "vote" });
    @memcpy(fake_host.reply[0..m.len], m);
    fake_host.reply_len = m.len;
    host.fake = fake_host.call;
    host.fake_take = fake_host.take;
    defer host.fake = null;
    const replies = try call(TestMsg, 1 << 16 | 2, &.{m});
    try testing.expectEqual(@as(u32, 1 << 16 | 2), fake_host.seen_function);
    try testing.expectEqual(@as(usize, 1), fake_host.seen_args);
    try testing.expectEqual(@as(usize, 3), replies.len);
    try testing.expectEqualStrings("vote", (try (try replies[0].get()).value()).text);
    try testing.expectError(error.CalleeFailed, replies[1].get());
    var buf: [128]u8 = undefined;
    try testing.expectEqualStrings("callee 7: APPLICATION_ERROR: nope", try std.fmt.bufPrint(&buf, "{f}", .{replies[1]}));
    try testing.expectEqualStrings("callee 9: TRAP", try std.fmt.bufPrint(&buf, "{f}", .{replies[2]}));
    try testing.expectEqualStrings("status 99", try std.fmt.bufPrint(&buf, "{f}", .{@as(Status, @fromBackingInt(99))}));
    const one = try single(TestMsg, replies);
    try testing.expectEqual(@as(u32, 4), one.callee);
    try testing.expectError(error.NoCallee, single(TestMsg, replies[0..0]));
}

test "Arg.view: trusted only after validation, absent reads empty, shared refused" {
    defer arena.reset();
    const msg = try encodeArgument(&TestMsg{ .text = "trusted" });
    const a = try argument(TestMsg, "x", msg);
    try testing.expectEqualStrings("trusted", a.view().text());
    try testing.expectEqualStrings("trusted", a.checkedView().text());
    // Absent: the empty message, no load.
    const none = try argument(TestMsg, "x", &.{});
    try testing.expectEqualStrings("", none.view().text());
    // A message cut short of its text, and text that is not UTF-8: never
    // an Arg, so never a trusted view.
    var cut: [64]u8 align(8) = undefined;
    @memcpy(cut[0..msg.len], msg);
    std.mem.writeInt(u32, cut[4..8], @intCast(msg.len - 8), .little);
    try testing.expectError(error.BadArgument, argument(TestMsg, "x", cut[0 .. msg.len - 8]));
    var broken: [64]u8 align(8) = undefined;
    @memcpy(broken[0..msg.len], msg);
    broken[std.mem.indexOf(u8, msg, "trusted").?] = 0xff;
    try testing.expectError(error.BadArgument, argument(TestMsg, "x", broken[0..msg.len]));
    // A region-bound argument is marked shared: checked views only.
    const shared = try sharedArgument(TestMsg, "x", msg);
    try testing.expect(shared.shared and !a.shared);
    try testing.expectEqualStrings("trusted", shared.checkedView().text());
}

test "writeInto: a message in a caller's buffer" {
    try testing.expectEqualStrings("", (try (try Arg(TestMsg).open(&.{})).value()).text);
    var buf: [64]u8 align(8) = undefined;
    const bytes = try writeInto(&buf, &TestMsg{ .text = "in place" });
    try testing.expect(bytes.ptr == &buf);
    const back = try Arg(TestMsg).open(@alignCast(bytes));
    try testing.expectEqualStrings("in place", (try back.value()).text);
    var small: [8]u8 align(8) = undefined;
    try testing.expectError(error.TooLarge, writeInto(&small, &TestMsg{ .text = "too long" }));
}

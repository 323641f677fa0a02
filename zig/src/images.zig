//! Inline structs viewed as byte images (the Go library's images.go, Rust's
//! viewers): the generated viewer of an inline struct of N bytes is a
//! `[N]u8` copy of its bytes whose methods decode the fields from the image
//! and follow the offsets it holds (tables, arrays, unions) through the
//! reader. An AoS array of inline structs is then a native slice over the
//! message, `[]const [N]u8` (docs/format.md §3, §5.2).

const std = @import("std");
const km = @import("karmem.zig");

const Reader = km.Reader;
const ArrayRef = km.ArrayRef;

/// Checks at compile time that `V` is an image type: a byte array of at
/// least one byte. Anything else (pointers, multi-byte numbers, padding)
/// must never be made from message bytes, and an inline struct has at
/// least one field (docs/format.md §3).
pub fn checkImage(comptime V: type) void {
    const info = @typeInfo(V);
    if (info != .array or info.array.child != u8 or info.array.sentinel_ptr != null)
        @compileError("karmem: an image type is [N]u8, not " ++ @typeName(V));
    if (info.array.len == 0)
        @compileError("karmem: an inline struct has at least one field (docs/format.md §3)");
}

/// The `@sizeOf(V)` bytes at `offset` as a `V` (a copy); all zero when
/// `offset` is 0 or the bytes do not all lie inside the message.
pub fn image(comptime V: type, r: Reader, offset: u32) V {
    comptime checkImage(V);
    if (offset == 0 or !r.fits(offset, @sizeOf(V))) return @splat(0);
    return r.mem[offset..][0..@sizeOf(V)].*;
}

/// The `n` images at `offset` as a native slice over the message (no copy):
/// an AoS array of inline structs. Offset 0, n 0 or a range outside the
/// message give the empty slice.
pub fn imageSlice(comptime V: type, r: Reader, offset: u32, n: u32) []const V {
    comptime checkImage(V);
    if (offset == 0 or n == 0 or !r.fits(offset, @as(u64, n) * @sizeOf(V))) return &.{};
    const p: [*]const V = @ptrCast(r.mem.ptr + offset);
    return p[0..n];
}

/// The first `@sizeOf(V)` bytes of `b` as a `V`: a nested inline struct,
/// or an element of a fixed array of them, inside an image. A shorter `b`
/// gives all zeros (generated code never passes one).
pub fn imageOf(comptime V: type, b: []const u8) V {
    comptime checkImage(V);
    if (b.len < @sizeOf(V)) return @splat(0);
    return b[0..@sizeOf(V)].*;
}

/// Decodes a scalar field at the start of `b` (a viewer passes
/// `self[offset..]`, whose length its layout guarantees).
pub inline fn field(comptime T: type, b: []const u8) T {
    return km.decode(T, b[0..@sizeOf(T)]);
}

/// The array reference at the start of `b`, not checked against any
/// message; a zero capacity gives the empty reference (docs/format.md §5:
/// no block). A Reader checks it with `checkArray`; a Trusted uses it as is.
pub fn loadArrayRef(b: *const [12]u8) ArrayRef {
    const a: ArrayRef = .{
        .offset = std.mem.readInt(u32, b[0..4], .little),
        .len = std.mem.readInt(u32, b[4..8], .little),
        .cap = std.mem.readInt(u32, b[8..12], .little),
    };
    if (a.cap == 0) return .empty;
    return a;
}

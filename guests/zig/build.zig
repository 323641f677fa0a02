//! Builds the Zig guest modules (docs/zig.md, "Guests") for
//! wasm32-freestanding: `zig build` writes zig-out/bin/<name>.wasm.
//! scripts/build-guests-zig.sh generates each schema's bindings into
//! gen/<schema>/ first (`karmem build --lang zig-guest`) and copies the
//! modules to guests/out/.

const std = @import("std");

/// Each guest: its directory (with main.zig) and the schema whose
/// bindings it imports, by the name of the generated file.
const guests = [_]struct { name: []const u8, schema: []const u8 }{
    .{ .name = "e2e-zig-echo", .schema = "e2e" },
    .{ .name = "e2e-zig-caller", .schema = "e2e" },
    .{ .name = "arena-ziggy", .schema = "arena" },
};

pub fn build(b: *std.Build) void {
    const target = b.resolveTargetQuery(.{ .cpu_arch = .wasm32, .os_tag = .freestanding });
    // Safety checks stay on: a guest's bug traps (the host discards the
    // instance) instead of going on with corrupted state.
    const optimize = b.option(std.builtin.Optimize, "optimize", "default: safe") orelse .safe;
    const karmem = b.dependency("karmem", .{ .target = target, .optimize = optimize }).module("karmem");
    for (guests) |g| {
        const bindings = b.createModule(.{
            .root_source_file = b.path(b.fmt("gen/{s}/{s}_guest.zig", .{ g.schema, g.schema })),
            .target = target,
            .optimize = optimize,
            .imports = &.{.{ .name = "karmem", .module = karmem }},
        });
        const root = b.createModule(.{
            .root_source_file = b.path(b.fmt("{s}/main.zig", .{g.name})),
            .target = target,
            .optimize = optimize,
            .strip = true,
            .imports = &.{
                .{ .name = "karmem", .module = karmem },
                .{ .name = g.schema, .module = bindings },
            },
        });
        const exe = b.addExecutable(.{ .name = g.name, .root_module = root });
        // A reactor without an entry point (docs/abi.md §1) that exports
        // what guest.exportAbi declares.
        exe.entry = .disabled;
        exe.rdynamic = true;
        b.installArtifact(exe);
    }
}

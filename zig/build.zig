//! Builds and tests the Zig runtime library of Karmem (docs/zig.md).

const std = @import("std");

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    const optimize = b.standardOptimizeOption(.{});

    // The library, for packages that depend on this one.
    _ = b.addModule("karmem", .{
        .root_source_file = b.path("src/karmem.zig"),
        .target = target,
        .optimize = optimize,
    });

    // The golden vectors (testdata/vectors, docs/format.md §14) live in
    // the repository around this package; -Dvectors=PATH points elsewhere.
    const options = b.addOptions();
    if (b.option([]const u8, "vectors", "directory of the golden vectors")) |dir| {
        options.addOption([]const u8, "vectors", dir);
    } else {
        options.addOptionPathDirectory("vectors", b.path("../testdata/vectors"));
    }
    const test_module = b.createModule(.{
        .root_source_file = b.path("src/karmem.zig"),
        .target = target,
        .optimize = optimize,
    });
    test_module.addOptions("build_options", options);

    const tests = b.addTest(.{ .root_module = test_module });
    const run_tests = b.addRunArtifact(tests);
    // The tests read the vectors at run time, which the cache does not
    // track: always run them.
    run_tests.has_side_effects = true;
    const test_step = b.step("test", "Run the library's tests");
    test_step.dependOn(&run_tests.step);

    // The fuzz target (src/fuzz.zig, docs/zig.md "Fuzzing") alone:
    // `zig build fuzz` runs it over the golden vectors;
    // `zig build fuzz --fuzz=N -Doptimize=ReleaseSafe` runs Zig's fuzzer
    // for N inputs. Built with LLVM, whose coverage instrumentation the
    // fuzzer needs (the self-hosted backend of Debug builds has none).
    const fuzz_module = b.createModule(.{
        .root_source_file = b.path("src/fuzz.zig"),
        .target = target,
        .optimize = optimize,
    });
    fuzz_module.addOptions("build_options", options);
    const fuzz_tests = b.addTest(.{
        .root_module = fuzz_module,
        .use_llvm = true,
        // fuzz.zig imports the library, whose tests are `zig build test`'s.
        .filters = &.{"fuzz"},
    });
    const run_fuzz = b.addRunArtifact(fuzz_tests);
    run_fuzz.has_side_effects = true;
    const fuzz_step = b.step("fuzz", "Run the fuzz target (add --fuzz=N to fuzz)");
    fuzz_step.dependOn(&run_fuzz.step);
}

#!/usr/bin/env bash
# Builds the Zig member of the integrity suite (zig/integrity,
# docs/integrity.md §7): generates the Zig of both schema versions into
# the build directory (not committed; modules `old` and `new`), checks that
# they and the member are zig fmt-clean, and builds the command
# $cargo_target/zig/integrity/karmem-integrity-zig in ReleaseSafe, so that
# Zig's safety checks stay on while the suite's messages go through the
# checked viewers (an out-of-bounds read or an overflow panics).
# Prints the command's path on its last line.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-zig.sh >&2
zig() { python3 -m ziglang "$@"; }
out=$cargo_target/zig/integrity
karmem_cli
rm -rf "$out/gen"
mkdir -p "$out/gen"
for v in old new; do
  "$karmem" build --lang zig -o "$out/gen/$v" "testdata/integrity/$v.km" >/dev/null 2>&1
done
zig fmt --check "$out/gen" zig/integrity >&2
(cd "$out" && zig build-exe -OReleaseSafe -j"${ZIG_JOBS:-2}" --name karmem-integrity-zig \
   --dep karmem --dep old --dep new -Mroot="$root/zig/integrity/main.zig" \
   -Mkarmem="$root/zig/src/karmem.zig" \
   --dep karmem -Mold="$out/gen/old/integrity.zig" \
   --dep karmem -Mnew="$out/gen/new/integrity.zig") >&2
echo "$out/karmem-integrity-zig"

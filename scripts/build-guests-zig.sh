#!/usr/bin/env bash
# Build the Zig guest modules guests/zig/<name>/ into guests/out/<name>.wasm
# (wasm32-freestanding, no libc, no WASI: docs/zig.md, "Guests"), with
# guests/zig/build.zig.
#
# The bindings are generated here from each schema with
# `karmem build --lang zig-guest` into guests/zig/gen/<schema>/ (not
# committed: always regenerated, so never stale), then every Zig file —
# generated, hand-written and the library — must be `zig fmt`-clean (Zig
# has no warnings: what compiles is clean). The guest runtime's descriptor
# types (zig/src/abi.zig) must be what the generator writes for
# docs/abi.km today.
# Incremental: a module is rebuilt only when its sources, its schema, the
# Zig library or the generator changed (a stamp next to the .wasm).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-zig.sh
zig() { python3 -m ziglang "$@"; }
. scripts/lib/guests.sh
guest_karmem

# zig/src/abi.zig is the generator's output for docs/abi.km with the
# package import made a file import (it lives inside the package).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$karmem" build --lang zig -o "$tmp" docs/abi.km 2>/dev/null
sed -e 's|^const karmem = @import("karmem");|const karmem = @import("karmem.zig");|' \
    -e '2a // (The import of the package is a file import here, inside the package:\n// scripts/build-guests-zig.sh regenerates this file and compares.)' \
    "$tmp/abi.zig" > "$tmp/abi.expected.zig"
cmp -s "$tmp/abi.expected.zig" zig/src/abi.zig || {
  echo "zig/src/abi.zig differs from the generator's output for docs/abi.km:"
  diff -u zig/src/abi.zig "$tmp/abi.expected.zig" | head -40
  exit 1
}

# Inputs shared by every module: the library, the generator, the build.
shared=$( { find zig/src zig/build.zig zig/build.zig.zon guests/zig/build.zig guests/zig/build.zig.zon \
              -type f \( -name '*.zig' -o -name '*.zon' \) -print0 | sums; \
            codegen_sums; } | hash64)

# Always regenerate the bindings (cheap), so that the lint sees them.
rm -rf guests/zig/gen
for schema in guests/polyglot.km examples/arena/arena.km; do
  # The directory is the schema's package, which names the generated files.
  name=$(sed -n 's/^karmem \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$schema" | head -n1)
  "$karmem" build --lang zig-guest -o "guests/zig/gen/$name" "$schema" 2>/dev/null
done
zig fmt --check guests/zig zig/src \
  || { echo "build-guests-zig: the files above are not zig fmt-clean"; exit 1; }

stale=()
declare -A stamps
for dir in guests/zig/*/; do
  name=$(basename "$dir")
  [ -f "$dir/main.zig" ] || continue
  schema=$(guest_schema build-guests-zig "$name")
  stamp=$(find "$dir" -type f -name '*.zig' -print0 | module_stamp "$shared" "$schema")
  stamps[$name]=$stamp
  stamp_current "guests/out/$name.wasm" "$stamp" && continue
  stale+=("$name")
done

if [ ${#stale[@]} -gt 0 ]; then
  # One build for all of them: Zig's cache makes the current ones cheap.
  (cd guests/zig && zig build -j2 --prefix "$tmp/prefix")
  for name in "${stale[@]}"; do
    out=guests/out/$name.wasm
    cp "$tmp/prefix/bin/$name.wasm" "$out.tmp"
    stamp_install build-guests-zig "$out" "${stamps[$name]}"
  done
fi
echo "build-guests-zig: ${#stale[@]} built, the others up to date"

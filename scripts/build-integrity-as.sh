#!/usr/bin/env bash
# Builds the AssemblyScript member of the integrity suite (as/integrity,
# docs/integrity.md §7): generates the AssemblyScript of both schema
# versions into the build directory (not committed), each where asc finds
# it as `karmem-integrity/integrity` through its own `--path`, compiles
# as/integrity/member.ts once per version ($out/old.wasm, $out/new.wasm;
# assertions on, so that a bad access aborts instead of reading on; any
# diagnostic of asc --pedantic fails) and puts the Node command
# as/integrity/main.mjs next to them. Prints the command's path (run it
# with node) on its last line.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. scripts/lib/npm.sh
npm_ci_once build-integrity-as as >&2
out=$cargo_target/as/integrity
karmem_cli
rm -rf "$out"
mkdir -p "$out/node_modules"
ln -s "$root/as" "$out/node_modules/karmem-as"
# Both versions at once (two processes for two cores), without Binaryen's
# optimizations: at make test's 24 seeds compiling is most of the member's
# time (about 2.5 s a version unoptimized, 8 s at -O2), while running the
# unoptimized modules costs about 8 s more per 400 seeds than -O2's.
pids=()
for v in old new; do
  "$karmem" build --lang as -o "$out/gen/$v/karmem-integrity" "testdata/integrity/$v.km" >/dev/null 2>&1
  node as/node_modules/assemblyscript/bin/asc.js as/integrity/member.ts --pedantic \
    --path "$out/gen/$v" --path "$out/node_modules" -o "$out/$v.wasm" >"$out/asc-$v.log" 2>&1 &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
for v in old new; do
  if [ -s "$out/asc-$v.log" ]; then
    cat "$out/asc-$v.log" >&2
    failed=1
  fi
done
if [ "$failed" != 0 ]; then
  echo "build-integrity-as: asc failed or has diagnostics (any warning or pedantic note fails)" >&2
  exit 1
fi
cp as/integrity/main.mjs "$out/main.mjs"
echo "$out/main.mjs"

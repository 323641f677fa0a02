#!/usr/bin/env bash
# Build the C guest modules guests/c/<name>/ into guests/out/<name>.wasm
# (clang-19 --target=wasm32-wasi -mexec-model=reactor: a reactor,
# docs/abi.md §1) on the C library (c/karmem.c) and the C guest runtime
# (c/karmem_guest.c, c/abi/).
#
# Each module's bindings are generated here from its schema with
# `karmem build --lang c-guest` into guests/c/<name>/gen/ (not committed:
# always regenerated, so never stale). The generated and the hand-written
# code must compile without a warning under the strict flags of
# scripts/test-c.sh, with gcc-12 and clang-19 natively and with clang-19
# for wasm32. c/abi/ (the descriptor types, generated from docs/abi.km and
# committed with the runtime) must be what the generator writes today.
# Incremental: a module is rebuilt only when its sources, its schema, the
# C library and runtime or the generator changed (a stamp next to the .wasm).
# A module with a kernels.c (guests/c/polybench) also gets that file built
# natively, with the same compiler and -O2, into guests/out/<name>-native.so,
# and once more without auto-vectorisation (the wasm build has no SIMD) into
# <name>-native-scalar.so: the native baselines of
# crates/karmem-e2e/benches/bounds.rs.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-c.sh
. scripts/lib/guests.sh
guest_karmem

abi=$(mktemp -d)
trap 'rm -rf "$abi"' EXIT
"$karmem" build --lang c -o "$abi" docs/abi.km 2>/dev/null
diff -r "$abi" c/abi >/dev/null || {
  echo "build-guests-c: c/abi/ is not what \`karmem build --lang c docs/abi.km\` writes today:"
  diff -r "$abi" c/abi | head -20
  echo "refresh it: $karmem build --lang c -o c/abi docs/abi.km"
  exit 1
}

strict=(-std=c11 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wstrict-prototypes)
library=(c/karmem.c c/karmem_guest.c c/abi/abi.c)

# Inputs shared by every module: the C library, the runtime, the generator.
shared=$( { find c -maxdepth 1 \( -name '*.c' -o -name '*.h' \) -print0 | sums; \
            find c/abi -type f -print0 | sums; \
            codegen_sums; sha256sum scripts/build-guests-c.sh; } | hash64)

# Every schema with interfaces, not only the guests' own: the generated
# guest code must compile without a warning whatever the interfaces use
# (fan-out without results, region-bound parameters, pools, ...).
lint=$(mktemp -d)
trap 'rm -rf "$abi" "$lint"' EXIT
n=0
while IFS= read -r schema; do
  grep -q '^interface ' "$schema" || continue
  dir="$lint/$n"; n=$((n + 1))
  "$karmem" build --lang c-guest -o "$dir" "$schema" 2>/dev/null
  for cc in gcc-12 clang-19; do
    "$cc" "${strict[@]}" -I c -I c/abi -I "$dir" -fsyntax-only "$dir"/*.c
  done
done < <(find examples guests testdata/schemas docs -name '*.km' -not -path '*/target/*' | sort)
echo "build-guests-c: the C guest bindings of $n schemas compile without a warning"

built=0
for dir in guests/c/*/; do
  name=$(basename "$dir")
  [ -f "$dir/main.c" ] || continue
  schema=$(guest_schema build-guests-c "$name")
  out=guests/out/$name.wasm
  native=
  [ -f "${dir}kernels.c" ] && native=guests/out/$name-native.so
  stamp=$(find "$dir" -type f \( -name '*.c' -o -name '*.h' \) -not -path "${dir}gen/*" -print0 \
          | module_stamp "$shared" "$schema")
  stamp_current "$out" "$stamp" && { [ -z "$native" ] || { stamp_current "$native" "$stamp" \
    && stamp_current "${native%.so}-scalar.so" "$stamp"; }; } && continue
  rm -rf "${dir:?}gen"
  "$karmem" build --lang c-guest -o "${dir}gen" "$schema" 2>/dev/null
  sources=("$dir"*.c "${dir}gen/"*.c)
  includes=(-I c -I c/abi -I "${dir}gen" -I "$dir")
  # Strict lints: natively with both compilers, and for the guest target.
  for cc in gcc-12 clang-19; do
    "$cc" "${strict[@]}" "${includes[@]}" -fsyntax-only "${sources[@]}"
  done
  clang-19 --target=wasm32-wasi "${strict[@]}" "${includes[@]}" -fsyntax-only "${sources[@]}"
  # -mbulk-memory: memset and memcpy become memory.fill and memory.copy,
  # which the conformance suite needs a C guest to write with (clang 20
  # enables it by default; 19 does not).
  clang-19 --target=wasm32-wasi -O2 -mbulk-memory -mexec-model=reactor -Wl,--strip-all "${strict[@]}" "${includes[@]}" \
    -o "$out.tmp" "${sources[@]}" "${library[@]}"
  stamp_install build-guests-c "$out" "$stamp"
  if [ -n "$native" ]; then
    clang-19 -O2 -shared -fPIC "${strict[@]}" -I "$dir" -o "$native.tmp" "${dir}kernels.c"
    stamp_install build-guests-c "$native" "$stamp"
    scalar=${native%.so}-scalar.so
    clang-19 -O2 -fno-vectorize -fno-slp-vectorize -shared -fPIC "${strict[@]}" -I "$dir" \
      -o "$scalar.tmp" "${dir}kernels.c"
    stamp_install build-guests-c "$scalar" "$stamp"
  fi
  built=$((built + 1))
done
echo "build-guests-c: $built built, the others up to date"

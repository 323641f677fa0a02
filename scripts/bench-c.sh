#!/usr/bin/env bash
# The paper's data-layout comparison (its Table 3) in C, with Karmem's
# columns (c/bench/dod.c): natively (gcc-12 and clang-19, -O3, SSE4.2) and
# as a wasm32-wasi module (clang-19 -O3 -msimd128) run by wasmtime, for
# 10 000 scooters (in cache) and 2^20 (out of it). Results: docs/benchmarks.md
# "C: data layouts, the paper's Table 3"; logs in target/bench-c/.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-c.sh
python3 -c "import wasmtime" 2>/dev/null || python3 -m pip install --quiet "wasmtime==50.0.1"
out=$cargo_target/bench-c
mkdir -p "$out"
flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -O3 -Wall -Wextra -Werror)
gcc-12 "${flags[@]}" -march=x86-64-v2 -o "$out/dod-gcc" c/bench/dod.c c/karmem.c
clang-19 "${flags[@]}" -march=x86-64-v2 -o "$out/dod-clang" c/bench/dod.c c/karmem.c
clang-19 --target=wasm32-wasi "${flags[@]}" -msimd128 -o "$out/dod.wasm" c/bench/dod.c c/karmem.c
for count in 10000 1048576; do
  for how in gcc clang wasm; do
    echo "== $how, $count scooters" | tee "$out/dod-$how-$count.txt"
    if [ "$how" = wasm ]; then
      python3 scripts/run-wasi.py "$out/dod.wasm" "$count" | tee -a "$out/dod-$how-$count.txt"
    else
      "$out/dod-$how" "$count" | tee -a "$out/dod-$how-$count.txt"
    fi
  done
done

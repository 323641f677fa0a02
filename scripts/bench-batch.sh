#!/usr/bin/env bash
# The Karmem paper's serialisation benchmark (its Tables 5 and 6): write a
# batch of 10 and 10 000 temperature readings, read one back and analyse it.
#   C/C++ (c/bench/batch): Karmem's generated C against FlatBuffers
#         (flatc --cpp) and nlohmann::json, and a raw struct;
#   Zig   (zig/bench/batch.zig): Karmem's generated Zig against std.json
#         and a raw struct;
# each natively and as a wasm32-wasi module run by wasmtime (the paper
# measured inside a WebAssembly module). Results: docs/benchmarks.md,
# "Guests: the paper's Tables 5 and 6"; logs in target/bench-batch/.
# `--check` builds the C side and runs every case once, untimed.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-c.sh
# FlatBuffers' C++ headers, nlohmann::json, and libc++ for wasm32-wasi.
scripts/apt-ensure.sh bench-batch libflatbuffers-dev nlohmann-json3-dev \
  libc++-19-dev-wasm32 libc++abi-19-dev-wasm32
command -v flatc >/dev/null || scripts/apt-ensure.sh bench-batch flatbuffers-compiler

out=$cargo_target/bench-batch
gen=$out/gen
mkdir -p "$gen"
karmem_cli
for lang in c zig; do
  "$karmem" build --lang $lang -o "$gen" c/bench/batch/batch.km 2>&1 | { grep -v '^wrote ' || true; }
done
flatc --cpp -o "$gen" c/bench/batch/batch.fbs

strict=(-Wall -Wextra -Werror)
# build <name> <compiler flags...>: the C side as C11, the harness as C++20.
build_c() {
  local name=$1; shift
  local cc=(clang-19 "$@") cxx=(clang++-19 "$@")
  "${cc[@]}" -std=c11 "${strict[@]}" -I"$gen" -Ic -c -o "$out/$name-side.o" c/bench/batch/karmem_side.c
  "${cc[@]}" -std=c11 "${strict[@]}" -Ic -c -o "$out/$name-gen.o" "$gen/batch.c"
  "${cc[@]}" -std=c11 "${strict[@]}" -c -o "$out/$name-karmem.o" c/karmem.c
  "${cxx[@]}" -std=c++20 "${strict[@]}" -I"$gen" -o "$out/$name" c/bench/batch/main.cpp \
    "$out/$name-side.o" "$out/$name-gen.o" "$out/$name-karmem.o" ${LINK_FLAGS:-}
}
build_c c-native -O2 -march=x86-64-v2
if [ "${1:-}" = "--check" ]; then
  "$out/c-native" --check
  echo "bench-batch: the C benchmark builds and every reader agrees"
  exit 0
fi
python3 -c "import wasmtime" 2>/dev/null || python3 -m pip install --quiet "wasmtime==50.0.1"
LINK_FLAGS=-Wl,--strip-all build_c c.wasm --target=wasm32-wasi -O2 -msimd128 -fno-exceptions -DJSON_NOEXCEPTION

scripts/setup-zig.sh
zig() { python3 -m ziglang "$@"; }
zig_build() {
  local name=$1; shift
  (cd "$out" && zig build-exe -OReleaseFast -fstrip "$@" --name "$name" --dep karmem --dep batch \
     -Mroot="$root/zig/bench/batch.zig" -Mkarmem="$root/zig/src/karmem.zig" --dep karmem -Mbatch="$gen/batch.zig")
}
zig_build zig-native
zig_build zig -target wasm32-wasi -mcpu=generic+simd128

for run in c-native c.wasm zig-native zig.wasm; do
  log=$out/$run.txt
  echo "== $run" | tee "$log"
  case $run in
    *.wasm) echo "module: $(stat -c %s "$out/$run") bytes" | tee -a "$log"
            python3 scripts/run-wasi.py "$out/$run" 2>&1 | tee -a "$log" ;;
    *) "$out/$run" 2>&1 | tee -a "$log" ;;
  esac
done

#!/usr/bin/env bash
# The C library (c/, docs/c.md): strict warnings with gcc-12 and clang-19,
# the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer with
# both compilers and once optimised without them, a wasm32-wasi build (the
# guests' target), and the libFuzzer target for C_FUZZ_SECONDS (default 20)
# over the golden vectors. C_FUZZ_SECONDS=0 skips the fuzzing.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-c.sh
out=$cargo_target/c
mkdir -p "$out"
strict=(-std=c11 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wstrict-prototypes)
sanitize=(-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
for cc in gcc-12 clang-19; do
  # The library alone, with every warning as an error: what a user's build sees.
  $cc "${strict[@]}" -O2 -c c/karmem.c -o "$out/karmem-$cc.o"
  # The tests need POSIX for directory listing (the golden vectors).
  $cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -pedantic "${sanitize[@]}" \
    -o "$out/test-$cc-san" c/karmem.c c/tests/test_karmem.c
  "$out/test-$cc-san" "$root"
  # The guest runtime (c/karmem_guest.c), the test playing the host.
  $cc "${strict[@]}" -O2 -I c -I c/abi -c c/karmem_guest.c -o "$out/karmem_guest-$cc.o"
  $cc "${strict[@]}" -O2 -I c -c c/abi/abi.c -o "$out/abi-$cc.o"
  $cc -std=c11 -Wall -Wextra -Werror -pedantic "${sanitize[@]}" -I c -I c/abi \
    -o "$out/test-guest-$cc-san" c/karmem.c c/karmem_guest.c c/abi/abi.c c/tests/test_karmem_guest.c
  "$out/test-guest-$cc-san"
done
gcc-12 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -pedantic -O2 \
  -o "$out/test-gcc-O2" c/karmem.c c/tests/test_karmem.c
"$out/test-gcc-O2" "$root"
clang-19 --target=wasm32-wasi "${strict[@]}" -O2 -c c/karmem.c -o "$out/karmem-wasm32.o"
clang-19 --target=wasm32-wasi "${strict[@]}" -O2 -I c -I c/abi -c c/karmem_guest.c -o "$out/karmem_guest-wasm32.o"
echo "test-c: wasm32-wasi build ok"
# The layout benchmark (make bench-c) builds, and its variants agree on a
# small run (it exits non-zero when they do not).
gcc-12 -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$out/dod" c/bench/dod.c c/karmem.c
"$out/dod" 1000 >/dev/null
echo "test-c: c/bench/dod.c builds and its variants agree"
# The serialisation benchmark (make bench-batch) builds and every reader
# (Karmem, FlatBuffers, JSON, raw) finds the same analysis.
scripts/bench-batch.sh --check
# The seed README's example (c/examples/seed.c, docs/c.md): its output, and
# its message byte for byte the golden vector's.
karmem_cli
"$karmem" build --lang c -o "$out/seed" testdata/vectors/seed/schema.km 2>/dev/null
clang-19 "${strict[@]}" "${sanitize[@]}" -Ic -I"$out/seed" -o "$out/seed/seed" \
  c/examples/seed.c "$out/seed/app.c" c/karmem.c
diff <("$out/seed/seed") - <<'WANT'
account 42 <example@email.com>, 200 bytes
inkeliz
karmem
inkeliz
WANT
diff <("$out/seed/seed" --hex) <(grep -v '^#' testdata/vectors/seed/account.hex)
echo "test-c: c/examples/seed.c prints the README's usernames and writes the golden vector's bytes"
# The C member of the integrity suite (c/integrity, docs/integrity.md §7):
# built and its own tests run (scripts/build-integrity-c.sh), then every
# producer x consumer pair with the Rust and Go members.
integrity_c=$(scripts/build-integrity-c.sh | tail -1)
INTEGRITY_MEMBERS=rust,go,c KARMEM_INTEGRITY_C="$integrity_c" INTEGRITY_SEEDS="${INTEGRITY_SEEDS:-24}" \
  cargo test --quiet -p karmem-integrity --test suite
echo "test-c: the C integrity member agrees with Rust and Go"

seconds=${C_FUZZ_SECONDS:-20}
if [ "$seconds" != 0 ]; then
  clang-19 -std=c11 -Wall -Wextra -Werror -pedantic -g -O1 \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -o "$out/fuzz_reader" c/fuzz/fuzz_reader.c c/karmem.c
  # Seeds: every golden vector's bytes; new inputs go to a scratch corpus.
  seeds=$(mktemp -d); scratch=$(mktemp -d)
  trap 'rm -rf "$seeds" "$scratch"' EXIT
  for hex in testdata/vectors/*/*.hex; do
    name=$(basename "$(dirname "$hex")")_$(basename "$hex" .hex)
    cut -s -d: -f2 "$hex" | xxd -r -p > "$seeds/$name"
  done
  log=$out/fuzz_reader.log
  if ! "$out/fuzz_reader" "$scratch" "$seeds" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -print_final_stats=1 >"$log" 2>&1; then
    echo "test-c: fuzz_reader found a problem:"; tail -40 "$log"; exit 1
  fi
  grep -E '^stat::number_of_executed_units' "$log" | sed 's/^/test-c: fuzz_reader /'
fi
echo "test-c: all C checks passed"

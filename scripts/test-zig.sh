#!/usr/bin/env bash
# The Zig library (zig/, docs/zig.md): the toolchain is installed
# (scripts/setup-zig.sh), the sources are `zig fmt` clean, and the tests
# pass in Debug (safety checks on) and in ReleaseSafe, the seed example and
# the integrity member (zig/integrity) agree with the others, then the fuzz target
# (zig/src/fuzz.zig) runs under Zig's fuzzer for ZIG_FUZZ_ITERATIONS
# inputs (default 10000, about 10 s after a 20-40 s build; 0 skips it).
# Builds use at most two jobs (ZIG_JOBS to change it).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/setup-zig.sh
zig() { python3 -m ziglang "$@"; }
jobs=${ZIG_JOBS:-2}

echo "zig: fmt --check"
zig fmt --check zig/

total=0
for mode in Debug ReleaseSafe; do
  echo "zig: build test -Doptimize=$mode"
  log=$(mktemp)
  if ! (cd zig && zig build test -j"$jobs" -Doptimize="$mode" --summary all) >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; exit 1
  fi
  cat "$log"
  # "run test 36 pass (36 total)": the count must be there, and not zero.
  passed=$(sed -n 's/.*run test \([0-9][0-9]*\) pass.*/\1/p' "$log" | head -n1)
  rm -f "$log"
  [ -n "$passed" ] && [ "$passed" -gt 0 ] || { echo "zig: no test ran in $mode"; exit 1; }
  total=$((total + passed))
done
echo "zig: $total passed, 0 failed"

# The seed README's example (zig/examples/seed.zig, docs/zig.md): its
# output, and its message byte for byte the golden vector's.
seed=$cargo_target/zig-seed
mkdir -p "$seed"
karmem_cli
"$karmem" build --lang zig -o "$seed" \
  testdata/vectors/seed/schema.km 2>/dev/null
zig fmt --check "$seed/app.zig"
(cd "$seed" && zig build-exe -ODebug -j"$jobs" --name seed --dep karmem --dep app \
   -Mroot="$root/zig/examples/seed.zig" -Mkarmem="$root/zig/src/karmem.zig" --dep karmem -Mapp="$seed/app.zig")
diff <("$seed/seed") - <<'WANT'
account 42 <example@email.com>, 200 bytes
inkeliz
karmem
inkeliz
WANT
diff <("$seed/seed" --hex) <(grep -v '^#' testdata/vectors/seed/account.hex)
echo "zig: zig/examples/seed.zig prints the README's usernames and writes the golden vector's bytes"

# The Zig member of the integrity suite (zig/integrity, docs/integrity.md
# §7): built (scripts/build-integrity-zig.sh), then every producer x
# consumer pair with the Rust and Go members.
integrity_zig=$(scripts/build-integrity-zig.sh | tail -1)
INTEGRITY_MEMBERS=rust,go,zig KARMEM_INTEGRITY_ZIG="$integrity_zig" INTEGRITY_SEEDS="${INTEGRITY_SEEDS:-24}" \
  cargo test --quiet -p karmem-integrity --test suite
echo "zig: the Zig integrity member agrees with Rust and Go"

# The fuzzer reports a crash ("terminated with signal ..., input saved to
# ...") without failing the build, so its log is read: any "error:" line
# fails. Runs accumulate in zig/.zig-cache: the report says "Runs: A -> B".
iterations=${ZIG_FUZZ_ITERATIONS:-10000}
if [ "$iterations" != 0 ]; then
  echo "zig: build fuzz --fuzz=$iterations -Doptimize=ReleaseSafe"
  log=$(mktemp)
  start=$(date +%s)
  status=0
  (cd zig && zig build fuzz -j"$jobs" -Doptimize=ReleaseSafe --fuzz="$iterations" --summary all) >"$log" 2>&1 || status=$?
  end=$(date +%s)
  if [ "$status" != 0 ] || grep -q '^error:' "$log" || ! grep -q '^Runs: ' "$log"; then
    echo "zig: the fuzz target found a problem (or did not run):"; tail -60 "$log"; rm -f "$log"; exit 1
  fi
  runs=$(sed -n 's/^Runs: \([0-9]*\) -> \([0-9]*\).*/\2 \1/p' "$log" | awk '{print $1 - $2}')
  grep -E '^(Runs|Unique runs|Coverage):' "$log" | sed 's/^/zig: fuzz /'
  echo "zig: fuzz: $runs inputs, $((end - start)) s with the build, no problem found"
  rm -f "$log"
fi

#!/usr/bin/env bash
# The Zig library (zig/, docs/zig.md): the toolchain is installed
# (scripts/setup-zig.sh), the sources are `zig fmt` clean, and the tests
# pass in Debug (safety checks on) and in ReleaseSafe. Builds use at most
# two jobs (ZIG_JOBS to change it).
set -euo pipefail
cd "$(dirname "$0")/.."
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

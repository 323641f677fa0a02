#!/usr/bin/env bash
# Short coverage-guided fuzzing of every reader and validator (libFuzzer via
# cargo-fuzz, AddressSanitizer on). CI runs each target for a few seconds on
# top of the committed corpus (seeded from the golden vectors); run longer by
# hand with: scripts/fuzz.sh 600
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
seconds=${1:-20}
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
# cargo-fuzz needs unstable flags (-Zsanitizer); the stable toolchain accepts
# them with RUSTC_BOOTSTRAP=1, which avoids depending on a nightly download.
export RUSTC_BOOTSTRAP=1
# The differential target reaches the Go guests through this command
# (docs/integrity.md §8); the guests themselves come from `make guests`.
cargo build --quiet -p karmem-integrity --features host --bin karmem-integrity-host
export KARMEM_INTEGRITY_HOST=$cargo_target/debug/karmem-integrity-host
cd fuzz
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target"
  echo "fuzz: $target for ${seconds}s"
  log=$(mktemp); scratch=$(mktemp -d)
  status=0
  # New inputs go to a scratch dir so the committed corpus stays as it is.
  cargo fuzz run "$target" "$scratch" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  grep -E '^(Done|stat::number_of_executed_units)' "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target failed (exit $status):"; tail -40 "$log"; rm -f "$log"; exit 1
  fi
  rm -rf "$log" "$scratch"
done

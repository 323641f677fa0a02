#!/usr/bin/env bash
# Generated code is held to the same standard as hand-written code: generate
# Rust for every schema we ship (examples, benchmark, golden vectors) and
# require rustfmt --check to pass on it. Clippy runs on it through the crates
# that include it (karmem-vectors-rust, karmem-bench, the demo) in `make lint`.
# Then the committed expected output (testdata/expected) must be exactly what
# the generators write today: any change to generated code shows up there as
# a reviewed diff (refresh with scripts/refresh-expected.sh, `make expected`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet -p karmem-cli
karmem=${CARGO_TARGET_DIR:-target}/debug/karmem
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
while IFS= read -r schema; do
  dir="$out/$n"; n=$((n + 1))
  "$karmem" check "$schema" 2>/dev/null
  # rust-guest/rust-host only where the schema has interfaces (they embed the
  # data types too); clippy covers them through crates/karmem-e2e.
  langs=(--lang rust)
  grep -q '^interface ' "$schema" && langs+=(--lang rust-guest --lang rust-host)
  "$karmem" build "${langs[@]}" -o "$dir" "$schema" 2>/dev/null
  # Determinism: a second run must produce identical files.
  "$karmem" build "${langs[@]}" -o "$dir.again" "$schema" 2>/dev/null
  diff -r "$dir" "$dir.again" >/dev/null || { echo "non-deterministic output for $schema"; exit 1; }
  find "$dir" -name '*.rs' -print0 | xargs -0 rustfmt --edition 2021 --check \
    || { echo "generated code for $schema is not rustfmt-clean"; exit 1; }
done < <(find examples crates/karmem-bench/schemas testdata/schemas testdata/vectors guests -name '*.km' -not -path '*/target/*' | sort)
echo "generated code: $n schemas, deterministic and rustfmt-clean"

scripts/gen-expected.sh "$out/expected"
if ! diff -r testdata/expected "$out/expected"; then
  echo "generated code differs from testdata/expected (diff above: expected vs. now)."
  echo "If the change is intended, refresh the committed files and review them:"
  echo "  scripts/refresh-expected.sh   (or: make expected)"
  exit 1
fi
echo "generated code: identical to testdata/expected"

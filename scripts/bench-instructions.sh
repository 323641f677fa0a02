#!/usr/bin/env bash
# Instruction counts of every benchmark operation (callgrind), a
# load-independent companion to the criterion wall times: the machine is
# shared, instruction counts are not disturbed by other processes.
# Usage: scripts/bench-instructions.sh [FILTER]   (prints a Markdown table)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
if ! command -v valgrind >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi
cargo build --release -q -p karmem-bench --example ops
ops=$cargo_target/release/examples/ops
n=3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| operation | instructions per run |"
echo "|---|---:|"
"$ops" list | grep -- "${1:-}" | while IFS= read -r op; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect='*measured*' \
    "$ops" run "$op" "$n" 2>"$out/log" >/dev/null
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/log")
  printf '| %s | %d |\n' "$op" $((total / n))
done

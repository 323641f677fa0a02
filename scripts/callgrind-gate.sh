#!/usr/bin/env bash
# The call path's regression gate (docs/benchmarks.md "Regression gate"):
# instruction counts of a WAT guest's nop and echo, of a guest->guest
# call with and without data, of a guest->host call without data and of
# building an application of the WAT guest, by callgrind, against crates/karmem-host/callgrind-budget.txt.
# Counts, not times: they are the same on a loaded machine. A count more
# than 10 % over its budget fails; one more than 15 % under it asks for the
# budget to be lowered (so the next regression is caught from there).
#   scripts/callgrind-gate.sh            check
#   scripts/callgrind-gate.sh --update   rewrite the budget from this build
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
if ! command -v valgrind >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi
budget=crates/karmem-host/callgrind-budget.txt
cargo build --quiet -p karmem-host --example callcount
bin=$cargo_target/debug/examples/callcount
calls=1000
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {
  # to_host and to_guest: each host call makes 100 karmem.calls (the
  # example's INNER); the count is per karmem.call.
  local n=$calls per=$calls
  case "$1" in to_host|to_guest) n=$((calls / 100)) ;; esac
  # A run that reports no count (the program failed, or valgrind did) is
  # tried once more and then fails the gate: a missing count is not 0.
  local total="" attempt
  for attempt in 1 2; do
    if valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect='*measured_calls*' --toggle-collect='*measured_builds*' \
      "$bin" "$1" "$n" >/dev/null 2>"$out/log"; then
      total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/log")
    fi
    [ -n "$total" ] && [ "$total" -gt 0 ] && break
    echo "callgrind-gate: case $1, attempt $attempt: no instruction count; valgrind's output ends:" >&2
    tail -20 "$out/log" >&2
    total=""
  done
  [ -n "$total" ] || return 1
  echo $((total / per))
}
if [ "${1:-}" = "--update" ]; then
  grep '^#' "$budget" >"$out/new"
  for case in $(grep -v '^#' "$budget" | awk '{print $1}'); do
    got=$(count "$case") || { echo "callgrind-gate: case $case could not be counted" >&2; exit 1; }
    echo "$case $got" >>"$out/new"
  done
  cp "$out/new" "$budget"
  cat "$budget"
  exit 0
fi
fail=0
while read -r case allowed; do
  case "$case" in ''|'#'*) continue ;; esac
  got=$(count "$case") || { echo "callgrind-gate: case $case could not be counted" >&2; exit 1; }
  verdict=ok
  if [ "$got" -gt $((allowed * 110 / 100)) ]; then
    verdict="OVER BUDGET (+$(( (got - allowed) * 100 / allowed )) %)"; fail=1
  elif [ "$got" -lt $((allowed * 85 / 100)) ]; then
    verdict="well under budget: lower it (scripts/callgrind-gate.sh --update)"
  fi
  printf 'callgrind-gate: %-6s %6d instructions per call (budget %d): %s\n' "$case" "$got" "$allowed" "$verdict"
done <"$budget"
if [ "$fail" -ne 0 ]; then
  echo "callgrind-gate: the call path got slower; profile it (valgrind --tool=callgrind $bin nop $calls) or, if intended, update the budget with the reason" >&2
  exit 1
fi

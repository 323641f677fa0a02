#!/usr/bin/env bash
# The first Karmem (inkeliz/karmem) against this library's Go code on v1's
# own benchmark schema and data, both built here and run interleaved
# (docs/benchmarks.md "Go against the first Karmem").
#
# Usage: scripts/bench-go-v1.sh V1_CHECKOUT [COUNT] [LAYOUT]
#   V1_CHECKOUT  a checkout of github.com/inkeliz/karmem (measured: 8949d1b)
#   COUNT        rounds of each benchmark, alternating v1 and this library
#                (default 6)
#   LAYOUT       `packed` (default): v1's schema as written, `@packed(true)`,
#                so this library's monsters and paths are AoS; `soa`: the
#                schema without that attribute for this library (its default
#                layout, SoA; v1's side is unchanged), summed over columns
#                (scripts/v1-compare/layout_*_test.go)
# v1's module (karmem.org) is not served by the Go module proxy, so it is
# used from the checkout through a replace directive; nothing is fetched.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
v1=$(cd "${1:?usage: $0 V1_CHECKOUT [COUNT]}" && pwd)
count=${2:-6}
layout=${3:-packed}
case "$layout" in packed|soa) ;; *) echo "LAYOUT is packed or soa, not $layout" >&2; exit 2 ;; esac
[ -f "$v1/golang/karmem.go" ] && [ -f "$v1/benchmark/testdata/game.km" ] ||
  { echo "$v1 is not a checkout of inkeliz/karmem" >&2; exit 1; }
source scripts/go-tools.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ours" "$work/v1km"
karmem_cli
schema=$v1/benchmark/testdata/game.km
if [ "$layout" = soa ]; then
  grep -q ' @packed(true)' "$schema" || { echo "$schema has no @packed(true) to remove" >&2; exit 1; }
  sed 's/ @packed(true)//' "$schema" >"$work/game.km"
  schema=$work/game.km
fi
"$karmem" build --lang go -o "$work/ours" "$schema" >/dev/null
cp "$v1/benchmark/km/game_generated.go" "$work/v1km/"
cp scripts/v1-compare/compare_test.go "scripts/v1-compare/layout_${layout}_test.go" "$work/"
ours=$root/go
(
  cd "$work"
  go mod init v1compare >/dev/null 2>&1
  go mod edit -require=karmem.org@v1.0.0 -replace=karmem.org="$v1" \
    -require=karmem.org/go/karmem@v0.0.0 -replace=karmem.org/go/karmem="$ours"
  GOFLAGS=-mod=mod go test -c -o compare.test . >/dev/null
  ./compare.test -test.run TestSameResults -test.v | grep 'message size' | sed 's/^ *//'
  for round in $(seq "$count"); do
    ./compare.test -test.run '^$' -test.bench . -test.benchtime 1s
  done | grep '^Benchmark' | sort
)

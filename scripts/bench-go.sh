#!/usr/bin/env bash
# Go benchmarks (go test -bench, not tests): Karmem against FlatBuffers,
# Protocol Buffers, encoding/json and a raw Go struct, in one run. Run
# un-niced; the raw output and benchstat tables go to go/bench/results/.
#   COUNT=6 BENCHTIME=2s scripts/bench-go.sh
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
source scripts/go-tools.sh
go_bench_tools
go_benchstat
go_bench_generate "$root"
mkdir -p go/bench/results
cd go/bench
raw=results/latest.txt
uptime | tee "$raw.conditions"
# COUNT rounds of every contender (rather than COUNT runs of one, then the
# next): on a shared machine, load changes then hit all contenders alike.
go test -c -o results/bench.test .
: >"$raw"
for round in $(seq "${COUNT:-6}"); do
  echo "round $round" >&2
  ./results/bench.test -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-1s}" | tee -a "$raw"
done
# The sum target is a comparison of two ~1 ms loops: measure those two
# again, many times, back to back.
./results/bench.test -test.run '^$' -test.bench 'DecodeSumVec3/impl=(karmem|raw)' \
  -test.benchtime 300ms -test.count 10 | tee results/sum.txt
uptime | tee -a "$raw.conditions"
benchstat -col /impl "$raw" | tee results/latest.benchstat.txt
benchstat -col /impl results/sum.txt | tee results/sum.benchstat.txt

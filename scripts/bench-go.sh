#!/usr/bin/env bash
# Go benchmarks (go test -bench, not tests): Karmem against FlatBuffers,
# Protocol Buffers, encoding/json and a raw Go struct, in one run. Run
# un-niced; the raw output and benchstat tables go to go/bench/results/.
#   COUNT=6 BENCHTIME=2s scripts/bench-go.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/go-tools.sh
go_bench_tools
go_bench_generate "$root"
mkdir -p go/bench/results
cd go/bench
raw=results/latest.txt
go test -run '^$' -bench . -count "${COUNT:-6}" -benchtime "${BENCHTIME:-1s}" . | tee "$raw"
benchstat -col /impl "$raw" | tee results/latest.benchstat.txt

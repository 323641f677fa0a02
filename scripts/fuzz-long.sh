#!/usr/bin/env bash
# A long fuzzing campaign over every fuzz target: the Rust libFuzzer targets
# (fuzz/, the differential one included) and the Go native fuzz targets
# (go/internal/hostile, go/internal/vectors) and the C library's target
# (c/fuzz), each for SECONDS (default 600).
# `make test` runs the same targets briefly (scripts/fuzz.sh, scripts/test-go.sh);
# this is `make fuzz-long`. A summary line per target goes to stdout and to
# target/fuzz-long/summary.txt, for docs/integrity.md's campaign record.
# A finding stops the campaign with the target's log; libFuzzer leaves the
# crashing input in fuzz/artifacts/<target>/, Go in testdata/fuzz/<Target>/
# of the package.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
seconds=${1:-600}
out=$root/target/fuzz-long
mkdir -p "$out"
summary=$out/summary.txt
echo "fuzz-long: $(date -u +%Y-%m-%dT%H:%MZ), ${seconds}s per target" | tee "$summary"

# The Rust targets: scripts/fuzz.sh, as `make test` runs them, for longer.
scripts/fuzz.sh "$seconds" | tee -a "$summary"

export PATH="$PATH:/usr/local/go/bin"
for spec in hostile:FuzzReader hostile:FuzzValidator vectors:FuzzDataModel; do
  pkg=${spec%%:*}; target=${spec#*:}
  log=$out/go-$target.log
  status=0
  # Go minimises each new interesting input for up to 60 s by default,
  # counting none of it as executions: a minute-long run then shows a few
  # thousand inputs and "0/sec". A bounded minimisation keeps it fuzzing.
  (cd go && go test -run '^$' -fuzz "^$target\$" -fuzztime "${seconds}s" -fuzzminimizetime 200x "./internal/$pkg") >"$log" 2>&1 || status=$?
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  if [ "$status" -ne 0 ]; then
    echo "go $target: FINDING (exit $status), see $log" | tee -a "$summary"
    tail -40 "$log"; exit 1
  fi
  echo "go $target: $execs inputs, no findings" | tee -a "$summary"
done
# The C library's libFuzzer target (scripts/test-c.sh runs it after the
# C tests).
log=$out/c-fuzz_reader.log
if ! C_FUZZ_SECONDS="$seconds" scripts/test-c.sh >"$log" 2>&1; then
  echo "c fuzz_reader: FINDING, see $log" | tee -a "$summary"
  tail -40 "$log"; exit 1
fi
echo "c fuzz_reader: $(grep -o 'number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*') inputs, no findings" | tee -a "$summary"
echo "fuzz-long: done; summary in $summary"

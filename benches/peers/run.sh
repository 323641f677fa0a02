#!/usr/bin/env bash
# The call-overhead peers benchmark (README.md): installs what is missing
# (idempotent), builds the guests, runs the criterion benchmark.
# Arguments go to criterion: `run.sh peers/` runs the thread-time group
# alone, `run.sh --quick` a shorter run.
# Not part of `make test`: the first build compiles two wasmtimes (≈ 15 min
# on 2 busy cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}

"$here/build-guests.sh"

echo "run.sh: $(uptime)"
cd "$here"
# nice only for the build: the measurement itself runs at normal priority,
# and CPU time, not wall time, is what it counts.
nice -n 10 cargo bench --locked -p karmem-peers --no-run
cargo bench --locked -p karmem-peers --bench peers -- "$@"
echo "run.sh: $(uptime)"

#!/usr/bin/env bash
# Python benchmark (docs/benchmarks.md, "Python"): the generated Python of
# the benchmark game schema against FlatBuffers (flatc --python
# --gen-object-api, PyPI flatbuffers), Protocol Buffers (protoc
# --python_out, PyPI protobuf) and JSON on the Go benchmark's data
# (python/bench/bench.py). Needs flatc and protoc (as scripts/bench-ts.sh).
#   MONSTERS=100 ROUNDS=3 SECONDS=0.5 scripts/bench-python.sh
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
numpy_version=2.4.6
flatbuffers_version=25.12.19
protobuf_version=7.36.2
python3 - "$numpy_version" "$flatbuffers_version" "$protobuf_version" <<'PY' 2>/dev/null ||
import sys, importlib.metadata as m
sys.exit([m.version(p) for p in ("numpy", "flatbuffers", "protobuf")] != sys.argv[1:])
PY
  python3 -m pip install --quiet "numpy==$numpy_version" "flatbuffers==$flatbuffers_version" "protobuf==$protobuf_version"
command -v flatc >/dev/null && command -v protoc >/dev/null \
  || { echo "bench-python: flatc and protoc are required" >&2; exit 1; }
karmem_cli
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
"$karmem" build --lang python -o "$gen/km" crates/karmem-bench/schemas/game.km 2>/dev/null
flatc --python --gen-object-api -o "$gen/fb" go/bench/game.fbs
mkdir -p "$gen/pb"
protoc --python_out="$gen/pb" -I go/bench go/bench/game.proto
uptime
KARMEM_BENCH_GEN=$gen PYTHONPATH=python python3 python/bench/bench.py
uptime

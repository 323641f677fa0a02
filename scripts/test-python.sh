#!/usr/bin/env bash
# The Python backend and its runtime (python/karmem, docs/python.md): every
# vector schema generated with `karmem build --lang python`, the generated
# modules and the runtime checked with ruff (lint and format) and
# `mypy --strict`, then the golden vectors through the generated code
# (python/tests/test_vectors.py: every case byte for byte, the evolution
# readers, the hostile cases, the viewers and their SoA columns, through
# NumPy too) and the runtime's own tests, then the Python member of the
# integrity suite (python/integrity, docs/integrity.md §7): its own tests,
# and every pair with the Rust and Go members. Needs Python 3.11 or later;
# ruff, mypy and NumPy are installed at pinned versions.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
ruff_version=0.17.6
mypy_version=2.4.1
numpy_version=2.4.6
python3 - "$ruff_version" "$mypy_version" "$numpy_version" <<'PY' 2>/dev/null ||
import sys, importlib.metadata as m
sys.exit([m.version(p) for p in ("ruff", "mypy", "numpy")] != sys.argv[1:])
PY
  python3 -m pip install --quiet "ruff==$ruff_version" "mypy==$mypy_version" "numpy==$numpy_version"
karmem_cli
start=$(date +%s)
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
# One directory per schema file (topics share package names), and a flat
# copy, one module name each, for the linters.
mkdir -p "$gen/flat"
for km in testdata/vectors/*/*.km; do
  [ -L "$km" ] && continue
  topic=$(basename "$(dirname "$km")")
  stem=$(basename "$km" .km)
  "$karmem" build --lang python -o "$gen/vectors/$topic/$stem" "$km" 2>/dev/null
  cp "$gen/vectors/$topic/$stem"/*.py "$gen/flat/${topic}_$stem.py"
done
python3 -m ruff check --quiet --isolated "$gen/flat"
python3 -m ruff format --quiet --isolated --check "$gen/flat"
(cd python && python3 -m ruff check --quiet karmem tests bench integrity && python3 -m ruff format --quiet --check karmem tests bench integrity)
# The generated modules import `karmem`, which mypy checks with them.
MYPYPATH=python python3 -m mypy --strict --no-error-summary --cache-dir "$gen/mypy" "$gen/flat"
KARMEM_PY_GEN=$gen/vectors PYTHONPATH=python:python/tests \
  python3 -m unittest discover --start-directory python/tests --top-level-directory python/tests
# Both versions of the integrity schema, for the integrity member
# (python/integrity, which finds them through KARMEM_INTEGRITY_PY_GEN).
for v in old new; do
  "$karmem" build --lang python -o "$gen/integrity/$v" "testdata/integrity/$v.km" 2>/dev/null
done
MYPYPATH=python python3 -m mypy --strict --no-error-summary --cache-dir "$gen/mypy" python/integrity
KARMEM_INTEGRITY_PY_GEN=$gen/integrity PYTHONPATH=python python3 -m unittest -q integrity.test_member
# The Python member of the integrity suite (docs/integrity.md §7): every
# producer x consumer pair with the Rust and Go members.
INTEGRITY_MEMBERS=rust,go,python KARMEM_INTEGRITY_PY="$PWD/python/integrity/main.py" \
  KARMEM_INTEGRITY_PY_GEN="$gen/integrity" INTEGRITY_SEEDS="${INTEGRITY_SEEDS:-24}" \
  cargo test --quiet -p karmem-integrity --test suite
echo "test-python: the Python integrity member agrees with Rust and Go"
echo "test-python: $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# A second host in the tests: second-host/karmem_host.py, the guest ABI on
# the `wasmtime` Python package, written from docs/abi.md and sharing no
# code with crates/karmem-host (RATIONALE R8.19). It loads the five echo
# modules after `karmem rewrite` (docs/abi.md §6.1), checks their
# descriptors' signature hashes, and runs the happy paths of the
# conformance suite (crates/karmem-e2e/tests/conformance.rs): nop, echo,
# an unknown function, a bad argument, an application error.
# Needs the guest modules (scripts/build-guests.sh). About half a minute.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
# The same pin as scripts/bench-c.sh and bench-batch.sh, so the scripts do
# not reinstall each other's version.
version=50.0.1
python3 - "$version" <<'PY' 2>/dev/null || python3 -m pip install --quiet "wasmtime==$version"
import sys, importlib.metadata as m
sys.exit(m.version("wasmtime") != sys.argv[1])
PY
karmem_cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for lang in rust go c zig as; do
  wasm=guests/out/e2e-$lang-echo.wasm
  [ -f "$wasm" ] || { echo "test-second-host: $wasm is missing: run scripts/build-guests.sh"; exit 1; }
  "$karmem" rewrite "$wasm" "$out/e2e-$lang-echo.wasm" 2>/dev/null
done
start=$(date +%s)
PYTHONPATH=second-host python3 second-host/test_second_host.py "$karmem" "$out" "$root"
echo "test-second-host: $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# The AssemblyScript library (as/, docs/assemblyscript.md): installs the
# compiler with `npm ci` in as/ (once per lockfile), builds the CLI and
# generates code with `karmem build --lang as` for the e2e, arena and ABI
# schemas, then runs crates/karmem-vectors-as: every golden vector through
# ONE generated driver compiled by asc (assertions on: no --noAssert; any
# warning, or a pedantic note in generated or library code, fails) and
# run under Node, the same schemas' code compiled and round-tripped, and
# thousands of damaged messages that must never trap.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. scripts/lib/npm.sh
npm_ci_once test-as as
karmem_cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for schema in guests/polyglot.km examples/arena/arena.km docs/abi.km; do
  "$karmem" build --lang as -o "$out" "$schema" 2>/dev/null
done
ls "$out"/*.ts >/dev/null
cargo test --quiet -p karmem-codegen --lib assemblyscript
cargo test --quiet -p karmem-vectors-as -- --nocapture

#!/usr/bin/env bash
# The AssemblyScript library (as/, docs/assemblyscript.md): installs the
# compiler with `npm ci` in as/ (once per lockfile), builds the CLI and
# generates code with `karmem build --lang as` for the e2e, arena and ABI
# schemas, then runs crates/karmem-vectors-as: every golden vector through
# ONE generated driver compiled by asc (assertions on: no --noAssert; any
# warning, or a pedantic note in generated or library code, fails) and
# run under Node, the same schemas' code compiled and round-tripped, and
# thousands of damaged messages that must never trap; then the integrity
# member (as/integrity) agrees with Rust and Go.
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
# The AssemblyScript member of the integrity suite (as/integrity,
# docs/integrity.md §7): built (scripts/build-integrity-as.sh), then every
# producer x consumer pair with Rust and Go, both versions, 24 seeds.
integrity_as=$(scripts/build-integrity-as.sh | tail -1)
INTEGRITY_MEMBERS=rust,go,as KARMEM_INTEGRITY_AS="$integrity_as" INTEGRITY_SEEDS="${INTEGRITY_SEEDS:-24}" \
  cargo test --quiet -p karmem-integrity --test suite
echo "as: the AssemblyScript integrity member agrees with Rust and Go"

#!/usr/bin/env bash
# The TypeScript library (ts/, docs/typescript.md): installs the dev tools
# with `npm ci` (once per lockfile), generates TypeScript with
# `karmem build --lang ts` for every golden-vector schema into ts/gen/,
# compiles library, tests and generated code with `tsc --strict`, and runs
# every test with Node's test runner (unit, golden and hostile vectors,
# property tests), then the TypeScript member of the integrity suite.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. scripts/ts-setup.sh test-ts
cd ts
rm -rf gen dist
for schema in ../testdata/vectors/*/*.km; do
  topic=$(basename "$(dirname "$schema")")
  "$karmem" build --lang ts -o "gen/vectors/$topic/$(basename "$schema" .km)" "$schema" 2>/dev/null
done
for schema in test/schemas/*.km; do
  "$karmem" build --lang ts -o "gen/test/$(basename "$schema" .km)" "$schema" 2>/dev/null
done
# Both versions of the integrity schema, for the integrity member (ts/integrity).
for v in old new; do
  "$karmem" build --lang ts -o "gen/integrity/$v" "../testdata/integrity/$v.km" 2>/dev/null
done
npx tsc -p tsconfig.json
npx tsc -p integrity/tsconfig.json
node --test dist/test/*.test.js dist/integrity/*.test.js
# The TypeScript member of the integrity suite (docs/integrity.md §7): every
# producer x consumer pair with the Rust and Go members.
INTEGRITY_MEMBERS=rust,go,ts KARMEM_INTEGRITY_TS="$PWD/dist/integrity/main.js" INTEGRITY_SEEDS="${INTEGRITY_SEEDS:-24}" \
  cargo test --quiet -p karmem-integrity --test suite
echo "test-ts: the TypeScript integrity member agrees with Rust and Go"

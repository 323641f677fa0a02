#!/usr/bin/env bash
# The TypeScript library (ts/, docs/typescript.md): installs the dev tools
# with `npm ci` (once per lockfile), generates TypeScript with
# `karmem build --lang ts` for every golden-vector schema into ts/gen/,
# compiles library, tests and generated code with `tsc --strict`, and runs
# every test with Node's test runner (unit, golden and hostile vectors,
# property tests).
set -euo pipefail
cd "$(dirname "$0")/.."
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
npx tsc -p tsconfig.json
node --test dist/test/*.test.js

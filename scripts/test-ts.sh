#!/usr/bin/env bash
# The TypeScript library (ts/, docs/typescript.md): installs the dev tools
# with `npm ci` (once per lockfile), generates TypeScript with
# `karmem build --lang ts` for every golden-vector schema into ts/gen/,
# compiles library, tests and generated code with `tsc --strict`, and runs
# every test with Node's test runner (unit, golden and hostile vectors,
# property tests), then the TypeScript member of the integrity suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node 20 comes with this machine's image; elsewhere Debian's packages.
command -v node >/dev/null || scripts/apt-ensure.sh test-ts nodejs npm
command -v npm >/dev/null || scripts/apt-ensure.sh test-ts npm
cargo build --quiet -p karmem-cli
target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target=$PWD/$target ;; esac
karmem=$target/debug/karmem
cd ts
# npm ci again only when the lockfile changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
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

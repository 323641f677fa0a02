#!/usr/bin/env bash
# Builds the message inspector (ts/web, docs/typescript.md "In the
# browser") into ts/web/dist: `karmem build --lang ts` for the seed, arena
# and every golden-vector schema into ts/web/gen, `tsc --strict` over the
# library, the page and that generated code, then ts/web/build.mjs (page,
# stylesheet, vectors, catalog.json). Node, karmem and the dev tools (ts/'s)
# come from scripts/ts-setup.sh, as for scripts/test-ts.sh.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. scripts/ts-setup.sh build-web
cd ts/web
rm -rf gen dist
"$karmem" build --lang ts -o gen/arena/arena ../../examples/arena/arena.km 2>/dev/null
# The arena has no vectors: one game state, encoded by the oracle
# (`karmem json encode`) from examples/arena-state.json.
mkdir -p gen/examples
"$karmem" json encode --root State ../../examples/arena/arena.km <examples/arena-state.json >gen/examples/arena-state.bin
for schema in ../../testdata/vectors/*/*.km; do
  topic=$(basename "$(dirname "$schema")")
  "$karmem" build --lang ts -o "gen/$topic/$(basename "$schema" .km)" "$schema" 2>/dev/null
done
../node_modules/.bin/tsc -p tsconfig.json
node build.mjs

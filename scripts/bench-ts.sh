#!/usr/bin/env bash
# TypeScript benchmark (docs/benchmarks.md, "TypeScript"): Karmem's
# generated TypeScript against flatbuffers (flatc --ts --gen-object-api),
# @bufbuild/protobuf (protoc + protoc-gen-es) and JSON on the Go
# benchmark's game state. Needs node, flatc and protoc (as scripts/bench-go.sh).
#   ROUNDS=5 SECONDS=0.5 scripts/bench-ts.sh
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
karmem_cli
command -v flatc >/dev/null && command -v protoc >/dev/null \
  || { echo "bench-ts: flatc and protoc are required" >&2; exit 1; }
. scripts/lib/npm.sh
npm_ci_once bench-ts ts
npm_ci_once bench-ts ts/bench
cd ts
npx tsc -p tsconfig.json
cd bench
rm -rf gen dist
mkdir -p gen/pb
flatc --ts --gen-object-api -o gen/fb ../../go/bench/game.fbs
# flatc 2.0.8 writes extensionless imports, which Node's ES modules do not resolve.
find gen/fb -name '*.ts' -exec sed -i -E "s#from '(\.\.?/[^']*)'#from '\1.js'#" {} +
protoc --plugin=protoc-gen-es=node_modules/.bin/protoc-gen-es --es_out=gen/pb \
  --es_opt=target=ts,import_extension=js -I ../../go/bench ../../go/bench/game.proto
"$karmem" build --lang ts -o gen/km ../../crates/karmem-bench/schemas/game.km 2>/dev/null
npx tsc -p tsconfig.json
uptime
node dist/src/bench.js
uptime

#!/usr/bin/env bash
# Build the AssemblyScript guest modules guests/as/<name>/ into
# guests/out/<name>.wasm with asc (AssemblyScript 0.28, as/package.json):
# optimised (-O3), the incremental garbage-collected runtime, no WASI, and
# `abort` routed to the guest runtime's handler (a trap of the current call,
# never an import from `env`, which the host refuses): docs/assemblyscript.md,
# "Guests".
#
# The bindings are generated here from each schema with
# `karmem build --lang as-guest` into guests/as/gen/<schema>/ (not
# committed: always regenerated, so never stale). The guest runtime's
# descriptor types (as/assembly/abi.ts) must be what the generator writes
# for docs/abi.km today. asc's warnings fail the build.
# Incremental: a module is rebuilt only when its sources, its schema, the
# library, the compiler or the generator changed (a stamp next to the .wasm).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# The compiler, as as/package-lock.json pins it (part of every stamp).
. scripts/lib/npm.sh
npm_ci_once build-guests-as as
lock=$(sha256sum as/package-lock.json | cut -c1-64)
asc=$root/as/node_modules/.bin/asc

. scripts/lib/guests.sh
guest_karmem

# as/assembly/abi.ts is the generator's output for docs/abi.km with the
# package import made a file import (it lives inside the package).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$karmem" build --lang as -o "$tmp" docs/abi.km 2>/dev/null
sed -e 's|^} from "karmem-as/assembly";$|} from "./index";|' "$tmp/abi.ts" > "$tmp/abi.expected.ts"
cmp -s "$tmp/abi.expected.ts" as/assembly/abi.ts || {
  echo "as/assembly/abi.ts differs from the generator's output for docs/abi.km:"
  diff -u as/assembly/abi.ts "$tmp/abi.expected.ts" | head -40
  echo "refresh it: $karmem build --lang as -o /tmp/abi docs/abi.km, then the sed above"
  exit 1
}

# The modules import the library as the package `karmem-as`: asc finds it
# in the node_modules of the directory it runs in, guests/as/node_modules
# (not committed), a link to as/.
mkdir -p guests/as/node_modules
ln -sfn ../../../as guests/as/node_modules/karmem-as

# Inputs shared by every module: the library, the compiler, the generator.
shared=$( { find as/assembly -name '*.ts' -print0 | sums; echo "$lock"; \
            codegen_sums; sha256sum scripts/build-guests-as.sh; } | hash64)

# Always regenerate the bindings (cheap): the modules compile against them.
rm -rf guests/as/gen
for schema in guests/polyglot.km examples/arena/arena.km; do
  # The directory is the schema's package, which names the generated files.
  name=$(sed -n 's/^karmem \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$schema" | head -n1)
  "$karmem" build --lang as-guest -o "guests/as/gen/$name" "$schema" 2>/dev/null
done

flags=(-O3 --runtime incremental --noColors
       --use "abort=~lib/karmem-as/assembly/guest/abortHandler")

# Every schema with interfaces, not only the modules' own: the generated
# dispatchers (every function, whatever it takes and returns) and clients
# must compile without a warning. asc compiles only what is reachable, so a
# lint entry takes each exporter class as a parameter and calls its
# dispatcher, and constructs each client. Redone when the library or the
# generator changed.
if [ "$(cat guests/out/.as-lint.stamp 2>/dev/null)" != "$shared" ]; then
  lint=guests/as/gen/lint
  n=0
  while IFS= read -r schema; do
    grep -q '^interface ' "$schema" || continue
    dir=$lint/$n; n=$((n + 1))
    "$karmem" build --lang as-guest -o "$dir" "$schema" 2>/dev/null
    bindings=$(basename "$(ls "$dir"/*_guest.ts)" .ts)
    { echo 'export * from "karmem-as/assembly/guest-exports";'
      echo "import * as g from \"./$bindings\";"
      grep -o '^export abstract class [A-Za-z0-9_]*' "$dir/$bindings.ts" \
        | awk '{ print "export function lint" $4 "(e: g." $4 "): i32 { return e.dispatch(0); }" }'
      grep -o '^export class [A-Za-z0-9_]*Client' "$dir/$bindings.ts" \
        | awk '{ print "const c" $3 " = new g." $3 "();" }'
    } > "$dir/lint.ts"
    if ! (cd guests/as && "$asc" "${dir#guests/as/}/lint.ts" "${flags[@]}" -O1 -o "$tmp/lint.wasm") \
         > "$tmp/asc.log" 2>&1 || grep -q 'WARNING\|ERROR' "$tmp/asc.log"; then
      cat "$tmp/asc.log"; echo "build-guests-as: the bindings of $schema do not compile cleanly"; exit 1
    fi
  done < <(find examples guests testdata/schemas docs -name '*.km' -not -path '*/target/*' -not -path '*/node_modules/*' | sort)
  echo "$shared" > guests/out/.as-lint.stamp
  echo "build-guests-as: the AssemblyScript guest bindings of $n schemas compile without a warning"
fi
built=0
for dir in guests/as/*/; do
  name=$(basename "$dir")
  [ -f "$dir/main.ts" ] || continue
  schema=$(guest_schema build-guests-as "$name")
  out=guests/out/$name.wasm
  stamp=$(find "$dir" -type f -name '*.ts' -print0 | module_stamp "$shared" "$schema")
  stamp_current "$out" "$stamp" && continue
  (cd guests/as && "$asc" "$name/main.ts" "${flags[@]}" -o "$root/$out.tmp") > "$tmp/asc.log" 2>&1 || {
    cat "$tmp/asc.log"; echo "build-guests-as: $name does not compile"; exit 1; }
  # asc prints nothing for a clean module: a warning is a failure too.
  if grep -q 'WARNING\|ERROR' "$tmp/asc.log"; then
    cat "$tmp/asc.log"; rm -f "$out.tmp"
    echo "build-guests-as: $name compiles with warnings"; exit 1
  fi
  stamp_install build-guests-as "$out" "$stamp"
  built=$((built + 1))
done
echo "build-guests-as: $built built, the others up to date"

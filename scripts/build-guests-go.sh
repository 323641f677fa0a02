#!/usr/bin/env bash
# Build the Go guest modules guests/go/<name>/ into guests/out/<name>.wasm
# (GOOS=wasip1, -buildmode=c-shared: a reactor, docs/abi.md §1).
#
# Each module's bindings are generated here from its schema with
# `karmem build --lang go-guest` into guests/go/<name>/<package>/ (not
# committed: always regenerated, so never stale), then checked: gofmt-clean
# as generated, go vet for the host and for wasip1.
# Incremental: a module is rebuilt only when its sources, its schema, the
# Go library or the generator changed (a stamp next to the .wasm).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
export PATH="$PATH:$(go env GOPATH)/bin"
. scripts/lib/guests.sh
guest_karmem

# Inputs shared by every module: the Go library and the generator.
shared=$( { find go -name '*.go' -not -path 'go/bench/*' -not -path 'go/internal/*' -print0 | sums; \
            codegen_sums; } | hash64)

built=0
for dir in guests/go/*/; do
  name=$(basename "$dir")
  [ -f "$dir/go.mod" ] || continue
  schema=$(guest_schema build-guests-go "$name")
  package=$(grep -o 'golang.package(`[a-z0-9_]*`)' "$schema" | sed 's/.*(`\(.*\)`)/\1/')
  out=guests/out/$name.wasm
  stamp=$(find "$dir" -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) \
            -not -path "$dir$package/*" -print0 | module_stamp "$shared" "$schema")
  stamp_current "$out" "$stamp" && continue
  rm -rf "${dir:?}$package"
  # Without gofmt on PATH the CLI writes the generator's raw output: that
  # is what must be gofmt-clean.
  PATH=/usr/bin:/bin "$karmem" build --lang go-guest -o "$dir$package" "$schema" 2>/dev/null
  unformatted=$(gofmt -l "$dir$package")
  [ -z "$unformatted" ] || { echo "generated Go guest code is not gofmt-clean: $unformatted"; gofmt -d "$dir$package" | head -40; exit 1; }
  unformatted=$(gofmt -l "$dir"*.go)
  [ -z "$unformatted" ] || { echo "not gofmt-clean: $unformatted"; exit 1; }
  (cd "$dir" && go vet ./... && GOOS=wasip1 GOARCH=wasm go vet ./...)
  (cd "$dir" && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o "$root/$out.tmp" .)
  stamp_install build-guests-go "$out" "$stamp"
  built=$((built + 1))
done
# Guests inside the Go module (they use its internal packages): the
# integrity suite's members, go/internal/integrity/guest/<version>/ →
# guests/out/go-integrity-<version>.wasm (docs/integrity.md §6). Their
# bindings are committed with the module's other generated code
# (go/internal/gen, checked by scripts/test-go.sh).
for dir in go/internal/integrity/guest/*/; do
  version=$(basename "$dir")
  out=guests/out/go-integrity-$version.wasm
  stamp=$( { echo "$shared"; find go/internal/integrity "go/internal/gen/integrity_$version" -type f -name '*.go' -print0 \
             | sums; } | hash64)
  stamp_current "$out" "$stamp" && continue
  (cd go && GOOS=wasip1 GOARCH=wasm go vet "./internal/integrity/guest/$version" \
     && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o "$root/$out.tmp" "./internal/integrity/guest/$version")
  stamp_install build-guests-go "$out" "$stamp"
  built=$((built + 1))
done
echo "build-guests-go: $built built, the others up to date"

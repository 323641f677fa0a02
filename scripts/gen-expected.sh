#!/usr/bin/env bash
# Generates the committed expected output (testdata/expected) into DIR:
# Rust, C, Zig, TypeScript, AssemblyScript and Python for every schema of
# testdata/schemas and for the seed and game schemas of the golden vectors
# (DIR/seed_app, DIR/seed_game; the demo's app.km and
# testdata/schemas/seed_app.km are symbolic links to the seed's), and the guest and host bindings
# of the schemas that declare interfaces, one directory per schema and
# language: DIR/<schema>/<lang>/. Every generator refactoring (one layout
# plan printed by every backend, RATIONALE.md R3.7) is checked against it
# byte for byte. (The Go generator's committed
# output for the same schemas is go/internal/gen, which scripts/test-go.sh
# regenerates and compares; it is not written twice.) Used by
# scripts/refresh-expected.sh (DIR = testdata/expected) and by
# scripts/check-generated.sh (DIR = a temporary directory, then diff -r).
# The CLI formats Rust with rustfmt, which must be installed: without it the
# output would differ from the committed files.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
out=${1:?usage: scripts/gen-expected.sh DIR}
command -v rustfmt >/dev/null || { echo "gen-expected: rustfmt is required" >&2; exit 1; }
karmem_cli
for schema in testdata/schemas/*.km testdata/vectors/seed/schema.km testdata/vectors/game/schema.km; do
  [ -L "$schema" ] && continue # another name of a schema listed here
  case $schema in
    testdata/vectors/seed/*) name=seed_app ;;
    testdata/vectors/game/*) name=seed_game ;;
    *) name=$(basename "$schema" .km) ;;
  esac
  langs=(rust c zig ts as python)
  grep -q '^interface ' "$schema" && langs+=(rust-guest rust-host c-guest zig-guest as-guest)
  for lang in "${langs[@]}"; do
    # Quiet but for problems: the CLI reports every file it writes.
    "$karmem" build --lang "$lang" -o "$out/$name/$lang" "$schema" 2>&1 >/dev/null \
      | { grep -v '^wrote ' >&2 || true; }
    # A guest backend also writes its language's data types: kept once, under
    # the language's own directory.
    base=$out/$name/${lang%-guest}
    if [ "$lang" != "${lang%-guest}" ]; then
      for f in "$out/$name/$lang"/*; do
        if cmp -s "$f" "$base/$(basename "$f")"; then rm "$f"; fi
      done
    fi
  done
done

#!/usr/bin/env bash
# Generated code is held to the same standard as hand-written code: generate
# Rust for every schema we ship (examples, benchmark, golden vectors) and
# require rustfmt --check to pass on it. Clippy runs on it through the crates
# that include it (karmem-vectors-rust, karmem-bench, the demo) in `make lint`.
# Then the committed expected output (testdata/expected) must be exactly what
# the generators write today: any change to generated code shows up there as
# a reviewed diff (refresh with scripts/refresh-expected.sh, `make expected`).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
karmem_cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
while IFS= read -r schema; do
  dir="$out/$n"; n=$((n + 1))
  "$karmem" check "$schema" 2>/dev/null
  # rust-guest/rust-host only where the schema has interfaces (they embed the
  # data types too); clippy covers them through crates/karmem-e2e.
  langs=(--lang rust)
  grep -q '^interface ' "$schema" && langs+=(--lang rust-guest --lang rust-host)
  "$karmem" build "${langs[@]}" -o "$dir" "$schema" 2>/dev/null
  # Determinism: a second run must produce identical files.
  "$karmem" build "${langs[@]}" -o "$dir.again" "$schema" 2>/dev/null
  diff -r "$dir" "$dir.again" >/dev/null || { echo "non-deterministic output for $schema"; exit 1; }
  find "$dir" -name '*.rs' -print0 | xargs -0 rustfmt --edition 2021 --check \
    || { echo "generated code for $schema is not rustfmt-clean"; exit 1; }
done < <(find examples crates/karmem-bench/schemas testdata/schemas testdata/vectors guests -name '*.km' -type f -not -path '*/target/*' | sort)
echo "generated code: $n schemas, deterministic and rustfmt-clean"

scripts/gen-expected.sh "$out/expected"
if ! diff -r testdata/expected "$out/expected"; then
  echo "generated code differs from testdata/expected (diff above: expected vs. now)."
  echo "If the change is intended, refresh the committed files and review them:"
  echo "  scripts/refresh-expected.sh   (or: make expected)"
  exit 1
fi
echo "generated code: identical to testdata/expected"

# A user's crate: every expected file as a module (`mod app;`, as the
# generated header says) of a program that uses none of it must build
# without a single warning (a schema's API is generated whole; a program
# uses part of it). The crate also generates a schema in its build.rs and
# includes it from OUT_DIR, as docs/rust.md shows.
user="$out/user"
mkdir -p "$user/src"
cat > "$user/Cargo.toml" <<TOML
[package]
name = "generated-in-a-user-crate"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
karmem = { path = "$root/crates/karmem" }
[build-dependencies]
karmem-codegen = { path = "$root/crates/karmem-codegen" }
[workspace]
TOML
cp testdata/vectors/game/schema.km "$user/game.km"
cat > "$user/build.rs" <<'RS'
fn main() {
    karmem_codegen::script::generate(
        std::path::Path::new("game.km"),
        &karmem_codegen::rust::RustBackend::default(),
    );
}
RS
main="$user/src/main.rs"
: > "$main"
for file in testdata/expected/*/rust/*.rs; do
  module=$(basename "$(dirname "$(dirname "$file")")")
  cp "$file" "$user/src/$module.rs"
  echo "mod $module;" >> "$main"
done
cat >> "$main" <<'RS'
mod from_build_script {
    include!(concat!(env!("OUT_DIR"), "/game.rs"));
}
fn main() {}
RS
log=$(CARGO_TARGET_DIR=$cargo_target/generated-user-crate \
  cargo build --quiet --manifest-path "$user/Cargo.toml" 2>&1) \
  || { echo "$log"; echo "generated code does not build in a user's crate"; exit 1; }
if grep -q '^warning' <<<"$log"; then
  echo "$log"
  echo "generated code gives warnings in a user's crate (mod NAME;, nothing used)"
  exit 1
fi
echo "generated code: builds without warnings as modules of a user's crate"

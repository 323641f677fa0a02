#!/usr/bin/env bash
# The crates a user would depend on can be published: every publishable
# crate packages (versions on path dependencies, files inside the crate),
# and the compiler's crates build from their packages alone, as a user's
# build from crates.io would. (karmem-host and karmem-guest package too,
# but verifying them would compile wasmtime once more; their one file from
# outside, docs/abi.km, is a symbolic link that cargo copies in.)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
# Cargo treats a verified package's dependencies on the other packages as
# registry crates, which never change for a given version: it reuses their
# unpacked sources (under $CARGO_HOME/registry/src) and their compiled
# artifacts even when the package changed since. So earlier copies go, and
# verification builds in a target directory of its own.
find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -mindepth 2 -maxdepth 2 -type d \
  -name 'karmem*-0.*' -exec rm -rf {} +
verify_target=$(mktemp -d)
trap 'rm -rf "$verify_target"' EXIT
# Only the crates meant for crates.io: test runners and harnesses
# (`publish = false`) may depend on each other by path alone.
publishable=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] != []:
        print("-p", p["name"])')
# shellcheck disable=SC2086 # one word per argument
cargo package --quiet --no-verify --allow-dirty $publishable
CARGO_TARGET_DIR=$verify_target cargo package --quiet --allow-dirty \
  -p karmem-format -p karmem-schema -p karmem-layout -p karmem -p karmem-codegen -p karmem-json
echo "package: every publishable crate packages; the compiler's crates build from their packages"

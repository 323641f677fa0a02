#!/usr/bin/env bash
# The crates a user would depend on can be published: every publishable
# crate packages (versions on path dependencies, files inside the crate),
# and the compiler's crates build from their packages alone, as a user's
# build from crates.io would. (karmem-host and karmem-guest package too,
# but verifying them would compile wasmtime once more; their one file from
# outside, docs/abi.km, is a symbolic link that cargo copies in.)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package --quiet --workspace --no-verify --allow-dirty
cargo package --quiet --allow-dirty \
  -p karmem-format -p karmem-schema -p karmem-layout -p karmem -p karmem-codegen -p karmem-json
echo "package: every publishable crate packages; the compiler's crates build from their packages"

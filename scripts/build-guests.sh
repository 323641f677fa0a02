#!/usr/bin/env bash
# Build every guest module used by tests and examples into guests/out/:
# the Rust guests (guests/rust) and the Go guests (guests/go).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-guests-rust.sh
scripts/build-guests-go.sh

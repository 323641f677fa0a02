#!/usr/bin/env bash
# Build every guest module used by tests and examples into guests/out/:
# Rust guests always, Go guests when their script is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-guests-rust.sh
if [ -x scripts/build-guests-go.sh ]; then
  scripts/build-guests-go.sh
fi

#!/usr/bin/env bash
# Build every guest module used by tests and examples into guests/out/:
# the Rust guests (guests/rust), the Go guests (guests/go), the C guests
# (guests/c), the Zig guests (guests/zig) and the AssemblyScript guests
# (guests/as).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
scripts/build-guests-rust.sh
scripts/build-guests-go.sh
scripts/build-guests-c.sh
scripts/build-guests-zig.sh
scripts/build-guests-as.sh

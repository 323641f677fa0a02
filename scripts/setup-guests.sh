#!/usr/bin/env bash
# Idempotent installation of the toolchain Rust guests are built with:
# Debian's rustc/cargo 1.96 with the standard library's source (for
# -Zbuild-std: rustup cannot add the wasm32 target here), wasm-ld, and the
# matching clippy (scripts/clippy-guests.sh).
set -euo pipefail
"$(dirname "$0")/apt-ensure.sh" setup-guests rustc-web cargo-web rust-web-src rust-web-clippy lld-19

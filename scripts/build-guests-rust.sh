#!/usr/bin/env bash
# Build the Rust guests (guests/rust/*) for wasm32-unknown-unknown and copy
# them to guests/out/<crate>.wasm (the crate's name, with `-` like the Go
# guests, where Cargo's file has `_`).
# Idempotent and incremental: scripts/setup-guests.sh installs Debian's Rust
# 1.96 toolchain with its library source and wasm-ld when missing (rustup
# cannot add targets here, and its 1.95 cannot build 1.96's library source);
# Cargo skips what is up to date. First build ≈ 2 min (std is compiled).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

scripts/setup-guests.sh

target_dir=${GUESTS_TARGET_DIR:-$root/guests/rust/target}
# Debian's cargo explicitly: rustup's comes first on PATH. RUSTC_BOOTSTRAP
# enables -Zbuild-std on this stable toolchain.
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$target_dir" \
  nice -n 10 /usr/bin/cargo build --quiet --release \
  --manifest-path guests/rust/Cargo.toml \
  --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort \
  --config 'target.wasm32-unknown-unknown.linker="wasm-ld-19"'

mkdir -p guests/out
n=0
for wasm in "$target_dir"/wasm32-unknown-unknown/release/*.wasm; do
  [ -e "$wasm" ] || continue
  # Copy only when changed, so timestamps stay meaningful.
  out="guests/out/$(basename "$wasm" | tr _ -)"
  cmp -s "$wasm" "$out" || cp "$wasm" "$out"
  n=$((n + 1))
done
echo "build-guests-rust: $n Rust guests in guests/out/"

#!/usr/bin/env bash
# Clippy, -D warnings, on the Rust guest code for the target it is built
# for (wasm32-unknown-unknown): the guests workspace (guests/rust/*) and
# the guest library (crates/karmem-guest with karmem, no_std), whose
# wasm32-only code (allocator, host imports, the portable paths of karmem)
# the host-target clippy of `make lint` never sees.
# Same toolchain as scripts/build-guests-rust.sh: Debian's rustc 1.96 with
# its clippy (rustup cannot add the wasm32 target here). Same target
# directory too, so build scripts are shared; the standard library is
# checked once (≈ 70 s on a fresh machine, under a second afterwards).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

scripts/setup-guests.sh

target_dir=${GUESTS_TARGET_DIR:-$root/guests/rust/target}
# Debian's cargo-clippy explicitly (rustup's proxy comes first on PATH); it
# runs $CARGO and the clippy-driver next to itself.
clippy() {
  CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$target_dir" \
    nice -n 10 /usr/bin/cargo-clippy clippy --quiet --release \
    --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort "$@"
}

clippy --manifest-path guests/rust/Cargo.toml --workspace --all-targets -- -D warnings
# karmem-guest belongs to the host workspace: checked from there, with the
# guests' release profile so that the standard library checked above is
# reused.
clippy -p karmem-guest \
  --config 'profile.release.panic="abort"' --config 'profile.release.opt-level=2' \
  -- -D warnings
echo "clippy-guests: Rust guests and karmem-guest are clippy-clean for wasm32"

#!/usr/bin/env bash
# Builds the peers' guests into benches/peers/out/:
#   extism-echo.wasm         the Extism plug-in (guests/extism-echo)
#   cm-echo.component.wasm   the component of wit/echo.wit (guests/cm-echo,
#                            a core module wrapped by ./componentize)
# Idempotent and incremental. The guests are built as the project's Rust
# guests are (scripts/build-guests-rust.sh): Debian's rustc 1.96 with the
# standard library's source, for wasm32-unknown-unknown, because rustup's
# 1.95 has no wasm32 target here; scripts/setup-guests.sh installs that
# toolchain when it is missing. First build ≈ 4 min (std is compiled).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

"$repo/scripts/setup-guests.sh"

target=${CARGO_TARGET_DIR:-$here/target}
guests_target=$target/guests
# Debian's cargo explicitly: rustup's comes first on PATH. RUSTC_BOOTSTRAP
# enables -Zbuild-std on this stable toolchain.
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$guests_target" \
  nice -n 10 /usr/bin/cargo build --quiet --release --locked \
  --manifest-path "$here/guests/Cargo.toml" \
  --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort \
  --config 'target.wasm32-unknown-unknown.linker="wasm-ld-19"'
core=$guests_target/wasm32-unknown-unknown/release

# The component tool runs on the host, with rustup's toolchain.
CARGO_TARGET_DIR="$target" nice -n 10 cargo build --quiet --release --locked \
  --manifest-path "$here/Cargo.toml" -p componentize

mkdir -p "$here/out"
# Replace outputs only when they change, so timestamps stay meaningful.
cmp -s "$core/extism_echo.wasm" "$here/out/extism-echo.wasm" ||
  cp "$core/extism_echo.wasm" "$here/out/extism-echo.wasm"
"$target/release/componentize" "$core/cm_echo.wasm" "$here/out/cm-echo.component.wasm.new"
if cmp -s "$here/out/cm-echo.component.wasm.new" "$here/out/cm-echo.component.wasm"; then
  rm "$here/out/cm-echo.component.wasm.new"
else
  mv "$here/out/cm-echo.component.wasm.new" "$here/out/cm-echo.component.wasm"
fi
echo "build-guests: $here/out/extism-echo.wasm, $here/out/cm-echo.component.wasm"

#!/usr/bin/env bash
# Idempotent installation of the toolchain Rust guests are built with:
# Debian's rustc/cargo 1.96 with the standard library's source (for
# -Zbuild-std: rustup cannot add the wasm32 target here), wasm-ld, and the
# matching clippy (scripts/clippy-guests.sh).
set -euo pipefail
need=()
for pkg in rustc-web cargo-web rust-web-src rust-web-clippy lld-19; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup-guests: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

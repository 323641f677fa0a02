#!/usr/bin/env bash
# Idempotent installation of everything the build, tests and benchmarks need
# on a fresh Debian machine with rustup's stable toolchain. Safe to re-run.
set -euo pipefail

need_apt=()
command -v flatc >/dev/null 2>&1 || need_apt+=(flatbuffers-compiler)
# Cap'n Proto's schema compiler, for crates/karmem-bench-shapes' build.rs.
command -v capnp >/dev/null 2>&1 || need_apt+=(capnproto)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    rustup component add "$component"
  fi
done

# The C toolchains: the C library's tests and the generated C code's vector
# runner (crates/karmem-vectors-c) compile with gcc-12 and clang-19.
"$(dirname "$0")/setup-c.sh"

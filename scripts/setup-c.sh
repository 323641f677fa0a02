#!/usr/bin/env bash
# Idempotent installation of the C toolchains the C library is tested with
# (docs/c.md): gcc-12 (Debian's default), clang-19 with its sanitizer and
# libFuzzer runtimes, wasi-libc for WebAssembly guests
# (clang-19 --target=wasm32-wasi), and xxd for the fuzz seeds.
set -euo pipefail
"$(dirname "$0")/apt-ensure.sh" setup-c gcc-12 clang-19 lld-19 libclang-rt-19-dev wasi-libc \
  libclang-rt-19-dev-wasm32 xxd

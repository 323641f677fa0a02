#!/usr/bin/env bash
# Installs the Zig toolchain the Zig library (zig/, docs/zig.md) is built
# with: Zig 0.17.1 from PyPI's ziglang package (run as
# `python3 -m ziglang`). Idempotent: nothing is installed when that exact
# version is already there.
set -euo pipefail
want=0.17.1
have=$(python3 -m ziglang version 2>/dev/null || true)
if [ "$have" != "$want" ]; then
  echo "zig: installing ziglang==$want (found: ${have:-none})"
  python3 -m pip install --quiet "ziglang==$want"
fi
have=$(python3 -m ziglang version)
[ "$have" = "$want" ] || { echo "zig: expected $want, found $have"; exit 1; }

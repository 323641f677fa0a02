#!/usr/bin/env python3
"""Runs a wasm32-wasi command module under wasmtime (the PyPI package),
with the given arguments, stdout and stderr inherited; exits with the
module's exit code. Used by scripts/bench-c.sh to run the C benchmark as a
WebAssembly guest, the paper's setting (docs/benchmarks.md)."""
import sys

import wasmtime


def main() -> int:
    path = sys.argv[1]
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, path)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = [path] + sys.argv[2:]
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    instance = linker.instantiate(store, module)
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as e:
        return e.code
    return 0


if __name__ == "__main__":
    sys.exit(main())

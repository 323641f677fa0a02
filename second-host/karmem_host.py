"""A second Karmem host: the guest ABI (docs/abi.md) on the `wasmtime`
Python package, written from the documents, sharing no code with
crates/karmem-host.

What it does of the ABI: the start-up sequence (§2), the descriptor and
its signature hashes (§3, §3.1), `karmem_dispatch` with copied arguments
and results (§5.1, §5.2), the `karmem` imports a callee uses (§4), and the
minimal WASI a Go reactor needs to start (§8). No regions, patterns or
guest-to-guest calls: a module that asks for a window gets none (access
`None`, §6), which every guest library must accept.

Messages are encoded and decoded with `karmem json` (the format's
reference tool): this host is a second implementation of the ABI, not of
the format. Modules are loaded after `karmem rewrite` (§6.1), as any host
that maps read-only windows must.
"""

import json
import subprocess
import time

import wasmtime

ABI_VERSION = 1
MAX_DESCRIPTOR = 1 << 20

# Dispatch statuses (§5.2).
OK, UNKNOWN_FUNCTION, BAD_ARGUMENT, APPLICATION_ERROR = 0, 1, 2, 3
STATUS_NAMES = {0: "OK", 1: "UNKNOWN_FUNCTION", 2: "BAD_ARGUMENT", 3: "APPLICATION_ERROR"}

# WASI errno values (§8).
SUCCESS, EBADF, EFAULT, ENOSYS = 0, 8, 21, 52


class Codec:
    """Messages as JSON through `karmem json` and a schema."""

    def __init__(self, karmem, schema):
        self.karmem, self.schema = karmem, schema

    def encode(self, root, value):
        return subprocess.run(
            [self.karmem, "json", "encode", "--root", root, self.schema],
            input=json.dumps(value).encode(), capture_output=True, check=True,
        ).stdout

    def decode(self, root, data):
        out = subprocess.run(
            [self.karmem, "json", "decode", "--root", root, self.schema],
            input=bytes(data), capture_output=True, check=True,
        ).stdout
        return json.loads(out)


def fnv1a64(data):
    """§3.1: 64-bit FNV-1a."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


ACCESS = {"None": "none", "Read": "read", "ReadWrite": "readwrite"}


def signature(iface):
    """§3.1: the canonical signature of an interface of the descriptor
    (as `karmem json` decodes it): the interface line, every memory line,
    then every fn line."""
    lines = ["interface " + iface["Name"]]
    for m in iface.get("Memories", []):
        lines.append("memory %s import=%s export=%s pages=%d" % (
            m["Name"], ACCESS[m["Importer"]], ACCESS[m["Exporter"]], m["MaxPages"]))

    def value(p):
        s = "%s: %s" % (p["Name"], p["Type"])
        return s + (" @ " + p["Memory"] if p.get("Memory") else "")

    for f in iface.get("Functions", []):
        line = "fn %s(%s)" % (f["Name"], ", ".join(value(p) for p in f.get("Params", [])))
        result = f.get("Result") or {}
        # §3: an empty Type is "no result".
        if result.get("Type"):
            line += " -> " + value(result)
        lines.append(line)
    return "".join(line + "\n" for line in lines)


class Failure(Exception):
    """A dispatch that did not return OK: its status and message."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (STATUS_NAMES.get(status, status), message))
        self.status, self.message = status, message


class Guest:
    """One instance of a guest module, started (§2 steps 1-4)."""

    def __init__(self, engine, wasm, codec):
        self.store = wasmtime.Store(engine)
        self.codec = codec
        module = wasmtime.Module(engine, wasm)
        self.started = time.monotonic_ns()
        # What the guest reported during the current dispatch (§4).
        self.result, self.error = None, None
        linker = wasmtime.Linker(engine)
        defined = set()
        for imp in module.imports:
            # §8: a function imported twice (Go's fd_write) is one function.
            if (imp.module, imp.name) not in defined:
                defined.add((imp.module, imp.name))
                self._define(linker, imp)
        self.instance = linker.instantiate(self.store, module)
        self.exports = self.instance.exports(self.store)
        self.memory = self.exports["memory"]
        # §1, §2: reactor start first, then the ABI version, then init.
        if "_initialize" in self.exports:
            self.exports["_initialize"](self.store)
        version = self.exports["karmem_abi_version"](self.store)
        if version != ABI_VERSION:
            raise RuntimeError("ABI version %d, this host speaks %d" % (version, ABI_VERSION))
        code = self.exports["karmem_init"](self.store)
        if code != 0:
            raise RuntimeError("karmem_init returned %d" % code)
        at = self.exports["karmem_describe"](self.store) & 0xFFFFFFFFFFFFFFFF
        ptr, length = at & 0xFFFFFFFF, at >> 32
        if length > MAX_DESCRIPTOR:
            raise RuntimeError("descriptor of %d bytes" % length)
        self.descriptor_bytes = bytes(self.memory.read(self.store, ptr, ptr + length))
        self.descriptor = codec.decode("ModuleDesc", self.descriptor_bytes)
        for iface in self.descriptor.get("Exports", []) + self.descriptor.get("Imports", []):
            want = fnv1a64(signature(iface).encode())
            if int(iface["Hash"]) != want:
                raise RuntimeError("%s: hash %#x, the signature hashes to %#x"
                                   % (iface["Name"], int(iface["Hash"]), want))
        # Step 5 has nothing to do: this host grants no region (§6).

    # ---- imports ------------------------------------------------------------

    def _define(self, linker, imp):
        ty = imp.type
        name = imp.name
        if imp.module == "karmem":
            fn = getattr(self, "_karmem_" + name)
        elif imp.module == "wasi_snapshot_preview1":
            fn = getattr(self, "_wasi_" + name, None)
            if fn is None:
                # §8: a stub of the declared type: ENOSYS in a first i32
                # result, zero in the others, nothing without results.
                results = list(ty.results)

                def fn(caller, *args, results=results):
                    out = [ENOSYS if i == 0 and str(t) == "i32" else 0
                           for i, t in enumerate(results)]
                    if not out:
                        return None
                    return out[0] if len(out) == 1 else out
        else:
            raise RuntimeError("import %s.%s is not provided" % (imp.module, name))
        linker.define_func(imp.module, name, ty, fn, access_caller=True)

    def _range(self, caller, ptr, length):
        size = self.memory.data_len(caller)
        if ptr + length > size:
            raise wasmtime.WasmtimeError("%d bytes at %#x are outside the memory" % (length, ptr))

    def _karmem_result(self, caller, ptr, length):
        ptr, length = ptr & 0xFFFFFFFF, length & 0xFFFFFFFF
        self._range(caller, ptr, length)
        # §4: read when the dispatch returns; a later call replaces it.
        self.result = (ptr, length)

    def _karmem_error(self, caller, ptr, length):
        ptr, length = ptr & 0xFFFFFFFF, length & 0xFFFFFFFF
        self._range(caller, ptr, length)
        # §4: copied at once.
        self.error = bytes(self.memory.read(caller, ptr, ptr + length)).decode("utf-8", "replace")

    def _karmem_log(self, caller, level, ptr, length):
        pass

    def _karmem_call(self, caller, *args):
        return -5  # §5.3: no exporter is bound (this host binds nothing)

    def _karmem_take(self, caller, *args):
        return -1

    def _put(self, caller, ptr, data):
        ptr &= 0xFFFFFFFF
        if ptr + len(data) > self.memory.data_len(caller):
            return EFAULT
        self.memory.write(caller, data, ptr)
        return SUCCESS

    def _wasi_fd_write(self, caller, fd, iovs, n, written):
        if fd not in (1, 2):
            return EBADF
        raw = self.memory.read(caller, iovs, iovs + 8 * n)
        total = sum(int.from_bytes(raw[8 * k + 4:8 * k + 8], "little") for k in range(n))
        return self._put(caller, written, total.to_bytes(4, "little"))

    def _wasi_clock_time_get(self, caller, clock, precision, out):
        now = time.time_ns() if clock == 0 else time.monotonic_ns() - self.started + 1
        return self._put(caller, out, now.to_bytes(8, "little"))

    def _wasi_random_get(self, caller, buf, length):
        import os
        return self._put(caller, buf, os.urandom(length))

    def _wasi_args_sizes_get(self, caller, count, size):
        return self._put(caller, count, bytes(4)) or self._put(caller, size, bytes(4))

    _wasi_environ_sizes_get = _wasi_args_sizes_get

    def _wasi_args_get(self, caller, a, b):
        return SUCCESS

    _wasi_environ_get = _wasi_args_get

    def _wasi_fd_fdstat_get(self, caller, fd, out):
        # §8: 24 bytes: character device, rights fd_read / fd_write.
        if fd not in (0, 1, 2):
            return EBADF
        rights = (1 << 1) if fd == 0 else (1 << 6)
        stat = bytes([2]) + bytes(7) + rights.to_bytes(8, "little") + bytes(8)
        return self._put(caller, out, stat)

    def _wasi_fd_prestat_get(self, caller, fd, out):
        return EBADF

    def _wasi_fd_close(self, caller, fd):
        return SUCCESS if fd in (0, 1, 2) else EBADF

    def _wasi_sched_yield(self, caller):
        return SUCCESS

    def _wasi_proc_exit(self, caller, code):
        raise wasmtime.WasmtimeError("proc_exit(%d)" % code)

    # ---- calls ------------------------------------------------------------

    def export_id(self, interface, function):
        """§3: `(e << 16) | f`, or None when the module has no such export."""
        for e, iface in enumerate(self.descriptor.get("Exports", [])):
            if iface["Name"] == interface:
                for f, fn in enumerate(iface.get("Functions", [])):
                    if fn["Name"] == function:
                        return e << 16 | f
        return None

    def alloc(self, size, align):
        ptr = self.exports["karmem_alloc"](self.store, size, align) & 0xFFFFFFFF
        if ptr == 0:
            raise RuntimeError("karmem_alloc(%d, %d) returned 0" % (size, align))
        return ptr

    def dispatch(self, function_id, args):
        """§5.1-§5.2: copy each argument (64-byte aligned) and the argument
        array (8-byte aligned) into the guest, dispatch, and return the
        result's bytes (None without a result) or raise Failure."""
        entries = b""
        for a in args:
            ptr = 0
            if a:
                ptr = self.alloc(len(a), 64)
                self.memory.write(self.store, a, ptr)
            entries += ptr.to_bytes(4, "little") + len(a).to_bytes(4, "little")
        array = 0
        if entries:
            array = self.alloc(len(entries), 8)
            self.memory.write(self.store, entries, array)
        self.result, self.error = None, None
        status = self.exports["karmem_dispatch"](self.store, function_id, array, len(args))
        if status != OK:
            raise Failure(status, self.error or "")
        if self.result is None or self.result[1] == 0:
            return None
        ptr, length = self.result
        return bytes(self.memory.read(self.store, ptr, ptr + length))

    def call(self, interface, function, args):
        fid = self.export_id(interface, function)
        if fid is None:
            # Like karmem-host: a name the descriptor lacks never reaches
            # the guest.
            raise Failure(UNKNOWN_FUNCTION, "%s has no function %s" % (interface, function))
        return self.dispatch(fid, args)

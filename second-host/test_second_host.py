"""The conformance suite's happy paths (crates/karmem-e2e/tests/
conformance.rs) on the second host: every guest language's echo module,
rewritten by `karmem rewrite`, loads, describes itself with correct
signature hashes, and answers nop, echo, an unknown function, a bad
argument and an application error as docs/abi.md §5.2 says.

Plain asserts; run by scripts/test-second-host.sh:
    python3 second-host/test_second_host.py KARMEM REWRITTEN_DIR
"""

import sys
import time

import wasmtime

from karmem_host import (APPLICATION_ERROR, BAD_ARGUMENT, OK, UNKNOWN_FUNCTION,
                         Codec, Failure, Guest)

ECHOES = ["e2e-rust-echo", "e2e-go-echo", "e2e-c-echo", "e2e-zig-echo", "e2e-as-echo"]


def expect_failure(fn, status, text, exact=True):
    try:
        fn()
    except Failure as f:
        assert f.status == status, "status %d, want %d: %s" % (f.status, status, f.message)
        ok = f.message == text if exact else (f.message.startswith(text) and len(f.message) > len(text))
        assert ok, "message %r, want %r" % (f.message, text)
        return
    raise AssertionError("no failure, want %d %r" % (status, text))


def check(name, wasm, abi, msgs):
    g = Guest(wasmtime.Engine(), wasm, abi)
    exports = [i["Name"] for i in g.descriptor["Exports"]]
    assert exports == ["e2e.Echo", "e2e.Voter"], exports
    # A second instance describes itself byte for byte the same (§2).
    assert Guest(wasmtime.Engine(), wasm, abi).descriptor_bytes == g.descriptor_bytes
    assert g.call("e2e.Echo", "nop", []) is None
    out = g.call("e2e.Echo", "echo", [msgs.encode("Msg", {"Text": "héllo", "Number": 41})])
    got = msgs.decode("Msg", out)
    assert got["Text"] == "héllo" and got["Number"] == 42, got
    # An absent argument is the empty message.
    got = msgs.decode("Msg", g.call("e2e.Echo", "echo", [b""]))
    assert got.get("Number") == 1, got
    expect_failure(lambda: g.dispatch(99, []), UNKNOWN_FUNCTION, "no export function 99")
    expect_failure(lambda: g.call("e2e.Echo", "nope", []), UNKNOWN_FUNCTION,
                   "e2e.Echo has no function nope")
    echo = g.export_id("e2e.Echo", "echo")
    expect_failure(lambda: g.dispatch(echo, [bytes([0xff] * 24)]), BAD_ARGUMENT,
                   "e2e.Echo.echo: argument m: ", exact=False)
    m = msgs.encode("Msg", {"Text": "x"})
    expect_failure(lambda: g.dispatch(echo, [m, m]), BAD_ARGUMENT,
                   "e2e.Echo.echo: 2 arguments for 1 parameters")
    expect_failure(lambda: g.call("e2e.Echo", "fail", [msgs.encode("Msg", {"Text": "on purpose"})]),
                   APPLICATION_ERROR, "fail: on purpose")
    # None of it hurt the instance.
    got = msgs.decode("Msg", g.call("e2e.Echo", "echo", [m]))
    assert got["Number"] == 1, got


def main():
    karmem, rewritten, repo = sys.argv[1], sys.argv[2], sys.argv[3]
    abi = Codec(karmem, repo + "/docs/abi.km")
    msgs = Codec(karmem, repo + "/guests/polyglot.km")
    passed, failed = 0, 0
    for name in ECHOES:
        start = time.monotonic()
        try:
            with open("%s/%s.wasm" % (rewritten, name), "rb") as f:
                check(name, f.read(), abi, msgs)
            passed += 1
            print("second host: %s ok (%.1f s)" % (name, time.monotonic() - start))
        except Exception as e:  # report every language, then fail
            failed += 1
            print("second host: %s FAILED: %r" % (name, e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

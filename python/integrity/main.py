"""The Python member's command (docs/integrity.md §4): one request a line
on standard input, one answer a line on standard output."""

from __future__ import annotations

import hashlib
import pathlib
import sys

# python/: the runtime (karmem) and this package.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from integrity import member


def answer(versions: dict[str, member.Version], line: str) -> str:
    parts = line.split()
    if len(parts) != 3:
        return "error expected: <request> <old|new> <argument>"
    request, name, arg = parts
    v = versions.get(name)
    if v is None:
        return f"error unknown version {name!r}"
    try:
        if request == "produce":
            if not arg.isascii() or not arg.isdigit() or int(arg) >= 1 << 64:
                return f"error the seed must be a u64: {arg!r}"
            return member.produce(v, int(arg)).hex()
        data = bytes.fromhex(arg)
        if request == "consume":
            return hashlib.sha256(member.stream(v, data)).hexdigest()
        if request == "stream":
            return member.stream(v, data).hex()
        if request == "roundtrip":
            return "ok" if member.roundtrip(v, data) else "error bytes differ"
        return f"error unknown request {request!r}"
    except Exception as e:  # noqa: BLE001 (every failure is an answer)
        return f"error {type(e).__name__}: {e}".replace("\n", " ")


def main() -> None:
    versions = {n: member.Version(n) for n in ("old", "new")}
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(answer(versions, line) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

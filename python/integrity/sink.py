"""The canonical stream of §3: the bytes a consumer feeds its digest."""

from __future__ import annotations

import hashlib
import struct


class Sink:
    """Collects the canonical form of every value read."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, v: int) -> None:
        self.buf += struct.pack("<B", v & 0xFF)

    def u16(self, v: int) -> None:
        self.buf += struct.pack("<H", v & 0xFFFF)

    def u32(self, v: int) -> None:
        self.buf += struct.pack("<I", v & 0xFFFFFFFF)

    def u64(self, v: int) -> None:
        self.buf += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)

    def f32(self, v: float) -> None:
        self.buf += struct.pack("<f", v)

    def f64(self, v: float) -> None:
        self.buf += struct.pack("<d", v)

    def text(self, s: str) -> None:
        raw = s.encode("utf-8", "surrogatepass")
        self.u32(len(raw))
        self.buf += raw

    def wide(self, s: str) -> None:
        raw = s.encode("utf-16-le", "surrogatepass")
        self.u32(len(raw) // 2)
        self.buf += raw

    def raw(self, b: bytes) -> None:
        self.u32(len(b))
        self.buf += b

    def digest(self) -> str:
        return hashlib.sha256(self.buf).hexdigest()

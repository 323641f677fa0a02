"""SplitMix64 and the derived draws of docs/integrity.md §1."""

from __future__ import annotations

import struct

MASK = (1 << 64) - 1

ALPHABET = 'abcxyz09 -éß€中😀"'
"""The 16 characters of §1's text, in order."""


class Rand:
    """One generator per message, seeded with the seed."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n

    def bool(self) -> bool:
        return self.next() & 1 == 1

    def unsigned(self, bits: int) -> int:
        return self.next() & ((1 << bits) - 1)

    def signed(self, bits: int) -> int:
        v = self.unsigned(bits)
        return v - (1 << bits) if v >> (bits - 1) else v

    def f32(self) -> float:
        # Exact in f32: a 24-bit integer over 256.
        v = float((self.next() >> 40) - 8388608) / 256.0
        return float(struct.unpack("<f", struct.pack("<f", v))[0])

    def f64(self) -> float:
        return float((self.next() >> 11) - 4503599627370496) / 1024.0

    def text(self, largest: int, limit: int | None = None) -> str:
        n = self.length(largest, limit)
        return "".join(ALPHABET[self.below(16)] for _ in range(n))

    def length(self, largest: int, limit: int | None = None) -> int:
        bound = largest if limit is None else min(largest, limit)
        return self.below(bound + 1)


def largest_of(seed: int) -> int:
    """The largest length of a message's arrays and text (§1)."""
    return [0, 3, 16, 200][seed % 4]


def inner(largest: int) -> int:
    """The largest length inside an array element or a map entry."""
    return min(largest, 8)

"""The in-place editor (docs/format.md §12, docs/python.md "Editing in
place"): a message in a writable buffer changed without encoding it again,
as the generated setters of the checked views do (``v.set_hp(e, 10)``).

What it may change, and nothing else: a scalar, enum or ``bool`` field of a
table that is present in the message (a field past the table's ``used``
cannot be added in place), the elements of a plain array up to its
length, an array's length within its capacity (the elements between the
old and the new length zeroed, both ways), and UTF-8 text rewritten within
its capacity. Every write is bounded by the message like a read; a change
that does not fit raises ``karmem.Error`` before any byte is written.
"""

from __future__ import annotations

import struct

from karmem import (
    NO_LIMIT,
    Buffer,
    Error,
    FloatCode,
    IntCode,
    Limits,
    Reader,
    Table,
)

# One precompiled little-endian format per struct code, as the reader's.
_FORMATS = {c: struct.Struct("<" + c) for c in "bBhHiIqQfd?"}


class Editor:
    """In-place updates of the message in ``buf`` (a ``bytearray`` or a
    writable ``memoryview``, e.g. of an ``mmap`` or shared memory); the
    header is checked as a :class:`Reader` checks it."""

    __slots__ = ("mem", "r")

    def __init__(
        self, buf: bytearray | memoryview, limits: Limits | None = None
    ) -> None:
        if isinstance(buf, memoryview) and buf.readonly:
            raise TypeError("karmem: an editor needs a writable buffer")
        if isinstance(buf, memoryview) and (buf.format != "B" or buf.ndim != 1):
            buf = buf.cast("B")
        self.r = Reader(buf, limits)
        self.mem = buf

    @property
    def buf(self) -> Buffer:
        """The message's buffer (the one to view: ``T.view(e.buf)``)."""
        return self.r.buf

    def _slot(self, t: Table, off: int, n: int) -> int:
        """The position of the ``n`` bytes of the field at ``off`` of table
        ``t``; the field must be present and inside the message."""
        at = t.offset + off
        if t.used == 0 or off + n > t.used or at + n > self.r.size:
            raise Error("MalformedTable", t.offset, off)
        return at

    def set(self, t: Table, off: int, code: str, v: float) -> None:
        """Stores ``v`` (``code``: its ``struct`` format character) in the
        field at ``off`` of table ``t``. A value out of the type's range
        raises ``struct.error`` and writes nothing."""
        f = _FORMATS[code]
        f.pack_into(self.mem, self._slot(t, off, f.size), v)

    def _array(
        self, t: Table, off: int, elem_size: int, limit: int
    ) -> tuple[int, int, int]:
        """The well-formed array reference at ``off`` of ``t``: its
        position, offset and length; its capacity is the third word."""
        at = self._slot(t, off, 12)
        a = self.r.array(at, elem_size, limit)
        if a.cap == 0 and self.r.u32(at + 8) != 0:
            raise Error("MalformedArray", at)
        return at, a.offset, a.len

    def _elements(self, t: Table, off: int, size: int, limit: int) -> memoryview:
        _, offset, n = self._array(t, off, size, limit)
        return memoryview(self.mem)[offset : offset + n * size]

    def edit_ints(
        self, t: Table, off: int, code: IntCode, limit: int = NO_LIMIT
    ) -> memoryview[int]:
        """The elements of the plain array of integers (or enums) at ``off``
        of ``t`` as a writable ``memoryview`` over the message (``len`` =
        the array's length: :meth:`set_len` first to write past it, within
        the capacity)."""
        return self._elements(t, off, _FORMATS[code].size, limit).cast(code)

    def edit_floats(
        self, t: Table, off: int, code: FloatCode, limit: int = NO_LIMIT
    ) -> memoryview[float]:
        """As :meth:`edit_ints`, for an array of ``f32`` or ``f64``."""
        return self._elements(t, off, _FORMATS[code].size, limit).cast(code)

    def set_len(
        self, t: Table, off: int, elem_size: int, n: int, limit: int = NO_LIMIT
    ) -> None:
        """Changes the length of the array at ``off`` of ``t`` to ``n``,
        within its capacity and its limit (``Error("TooLarge")`` else)."""
        at, offset, length = self._array(t, off, elem_size, limit)
        cap = self.r.u32(at + 8)
        if n < 0 or n > cap or n > limit:
            raise Error("TooLarge", at, n)
        # Both ways the elements between the old and the new length are
        # zeroed: dropped ones so that unused capacity stays zero, exposed
        # ones because a message from elsewhere may hold anything there
        # (validation does not read unused capacity, format.md §12).
        lo = offset + min(n, length) * elem_size
        hi = offset + max(n, length) * elem_size
        self.mem[lo:hi] = bytes(hi - lo)
        _FORMATS["I"].pack_into(self.mem, at + 4, n)

    def set_text(self, t: Table, off: int, s: str, limit: int = NO_LIMIT) -> None:
        """Rewrites the UTF-8 text at ``off`` of ``t`` within its capacity
        (and its limit, counted in bytes)."""
        raw = s.encode("utf-8")
        at, offset, length = self._array(t, off, 1, limit)
        if len(raw) > self.r.u32(at + 8) or len(raw) > limit:
            raise Error("TooLarge", at, len(raw))
        end = offset + max(len(raw), length)
        buf = self.mem
        buf[offset : offset + len(raw)] = raw
        buf[offset + len(raw) : end] = bytes(end - offset - len(raw))
        _FORMATS["I"].pack_into(buf, at + 4, len(raw))

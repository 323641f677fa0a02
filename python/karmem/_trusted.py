"""The trusted reader (docs/python.md, "Trusted views"): the loads of a
message that a validator accepted, without the checks validation already
made (docs/format.md §11: "after a successful validation a program may use
unchecked accessors").

What is skipped: the message-size bound of every scalar load, the header
checks of tables, the bounds, alignment and limit checks of array
references, the directory and column checks of SoA arrays, the bunch-table
and union-column checks, the UTF-8 and UTF-16 repairs. What stays: the
checks that say a value is absent in a valid message (a table field past
``used``, a zero offset, an SoA column the directory does not list),
which the generated views make themselves or which are kept below.

Python stays memory-safe without the checks: a load past the buffer
raises (``struct.error``, ``IndexError``) instead of reading memory. That
can only happen when the message was not validated by the same schema or
changed after validation, which ``T.trust`` rules out.
"""

from __future__ import annotations

import builtins
import struct

from karmem import (
    _F32,
    _F64,
    _I8,
    _I16,
    _I32,
    _I64,
    _REF,
    _U16,
    _U32,
    _U64,
    ABSENT,
    ArrayRef,
    Columns,
    FloatCode,
    IntCode,
    Reader,
    Table,
    align_up,
)


class TrustedReader(Reader):
    """The reads of a validated message, unchecked; made by
    :meth:`Reader.trusted` after a validator accepted the message."""

    __slots__ = ()

    # ---- scalars: validation put every load the views make inside the
    # message, so none is compared with its size -----------------------------

    def u8(self, o: int) -> int:
        return self.buf[o]

    def bool(self, o: int) -> builtins.bool:
        return self.buf[o] != 0

    def i8(self, o: int) -> int:
        v: int = _I8.unpack_from(self.buf, o)[0]
        return v

    def u16(self, o: int) -> int:
        v: int = _U16.unpack_from(self.buf, o)[0]
        return v

    def i16(self, o: int) -> int:
        v: int = _I16.unpack_from(self.buf, o)[0]
        return v

    def u32(self, o: int) -> int:
        v: int = _U32.unpack_from(self.buf, o)[0]
        return v

    def i32(self, o: int) -> int:
        v: int = _I32.unpack_from(self.buf, o)[0]
        return v

    def u64(self, o: int) -> int:
        v: int = _U64.unpack_from(self.buf, o)[0]
        return v

    def i64(self, o: int) -> int:
        v: int = _I64.unpack_from(self.buf, o)[0]
        return v

    def f32(self, o: int) -> float:
        v: float = _F32.unpack_from(self.buf, o)[0]
        return v

    def f64(self, o: int) -> float:
        v: float = _F64.unpack_from(self.buf, o)[0]
        return v

    # ---- tables and arrays: well formed, so only read ------------------------

    def table(self, offset: int) -> Table:
        # A zero offset is no table in a valid message too (an absent union
        # value); any other was checked by the validator.
        if offset == 0:
            return ABSENT
        header: int = _U32.unpack_from(self.buf, offset)[0]
        return Table(offset, (header & 0x1FFFFFFF) * 8 - (header >> 29))

    def array(self, at: int, elem_size: int, limit: int) -> ArrayRef:
        offset, length, cap = _REF.unpack_from(self.buf, at)
        return ArrayRef(offset, length, cap)

    def string(self, a: ArrayRef) -> str:
        # Validated: the bytes are UTF-8.
        return bytes(self.buf[a.offset : a.offset + a.len]).decode("utf-8")

    def utf16(self, a: ArrayRef) -> str:
        # Validated: no unpaired surrogate to replace.
        raw = bytes(self.buf[a.offset : a.offset + 2 * a.len])
        return raw.decode("utf-16-le")

    def ints(self, offset: int, n: int, code: str) -> list[int]:
        if n == 0:
            return []
        return list(struct.unpack_from(f"<{n}{code}", self.buf, offset))

    def floats(self, offset: int, n: int, code: str) -> list[float]:
        if n == 0:
            return []
        return list(struct.unpack_from(f"<{n}{code}", self.buf, offset))

    def int_column(self, offset: int, n: int, code: IntCode) -> memoryview[int]:
        # Offset 0 is a column the directory does not list: empty.
        if offset == 0 or n == 0:
            return memoryview(b"").cast(code)
        size = struct.calcsize(code)
        return memoryview(self.buf)[offset : offset + n * size].cast(code)

    def float_column(self, offset: int, n: int, code: FloatCode) -> memoryview[float]:
        if offset == 0 or n == 0:
            return memoryview(b"").cast(code)
        size = struct.calcsize(code)
        return memoryview(self.buf)[offset : offset + n * size].cast(code)

    def inline_at(self, offset: int, n: int) -> builtins.bool:
        # The value offset of a known tag is valid; 0 is no value.
        return offset != 0

    # ---- SoA arrays, union columns, bunch tables ----------------------------

    def soa_columns(self, a: ArrayRef, wanted: Columns) -> list[int]:
        # The directory and its block were checked: only where the wanted
        # columns are is left to find.
        if a.cap == 0:
            return [0] * len(wanted)
        d = self.u32(a.offset)
        return self.find_columns(a, d, self.u32(d), wanted)[0]

    def union_columns(self, a: ArrayRef, tag_size: int) -> tuple[int, int] | None:
        if a.cap == 0:
            return None
        return (a.offset, align_up(a.offset + a.cap * tag_size, 4))

    def bunch_entries(self, a: ArrayRef) -> int | None:
        if a.cap == 0:
            return None
        return self.u32(a.offset)

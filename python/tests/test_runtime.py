"""The runtime's own checks: message headers (docs/format.md §1), the
reader's bounds, the writer's alignment and padding, the budget."""

from __future__ import annotations

import mmap
import struct
import tempfile
import unittest

import karmem


def message(size: int, words: dict[int, int] | None = None) -> bytearray:
    b = bytearray(size)
    b[0:4] = b"KM\x02\x00"
    struct.pack_into("<I", b, 4, size)
    for at, v in (words or {}).items():
        struct.pack_into("<I", b, at, v)
    return b


class Header(unittest.TestCase):
    def kind(self, data: bytes | bytearray) -> str:
        with self.assertRaises(karmem.Error) as e:
            karmem.Reader(data)
        return e.exception.kind

    def test_refusals(self) -> None:
        self.assertEqual(self.kind(b"KM\x02"), "Truncated")
        self.assertEqual(self.kind(b"XM\x02\x00\x08\x00\x00\x00"), "BadMagic")
        self.assertEqual(self.kind(b"KM\x01\x00\x08\x00\x00\x00"), "UnsupportedVersion")
        self.assertEqual(self.kind(b"KM\x02\x01\x08\x00\x00\x00"), "BadFlags")
        self.assertEqual(self.kind(b"KM\x02\x00\x09\x00\x00\x00"), "BadSize")
        self.assertEqual(self.kind(b"KM\x02\x00\x10\x00\x00\x00"), "Truncated")

    def test_size_bounds_every_read(self) -> None:
        # A longer buffer: the header's size, not the buffer, bounds reads.
        data = message(16, {8: 7}) + b"\xff" * 16
        r = karmem.Reader(memoryview(data))
        self.assertEqual(r.size, 16)
        self.assertEqual(r.u32(8), 7)
        self.assertEqual(r.u32(16), 0)
        self.assertEqual(r.u64(12), 0)


class Mapped(unittest.TestCase):
    def test_a_message_in_a_mapped_file(self) -> None:
        with tempfile.TemporaryFile() as f:
            f.write(message(24, {8: 16, 12: 2, 16: 7, 20: 9}))
            f.flush()
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            with mapped as mm, memoryview(mm) as data:
                r = karmem.Reader(data)
                self.assertEqual(r.u32(16), 7)
                with r.int_column(16, 2, "I") as column:
                    self.assertEqual(column.tolist(), [7, 9])
                del r


class Tables(unittest.TestCase):
    def test_malformed_tables_are_absent(self) -> None:
        r = karmem.Reader(message(32, {8: 2, 16: 0x1FFFFFFF}))
        self.assertEqual(r.table(8), karmem.Table(8, 16))
        self.assertEqual(r.table(0), karmem.ABSENT)
        self.assertEqual(r.table(12), karmem.ABSENT)
        self.assertEqual(r.table(16), karmem.ABSENT)

    def test_array_checks(self) -> None:
        r = karmem.Reader(message(32, {8: 16, 12: 2, 16: 2}))
        self.assertEqual(r.array(8, 4, karmem.NO_LIMIT), karmem.ArrayRef(16, 2, 2))
        self.assertEqual(r.array(8, 4, 1), karmem.EMPTY)
        self.assertEqual(r.array(8, 16, karmem.NO_LIMIT), karmem.EMPTY)
        v = karmem.Validator(r)
        with self.assertRaises(karmem.Error) as e:
            v.array(8, 4, 1)
        self.assertEqual(e.exception.kind, "LimitExceeded")


class Budget(unittest.TestCase):
    def test_every_charge_is_at_least_one_unit(self) -> None:
        v = karmem.Validator(karmem.Reader(message(8)))
        self.assertEqual(v.budget, 64)
        v.charge(0)
        v.charge(63)
        with self.assertRaises(karmem.Error) as e:
            v.charge(0)
        self.assertEqual(e.exception.kind, "BudgetExceeded")


class Writing(unittest.TestCase):
    def test_alignment_padding_and_header(self) -> None:
        w = karmem.Writer()
        w.begin()
        at = w.alloc(1, 1)
        w.u8(at, 5)
        self.assertEqual(w.alloc_array(2, 4), 12)
        self.assertEqual(w.alloc_array(0, 4), 0)
        w.finish()
        self.assertEqual(bytes(w.buf), b"KM\x02\x00\x18\x00\x00\x00\x05" + bytes(15))

    def test_text(self) -> None:
        w = karmem.Writer()
        w.begin()
        at = w.alloc(24, 8)
        w.string(at, "é")
        w.utf16(at + 12, "\U0001f600")
        w.finish()
        r = karmem.Reader(bytes(w.buf))
        self.assertEqual(r.string(r.array(at, 1, karmem.NO_LIMIT)), "é")
        self.assertEqual(r.utf16(r.array(at + 12, 2, karmem.NO_LIMIT)), "\U0001f600")
        self.assertEqual(karmem.utf16_len("\U0001f600"), 2)


class Helpers(unittest.TestCase):
    def test_natural_align(self) -> None:
        sizes = [0, 1, 2, 3, 4, 12, 16, 24]
        aligns = [karmem.natural_align(s) for s in sizes]
        self.assertEqual(aligns, [1, 1, 2, 1, 4, 4, 8, 8])


if __name__ == "__main__":
    unittest.main()


class Editing(unittest.TestCase):
    """`karmem.Editor` on a hand-made table whose text has spare capacity
    (writers leave none, so the vectors cannot show it): shrinking zeroes
    the dropped bytes, growing within the capacity works, past it is
    refused (docs/format.md §12)."""

    def test_text_within_capacity(self) -> None:
        # Root table: header (3 words = 24 bytes), text reference at +4:
        # offset 32, length 5, capacity 8.
        buf = message(40, {8: 3, 12: 32, 16: 5, 20: 8})
        buf[32:37] = b"hello"
        e = karmem.Editor(buf)
        t = e.r.table(8)
        e.set_text(t, 4, "hi")
        self.assertEqual(e.r.string(e.r.array(12, 1, karmem.NO_LIMIT)), "hi")
        self.assertEqual(bytes(buf[32:40]), b"hi" + bytes(6))
        e.set_text(t, 4, "12345678")
        self.assertEqual(bytes(buf[32:40]), b"12345678")
        with self.assertRaises(karmem.Error) as refused:
            e.set_text(t, 4, "123456789")
        self.assertEqual(refused.exception.kind, "TooLarge")
        e.set_text(t, 4, "1234")
        with self.assertRaises(karmem.Error) as refused:
            e.set_text(t, 4, "123456", 5)  # within the capacity, past the limit
        self.assertEqual(refused.exception.kind, "TooLarge")
        self.assertEqual(bytes(buf[32:40]), b"1234" + bytes(4))
        with self.assertRaises(karmem.Error) as refused:
            e.set(t, 24, "I", 1)  # past the table
        self.assertEqual(refused.exception.kind, "MalformedTable")

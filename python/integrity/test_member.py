"""The Python member of the integrity suite (python/integrity,
docs/integrity.md): its draws, and its protocol on good and bad requests.
Its agreement with the other languages is the harness's job
(crates/karmem-integrity/tests/suite.rs, run by scripts/test-python.sh).
Needs the generated modules (KARMEM_INTEGRITY_PY_GEN)."""

from __future__ import annotations

import hashlib
import re
import unittest

from integrity import member
from integrity.main import answer
from integrity.rand import Rand

VERSIONS = {n: member.Version(n) for n in ("old", "new")}


def ask(line: str) -> str:
    return answer(VERSIONS, line)


class TestMember(unittest.TestCase):
    def test_splitmix64_reference(self) -> None:
        g = Rand(0)
        self.assertEqual(g.next(), 0xE220A8397B1DCDAF)
        self.assertEqual(g.next(), 0x6E789E6AA1B965F4)
        self.assertEqual(g.next(), 0x06C45D188009454F)

    def test_draws_keep_the_low_bits_and_stay_exact(self) -> None:
        g, h = Rand(0), Rand(0)
        low = h.next() & 0xFF
        self.assertEqual(g.signed(8), low - 256 if low >= 128 else low)
        self.assertTrue((g.f64() * 1024).is_integer())

    def test_bad_requests_answer_an_error_line(self) -> None:
        for bad in [
            "produce old nope",
            "produce ancient 1",
            "produce old 18446744073709551616",
            "produce old -1",
            "consume new zz",
            "consume new 4b4d",
            "consume old 00000000000000000000000000000000",
            "unknown new 00",
            "consume",
        ]:
            self.assertRegex(ask(bad), r"^error \S", bad)

    def test_consume_is_the_digest_of_stream_and_messages_round_trip(self) -> None:
        for seed in [0, 1, 2, 5, 6]:
            for v in ["old", "new"]:
                msg = ask(f"produce {v} {seed}")
                self.assertTrue(re.fullmatch("([0-9a-f]{16})+", msg), msg[:80])
                for c in ["old", "new"]:
                    stream = bytes.fromhex(ask(f"stream {c} {msg}"))
                    digest = hashlib.sha256(stream).hexdigest()
                    self.assertEqual(ask(f"consume {c} {msg}"), digest)
                self.assertEqual(ask(f"roundtrip {v} {msg}"), "ok")

    def test_damaged_messages_answer_an_error_or_a_digest(self) -> None:
        msg = bytearray.fromhex(ask("produce new 5"))
        for i in range(0, len(msg), 7):
            bad = bytearray(msg)
            bad[i] ^= 0xA5
            got = ask(f"consume new {bad.hex()}")
            self.assertTrue(
                got.startswith("error ") or re.fullmatch("[0-9a-f]{64}", got), got
            )


if __name__ == "__main__":
    unittest.main()

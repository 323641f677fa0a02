"""Every golden vector through the generated Python code: encode gives the
bytes exactly, decode gives the value, the validator accepts, and each
evolution reader reads its stated value; every hostile case is decided as
its `valid` and `value` say (testdata/vectors/README.md)."""

from __future__ import annotations

import importlib.util
import struct
import unittest
from typing import Any

from vectors import Case, Convert, Modules, ViewJson, gen_dir, load_cases, same

import karmem

# The vectors committed when this runner was written: a runner that
# silently finds nothing must not pass.
MIN_CASES = 76


def bits(values: list[Any]) -> list[Any]:
    """Floats by their bits (NaN equals NaN, -0.0 is not 0.0)."""
    return [struct.pack("<d", v) if isinstance(v, float) else v for v in values]


def first_difference(a: bytes, b: bytes) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at offset {i}: {x:#04x} != {y:#04x}"
    return f"lengths {len(a)} != {len(b)}"


@unittest.skipIf(gen_dir() is None, "KARMEM_PY_GEN is not set (scripts/test-python.sh)")
class Vectors(unittest.TestCase):
    modules: Modules
    cases: list[Case]

    @classmethod
    def setUpClass(cls) -> None:
        gen = gen_dir()
        assert gen is not None
        cls.modules = Modules(gen)
        cls.cases = load_cases()

    def root(self, case: Case, schema: str) -> tuple[Any, Convert]:
        m = self.modules.get(case.topic, schema)
        conv = Convert(m)
        return m.KARMEM_STRUCTS[case.root][0], conv

    def test_count(self) -> None:
        self.assertGreaterEqual(len(self.cases), MIN_CASES)

    def test_golden(self) -> None:
        for case in self.cases:
            if case.hostile:
                continue
            with self.subTest(case=f"{case.topic}/{case.name}"):
                cls, conv = self.root(case, case.schema)
                desc = ("struct", case.root)
                value = conv.from_json(desc, case.value)
                encoded = value.encode()
                self.assertEqual(
                    encoded, case.data, first_difference(encoded, case.data)
                )
                decoded = cls.decode(case.data)
                self.assertIsNone(same(conv.to_json(desc, decoded), case.value))
                cls.validate(case.data)
                # Again with a reused writer, from the decoded value.
                w = karmem.Writer()
                value.encode(w)
                self.assertEqual(decoded.encode(w), case.data)
                # The same bytes through a bytearray and a memoryview.
                for data in (bytearray(case.data), memoryview(case.data)):
                    self.assertIsNone(
                        same(conv.to_json(desc, cls.decode(data)), case.value)
                    )

    def test_views(self) -> None:
        """The checked viewers read every field as the decoder does."""
        for case in self.cases:
            if case.hostile:
                continue
            with self.subTest(case=f"{case.topic}/{case.name}"):
                cls, conv = self.root(case, case.schema)
                view = cls.view(bytearray(case.data))
                got = ViewJson(conv).get(("struct", case.root), view)
                self.assertIsNone(same(got, case.value))

    def test_columns(self) -> None:
        """Each number column of an SoA array, whole: a memoryview over the
        message (and a NumPy array when NumPy is there) holding what the
        elements' properties read."""
        numpy = importlib.util.find_spec("numpy") is not None
        n = 0
        for case in self.cases:
            if case.hostile:
                continue
            cls, _ = self.root(case, case.schema)
            view = cls.view(case.data)
            for attr in dir(type(view)):
                if attr.startswith("_") or not isinstance(
                    getattr(type(view), attr), property
                ):
                    continue
                soa = getattr(view, attr)
                if not type(soa).__name__.endswith("Soa"):
                    continue
                for method in dir(soa):
                    if not method.startswith("column_"):
                        continue
                    n += 1
                    leaf = method.removeprefix("column_")
                    with self.subTest(case=f"{case.topic}/{case.name}", column=leaf):
                        expected = [getattr(item, leaf) for item in soa]
                        got = list(getattr(soa, method)())
                        self.assertEqual(bits(got), bits(expected))
                        if numpy:
                            array = getattr(soa, "numpy_" + leaf)()
                            self.assertEqual(bits(array.tolist()), bits(expected))
        self.assertGreater(n, 0)

    def test_readers(self) -> None:
        n = 0
        for case in self.cases:
            for schema, expected in case.readers.items():
                n += 1
                with self.subTest(case=f"{case.topic}/{case.name}", reader=schema):
                    cls, conv = self.root(case, schema)
                    cls.validate(case.data)
                    decoded = cls.decode(case.data)
                    got = conv.to_json(("struct", case.root), decoded)
                    self.assertIsNone(same(got, expected))
        self.assertGreater(n, 0)

    def test_hostile(self) -> None:
        n = 0
        for case in self.cases:
            if not case.hostile:
                continue
            n += 1
            with self.subTest(case=f"{case.topic}/{case.name}"):
                cls, conv = self.root(case, case.schema)
                if case.valid:
                    cls.validate(case.data)
                else:
                    with self.assertRaises(karmem.Error) as refused:
                        cls.validate(case.data)
                    if case.error is not None:
                        self.assertEqual(refused.exception.kind, case.error)
                # A view of any message reads without an error: every
                # access is bounded, a malformed part reads as empty.
                ViewJson(conv, 100).get(("struct", case.root), cls.view(case.data))
                if case.value is None:
                    with self.assertRaises(karmem.Error):
                        cls.decode(case.data)
                else:
                    got = conv.to_json(("struct", case.root), cls.decode(case.data))
                    self.assertIsNone(same(got, case.value))
        self.assertGreater(n, 0)


if __name__ == "__main__":
    unittest.main()

"""Every golden vector through the generated Python code: encode gives the
bytes exactly, decode gives the value, the validator accepts, and each
evolution reader reads its stated value; every hostile case is decided as
its `valid` and `value` say (testdata/vectors/README.md)."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import math
import struct
import unittest
from typing import Any

from vectors import (
    Case,
    Convert,
    Modules,
    ViewJson,
    gen_dir,
    load_cases,
    put,
    same,
    table_views,
)

import karmem

# The vectors committed when this runner was written: a runner that
# silently finds nothing must not pass.
MIN_CASES = 76


def bits(values: list[Any]) -> list[Any]:
    """Floats by their bits (NaN equals NaN, -0.0 is not 0.0)."""
    return [struct.pack("<d", v) if isinstance(v, float) else v for v in values]


def changed(x: Any) -> Any:
    """Another value of the same type and range as `x`."""
    if isinstance(x, bool):
        return not x
    if isinstance(x, int):
        return x ^ 1
    return 1.5 if x == 0 or math.isnan(x) else -x


def snapshot(x: Any) -> Any:
    """The lists, dicts and objects of `x` as a tree of (object, children),
    taken before a decode writes over them."""
    if isinstance(x, list):
        return (x, [snapshot(e) for e in x])
    if isinstance(x, dict):
        return (x, None)
    if dataclasses.is_dataclass(x):
        return (
            x,
            {f.name: snapshot(getattr(x, f.name)) for f in dataclasses.fields(x)},
        )
    return None


def kept(old: Any, fresh: Any, after: Any, path: str = "$") -> str | None:
    """Where `T.decode_into` replaced a part it should have kept: a list,
    dict or object of the previous value (`old`, its snapshot) where the
    new message's fresh decode `fresh` has one of the same kind (within
    them, fields and list elements the same way; dict values are new), or
    None."""
    if old is None:
        return None
    obj, children = old
    if isinstance(obj, list) and isinstance(fresh, list):
        if after is not obj:
            return f"{path}: a new list"
        for i, (o, f) in enumerate(zip(children, fresh)):
            diff = kept(o, f, after[i], f"{path}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(obj, dict) and isinstance(fresh, dict):
        return None if after is obj else f"{path}: a new dict"
    if type(obj) is type(fresh) and dataclasses.is_dataclass(obj):
        if after is not obj:
            return f"{path}: a new {type(obj).__name__}"
        for name, o in children.items():
            diff = kept(o, getattr(fresh, name), getattr(after, name), f"{path}.{name}")
            if diff:
                return diff
    return None


def parts(x: Any) -> list[Any]:
    """The lists, dicts and objects `x` holds, itself included."""
    if isinstance(x, list):
        return [x] + [p for e in x for p in parts(e)]
    if isinstance(x, dict):
        return [x] + [p for e in x.values() for p in parts(e)]
    if dataclasses.is_dataclass(x):
        return [x] + [
            p for f in dataclasses.fields(x) for p in parts(getattr(x, f.name))
        ]
    return []


def older_writers(cls: Any, data: bytes) -> list[bytes]:
    """`data` with its root table's `used` size cut to each size from 4 (a
    table with no field) to its own (format.md §4), the bytes past it
    left as they are: what writers of older schemas, with fewer fields,
    would have the reader find. None when the root is an inline struct."""
    t = getattr(cls.view(data), "_t", None)
    if t is None or t.used == 0:
        return []
    out = []
    for used in range(4, t.used):
        total = (used + 7) // 8
        buf = bytearray(data)
        struct.pack_into("<I", buf, t.offset, (total * 8 - used) << 29 | total)
        out.append(bytes(buf))
    return out


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

    def test_fixed_writer(self) -> None:
        """`Writer.fixed(buf)` writes each golden case's bytes into `buf`,
        zeroing what the buffer held (a bytearray and a memoryview of a
        larger one), and refuses a buffer one 8-byte word short."""
        for case in self.cases:
            if case.hostile:
                continue
            with self.subTest(case=f"{case.topic}/{case.name}"):
                _, conv = self.root(case, case.schema)
                value = conv.from_json(("struct", case.root), case.value)
                n = len(case.data)
                exact = bytearray(b"\xa5" * n)
                self.assertEqual(value.encode(karmem.Writer.fixed(exact)), case.data)
                self.assertEqual(exact, case.data)
                larger = bytearray(b"\x5a" * (n + 24))
                w = karmem.Writer.fixed(memoryview(larger)[8:])
                for _ in range(2):  # the writer reused
                    self.assertEqual(value.encode(w), case.data)
                    self.assertEqual(w.n, n)
                self.assertEqual(larger[8 : 8 + n], case.data)
                self.assertEqual(larger[:8], b"\x5a" * 8)
                self.assertEqual(larger[8 + n :], b"\x5a" * 16)
                with self.assertRaises(karmem.Error) as refused:
                    value.encode(karmem.Writer.fixed(bytearray(n - 8)))
                self.assertEqual(refused.exception.kind, "TooLarge")

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

    def test_trusted_views(self) -> None:
        """`T.trust` refuses what `validate` refuses and, on every message a
        validator accepts (each golden case, as its own schema and as each
        evolution reader, and each accepted hostile case), gives views over
        a `karmem.TrustedReader` that read what the checked views read."""
        n = 0
        for case in self.cases:
            schemas = [case.schema] + ([] if case.hostile else list(case.readers))
            for schema in schemas:
                with self.subTest(case=f"{case.topic}/{case.name}", reader=schema):
                    cls, conv = self.root(case, schema)
                    desc = ("struct", case.root)
                    if case.hostile and not case.valid:
                        with self.assertRaises(karmem.Error) as refused:
                            cls.trust(case.data)
                        if case.error is not None:
                            self.assertEqual(refused.exception.kind, case.error)
                        continue
                    n += 1
                    trusted = cls.trust(bytearray(case.data))
                    self.assertIsInstance(trusted._r, karmem.TrustedReader)
                    # The root table as the checked reader finds it (its
                    # `used`: a field in its unused tail is absent, §4).
                    if hasattr(trusted, "_t"):
                        self.assertEqual(trusted._t, cls.view(case.data)._t)
                    got = ViewJson(conv).get(desc, trusted)
                    checked = ViewJson(conv).get(desc, cls.view(case.data))
                    self.assertIsNone(same(got, checked))
                    if schema == case.schema and not case.hostile:
                        self.assertIsNone(same(got, case.value))
        self.assertGreater(n, 0)

    def test_setters(self) -> None:
        """Every setter of every table field of every golden case, through
        `karmem.Editor` over the message: each change reads back, the
        message still validates and every other field reads as before
        (the whole message compared, as JSON, with the expected change);
        text grown and lengths past the capacity are refused and change
        nothing; a shrunk array grown back reads zeros."""
        counts = {"set": 0, "len": 0, "refused": 0}
        for case in self.cases:
            if case.hostile:
                continue
            with self.subTest(case=f"{case.topic}/{case.name}"):
                self.edit_case(case, counts)
        self.assertGreater(counts["set"], 0)
        self.assertGreater(counts["len"], 0)
        self.assertGreater(counts["refused"], 0)

    def edit_case(self, case: Case, counts: dict[str, int]) -> None:
        cls, conv = self.root(case, case.schema)
        desc = ("struct", case.root)
        buf = bytearray(case.data)
        e = karmem.Editor(buf)
        vj = ViewJson(conv)
        expected = copy.deepcopy(vj.get(desc, cls.view(buf)))

        def check(what: str) -> None:
            cls.validate(buf)
            diff = same(vj.get(desc, cls.view(buf)), expected)
            self.assertIsNone(diff, what)
            decoded = conv.to_json(desc, cls.decode(buf))
            self.assertIsNone(same(decoded, expected), what)

        def refused(kind: str, f: Any, *args: Any) -> None:
            before = bytes(buf)
            with self.assertRaises(karmem.Error) as r:
                f(e, *args)
            self.assertEqual(r.exception.kind, kind)
            self.assertEqual(bytes(buf), before)
            counts["refused"] += 1

        for view, path, name in list(table_views(vj, desc, cls.view(buf))):
            _, tuple_, fields = conv.structs[name]
            for i, (jn, attr, fd) in enumerate(fields):
                at = (*path, i if tuple_ else jn)
                setter = getattr(view, "set_" + attr, None)
                if setter is not None and fd[0] == "text":
                    old = getattr(view, attr)
                    if old:
                        setter(e, old[:-1])
                        put(expected, at, old[:-1])
                        counts["set"] += 1
                        check(f"{at} = {old[:-1]!r}")
                    # Writers leave no spare capacity: text cannot grow.
                    refused("TooLarge", setter, old + "x")
                elif setter is not None:
                    new = changed(getattr(view, attr))
                    setter(e, new)
                    self.assertEqual(bits([getattr(view, attr)]), bits([new]))
                    put(expected, at, conv.to_json(fd, new))
                    counts["set"] += 1
                    check(f"{at} = {new!r}")
                edit = getattr(view, "edit_" + attr, None)
                if edit is None:
                    continue
                items = edit(e)
                n = len(items)
                elem = fd[-1]
                if n:
                    items[0] = changed(items[0])
                    expected_list = [*[conv.to_json(elem, x) for x in items]]
                    put(expected, at, expected_list)
                    check(f"{at}[0] = {items[0]!r}")
                    set_len = getattr(view, f"set_{attr}_len")
                    set_len(e, n - 1)
                    put(expected, at, expected_list[:-1])
                    check(f"{at} shrunk")
                    set_len(e, n)
                    zero = conv.to_json(elem, 0.0 if elem[0] in ("f32", "f64") else 0)
                    put(expected, at, [*expected_list[:-1], zero])
                    check(f"{at} grown back")
                    counts["len"] += 1
                refused("TooLarge", getattr(view, f"set_{attr}_len"), n + 1)

    def test_setters_refused(self) -> None:
        """Setters over messages they may not fit: each evolution reader's
        views of older bytes (a field the message lacks is refused,
        `MalformedTable`, and nothing is written) and every hostile case
        (each setter changes its field or raises `karmem.Error` with the
        bytes unchanged, never another exception: every write is bounded
        by the message)."""
        absent = 0
        for case in self.cases:
            schemas = [case.schema] if case.hostile else list(case.readers)
            for schema in schemas:
                with self.subTest(case=f"{case.topic}/{case.name}", reader=schema):
                    absent += self.edit_hostile(case, schema)
        self.assertGreater(absent, 0)

    def edit_hostile(self, case: Case, schema: str) -> int:
        """Every setter of `case` read as `schema`; how many were refused
        for an absent field."""
        cls, conv = self.root(case, schema)
        buf = bytearray(case.data)
        try:
            e = karmem.Editor(buf)
        except karmem.Error:
            return 0  # a header no reader accepts
        vj = ViewJson(conv, 100)
        absent = 0
        for view, _, name in list(
            table_views(vj, ("struct", case.root), cls.view(buf))
        ):
            for _, attr, _ in conv.structs[name][2]:
                calls: list[tuple[Any, Any]] = [
                    (getattr(view, f"set_{attr}_len", None), 0)
                ]
                setter = getattr(view, "set_" + attr, None)
                if setter is not None:
                    value = getattr(view, attr)
                    text = isinstance(value, str)
                    calls.append((setter, value[:-1] if text else changed(value)))
                edit = getattr(view, "edit_" + attr, None)
                for f, arg in calls:
                    if f is None:
                        continue
                    before = bytes(buf)
                    try:
                        f(e, arg)
                    except karmem.Error as err:
                        self.assertEqual(bytes(buf), before)
                        absent += err.kind == "MalformedTable" and not case.hostile
                        continue
                    if not case.hostile:
                        # Written, so present: it reads back, and the
                        # message is still valid (a write past the
                        # table's `used` would read as absent).
                        got = getattr(view, attr)
                        if f is setter:
                            self.assertEqual(bits([got]), bits([arg]), attr)
                        else:
                            self.assertEqual(len(got), 0, attr)
                        cls.validate(buf)
                if edit is not None:
                    try:
                        items = edit(e)
                    except karmem.Error:
                        continue
                    if len(items):
                        items[0] = changed(items[0])
        return absent

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
            for view in (cls.view(case.data), cls.trust(case.data)):
                n += self.check_columns(case, view, numpy)
        self.assertGreater(n, 0)

    def check_columns(self, case: Case, view: Any, numpy: bool) -> int:
        """Checks the SoA columns of `view`; how many there are."""
        n = 0
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
        return n

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

    def test_decode_into(self) -> None:
        """`T.decode_into(b, x)` over `x` decoded from another message `a` of
        the same schema and root, for every ordered pair of the messages
        each reader decodes (golden cases, older and newer writers for the
        evolution readers, accepted hostile cases): `x` then reads as a
        fresh decode of `b` (nothing of `a` left: fields past `used`,
        unlisted SoA columns, union values, optional values reset), keeps
        every list, dict and object the shapes allow, and shares no part
        with another place of itself; a message `decode` refuses raises the
        same error kind from `decode_into`."""
        groups: dict[tuple[str, str, str], list[bytes]] = {}
        refused: list[tuple[Case, str]] = []
        for case in self.cases:
            if case.hostile and case.value is None:
                refused.append((case, case.schema))
                continue
            schemas = [case.schema] + ([] if case.hostile else list(case.readers))
            for schema in schemas:
                groups.setdefault((case.topic, schema, case.root), []).append(case.data)
        pairs = 0
        for (topic, schema, root), messages in groups.items():
            m = self.modules.get(topic, schema)
            cls = m.KARMEM_STRUCTS[root][0]
            check = self.into_checker(cls, Convert(m), ("struct", root))
            for a in messages:
                for b in messages:
                    pairs += 1
                    with self.subTest(topic=topic, schema=schema, root=root):
                        check(a, b)
                # Every older writer of the root table (its `used` cut to
                # each size down to 4: no field), after and before `a`:
                # the fields and nested tables it lacks are reset.
                for older in older_writers(cls, a):
                    pairs += 2
                    with self.subTest(topic=topic, schema=schema, root=root, older=1):
                        check(a, older)
                        check(older, a)
        self.assertGreater(pairs, len(groups))
        for case, schema in refused:
            with self.subTest(case=f"{case.topic}/{case.name}"):
                cls, _ = self.root(case, schema)
                with self.assertRaises(karmem.Error) as fresh_error:
                    cls.decode(case.data)
                for b in groups[(case.topic, schema, case.root)]:
                    x = cls.decode(b)
                    with self.assertRaises(karmem.Error) as into_error:
                        cls.decode_into(case.data, x)
                    self.assertEqual(
                        into_error.exception.kind, fresh_error.exception.kind
                    )

    def into_checker(self, cls: Any, conv: Convert, desc: Any) -> Any:
        def check(a: bytes, b: bytes) -> None:
            x = cls.decode(a)
            old = snapshot(x)
            cls.decode_into(b, x)
            fresh = cls.decode(b)
            got = conv.to_json(desc, x)
            self.assertIsNone(same(got, conv.to_json(desc, fresh)))
            self.assertIsNone(kept(old, fresh, x))
            self.assertIs(type(x), cls)
            # No part twice: a reused element is in one place only.
            now = parts(x)
            self.assertEqual(len({id(p) for p in now}), len(now))

        return check

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

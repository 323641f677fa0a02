"""The golden vectors (testdata/vectors/README.md) as the generated Python
code sees them: the cases, their bytes, the generated modules, and values
converted between the vectors' JSON conventions and generated objects
through each module's descriptors (`KARMEM_STRUCTS`, `KARMEM_ENUMS`,
`KARMEM_UNIONS`)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "testdata" / "vectors"


@dataclass
class Case:
    topic: str
    name: str
    schema: str
    root: str
    value: Any
    readers: dict[str, Any]
    data: bytes
    hostile: bool
    valid: bool
    # The kind every validator reports, where the case names one.
    error: str | None


def parse_hex(text: str) -> bytes:
    out = bytearray()
    for line in text.splitlines():
        part = line.split(":", 1)[1] if ":" in line else line
        out.extend(int(b, 16) for b in part.split())
    return bytes(out)


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(VECTORS.glob("*/*.json")):
        doc = json.loads(path.read_text())
        readers = doc.get("readers") or {}
        cases.append(
            Case(
                topic=path.parent.name,
                name=path.stem,
                schema=doc.get("schema", "schema.km"),
                root=doc["root"],
                value=doc.get("value"),
                readers=readers if isinstance(readers, dict) else {},
                data=parse_hex(path.with_suffix(".hex").read_text()),
                hostile="message" in doc,
                valid=doc.get("valid", True),
                error=doc.get("error"),
            )
        )
    return cases


class Modules:
    """The generated module of each schema file, from a directory laid out
    as `GEN/TOPIC/STEM/*.py` (scripts/test-python.sh)."""

    def __init__(self, gen: Path) -> None:
        self.gen = gen
        self.loaded: dict[tuple[str, str], ModuleType] = {}

    def get(self, topic: str, schema: str) -> ModuleType:
        key = (topic, schema)
        if key not in self.loaded:
            stem = schema.removesuffix(".km")
            files = sorted((self.gen / topic / stem).glob("*.py"))
            if len(files) != 1:
                raise FileNotFoundError(f"no generated module for {topic}/{schema}")
            name = f"kmvec_{topic}_{stem}"
            spec = importlib.util.spec_from_file_location(name, files[0])
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            # dataclasses looks the module up while it is being executed.
            sys.modules[name] = module
            spec.loader.exec_module(module)
            self.loaded[key] = module
        return self.loaded[key]


def gen_dir() -> Path | None:
    gen = os.environ.get("KARMEM_PY_GEN")
    return Path(gen) if gen else None


# ---- JSON <-> objects -------------------------------------------------------

FLOATS = {"f32", "f64"}
INTS = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"}
SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class Convert:
    def __init__(self, m: ModuleType) -> None:
        self.structs: dict[str, Any] = m.KARMEM_STRUCTS
        self.enums: dict[str, dict[int, str]] = m.KARMEM_ENUMS
        self.unions: dict[str, Any] = m.KARMEM_UNIONS
        self.names = {info[0]: name for name, info in self.structs.items()}

    def from_json(self, d: tuple[Any, ...], j: Any) -> Any:
        kind = d[0]
        if kind == "optional":
            return None if j is None else self.from_json(d[1], j)
        if kind in INTS:
            return int(j or 0)
        if kind in FLOATS:
            if isinstance(j, str):
                return SPECIAL[j]
            value = 0.0 if j is None else float(j)
            if kind == "f32":
                value = struct.unpack("<f", struct.pack("<f", value))[0]
            return value
        if kind == "bool":
            return bool(j)
        if kind == "enum":
            if isinstance(j, str):
                names = {v: k for k, v in self.enums[d[1]].items()}
                return names[j]
            return int(j or 0)
        if kind == "text":
            return j or ""
        if kind == "struct":
            cls, tuple_, fields = self.structs[d[1]]
            if j is None:
                return cls()
            args = {}
            for i, (jname, attr, fd) in enumerate(fields):
                value = j[i] if tuple_ else j.get(jname)
                if value is None and fd[0] == "fixed":
                    value = [None] * fd[1]
                args[attr] = self.from_json(fd, value)
            return cls(**args)
        if kind == "union":
            if j is None:
                return None
            ((name, value),) = j.items()
            return self.from_json(("struct", name), value)
        if kind in ("list", "fixed"):
            elem = d[-1]
            return [self.from_json(elem, e) for e in (j or [])]
        if kind == "map":
            return {
                self.key(d[1], k): self.from_json(d[2], v) for k, v in (j or {}).items()
            }
        raise ValueError(f"unknown type {d}")

    def key(self, d: tuple[Any, ...], k: str) -> Any:
        if d[0] == "text":
            return k
        if d[0] == "enum":
            names = {v: n for n, v in self.enums[d[1]].items()}
            return names[k] if k in names else int(k)
        return int(k)

    def to_json(self, d: tuple[Any, ...], x: Any) -> Any:
        kind = d[0]
        if kind == "optional":
            return None if x is None else self.to_json(d[1], x)
        if kind in INTS:
            return x
        if kind in FLOATS:
            if math.isnan(x):
                return "NaN"
            if math.isinf(x):
                return "Infinity" if x > 0 else "-Infinity"
            return float(x)
        if kind == "bool":
            return x
        if kind == "enum":
            return self.enums[d[1]].get(x, x)
        if kind == "text":
            return x
        if kind == "struct":
            _, tuple_, fields = self.structs[d[1]]
            if tuple_:
                return [self.to_json(fd, getattr(x, attr)) for _, attr, fd in fields]
            return {jn: self.to_json(fd, getattr(x, attr)) for jn, attr, fd in fields}
        if kind == "union":
            if x is None:
                return None
            name = self.names[type(x)]
            return {name: self.to_json(("struct", name), x)}
        if kind in ("list", "fixed"):
            return [self.to_json(d[-1], e) for e in x]
        if kind == "map":
            out = {}
            for k, v in x.items():
                if d[1][0] == "enum":
                    key = self.enums[d[1][1]].get(k, str(k))
                else:
                    key = str(k)
                out[key] = self.to_json(d[2], v)
            return out
        raise ValueError(f"unknown type {d}")


def same(a: Any, b: Any, path: str = "$") -> str | None:
    """Where two JSON values differ (floats by bits), or None."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else f"{path}: {a!r} != {b!r}"
    if isinstance(a, float) or isinstance(b, float):
        numbers = isinstance(a, (int, float)) and isinstance(b, (int, float))
        if numbers and struct.pack("<d", float(a)) == struct.pack("<d", float(b)):
            return None
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b) and set(a) != set(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            diff = same(a[k], b[k], f"{path}.{k}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            diff = same(x, y, f"{path}[{i}]")
            if diff:
                return diff
        return None
    return None if a == b and type(a) is type(b) else f"{path}: {a!r} != {b!r}"


# ---- views -> JSON ------------------------------------------------------------

KEYWORDS = {"class", "list", "bytes", "type", "str", "int", "float", "dict"}


class ViewJson:
    """A generated module's views (`T.view(data)`) read field by field into
    the JSON conventions, through the same descriptors."""

    def __init__(self, conv: Convert, limit: int | None = None) -> None:
        self.c = conv
        # Elements read of each array at most (a hostile length is huge).
        self.limit = limit
        self.names: dict[str, str] = {}
        for name, info in conv.structs.items():
            cls = info[0].__name__
            self.names[cls + "View"] = name
            self.names[cls + "SoaItem"] = name

    def get(self, d: tuple[Any, ...], x: Any) -> Any:
        kind = d[0]
        if kind == "optional":
            return None if x is None else self.get(d[1], x)
        if kind in INTS or kind in FLOATS or kind in ("bool", "enum", "text"):
            return self.c.to_json(d, x)
        if kind == "struct":
            name = d[1]
            if type(x).__name__.endswith("SoaItem"):
                return self.item(name, x, "")
            _, tuple_, fields = self.c.structs[name]
            values = [(jn, self.get(fd, getattr(x, attr))) for jn, attr, fd in fields]
            if tuple_:
                return [v for _, v in values]
            return dict(values)
        if kind == "union":
            if x is None:
                return None
            name = self.names[type(x).__name__]
            return {name: self.get(("struct", name), x)}
        if kind in ("list", "fixed"):
            return [self.get(d[-1], x[i]) for i in range(self.count(x))]
        if kind == "map":
            out = {}
            for i in range(self.count(x)):
                e = x[i]
                k = self.c.to_json(("map", d[1], ("u8",)), {e.key: 0})
                (key,) = k.keys()
                out[key] = self.get(d[2], e.value)
            return out
        raise ValueError(f"unknown type {d}")

    def count(self, x: Any) -> int:
        return len(x) if self.limit is None else min(len(x), self.limit)

    def item(self, name: str, x: Any, prefix: str) -> Any:
        """An SoA element: a property per leaf, named by its path."""
        _, tuple_, fields = self.c.structs[name]
        values = []
        for jn, attr, fd in fields:
            leaf = prefix + attr.rstrip("_")
            if fd[0] == "struct":
                values.append((jn, self.item(fd[1], x, leaf + "_")))
                continue
            prop = leaf + "_" if leaf in KEYWORDS else leaf
            values.append((jn, self.get(fd, getattr(x, prop))))
        if tuple_:
            return [v for _, v in values]
        return dict(values)


# ---- views -> the tables a setter can edit ----------------------------------


def table_views(
    c: ViewJson, d: tuple[Any, ...], x: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, tuple[Any, ...], str]]:
    """Every table view under `x` (a view of type `d`): the view, its path
    in the JSON `ViewJson` reads (keys and indices) and its struct's name.
    SoA elements are no table views (columns have no setters)."""
    kind = d[0]
    if kind == "optional":
        if x is not None:
            yield from table_views(c, d[1], x, path)
    elif kind == "struct":
        if type(x).__name__.endswith("SoaItem"):
            return
        _, tuple_, fields = c.c.structs[d[1]]
        if hasattr(x, "_t"):
            yield x, path, d[1]
        for i, (jn, attr, fd) in enumerate(fields):
            step = i if tuple_ else jn
            yield from table_views(c, fd, getattr(x, attr), (*path, step))
    elif kind == "union":
        if x is not None:
            name = c.names[type(x).__name__]
            yield from table_views(c, ("struct", name), x, (*path, name))
    elif kind in ("list", "fixed"):
        for i in range(c.count(x)):
            yield from table_views(c, d[-1], x[i], (*path, i))
    elif kind == "map":
        for i in range(c.count(x)):
            e = x[i]
            (key,) = c.c.to_json(("map", d[1], ("u8",)), {e.key: 0}).keys()
            yield from table_views(c, d[2], e.value, (*path, key))


def put(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    """Sets the JSON value at `path` (non-empty) of `doc`."""
    for step in path[:-1]:
        doc = doc[step]
    doc[path[-1]] = value

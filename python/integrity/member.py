"""The Python member of the integrity suite (docs/integrity.md): a producer
(seed → message, §2) and a consumer (message → the digest of every value
its checked viewers read, §3) for both schema versions, over the modules
`karmem build --lang python` generates from testdata/integrity/{old,new}.km.

The union viewers read an unknown tag as no value, and a bunch array's view
holds the known variants only: the tags and a bunch array's total length
and counts are read with the runtime's checked `Reader` at the layout's
positions (as the TypeScript member does, RATIONALE.md R6.7)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys
import types
from typing import Any

import karmem
from integrity.rand import Rand, inner, largest_of
from integrity.sink import Sink

CIRCLE = 1
DOT = 2
STAR = 3

# Root's union fields (the same positions in both versions: fields are
# appended): the Shape's tag, and the array references of the arrays.
SHAPE_TAG = 200
AOS_SHAPES = 208
SOA_SHAPES = 220
BOVOA_SHAPES = 232
BOVOS_SHAPES = 244


def gen_dir() -> pathlib.Path:
    """Where the generated modules are: `KARMEM_INTEGRITY_PY_GEN`, or
    python/gen/integrity."""
    env = os.environ.get("KARMEM_INTEGRITY_PY_GEN")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parent.parent / "gen" / "integrity"


def load(version: str) -> types.ModuleType:
    path = gen_dir() / version / "integrity.py"
    spec = importlib.util.spec_from_file_location(f"integrity_{version}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # dataclasses looks the module up while it makes the classes.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Version:
    """One schema version: its generated module and what it knows."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.newer = name == "new"
        self.m: Any = load(name)
        self.colors = 4 if self.newer else 3
        self.tags = 4 if self.newer else 3


# The producer (§2).


class Producer:
    def __init__(self, v: Version, seed: int) -> None:
        self.v = v
        self.m: Any = v.m
        self.r = Rand(seed)
        self.max = largest_of(seed)

    def text(self, largest: int, limit: int | None = None) -> str:
        return self.r.text(largest, limit)

    def vec3(self) -> Any:
        r = self.r
        return self.m.Vec3(x=r.f32(), y=r.f32(), z=r.f32())

    def item(self, largest: int) -> Any:
        r = self.r
        it = self.m.Item()
        it.id = r.unsigned(32)
        it.name = self.text(largest)
        it.pos = self.vec3()
        it.tags = [self.text(inner(largest)) for _ in range(r.length(largest))]
        if self.v.newer:
            it.score = r.signed(64)
            it.notes = [self.text(inner(largest)) for _ in range(r.length(largest))]
        return it

    def dot(self) -> Any:
        return self.m.Dot(hue=self.r.below(self.v.colors), at=self.vec3())

    def shape(self, largest: int) -> Any:
        r = self.r
        tag = r.below(self.v.tags)
        if tag == CIRCLE:
            return self.m.Circle(radius=r.f64(), label=self.text(largest))
        if tag == DOT:
            return self.dot()
        if tag == STAR:
            return self.m.Star(points=r.unsigned(8))
        return None

    def items(self, largest: int, limit: int | None = None) -> list[Any]:
        n = self.r.length(largest, limit)
        return [self.item(inner(largest)) for _ in range(n)]

    def shapes(self, largest: int) -> list[Any]:
        n = self.r.length(largest)
        return [self.shape(inner(largest)) for _ in range(n)]

    def root(self) -> Any:
        r, mx, m = self.r, self.max, self.m
        x = m.Root()
        x.u8 = r.unsigned(8)
        x.i8 = r.signed(8)
        x.u16 = r.unsigned(16)
        x.i16 = r.signed(16)
        x.u32 = r.unsigned(32)
        x.i32 = r.signed(32)
        x.u64 = r.unsigned(64)
        x.i64 = r.signed(64)
        x.f32 = r.f32()
        x.f64 = r.f64()
        x.flag = r.bool()
        x.hue = r.below(self.v.colors)
        x.name = self.text(mx)
        x.wide = self.text(mx)
        x.pos = self.vec3()
        x.fixed = [r.signed(16) for _ in range(4)]
        x.small = [r.unsigned(8) for _ in range(r.length(mx, 8))]
        x.bytes_ = [r.unsigned(8) for _ in range(r.length(mx))]
        x.colors = [r.below(self.v.colors) for _ in range(r.length(mx))]
        x.soa_points = [self.vec3() for _ in range(r.length(mx))]
        x.aos_points = [self.vec3() for _ in range(r.length(mx))]
        x.soa_items = self.items(mx)
        x.aos_items = self.items(mx)
        x.dots = [self.dot() for _ in range(r.length(mx, 64))]
        x.shape = self.shape(mx)
        x.aos_shapes = self.shapes(mx)
        x.soa_shapes = self.shapes(mx)
        x.bovoa_shapes = self.shapes(mx)
        x.bovos_shapes = self.shapes(mx)
        x.maybe_u32 = r.unsigned(32) if r.bool() else None
        x.maybe_name = self.text(mx) if r.bool() else None
        x.maybe_item = self.item(mx) if r.bool() else None
        lookup: dict[str, int] = {}
        for _ in range(r.length(mx)):
            key = self.text(inner(mx))
            lookup[key] = r.unsigned(32)
        x.lookup = lookup
        by_id: dict[int, Any] = {}
        for _ in range(r.length(mx)):
            k = r.unsigned(16)
            by_id[k] = self.item(inner(mx))
        x.by_id = by_id
        x.grid = [
            [r.f32() for _ in range(r.length(inner(mx)))] for _ in range(r.length(mx))
        ]
        x.pair = m.RootPairTuple(f0=r.unsigned(16), f1=self.text(mx))
        x.hp = r.unsigned(16)
        if self.v.newer:
            x.level = r.unsigned(8)
            x.extra = r.unsigned(64)
            x.more = self.items(mx)
        return x


def produce(v: Version, seed: int) -> bytes:
    data: bytes = Producer(v, seed).root().encode()
    return data


# The consumer (§3).


def vec(s: Sink, x: Any, prefix: str | None = None) -> None:
    """An inline Vec3: a view (`.x`) or a field of an SoA element
    (`prefix_x`)."""
    if prefix is None:
        s.f32(x.x)
        s.f32(x.y)
        s.f32(x.z)
    else:
        for axis in ("x", "y", "z"):
            s.f32(getattr(x, f"{prefix}_{axis}"))


class Consumer:
    def __init__(self, v: Version) -> None:
        self.v = v
        self.s = Sink()

    def texts(self, xs: Any) -> None:
        self.s.u32(len(xs))
        for t in xs:
            self.s.text(t)

    def item(self, it: Any, soa: bool = False) -> None:
        s = self.s
        s.u32(it.id)
        s.text(it.name)
        if soa:
            vec(s, it, "pos")
        else:
            vec(s, it.pos)
        self.texts(it.tags)
        if self.v.newer:
            s.u64(it.score)
            self.texts(it.notes)

    def items(self, xs: Any, soa: bool) -> None:
        self.s.u32(len(xs))
        for it in xs:
            self.item(it, soa)

    def dot(self, d: Any, soa: bool = False) -> None:
        self.s.u8(d.hue)
        if soa:
            vec(self.s, d, "at")
        else:
            vec(self.s, d.at)

    def variant(self, tag: int, x: Any, soa: bool = False) -> None:
        """The fields of a variant this version knows."""
        s = self.s
        if tag == CIRCLE:
            s.f64(x.radius)
            s.text(x.label)
        elif tag == DOT:
            self.dot(x, soa)
        elif tag == STAR and self.v.newer:
            s.u8(x.points)

    def shape(self, tag: int, x: Any) -> None:
        self.s.u32(tag)
        if x is not None:
            self.variant(tag, x)

    def shapes(self, tags: list[int], xs: Any) -> None:
        self.s.u32(len(tags))
        for i, tag in enumerate(tags):
            self.shape(tag, xs[i] if i < len(xs) else None)

    def bunch(self, r: karmem.Reader, a: karmem.ArrayRef, xs: Any, soa: bool) -> None:
        s = self.s
        s.u32(a.len)
        variants = [(CIRCLE, 4), (DOT, 16)] + ([(STAR, 4)] if self.v.newer else [])
        at = 0
        for tag, size in variants:
            n = r.bunch_entry(a, tag, 0 if soa else size).len
            s.u32(tag)
            s.u32(n)
            for x in xs[at : at + n]:
                self.variant(tag, x, soa)
            at += n

    def root(self, data: bytes) -> bytes:
        m: Any = self.v.m
        m.Root.validate(data)
        v = m.Root.view(data)
        r: karmem.Reader = v._r
        t: karmem.Table = v._t
        s = self.s
        s.u8(v.u8)
        s.u8(v.i8)
        s.u16(v.u16)
        s.u16(v.i16)
        s.u32(v.u32)
        s.u32(v.i32)
        s.u64(v.u64)
        s.u64(v.i64)
        s.f32(v.f32)
        s.f64(v.f64)
        s.u8(1 if v.flag else 0)
        s.u8(v.hue)
        s.text(v.name)
        s.wide(v.wide)
        vec(s, v.pos)
        for e in v.fixed:
            s.u16(e)
        s.raw(bytes(v.small))
        s.raw(bytes(v.bytes_))
        s.raw(bytes(v.colors))
        points = v.soa_points
        s.u32(len(points))
        for p in points:
            vec(s, p)
        points = v.aos_points
        s.u32(len(points))
        for p in points:
            vec(s, p)
        self.items(v.soa_items, True)
        self.items(v.aos_items, False)
        dots = v.dots
        s.u32(len(dots))
        for d in dots:
            self.dot(d, True)

        def ref(off: int, size: int) -> karmem.ArrayRef:
            if t.used < off + 12:
                return karmem.EMPTY
            return r.array(t.offset + off, size, karmem.NO_LIMIT)

        tag = r.u8(t.offset + SHAPE_TAG) if t.used >= SHAPE_TAG + 8 else 0
        self.shape(tag, v.shape)
        a = ref(AOS_SHAPES, 8)
        self.shapes([r.u8(a.offset + 8 * i) for i in range(a.len)], v.aos_shapes)
        a = ref(SOA_SHAPES, 0)
        cols = r.union_columns(a, 1)
        tags = [] if cols is None else [r.u8(cols[0] + i) for i in range(a.len)]
        self.shapes(tags, v.soa_shapes)
        self.bunch(r, ref(BOVOA_SHAPES, 0), v.bovoa_shapes, False)
        self.bunch(r, ref(BOVOS_SHAPES, 0), v.bovos_shapes, True)
        mu = v.maybe_u32
        if mu is None:
            s.u8(0)
        else:
            s.u8(1)
            s.u32(mu)
        mn = v.maybe_name
        if mn is None:
            s.u8(0)
        else:
            s.u8(1)
            s.text(mn)
        mi = v.maybe_item
        if mi is None:
            s.u8(0)
        else:
            s.u8(1)
            self.item(mi)
        lookup = v.lookup
        s.u32(len(lookup))
        for e in lookup:
            s.text(e.key)
            s.u32(e.value)
        by_id = v.by_id
        s.u32(len(by_id))
        for e in by_id:
            s.u16(e.key)
            self.item(e.value)
        grid = v.grid
        s.u32(len(grid))
        for row in grid:
            s.u32(len(row))
            for f in row:
                s.f32(f)
        pair = v.pair
        s.u16(pair.f0)
        s.text(pair.f1)
        s.u16(v.hp)
        if self.v.newer:
            s.u8(v.level)
            s.u64(v.extra)
            self.items(v.more, True)
        return bytes(s.buf)


def stream(v: Version, data: bytes) -> bytes:
    return Consumer(v).root(data)


def roundtrip(v: Version, data: bytes) -> bool:
    m: Any = v.m
    again: bytes = m.Root.decode(data).encode()
    return again == data

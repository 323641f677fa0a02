"""Karmem for Python against FlatBuffers (PyPI `flatbuffers`, flatc's
object API), Protocol Buffers (PyPI `protobuf`, protoc's generated module)
and JSON (the standard library) on the Go benchmark's game state: the data
of go/internal/game (same xorshift generator, same values), fewer monsters
by default (pure Python builds every object).

Run with `make bench-python` (scripts/bench-python.sh); results in
docs/benchmarks.md, "Python". The generated modules are imported from the
directories in KARMEM_BENCH_GEN (km/, fb/, pb/)."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

gen = Path(os.environ["KARMEM_BENCH_GEN"])
sys.path[:0] = [str(gen / "km"), str(gen / "fb"), str(gen / "pb")]

# `game` from `karmem build --lang python`, `game_pb2` from `protoc
# --python_out`, `bench.fb` from `flatc --python --gen-object-api`.
import flatbuffers
import game as km
import game_pb2 as pb
import google.protobuf
import numpy
from bench.fb import State as fb_state

import karmem

MASK = (1 << 64) - 1
NAMES = ["Brave", "Wise", "Quick", "Grim"]


def generate(monsters: int, max_path: int) -> list[dict[str, Any]]:
    """go/internal/game.Generate, step for step."""
    r = 0x9E3779B97F4A7C15

    def nxt() -> int:
        nonlocal r
        x = r
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        r = x
        return x

    def below(n: int) -> int:
        return nxt() % n

    def f32() -> float:
        return below(1 << 20) / 1024 - 512

    def i32() -> int:
        v = nxt() & 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v

    out = []
    for i in range(monsters):
        pos = {"x": f32(), "y": f32(), "z": f32()}
        mana = below(1000)
        health = below(1000)
        inventory = [below(256) for _ in range(below(128))]
        hitbox = [f32() for _ in range(4)]
        status = [i32() for _ in range(below(16))]
        weapons = [{"damage": below(100), "range": below(50)} for _ in range(below(5))]
        path = [
            {"x": f32(), "y": f32(), "z": f32()} for _ in range(1 + below(max_path))
        ]
        out.append(
            {
                "pos": pos,
                "mana": mana,
                "health": health,
                "name": f"Monster {i} the {NAMES[i % 4]}",
                "team": i % 5,
                "inventory": inventory,
                "hitbox": hitbox,
                "status": status,
                "weapons": weapons,
                "path": path,
            }
        )
    return out


def to_karmem(ms: list[dict[str, Any]]) -> km.State:
    def vec(p: dict[str, float]) -> km.Vec3:
        return km.Vec3(x=p["x"], y=p["y"], z=p["z"])

    return km.State(
        monsters=[
            km.Monster(
                data=km.MonsterData(
                    pos=vec(m["pos"]),
                    mana=m["mana"],
                    health=m["health"],
                    name=m["name"],
                    team=m["team"],
                    inventory=bytes(m["inventory"]),
                    hitbox=m["hitbox"],
                    status=m["status"],
                    weapons=[
                        km.Weapon(
                            data=km.WeaponData(damage=w["damage"], range_=w["range"])
                        )
                        for w in m["weapons"]
                    ],
                    path=[vec(p) for p in m["path"]],
                )
            )
            for m in ms
        ]
    )


def to_flat(ms: list[dict[str, Any]]) -> fb_state.StateT:
    from bench.fb import Monster, Vec3, Weapon

    def vec(p: dict[str, float]) -> Any:
        v = Vec3.Vec3T()
        v.x, v.y, v.z = p["x"], p["y"], p["z"]
        return v

    state = fb_state.StateT()
    state.monsters = []
    for m in ms:
        t = Monster.MonsterT()
        t.pos = vec(m["pos"])
        t.mana, t.health, t.name, t.team = m["mana"], m["health"], m["name"], m["team"]
        t.inventory, t.hitbox, t.status = (
            list(m["inventory"]),
            list(m["hitbox"]),
            list(m["status"]),
        )
        t.weapons = []
        for w in m["weapons"]:
            wt = Weapon.WeaponT()
            wt.damage, wt.range = w["damage"], w["range"]
            t.weapons.append(wt)
        t.path = [vec(p) for p in m["path"]]
        state.monsters.append(t)
    return state


def to_proto(ms: list[dict[str, Any]]) -> Any:
    st = pb.State()
    for m in ms:
        o = st.monsters.add()
        o.pos.x, o.pos.y, o.pos.z = m["pos"]["x"], m["pos"]["y"], m["pos"]["z"]
        o.mana, o.health, o.name, o.team = m["mana"], m["health"], m["name"], m["team"]
        o.inventory = bytes(m["inventory"])
        o.hitbox.extend(m["hitbox"])
        o.status.extend(m["status"])
        for w in m["weapons"]:
            o.weapons.add(damage=w["damage"], range=w["range"])
        for p in m["path"]:
            o.path.add(x=p["x"], y=p["y"], z=p["z"])
    return st


def encode_flat(state: fb_state.StateT) -> bytes:
    b = flatbuffers.Builder(1 << 20)
    b.Finish(state.Pack(b))
    return bytes(b.Output())


# Reading every path point: the sums are compared to each other (equal to
# 1e-9 relative: numpy adds a column pairwise, the loops one by one).
def sum_karmem_numpy(data: bytes) -> float:
    s = 0.0
    for m in km.State.view(data).monsters:
        path = m.data_path
        s += float(
            (path.numpy_x() + path.numpy_y() + path.numpy_z()).sum(dtype=numpy.float64)
        )
    return s


def sum_karmem_columns(data: bytes) -> float:
    s = 0.0
    for m in km.State.view(data).monsters:
        path = m.data_path
        for x, y, z in zip(
            path.column_x(), path.column_y(), path.column_z(), strict=True
        ):
            s += x + y + z
    return s


def walk_karmem(state: km.StateView) -> float:
    """Every field of every monster through the views, element by element
    (no whole columns): what the trusted reader's skipped checks save."""
    s = 0.0
    for m in state.monsters:
        s += m.data_pos_x + m.data_pos_y + m.data_pos_z
        s += m.data_mana + m.data_health + m.data_team + len(m.data_name)
        s += sum(m.data_hitbox) + sum(m.data_inventory) + sum(m.data_status)
        for w in m.data_weapons:
            s += w.data_damage + w.data_range
        for p in m.data_path:
            s += p.x + p.y + p.z
    return s


def sum_flat(data: bytes) -> float:
    st = fb_state.State.GetRootAs(data, 0)
    s = 0.0
    for i in range(st.MonstersLength()):
        m = st.Monsters(i)
        for j in range(m.PathLength()):
            p = m.Path(j)
            s += p.X() + p.Y() + p.Z()
    return s


def sum_proto(data: bytes) -> float:
    st = pb.State()
    st.ParseFromString(data)
    s = 0.0
    for m in st.monsters:
        for p in m.path:
            s += p.x + p.y + p.z
    return s


def sum_json(text: str) -> float:
    s = 0.0
    for m in json.loads(text):
        for p in m["path"]:
            s += p["x"] + p["y"] + p["z"]
    return s


def sum_raw(ms: list[dict[str, Any]]) -> float:
    s = 0.0
    for m in ms:
        for p in m["path"]:
            s += p["x"] + p["y"] + p["z"]
    return s


def median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def main() -> None:
    monsters = generate(int(os.environ.get("MONSTERS", "100")), 2000)
    k_value, f_value, p_value = (
        to_karmem(monsters),
        to_flat(monsters),
        to_proto(monsters),
    )
    writer = karmem.Writer()
    k_bytes = bytes(k_value.encode(writer))
    f_bytes = encode_flat(f_value)
    p_bytes = p_value.SerializeToString()
    j_text = json.dumps(monsters)
    km.State.validate(k_bytes)
    k_view, k_trusted = km.State.view(k_bytes), km.State.trust(k_bytes)
    if walk_karmem(k_view) != walk_karmem(k_trusted):
        raise SystemExit("the checked and the trusted views disagree")

    sums = [
        sum_karmem_numpy(k_bytes),
        sum_karmem_columns(k_bytes),
        sum_flat(f_bytes),
        sum_proto(p_bytes),
        sum_json(j_text),
        sum_raw(monsters),
    ]
    if any(not math.isclose(s, sums[0], rel_tol=1e-9) for s in sums):
        raise SystemExit(f"the contenders disagree on the sum: {sums}")

    # decode_into over one State decoded once: its lists and objects are
    # decoded over (the same shapes each time, as a loop reading messages
    # of one kind would find).
    k_into = km.State.decode(k_bytes)
    km.State.decode_into(k_bytes, k_into)
    if k_into != km.State.decode(k_bytes):
        raise SystemExit("decode_into and decode disagree")

    contenders: dict[str, dict[str, Callable[[], object]]] = {
        "Encode": {
            "karmem": lambda: k_value.encode(writer),
            "flatbuffers": lambda: encode_flat(f_value),
            "protobuf": lambda: p_value.SerializeToString(),
            "json": lambda: json.dumps(monsters),
        },
        "Decode": {
            "karmem": lambda: km.State.decode(k_bytes),
            "flatbuffers": lambda: fb_state.StateT.InitFromObj(
                fb_state.State.GetRootAs(f_bytes, 0)
            ),
            "protobuf": lambda: pb.State.FromString(p_bytes),
            "json": lambda: json.loads(j_text),
        },
        "DecodeInto": {"karmem": lambda: km.State.decode_into(k_bytes, k_into)},
        "SumPath": {
            "karmem": lambda: sum_karmem_numpy(k_bytes),
            "karmem-loop": lambda: sum_karmem_columns(k_bytes),
            "flatbuffers": lambda: sum_flat(f_bytes),
            "protobuf": lambda: sum_proto(p_bytes),
            "json": lambda: sum_json(j_text),
            "raw": lambda: sum_raw(monsters),
        },
        "Validate": {"karmem": lambda: km.State.validate(k_bytes)},
        # The checked views, and the trusted ones of `trust` (made once:
        # its validation is the Validate row).
        "ViewAll": {
            "karmem": lambda: walk_karmem(k_view),
            "karmem-trusted": lambda: walk_karmem(k_trusted),
        },
    }
    rounds = int(os.environ.get("ROUNDS", "3"))
    seconds = float(os.environ.get("SECONDS", "0.5"))
    names = [
        "karmem",
        "karmem-trusted",
        "karmem-loop",
        "flatbuffers",
        "protobuf",
        "json",
        "raw",
    ]
    results: dict[str, dict[str, list[float]]] = {}
    for r in range(rounds):
        for op, cs in contenders.items():
            for name in names:
                f = cs.get(name)
                if f is None:
                    continue
                f()
                n, t0 = 0, time.perf_counter()
                t = t0
                while n == 0 or t - t0 < seconds:
                    f()
                    n += 1
                    t = time.perf_counter()
                results.setdefault(op, {}).setdefault(name, []).append(
                    (t - t0) / n * 1e3
                )
        print(f"round {r + 1}/{rounds}", file=sys.stderr)

    points = sum(len(m["path"]) for m in monsters)
    print(
        f"Python {platform.python_version()}, protobuf {google.protobuf.__version__} "
        f"({_proto_impl()}), flatbuffers {_version('flatbuffers')}, numpy {numpy.__version__}; "
        f"{len(monsters)} monsters, {points} path points"
    )
    print(
        f"sizes: karmem {len(k_bytes) / 1e6:.2f} MB, flatbuffers {len(f_bytes) / 1e6:.2f} MB, "
        f"protobuf {len(p_bytes) / 1e6:.2f} MB, json {len(j_text) / 1e6:.2f} MB"
    )
    print(f"medians of {rounds} rounds, ms per operation (ratio to karmem)")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "|".join("---" for _ in names) + "|")
    for op, by in results.items():
        k = median(by["karmem"])
        cells = []
        for n in names:
            if n not in by:
                cells.append("—")
            elif n == "karmem":
                cells.append(f"**{k:.2f}**")
            else:
                m = median(by[n])
                cells.append(f"{m:.2f} ({m / k:.1f}×)")
        print(f"| {op} | " + " | ".join(cells) + " |")
    into, fresh = (
        median(results["DecodeInto"]["karmem"]),
        median(results["Decode"]["karmem"]),
    )
    print(f"decode_into / decode: {into / fresh:.2f}×")


def _proto_impl() -> str:
    from google.protobuf.internal import api_implementation

    return str(api_implementation.Type())


def _version(package: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(package)


if __name__ == "__main__":
    main()

// Karmem for TypeScript against FlatBuffers (npm `flatbuffers`, flatc
// object API), Protocol Buffers (`@bufbuild/protobuf`, protoc-gen-es) and
// JSON (JSON.stringify / JSON.parse) on the Go benchmark's data: the game
// state of go/internal/game (same xorshift generator, same values).
// Run with `make bench-ts` (scripts/bench-ts.sh); results in
// docs/benchmarks.md.
import { performance } from "node:perf_hooks";
import * as flatbuffers from "flatbuffers";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as karmem from "karmem";
import { State as KState, type State as KStateValue, layout } from "../gen/km/game.js";
import { Vec3 as Vec3Obj } from "../gen/fb/bench/fb/vec3.js";
import { State as FState, StateT, MonsterT, Vec3T, WeaponT } from "../gen/fb/game_generated.js";
import { StateSchema, MonsterSchema, Vec3Schema, WeaponSchema, type State as PState } from "../gen/pb/game_pb.js";

interface Vec3 { x: number; y: number; z: number }
interface Monster {
  pos: Vec3;
  mana: number;
  health: number;
  name: string;
  team: number;
  inventory: number[];
  hitbox: number[];
  status: number[];
  weapons: { damage: number; range: number }[];
  path: Vec3[];
}

/** go/internal/game.Generate, step for step (u64 xorshift as bigint). */
function generate(monsters: number, maxPath: number): Monster[] {
  let r = 0x9e3779b97f4a7c15n;
  const mask = (1n << 64n) - 1n;
  const next = (): bigint => {
    let x = r;
    x ^= (x << 13n) & mask;
    x ^= x >> 7n;
    x ^= (x << 17n) & mask;
    r = x;
    return x;
  };
  const below = (n: number): number => Number(next() % BigInt(n));
  const f32 = (): number => Math.fround(below(1 << 20) / 1024 - 512);
  const names = ["Brave", "Wise", "Quick", "Grim"];
  const out: Monster[] = [];
  for (let i = 0; i < monsters; i++) {
    const pos = { x: f32(), y: f32(), z: f32() };
    const mana = below(1000);
    const health = below(1000);
    const inventory = Array.from({ length: below(128) }, () => below(256));
    const hitbox = Array.from({ length: 4 }, () => f32());
    const status = Array.from({ length: below(16) }, () => Number(BigInt.asIntN(32, next())));
    const weapons = Array.from({ length: below(5) }, () => ({ damage: below(100), range: below(50) }));
    const path = Array.from({ length: 1 + below(maxPath) }, () => ({ x: f32(), y: f32(), z: f32() }));
    out.push({ pos, mana, health, name: `Monster ${i} the ${names[i % 4]}`, team: i % 5, inventory, hitbox, status, weapons, path });
  }
  return out;
}

// The sum of every path coordinate, in f32 as the Go raw struct adds them.
function addPoint(sum: number, x: number, y: number, z: number): number {
  return Math.fround(sum + Math.fround(Math.fround(x + y) + z));
}

const toKarmem = (ms: Monster[]): KStateValue => ({
  monsters: ms.map((m) => ({ data: { ...m, weapons: m.weapons.map((w) => ({ data: w })) } })),
});
const toFlat = (ms: Monster[]): StateT =>
  new StateT(
    ms.map(
      (m) =>
        new MonsterT(
          new Vec3T(m.pos.x, m.pos.y, m.pos.z),
          m.mana,
          m.health,
          m.name,
          m.team,
          m.inventory,
          m.hitbox,
          m.status,
          m.weapons.map((w) => new WeaponT(w.damage, w.range)),
          m.path.map((p) => new Vec3T(p.x, p.y, p.z)),
        ),
    ),
  );
const toProto = (ms: Monster[]): PState =>
  create(StateSchema, {
    monsters: ms.map((m) =>
      create(MonsterSchema, {
        pos: create(Vec3Schema, m.pos),
        mana: m.mana,
        health: m.health,
        name: m.name,
        team: m.team,
        inventory: Uint8Array.from(m.inventory),
        hitbox: m.hitbox,
        status: m.status,
        weapons: m.weapons.map((w) => create(WeaponSchema, w)),
        path: m.path.map((p) => create(Vec3Schema, p)),
      }),
    ),
  });

const monsters = generate(Number(process.env.MONSTERS ?? 1000), 2000);
const kValue = toKarmem(monsters);
const fValue = toFlat(monsters);
const pValue = toProto(monsters);

const kWriter = new karmem.Writer(1 << 24);
const fBuilder = new flatbuffers.Builder(1 << 24);
const kBytes = KState.encode(kValue, kWriter).slice();
fBuilder.clear();
fBuilder.finish(fValue.pack(fBuilder));
const fBytes = fBuilder.asUint8Array().slice();
const pBytes = toBinary(StateSchema, pValue);
const jText = JSON.stringify(monsters);

// The column of Monster's flattened element that holds each monster's
// path (an SoA array of Vec3), found in the generated layout.
const monsterLayout = layout.structs.find((st) => st.name === "Monster")!;
const pathCol = monsterLayout.soa!.findIndex((c) => layout.structs[c.steps.at(-1)!]!.fields[c.path.at(-1)!]!.name === "Path");
if (pathCol < 0) throw new Error("no Path column");

/** Viewers: per monster one directory scan of its path, then three
 * Float32Array views of the message. */
function sumKarmem(bytes: Uint8Array): number {
  const ms = KState.view(bytes).monsters;
  let sum = 0;
  for (let i = 0; i < ms.length; i++) {
    const path = ms.nested(pathCol, i);
    const xs = path.column(0) as Float32Array;
    const ys = path.column(1) as Float32Array;
    const zs = path.column(2) as Float32Array;
    const n = Math.min(xs.length, ys.length, zs.length);
    for (let j = 0; j < n; j++) sum = addPoint(sum, xs[j]!, ys[j]!, zs[j]!);
  }
  return sum;
}

function sumFlat(bytes: Uint8Array): number {
  const st = FState.getRootAsState(new flatbuffers.ByteBuffer(bytes));
  let sum = 0;
  const v = new Vec3Obj();
  for (let i = 0; i < st.monstersLength(); i++) {
    const m = st.monsters(i)!;
    for (let j = 0; j < m.pathLength(); j++) {
      const p = m.path(j, v)!;
      sum = addPoint(sum, p.x(), p.y(), p.z());
    }
  }
  return sum;
}

function sumProto(bytes: Uint8Array): number {
  const st = fromBinary(StateSchema, bytes);
  let sum = 0;
  for (const m of st.monsters) for (const p of m.path) sum = addPoint(sum, p.x, p.y, p.z);
  return sum;
}
function sumJson(text: string): number {
  const ms = JSON.parse(text) as Monster[];
  let sum = 0;
  for (const m of ms) for (const p of m.path) sum = addPoint(sum, p.x, p.y, p.z);
  return sum;
}
function sumRaw(ms: Monster[]): number {
  let sum = 0;
  for (const m of ms) for (const p of m.path) sum = addPoint(sum, p.x, p.y, p.z);
  return sum;
}

const sums = [sumKarmem(kBytes), sumFlat(fBytes), sumProto(pBytes), sumJson(jText), sumRaw(monsters)];
if (new Set(sums).size !== 1) throw new Error(`the contenders disagree on the sum: ${sums.join(", ")}`);
KState.validate(kBytes);

type Op = () => unknown;
const contenders: Record<string, Record<string, Op | undefined>> = {
  Encode: {
    karmem: () => KState.encode(kValue, kWriter),
    flatbuffers: () => {
      fBuilder.clear();
      fBuilder.finish(fValue.pack(fBuilder));
      return fBuilder.asUint8Array();
    },
    protobuf: () => toBinary(StateSchema, pValue),
    json: () => JSON.stringify(monsters),
  },
  Decode: {
    karmem: () => KState.decode(kBytes),
    flatbuffers: () => FState.getRootAsState(new flatbuffers.ByteBuffer(fBytes)).unpack(),
    protobuf: () => fromBinary(StateSchema, pBytes),
    json: () => JSON.parse(jText),
  },
  SumPath: {
    karmem: () => sumKarmem(kBytes),
    flatbuffers: () => sumFlat(fBytes),
    protobuf: () => sumProto(pBytes),
    json: () => sumJson(jText),
    raw: () => sumRaw(monsters),
  },
  Validate: {
    karmem: () => KState.validate(kBytes),
  },
};

const rounds = Number(process.env.ROUNDS ?? 5);
const seconds = Number(process.env.SECONDS ?? 0.5);
const names = ["karmem", "flatbuffers", "protobuf", "json", "raw"];
const results: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < rounds; round++) {
  for (const [op, cs] of Object.entries(contenders)) {
    for (const name of names) {
      const f = cs[name];
      if (f === undefined) continue;
      f();
      let n = 0;
      const t0 = performance.now();
      let t = t0;
      while (n === 0 || t - t0 < seconds * 1000) {
        f();
        n++;
        t = performance.now();
      }
      ((results[op] ??= {})[name] ??= []).push((t - t0) / n);
    }
  }
  process.stderr.write(`round ${round + 1}/${rounds}\n`);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (n: number) => (n / 1e6).toFixed(2);
console.log(`node ${process.version}, ${monsters.length} monsters, ${monsters.reduce((t, m) => t + m.path.length, 0)} path points`);
console.log(`sizes: karmem ${mb(kBytes.length)} MB, flatbuffers ${mb(fBytes.length)} MB, protobuf ${mb(pBytes.length)} MB, json ${mb(jText.length)} MB`);
console.log(`medians of ${rounds} rounds, ms per operation (ratio to karmem)`);
console.log(`| | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---").join("|")}|`);
for (const [op, byName] of Object.entries(results)) {
  const k = median(byName.karmem!);
  const cells = names.map((n) => {
    const xs = byName[n];
    if (xs === undefined) return "—";
    const m = median(xs);
    return n === "karmem" ? `**${m.toFixed(2)}**` : `${m.toFixed(2)} (${(m / k).toFixed(1)}×)`;
  });
  console.log(`| ${op} | ${cells.join(" | ")} |`);
}

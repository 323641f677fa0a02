// Random values of test/schemas/prop.km's Root (fast-check), for the
// property tests and the straight-line codec's agreement with the
// interpreted one.
import fc from "fast-check";
import type { Item, Leaf, Vec, Root as RootValue } from "../gen/test/prop/prop.js";

const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const i64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
const text = fc.string({ unit: "binary", maxLength: 24 });
const f32 = fc.float();

const vec: fc.Arbitrary<Vec> = fc.record({ x: f32, y: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), on: fc.boolean() });
const leafTail: fc.Arbitrary<Leaf> = fc.record({ id: u64, name: text, next: fc.constant(null) });
const leaf: fc.Arbitrary<Leaf> = fc.record({ id: u64, name: text, next: fc.option(leafTail) });
const item: fc.Arbitrary<Item> = fc.oneof(
  fc.constant(null),
  leaf.map((value) => ({ kind: "Leaf" as const, value })),
  vec.map((value) => ({ kind: "Vec" as const, value })),
);

export const root: fc.Arbitrary<RootValue> = fc.record({
  a: fc.integer({ min: 0, max: 255 }),
  b: fc.integer({ min: -32768, max: 32767 }),
  c: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  d: i64,
  e: fc.double(),
  f: fc.boolean(),
  g: fc.integer({ min: 0, max: 255 }),
  text,
  wide: text,
  floats: fc.array(f32, { maxLength: 6 }),
  longs: fc.array(u64, { maxLength: 4 }),
  short: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }),
  fixed: fc.tuple(fc.integer({ min: -32768, max: 32767 }), fc.integer({ min: -32768, max: 32767 })).map((t) => [...t]),
  maybe: fc.option(fc.integer({ min: 0, max: 65535 })),
  maybeText: fc.option(text),
  points: fc.array(vec, { maxLength: 4 }),
  pointsAos: fc.array(vec, { maxLength: 4 }),
  leaves: fc.array(leaf, { maxLength: 3 }),
  leavesAos: fc.array(leaf, { maxLength: 3 }),
  one: item,
  items: fc.array(item, { maxLength: 4 }),
  itemsAos: fc.array(item, { maxLength: 4 }),
  bunch: fc.array(item, { maxLength: 4 }),
  bunches: fc.array(item, { maxLength: 4 }),
  names: fc.dictionary(text, fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxKeys: 4 }).map((o) => new Map(Object.entries(o))),
  byKey: fc.uniqueArray(fc.tuple(i64, leaf), { maxLength: 3, selector: (e) => e[0] }).map((es) => new Map(es)),
  nested: fc.array(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 3 }), { maxLength: 3 }),
  root: leaf,
  opt: fc.option(leaf),
  hp: fc.integer({ min: 0, max: 65535 }),
});


// The producer of docs/integrity.md §2 for the TypeScript member: the
// value of a seed, every field in declaration order, depth first.
// JavaScript evaluates an object literal's property values in the order
// they are written (ECMAScript's PropertyDefinitionEvaluation), so each
// literal below draws its fields in the schema's order.
//
// One producer serves both versions: it builds the new version's value
// and, for the old one, draws what old.km has only (three colours, two
// variants, no appended field). The appended fields of an old value are
// left at placeholders that are not drawn and that the old layout does not
// write.

import type * as v2 from "../gen/integrity/new/integrity.js";
import { Rng } from "./rand.js";

/** What a draw needs to know of the version. */
export interface Draws {
  /** new.km: Purple, Star, Item.Score/Notes, Root.Level/Extra/More. */
  readonly newer: boolean;
}

function color(g: Rng, v: Draws): number {
  return g.below(v.newer ? 4 : 3);
}

function vec3(g: Rng): v2.Vec3 {
  return { x: g.f32(), y: g.f32(), z: g.f32() };
}

function texts(g: Rng): string[] {
  return g.array((h) => h.text());
}

function item(g: Rng, v: Draws): v2.Item {
  return {
    id: g.u32(),
    name: g.text(),
    pos: vec3(g),
    tags: texts(g),
    score: v.newer ? g.i64() : 0n,
    notes: v.newer ? texts(g) : [],
  };
}

function dot(g: Rng, v: Draws): v2.Dot {
  return { hue: color(g, v), at: vec3(g) };
}

/** A tag (0: no value), then the variant's fields. */
function shape(g: Rng, v: Draws): v2.Shape {
  switch (g.below(v.newer ? 4 : 3)) {
    case 1:
      return { kind: "Circle", value: { radius: g.f64(), label: g.text() } };
    case 2:
      return { kind: "Dot", value: dot(g, v) };
    case 3:
      return { kind: "Star", value: { points: g.u8() } };
    default:
      return null;
  }
}

export function drawRoot(seed: bigint, v: Draws): v2.Root {
  const g = new Rng(seed);
  const one = <T>(f: (g: Rng, v: Draws) => T) => (h: Rng) => f(h, v);
  return {
    u8: g.u8(),
    i8: g.i8(),
    u16: g.u16(),
    i16: g.i16(),
    u32: g.u32(),
    i32: g.i32(),
    u64: g.u64(),
    i64: g.i64(),
    f32: g.f32(),
    f64: g.f64(),
    flag: g.bool(),
    hue: color(g, v),
    name: g.text(),
    wide: g.text(),
    pos: vec3(g),
    fixed: [g.i16(), g.i16(), g.i16(), g.i16()],
    small: g.array((h) => h.u8(), 8),
    bytes: g.array((h) => h.u8()),
    colors: g.array(one(color)),
    soaPoints: g.array(vec3),
    aosPoints: g.array(vec3),
    soaItems: g.array(one(item)),
    aosItems: g.array(one(item)),
    dots: g.array(one(dot), 64),
    shape: shape(g, v),
    aosShapes: g.array(one(shape)),
    soaShapes: g.array(one(shape)),
    bovoaShapes: g.array(one(shape)),
    bovosShapes: g.array(one(shape)),
    maybeU32: g.optional((h) => h.u32()),
    maybeName: g.optional((h) => h.text()),
    maybeItem: g.optional(one(item)),
    lookup: g.map(
      (h) => h.text(),
      (h) => h.u32(),
    ),
    byId: g.map((h) => h.u16(), one(item)),
    grid: g.array((h) => h.array((k) => k.f32())),
    pair: { f0: g.u16(), f1: g.text() },
    hp: g.u16(),
    level: v.newer ? g.u8() : 0,
    extra: v.newer ? g.u64() : 0n,
    more: v.newer ? g.array(one(item)) : [],
  };
}

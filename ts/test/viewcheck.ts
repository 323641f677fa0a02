// Reading a message through generated viewers and the library's views
// (views.ts), for the vector and property tests: `checkViewer` compares
// everything a viewer reads with the decoded value; `touchViewer` reads
// everything a viewer over any bytes offers and must never throw.
import assert from "node:assert/strict";
import * as karmem from "karmem";
import { same } from "./json.js";

export interface Module {
  layout: karmem.Schema;
  [name: string]: unknown;
}

type Obj = Record<string, unknown>;

/** How many views of each kind `checkViewer` compared (a runner asserts
 * each kind was reached, so that the comparison cannot pass by skipping). */
export const viewed = { soaNested: 0, soaItem: 0, union: 0, map: 0, aos: 0, arrays: 0, unionArray: 0, bunchSoa: 0, fixed: 0, optional: 0 };

/** Reads every field of struct `id` through viewer `v` and compares it
 * with the decoded `value`: scalars, text, typed arrays, nested viewers,
 * SoA, AoS, union, map and nested array views. */
export function checkViewer(m: Module, id: number, v: Obj, value: Obj, path: string, depth = 0): void {
  if (depth > 8) return;
  for (const f of m.layout.structs[id]!.fields) checkSlot(m, f.slot, v[f.js], value[f.js], `${path}.${f.js}`, depth);
}

function checkSlot(m: Module, slot: karmem.Slot, got: unknown, want: unknown, p: string, depth: number): void {
  switch (slot.k) {
    case "inline":
    case "table":
      checkViewer(m, slot.s, got as Obj, want as Obj, p, depth + 1);
      return;
    case "otable":
      assert.equal(got === null, want === null, p);
      if (got !== null) checkViewer(m, slot.s, got as Obj, want as Obj, p, depth + 1);
      return;
    case "union":
      checkUnion(m, got, want, p, depth);
      return;
    case "array":
      checkArray(m, slot.a, got, want, p, depth);
      return;
    case "fixed": {
      // A FixedView: `length` and `at(i)` in place, elements as a field of
      // their slot reads.
      assert.ok(got instanceof karmem.FixedView, `${p}: not a FixedView`);
      const items = want as unknown[];
      assert.equal(got.length, items.length, `${p}: length`);
      items.forEach((x, i) => checkSlot(m, slot.e, got.at(i), x, `${p}[${i}]`, depth + 1));
      assert.equal([...got].length, items.length, `${p}: iteration`);
      viewed.fixed++;
      return;
    }
    case "optional":
      assert.equal(got === null, want === null, `${p}: presence`);
      if (want !== null) checkSlot(m, slot.v, got, want, p, depth);
      if (slot.v.k !== "scalar" && slot.v.k !== "enum") viewed.optional++;
      return;
    default:
      assert.equal(same(got, want), null, p);
  }
}

function checkUnion(m: Module, got: unknown, want: unknown, p: string, depth: number): void {
  if (want === null) {
    assert.equal(got, null, p);
    return;
  }
  const g = got as karmem.UnionValue | null;
  const w = want as karmem.UnionValue;
  assert.ok(g !== null, `${p}: no value, want ${w.kind}`);
  assert.equal(g.kind, w.kind, p);
  const id = m.layout.structs.findIndex((s) => s.ts === w.kind);
  checkViewer(m, id, g.value as Obj, w.value as Obj, `${p}.${w.kind}`, depth + 1);
  viewed.union++;
}

function checkArray(m: Module, a: karmem.ArrayDesc, got: unknown, want: unknown, p: string, depth: number): void {
  const d = a.d;
  if (got instanceof karmem.MapView) {
    const w = want as Map<unknown, unknown>;
    const st = m.layout.structs[(d as { s: number }).s]!;
    assert.equal(got.size, w.size, `${p}: size`);
    let i = 0;
    for (const [k, v] of w) {
      assert.equal(same(got.key(i), k), null, `${p}: key ${i}`);
      assert.ok(got.has(k), `${p}: has(${String(k)})`);
      checkSlot(m, st.fields[1]!.slot, got.get(k), v, `${p}[${String(k)}]`, depth + 1);
      checkSlot(m, st.fields[1]!.slot, got.value(i), v, `${p}.value(${i})`, depth + 1);
      i++;
    }
    const keys = [...got.keys()];
    assert.equal(same(keys, [...w.keys()]), null, `${p}: keys`);
    // A key the map does not hold: strings past every UTF-8 key, numbers
    // between or past the keys.
    const missing = typeof keys[0] === "string" ? "\u{10ffff}\u{10ffff}" : typeof keys[0] === "bigint" ? -1n : -1.5;
    if (!w.has(missing)) assert.equal(got.get(missing), undefined, `${p}: get(missing)`);
    viewed.map++;
    return;
  }
  if (got instanceof karmem.StructArrayView) {
    const items = want as Obj[];
    assert.equal(got.length, items.length, `${p}: length`);
    items.forEach((x, i) => checkViewer(m, (d as { s: number }).s, got.get(i) as Obj, x, `${p}[${i}]`, depth + 1));
    assert.equal([...got].length, items.length);
    viewed.aos++;
    return;
  }
  if (got instanceof karmem.ArraysView) {
    const items = want as unknown[];
    assert.equal(got.length, items.length, `${p}: length`);
    const inner = (d as { a: karmem.ArrayDesc }).a;
    items.forEach((x, i) => checkArray(m, inner, got.get(i), x, `${p}[${i}]`, depth + 1));
    viewed.arrays++;
    return;
  }
  if (got instanceof karmem.UnionArrayView) {
    const items = want as unknown[];
    assert.equal(got.length, items.length, `${p}: length`);
    items.forEach((x, i) => checkUnion(m, got.get(i), x, `${p}[${i}]`, depth + 1));
    viewed.unionArray++;
    if (d.k === "bunch") {
      // Each variant as one view: its elements in order, as `get` gives them.
      for (const bv of d.v) {
        const kind = m.layout.structs[bv.s]!.ts;
        const part = got.variant(kind);
        assert.ok(part !== undefined, `${p}: no variant ${kind}`);
        const mine = (items as karmem.UnionValue[]).filter((x) => x.kind === kind);
        assert.equal(part.length, mine.length, `${p}: variant ${kind}`);
        mine.forEach((x, i) => checkViewer(m, bv.s, part.get(i) as Obj, x.value as Obj, `${p}.${kind}[${i}]`, depth + 1));
        if (bv.d.k === "soa") viewed.bunchSoa += mine.length;
      }
    }
    return;
  }
  if (got instanceof karmem.SoaView) {
    const items = want as unknown[];
    assert.equal(got.length, items.length, p);
    // Each element's item view, field by field (columns read in place).
    const elem = (d as { s: number }).s;
    items.forEach((item, i) => checkViewer(m, elem, got.get(i) as Obj, item as Obj, `${p}[${i}]`, depth + 1));
    viewed.soaItem += items.length;
    // Out of range: every field absent, never a throw.
    touchViewer(got.get(items.length));
    // SoA arrays inside the element's columns, as views of their own.
    (m.layout.structs[(d as { s: number }).s]!.soa ?? []).forEach((c, k) => {
      if (c.slot.k !== "array" || c.slot.a.d.k !== "soa") return;
      items.forEach((item, i) => {
        let leaf: unknown = item;
        c.path.forEach((idx, j) => (leaf = (leaf as Obj)[m.layout.structs[c.steps[j]!]!.fields[idx]!.js]));
        const inner = got.nested(k, i);
        const w = leaf as unknown[];
        assert.equal(inner.length, w.length, `${p}[${i}] column ${k}`);
        const innerElem = (c.slot as { a: { d: { s: number } } }).a.d.s;
        w.forEach((x, j) => checkViewer(m, innerElem, inner.get(j) as Obj, x as Obj, `${p}[${i}] column ${k} [${j}]`, depth + 1));
        viewed.soaNested++;
      });
    });
    return;
  }
  if (ArrayBuffer.isView(got)) {
    const arr = Array.from(got as unknown as ArrayLike<unknown>);
    const isBool = d.k === "plain" && d.e.k === "scalar" && d.e.p === "bool";
    assert.equal(same(isBool ? arr.map((x) => x !== 0) : arr, want), null, p);
    return;
  }
  // Text.
  assert.equal(typeof got, "string", `${p}: not read in place`);
  assert.equal(same(got, want), null, p);
}

/** Reads everything a viewer offers, a few elements of every view and
 * out-of-range ones, down to `depth` levels: over any bytes, nothing may
 * throw (a checked viewer reads malformed parts as zero or empty). */
export function touchViewer(v: unknown, depth = 0): void {
  if (depth > 5 || v === null || typeof v !== "object") return;
  if (v instanceof karmem.MapView) {
    for (let i = -1; i <= Math.min(v.size, 4); i++) {
      touchViewer(v.key(i), depth + 1);
      touchViewer(v.value(i), depth + 1);
    }
    if (v.size > 0) touchViewer(v.get(v.key(0)), depth + 1);
    return;
  }
  if (
    v instanceof karmem.StructArrayView ||
    v instanceof karmem.ArraysView ||
    v instanceof karmem.UnionArrayView ||
    v instanceof karmem.SoaView ||
    v instanceof karmem.FixedView
  ) {
    for (let i = -1; i <= Math.min(v.length, 4); i++) touchViewer(v.get(i), depth + 1);
    return;
  }
  if (ArrayBuffer.isView(v) || Array.isArray(v)) return;
  const proto = Object.getPrototypeOf(v) as object | null;
  if (proto === Object.prototype) {
    // A union value { kind, value }, or a decoded struct.
    const u = v as { kind?: unknown; value?: unknown };
    if (typeof u.kind === "string") touchViewer(u.value, depth + 1);
    return;
  }
  // A generated viewer: every getter.
  for (const k of Object.getOwnPropertyNames(proto ?? {})) {
    if (k === "constructor") continue;
    touchViewer((v as Obj)[k], depth + 1);
  }
}

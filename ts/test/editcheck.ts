// In-place setters (format.md §12) over the golden vectors, for the vector
// runner: `checkSetters` sets every settable field of a valid message's
// root table and of the tables its table fields hold, one at a time on a
// fresh copy, and checks what is read back through the viewer, that the
// message still validates and that it decodes to the old value with that
// one field changed; absent fields and lengths past the capacity are
// refused with the bytes untouched. `touchSetters` calls every setter over
// any bytes: only KarmemErrors may come out.
import assert from "node:assert/strict";
import * as karmem from "karmem";
import { same } from "./json.js";
import type { Module } from "./viewcheck.js";

type Obj = Record<string, unknown>;

export interface Edited {
  set: number;
  refused: number;
  elements: number;
  lengths: number;
}

/** What the setters did over every vector (the runner asserts each kind
 * happened, so the checks cannot pass by finding nothing to set). */
export const edited: Edited = { set: 0, refused: 0, elements: 0, lengths: 0 };

interface Root {
  view(input: karmem.Input): Obj;
  validate(input: karmem.Input): Obj;
  decode(input: karmem.Input): unknown;
}

const cap = (js: string): string => js[0]!.toUpperCase() + js.slice(1);

/** A value of type `p` other than `old`, which `p` holds. */
function another(p: karmem.Prim, old: unknown): number | bigint | boolean {
  if (p === "bool") return !(old as boolean);
  if (typeof old === "bigint") return old ^ 1n;
  if (p === "f32" || p === "f64") return old === 1 ? 2 : 1;
  return p === "u32" ? ((old as number) ^ 1) >>> 0 : (old as number) ^ 1;
}

/** A value `p` cannot hold. */
function outside(p: karmem.Prim): number | bigint | boolean {
  if (p === "bool") return 1;
  if (p === "f32" || p === "f64") return 1n;
  return p === "u64" || p === "i64" ? 1n << 64n : 1.5;
}

function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** The viewer and the decoded value at `path` (table fields) of a root. */
function at(v: Obj, path: readonly string[]): Obj | null {
  let o: Obj | null = v;
  for (const k of path) o = o === null ? null : (o[k] as Obj | null);
  return o;
}

function replaced(value: Obj, path: readonly string[], js: string, x: unknown): Obj {
  if (path.length === 0) return { ...value, [js]: x };
  const [head, ...rest] = path;
  return { ...value, [head!]: replaced(value[head!] as Obj, rest, js, x) };
}

function refusedWith(f: () => void, bytes: Uint8Array, kinds: readonly karmem.ErrorKind[], p: string): void {
  const before = bytes.slice();
  assert.throws(f, (e: unknown) => e instanceof karmem.KarmemError && kinds.includes(e.kind), p);
  assert.deepEqual(bytes, before, `${p}: bytes changed by a refused edit`);
  edited.refused++;
}

/** Every setter of struct `id` (a table) at `path` from the root, and of
 * the tables below it, over copies of `bytes`. */
export function checkSetters(m: Module, root: Root, id: number, bytes: Uint8Array, value: Obj, path: string[] = []): void {
  const st = m.layout.structs[id]!;
  if (!st.table || path.length > 3) return;
  for (const f of st.fields) {
    const p = `${path.join(".")}.${f.js}`;
    const slot = f.slot;
    if (slot.k === "scalar" || slot.k === "enum") {
      const copy = copyOf(bytes);
      const e = new karmem.Editor(copy);
      const v = at(root.view(copy), path);
      if (v === null) continue;
      const set = v[`set${cap(f.js)}`] as (e: karmem.Editor, x: unknown) => void;
      assert.equal(typeof set, "function", `${p}: no setter`);
      const t = v["$t"] as karmem.Table;
      if (!karmem.has(t, f.off, f.size)) {
        refusedWith(() => set.call(v, e, another(slot.p, v[f.js])), copy, ["MalformedTable"], p);
        continue;
      }
      refusedWith(() => set.call(v, e, outside(slot.p)), copy, ["InvalidValue"], p);
      const x = another(slot.p, v[f.js]);
      set.call(v, e, x);
      assert.equal(same(v[f.js], x), null, `${p}: read back`);
      root.validate(copy);
      assert.equal(same(root.decode(copy), replaced(value, path, f.js, x)), null, `${p}: other fields`);
      edited.set++;
    } else if (slot.k === "array" && slot.a.d.k === "plain" && slot.a.text === null && !slot.a.map) {
      checkArray(root, f, bytes, value, path, p);
    } else if (slot.k === "table" || slot.k === "otable") {
      const below = at(value, path)?.[f.js];
      if (below !== null && below !== undefined) checkSetters(m, root, slot.s, bytes, value, [...path, f.js]);
    }
  }
}

function checkArray(root: Root, f: karmem.FieldDesc, bytes: Uint8Array, value: Obj, path: string[], p: string): void {
  const a = (f.slot as { a: karmem.ArrayDesc }).a;
  const d = a.d as { size: number; e: { p: karmem.Prim } };
  const name = cap(f.js);
  const open = () => {
    const copy = copyOf(bytes);
    const v = at(root.view(copy), path)!;
    const edit = (v[`edit${name}`] as (e: karmem.Editor) => karmem.TypedArray).bind(v);
    const setLen = (v[`set${name}Len`] as (e: karmem.Editor, n: number) => void).bind(v);
    return { copy, e: new karmem.Editor(copy), v, edit, setLen };
  };
  const { copy, e, v, edit, setLen } = open();
  const t = v["$t"] as karmem.Table;
  if (!karmem.has(t, f.off, 12)) {
    refusedWith(() => edit(e), copy, ["MalformedTable"], p);
    refusedWith(() => setLen(e, 0), copy, ["MalformedTable"], p);
    return;
  }
  const want = at(value, path)![f.js] as unknown[];
  const ref = e.fieldArray(t, f.off, d.size, a.limit);
  // Past the capacity (or the limit): refused, nothing written.
  refusedWith(() => setLen(e, ref.cap + 1), copy, ["TooLarge", "LimitExceeded"], p);
  refusedWith(() => setLen(e, -1), copy, ["InvalidValue"], p);
  const els = edit(e);
  assert.equal(els.length, want.length, `${p}: editable length`);
  if (want.length > 0) {
    // The first element changed through the typed array, read back.
    const x = another(d.e.p, d.e.p === "bool" ? els[0] !== 0 : els[0]);
    (els as unknown as unknown[])[0] = d.e.p === "bool" ? (x ? 1 : 0) : x;
    const now = Array.from(v[f.js] as ArrayLike<unknown>);
    assert.equal(same(d.e.p === "bool" ? now[0] !== 0 : now[0], x), null, `${p}[0]: read back`);
    root.validate(copy);
    const changed = [x, ...want.slice(1)];
    assert.equal(same(root.decode(copy), replaced(value, path, f.js, changed)), null, `${p}[0]: other fields`);
    edited.elements++;
  }
  // Shrink to nothing, then grow back: the exposed elements are zeros.
  {
    const { copy, e, v, setLen } = open();
    setLen(e, 0);
    assert.equal((v[f.js] as ArrayLike<unknown>).length, 0, `${p}: shrunk`);
    root.validate(copy);
    assert.equal(same(root.decode(copy), replaced(value, path, f.js, [])), null, `${p}: shrunk, other fields`);
    setLen(e, want.length);
    const zero = d.e.p === "bool" ? false : d.e.p === "u64" || d.e.p === "i64" ? 0n : 0;
    root.validate(copy);
    assert.equal(same(root.decode(copy), replaced(value, path, f.js, want.map(() => zero))), null, `${p}: grown, zeros`);
    edited.lengths++;
  }
}

/** Calls every setter of a root viewer over `bytes` (any bytes): each
 * either writes or throws a KarmemError, never anything else. */
export function touchSetters(m: Module, root: Root, id: number, bytes: Uint8Array): void {
  const copy = copyOf(bytes);
  let e: karmem.Editor;
  try {
    e = new karmem.Editor(copy);
  } catch (err) {
    assert.ok(err instanceof karmem.KarmemError, String(err));
    return;
  }
  const v = root.view(copy);
  for (const f of m.layout.structs[id]!.fields) {
    const name = cap(f.js);
    const calls: [string, unknown[]][] = [
      [`set${name}`, [f.slot.k === "scalar" && f.slot.p === "bool" ? true : f.slot.k === "scalar" && (f.slot.p === "u64" || f.slot.p === "i64") ? 1n : 1]],
      [`edit${name}`, []],
      [`set${name}Len`, [1]],
      [`set${name}Len`, [0]],
    ];
    for (const [method, args] of calls) {
      const fn = v[method] as ((...a: unknown[]) => unknown) | undefined;
      if (typeof fn !== "function") continue;
      try {
        fn.call(v, e, ...args);
      } catch (err) {
        assert.ok(err instanceof karmem.KarmemError, `${method}: ${String(err)}`);
      }
    }
  }
}

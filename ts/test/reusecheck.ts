// `T.decodeInto(input, x)` over the golden vectors, for the vector runner:
// the value equals `decode`'s, `x` itself is returned, and every array,
// map and nested object `x` held where the new value has one of the same
// kind is the same object afterwards (reused, not replaced).
import assert from "node:assert/strict";
import { same } from "./json.js";

type Places = Map<string, object>;

/** How many arrays, maps and objects were found reused. */
export const reused = { arrays: 0, maps: 0, objects: 0 };

/** Every array, map and plain object reachable from `v`, by path. Union
 * values ({ kind, value }) are new on every decode and are left out. */
function places(v: unknown, path: string, out: Places): Places {
  if (v === null || typeof v !== "object") return out;
  if (ArrayBuffer.isView(v)) return out;
  const u = v as { kind?: unknown; value?: unknown };
  if (!Array.isArray(v) && !(v instanceof Map) && typeof u.kind === "string" && "value" in u) return out;
  out.set(path, v);
  if (Array.isArray(v)) v.forEach((x, i) => places(x, `${path}[${i}]`, out));
  else if (v instanceof Map) for (const [k, x] of v) places(x, `${path}{${String(k)}}`, out);
  else for (const [k, x] of Object.entries(v)) places(x, `${path}.${k}`, out);
  return out;
}

/** Whether `v` is all zeros, falses, empty text, nulls and empty or
 * all-zero containers: what an absent part of a message decodes to, a
 * fresh zero value where it is a struct or a fixed array (only arrays and
 * maps the absent field held are emptied in place). */
function zeroish(v: unknown): boolean {
  if (v === null || v === 0 || v === 0n || v === false || v === "") return true;
  if (Array.isArray(v)) return v.every(zeroish);
  if (v instanceof Map) return v.size === 0;
  if (typeof v === "object") return Object.values(v).every(zeroish);
  return false;
}

function kind(o: object): string {
  return Array.isArray(o) ? "array" : o instanceof Map ? "map" : "object";
}

/** decodeInto(bytes, x) equals `want`, returns `x`, and keeps every
 * container of `x` that the new value has at the same path. */
export function checkDecodeInto(decodeInto: (b: Uint8Array, x: unknown) => unknown, bytes: Uint8Array, x: object, want: unknown, p: string): void {
  const before = places(x, "$", new Map());
  const got = decodeInto(bytes, x);
  assert.equal(got, x, `${p}: decodeInto returned another object`);
  assert.equal(same(got, want), null, `${p}: decodeInto value`);
  const after = places(got, "$", new Map());
  for (const [path, o] of after) {
    const old = before.get(path);
    if (old === undefined || kind(old) !== kind(o) || zeroish(o)) continue;
    assert.equal(o, old, `${p}: ${path} was replaced, not reused`);
    if (Array.isArray(o)) reused.arrays++;
    else if (o instanceof Map) reused.maps++;
    else reused.objects++;
  }
}

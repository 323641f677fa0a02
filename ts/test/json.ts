// JSON in the golden vectors' conventions (testdata/vectors/README.md):
// numbers are kept as their text until the schema says what they are, so
// that 64-bit integers are read exactly (as bigint), not through a double.
import type { ArrayDesc, Data, Schema, Slot, UnionValue } from "karmem";

/** A JSON number, as written. */
export class JNum {
  constructor(readonly raw: string) {}
}
export type J = null | boolean | string | JNum | J[] | { [k: string]: J };

export function parseJson(text: string): J {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  };
  const value = (): J => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const o: { [k: string]: J } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = value() as string;
        ws();
        i++; // :
        o[k] = value();
        ws();
        if (text[i++] === "}") return o;
      }
    }
    if (c === "[") {
      i++;
      const a: J[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i++] === "]") return a;
      }
    }
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      return s;
    }
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?[0-9.eE+-]+/.exec(text.slice(i, i + 64))!;
    i += m[0].length;
    return new JNum(m[0]);
  };
  return value();
}

const specials: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

function float(j: J, narrow: boolean): number {
  if (j === null) return 0;
  const x = typeof j === "string" ? specials[j]! : Number((j as JNum).raw);
  return narrow ? Math.fround(x) : x;
}

/** The typed value (as generated code holds it) of a struct given as JSON. */
export function structFromJson(s: Schema, id: number, j: J): Record<string, unknown> {
  const st = s.structs[id]!;
  const o: Record<string, unknown> = {};
  st.fields.forEach((f, i) => {
    let v: J | undefined;
    if (j === null) v = null;
    else if (Array.isArray(j)) v = j[i] ?? null;
    else v = (j as { [k: string]: J })[f.name] ?? null;
    o[f.js] = v === null && f.def !== undefined ? f.def : slotFromJson(s, f.slot, v);
  });
  return o;
}

function intOf(s: Schema, slot: Slot, j: J): number | bigint {
  const p = (slot as { p: string }).p;
  const big = p === "u64" || p === "i64";
  if (j === null) return big ? 0n : 0;
  if (typeof j === "string" && slot.k === "enum") {
    const v = s.enums[slot.e]!.values.find(([n]) => n === j);
    if (v === undefined) throw new Error(`no enum value ${j}`);
    return v[1];
  }
  const raw = j instanceof JNum ? j.raw : String(j);
  return big ? BigInt(raw) : Number(raw);
}

export function slotFromJson(s: Schema, slot: Slot, j: J): unknown {
  switch (slot.k) {
    case "scalar":
      if (slot.p === "bool") return j === true;
      if (slot.p === "f32" || slot.p === "f64") return float(j, slot.p === "f32");
      return intOf(s, slot, j);
    case "enum":
      return intOf(s, slot, j);
    case "inline":
    case "table":
      return structFromJson(s, slot.s, j);
    case "otable":
      return j === null ? null : structFromJson(s, slot.s, j);
    case "optional":
      return j === null ? null : slotFromJson(s, slot.v, j);
    case "union":
      return unionFromJson(s, slot.u, j);
    case "fixed": {
      const a = (j ?? []) as J[];
      return Array.from({ length: slot.len }, (_, i) => slotFromJson(s, slot.e, a[i] ?? null));
    }
    case "array":
      return arrayFromJson(s, slot.a, j);
  }
}

function unionFromJson(s: Schema, u: number, j: J): UnionValue | null {
  if (j === null) return null;
  const [name, v] = Object.entries(j as { [k: string]: J })[0]!;
  const variant = s.unions[u]!.v.find((x) => s.structs[x.s]!.name === name)!;
  return { kind: s.structs[variant.s]!.ts, value: structFromJson(s, variant.s, v) };
}

function arrayFromJson(s: Schema, a: ArrayDesc, j: J): unknown {
  if (a.text !== null) return (j ?? "") as string;
  if (a.map) {
    const d = a.d as { s: number };
    const entry = s.structs[d.s]!;
    const [k, v] = [entry.fields[0]!, entry.fields[1]!];
    const m = new Map<unknown, unknown>();
    for (const [key, val] of Object.entries((j ?? {}) as { [k: string]: J })) {
      const kv = k.slot.k === "array" ? key : k.slot.k === "enum" && !/^-?\d+$/.test(key) ? key : new JNum(key);
      m.set(slotFromJson(s, k.slot, kv), slotFromJson(s, v.slot, val));
    }
    return m;
  }
  return ((j ?? []) as J[]).map((e) => elemFromJson(s, a.d, e));
}

function elemFromJson(s: Schema, d: Data, j: J): unknown {
  switch (d.k) {
    case "plain":
      return slotFromJson(s, d.e, j);
    case "arrays":
      return arrayFromJson(s, d.a, j);
    case "unionAos":
    case "unionSoa":
    case "bunch":
      return unionFromJson(s, d.u, j);
    default:
      return structFromJson(s, d.s, j);
  }
}

/** Deep equality, floats by value with NaN equal to NaN and -0 apart from 0
 * (JavaScript numbers cannot hold NaN payloads, docs/typescript.md). */
export function same(a: unknown, b: unknown, path = "$"): string | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b) return `${path}: ${String(a)} (${typeof a}) vs ${String(b)} (${typeof b})`;
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return `${path}: map of ${a.size} vs ${b.size}`;
    for (const [k, v] of a) {
      if (!b.has(k)) return `${path}: key ${String(k)} missing`;
      const d = same(v, b.get(k), `${path}[${String(k)}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} elements vs ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = same(a[i], b[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (a !== null && b !== null && typeof a === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b as object);
    if (ka.join() !== kb.join()) return `${path}: keys ${ka.join()} vs ${kb.join()}`;
    for (const k of ka) {
      const d = same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  return `${path}: ${String(a)} vs ${String(b)}`;
}

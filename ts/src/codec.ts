import { KarmemError } from "./errors.js";
import {
  type ArrayRef,
  type Input,
  type Limits,
  Reader,
  EMPTY_ARRAY,
  type Table,
  defaultLimits,
} from "./reader.js";
import { type ArrayDesc, type Data, type Schema, type Slot, MAX_UNITS, absentCharge, elemSize, naturalAlign, primSize } from "./schema.js";
import { Writer } from "./writer.js";

/** A decoded value, loosely typed (generated interfaces give the types). */
export type Value = unknown;
type Obj = Record<string, unknown>;

/** A union value: the variant's type name and its value; null is "no
 * value" (and a tag this schema does not know, §7). */
export interface UnionValue<K extends string = string, V = unknown> {
  readonly kind: K;
  readonly value: V;
}

// ------------------------------------------------------------------ encoding

/** Encodes `value` as a whole message whose root is struct `root` (§8: the
 * bytes every Karmem library writes for it). `w` is reset first. */
export function encode(schema: Schema, root: number, value: Value, w: Writer = new Writer()): Uint8Array {
  w.reset();
  w.alloc(8, 8);
  const e = new Encoder(schema, w);
  const st = schema.structs[root]!;
  if (st.table) e.table(root, value);
  else e.fields(root, value, w.alloc(st.size, 8));
  return w.finish();
}

class Encoder {
  private readonly dirs = new Map<string, number>();
  constructor(
    private readonly s: Schema,
    private readonly w: Writer,
  ) {}

  table(id: number, v: Value): number {
    const st = this.s.structs[id]!;
    const at = this.w.alloc(st.size, 8);
    this.w.u32(at, st.header);
    this.fields(id, v, at);
    return at;
  }

  fields(id: number, v: Value, at: number): void {
    const st = this.s.structs[id]!;
    const o = (v ?? {}) as Obj;
    for (const f of st.fields) {
      let fv = o[f.js];
      if (fv === undefined && f.def !== undefined) fv = f.def;
      this.slot(f.slot, fv, at + f.off);
    }
  }

  slot(slot: Slot, v: Value, at: number): void {
    const w = this.w;
    switch (slot.k) {
      case "scalar":
      case "enum":
        if (v !== undefined && v !== null) w.scalar(slot.p, at, v as number);
        return;
      case "inline":
        this.fields(slot.s, v, at);
        return;
      case "table":
        w.u32(at, this.table(slot.s, v));
        return;
      case "otable":
        if (v !== undefined && v !== null) w.u32(at, this.table(slot.s, v));
        return;
      case "optional":
        if (v === undefined || v === null) return;
        w.u8(at, 1);
        this.slot(slot.v, v, at + slot.at);
        return;
      case "union":
        this.union(slot.u, v, at, at + 4);
        return;
      case "fixed": {
        const items = (v ?? []) as readonly Value[];
        // Tables inside inline elements are written for absent elements too.
        const n = slot.e.k === "inline" ? slot.len : Math.min(items.length, slot.len);
        for (let j = 0; j < n; j++) this.slot(slot.e, items[j], at + j * slot.stride);
        return;
      }
      case "array":
        this.array(slot.a, v, at);
        return;
    }
  }

  private ref(at: number, offset: number, n: number): void {
    this.w.u32(at, offset);
    this.w.u32(at + 4, n);
    this.w.u32(at + 8, n);
  }

  private block(n: number, size: number): number {
    return n === 0 ? 0 : this.w.alloc(n * size, naturalAlign(size));
  }

  private limit(a: ArrayDesc, n: number, at: number): void {
    if (a.limit !== null && n > a.limit) throw new KarmemError("LimitExceeded", at, n);
  }

  array(a: ArrayDesc, v: Value, at: number): void {
    const w = this.w;
    if (a.map) {
      this.map(a, v, at);
      return;
    }
    if (a.text === "utf8") {
      // Checked against the limit (in bytes) before it is written.
      const [off, n] = w.utf8((v ?? "") as string, a.limit);
      this.ref(at, off, n);
      return;
    }
    if (a.text === "utf16") {
      const s = (v ?? "") as string;
      this.limit(a, s.length, at);
      const off = this.block(s.length, 2);
      for (let i = 0; i < s.length; i++) w.u16(off + 2 * i, s.charCodeAt(i));
      this.ref(at, off, s.length);
      return;
    }
    const items = (v ?? []) as ArrayLike<Value>;
    const n = items.length;
    this.limit(a, n, at);
    const d = a.d;
    switch (d.k) {
      case "plain": {
        const off = this.block(n, d.size);
        const p = (d.e as { p: "u8" }).p;
        for (let i = 0; i < n; i++) w.scalar(p, off + i * d.size, items[i] as number);
        this.ref(at, off, n);
        return;
      }
      case "arrays": {
        const off = this.block(n, 12);
        for (let i = 0; i < n; i++) this.array(d.a, items[i], off + 12 * i);
        this.ref(at, off, n);
        return;
      }
      case "unionAos": {
        const off = this.block(n, 8);
        for (let i = 0; i < n; i++) this.union(d.u, items[i], off + 8 * i, off + 8 * i + 4);
        this.ref(at, off, n);
        return;
      }
      case "unionSoa": {
        const tw = primSize(this.s.unions[d.u]!.tag);
        const tags = this.block(n, tw);
        const offs = this.block(n, 4);
        for (let i = 0; i < n; i++) this.union(d.u, items[i], tags + i * tw, offs + 4 * i);
        this.ref(at, tags, n);
        return;
      }
      case "bunch": {
        const u = this.s.unions[d.u]!;
        const groups: Value[][] = d.v.map(() => []);
        for (let i = 0; i < n; i++) {
          const e = items[i] as UnionValue | null | undefined;
          if (e === null || e === undefined) continue;
          const vi = u.v.findIndex((x) => this.s.structs[x.s]!.ts === e.kind);
          if (vi < 0) throw new KarmemError("InvalidValue", at, i, `no variant ${String(e.kind)}`);
          groups[vi]!.push(e.value);
        }
        const total = groups.reduce((t, g) => t + g.length, 0);
        if (total === 0) return;
        const k = groups.filter((g) => g.length > 0).length;
        const table = w.alloc(16 * (k + 1), 8);
        w.u32(table, k);
        let entry = table + 16;
        d.v.forEach((bv, j) => {
          const g = groups[j]!;
          if (g.length === 0) return;
          w.u32(entry, bv.tag);
          this.structArray(bv.d, g, entry + 4);
          entry += 16;
        });
        this.ref(at, table, total);
        return;
      }
      default:
        this.structArray(d, items, at);
    }
  }

  private structArray(d: Data, items: ArrayLike<Value>, at: number): void {
    const w = this.w;
    const n = items.length;
    switch (d.k) {
      case "aosInline": {
        const off = this.block(n, d.stride);
        for (let i = 0; i < n; i++) this.fields(d.s, items[i], off + i * d.stride);
        this.ref(at, off, n);
        return;
      }
      case "aosTable": {
        const off = this.block(n, 4);
        for (let i = 0; i < n; i++) w.u32(off + 4 * i, this.table(d.s, items[i]));
        this.ref(at, off, n);
        return;
      }
      case "soa": {
        if (n === 0) return;
        const cols = this.s.structs[d.s]!.soa!;
        const key = cols.map((c) => `${c.hash}:${c.size}`).join(",");
        let dir = this.dirs.get(key);
        if (dir === undefined) {
          dir = w.alloc(4 * (2 * cols.length + 1), 4);
          w.u32(dir, cols.length);
          cols.forEach((c, k) => {
            w.u32(dir! + 4 + 4 * k, c.hash);
            w.u32(dir! + 4 + 4 * (cols.length + k), c.size);
          });
          this.dirs.set(key, dir);
        }
        const block = w.alloc(4, 4);
        w.u32(block, dir);
        const pos = cols.map((c) => this.block(n, c.size));
        for (let i = 0; i < n; i++) {
          const e = items[i];
          cols.forEach((c, k) => {
            let leaf: Value = e;
            let def: Value = undefined;
            c.path.forEach((idx, step) => {
              const f = this.s.structs[c.steps[step]!]!.fields[idx]!;
              leaf = leaf === undefined || leaf === null ? undefined : (leaf as Obj)[f.js];
              def = f.def;
            });
            if (leaf === undefined && def !== undefined) leaf = def;
            this.slot(c.slot, leaf, pos[k]! + i * c.size);
          });
        }
        this.ref(at, block, n);
        return;
      }
      default:
        throw new Error(`karmem: not a struct array: ${d.k}`);
    }
  }

  private union(u: number, v: Value, tagAt: number, offAt: number): void {
    if (v === undefined || v === null) return;
    const uv = v as UnionValue;
    const ud = this.s.unions[u]!;
    const variant = ud.v.find((x) => this.s.structs[x.s]!.ts === uv.kind);
    if (variant === undefined) throw new KarmemError("InvalidValue", tagAt, 0, `no variant ${String(uv.kind)}`);
    this.w.scalar(ud.tag, tagAt, variant.tag);
    const st = this.s.structs[variant.s]!;
    let child: number;
    if (st.table) child = this.table(variant.s, uv.value);
    else {
      child = this.w.alloc(st.size, 8);
      this.fields(variant.s, uv.value, child);
    }
    this.w.u32(offAt, child);
  }

  private map(a: ArrayDesc, v: Value, at: number): void {
    if (v === undefined || v === null) return;
    const d = a.d as { k: "aosInline"; s: number; stride: number };
    const st = this.s.structs[d.s]!;
    const key = st.fields[0]!;
    const val = st.fields[1]!;
    const entries = [...(v as Map<unknown, unknown>).entries()];
    entries.sort((x, y) => compareKeys(x[0], y[0]));
    this.limit(a, entries.length, at);
    const off = this.block(entries.length, d.stride);
    entries.forEach(([k, x], i) => {
      const pos = off + i * d.stride;
      this.slot(key.slot, k, pos + key.off);
      this.slot(val.slot, x, pos + val.off);
    });
    this.ref(at, off, entries.length);
  }
}

const keyEncoder = new TextEncoder();

/** Map key order (§5.5): numbers as numbers, text by its UTF-8 bytes. */
export function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") {
    const x = keyEncoder.encode(a);
    const y = keyEncoder.encode(b);
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  const x = a as number | bigint;
  const y = b as number | bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

// ------------------------------------------------------------------ decoding

/** Decodes a whole message whose root is struct `root` into objects.
 * Malformed parts decode as zero values (§4, §5); a bad header, the depth
 * limit and the traversal budget (§10) throw a `KarmemError`. */
export function decode(schema: Schema, root: number, input: Input | Reader, limits: Limits = defaultLimits): Value {
  const r = input instanceof Reader ? input : new Reader(input, limits);
  r.check();
  const d = new Decoder(schema, r);
  const st = schema.structs[root]!;
  if (st.table) return d.table(root, r.root());
  const t = r.inline(8, st.size);
  if (t.used !== 0) return d.inline(root, t.offset);
  // An inline root that does not fit reads as all zero (§1): its zero
  // value, charged for the tables it holds (§10).
  if (st.zero > 0) d.charge(st.zero);
  return d.zeroStruct(root);
}

/** Zero value of a field of `slot` (no default). */
function zeroOf(s: Schema, slot: Slot): Value {
  switch (slot.k) {
    case "scalar":
      return slot.p === "bool" ? false : slot.p === "u64" || slot.p === "i64" ? 0n : 0;
    case "enum":
      return slot.p === "u64" || slot.p === "i64" ? 0n : 0;
    case "otable":
    case "optional":
    case "union":
      return null;
    case "array":
      return slot.a.text !== null ? "" : slot.a.map ? new Map() : [];
    default:
      throw new Error(`karmem: no plain zero for ${slot.k} ${s.structs.length}`);
  }
}

export class Decoder {
  budget: number;
  depth = 0;
  constructor(
    readonly s: Schema,
    readonly r: Reader,
  ) {
    this.budget = r.size * r.limits.traversalBudgetFactor;
  }

  charge(n: number): void {
    const c = Math.max(n, 1);
    if (c > this.budget) throw new KarmemError("BudgetExceeded", 0, c);
    this.budget -= c;
  }

  /** The table `t` of struct `id`; `EMPTY_TABLE` (absent or malformed)
   * is its zero value, paid for whole (its `Z`) before it is built, and
   * not read: no level of depth (§10). */
  table(id: number, t: Table): Obj {
    const st = this.s.structs[id]!;
    if (t.used === 0) {
      this.charge(st.zero);
      return this.zeroStruct(id);
    }
    if (++this.depth > this.r.limits.maxDepth) throw new KarmemError("DepthExceeded", t.offset, this.depth);
    // Every field is built, those past `used` too: at least `S`.
    this.charge(Math.max(t.used, st.size));
    const o: Obj = {};
    for (const f of st.fields) {
      const present = f.off + f.size <= t.used;
      o[f.js] = !present && f.def !== undefined ? f.def : this.slot(f.slot, t.offset + f.off, present);
    }
    this.depth--;
    return o;
  }

  /** The inline struct at `at`. */
  inline(id: number, at: number): Obj {
    const o: Obj = {};
    for (const f of this.s.structs[id]!.fields) o[f.js] = this.slot(f.slot, at + f.off, true);
    return o;
  }

  /** The value of `slot` at `at`; when it is not `present` (a field past
   * its table's `used`), its zero value, charged for the tables that holds
   * (its bytes are its table's; an absent array is empty and costs
   * nothing, §10). */
  slot(slot: Slot, at: number, present: boolean): Value {
    const r = this.r;
    if (!present) {
      const held = absentCharge(this.s, slot);
      if (held > 0) this.charge(held);
      return this.zeroSlot(slot);
    }
    switch (slot.k) {
      case "scalar":
      case "enum":
        return r.scalar(slot.p, at);
      case "inline":
        return this.inline(slot.s, at);
      case "table":
        return this.table(slot.s, r.table(r.u32(at)));
      case "otable": {
        const off = r.u32(at);
        return off === 0 ? null : this.table(slot.s, r.table(off));
      }
      case "optional":
        return r.u8(at) !== 0 ? this.slot(slot.v, at + slot.at, true) : null;
      case "union":
        return this.union(slot.u, at, at + 4);
      case "fixed": {
        const out: Value[] = [];
        for (let j = 0; j < slot.len; j++) out.push(this.slot(slot.e, at + j * slot.stride, true));
        return out;
      }
      case "array":
        return this.array(slot.a, r.array(at, elemSize(slot.a.d), slot.a.limit));
    }
  }

  array(a: ArrayDesc, ref: ArrayRef): Value {
    const r = this.r;
    const d = a.d;
    if (a.map) {
      const e = d as { k: "aosInline"; s: number; stride: number };
      this.charge(ref.len * e.stride);
      const st = this.s.structs[e.s]!;
      const k = st.fields[0]!;
      const v = st.fields[1]!;
      const m = new Map<unknown, unknown>();
      for (let i = 0; i < ref.len; i++) {
        const pos = ref.offset + i * e.stride;
        m.set(this.slot(k.slot, pos + k.off, true), this.slot(v.slot, pos + v.off, true));
      }
      return m;
    }
    if (a.text === "utf8") {
      this.charge(ref.len);
      return r.text(ref);
    }
    if (a.text === "utf16") {
      this.charge(2 * ref.len);
      return r.text16(ref);
    }
    const out: Value[] = [];
    switch (d.k) {
      case "plain": {
        this.charge(ref.len * d.size);
        const p = (d.e as { p: "u8" }).p;
        for (let i = 0; i < ref.len; i++) out.push(r.scalar(p, ref.offset + i * d.size));
        return out;
      }
      case "arrays": {
        this.charge(ref.len * 12);
        const es = elemSize(d.a.d);
        for (let i = 0; i < ref.len; i++) out.push(this.array(d.a, r.array(ref.offset + 12 * i, es, d.a.limit)));
        return out;
      }
      case "unionAos":
        this.charge(ref.len * 8);
        for (let i = 0; i < ref.len; i++) out.push(this.union(d.u, ref.offset + 8 * i, ref.offset + 8 * i + 4));
        return out;
      case "unionSoa": {
        const tw = primSize(this.s.unions[d.u]!.tag);
        const cols = r.unionColumns(ref, tw);
        if (cols === null) return out;
        this.charge(ref.len * (tw + 4));
        for (let i = 0; i < ref.len; i++) out.push(this.union(d.u, cols.tags + i * tw, cols.offsets + 4 * i));
        return out;
      }
      case "bunch": {
        // Every variant of this schema is an array of its own, an empty one
        // without an entry, also when the bunch table is empty or
        // malformed (§10).
        const k = r.bunchEntries(ref);
        if (k >= 0) this.charge(16 * (k + 1));
        for (const bv of d.v) {
          const sub = k < 0 ? EMPTY_ARRAY : r.bunchEntry(ref, k, bv.tag, elemSize(bv.d));
          const kind = this.s.structs[bv.s]!.ts;
          for (const value of this.structArray(bv.d, sub)) out.push({ kind, value });
        }
        return out;
      }
      default:
        return this.structArray(d, ref);
    }
  }

  structArray(d: Data, ref: ArrayRef): Value[] {
    const r = this.r;
    const out: Value[] = [];
    switch (d.k) {
      case "aosInline":
        this.charge(ref.len * d.stride);
        for (let i = 0; i < ref.len; i++) out.push(this.inline(d.s, ref.offset + i * d.stride));
        return out;
      case "aosTable":
        this.charge(ref.len * 4);
        for (let i = 0; i < ref.len; i++) out.push(this.table(d.s, r.table(r.u32(ref.offset + 4 * i))));
        return out;
      case "soa": {
        const cols = this.s.structs[d.s]!.soa!;
        const found = r.soaColumns(ref, cols);
        if (found !== null) this.charge(4 * (2 * found.n + 1) + 4);
        const pos = found?.pos ?? [];
        const width = cols.reduce((t, c) => t + c.size, 0);
        this.charge(ref.len * Math.max(width, 1));
        // A column the directory does not list is left as the element's
        // zero value builds it, its defaults or zeros, paid for by the
        // width above but for the tables that holds (§10).
        if (ref.len > 0) {
          cols.forEach((c, k) => {
            const held = (pos[k] ?? 0) === 0 ? absentCharge(this.s, c.slot) : 0;
            if (held > 0) this.charge(Math.min(ref.len * held, MAX_UNITS));
          });
        }
        for (let i = 0; i < ref.len; i++) {
          const item = this.zeroStruct(d.s);
          cols.forEach((c, k) => {
            const at = pos[k] ?? 0;
            if (at === 0) return;
            const steps = c.path.map((idx, j) => this.s.structs[c.steps[j]!]!.fields[idx]!);
            const leaf = steps[steps.length - 1]!;
            let place = item;
            for (let j = 0; j < steps.length - 1; j++) place = place[steps[j]!.js] as Obj;
            place[leaf.js] = this.slot(c.slot, at + i * c.size, true);
          });
          out.push(item);
        }
        return out;
      }
      default:
        throw new Error(`karmem: not a struct array: ${d.k}`);
    }
  }

  /** The value of an absent struct: zeros and defaults; reads nothing, so
   * charges nothing (its caller paid for it, §10). */
  zeroStruct(id: number): Obj {
    const o: Obj = {};
    for (const f of this.s.structs[id]!.fields) o[f.js] = f.def !== undefined ? f.def : this.zeroSlot(f.slot);
    return o;
  }

  /** The zero value of a slot (no default), charging nothing. */
  zeroSlot(slot: Slot): Value {
    switch (slot.k) {
      case "inline":
      case "table":
        return this.zeroStruct(slot.s);
      case "fixed": {
        const e = slot.e;
        return Array.from({ length: slot.len }, () => (e.k === "inline" ? this.zeroStruct(e.s) : zeroOf(this.s, e)));
      }
      default:
        return zeroOf(this.s, slot);
    }
  }

  union(u: number, tagAt: number, offAt: number): UnionValue | null {
    const to = unionTarget(this.s, this.r, u, tagAt, offAt);
    if (to === null) return null;
    const st = this.s.structs[to.s]!;
    if (st.table) return { kind: st.ts, value: this.table(to.s, to.t) };
    this.charge(st.size);
    return { kind: st.ts, value: this.inline(to.s, to.t.offset) };
  }
}

/** What the union slot with its tag at `tagAt` and offset at `offAt`
 * holds (§7): the variant's struct and its table (an inline variant as a
 * table of its size), or null for tag 0, a tag this schema does not know,
 * or an inline variant whose block is malformed. A table variant's
 * malformed table is the empty table (every field zero), as anywhere. */
export function unionTarget(s: Schema, r: Reader, u: number, tagAt: number, offAt: number): { s: number; t: Table } | null {
  const ud = s.unions[u]!;
  const tag = Number(r.scalar(ud.tag, tagAt));
  const variant = ud.v.find((x) => x.tag === tag);
  if (tag === 0 || variant === undefined) return null;
  const st = s.structs[variant.s]!;
  const offset = r.u32(offAt);
  if (st.table) return { s: variant.s, t: r.table(offset) };
  if (offset === 0 || offset % 8 !== 0 || offset + st.size > r.size) return null;
  return { s: variant.s, t: { offset, used: st.size } };
}


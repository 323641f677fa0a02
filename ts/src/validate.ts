import { KarmemError } from "./errors.js";
import { type ArrayRef, type Input, type Limits, Reader, defaultLimits, validUtf8 } from "./reader.js";
import { type ArrayDesc, type Data, type Schema, type Slot, MAX_UNITS, absentCharge, elemSize, naturalAlign, primSize } from "./schema.js";

/**
 * A reader over a message a validator accepted for one root type: tables
 * and arrays are taken as they are, without the checks of `Reader` (format
 * §11: after validation a program may skip them). Loads stay bounded by
 * the message (a DataView cannot read outside it), so a trusted reader
 * used on another message reads wrong values but never outside memory.
 */
export class TrustedReader extends Reader {
  override table(offset: number): { offset: number; used: number } {
    const h = this.u32(offset);
    return { offset, used: (h & 0x1fffffff) * 8 - (h >>> 29) };
  }
  override array(at: number): ArrayRef {
    return { offset: this.u32(at), len: this.u32(at + 4), cap: this.u32(at + 8) };
  }
}

/** Checks every rule of docs/format.md §11 for a message whose root is
 * struct `root`, in one pass bounded by the limits of §10. Throws a
 * `KarmemError` (kind, offset) at the first fault; returns a
 * `TrustedReader` over the message. */
export function validate(schema: Schema, root: number, input: Input, limits: Limits = defaultLimits): TrustedReader {
  const r = new TrustedReader(input, limits);
  r.check();
  const v = new Validator(schema, new Reader(r.bytes, limits));
  const st = schema.structs[root]!;
  if (st.table) v.table(root, 8);
  else {
    if (8 + st.size > r.size) throw new KarmemError("Truncated", 8, st.size);
    v.inline(root, 8);
  }
  return r;
}

class Validator {
  private budget: number;
  private depth = 0;
  constructor(
    private readonly s: Schema,
    private readonly r: Reader,
  ) {
    this.budget = r.size * r.limits.traversalBudgetFactor;
  }

  private charge(n: number): void {
    const c = Math.max(n, 1);
    if (c > this.budget) throw new KarmemError("BudgetExceeded", 0, c);
    this.budget -= c;
  }

  table(id: number, offset: number): void {
    if (++this.depth > this.r.limits.maxDepth) throw new KarmemError("DepthExceeded", offset, this.depth);
    const t = this.r.table(offset);
    if (t.used === 0) throw new KarmemError("MalformedTable", offset);
    // A decoder builds every field of this schema, present in the message
    // or not: at least the table's full size `S`, and for a field past
    // `used` the tables of its zero value (§10), so a message that
    // validates decodes within the same budget.
    const st = this.s.structs[id]!;
    this.charge(Math.max((this.r.u32(offset) & 0x1fffffff) * 8, st.size));
    for (const f of st.fields) {
      if (f.off + f.size <= t.used) this.slot(f.slot, offset + f.off);
      else {
        const held = absentCharge(this.s, f.slot);
        if (held > 0) this.charge(held);
      }
    }
    this.depth--;
  }

  inline(id: number, at: number): void {
    const st = this.s.structs[id]!;
    if (!st.check) return;
    for (const f of st.fields) this.slot(f.slot, at + f.off);
  }

  private bool(at: number): void {
    if (this.r.u8(at) > 1) throw new KarmemError("InvalidBool", at);
  }

  slot(slot: Slot, at: number): void {
    const r = this.r;
    switch (slot.k) {
      case "scalar":
        if (slot.p === "bool") this.bool(at);
        return;
      case "enum":
        return;
      case "inline":
        this.inline(slot.s, at);
        return;
      case "table":
        this.table(slot.s, r.u32(at));
        return;
      case "otable": {
        const off = r.u32(at);
        if (off !== 0) this.table(slot.s, off);
        return;
      }
      case "optional": {
        this.bool(at);
        if (r.u8(at) === 1) this.slot(slot.v, at + slot.at);
        return;
      }
      case "union":
        this.union(slot.u, at, at + 4);
        return;
      case "fixed":
        for (let j = 0; j < slot.len; j++) this.slot(slot.e, at + j * slot.stride);
        return;
      case "array":
        this.array(slot.a, at);
        return;
    }
  }

  /** The reference at `at`: its limit, its bounds (§5), its charge. */
  private ref(at: number, es: number, limit: number | null): ArrayRef {
    const r = this.r;
    const len = r.u32(at + 4);
    if (limit !== null && len > limit) throw new KarmemError("LimitExceeded", at, len);
    const a = r.array(at, es, limit);
    if (a.len !== len || (a.cap === 0 && (r.u32(at + 8) !== 0 || len !== 0))) {
      throw new KarmemError("MalformedArray", at);
    }
    this.charge(a.cap * es);
    return a;
  }

  array(a: ArrayDesc, at: number): void {
    const r = this.r;
    const d = a.d;
    const ref = this.ref(at, elemSize(d), a.limit);
    if (a.text === "utf8") {
      if (!validUtf8(r.bytes, ref.offset, ref.len)) throw new KarmemError("InvalidText", ref.offset);
      return;
    }
    if (a.text === "utf16") {
      for (let i = 0; i < ref.len; i++) {
        const u = r.u16(ref.offset + 2 * i);
        if (u < 0xd800 || u > 0xdfff) continue;
        const next = i + 1 < ref.len ? r.u16(ref.offset + 2 * i + 2) : 0;
        if (u < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
        throw new KarmemError("InvalidText", ref.offset, i);
      }
      return;
    }
    this.contents(a, d, ref);
  }

  private contents(a: ArrayDesc, d: Data, ref: ArrayRef): void {
    const r = this.r;
    switch (d.k) {
      case "plain":
        if (d.e.k === "scalar" && d.e.p === "bool") for (let i = 0; i < ref.len; i++) this.bool(ref.offset + i);
        return;
      case "arrays":
        for (let i = 0; i < ref.len; i++) this.array(d.a, ref.offset + 12 * i);
        return;
      case "unionAos":
        for (let i = 0; i < ref.len; i++) this.union(d.u, ref.offset + 8 * i, ref.offset + 8 * i + 4);
        return;
      case "unionSoa": {
        if (ref.cap === 0) return;
        const tw = primSize(this.s.unions[d.u]!.tag);
        const cols = r.unionColumns(ref, tw);
        if (cols === null) throw new KarmemError("MalformedArray", ref.offset);
        this.charge(ref.cap * (tw + 4));
        for (let i = 0; i < ref.len; i++) this.union(d.u, cols.tags + i * tw, cols.offsets + 4 * i);
        return;
      }
      case "bunch": {
        // A variant of this schema without an entry costs one unit, as a
        // decoder charges its empty array (§10).
        if (ref.cap === 0) {
          if (d.v.length > 0) this.charge(d.v.length);
          return;
        }
        const k = r.u32(ref.offset);
        if (k > r.limits.maxDirectoryEntries) throw new KarmemError("DirectoryTooLarge", ref.offset, k);
        const size = 16 * (k + 1);
        if (ref.offset % 8 !== 0 || !r.fits(ref.offset, size)) throw new KarmemError("MalformedArray", ref.offset);
        this.charge(size);
        // Lengths of every entry, unknown tags included, add up to the
        // array's length (§7.1); JS numbers hold the sum exactly.
        let total = 0;
        for (let e = 1; e <= k; e++) total += r.u32(ref.offset + 16 * e + 8);
        if (total !== ref.len) throw new KarmemError("MalformedArray", ref.offset);
        let missing = 0;
        for (const bv of d.v) {
          let n = 0;
          for (let e = 1; e <= k; e++) if (r.u32(ref.offset + 16 * e) === bv.tag) n++;
          if (n > 1) throw new KarmemError("MalformedArray", ref.offset);
          if (n === 0) missing++;
        }
        if (missing > 0) this.charge(missing);
        for (let e = 1; e <= k; e++) {
          const tag = r.u32(ref.offset + 16 * e);
          const bv = d.v.find((x) => x.tag === tag);
          if (bv === undefined) continue;
          const sub = this.ref(ref.offset + 16 * e + 4, elemSize(bv.d), null);
          this.contents(a, bv.d, sub);
        }
        return;
      }
      case "aosInline": {
        const st = this.s.structs[d.s]!;
        if (st.check) for (let i = 0; i < ref.len; i++) this.inline(d.s, ref.offset + i * d.stride);
        if (a.map) this.mapOrder(d.s, d.stride, ref);
        return;
      }
      case "aosTable":
        for (let i = 0; i < ref.len; i++) this.table(d.s, r.u32(ref.offset + 4 * i));
        return;
      case "soa":
        this.soa(d.s, ref);
        return;
    }
  }

  private soa(id: number, ref: ArrayRef): void {
    if (ref.cap === 0) return;
    const r = this.r;
    const cols = this.s.structs[id]!.soa!;
    if (ref.offset % 4 !== 0 || !r.fits(ref.offset, 4)) throw new KarmemError("MalformedArray", ref.offset);
    const d = r.u32(ref.offset);
    const n = r.u32(d);
    if (d !== 0 && n > r.limits.maxDirectoryEntries) throw new KarmemError("DirectoryTooLarge", d, n);
    if (d === 0 || d % 4 !== 0 || !r.fits(d, 4 * (2 * n + 1))) throw new KarmemError("MalformedArray", ref.offset);
    this.charge(8 * (n + 1));
    // Lay out every listed column (§5.3); a known hash listed twice or
    // with another size is ambiguous or would be misread.
    const pos: number[] = new Array<number>(cols.length).fill(0);
    const seen: boolean[] = new Array<boolean>(cols.length).fill(false);
    let at = ref.offset + 4;
    for (let k = 0; k < n; k++) {
      const hash = r.u32(d + 4 + 4 * k);
      const size = r.u32(d + 4 + 4 * (n + k));
      at = Math.ceil(at / naturalAlign(size)) * naturalAlign(size);
      if (at > r.size) throw new KarmemError("MalformedArray", ref.offset);
      cols.forEach((c, j) => {
        if (c.hash !== hash) return;
        if (seen[j] || c.size !== size) throw new KarmemError("MalformedArray", ref.offset);
        seen[j] = true;
        pos[j] = at;
      });
      at += ref.cap * size;
    }
    if (at > r.size) throw new KarmemError("MalformedArray", ref.offset);
    const width = cols.reduce((t, c) => t + c.size, 0);
    this.charge(ref.cap * Math.max(width, 1));
    // What a decoder builds for a column the directory does not list,
    // beyond its width: the tables its zero value holds, per element of
    // the capacity (§10).
    cols.forEach((c, j) => {
      const held = pos[j] === 0 ? absentCharge(this.s, c.slot) : 0;
      if (held > 0) this.charge(Math.min(ref.cap * held, MAX_UNITS));
    });
    cols.forEach((c, j) => {
      const p = pos[j]!;
      if (p === 0 || !needsCheck(this.s, c.slot)) return;
      for (let i = 0; i < ref.len; i++) this.slot(c.slot, p + i * c.size);
    });
  }

  private mapOrder(entry: number, stride: number, ref: ArrayRef): void {
    const r = this.r;
    const key = this.s.structs[entry]!.fields[0]!;
    let prev: number | bigint | Uint8Array | null = null;
    for (let i = 0; i < ref.len; i++) {
      const at = ref.offset + i * stride + key.off;
      let k: number | bigint | Uint8Array;
      if (key.slot.k === "scalar" || key.slot.k === "enum") k = r.scalar(key.slot.p, at) as number | bigint;
      else {
        const a = r.array(at, 1, null);
        k = r.bytes.subarray(a.offset, a.offset + a.len);
      }
      if (prev !== null && !increasing(prev, k)) throw new KarmemError("MalformedArray", ref.offset, i);
      prev = k;
    }
  }

  private union(u: number, tagAt: number, offAt: number): void {
    const r = this.r;
    const ud = this.s.unions[u]!;
    const tag = Number(r.scalar(ud.tag, tagAt));
    const variant = ud.v.find((x) => x.tag === tag);
    // 0 is no value; unknown tags come from newer writers (§7, §11).
    if (tag === 0 || variant === undefined) return;
    const st = this.s.structs[variant.s]!;
    const offset = r.u32(offAt);
    if (st.table) {
      if (offset === 0) throw new KarmemError("InvalidUnion", tagAt, tag);
      this.table(variant.s, offset);
      return;
    }
    if (offset === 0 || offset % 8 !== 0 || !r.fits(offset, st.size)) throw new KarmemError("InvalidUnion", tagAt, tag);
    this.charge(st.size);
    this.inline(variant.s, offset);
  }
}

function increasing(a: number | bigint | Uint8Array, b: number | bigint | Uint8Array): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
    return a.length < b.length;
  }
  return (a as number) < (b as number);
}

/** Whether a column's values need a look (format.md §11). */
function needsCheck(s: Schema, slot: Slot): boolean {
  switch (slot.k) {
    case "scalar":
      return slot.p === "bool";
    case "enum":
      return false;
    case "inline":
      return s.structs[slot.s]!.check;
    case "fixed":
      return needsCheck(s, slot.e);
    default:
      return true;
  }
}

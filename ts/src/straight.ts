/**
 * What the straight-line encoders and decoders that `karmem build --lang
 * ts` prints per struct call (RATIONALE.md R12.2): the decoder's state
 * (the checked reader, the traversal budget and the depth, format.md §10)
 * and the SoA directories an encoder shares within one message. The code
 * generated per struct reads and writes fields with the reader's and the
 * writer's typed methods; the interpreted `encode` and `decode` of
 * codec.ts walk the same layout and give the same bytes, values and errors.
 */
import { KarmemError } from "./errors.js";
import { type ArrayRef, type Input, type Limits, Reader, alignUp, defaultLimits, validUtf8 } from "./reader.js";
import { type Column, type Prim, MAX_UNITS, naturalAlign } from "./schema.js";
import { TrustedReader } from "./validate.js";
import { Writer } from "./writer.js";

/** One whole-value decode: the reader, what is left of the budget and the
 * depth of tables on the path from the root. */
export class Decoding {
  readonly r: Reader;
  private budget: number;
  private depth = 0;
  private readonly maxDepth: number;

  /** Throws the header's error (as `decode` does before reading). */
  constructor(input: Input | Reader, limits: Limits = defaultLimits) {
    const r = input instanceof Reader ? input : new Reader(input, limits);
    r.check();
    this.r = r;
    this.budget = r.size * r.limits.traversalBudgetFactor;
    this.maxDepth = r.limits.maxDepth;
  }

  /** Charges `n` units, at least 1 (format.md §10). */
  charge(n: number): void {
    const c = n > 1 ? n : 1;
    if (c > this.budget) throw new KarmemError("BudgetExceeded", 0, c);
    this.budget -= c;
  }

  /** One table deeper (the table at `at`). */
  enter(at: number): void {
    if (++this.depth > this.maxDepth) throw new KarmemError("DepthExceeded", at, this.depth);
  }

  leave(): void {
    this.depth--;
  }

  /** The positions of the SoA block `a`'s known columns (0 for a column
   * its directory does not list), its directory charged when it is well
   * formed, then `len × width` (format.md §10). */
  soa(a: ArrayRef, columns: readonly Column[], width: number): number[] {
    const found = this.r.soaColumns(a, columns);
    if (found !== null) this.charge(4 * (2 * found.n + 1) + 4);
    this.charge(a.len * width);
    return found?.pos ?? new Array<number>(columns.length).fill(0);
  }
}

/** Starts a whole message in `w` (a new writer when none): reset, the
 * header's room reserved, the SoA directories of the last message
 * forgotten. */
export function beginMessage(w: Writer = new Writer()): Writer {
  w.reset();
  w.alloc(8, 8);
  return w;
}

/** An empty array or map for an absent field: `prev`, the one
 * `decodeInto` reuses, emptied, or `zero()` when there is none. */
export function emptied<T extends unknown[] | Map<unknown, unknown>>(prev: T | null | undefined, zero: () => T): T {
  if (prev === null || prev === undefined) return zero();
  if (prev instanceof Map) prev.clear();
  else prev.length = 0;
  return prev;
}

/** The zero value of a struct for an absent field: `prev`, the object
 * `decodeInto` reuses, given every field of `zero()`, or `zero()`. */
export function zeroed<T extends object>(prev: T | null | undefined, zero: () => T): T {
  return prev === null || prev === undefined ? zero() : Object.assign(prev, zero());
}

/** `LimitExceeded` for `n` elements at `at` over a limited array's `limit`. */
export function overLimit(at: number, n: number): never {
  throw new KarmemError("LimitExceeded", at, n);
}

/** `InvalidValue` for a union value of a kind the union does not have. */
export function noVariant(at: number, i: number, kind: unknown): never {
  throw new KarmemError("InvalidValue", at, i, `no variant ${String(kind)}`);
}

/** One whole-message validation (format.md §11) by generated checkers: a
 * checked reader, the budget and the depth (§10), and the checks that do
 * not depend on the schema, each throwing the `KarmemError` the
 * interpreted `validate` (validate.ts) throws at the same place. */
export class Checking {
  /** The reader handed out after validation. */
  readonly trusted: TrustedReader;
  readonly r: Reader;
  private budget: number;
  private depth = 0;
  private readonly limits: Limits;

  /** Throws the header's error. */
  constructor(input: Input, limits: Limits = defaultLimits) {
    const t = new TrustedReader(input, limits);
    t.check();
    this.trusted = t;
    this.r = new Reader(t.bytes, limits);
    this.limits = limits;
    this.budget = this.r.size * limits.traversalBudgetFactor;
  }

  charge(n: number): void {
    const c = n > 1 ? n : 1;
    if (c > this.budget) throw new KarmemError("BudgetExceeded", 0, c);
    this.budget -= c;
  }

  /** An inline root of `size` bytes must fit. */
  inlineRoot(size: number): void {
    if (8 + size > this.r.size) throw new KarmemError("Truncated", 8, size);
  }

  /** Enters the table at `offset` of a struct of `size` bytes: one level
   * deeper, well formed, charged its size (at least `size`, §10); returns
   * its used size. */
  table(offset: number, size: number): number {
    if (++this.depth > this.limits.maxDepth) throw new KarmemError("DepthExceeded", offset, this.depth);
    const t = this.r.table(offset);
    if (t.used === 0) throw new KarmemError("MalformedTable", offset);
    const total = (this.r.u32(offset) & 0x1fffffff) * 8;
    this.charge(total > size ? total : size);
    return t.used;
  }

  leave(): void {
    this.depth--;
  }

  bool(at: number): void {
    if (this.r.u8(at) > 1) throw new KarmemError("InvalidBool", at);
  }

  /** The array reference at `at`: its limit, its bounds (§5), its charge. */
  ref(at: number, es: number, limit: number | null): ArrayRef {
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

  utf8(a: ArrayRef): void {
    if (!validUtf8(this.r.bytes, a.offset, a.len)) throw new KarmemError("InvalidText", a.offset);
  }

  utf16(a: ArrayRef): void {
    const r = this.r;
    for (let i = 0; i < a.len; i++) {
      const u = r.u16(a.offset + 2 * i);
      if (u < 0xd800 || u > 0xdfff) continue;
      const next = i + 1 < a.len ? r.u16(a.offset + 2 * i + 2) : 0;
      if (u < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      throw new KarmemError("InvalidText", a.offset, i);
    }
  }

  /** The tag and offset columns of an SoA union array, charged (null for
   * no capacity). */
  unionColumns(a: ArrayRef, tw: number): { tags: number; offsets: number } | null {
    if (a.cap === 0) return null;
    const cols = this.r.unionColumns(a, tw);
    if (cols === null) throw new KarmemError("MalformedArray", a.offset);
    this.charge(a.cap * (tw + 4));
    return cols;
  }

  /** The inline variant of `size` bytes at `offset` of a union whose tag
   * `tag` is at `tagAt`: well placed, charged its size. */
  inlineVariant(tagAt: number, tag: number, offset: number, size: number): void {
    if (offset === 0 || offset % 8 !== 0 || !this.r.fits(offset, size)) throw new KarmemError("InvalidUnion", tagAt, tag);
    this.charge(size);
  }

  /** The table variant at `offset` of a union: not 0. */
  tableVariant(tagAt: number, tag: number, offset: number): void {
    if (offset === 0) throw new KarmemError("InvalidUnion", tagAt, tag);
  }

  /** The table of a bunch array (§7.1) whose variants in this schema have
   * `tags`: its entry count, -1 for no capacity (each variant's empty
   * array charged one unit). */
  bunch(a: ArrayRef, tags: readonly number[]): number {
    const r = this.r;
    if (a.cap === 0) {
      if (tags.length > 0) this.charge(tags.length);
      return -1;
    }
    const k = r.u32(a.offset);
    if (k > this.limits.maxDirectoryEntries) throw new KarmemError("DirectoryTooLarge", a.offset, k);
    const size = 16 * (k + 1);
    if (a.offset % 8 !== 0 || !r.fits(a.offset, size)) throw new KarmemError("MalformedArray", a.offset);
    this.charge(size);
    // Lengths of every entry, unknown tags included, add up to the
    // array's length; JS numbers hold the sum exactly.
    let total = 0;
    for (let e = 1; e <= k; e++) total += r.u32(a.offset + 16 * e + 8);
    if (total !== a.len) throw new KarmemError("MalformedArray", a.offset);
    let missing = 0;
    for (const tag of tags) {
      let n = 0;
      for (let e = 1; e <= k; e++) if (r.u32(a.offset + 16 * e) === tag) n++;
      if (n > 1) throw new KarmemError("MalformedArray", a.offset);
      if (n === 0) missing++;
    }
    if (missing > 0) this.charge(missing);
    return k;
  }

  /** The SoA block `a` of an element with `columns` (§5.3): the position
   * of each known column (0 when not listed), after the directory's, the
   * width's and the unlisted columns' charges (`held`: what each column's
   * zero value holds); null for no capacity. */
  soa(a: ArrayRef, columns: readonly Column[], width: number, held: readonly number[]): number[] | null {
    if (a.cap === 0) return null;
    const r = this.r;
    if (a.offset % 4 !== 0 || !r.fits(a.offset, 4)) throw new KarmemError("MalformedArray", a.offset);
    const d = r.u32(a.offset);
    const n = r.u32(d);
    if (d !== 0 && n > this.limits.maxDirectoryEntries) throw new KarmemError("DirectoryTooLarge", d, n);
    if (d === 0 || d % 4 !== 0 || !r.fits(d, 4 * (2 * n + 1))) throw new KarmemError("MalformedArray", a.offset);
    this.charge(8 * (n + 1));
    const pos: number[] = new Array<number>(columns.length).fill(0);
    const seen: boolean[] = new Array<boolean>(columns.length).fill(false);
    let at = a.offset + 4;
    for (let k = 0; k < n; k++) {
      const hash = r.u32(d + 4 + 4 * k);
      const size = r.u32(d + 4 + 4 * (n + k));
      at = alignUp(at, naturalAlign(size));
      if (at > r.size) throw new KarmemError("MalformedArray", a.offset);
      for (let j = 0; j < columns.length; j++) {
        const c = columns[j]!;
        if (c.hash !== hash) continue;
        if (seen[j] || c.size !== size) throw new KarmemError("MalformedArray", a.offset);
        seen[j] = true;
        pos[j] = at;
      }
      at += a.cap * size;
    }
    if (at > r.size) throw new KarmemError("MalformedArray", a.offset);
    this.charge(a.cap * width);
    for (let j = 0; j < columns.length; j++) {
      const h = pos[j] === 0 ? held[j]! : 0;
      if (h > 0) this.charge(Math.min(a.cap * h, MAX_UNITS));
    }
    return pos;
  }

  /** A map's keys (at `keyOff` of entries `stride` apart) in strictly
   * increasing order (§5.5): numbers of type `prim`, or text (null). */
  mapOrder(a: ArrayRef, stride: number, keyOff: number, prim: Prim | null): void {
    const r = this.r;
    let prev: number | bigint | Uint8Array | null = null;
    for (let i = 0; i < a.len; i++) {
      const at = a.offset + i * stride + keyOff;
      let k: number | bigint | Uint8Array;
      if (prim !== null) k = r.scalar(prim, at) as number | bigint;
      else {
        const t = r.array(at, 1, null);
        k = r.bytes.subarray(t.offset, t.offset + t.len);
      }
      if (prev !== null && !increasing(prev, k)) throw new KarmemError("MalformedArray", a.offset, i);
      prev = k;
    }
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

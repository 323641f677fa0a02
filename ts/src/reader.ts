import { KarmemError } from "./errors.js";
import { type Column, type Prim, naturalAlign } from "./schema.js";

/** Limits a reader enforces against hostile messages (docs/format.md §10). */
export interface Limits {
  /** Entries scanned in one SoA directory or bunch table. */
  readonly maxDirectoryEntries: number;
  /** Tables on the path from the root (validator and decoder). */
  readonly maxDepth: number;
  /** The validator and the decoder visit at most this × size units. */
  readonly traversalBudgetFactor: number;
}

export const defaultLimits: Limits = Object.freeze({
  maxDirectoryEntries: 1024,
  maxDepth: 64,
  traversalBudgetFactor: 8,
});

/** What a message can be read from: a buffer, or a view into one (a
 * wasm guest's memory: a `Uint8Array` over its `ArrayBuffer` or
 * `SharedArrayBuffer`). */
export type Input = ArrayBuffer | SharedArrayBuffer | Uint8Array;

/** A table at `offset` whose first `used` bytes hold fields; `used` 0 is
 * an absent or malformed table (every field reads as zero). An inline
 * struct is seen the same way: `used` is its size when it is there. */
export interface Table {
  readonly offset: number;
  readonly used: number;
}

/** A checked array reference: `len` elements at `offset`, room for `cap`. */
export interface ArrayRef {
  readonly offset: number;
  readonly len: number;
  readonly cap: number;
}

export const EMPTY_TABLE: Table = Object.freeze({ offset: 0, used: 0 });
export const EMPTY_ARRAY: ArrayRef = Object.freeze({ offset: 0, len: 0, cap: 0 });

/** Whether a field of `size` bytes at `off` is present in `t` (§4). */
export function has(t: Table, off: number, size: number): boolean {
  return off + size <= t.used;
}

/** The host's byte order: typed arrays are native-endian, the format is
 * little-endian, so views are handed out only on little-endian hosts. */
export const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function bytesOf(input: Input): Uint8Array {
  return input instanceof Uint8Array ? input : new Uint8Array(input);
}

/** An 8-byte aligned copy of a message (format.md §1: a reader refuses a
 * misaligned one). */
export function alignedCopy(input: Input): Uint8Array {
  const src = bytesOf(input);
  const out = new Uint8Array(src.length);
  out.set(src);
  return out;
}

/** Checks a message's header (§1) and returns its size. */
export function checkHeader(b: Uint8Array): number {
  if (b.byteOffset % 8 !== 0) throw new KarmemError("Misaligned", 0, b.byteOffset % 8);
  if (b.length < 8) throw new KarmemError("Truncated", 0, b.length);
  if (b[0] !== 0x4b || b[1] !== 0x4d) throw new KarmemError("BadMagic");
  if (b[2] !== 2) throw new KarmemError("UnsupportedVersion", 2, b[2] ?? 0);
  if (b[3] !== 0) throw new KarmemError("BadFlags", 3, b[3] ?? 0);
  const size = ((b[4] ?? 0) | ((b[5] ?? 0) << 8) | ((b[6] ?? 0) << 16) | ((b[7] ?? 0) << 24)) >>> 0;
  if (size < 8 || size % 8 !== 0) throw new KarmemError("BadSize", 4, size);
  if (size > b.length) throw new KarmemError("Truncated", 4, size);
  return size;
}

/**
 * Zero-copy, bounds-checked access to one message. Every load is checked
 * against the message size: a read outside it returns zero, a malformed
 * table or array reads as absent or empty (format.md §4, §5). A reader
 * whose header is bad (see `error`) is an empty message. Nothing here
 * throws on message contents.
 */
export class Reader {
  /** The message, `size` bytes. */
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly size: number;
  readonly limits: Limits;
  /** Why the header was refused, or null. */
  readonly error: KarmemError | null;

  constructor(input: Input, limits: Limits = defaultLimits) {
    const b = bytesOf(input);
    this.limits = limits;
    let size = 0;
    let error: KarmemError | null = null;
    try {
      size = checkHeader(b);
    } catch (e) {
      error = e as KarmemError;
    }
    this.error = error;
    this.size = size;
    this.bytes = b.subarray(0, size);
    this.view = new DataView(b.buffer, b.byteOffset, size);
  }

  /** Throws the header's error, if any; returns the reader. */
  check(): this {
    if (this.error !== null) throw this.error;
    return this;
  }

  fits(at: number, n: number): boolean {
    return at + n <= this.size;
  }

  u8(at: number): number {
    return at < this.size ? this.view.getUint8(at) : 0;
  }
  i8(at: number): number {
    return at < this.size ? this.view.getInt8(at) : 0;
  }
  bool(at: number): boolean {
    return this.u8(at) !== 0;
  }
  u16(at: number): number {
    return at + 2 <= this.size ? this.view.getUint16(at, true) : 0;
  }
  i16(at: number): number {
    return at + 2 <= this.size ? this.view.getInt16(at, true) : 0;
  }
  u32(at: number): number {
    return at + 4 <= this.size ? this.view.getUint32(at, true) : 0;
  }
  i32(at: number): number {
    return at + 4 <= this.size ? this.view.getInt32(at, true) : 0;
  }
  f32(at: number): number {
    return at + 4 <= this.size ? this.view.getFloat32(at, true) : 0;
  }
  u64(at: number): bigint {
    return at + 8 <= this.size ? this.view.getBigUint64(at, true) : 0n;
  }
  i64(at: number): bigint {
    return at + 8 <= this.size ? this.view.getBigInt64(at, true) : 0n;
  }
  f64(at: number): number {
    return at + 8 <= this.size ? this.view.getFloat64(at, true) : 0;
  }

  /** A scalar of type `p` as its TypeScript value. */
  scalar(p: Prim, at: number): number | bigint | boolean {
    switch (p) {
      case "u8":
        return this.u8(at);
      case "i8":
        return this.i8(at);
      case "bool":
        return this.bool(at);
      case "u16":
        return this.u16(at);
      case "i16":
        return this.i16(at);
      case "u32":
        return this.u32(at);
      case "i32":
        return this.i32(at);
      case "f32":
        return this.f32(at);
      case "u64":
        return this.u64(at);
      case "i64":
        return this.i64(at);
      case "f64":
        return this.f64(at);
    }
  }

  /** The table at `offset`, or the empty table when it is malformed
   * (offset 0 included, §4). */
  table(offset: number): Table {
    if (offset === 0 || offset % 8 !== 0 || offset + 4 > this.size) return EMPTY_TABLE;
    const h = this.u32(offset);
    const total = (h & 0x1fffffff) * 8;
    const used = total - (h >>> 29);
    if (total < 8 || used < 4 || offset + total > this.size) return EMPTY_TABLE;
    return { offset, used };
  }

  /** The root table (at offset 8). */
  root(): Table {
    return this.table(8);
  }

  /** The inline struct of `size` bytes at `at`: there when it fits. */
  inline(at: number, size: number, present = true): Table {
    return present && at + size <= this.size ? { offset: at, used: size } : EMPTY_TABLE;
  }

  /** The table a table field at `off` of `t` points to. */
  fieldTable(t: Table, off: number): Table {
    return has(t, off, 4) ? this.table(this.u32(t.offset + off)) : EMPTY_TABLE;
  }

  /** The array reference at `at`, or the empty array when it is malformed
   * (§5): `len > cap`, over `limit`, misaligned, or its block of `cap ×
   * elemSize` bytes past the message. */
  array(at: number, elemSize: number, limit: number | null): ArrayRef {
    const offset = this.u32(at);
    const len = this.u32(at + 4);
    const cap = this.u32(at + 8);
    if (len > cap || (limit !== null && len > limit)) return EMPTY_ARRAY;
    if (cap === 0) return EMPTY_ARRAY;
    if (offset === 0 || offset % naturalAlign(elemSize) !== 0) return EMPTY_ARRAY;
    if (offset + cap * elemSize > this.size) return EMPTY_ARRAY;
    return { offset, len, cap };
  }

  /** The array field at `off` of `t` (absent: empty). */
  fieldArray(t: Table, off: number, elemSize: number, limit: number | null): ArrayRef {
    return has(t, off, 12) ? this.array(t.offset + off, elemSize, limit) : EMPTY_ARRAY;
  }

  /** UTF-8 text: decoded once per call; invalid UTF-8 is "" (§6; the raw
   * bytes stay readable with `arrayBytes`). */
  text(a: ArrayRef): string {
    if (a.len === 0) return "";
    return decodeUtf8(this.bytes, a.offset, a.len);
  }

  /** UTF-16 text; each unpaired surrogate decodes as U+FFFD (§6). */
  text16(a: ArrayRef): string {
    let out = "";
    for (let i = 0; i < a.len; i++) {
      const u = this.u16(a.offset + 2 * i);
      if (u >= 0xd800 && u <= 0xdbff && i + 1 < a.len) {
        const v = this.u16(a.offset + 2 * i + 2);
        if (v >= 0xdc00 && v <= 0xdfff) {
          out += String.fromCharCode(u, v);
          i++;
          continue;
        }
      }
      out += u >= 0xd800 && u <= 0xdfff ? "\ufffd" : String.fromCharCode(u);
    }
    return out;
  }

  /** An array's first `len` elements' bytes, a view of the message. */
  arrayBytes(a: ArrayRef, elemSize = 1): Uint8Array {
    return this.bytes.subarray(a.offset, a.offset + a.len * elemSize);
  }

  /**
   * A typed array over `n` scalars of type `p` at `at`: a view of the
   * message when the position is aligned for the type and the host is
   * little-endian, a copy otherwise (a message from a reader that did not
   * check, or a big-endian host). `bool` reads as bytes.
   */
  scalars(p: Prim, at: number, n: number): TypedArray {
    return scalarView(this.bytes, p, at, n);
  }

  /** The SoA block of `a` (§5.3): the position of each known column in
   * `columns` (0 where the directory does not list it), or null when the
   * block is malformed (every column absent). `n` is the directory's entry
   * count, for the caller's budget. */
  soaColumns(a: ArrayRef, columns: readonly Column[]): { pos: number[]; n: number } | null {
    if (a.cap === 0 || a.offset % 4 !== 0 || a.offset + 4 > this.size) return null;
    const d = this.u32(a.offset);
    const n = this.u32(d);
    if (d === 0 || d % 4 !== 0 || n > this.limits.maxDirectoryEntries || d + 4 * (2 * n + 1) > this.size) {
      return null;
    }
    const pos: number[] = new Array<number>(columns.length).fill(0);
    let at = a.offset + 4;
    for (let k = 0; k < n; k++) {
      const hash = this.u32(d + 4 + 4 * k);
      const size = this.u32(d + 4 + 4 * (n + k));
      at = alignUp(at, naturalAlign(size));
      if (at > this.size) return { pos: pos.fill(0), n };
      for (let j = 0; j < columns.length; j++) {
        const c = columns[j]!;
        if (pos[j] === 0 && c.hash === hash && c.size === size) pos[j] = at;
      }
      at += a.cap * size;
    }
    if (at > this.size) pos.fill(0);
    return { pos, n };
  }

  /** The tag and offset columns of an SoA union array (§7.1), or null. */
  unionColumns(a: ArrayRef, tagSize: number): { tags: number; offsets: number } | null {
    if (a.cap === 0 || a.offset % tagSize !== 0) return null;
    const offsets = alignUp(a.offset + a.cap * tagSize, 4);
    if (offsets + 4 * a.cap > this.size) return null;
    return { tags: a.offset, offsets };
  }

  /** The entry count of a well-formed bunch table (§7.1), or -1. */
  bunchEntries(a: ArrayRef): number {
    if (a.cap === 0 || a.offset % 8 !== 0 || a.offset + 4 > this.size) return -1;
    const k = this.u32(a.offset);
    if (k > this.limits.maxDirectoryEntries || a.offset + 16 * (k + 1) > this.size) return -1;
    return k;
  }

  /** The array of variant `tag` in a bunch table of `k` entries: the
   * first entry with that tag, checked as an array (§7.1). */
  bunchEntry(a: ArrayRef, k: number, tag: number, elemSize: number): ArrayRef {
    for (let e = 1; e <= k; e++) {
      if (this.u32(a.offset + 16 * e) === tag) return this.array(a.offset + 16 * e + 4, elemSize, null);
    }
    return EMPTY_ARRAY;
  }
}

export function alignUp(x: number, a: number): number {
  return Math.ceil(x / a) * a;
}

/** Decodes UTF-8, "" when invalid. Short ASCII text is built directly:
 * TextDecoder's call costs more than the loop for a few bytes. */
export function decodeUtf8(b: Uint8Array, at: number, n: number): string {
  if (n <= 16) {
    let s = "";
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const c = b[at + i] ?? 0;
      if (c >= 0x80) {
        ascii = false;
        break;
      }
      s += String.fromCharCode(c);
    }
    if (ascii) return s;
  }
  let view = b.subarray(at, at + n);
  // TextDecoder refuses views of shared memory: decode a private copy.
  if (typeof SharedArrayBuffer !== "undefined" && view.buffer instanceof SharedArrayBuffer) view = view.slice();
  try {
    return utf8.decode(view);
  } catch {
    return "";
  }
}

export function validUtf8(b: Uint8Array, at: number, n: number): boolean {
  let view = b.subarray(at, at + n);
  for (let i = 0; i < view.length; i++) {
    if ((view[i] ?? 0) >= 0x80) {
      if (typeof SharedArrayBuffer !== "undefined" && view.buffer instanceof SharedArrayBuffer) view = view.slice();
      try {
        utf8.decode(view);
        return true;
      } catch {
        return false;
      }
    }
  }
  return true;
}

export type TypedArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigUint64Array
  | BigInt64Array;

const ctors = {
  u8: Uint8Array,
  bool: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
  f64: Float64Array,
} as const;

/** `n` scalars at `at` of `b` as a typed array: a view when aligned on a
 * little-endian host, else a copy read through a DataView. */
export function scalarView(b: Uint8Array, p: Prim, at: number, n: number): TypedArray {
  const C = ctors[p];
  const w = C.BYTES_PER_ELEMENT;
  if (n === 0 || at + n * w > b.length) return new C(0);
  if (littleEndian && (b.byteOffset + at) % w === 0) return new C(b.buffer as ArrayBuffer, b.byteOffset + at, n);
  const out = new C(n);
  const dv = new DataView(b.buffer, b.byteOffset + at, n * w);
  for (let i = 0; i < n; i++) {
    switch (p) {
      case "u8":
      case "bool":
      case "i8":
        (out as Uint8Array)[i] = dv.getUint8(i);
        break;
      case "u16":
      case "i16":
        (out as Uint16Array)[i] = dv.getUint16(2 * i, true);
        break;
      case "u32":
      case "i32":
        (out as Uint32Array)[i] = dv.getUint32(4 * i, true);
        break;
      case "f32":
        (out as Float32Array)[i] = dv.getFloat32(4 * i, true);
        break;
      case "f64":
        (out as Float64Array)[i] = dv.getFloat64(8 * i, true);
        break;
      case "u64":
      case "i64":
        (out as BigUint64Array)[i] = dv.getBigUint64(8 * i, true);
        break;
    }
  }
  return out;
}

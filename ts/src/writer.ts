import { KarmemError } from "./errors.js";
import { type Column, type Prim, naturalAlign } from "./schema.js";

const MAX_SIZE = 0xfffffff8; // 4 GiB − 8 (docs/format.md §1)

/**
 * Where a message is built. Growable by default; over a caller's buffer
 * (`Writer.over`) it never reallocates and fails with `TooLarge` when the
 * message does not fit. Every byte not written is zero (§8): the buffer is
 * cleared when the writer is reset.
 */
export class Writer {
  private buf: Uint8Array;
  private dv: DataView;
  private len = 0;
  private fixed: boolean;
  /** The SoA directories written in this message, by their columns
   * (`hash:size,…`): one directory serves every SoA array of the same
   * columns (format.md §8). */
  private readonly dirs = new Map<string, number>();

  constructor(capacity = 256) {
    this.buf = new Uint8Array(Math.max(64, capacity));
    this.dv = new DataView(this.buf.buffer);
    this.fixed = false;
  }

  /** A writer over `buf` (8-byte aligned, e.g. a region of a wasm guest's
   * memory): the message is built in place. */
  static over(buf: Uint8Array): Writer {
    if (buf.byteOffset % 8 !== 0) throw new KarmemError("Misaligned", 0, buf.byteOffset % 8);
    const w = new Writer(64);
    w.fixed = true;
    w.buf = buf;
    w.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    w.reset();
    return w;
  }

  /** Forgets the message; the storage is zeroed and kept. */
  reset(): void {
    this.buf.fill(0, 0, Math.min(this.len, this.buf.length));
    this.len = 0;
    this.dirs.clear();
  }

  get length(): number {
    return this.len;
  }

  /** The message written so far (a view of the writer's storage, valid
   * until the next write or reset). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  /** Reserves `size` zero bytes at the next multiple of `align`; returns
   * their offset. */
  alloc(size: number, align: number): number {
    const start = Math.ceil(this.len / align) * align;
    const end = start + size;
    if (end > MAX_SIZE) throw new KarmemError("TooLarge", start, size);
    if (end > this.buf.length) this.grow(end);
    this.len = end;
    return start;
  }

  private grow(need: number): void {
    if (this.fixed) throw new KarmemError("TooLarge", this.len, need);
    let n = this.buf.length * 2;
    while (n < need) n *= 2;
    const next = new Uint8Array(Math.min(n, MAX_SIZE + 8));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.dv = new DataView(next.buffer);
  }

  u8(at: number, v: number): void {
    this.dv.setUint8(at, v);
  }
  u16(at: number, v: number): void {
    this.dv.setUint16(at, v, true);
  }
  u32(at: number, v: number): void {
    this.dv.setUint32(at, v >>> 0, true);
  }
  bytesAt(at: number, b: Uint8Array): void {
    this.buf.set(b, at);
  }

  /** Writes a scalar of type `p`. A value the type cannot hold (300 in a
   * `u8`, 1.5 in an `i32`, a `u64` over 2^64 − 1, a string) is refused
   * with `InvalidValue` rather than wrapped: the interfaces rule it out at
   * compile time, but plain JavaScript objects reach the encoder too. */
  scalar(p: Prim, at: number, v: number | bigint | boolean): void {
    putScalar(this.dv, p, at, v);
  }

  // Typed writes for generated encoders: a number the type holds is
  // written at once; anything else goes through `scalar`, which converts
  // (a bigint a 32-bit type holds) or refuses it as `InvalidValue`.
  putU8(at: number, v: unknown): void {
    if (typeof v === "number" && (v & 0xff) === v) this.dv.setUint8(at, v);
    else this.scalar("u8", at, v as number);
  }
  putI8(at: number, v: unknown): void {
    if (typeof v === "number" && (v << 24) >> 24 === v) this.dv.setInt8(at, v);
    else this.scalar("i8", at, v as number);
  }
  putBool(at: number, v: unknown): void {
    if (typeof v === "boolean") this.dv.setUint8(at, v ? 1 : 0);
    else this.scalar("bool", at, v as number);
  }
  putU16(at: number, v: unknown): void {
    if (typeof v === "number" && (v & 0xffff) === v) this.dv.setUint16(at, v, true);
    else this.scalar("u16", at, v as number);
  }
  putI16(at: number, v: unknown): void {
    if (typeof v === "number" && (v << 16) >> 16 === v) this.dv.setInt16(at, v, true);
    else this.scalar("i16", at, v as number);
  }
  putU32(at: number, v: unknown): void {
    if (typeof v === "number" && v >>> 0 === v) this.dv.setUint32(at, v, true);
    else this.scalar("u32", at, v as number);
  }
  putI32(at: number, v: unknown): void {
    if (typeof v === "number" && (v | 0) === v) this.dv.setInt32(at, v, true);
    else this.scalar("i32", at, v as number);
  }
  putF32(at: number, v: unknown): void {
    if (typeof v === "number") this.dv.setFloat32(at, v, true);
    else this.scalar("f32", at, v as number);
  }
  putF64(at: number, v: unknown): void {
    if (typeof v === "number") this.dv.setFloat64(at, v, true);
    else this.scalar("f64", at, v as number);
  }
  putU64(at: number, v: unknown): void {
    if (typeof v === "bigint" && BigInt.asUintN(64, v) === v) this.dv.setBigUint64(at, v, true);
    else this.scalar("u64", at, v as bigint);
  }
  putI64(at: number, v: unknown): void {
    if (typeof v === "bigint" && BigInt.asIntN(64, v) === v) this.dv.setBigInt64(at, v, true);
    else this.scalar("i64", at, v as bigint);
  }

  /** An array reference: `n` elements at `offset` (length and capacity). */
  ref(at: number, offset: number, n: number): void {
    this.u32(at, offset);
    this.u32(at + 4, n);
    this.u32(at + 8, n);
  }

  /** The block of `n` elements of `size` bytes (0 when empty). */
  block(n: number, size: number): number {
    return n === 0 ? 0 : this.alloc(n * size, naturalAlign(size));
  }

  /** The SoA directory of `columns` (`key` names them), written the first
   * time this message needs it. */
  soaDir(key: string, columns: readonly Column[]): number {
    let dir = this.dirs.get(key);
    if (dir === undefined) {
      dir = this.alloc(4 * (2 * columns.length + 1), 4);
      this.u32(dir, columns.length);
      for (let k = 0; k < columns.length; k++) {
        this.u32(dir + 4 + 4 * k, columns[k]!.hash);
        this.u32(dir + 4 + 4 * (columns.length + k), columns[k]!.size);
      }
      this.dirs.set(key, dir);
    }
    return dir;
  }

  /** Encodes `s` as UTF-8 into a new block of its byte length (1-aligned);
   * returns `[offset, length]`. `limit` (a `[<N]char`) is checked first. */
  utf8(s: string, limit: number | null = null): [number, number] {
    const n = utf8Length(s);
    if (limit !== null && n > limit) throw new KarmemError("LimitExceeded", this.len, n);
    if (n === 0) return [0, 0];
    const start = this.alloc(n, 1);
    encoder.encodeInto(s, this.buf.subarray(start, start + n));
    return [start, n];
  }

  /** Finishes the message: the final padding and the header (§1, §8);
   * returns the message bytes (a view, as `bytes`). */
  finish(): Uint8Array {
    this.alloc(0, 8);
    const b = this.buf;
    b[0] = 0x4b;
    b[1] = 0x4d;
    b[2] = 2;
    b[3] = 0;
    this.u32(4, this.len);
    return this.bytes();
  }
}

const encoder = new TextEncoder();

/** Stores `v` as a `p` at `at` of `dv` (little-endian), or throws
 * `InvalidValue` when `p` cannot hold it (300 in a `u8`, a number in a
 * `bool`): what writers and the in-place `Editor` store. */
export function putScalar(dv: DataView, p: Prim, at: number, v: number | bigint | boolean): void {
  switch (p) {
    case "u8":
    case "i8":
      dv.setUint8(at, checkedInt(p, at, v) & 0xff);
      return;
    case "bool":
      if (typeof v !== "boolean") throw invalid(p, at, v);
      dv.setUint8(at, v ? 1 : 0);
      return;
    case "u16":
    case "i16":
      dv.setUint16(at, checkedInt(p, at, v) & 0xffff, true);
      return;
    case "u32":
    case "i32":
      dv.setUint32(at, checkedInt(p, at, v) >>> 0, true);
      return;
    case "f32":
    case "f64":
      // Any number: NaN, infinities and values an f32 rounds are floats too.
      if (typeof v !== "number") throw invalid(p, at, v);
      if (p === "f32") dv.setFloat32(at, v, true);
      else dv.setFloat64(at, v, true);
      return;
    case "u64":
    case "i64":
      dv.setBigUint64(at, BigInt.asUintN(64, checkedInt64(p, at, v)), true);
      return;
  }
}

/** The smallest and largest value of each integer type up to 32 bits. */
const intRange = {
  u8: [0, 0xff],
  i8: [-0x80, 0x7f],
  u16: [0, 0xffff],
  i16: [-0x8000, 0x7fff],
  u32: [0, 0xffffffff],
  i32: [-0x80000000, 0x7fffffff],
} as const;

const int64Range = {
  u64: [0n, (1n << 64n) - 1n],
  i64: [-(1n << 63n), (1n << 63n) - 1n],
} as const;

function invalid(p: Prim, at: number, v: unknown): KarmemError {
  const shown = typeof v === "bigint" ? `${v}n` : typeof v === "string" ? JSON.stringify(v) : String(v);
  return new KarmemError("InvalidValue", at, 0, `${shown} is not a ${p}`);
}

/** `v` when it is an integer `p` can hold (a number, or a bigint that is
 * one), else `InvalidValue`. */
function checkedInt(p: keyof typeof intRange, at: number, v: unknown): number {
  const n = typeof v === "bigint" && v >= -0x80000000n && v <= 0xffffffffn ? Number(v) : v;
  const [lo, hi] = intRange[p];
  if (typeof n === "number" && Number.isInteger(n) && n >= lo && n <= hi) return n;
  throw invalid(p, at, v);
}

/** `v` as a bigint when it is an integer `p` can hold: a bigint, or a
 * number that is a safe integer (a larger number has already been rounded). */
function checkedInt64(p: keyof typeof int64Range, at: number, v: unknown): bigint {
  const b = typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : v;
  const [lo, hi] = int64Range[p];
  if (typeof b === "bigint" && b >= lo && b <= hi) return b;
  throw invalid(p, at, v);
}

/** The UTF-8 length of `s` as TextEncoder writes it (an unpaired
 * surrogate becomes U+FFFD, 3 bytes), so a block is reserved exactly. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

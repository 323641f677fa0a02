import { KarmemError } from "./errors.js";
import type { Prim } from "./schema.js";

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

  /** Writes a scalar of type `p`. */
  scalar(p: Prim, at: number, v: number | bigint | boolean): void {
    const dv = this.dv;
    switch (p) {
      case "u8":
      case "i8":
        dv.setUint8(at, Number(v) & 0xff);
        return;
      case "bool":
        dv.setUint8(at, v ? 1 : 0);
        return;
      case "u16":
      case "i16":
        dv.setUint16(at, Number(v) & 0xffff, true);
        return;
      case "u32":
      case "i32":
        dv.setUint32(at, Number(v) >>> 0, true);
        return;
      case "f32":
        dv.setFloat32(at, Number(v), true);
        return;
      case "f64":
        dv.setFloat64(at, Number(v), true);
        return;
      case "u64":
      case "i64":
        dv.setBigUint64(at, BigInt.asUintN(64, BigInt(v)), true);
        return;
    }
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

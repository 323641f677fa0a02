// The writer (docs/format.md §8): a growable buffer owned by the writer,
// or a fixed range of memory the caller provides (`Writer.over`, a guest's
// shared-memory window). Everything it hands out is zero-filled or filled
// by the caller, so padding and unused capacity are zero and nothing of a
// previous message leaks into the next.
//
// Errors are sticky: the first failure (buffer full, a value that cannot
// be encoded) is kept in `err`, later allocations return offset 0 and
// stores outside what was allocated are dropped, so generated encoders
// are straight-line code that asks `finish()` once at the end whether the
// message is whole. A failed message's bytes are unspecified.

import { KarmemError } from "./errors";
import { HEADER_SIZE, VERSION, alignUp, bunchTableSize, directorySize, naturalAlign } from "./validator";

/**
 * The largest message a growable writer makes: AssemblyScript's managed
 * buffers stop at 1 GiB, and asking for more would abort the module.
 */
const MAX_GROWABLE: u64 = 0x3FFF0000;

/** A reusable output buffer for messages. */
export class Writer {
  /** The storage of a growable writer; null over caller memory. */
  private buf: ArrayBuffer | null = null;
  /** Where the storage starts. */
  private ptr: usize = 0;
  /** Its size in bytes. */
  private cap: u64 = 0;
  /** Bytes written so far. */
  private n: u32 = 0;
  /** The first error of the current message (sticky). */
  err: KarmemError = KarmemError.None;
  /** The SoA directories written in the current message (§5.3: shared by column list). */
  private dirs: Array<u32> = [];

  /**
   * A growable writer with room for `capacity` bytes (at least 64) before
   * it grows. A negative capacity makes a writer without storage, which
   * `Writer.over` then points at the caller's memory.
   */
  constructor(capacity: i32 = 1024) {
    if (capacity >= 0) {
      const size = capacity < 64 ? 64 : capacity;
      const buf = new ArrayBuffer(size);
      this.buf = buf;
      this.ptr = changetype<usize>(buf);
      this.cap = <u64>size;
    }
  }

  /**
   * A fixed writer over `capacity` bytes at `ptr` (8-aligned): messages are
   * encoded there in place and nothing is allocated; a message that does
   * not fit fails with `TooLarge`, a misaligned `ptr` with `Misaligned`,
   * and nothing is written outside the range.
   */
  static over(ptr: usize, capacity: i32): Writer {
    const w = new Writer(-1);
    w.ptr = ptr;
    w.cap = capacity < 0 ? 0 : <u64>capacity;
    return w;
  }

  /** Forgets the current message (and its error); keeps the storage. */
  reset(): void {
    this.n = 0;
    this.err = KarmemError.None;
    this.dirs.length = 0;
  }

  /** Bytes written so far (the message after a successful encode). */
  get length(): i32 {
    return <i32>this.n;
  }

  /** Where the message starts in memory (moves when a growable writer grows). */
  get dataStart(): usize {
    return this.ptr;
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(<i32>this.n);
    memory.copy(out.dataStart, this.ptr, <usize>this.n);
    return out;
  }

  /** Records the first error of the message. */
  fail(e: KarmemError): void {
    if (this.err == KarmemError.None) this.err = e;
  }

  /** Starts a message: forgets the last one and reserves the header; the root is allocated next (§1). */
  begin(): void {
    this.reset();
    if (this.buf === null && (this.ptr & 7) != 0) {
      this.fail(KarmemError.Misaligned);
      return;
    }
    this.alloc(HEADER_SIZE, 8);
  }

  /** Pads the message to a multiple of 8 and fills in the header (§1, §8); returns the message's error. */
  finish(): KarmemError {
    if (this.err != KarmemError.None) return this.err;
    const end = alignUp(this.n, 8);
    this.reserve(<u32>(end - this.n), 1);
    if (this.err != KarmemError.None) return this.err;
    store<u8>(this.ptr, 0x4B);
    store<u8>(this.ptr, 0x4D, 1);
    store<u8>(this.ptr, VERSION, 2);
    store<u8>(this.ptr, 0, 3);
    store<u32>(this.ptr, this.n, 4);
    return KarmemError.None;
  }

  /** Makes room for `end` bytes, keeping what was written; false (and TooLarge) when it cannot. */
  private grow(end: u64): bool {
    if (end <= this.cap) return true;
    const old = this.buf;
    if (old === null || end > MAX_GROWABLE) {
      this.fail(KarmemError.TooLarge);
      return false;
    }
    let size = this.cap * 2;
    if (size < end) size = end;
    if (size > MAX_GROWABLE) size = MAX_GROWABLE;
    const buf = new ArrayBuffer(<i32>size);
    memory.copy(changetype<usize>(buf), this.ptr, <usize>this.n);
    this.buf = buf;
    this.ptr = changetype<usize>(buf);
    this.cap = size;
    return true;
  }

  /** `size` zeroed bytes at the next multiple of `alignment`, the gap zeroed too (§8); 0 after an error. */
  private reserve(size: u32, alignment: u32): u32 {
    if (this.err != KarmemError.None) return 0;
    const start = alignUp(this.n, alignment);
    const end = start + <u64>size;
    if (end > 0xFFFFFFF8) {
      this.fail(KarmemError.TooLarge);
      return 0;
    }
    if (!this.grow(end)) return 0;
    memory.fill(this.ptr + <usize>this.n, 0, <usize>(end - this.n));
    this.n = <u32>end;
    return <u32>start;
  }

  /** Reserves `size` zeroed bytes at a multiple of `alignment`; returns their offset (0 after an error). */
  alloc(size: u32, alignment: u32): u32 {
    return this.reserve(size, alignment);
  }

  /** A zeroed block of `count` elements of `elemSize` bytes at their natural alignment (§5); 0 for none. */
  allocArray(count: i32, elemSize: u32): u32 {
    if (count <= 0) return 0;
    const bytes = <u64>count * <u64>elemSize;
    if (bytes > 0xFFFFFFFF) {
      this.fail(KarmemError.TooLarge);
      return 0;
    }
    return this.reserve(<u32>bytes, naturalAlign(elemSize));
  }

  /** Stores a little-endian scalar at `offset`, inside what was allocated (dropped otherwise). */
  // @ts-ignore: decorator
  @inline put<T>(offset: u32, v: T): void {
    if (<u64>offset + sizeof<T>() <= <u64>this.n) store<T>(this.ptr + <usize>offset, v);
  }

  /** Stores a bool as 0 or 1 (§2). */
  // @ts-ignore: decorator
  @inline putBool(offset: u32, v: bool): void {
    this.put<u8>(offset, v ? 1 : 0);
  }

  /** Writes the 12-byte array reference at `at` (§5). */
  putArrayRef(at: u32, offset: u32, length: u32, capacity: u32): void {
    this.put<u32>(at, offset);
    this.put<u32>(at + 4, length);
    this.put<u32>(at + 8, capacity);
  }

  /** Writes `s` as UTF-8 text (unpaired surrogates as U+FFFD): its block and the reference at `at` (§5.1). */
  writeString(at: u32, s: string): void {
    const n = utf8Length(s);
    const offset = this.allocArray(n, 1);
    if (n == 0 || offset == 0) {
      this.putArrayRef(at, 0, 0, 0);
      return;
    }
    encodeUtf8(s, this.ptr + <usize>offset);
    this.putArrayRef(at, offset, n, n);
  }

  /** Writes `s` as UTF-16 text (`[]u16 @string`, unpaired surrogates as U+FFFD): block and reference (§6). */
  writeUtf16(at: u32, s: string): void {
    const n = s.length;
    const offset = this.allocArray(n, 2);
    if (n == 0 || offset == 0) {
      this.putArrayRef(at, 0, 0, 0);
      return;
    }
    for (let i = 0; i < n; i++) {
      let u = <u32>s.charCodeAt(i);
      if (u >= 0xD800 && u <= 0xDFFF) {
        const pair = u < 0xDC00 && i + 1 < n && isLow(<u32>s.charCodeAt(i + 1));
        if (pair) {
          this.put<u16>(offset + 2 * <u32>i, <u16>u);
          i++;
          u = <u32>s.charCodeAt(i);
        } else {
          u = 0xFFFD;
        }
      }
      this.put<u16>(offset + 2 * <u32>i, <u16>u);
    }
    this.putArrayRef(at, offset, n, n);
  }

  /** Writes a bool array as bytes 0 and 1 (§2): block and reference. */
  writeBools(at: u32, values: Array<bool>): void {
    const n = values.length;
    const offset = this.allocArray(n, 1);
    for (let i = 0; i < n; i++) this.putBool(offset + <u32>i, unchecked(values[i]));
    this.putArrayRef(at, offset, offset == 0 ? 0 : n, offset == 0 ? 0 : n);
  }

  /** Writes a plain array of numbers (§5.1): block and reference; little-endian memory is copied as it is. */
  writeSlice<T>(at: u32, values: Array<T>): void {
    const n = values.length;
    const offset = this.allocArray(n, sizeof<T>());
    if (offset == 0) {
      this.putArrayRef(at, 0, 0, 0);
      return;
    }
    memory.copy(this.ptr + <usize>offset, values.dataStart, <usize>n * sizeof<T>());
    this.putArrayRef(at, offset, n, n);
  }

  /**
   * Writes the block of an SoA array of `count` elements (§5.3): the
   * directory's offset, then one zeroed column per entry of `columns`
   * ([hash, size, ...]), each at the natural alignment of its size. The
   * directory is written right before the block the first time the message
   * has this column list, and shared afterwards (§8). The column offsets go
   * to `out`, the reference to `at`.
   */
  writeSoa(at: u32, count: i32, columns: StaticArray<u32>, out: StaticArray<u32>): void {
    for (let k = 0; k < out.length; k++) unchecked((out[k] = 0));
    if (count <= 0) {
      this.putArrayRef(at, 0, 0, 0);
      return;
    }
    let dir = this.findDirectory(columns);
    if (dir == 0) dir = this.writeDirectory(columns);
    const block = this.alloc(4, 4);
    this.put<u32>(block, dir);
    for (let k = 0; k < out.length; k++) {
      unchecked((out[k] = this.allocArray(count, unchecked(columns[2 * k + 1]))));
    }
    this.putArrayRef(at, block, <u32>count, <u32>count);
  }

  /** The directory of this column list written earlier in the message, or 0. */
  private findDirectory(columns: StaticArray<u32>): u32 {
    const n = <u32>(columns.length >> 1);
    for (let i = 0; i < this.dirs.length; i++) {
      const d = unchecked(this.dirs[i]);
      if (load<u32>(this.ptr + <usize>d) != n) continue;
      let same = true;
      for (let k: u32 = 0; k < n && same; k++) {
        same = load<u32>(this.ptr + <usize>(d + 4 + 4 * k)) == unchecked(columns[2 * k]) &&
          load<u32>(this.ptr + <usize>(d + 4 + 4 * (n + k))) == unchecked(columns[2 * k + 1]);
      }
      if (same) return d;
    }
    return 0;
  }

  /** Writes the directory of a column list (n, hashes, sizes) and remembers it. */
  private writeDirectory(columns: StaticArray<u32>): u32 {
    const n = <u32>(columns.length >> 1);
    const d = this.alloc(<u32>directorySize(n), 4);
    if (d == 0) return 0;
    this.put<u32>(d, n);
    for (let k: u32 = 0; k < n; k++) {
      this.put<u32>(d + 4 + 4 * k, unchecked(columns[2 * k]));
      this.put<u32>(d + 4 + 4 * (n + k), unchecked(columns[2 * k + 1]));
    }
    this.dirs.push(d);
    return d;
  }

  /** Reserves a bunch table of `entries` entries and stores the count (§7.1); entry e (0-based) is at +16 × (e + 1). */
  writeBunchTable(entries: u32): u32 {
    const t = this.alloc(<u32>bunchTableSize(entries), 8);
    this.put<u32>(t, entries);
    return t;
  }
}

// @ts-ignore: decorator
@inline function isLow(u: u32): bool {
  return u >= 0xDC00 && u <= 0xDFFF;
}

/** The code point at `i` of `s` and its width in code units (unpaired surrogates as U+FFFD). */
function codePoint(s: string, i: i32): u32 {
  const u = <u32>s.charCodeAt(i);
  if (u < 0xD800 || u > 0xDFFF) return u;
  if (u < 0xDC00 && i + 1 < s.length) {
    const next = <u32>s.charCodeAt(i + 1);
    if (isLow(next)) return 0x10000 + ((u - 0xD800) << 10) + (next - 0xDC00);
  }
  return 0xFFFD;
}

/** The UTF-8 length of `s`, unpaired surrogates counted as U+FFFD (3 bytes). */
export function utf8Length(s: string): i32 {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = codePoint(s, i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c < 0x10000) n += 3;
    else {
      n += 4;
      i++;
    }
  }
  return n;
}

/** Writes `s` as UTF-8 at `p` (utf8Length(s) bytes). */
function encodeUtf8(s: string, p: usize): void {
  for (let i = 0; i < s.length; i++) {
    const c = codePoint(s, i);
    if (c < 0x80) {
      store<u8>(p++, <u8>c);
    } else if (c < 0x800) {
      store<u8>(p++, <u8>(0xC0 | (c >> 6)));
      store<u8>(p++, <u8>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      store<u8>(p++, <u8>(0xE0 | (c >> 12)));
      store<u8>(p++, <u8>(0x80 | ((c >> 6) & 0x3F)));
      store<u8>(p++, <u8>(0x80 | (c & 0x3F)));
    } else {
      store<u8>(p++, <u8>(0xF0 | (c >> 18)));
      store<u8>(p++, <u8>(0x80 | ((c >> 12) & 0x3F)));
      store<u8>(p++, <u8>(0x80 | ((c >> 6) & 0x3F)));
      store<u8>(p++, <u8>(0x80 | (c & 0x3F)));
      i++;
    }
  }
}

/** How two text map keys compare: by code point, which is UTF-8 byte order (§5.5). */
export function compareText(a: string, b: string): i32 {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = codePoint(a, i);
    const y = codePoint(b, j);
    if (x != y) return x < y ? -1 : 1;
    i += x >= 0x10000 ? 2 : 1;
    j += y >= 0x10000 ? 2 : 1;
  }
  if (i < a.length) return 1;
  if (j < b.length) return -1;
  return 0;
}

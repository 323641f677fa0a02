// The trusted reader (docs/assemblyscript.md, "Viewers"): the reads of a
// message that validated (docs/format.md §11), without the checks
// validation made. Generated viewers are generic over their reader: over a
// `Validator` every load is bounded by the message and every table and
// array reference is checked; over a `Trusted` they are not, because a
// valid message has no malformed table, array, text or union slot that a
// viewer of the same schema reaches. It has the Validator's reading
// methods, by the same names, so one generated viewer serves both.
//
// Only `Type.trust(ptr, length)` (which validates first) should make one;
// a `Trusted` over a message that did not validate reads out of bounds.

import { Validator } from "./validator";

export class Trusted {
  /** Address of the message's first byte. */
  base: usize;
  /** The message size from the header. */
  size: u32;
  /** The last table found: offset and used size (0, 0: absent). */
  tOff: u32 = 0;
  tUsed: u32 = 0;
  /** The last array reference found: offset, length, capacity. */
  aOff: u32 = 0;
  aLen: u32 = 0;
  aCap: u32 = 0;
  /** The last union columns found: tags and offsets. */
  uTags: u32 = 0;
  uOffs: u32 = 0;
  /**
   * The validator that accepted the message: SoA directories and bunch
   * tables are looked up through it (once per array, not per element).
   */
  private v: Validator;

  /** A trusted reader of the message `v` opened and validated. */
  constructor(v: Validator) {
    this.v = v;
    this.base = v.base;
    this.size = v.size;
  }

  /** A scalar at `offset` (inside the message: it validated). */
  // @ts-ignore: decorator
  @inline ld<T>(offset: u32): T {
    return load<T>(this.base + <usize>offset);
  }

  /** A bool or presence byte (0 or 1 in a valid message, §2). */
  // @ts-ignore: decorator
  @inline ldBool(offset: u32): bool {
    return load<u8>(this.base + <usize>offset) != 0;
  }

  /** The table at `offset` into `tOff`/`tUsed` (absent when 0); its header is not checked (§4). */
  table(offset: u32): void {
    if (offset == 0) {
      this.tOff = 0;
      this.tUsed = 0;
      return;
    }
    const header = this.ld<u32>(offset);
    this.tOff = offset;
    this.tUsed = (header & 0x1FFFFFFF) * 8 - (header >>> 29);
  }

  /** The array reference at `at` into `aOff`/`aLen`/`aCap`, unchecked (§5). */
  array(at: u32, elemSize: u32, limit: u32): void {
    const cap = this.ld<u32>(at + 8);
    this.aOff = cap == 0 ? 0 : this.ld<u32>(at);
    this.aLen = cap == 0 ? 0 : this.ld<u32>(at + 4);
    this.aCap = cap;
  }

  /** A known variant's inline value fits: validation refused the message otherwise (§7). */
  inlineAt(offset: u32, n: u32): bool {
    return offset != 0;
  }

  /** UTF-8 text, valid in a valid message (§6). */
  utf8String(offset: u32, n: u32): string {
    if (n == 0) return "";
    return String.UTF8.decodeUnsafe(this.base + <usize>offset, <usize>n);
  }

  /** UTF-16 text, without unpaired surrogates in a valid message (§6). */
  utf16String(offset: u32, n: u32): string {
    if (n == 0) return "";
    return String.UTF16.decodeUnsafe(this.base + <usize>offset, <usize>n << 1);
  }

  /** The tag and offset columns of an SoA union array into `uTags`/`uOffs` (§7). */
  unionColumns(block: u32, cap: u32, tagSize: u32): bool {
    this.uTags = block;
    this.uOffs = <u32>((<u64>block + <u64>cap * <u64>tagSize + 3) & ~3);
    return cap != 0;
  }

  /** The columns of an SoA array (§5.3), as the validator finds them. */
  columns(block: u32, cap: u32, wanted: StaticArray<u32>, out: StaticArray<u32>): bool {
    return this.v.columns(block, cap, wanted, out);
  }

  /** The array of variant `tag` in a bunch table (§7.1), as the validator finds it. */
  bunchEntry(block: u32, cap: u32, tag: u32, elemSize: u32): void {
    this.v.bunchEntry(block, cap, tag, elemSize);
    this.aOff = this.v.aOff;
    this.aLen = this.v.aLen;
    this.aCap = this.v.aCap;
  }
}

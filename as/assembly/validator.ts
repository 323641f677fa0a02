// The checked reader and validator: one pass over one message
// (docs/format.md §1–§11). Every load is bounded by the message size, so a
// hostile message reads as zeros or empty parts, never out of bounds; the
// traversal budget and the depth limit (§10) bound the work. Generated
// `validate`, `decode` and `read` functions drive it.
//
// AssemblyScript functions return one value and objects live on the heap,
// so what the reads find (a table, an array reference, union columns) is
// left in fields of the Validator (`tOff`/`tUsed`, `aOff`/`aLen`/`aCap`,
// `uTags`/`uOffs`) for the caller to copy into locals at once: no object
// is allocated per table or array.

import { KarmemError } from "./errors";

/** The size of the message header; the root starts after it (§1). */
export const HEADER_SIZE: u32 = 8;
/** The format version read and written: the second edition (§1). */
export const VERSION: u8 = 2;
/** The limit argument for arrays that are not limited (§5). */
export const NO_LIMIT: u32 = 0xFFFFFFFF;
/** Entries scanned in one SoA directory or bunch table at most (§10). */
export const MAX_DIRECTORY_ENTRIES: u32 = 1024;
/** Nesting of tables followed at most (§10). */
export const MAX_DEPTH: u32 = 64;
/** The budget is this many times the message size (§10). */
export const BUDGET_FACTOR: u32 = 8;

/** The alignment of a block of `size`-byte elements: the largest power of two dividing it, at most 8 (§5); 1 for 0. */
export function naturalAlign(size: u32): u32 {
  if (size == 0) return 1;
  const low = size & (~size + 1);
  return low < 8 ? low : 8;
}

/** `x` rounded up to a multiple of `a` (a power of two), in 64 bits. */
// @ts-ignore: decorator
@inline export function alignUp(x: u64, a: u64): u64 {
  return (x + a - 1) & ~(a - 1);
}

/** The size of an SoA directory of `n` entries (§5.3). */
// @ts-ignore: decorator
@inline export function directorySize(n: u64): u64 {
  return 4 * (2 * n + 1);
}

/** What reading a directory costs the budget each time: directory and block word (§10). */
// @ts-ignore: decorator
@inline export function directoryCharge(n: u64): u64 {
  return directorySize(n) + 4;
}

/** The size of a bunch table of `k` entries (§7.1). */
// @ts-ignore: decorator
@inline export function bunchTableSize(k: u64): u64 {
  return 16 * (k + 1);
}

/**
 * One pass over a message: the bounds of the message, the budget and the
 * depth, the place of the last fault, and the results of the last table,
 * array and union-column lookups.
 */
export class Validator {
  /** Address of the message's first byte (8-aligned once opened). */
  base: usize = 0;
  /** The message size from the header (0 until opened: every read is zero). */
  size: u32 = 0;
  /** Units of the traversal budget left. */
  budget: u64 = 0;
  /** Tables on the path to the one being read. */
  depth: u32 = 0;
  /** Where the last fault is (a byte offset) and an extra number. */
  faultOffset: u32 = 0;
  faultValue: u64 = 0;
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
   * Opens the message of `length` bytes at `ptr` (docs/format.md §1):
   * checks the header and alignment, then bounds every later read by the
   * size in the header, and starts a pass (budget, depth).
   */
  open(ptr: usize, length: usize): KarmemError {
    this.base = 0;
    this.size = 0;
    if (length < <usize>HEADER_SIZE) return this.fail(KarmemError.Truncated, 0, <u64>length);
    if ((ptr & 7) != 0) return this.fail(KarmemError.Misaligned, 0, 0);
    if (load<u8>(ptr) != 0x4B || load<u8>(ptr, 1) != 0x4D) return this.fail(KarmemError.BadMagic, 0, 0);
    const version = load<u8>(ptr, 2);
    if (version != VERSION) return this.fail(KarmemError.UnsupportedVersion, 2, version);
    const flags = load<u8>(ptr, 3);
    if (flags != 0) return this.fail(KarmemError.BadFlags, 3, flags);
    const stated = load<u32>(ptr, 4);
    if (stated < HEADER_SIZE || (stated & 7) != 0) return this.fail(KarmemError.BadSize, 4, stated);
    if (<u64>stated > <u64>length) return this.fail(KarmemError.Truncated, 4, stated);
    this.base = ptr;
    this.size = stated;
    this.restart();
    return KarmemError.None;
  }

  /** Starts a new pass over the same message: full budget, depth 0. */
  restart(): void {
    this.budget = <u64>this.size * BUDGET_FACTOR;
    this.depth = 0;
  }

  /** Records a fault and returns its kind. */
  fail(kind: KarmemError, offset: u32, value: u64): KarmemError {
    this.faultOffset = offset;
    this.faultValue = value;
    return kind;
  }

  /** Accounts for `n` bytes visited, at least 1 unit (§10). */
  charge(n: u64): KarmemError {
    const units = n > 1 ? n : 1;
    if (units > this.budget) return this.fail(KarmemError.BudgetExceeded, 0, units);
    this.budget -= units;
    return KarmemError.None;
  }

  /** `charge(n × units)`, the product saturating at `u64.MAX_VALUE` (§10: a zero value's size saturates, so may a multiple of it). */
  chargeEach(n: u32, units: u64): KarmemError {
    if (units != 0 && <u64>n > u64.MAX_VALUE / units) return this.charge(u64.MAX_VALUE);
    return this.charge(<u64>n * units);
  }

  /** Descends one table level; the root table is at depth 1 (§10). */
  enter(): KarmemError {
    this.depth++;
    if (this.depth > MAX_DEPTH) return this.fail(KarmemError.DepthExceeded, 0, this.depth);
    return KarmemError.None;
  }

  /** Ascends one table level. */
  leave(): void {
    this.depth--;
  }

  // ---- bounded loads ----------------------------------------------------

  /** Whether `n` bytes at `offset` lie inside the message. */
  // @ts-ignore: decorator
  @inline fits(offset: u32, n: u64): bool {
    return <u64>offset + n <= <u64>this.size;
  }

  /** A scalar at `offset`, zero when it does not fit the message (§1). */
  // @ts-ignore: decorator
  @inline ld<T>(offset: u32): T {
    if (!this.fits(offset, sizeof<T>())) return <T>0;
    return load<T>(this.base + <usize>offset);
  }

  /** A bool or presence byte: any non-zero byte is true (§2). */
  // @ts-ignore: decorator
  @inline ldBool(offset: u32): bool {
    return this.ld<u8>(offset) != 0;
  }

  // ---- tables (§4) --------------------------------------------------------

  /**
   * The table at `offset` into `tOff`/`tUsed`; absent (0, 0) when the
   * offset is 0 or the table malformed: misaligned, header past the end,
   * used size below 4, total size past the end.
   */
  table(offset: u32): void {
    this.tOff = 0;
    this.tUsed = 0;
    if (offset == 0 || (offset & 7) != 0 || !this.fits(offset, 8)) return;
    const header = this.ld<u32>(offset);
    const total = <u64>(header & 0x1FFFFFFF) * 8;
    const unused = <u64>(header >>> 29);
    if (total < 8 || total - unused < 4 || !this.fits(offset, total)) return;
    this.tOff = offset;
    this.tUsed = <u32>(total - unused);
  }

  /**
   * Checks the table at `offset`, which must be well formed (§4), of a type
   * whose full size in the reader's schema is `full` (`S`, §10); charges
   * `max(total × 8, full)`, as a decoder builds every field of the
   * reader's schema, so a message that validates decodes within the same
   * budget.
   */
  checkTable(offset: u32, full: u32): KarmemError {
    this.table(offset);
    if (this.tUsed == 0) return this.fail(KarmemError.MalformedTable, offset, 0);
    const header = this.ld<u32>(offset);
    return this.charge(max<u64>(<u64>(header & 0x1FFFFFFF) * 8, <u64>full));
  }

  /** Whether an inline struct of `n` bytes can be read at `offset` (a union's inline value, §7). */
  inlineAt(offset: u32, n: u32): bool {
    return offset != 0 && (offset & 7) == 0 && this.fits(offset, n);
  }

  // ---- arrays (§5) ------------------------------------------------------------

  private setArray(offset: u32, len: u32, cap: u32): void {
    this.aOff = offset;
    this.aLen = len;
    this.aCap = cap;
  }

  /** Whether the reference (offset, len, cap) passes §5 for `elemSize`-byte elements. */
  arrayOk(offset: u32, len: u32, cap: u32, elemSize: u32, limit: u32): bool {
    if (len > cap || len > limit) return false;
    if (cap == 0) return true;
    return offset != 0 && (offset & (naturalAlign(elemSize) - 1)) == 0 &&
      <u64>offset + <u64>cap * <u64>elemSize <= <u64>this.size;
  }

  /**
   * The array reference at `at` into `aOff`/`aLen`/`aCap`, the empty one
   * when malformed (lenient readers, §5). A zero capacity is no block
   * whatever the offset says.
   */
  array(at: u32, elemSize: u32, limit: u32): void {
    this.setArray(0, 0, 0);
    if (!this.fits(at, 12)) return;
    const offset = this.ld<u32>(at);
    const len = this.ld<u32>(at + 4);
    const cap = this.ld<u32>(at + 8);
    if (cap == 0 || !this.arrayOk(offset, len, cap, elemSize, limit)) return;
    this.setArray(offset, len, cap);
  }

  /** Checks the array reference at `at` (§5) and charges `capacity × elemSize` (§10). */
  checkArray(at: u32, elemSize: u32, limit: u32): KarmemError {
    const offset = this.ld<u32>(at);
    const len = this.ld<u32>(at + 4);
    const cap = this.ld<u32>(at + 8);
    this.setArray(0, 0, 0);
    if (len > limit) return this.fail(KarmemError.LimitExceeded, at, len);
    if (!this.arrayOk(offset, len, cap, elemSize, limit)) return this.fail(KarmemError.MalformedArray, at, 0);
    this.setArray(cap == 0 ? 0 : offset, cap == 0 ? 0 : len, cap);
    return this.charge(<u64>cap * <u64>elemSize);
  }

  /** An array field at `off` of the table (to, tu): empty when absent (an older writer, §4), else `array`. */
  fieldArray(to: u32, tu: u32, off: u32, elemSize: u32, limit: u32): void {
    if (<u64>off + 12 > <u64>tu) {
      this.setArray(0, 0, 0);
      return;
    }
    this.array(to + off, elemSize, limit);
  }

  /** `checkArray` for an array field of the table (to, tu): absent is empty and valid. */
  checkFieldArray(to: u32, tu: u32, off: u32, elemSize: u32, limit: u32): KarmemError {
    if (<u64>off + 12 > <u64>tu) {
      this.setArray(0, 0, 0);
      return KarmemError.None;
    }
    return this.checkArray(to + off, elemSize, limit);
  }

  /** A copy of `n` numbers of type T at `offset` (empty when they do not fit the message). */
  slice<T>(offset: u32, n: u32): Array<T> {
    if (n == 0 || !this.fits(offset, <u64>n * sizeof<T>())) return new Array<T>(0);
    const out = new Array<T>(<i32>n);
    memory.copy(out.dataStart, this.base + <usize>offset, <usize>n * sizeof<T>());
    return out;
  }

  /**
   * `slice` into `out`, reusing its storage (decoding into an existing
   * object): its length becomes `n`, or 0 when they do not fit.
   */
  sliceInto<T>(out: Array<T>, offset: u32, n: u32): Array<T> {
    if (n == 0 || !this.fits(offset, <u64>n * sizeof<T>())) {
      out.length = 0;
      return out;
    }
    out.length = <i32>n;
    memory.copy(out.dataStart, this.base + <usize>offset, <usize>n * sizeof<T>());
    return out;
  }

  // ---- text (§5.1, §6) ------------------------------------------------------

  /** UTF-8 text of `n` bytes at `offset` as a string ("" when invalid or outside, §6). */
  utf8String(offset: u32, n: u32): string {
    if (n == 0 || !this.fits(offset, n) || !utf8Valid(this.base + <usize>offset, n)) return "";
    return String.UTF8.decodeUnsafe(this.base + <usize>offset, <usize>n);
  }

  /** UTF-16 text of `n` code units at `offset` (unpaired surrogates as U+FFFD, §6). */
  utf16String(offset: u32, n: u32): string {
    if (n == 0 || (offset & 1) != 0 || !this.fits(offset, <u64>n * 2)) return "";
    const p = this.base + <usize>offset;
    const out = new Array<u16>(n);
    for (let i: u32 = 0; i < n; i++) {
      const u = load<u16>(p + (<usize>i << 1));
      let c = u;
      if (u >= 0xD800 && u <= 0xDFFF) {
        if (u < 0xDC00 && i + 1 < n) {
          const next = load<u16>(p + (<usize>(i + 1) << 1));
          if (next >= 0xDC00 && next <= 0xDFFF) {
            unchecked((out[i] = u));
            unchecked((out[i + 1] = next));
            i++;
            continue;
          }
        }
        c = 0xFFFD;
      }
      unchecked((out[i] = c));
    }
    return String.UTF16.decodeUnsafe(out.dataStart, <usize>n << 1);
  }

  /** Checks that `n` bytes at `offset` are valid UTF-8 (§6); text outside the message is malformed. */
  utf8(offset: u32, n: u32): KarmemError {
    if (n == 0) return KarmemError.None;
    if (!this.fits(offset, n)) return this.fail(KarmemError.MalformedArray, offset, 0);
    if (!utf8Valid(this.base + <usize>offset, n)) return this.fail(KarmemError.InvalidText, offset, 0);
    return KarmemError.None;
  }

  /** Checks that `n` code units at `offset` have no unpaired surrogates (§6). */
  utf16(offset: u32, n: u32): KarmemError {
    if (n == 0 || !this.fits(offset, <u64>n * 2)) return KarmemError.None;
    for (let i: u32 = 0; i < n; i++) {
      const u = this.ld<u16>(offset + 2 * i);
      if (u < 0xD800 || u > 0xDFFF) continue;
      if (u < 0xDC00 && i + 1 < n) {
        const next = this.ld<u16>(offset + 2 * i + 2);
        if (next >= 0xDC00 && next <= 0xDFFF) {
          i++;
          continue;
        }
      }
      return this.fail(KarmemError.InvalidText, offset, i);
    }
    return KarmemError.None;
  }

  /** Checks that the byte at `offset` (a bool or presence byte) is 0 or 1 (§2, §4.2). */
  boolAt(offset: u32): KarmemError {
    if (this.ld<u8>(offset) > 1) return this.fail(KarmemError.InvalidBool, offset, 0);
    return KarmemError.None;
  }

  /** Checks `n` bool bytes at `offset`. */
  bools(offset: u32, n: u32): KarmemError {
    if (!this.fits(offset, n)) return KarmemError.None;
    for (let i: u32 = 0; i < n; i++) {
      if (this.ld<u8>(offset + i) > 1) return this.fail(KarmemError.InvalidBool, offset + i, 0);
    }
    return KarmemError.None;
  }

  /**
   * How the text arrays referenced at `atA` and `atB` compare, bytewise
   * (map keys, §5.5): negative, 0 or positive. Malformed references read
   * as empty text.
   */
  textOrder(atA: u32, atB: u32): i32 {
    this.array(atA, 1, NO_LIMIT);
    const ao = this.aOff;
    const al = this.aLen;
    this.array(atB, 1, NO_LIMIT);
    const bo = this.aOff;
    const bl = this.aLen;
    const n = al < bl ? al : bl;
    for (let i: u32 = 0; i < n; i++) {
      const x = this.ld<u8>(ao + i);
      const y = this.ld<u8>(bo + i);
      if (x != y) return x < y ? -1 : 1;
    }
    return al < bl ? -1 : al > bl ? 1 : 0;
  }

  // ---- SoA arrays (§5.3) -------------------------------------------------------

  /**
   * The directory of the SoA block (aOff, aCap): its offset, or 0 when the
   * block word or the directory is malformed (misaligned, past the end,
   * over the entry limit).
   */
  directory(block: u32, cap: u32): u32 {
    if (cap == 0 || (block & 3) != 0 || !this.fits(block, 4)) return 0;
    const dir = this.ld<u32>(block);
    if (dir == 0 || (dir & 3) != 0 || !this.fits(dir, 4)) return 0;
    const n = this.ld<u32>(dir);
    if (n > MAX_DIRECTORY_ENTRIES || !this.fits(dir, directorySize(n))) return 0;
    return dir;
  }

  /**
   * Lays out the block at `block` over the well-formed directory `dir` and
   * puts into `out` (zeroed here) the first column of each wanted hash
   * listed with the wanted size. `wanted` is [hash, size, ...]. Returns 0
   * when the block fits and no wanted hash is listed twice or with another
   * size, 1 when it fits but is not strict, 2 when it does not fit.
   */
  findColumns(block: u32, cap: u32, dir: u32, wanted: StaticArray<u32>, out: StaticArray<u32>): i32 {
    const nw = out.length;
    for (let j = 0; j < nw; j++) unchecked((out[j] = 0));
    const n = this.ld<u32>(dir);
    const limit = <u64>this.size;
    let pos = <u64>block + 4;
    let strict = true;
    for (let k: u32 = 0; k < n; k++) {
      const hash = this.ld<u32>(dir + 4 + 4 * k);
      const size = this.ld<u32>(dir + 4 + 4 * (n + k));
      const col = alignUp(pos, naturalAlign(size));
      pos = col + <u64>cap * <u64>size;
      if (col > limit) return 2;
      let j = -1;
      if (<i32>k < nw && unchecked(wanted[2 * k]) == hash) {
        j = <i32>k;
      } else {
        for (let i = 0; i < nw; i++) {
          if (unchecked(wanted[2 * i]) == hash) {
            j = i;
            break;
          }
        }
      }
      if (j >= 0) {
        const sizeOk = unchecked(wanted[2 * j + 1]) == size;
        strict = strict && unchecked(out[j]) == 0 && sizeOk;
        if (unchecked(out[j]) == 0 && sizeOk) unchecked((out[j] = <u32>col));
      }
    }
    if (pos > limit) return 2;
    return strict ? 0 : 1;
  }

  /**
   * The known columns of the SoA array (block, cap) for decoding: `out[j]`
   * is the offset of column j, 0 when absent or the block is malformed;
   * charges the directory each time it is read (§10).
   */
  soaColumns(block: u32, cap: u32, wanted: StaticArray<u32>, out: StaticArray<u32>): KarmemError {
    for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
    const dir = this.directory(block, cap);
    if (dir == 0) return KarmemError.None;
    if (this.findColumns(block, cap, dir, wanted, out) == 2) {
      for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
    }
    return this.charge(directoryCharge(this.ld<u32>(dir)));
  }

  /**
   * `soaColumns` for viewers, which have no budget: false (and `out` all
   * 0) when the block or its directory is malformed.
   */
  columns(block: u32, cap: u32, wanted: StaticArray<u32>, out: StaticArray<u32>): bool {
    for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
    const dir = this.directory(block, cap);
    if (dir != 0 && this.findColumns(block, cap, dir, wanted, out) != 2) return true;
    for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
    return false;
  }

  /**
   * Checks an SoA block and its directory (§5.3, §11) and resolves the
   * known columns into `out`; charges the directory, then `cap × size` for
   * every known column, present or not (§10).
   */
  soa(block: u32, cap: u32, wanted: StaticArray<u32>, out: StaticArray<u32>): KarmemError {
    for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
    if (cap == 0) return KarmemError.None;
    const dir = this.directory(block, cap);
    if (dir == 0) {
      if ((block & 3) == 0 && this.fits(block, 4)) {
        const d = this.ld<u32>(block);
        const n = this.ld<u32>(d);
        if (d != 0 && n > MAX_DIRECTORY_ENTRIES) return this.fail(KarmemError.DirectoryTooLarge, d, n);
      }
      return this.fail(KarmemError.MalformedArray, block, 0);
    }
    let e = this.charge(directoryCharge(this.ld<u32>(dir)));
    if (e != KarmemError.None) return e;
    if (this.findColumns(block, cap, dir, wanted, out) != 0) {
      for (let j = 0; j < out.length; j++) unchecked((out[j] = 0));
      return this.fail(KarmemError.MalformedArray, block, 0);
    }
    if (out.length == 0) return this.charge(cap);
    for (let j = 0; j < out.length; j++) {
      e = this.charge(<u64>cap * <u64>unchecked(wanted[2 * j + 1]));
      if (e != KarmemError.None) return e;
    }
    return KarmemError.None;
  }

  // ---- unions (§7, §7.1) -------------------------------------------------------

  /**
   * The tag and offset columns of the SoA union array (block, cap) with
   * `tagSize`-byte tags into `uTags`/`uOffs`; false when empty or malformed.
   */
  unionColumns(block: u32, cap: u32, tagSize: u32): bool {
    this.uTags = 0;
    this.uOffs = 0;
    if (cap == 0) return false;
    const offs = alignUp(<u64>block + <u64>cap * <u64>tagSize, 4);
    if ((block & (naturalAlign(tagSize) - 1)) != 0 || offs + 4 * <u64>cap > <u64>this.size) return false;
    this.uTags = block;
    this.uOffs = <u32>offs;
    return true;
  }

  /** `unionColumns` for a validator: malformed columns are an error; charges `cap × (tagSize + 4)`. */
  checkUnionColumns(block: u32, cap: u32, tagSize: u32): KarmemError {
    if (cap == 0) return KarmemError.None;
    if (!this.unionColumns(block, cap, tagSize)) return this.fail(KarmemError.MalformedArray, block, 0);
    return this.charge(<u64>cap * (<u64>tagSize + 4));
  }

  /** The number of entries of the bunch table (block, cap), or -1 when empty or malformed (§7.1). */
  bunchEntries(block: u32, cap: u32): i64 {
    if (cap == 0) return -1;
    const k = this.ld<u32>(block);
    if ((block & 7) != 0 || k > MAX_DIRECTORY_ENTRIES || !this.fits(block, bunchTableSize(k))) return -1;
    return k;
  }

  /** The array of variant `tag` in the bunch table (block, cap) into aOff/aLen/aCap (empty when none, §7.1). */
  bunchEntry(block: u32, cap: u32, tag: u32, elemSize: u32): void {
    const k = this.bunchEntries(block, cap);
    this.setArray(0, 0, 0);
    for (let e: i64 = 1; e <= k; e++) {
      const entry = block + 16 * <u32>e;
      if (this.ld<u32>(entry) == tag) {
        this.array(entry + 4, elemSize, NO_LIMIT);
        return;
      }
    }
  }

  /** Charges a bunch table once, as a decoder reads it (§10). */
  chargeBunch(block: u32, cap: u32): KarmemError {
    const k = this.bunchEntries(block, cap);
    if (k < 0) return KarmemError.None;
    return this.charge(bunchTableSize(k));
  }

  /** The number of entries of the bunch table `bunch` last accepted. */
  bunchCount: u32 = 0;

  /**
   * Checks the bunch table (block, len, cap) (§7.1): size and alignment,
   * entry lengths (summed in 64 bits) adding up to the array's length, no
   * tag of `known` twice; the number of entries goes to `bunchCount`.
   */
  bunch(block: u32, len: u32, cap: u32, known: StaticArray<u32>): KarmemError {
    this.bunchCount = 0;
    // A variant of `known` without an entry costs one unit, as a decoder
    // charges its empty array (§10).
    if (cap == 0) return known.length > 0 ? this.charge(<u64>known.length) : KarmemError.None;
    const k = this.ld<u32>(block);
    if (k > MAX_DIRECTORY_ENTRIES) return this.fail(KarmemError.DirectoryTooLarge, block, k);
    const size = bunchTableSize(k);
    if ((block & 7) != 0 || !this.fits(block, size)) return this.fail(KarmemError.MalformedArray, block, 0);
    const e = this.charge(size);
    if (e != KarmemError.None) return e;
    let total: u64 = 0;
    for (let i: u32 = 1; i <= k; i++) total += this.ld<u32>(block + 16 * i + 8);
    if (total != <u64>len) return this.fail(KarmemError.MalformedArray, block, 0);
    let missing: u64 = 0;
    for (let j = 0; j < known.length; j++) {
      let n = 0;
      for (let i: u32 = 1; i <= k; i++) {
        if (this.ld<u32>(block + 16 * i) == unchecked(known[j])) n++;
      }
      if (n > 1) return this.fail(KarmemError.MalformedArray, block, 0);
      if (n == 0) missing++;
    }
    if (missing > 0) {
      const m = this.charge(missing);
      if (m != KarmemError.None) return m;
    }
    this.bunchCount = k;
    return KarmemError.None;
  }
}

/** Whether the `n` bytes at `p` are valid UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
export function utf8Valid(p: usize, n: u32): bool {
  let i: u32 = 0;
  while (i < n) {
    const c = <u32>load<u8>(p + <usize>i);
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: u32 = 0;
    let min: u32 = 0;
    let cp: u32 = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1; min = 0x80; cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2; min = 0x800; cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3; min = 0x10000; cp = c & 0x07;
    } else {
      return false;
    }
    if (<u64>i + <u64>need >= <u64>n) return false;
    for (let k: u32 = 1; k <= need; k++) {
      const d = <u32>load<u8>(p + <usize>(i + k));
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += need + 1;
  }
  return true;
}

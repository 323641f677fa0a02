/**
 * In-place updates of a message (docs/format.md §12), as Go's
 * `karmem.Editor` and C's `km_editor`: scalars of fields a table holds in
 * this message, elements of plain arrays, and array lengths within their
 * capacity. Nothing moves: no offset, header, directory or capacity is
 * written, and nothing is appended. Every write is checked like a read; a
 * write that does not fit is refused with a `KarmemError` before any byte
 * changes. The generated viewers' setters (`v.setF(e, x)`, `v.editF(e)`,
 * `v.setFLen(e, n)`) call these with their field's offset.
 */
import { KarmemError } from "./errors.js";
import { type ArrayRef, type Input, type Limits, Reader, type Table, type TypedArray, defaultLimits, littleEndian } from "./reader.js";
import type { Prim } from "./schema.js";
import { putScalar } from "./writer.js";

export class Editor extends Reader {
  /**
   * Opens `input` for updates: the message's own bytes, never a copy, so
   * that viewers over the same buffer see each write. Throws the header's
   * error (as `validate` does; a message that passed validation is what
   * an editor should be given, since it trusts nothing else either), and
   * `Misaligned` on a big-endian host, where `elements` could not hand
   * out views of the message.
   */
  constructor(input: Input, limits: Limits = defaultLimits) {
    super(input, limits);
    this.check();
    if (!littleEndian) throw new KarmemError("Misaligned", 0, 0, "in-place editing needs a little-endian host");
  }

  /** Whether the `size` bytes of the field at `off` of `t` are in this
   * message: present in the table (§4) and inside the buffer. */
  private holds(t: Table, off: number, size: number): boolean {
    return t.used !== 0 && off + size <= t.used && this.fits(t.offset + off, size);
  }

  /**
   * Stores `v` as the `p` field at `off` of table `t`. Refused: a field
   * the table does not hold (an older writer's message: a field past
   * `used` cannot be added in place, §12) with `MalformedTable`, a value
   * `p` cannot hold with `InvalidValue`.
   */
  set(t: Table, off: number, p: Prim, v: number | bigint | boolean): void {
    const size = p === "u64" || p === "i64" || p === "f64" ? 8 : p === "u32" || p === "i32" || p === "f32" ? 4 : p === "u16" || p === "i16" ? 2 : 1;
    if (!this.holds(t, off, size)) throw new KarmemError("MalformedTable", t.offset, off);
    putScalar(this.view, p, t.offset + off, v);
  }

  /** The array reference of the field at `off` of `t` (12 bytes), or
   * `MalformedTable` when the table does not hold it. */
  private ref(t: Table, off: number): number {
    if (!this.holds(t, off, 12)) throw new KarmemError("MalformedTable", t.offset, off);
    return t.offset + off;
  }

  /**
   * The plain array field at `off` of `t` (elements of type `p`) as a
   * writable typed array over the message, `length` elements: a write to
   * it is a write to the message (§12: an element `< length`). A malformed
   * array is `MalformedArray`.
   */
  elements(t: Table, off: number, p: Prim, size: number, limit: number | null): TypedArray {
    const a = this.checkedArray(this.ref(t, off), size, limit);
    // Aligned (checked by `array`, and the message start is 8-aligned), on a
    // little-endian host (the constructor): a view, never a copy.
    return this.scalars(p, a.offset, a.len);
  }

  /**
   * Changes the length of the array field at `off` of `t` (elements of
   * `size` bytes) to `n`, within its capacity and its limit (`TooLarge`,
   * `LimitExceeded` otherwise). The elements between the old and the new
   * length are zeroed first, both ways (§12): dropped ones so that a later
   * growth does not bring them back, exposed ones because a message from
   * elsewhere may hold anything in unused capacity.
   */
  setLen(t: Table, off: number, size: number, limit: number | null, n: number): void {
    const at = this.ref(t, off);
    if (!Number.isInteger(n) || n < 0) throw new KarmemError("InvalidValue", at, 0, `${String(n)} is not a length`);
    if (limit !== null && n > limit) throw new KarmemError("LimitExceeded", at, n);
    const a = this.checkedArray(at, size, limit);
    if (n > a.cap) throw new KarmemError("TooLarge", at, n);
    const lo = a.offset + Math.min(n, a.len) * size;
    const hi = a.offset + Math.max(n, a.len) * size;
    this.bytes.fill(0, lo, hi);
    this.view.setUint32(at + 4, n, true);
  }

  /** The array at `at`, well formed (an empty one included), or
   * `MalformedArray`: a reference the reader would read as empty while it
   * claims a length or a capacity is not edited. */
  private checkedArray(at: number, size: number, limit: number | null): ArrayRef {
    const a = this.array(at, size, limit);
    if (a.cap === 0 && (this.u32(at + 4) !== 0 || this.u32(at + 8) !== 0)) throw new KarmemError("MalformedArray", at);
    return a;
  }
}

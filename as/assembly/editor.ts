// In-place updates of a message (docs/format.md §12; docs/assemblyscript.md,
// "Editing in place"), as TypeScript's `Editor`, Go's `karmem.Editor` and
// C's `km_editor`: scalars of fields a table holds in this message,
// elements of plain arrays, and array lengths within their capacity.
// Nothing moves: no offset, header, directory or capacity is written and
// nothing is appended. Every write is checked like a checked read (the
// table and array reference are read again from this message, whatever a
// viewer found), and a write that does not fit is refused with a
// `KarmemError` before any byte changes: AssemblyScript has no exceptions,
// and no input may trap.
//
// An `Editor` is a `Validator` (it opens the message the same way), so the
// checked viewer of the same message reads through it and sees each write:
// `T.viewOf<Validator>(e)`. The generated setters of the checked table
// viewers (`v.setF(e, x)`, `v.setFLen(e, n)`, `v.editF(e)`) call these
// with their field's offset.

import { KarmemError } from "./errors";
import { Validator } from "./validator";

export class Editor extends Validator {
  /**
   * Whether the table at `offset` holds the `size` bytes of its field at
   * `off` in this message (§4: a well-formed table, the field inside its
   * used size). An absent table, or an older writer's without the field,
   * cannot gain it in place (§12).
   */
  holds(offset: u32, off: u32, size: u32): bool {
    this.table(offset);
    return this.tOff != 0 && <u64>off + <u64>size <= <u64>this.tUsed;
  }

  /**
   * Stores `x` as the field at `off` (of type `T`: a number, or `bool`
   * stored as 0 or 1) of the table at `offset`; `MalformedTable` when the
   * table does not hold it.
   */
  set<T>(offset: u32, off: u32, x: T): KarmemError {
    if (!this.holds(offset, off, sizeof<T>())) return this.fail(KarmemError.MalformedTable, offset, off);
    if (isBoolean<T>()) {
      store<u8>(this.base + <usize>offset + <usize>off, x ? 1 : 0);
    } else {
      store<T>(this.base + <usize>offset + <usize>off, x);
    }
    return KarmemError.None;
  }

  /**
   * The array reference of the field at `off` of the table at `offset`
   * (elements of `elemSize` bytes, at most `limit`) into `aOff`, `aLen`,
   * `aCap`: `MalformedTable` when the table does not hold it,
   * `MalformedArray` when it is malformed, a reference a reader reads as
   * empty while it claims a length or an offset included.
   */
  ref(offset: u32, off: u32, elemSize: u32, limit: u32): KarmemError {
    if (!this.holds(offset, off, 12)) return this.fail(KarmemError.MalformedTable, offset, off);
    const at = offset + off;
    const o = this.ld<u32>(at);
    const len = this.ld<u32>(at + 4);
    const cap = this.ld<u32>(at + 8);
    if (!this.arrayOk(o, len, cap, elemSize, limit) || (cap == 0 && (o != 0 || len != 0))) {
      return this.fail(KarmemError.MalformedArray, at, 0);
    }
    this.aOff = o;
    this.aLen = len;
    this.aCap = cap;
    return KarmemError.None;
  }

  /**
   * Changes the length of the array field at `off` of the table at
   * `offset` to `n`, within its `limit` (`LimitExceeded`) and capacity
   * (`TooLarge`). The elements between the old and the new length are
   * zeroed first, both ways (§12): dropped ones so that a later growth
   * does not bring them back, exposed ones because a message from
   * elsewhere may hold anything in unused capacity.
   */
  setLen(offset: u32, off: u32, elemSize: u32, limit: u32, n: u32): KarmemError {
    const err = this.ref(offset, off, elemSize, limit);
    if (err != KarmemError.None) return err;
    const at = offset + off;
    if (n > limit) return this.fail(KarmemError.LimitExceeded, at, n);
    if (n > this.aCap) return this.fail(KarmemError.TooLarge, at, n);
    const lo = <usize>this.aOff + <usize>min(n, this.aLen) * <usize>elemSize;
    const hi = <usize>this.aOff + <usize>max(n, this.aLen) * <usize>elemSize;
    memory.fill(this.base + lo, 0, hi - lo);
    store<u32>(this.base + <usize>at, n, 4);
    return KarmemError.None;
  }

  /**
   * The elements (stored as `W`, read as `T`) of the plain array field at
   * `off` of the table at `offset`, writable in place; `null` when it is
   * refused (`fault` says why, as `ref` would return it).
   */
  elements<W, T>(offset: u32, off: u32, limit: u32): Elements<W, T> | null {
    this.fault = this.ref(offset, off, sizeof<W>(), limit);
    if (this.fault != KarmemError.None) return null;
    return new Elements<W, T>(this.base + <usize>this.aOff, this.aLen);
  }

  /** Why the last `elements` was refused (`None`: it was not). */
  fault: KarmemError = KarmemError.None;
}

/**
 * The `length` elements (stored as `W`, read as `T`) of a plain array of
 * an editor's message at address `_kmAt`, written in place (§12: an
 * element below `length`). The editor checked them when it made this,
 * and the address is kept, not the editor: opening the editor on another
 * message later does not move these writes there. The length is the
 * array's when this was made: after a `setLen`, ask the editor again.
 */
export class Elements<W, T> {
  constructor(public _kmAt: usize, public length: i32) {}

  /** Element `i`: zero past the end. */
  @operator("[]") get(i: i32): T {
    if (<u32>i >= <u32>this.length) return <T>0;
    return <T>load<W>(this._kmAt + <usize>i * sizeof<W>());
  }

  /** Stores `x` as element `i`; `TooLarge` past the end (nothing written). */
  set(i: i32, x: T): KarmemError {
    if (<u32>i >= <u32>this.length) return KarmemError.TooLarge;
    const at = this._kmAt + <usize>i * sizeof<W>();
    if (isBoolean<T>()) {
      store<u8>(at, x ? 1 : 0);
    } else {
      store<W>(at, <W>x);
    }
    return KarmemError.None;
  }
}

import { Decoder, type Value } from "./codec.js";
import { KarmemError } from "./errors.js";
import { type ArrayRef, EMPTY_ARRAY, type Reader, type Table, type TypedArray, has } from "./reader.js";
import { type Column, type Prim, type Schema, type Slot } from "./schema.js";

/**
 * An SoA array of structs seen in place (docs/format.md §5.3): the
 * directory is resolved once, when the view is made; `column(k)` is the
 * k-th column of the element (layout order) as a typed array over the
 * message when it holds scalars, and `get(i)` decodes element `i`.
 */
export class SoaView<T = Value> {
  readonly length: number;
  private readonly pos: readonly number[];
  private readonly cols: readonly Column[];

  constructor(
    private readonly r: Reader,
    private readonly s: Schema,
    private readonly elem: number,
    a: ArrayRef,
  ) {
    this.cols = s.structs[elem]!.soa ?? [];
    this.pos = r.soaColumns(a, this.cols)?.pos ?? [];
    this.length = a.len;
  }

  /** Column `k`'s values (scalar or enum leaves only; others: null). An
   * absent column is an empty array (a view of the message cannot hold a
   * default, §5.3). */
  column(k: number): TypedArray | null {
    const c = this.cols[k];
    if (c === undefined || (c.slot.k !== "scalar" && c.slot.k !== "enum")) return null;
    return this.r.scalars(c.slot.p, this.pos[k] ?? 0, (this.pos[k] ?? 0) === 0 ? 0 : this.length);
  }

  /** The SoA array held by column `k` (an array-of-structs leaf, e.g. a
   * path inside each monster) of element `i`, as a view of its own; an
   * empty view when the column is absent or holds something else. */
  nested<U = Value>(k: number, i: number): SoaView<U> {
    const c = this.cols[k];
    const at = this.pos[k] ?? 0;
    const ok = c !== undefined && c.slot.k === "array" && c.slot.a.d.k === "soa" && at !== 0 && i >= 0 && i < this.length;
    if (!ok || c.slot.k !== "array" || c.slot.a.d.k !== "soa") return new SoaView<U>(this.r, this.s, this.elem, EMPTY_ARRAY);
    const ref = this.r.array(at + i * c.size, 0, c.slot.a.limit);
    return new SoaView<U>(this.r, this.s, c.slot.a.d.s, ref);
  }

  /** Element `i`, decoded (every column it has read once). A column
   * whose decoding passes the limits of §10 (a hostile message) reads as
   * its zero value: a viewer never throws. */
  get(i: number): T {
    const d = new Decoder(this.s, this.r);
    const item = d.zeroStruct(this.elem);
    if (i < 0 || i >= this.length) return item as T;
    this.cols.forEach((c, k) => {
      const at = this.pos[k] ?? 0;
      const steps = c.path.map((idx, j) => this.s.structs[c.steps[j]!]!.fields[idx]!);
      const leaf = steps[steps.length - 1]!;
      if (at === 0) return;
      let place = item;
      for (let j = 0; j < steps.length - 1; j++) place = place[steps[j]!.js] as Record<string, unknown>;
      place[leaf.js] = withinLimits(d, () => d.slot(c.slot, at + i * c.size, true), c.slot);
    });
    return item as T;
  }
}

/** `read()`, or the zero value of `slot` when reading it exceeds the
 * traversal budget or the depth limit: what a viewer returns for a field
 * it decodes on access, so that a getter never throws (format.md §10
 * makes the decoder refuse such a message; a viewer reads it as zero, as
 * it reads any malformed part). */
function withinLimits(d: Decoder, read: () => Value, slot: Slot): Value {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof KarmemError)) throw e;
    // The zero value reads nothing: no budget, no depth.
    d.budget = Infinity;
    d.depth = 0;
    return d.slot(slot, 0, false);
  }
}

/** A plain array of scalars as a typed array (a view when aligned). */
export function arrayView(r: Reader, t: Table, off: number, p: Prim, size: number, limit: number | null): TypedArray {
  const a = r.fieldArray(t, off, size, limit);
  return r.scalars(p, a.offset, a.len);
}

/** The SoA array field at `off` of `t`. */
export function columnView<T>(r: Reader, s: Schema, t: Table, off: number, elem: number, limit: number | null): SoaView<T> {
  return new SoaView<T>(r, s, elem, r.fieldArray(t, off, 0, limit));
}

/** A field of any kind, decoded with a fresh traversal budget: what a
 * viewer returns for fields without a zero-copy form (unions, maps,
 * arrays of structs and of arrays). Over the limits of §10 it is the
 * field's zero value (`withinLimits`). */
export function readField(r: Reader, s: Schema, t: Table, off: number, size: number, slot: Slot): Value {
  const d = new Decoder(s, r);
  return withinLimits(d, () => d.slot(slot, t.offset + off, has(t, off, size)), slot);
}

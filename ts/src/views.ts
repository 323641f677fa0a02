import { type UnionValue, compareKeys, unionTarget } from "./codec.js";
import { type ArrayRef, EMPTY_ARRAY, EMPTY_TABLE, type Reader, type Table, type TypedArray } from "./reader.js";
import { type ArrayDesc, type Column, type Data, type FieldDesc, type Prim, type Schema, type Slot, elemSize, primSize } from "./schema.js";

/** Methods every array view has: a length, `get(i)` (out of range: the
 * zero value of an element), iteration. */
abstract class ListView<T> implements Iterable<T> {
  abstract readonly length: number;
  abstract get(i: number): T;

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }

  /** The elements as an array (each read now). */
  toArray(): T[] {
    return [...this];
  }
}

/**
 * An SoA array of structs seen in place (docs/format.md §5.3): the
 * directory is resolved once, when the view is made; `get(i)` is element
 * `i`'s item view (the generated `<Name>SoaItem`), whose getters read each
 * column of element `i` in place when called; `column(name)` is a column
 * of the element — named by its path of fields, `"stats.hp"` or as the
 * schema spells it, `"Stats.Hp"` — as a typed array over the message when
 * it holds scalars. A column may also be given by its index in layout
 * order (`columnIndex(name)`).
 */
export class SoaView<I = unknown> extends ListView<I> {
  readonly length: number;
  private readonly pos: readonly number[];
  private readonly cols: readonly Column[];

  constructor(
    /** The message, for the item views' loads. */
    readonly r: Reader,
    private readonly vw: Viewers,
    private readonly elem: number,
    a: ArrayRef,
  ) {
    super();
    this.cols = vw.s.structs[elem]!.soa ?? [];
    this.pos = r.soaColumns(a, this.cols)?.pos ?? [];
    this.length = a.len;
  }

  /** The index (layout order) of the column whose path of fields is
   * `name`, the property names joined by `.` (`"pos.x"`) or the schema's
   * field names (`"Pos.X"`); -1 when the element has no such column. */
  columnIndex(name: string): number {
    const s = this.vw.s;
    return this.cols.findIndex((c) => {
      const fields = c.path.map((idx, j) => s.structs[c.steps[j]!]!.fields[idx]!);
      return fields.map((f) => f.js).join(".") === name || fields.map((f) => f.name).join(".") === name;
    });
  }

  /** A column's values (scalar or enum leaves only; others: null), by
   * name (`columnIndex`) or index. An absent column is an empty array (a
   * view of the message cannot hold a default, §5.3). */
  column(k: number | string): TypedArray | null {
    if (typeof k === "string") k = this.columnIndex(k);
    const c = this.cols[k];
    if (c === undefined || (c.slot.k !== "scalar" && c.slot.k !== "enum")) return null;
    return this.r.scalars(c.slot.p, this.pos[k] ?? 0, (this.pos[k] ?? 0) === 0 ? 0 : this.length);
  }

  /** The SoA array held by column `k` (by name or index; an
   * array-of-structs leaf, e.g. a path inside each monster) of element `i`, as a view of its own; an
   * empty view when the column is absent or holds something else. */
  nested<U = unknown>(k: number | string, i: number): SoaView<U> {
    if (typeof k === "string") k = this.columnIndex(k);
    const c = this.cols[k];
    const at = this.at(k, i);
    if (c === undefined || c.slot.k !== "array" || c.slot.a.d.k !== "soa" || at === 0) {
      return new SoaView<U>(this.r, this.vw, this.elem, EMPTY_ARRAY);
    }
    return new SoaView<U>(this.r, this.vw, c.slot.a.d.s, this.r.array(at, 0, c.slot.a.limit));
  }

  /** Where column `k` (layout order) holds element `i`; 0 when the
   * directory does not list the column, the block is malformed or `i` is
   * out of range (the item view then reads the field's default). */
  at(k: number, i: number): number {
    const p = this.pos[k] ?? 0;
    return p === 0 || i < 0 || i >= this.length ? 0 : p + i * this.cols[k]!.size;
  }

  /** Column `k` of element `i` as a viewer reads a field of its slot
   * (`viewSlot`): what the item views' getters of other than scalar
   * columns return. */
  leaf(k: number, i: number): unknown {
    const at = this.at(k, i);
    return viewSlot(this.r, this.vw, this.cols[k]!.slot, at, at !== 0);
  }

  /** Element `i`'s item view (out of range: one that reads every field
   * as absent). */
  get(i: number): I {
    return this.vw.soa[this.elem]!(this, i) as I;
  }
}

/**
 * A fixed array `[N]T` (§4) in place: `length` is N, `at(i)` reads
 * element `i` from the message when called (a number, a `bigint`, a
 * boolean, or an inline struct's viewer). An absent field or an index out
 * of range reads as the element's zero value.
 */
export class FixedView<E = unknown> extends ListView<E> {
  readonly length: number;

  constructor(
    private readonly r: Reader,
    private readonly vw: Viewers,
    private readonly slot: { readonly e: Slot; readonly len: number; readonly stride: number },
    private readonly offset: number,
    private readonly present: boolean,
  ) {
    super();
    this.length = slot.len;
  }

  at(i: number): E {
    const ok = this.present && i >= 0 && i < this.length;
    return viewSlot(this.r, this.vw, this.slot.e, this.offset + i * this.slot.stride, ok) as E;
  }

  get(i: number): E {
    return this.at(i);
  }
}

/** A plain array of scalars as a typed array (a view when aligned). */
export function arrayView(r: Reader, t: Table, off: number, p: Prim, size: number, limit: number | null): TypedArray {
  const a = r.fieldArray(t, off, size, limit);
  return r.scalars(p, a.offset, a.len);
}

/** The SoA array field at `off` of `t`. */
export function columnView<I>(r: Reader, vw: Viewers, t: Table, off: number, elem: number, limit: number | null): SoaView<I> {
  return new SoaView<I>(r, vw, elem, r.fieldArray(t, off, 0, limit));
}

// ------------------------------------------------- views of every other kind

/** Makes the viewer of struct `id` over a table or inline struct: the
 * generated module's `<Name>Viewer` constructors, indexed like
 * `layout.structs`. */
export type ViewerOf = (r: Reader, t: Table) => unknown;

/** Makes the item view of element `i` of an SoA array of struct `id`
 * (the generated `<Name>SoaItem`), indexed like `layout.structs`. */
export type SoaItemOf = (s: SoaView, i: number) => unknown;

/** A schema's layout and its viewer constructors: what the views below
 * need to hand out generated viewers (the generated module's `viewers`). */
export interface Viewers {
  readonly s: Schema;
  readonly v: readonly ViewerOf[];
  /** Item views of SoA elements (null for a struct no SoA array holds). */
  readonly soa: readonly (SoaItemOf | null)[];
}

/**
 * The value of `slot` at `at` read in place (`present` false: the field
 * is absent and reads as its zero value): scalars as values, structs as
 * viewers, unions as `{ kind, value: viewer }`, arrays as views (text as a
 * string, scalars as a typed array, SoA as a `SoaView`, AoS as a
 * `StructArrayView`, arrays of arrays as an `ArraysView`, unions as a
 * `UnionArrayView`), maps as a `MapView`, fixed arrays as a `FixedView`,
 * optional values as null or the value's view. Nothing here throws on
 * message contents; a view is made in O(1) (a bunch table scans its
 * entries once, bounded by `maxDirectoryEntries`).
 */
export function viewSlot(r: Reader, vw: Viewers, slot: Slot, at: number, present: boolean): unknown {
  switch (slot.k) {
    case "scalar":
    case "enum":
      return present ? r.scalar(slot.p, at) : slot.p === "bool" ? false : slot.p === "u64" || slot.p === "i64" ? 0n : 0;
    case "inline":
      return vw.v[slot.s]!(r, r.inline(at, vw.s.structs[slot.s]!.size, present));
    case "table":
      return vw.v[slot.s]!(r, present ? r.table(r.u32(at)) : EMPTY_TABLE);
    case "otable": {
      const off = present ? r.u32(at) : 0;
      return off === 0 ? null : vw.v[slot.s]!(r, r.table(off));
    }
    case "union":
      return present ? viewUnion(r, vw, slot.u, at, at + 4) : null;
    case "array":
      return viewArray(r, vw, slot.a, present ? r.array(at, elemSize(slot.a.d), slot.a.limit) : EMPTY_ARRAY);
    case "fixed":
      return new FixedView(r, vw, slot, at, present);
    case "optional":
      // The presence byte, then the value at its own alignment (§4.2).
      return present && r.u8(at) !== 0 ? viewSlot(r, vw, slot.v, at + slot.at, true) : null;
  }
}

/** The array `ref` of `a` as a view (see `viewSlot`). */
export function viewArray(r: Reader, vw: Viewers, a: ArrayDesc, ref: ArrayRef): unknown {
  const d = a.d;
  if (a.map) return new MapView(r, vw, a, ref);
  if (a.text === "utf8") return r.text(ref);
  if (a.text === "utf16") return r.text16(ref);
  switch (d.k) {
    case "plain":
      return r.scalars((d.e as { p: Prim }).p, ref.offset, ref.len);
    case "soa":
      return new SoaView(r, vw, d.s, ref);
    case "aosInline":
    case "aosTable":
      return new StructArrayView(r, vw, d, ref);
    case "arrays":
      return new ArraysView(r, vw, d.a, ref);
    case "bunch":
    case "unionAos":
    case "unionSoa":
      return new UnionArrayView(r, vw, d, ref);
  }
}

/** The union of `u` whose tag is at `tagAt` and offset at `offAt`, with
 * the variant's viewer: null where the decoder reads null (`unionTarget`). */
export function viewUnion(r: Reader, vw: Viewers, u: number, tagAt: number, offAt: number): UnionValue | null {
  const to = unionTarget(vw.s, r, u, tagAt, offAt);
  return to === null ? null : { kind: vw.s.structs[to.s]!.ts, value: vw.v[to.s]!(r, to.t) };
}

/** What an AoS array of structs holds: inline elements or table offsets. */
type StructData = { readonly k: "aosInline"; readonly s: number; readonly stride: number } | { readonly k: "aosTable"; readonly s: number };

/** An AoS array of structs (inline elements or table offsets, §5.2) in
 * place: `get(i)` is element `i`'s viewer. */
export class StructArrayView<V = unknown> extends ListView<V> {
  readonly length: number;

  constructor(
    private readonly r: Reader,
    private readonly vw: Viewers,
    private readonly d: StructData,
    private readonly ref: ArrayRef,
  ) {
    super();
    this.length = ref.len;
  }

  get(i: number): V {
    const { r, d, ref } = this;
    const ok = i >= 0 && i < ref.len;
    if (d.k === "aosTable") return this.vw.v[d.s]!(r, ok ? r.table(r.u32(ref.offset + 4 * i)) : EMPTY_TABLE) as V;
    return this.vw.v[d.s]!(r, ok ? { offset: ref.offset + i * d.stride, used: d.stride } : EMPTY_TABLE) as V;
  }
}

/** An array of arrays (§5.4) in place: `get(i)` is the view of inner
 * array `i` (a string, a typed array, a view; see `viewSlot`). */
export class ArraysView<E = unknown> extends ListView<E> {
  readonly length: number;

  constructor(
    private readonly r: Reader,
    private readonly vw: Viewers,
    private readonly inner: ArrayDesc,
    private readonly ref: ArrayRef,
  ) {
    super();
    this.length = ref.len;
  }

  get(i: number): E {
    const { r, inner, ref } = this;
    const a = i >= 0 && i < ref.len ? r.array(ref.offset + 12 * i, elemSize(inner.d), inner.limit) : EMPTY_ARRAY;
    return viewArray(r, this.vw, inner, a) as E;
  }
}

/** An array of unions in place (§7.1): AoS slots, SoA tag and offset
 * columns, or a bunch table (`#bovoa`, `#bovos`: elements grouped by
 * variant in declaration order, as decoding gives them). `get(i)` is
 * `{ kind, value }` or null, the value a viewer, or an SoA item view for
 * a `#bovos` variant; `variant(kind)` is one variant's whole array as its
 * view (`StructArrayView` or `SoaView`), made once with the array's view. */
export class UnionArrayView<U = UnionValue | null> extends ListView<U> {
  readonly length: number;
  /** SoA: the columns. */
  private readonly cols: { tags: number; offsets: number } | null = null;
  /** Bunch: per variant of this schema, its name and its array's view. */
  private readonly parts: { kind: string; view: StructArrayView | SoaView }[] = [];

  constructor(
    private readonly r: Reader,
    private readonly vw: Viewers,
    private readonly d: Data,
    private readonly ref: ArrayRef,
  ) {
    super();
    if (d.k === "unionSoa") {
      this.cols = r.unionColumns(ref, primSize(vw.s.unions[d.u]!.tag));
      this.length = this.cols === null ? 0 : ref.len;
    } else if (d.k === "bunch") {
      // A variant without an entry, or a malformed table: an empty array.
      const k = r.bunchEntries(ref);
      for (const bv of d.v) {
        const a = k >= 0 ? r.bunchEntry(ref, k, bv.tag, elemSize(bv.d)) : EMPTY_ARRAY;
        const view = bv.d.k === "soa" ? new SoaView(r, vw, bv.d.s, a) : new StructArrayView(r, vw, bv.d as StructData, a);
        this.parts.push({ kind: vw.s.structs[bv.s]!.ts, view });
      }
      this.length = this.parts.reduce((n, p) => n + p.view.length, 0);
    } else {
      this.length = ref.len;
    }
  }

  get(i: number): U {
    const { r, vw, d, ref } = this;
    if (i < 0 || i >= this.length) return null as U;
    if (d.k === "unionAos") return viewUnion(r, vw, d.u, ref.offset + 8 * i, ref.offset + 8 * i + 4) as U;
    if (d.k === "unionSoa") {
      const tw = primSize(vw.s.unions[d.u]!.tag);
      return viewUnion(r, vw, d.u, this.cols!.tags + i * tw, this.cols!.offsets + 4 * i) as U;
    }
    for (const p of this.parts) {
      if (i < p.view.length) return { kind: p.kind, value: p.view.get(i) } as U;
      i -= p.view.length;
    }
    return null as U;
  }

  /** A bunch array's elements of variant `kind` (the variant's type
   * name), as one view; undefined for other arrays and unknown kinds. */
  variant(kind: string): StructArrayView | SoaView | undefined {
    return this.parts.find((p) => p.kind === kind)?.view;
  }
}

const keyBytes = new TextEncoder();

/**
 * A map (§5.5) in place: entries sorted by key, read on access. `get(key)`
 * finds a key by binary search (O(log n) keys read; text keys compared as
 * UTF-8 bytes, without decoding them), `key(i)` and `value(i)` read entry
 * `i`, iteration gives `[key, value]` pairs in key order. A malformed map
 * is empty; a map whose keys are out of order (which a validator refuses)
 * may not find a key that iteration shows.
 */
export class MapView<K = unknown, V = unknown> implements Iterable<[K, V]> {
  readonly size: number;
  private readonly stride: number;
  private readonly key0: FieldDesc;
  private readonly val0: FieldDesc;

  constructor(
    private readonly r: Reader,
    private readonly vw: Viewers,
    a: ArrayDesc,
    private readonly ref: ArrayRef,
  ) {
    const d = a.d as { k: "aosInline"; s: number; stride: number };
    const st = vw.s.structs[d.s]!;
    this.stride = d.stride;
    this.key0 = st.fields[0]!;
    this.val0 = st.fields[1]!;
    this.size = ref.len;
  }

  private at(i: number): number {
    return this.ref.offset + i * this.stride;
  }

  /** Entry `i`'s key (out of range: the key type's zero value). */
  key(i: number): K {
    const ok = i >= 0 && i < this.size;
    return viewSlot(this.r, this.vw, this.key0.slot, this.at(i) + this.key0.off, ok) as K;
  }

  /** Entry `i`'s value (out of range: the zero value or an empty view). */
  value(i: number): V {
    const ok = i >= 0 && i < this.size;
    return viewSlot(this.r, this.vw, this.val0.slot, this.at(i) + this.val0.off, ok) as V;
  }

  /** The index of `key`, or -1. */
  indexOf(key: K): number {
    const ks = this.key0.slot;
    const utf8 = typeof key === "string" && ks.k === "array" && ks.a.text === "utf8" ? keyBytes.encode(key) : null;
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = utf8 !== null ? this.compareText(mid, utf8) : compareKeys(this.key(mid), key);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Entry `i`'s UTF-8 key against `want`, byte by byte in the message. */
  private compareText(i: number, want: Uint8Array): number {
    const ks = this.key0.slot as { k: "array"; a: ArrayDesc };
    const b = this.r.arrayBytes(this.r.array(this.at(i) + this.key0.off, 1, ks.a.limit));
    const n = Math.min(b.length, want.length);
    for (let j = 0; j < n; j++) if (b[j] !== want[j]) return b[j]! - want[j]!;
    return b.length - want.length;
  }

  has(key: K): boolean {
    return this.indexOf(key) >= 0;
  }

  /** The value of `key`, or undefined when the map does not have it. */
  get(key: K): V | undefined {
    const i = this.indexOf(key);
    return i < 0 ? undefined : this.value(i);
  }

  *keys(): IterableIterator<K> {
    for (let i = 0; i < this.size; i++) yield this.key(i);
  }

  *[Symbol.iterator](): Iterator<[K, V]> {
    for (let i = 0; i < this.size; i++) yield [this.key(i), this.value(i)];
  }
}

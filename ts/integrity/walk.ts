// The consumer of docs/integrity.md §3 for the TypeScript member: the
// root walked with the generated checked viewers, in the consumer's field
// order, into the canonical stream.
//
// The TypeScript viewers read every kind in place (arrays of structs,
// unions, fixed arrays and arrays as views with `get`, maps as MapView,
// SoA elements as item views); the walk also takes decoded values (`Seq`,
// `Entries`), since the values are what the digest is about. Two things
// the union viewers do not say are read from the message with the
// library's checked Reader at the layout's positions instead: the tag of a
// union value this version does not know (null, like no value, while §3
// feeds the tag) and the total length of a bunch array (whose view holds
// the known variants only).

import * as karmem from "karmem";
import { Sink } from "./sink.js";

// ---- the views read, as structural types: both versions' viewers (and
// the decoded objects, which have the same property names) satisfy them;
// what only new.km has is optional and read when `newer` ----

interface Vec3Like {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

interface ItemLike {
  readonly id: number;
  readonly name: string;
  readonly pos: Vec3Like;
  readonly tags: Seq<string>;
  readonly score?: bigint;
  readonly notes?: Seq<string>;
}

interface DotLike {
  readonly hue: number;
  readonly at: Vec3Like;
}

interface CircleLike {
  readonly radius: number;
  readonly label: string;
}

interface StarLike {
  readonly points: number;
}

type ShapeLike = { readonly kind: string; readonly value: unknown } | null;

interface Indexed<T> {
  readonly length: number;
  get(i: number): T;
}

/** A sequence as the viewers give it: a view with `get` (arrays of
 * structs, unions and arrays read in place) or a JavaScript array or typed
 * array (native columns). */
type Seq<T> = Indexed<T> | ArrayLike<T>;

function isIndexed<T>(a: Seq<T>): a is Indexed<T> {
  return typeof (a as Partial<Indexed<T>>).get === "function";
}

function items<T>(a: Seq<T>): T[] {
  return isIndexed(a) ? Array.from({ length: a.length }, (_, i) => a.get(i)) : Array.from(a);
}

/** A map as its viewer gives it (or as a decoded Map): entries in stored
 * order. */
interface Entries<K, V> {
  readonly size: number;
  [Symbol.iterator](): Iterator<[K, V]>;
}

export interface RootLike {
  readonly $r: karmem.Reader;
  readonly $t: karmem.Table;
  readonly u8: number;
  readonly i8: number;
  readonly u16: number;
  readonly i16: number;
  readonly u32: number;
  readonly i32: number;
  readonly u64: bigint;
  readonly i64: bigint;
  readonly f32: number;
  readonly f64: number;
  readonly flag: boolean;
  readonly hue: number;
  readonly name: string;
  readonly wide: string;
  readonly pos: Vec3Like;
  readonly fixed: Seq<number>;
  readonly small: Uint8Array;
  readonly bytes: Uint8Array;
  readonly colors: Uint8Array;
  readonly soaPoints: Indexed<Vec3Like>;
  readonly aosPoints: Seq<Vec3Like>;
  readonly soaItems: Indexed<ItemLike>;
  readonly aosItems: Seq<ItemLike>;
  readonly dots: Indexed<DotLike>;
  readonly shape: ShapeLike;
  readonly aosShapes: Seq<ShapeLike>;
  readonly soaShapes: Seq<ShapeLike>;
  readonly bovoaShapes: Seq<ShapeLike>;
  readonly bovosShapes: Seq<ShapeLike>;
  readonly maybeU32: number | null;
  readonly maybeName: string | null;
  readonly maybeItem: ItemLike | null;
  readonly lookup: Entries<string, number>;
  readonly byId: Entries<number, ItemLike>;
  readonly grid: Seq<ArrayLike<number>>;
  readonly pair: { readonly f0: number; readonly f1: string };
  readonly hp: number;
  readonly level?: number;
  readonly extra?: bigint;
  readonly more?: Indexed<ItemLike>;
}

/** A version's consumer: its layout (for the tags) and whether it is new.km. */
export interface Reads {
  readonly newer: boolean;
  readonly layout: karmem.Schema;
}

/** A value new.km must have: its viewers always give one. */
function must<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new Error(`the new version's viewer has no ${what}`);
  return x;
}

const CIRCLE = 1;
const DOT = 2;
const STAR = 3;

class Walker {
  constructor(
    private readonly s: Sink,
    private readonly v: Reads,
  ) {}

  vec3(p: Vec3Like): void {
    this.s.f32(p.x);
    this.s.f32(p.y);
    this.s.f32(p.z);
  }

  texts(a: Seq<string>): void {
    const all = items(a);
    this.s.u32(all.length);
    for (const t of all) this.s.text(t);
  }

  item(it: ItemLike): void {
    this.s.u32(it.id);
    this.s.text(it.name);
    this.vec3(it.pos);
    this.texts(it.tags);
    if (this.v.newer) {
      this.s.i64(must(it.score, "Item.Score"));
      this.texts(must(it.notes, "Item.Notes"));
    }
  }

  dot(d: DotLike): void {
    this.s.u8(d.hue);
    this.vec3(d.at);
  }

  circle(c: CircleLike): void {
    this.s.f64(c.radius);
    this.s.text(c.label);
  }

  star(st: StarLike): void {
    this.s.u8(st.points);
  }

  /** The tag, then the fields of a variant this version knows (value is
   * its decoded value; a tag it does not know is fed alone). */
  shape(tag: number, value: ShapeLike): void {
    this.s.u32(tag);
    const x = value?.value;
    if (x === undefined) return;
    if (tag === CIRCLE) this.circle(x as CircleLike);
    else if (tag === DOT) this.dot(x as DotLike);
    else if (tag === STAR && this.v.newer) this.star(x as StarLike);
  }

  each<T>(a: Indexed<T>, one: (x: T) => void): void {
    this.s.u32(a.length);
    for (let i = 0; i < a.length; i++) one(a.get(i));
  }

  list<T>(a: Seq<T>, one: (x: T) => void): void {
    const all = items(a);
    this.s.u32(all.length);
    for (const x of all) one(x);
  }

  shapes(tags: readonly number[], values: Seq<ShapeLike>): void {
    const all = items(values);
    this.s.u32(tags.length);
    tags.forEach((tag, i) => this.shape(tag, all[i] ?? null));
  }

  /** A bunch array: the total length, then each variant this version
   * knows, in declaration order, as its tag, its count and its elements. */
  bunch(total: number, values: Seq<ShapeLike>): void {
    this.s.u32(total);
    const variants: [number, string, (x: unknown) => void][] = [
      [CIRCLE, "Circle", (x) => this.circle(x as CircleLike)],
      [DOT, "Dot", (x) => this.dot(x as DotLike)],
    ];
    if (this.v.newer) variants.push([STAR, "Star", (x) => this.star(x as StarLike)]);
    for (const [tag, kind, one] of variants) {
      const group = items(values).filter((x) => x?.kind === kind);
      this.s.u32(tag);
      this.list(group, (x) => one(x?.value));
    }
  }

  root(v: RootLike): void {
    const s = this.s;
    const raw = new RawRead(v, this.v.layout);
    s.u8(v.u8);
    s.i8(v.i8);
    s.u16(v.u16);
    s.i16(v.i16);
    s.u32(v.u32);
    s.i32(v.i32);
    s.u64(v.u64);
    s.i64(v.i64);
    s.f32(v.f32);
    s.f64(v.f64);
    s.bool(v.flag);
    s.u8(v.hue);
    s.text(v.name);
    s.units(v.wide);
    this.vec3(v.pos);
    for (const x of items(v.fixed)) s.i16(x);
    s.raw(v.small);
    s.raw(v.bytes);
    s.raw(v.colors);
    this.each(v.soaPoints, (p) => this.vec3(p));
    this.list(v.aosPoints, (p) => this.vec3(p));
    this.each(v.soaItems, (it) => this.item(it));
    this.list(v.aosItems, (it) => this.item(it));
    this.each(v.dots, (d) => this.dot(d));
    this.shape(raw.unionTag("Shape"), v.shape);
    this.shapes(raw.unionTags("AosShapes"), v.aosShapes);
    this.shapes(raw.unionTags("SoaShapes"), v.soaShapes);
    this.bunch(raw.arrayLength("BovoaShapes"), v.bovoaShapes);
    this.bunch(raw.arrayLength("BovosShapes"), v.bovosShapes);
    const n = v.maybeU32;
    s.bool(n !== null);
    if (n !== null) s.u32(n);
    const name = v.maybeName;
    s.bool(name !== null);
    if (name !== null) s.text(name);
    const item = v.maybeItem;
    s.bool(item !== null);
    if (item !== null) this.item(item);
    // Maps decode in stored order (the keys' order), as a Map keeps it.
    s.u32(v.lookup.size);
    for (const [k, x] of v.lookup) {
      s.text(k);
      s.u32(x);
    }
    s.u32(v.byId.size);
    for (const [k, it] of v.byId) {
      s.u16(k);
      this.item(it);
    }
    this.list(v.grid, (row) => this.list(row, (x) => s.f32(x)));
    const pair = v.pair;
    s.u16(pair.f0);
    s.text(pair.f1);
    s.u16(v.hp);
    if (this.v.newer) {
      s.u8(must(v.level, "Root.Level"));
      s.u64(must(v.extra, "Root.Extra"));
      this.each(must(v.more, "Root.More"), (it) => this.item(it));
    }
  }
}

const TAG_SIZES: Partial<Record<karmem.Prim, number>> = { u8: 1, u16: 2, u32: 4 };

/** What the union viewers do not say, read with the checked Reader at
 * the positions the layout gives (absent or malformed: 0 and empty, as
 * the other languages' viewers read them). */
class RawRead {
  private readonly fields: readonly karmem.FieldDesc[];

  constructor(
    private readonly v: RootLike,
    private readonly layout: karmem.Schema,
  ) {
    const root = layout.structs.find((x) => x.name === "Root");
    if (root === undefined) throw new Error("the layout has no Root");
    this.fields = root.fields;
  }

  private field(name: string): karmem.FieldDesc {
    const f = this.fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`Root has no field ${name}`);
    return f;
  }

  private tagPrim(u: number): karmem.Prim {
    const ud = this.layout.unions[u];
    if (ud === undefined) throw new Error(`no union ${u}`);
    return ud.tag;
  }

  private tagAt(p: karmem.Prim, at: number): number {
    return Number(this.v.$r.scalar(p, at));
  }

  /** The tag of a union field. */
  unionTag(name: string): number {
    const f = this.field(name);
    if (f.slot.k !== "union") throw new Error(`${name} is not a union`);
    return karmem.has(this.v.$t, f.off, 8) ? this.tagAt(this.tagPrim(f.slot.u), this.v.$t.offset + f.off) : 0;
  }

  /** The tags of an AoS or SoA array of unions. */
  unionTags(name: string): number[] {
    const f = this.field(name);
    if (f.slot.k !== "array") throw new Error(`${name} is not an array`);
    const a = f.slot.a;
    const d = a.d;
    const r = this.v.$r;
    if (d.k === "unionAos") {
      const p = this.tagPrim(d.u);
      const ref = r.fieldArray(this.v.$t, f.off, 8, a.limit);
      return Array.from({ length: ref.len }, (_, i) => this.tagAt(p, ref.offset + 8 * i));
    }
    if (d.k === "unionSoa") {
      const p = this.tagPrim(d.u);
      const size = TAG_SIZES[p] ?? 1;
      const ref = r.fieldArray(this.v.$t, f.off, 0, a.limit);
      const cols = r.unionColumns(ref, size);
      if (cols === null) return [];
      return Array.from({ length: ref.len }, (_, i) => this.tagAt(p, cols.tags + size * i));
    }
    throw new Error(`${name} is not an array of unions`);
  }

  /** The length of an array field, as its reference gives it. */
  arrayLength(name: string): number {
    const f = this.field(name);
    if (f.slot.k !== "array") throw new Error(`${name} is not an array`);
    return this.v.$r.fieldArray(this.v.$t, f.off, karmem.elemSize(f.slot.a.d), f.slot.a.limit).len;
  }
}

/** The canonical stream of a validated message's root viewer. */
export function walkRoot(root: RootLike, v: Reads): Uint8Array {
  const s = new Sink();
  new Walker(s, v).root(root);
  return s.bytes();
}

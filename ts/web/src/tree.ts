// The value of a message as a tree of nodes, each with the bytes it came
// from where they can be told. The value itself is the library's decoder's
// (`karmem.Decoder`): this module only subclasses it to remember where each
// struct it decoded sits in the message, then walks the value beside the
// schema's layout tables, reading array references again with the same
// checked reader to place array blocks and their elements. Nothing in the
// library changes, so none of this costs a program that does not use it.
import * as karmem from "karmem";

/** Bytes `[start, end)` of the message. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

export type NodeKind = "struct" | "union" | "map" | "array" | "leaf";

export interface TreeNode {
  /** Field name, `[i]` for an element, the key for a map entry. */
  readonly label: string;
  /** The schema's spelling of the type (`u64`, `[]Profile`, `map<string, u32>`). */
  readonly type: string;
  readonly kind: NodeKind;
  /** A leaf's value as text (64-bit integers exact, text JSON-quoted). */
  readonly value?: string;
  /** A map entry's key as the vectors' JSON writes it (text unquoted). */
  readonly key?: string;
  /** A union's case: the variant's struct name, or null for no value. */
  readonly variant?: string | null;
  /** Elements of an array or entries of a map. */
  readonly count?: number;
  /** Where this came from, when known. */
  readonly range?: Range;
  /** Absent from an older message: the zero value or the declared default. */
  readonly absent?: boolean;
  readonly children: readonly TreeNode[];
}

type Obj = Record<string, unknown>;

/** The library's decoder, remembering the position of every struct it
 * decodes (tables and inline structs; absent ones have none). */
class PlacingDecoder extends karmem.Decoder {
  readonly placed = new WeakMap<object, Range>();

  override table(id: number, t: karmem.Table): Obj {
    const o = super.table(id, t);
    if (t.used > 0) this.placed.set(o, { start: t.offset, end: t.offset + t.used });
    return o;
  }

  // Called for inline structs in the message only: an absent one is a
  // zero value the decoder builds without reading.
  override inline(id: number, at: number): Obj {
    const o = super.inline(id, at);
    this.placed.set(o, { start: at, end: at + this.s.structs[id]!.size });
    return o;
  }
}

/** Decodes `bytes` as struct `root` of `schema` (as `karmem.decode` does:
 * a `KarmemError` for a bad header, the depth limit or the budget) and
 * returns the value's tree. */
export function decodeTree(schema: karmem.Schema, root: number, bytes: Uint8Array): TreeNode {
  const r = new karmem.Reader(bytes).check();
  const d = new PlacingDecoder(schema, r);
  const st = schema.structs[root]!;
  let value: Obj;
  if (st.table) value = d.table(root, r.root());
  else {
    const t = r.inline(8, st.size);
    if (t.used !== 0) value = d.inline(root, t.offset);
    else {
      // An inline root that does not fit reads as all zero, charged as
      // `karmem.decode` charges it (format.md §10).
      if (st.zero > 0) d.charge(st.zero);
      value = d.zeroStruct(root);
    }
  }
  return new Walker(schema, r, d.placed).struct("root", root, value);
}

const span = (start: number, size: number): Range => ({ start, end: start + size });

class Walker {
  constructor(
    private readonly s: karmem.Schema,
    private readonly r: karmem.Reader,
    private readonly placed: WeakMap<object, Range>,
  ) {}

  struct(label: string, id: number, value: unknown, range?: Range): TreeNode {
    const st = this.s.structs[id]!;
    const o = (value ?? {}) as Obj;
    const at = this.placed.get(o);
    const children = st.fields.map((f) => {
      // A table field is there when the table's used bytes cover it (§4).
      const present = at !== undefined && f.off + f.size <= at.end - at.start;
      const node = this.slot(f.name, f.slot, o[f.js], present ? at.start + f.off : null);
      return at !== undefined && !present ? { ...node, absent: true } : node;
    });
    return { label, type: st.name, kind: "struct", children, ...place(at ?? range) };
  }

  /** A value of `slot` whose bytes start at `at` (null: not in the message). */
  slot(label: string, slot: karmem.Slot, v: unknown, at: number | null): TreeNode {
    const here = at === null ? undefined : span(at, slotSize(this.s, slot));
    switch (slot.k) {
      case "scalar":
      case "enum":
        return { label, type: this.typeOf(slot), kind: "leaf", value: this.scalar(slot, v), children: [], ...place(here) };
      case "inline":
      case "table":
        return { ...this.struct(label, slot.s, v, here), label };
      case "otable":
        if (v === null) return { label, type: this.typeOf(slot), kind: "leaf", value: "null", children: [], ...place(here) };
        return { ...this.struct(label, slot.s, v), type: this.typeOf(slot) };
      case "optional":
        if (v === null) return { label, type: this.typeOf(slot), kind: "leaf", value: "null", children: [], ...place(here) };
        return { ...this.slot(label, slot.v, v, at === null ? null : at + slot.at), type: this.typeOf(slot) };
      case "union":
        return { ...this.union(label, slot.u, v), ...place(here) };
      case "fixed": {
        const items = v as readonly unknown[];
        const children = items.map((x, j) => this.slot(`[${j}]`, slot.e, x, at === null ? null : at + j * slot.stride));
        return { label, type: this.typeOf(slot), kind: "array", count: items.length, children, ...place(here) };
      }
      case "array":
        return this.array(label, slot.a, v, at);
    }
  }

  union(label: string, u: number, v: unknown): TreeNode {
    const type = this.s.unions[u]!.name;
    if (v === null || v === undefined) return { label, type, kind: "union", variant: null, value: "null", children: [] };
    const uv = v as karmem.UnionValue;
    const id = this.s.structs.findIndex((x) => x.ts === uv.kind);
    const inner = this.struct(this.s.structs[id]!.name, id, uv.value);
    return { label, type, kind: "union", variant: inner.label, children: [inner] };
  }

  /** An array field or element whose 12-byte reference is at `at`. */
  array(label: string, a: karmem.ArrayDesc, v: unknown, at: number | null): TreeNode {
    const type = this.arrayType(a);
    const es = karmem.elemSize(a.d);
    // The same checked read the decoder made: a malformed reference is empty.
    const ref = at === null ? karmem.EMPTY_ARRAY : this.r.array(at, es, a.limit);
    const block = ref.cap > 0 && es > 0 ? span(ref.offset, ref.cap * es) : undefined;
    const here = at === null ? undefined : span(at, 12);
    if (a.text !== null) {
      return { label, type, kind: "leaf", value: JSON.stringify(v), count: ref.len, children: [], ...place(block ?? here) };
    }
    const d = a.d;
    if (a.map) {
      const e = d as { k: "aosInline"; s: number; stride: number };
      const st = this.s.structs[e.s]!;
      const [kf, vf] = [st.fields[0]!, st.fields[1]!];
      const m = v as Map<unknown, unknown>;
      // Entries are in message order; duplicate keys (refused by a
      // validator) would shift them, so then no entry gets a position.
      const exact = m.size === ref.len;
      const children = [...m.entries()].map(([k, x], i) => {
        const pos = exact ? ref.offset + i * e.stride : null;
        const keyNode = this.slot(kf.name, kf.slot, k, pos === null ? null : pos + kf.off);
        const valNode = this.slot(vf.name, vf.slot, x, pos === null ? null : pos + vf.off);
        const key = typeof k === "string" ? k : (keyNode.value ?? "").replace(/ \(.*\)$/, "");
        return { ...valNode, label: keyNode.value ?? "", key, ...place(pos === null ? undefined : span(pos, e.stride)) };
      });
      return { label, type, kind: "map", count: m.size, children, ...place(block ?? here) };
    }
    const items = v as readonly unknown[];
    const elem = (i: number): number | null => (block === undefined ? null : ref.offset + i * es);
    let children: TreeNode[];
    switch (d.k) {
      case "plain":
        children = items.map((x, i) => this.slot(`[${i}]`, d.e, x, elem(i)));
        break;
      case "aosInline":
        children = items.map((x, i) => this.struct(`[${i}]`, d.s, x));
        break;
      case "aosTable":
        children = items.map((x, i) => {
          const pos = elem(i);
          return this.struct(`[${i}]`, d.s, x, pos === null ? undefined : span(pos, 4));
        });
        break;
      case "arrays":
        children = items.map((x, i) => this.array(`[${i}]`, d.a, x, elem(i)));
        break;
      case "unionAos":
        children = items.map((x, i) => ({ ...this.union(`[${i}]`, d.u, x), ...place(block && span(elem(i)!, 8)) }));
        break;
      case "unionSoa":
      case "bunch":
        children = items.map((x, i) => this.union(`[${i}]`, d.u, x));
        break;
      case "soa":
        // An SoA element is spread over its columns: neither it nor its
        // fields have one place to point at.
        children = items.map((x, i) => this.struct(`[${i}]`, d.s, x));
        break;
    }
    return { label, type, kind: "array", count: items.length, children, ...place(block ?? here) };
  }

  scalar(slot: { k: "scalar" | "enum"; p: karmem.Prim; e?: number }, v: unknown): string {
    if (slot.k === "enum") {
      const named = this.s.enums[slot.e!]!.values.find(([, n]) => n === v);
      return named === undefined ? String(v) : `${named[0]} (${String(v)})`;
    }
    if (slot.p === "f32" || slot.p === "f64") return formatFloat(v as number);
    return String(v);
  }

  typeOf(slot: karmem.Slot): string {
    switch (slot.k) {
      case "scalar":
        return slot.p;
      case "enum":
        return this.s.enums[slot.e]!.name;
      case "inline":
      case "table":
        return this.s.structs[slot.s]!.name;
      case "otable":
        return `?${this.s.structs[slot.s]!.name}`;
      case "optional":
        return `?${this.typeOf(slot.v)}`;
      case "union":
        return this.s.unions[slot.u]!.name;
      case "fixed":
        return `[${slot.len}]${this.typeOf(slot.e)}`;
      case "array":
        return this.arrayType(slot.a);
    }
  }

  arrayType(a: karmem.ArrayDesc): string {
    const n = a.limit === null ? "[]" : `[<${a.limit}]`;
    if (a.text === "utf8") return `${n}char`;
    if (a.text === "utf16") return `${n}u16 @string`;
    const d = a.d;
    if (a.map) {
      const st = this.s.structs[(d as { s: number }).s]!;
      return `map<${this.typeOf(st.fields[0]!.slot)}, ${this.typeOf(st.fields[1]!.slot)}>`;
    }
    switch (d.k) {
      case "plain":
        return n + this.typeOf(d.e);
      case "aosInline":
      case "aosTable":
        return `${n}${this.s.structs[d.s]!.name} #aos`;
      case "soa":
        return `${n}${this.s.structs[d.s]!.name} #soa`;
      case "arrays":
        return n + this.arrayType(d.a);
      case "unionAos":
        return `${n}${this.s.unions[d.u]!.name} #aos`;
      case "unionSoa":
        return `${n}${this.s.unions[d.u]!.name} #soa`;
      case "bunch":
        return `${n}${this.s.unions[d.u]!.name} #bunch`;
    }
  }
}

/** The bytes a slot takes in its struct. */
function slotSize(s: karmem.Schema, slot: karmem.Slot): number {
  switch (slot.k) {
    case "scalar":
    case "enum":
      return karmem.primSize(slot.p);
    case "inline":
      return s.structs[slot.s]!.size;
    case "table":
    case "otable":
      return 4;
    case "optional":
      return slot.at + slotSize(s, slot.v);
    case "union":
      return 8;
    case "fixed":
      return slot.len * slot.stride;
    case "array":
      return 12;
  }
}

function place(range: Range | undefined): { range?: Range } {
  return range === undefined ? {} : { range };
}

/** A float as the vectors' JSON writes it: `1.0`, `-0.0`, `NaN`. */
export function formatFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (Object.is(x, -0)) return "-0.0";
  const t = String(x);
  return /[.e]/.test(t) ? t : `${t}.0`;
}

/**
 * The layout contract as data. `karmem build --lang ts` prints, for every
 * schema, one `Schema` value computed by the Rust layout crate
 * (crates/karmem-layout): every offset, size, column hash and header word
 * below comes from there, none is computed in TypeScript. The library's
 * encoder, decoder and validator walk these tables (RATIONALE.md R12.2).
 */

/** Wire scalar types (docs/format.md §2). */
export type Prim = "u8" | "i8" | "bool" | "u16" | "i16" | "u32" | "i32" | "f32" | "u64" | "i64" | "f64";

/** What sits in a field's bytes (crates/karmem-layout `Slot`). */
export type Slot =
  | { readonly k: "scalar"; readonly p: Prim }
  | { readonly k: "enum"; readonly p: Prim; readonly e: number }
  /** An inline struct embedded in place. */
  | { readonly k: "inline"; readonly s: number }
  /** A `u32` offset to a table. */
  | { readonly k: "table"; readonly s: number }
  /** `?T` of a table: offset 0 is no value (§4.2). */
  | { readonly k: "otable"; readonly s: number }
  /** `?X`: a presence byte, the value at `at` (§4.2). */
  | { readonly k: "optional"; readonly at: number; readonly v: Slot }
  /** An 8-byte union slot (§7). */
  | { readonly k: "union"; readonly u: number }
  /** `[len]T` embedded; `e` is a scalar, enum or inline slot. */
  | { readonly k: "fixed"; readonly e: Slot; readonly len: number; readonly stride: number }
  /** A 12-byte array reference (§5). */
  | { readonly k: "array"; readonly a: ArrayDesc };

/** A dynamic or limited array: its limit, text encoding and block. */
export interface ArrayDesc {
  /** `[<N]T`: N; `null` for `[]T`. */
  readonly limit: number | null;
  /** Text arrays: UTF-8 (`char`, `u8 @string`) or UTF-16 (`u16 @string`). */
  readonly text: "utf8" | "utf16" | null;
  /** A `map<K, V>`: the block is AoS of `{Key, Value}` entries (§5.5). */
  readonly map: boolean;
  readonly d: Data;
}

/** What an array block holds (crates/karmem-layout `ArrayData`). */
export type Data =
  | { readonly k: "plain"; readonly size: number; readonly e: Slot }
  | { readonly k: "aosInline"; readonly s: number; readonly stride: number }
  | { readonly k: "aosTable"; readonly s: number }
  | { readonly k: "soa"; readonly s: number }
  | { readonly k: "unionAos"; readonly u: number }
  | { readonly k: "arrays"; readonly a: ArrayDesc }
  | { readonly k: "unionSoa"; readonly u: number }
  | { readonly k: "bunch"; readonly u: number; readonly v: readonly BunchVariant[] };

export interface BunchVariant {
  readonly tag: number;
  readonly s: number;
  /** `aosInline`, `aosTable` or `soa`. */
  readonly d: Data;
}

/** A decoded value's default for a field (docs/idl.md §4.3.1). */
export type Default = number | bigint | boolean | string;

export interface FieldDesc {
  /** The schema's field name (JSON, vectors). */
  readonly name: string;
  /** The TypeScript property name (camelCase). */
  readonly js: string;
  readonly off: number;
  readonly size: number;
  readonly slot: Slot;
  readonly def?: Default;
}

export interface Column {
  readonly hash: number;
  readonly size: number;
  /** Declaration indices from the element down to the leaf (§5.3). */
  readonly path: readonly number[];
  /** The structs walked, parallel to `path`. */
  readonly steps: readonly number[];
  readonly slot: Slot;
}

export interface StructDesc {
  /** The schema's name. */
  readonly name: string;
  /** The TypeScript type name. */
  readonly ts: string;
  readonly table: boolean;
  /** A tuple (docs/idl.md §3.3): an array in JSON. */
  readonly tuple: boolean;
  /** Inline: padded size. Table: `total × 8`, its full size `S` (§10). */
  readonly size: number;
  /** `Z` of §10: the budget units of the struct's zero value (a table's
   * `S` and the zero values of the tables it holds; an inline struct's
   * tables only). Saturating, at `MAX_UNITS`. */
  readonly zero: number;
  /** The table header word; 0 for inline structs. */
  readonly header: number;
  readonly fields: readonly FieldDesc[];
  /** The flattened columns when the struct is an SoA element (§5.3). */
  readonly soa?: readonly Column[];
  /** Does an inline struct hold anything a validator checks? */
  readonly check: boolean;
}

export interface UnionDesc {
  readonly name: string;
  readonly tag: Prim;
  readonly v: readonly { readonly tag: number; readonly s: number }[];
}

export interface EnumDesc {
  readonly name: string;
  readonly p: Prim;
  readonly values: readonly (readonly [string, number | bigint])[];
}

export interface Schema {
  readonly structs: readonly StructDesc[];
  readonly unions: readonly UnionDesc[];
  readonly enums: readonly EnumDesc[];
}

/** Size in bytes of a wire scalar. */
export function primSize(p: Prim): number {
  switch (p) {
    case "u8":
    case "i8":
    case "bool":
      return 1;
    case "u16":
    case "i16":
      return 2;
    case "u32":
    case "i32":
    case "f32":
      return 4;
    default:
      return 8;
  }
}

/** Bytes per element of an array block as bounds checks take it (0: SoA,
 * SoA unions and bunch tables, whose own checks size the block). */
export function elemSize(d: Data): number {
  switch (d.k) {
    case "plain":
      return d.size;
    case "aosInline":
      return d.stride;
    case "aosTable":
      return 4;
    case "unionAos":
      return 8;
    case "arrays":
      return 12;
    default:
      return 0;
  }
}

/** `min(8, the largest power of two dividing s)` (§5); 1 for 0. */
export function naturalAlign(s: number): number {
  if (s === 0) return 1;
  let a = 1;
  while (a < 8 && s % (a * 2) === 0) a *= 2;
  return a;
}

/** Where budget charges saturate (the generator's `u64` saturates here):
 * `Number.MAX_SAFE_INTEGER`, above any budget (a message of at most
 * 2^32 − 1 bytes times a factor below 2^21), so a saturated charge is
 * always refused, and charges below it add and multiply exactly. */
export const MAX_UNITS = Number.MAX_SAFE_INTEGER;

/** What the zero value of a slot holds beyond the slot's own bytes (§10):
 * `Z` of a table, of an inline struct (its tables), `len × Z` of a fixed
 * array of inline structs; 0 for anything else (an optional value and a
 * union have none, an array is empty). A field past its table's `used`
 * costs this, in validators and decoders alike. */
export function absentCharge(s: Schema, slot: Slot): number {
  switch (slot.k) {
    case "table":
    case "inline":
      return s.structs[slot.s]!.zero;
    case "fixed":
      return slot.e.k === "inline" ? Math.min(slot.len * s.structs[slot.e.s]!.zero, MAX_UNITS) : 0;
    default:
      return 0;
  }
}

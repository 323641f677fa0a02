// Unit tests of the library (no generated code): header checks, checked
// loads, malformed tables and arrays, text, typed-array views, the writer.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as karmem from "karmem";
import { kindOf } from "./kind.js";
import { e8Name, e64Name, s8Name, E8, E64 } from "../gen/vectors/enums/schema/enums.js";
import { Root as ArraysRoot } from "../gen/vectors/struct_arrays/schema/struct_arrays.js";

function message(size: number, words: Record<number, number> = {}): Uint8Array {
  const b = new Uint8Array(size);
  const dv = new DataView(b.buffer);
  b.set([0x4b, 0x4d, 2, 0]);
  dv.setUint32(4, size, true);
  for (const [at, w] of Object.entries(words)) dv.setUint32(Number(at), w, true);
  return b;
}


test("header checks", () => {
  const ok = message(16);
  assert.equal(new karmem.Reader(ok).error, null);
  assert.equal(new karmem.Reader(ok.subarray(0, 7)).error?.kind, "Truncated");
  assert.equal(new karmem.Reader(ok.subarray(0, 8)).error?.kind, "Truncated");
  const magic = ok.slice();
  magic[0] = 0;
  assert.equal(new karmem.Reader(magic).error?.kind, "BadMagic");
  const version = ok.slice();
  version[2] = 1;
  assert.equal(new karmem.Reader(version).error?.kind, "UnsupportedVersion");
  const flags = ok.slice();
  flags[3] = 1;
  assert.equal(new karmem.Reader(flags).error?.kind, "BadFlags");
  assert.equal(new karmem.Reader(message(16, { 4: 12 })).error?.kind, "BadSize");
  assert.equal(new karmem.Reader(message(16, { 4: 4 })).error?.kind, "BadSize");
  const big = new Uint8Array(32);
  big.set(ok, 4);
  assert.equal(new karmem.Reader(big.subarray(4, 20)).error?.kind, "Misaligned");
  assert.equal(new karmem.Reader(karmem.alignedCopy(big.subarray(4, 20))).error, null);
  // A message inside a larger buffer: its size bounds every access.
  const larger = new Uint8Array(64);
  larger.set(message(16, { 8: 0xdeadbeef }));
  larger.fill(7, 16);
  const r = new karmem.Reader(larger);
  assert.equal(r.size, 16);
  assert.equal(r.u32(8), 0xdeadbeef);
  assert.equal(r.u32(16), 0);
});

test("every load is bounded by the message", () => {
  const r = new karmem.Reader(message(16, { 8: 0xffffffff, 12: 0x7fffffff }));
  assert.equal(r.u32(12), 0x7fffffff);
  assert.equal(r.u32(13), 0);
  assert.equal(r.u64(8), 0x7fffffffffffffffn);
  assert.equal(r.u64(9), 0n);
  assert.equal(r.f64(16), 0);
  assert.equal(r.u8(1 << 30), 0);
  assert.equal(r.i32(8), -1);
  // An empty reader (bad header) reads zeros everywhere.
  const bad = new karmem.Reader(new Uint8Array(8));
  assert.notEqual(bad.error, null);
  assert.equal(bad.u32(0), 0);
  assert.deepEqual(bad.root(), karmem.EMPTY_TABLE);
});

test("malformed tables read as absent", () => {
  // total 2 units, unused 0 → used 16.
  assert.deepEqual(new karmem.Reader(message(24, { 8: 2 })).table(8), { offset: 8, used: 16 });
  // Past the message, misaligned, used < 4, offset 0.
  assert.deepEqual(new karmem.Reader(message(24, { 8: 3 })).table(8), karmem.EMPTY_TABLE);
  assert.deepEqual(new karmem.Reader(message(24, { 8: 2 })).table(12), karmem.EMPTY_TABLE);
  assert.deepEqual(new karmem.Reader(message(24, { 8: 1 | (5 << 29) })).table(8), karmem.EMPTY_TABLE);
  assert.deepEqual(new karmem.Reader(message(24, { 8: 2 })).table(0), karmem.EMPTY_TABLE);
});

test("malformed arrays read as empty", () => {
  const ref = (offset: number, len: number, cap: number) => message(32, { 8: offset, 12: len, 16: cap });
  assert.deepEqual(new karmem.Reader(ref(24, 2, 2)).array(8, 4, null), { offset: 24, len: 2, cap: 2 });
  assert.deepEqual(new karmem.Reader(ref(24, 3, 2)).array(8, 4, null), karmem.EMPTY_ARRAY); // len > cap
  assert.deepEqual(new karmem.Reader(ref(24, 2, 3)).array(8, 4, null), karmem.EMPTY_ARRAY); // past the end
  assert.deepEqual(new karmem.Reader(ref(26, 1, 1)).array(8, 4, null), karmem.EMPTY_ARRAY); // misaligned
  assert.deepEqual(new karmem.Reader(ref(0, 1, 1)).array(8, 4, null), karmem.EMPTY_ARRAY); // offset 0
  assert.deepEqual(new karmem.Reader(ref(24, 2, 2)).array(8, 4, 1), karmem.EMPTY_ARRAY); // over its limit
  assert.deepEqual(new karmem.Reader(ref(24, 0xffffffff, 0xffffffff)).array(8, 8, null), karmem.EMPTY_ARRAY);
});

test("text: invalid UTF-8 is empty, unpaired UTF-16 surrogates are U+FFFD", () => {
  const b = message(32, { 24: 0x00a9c3ff });
  const r = new karmem.Reader(b);
  assert.equal(r.text({ offset: 25, len: 2, cap: 2 }), "é");
  assert.equal(r.text({ offset: 24, len: 3, cap: 3 }), "");
  // Long text goes through TextDecoder; shared memory is copied first.
  const s = "héllo wörld, ".repeat(5);
  const w = new karmem.Writer();
  w.alloc(8, 8);
  const [off, n] = w.utf8(s);
  const m = w.finish().slice();
  const shared = new Uint8Array(new SharedArrayBuffer(m.length));
  shared.set(m);
  assert.equal(new karmem.Reader(shared).text({ offset: off, len: n, cap: n }), s);
  const u = message(24, { 16: 0x0041d800, 20: 0xdc00d83d });
  const r16 = new karmem.Reader(u);
  assert.equal(r16.text16({ offset: 16, len: 2, cap: 2 }), "\ufffdA");
  assert.equal(r16.text16({ offset: 20, len: 2, cap: 2 }), "\ud83d\udc00");
  assert.equal(r16.text16({ offset: 22, len: 1, cap: 1 }), "\ufffd");
});

test("typed-array views share memory when aligned, copy otherwise", () => {
  const b = message(32, { 16: 0x3f800000, 20: 0x40000000 });
  const r = new karmem.Reader(b);
  const view = r.scalars("f32", 16, 2);
  assert.deepEqual(Array.from(view as Float32Array), [1, 2]);
  assert.equal(view.buffer, b.buffer);
  const copy = r.scalars("u16", 17, 2);
  assert.notEqual(copy.buffer, b.buffer);
  assert.deepEqual(Array.from(copy as Uint16Array), [0x8000, 0x3f]);
  assert.equal(r.scalars("u64", 24, 2).length, 0); // past the end: empty
});

test("writer: growable, over a caller's buffer, zeroed on reset", () => {
  const w = new karmem.Writer(8);
  w.alloc(8, 8);
  const at = w.alloc(1000, 8);
  w.u32(at, 7);
  const m = w.finish();
  assert.equal(m.length, 1008);
  assert.equal(new karmem.Reader(m).error, null);
  w.reset();
  w.alloc(8, 8);
  assert.deepEqual(Array.from(w.finish()), [0x4b, 0x4d, 2, 0, 8, 0, 0, 0]);
  // Text is reserved exactly, also with surrogate pairs and unpaired ones.
  for (const s of ["", "a", "é", "€", "\u{1f600}", "\ud800", "x\udc00y", "\ud83d\ude00\ud83d"]) {
    assert.equal(karmem.utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  }
  const exact = karmem.Writer.over(new Uint8Array(16));
  exact.alloc(8, 8);
  assert.deepEqual(exact.utf8("a€\u{1f600}"), [8, 8]);
  assert.equal(kindOf(() => exact.utf8("x")), "TooLarge");
  const fixed = karmem.Writer.over(new Uint8Array(16));
  fixed.alloc(8, 8);
  assert.equal(kindOf(() => fixed.alloc(16, 8)), "TooLarge");
  assert.equal(kindOf(() => karmem.Writer.over(new Uint8Array(24).subarray(4))), "Misaligned");
});

test("validate and decode refuse bad headers with their kind", () => {
  const schema: karmem.Schema = {
    structs: [{ name: "E", ts: "E", table: true, tuple: false, size: 8, zero: 8, header: 0x80000001, fields: [], check: true }],
    unions: [],
    enums: [],
  };
  assert.equal(kindOf(() => karmem.validate(schema, 0, message(16, { 8: 0x80000001 }))), "none");
  assert.equal(kindOf(() => karmem.validate(schema, 0, message(16))), "MalformedTable");
  assert.equal(kindOf(() => karmem.decode(schema, 0, new Uint8Array(8))), "BadMagic");
  assert.deepEqual(karmem.decode(schema, 0, message(16)), {});
  assert.deepEqual(Array.from(karmem.encode(schema, 0, {})), [0x4b, 0x4d, 2, 0, 16, 0, 0, 0, 1, 0, 0, 0x80, 0, 0, 0, 0]);
});

// Enum name lookup (docs/typescript.md): every declared value's name, and
// undefined for a value this schema version does not know; 64-bit enums
// take bigint values.

test("enum values have names", () => {
  assert.equal(e8Name(E8.Max), "Max");
  assert.equal(e8Name(E8.Zero), "Zero");
  assert.equal(e8Name(7), undefined);
  assert.equal(s8Name(-128), "Min");
  assert.equal(e64Name(E64.Max), "Max");
  assert.equal(e64Name(18446744073709551615n), "Max");
  assert.equal(e64Name(5n), undefined);
});

// SoA columns by name (docs/typescript.md): the path of property names or
// of schema field names, through inline structs and tables alike.
test("SoA columns by name", () => {
  const unit = (id: number, hp: number) => ({
    id, pos: { x: id, y: 2 * id, z: 0 }, kind: 1, stats: { hp, names: "" }, path: [], alive: true,
  });
  const bytes = ArraysRoot.encode({
    soaInline: [{ x: 1, y: 2, z: 3 }, { x: 4, y: 5, z: 6 }],
    aosInline: [], soaTables: [unit(7, 70), unit(8, 80)], aosTables: [], limited: [],
  });
  const root = ArraysRoot.view(bytes);
  assert.deepEqual([...root.soaInline.column("y")!], [2, 5]);
  assert.deepEqual([...root.soaInline.column("Y")!], [2, 5]);
  const units = root.soaTables;
  assert.deepEqual([...units.column("stats.hp")!], [70, 80]);
  assert.deepEqual([...units.column("Stats.Hp")!], [70, 80]);
  assert.deepEqual([...units.column("pos.y")!], [14, 16]);
  assert.equal(units.columnIndex("nope"), -1);
  assert.equal(units.column("nope"), null);
  assert.deepEqual([...units.column(units.columnIndex("id"))!], [7, 8]);
});

// The AssemblyScript member of the cross-language integrity suite
// (docs/integrity.md §7): a producer (seed → message, §2) over the
// generated encoders and a consumer (message → the canonical stream of
// §3) for ONE schema version, the file `karmem build --lang as` writes
// from testdata/integrity/old.km or new.km. scripts/build-integrity-as.sh
// compiles this file twice, each time with `--path` naming the directory
// where `karmem-integrity/integrity.ts` is that version's code, into one
// module per version (as the guests of §6 are built): AssemblyScript has
// neither Zig's comptime modules nor TypeScript's structural types, and
// its generics would need every generated class as a parameter. What only
// new.km has is compiled when `isDefined` finds it, a constant condition
// whose other branch asc does not compile.
//
// The generated AssemblyScript code has no zero-copy viewers yet
// (docs/assemblyscript.md, "Not done yet"), so the consumer reads with the
// checked decoder (`Root.decode`: the validator, then the copy into
// objects) and walks the objects. The decoded unions read an unknown tag
// as no value and a bunch array holds the known variants only, so the
// tags and a bunch array's total length are read with the library's
// bounds-checked Validator at Root's positions, as the TypeScript and
// Python members read them with their Readers.
//
// The host (main.mjs) copies a message into `input(n)`, calls `produce`,
// `stream` or `roundtrip`, and finds the answer's bytes at
// `resultPtr()`/`resultLen()`: the message, the stream, or the reason of
// an error (status 1).

import { Box, KarmemError, NO_LIMIT, Validator, Writer, compareText, errorName } from "karmem-as/assembly";
import * as M from "karmem-integrity/integrity";
import { Rng } from "./rand";
import { Sink } from "./sink";

const CIRCLE: u32 = 1;
const DOT: u32 = 2;
const STAR: u32 = 3;

// Root's union fields (the same positions in both versions: fields are
// appended): the Shape's tag, and the array references of the arrays.
const SHAPE_TAG: u32 = 200;
const AOS_SHAPES: u32 = 208;
const SOA_SHAPES: u32 = 220;
const BOVOA_SHAPES: u32 = 232;
const BOVOS_SHAPES: u32 = 244;

/** Colours and union tags this version draws (new.km adds Purple and Star). */
const CHOICES: u64 = isDefined(M.Star) ? 4 : 3;

// ---- the producer (§2): every field in declaration order, depth first ----

function color(g: Rng): M.Color {
  return <M.Color>(<i32>g.below(CHOICES));
}

function vec3(g: Rng): M.Vec3 {
  const p = new M.Vec3();
  p.x = g.f32();
  p.y = g.f32();
  p.z = g.f32();
  return p;
}

function vec3s(g: Rng): Array<M.Vec3> {
  const n = g.length();
  const out = new Array<M.Vec3>(0);
  g.depth++;
  for (let i = 0; i < n; i++) out.push(vec3(g));
  g.depth--;
  return out;
}

function texts(g: Rng): Array<string> {
  const n = g.length();
  const out = new Array<string>(0);
  g.depth++;
  for (let i = 0; i < n; i++) out.push(g.text());
  g.depth--;
  return out;
}

function item(g: Rng): M.Item {
  const it = new M.Item();
  it.id = g.u32();
  it.name = g.text();
  it.pos = vec3(g);
  it.tags = texts(g);
  if (isDefined(it.score)) {
    it.score = g.i64();
    it.notes = texts(g);
  }
  return it;
}

function items(g: Rng): Array<M.Item> {
  const n = g.length();
  const out = new Array<M.Item>(0);
  g.depth++;
  for (let i = 0; i < n; i++) out.push(item(g));
  g.depth--;
  return out;
}

function dot(g: Rng): M.Dot {
  const d = new M.Dot();
  d.hue = color(g);
  d.at = vec3(g);
  return d;
}

/** A tag (0: no value), then the variant's fields. */
function shape(g: Rng): M.Shape | null {
  const tag = <u32>g.below(CHOICES);
  if (tag == CIRCLE) {
    const c = new M.Circle();
    c.radius = g.f64();
    c.label = g.text();
    return M.Shape.ofCircle(c);
  }
  if (tag == DOT) return M.Shape.ofDot(dot(g));
  if (isDefined(M.Star)) {
    if (tag == STAR) {
      const s = new M.Star();
      s.points = g.u8();
      return M.Shape.ofStar(s);
    }
  }
  return null;
}

function shapes(g: Rng): Array<M.Shape | null> {
  const n = g.length();
  const out = new Array<M.Shape | null>(0);
  g.depth++;
  for (let i = 0; i < n; i++) out.push(shape(g));
  g.depth--;
  return out;
}

function lookup(g: Rng): Array<M.RootLookupEntry> {
  const n = g.length();
  const out = new Array<M.RootLookupEntry>(0);
  g.depth++;
  for (let i = 0; i < n; i++) {
    const k = g.text();
    const x = g.u32();
    // A key drawn again replaces the earlier entry's value.
    let j = 0;
    while (j < out.length && unchecked(out[j]).key != k) j++;
    if (j == out.length) {
      const e = new M.RootLookupEntry();
      e.key = k;
      out.push(e);
    }
    unchecked(out[j]).value = x;
  }
  g.depth--;
  // The encoder wants the entries in key order (by code point).
  return out.sort((a: M.RootLookupEntry, b: M.RootLookupEntry): i32 => compareText(a.key, b.key));
}

function byId(g: Rng): Array<M.RootByIdEntry> {
  const n = g.length();
  const out = new Array<M.RootByIdEntry>(0);
  g.depth++;
  for (let i = 0; i < n; i++) {
    const k = g.u16();
    const x = item(g);
    let j = 0;
    while (j < out.length && unchecked(out[j]).key != k) j++;
    if (j == out.length) {
      const e = new M.RootByIdEntry();
      e.key = k;
      out.push(e);
    }
    unchecked(out[j]).value = x;
  }
  g.depth--;
  return out.sort((a: M.RootByIdEntry, b: M.RootByIdEntry): i32 => <i32>a.key - <i32>b.key);
}

function draw(seed: u64): M.Root {
  const g = new Rng(seed);
  const r = new M.Root();
  r.u8 = g.u8();
  r.i8 = g.i8();
  r.u16 = g.u16();
  r.i16 = g.i16();
  r.u32 = g.u32();
  r.i32 = g.i32();
  r.u64 = g.u64();
  r.i64 = g.i64();
  r.f32 = g.f32();
  r.f64 = g.f64();
  r.flag = g.bool();
  r.hue = color(g);
  r.name = g.text();
  r.wide = g.text();
  r.pos = vec3(g);
  for (let i = 0; i < 4; i++) unchecked((r.fixed[i] = g.i16()));
  let n = g.length(8);
  r.small = new Array<u8>(0);
  g.depth++;
  for (let i = 0; i < n; i++) r.small.push(g.u8());
  g.depth--;
  n = g.length();
  r.bytes = new Array<u8>(0);
  g.depth++;
  for (let i = 0; i < n; i++) r.bytes.push(g.u8());
  g.depth--;
  n = g.length();
  r.colors = new Array<M.Color>(0);
  g.depth++;
  for (let i = 0; i < n; i++) r.colors.push(color(g));
  g.depth--;
  r.soaPoints = vec3s(g);
  r.aosPoints = vec3s(g);
  r.soaItems = items(g);
  r.aosItems = items(g);
  n = g.length(64);
  r.dots = new Array<M.Dot>(0);
  g.depth++;
  for (let i = 0; i < n; i++) r.dots.push(dot(g));
  g.depth--;
  r.shape = shape(g);
  r.aosShapes = shapes(g);
  r.soaShapes = shapes(g);
  r.bovoaShapes = shapes(g);
  r.bovosShapes = shapes(g);
  r.maybeU32 = g.present() ? new Box<u32>(g.u32()) : null;
  r.maybeName = g.present() ? g.text() : null;
  r.maybeItem = g.present() ? item(g) : null;
  r.lookup = lookup(g);
  r.byId = byId(g);
  n = g.length();
  r.grid = new Array<Array<f32>>(0);
  g.depth++;
  for (let i = 0; i < n; i++) {
    const m = g.length();
    const row = new Array<f32>(0);
    g.depth++;
    for (let j = 0; j < m; j++) row.push(g.f32());
    g.depth--;
    r.grid.push(row);
  }
  g.depth--;
  r.pair.f0 = g.u16();
  r.pair.f1 = g.text();
  r.hp = g.u16();
  if (isDefined(r.level)) {
    r.level = g.u8();
    r.extra = g.u64();
    r.more = items(g);
  }
  return r;
}

// ---- the consumer (§3): the decoded root, in this version's field order ----

function walkVec3(s: Sink, p: M.Vec3): void {
  s.f32(p.x);
  s.f32(p.y);
  s.f32(p.z);
}

function walkTexts(s: Sink, a: Array<string>): void {
  s.put<u32>(<u32>a.length);
  for (let i = 0; i < a.length; i++) s.text(unchecked(a[i]));
}

function walkItem(s: Sink, it: M.Item): void {
  s.put<u32>(it.id);
  s.text(it.name);
  walkVec3(s, it.pos);
  walkTexts(s, it.tags);
  if (isDefined(it.score)) {
    s.put<i64>(it.score);
    walkTexts(s, it.notes);
  }
}

function walkItems(s: Sink, a: Array<M.Item>): void {
  s.put<u32>(<u32>a.length);
  for (let i = 0; i < a.length; i++) walkItem(s, unchecked(a[i]));
}

function walkDot(s: Sink, d: M.Dot): void {
  s.put<u8>(<u8>d.hue);
  walkVec3(s, d.at);
}

/** The fields of a variant this version knows (none for an unknown tag,
 * which decodes as null). */
function walkVariant(s: Sink, x: M.Shape | null): void {
  if (x === null) return;
  const c = x.circle;
  if (x.tag == CIRCLE && c !== null) {
    s.f64(c.radius);
    s.text(c.label);
  }
  const d = x.dot;
  if (x.tag == DOT && d !== null) walkDot(s, d);
  if (isDefined(x.star)) {
    const st = x.star;
    if (x.tag == STAR && st !== null) s.put<u8>(st.points);
  }
}

/** The tag as the message has it, then the variant's fields. */
function walkShape(s: Sink, tag: u32, x: M.Shape | null): void {
  s.put<u32>(tag);
  walkVariant(s, x);
}

/** An AoS or SoA array of unions: its tags (read raw) and the decoded
 * values, which have the same length. */
function walkShapes(s: Sink, tags: Array<u32>, xs: Array<M.Shape | null>): void {
  s.put<u32>(<u32>tags.length);
  for (let i = 0; i < tags.length; i++) walkShape(s, unchecked(tags[i]), i < xs.length ? unchecked(xs[i]) : null);
}

/** A bunch array: the total length (read raw), then each variant this
 * version knows, in declaration order, as its tag, its count and its
 * elements. The decoder appends the known variants in that order. */
function walkBunch(s: Sink, total: u32, xs: Array<M.Shape | null>): void {
  s.put<u32>(total);
  for (let tag: u32 = CIRCLE; tag < <u32>CHOICES; tag++) {
    let n: u32 = 0;
    for (let i = 0; i < xs.length; i++) {
      const x = unchecked(xs[i]);
      if (x !== null && x.tag == tag) n++;
    }
    s.put<u32>(tag);
    s.put<u32>(n);
    for (let i = 0; i < xs.length; i++) {
      const x = unchecked(xs[i]);
      if (x !== null && x.tag == tag) walkVariant(s, x);
    }
  }
}

/** The tags of an AoS (8-byte elements: tag, offset) or SoA (a tag
 * column) array of unions at `off` of the root table (to, tu), empty when
 * absent or malformed, as the decoder reads them. */
function rawTags(v: Validator, to: u32, tu: u32, off: u32, aos: bool): Array<u32> {
  const out = new Array<u32>(0);
  v.fieldArray(to, tu, off, aos ? 8 : 0, NO_LIMIT);
  const at = v.aOff;
  const len = v.aLen;
  if (aos) {
    for (let i: u32 = 0; i < len; i++) out.push(<u32>v.ld<u8>(at + 8 * i));
  } else if (v.unionColumns(at, v.aCap, 1)) {
    const tags = v.uTags;
    for (let i: u32 = 0; i < len; i++) out.push(<u32>v.ld<u8>(tags + i));
  }
  return out;
}

/** The length of the array field at `off` of the root table. */
function rawLength(v: Validator, to: u32, tu: u32, off: u32): u32 {
  v.fieldArray(to, tu, off, 0, NO_LIMIT);
  return v.aLen;
}

function walkRoot(s: Sink, r: M.Root, v: Validator): void {
  v.table(8);
  const to = v.tOff;
  const tu = v.tUsed;
  s.put<u8>(r.u8);
  s.put<i8>(r.i8);
  s.put<u16>(r.u16);
  s.put<i16>(r.i16);
  s.put<u32>(r.u32);
  s.put<i32>(r.i32);
  s.put<u64>(r.u64);
  s.put<i64>(r.i64);
  s.f32(r.f32);
  s.f64(r.f64);
  s.bool(r.flag);
  s.put<u8>(<u8>r.hue);
  s.text(r.name);
  s.units(r.wide);
  walkVec3(s, r.pos);
  for (let i = 0; i < 4; i++) s.put<i16>(unchecked(r.fixed[i]));
  s.put<u32>(<u32>r.small.length);
  for (let i = 0; i < r.small.length; i++) s.put<u8>(unchecked(r.small[i]));
  s.put<u32>(<u32>r.bytes.length);
  for (let i = 0; i < r.bytes.length; i++) s.put<u8>(unchecked(r.bytes[i]));
  s.put<u32>(<u32>r.colors.length);
  for (let i = 0; i < r.colors.length; i++) s.put<u8>(<u8>unchecked(r.colors[i]));
  s.put<u32>(<u32>r.soaPoints.length);
  for (let i = 0; i < r.soaPoints.length; i++) walkVec3(s, unchecked(r.soaPoints[i]));
  s.put<u32>(<u32>r.aosPoints.length);
  for (let i = 0; i < r.aosPoints.length; i++) walkVec3(s, unchecked(r.aosPoints[i]));
  walkItems(s, r.soaItems);
  walkItems(s, r.aosItems);
  s.put<u32>(<u32>r.dots.length);
  for (let i = 0; i < r.dots.length; i++) walkDot(s, unchecked(r.dots[i]));
  walkShape(s, tu >= SHAPE_TAG + 8 ? <u32>v.ld<u8>(to + SHAPE_TAG) : 0, r.shape);
  walkShapes(s, rawTags(v, to, tu, AOS_SHAPES, true), r.aosShapes);
  walkShapes(s, rawTags(v, to, tu, SOA_SHAPES, false), r.soaShapes);
  walkBunch(s, rawLength(v, to, tu, BOVOA_SHAPES), r.bovoaShapes);
  walkBunch(s, rawLength(v, to, tu, BOVOS_SHAPES), r.bovosShapes);
  const mu = r.maybeU32;
  s.bool(mu !== null);
  if (mu !== null) s.put<u32>(mu.value);
  const mn = r.maybeName;
  s.bool(mn !== null);
  if (mn !== null) s.text(mn);
  const mi = r.maybeItem;
  s.bool(mi !== null);
  if (mi !== null) walkItem(s, mi);
  // Maps decode in stored order (the keys' order).
  s.put<u32>(<u32>r.lookup.length);
  for (let i = 0; i < r.lookup.length; i++) {
    const e = unchecked(r.lookup[i]);
    s.text(e.key);
    s.put<u32>(e.value);
  }
  s.put<u32>(<u32>r.byId.length);
  for (let i = 0; i < r.byId.length; i++) {
    const e = unchecked(r.byId[i]);
    s.put<u16>(e.key);
    walkItem(s, e.value);
  }
  s.put<u32>(<u32>r.grid.length);
  for (let i = 0; i < r.grid.length; i++) {
    const row = unchecked(r.grid[i]);
    s.put<u32>(<u32>row.length);
    for (let j = 0; j < row.length; j++) s.f32(unchecked(row[j]));
  }
  s.put<u16>(r.pair.f0);
  s.text(r.pair.f1);
  s.put<u16>(r.hp);
  if (isDefined(r.level)) {
    s.put<u8>(r.level);
    s.put<u64>(r.extra);
    walkItems(s, r.more);
  }
}

// ---- the exports the host calls ----

/** The message the host copied in (an ArrayBuffer: its data is 16-aligned,
 * as the validator wants, and the global keeps it from the collector while
 * only raw pointers into it are in use). */
let inbox = new ArrayBuffer(0);
/** The answer: a message, a stream, or an error's reason as UTF-8. */
let answer = new ArrayBuffer(0);
const writer = new Writer();
let sink = new Sink();

function reply(p: usize, n: i32): void {
  answer = new ArrayBuffer(n);
  memory.copy(changetype<usize>(answer), p, <usize>n);
}

/** Status 1 with `reason` as the answer. */
function fail(reason: string): i32 {
  answer = String.UTF8.encode(reason);
  return 1;
}

function failKarmem(what: string, e: KarmemError, v: Validator | null): i32 {
  const at = v !== null ? ` at byte ${v.faultOffset}` : "";
  return fail(`${what}: ${errorName(e)}${at}`);
}

/** Room for an n-byte message; the host writes it there. */
export function input(n: i32): usize {
  inbox = new ArrayBuffer(n);
  return changetype<usize>(inbox);
}

export function resultPtr(): usize {
  return changetype<usize>(answer);
}

export function resultLen(): i32 {
  return answer.byteLength;
}

/** The message of `seed` (§2), written with the generated encoder. */
export function produce(seed: u64): i32 {
  const e = draw(seed).encode(writer);
  if (e != KarmemError.None) return failKarmem("encode", e, null);
  reply(writer.dataStart, writer.length);
  return 0;
}

/** The canonical stream of the message in the inbox (§3): checked
 * decoding (validation first: a message that does not pass is an error),
 * then the walk. */
export function stream(): i32 {
  const p = changetype<usize>(inbox);
  const n = <usize>inbox.byteLength;
  const v = new Validator();
  let e = M.Root.validateWith(v, p, n);
  if (e != KarmemError.None) return failKarmem("validate", e, v);
  const r = new M.Root();
  e = M.Root.decode(p, n, r);
  if (e != KarmemError.None) return failKarmem("decode", e, null);
  sink = new Sink();
  walkRoot(sink, r, v);
  reply(sink.dataStart, sink.n);
  return 0;
}

/** Decoded into Root and encoded again: the writer is canonical, so the
 * bytes must be the message's. */
export function roundtrip(): i32 {
  const p = changetype<usize>(inbox);
  const n = inbox.byteLength;
  const r = new M.Root();
  const e = M.Root.decode(p, <usize>n, r);
  if (e != KarmemError.None) return failKarmem("decode", e, null);
  const f = r.encode(writer);
  if (f != KarmemError.None) return failKarmem("encode", f, null);
  const m = writer.length;
  let at = 0;
  while (at < m && at < n && load<u8>(writer.dataStart + <usize>at) == load<u8>(p + <usize>at)) at++;
  if (m != n || at != n) {
    return fail(`decoding and encoding again changed the message (${n} bytes, then ${m}; first difference at byte ${at})`);
  }
  answer = new ArrayBuffer(0);
  return 0;
}

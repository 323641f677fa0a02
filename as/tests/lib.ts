// Unit checks of the library (as/assembly) that generated code does not
// reach by itself: header refusals, bounded loads, the limits, the writer's
// growth, fixed memory and reuse, text edge cases, the editor's refusals. Compiled by asc and run
// under Node by crates/karmem-vectors-as (`library_checks`); `check()`
// reports each failure and returns how many there were.

import {
  KarmemError, Validator, Writer, compareText, errorName, utf8Length, utf8Valid, MAX_DEPTH,
  Editor, NO_LIMIT,
} from "karmem-as/assembly";

// @ts-ignore: decorator
@external("env", "report")
declare function hostReport(ptr: usize, units: i32): void;

let failures = 0;

function expect(ok: bool, what: string): void {
  if (ok) return;
  failures++;
  const line = "lib\tfail\t" + what;
  hostReport(changetype<usize>(line), line.length);
}

/**
 * Buffers the checks use through raw pointers, kept reachable from a
 * global: the collector does not see a pointer as a reference, and would
 * reuse the memory of a buffer no variable holds.
 */
const keep = new Array<ArrayBuffer>(0);

/** `n` zeroed bytes (16-aligned: an ArrayBuffer's data is), kept alive. */
function buffer(n: i32): usize {
  const b = new ArrayBuffer(n);
  keep.push(b);
  return changetype<usize>(b);
}

/** An 8-aligned buffer of `n` bytes holding a valid empty header of size `size`. */
function message(n: i32, size: u32): usize {
  const p = buffer(n);
  store<u8>(p, 0x4B);
  store<u8>(p, 0x4D, 1);
  store<u8>(p, 2, 2);
  store<u32>(p, size, 4);
  return p;
}

function headers(): void {
  const v = new Validator();
  const p = message(32, 32);
  expect(v.open(p, 32) == KarmemError.None, "a valid header opens");
  expect(v.open(p, 7) == KarmemError.Truncated, "7 bytes are Truncated");
  expect(v.open(p, 24) == KarmemError.Truncated, "size past the buffer is Truncated");
  expect(v.open(p + 4, 24) == KarmemError.Misaligned, "a misaligned message is refused");
  store<u8>(p, 0x4C);
  expect(v.open(p, 32) == KarmemError.BadMagic, "bad magic");
  store<u8>(p, 0x4B);
  store<u8>(p, 1, 2);
  expect(v.open(p, 32) == KarmemError.UnsupportedVersion, "version 1 is refused");
  store<u8>(p, 2, 2);
  store<u8>(p, 1, 3);
  expect(v.open(p, 32) == KarmemError.BadFlags, "flags are refused");
  store<u8>(p, 0, 3);
  store<u32>(p, 12, 4);
  expect(v.open(p, 32) == KarmemError.BadSize, "a size not a multiple of 8");
  store<u32>(p, 0, 4);
  expect(v.open(p, 32) == KarmemError.BadSize, "a size below 8");
  store<u32>(p, 16, 4);
  expect(v.open(p, 32) == KarmemError.None, "a message inside a larger buffer");
  store<u64>(p + 16, 0xFFFFFFFFFFFFFFFF);
  expect(v.ld<u64>(16) == 0, "a load past the stated size reads 0");
  expect(v.ld<u32>(0xFFFFFFFE) == 0, "a load near 2^32 reads 0");
  v.table(8);
  expect(v.tUsed == 0, "a table running past the message is absent");
  expect(v.checkTable(0, 8) == KarmemError.MalformedTable, "offset 0 is a malformed table");
  v.array(4, 1, 0xFFFFFFFF);
  expect(v.aCap == 0, "a reference through the header's size word reads as empty");
  for (let k: i32 = KarmemError.None; k <= KarmemError.InvalidValue; k++) {
    expect(errorName(<KarmemError>k) != "Unknown", "every kind has a name");
  }
}

function limits(): void {
  const v = new Validator();
  const p = message(64, 64);
  v.open(p, 64);
  expect(v.charge(512) == KarmemError.None, "the budget is 8 × size");
  expect(v.charge(1) == KarmemError.BudgetExceeded, "and no more");
  v.restart();
  let e = KarmemError.None;
  for (let i: u32 = 0; i < MAX_DEPTH; i++) e = v.enter();
  expect(e == KarmemError.None, "depth 64 is allowed");
  expect(v.enter() == KarmemError.DepthExceeded, "depth 65 is not");
}

function writers(): void {
  const w = new Writer(0);
  w.begin();
  const at = w.alloc(12, 4);
  const long = "é".repeat(5000);
  w.writeString(at, long);
  expect(w.finish() == KarmemError.None, "a growable writer grows");
  expect(w.length == 8 + 16 + 10000, "its length is the message's");
  const copy = w.toBytes();
  expect(copy.length == w.length && load<u8>(copy.dataStart) == 0x4B, "toBytes copies the message");
  w.reset();
  expect(w.length == 0, "reset forgets the message");

  // A fixed writer: 64 bytes of room between two guard words.
  const buf = buffer(80);
  store<u64>(buf, 0x1111111111111111);
  store<u64>(buf + 72, 0x2222222222222222);
  const f = Writer.over(buf + 8, 64);
  f.begin();
  f.writeString(f.alloc(12, 4), "x".repeat(100));
  expect(f.finish() == KarmemError.TooLarge, "a full fixed writer gives TooLarge");
  expect(load<u64>(buf) == 0x1111111111111111 && load<u64>(buf + 72) == 0x2222222222222222, "nothing is written outside the range");
  f.begin();
  f.writeString(f.alloc(12, 4), "fits");
  expect(f.finish() == KarmemError.None && f.length == 24, "the same writer writes a message that fits");
  const m = Writer.over(buf + 4, 64);
  m.begin();
  expect(m.finish() == KarmemError.Misaligned, "a misaligned fixed writer gives Misaligned");
}

function text(): void {
  // An unpaired surrogate is written as U+FFFD, so the text is valid UTF-8.
  const s = String.fromCharCode(0xD800) + "a";
  expect(utf8Length(s) == 4, "U+FFFD is 3 bytes");
  const w = new Writer();
  w.begin();
  const at = w.alloc(12, 4);
  w.writeString(at, s);
  w.finish();
  const off = load<u32>(w.dataStart + at);
  expect(load<u8>(w.dataStart + off) == 0xEF && load<u8>(w.dataStart + off + 1) == 0xBF && load<u8>(w.dataStart + off + 2) == 0xBD, "written as EF BF BD");
  const v = new Validator();
  expect(v.open(w.dataStart, w.length) == KarmemError.None, "the message opens");
  expect(v.utf8(off, 4) == KarmemError.None, "and its text is valid");
  // Invalid UTF-8: overlong, a surrogate, past U+10FFFF, cut short.
  const bad = buffer(8);
  store<u16>(bad, 0x80C0);
  expect(!utf8Valid(bad, 2), "an overlong form is refused");
  store<u32>(bad, 0x80A0ED);
  expect(!utf8Valid(bad, 3), "a surrogate is refused");
  store<u32>(bad, 0x808090F4);
  expect(!utf8Valid(bad, 4), "past U+10FFFF is refused");
  store<u32>(bad, 0x9F98F0);
  expect(!utf8Valid(bad, 3), "a cut sequence is refused");
  store<u32>(bad, 0x80989FF0);
  expect(utf8Valid(bad, 4), "U+1F600 is valid");
  // Map keys in code point order, which is UTF-8 byte order (§5.5).
  expect(compareText(String.fromCharCode(0xFFFF), String.fromCodePoint(0x10000)) < 0, "U+FFFF orders before U+10000");
  expect(compareText("a", "ab") < 0 && compareText("b", "ab") > 0 && compareText("", "") == 0, "prefixes order first");
  // UTF-16 text with an unpaired surrogate reads as U+FFFD.
  const u = message(32, 32);
  store<u16>(u + 16, 0xDC00);
  store<u16>(u + 18, 0x41);
  v.open(u, 32);
  expect(v.utf16String(16, 2) == "\uFFFDA", "an unpaired low surrogate reads as U+FFFD");
  expect(v.utf16(16, 2) == KarmemError.InvalidText, "and the validator refuses it");
}

/**
 * The editor (format.md §12) on a hand-made message: a table at 8 (24
 * bytes, 20 used: a u32 at 4, an array reference of u16 at 8) and the
 * array's block at 32 (capacity 4, length 2, junk in the unused two).
 */
function editor(): void {
  const p = message(40, 40);
  store<u32>(p + 8, 3 | (4 << 29));
  store<u32>(p + 16, 32);
  store<u32>(p + 20, 2);
  store<u32>(p + 24, 4);
  store<u16>(p + 32, 1);
  store<u16>(p + 34, 2);
  store<u16>(p + 36, 0xFFFF);
  store<u16>(p + 38, 0xFFFF);
  const e = new Editor();
  expect(e.open(p, 40) == KarmemError.None, "the editor opens a message");
  expect(e.set<u32>(8, 4, 7) == KarmemError.None && load<u32>(p + 12) == 7, "set stores a held field");
  expect(e.set<u32>(8, 20, 1) == KarmemError.MalformedTable, "a field past the used size is refused");
  expect(load<u32>(p + 28) == 0, "and nothing is written");
  expect(e.set<u32>(0, 4, 1) == KarmemError.MalformedTable, "an absent table is refused");
  expect(e.set<u32>(12, 0, 1) == KarmemError.MalformedTable, "a misaligned table is refused");
  expect(e.set<u32>(8, 0xFFFFFFFE, 1) == KarmemError.MalformedTable, "an offset that wraps is refused");
  expect(e.set<bool>(8, 4, true) == KarmemError.None && load<u8>(p + 12) == 1, "a bool is stored as 1");
  expect(e.setLen(8, 8, 2, NO_LIMIT, 5) == KarmemError.TooLarge, "a length past the capacity is TooLarge");
  expect(e.setLen(8, 8, 2, 2, 3) == KarmemError.LimitExceeded, "a length past the limit is LimitExceeded");
  expect(load<u32>(p + 20) == 2 && load<u16>(p + 36) == 0xFFFF, "refused lengths write nothing");
  expect(e.setLen(8, 8, 2, NO_LIMIT, 3) == KarmemError.None && load<u32>(p + 20) == 3, "a length within the capacity");
  expect(load<u16>(p + 36) == 0 && load<u16>(p + 38) == 0xFFFF, "the exposed element is zeroed, no other");
  expect(e.setLen(8, 8, 2, NO_LIMIT, 1) == KarmemError.None, "a shorter length");
  expect(load<u16>(p + 32) == 1 && load<u16>(p + 34) == 0 && load<u16>(p + 36) == 0, "the dropped elements are zeroed");
  const el = e.elements<u16, u16>(8, 8, NO_LIMIT);
  expect(el !== null && el.length == 1, "the elements are the length's");
  if (el !== null) {
    expect(el.set(0, 9) == KarmemError.None && load<u16>(p + 32) == 9 && el[0] == 9, "an element is written in place");
    expect(el.set(1, 9) == KarmemError.TooLarge && load<u16>(p + 34) == 0, "an element past the length is refused");
  }
  store<u32>(p + 24, 0);
  expect(e.setLen(8, 8, 2, NO_LIMIT, 0) == KarmemError.MalformedArray, "a capacity of 0 with a length is malformed");
  expect(e.elements<u16, u16>(8, 8, NO_LIMIT) === null && e.fault == KarmemError.MalformedArray, "elements say why they are refused");
  store<u32>(p + 24, 5);
  expect(e.setLen(8, 8, 2, NO_LIMIT, 0) == KarmemError.MalformedArray, "a block past the message is malformed");
  expect(load<u32>(p + 20) == 1, "and nothing is written");
}

/** Runs every check; returns the number of failures. */
export function check(): i32 {
  headers();
  limits();
  writers();
  text();
  editor();
  return failures;
}

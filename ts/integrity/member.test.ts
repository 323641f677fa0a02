// The TypeScript member of the integrity suite (ts/integrity,
// docs/integrity.md): its draws, and its protocol on good and bad
// requests. Its agreement with the other languages is the harness's job
// (crates/karmem-integrity/tests/suite.rs, run by scripts/test-ts.sh).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Rng } from "./rand.js";
import { answer } from "./member.js";

test("SplitMix64 from seed 0 gives the reference sequence", () => {
  const g = new Rng(0n);
  assert.equal(g.next(), 0xe220a8397b1dcdafn);
  assert.equal(g.next(), 0x6e789e6aa1b965f4n);
  assert.equal(g.next(), 0x06c45d188009454fn);
});

test("the derived draws keep the low bits and stay exact", () => {
  const g = new Rng(0n);
  const h = new Rng(0n);
  assert.equal(g.i8(), Number(BigInt.asIntN(8, h.next())));
  const f = g.f32();
  assert.equal(Math.fround(f), f);
  assert.ok(Number.isInteger(g.f64() * 1024));
});

test("bad requests answer an error line", () => {
  for (const bad of [
    "produce old nope",
    "produce ancient 1",
    "produce old 18446744073709551616",
    "consume new zz",
    "consume new 4b4d",
    "consume old 00000000000000000000000000000000",
    "unknown new 00",
    "consume",
    "produce constructor 1",
  ]) {
    assert.match(answer(bad), /^error \S/, bad);
  }
});

test("consume is the SHA-256 of stream, and messages round-trip", () => {
  for (const seed of [0, 1, 2, 5, 6]) {
    for (const v of ["old", "new"]) {
      const msg = answer(`produce ${v} ${seed}`);
      assert.match(msg, /^([0-9a-f]{16})+$/);
      for (const c of ["old", "new"]) {
        const stream = answer(`stream ${c} ${msg}`);
        const digest = createHash("sha256").update(Buffer.from(stream, "hex")).digest("hex");
        assert.equal(answer(`consume ${c} ${msg}`), digest);
      }
      assert.equal(answer(`roundtrip ${v} ${msg}`), "ok");
    }
  }
});

test("damaged messages answer an error or a digest, never throw", () => {
  const msg = answer("produce new 5");
  for (let at = 0; at < Math.min(msg.length, 1024); at += 2) {
    const damaged = msg.slice(0, at) + (msg[at] === "f" ? "0" : "f") + msg.slice(at + 1);
    const a = answer(`consume new ${damaged}`);
    assert.match(a, /^(error \S.*|[0-9a-f]{64})$/, `byte ${at / 2}`);
  }
  for (let cut = 0; cut < msg.length; cut += 16) {
    assert.match(answer(`consume old ${msg.slice(0, cut)}`), /^(error \S.*|[0-9a-f]{64})$/);
  }
});

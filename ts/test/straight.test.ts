// The straight-line encoders, decoders and validators that `karmem build
// --lang ts` prints per struct (issue #19 item 2) against the library's
// interpreted `encode`, `decode` (src/codec.ts) and `validate`
// (src/validate.ts) over the same layout: the same bytes, the same values
// and the same errors, message for message. Tight random limits make the
// traversal budget and the depth limit stop them part way, so every charge
// (format.md §10) must be the same units in the same order for the errors
// to agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import * as karmem from "karmem";
import * as prop from "../gen/test/prop/prop.js";
import { Root } from "../gen/test/prop/prop.js";
import { root } from "./arbitrary.js";
import { same } from "./json.js";

const rootId = prop.layout.structs.findIndex((s) => s.name === "Root");

/** What a call gives: its value, or the KarmemError's message (kind,
 * offset, value and detail); for another exception (a value the
 * interfaces rule out, such as a number for a map, fails in JavaScript
 * itself) its class. */
function outcome(f: () => unknown): unknown {
  try {
    return { value: f() };
  } catch (e) {
    if (e instanceof karmem.KarmemError) return { error: e.message };
    return { thrown: (e as Error).constructor.name };
  }
}

const limits: fc.Arbitrary<karmem.Limits> = fc.record({
  maxDirectoryEntries: fc.integer({ min: 0, max: 1024 }),
  maxDepth: fc.integer({ min: 0, max: 64 }),
  traversalBudgetFactor: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.double({ min: 0, max: 8, noNaN: true })),
});

// Random messages with a good header (mostly malformed inside).
const message = fc.uint8Array({ minLength: 8, maxLength: 2048 }).map((b) => {
  const m = new Uint8Array(b.length - (b.length % 8));
  m.set(b.subarray(0, m.length));
  m.set([0x4b, 0x4d, 2, 0], 0);
  new DataView(m.buffer).setUint32(4, m.length, true);
  return m;
});

test("decode: the same value or the same error as the interpreted decoder", () => {
  fc.assert(
    fc.property(fc.oneof(message, fc.tuple(root, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 })).map(([v, damage]) => {
      // A real message, damaged.
      const b = Root.encode(v).slice();
      for (const [at, x] of damage) b[8 + (at % (b.length - 8))] = x;
      return b;
    })), fc.option(limits, { nil: undefined }), (bytes, l) => {
      const want = outcome(() => karmem.decode(prop.layout, rootId, bytes, l));
      const got = outcome(() => Root.decode(bytes, l));
      assert.equal(same(got, want), null);
      const valid = outcome(() => karmem.validate(prop.layout, rootId, bytes, l).size);
      assert.equal(same(outcome(() => Root.validate(bytes, l).$r.size), valid), null, "validate");
    }),
    { numRuns: 2000, includeErrorInReport: true },
  );
});

test("decode of real messages under tight limits: the same errors", () => {
  fc.assert(
    fc.property(root, limits, (v, l) => {
      const bytes = Root.encode(v).slice();
      const want = outcome(() => karmem.decode(prop.layout, rootId, bytes, l));
      const got = outcome(() => Root.decode(bytes, l));
      assert.equal(same(got, want), null);
      const valid = outcome(() => karmem.validate(prop.layout, rootId, bytes, l).size);
      assert.equal(same(outcome(() => Root.validate(bytes, l).$r.size), valid), null, "validate");
    }),
    { numRuns: 1000, includeErrorInReport: true },
  );
});

const junk = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 3 }),
);

test("encode: the same bytes or the same error as the interpreted encoder", () => {
  fc.assert(
    fc.property(root, fc.array(fc.tuple(fc.nat(), junk), { maxLength: 3 }), (value, damage) => {
      const v = { ...value } as Record<string, unknown>;
      // Properties replaced by values of any type, or missing.
      const keys = Object.keys(v);
      for (const [k, x] of damage) v[keys[k % keys.length]!] = x;
      const want = outcome(() => Array.from(karmem.encode(prop.layout, rootId, v)));
      const got = outcome(() => Array.from(Root.encode(v as unknown as prop.Root)));
      assert.equal(same(got, want), null);
    }),
    { numRuns: 1000, includeErrorInReport: true },
  );
});

// Every golden and hostile vector's message, decoded by both under the
// default limits and under a small budget.
const here = dirname(fileURLToPath(import.meta.url));
const vectors = join(here, "..", "..", "..", "testdata", "vectors");
const generated = join(here, "..", "gen", "vectors");

interface Codec {
  encode(value: unknown): Uint8Array;
  decode(input: karmem.Input, limits?: karmem.Limits): unknown;
  validate(input: karmem.Input, limits?: karmem.Limits): { $r: karmem.Reader };
}

test("vectors: both decoders agree, both encoders and both validators", async () => {
  let n = 0;
  for (const topic of readdirSync(vectors, { withFileTypes: true }).filter((t) => t.isDirectory())) {
    const dir = join(vectors, topic.name);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const c = JSON.parse(readFileSync(join(dir, file), "utf8")) as { root: string; schema?: string };
      const gen = join(generated, topic.name, (c.schema ?? "schema.km").replace(/\.km$/, ""));
      const js = readdirSync(gen).find((f) => f.endsWith(".js"))!;
      const m = (await import(join(gen, js))) as { layout: karmem.Schema } & Record<string, unknown>;
      const id = m.layout.structs.findIndex((s) => s.name === c.root);
      const codec = m[m.layout.structs[id]!.ts] as Codec;
      const hex = readFileSync(join(dir, file.replace(/\.json$/, ".hex")), "utf8");
      const bytes = new Uint8Array(
        hex
          .split("\n")
          .flatMap((l) => (l.includes(":") ? l.slice(l.indexOf(":") + 1) : l).trim().split(/\s+/))
          .filter((h) => h !== "")
          .map((h) => parseInt(h, 16)),
      );
      for (const factor of [8, 1, 0.25]) {
        const l = { ...karmem.defaultLimits, traversalBudgetFactor: factor };
        const want = outcome(() => karmem.decode(m.layout, id, bytes, l));
        assert.equal(same(outcome(() => codec.decode(bytes, l)), want), null, `${topic.name}/${file} × ${factor}`);
        const valid = outcome(() => karmem.validate(m.layout, id, bytes, l).size);
        assert.equal(same(outcome(() => codec.validate(bytes, l).$r.size), valid), null, `${topic.name}/${file} validated × ${factor}`);
        const value = (want as { value?: unknown }).value;
        if (value !== undefined) {
          const e = outcome(() => Array.from(karmem.encode(m.layout, id, value)));
          assert.equal(same(outcome(() => Array.from(codec.encode(value))), e), null, `${topic.name}/${file} re-encoded`);
        }
      }
      n++;
    }
  }
  assert.ok(n > 0);
});

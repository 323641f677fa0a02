// Every golden vector of testdata/vectors (README.md there), run through
// the TypeScript code that `karmem build --lang ts` generated for its
// schema (scripts/test-ts.sh generates it into ts/gen/ before compiling):
// encode → the exact bytes, decode → the value, validate, reuse, viewers,
// the other schema versions' readers, and the hostile cases' verdicts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as karmem from "karmem";
import { type J, parseJson, same, structFromJson } from "./json.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const vectors = join(repo, "testdata", "vectors");
const generated = join(here, "..", "gen", "vectors");

interface Codec {
  encode(value: unknown, w?: karmem.Writer): Uint8Array;
  decode(input: karmem.Input): unknown;
  validate(input: karmem.Input): Record<string, unknown>;
  view(input: karmem.Input): Record<string, unknown>;
}
interface Module {
  layout: karmem.Schema;
  [name: string]: unknown;
}

function hexBytes(text: string): Uint8Array {
  const out: number[] = [];
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    for (const h of (i >= 0 ? line.slice(i + 1) : line).trim().split(/\s+/)) if (h !== "") out.push(parseInt(h, 16));
  }
  // An 8-aligned copy (a new ArrayBuffer starts at 0).
  return new Uint8Array(out);
}

async function load(topic: string, schemaFile: string): Promise<Module> {
  const dir = join(generated, topic, schemaFile.replace(/\.km$/, ""));
  const file = readdirSync(dir).find((f) => f.endsWith(".js"));
  assert.ok(file, `no generated module in ${dir}`);
  return (await import(join(dir, file))) as Module;
}

function root(m: Module, name: string): { id: number; codec: Codec } {
  const id = m.layout.structs.findIndex((s) => s.name === name);
  assert.ok(id >= 0, `no struct ${name}`);
  return { id, codec: m[m.layout.structs[id]!.ts] as Codec };
}

function firstDiff(a: Uint8Array, b: Uint8Array): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return `first difference at offset ${i}`;
  return "equal";
}

/** Reads every field through the viewer and compares it with the decoded
 * value: scalars, text, typed arrays, nested viewers, SoA views. */
function checkViewer(m: Module, id: number, v: Record<string, unknown>, value: Record<string, unknown>, path: string, depth = 0): void {
  if (depth > 8) return;
  const st = m.layout.structs[id]!;
  for (const f of st.fields) {
    const got = v[f.js];
    const want = value[f.js];
    const p = `${path}.${f.js}`;
    if (f.slot.k === "inline" || f.slot.k === "table") {
      checkViewer(m, f.slot.s, got as Record<string, unknown>, want as Record<string, unknown>, p, depth + 1);
    } else if (f.slot.k === "otable") {
      assert.equal(got === null, want === null, p);
      if (got !== null) checkViewer(m, f.slot.s, got as Record<string, unknown>, want as Record<string, unknown>, p, depth + 1);
    } else if (got instanceof karmem.SoaView) {
      const items = want as unknown[];
      assert.equal(got.length, items.length, p);
      items.forEach((item, i) => assert.equal(same(got.get(i), item), null, `${p}[${i}]`));
      // SoA arrays inside the element's columns, as views of their own.
      const elem = (f.slot as { a: { d: { s: number } } }).a.d.s;
      (m.layout.structs[elem]!.soa ?? []).forEach((c, k) => {
        if (c.slot.k !== "array" || c.slot.a.d.k !== "soa") return;
        items.forEach((item, i) => {
          let leaf: unknown = item;
          c.path.forEach((idx, j) => (leaf = (leaf as Record<string, unknown>)[m.layout.structs[c.steps[j]!]!.fields[idx]!.js]));
          const inner = got.nested(k, i);
          const want = leaf as unknown[];
          assert.equal(inner.length, want.length, `${p}[${i}] column ${k}`);
          want.forEach((x, j) => assert.equal(same(inner.get(j), x), null, `${p}[${i}] column ${k} [${j}]`));
          nested++;
        });
      });
    } else if (ArrayBuffer.isView(got)) {
      const items = want as unknown[];
      const arr = Array.from(got as unknown as ArrayLike<unknown>);
      const isBool = f.slot.k === "array" && f.slot.a.d.k === "plain" && f.slot.a.d.e.k === "scalar" && f.slot.a.d.e.p === "bool";
      assert.equal(same(isBool ? arr.map((x) => x !== 0) : arr, items), null, p);
    } else {
      assert.equal(same(got, want), null, p);
    }
  }
}

interface Case {
  root: string;
  schema?: string;
  value?: J;
  readers?: { [file: string]: J };
  message?: J;
  valid?: boolean;
}

const topics = readdirSync(vectors, { withFileTypes: true })
  .filter((t) => t.isDirectory())
  .map((t) => t.name)
  .sort();
let cases = 0;
let nested = 0;

for (const topic of topics) {
  const files = readdirSync(join(vectors, topic))
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const file of files) {
    cases++;
    test(`${topic}/${file}`, async () => {
      const c = parseJson(readFileSync(join(vectors, topic, file), "utf8")) as unknown as Case;
      const bytes = hexBytes(readFileSync(join(vectors, topic, file.replace(/\.json$/, ".hex")), "utf8"));
      const m = await load(topic, c.schema ?? "schema.km");
      const { id, codec } = root(m, c.root);
      if (c.message !== undefined) {
        // Hostile: the validator decides as `valid` says, the decoder
        // decodes to `value` or refuses; neither may crash.
        let refused: unknown = null;
        try {
          codec.validate(bytes);
        } catch (e) {
          refused = e;
        }
        if (c.valid === true) assert.equal(refused, null, `validator refused: ${String(refused)}`);
        else assert.ok(refused instanceof karmem.KarmemError, `validator accepted (or crashed: ${String(refused)})`);
        if (c.value === undefined) {
          assert.throws(() => codec.decode(bytes), karmem.KarmemError);
        } else {
          const want = structFromJson(m.layout, id, c.value);
          assert.equal(same(codec.decode(bytes), want), null);
        }
        // A checked viewer never throws, whatever the message holds.
        if (c.value !== undefined) checkViewer(m, id, codec.view(bytes), structFromJson(m.layout, id, c.value), "$");
        else touch(m, id, codec.view(bytes), 0);
        return;
      }
      const value = structFromJson(m.layout, id, c.value ?? null);
      const w = new karmem.Writer(16);
      const encoded = codec.encode(value, w).slice();
      assert.ok(same(Array.from(encoded), Array.from(bytes)) === null, `encoding: ${firstDiff(encoded, bytes)}`);
      const decoded = codec.decode(bytes) as Record<string, unknown>;
      assert.equal(same(decoded, value), null, "decoding");
      const viewer = codec.validate(bytes);
      checkViewer(m, id, viewer, decoded, "$");
      checkViewer(m, id, codec.view(bytes), decoded, "$");
      // Reuse: the same writer again, a shared-memory copy, a view at an
      // 8-aligned offset inside a larger buffer.
      assert.equal(same(Array.from(codec.encode(decoded, w)), Array.from(bytes)), null, "re-encoding");
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 16), 8, bytes.length);
      shared.set(bytes);
      assert.equal(same(codec.decode(shared), value), null, "decoding from shared memory");
      codec.validate(shared);
      for (const [other, stated] of Object.entries(c.readers ?? {})) {
        const o = await load(topic, other);
        const r = root(o, c.root);
        r.codec.validate(bytes);
        const got = r.codec.decode(bytes);
        assert.equal(same(got, structFromJson(o.layout, r.id, stated)), null, `read by ${other}`);
        checkViewer(o, r.id, r.codec.view(bytes), got as Record<string, unknown>, "$");
      }
    });
  }
}

/** Reads every getter (a decoder refused the message: the viewer must
 * still read it without throwing). */
function touch(m: Module, id: number, v: Record<string, unknown>, depth: number): void {
  for (const f of m.layout.structs[id]!.fields) {
    const got = v[f.js];
    if (depth < 4 && (f.slot.k === "inline" || f.slot.k === "table")) touch(m, f.slot.s, got as Record<string, unknown>, depth + 1);
    if (got instanceof karmem.SoaView) for (let i = 0; i < Math.min(got.length, 4); i++) got.get(i);
  }
}

test("every case was found", () => {
  // testdata/vectors/README.md: a runner that finds nothing cannot pass.
  assert.ok(cases >= 66, `only ${cases} cases`);
  // SoaView.nested was exercised (struct_arrays and evolution have SoA
  // arrays inside SoA elements).
  assert.ok(nested > 0, "no SoA array inside an SoA element was viewed");
});

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
import { type Module, checkViewer, touchViewer, viewed } from "./viewcheck.js";
import { checkSetters, edited, touchSetters } from "./editcheck.js";
import { checkDecodeInto, reused } from "./reusecheck.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const vectors = join(repo, "testdata", "vectors");
const generated = join(here, "..", "gen", "vectors");

interface Codec {
  encode(value: unknown, w?: karmem.Writer): Uint8Array;
  decode(input: karmem.Input): unknown;
  decodeInto(input: karmem.Input, x: unknown): unknown;
  validate(input: karmem.Input): Record<string, unknown>;
  view(input: karmem.Input): Record<string, unknown>;
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

interface Case {
  root: string;
  schema?: string;
  value?: J;
  readers?: { [file: string]: J };
  message?: J;
  valid?: boolean;
  /** The kind of error every validator reports (testdata/vectors/README.md). */
  error?: string;
}

const topics = readdirSync(vectors, { withFileTypes: true })
  .filter((t) => t.isDirectory())
  .map((t) => t.name)
  .sort();
let cases = 0;
/** The last valid message per topic, schema and root: `decodeInto` of the
 * next one reuses its decoded value (other lengths, other contents). */
const last = new Map<string, Uint8Array>();

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
        if (c.error !== undefined) assert.equal((refused as karmem.KarmemError).kind, c.error);
        if (c.value === undefined) {
          assert.throws(() => codec.decode(bytes), karmem.KarmemError);
          assert.throws(() => codec.decodeInto(bytes, structFromJson(m.layout, id, null)), karmem.KarmemError);
        } else {
          const want = structFromJson(m.layout, id, c.value);
          assert.equal(same(codec.decode(bytes), want), null);
          checkDecodeInto((b, x) => codec.decodeInto(b, x), bytes, codec.decode(bytes) as object, want, "hostile");
        }
        // A checked viewer never throws, whatever the message holds.
        if (c.value !== undefined) checkViewer(m, id, codec.view(bytes), structFromJson(m.layout, id, c.value), "$");
        else touchViewer(codec.view(bytes));
        // Nor does an editor: every setter writes or refuses with a KarmemError.
        touchSetters(m, codec, id, bytes);
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
      // Decoding into an existing value: this message's own, and the last
      // message's of the same root.
      const into = (b: Uint8Array, x: unknown) => codec.decodeInto(b, x);
      checkDecodeInto(into, bytes, codec.decode(bytes) as object, value, "decodeInto (same message)");
      const key = `${topic}/${c.schema ?? "schema.km"}/${c.root}`;
      const prior = last.get(key);
      if (prior !== undefined) checkDecodeInto(into, bytes, codec.decode(prior) as object, value, "decodeInto (another message)");
      last.set(key, bytes);
      // In-place setters (format.md §12), each on a fresh copy.
      checkSetters(m, codec, id, bytes, decoded);
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
        // Another version's setters over this message: fields it does not
        // hold are refused.
        checkSetters(o, r.codec, r.id, bytes, got as Record<string, unknown>);
      }
    });
  }
}

test("every case was found", () => {
  // testdata/vectors/README.md: a runner that finds nothing cannot pass.
  assert.ok(cases >= 66, `only ${cases} cases`);
  // Every kind of view was compared with decoded values: SoaView.nested
  // (struct_arrays and evolution have SoA arrays inside SoA elements),
  // unions, maps, AoS arrays of structs, arrays of arrays and of unions.
  for (const [kind, n] of Object.entries(viewed)) assert.ok(n > 0, `no ${kind} view was compared`);
  // Every kind of in-place edit happened, and some were refused.
  for (const [kind, n] of Object.entries(edited)) assert.ok(n > 0, `no ${kind} edit`);
  // decodeInto reused arrays, maps and nested objects.
  for (const [kind, n] of Object.entries(reused)) assert.ok(n > 0, `no ${kind} reused`);
});

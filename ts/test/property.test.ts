// Property tests (fast-check) over the schema test/schemas/prop.km, whose
// generated module scripts/test-ts.sh writes to gen/test/prop: random
// values round-trip exactly, validate, and read the same through viewers;
// random damage to a message never makes the decoder, the validator or a
// viewer throw anything but a KarmemError.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as karmem from "karmem";
import * as prop from "../gen/test/prop/prop.js";
import { Root, type Item } from "../gen/test/prop/prop.js";
import { root } from "./arbitrary.js";
import { same } from "./json.js";
import { type Module, checkViewer, touchViewer } from "./viewcheck.js";
import { touchSetters } from "./editcheck.js";

/** What a bunch-of-values array reads back as: grouped by variant in
 * declaration order, nulls dropped (docs/format.md §7.1). */
function grouped(items: Item[]): Item[] {
  return [...items.filter((i) => i?.kind === "Leaf"), ...items.filter((i) => i?.kind === "Vec")];
}

test("values round-trip, validate and view the same", () => {
  fc.assert(
    fc.property(root, (v) => {
      const bytes = Root.encode(v);
      const back = Root.decode(bytes);
      const want = { ...v, bunch: grouped(v.bunch), bunches: grouped(v.bunches) };
      assert.equal(same(back, want), null);
      const viewer = Root.validate(bytes);
      assert.equal(viewer.text, v.text);
      assert.equal(viewer.wide, v.wide);
      assert.equal(viewer.d, v.d);
      assert.equal(viewer.maybe, v.maybe);
      assert.equal(viewer.root.name, v.root.name);
      assert.equal(viewer.opt?.id ?? null, v.opt?.id ?? null);
      assert.equal(same(Array.from(viewer.floats), v.floats), null);
      assert.equal(same(Array.from(viewer.longs), v.longs), null);
      // Every field through the viewers, unions, maps and nested arrays too.
      const rootId = prop.layout.structs.findIndex((s) => s.name === "Root");
      checkViewer(prop, rootId, viewer as unknown as Record<string, unknown>, back as unknown as Record<string, unknown>, "$");
      const xs = viewer.points.column(0);
      assert.equal(same(Array.from((xs ?? []) as ArrayLike<number>), v.points.map((p) => p.x)), null);
      // Equal values give equal bytes (§8): the decoded value again.
      assert.equal(same(Array.from(Root.encode(back)), Array.from(bytes)), null);
    }),
    { numRuns: 300, includeErrorInReport: true },
  );
});

const rootId = prop.layout.structs.findIndex((s) => s.name === "Root");

test("damaged messages: KarmemError or a value, never a crash", () => {
  fc.assert(
    fc.property(
      root,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
      (v, damage) => {
        const bytes = Root.encode(v).slice();
        for (const [at, b] of damage) bytes[8 + (at % (bytes.length - 8))] = b;
        let valid = true;
        try {
          Root.validate(bytes);
        } catch (e) {
          assert.ok(e instanceof karmem.KarmemError, String(e));
          valid = false;
        }
        let decoded: unknown = null;
        try {
          decoded = Root.decode(bytes);
        } catch (e) {
          assert.ok(e instanceof karmem.KarmemError, String(e));
          // A message that validates decodes within the same budget (§10).
          assert.ok(!valid, `validated but not decoded: ${String(e)}`);
        }
        // Into the undamaged value: the same value, or the same refusal.
        try {
          const into = Root.decodeInto(bytes, Root.decode(Root.encode(v)));
          assert.equal(same(into, decoded), null, "decodeInto differs from decode");
        } catch (e) {
          assert.ok(e instanceof karmem.KarmemError && decoded === null, String(e));
        }
        touchViewer(Root.view(bytes));
        // Every setter over the damaged bytes writes or refuses.
        touchSetters(prop as unknown as Module, Root as never, rootId, bytes);
      },
    ),
    { numRuns: 500, includeErrorInReport: true },
  );
});

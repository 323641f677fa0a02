// The limits of docs/format.md §10 through generated code (test/schemas/
// prop.km): nesting depth and the traversal budget, in the decoder and the
// validator alike, and a writer over a caller's buffer.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as karmem from "karmem";
import { kindOf } from "./kind.js";
import { Leaf, Root, type Leaf as LeafValue } from "../gen/test/prop/prop.js";

function chain(n: number): LeafValue {
  let leaf: LeafValue = { id: 0n, name: "", next: null };
  for (let i = 1; i < n; i++) leaf = { id: BigInt(i), name: "x", next: leaf };
  return leaf;
}


test("depth: 64 tables pass, 65 are refused; the limit is the caller's", () => {
  const ok = Leaf.encode(chain(64));
  assert.equal(kindOf(() => Leaf.decode(ok)), "none");
  assert.equal(kindOf(() => Leaf.validate(ok)), "none");
  const deep = Leaf.encode(chain(65));
  assert.equal(kindOf(() => Leaf.decode(deep)), "DepthExceeded");
  assert.equal(kindOf(() => Leaf.validate(deep)), "DepthExceeded");
  const limits = { ...karmem.defaultLimits, maxDepth: 100 };
  assert.equal(kindOf(() => Leaf.decode(deep, limits)), "none");
  assert.equal(kindOf(() => Leaf.validate(deep, limits)), "none");
  // A viewer does not recurse: it reads the deepest table on request.
  let v: ReturnType<typeof Leaf.view> | null = Leaf.view(deep);
  let n = 0;
  while (v !== null) {
    n++;
    v = v.next;
  }
  assert.equal(n, 65);
});

test("budget: a smaller factor refuses what the default accepts", () => {
  const m = Leaf.encode(chain(8));
  const tight = { ...karmem.defaultLimits, traversalBudgetFactor: 0 };
  assert.equal(kindOf(() => Leaf.decode(m, tight)), "BudgetExceeded");
  assert.equal(kindOf(() => Leaf.validate(m, tight)), "BudgetExceeded");
  assert.equal(kindOf(() => Leaf.decode(m)), "none");
});

test("viewers never throw: views read in place without a budget", () => {
  // Found by the damaged-messages property: a getter that decoded on
  // access ran out of budget and threw. Every kind is now read in place
  // by views, which charge no budget (§10: each access is O(1)): `#bovos`
  // union arrays and SoA elements too, which were decoded and read as zero
  // over the limits.
  const zero = Root.decode(Root.encode({} as never));
  const value = { ...zero, leavesAos: [chain(3)], one: { kind: "Leaf", value: chain(3) }, bunches: [{ kind: "Leaf", value: chain(2) }] } as const;
  const m = Root.encode(value as never);
  const tight = { ...karmem.defaultLimits, traversalBudgetFactor: 0 };
  assert.equal(kindOf(() => Root.decode(m, tight)), "BudgetExceeded");
  const v = Root.view(m, tight);
  assert.equal(v.leavesAos.length, 1);
  assert.equal(v.leavesAos.get(0).name, "x");
  assert.equal(v.leavesAos.get(0).next?.next?.id, 0n);
  assert.equal(v.one?.kind, "Leaf");
  assert.equal(v.bunches.length, 1);
  assert.equal(v.bunches.get(0)?.kind, "Leaf");
  assert.equal(v.names.size, 0);
  assert.equal(v.leaves.get(0).name, "");
});

test("a writer over a caller's buffer builds the same message in place", () => {
  const value = chain(3);
  const grown = Leaf.encode(value).slice();
  const region = new Uint8Array(new SharedArrayBuffer(256), 64, 128);
  const w = karmem.Writer.over(region);
  const inPlace = Leaf.encode(value, w);
  assert.equal(inPlace.buffer, region.buffer);
  assert.deepEqual(Array.from(inPlace), Array.from(grown));
  assert.equal(Leaf.validate(inPlace).next?.name, "x");
  assert.equal(kindOf(() => Leaf.encode(chain(40), w)), "TooLarge");
  // Limited arrays refuse longer values instead of writing them.
  assert.equal(kindOf(() => karmem.encode(limitedSchema, 0, { a: [1, 2, 3] })), "LimitExceeded");
});

const limitedSchema: karmem.Schema = {
  structs: [
    {
      name: "R",
      ts: "R",
      table: true,
      tuple: false,
      size: 16,
      zero: 16,
      header: 2,
      check: true,
      fields: [
        { name: "A", js: "a", off: 4, size: 12, slot: { k: "array", a: { limit: 2, text: null, map: false, d: { k: "plain", size: 1, e: { k: "scalar", p: "u8" } } } } },
      ],
    },
  ],
  unions: [],
  enums: [],
};

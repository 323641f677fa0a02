// The encoder refuses values their field's type cannot hold (InvalidValue)
// instead of wrapping them: TypeScript's types stop them at compile time,
// but JSON and plain JavaScript objects reach `encode` unchecked.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as karmem from "karmem";
import { Root, type Root as RootValue } from "../gen/test/prop/prop.js";
import { kindOf } from "./kind.js";

/** `Root` with one field replaced, past the type checker. */
function withField(name: string, v: unknown): RootValue {
  return { [name]: v } as unknown as RootValue;
}

test("integers at their extremes encode and decode unchanged", () => {
  const v = withField("a", 255);
  Object.assign(v, { b: -32768, c: 0xffffffff, d: -(1n << 63n), longs: [0n, (1n << 64n) - 1n, 7] });
  const back = Root.decode(Root.encode(v));
  assert.equal(back.a, 255);
  assert.equal(back.b, -32768);
  assert.equal(back.c, 0xffffffff);
  assert.equal(back.d, -(1n << 63n));
  assert.deepEqual(back.longs, [0n, (1n << 64n) - 1n, 7n]);
});

test("values a field cannot hold are InvalidValue, not wrapped", () => {
  const cases: [string, unknown][] = [
    ["a", 256],
    ["a", -1],
    ["a", 1.5],
    ["a", "1"],
    ["a", NaN],
    ["b", 32768],
    ["b", -32769],
    ["c", 2 ** 32],
    ["c", -1],
    ["d", 1n << 63n],
    ["d", -(1n << 63n) - 1n],
    ["d", 2 ** 60], // a number past 2^53 may already be rounded
    ["d", 0.5],
    ["e", 1n],
    ["f", 1],
    ["f", "true"],
    ["longs", [1n << 64n]],
    ["longs", [-1n]],
    ["fixed", [40000, 0]],
    ["short", [1, 2, 300]],
    ["floats", ["x"]],
  ];
  for (const [field, value] of cases) {
    const label = `${field} = ${typeof value === "bigint" ? `${value}n` : JSON.stringify(value, (_, x) => (typeof x === "bigint" ? `${x}n` : x))}`;
    assert.equal(kindOf(() => Root.encode(withField(field, value))), "InvalidValue", label);
  }
});

test("the error says which value and type", () => {
  try {
    Root.encode(withField("a", 300));
    assert.fail("encoded 300 as a u8");
  } catch (e) {
    assert.ok(e instanceof karmem.KarmemError);
    assert.match(e.message, /300 is not a u8/);
  }
});

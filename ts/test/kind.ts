// Test helper: the kind of the KarmemError a call throws ("none" when it
// returns); any other exception fails the test.
import assert from "node:assert/strict";
import * as karmem from "karmem";

export function kindOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof karmem.KarmemError, String(e));
    return e.kind;
  }
  return "none";
}

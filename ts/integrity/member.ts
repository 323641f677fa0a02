// The TypeScript member of the cross-language integrity suite
// (docs/integrity.md): produce, stream, consume and round trip for both
// versions of testdata/integrity's schema, with the code `karmem build
// --lang ts` generates from them (scripts/test-ts.sh writes it to
// ts/gen/integrity/), and the line protocol of §4 (answer).

import { createHash } from "node:crypto";
import * as karmem from "karmem";
import * as v1 from "../gen/integrity/old/integrity.js";
import * as v2 from "../gen/integrity/new/integrity.js";
import { drawRoot } from "./draw.js";
import { walkRoot, type RootLike } from "./walk.js";

interface Version {
  readonly newer: boolean;
  readonly layout: karmem.Schema;
  encode(root: v2.Root): Uint8Array;
  /** Validates the message (a KarmemError if it does not pass) and gives
   * the checked viewer of its root. */
  view(msg: Uint8Array): RootLike;
  decode(msg: Uint8Array): unknown;
  reencode(value: unknown): Uint8Array;
}

const VERSIONS: Record<string, Version> = {
  old: {
    newer: false,
    layout: v1.layout,
    // The old draws make no Star and no Purple, and the old layout has no
    // field for the new-only properties, which it does not write.
    encode: (root) => v1.Root.encode(root as unknown as v1.Root),
    view: (msg) => {
      v1.Root.validate(msg);
      return v1.Root.view(msg);
    },
    decode: (msg) => v1.Root.decode(msg),
    reencode: (value) => v1.Root.encode(value as v1.Root),
  },
  new: {
    newer: true,
    layout: v2.layout,
    encode: (root) => v2.Root.encode(root),
    view: (msg) => {
      v2.Root.validate(msg);
      return v2.Root.view(msg);
    },
    decode: (msg) => v2.Root.decode(msg),
    reencode: (value) => v2.Root.encode(value as v2.Root),
  },
};

function version(name: string): Version {
  const v = VERSIONS[name];
  if (v === undefined || !Object.hasOwn(VERSIONS, name)) throw new Error(`unknown version "${name}" (want old or new)`);
  return v;
}

/** The message of seed (§2) in a version. */
export function produce(name: string, seed: bigint): Uint8Array {
  const v = version(name);
  return v.encode(drawRoot(seed, v));
}

/** The canonical bytes of §3: the message validated, then its root read
 * with the checked viewer (the validator's trusted viewer would do too;
 * the checked one is the read path every message can take). */
export function stream(name: string, msg: Uint8Array): Uint8Array {
  const v = version(name);
  return walkRoot(v.view(msg), v);
}

export function consume(name: string, msg: Uint8Array): string {
  return createHash("sha256").update(stream(name, msg)).digest("hex");
}

/** Decoded into the version's object type and encoded again: the writer
 * is canonical, so the bytes must be the message's. */
export function roundTrip(name: string, msg: Uint8Array): void {
  const v = version(name);
  const again = v.reencode(v.decode(msg));
  if (Buffer.compare(Buffer.from(again), Buffer.from(msg)) !== 0) {
    let at = 0;
    while (at < again.length && at < msg.length && again[at] === msg[at]) at++;
    throw new Error(
      `decoding and encoding again changed the message (${msg.length} bytes, then ${again.length}; first difference at byte ${at})`,
    );
  }
}

/** A message from hex, copied to an 8-aligned buffer (a Buffer may share
 * an unaligned pool). */
function unhex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error("the message is not hex");
  const out = new Uint8Array(hex.length / 2);
  out.set(Buffer.from(hex, "hex"));
  return out;
}

function parseSeed(s: string): bigint {
  if (!/^[0-9]{1,20}$/.test(s)) throw new Error(`seed "${s}" is not a u64`);
  const x = BigInt(s);
  if (x >= 1n << 64n) throw new Error(`seed "${s}" is not a u64`);
  return x;
}

function answerOrThrow(line: string): string {
  const words = line.trim().split(/[ \t]+/);
  if (words.length !== 3) throw new Error(`expected \`<command> <old|new> <argument>\`, got "${line.slice(0, 60)}"`);
  const [cmd, name, arg] = words as [string, string, string];
  version(name);
  switch (cmd) {
    case "produce":
      return Buffer.from(produce(name, parseSeed(arg))).toString("hex");
    case "consume":
      return consume(name, unhex(arg));
    case "stream":
      return Buffer.from(stream(name, unhex(arg))).toString("hex");
    case "roundtrip":
      roundTrip(name, unhex(arg));
      return "ok";
    default:
      throw new Error(`unknown command "${cmd}"`);
  }
}

/** The answer line to one request line (§4), never throwing: a failure
 * (a bad request, a message that does not validate) is `error <reason>`
 * on one line. */
export function answer(line: string): string {
  try {
    return answerOrThrow(line);
  } catch (e) {
    const reason = e instanceof karmem.KarmemError ? `${e.kind} at byte ${e.offset}` : e instanceof Error ? e.message : String(e);
    return "error " + reason.split(/\s+/).join(" ");
  }
}

// karmem-integrity-as: the AssemblyScript member's command of the
// cross-language integrity suite (docs/integrity.md §4), run with Node.
// scripts/build-integrity-as.sh compiles as/integrity/member.ts once per
// schema version (old.wasm, new.wasm) and puts this file next to them; the
// producer, the consumer's walk and the round trip run inside the modules,
// and this file does what AssemblyScript cannot: the line protocol on
// standard input and output, hex, and the SHA-256 (node:crypto) of the
// stream a module gives. A module that traps (an assertion, a bounds
// check) answers `error` and is instantiated anew for the next request.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

/** An AssemblyScript string at `ptr` (its byte length in the word before). */
function text(memory, ptr) {
  if (!ptr) return "";
  const bytes = new Uint32Array(memory.buffer, ptr - 4, 1)[0];
  return Buffer.from(new Uint8Array(memory.buffer, ptr, bytes)).toString("utf16le");
}

class Version {
  constructor(name) {
    this.module = new WebAssembly.Module(readFileSync(new URL(`${name}.wasm`, import.meta.url)));
    this.start();
  }

  start() {
    let memory;
    const env = {
      abort(msg, file, line, col) {
        throw new Error(`abort: ${text(memory, msg)} at ${text(memory, file)}:${line}:${col}`);
      },
    };
    this.x = new WebAssembly.Instance(this.module, { env }).exports;
    memory = this.x.memory;
  }

  /** Runs `call` (status 0: the answer's bytes; 1: an error's reason). */
  run(call) {
    let status;
    try {
      status = call(this.x);
    } catch (e) {
      this.start();
      throw new Error(`trap: ${e.message}`);
    }
    const bytes = Buffer.from(new Uint8Array(this.x.memory.buffer, this.x.resultPtr(), this.x.resultLen()));
    if (status !== 0) throw new Error(bytes.toString("utf8"));
    return bytes;
  }

  /** Copies the message into the module, then runs `call`. */
  with(msg, call) {
    return this.run((x) => {
      // input() may grow the memory, which detaches the old buffer: take
      // the buffer after it.
      const at = x.input(msg.length);
      new Uint8Array(x.memory.buffer, at, msg.length).set(msg);
      return call(x);
    });
  }
}

const versions = { old: new Version("old"), new: new Version("new") };

function unhex(hex) {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error("the message is not hex");
  return Buffer.from(hex, "hex");
}

function parseSeed(s) {
  if (!/^[0-9]{1,20}$/.test(s) || BigInt(s) >= 1n << 64n) throw new Error(`seed "${s}" is not a u64`);
  // The module's u64 parameter takes the bits as a signed BigInt.
  return BigInt.asIntN(64, BigInt(s));
}

function answerOrThrow(line) {
  const words = line.trim().split(/[ \t]+/);
  if (words.length !== 3) throw new Error(`expected \`<command> <old|new> <argument>\`, got "${line.slice(0, 60)}"`);
  const [cmd, name, arg] = words;
  if (!Object.hasOwn(versions, name)) throw new Error(`unknown version "${name}" (want old or new)`);
  const v = versions[name];
  switch (cmd) {
    case "produce": {
      const seed = parseSeed(arg);
      return v.run((x) => x.produce(seed)).toString("hex");
    }
    case "consume":
      return createHash("sha256").update(v.with(unhex(arg), (x) => x.stream())).digest("hex");
    case "stream":
      return v.with(unhex(arg), (x) => x.stream()).toString("hex");
    case "roundtrip":
      v.with(unhex(arg), (x) => x.roundtrip());
      return "ok";
    default:
      throw new Error(`unknown command "${cmd}"`);
  }
}

/** The answer line to one request line, never throwing. */
function answer(line) {
  try {
    return answerOrThrow(line);
  } catch (e) {
    return "error " + String(e instanceof Error ? e.message : e).split(/\s+/).join(" ");
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  // A blank line is no request (as the other members treat it).
  if (line.trim() === "") continue;
  process.stdout.write(answer(line) + "\n");
}

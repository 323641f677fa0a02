// Runs the compiled golden-vector driver (crates/karmem-vectors-as):
// node run.mjs driver.wasm CASES. Copies each case's bytes (cases/N.bin)
// into the module, runs it and prints every line the driver reports; a
// trap is reported as a `crash` line and the module is instantiated anew.
import fs from "node:fs";

const wasm = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
const count = Number(process.argv[3]);
const lines = [];
let exports;

/** An AssemblyScript string at `ptr` (its byte length is in the word before it). */
function text(ptr) {
  if (!ptr) return "";
  const buf = exports.memory.buffer;
  const bytes = new Uint32Array(buf, ptr - 4, 1)[0];
  return Buffer.from(new Uint8Array(buf, ptr, bytes)).toString("utf16le");
}

function instantiate() {
  let memory;
  const env = {
    report(ptr, units) {
      lines.push(Buffer.from(new Uint8Array(memory.buffer, ptr, units * 2)).toString("utf16le"));
    },
    abort(msg, file, line, col) {
      throw new Error(`abort: ${text(msg)} at ${text(file)}:${line}:${col}`);
    },
  };
  exports = new WebAssembly.Instance(wasm, { env }).exports;
  memory = exports.memory;
}

instantiate();
for (let i = 0; i < count; i++) {
  const bytes = fs.readFileSync(`cases/${i}.bin`);
  try {
    const p = exports.inputBuffer(bytes.length);
    new Uint8Array(exports.memory.buffer, p, bytes.length).set(bytes);
    exports.run(i, bytes.length);
  } catch (e) {
    lines.push(`${i}\tcrash\t${e}`);
    instantiate();
  }
}
if (exports.mapOrder) exports.mapOrder();
process.stdout.write(lines.join("\n") + "\n");

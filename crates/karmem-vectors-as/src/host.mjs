// What the compiled driver imports (crates/karmem-vectors-as): `report`,
// which hands the host one result line, and AssemblyScript's `abort`,
// turned into an exception that names the message and the place.

/** An AssemblyScript string at `ptr` in `memory` (its byte length is in the word before it). */
function text(memory, ptr) {
  if (!ptr) return "";
  const bytes = new Uint32Array(memory.buffer, ptr - 4, 1)[0];
  return Buffer.from(new Uint8Array(memory.buffer, ptr, bytes)).toString("utf16le");
}

/** A new instance of `module` whose reported lines go to `lines`; returns its exports. */
export function instantiate(module, lines) {
  let memory;
  const env = {
    report(ptr, units) {
      lines.push(Buffer.from(new Uint8Array(memory.buffer, ptr, units * 2)).toString("utf16le"));
    },
    abort(msg, file, line, col) {
      throw new Error(`abort: ${text(memory, msg)} at ${text(memory, file)}:${line}:${col}`);
    },
  };
  const exports = new WebAssembly.Instance(module, { env }).exports;
  memory = exports.memory;
  return exports;
}

/** Copies `bytes` into the module's input buffer; returns their length. */
export function put(exports, bytes) {
  const p = exports.inputBuffer(bytes.length);
  new Uint8Array(exports.memory.buffer, p, bytes.length).set(bytes);
  return bytes.length;
}

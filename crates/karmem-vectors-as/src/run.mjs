// Runs the compiled golden-vector driver (crates/karmem-vectors-as):
// node run.mjs driver.wasm CASES. Copies each case's bytes (cases/N.bin)
// into the module, runs it and prints every line the driver reports; a
// trap is reported as a `crash` line and the module is instantiated anew.
import fs from "node:fs";
import { instantiate, put } from "./host.mjs";

const wasm = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
const count = Number(process.argv[3]);
const lines = [];
let exports = instantiate(wasm, lines);
for (let i = 0; i < count; i++) {
  try {
    exports.run(i, put(exports, fs.readFileSync(`cases/${i}.bin`)));
  } catch (e) {
    lines.push(`${i}\tcrash\t${e}`);
    exports = instantiate(wasm, lines);
  }
}
if (exports.mapOrder) exports.mapOrder();
process.stdout.write(lines.join("\n") + "\n");

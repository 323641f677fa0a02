// The Node host of the AssemblyScript reader (docs/quickstart.md):
// AssemblyScript has no file I/O, so this reads the file named by the first
// argument, hands its bytes to the module (through the bindings asc wrote
// with --bindings esm) and prints what it returns.
import { readFileSync } from "node:fs";
import { describe } from "./build/main.js";

console.log(describe(readFileSync(process.argv[2])));

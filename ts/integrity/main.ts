// karmem-integrity-ts: the TypeScript member's command of the
// cross-language integrity suite (docs/integrity.md §4), run with Node
// (`node ts/dist/integrity/main.js` after scripts/test-ts.sh). It reads
// requests from standard input, one per line, and answers each with one
// line on standard output, until the input ends. readline has no line
// length limit (lines carry whole messages as hex), and each answer is
// written before the next line is read: the harness waits for it.

import { createInterface } from "node:readline";
import { answer } from "./member.js";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  // A blank line is no request (as the other members treat it).
  if (line.trim() === "") continue;
  process.stdout.write(answer(line) + "\n");
}

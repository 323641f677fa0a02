// The TypeScript side of the quick start (docs/quickstart.md): reads the
// message the Go program wrote (the file named by the first argument),
// validates it once, reads it in place and prints it as the other
// languages do.
import { readFileSync } from "node:fs";
import { Message } from "./gen/chat.js";

const bytes = new Uint8Array(readFileSync(process.argv[2]!));
const m = Message.validate(bytes); // throws a KarmemError when invalid
const tags = [...m.tags].map(([k, v]) => `${k}=${v}`);
const reactions: string[] = [];
for (let i = 0; i < m.reactions.length; i++) {
  const r = m.reactions.get(i);
  reactions.push(`${r.emoji}=${r.count}`);
}
const edited = m.editedAt;
console.log(
  `message ${m.id} ${JSON.stringify(m.text)} tags [${tags.join(" ")}] reactions [${reactions.join(" ")}] edited ${edited ?? 0} ${edited !== null}`,
);

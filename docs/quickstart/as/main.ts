// The AssemblyScript side of the quick start (docs/quickstart.md): takes the
// message the Go program wrote (main.mjs reads the file and passes its
// bytes in), validates it and decodes it, and returns the line the other
// languages print.
import { KarmemError, errorName } from "karmem-as/assembly";
import { Message } from "./gen/chat";

export function describe(bytes: Uint8Array): string {
  const m = new Message();
  const err = Message.decode(bytes.dataStart, bytes.byteLength, m); // validates, then fills m
  if (err != KarmemError.None) throw new Error(`invalid message: ${errorName(err)}`);
  const tags = m.tags.map<string>((e) => `${e.key}=${e.value}`);
  const reactions = m.reactions.map<string>((r) => `${r.emoji}=${r.count}`);
  const edited = m.editedAt; // a Box<u64>, or null when absent
  return `message ${m.id} "${m.text}" tags [${tags.join(" ")}] reactions [${reactions.join(" ")}]` +
    ` edited ${edited ? edited.value : 0} ${edited != null}`;
}

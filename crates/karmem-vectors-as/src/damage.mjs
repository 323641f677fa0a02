// Damaged messages through the compiled driver (crates/karmem-vectors-as):
// node damage.mjs driver.wasm CASES ROUNDS SEED. Every case's bytes are
// damaged ROUNDS times (a truncation, flipped bytes, a random 32-bit word,
// two equal words (a length and a capacity),
// from a seeded PRNG, so a failure can be replayed) and read with the
// case's root type: validate, checked decode, lenient read, and encoding
// what was read (growable, and into 64 bytes of caller memory that it must
// not write past). Each may refuse; none may trap (an AssemblyScript abort
// or `unreachable` is a trap). Prints `messages accepted refused traps`,
// then one line per trap.
import fs from "node:fs";
import { instantiate, put } from "./host.mjs";

const wasm = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
const count = Number(process.argv[3]);
const rounds = Number(process.argv[4]);
let state = BigInt(process.argv[5]) | 1n;

/** xorshift64*: 32 random bits. */
function next() {
  state ^= state >> 12n;
  state ^= (state << 25n) & 0xffffffffffffffffn;
  state ^= state >> 27n;
  return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 32n);
}

/** A damaged copy of `bytes`. */
function damage(bytes) {
  const out = Uint8Array.from(bytes);
  switch (next() % 5) {
    case 0: // truncated, its header still claiming the whole size
      return out.subarray(0, next() % (out.length + 1));
    case 1: // a few flipped bytes past the header
      for (let k = 1 + (next() % 4); k > 0; k--) {
        if (out.length > 8) out[8 + (next() % (out.length - 8))] ^= 1 << (next() % 8);
      }
      return out;
    case 2: { // a random word at a 4-aligned place (an offset, length or count)
      if (out.length >= 12) {
        const at = 8 + 4 * (next() % ((out.length - 8) >> 2));
        const word = next() % 3 === 0 ? next() % 64 : next();
        new DataView(out.buffer).setUint32(at, word >>> 0, true);
      }
      return out;
    }
    case 3: { // two words set to one value: an array's length and capacity
      if (out.length >= 16) {
        const at = 8 + 4 * (next() % ((out.length - 12) >> 2));
        const word = next() % 2 === 0 ? next() % 4096 : next();
        new DataView(out.buffer).setUint32(at, word >>> 0, true);
        new DataView(out.buffer).setUint32(at + 4, word >>> 0, true);
      }
      return out;
    }
    default: // a random byte anywhere, the header included
      out[next() % out.length] = next() & 0xff;
      return out;
  }
}

let exports = instantiate(wasm, []);
let messages = 0, accepted = 0, refused = 0;
const traps = [];
for (let i = 0; i < count; i++) {
  const bytes = fs.readFileSync(`cases/${i}.bin`);
  for (let r = 0; r < rounds; r++) {
    const msg = damage(bytes);
    messages++;
    try {
      const result = exports.damaged(i, put(exports, msg));
      if (result === 2) traps.push(`case ${i} round ${r}: a fixed writer wrote outside its range`);
      else if (result === 3) traps.push(`case ${i} round ${r}: the checked view differs from the decoder (${Buffer.from(msg).toString("hex")})`);
      else if (result === 5) traps.push(`case ${i} round ${r}: read into a used object, the value differs (${Buffer.from(msg).toString("hex")})`);
      else if (result === 6) traps.push(`case ${i} round ${r}: a refused edit changed the message (${Buffer.from(msg).toString("hex")})`);
      else if (result === 4) traps.push(`case ${i} round ${r}: the trusted view differs from the decoder (${Buffer.from(msg).toString("hex")})`);
      else if (result === 1) accepted++;
      else refused++;
    } catch (e) {
      traps.push(`case ${i} round ${r}: ${e} (${Buffer.from(msg).toString("hex")})`);
      exports = instantiate(wasm, []);
    }
  }
}
console.log(`${messages} ${accepted} ${refused} ${traps.length}`);
for (const t of traps.slice(0, 20)) console.log(t);

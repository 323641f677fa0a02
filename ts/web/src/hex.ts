// Bytes as text: reading pasted hex and the vectors' `.hex` files, and the
// hex dump beside the tree.

/**
 * Parses hex the way testdata/vectors/README.md reads `.hex` files: on each
 * line the text after the first `:` (the whole line if there is none). It
 * also takes pasted hex without spaces (`4b4d0200…`) and a `0x` before a
 * byte. Returns the bytes in a fresh buffer, which is 8-aligned as the
 * format asks (§1), or a message saying what is wrong.
 */
export function parseHex(text: string): Uint8Array | string {
  const out: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const colon = line.indexOf(":");
    for (let word of (colon >= 0 ? line.slice(colon + 1) : line).trim().split(/[\s,]+/)) {
      if (word === "") continue;
      if (/^0x/i.test(word)) word = word.slice(2);
      if (!/^[0-9a-fA-F]+$/.test(word)) return `line ${n + 1}: "${word.slice(0, 20)}" is not hexadecimal`;
      if (word.length % 2 !== 0) return `line ${n + 1}: "${word.slice(0, 20)}" has an odd number of digits`;
      for (let i = 0; i < word.length; i += 2) out.push(parseInt(word.slice(i, i + 2), 16));
    }
  }
  return new Uint8Array(out);
}

/** At most this many bytes are drawn in the dump (4 096 lines): a larger
 * message is still read whole, only its dump is cut. */
export const DUMP_LIMIT = 65536;

const printable = (b: number): string => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".");

/**
 * Draws the hex dump of `bytes` into `table`: one row per 16 bytes with the
 * offset, the bytes and their ASCII. Returns the byte cells (hex and ASCII
 * per byte) so that ranges can be highlighted.
 */
export function drawDump(table: HTMLTableSectionElement, bytes: Uint8Array): { hex: HTMLElement[]; ascii: HTMLElement[] } {
  table.replaceChildren();
  const hex: HTMLElement[] = [];
  const ascii: HTMLElement[] = [];
  const n = Math.min(bytes.length, DUMP_LIMIT);
  const doc = table.ownerDocument;
  for (let line = 0; line < n; line += 16) {
    const tr = doc.createElement("tr");
    const off = doc.createElement("th");
    off.scope = "row";
    off.textContent = line.toString(16).padStart(8, "0");
    const h = doc.createElement("td");
    h.className = "bytes";
    const a = doc.createElement("td");
    a.className = "ascii";
    for (let i = line; i < Math.min(line + 16, n); i++) {
      const b = bytes[i]!;
      const hs = doc.createElement("span");
      hs.textContent = b.toString(16).padStart(2, "0");
      hs.dataset["i"] = String(i);
      h.append(hs, i % 16 === 7 ? "  " : " ");
      const as = doc.createElement("span");
      as.textContent = printable(b);
      a.append(as);
      hex.push(hs);
      ascii.push(as);
    }
    tr.append(off, h, a);
    table.append(tr);
  }
  return { hex, ascii };
}

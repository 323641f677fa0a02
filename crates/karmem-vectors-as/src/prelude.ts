// The fixed part of the golden-vector driver (crates/karmem-vectors-as):
// reporting, JSON in the vectors' conventions, the steps of a case. The
// generated part (imports of the generated files, JSON printers per type,
// one function per case) follows it.

import { Editor, KarmemError, Trusted, Validator, Writer, errorName } from "karmem-as/assembly";

// @ts-ignore: decorator
@external("env", "report")
declare function hostReport(ptr: usize, units: i32): void;

/** Writes one result line, `ID<TAB>KIND<TAB>TEXT`, to the host at once. */
function report(id: string, kind: string, text: string): void {
  const line = id + "\t" + kind + "\t" + text;
  hostReport(changetype<usize>(line), line.length);
}

/** The case's bytes, copied in by the host (8-aligned: an ArrayBuffer's data is). */
let input = new ArrayBuffer(0);

/** Room for the next case's `n` bytes; the host copies them there. */
export function inputBuffer(n: i32): usize {
  input = new ArrayBuffer(n);
  return changetype<usize>(input);
}

/** A float as JSON: shortest round-trip text, `-0.0` signed, non-finite values as strings. */
function jf(x: f64): string {
  if (isNaN(x)) return "\"NaN\"";
  if (!isFinite(x)) return x > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  if (x == 0) return (reinterpret<u64>(x) >> 63) != 0 ? "-0.0" : "0.0";
  return x.toString();
}

/** Text as a JSON string. */
function js(s: string): string {
  let out = "\"";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += "\\\"";
    else if (c == 0x5C) out += "\\\\";
    else if (c < 0x20) out += "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
    else out += String.fromCharCode(c);
  }
  return out + "\"";
}

function reportValid(id: string, e: KarmemError, v: Validator): void {
  if (e == KarmemError.None) report(id, "valid", "true");
  else report(id, "valid", "false " + errorName(e) + " at " + v.faultOffset.toString() + " (" + v.faultValue.toString() + ")");
}

/** Whether the writer holds exactly the `n` bytes at `p`, as a report line. */
function reportSame(id: string, kind: string, e: KarmemError, w: Writer, p: usize, n: usize): void {
  if (e != KarmemError.None) {
    report(id, kind, "encode: " + errorName(e));
    return;
  }
  const got = <usize>w.length;
  const m = got < n ? got : n;
  let at = m;
  for (let i: usize = 0; i < m; i++) {
    if (load<u8>(w.dataStart + i) != load<u8>(p + i)) {
      at = i;
      break;
    }
  }
  if (at == m && got == n) report(id, kind, "ok");
  else report(id, kind, "differs at offset " + at.toString() + " (encoded " + got.toString() + " bytes, expected " + n.toString() + ")");
}

/** The outcome of encoding into caller memory of exactly the message's size, and 8 bytes less. */
function reportOver(id: string, full: KarmemError, short: KarmemError, w: Writer, p: usize, n: usize): void {
  if (short != KarmemError.TooLarge) {
    report(id, "over", "a fixed writer 8 bytes too small gives " + errorName(short));
    return;
  }
  reportSame(id, "over", full, w, p, n);
}

// The canonical stream of docs/integrity.md §3: fixed-size values
// little-endian, lengths as u32 before what they count. The digest is its
// SHA-256 (node:crypto); `stream` answers the bytes as they are, so that a
// disagreement between languages can be located by offset.

export class Sink {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  private n = 0;

  /** Reserves k bytes and gives where they start; may replace buf and
   * view. */
  private room(k: number): number {
    if (this.n + k > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < this.n + k) cap *= 2;
      const b = new Uint8Array(cap);
      b.set(this.buf.subarray(0, this.n));
      this.buf = b;
      this.view = new DataView(b.buffer);
    }
    const at = this.n;
    this.n += k;
    return at;
  }

  /** k bytes written by set, through the view as it is after room()
   * (`this.view.setX(this.room(k), ...)` would write to the old one). */
  private put(k: number, set: (v: DataView, at: number) => void): void {
    const at = this.room(k);
    set(this.view, at);
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.n);
  }

  u8(x: number): void {
    this.put(1, (v, at) => v.setUint8(at, x));
  }
  i8(x: number): void {
    this.put(1, (v, at) => v.setInt8(at, x));
  }
  bool(x: boolean): void {
    this.u8(x ? 1 : 0);
  }
  u16(x: number): void {
    this.put(2, (v, at) => v.setUint16(at, x, true));
  }
  i16(x: number): void {
    this.put(2, (v, at) => v.setInt16(at, x, true));
  }
  u32(x: number): void {
    this.put(4, (v, at) => v.setUint32(at, x, true));
  }
  i32(x: number): void {
    this.put(4, (v, at) => v.setInt32(at, x, true));
  }
  u64(x: bigint): void {
    this.put(8, (v, at) => v.setBigUint64(at, x, true));
  }
  i64(x: bigint): void {
    this.put(8, (v, at) => v.setBigInt64(at, x, true));
  }
  /** An f32 as its IEEE bits: viewers give the f32 widened to a double,
   * which narrows back exactly. */
  f32(x: number): void {
    this.put(4, (v, at) => v.setFloat32(at, x, true));
  }
  f64(x: number): void {
    this.put(8, (v, at) => v.setFloat64(at, x, true));
  }

  raw(b: Uint8Array): void {
    this.u32(b.length);
    const at = this.room(b.length);
    this.buf.set(b, at);
  }

  /** UTF-8 text: its length in bytes, then the bytes (the viewers give a
   * string, decoded from the message's valid UTF-8: encoding it again
   * gives the same bytes). */
  text(s: string): void {
    this.raw(Buffer.from(s, "utf8"));
  }

  /** `[]u16 @string`: the number of code units, then each unit. */
  units(s: string): void {
    this.u32(s.length);
    for (let i = 0; i < s.length; i++) this.u16(s.charCodeAt(i));
  }
}

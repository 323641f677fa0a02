// The canonical stream of docs/integrity.md §3: fixed-size values
// little-endian (WebAssembly's own order), lengths as u32 before what they
// count. The host hashes it (node:crypto's SHA-256) or answers it as it
// is (`stream`), so that a disagreement can be located by offset.

export class Sink {
  private buf: ArrayBuffer = new ArrayBuffer(4096);
  n: i32 = 0;

  /** Reserves k bytes and gives their address (the buffer may move). */
  private room(k: i32): usize {
    if (this.n + k > this.buf.byteLength) {
      let cap = this.buf.byteLength * 2;
      while (cap < this.n + k) cap *= 2;
      const b = new ArrayBuffer(cap);
      memory.copy(changetype<usize>(b), changetype<usize>(this.buf), <usize>this.n);
      this.buf = b;
    }
    const at = changetype<usize>(this.buf) + <usize>this.n;
    this.n += k;
    return at;
  }

  /** Where the stream's bytes are: valid until the next write. */
  get dataStart(): usize {
    return changetype<usize>(this.buf);
  }

  put<T>(x: T): void {
    store<T>(this.room(sizeof<T>()), x);
  }

  bool(x: bool): void {
    this.put<u8>(x ? 1 : 0);
  }

  /** An f32 as its IEEE bits. */
  f32(x: f32): void {
    this.put<u32>(reinterpret<u32>(x));
  }

  f64(x: f64): void {
    this.put<u64>(reinterpret<u64>(x));
  }

  /** n bytes at p, after their length. */
  raw(p: usize, n: i32): void {
    this.put<u32>(<u32>n);
    memory.copy(this.room(n), p, <usize>n);
  }

  /** UTF-8 text: its length in bytes, then the bytes (the decoder made
   * the string from the message's valid UTF-8: encoding it again gives
   * the same bytes). */
  text(s: string): void {
    const b = String.UTF8.encode(s);
    this.raw(changetype<usize>(b), b.byteLength);
  }

  /** `[]u16 @string`: the number of code units, then each unit. */
  units(s: string): void {
    this.put<u32>(<u32>s.length);
    for (let i = 0; i < s.length; i++) this.put<u16>(<u16>s.charCodeAt(i));
  }
}

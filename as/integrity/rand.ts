// The draws of docs/integrity.md §1 for the AssemblyScript member:
// SplitMix64 over native u64 (arithmetic wraps modulo 2^64, as §1 wants),
// each derived draw consuming exactly one next().

/** Every fourth seed, from 0, is a message of empty arrays and texts. */
const SIZES: StaticArray<u32> = [0, 3, 16, 200];

/** Lengths inside an array element or a map entry, at any depth (§1). */
const NESTED_MAX: u32 = 8;

/** §1's alphabet: ASCII, then 2-, 2-, 3-, 3- and 4-byte UTF-8 characters
 * (😀 is a surrogate pair in an AssemblyScript string), then a quote. */
const ALPHABET: StaticArray<string> = ["a", "b", "c", "x", "y", "z", "0", "9", " ", "-", "é", "ß", "€", "中", "😀", '"'];

/** No `[<N]` bound. */
export const NO_BOUND: u32 = u32.MAX_VALUE;

export class Rng {
  private state: u64;
  /** The largest length of the message's arrays and texts. */
  private max: u32;
  /** Array elements and map entries around the current draw: lengths
   * drawn inside one are at most 8. The producer raises it around each
   * array's elements and map's entries itself, since AssemblyScript has
   * no closures to pass a draw as TypeScript's `nested(one)` does. */
  depth: i32 = 0;

  constructor(seed: u64) {
    this.state = seed;
    this.max = unchecked(SIZES[<i32>(seed % 4)]);
  }

  next(): u64 {
    this.state += 0x9e3779b97f4a7c15;
    let z = this.state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }

  below(n: u64): u64 {
    return this.next() % n;
  }

  bool(): bool {
    return (this.next() & 1) == 1;
  }

  u8(): u8 {
    return <u8>this.next();
  }
  u16(): u16 {
    return <u16>this.next();
  }
  u32(): u32 {
    return <u32>this.next();
  }
  u64(): u64 {
    return this.next();
  }
  i8(): i8 {
    return <i8>this.next();
  }
  i16(): i16 {
    return <i16>this.next();
  }
  i32(): i32 {
    return <i32>this.next();
  }
  i64(): i64 {
    return <i64>this.next();
  }

  /** A 24-bit integer over 256: exact in an f32. */
  f32(): f32 {
    return <f32>(<f64>(<i64>(this.next() >> 40) - 8388608) / 256.0);
  }

  /** A 53-bit integer over 1024: exact in an f64. */
  f64(): f64 {
    return <f64>(<i64>(this.next() >> 11) - 4503599627370496) / 1024.0;
  }

  /** A length: at most max (8 inside an element or entry), and at most
   * limit for a `[<N]` array. */
  length(limit: u32 = NO_BOUND): i32 {
    const largest = this.depth > 0 ? min(this.max, NESTED_MAX) : this.max;
    return <i32>this.below(<u64>min(largest, limit) + 1);
  }

  /** Text: a length in characters, then each character. */
  text(): string {
    const n = this.length();
    let s = "";
    for (let i = 0; i < n; i++) s += unchecked(ALPHABET[<i32>this.below(16)]);
    return s;
  }

  /** `?T`'s presence. */
  present(): bool {
    return this.bool();
  }
}

// The draws of docs/integrity.md §1 for the TypeScript member: SplitMix64
// over bigint (JavaScript numbers cannot hold 64-bit integers exactly),
// each derived draw consuming exactly one next().

const MASK = (1n << 64n) - 1n;

/** Every fourth seed, from 0, is a message of empty arrays and texts. */
const SIZES = [0, 3, 16, 200] as const;

/** Lengths inside an array element or a map entry, at any depth (§1). */
const NESTED_MAX = 8;

/** §1's alphabet: ASCII, then 2-, 2-, 3-, 3- and 4-byte UTF-8 characters
 * (😀 is a surrogate pair in UTF-16), then a double quote. */
const ALPHABET = ["a", "b", "c", "x", "y", "z", "0", "9", " ", "-", "é", "ß", "€", "中", "😀", '"'] as const;

export class Rng {
  private state: bigint;
  /** The largest length of the message's arrays and texts. */
  private readonly max: number;
  /** Array elements and map entries around the current draw. */
  private depth = 0;

  constructor(seed: bigint) {
    this.state = seed;
    this.max = SIZES[Number(seed % 4n)]!;
  }

  next(): bigint {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }

  below(n: number): number {
    return Number(this.next() % BigInt(n));
  }

  bool(): boolean {
    return (this.next() & 1n) === 1n;
  }

  u8(): number {
    return Number(this.next() & 0xffn);
  }
  u16(): number {
    return Number(this.next() & 0xffffn);
  }
  u32(): number {
    return Number(this.next() & 0xffffffffn);
  }
  u64(): bigint {
    return this.next();
  }
  i8(): number {
    return Number(BigInt.asIntN(8, this.next()));
  }
  i16(): number {
    return Number(BigInt.asIntN(16, this.next()));
  }
  i32(): number {
    return Number(BigInt.asIntN(32, this.next()));
  }
  i64(): bigint {
    return BigInt.asIntN(64, this.next());
  }

  /** A 24-bit integer over 256: exact in a double and in an f32. */
  f32(): number {
    return (Number(this.next() >> 40n) - 8388608) / 256;
  }

  /** A 53-bit integer over 1024: exact in a double. */
  f64(): number {
    return (Number(this.next() >> 11n) - 4503599627370496) / 1024;
  }

  /** A length: at most max (8 inside an element or entry), and at most
   * limit for a `[<N]` array. */
  length(limit = Infinity): number {
    const largest = this.depth > 0 ? Math.min(this.max, NESTED_MAX) : this.max;
    return this.below(Math.min(largest, limit) + 1);
  }

  /** Text: a length in characters, then each character. */
  text(): string {
    const n = this.length();
    let s = "";
    for (let i = 0; i < n; i++) s += ALPHABET[this.below(ALPHABET.length)];
    return s;
  }

  /** One array element or map entry: lengths drawn inside it are at most 8. */
  nested<T>(one: (g: Rng) => T): T {
    this.depth++;
    const x = one(this);
    this.depth--;
    return x;
  }

  /** An array: a length (within limit), then each element, nested. */
  array<T>(one: (g: Rng) => T, limit = Infinity): T[] {
    const n = this.length(limit);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(this.nested(one));
    return out;
  }

  /** `?T`: present or not, then the value. */
  optional<T>(one: (g: Rng) => T): T | null {
    return this.bool() ? one(this) : null;
  }

  /** map<K, V>: a length n, then n entries (a key, then its value,
   * nested). A key drawn again replaces the earlier entry's value; the
   * encoder writes the entries in key order. */
  map<K, V>(key: (g: Rng) => K, value: (g: Rng) => V): Map<K, V> {
    const n = this.length();
    const m = new Map<K, V>();
    for (let i = 0; i < n; i++) {
      this.nested((g) => {
        const k = key(g);
        m.set(k, value(g));
      });
    }
    return m;
  }
}

// Zero-copy viewers (docs/assemblyscript.md, "Viewers"): what generated
// `<T>View<R>` classes build on. A viewer reads its field from the message
// when a getter is called; nothing is decoded ahead. Every class here is
// generic over the reader `R`: a `Validator` (checked: every load bounded
// by the message, every table and array reference checked, so a malformed
// or absent part reads as zero, empty or the declared default) or a
// `Trusted` (after validation: the same getters without those checks).
// asc instantiates each class once per reader, so neither pays for the
// other.
//
// A position of 0 means "absent" throughout: no slot lies in the header.

/**
 * The base of every generated struct viewer: where the struct is. A table
 * (`_kmTo` its offset, `_kmTu` its used size), an inline struct (`_kmTo`
 * its position, every field present), or element `_kmI` of an SoA array
 * (`_kmCols` the positions of its columns in flattening order, from
 * `_kmBase` on; docs/format.md §5.3).
 */
export class StructView<R> {
  _kmR: R;
  _kmTo: u32 = 0;
  _kmTu: u32 = 0;
  _kmCols: StaticArray<u32> | null = null;
  _kmBase: i32 = 0;
  _kmI: u32 = 0;

  /** An absent struct: every field reads as its default. */
  constructor(r: R) {
    this._kmR = r;
  }

  /** Views the inline struct at `at` (absent when 0). */
  _kmInline(at: u32): void {
    this._kmTo = at;
    this._kmTu = at == 0 ? 0 : u32.MAX_VALUE;
  }

  /** Views the table at `offset` (absent when 0 or, checked, malformed: §4). */
  _kmTable(offset: u32): void {
    const r = this._kmR;
    r.table(offset);
    this._kmTo = r.tOff;
    this._kmTu = r.tUsed;
  }

  /** Views element `i` of an SoA array whose columns from `base` on are this struct's leaves. */
  _kmColumns(cols: StaticArray<u32>, base: i32, i: u32): void {
    this._kmCols = cols;
    this._kmBase = base;
    this._kmI = i;
  }

  /**
   * The position of the field at `off` of `size` bytes, leaf `k` of this
   * struct's flattening; 0 when absent (past the table's used size, §4, or
   * a column the directory does not list, §5.3).
   */
  _kmAt(off: u32, size: u32, k: i32): u32 {
    const cols = this._kmCols;
    if (cols !== null) {
      const c = unchecked(cols[this._kmBase + k]);
      return c == 0 ? 0 : c + this._kmI * size;
    }
    if (this._kmTo == 0 || <u64>off + <u64>size > <u64>this._kmTu) return 0;
    return this._kmTo + off;
  }

  /**
   * A flattened field (an inline struct or table, leaf `k` on) of an SoA
   * element is `x` in SoA mode: true when this struct is one.
   */
  _kmNested(x: StructView<R>, k: i32): bool {
    const cols = this._kmCols;
    if (cols === null) return false;
    x._kmColumns(cols, this._kmBase + k, this._kmI);
    return true;
  }
}

/** The view of numbers (or enums `T` stored as `W`) at `_kmO`, `length` of them; absent (0) reads as zeros. */
export class Numbers<R, W, T> {
  constructor(public _kmR: R, public _kmO: u32, public length: i32) {}

  /** Element `i`: 0 past the end. */
  @operator("[]") get(i: i32): T {
    if (this._kmO == 0 || <u32>i >= <u32>this.length) return <T>0;
    return <T>this._kmR.ld<W>(this._kmO + <u32>i * sizeof<W>());
  }

  /** The same view over another block (an array of arrays' element). */
  _kmAt(o: u32, l: u32, c: u32): Numbers<R, W, T> {
    return new Numbers<R, W, T>(this._kmR, o, <i32>l);
  }
}

/** The view of bools at `_kmO` (any non-zero byte is true, §2). */
export class Bools<R> {
  constructor(public _kmR: R, public _kmO: u32, public length: i32) {}

  @operator("[]") get(i: i32): bool {
    if (this._kmO == 0 || <u32>i >= <u32>this.length) return false;
    return this._kmR.ldBool(this._kmO + <u32>i);
  }

  _kmAt(o: u32, l: u32, c: u32): Bools<R> {
    return new Bools<R>(this._kmR, o, <i32>l);
  }
}

/** The view of inline structs (viewer `V`) `stride` bytes apart at `_kmO`. */
export class Inlines<R, V> {
  constructor(public _kmR: R, public _kmO: u32, public length: i32, public _kmStride: u32) {}

  /** Element `i`; past the end, an absent struct. */
  @operator("[]") get(i: i32): V {
    const x = instantiate<V>(this._kmR);
    if (this._kmO != 0 && <u32>i < <u32>this.length) x._kmInline(this._kmO + <u32>i * this._kmStride);
    return x;
  }

  _kmAt(o: u32, l: u32, c: u32): Inlines<R, V> {
    return new Inlines<R, V>(this._kmR, o, <i32>l, this._kmStride);
  }
}

/** The view of an array of table offsets (viewer `V`) at `_kmO` (§5.2). */
export class Tables<R, V> {
  constructor(public _kmR: R, public _kmO: u32, public length: i32) {}

  @operator("[]") get(i: i32): V {
    const x = instantiate<V>(this._kmR);
    if (this._kmO != 0 && <u32>i < <u32>this.length) x._kmTable(this._kmR.ld<u32>(this._kmO + <u32>i * 4));
    return x;
  }

  _kmAt(o: u32, l: u32, c: u32): Tables<R, V> {
    return new Tables<R, V>(this._kmR, o, <i32>l);
  }
}

/**
 * The view of an SoA array (§5.3) of structs (viewer `V`): its directory
 * is read once, here; `wanted` lists the element's leaves (hash, size) in
 * flattening order. A column the directory does not list reads as zeros.
 */
export class Soa<R, V> {
  _kmCols: StaticArray<u32>;

  constructor(public _kmR: R, public _kmO: u32, public length: i32, public _kmCap: u32, public _kmWanted: StaticArray<u32>) {
    this._kmCols = new StaticArray<u32>(_kmWanted.length >> 1);
    if (length > 0) _kmR.columns(_kmO, _kmCap, _kmWanted, this._kmCols);
  }

  @operator("[]") get(i: i32): V {
    const x = instantiate<V>(this._kmR);
    if (<u32>i < <u32>this.length) x._kmColumns(this._kmCols, 0, <u32>i);
    return x;
  }

  _kmAt(o: u32, l: u32, c: u32): Soa<R, V> {
    return new Soa<R, V>(this._kmR, o, <i32>l, c, this._kmWanted);
  }
}

/**
 * The view of union values (viewer `U`, null for no value or a tag this
 * schema does not know, §7): tags `_kmTs` bytes apart from `_kmTags`,
 * offsets `_kmOs` bytes apart from `_kmOffs`, as an AoS array of union
 * slots or the two columns of an SoA one lay them out.
 */
export class Unions<R, U> {
  constructor(
    public _kmR: R, public _kmTags: u32, public _kmTs: u32, public _kmOffs: u32, public _kmOs: u32,
    public length: i32,
  ) {}

  @operator("[]") get(i: i32): U | null {
    if (<u32>i >= <u32>this.length) return null;
    const u = instantiate<U>(this._kmR, this._kmTags + <u32>i * this._kmTs, this._kmOffs + <u32>i * this._kmOs);
    return u.tag == 0 ? null : u;
  }

  /** An AoS array of union slots (8 bytes each: tag, then offset at 4) at `o`. */
  _kmAt(o: u32, l: u32, c: u32): Unions<R, U> {
    return new Unions<R, U>(this._kmR, o, 8, o + 4, 8, <i32>l);
  }
}

/** The view of an SoA union array (§7) with `tagSize`-byte tags: its two columns, found once. */
export class UnionColumns<R, U> {
  _kmU: Unions<R, U>;

  constructor(public _kmR: R, public _kmTagSize: u32, o: u32, l: u32, c: u32) {
    let n: u32 = 0;
    if (l > 0 && _kmR.unionColumns(o, c, _kmTagSize)) n = l;
    this._kmU = new Unions<R, U>(_kmR, _kmR.uTags, _kmTagSize, _kmR.uOffs, 4, <i32>n);
  }

  get length(): i32 {
    return this._kmU.length;
  }

  @operator("[]") get(i: i32): U | null {
    return this._kmU.get(i);
  }

  _kmAt(o: u32, l: u32, c: u32): UnionColumns<R, U> {
    return new UnionColumns<R, U>(this._kmR, this._kmTagSize, o, l, c);
  }
}

/** The view of an array of text arrays (§5.4): each element a string (UTF-8, or UTF-16 when `_kmUtf16`). */
export class Texts<R> {
  constructor(
    public _kmR: R, public _kmO: u32, public length: i32, public _kmEs: u32, public _kmLimit: u32,
    public _kmUtf16: bool,
  ) {}

  @operator("[]") get(i: i32): string {
    if (this._kmO == 0 || <u32>i >= <u32>this.length) return "";
    const r = this._kmR;
    r.array(this._kmO + <u32>i * 12, this._kmEs, this._kmLimit);
    return this._kmUtf16 ? r.utf16String(r.aOff, r.aLen) : r.utf8String(r.aOff, r.aLen);
  }

  _kmAt(o: u32, l: u32, c: u32): Texts<R> {
    return new Texts<R>(this._kmR, o, <i32>l, this._kmEs, this._kmLimit, this._kmUtf16);
  }
}

/**
 * The view of an array of array references (§5.4): element `i` is the
 * view `A` of its block, made by `_kmProto._kmAt` (a view of the same
 * shape) once its reference is checked against `_kmEs` and `_kmLimit`.
 */
export class Nested<R, A> {
  constructor(
    public _kmR: R, public _kmO: u32, public length: i32, public _kmEs: u32, public _kmLimit: u32,
    public _kmProto: A,
  ) {}

  @operator("[]") get(i: i32): A {
    if (this._kmO == 0 || <u32>i >= <u32>this.length) return this._kmProto._kmAt(0, 0, 0);
    const r = this._kmR;
    r.array(this._kmO + <u32>i * 12, this._kmEs, this._kmLimit);
    return this._kmProto._kmAt(r.aOff, r.aLen, r.aCap);
  }

  _kmAt(o: u32, l: u32, c: u32): Nested<R, A> {
    return new Nested<R, A>(this._kmR, o, <i32>l, this._kmEs, this._kmLimit, this._kmProto);
  }
}

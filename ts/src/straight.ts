/**
 * What the straight-line encoders and decoders that `karmem build --lang
 * ts` prints per struct call (RATIONALE.md R12.2): the decoder's state
 * (the checked reader, the traversal budget and the depth, format.md §10)
 * and the SoA directories an encoder shares within one message. The code
 * generated per struct reads and writes fields with the reader's and the
 * writer's typed methods; the interpreted `encode` and `decode` of
 * codec.ts walk the same layout and give the same bytes, values and errors.
 */
import { KarmemError } from "./errors.js";
import { type ArrayRef, type Input, type Limits, Reader, defaultLimits } from "./reader.js";
import type { Column } from "./schema.js";
import { Writer } from "./writer.js";

/** One whole-value decode: the reader, what is left of the budget and the
 * depth of tables on the path from the root. */
export class Decoding {
  readonly r: Reader;
  private budget: number;
  private depth = 0;
  private readonly maxDepth: number;

  /** Throws the header's error (as `decode` does before reading). */
  constructor(input: Input | Reader, limits: Limits = defaultLimits) {
    const r = input instanceof Reader ? input : new Reader(input, limits);
    r.check();
    this.r = r;
    this.budget = r.size * r.limits.traversalBudgetFactor;
    this.maxDepth = r.limits.maxDepth;
  }

  /** Charges `n` units, at least 1 (format.md §10). */
  charge(n: number): void {
    const c = n > 1 ? n : 1;
    if (c > this.budget) throw new KarmemError("BudgetExceeded", 0, c);
    this.budget -= c;
  }

  /** One table deeper (the table at `at`). */
  enter(at: number): void {
    if (++this.depth > this.maxDepth) throw new KarmemError("DepthExceeded", at, this.depth);
  }

  leave(): void {
    this.depth--;
  }

  /** The positions of the SoA block `a`'s known columns (0 for a column
   * its directory does not list), its directory charged when it is well
   * formed, then `len × width` (format.md §10). */
  soa(a: ArrayRef, columns: readonly Column[], width: number): number[] {
    const found = this.r.soaColumns(a, columns);
    if (found !== null) this.charge(4 * (2 * found.n + 1) + 4);
    this.charge(a.len * width);
    return found?.pos ?? new Array<number>(columns.length).fill(0);
  }
}

/** Starts a whole message in `w` (a new writer when none): reset, the
 * header's room reserved, the SoA directories of the last message
 * forgotten. */
export function beginMessage(w: Writer = new Writer()): Writer {
  w.reset();
  w.alloc(8, 8);
  return w;
}

/** `LimitExceeded` for `n` elements at `at` over a limited array's `limit`. */
export function overLimit(at: number, n: number): never {
  throw new KarmemError("LimitExceeded", at, n);
}

/** `InvalidValue` for a union value of a kind the union does not have. */
export function noVariant(at: number, i: number, kind: unknown): never {
  throw new KarmemError("InvalidValue", at, i, `no variant ${String(kind)}`);
}

// Error kinds of the Karmem library: the kinds of the other libraries
// (ts/src/errors.ts, Rust's `Error`, Go's `Err*`, docs/format.md §1, §10,
// §11), as an i32 enum. AssemblyScript has no exceptions (a `throw` aborts
// the module), so every fallible function returns one of these, `None`
// meaning success; the place of a fault is kept by the `Validator`.

export enum KarmemError {
  /** No error. */
  None = 0,
  /** The buffer is shorter than the header or than the size it states (§1). */
  Truncated,
  /** The message does not start at an 8-byte aligned address (§1). */
  Misaligned,
  /** The first two bytes are not "KM" (§1). */
  BadMagic,
  /** The version byte is not 2 (§1). */
  UnsupportedVersion,
  /** The reserved flags byte is not 0 (§1, §13). */
  BadFlags,
  /** The stated size is below 8 or not a multiple of 8 (§1). */
  BadSize,
  /** A table that must be present is malformed (§4). */
  MalformedTable,
  /** An array reference, SoA block, directory or bunch table is malformed (§5, §7.1). */
  MalformedArray,
  /** A limited array `[<N]T` is longer than N (§5). */
  LimitExceeded,
  /** Text that is not valid UTF-8 or UTF-16 (§6). */
  InvalidText,
  /** A bool or presence byte other than 0 or 1 (§2, §4.2). */
  InvalidBool,
  /** A union slot of a known tag without a valid value (§7). */
  InvalidUnion,
  /** An SoA directory or bunch table over the entry limit (§10). */
  DirectoryTooLarge,
  /** Tables nested deeper than the depth limit (§10). */
  DepthExceeded,
  /** The traversal budget is spent (§10). */
  BudgetExceeded,
  /** A message or array over what the format (4 GiB) or a fixed buffer holds. */
  TooLarge,
  /** A value that cannot be encoded: a limited array over its limit, map keys out of order (§5, §5.5). */
  InvalidValue,
}

/** The name of an error kind, as in the other libraries ("Truncated"). */
export function errorName(e: KarmemError): string {
  switch (e) {
    case KarmemError.None: return "None";
    case KarmemError.Truncated: return "Truncated";
    case KarmemError.Misaligned: return "Misaligned";
    case KarmemError.BadMagic: return "BadMagic";
    case KarmemError.UnsupportedVersion: return "UnsupportedVersion";
    case KarmemError.BadFlags: return "BadFlags";
    case KarmemError.BadSize: return "BadSize";
    case KarmemError.MalformedTable: return "MalformedTable";
    case KarmemError.MalformedArray: return "MalformedArray";
    case KarmemError.LimitExceeded: return "LimitExceeded";
    case KarmemError.InvalidText: return "InvalidText";
    case KarmemError.InvalidBool: return "InvalidBool";
    case KarmemError.InvalidUnion: return "InvalidUnion";
    case KarmemError.DirectoryTooLarge: return "DirectoryTooLarge";
    case KarmemError.DepthExceeded: return "DepthExceeded";
    case KarmemError.BudgetExceeded: return "BudgetExceeded";
    case KarmemError.TooLarge: return "TooLarge";
    case KarmemError.InvalidValue: return "InvalidValue";
  }
  return "Unknown";
}

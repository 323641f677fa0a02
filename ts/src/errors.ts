/**
 * Errors of the Karmem library: one class, told apart by `kind`, with the
 * message offset of the problem and an extra number (a length, a tag, an
 * entry count) where the kind has one — the same kinds as the Rust and Go
 * libraries (docs/format.md §1, §10, §11).
 */
export type ErrorKind =
  | "Truncated"
  | "Misaligned"
  | "BadMagic"
  | "UnsupportedVersion"
  | "BadFlags"
  | "BadSize"
  | "MalformedTable"
  | "MalformedArray"
  | "LimitExceeded"
  | "InvalidText"
  | "InvalidBool"
  | "InvalidUnion"
  | "DirectoryTooLarge"
  | "DepthExceeded"
  | "BudgetExceeded"
  | "TooLarge"
  | "InvalidValue";

const describe: Record<ErrorKind, string> = {
  Truncated: "message truncated",
  Misaligned: "buffer is not 8-byte aligned (copy it with alignedCopy)",
  BadMagic: "not a Karmem message (bad magic)",
  UnsupportedVersion: "unsupported format version",
  BadFlags: "reserved header flags set",
  BadSize: "invalid message size in header",
  MalformedTable: "malformed table",
  MalformedArray: "malformed array",
  LimitExceeded: "limited array over its limit",
  InvalidText: "invalid text",
  InvalidBool: "invalid bool",
  InvalidUnion: "invalid union",
  DirectoryTooLarge: "directory has too many entries",
  DepthExceeded: "nesting exceeds the depth limit",
  BudgetExceeded: "message exceeds the traversal budget",
  TooLarge: "message or array too large",
  InvalidValue: "value cannot be encoded",
};

export class KarmemError extends Error {
  readonly kind: ErrorKind;
  /** Byte position in the message (0 when the problem has no position). */
  readonly offset: number;
  /** A length, tag, size or entry count, when the kind has one. */
  readonly value: number;

  constructor(kind: ErrorKind, offset = 0, value = 0, detail?: string) {
    super(`karmem: ${describe[kind]} at offset ${offset} (${value})${detail === undefined ? "" : `: ${detail}`}`);
    this.name = "KarmemError";
    this.kind = kind;
    this.offset = offset;
    this.value = value;
  }
}

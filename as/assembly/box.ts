// An optional scalar, enum or bool field (`?u16`, docs/format.md §4.2) is a
// `Box<T> | null`: AssemblyScript has no nullable numbers, and a box keeps
// "no value" (null) apart from a zero value (`Box(0)`).

/** A value of an optional scalar field. */
export class Box<T> {
  constructor(public value: T) {}
}

// The AssemblyScript library of Karmem (docs/assemblyscript.md): what
// generated code (`karmem build --lang as`) imports.
export { KarmemError, errorName } from "./errors";
export {
  Validator, HEADER_SIZE, VERSION, NO_LIMIT, MAX_DIRECTORY_ENTRIES, MAX_DEPTH, BUDGET_FACTOR,
  naturalAlign, alignUp, directorySize, directoryCharge, bunchTableSize, utf8Valid,
} from "./validator";
export { Writer, utf8Length, compareText } from "./writer";
export { Box } from "./box";
export { Trusted } from "./trusted";
export { Editor, Elements } from "./editor";
export {
  StructView, Numbers, Bools, Inlines, Tables, Soa, Unions, UnionColumns, Texts, Nested,
} from "./view";

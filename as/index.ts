// The package entry for `import { ... } from "karmem-as"`: asc resolves a
// package to its `index.ts`; the library itself is in assembly/.
export * from "./assembly/index";

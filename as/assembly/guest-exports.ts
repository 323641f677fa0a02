// The exports of the Karmem guest ABI (docs/abi.md §2). Only an entry
// file's exports become the module's, so a guest module's entry file
// re-exports these:
//
//     export * from "karmem-as/assembly/guest-exports";
//
// The work is done in guest.ts; this file only gives it the ABI's names
// and wasm types (i32 everywhere, read as unsigned).

import { ABI_VERSION, alloc, bindAccess, bindMemory, describe, dispatch, init } from "./guest";

export function karmem_abi_version(): i32 {
  return ABI_VERSION;
}

export function karmem_init(): i32 {
  return init();
}

export function karmem_describe(): i64 {
  return describe();
}

export function karmem_alloc(size: i32, align: i32): i32 {
  return <i32>alloc(<u32>size, <u32>align);
}

export function karmem_bind_memory(index: i32, ptr: i32, len: i32): void {
  bindMemory(<u32>index, <usize><u32>ptr, <u32>len);
}

export function karmem_bind_access(index: i32, access: i32): void {
  bindAccess(<u32>index, <u32>access);
}

export function karmem_dispatch(fn: i32, args: i32, count: i32): i32 {
  return dispatch(<u32>fn, <usize><u32>args, <u32>count);
}

// The AssemblyScript side of the Karmem guest ABI (docs/abi.md, version 1):
// the registry of exported and imported interfaces, the module descriptor,
// the windows of shared regions, argument decoding and result reporting
// for `karmem_dispatch`, guest→guest calls (`call` and `take`), logging
// and the abort handler. The wasm exports themselves are in
// guest-exports.ts, which a module's entry file re-exports:
//
//     export * from "karmem-as/assembly/guest-exports";
//
// Generated code (`karmem build --lang as-guest`, docs/assemblyscript.md,
// "Guests") builds on this file; an author calls `register`, `fail`,
// `argument`, `window`, `log` and the generated clients.
//
// Memory (RATIONALE.md R13.5): the module uses AssemblyScript's
// incremental runtime (`--runtime incremental`; the stub runtime's bump
// allocator would allocate inside windows): decoded arguments, results and
// replies are ordinary garbage-collected objects. The memory the host asks
// for with `karmem_alloc` (argument arrays and copied arguments, alignment
// 8 or 64) is taken with `heap.alloc` and freed when the dispatch returns;
// windows (alignment 65536) are whole pages taken with `memory.grow`
// outside the allocator's heap and kept for the instance's life.

import { KarmemError, errorName } from "./errors";
import { Writer } from "./index";
import { Access, FunctionDesc, InterfaceDesc, MemoryDesc, ModuleDesc, ParamDesc, Pattern } from "./abi";

export { Access, Pattern, InterfaceDesc, MemoryDesc, FunctionDesc, ParamDesc };

/** The version of docs/abi.md this library follows. */
export const ABI_VERSION: i32 = 1;

/** How many callees one `call` can report (the `out` array, §5.3). */
export const MAX_CALLEES: i32 = 256;

/** A dispatch status (docs/abi.md §5.2) or one of the host's failure
 * statuses in a reply (§5.3); `CallFailed` is this library's: the call
 * reached no callee (see `Reply.error`). */
export enum Status {
  Ok = 0,
  UnknownFunction = 1,
  BadArgument = 2,
  ApplicationError = 3,
  Trap = 16,
  Timeout = 17,
  MemoryLimit = 18,
  ReadOnlyViolation = 19,
  Suspended = 20,
  BudgetExceeded = 21,
  CallFailed = 256,
}

/** The ABI's name of a status (`APPLICATION_ERROR`), `status N` for one
 * this library does not know. */
export function statusName(s: i32): string {
  switch (s) {
    case Status.Ok: return "OK";
    case Status.UnknownFunction: return "UNKNOWN_FUNCTION";
    case Status.BadArgument: return "BAD_ARGUMENT";
    case Status.ApplicationError: return "APPLICATION_ERROR";
    case Status.Trap: return "TRAP";
    case Status.Timeout: return "TIMEOUT";
    case Status.MemoryLimit: return "MEMORY_LIMIT";
    case Status.ReadOnlyViolation: return "READ_ONLY_VIOLATION";
    case Status.Suspended: return "SUSPENDED";
    case Status.BudgetExceeded: return "BUDGET_EXCEEDED";
    case Status.CallFailed: return "CALL_FAILED";
  }
  return "status " + s.toString();
}

// ---------------------------------------------------------------------------
// The host (docs/abi.md §4). AssemblyScript imports only what is used.

// @ts-ignore: decorator
@external("karmem", "call")
declare function hostCall(fn: u32, args: usize, count: u32, out: usize, outCap: u32): i32;
// @ts-ignore: decorator
@external("karmem", "take")
declare function hostTake(index: u32, dst: usize, len: u32): i32;
// @ts-ignore: decorator
@external("karmem", "result")
declare function hostResult(ptr: usize, len: u32): void;
// @ts-ignore: decorator
@external("karmem", "error")
declare function hostError(ptr: usize, len: u32): void;
// @ts-ignore: decorator
@external("karmem", "log")
declare function hostLog(level: u32, ptr: usize, len: u32): void;

// ---------------------------------------------------------------------------
// Byte ranges

/** A range of this module's memory: an argument as the host passed it, a
 * message written into a window, a region-bound result. */
export class Slice {
  constructor(public ptr: usize, public length: u32) {}

  /** The empty slice (the ABI's absent value). */
  static empty(): Slice {
    return new Slice(0, 0);
  }
}

/** This module's window of a shared region (docs/abi.md §6): empty
 * (`length` 0) when the module has no access to it or before the host
 * mapped it. Writing into a read-only window fails the current call with
 * READ_ONLY_VIOLATION. Never free or keep pointers past the instance. */
export class Window {
  /** This module's access to the window as the host granted it
   * (`karmem_bind_access`, docs/abi.md §2; `Access` values): it may be
   * less than the interface declares. 0 (none) when the host did not say. */
  access: u8 = 0;

  constructor(public readonly name: string, public ptr: usize, public length: u32) {}

  /** Whether the host said this module may write the window. */
  writable(): bool {
    return this.length > 0 && this.access == 2;
  }

  /** Whether `s` lies inside the window. */
  holds(s: Slice): bool {
    return this.length > 0 && s.ptr >= this.ptr && s.length <= this.length &&
      s.ptr - this.ptr <= <usize>(this.length - s.length);
  }

  /** The offset of `s` within the window, -1 when it is not inside it. */
  offsetOf(s: Slice): i64 {
    return this.holds(s) ? <i64>(s.ptr - this.ptr) : -1;
  }

  /** Encodes `value` (a generated class) as a whole message at `offset`
   * (a multiple of 8: a message starts 8-byte aligned, format.md §1)
   * without allocating: its slice, or null after `fail` when it does not
   * fit (or `offset` is misaligned). For region-bound results and
   * arguments. */
  write<T>(value: T, offset: u32 = 0): Slice | null {
    if (offset & 7 || offset > this.length) {
      fail<Slice>(this.name + ": offset " + offset.toString() + " is not an 8-byte aligned offset inside the window");
      return null;
    }
    const w = Writer.over(this.ptr + offset, this.length - offset);
    const e = value.encode(w);
    if (e != KarmemError.None) {
      fail<Slice>(this.name + ": writing the message: " + errorName(e));
      return null;
    }
    return new Slice(this.ptr + offset, <u32>w.length);
  }
}

// ---------------------------------------------------------------------------
// The module: what it exports and imports

/** The base of every generated exporter class: the interface's descriptor
 * and the dispatcher that decodes arguments, calls the author's method and
 * reports its result. */
export abstract class Exporter {
  constructor(public readonly descriptor: InterfaceDesc) {}

  /** Runs function `f` of the interface on the current dispatch's
   * arguments (their number checked already): the dispatch status. */
  abstract dispatch(f: u32): Status;
}

/** A region's descriptor (generated code builds interfaces with these). */
export function memoryDesc(name: string, importer: Access, exporter: Access, maxPages: u32): MemoryDesc {
  const m = new MemoryDesc();
  m.name = name;
  m.importer = importer;
  m.exporter = exporter;
  m.maxPages = maxPages;
  return m;
}

/** A parameter's or result's descriptor; `memory` is empty for a copied
 * value. */
export function paramDesc(name: string, type: string, memory: string): ParamDesc {
  const p = new ParamDesc();
  p.name = name;
  p.type_ = type;
  p.memory = memory;
  return p;
}

/** A function's descriptor; `result` null when it returns nothing (an
 * empty `Type`, docs/abi.md §3). */
export function functionDesc(name: string, params: Array<ParamDesc>, result: ParamDesc | null): FunctionDesc {
  const f = new FunctionDesc();
  f.name = name;
  f.params = params;
  if (result != null) f.result = result;
  return f;
}

/** An interface's descriptor; `hash` is its canonical signature's
 * (docs/abi.md §3.1), which the generator computes. */
export function interfaceDesc(
  name: string,
  hash: u64,
  dynamic: bool,
  pattern: Pattern,
  poolSize: u32,
  memories: Array<MemoryDesc>,
  functions: Array<FunctionDesc>,
): InterfaceDesc {
  const i = new InterfaceDesc();
  i.name = name;
  i.hash = hash;
  i.dynamic = dynamic;
  i.pattern = pattern;
  i.poolSize = poolSize;
  i.memories = memories;
  i.functions = functions;
  return i;
}

let exported = new Array<Exporter>();
let imported = new Array<InterfaceDesc>();
let memories = new Array<MemoryDesc>();
let windows = new Array<Window>();
let initialised = false;
let registrationError: string | null = null;
let descriptorBytes: Writer | null = null;

/** Exports `impl`'s interface from this module. Call it at the top level
 * of the entry file (before the host calls `karmem_init`), once per
 * interface. */
export function register(impl: Exporter): void {
  const name = impl.descriptor.name;
  if (initialised) {
    throw new Error("karmem: " + name + " registered after karmem_init: register at the top level");
  }
  for (let i = 0; i < exported.length; i++) {
    if (exported[i].descriptor.name == name) registrationError = name + " exported twice";
  }
  exported.push(impl);
}

/** Declares an import of interface `desc`: its index in the descriptor's
 * `Imports` (the high half of its import function ids, docs/abi.md §3).
 * Generated clients call this when constructed; construct them at the top
 * level. Importing one interface twice gives the same index. */
export function importInterface(desc: InterfaceDesc): u32 {
  for (let i = 0; i < imported.length; i++) {
    if (imported[i].name == desc.name) return <u32>i;
  }
  if (initialised) {
    throw new Error("karmem: a client of " + desc.name + " created after karmem_init: create clients at the top level");
  }
  imported.push(desc);
  return <u32>(imported.length - 1);
}

function addMemories(list: Array<MemoryDesc>): void {
  for (let i = 0; i < list.length; i++) {
    let seen = false;
    for (let k = 0; k < memories.length; k++) {
      if (memories[k].name == list[i].name) seen = true;
    }
    if (!seen) {
      memories.push(list[i]);
      windows.push(new Window(list[i].name, 0, 0));
    }
  }
}

/** `karmem_init`: builds and encodes the descriptor (regions in first-use
 * order: exports, then imports, docs/abi.md §3). 0 on success. */
export function init(): i32 {
  if (initialised) return descriptorBytes == null ? 1 : 0;
  initialised = true;
  if (registrationError != null) {
    logText(0, "karmem_init: " + registrationError!);
    return 1;
  }
  const desc = new ModuleDesc();
  for (let i = 0; i < exported.length; i++) {
    addMemories(exported[i].descriptor.memories);
    desc.exports.push(exported[i].descriptor);
  }
  for (let i = 0; i < imported.length; i++) {
    addMemories(imported[i].memories);
    desc.imports.push(imported[i]);
  }
  desc.memories = memories;
  const w = new Writer(1024);
  const e = desc.encode(w);
  if (e != KarmemError.None) {
    logText(0, "karmem_init: encoding the descriptor: " + errorName(e));
    return 1;
  }
  // Kept for the instance's life: the host reads it after karmem_describe.
  descriptorBytes = w;
  return 0;
}

/** `karmem_describe`: `ptr | len << 32`. */
export function describe(): i64 {
  const w = descriptorBytes;
  if (w == null) return 0;
  return <i64>w.dataStart | (<i64>w.length << 32);
}

/** `karmem_bind_memory`: an index the module did not declare is ignored. */
export function bindMemory(index: u32, ptr: usize, len: u32): void {
  if (index < <u32>windows.length && ptr != 0) {
    const w = windows[index];
    w.ptr = ptr;
    w.length = len;
  }
}

/** `karmem_bind_access`: an index the module did not declare, or an
 * access that is not one, is ignored. */
export function bindAccess(index: u32, access: u32): void {
  if (index < <u32>windows.length && access <= 2) windows[index].access = <u8>access;
}

/** This module's window of region `name` (qualified: `package.memory`);
 * generated code has one accessor per region. */
export function window(name: string): Window {
  for (let i = 0; i < windows.length; i++) {
    if (windows[i].name == name) return windows[i];
  }
  return new Window(name, 0, 0);
}

// ---------------------------------------------------------------------------
// Memory the host asks for (karmem_alloc)

const PAGE: usize = 65536;

/** Blocks taken with `heap.alloc` for the current dispatch's arguments,
 * freed when it returns. */
let dispatchBlocks = new Array<usize>();

/** `karmem_alloc`: windows are fresh pages, everything else dispatch
 * memory (docs/abi.md §5.1). 0 when out of memory. */
export function alloc(size: u32, align: u32): usize {
  if (align == 0 || (align & (align - 1)) != 0 || <usize>align > PAGE) return 0;
  if (<usize>align == PAGE) {
    // The allocator must own its first pages before a window lies past
    // them: it adds all memory up to memory.size() to its heap when it
    // starts. (An empty block still gets an address: 0 is "out of memory".)
    heap.free(heap.alloc(16));
    const pages = <i32>((<u64>max<u32>(size, 1) + 0xffff) >>> 16);
    if (pages >= 65536) return 0;
    const old = memory.grow(pages);
    if (old < 0) return 0;
    return <usize>old << 16;
  }
  // The allocator refuses more than 1 GiB by aborting: answer 0 instead.
  if (size > 0x3ff00000) return 0;
  const raw = heap.alloc(<usize>size + <usize>align);
  dispatchBlocks.push(raw);
  return (raw + <usize>align - 1) & ~(<usize>align - 1);
}

function freeDispatchBlocks(): void {
  // Most dispatches of small calls have one block or none; setting an
  // array's length is a call even when it does not change.
  const n = dispatchBlocks.length;
  if (n == 0) return;
  for (let i = 0; i < n; i++) heap.free(unchecked(dispatchBlocks[i]));
  dispatchBlocks.length = 0;
}

// ---------------------------------------------------------------------------
// Dispatch

// Compared with `!==`: `!=` on a string calls `String.__ne`, a call per
// test on every dispatch.
let failure: string | null = null;
let failureStatus: Status = Status.ApplicationError;
let resultPtr: usize = 0;
let resultLen: u32 = 0;
let resultWriter: Writer | null = null;
let reported: ArrayBuffer | null = null;
let currentArgs: usize = 0;
let currentCount: u32 = 0;
let currentFunction: FunctionDesc | null = null;
let currentInterface: string = "";

/** `package.Interface.function` of the current dispatch, for messages
 * (built only when one is needed: a string per call would cost every
 * call an allocation). */
function currentName(): string {
  const f = currentFunction;
  return f == null ? currentInterface : currentInterface + "." + f.name;
}

/** Fails the current dispatch with APPLICATION_ERROR and `message`; returns
 * null, so that `return guest.fail<T>("...")` ends a method. A dispatch
 * that called `fail` fails whatever its method returns. */
export function fail<T>(message: string): T | null {
  failure = message;
  failureStatus = Status.ApplicationError;
  return null;
}

/** `fail`, ending the dispatch with BAD_ARGUMENT. */
export function badArgument<T>(message: string): T | null {
  failure = message;
  failureStatus = Status.BadArgument;
  return null;
}

/** Whether the current dispatch has failed (`fail` was called). */
export function failed(): bool {
  return failure !== null;
}

/** Argument `k` of the current dispatch as the host passed it: in memory
 * the host wrote for this dispatch, or in a region's window for a
 * region-bound parameter. Empty when absent. Valid until the dispatch
 * returns. */
export function argument(k: u32): Slice {
  if (k >= currentCount || currentArgs == 0) return Slice.empty();
  const ptr = load<u32>(currentArgs + 8 * <usize>k);
  const len = load<u32>(currentArgs + 8 * <usize>k + 4);
  if (len == 0) return Slice.empty();
  return new Slice(<usize>ptr, len);
}

/** How a generated class decodes a message: its static `decode`. */
export type Decoder<T> = (ptr: usize, length: usize, out: T) => KarmemError;

/** Decodes argument `k` (parameter `name`) as a `T` with `decode`, which
 * validates it (docs/abi.md §5.2): null after `badArgument` when it is not
 * a valid message. The absent value reads as `T`'s defaults. */
export function decodeArgument<T>(k: u32, name: string, decode: Decoder<T>): T | null {
  const out = instantiate<T>();
  const s = argument(k);
  if (s.length == 0) return out;
  if (s.ptr & 7) {
    return badArgument<T>(currentName() + ": argument " + name + ": not 8-byte aligned");
  }
  const e = decode(s.ptr, s.length, out);
  if (e != KarmemError.None) {
    return badArgument<T>(currentName() + ": argument " + name + ": " + errorName(e));
  }
  return out;
}

/** Ends a method with a copied result: encodes `value` (the host copies it
 * out). Null without `fail` is an error too: a result was declared. */
export function reply<T>(value: T | null): Status {
  if (failure !== null) return failureStatus;
  if (value == null) {
    fail<T>(currentName() + " returned null without guest.fail");
    return Status.ApplicationError;
  }
  let w = resultWriter;
  if (w == null) {
    w = new Writer(256);
    resultWriter = w;
  }
  w.reset();
  const e = value.encode(w);
  if (e != KarmemError.None) {
    fail<T>(currentName() + ": encoding the result: " + errorName(e));
    return Status.ApplicationError;
  }
  resultPtr = w.dataStart;
  resultLen = <u32>w.length;
  return Status.Ok;
}

/** Ends a method with a result bound to region `region`: `s` must lie,
 * 8-byte aligned, inside this module's window of it (docs/abi.md §5.2);
 * `Window.write` puts it there. */
export function replyInRegion(region: string, s: Slice | null): Status {
  if (failure !== null) return failureStatus;
  if (s == null) {
    fail<Slice>(currentName() + " returned null without guest.fail");
    return Status.ApplicationError;
  }
  if (s.length == 0) return Status.Ok;
  if (!window(region).holds(s)) {
    fail<Slice>(currentName() + ": the result is not inside the window of " + region);
    return Status.ApplicationError;
  }
  if (s.ptr & 7) {
    fail<Slice>(currentName() + ": the result is not 8-byte aligned");
    return Status.ApplicationError;
  }
  resultPtr = s.ptr;
  resultLen = s.length;
  return Status.Ok;
}

/** Ends a method without a result. */
export function done(): Status {
  return failure !== null ? failureStatus : Status.Ok;
}

/** `karmem_dispatch`: runs export function `id` (`(e << 16) | f`). */
export function dispatch(id: u32, args: usize, count: u32): i32 {
  failure = null;
  resultPtr = 0;
  resultLen = 0;
  currentArgs = args;
  currentCount = count;
  const status = run(id, count);
  if (status != Status.Ok) {
    const text = failure !== null ? failure! : statusName(status);
    const bytes = String.UTF8.encode(text);
    // Kept until the next dispatch, in case the host reads it late.
    reported = bytes;
    hostError(changetype<usize>(bytes), <u32>bytes.byteLength);
  } else if (resultLen > 0) {
    hostResult(resultPtr, resultLen);
  }
  // The host's argument memory is the guest's now (docs/abi.md §5.2).
  freeDispatchBlocks();
  currentArgs = 0;
  currentCount = 0;
  return status;
}

/** The checks of every dispatch, in the order of docs/abi.md §5.2: the
 * function id, the number of arguments, then each argument (address 0
 * here, validity as the method decodes it). */
function run(id: u32, count: u32): Status {
  const e = id >>> 16;
  const f = id & 0xffff;
  if (!initialised || descriptorBytes == null || e >= <u32>exported.length) {
    failure = "no export function " + id.toString();
    return Status.UnknownFunction;
  }
  // Indexes checked just before: `unchecked` saves the array's own check.
  const ex = unchecked(exported[e]);
  const functions = ex.descriptor.functions;
  if (f >= <u32>functions.length) {
    failure = "no export function " + id.toString();
    return Status.UnknownFunction;
  }
  const fn = unchecked(functions[f]);
  currentInterface = ex.descriptor.name;
  currentFunction = fn;
  const params = <u32>fn.params.length;
  if (count != params) {
    failure = currentName() + ": " + count.toString() + " arguments for " + params.toString() + " parameters";
    return Status.BadArgument;
  }
  if (count > 0 && currentArgs == 0) {
    failure = currentName() + ": the argument array is at address 0";
    return Status.BadArgument;
  }
  for (let k: u32 = 0; k < count; k++) {
    // Address 0 is never an argument's: karmem_alloc returns 0 only when
    // out of memory (docs/abi.md §5.1).
    const len = load<u32>(currentArgs + 8 * <usize>k + 4);
    if (len > 0 && load<u32>(currentArgs + 8 * <usize>k) == 0) {
      failure = currentName() + ": argument " + fn.params[k].name + ": " + len.toString() + " bytes at address 0";
      return Status.BadArgument;
    }
  }
  return ex.dispatch(f);
}

// ---------------------------------------------------------------------------
// Calls (docs/abi.md §5.3)

/** A function result of nothing: the `T` of a reply to a function without
 * a result. */
export class Nothing {
  static decode(ptr: usize, length: usize, out: Nothing): KarmemError {
    return KarmemError.None;
  }
}

/** One callee's reply. */
export class Reply<T> {
  /** The exporter's index in the application (manifest order);
   * `u32.MAX_VALUE` when the call reached no callee. */
  callee: u32 = u32.MAX_VALUE;
  status: i32 = Status.Ok;
  /** The decoded result when `ok` (a `Nothing` for a function without
   * one). */
  value: T | null = null;
  /** Why the reply is not usable: the callee's error message, why the
   * call failed, or why the result is not a valid message. */
  error: string = "";
  /** A region-bound result: where it lies in this module's window (empty
   * for a copied result). */
  slice: Slice = Slice.empty();

  /** Whether the callee answered and its result is valid. */
  get ok(): bool {
    return this.value != null;
  }

  /** `callee N: STATUS[: message]` (what the other guest libraries say). */
  toString(): string {
    let s = (this.callee == u32.MAX_VALUE ? "no callee" : "callee " + this.callee.toString()) +
      ": " + statusName(this.status);
    if (this.error.length > 0) s += ": " + this.error;
    return s;
  }
}

const outEntries = memory.data(16 * MAX_CALLEES, 8);

/** One outgoing call: its arguments, then `one` (direct, singleton, pool)
 * or `all` (fan-out). Generated clients use it. */
export class Call {
  private words: StaticArray<u32>;
  private keep: Array<Writer> = new Array<Writer>();
  private error: string | null = null;
  private next: i32 = 0;

  constructor(private fn: u32, count: i32) {
    this.words = new StaticArray<u32>(2 * count);
  }

  /** The next argument, copied: `value` encoded into memory of its own. */
  encode<T>(value: T): Call {
    const w = new Writer(256);
    const e = value.encode(w);
    if (e != KarmemError.None && this.error == null) this.error = "encoding an argument: " + errorName(e);
    this.keep.push(w);
    return this.place(new Slice(w.dataStart, <u32>w.length));
  }

  /** The next argument, in place: a region-bound one must lie in this
   * module's window of the region (`Window.write`). */
  place(s: Slice): Call {
    const k = this.next++;
    this.words[2 * k] = s.length == 0 ? 0 : <u32>s.ptr;
    this.words[2 * k + 1] = s.length;
    return this;
  }

  /** Makes the call: every callee's reply, in manifest order; one reply
   * with status CALL_FAILED when it reached none. */
  all<T>(decode: Decoder<T>): Array<Reply<T>> {
    const out = new Array<Reply<T>>();
    if (this.error != null) {
      out.push(callFailed<T>(this.error!));
      return out;
    }
    const count = <u32>(this.words.length >> 1);
    const n = hostCall(this.fn, count == 0 ? 0 : changetype<usize>(this.words), count, outEntries, MAX_CALLEES);
    if (n < 0) {
      out.push(callFailed<T>(callError(n)));
      return out;
    }
    const have = min(n, MAX_CALLEES);
    for (let k = 0; k < have; k++) out.push(replyOf<T>(k, decode));
    if (n > MAX_CALLEES) {
      out.push(callFailed<T>(n.toString() + " callees, only " + MAX_CALLEES.toString() + " reported"));
    }
    // The argument buffers were read by the host; they may go now.
    this.keep.length = 0;
    return out;
  }

  /** Makes a direct call: the reply of its one callee. */
  one<T>(decode: Decoder<T>): Reply<T> {
    const all = this.all<T>(decode);
    if (all.length == 0) return callFailed<T>("no callee");
    return all[0];
  }
}

function callFailed<T>(why: string): Reply<T> {
  const r = new Reply<T>();
  r.status = Status.CallFailed;
  r.error = why;
  return r;
}

function callError(code: i32): string {
  switch (code) {
    case -1: return "unknown import function";
    case -2: return "an argument is out of range or outside its window";
    case -3: return "the reply array is out of range";
    case -4: return "re-entrant call";
    case -5: return "no exporter is bound to this import";
    case -6: return "too many nested calls";
  }
  return "call failed: " + code.toString();
}

function replyOf<T>(k: i32, decode: Decoder<T>): Reply<T> {
  const entry = outEntries + 16 * <usize>k;
  const r = new Reply<T>();
  r.status = load<u32>(entry);
  r.callee = load<u32>(entry, 4);
  const len = load<u32>(entry, 8);
  const ptr = <usize>load<u32>(entry, 12);
  if (r.status == Status.Ok && ptr != 0) {
    // A region-bound result: in this module's window already.
    if (ptr & 7) {
      r.error = "the result is not 8-byte aligned";
      return r;
    }
    r.slice = new Slice(ptr, len);
    decodeReply<T>(r, ptr, len, decode);
    return r;
  }
  if (len == 0) {
    if (r.status == Status.Ok) r.value = instantiate<T>();
    return r;
  }
  const raw = heap.alloc(<usize>len + 8);
  const dst = (raw + 7) & ~<usize>7;
  if (hostTake(<u32>k, dst, len) != 0) {
    heap.free(raw);
    r.error = "take failed";
    return r;
  }
  if (r.status == Status.Ok) {
    decodeReply<T>(r, dst, len, decode);
  } else {
    r.error = String.UTF8.decodeUnsafe(dst, len);
  }
  heap.free(raw);
  return r;
}

function decodeReply<T>(r: Reply<T>, ptr: usize, len: u32, decode: Decoder<T>): void {
  const out = instantiate<T>();
  const e = decode(ptr, len, out);
  if (e != KarmemError.None) {
    r.error = "invalid result: " + errorName(e);
    return;
  }
  r.value = out;
}

// ---------------------------------------------------------------------------
// Logging and aborts

/** Log levels (docs/abi.md §4). */
export enum Level {
  Error = 0,
  Warn = 1,
  Info = 2,
  Debug = 3,
  Trace = 4,
}

/** Sends a line to the host's log (truncated by the host to 4 KiB). */
export function log(level: Level, text: string): void {
  logText(<u32>level, text);
}

function logText(level: u32, text: string): void {
  const bytes = String.UTF8.encode(text);
  hostLog(level, changetype<usize>(bytes), <u32>bytes.byteLength);
}

/** Appends `s` as UTF-8 at `at` when it fits before `end`. */
function put(at: usize, end: usize, s: string): usize {
  const n = <usize>String.UTF8.byteLength(s);
  if (n > end - at) return at;
  return at + String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, at);
}

/** The handler of AssemblyScript's `abort` (`assert`, `throw`, a failed
 * bounds check, an allocation over 1 GiB): logs the message and traps, so
 * the current call fails with TRAP and the host discards the instance
 * (docs/abi.md §5.2). Modules are built with `--use abort=` naming it;
 * without that, `abort` would be an import from `env`, which the host
 * refuses. It allocates nothing (it may run because memory ran out). */
export function abortHandler(message: string | null, fileName: string | null, line: u32, column: u32): void {
  // Static memory, not globals: the handler may run before the module's
  // globals are initialised.
  const buffer = memory.data(1024);
  const aborting = memory.data(8);
  if (load<u8>(aborting) == 0) {
    store<u8>(aborting, 1);
    const end = buffer + 1000;
    let at = put(buffer, end, "abort: ");
    at = put(at, end, message != null ? message : "(no message)");
    if (fileName != null) {
      at = put(at, end, " at ");
      at = put(at, end, fileName);
      at = put(at, end, ":");
      // Digits without allocating.
      let digits: u32 = 1;
      for (let v = line; v >= 10; v /= 10) digits++;
      let v = line;
      for (let i = digits; i > 0; i--) {
        store<u8>(at + <usize>i - 1, 0x30 + v % 10);
        v /= 10;
      }
      at += digits;
    }
    hostLog(0, buffer, <u32>(at - buffer));
  }
  unreachable();
}

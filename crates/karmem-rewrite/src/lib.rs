//! Load-time validation and rewrite of Karmem guest modules
//! (docs/abi.md §6, docs/security.md).
//!
//! `memory.fill`, `memory.copy` and `memory.init` are executed by the
//! runtime's own native code, not by guest instructions: a write into a
//! `PROT_READ` window there is a SIGSEGV of the whole process, not a trap.
//! So every such instruction is replaced by a call to an injected helper that
//! first checks the destination range against the module's read-only range
//! `[__karmem_ro_start, __karmem_ro_end)` and, on overlap, records the fault
//! in `__karmem_ro_fault` and executes `unreachable` before a byte is
//! written; otherwise it performs the original instruction.
//!
//! [`rewrite`] validates its input first and refuses anything invalid. That
//! is what keeps the injected globals and helpers out of the guest's reach:
//! they are appended after every index the module defines, so a valid module
//! can never name them, while an *invalid* one that names an index one past
//! its own globals (`global.set 1` with one global) would become valid after
//! the rewrite and could switch its own guard off. Nothing the rewrite
//! injects is reachable from guest code: the helpers are in no table and no
//! export, the globals are exported only to the host.
//!
//! The range globals are 64-bit: a read-only block may end exactly at 4 GiB
//! (`0xffff_0000 + 0x1_0000`), which a 32-bit end would wrap to 0.
//!
//! Everything injected is *appended* (one function type, three globals,
//! three exports, one helper per distinct instruction), so no existing
//! index shifts and the original bodies are copied byte for byte except at
//! the replaced instructions. No locals are added to existing functions.

use std::collections::BTreeMap;
use std::ops::Range;

use wasm_encoder::{BlockType, Function, Instruction};
use wasmparser::{BinaryReader, Operator, Parser, Payload, WasmFeatures};

/// Exported global (`mut i64`): first byte of the read-only range (set by
/// the host; equal to [`RO_END`] when there is none).
pub const RO_START: &str = "__karmem_ro_start";
/// Exported global (`mut i64`): one past the last byte of the read-only
/// range; at most 2^32.
pub const RO_END: &str = "__karmem_ro_end";
/// Exported global (`mut i64`): 0, or 1 + the offset within the read-only
/// range of the lowest byte a guarded instruction would have written.
pub const RO_FAULT: &str = "__karmem_ro_fault";

/// Version of the rewrite; part of the host's precompiled-module cache key,
/// so a changed rewrite never loads an artifact of an older one. 2: 64-bit
/// range globals, input validated.
pub const VERSION: u32 = 2;

/// The WebAssembly features a guest module may use: what the host's
/// wasmtime engine enables (its on-by-default set, built without the `gc`
/// crate feature, with `threads` on and multi-memory and memory64 off;
/// `karmem-host` tests that the two agree). A module using anything else is
/// refused here, before it is rewritten.
pub fn features() -> WasmFeatures {
    WasmFeatures::WASM3
        & !(WasmFeatures::GC
            | WasmFeatures::GC_TYPES
            | WasmFeatures::EXCEPTIONS
            | WasmFeatures::MULTI_MEMORY
            | WasmFeatures::MEMORY64)
}

/// Validate `wasm` as a core module under [`features`].
pub fn validate(wasm: &[u8]) -> Result<(), String> {
    wasmparser::Validator::new_with_features(features())
        .validate_all(wasm)
        .map(|_| ())
        .map_err(|e| format!("not a valid WebAssembly module: {e}"))
}

const TYPE: u8 = 1;
const FUNCTION: u8 = 3;
const GLOBAL: u8 = 6;
const EXPORT: u8 = 7;
const CODE: u8 = 10;

/// Position of a section id in the order the binary format requires.
fn rank(id: u8) -> u8 {
    match id {
        1 => 1,   // type
        2 => 2,   // import
        3 => 3,   // function
        4 => 4,   // table
        5 => 5,   // memory
        13 => 6,  // tag
        6 => 7,   // global
        7 => 8,   // export
        8 => 9,   // start
        9 => 10,  // element
        12 => 11, // data count
        10 => 12, // code
        11 => 13, // data
        _ => 0,
    }
}

/// A bulk-memory instruction that writes memory 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bulk {
    Fill,
    Copy,
    Init(u32),
}

struct Section<'a> {
    id: u8,
    content: &'a [u8],
}

struct Body {
    /// Byte range of the whole body (locals + code) in the module.
    range: Range<usize>,
    /// (start, end, instruction) of each instruction to replace.
    sites: Vec<(usize, usize, Bulk)>,
}

/// Counts the rewrite needs to append without shifting indices.
#[derive(Default)]
struct Counts {
    types: u32,
    imported_funcs: u32,
    defined_funcs: u32,
    imported_globals: u32,
    defined_globals: u32,
}

/// What the rewrite did (for tests, fuzzing and diagnostics).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Instructions replaced by a guarded call.
    pub guarded: usize,
    /// Helper functions appended (the module's last functions).
    pub helpers: u32,
    /// Index of the first appended global ([`RO_START`]; then [`RO_END`],
    /// [`RO_FAULT`]).
    pub first_global: u32,
}

fn leb(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn name(out: &mut Vec<u8>, s: &str) {
    leb(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Validate `wasm` ([`validate`]) and rewrite it so that no bulk-memory
/// instruction can write into the read-only range. Fails on invalid input,
/// on a component, on a module that exports one of the reserved names
/// ([`RO_START`], [`RO_END`], [`RO_FAULT`]), and on bulk-memory
/// instructions on any memory but 0.
pub fn rewrite(wasm: &[u8]) -> Result<(Vec<u8>, Report), String> {
    validate(wasm)?;
    let mut sections = Vec::new();
    let mut bodies = Vec::new();
    let mut counts = Counts::default();
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload.map_err(err)?;
        match &payload {
            Payload::TypeSection(r) => {
                for group in r.clone() {
                    counts.types += group.map_err(err)?.types().len() as u32;
                }
            }
            Payload::ImportSection(r) => {
                for import in r.clone().into_imports() {
                    match import.map_err(err)?.ty {
                        wasmparser::TypeRef::Func(_) | wasmparser::TypeRef::FuncExact(_) => {
                            counts.imported_funcs += 1
                        }
                        wasmparser::TypeRef::Global(_) => counts.imported_globals += 1,
                        _ => {}
                    }
                }
            }
            Payload::FunctionSection(r) => counts.defined_funcs = r.count(),
            Payload::ExportSection(r) => {
                for e in r.clone() {
                    let name = e.map_err(err)?.name;
                    if [RO_START, RO_END, RO_FAULT].contains(&name) {
                        return Err(format!("exports `{name}`, a name reserved for the host"));
                    }
                }
            }
            Payload::GlobalSection(r) => counts.defined_globals = r.count(),
            Payload::CodeSectionEntry(body) => bodies.push(scan_body(body)?),
            Payload::Version { encoding, .. } if *encoding != wasmparser::Encoding::Module => {
                return Err("a component, not a core module".into());
            }
            _ => {}
        }
        if let Some((id, range)) = payload.as_section() {
            let content = wasm.get(range).ok_or("section out of range")?;
            sections.push(Section { id, content });
        }
    }

    // One helper per distinct instruction, appended after every function.
    let mut helpers: BTreeMap<Bulk, u32> = BTreeMap::new();
    for b in &bodies {
        for &(_, _, op) in &b.sites {
            helpers.entry(op).or_insert(0);
        }
    }
    let first_helper = counts.imported_funcs + counts.defined_funcs;
    for (i, idx) in helpers.values_mut().enumerate() {
        *idx = first_helper + i as u32;
    }
    let helper_type = counts.types;
    let g_start = counts.imported_globals + counts.defined_globals;
    let (g_end, g_fault) = (g_start + 1, g_start + 2);

    // The entries each changed section gets appended.
    let mut extra: BTreeMap<u8, (u32, Vec<u8>)> = BTreeMap::new();
    if !helpers.is_empty() {
        // (func (param i32 i32 i32))
        let mut t = vec![0x60];
        leb(&mut t, 3);
        t.extend_from_slice(&[0x7f, 0x7f, 0x7f]);
        leb(&mut t, 0);
        extra.insert(TYPE, (1, t));
        let mut f = Vec::new();
        for _ in 0..helpers.len() {
            leb(&mut f, helper_type);
        }
        extra.insert(FUNCTION, (helpers.len() as u32, f));
    }
    // (global (mut i64) (i64.const 0)) × 3
    extra.insert(GLOBAL, (3, [0x7e, 0x01, 0x42, 0x00, 0x0b].repeat(3)));
    let mut e = Vec::new();
    for (n, g) in [(RO_START, g_start), (RO_END, g_end), (RO_FAULT, g_fault)] {
        name(&mut e, n);
        e.push(0x03);
        leb(&mut e, g);
    }
    extra.insert(EXPORT, (3, e));

    let mut code = None;
    if !helpers.is_empty() || sections.iter().any(|s| s.id == CODE) {
        code = Some(code_section(
            wasm,
            &bodies,
            &helpers,
            (g_start, g_end, g_fault),
        ));
    }

    let mut out = wasm.get(..8).ok_or("truncated module")?.to_vec();
    let mut pending: Vec<u8> = extra.keys().copied().collect();
    if code.is_some() {
        pending.push(CODE);
    }
    pending.sort_by_key(|&id| rank(id));
    let mut pending = pending.into_iter().peekable();
    for s in &sections {
        if s.id != 0 {
            // Sections we must create come before the first later one.
            while let Some(&id) = pending.peek() {
                if rank(id) >= rank(s.id) {
                    break;
                }
                emit(&mut out, id, None, &extra, &code)?;
                pending.next();
            }
            if pending.peek() == Some(&s.id) {
                pending.next();
                emit(&mut out, s.id, Some(s.content), &extra, &code)?;
                continue;
            }
        }
        out.push(s.id);
        leb(&mut out, s.content.len() as u32);
        out.extend_from_slice(s.content);
    }
    for id in pending {
        emit(&mut out, id, None, &extra, &code)?;
    }
    let report = Report {
        guarded: bodies.iter().map(|b| b.sites.len()).sum(),
        helpers: helpers.len() as u32,
        first_global: g_start,
    };
    // A rewrite that produced an invalid module is a bug here, not a guest
    // fault; the engine would refuse the output anyway when it compiles it.
    #[cfg(debug_assertions)]
    validate(&out).map_err(|e| format!("the rewrite produced an invalid module (a bug): {e}"))?;
    Ok((out, report))
}

/// Write section `id`: the original `content` (if any) with our entries
/// appended, or the rebuilt code section.
fn emit(
    out: &mut Vec<u8>,
    id: u8,
    content: Option<&[u8]>,
    extra: &BTreeMap<u8, (u32, Vec<u8>)>,
    code: &Option<Vec<u8>>,
) -> Result<(), String> {
    let body = if id == CODE {
        code.clone().unwrap_or_default()
    } else {
        let (n, entries) = &extra[&id];
        let (count, rest) = match content {
            Some(c) => {
                let mut r = BinaryReader::new(c, 0);
                let count = r.read_var_u32().map_err(err)?;
                (count, &c[r.current_position()..])
            }
            None => (0, &[][..]),
        };
        let mut b = Vec::new();
        leb(&mut b, count.checked_add(*n).ok_or("too many entries")?);
        b.extend_from_slice(rest);
        b.extend_from_slice(entries);
        b
    };
    out.push(id);
    leb(out, body.len() as u32);
    out.extend_from_slice(&body);
    Ok(())
}

/// The bulk-memory write of `op`, with the memory it writes.
fn bulk_write(op: &Operator<'_>) -> Option<(u32, Bulk)> {
    match *op {
        Operator::MemoryFill { mem } => Some((mem, Bulk::Fill)),
        // Only the destination memory matters: a copy *from* a window is a
        // read.
        Operator::MemoryCopy { dst_mem, .. } => Some((dst_mem, Bulk::Copy)),
        Operator::MemoryInit { mem, data_index } => Some((mem, Bulk::Init(data_index))),
        _ => None,
    }
}

fn scan_body(body: &wasmparser::FunctionBody<'_>) -> Result<Body, String> {
    let mut sites = Vec::new();
    let mut ops = body.get_operators_reader().map_err(err)?;
    while !ops.eof() {
        let start = ops.original_position();
        let op = ops.read().map_err(err)?;
        if let Some((mem, bulk)) = bulk_write(&op) {
            if mem != 0 {
                return Err(format!(
                    "bulk-memory instruction on memory {mem}: only memory 0 exists"
                ));
            }
            sites.push((start, ops.original_position(), bulk));
        }
    }
    Ok(Body {
        range: body.range(),
        sites,
    })
}

/// The code section: every original body (rewritten where needed) followed
/// by the helpers.
fn code_section(
    wasm: &[u8],
    bodies: &[Body],
    helpers: &BTreeMap<Bulk, u32>,
    globals: (u32, u32, u32),
) -> Vec<u8> {
    let mut out = Vec::new();
    leb(&mut out, (bodies.len() + helpers.len()) as u32);
    for b in bodies {
        let mut body = Vec::with_capacity(b.range.len());
        let mut at = b.range.start;
        for &(start, end, op) in &b.sites {
            body.extend_from_slice(&wasm[at..start]);
            body.push(0x10); // call
            leb(&mut body, helpers[&op]);
            at = end;
        }
        body.extend_from_slice(&wasm[at..b.range.end]);
        leb(&mut out, body.len() as u32);
        out.extend_from_slice(&body);
    }
    for &op in helpers.keys() {
        let body = helper(op, globals);
        leb(&mut out, body.len() as u32);
        out.extend_from_slice(&body);
    }
    out
}

/// `(dst: i32, x: i32, len: i32)`: guard, then the original instruction.
/// The comparisons are 64-bit: `dst + len` cannot wrap and the range may end
/// at 2^32.
fn helper(op: Bulk, (start, end, fault): (u32, u32, u32)) -> Vec<u8> {
    use Instruction as I;
    let mut f = Function::new([]);
    let (dst, x, len) = (0, 1, 2);
    f.instruction(&I::Block(BlockType::Empty));
    // No read-only range, or nothing written: nothing to check.
    f.instruction(&I::GlobalGet(start))
        .instruction(&I::GlobalGet(end))
        .instruction(&I::I64Eq)
        .instruction(&I::BrIf(0));
    f.instruction(&I::LocalGet(len))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(0));
    // dst >= end: entirely above.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::GlobalGet(end))
        .instruction(&I::I64GeU)
        .instruction(&I::BrIf(0));
    // dst + len <= start: entirely below.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::LocalGet(len))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::I64Add)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I64LeU)
        .instruction(&I::BrIf(0));
    // Overlap: fault = max(dst, start) - start + 1; trap before writing.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::LocalGet(dst))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I64GtU)
        .instruction(&I::Select)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I64Sub)
        .instruction(&I::I64Const(1))
        .instruction(&I::I64Add)
        .instruction(&I::GlobalSet(fault))
        .instruction(&I::Unreachable);
    f.instruction(&I::End);
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::LocalGet(x))
        .instruction(&I::LocalGet(len));
    f.instruction(&match op {
        Bulk::Fill => I::MemoryFill(0),
        Bulk::Copy => I::MemoryCopy {
            src_mem: 0,
            dst_mem: 0,
        },
        Bulk::Init(seg) => I::MemoryInit {
            mem: 0,
            data_index: seg,
        },
    });
    f.instruction(&I::End);
    f.into_raw_body()
}

/// The bulk-memory writes in `wasm`'s function bodies, by name
/// (`memory.fill`, `memory.copy`, `memory.init`), each once: the sites the
/// rewrite guards (docs/abi.md §6.1, step 2). For tests that must know a
/// guest really writes through an instruction.
pub fn bulk_writes(wasm: &[u8]) -> Result<Vec<&'static str>, String> {
    let mut found = std::collections::BTreeSet::new();
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::CodeSectionEntry(body) = payload.map_err(err)? {
            for (_, _, op) in scan_body(&body)?.sites {
                found.insert(match op {
                    Bulk::Fill => "memory.fill",
                    Bulk::Copy => "memory.copy",
                    Bulk::Init(_) => "memory.init",
                });
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// The rule the guard implements, for the host's own writes into guest
/// memory and for tests of the injected code: the offset within the
/// read-only range `ro` of the first byte of `[dst, dst + len)` inside it,
/// or `None` when nothing is written into it. 64-bit throughout: `dst + len`
/// may exceed 2^32 and `ro.end` may be 2^32.
pub fn read_only_overlap(ro: Range<u64>, dst: u32, len: u32) -> Option<u64> {
    let (start, end) = (u64::from(dst), u64::from(dst) + u64::from(len));
    (len > 0 && ro.start < ro.end && start < ro.end && end > ro.start)
        .then(|| start.max(ro.start) - ro.start)
}

/// Check a rewritten module against the rewrite's promise: it is valid, the
/// three range globals are exported under their names at
/// `report.first_global..+3`, and no bulk-memory write is left outside the
/// last `report.helpers` functions, each of which guards before it writes.
/// For tests and fuzzing.
pub fn check_guarded(out: &[u8], report: &Report) -> Result<(), String> {
    validate(out)?;
    let mut bodies = Vec::new();
    let mut exports = Vec::new();
    for payload in Parser::new(0).parse_all(out) {
        match payload.map_err(err)? {
            Payload::CodeSectionEntry(body) => bodies.push(body),
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e.map_err(err)?;
                    exports.push((e.name.to_string(), e.kind, e.index));
                }
            }
            _ => {}
        }
    }
    for (i, n) in [RO_START, RO_END, RO_FAULT].into_iter().enumerate() {
        let want = (
            n.to_string(),
            wasmparser::ExternalKind::Global,
            report.first_global + i as u32,
        );
        if !exports.contains(&want) {
            return Err(format!("`{n}` is not exported as global {}", want.2));
        }
    }
    let first_helper = bodies
        .len()
        .checked_sub(report.helpers as usize)
        .ok_or("fewer bodies than helpers")?;
    for (i, body) in bodies.iter().enumerate() {
        let mut ops = body.get_operators_reader().map_err(err)?;
        let mut first = true;
        while !ops.eof() {
            let op = ops.read().map_err(err)?;
            if i >= first_helper && first {
                // A helper opens its guard block first.
                if !matches!(op, Operator::Block { .. }) {
                    return Err(format!("helper {i} does not start with its guard"));
                }
            }
            first = false;
            if bulk_write(&op).is_some() && i < first_helper {
                return Err(format!("function body {i} writes memory unguarded"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

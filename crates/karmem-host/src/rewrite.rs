//! Load-time rewrite of bulk-memory writes (docs/abi.md §6).
//!
//! `memory.fill`, `memory.copy` and `memory.init` are executed by wasmtime's
//! own Rust code, not by guest instructions: a write into a `PROT_READ`
//! window there is a SIGSEGV of the whole process, not a trap. So every such
//! instruction is replaced by a call to an injected helper that first checks
//! the destination range against the module's read-only range
//! `[__karmem_ro_start, __karmem_ro_end)` and, on overlap, records the fault
//! in `__karmem_ro_fault` and executes `unreachable` before a byte is
//! written; otherwise it performs the original instruction.
//!
//! Everything injected is *appended* (one function type, three globals,
//! three exports, one helper per distinct instruction), so no existing
//! index shifts and the original bodies are copied byte for byte except at
//! the replaced instructions. No locals are added to existing functions.

use std::collections::BTreeMap;
use std::ops::Range;

use wasm_encoder::{BlockType, Function, Instruction};
use wasmparser::{BinaryReader, Operator, Parser, Payload};

/// Exported global: first byte of the read-only range (set by the host).
pub(crate) const RO_START: &str = "__karmem_ro_start";
/// Exported global: one past the last byte of the read-only range.
pub(crate) const RO_END: &str = "__karmem_ro_end";
/// Exported global: 0, or 1 + the offset within the read-only range of the
/// lowest byte a guarded instruction would have written.
pub(crate) const RO_FAULT: &str = "__karmem_ro_fault";

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

/// What the rewrite did (for tests and diagnostics).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// Instructions replaced by a guarded call.
    pub guarded: usize,
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

/// Rewrite `wasm` (a core module, already checked to have exactly one
/// memory) so that no bulk-memory instruction can write into the read-only
/// range. Fails on malformed input.
pub(crate) fn rewrite(wasm: &[u8]) -> Result<(Vec<u8>, Report), String> {
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
    // (global (mut i32) (i32.const 0)) × 3
    extra.insert(GLOBAL, (3, [0x7f, 0x01, 0x41, 0x00, 0x0b].repeat(3)));
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
    let guarded = bodies.iter().map(|b| b.sites.len()).sum();
    Ok((out, Report { guarded }))
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

fn scan_body(body: &wasmparser::FunctionBody<'_>) -> Result<Body, String> {
    let mut sites = Vec::new();
    let mut ops = body.get_operators_reader().map_err(err)?;
    while !ops.eof() {
        let start = ops.original_position();
        let op = ops.read().map_err(err)?;
        let bulk = match op {
            Operator::MemoryFill { mem } => Some((mem, Bulk::Fill)),
            // Only the destination memory matters: a copy *from* a window is
            // a read.
            Operator::MemoryCopy { dst_mem, .. } => Some((dst_mem, Bulk::Copy)),
            Operator::MemoryInit { mem, data_index } => Some((mem, Bulk::Init(data_index))),
            _ => None,
        };
        if let Some((mem, bulk)) = bulk {
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
fn helper(op: Bulk, (start, end, fault): (u32, u32, u32)) -> Vec<u8> {
    use Instruction as I;
    let mut f = Function::new([]);
    let (dst, x, len) = (0, 1, 2);
    f.instruction(&I::Block(BlockType::Empty));
    // No read-only range, or nothing written: nothing to check.
    f.instruction(&I::GlobalGet(start))
        .instruction(&I::GlobalGet(end))
        .instruction(&I::I32Eq)
        .instruction(&I::BrIf(0));
    f.instruction(&I::LocalGet(len))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(0));
    // dst >= end: entirely above.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::GlobalGet(end))
        .instruction(&I::I32GeU)
        .instruction(&I::BrIf(0));
    // dst + len <= start, in 64 bits so the sum cannot wrap: entirely below.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::LocalGet(len))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::I64Add)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I64ExtendI32U)
        .instruction(&I::I64LeU)
        .instruction(&I::BrIf(0));
    // Overlap: fault = max(dst, start) - start + 1; trap before writing.
    f.instruction(&I::LocalGet(dst))
        .instruction(&I::GlobalGet(start))
        .instruction(&I::LocalGet(dst))
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I32GtU)
        .instruction(&I::Select)
        .instruction(&I::GlobalGet(start))
        .instruction(&I::I32Sub)
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Add)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(wasm: &[u8]) {
        wasmparser::Validator::new()
            .validate_all(wasm)
            .expect("rewritten module is valid");
    }

    fn exports(wasm: &[u8]) -> Vec<(String, wasmparser::ExternalKind, u32)> {
        let mut v = Vec::new();
        for p in Parser::new(0).parse_all(wasm) {
            if let Payload::ExportSection(r) = p.unwrap() {
                for e in r {
                    let e = e.unwrap();
                    v.push((e.name.to_string(), e.kind, e.index));
                }
            }
        }
        v
    }

    #[test]
    fn bulk_instructions_become_guarded_calls_and_indices_stay() {
        let wasm = wat::parse_str(
            r#"(module
                (import "x" "f" (func $imp (param i32)))
                (import "x" "g" (global $ig i32))
                (memory (export "memory") 1)
                (global $g (mut i32) (i32.const 7))
                (data $d "abcd")
                (func $a (export "a") (param $p i32) (local $l i64)
                    (memory.fill (local.get $p) (i32.const 1) (i32.const 2))
                    (memory.copy (i32.const 0) (i32.const 8) (i32.const 4))
                    (memory.fill (i32.const 9) (i32.const 1) (i32.const 2))
                    (call $imp (global.get $g)))
                (func $b (export "b")
                    (memory.init $d (i32.const 0) (i32.const 0) (i32.const 4))
                    (call $a (i32.const 3))))"#,
        )
        .unwrap();
        let (out, report) = rewrite(&wasm).unwrap();
        validate(&out);
        assert_eq!(report.guarded, 4);
        let ex = exports(&out);
        // Originals keep their indices; the globals are appended after the
        // imported and the defined one.
        assert!(ex.contains(&("a".into(), wasmparser::ExternalKind::Func, 1)));
        assert!(ex.contains(&("b".into(), wasmparser::ExternalKind::Func, 2)));
        assert!(ex.contains(&(RO_START.into(), wasmparser::ExternalKind::Global, 2)));
        assert!(ex.contains(&(RO_FAULT.into(), wasmparser::ExternalKind::Global, 4)));
        // No bulk instruction is left outside the three helpers.
        let mut bodies = 0;
        for p in Parser::new(0).parse_all(&out) {
            if let Payload::CodeSectionEntry(body) = p.unwrap() {
                bodies += 1;
                let mut ops = body.get_operators_reader().unwrap();
                let mut bulk = 0;
                while !ops.eof() {
                    if matches!(
                        ops.read().unwrap(),
                        Operator::MemoryFill { .. }
                            | Operator::MemoryCopy { .. }
                            | Operator::MemoryInit { .. }
                    ) {
                        bulk += 1;
                    }
                }
                assert_eq!(bulk, if bodies > 2 { 1 } else { 0 });
            }
        }
        assert_eq!(bodies, 2 + 3);
    }

    #[test]
    fn sections_are_created_where_missing() {
        let wasm = wat::parse_str(r#"(module (memory (export "memory") 1))"#).unwrap();
        let (out, report) = rewrite(&wasm).unwrap();
        validate(&out);
        assert_eq!(report.guarded, 0);
        assert_eq!(exports(&out).len(), 4);
        let bare = wat::parse_str(
            r#"(module (memory 1) (func (memory.fill (i32.const 0) (i32.const 0) (i32.const 0))))"#,
        )
        .unwrap();
        let (out, report) = rewrite(&bare).unwrap();
        validate(&out);
        assert_eq!(report.guarded, 1);
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(rewrite(b"\0asm\x01\0\0\0\x0a\xff\xff").is_err());
        assert!(rewrite(b"\0asm\x01\0\0\0\x01\x05\x01\x60\x00").is_err());
    }
}

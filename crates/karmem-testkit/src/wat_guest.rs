//! WAT test guests: a tiny guest library written in WAT (bump allocator,
//! window table, dispatch by function id, descriptor in a data segment)
//! around caller-supplied function bodies. For tests and examples of hosts
//! and bindings that should not depend on a guest toolchain; it follows
//! docs/abi.md like any guest library.
//!
//! Bodies are WAT instructions of `(param $args i32) (param $n i32)
//! (result i32)` (the dispatch status) and may use `$arg_ptr`, `$arg_len`
//! (argument `k`), `$win` (window of region `i`), `$reply` (report a
//! result, return 0), `$alloc`, and the `karmem` imports `$result`,
//! `$error`, `$log`, `$call`, `$take`.

use std::fmt::Write as _;

use karmem_host::{
    Access, FunctionDesc, GuestModule, InterfaceDesc, MemoryDesc, ModuleDesc, ParamDesc, Pattern,
    Result, Runtime,
};

/// Where guest libraries keep the window of region `i`: ptr at
/// `WINDOWS + 8i`, len at `WINDOWS + 8i + 4`.
pub const WINDOWS: u32 = 256;
/// Where the descriptor lives.
const DESC_AT: u32 = 4096;
/// First byte of the bump heap.
const HEAP: u32 = 65536;

/// [`MemoryDesc::new`].
pub fn memory(name: &str, importer: Access, exporter: Access, pages: u32) -> MemoryDesc {
    MemoryDesc::new(name, importer, exporter, pages)
}

/// [`ParamDesc::new`].
pub fn param(name: &str, ty: &str, memory: Option<&str>) -> ParamDesc {
    ParamDesc::new(name, ty, memory)
}

/// `name(params) -> result`.
pub fn func(name: &str, params: Vec<ParamDesc>, result: Option<ParamDesc>) -> FunctionDesc {
    FunctionDesc::new(name, params, result)
}

/// A function `name() -> r: t.Msg`.
pub fn simple(name: &str) -> FunctionDesc {
    func(name, vec![], Some(param("r", "t.Msg", None)))
}

/// An interface with its signature hash set ([`InterfaceDesc::new`]); a
/// `pool` interface declares two instances.
pub fn iface(
    name: &str,
    pattern: Pattern,
    memories: Vec<MemoryDesc>,
    functions: Vec<FunctionDesc>,
) -> InterfaceDesc {
    let i = InterfaceDesc::new(name, pattern, memories, functions);
    if pattern == Pattern::Pool {
        i.with_pool_size(2)
    } else {
        i
    }
}

/// A WAT guest under construction.
pub struct Guest {
    pub desc: ModuleDesc,
    /// (export function id, WAT body of `(param $args i32) (param $n i32)
    /// (result i32)`).
    funcs: Vec<(u32, String)>,
    /// Extra module fields (functions, data, globals).
    pub extra: String,
    pub pages: u32,
    /// Runs first in `karmem_alloc` (params $size $align).
    pub alloc_prefix: String,
    pub abi_version: i32,
    pub start_export: bool,
    pub extra_imports: String,
    /// Body of `karmem_init` (`(result i32)`, 0 for success); it may call
    /// the `karmem` imports like any function.
    pub init: String,
}

impl Guest {
    pub fn new(exports: Vec<InterfaceDesc>, imports: Vec<InterfaceDesc>) -> Guest {
        let mut memories: Vec<MemoryDesc> = Vec::new();
        for i in exports.iter().chain(&imports) {
            for m in &i.memories {
                if !memories.iter().any(|x| x.name == m.name) {
                    memories.push(m.clone());
                }
            }
        }
        Guest {
            desc: ModuleDesc {
                memories,
                exports,
                imports,
            }
            .with_hashes(),
            funcs: Vec::new(),
            extra: String::new(),
            pages: 2,
            alloc_prefix: String::new(),
            abi_version: 1,
            start_export: false,
            extra_imports: String::new(),
            init: "(i32.const 0)".into(),
        }
    }

    /// Implement `interface.function` with a WAT body.
    pub fn func(mut self, interface: &str, function: &str, body: &str) -> Guest {
        let id = self
            .desc
            .export_id(interface, function)
            .unwrap_or_else(|| panic!("no export {interface}.{function}"));
        self.funcs.push((id, body.to_string()));
        self
    }

    pub fn extra(mut self, wat: &str) -> Guest {
        self.extra.push_str(wat);
        self.extra.push('\n');
        self
    }

    /// The module text.
    pub fn wat(&self) -> String {
        self.wat_with_desc(&self.desc.encode())
    }

    pub fn wat_with_desc(&self, desc: &[u8]) -> String {
        let mut w = String::from("(module\n");
        w.push_str(
            r#"  (import "karmem" "result" (func $result (param i32 i32)))
  (import "karmem" "error" (func $error (param i32 i32)))
  (import "karmem" "log" (func $log (param i32 i32 i32)))
  (import "karmem" "call" (func $call (param i32 i32 i32 i32 i32) (result i32)))
  (import "karmem" "take" (func $take (param i32 i32 i32) (result i32)))
"#,
        );
        w.push_str(&self.extra_imports);
        let _ = writeln!(w, "  (memory (export \"memory\") {})", self.pages);
        let _ = writeln!(w, "  (global $heap (mut i32) (i32.const {HEAP}))");
        let mut data = String::new();
        for b in desc {
            let _ = write!(data, "\\{b:02x}");
        }
        let _ = writeln!(w, "  (data (i32.const {DESC_AT}) \"{data}\")");
        let _ = writeln!(
            w,
            "  (func (export \"karmem_abi_version\") (result i32) (i32.const {}))",
            self.abi_version
        );
        let _ = writeln!(
            w,
            "  (func (export \"karmem_init\") (result i32)\n{})",
            self.init
        );
        let _ = writeln!(
            w,
            "  (func (export \"karmem_describe\") (result i64) (i64.const {}))",
            u64::from(DESC_AT) | ((desc.len() as u64) << 32)
        );
        let alloc = format!("{}\n{BUMP}", self.alloc_prefix);
        let _ = writeln!(
            w,
            "  (func $alloc (export \"karmem_alloc\") (param $size i32) (param $align i32) (result i32) (local $p i32) (local $end i32)\n{alloc})"
        );
        let _ = writeln!(
            w,
            "  (func (export \"karmem_bind_memory\") (param $i i32) (param $p i32) (param $l i32)\n    (i32.store (i32.add (i32.const {WINDOWS}) (i32.shl (local.get $i) (i32.const 3))) (local.get $p))\n    (i32.store (i32.add (i32.const {}) (i32.shl (local.get $i) (i32.const 3))) (local.get $l)))",
            WINDOWS + 4
        );
        if self.start_export {
            w.push_str("  (func (export \"_start\"))\n");
        }
        w.push_str("  (func (export \"karmem_dispatch\") (param $f i32) (param $args i32) (param $n i32) (result i32)\n");
        for (id, _) in &self.funcs {
            let _ = writeln!(
                w,
                "    (if (i32.eq (local.get $f) (i32.const {id})) (then (return (call $f{id} (local.get $args) (local.get $n)))))"
            );
        }
        w.push_str("    (i32.const 1))\n");
        for (id, body) in &self.funcs {
            let _ = writeln!(
                w,
                "  (func $f{id} (param $args i32) (param $n i32) (result i32)\n{body})"
            );
        }
        w.push_str(HELPERS);
        w.push_str(&self.extra);
        w.push_str(")\n");
        w
    }

    /// Load the module into `runtime` under `name`.
    pub fn load_into(&self, runtime: &Runtime, name: &str) -> Result<GuestModule> {
        runtime.load(name, self.wat().as_bytes())
    }
}

/// Bump allocator that grows the memory; 0 when growth is refused.
const BUMP: &str = r#"    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1)))
                           (i32.xor (i32.sub (local.get $align) (i32.const 1)) (i32.const -1))))
    (local.set $end (i32.add (local.get $p) (local.get $size)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16))) (i32.const 65535)) (i32.const 16)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p)"#;

/// Helpers for bodies: argument k's pointer/length, the window of region i,
/// reply with bytes (result) or an error string.
const HELPERS: &str = r#"  (func $arg_ptr (param $args i32) (param $k i32) (result i32) (i32.load (i32.add (local.get $args) (i32.shl (local.get $k) (i32.const 3)))))
  (func $arg_len (param $args i32) (param $k i32) (result i32) (i32.load offset=4 (i32.add (local.get $args) (i32.shl (local.get $k) (i32.const 3)))))
  (func $win (param $i i32) (result i32) (i32.load (i32.add (i32.const 256) (i32.shl (local.get $i) (i32.const 3)))))
  (func $reply (param $p i32) (param $l i32) (result i32) (call $result (local.get $p) (local.get $l)) (i32.const 0))
"#;

/// A guest exporting `interface` with one function `ok() -> r` that replies
/// `text`.
pub fn replier(interface: &str, text: &str) -> Guest {
    Guest::new(
        vec![iface(
            interface,
            Pattern::Direct,
            vec![],
            vec![simple("ok")],
        )],
        vec![],
    )
    .func(
        interface,
        "ok",
        &format!("(call $reply (i32.const 2048) (i32.const {}))", text.len()),
    )
    .extra(&format!("(data (i32.const 2048) \"{text}\")"))
}

/// `karmem_alloc` prefix for benchmark guests: arguments go to one reused
/// buffer (grown when needed) and argument arrays to a fixed scratch area,
/// so millions of calls allocate nothing. Needs [`REUSE_GLOBALS`] in
/// [`Guest::extra`].
pub const REUSE_ALLOC: &str = "(if (i32.eq (local.get $align) (i32.const 8)) (then (return (i32.const 1024))))
(if (i32.eq (local.get $align) (i32.const 64))
  (then
    (if (i32.gt_u (local.get $size) (global.get $argcap))
      (then
        (global.set $argbuf (i32.and (i32.add (global.get $heap) (i32.const 63)) (i32.const -64)))
        (global.set $argcap (local.get $size))
        (global.set $heap (global.get $argbuf))
        (local.set $end (i32.add (global.get $argbuf) (local.get $size)))
        (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
          (then (if (i32.eq (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16))) (i32.const 65535)) (i32.const 16))) (i32.const -1))
            (then (return (i32.const 0))))))
        (global.set $heap (local.get $end))))
    (return (global.get $argbuf))))";

/// The globals [`REUSE_ALLOC`] uses.
pub const REUSE_GLOBALS: &str =
    "(global $argbuf (mut i32) (i32.const 0)) (global $argcap (mut i32) (i32.const 0))";

/// `b.Api`: `nop()`, `echo(x: b.Msg) -> r: b.Msg`.
pub fn bench_api() -> InterfaceDesc {
    iface(
        "b.Api",
        Pattern::Direct,
        vec![],
        vec![
            func("nop", vec![], None),
            func(
                "echo",
                vec![param("x", "b.Msg", None)],
                Some(param("r", "b.Msg", None)),
            ),
        ],
    )
}

/// `t.Bot`, an arena in miniature: the board `t.board` is read-write for
/// importers (the world) and read-only for exporters (the bots);
/// `think(state @ t.board)` is how the world calls a bot. The security
/// tests use it to try a bot that grants itself the world's access.
pub fn bot_api() -> InterfaceDesc {
    iface(
        "t.Bot",
        Pattern::FanOut,
        vec![memory("t.board", Access::ReadWrite, Access::Read, 1)],
        vec![func(
            "think",
            vec![param("state", "t.State", Some("t.board"))],
            None,
        )],
    )
}

/// The benchmarks' reference callee: exports [`bench_api`], `nop` returns
/// at once and `echo` replies with its argument's bytes; nothing is
/// allocated per call ([`REUSE_ALLOC`]). What a call into it costs is the
/// runtime's cost, not the guest's.
pub fn echo_guest() -> Guest {
    let mut g = Guest::new(vec![bench_api()], vec![])
        .func("b.Api", "nop", "(i32.const 0)")
        .func(
            "b.Api",
            "echo",
            "(call $reply (call $arg_ptr (local.get $args) (i32.const 0)) (call $arg_len (local.get $args) (i32.const 0)))",
        )
        .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

/// `b.Loop.run()`: `calls` calls of the imported `b.Api.nop` (import 0,
/// function 0) through `karmem.call`, without arguments, one out entry:
/// the reference of a guest's call without data (to another guest or to a
/// host function), `calls` at a time so the host's entry into the caller
/// is shared by all of them.
pub fn loop_caller(calls: u32) -> Guest {
    Guest::new(
        vec![iface(
            "b.Loop",
            Pattern::Direct,
            vec![],
            vec![func("run", vec![], None)],
        )],
        vec![bench_api()],
    )
    .func(
        "b.Loop",
        "run",
        &format!(
            "(local $i i32)
             (loop $l
               (if (i32.ne (call $call (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1100) (i32.const 1)) (i32.const 1))
                 (then (unreachable)))
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (i32.const {calls}))))
             (i32.const 0)"
        ),
    )
}

/// `b.Relay.relay() -> r`: calls `b.Api.echo` (imported) with the 64 bytes
/// at 2048, takes the result, replies with it: the reference guest→guest
/// call.
pub fn relay_guest() -> Guest {
    let mut g = Guest::new(
        vec![iface(
            "b.Relay",
            Pattern::Direct,
            vec![],
            vec![func("relay", vec![], Some(param("r", "b.Msg", None)))],
        )],
        vec![bench_api()],
    )
    .func(
        "b.Relay",
        "relay",
        "(i32.store (i32.const 1200) (i32.const 2048)) (i32.store (i32.const 1204) (i32.const 64))
         (if (i32.ne (call $call (i32.const 1) (i32.const 1200) (i32.const 1) (i32.const 1100) (i32.const 1)) (i32.const 1)) (then (unreachable)))
         (drop (call $take (i32.const 0) (i32.const 3000) (i32.load (i32.const 1108))))
         (call $reply (i32.const 3000) (i32.load (i32.const 1108)))",
    )
    .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

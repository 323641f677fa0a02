//! C guest bindings (`--lang c-guest`): for every interface of a schema,
//! the operation table an exporting module fills in, its registration and
//! generated dispatcher, typed wrappers an importing module calls it
//! through (direct and fan-out), window accessors and the interface's
//! descriptor, on top of the C guest runtime `c/karmem_guest.h`
//! (docs/abi.md, docs/c.md "Guests").
//!
//! The output is the `--lang c` data files (`<prefix>.h`, `<prefix>.c`)
//! plus `<prefix>_guest.h` and `<prefix>_guest.c`. Handlers receive their
//! arguments decoded (text points into the message, in place); copied
//! results are encoded by the dispatcher. Descriptor data (qualified names,
//! canonical signature hash) comes from [`crate::iface`], so it is what the
//! host recomputes.

use std::collections::BTreeSet;

use karmem_layout::Layout;
use karmem_schema::model::{Schema, StructId};

use crate::c::{c_string, member, prefix, CBackend};
use crate::emit::Lines;
use crate::iface::{self, Access, Func, Iface, Pattern, Value};
use crate::names::snake;
use crate::{Backend, Error, GeneratedFile};

/// The C guest generator.
#[derive(Clone, Debug, Default)]
pub struct CGuestBackend;

impl Backend for CGuestBackend {
    fn name(&self) -> &'static str {
        "c-guest"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut files = CBackend.generate(schema, layout)?;
        let g = Gen {
            prefix: prefix(schema),
            ifaces: iface::interfaces(schema),
            schema,
        };
        files.push(GeneratedFile {
            path: format!("{}_guest.h", g.prefix),
            contents: g.header_file(),
        });
        files.push(GeneratedFile {
            path: format!("{}_guest.c", g.prefix),
            contents: g.source_file(),
        });
        Ok(files)
    }
}

/// Names the generated bodies use, which a parameter must not take.
const BODY_NAMES: &[&str] = &[
    "call", "impl", "impl_", "result", "results", "reply", "replies", "arena", "cap", "args", "s",
    "n", "k", "one",
];

/// A C parameter name for a schema parameter: `snake_case`, with a
/// trailing `_` for C keywords and names the generated bodies use.
fn local(name: &str) -> String {
    let m = member(name);
    if BODY_NAMES.contains(&m.as_str())
        || (m.starts_with('w') || m.starts_with('r')) && m[1..].parse::<u32>().is_ok()
    {
        format!("{m}_")
    } else {
        m
    }
}

fn access(a: Access) -> &'static str {
    match a {
        Access::None => "ABI_ACCESS_NONE",
        Access::Read => "ABI_ACCESS_READ",
        Access::ReadWrite => "ABI_ACCESS_READ_WRITE",
    }
}

fn pattern(p: Pattern) -> &'static str {
    match p {
        Pattern::Direct => "ABI_PATTERN_DIRECT",
        Pattern::FanOut => "ABI_PATTERN_FAN_OUT",
        Pattern::Singleton => "ABI_PATTERN_SINGLETON",
        Pattern::Pool => "ABI_PATTERN_POOL",
    }
}

/// A `km_text` initializer for an identifier-like name.
fn text(s: &str) -> String {
    format!("{{{}, {}u}}", c_string(s), s.len())
}

/// Doc comment lines, one `/* text */` each, made safe inside `/* */`.
fn doc(c: &mut Lines, lines: &[String]) {
    for l in lines {
        let l = l.replace("*/", "* /");
        c.line(&format!("/*{}{l} */", if l.is_empty() { "" } else { " " }));
    }
}

/// `if (cond) { body }`.
fn when(c: &mut Lines, cond: &str, body: &[&str]) {
    c.open(&format!("if ({cond}) {{"));
    for l in body {
        c.line(l);
    }
    c.close("}");
}

/// `return kmg_reply_fail(reply, KMG_CALL_FAILED, code, kmg_call_error_text(code));`
/// broken after its third argument, the rest aligned under the first.
fn return_call_failed(c: &mut Lines, code: &str) {
    let head = "return kmg_reply_fail(";
    c.line(&format!("{head}reply, KMG_CALL_FAILED, {code},"));
    c.line(&format!(
        "{:w$}kmg_call_error_text({code}));",
        "",
        w = head.len()
    ));
}

struct Gen<'a> {
    prefix: String,
    ifaces: Vec<Iface>,
    schema: &'a Schema,
}

impl Gen<'_> {
    fn ty(&self, id: StructId) -> String {
        format!("{}_{}", self.prefix, snake(&self.schema.structs[id].name))
    }

    /// `<prefix>_<interface>`.
    fn base(&self, i: &Iface) -> String {
        format!("{}_{}", self.prefix, snake(&i.local))
    }

    fn handler_signature(&self, i: &Iface, f: &Func) -> String {
        let mut params = vec!["kmg_call *call".to_string()];
        for p in &f.params {
            params.push(format!("{} {}", self.arg_view(p), local(&p.name)));
        }
        match &f.result {
            Some(r) if i.region_of(r).is_some() => params.push("kmg_bytes *result".into()),
            Some(r) => params.push(format!("{} *result", self.ty(r.struct_id))),
            None => {}
        }
        format!("kmg_status (*{})({})", member(&f.name), params.join(", "))
    }

    /// The view a handler receives for parameter `p` (R11.3): the trusted
    /// view `<type>_tview` of the argument the dispatcher validated in the
    /// memory it was copied into; a region-bound argument gets the checked
    /// `<type>_view`, as its shared window may change after validation (the
    /// handler itself, or another module, may write to it).
    fn arg_view(&self, p: &Value) -> String {
        match p.region {
            Some(_) => format!("{}_view", self.ty(p.struct_id)),
            None => format!("{}_tview", self.ty(p.struct_id)),
        }
    }

    fn call_params(&self, i: &Iface, f: &Func) -> Vec<String> {
        f.params
            .iter()
            .map(|p| {
                if i.region_of(p).is_some() {
                    format!("kmg_bytes {}", local(&p.name))
                } else {
                    format!("const {} *{}", self.ty(p.struct_id), local(&p.name))
                }
            })
            .collect()
    }

    fn call_signature(&self, i: &Iface, f: &Func) -> String {
        let base = self.base(i);
        let mut params = self.call_params(i, f);
        let name = format!("{base}_call_{}", snake(&f.name));
        if i.pattern == Pattern::FanOut {
            params.push("kmg_reply *replies".into());
            if let Some(r) = &f.result {
                params.push(format!("{} *results", self.ty(r.struct_id)));
            }
            params.push("uint32_t cap".into());
            params.push("km_arena *arena".into());
            format!("int32_t {name}({})", params.join(", "))
        } else {
            if let Some(r) = &f.result {
                params.push(format!("{} *result", self.ty(r.struct_id)));
            }
            params.push("km_arena *arena".into());
            params.push("kmg_reply *reply".into());
            format!("kmg_status {name}({})", params.join(", "))
        }
    }

    fn header_file(&self) -> String {
        let p = &self.prefix;
        let guard = format!("{}_GUEST_KARMEM_H", p.to_uppercase());
        let mut c = Lines::new("    ", 0);
        c.raw(&crate::header("//", self.schema));
        c.line("// The C guest bindings of this schema (docs/c.md, \"Guests\").");
        c.line(&format!("#ifndef {guard}"));
        c.line(&format!("#define {guard}"));
        c.line("");
        c.line("#include \"karmem_guest.h\"");
        c.line(&format!("#include \"{p}.h\""));
        c.line("");
        c.line("#ifdef __cplusplus");
        c.line("extern \"C\" {");
        c.line("#endif");
        for i in &self.ifaces {
            self.interface_decls(&mut c, i);
        }
        c.line("");
        c.line("#ifdef __cplusplus");
        c.line("}");
        c.line("#endif");
        c.line("");
        c.line(&format!("#endif /* {guard} */"));
        c.out
    }

    fn interface_decls(&self, c: &mut Lines, i: &Iface) {
        let base = self.base(i);
        c.line("");
        c.line(&format!(
            "/* ==== interface {} ({}) ==== */",
            i.name,
            match i.pattern {
                Pattern::Direct => "direct",
                Pattern::FanOut => "fan-out",
                Pattern::Singleton => "singleton",
                Pattern::Pool => "pool",
            }
        ));
        doc(c, &i.doc);
        c.line("");
        c.line(&format!(
            "/* The descriptor of `{}` (docs/abi.md §3); its hash is that of the",
            i.name
        ));
        c.line(" * canonical signature:");
        for line in i.signature.lines() {
            c.line(&format!(" *     {line}"));
        }
        c.line(" */");
        c.line(&format!(
            "extern const abi_interface_desc {base}_interface;"
        ));
        for r in &i.regions {
            c.line("");
            c.line(&format!(
                "/* This module's window of region `{}` ({} pages; importers {}, exporters",
                r.name,
                r.pages,
                r.importer.keyword()
            ));
            c.line(&format!(
                " * {}); {{NULL, 0}} when the module does not use it. */",
                r.exporter.keyword()
            ));
            c.line(&format!(
                "kmg_window {base}_{}_window(void);",
                snake(&r.local)
            ));
        }
        c.line("");
        c.line(&format!(
            "/* Implemented by a module that exports `{}`: one function per",
            i.name
        ));
        c.line(" * operation (NULL answers UNKNOWN_FUNCTION). Arguments are decoded and");
        c.line(" * valid until the function returns (text points into the message; the");
        c.line(" * raw message is kmg_arg(call, k)); a result is zeroed before the call.");
        c.line(" * Return KMG_OK, or kmg_fail(\"why\") for an application error. */");
        c.open(&format!("typedef struct {base}_exports {{"));
        for f in &i.functions {
            doc(c, &f.doc);
            if let Some(r) = f.result.as_ref().and_then(|r| i.region_of(r)) {
                c.line(&format!(
                    "/* *result must lie in this module's window of `{}` ({base}_{}_window). */",
                    r.name,
                    snake(&r.local)
                ));
            }
            c.line(&format!("{};", self.handler_signature(i, f)));
        }
        c.close(&format!("}} {base}_exports;"));
        c.line("");
        c.line(&format!(
            "/* Makes this module export `{}`, implemented by *impl (which must",
            i.name
        ));
        c.line(" * outlive the module: make it static). Call it from kmg_init(). */");
        c.line(&format!(
            "kmg_status {base}_export(const {base}_exports *impl);"
        ));
        c.line("");
        c.line(&format!(
            "/* Makes this module import `{}`. Call it from kmg_init(). */",
            i.name
        ));
        c.line(&format!("kmg_status {base}_import(void);"));
        for f in &i.functions {
            c.line("");
            if i.pattern == Pattern::FanOut {
                c.line(&format!(
                    "/* Calls `{}` on every exporter: replies[k] (and results[k]) for callee k <",
                    f.name
                ));
                c.line(
                    " * min(n, cap), where n, the number of callees, is returned (negative: the",
                );
                c.line(" * call failed, kmg_call_error_text). Results live in arena. */");
            } else {
                c.line(&format!(
                    "/* Calls `{}`: KMG_OK, or the failure, described in *reply (which may be",
                    f.name
                ));
                c.line(" * NULL). The result lives in arena (or in a window). */");
            }
            doc(c, &f.doc);
            for p in &f.params {
                if let Some(r) = i.region_of(p) {
                    c.line(&format!(
                        "/* {} must lie in this module's window of `{}`. */",
                        local(&p.name),
                        r.name
                    ));
                }
            }
            c.line(&format!("{};", self.call_signature(i, f)));
        }
    }

    fn source_file(&self) -> String {
        let p = &self.prefix;
        let mut c = Lines::new("    ", 0);
        c.raw(&crate::header("//", self.schema));
        c.line(&format!("#include \"{p}_guest.h\""));
        c.line("");
        c.line("#include <string.h>");
        // Helpers per message type: viewing an argument (exports; trusted,
        // or checked when region-bound), encoding a copied result (exports),
        // decoding a reply (imports).
        let mut args = BTreeSet::new();
        let mut region_args = BTreeSet::new();
        let mut results = BTreeSet::new();
        let mut replies = BTreeSet::new();
        for i in &self.ifaces {
            for f in &i.functions {
                for p in &f.params {
                    match p.region {
                        Some(_) => region_args.insert(p.struct_id),
                        None => args.insert(p.struct_id),
                    };
                }
                if let Some(r) = &f.result {
                    replies.insert(r.struct_id);
                    if i.region_of(r).is_none() {
                        results.insert(r.struct_id);
                    }
                }
            }
        }
        for &id in &args {
            let t = self.ty(id);
            c.line("");
            c.line("/* Argument k, validated, as a trusted view (absent: a view of nothing). */");
            c.open(&format!(
                "static kmg_status arg_{t}(kmg_call *call, uint32_t k, const char *param, {t}_tview *out) {{"
            ));
            c.line("km_reader r;");
            c.line("bool present;");
            c.line("km_status s;");
            c.line("kmg_status st = kmg_open_arg(call, k, param, &r, &present);");
            c.line("memset(out, 0, sizeof *out);");
            when(&mut c, "st != KMG_OK || !present", &["return st;"]);
            c.line(&format!("s = {t}_trust(&r, NULL, out);"));
            c.line("return s == KM_OK ? KMG_OK : kmg_bad_argument(call, param, s);");
            c.close("}");
        }
        for &id in &region_args {
            let t = self.ty(id);
            c.line("");
            c.line("/* Region-bound argument k, validated, as a checked view over *r, as the");
            c.line(" * window may change after validation (absent: the empty message). */");
            c.open(&format!(
                "static kmg_status arg_{t}_view(kmg_call *call, uint32_t k, const char *param, km_reader *r, {t}_view *out) {{"
            ));
            c.line("bool present;");
            c.line("km_status s = KM_OK;");
            c.line("kmg_status st = kmg_open_arg(call, k, param, r, &present);");
            when(&mut c, "st != KMG_OK", &["return st;"]);
            when(&mut c, "present", &[&format!("s = {t}_validate(r, NULL);")]);
            c.line(&format!("*out = {t}_view_root(r);"));
            c.line("return s == KM_OK ? KMG_OK : kmg_bad_argument(call, param, s);");
            c.close("}");
        }
        for &id in &results {
            let t = self.ty(id);
            c.line("");
            c.line("/* The result of the current dispatch, encoded. */");
            c.open(&format!(
                "static kmg_status result_{t}(kmg_call *call, const {t} *value) {{"
            ));
            c.line("km_writer *w = kmg_result_writer();");
            c.line("km_status s;");
            when(
                &mut c,
                "w == NULL",
                &["return kmg_result_failed(call, KM_ERR_NO_MEMORY);"],
            );
            c.line(&format!("s = {t}_encode(value, w);"));
            when(
                &mut c,
                "s != KM_OK",
                &["return kmg_result_failed(call, s);"],
            );
            c.line("return kmg_set_result(call, km_writer_bytes(w), km_writer_len(w));");
            c.close("}");
        }
        for &id in &replies {
            let t = self.ty(id);
            c.line("");
            c.line("/* A callee's result, validated and decoded into arena (zero unless OK). */");
            c.open(&format!(
                "static kmg_status reply_{t}(kmg_reply *reply, {t} *out, km_arena *arena) {{"
            ));
            c.line("km_reader r;");
            c.line("km_status s;");
            c.line("memset(out, 0, sizeof *out);");
            when(
                &mut c,
                "reply->status != KMG_OK || reply->msg.len == 0",
                &["return reply->status;"],
            );
            c.line("s = km_reader_open(&r, reply->msg.ptr, reply->msg.len);");
            when(
                &mut c,
                "s == KM_OK",
                &[&format!("s = {t}_validate(&r, NULL);")],
            );
            when(
                &mut c,
                "s == KM_OK",
                &[&format!("s = {t}_decode(out, &r, arena);")],
            );
            when(
                &mut c,
                "s != KM_OK",
                &[
                    "memset(out, 0, sizeof *out);",
                    "return kmg_reply_fail(reply, KMG_BAD_RESULT, 0, km_status_text(s));",
                ],
            );
            c.line("return KMG_OK;");
            c.close("}");
        }
        for i in &self.ifaces {
            self.descriptor(&mut c, i);
            self.dispatcher(&mut c, i);
            self.importer(&mut c, i);
        }
        c.out
    }

    fn param_desc(&self, i: &Iface, v: Option<&Value>) -> String {
        match v {
            None => format!("{{{}, {}, {}}}", text(""), text(""), text("")),
            Some(v) => format!(
                "{{{}, {}, {}}}",
                text(&v.name),
                text(&v.ty),
                text(i.region_of(v).map(|r| r.name.as_str()).unwrap_or(""))
            ),
        }
    }

    fn descriptor(&self, c: &mut Lines, i: &Iface) {
        let base = self.base(i);
        c.line("");
        c.line(&format!("/* ==== {} ==== */", i.name));
        let memories = if i.regions.is_empty() {
            "{NULL, 0u}".to_string()
        } else {
            c.line("");
            c.open(&format!("static abi_memory_desc {base}_memories[] = {{"));
            for r in &i.regions {
                c.line(&format!(
                    "{{{}, {}, {}, {}u}},",
                    text(&r.name),
                    access(r.importer),
                    access(r.exporter),
                    r.pages
                ));
            }
            c.close("};");
            format!("{{{base}_memories, {}u}}", i.regions.len())
        };
        // A function's entry refers to its parameter array, written first.
        let mut functions = Vec::new();
        for f in &i.functions {
            let params = if f.params.is_empty() {
                "{NULL, 0u}".to_string()
            } else {
                let name = format!("{base}_{}_params", snake(&f.name));
                c.line("");
                c.open(&format!("static abi_param_desc {name}[] = {{"));
                for p in &f.params {
                    c.line(&format!("{},", self.param_desc(i, Some(p))));
                }
                c.close("};");
                format!("{{{name}, {}u}}", f.params.len())
            };
            functions.push(format!(
                "{{{}, {params}, {}}},",
                text(&f.name),
                self.param_desc(i, f.result.as_ref())
            ));
        }
        let functions_ref = if functions.is_empty() {
            "{NULL, 0u}".to_string()
        } else {
            c.line("");
            c.open(&format!("static abi_function_desc {base}_functions[] = {{"));
            for entry in &functions {
                c.line(entry);
            }
            c.close("};");
            format!("{{{base}_functions, {}u}}", functions.len())
        };
        c.line("");
        c.open(&format!("const abi_interface_desc {base}_interface = {{"));
        c.line(&format!("{},", text(&i.name)));
        c.line(&format!("UINT64_C({:#018x}),", i.hash));
        c.line(&format!("{},", i.dynamic));
        c.line(&format!("{},", pattern(i.pattern)));
        c.line(&format!("{}u,", i.pool_size));
        c.line(&format!("{memories},"));
        c.line(&format!("{functions_ref},"));
        c.close("};");
        for r in &i.regions {
            c.line("");
            c.line(&format!(
                "kmg_window {base}_{}_window(void) {{ return kmg_window_of({}); }}",
                snake(&r.local),
                c_string(&r.name)
            ));
        }
    }

    fn dispatcher(&self, c: &mut Lines, i: &Iface) {
        let base = self.base(i);
        c.line("");
        c.open(&format!(
            "static kmg_status {base}_dispatch(kmg_call *call, const void *impl_) {{"
        ));
        c.line(&format!(
            "const {base}_exports *impl = (const {base}_exports *)impl_;"
        ));
        // The cases stand at the level of the `switch`, their bodies one in.
        c.line("switch (call->function) {");
        for f in &i.functions {
            let m = member(&f.name);
            c.open(&format!("case {}u: {{", f.index));
            for (k, p) in f.params.iter().enumerate() {
                if p.region.is_some() {
                    c.line(&format!("km_reader r{k};"));
                }
                c.line(&format!("{} {};", self.arg_view(p), local(&p.name)));
            }
            match &f.result {
                Some(r) if i.region_of(r).is_some() => c.line("kmg_bytes result = {NULL, 0u};"),
                Some(r) => c.line(&format!("{} result;", self.ty(r.struct_id))),
                None => {}
            }
            if !f.params.is_empty() || f.result.is_some() {
                c.line("kmg_status s;");
            }
            when(
                c,
                &format!("impl->{m} == NULL"),
                &["return kmg_unknown_function(call);"],
            );
            let mut call_args = vec!["call".to_string()];
            for (k, p) in f.params.iter().enumerate() {
                let name = local(&p.name);
                let (suffix, reader) = match p.region {
                    Some(_) => ("_view", format!(" &r{k},")),
                    None => ("", String::new()),
                };
                c.line(&format!(
                    "s = arg_{}{suffix}(call, {k}u, {},{reader} &{name});",
                    self.ty(p.struct_id),
                    c_string(&p.name)
                ));
                when(c, "s != KMG_OK", &["return s;"]);
                call_args.push(name);
            }
            if f.result.is_some() {
                call_args.push("&result".into());
            }
            let call = format!("impl->{m}({})", call_args.join(", "));
            match &f.result {
                Some(r) if i.region_of(r).is_none() => {
                    c.line("memset(&result, 0, sizeof result);");
                    c.line(&format!("s = {call};"));
                    when(c, "s != KMG_OK", &["return s;"]);
                    c.line(&format!(
                        "return result_{}(call, &result);",
                        self.ty(r.struct_id)
                    ));
                }
                Some(_) => {
                    c.line(&format!("s = {call};"));
                    when(c, "s != KMG_OK", &["return s;"]);
                    c.line("return kmg_set_result(call, result.ptr, result.len);");
                }
                None => c.line(&format!("return {call};")),
            }
            c.close("}");
        }
        c.open("default:");
        c.line("return kmg_unknown_function(call);");
        c.close("}"); // the `switch`
        c.close("}");
        c.line("");
        c.open(&format!(
            "kmg_status {base}_export(const {base}_exports *impl) {{"
        ));
        c.line(&format!(
            "return kmg_register_export(&{base}_interface, {base}_dispatch, impl);"
        ));
        c.close("}");
    }

    /// Encodes the copied arguments of `f` into `args` (region-bound ones
    /// are passed as they are); `fail` writes the statement for a failure.
    fn encode_args(&self, c: &mut Lines, i: &Iface, f: &Func, fail: fn(&mut Lines)) {
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            if i.region_of(p).is_some() {
                c.line(&format!("args[{k}] = {name};"));
                continue;
            }
            let t = self.ty(p.struct_id);
            c.line(&format!("args[{k}] = (kmg_bytes){{NULL, 0u}};"));
            c.open(&format!("if ({name} != NULL) {{"));
            c.line(&format!("km_writer w{k};"));
            c.open(&format!(
                "if (kmg_arena_writer(&w{k}, arena, 256) != KM_OK || {t}_encode({name}, &w{k}) != KM_OK) {{"
            ));
            fail(c);
            c.close("}");
            c.line(&format!(
                "args[{k}] = (kmg_bytes){{km_writer_bytes(&w{k}), km_writer_len(&w{k})}};"
            ));
            c.close("}");
        }
    }

    fn importer(&self, c: &mut Lines, i: &Iface) {
        let base = self.base(i);
        c.line("");
        c.line(&format!("static uint32_t {base}_import_index;"));
        c.line(&format!("static bool {base}_imported;"));
        c.line("");
        c.open(&format!("kmg_status {base}_import(void) {{"));
        c.line(&format!(
            "kmg_status s = kmg_register_import(&{base}_interface, &{base}_import_index);"
        ));
        c.line(&format!("{base}_imported = s == KMG_OK;"));
        c.line("return s;");
        c.close("}");
        for f in &i.functions {
            let id = format!("{base}_import_index << 16 | {}u", f.index);
            let count = f.params.len();
            let args_ref = if count == 0 { "NULL" } else { "args" };
            c.line("");
            c.open(&format!("{} {{", self.call_signature(i, f)));
            if count > 0 {
                c.line(&format!("kmg_bytes args[{count}];"));
            }
            if i.pattern == Pattern::FanOut {
                c.line("int32_t n;");
                when(
                    c,
                    &format!("!{base}_imported"),
                    &["return KMG_CALL_NOT_IMPORTED;"],
                );
                self.encode_args(c, i, f, |c| c.line("return KMG_CALL_BAD_ARGUMENT;"));
                c.line(&format!(
                    "n = kmg_call_import({id}, {args_ref}, {count}u, replies, cap, arena);"
                ));
                if let Some(r) = &f.result {
                    c.open("for (uint32_t k = 0; n > 0 && k < (uint32_t)n && k < cap; k++) {");
                    c.line(&format!(
                        "(void)reply_{}(&replies[k], &results[k], arena);",
                        self.ty(r.struct_id)
                    ));
                    c.close("}");
                }
                c.line("return n;");
            } else {
                c.line("kmg_reply one;");
                c.line("kmg_status s;");
                when(c, "reply == NULL", &["reply = &one;"]);
                c.line("memset(reply, 0, sizeof *reply);");
                if f.result.is_some() {
                    c.line("memset(result, 0, sizeof *result);");
                }
                c.open(&format!("if (!{base}_imported) {{"));
                return_call_failed(c, "KMG_CALL_NOT_IMPORTED");
                c.close("}");
                self.encode_args(c, i, f, |c| return_call_failed(c, "KMG_CALL_BAD_ARGUMENT"));
                c.line(&format!(
                    "s = kmg_call_one({id}, {args_ref}, {count}u, reply, arena);"
                ));
                if let Some(r) = &f.result {
                    when(c, "s != KMG_OK", &["return s;"]);
                    c.line(&format!(
                        "return reply_{}(reply, result, arena);",
                        self.ty(r.struct_id)
                    ));
                } else {
                    c.line("return s;");
                }
            }
            c.close("}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(src: &str) -> (String, String) {
        let (schema, layout) =
            karmem_layout::load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = CGuestBackend.generate(&schema, &layout).unwrap();
        assert_eq!(files.len(), 4);
        assert_eq!(files[2].path, format!("{}_guest.h", prefix(&schema)));
        (files[2].contents.clone(), files[3].contents.clone())
    }

    const GAME: &str = "karmem game;\nstruct State table { X u32; }\nstruct Input table { Y u32; }\n\
         interface Updater (fanout) {\n  world: memory (import: read, export: write, 16);\n\
         update: fn(state: State @ world, input: Input) (next: State @ world);\n  reset: fn();\n}\n";

    /// The worked example of docs/abi.md §3.1: the descriptor carries the
    /// hash the host recomputes, the regions with both accesses, and an
    /// empty result for `reset`.
    #[test]
    fn descriptor_hash_and_regions() {
        let (h, c) = generate(GAME);
        assert!(c.contains("UINT64_C(0xf1c9c72e7ed96715)"), "{c}");
        assert!(c.contains("{{\"game.world\", 10u}, ABI_ACCESS_READ, ABI_ACCESS_READ_WRITE, 16u},"));
        assert!(c.contains("{{\"reset\", 5u}, {NULL, 0u}, {{\"\", 0u}, {\"\", 0u}, {\"\", 0u}}},"));
        assert!(c.contains("{{\"state\", 5u}, {\"game.State\", 10u}, {\"game.world\", 10u}},"));
        assert!(c.contains("ABI_PATTERN_FAN_OUT"));
        assert!(h.contains(" *     fn update(state: game.State @ game.world, input: game.Input) -> next: game.State @ game.world"));
        assert!(h.contains("kmg_window game_updater_world_window(void);"));
    }

    /// Exporters fill an operation table; a region-bound result is a
    /// `kmg_bytes`; fan-out wrappers return the callee count with one reply
    /// and one result per callee; region-bound arguments are `kmg_bytes`.
    #[test]
    fn exporter_and_fanout_shapes() {
        let (h, c) = generate(GAME);
        assert!(h.contains("kmg_status (*update)(kmg_call *call, game_state_view state, game_input_tview input, kmg_bytes *result);"), "{h}");
        assert!(h.contains("kmg_status (*reset)(kmg_call *call);"));
        assert!(h.contains("int32_t game_updater_call_update(kmg_bytes state, const game_input *input, kmg_reply *replies, game_state *results, uint32_t cap, km_arena *arena);"));
        assert!(h.contains(
            "int32_t game_updater_call_reset(kmg_reply *replies, uint32_t cap, km_arena *arena);"
        ));
        // The region-bound result is checked against its window by the
        // runtime, not encoded.
        assert!(c.contains("return kmg_set_result(call, result.ptr, result.len);"));
        assert!(!c.contains("static kmg_status result_game_state"));
        assert!(c.contains("static kmg_status reply_game_state"));
    }

    #[test]
    fn direct_wrappers_and_escaped_names() {
        let (h, c) = generate(
            "karmem k;\nstruct M table { X u32; }\ninterface I {\n  get: fn(call: M, int: M) -> M;\n  put: fn(w0: M);\n}\n",
        );
        assert!(h.contains(
            "kmg_status k_i_call_get(const k_m *call_, const k_m *int_, k_m *result, km_arena *arena, kmg_reply *reply);"
        ), "{h}");
        assert!(h.contains(
            "kmg_status k_i_call_put(const k_m *w0_, km_arena *arena, kmg_reply *reply);"
        ));
        assert!(c.contains("s = arg_k_m(call, 1u, \"int\", &int_);"));
        assert!(c.contains("return result_k_m(call, &result);"));
        assert!(c.contains("ABI_PATTERN_DIRECT"));
    }

    #[test]
    fn no_interfaces_no_helpers() {
        let (h, c) = generate("karmem k;\nstruct M table { X u32; }\n");
        assert!(!h.contains("interface"));
        assert!(!c.contains("static"));
    }
}

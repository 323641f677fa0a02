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
use std::fmt::Write as _;

use karmem_layout::Layout;
use karmem_schema::model::{Schema, StructId};

use crate::c::{c_string, member, prefix, CBackend};
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
    if BODY_NAMES.contains(&m.as_str()) || m.starts_with('w') && m[1..].parse::<u32>().is_ok() {
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

/// Doc comment lines, made safe inside `/* */`.
fn doc(out: &mut String, indent: &str, lines: &[String]) {
    for l in lines {
        let l = l.replace("*/", "* /");
        let _ = writeln!(
            out,
            "{indent}/*{}{l} */",
            if l.is_empty() { "" } else { " " }
        );
    }
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
            params.push(format!(
                "const {} *{}",
                self.ty(p.struct_id),
                local(&p.name)
            ));
        }
        match &f.result {
            Some(r) if i.region_of(r).is_some() => params.push("kmg_bytes *result".into()),
            Some(r) => params.push(format!("{} *result", self.ty(r.struct_id))),
            None => {}
        }
        format!("kmg_status (*{})({})", member(&f.name), params.join(", "))
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
        let mut out = crate::header("//", self.schema);
        let _ = write!(
            out,
            "// The C guest bindings of this schema (docs/c.md, \"Guests\").\n\
             #ifndef {guard}\n#define {guard}\n\n#include \"karmem_guest.h\"\n#include \"{p}.h\"\n\n\
             #ifdef __cplusplus\nextern \"C\" {{\n#endif\n"
        );
        for i in &self.ifaces {
            self.interface_decls(&mut out, i);
        }
        let _ = write!(
            out,
            "\n#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {guard} */\n"
        );
        out
    }

    fn interface_decls(&self, out: &mut String, i: &Iface) {
        let base = self.base(i);
        let _ = writeln!(
            out,
            "\n/* ==== interface {} ({}) ==== */",
            i.name,
            match i.pattern {
                Pattern::Direct => "direct",
                Pattern::FanOut => "fan-out",
                Pattern::Singleton => "singleton",
                Pattern::Pool => "pool",
            }
        );
        doc(out, "", &i.doc);
        let _ = writeln!(
            out,
            "\n/* The descriptor of `{}` (docs/abi.md §3); its hash is that of the\n * canonical signature:",
            i.name
        );
        for line in i.signature.lines() {
            let _ = writeln!(out, " *     {line}");
        }
        let _ = writeln!(
            out,
            " */\nextern const abi_interface_desc {base}_interface;"
        );
        for r in &i.regions {
            let _ = writeln!(
                out,
                "\n/* This module's window of region `{}` ({} pages; importers {}, exporters\n * {}); {{NULL, 0}} when the module does not use it. */\n\
                 kmg_window {base}_{}_window(void);",
                r.name,
                r.pages,
                r.importer.keyword(),
                r.exporter.keyword(),
                snake(&r.local)
            );
        }
        let _ = writeln!(
            out,
            "\n/* Implemented by a module that exports `{}`: one function per\n\
             \x20* operation (NULL answers UNKNOWN_FUNCTION). Arguments are decoded and\n\
             \x20* valid until the function returns (text points into the message; the\n\
             \x20* raw message is kmg_arg(call, k)); a result is zeroed before the call.\n\
             \x20* Return KMG_OK, or kmg_fail(\"why\") for an application error. */",
            i.name
        );
        let _ = writeln!(out, "typedef struct {base}_exports {{");
        for f in &i.functions {
            doc(out, "    ", &f.doc);
            if let Some(r) = f.result.as_ref().and_then(|r| i.region_of(r)) {
                let _ = writeln!(
                    out,
                    "    /* *result must lie in this module's window of `{}` ({base}_{}_window). */",
                    r.name,
                    snake(&r.local)
                );
            }
            let _ = writeln!(out, "    {};", self.handler_signature(i, f));
        }
        let _ = writeln!(out, "}} {base}_exports;");
        let _ = writeln!(
            out,
            "\n/* Makes this module export `{}`, implemented by *impl (which must\n * outlive the module: make it static). Call it from kmg_init(). */\n\
             kmg_status {base}_export(const {base}_exports *impl);",
            i.name
        );
        let _ = writeln!(
            out,
            "\n/* Makes this module import `{}`. Call it from kmg_init(). */\nkmg_status {base}_import(void);",
            i.name
        );
        for f in &i.functions {
            let _ = writeln!(out);
            if i.pattern == Pattern::FanOut {
                let _ = writeln!(
                    out,
                    "/* Calls `{}` on every exporter: replies[k] (and results[k]) for callee k <\n\
                     \x20* min(n, cap), where n, the number of callees, is returned (negative: the\n\
                     \x20* call failed, kmg_call_error_text). Results live in arena. */",
                    f.name
                );
            } else {
                let _ = writeln!(
                    out,
                    "/* Calls `{}`: KMG_OK, or the failure, described in *reply (which may be\n\
                     \x20* NULL). The result lives in arena (or in a window). */",
                    f.name
                );
            }
            doc(out, "", &f.doc);
            for p in &f.params {
                if let Some(r) = i.region_of(p) {
                    let _ = writeln!(
                        out,
                        "/* {} must lie in this module's window of `{}`. */",
                        local(&p.name),
                        r.name
                    );
                }
            }
            let _ = writeln!(out, "{};", self.call_signature(i, f));
        }
    }

    fn source_file(&self) -> String {
        let p = &self.prefix;
        let mut out = crate::header("//", self.schema);
        let _ = writeln!(out, "#include \"{p}_guest.h\"\n\n#include <string.h>");
        // Helpers per message type: decoding an argument (exports),
        // encoding a copied result (exports), decoding a reply (imports).
        let mut args = BTreeSet::new();
        let mut results = BTreeSet::new();
        let mut replies = BTreeSet::new();
        for i in &self.ifaces {
            for f in &i.functions {
                for p in &f.params {
                    args.insert(p.struct_id);
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
            let _ = write!(
                out,
                "\n/* Argument k, validated and decoded (absent: all zero). */\n\
                 static kmg_status arg_{t}(kmg_call *call, uint32_t k, const char *param, {t} *out) {{\n\
                 \x20   km_reader r;\n    bool present;\n    km_status s;\n\
                 \x20   kmg_status st = kmg_open_arg(call, k, param, &r, &present);\n\
                 \x20   memset(out, 0, sizeof *out);\n\
                 \x20   if (st != KMG_OK || !present) {{\n        return st;\n    }}\n\
                 \x20   s = {t}_validate(&r, NULL);\n\
                 \x20   if (s == KM_OK) {{\n        s = {t}_decode(out, &r, call->arena);\n    }}\n\
                 \x20   return s == KM_OK ? KMG_OK : kmg_bad_argument(call, param, s);\n}}\n"
            );
        }
        for &id in &results {
            let t = self.ty(id);
            let _ = write!(
                out,
                "\n/* The result of the current dispatch, encoded. */\n\
                 static kmg_status result_{t}(kmg_call *call, const {t} *value) {{\n\
                 \x20   km_writer *w = kmg_result_writer();\n    km_status s;\n\
                 \x20   if (w == NULL) {{\n        return kmg_result_failed(call, KM_ERR_NO_MEMORY);\n    }}\n\
                 \x20   s = {t}_encode(value, w);\n\
                 \x20   if (s != KM_OK) {{\n        return kmg_result_failed(call, s);\n    }}\n\
                 \x20   return kmg_set_result(call, km_writer_bytes(w), km_writer_len(w));\n}}\n"
            );
        }
        for &id in &replies {
            let t = self.ty(id);
            let _ = write!(
                out,
                "\n/* A callee's result, validated and decoded into arena (zero unless OK). */\n\
                 static kmg_status reply_{t}(kmg_reply *reply, {t} *out, km_arena *arena) {{\n\
                 \x20   km_reader r;\n    km_status s;\n\
                 \x20   memset(out, 0, sizeof *out);\n\
                 \x20   if (reply->status != KMG_OK || reply->msg.len == 0) {{\n        return reply->status;\n    }}\n\
                 \x20   s = km_reader_open(&r, reply->msg.ptr, reply->msg.len);\n\
                 \x20   if (s == KM_OK) {{\n        s = {t}_validate(&r, NULL);\n    }}\n\
                 \x20   if (s == KM_OK) {{\n        s = {t}_decode(out, &r, arena);\n    }}\n\
                 \x20   if (s != KM_OK) {{\n        memset(out, 0, sizeof *out);\n        return kmg_reply_fail(reply, KMG_BAD_RESULT, 0, km_status_text(s));\n    }}\n\
                 \x20   return KMG_OK;\n}}\n"
            );
        }
        for i in &self.ifaces {
            self.descriptor(&mut out, i);
            self.dispatcher(&mut out, i);
            self.importer(&mut out, i);
        }
        out
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

    fn descriptor(&self, out: &mut String, i: &Iface) {
        let base = self.base(i);
        let _ = writeln!(out, "\n/* ==== {} ==== */", i.name);
        let memories = if i.regions.is_empty() {
            "{NULL, 0u}".to_string()
        } else {
            let _ = writeln!(out, "\nstatic abi_memory_desc {base}_memories[] = {{");
            for r in &i.regions {
                let _ = writeln!(
                    out,
                    "    {{{}, {}, {}, {}u}},",
                    text(&r.name),
                    access(r.importer),
                    access(r.exporter),
                    r.pages
                );
            }
            let _ = writeln!(out, "}};");
            format!("{{{base}_memories, {}u}}", i.regions.len())
        };
        let mut functions = Vec::new();
        for f in &i.functions {
            let params = if f.params.is_empty() {
                "{NULL, 0u}".to_string()
            } else {
                let name = format!("{base}_{}_params", snake(&f.name));
                let _ = writeln!(out, "\nstatic abi_param_desc {name}[] = {{");
                for p in &f.params {
                    let _ = writeln!(out, "    {},", self.param_desc(i, Some(p)));
                }
                let _ = writeln!(out, "}};");
                format!("{{{name}, {}u}}", f.params.len())
            };
            functions.push(format!(
                "    {{{}, {params}, {}}},",
                text(&f.name),
                self.param_desc(i, f.result.as_ref())
            ));
        }
        let functions_ref = if functions.is_empty() {
            "{NULL, 0u}".to_string()
        } else {
            let _ = writeln!(
                out,
                "\nstatic abi_function_desc {base}_functions[] = {{\n{}\n}};",
                functions.join("\n")
            );
            format!("{{{base}_functions, {}u}}", functions.len())
        };
        let _ = writeln!(
            out,
            "\nconst abi_interface_desc {base}_interface = {{\n    {},\n    UINT64_C({:#018x}),\n    {},\n    {},\n    {}u,\n    {memories},\n    {functions_ref},\n}};",
            text(&i.name),
            i.hash,
            i.dynamic,
            pattern(i.pattern),
            i.pool_size
        );
        for r in &i.regions {
            let _ = writeln!(
                out,
                "\nkmg_window {base}_{}_window(void) {{ return kmg_window_of({}); }}",
                snake(&r.local),
                c_string(&r.name)
            );
        }
    }

    fn dispatcher(&self, out: &mut String, i: &Iface) {
        let base = self.base(i);
        let _ = writeln!(
            out,
            "\nstatic kmg_status {base}_dispatch(kmg_call *call, const void *impl_) {{\n\
             \x20   const {base}_exports *impl = (const {base}_exports *)impl_;\n\
             \x20   switch (call->function) {{"
        );
        for f in &i.functions {
            let m = member(&f.name);
            let _ = writeln!(out, "    case {}u: {{", f.index);
            for p in &f.params {
                let _ = writeln!(out, "        {} {};", self.ty(p.struct_id), local(&p.name));
            }
            match &f.result {
                Some(r) if i.region_of(r).is_some() => {
                    let _ = writeln!(out, "        kmg_bytes result = {{NULL, 0u}};");
                }
                Some(r) => {
                    let _ = writeln!(out, "        {} result;", self.ty(r.struct_id));
                }
                None => {}
            }
            if !f.params.is_empty() || f.result.is_some() {
                let _ = writeln!(out, "        kmg_status s;");
            }
            let _ = writeln!(
                out,
                "        if (impl->{m} == NULL) {{\n            return kmg_unknown_function(call);\n        }}"
            );
            let mut call_args = vec!["call".to_string()];
            for (k, p) in f.params.iter().enumerate() {
                let name = local(&p.name);
                let _ = writeln!(
                    out,
                    "        s = arg_{}(call, {k}u, {}, &{name});\n        if (s != KMG_OK) {{\n            return s;\n        }}",
                    self.ty(p.struct_id),
                    c_string(&p.name)
                );
                call_args.push(format!("&{name}"));
            }
            if f.result.is_some() {
                call_args.push("&result".into());
            }
            match &f.result {
                Some(r) if i.region_of(r).is_none() => {
                    let _ = writeln!(
                        out,
                        "        memset(&result, 0, sizeof result);\n        s = impl->{m}({});\n\
                         \x20       if (s != KMG_OK) {{\n            return s;\n        }}\n\
                         \x20       return result_{}(call, &result);",
                        call_args.join(", "),
                        self.ty(r.struct_id)
                    );
                }
                Some(_) => {
                    let _ = writeln!(
                        out,
                        "        s = impl->{m}({});\n        if (s != KMG_OK) {{\n            return s;\n        }}\n\
                         \x20       return kmg_set_result(call, result.ptr, result.len);",
                        call_args.join(", ")
                    );
                }
                None => {
                    let _ = writeln!(out, "        return impl->{m}({});", call_args.join(", "));
                }
            }
            let _ = writeln!(out, "    }}");
        }
        let _ = writeln!(
            out,
            "    default:\n        return kmg_unknown_function(call);\n    }}\n}}"
        );
        let _ = writeln!(
            out,
            "\nkmg_status {base}_export(const {base}_exports *impl) {{\n\
             \x20   return kmg_register_export(&{base}_interface, {base}_dispatch, impl);\n}}"
        );
    }

    /// Encodes the copied arguments of `f` into `args` (region-bound ones
    /// are passed as they are); `fail` is the statement for a failure.
    fn encode_args(&self, out: &mut String, i: &Iface, f: &Func, fail: &str) {
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            if i.region_of(p).is_some() {
                let _ = writeln!(out, "    args[{k}] = {name};");
                continue;
            }
            let t = self.ty(p.struct_id);
            let _ = writeln!(
                out,
                "    args[{k}] = (kmg_bytes){{NULL, 0u}};\n    if ({name} != NULL) {{\n\
                 \x20       km_writer w{k};\n\
                 \x20       if (kmg_arena_writer(&w{k}, arena, 256) != KM_OK || {t}_encode({name}, &w{k}) != KM_OK) {{\n\
                 \x20           {fail}\n        }}\n\
                 \x20       args[{k}] = (kmg_bytes){{km_writer_bytes(&w{k}), km_writer_len(&w{k})}};\n    }}"
            );
        }
    }

    fn importer(&self, out: &mut String, i: &Iface) {
        let base = self.base(i);
        let _ = writeln!(
            out,
            "\nstatic uint32_t {base}_import_index;\nstatic bool {base}_imported;\n\n\
             kmg_status {base}_import(void) {{\n\
             \x20   kmg_status s = kmg_register_import(&{base}_interface, &{base}_import_index);\n\
             \x20   {base}_imported = s == KMG_OK;\n    return s;\n}}"
        );
        for f in &i.functions {
            let id = format!("{base}_import_index << 16 | {}u", f.index);
            let count = f.params.len();
            let args_decl = if count == 0 {
                String::new()
            } else {
                format!("    kmg_bytes args[{count}];\n")
            };
            let args_ref = if count == 0 { "NULL" } else { "args" };
            let _ = writeln!(out, "\n{} {{", self.call_signature(i, f));
            if i.pattern == Pattern::FanOut {
                let _ = writeln!(out, "{args_decl}    int32_t n;");
                let _ = writeln!(
                    out,
                    "    if (!{base}_imported) {{\n        return KMG_CALL_NOT_IMPORTED;\n    }}"
                );
                self.encode_args(out, i, f, "return KMG_CALL_BAD_ARGUMENT;");
                let _ = writeln!(
                    out,
                    "    n = kmg_call_import({id}, {args_ref}, {count}u, replies, cap, arena);"
                );
                if let Some(r) = &f.result {
                    let _ = writeln!(
                        out,
                        "    for (uint32_t k = 0; n > 0 && k < (uint32_t)n && k < cap; k++) {{\n\
                         \x20       (void)reply_{}(&replies[k], &results[k], arena);\n    }}",
                        self.ty(r.struct_id)
                    );
                }
                let _ = writeln!(out, "    return n;\n}}");
            } else {
                let _ = writeln!(out, "{args_decl}    kmg_reply one;\n    kmg_status s;");
                let _ = writeln!(
                    out,
                    "    if (reply == NULL) {{\n        reply = &one;\n    }}"
                );
                let _ = writeln!(out, "    memset(reply, 0, sizeof *reply);");
                if f.result.is_some() {
                    let _ = writeln!(out, "    memset(result, 0, sizeof *result);");
                }
                let _ = writeln!(
                    out,
                    "    if (!{base}_imported) {{\n        return kmg_reply_fail(reply, KMG_CALL_FAILED, KMG_CALL_NOT_IMPORTED,\n\
                     \x20                             kmg_call_error_text(KMG_CALL_NOT_IMPORTED));\n    }}"
                );
                self.encode_args(
                    out,
                    i,
                    f,
                    "return kmg_reply_fail(reply, KMG_CALL_FAILED, KMG_CALL_BAD_ARGUMENT,\n                                  kmg_call_error_text(KMG_CALL_BAD_ARGUMENT));",
                );
                let _ = writeln!(
                    out,
                    "    s = kmg_call_one({id}, {args_ref}, {count}u, reply, arena);"
                );
                match &f.result {
                    Some(r) => {
                        let _ = writeln!(
                            out,
                            "    if (s != KMG_OK) {{\n        return s;\n    }}\n    return reply_{}(reply, result, arena);\n}}",
                            self.ty(r.struct_id)
                        );
                    }
                    None => {
                        let _ = writeln!(out, "    return s;\n}}");
                    }
                }
            }
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
        assert!(h.contains("kmg_status (*update)(kmg_call *call, const game_state *state, const game_input *input, kmg_bytes *result);"), "{h}");
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

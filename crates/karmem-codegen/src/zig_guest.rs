//! Zig guest bindings (`--lang zig-guest`): for every interface of a
//! schema, a namespace with its descriptor, the accessors of its regions'
//! windows, `exporter(Impl)` (the handlers that decode arguments, call the
//! author's functions and encode results) and `client(module)` (typed
//! calls, direct or fan-out), on top of the guest runtime `karmem.guest`
//! (`zig/src/guest.zig`, docs/abi.md, docs/zig.md "Guests").
//!
//! The output is the `--lang zig` file (`<name>.zig`, the data types) plus
//! `<name>_guest.zig`, which imports it. Descriptor data (qualified names,
//! canonical signature hash) comes from the shared interface model in
//! [`crate::iface`], so the hashes are the host's. The text is `zig
//! fmt`-clean as generated, and every local is used.

use std::collections::HashSet;

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::emit::Lines;
use crate::iface::{self, Access, Func, Iface, Pattern, Value};
use crate::names::camel;
use crate::zig::{file_name, ident, type_name, ZigBackend};
use crate::{Backend, Error, GeneratedFile};

/// The Zig guest generator.
#[derive(Clone, Debug, Default)]
pub struct ZigGuestBackend;

impl Backend for ZigGuestBackend {
    fn name(&self) -> &'static str {
        "zig-guest"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut files = ZigBackend.generate(schema, layout)?;
        let name = file_name(schema);
        let ifaces = iface::interfaces(schema);
        let mut c = Lines::new("    ", 0);
        c.raw(&crate::header("//", schema));
        c.line("");
        if ifaces.is_empty() {
            c.line("// The schema declares no interface.");
        } else {
            c.line("const karmem = @import(\"karmem\");");
            c.line("const guest = karmem.guest;");
            c.line("");
            c.line("/// The schema's data types (`karmem build --lang zig`).");
            c.line(&format!("pub const types = @import(\"{name}.zig\");"));
        }
        for i in &ifaces {
            interface(&mut c, i);
        }
        files.push(GeneratedFile {
            path: format!("{name}_guest.zig"),
            contents: c.out,
        });
        Ok(files)
    }
}

/// File-level names and the members of an interface's namespace, which a
/// parameter of a client function must not shadow (Zig refuses shadowing).
fn reserved(i: &Iface) -> HashSet<String> {
    let mut names: HashSet<String> = [
        "karmem",
        "guest",
        "types",
        "interface",
        "exporter",
        "client",
        "Client",
        "import",
        "c",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    names.insert(type_name(&i.local));
    for f in &i.functions {
        names.insert(f.name.clone());
    }
    for r in &i.regions {
        names.insert(window_fn(&r.local));
    }
    names
}

/// A parameter name for a client function: the schema's, with `_` added
/// while it would shadow a declaration, quoted when it is a keyword.
fn local(name: &str, reserved: &HashSet<String>) -> String {
    let mut s = name.to_string();
    while reserved.contains(&s) {
        s.push('_');
    }
    ident(&s)
}

/// `shared` → `sharedWindow`.
fn window_fn(region: &str) -> String {
    let c = camel(region);
    let mut chars = c.chars();
    let head: String = chars
        .next()
        .map(|f| f.to_lowercase().collect())
        .unwrap_or_default();
    format!("{head}{}Window", chars.as_str())
}

fn access(a: Access) -> &'static str {
    match a {
        Access::None => ".none",
        Access::Read => ".read",
        Access::ReadWrite => ".read_write",
    }
}

fn pattern(p: Pattern) -> &'static str {
    match p {
        Pattern::Direct => ".direct",
        Pattern::FanOut => ".fan_out",
        Pattern::Singleton => ".singleton",
        Pattern::Pool => ".pool",
    }
}

fn param_desc(i: &Iface, v: &Value) -> String {
    let memory = i.region_of(v).map(|r| r.name.as_str()).unwrap_or("");
    format!(
        ".{{ .name = \"{}\", .type = \"{}\", .memory = \"{memory}\" }}",
        v.name, v.ty
    )
}

/// The generated type of a value.
fn ty(v: &Value) -> String {
    format!("types.{}", type_name(&v.type_local))
}

fn descriptor(c: &mut Lines, i: &Iface) {
    c.line(&format!(
        "/// The descriptor of `{}` (docs/abi.md §3). Its hash is that of",
        i.name
    ));
    c.line("/// the canonical signature:");
    c.line("///");
    for line in i.signature.lines() {
        c.line(&format!("///     {line}"));
    }
    c.open("pub const interface: guest.Interface = .{");
    c.line(&format!(".name = \"{}\",", i.name));
    c.line(&format!(".hash = {:#018x},", i.hash));
    c.line(&format!(".dynamic = {},", i.dynamic));
    c.line(&format!(".pattern = {},", pattern(i.pattern)));
    c.line(&format!(".pool_size = {},", i.pool_size));
    if i.regions.is_empty() {
        c.line(".memories = &.{},");
    } else {
        c.open(".memories = &.{");
        for r in &i.regions {
            c.line(&format!(
                ".{{ .name = \"{}\", .importer = {}, .exporter = {}, .max_pages = {} }},",
                r.name,
                access(r.importer),
                access(r.exporter),
                r.pages
            ));
        }
        c.close("},");
    }
    if i.functions.is_empty() {
        c.line(".functions = &.{},");
    } else {
        c.open(".functions = &.{");
        for f in &i.functions {
            let params = match f.params.len() {
                0 => "&.{}".to_string(),
                1 => format!("&.{{{}}}", param_desc(i, &f.params[0])),
                _ => {
                    let ps: Vec<String> = f.params.iter().map(|p| param_desc(i, p)).collect();
                    format!("&.{{ {} }}", ps.join(", "))
                }
            };
            let result = f
                .result
                .as_ref()
                .map(|r| format!(", .result = {}", param_desc(i, r)))
                .unwrap_or_default();
            c.line(&format!(
                ".{{ .name = \"{}\", .params = {params}{result} }},",
                f.name
            ));
        }
        c.close("},");
    }
    c.close("};");
}

/// What the author's function for `f` looks like, for the doc comment.
fn export_signature(i: &Iface, f: &Func) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: guest.Arg({})", p.name, ty(p)))
        .collect();
    let result = match &f.result {
        None => "void".to_string(),
        Some(r) if i.region_of(r).is_some() => "[]const u8".to_string(),
        Some(r) => ty(r),
    };
    format!("pub fn {}({}) !{result}", ident(&f.name), params.join(", "))
}

fn exporter(c: &mut Lines, i: &Iface) {
    c.line("");
    c.line(&format!(
        "/// The export of `{}`, implemented by the functions of `Impl`",
        i.name
    ));
    c.line("/// (error unions optional; an error is an application error, whose");
    c.line("/// message `guest.fail` sets, `error.BadArgument` a bad argument):");
    c.line("///");
    for f in &i.functions {
        c.line(&format!("///     {}", export_signature(i, f)));
    }
    c.line("///");
    c.line("/// Arguments are validated and read in place: never keep them past the");
    c.line("/// call. `a.view()` is the trusted viewer of a copied argument; read a");
    c.line("/// region-bound one with `a.checkedView()` (its window may change). A");
    c.line("/// region-bound result must lie in this module's window of the region.");
    c.line("/// List the export in the module's `.exports`.");
    c.open("pub fn exporter(comptime Impl: type) guest.Export {");
    c.open("const handlers = struct {");
    for f in &i.functions {
        let args = if f.params.is_empty() { "_" } else { "args" };
        c.open(&format!(
            "fn {}({args}: []const []align(8) const u8) guest.HandlerError!?[]const u8 {{",
            ident(&f.name)
        ));
        let mut names = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            // A region-bound argument is read in the shared window: checked
            // views only (`Arg.checkedView`), the others trusted (`view`).
            let open = match p.region {
                Some(_) => "sharedArgument",
                None => "argument",
            };
            c.line(&format!(
                "const a{k} = try guest.{open}({}, \"{}\", args[{k}]);",
                ty(p),
                p.name
            ));
            names.push(format!("a{k}"));
        }
        let call = format!("Impl.{}({})", ident(&f.name), names.join(", "));
        match &f.result {
            None => {
                c.line(&format!("try guest.settle({call});"));
                c.line("return null;");
            }
            Some(r) => match i.region_of(r) {
                Some(region) => c.line(&format!(
                    "return guest.regionResult(\"{}\", try guest.settle({call}));",
                    region.name
                )),
                None => {
                    c.line(&format!("const out = try guest.settle({call});"));
                    c.line(&format!("return try guest.encodeResult({}, &out);", ty(r)));
                }
            },
        }
        c.close("}");
    }
    c.close("};");
    let handlers: Vec<String> = i
        .functions
        .iter()
        .map(|f| format!("handlers.{}", ident(&f.name)))
        .collect();
    let list = match handlers.len() {
        0 => "&.{}".to_string(),
        1 => format!("&.{{{}}}", handlers[0]),
        _ => format!("&.{{ {} }}", handlers.join(", ")),
    };
    c.line(&format!(
        "return .{{ .interface = interface, .handlers = {list} }};"
    ));
    c.close("}");
}

fn client(c: &mut Lines, i: &Iface) {
    let fanout = i.pattern == Pattern::FanOut;
    let reserved = reserved(i);
    c.line("");
    c.line(&format!(
        "/// The client of `{}` for module `module`, which must list",
        i.name
    ));
    c.line("/// `interface` in its `.imports`.");
    c.open("pub fn client(comptime module: guest.Module) Client {");
    c.line(&format!(
        "return .{{ .import = comptime module.importIndex(\"{}\") }};",
        i.name
    ));
    c.close("}");
    c.line("");
    if fanout {
        c.line(&format!(
            "/// Calls `{}`: every call goes to every exporter and returns one reply",
            i.name
        ));
        c.line("/// per callee, in manifest order. Replies and arguments live in");
    } else {
        c.line(&format!(
            "/// Calls `{}`. Replies and arguments live in",
            i.name
        ));
    }
    c.line("/// dispatch memory (`guest.scratch()`).");
    c.open("pub const Client = struct {");
    c.line("import: u16,");
    for f in &i.functions {
        let result = f.result.as_ref().map(ty).unwrap_or_else(|| "void".into());
        let returns = if fanout {
            format!("guest.CallError![]guest.Reply({result})")
        } else {
            format!("guest.CallError!guest.Reply({result})")
        };
        c.line("");
        if f.doc.is_empty() {
            c.line(&format!("/// Calls `{}`.", f.name));
        } else {
            c.comment("/// ", &f.doc);
        }
        let mut params = vec!["c: Client".to_string()];
        let mut args = Vec::new();
        // The body's first lines (encoding the copied arguments) wait for
        // the signature: the notes on region-bound parameters precede it.
        let mut prologue = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name, &reserved);
            if let Some(r) = i.region_of(p) {
                c.line(&format!(
                    "/// `{name}` must lie in this module's window of `{}` ({}).",
                    r.name,
                    window_fn(&r.local)
                ));
                params.push(format!("{name}: []const u8"));
                args.push(name);
            } else {
                params.push(format!("{name}: *const {}", ty(p)));
                prologue.push(format!("const a{k} = try guest.encodeArgument({name});"));
                args.push(format!("a{k}"));
            }
        }
        c.open(&format!(
            "pub fn {}({}) {returns} {{",
            ident(&f.name),
            params.join(", ")
        ));
        for l in &prologue {
            c.line(l);
        }
        let list = match args.len() {
            0 => "&.{}".to_string(),
            1 => format!("&.{{{}}}", args[0]),
            _ => format!("&.{{ {} }}", args.join(", ")),
        };
        let call = format!(
            "guest.call({result}, @as(u32, c.import) << 16 | {}, {list})",
            f.index
        );
        if fanout {
            c.line(&format!("return {call};"));
        } else {
            c.line(&format!("return guest.single({result}, try {call});"));
        }
        c.close("}");
    }
    c.close("};");
}

fn interface(c: &mut Lines, i: &Iface) {
    c.line("");
    if !i.doc.is_empty() {
        c.comment("/// ", &i.doc);
        c.line("///");
    }
    c.line(&format!(
        "/// The interface `{}`: its descriptor, its regions' windows, the",
        i.name
    ));
    c.line("/// export (`exporter`) and the client (`client`).");
    c.open(&format!("pub const {} = struct {{", type_name(&i.local)));
    descriptor(c, i);
    for r in &i.regions {
        c.line("");
        c.line(&format!(
            "/// This module's window of region `{}` ({} pages; importers {},",
            r.name,
            r.pages,
            r.importer.keyword()
        ));
        c.line(&format!(
            "/// exporters {}): empty when the module has no access to it.",
            r.exporter.keyword()
        ));
        c.open(&format!("pub fn {}() []u8 {{", window_fn(&r.local)));
        c.line(&format!("return guest.window(\"{}\");", r.name));
        c.close("}");
    }
    exporter(c, i);
    client(c, i);
    c.close("};");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(src: &str) -> String {
        let (schema, layout) =
            karmem_layout::load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = ZigGuestBackend.generate(&schema, &layout).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[1].path, format!("{}_guest.zig", file_name(&schema)));
        files[1].contents.clone()
    }

    #[test]
    fn names_hash_and_shapes() {
        let out = generate(
            "karmem game;\nstruct State table { X u32; }\nstruct Input table { Y u32; }\n\
             interface Updater (fanout) {\n  world: memory (import: read, export: write, 16);\n\
             update: fn(state: State @ world, input: Input) (next: State @ world);\n  reset: fn();\n}\n",
        );
        // The hash of docs/abi.md §3.1's example.
        assert!(out.contains(".hash = 0xf1c9c72e7ed96715,"), "{out}");
        assert!(out.contains(".pattern = .fan_out,"));
        assert!(out.contains(
            ".{ .name = \"game.world\", .importer = .read, .exporter = .read_write, .max_pages = 16 },"
        ));
        assert!(out.contains(
            ".{ .name = \"update\", .params = &.{ .{ .name = \"state\", .type = \"game.State\", .memory = \"game.world\" }, \
             .{ .name = \"input\", .type = \"game.Input\", .memory = \"\" } }, \
             .result = .{ .name = \"next\", .type = \"game.State\", .memory = \"game.world\" } },"
        ));
        assert!(out.contains(".{ .name = \"reset\", .params = &.{} },"));
        // The region-bound argument is marked shared (checked views only).
        assert!(
            out.contains("const a0 = try guest.sharedArgument(types.State, \"state\", args[0]);")
        );
        assert!(out.contains("const a1 = try guest.argument(types.Input, \"input\", args[1]);"));
        assert!(out.contains("pub fn worldWindow() []u8 {"));
        assert!(out.contains(
            "return guest.regionResult(\"game.world\", try guest.settle(Impl.update(a0, a1)));"
        ));
        assert!(out.contains(
            "pub fn update(c: Client, state: []const u8, input: *const types.Input) guest.CallError![]guest.Reply(types.State) {"
        ));
        assert!(out.contains("return guest.call(void, @as(u32, c.import) << 16 | 1, &.{});"));
        assert!(out.contains("fn reset(_: []const []align(8) const u8)"));
    }

    #[test]
    fn direct_client_and_shadowing_avoided() {
        let out = generate(
            "karmem k;\nstruct M table { X u32; }\ninterface I {\n  get: fn(type: M, get: M) -> M;\n  put: fn(c: M);\n}\n",
        );
        assert!(
            out.contains("pub fn get(c: Client, @\"type\": *const types.M, get_: *const types.M) guest.CallError!guest.Reply(types.M) {"),
            "{out}"
        );
        assert!(out.contains("return guest.single(types.M, try guest.call(types.M, @as(u32, c.import) << 16 | 0, &.{ a0, a1 }));"));
        assert!(out.contains(
            "pub fn put(c: Client, c_: *const types.M) guest.CallError!guest.Reply(void) {"
        ));
        assert!(out.contains("const out = try guest.settle(Impl.get(a0, a1));"));
    }

    #[test]
    fn no_interfaces_no_imports() {
        let out = generate("karmem k;\nstruct M table { X u32; }\n");
        assert!(!out.contains("@import"));
    }
}

//! AssemblyScript guest bindings (`--lang as-guest`): for every interface of
//! a schema, its descriptor, an abstract exporter class whose methods the
//! author overrides (with the dispatcher that validates and decodes the
//! arguments, calls them and reports the result), typed accessors of its
//! regions' windows and a typed client (direct or fan-out), on top of the
//! guest runtime `as/assembly/guest.ts` (docs/abi.md,
//! docs/assemblyscript.md "Guests").
//!
//! The output is the `--lang as` file (`<name>.ts`, the data classes) plus
//! `<name>_guest.ts`, which imports it as `types`. Descriptor data
//! (qualified names, canonical signature hash) comes from the shared
//! interface model in [`crate::iface`], so the hashes are the host's.

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::assemblyscript::{field_name, file_name, type_name, AssemblyScriptBackend, LIBRARY};
use crate::emit::Lines;
use crate::iface::{self, Access, Func, Iface, Pattern, Value};
use crate::{Backend, Error, GeneratedFile};

/// The AssemblyScript guest generator.
#[derive(Clone, Debug, Default)]
pub struct AsGuestBackend;

impl Backend for AsGuestBackend {
    fn name(&self) -> &'static str {
        "as-guest"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut files = AssemblyScriptBackend.generate(schema, layout)?;
        let name = file_name(schema);
        let ifaces = iface::interfaces(schema);
        let mut c = Lines::new("  ", 0);
        c.raw(&crate::header("//", schema));
        c.line("");
        if ifaces.is_empty() {
            c.line("// The schema declares no interface.");
        } else {
            c.line(&format!("import * as guest from \"{LIBRARY}/guest\";"));
            c.line("// The schema's data classes (`karmem build --lang as`).");
            c.line(&format!("import * as types from \"./{name}\";"));
        }
        for i in &ifaces {
            interface(&mut c, i);
        }
        files.push(GeneratedFile {
            path: format!("{name}_guest.ts"),
            contents: c.out,
        });
        Ok(files)
    }
}

/// Members of the generated classes that a method must not override.
const TAKEN: &[&str] = &["dispatch", "descriptor", "constructor", "importIndex"];

/// A method name for a function: the schema's, `_` added when it is taken.
fn method(name: &str) -> String {
    let mut s = name.to_string();
    if TAKEN.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// A parameter name: camelCase, `_` added to a reserved word (as for a
/// field) and to the names of the file's namespace imports.
fn local(name: &str) -> String {
    let mut s = field_name(name);
    if s == "guest" || s == "types" {
        s.push('_');
    }
    s
}

/// `shared` → `sharedWindow`.
fn window_fn(region: &str) -> String {
    format!("{}Window", field_name(region))
}

fn access(a: Access) -> &'static str {
    match a {
        Access::None => "guest.Access.None",
        Access::Read => "guest.Access.Read",
        Access::ReadWrite => "guest.Access.ReadWrite",
    }
}

fn pattern(p: Pattern) -> &'static str {
    match p {
        Pattern::Direct => "guest.Pattern.Direct",
        Pattern::FanOut => "guest.Pattern.FanOut",
        Pattern::Singleton => "guest.Pattern.Singleton",
        Pattern::Pool => "guest.Pattern.Pool",
    }
}

/// A `/** ... */` doc comment of `lines` (nothing when there are none).
fn doc(c: &mut Lines, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    c.line("/**");
    c.comment(" * ", lines);
    c.line(" */");
}

/// The generated class of a value.
fn ty(v: &Value) -> String {
    format!("types.{}", type_name(&v.type_local))
}

fn param_desc(i: &Iface, v: &Value) -> String {
    let memory = i.region_of(v).map(|r| r.name.as_str()).unwrap_or("");
    format!(
        "guest.paramDesc(\"{}\", \"{}\", \"{memory}\")",
        v.name, v.ty
    )
}

/// The name of the interface's descriptor constant.
fn desc_const(i: &Iface) -> String {
    format!("{}Interface", type_name(&i.local))
}

fn descriptor(c: &mut Lines, i: &Iface) {
    c.line("");
    c.line("/**");
    c.line(&format!(
        " * The descriptor of `{}` (docs/abi.md §3). Its hash is that of the",
        i.name
    ));
    c.line(" * canonical signature:");
    c.line(" *");
    for line in i.signature.lines() {
        c.line(&format!(" *     {line}"));
    }
    c.line(" */");
    c.open(&format!(
        "export const {}: guest.InterfaceDesc = guest.interfaceDesc(",
        desc_const(i)
    ));
    c.line(&format!("\"{}\",", i.name));
    c.line(&format!("{:#018x},", i.hash));
    c.line(&format!("{},", i.dynamic));
    c.line(&format!("{},", pattern(i.pattern)));
    c.line(&format!("{},", i.pool_size));
    if i.regions.is_empty() {
        c.line("[],");
    } else {
        c.open("[");
        for r in &i.regions {
            c.line(&format!(
                "guest.memoryDesc(\"{}\", {}, {}, {}),",
                r.name,
                access(r.importer),
                access(r.exporter),
                r.pages
            ));
        }
        c.close("],");
    }
    if i.functions.is_empty() {
        c.line("[],");
    } else {
        c.open("[");
        for f in &i.functions {
            let params: Vec<String> = f.params.iter().map(|p| param_desc(i, p)).collect();
            let result = f
                .result
                .as_ref()
                .map(|r| param_desc(i, r))
                .unwrap_or_else(|| "null".to_string());
            c.line(&format!(
                "guest.functionDesc(\"{}\", [{}], {result}),",
                f.name,
                params.join(", ")
            ));
        }
        c.close("],");
    }
    c.close(");");
}

/// The return type of the author's method for `f`.
fn method_result(i: &Iface, f: &Func) -> String {
    match &f.result {
        None => "void".to_string(),
        Some(r) if i.region_of(r).is_some() => "guest.Slice | null".to_string(),
        Some(r) => format!("{} | null", ty(r)),
    }
}

fn exporter(c: &mut Lines, i: &Iface) {
    let class = type_name(&i.local);
    c.line("");
    c.line("/**");
    if !i.doc.is_empty() {
        c.comment(" * ", &i.doc);
        c.line(" *");
    }
    c.line(&format!(
        " * The export of `{}`: extend this class, implement its methods and",
        i.name
    ));
    c.line(" * register an instance at the top level of the entry file:");
    c.line(" *");
    c.line(&format!(" *     class My{class} extends {class} {{ ... }}"));
    c.line(&format!(" *     guest.register(new My{class}());"));
    c.line(" *");
    c.line(" * Arguments arrive validated and decoded; `guest.argument(k)` is where");
    c.line(" * argument `k` lies. A method fails with `return guest.fail<T>(text)`");
    c.line(" * (APPLICATION_ERROR). A region-bound result must lie in this module's");
    c.line(" * window of the region (`Window.write`).");
    c.line(" */");
    c.open(&format!(
        "export abstract class {class} extends guest.Exporter {{"
    ));
    c.open("constructor() {");
    c.line(&format!("super({});", desc_const(i)));
    c.close("}");
    for r in &i.regions {
        c.line("");
        c.line(&format!(
            "/** This module's window of region `{}` ({} pages; importers {},",
            r.name,
            r.pages,
            r.importer.keyword()
        ));
        c.line(&format!(
            " * exporters {}): empty when the module has no access to it. */",
            r.exporter.keyword()
        ));
        c.open(&format!(
            "static {}(): guest.Window {{",
            window_fn(&r.local)
        ));
        c.line(&format!("return guest.window(\"{}\");", r.name));
        c.close("}");
    }
    for f in &i.functions {
        c.line("");
        if f.doc.is_empty() {
            c.line(&format!("/** `{}`. */", f.name));
        } else {
            doc(c, &f.doc);
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", local(&p.name), ty(p)))
            .collect();
        c.line(&format!(
            "abstract {}({}): {};",
            method(&f.name),
            params.join(", "),
            method_result(i, f)
        ));
    }
    c.line("");
    c.line("/** Decodes the arguments of function `f`, calls its method and reports");
    c.line(" * the result (guest.ts runs it). */");
    c.open("dispatch(f: u32): guest.Status {");
    c.open("switch (f) {");
    for f in &i.functions {
        c.open(&format!("case {}: {{", f.index));
        let mut names = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let t = ty(p);
            c.line(&format!(
                "const a{k} = guest.decodeArgument<{t}>({k}, \"{}\", {t}.decode);",
                p.name
            ));
            c.line(&format!(
                "if (a{k} == null) return guest.Status.BadArgument;"
            ));
            names.push(format!("a{k}"));
        }
        let call = format!("this.{}({})", method(&f.name), names.join(", "));
        match &f.result {
            None => {
                c.line(&format!("{call};"));
                c.line("return guest.done();");
            }
            Some(r) => match i.region_of(r) {
                Some(region) => c.line(&format!(
                    "return guest.replyInRegion(\"{}\", {call});",
                    region.name
                )),
                None => c.line(&format!("return guest.reply<{}>({call});", ty(r))),
            },
        }
        c.close("}");
    }
    c.close("}");
    c.line("return guest.Status.UnknownFunction;");
    c.close("}");
    c.close("}");
}

fn client(c: &mut Lines, i: &Iface) {
    let fanout = i.pattern == Pattern::FanOut;
    let class = format!("{}Client", type_name(&i.local));
    c.line("");
    c.line("/**");
    if fanout {
        c.line(&format!(
            " * Calls `{}`: every call goes to every exporter and returns one reply per",
            i.name
        ));
        c.line(" * callee, in manifest order. Create it at the top level of the entry file:");
    } else {
        c.line(&format!(
            " * Calls `{}`. Create it at the top level of the entry file:",
            i.name
        ));
    }
    c.line(" * the module then imports the interface.");
    c.line(" */");
    c.open(&format!("export class {class} {{"));
    c.line("readonly importIndex: u32;");
    c.line("");
    c.open("constructor() {");
    c.line(&format!(
        "this.importIndex = guest.importInterface({});",
        desc_const(i)
    ));
    c.close("}");
    for f in &i.functions {
        let result = f
            .result
            .as_ref()
            .map(ty)
            .unwrap_or_else(|| "guest.Nothing".into());
        let returns = if fanout {
            format!("Array<guest.Reply<{result}>>")
        } else {
            format!("guest.Reply<{result}>")
        };
        c.line("");
        let mut lines = if f.doc.is_empty() {
            vec![format!("Calls `{}`.", f.name)]
        } else {
            f.doc.clone()
        };
        let mut params = Vec::new();
        let mut chain = String::new();
        for p in &f.params {
            let name = local(&p.name);
            if let Some(r) = i.region_of(p) {
                lines.push(format!(
                    "`{name}` must lie in this module's window of `{}` (`{}.{}()`).",
                    r.name,
                    type_name(&i.local),
                    window_fn(&r.local)
                ));
                params.push(format!("{name}: guest.Slice"));
                chain += &format!(".place({name})");
            } else {
                params.push(format!("{name}: {}", ty(p)));
                chain += &format!(".encode<{}>({name})", ty(p));
            }
        }
        doc(c, &lines);
        let how = if fanout { "all" } else { "one" };
        c.open(&format!(
            "{}({}): {returns} {{",
            method(&f.name),
            params.join(", ")
        ));
        c.line(&format!(
            "return new guest.Call((this.importIndex << 16) | {}, {})",
            f.index,
            f.params.len()
        ));
        // The chained calls continue the `return` one level in.
        c.indent += 1;
        c.line(&format!("{chain}.{how}<{result}>({result}.decode);"));
        c.indent -= 1;
        c.close("}");
    }
    c.close("}");
}

fn interface(c: &mut Lines, i: &Iface) {
    descriptor(c, i);
    exporter(c, i);
    client(c, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(src: &str) -> String {
        let (schema, layout) =
            karmem_layout::load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = AsGuestBackend.generate(&schema, &layout).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[1].path, format!("{}_guest.ts", file_name(&schema)));
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
        assert!(out.contains("  0xf1c9c72e7ed96715,\n"), "{out}");
        assert!(out.contains("  guest.Pattern.FanOut,\n"));
        assert!(out.contains(
            "guest.memoryDesc(\"game.world\", guest.Access.Read, guest.Access.ReadWrite, 16),"
        ));
        assert!(out.contains(
            "guest.functionDesc(\"update\", [guest.paramDesc(\"state\", \"game.State\", \"game.world\"), \
             guest.paramDesc(\"input\", \"game.Input\", \"\")], guest.paramDesc(\"next\", \"game.State\", \"game.world\")),"
        ));
        assert!(out.contains("guest.functionDesc(\"reset\", [], null),"));
        assert!(out.contains("static worldWindow(): guest.Window {"));
        assert!(out.contains(
            "abstract update(state: types.State, input: types.Input): guest.Slice | null;"
        ));
        assert!(out.contains("return guest.replyInRegion(\"game.world\", this.update(a0, a1));"));
        assert!(out.contains(
            "update(state: guest.Slice, input: types.Input): Array<guest.Reply<types.State>> {"
        ));
        assert!(out.contains(
            ".place(state).encode<types.Input>(input).all<types.State>(types.State.decode);"
        ));
        assert!(out.contains("reset(): Array<guest.Reply<guest.Nothing>> {"));
        assert!(out.contains("this.reset();\n        return guest.done();"));
        assert!(out.contains("import * as types from \"./game\";"));
    }

    #[test]
    fn direct_client_and_taken_names() {
        let out = generate(
            "karmem k;\nstruct M table { X u32; }\ninterface I {\n  dispatch: fn(new: M) -> M;\n}\n",
        );
        assert!(
            out.contains("abstract dispatch_(new_: types.M): types.M | null;"),
            "{out}"
        );
        assert!(
            out.contains("const a0 = guest.decodeArgument<types.M>(0, \"new\", types.M.decode);")
        );
        assert!(out.contains("return guest.reply<types.M>(this.dispatch_(a0));"));
        assert!(out.contains("dispatch_(new_: types.M): guest.Reply<types.M> {"));
        assert!(out.contains(".encode<types.M>(new_).one<types.M>(types.M.decode);"));
        assert!(out.contains("  guest.Pattern.Direct,\n"));
    }

    #[test]
    fn no_interfaces_no_imports() {
        let out = generate("karmem k;\nstruct M table { X u32; }\n");
        assert!(!out.contains("import"));
    }
}

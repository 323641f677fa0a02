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

use std::fmt::Write as _;

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::assemblyscript::{field_name, file_name, type_name, AssemblyScriptBackend, LIBRARY};
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
        let mut out = crate::header("//", schema);
        if ifaces.is_empty() {
            out.push_str("\n// The schema declares no interface.\n");
        } else {
            let _ = write!(
                out,
                "\nimport * as guest from \"{LIBRARY}/guest\";\n\
                 // The schema's data classes (`karmem build --lang as`).\n\
                 import * as types from \"./{name}\";\n"
            );
        }
        for i in &ifaces {
            interface(&mut out, i);
        }
        files.push(GeneratedFile {
            path: format!("{name}_guest.ts"),
            contents: out,
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

fn doc(out: &mut String, indent: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for l in lines {
        let _ = writeln!(out, "{indent} *{}{l}", if l.is_empty() { "" } else { " " });
    }
    let _ = writeln!(out, "{indent} */");
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

fn descriptor(out: &mut String, i: &Iface) {
    let _ = writeln!(
        out,
        "\n/**\n * The descriptor of `{}` (docs/abi.md §3). Its hash is that of the\n \
         * canonical signature:\n *",
        i.name
    );
    for line in i.signature.lines() {
        let _ = writeln!(out, " *     {line}");
    }
    let _ = writeln!(
        out,
        " */\nexport const {}: guest.InterfaceDesc = guest.interfaceDesc(",
        desc_const(i)
    );
    let _ = writeln!(out, "  \"{}\",", i.name);
    let _ = writeln!(out, "  {:#018x},", i.hash);
    let _ = writeln!(out, "  {},", i.dynamic);
    let _ = writeln!(out, "  {},", pattern(i.pattern));
    let _ = writeln!(out, "  {},", i.pool_size);
    if i.regions.is_empty() {
        let _ = writeln!(out, "  [],");
    } else {
        let _ = writeln!(out, "  [");
        for r in &i.regions {
            let _ = writeln!(
                out,
                "    guest.memoryDesc(\"{}\", {}, {}, {}),",
                r.name,
                access(r.importer),
                access(r.exporter),
                r.pages
            );
        }
        let _ = writeln!(out, "  ],");
    }
    if i.functions.is_empty() {
        let _ = writeln!(out, "  [],");
    } else {
        let _ = writeln!(out, "  [");
        for f in &i.functions {
            let params: Vec<String> = f.params.iter().map(|p| param_desc(i, p)).collect();
            let result = f
                .result
                .as_ref()
                .map(|r| param_desc(i, r))
                .unwrap_or_else(|| "null".to_string());
            let _ = writeln!(
                out,
                "    guest.functionDesc(\"{}\", [{}], {result}),",
                f.name,
                params.join(", ")
            );
        }
        let _ = writeln!(out, "  ],");
    }
    let _ = writeln!(out, ");");
}

/// The return type of the author's method for `f`.
fn method_result(i: &Iface, f: &Func) -> String {
    match &f.result {
        None => "void".to_string(),
        Some(r) if i.region_of(r).is_some() => "guest.Slice | null".to_string(),
        Some(r) => format!("{} | null", ty(r)),
    }
}

fn exporter(out: &mut String, i: &Iface) {
    let class = type_name(&i.local);
    let _ = writeln!(out, "\n/**");
    for l in &i.doc {
        let _ = writeln!(out, " *{}{l}", if l.is_empty() { "" } else { " " });
    }
    if !i.doc.is_empty() {
        let _ = writeln!(out, " *");
    }
    let _ = writeln!(
        out,
        " * The export of `{}`: extend this class, implement its methods and\n \
         * register an instance at the top level of the entry file:\n *\n \
         *     class My{class} extends {class} {{ ... }}\n \
         *     guest.register(new My{class}());\n *\n \
         * Arguments arrive validated and decoded; `guest.argument(k)` is where\n \
         * argument `k` lies. A method fails with `return guest.fail<T>(text)`\n \
         * (APPLICATION_ERROR). A region-bound result must lie in this module's\n \
         * window of the region (`Window.write`).\n */\n\
         export abstract class {class} extends guest.Exporter {{\n  \
         constructor() {{\n    super({});\n  }}",
        i.name,
        desc_const(i)
    );
    for r in &i.regions {
        let _ = writeln!(
            out,
            "\n  /** This module's window of region `{}` ({} pages; importers {},\n   \
             * exporters {}): empty when the module has no access to it. */\n  \
             static {}(): guest.Window {{\n    return guest.window(\"{}\");\n  }}",
            r.name,
            r.pages,
            r.importer.keyword(),
            r.exporter.keyword(),
            window_fn(&r.local),
            r.name
        );
    }
    for f in &i.functions {
        let _ = writeln!(out);
        if f.doc.is_empty() {
            let _ = writeln!(out, "  /** `{}`. */", f.name);
        } else {
            doc(out, "  ", &f.doc);
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", local(&p.name), ty(p)))
            .collect();
        let _ = writeln!(
            out,
            "  abstract {}({}): {};",
            method(&f.name),
            params.join(", "),
            method_result(i, f)
        );
    }
    let _ = writeln!(
        out,
        "\n  /** Decodes the arguments of function `f`, calls its method and reports\n   \
         * the result (guest.ts runs it). */\n  \
         dispatch(f: u32): guest.Status {{\n    switch (f) {{"
    );
    for f in &i.functions {
        let _ = writeln!(out, "      case {}: {{", f.index);
        let mut names = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let t = ty(p);
            let _ = writeln!(
                out,
                "        const a{k} = guest.decodeArgument<{t}>({k}, \"{}\", {t}.decode);\n        \
                 if (a{k} == null) return guest.Status.BadArgument;",
                p.name
            );
            names.push(format!("a{k}"));
        }
        let call = format!("this.{}({})", method(&f.name), names.join(", "));
        match &f.result {
            None => {
                let _ = writeln!(out, "        {call};\n        return guest.done();");
            }
            Some(r) => match i.region_of(r) {
                Some(region) => {
                    let _ = writeln!(
                        out,
                        "        return guest.replyInRegion(\"{}\", {call});",
                        region.name
                    );
                }
                None => {
                    let _ = writeln!(out, "        return guest.reply<{}>({call});", ty(r));
                }
            },
        }
        let _ = writeln!(out, "      }}");
    }
    let _ = writeln!(
        out,
        "    }}\n    return guest.Status.UnknownFunction;\n  }}\n}}"
    );
}

fn client(out: &mut String, i: &Iface) {
    let fanout = i.pattern == Pattern::FanOut;
    let class = format!("{}Client", type_name(&i.local));
    let _ = writeln!(
        out,
        "\n/**\n * Calls `{}`{}. Create it at the top level of the entry file:\n \
         * the module then imports the interface.\n */\n\
         export class {class} {{\n  \
         readonly importIndex: u32;\n\n  \
         constructor() {{\n    this.importIndex = guest.importInterface({});\n  }}",
        i.name,
        if fanout {
            ": every call goes to every exporter and returns one reply per\n * callee, in manifest order"
        } else {
            ""
        },
        desc_const(i)
    );
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
        let _ = writeln!(out);
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
                let _ = write!(chain, ".place({name})");
            } else {
                params.push(format!("{name}: {}", ty(p)));
                let _ = write!(chain, ".encode<{}>({name})", ty(p));
            }
        }
        doc(out, "  ", &lines);
        let how = if fanout { "all" } else { "one" };
        let _ = writeln!(
            out,
            "  {}({}): {returns} {{\n    \
             return new guest.Call((this.importIndex << 16) | {}, {})\n      \
             {chain}.{how}<{result}>({result}.decode);\n  }}",
            method(&f.name),
            params.join(", "),
            f.index,
            f.params.len(),
        );
    }
    let _ = writeln!(out, "}}");
}

fn interface(out: &mut String, i: &Iface) {
    descriptor(out, i);
    exporter(out, i);
    client(out, i);
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

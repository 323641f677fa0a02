//! Go guest bindings (`--lang go-guest`): for every interface of a schema,
//! the Go interface an exporting module implements, its registration
//! function, and the client an importing module calls it through, on top of
//! the guest library `karmem.org/go/karmem/guest` (docs/abi.md, docs/guests.md).
//!
//! The output is the `--lang go` data package plus one more file,
//! `<package>_guest.go`, in the same package: handlers read arguments
//! through the generated viewers, results are written with the generated
//! objects. Descriptor data (qualified names, canonical signature hash)
//! comes from the shared interface model in [`crate::iface`].

use std::fmt::Write as _;

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::go::{go_name, package_name, GoBackend, GO_KEYWORDS, GO_MODULE};
use crate::iface::{self, Access, Func, Iface, Pattern, Value};
use crate::names::camel;
use crate::{Backend, Error, GeneratedFile};

/// The Go guest generator.
#[derive(Clone, Debug, Default)]
pub struct GoGuestBackend;

impl Backend for GoGuestBackend {
    fn name(&self) -> &'static str {
        "go-guest"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut files = GoBackend.generate(schema, layout)?;
        let package = package_name(schema);
        let ifaces = iface::interfaces(schema);
        let mut body = String::new();
        for i in &ifaces {
            interface(&mut body, i);
        }
        let mut file = crate::header("//", schema);
        let _ = write!(file, "\npackage {package}\n");
        if !ifaces.is_empty() {
            let _ = write!(file, "\nimport \"{GO_MODULE}/guest\"\n");
        }
        file.push_str(&body);
        files.push(GeneratedFile {
            path: format!("{package}_guest.go"),
            contents: file,
        });
        Ok(files)
    }
}

/// Names the generated bodies use, which a parameter must not take.
const BODY_NAMES: &[&str] = &[
    "guest", "karmem", "impl", "c", "err", "args", "out", "w", "replies",
];

/// A Go parameter name for a schema parameter: lower camel case, with a
/// trailing `_` when it would collide with a keyword or a name the
/// generated body uses.
fn local(name: &str) -> String {
    let c = camel(name);
    let mut chars = c.chars();
    let mut s: String = match chars.next() {
        Some(f) => f.to_lowercase().chain(chars).collect(),
        None => "x".into(),
    };
    if GO_KEYWORDS.contains(&s.as_str()) || BODY_NAMES.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

fn access(a: Access) -> &'static str {
    match a {
        Access::None => "guest.AccessNone",
        Access::Read => "guest.AccessRead",
        Access::ReadWrite => "guest.AccessReadWrite",
    }
}

fn pattern(p: Pattern) -> &'static str {
    match p {
        Pattern::Direct => "guest.PatternDirect",
        Pattern::FanOut => "guest.PatternFanOut",
        Pattern::Singleton => "guest.PatternSingleton",
        Pattern::Pool => "guest.PatternPool",
    }
}

fn doc(out: &mut String, indent: &str, lines: &[String]) {
    for l in lines {
        let _ = writeln!(out, "{indent}//{}{l}", if l.is_empty() { "" } else { " " });
    }
}

fn param_desc(i: &Iface, v: &Value) -> String {
    let memory = i.region_of(v).map(|r| r.name.as_str()).unwrap_or("");
    format!(
        "{{Name: {:?}, Type: {:?}, Memory: {:?}}}",
        v.name, v.ty, memory
    )
}

/// The descriptor function, `<name>Interface()`.
fn descriptor(out: &mut String, i: &Iface, go: &str) {
    let _ = writeln!(
        out,
        "\n// {go}Interface is the descriptor of `{}` (docs/abi.md §3); its hash is\n\
         // that of the canonical signature:\n//",
        i.name
    );
    for line in i.signature.lines() {
        let _ = writeln!(out, "//\t{line}");
    }
    let _ = writeln!(out, "func {go}Interface() guest.Interface {{");
    let _ = writeln!(out, "\treturn guest.Interface{{");
    // Keys aligned as gofmt aligns a run of one-line entries.
    let _ = writeln!(out, "\t\tName:     {:?},", i.name);
    let _ = writeln!(out, "\t\tHash:     {:#018x},", i.hash);
    let _ = writeln!(out, "\t\tDynamic:  {},", i.dynamic);
    let _ = writeln!(out, "\t\tPattern:  {},", pattern(i.pattern));
    let _ = writeln!(out, "\t\tPoolSize: {},", i.pool_size);
    if i.regions.is_empty() {
        let _ = writeln!(out, "\t\tMemories: []guest.Memory{{}},");
    } else {
        let _ = writeln!(out, "\t\tMemories: []guest.Memory{{");
    }
    for r in &i.regions {
        let _ = writeln!(
            out,
            "\t\t\t{{Name: {:?}, Importer: {}, Exporter: {}, MaxPages: {}}},",
            r.name,
            access(r.importer),
            access(r.exporter),
            r.pages
        );
    }
    if !i.regions.is_empty() {
        let _ = writeln!(out, "\t\t}},");
    }
    let _ = writeln!(out, "\t\tFunctions: []guest.Function{{");
    for f in &i.functions {
        let params: Vec<String> = f.params.iter().map(|p| param_desc(i, p)).collect();
        let result = f
            .result
            .as_ref()
            .map(|r| format!(", Result: guest.Param{}", param_desc(i, r)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "\t\t\t{{Name: {:?}, Params: []guest.Param{{{}}}{result}}},",
            f.name,
            params.join(", ")
        );
    }
    let _ = writeln!(out, "\t\t}},\n\t}}\n}}");
}

/// The Go type of a value as the exporter receives it.
fn viewer(v: &Value) -> String {
    format!("{}Viewer", go_name(&v.type_local))
}

/// What an exporter's method returns for `f`.
fn export_returns(i: &Iface, f: &Func) -> String {
    match &f.result {
        None => "error".into(),
        Some(r) if i.region_of(r).is_some() => "([]byte, error)".into(),
        Some(r) => format!("(*{}, error)", go_name(&r.type_local)),
    }
}

fn export_signature(i: &Iface, f: &Func) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{} guest.Arg[{}]", local(&p.name), viewer(p)))
        .collect();
    format!(
        "{}({}) {}",
        go_name(&f.name),
        params.join(", "),
        export_returns(i, f)
    )
}

/// The exporter's Go interface and its registration function.
fn exporter(out: &mut String, i: &Iface, go: &str) {
    let _ = writeln!(
        out,
        "\n// {go} is implemented by a module that exports `{}`; register the\n\
         // implementation with Register{go}. Arguments are read in place and\n\
         // must not be kept after the method returns.",
        i.name
    );
    if !i.doc.is_empty() {
        let _ = writeln!(out, "//");
        doc(out, "", &i.doc);
    }
    let _ = writeln!(out, "type {go} interface {{");
    for f in &i.functions {
        doc(out, "\t", &f.doc);
        if let Some(r) = f.result.as_ref().and_then(|r| i.region_of(r)) {
            let _ = writeln!(
                out,
                "\t// The result must lie in this module's window of `{}` ({go}{}Window).",
                r.name,
                go_name(&r.local)
            );
        }
        let _ = writeln!(out, "\t{}", export_signature(i, f));
    }
    let _ = writeln!(out, "}}");

    let _ = writeln!(
        out,
        "\n// Register{go} makes this module export `{}`, implemented by impl.\n\
         // Call it from an init function: the host reads the registrations once,\n\
         // when the module starts.",
        i.name
    );
    let _ = writeln!(out, "func Register{go}(impl {go}) error {{");
    let _ = writeln!(
        out,
        "\treturn guest.RegisterExport({go}Interface(), []guest.Handler{{"
    );
    for f in &i.functions {
        let _ = writeln!(out, "\t\tfunc(args [][]byte) ([]byte, error) {{");
        let mut names = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            let _ = writeln!(
                out,
                "\t\t\t{name}, err := guest.View(args[{k}], Validate{})",
                go_name(&p.type_local)
            );
            let _ = writeln!(
                out,
                "\t\t\tif err != nil {{\n\t\t\t\treturn nil, guest.BadArgument({:?}, err)\n\t\t\t}}",
                p.name
            );
            names.push(name);
        }
        let call = format!("impl.{}({})", go_name(&f.name), names.join(", "));
        match &f.result {
            None => {
                let _ = writeln!(out, "\t\t\treturn nil, {call}");
            }
            Some(r) if i.region_of(r).is_some() => {
                let _ = writeln!(out, "\t\t\treturn {call}");
            }
            Some(_) => {
                let _ = writeln!(
                    out,
                    "\t\t\tout, err := {call}\n\t\t\tif err != nil || out == nil {{\n\t\t\t\treturn nil, err\n\t\t\t}}\n\
                     \t\t\tw := guest.ResultWriter()\n\t\t\tif _, err := out.WriteAsRoot(w); err != nil {{\n\t\t\t\treturn nil, err\n\t\t\t}}\n\
                     \t\t\treturn w.Bytes(), nil"
                );
            }
        }
        let _ = writeln!(out, "\t\t}},");
    }
    let _ = writeln!(out, "\t}})\n}}");
}

/// The importer's client.
fn client(out: &mut String, i: &Iface, go: &str) {
    let fanout = i.pattern == Pattern::FanOut;
    let _ = writeln!(
        out,
        "\n// {go}Client calls `{}`, imported by this module{}.",
        i.name,
        if fanout {
            ":\n// every call goes to every exporter and returns one result per callee"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "type {go}Client struct {{\n\timp guest.Import\n}}");
    let _ = writeln!(
        out,
        "\n// Import{go} makes this module import `{}`. Call it once, from an init\n\
         // function or a package-level variable; a registration error fails the\n\
         // module's start.",
        i.name
    );
    let _ = writeln!(
        out,
        "func Import{go}() {go}Client {{\n\timp, _ := guest.RegisterImport({go}Interface())\n\treturn {go}Client{{imp: imp}}\n}}"
    );
    for f in &i.functions {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                if i.region_of(p).is_some() {
                    format!("{} []byte", local(&p.name))
                } else {
                    format!("{} *{}", local(&p.name), go_name(&p.type_local))
                }
            })
            .collect();
        let result_view = f
            .result
            .as_ref()
            .map(viewer)
            .unwrap_or_else(|| "struct{}".into());
        let validate = f
            .result
            .as_ref()
            .map(|r| format!("Validate{}", go_name(&r.type_local)))
            .unwrap_or_else(|| "nil".into());
        let (returns, zero) = if fanout {
            (
                format!("([]guest.Result[{result_view}], error)"),
                "nil".to_string(),
            )
        } else if f.result.is_some() {
            (
                format!("(guest.Arg[{result_view}], error)"),
                format!("guest.Arg[{result_view}]{{}}"),
            )
        } else {
            ("error".into(), String::new())
        };
        let ret_err = |e: &str| {
            if zero.is_empty() {
                format!("return {e}")
            } else {
                format!("return {zero}, {e}")
            }
        };
        let _ = writeln!(
            out,
            "\n// {} calls `{}`{}.",
            go_name(&f.name),
            f.name,
            if fanout { " on every exporter" } else { "" }
        );
        if !f.doc.is_empty() {
            let _ = writeln!(out, "//");
            doc(out, "", &f.doc);
        }
        for p in &f.params {
            if let Some(r) = i.region_of(p) {
                let _ = writeln!(
                    out,
                    "// {} must lie in this module's window of `{}` ({go}{}Window).",
                    local(&p.name),
                    r.name,
                    go_name(&r.local)
                );
            }
        }
        let _ = writeln!(
            out,
            "func (c {go}Client) {}({}) {returns} {{",
            go_name(&f.name),
            params.join(", ")
        );
        let mut args = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            if i.region_of(p).is_some() {
                args.push(name);
            } else {
                let _ = writeln!(out, "\tw{k} := guest.ArgWriter({k})");
                let _ = writeln!(
                    out,
                    "\tif {name} != nil {{\n\t\tif _, err := {name}.WriteAsRoot(w{k}); err != nil {{\n\t\t\t{}\n\t\t}}\n\t}}",
                    ret_err("err")
                );
                args.push(format!("w{k}.Bytes()"));
            }
        }
        let _ = writeln!(
            out,
            "\treplies, err := guest.Call(c.imp.Function({}), [][]byte{{{}}})",
            f.index,
            args.join(", ")
        );
        if fanout {
            let _ = writeln!(
                out,
                "\treturn guest.Results[{result_view}](replies, {validate}), err"
            );
        } else {
            let _ = writeln!(out, "\tif err != nil {{\n\t\t{}\n\t}}", ret_err("err"));
            if f.result.is_some() {
                let _ = writeln!(out, "\treturn guest.Single(replies, {validate})");
            } else {
                let _ = writeln!(
                    out,
                    "\t_, err = guest.Single[struct{{}}](replies, nil)\n\treturn err"
                );
            }
        }
        let _ = writeln!(out, "}}");
    }
}

fn interface(out: &mut String, i: &Iface) {
    let go = go_name(&i.local);
    descriptor(out, i, &go);
    for r in &i.regions {
        let _ = writeln!(
            out,
            "\n// {go}{}Window is this module's window of region `{}` ({} pages;\n\
             // importers {}, exporters {}), nil when the module does not use it.\n\
             func {go}{}Window() []byte {{\n\treturn guest.Window({:?})\n}}",
            go_name(&r.local),
            r.name,
            r.pages,
            r.importer.keyword(),
            r.exporter.keyword(),
            go_name(&r.local),
            r.name
        );
    }
    exporter(out, i, &go);
    client(out, i, &go);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(src: &str) -> String {
        let (schema, layout) =
            karmem_layout::load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = GoGuestBackend.generate(&schema, &layout).unwrap();
        assert_eq!(files.len(), 2);
        files[1].contents.clone()
    }

    #[test]
    fn names_hash_and_shapes() {
        let out = generate(
            "karmem game;\nstruct State table { X u32; }\nstruct Input table { Y u32; }\n\
             interface Updater (fanout) {\n  world: memory (import: read, export: write, 16);\n\
             update: fn(state: State @ world, input: Input) (next: State @ world);\n  reset: fn();\n}\n",
        );
        assert!(out.contains("Hash:     0xf1c9c72e7ed96715,"), "{out}");
        assert!(out.contains(
            "Update(state guest.Arg[StateViewer], input guest.Arg[InputViewer]) ([]byte, error)"
        ));
        assert!(out.contains("func (c UpdaterClient) Update(state []byte, input *Input) ([]guest.Result[StateViewer], error)"));
        assert!(out.contains("func (c UpdaterClient) Reset() ([]guest.Result[struct{}], error)"));
        assert!(out.contains("func UpdaterWorldWindow() []byte"));
        assert!(out.contains("{Name: \"game.world\", Importer: guest.AccessRead, Exporter: guest.AccessReadWrite, MaxPages: 16}"));
    }

    #[test]
    fn keywords_escaped_and_direct_client() {
        let out = generate(
            "karmem k;\nstruct M table { X u32; }\ninterface I {\n  get: fn(type: M) -> M;\n  put: fn(err: M);\n}\n",
        );
        assert!(
            out.contains("Get(type_ guest.Arg[MViewer]) (*M, error)"),
            "{out}"
        );
        assert!(out.contains("func (c IClient) Get(type_ *M) (guest.Arg[MViewer], error)"));
        assert!(out.contains("func (c IClient) Put(err_ *M) error"));
    }

    #[test]
    fn no_interfaces_no_import() {
        let out = generate("karmem k;\nstruct M table { X u32; }\n");
        assert!(!out.contains("import"));
    }
}

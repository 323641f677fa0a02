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

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::emit::Lines;
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
        let mut c = Lines::new("\t", 0);
        c.raw(&crate::header("//", schema));
        c.line("");
        c.line(&format!("package {package}"));
        if !ifaces.is_empty() {
            c.line("");
            c.line(&format!("import \"{GO_MODULE}/guest\""));
        }
        for i in &ifaces {
            interface(&mut c, i);
        }
        files.push(GeneratedFile {
            path: format!("{package}_guest.go"),
            contents: c.out,
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

fn param_desc(i: &Iface, v: &Value) -> String {
    let memory = i.region_of(v).map(|r| r.name.as_str()).unwrap_or("");
    format!(
        "{{Name: {:?}, Type: {:?}, Memory: {:?}}}",
        v.name, v.ty, memory
    )
}

/// The descriptor function, `<name>Interface()`.
fn descriptor(c: &mut Lines, i: &Iface, go: &str) {
    c.line("");
    c.line(&format!(
        "// {go}Interface is the descriptor of `{}` (docs/abi.md §3); its hash is",
        i.name
    ));
    c.line("// that of the canonical signature:");
    c.line("//");
    for line in i.signature.lines() {
        c.line(&format!("//\t{line}"));
    }
    c.open(&format!("func {go}Interface() guest.Interface {{"));
    c.open("return guest.Interface{");
    // Keys aligned as gofmt aligns a run of one-line entries.
    c.line(&format!("Name:     {:?},", i.name));
    c.line(&format!("Hash:     {:#018x},", i.hash));
    c.line(&format!("Dynamic:  {},", i.dynamic));
    c.line(&format!("Pattern:  {},", pattern(i.pattern)));
    c.line(&format!("PoolSize: {},", i.pool_size));
    if i.regions.is_empty() {
        c.line("Memories: []guest.Memory{},");
    } else {
        c.open("Memories: []guest.Memory{");
        for r in &i.regions {
            c.line(&format!(
                "{{Name: {:?}, Importer: {}, Exporter: {}, MaxPages: {}}},",
                r.name,
                access(r.importer),
                access(r.exporter),
                r.pages
            ));
        }
        c.close("},");
    }
    c.open("Functions: []guest.Function{");
    for f in &i.functions {
        let params: Vec<String> = f.params.iter().map(|p| param_desc(i, p)).collect();
        let result = f
            .result
            .as_ref()
            .map(|r| format!(", Result: guest.Param{}", param_desc(i, r)))
            .unwrap_or_default();
        c.line(&format!(
            "{{Name: {:?}, Params: []guest.Param{{{}}}{result}}},",
            f.name,
            params.join(", ")
        ));
    }
    c.close("},");
    c.close("}");
    c.close("}");
}

/// The Go type of a value's checked viewer (results, region-bound
/// arguments).
fn viewer(v: &Value) -> String {
    format!("{}Viewer", go_name(&v.type_local))
}

/// The viewer an exporter receives for parameter `v`: trusted, as the
/// handler validated the argument in the memory the host copied it into;
/// a region-bound one stays checked, as its shared window may change after
/// validation (another module, or the method itself, may write to it).
fn handler_viewer(v: &Value) -> String {
    match v.region {
        Some(_) => viewer(v),
        None => format!("Trusted{}", viewer(v)),
    }
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
        .map(|p| format!("{} guest.Arg[{}]", local(&p.name), handler_viewer(p)))
        .collect();
    format!(
        "{}({}) {}",
        go_name(&f.name),
        params.join(", "),
        export_returns(i, f)
    )
}

/// The exporter's Go interface and its registration function.
fn exporter(c: &mut Lines, i: &Iface, go: &str) {
    c.line("");
    c.line(&format!(
        "// {go} is implemented by a module that exports `{}`; register the",
        i.name
    ));
    c.line(&format!(
        "// implementation with Register{go}. Arguments are read in place and"
    ));
    c.line("// must not be kept after the method returns. They are validated before");
    c.line("// the method runs, so they come as trusted viewers (read with the Arg's T),");
    c.line("// except region-bound ones: the shared window may change, so they keep");
    c.line("// checked viewers (read with the Arg's R).");
    if !i.doc.is_empty() {
        c.line("//");
        c.comment("// ", &i.doc);
    }
    c.open(&format!("type {go} interface {{"));
    for f in &i.functions {
        c.comment("// ", &f.doc);
        if let Some(r) = f.result.as_ref().and_then(|r| i.region_of(r)) {
            c.line(&format!(
                "// The result must lie in this module's window of `{}` ({go}{}Window).",
                r.name,
                go_name(&r.local)
            ));
        }
        c.line(&export_signature(i, f));
    }
    c.close("}");

    c.line("");
    c.line(&format!(
        "// Register{go} makes this module export `{}`, implemented by impl.",
        i.name
    ));
    c.line("// Call it from an init function: the host reads the registrations once,");
    c.line("// when the module starts.");
    c.open(&format!("func Register{go}(impl {go}) error {{"));
    c.open(&format!(
        "return guest.RegisterExport({go}Interface(), []guest.Handler{{"
    ));
    for f in &i.functions {
        c.open("func(args [][]byte) ([]byte, error) {");
        let mut names = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            let (open, check) = match p.region {
                Some(_) => ("View", "Validate"),
                None => ("Trust", "Trust"),
            };
            c.line(&format!(
                "{name}, err := guest.{open}(args[{k}], {check}{})",
                go_name(&p.type_local)
            ));
            c.open("if err != nil {");
            c.line(&format!("return nil, guest.BadArgument({:?}, err)", p.name));
            c.close("}");
            names.push(name);
        }
        let call = format!("impl.{}({})", go_name(&f.name), names.join(", "));
        match &f.result {
            None => c.line(&format!("return nil, {call}")),
            Some(r) if i.region_of(r).is_some() => c.line(&format!("return {call}")),
            Some(_) => {
                c.line(&format!("out, err := {call}"));
                c.open("if err != nil || out == nil {");
                c.line("return nil, err");
                c.close("}");
                c.line("w := guest.ResultWriter()");
                c.open("if _, err := out.WriteAsRoot(w); err != nil {");
                c.line("return nil, err");
                c.close("}");
                c.line("return w.Bytes(), nil");
            }
        }
        c.close("},");
    }
    c.close("})");
    c.close("}");
}

/// The importer's client.
fn client(c: &mut Lines, i: &Iface, go: &str) {
    let fanout = i.pattern == Pattern::FanOut;
    c.line("");
    if fanout {
        c.line(&format!(
            "// {go}Client calls `{}`, imported by this module:",
            i.name
        ));
        c.line("// every call goes to every exporter and returns one result per callee.");
    } else {
        c.line(&format!(
            "// {go}Client calls `{}`, imported by this module.",
            i.name
        ));
    }
    c.open(&format!("type {go}Client struct {{"));
    c.line("imp guest.Import");
    c.close("}");
    c.line("");
    c.line(&format!(
        "// Import{go} makes this module import `{}`. Call it once, from an init",
        i.name
    ));
    c.line("// function or a package-level variable; a registration error fails the");
    c.line("// module's start.");
    c.open(&format!("func Import{go}() {go}Client {{"));
    c.line(&format!("imp, _ := guest.RegisterImport({go}Interface())"));
    c.line(&format!("return {go}Client{{imp: imp}}"));
    c.close("}");
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
        c.line("");
        c.line(&format!(
            "// {} calls `{}`{}.",
            go_name(&f.name),
            f.name,
            if fanout { " on every exporter" } else { "" }
        ));
        if !f.doc.is_empty() {
            c.line("//");
            c.comment("// ", &f.doc);
        }
        for p in &f.params {
            if let Some(r) = i.region_of(p) {
                c.line(&format!(
                    "// {} must lie in this module's window of `{}` ({go}{}Window).",
                    local(&p.name),
                    r.name,
                    go_name(&r.local)
                ));
            }
        }
        c.open(&format!(
            "func (c {go}Client) {}({}) {returns} {{",
            go_name(&f.name),
            params.join(", ")
        ));
        let mut args = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let name = local(&p.name);
            if i.region_of(p).is_some() {
                args.push(name);
            } else {
                c.line(&format!("w{k} := guest.ArgWriter({k})"));
                c.open(&format!("if {name} != nil {{"));
                c.open(&format!(
                    "if _, err := {name}.WriteAsRoot(w{k}); err != nil {{"
                ));
                c.line(&ret_err("err"));
                c.close("}");
                c.close("}");
                args.push(format!("w{k}.Bytes()"));
            }
        }
        c.line(&format!(
            "replies, err := guest.Call(c.imp.Function({}), [][]byte{{{}}})",
            f.index,
            args.join(", ")
        ));
        if fanout {
            c.line(&format!(
                "return guest.Results[{result_view}](replies, {validate}), err"
            ));
        } else {
            c.open("if err != nil {");
            c.line(&ret_err("err"));
            c.close("}");
            if f.result.is_some() {
                c.line(&format!("return guest.Single(replies, {validate})"));
            } else {
                c.line("_, err = guest.Single[struct{}](replies, nil)");
                c.line("return err");
            }
        }
        c.close("}");
    }
}

fn interface(c: &mut Lines, i: &Iface) {
    let go = go_name(&i.local);
    descriptor(c, i, &go);
    for r in &i.regions {
        c.line("");
        c.line(&format!(
            "// {go}{}Window is this module's window of region `{}` ({} pages;",
            go_name(&r.local),
            r.name,
            r.pages
        ));
        c.line(&format!(
            "// importers {}, exporters {}), nil when the module does not use it.",
            r.importer.keyword(),
            r.exporter.keyword()
        ));
        c.open(&format!("func {go}{}Window() []byte {{", go_name(&r.local)));
        c.line(&format!("return guest.Window({:?})", r.name));
        c.close("}");
    }
    exporter(c, i, &go);
    client(c, i, &go);
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
            "Update(state guest.Arg[StateViewer], input guest.Arg[TrustedInputViewer]) ([]byte, error)"
        ));
        // The region-bound argument is opened checked, the copied one trusted.
        assert!(
            out.contains("state, err := guest.View(args[0], ValidateState)"),
            "{out}"
        );
        assert!(
            out.contains("input, err := guest.Trust(args[1], TrustInput)"),
            "{out}"
        );
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
            out.contains("Get(type_ guest.Arg[TrustedMViewer]) (*M, error)"),
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

//! `--lang rust-guest`: bindings for Rust WebAssembly guests on the
//! `karmem-guest` library. One self-contained file `<package>_guest.rs`:
//!
//! * the data types (the `--lang rust` output, with `karmem_guest::prelude`
//!   in scope so it builds in `no_std` crates);
//! * `karmem::Message` for every struct used by an interface;
//! * per interface a module `<interface>` with `INFO` (the descriptor
//!   entry), a trait `<Interface>` for exporters, `export::<T>()` for
//!   `karmem_guest::module!`, and `Client` for importers.
//!
//! Interfaces are described by [`crate::iface`]; this file only spells them
//! in Rust.

use std::collections::BTreeSet;

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::emit::Lines;
use crate::iface::{self, Func, Iface, Pattern, Value};
use crate::names::{camel, rust_ident, snake};
use crate::rust::RustBackend;
use crate::{Backend, Error, GeneratedFile};

#[derive(Clone, Debug, Default)]
pub struct RustGuestBackend;

/// On items whose methods are named after schema functions.
pub(crate) const NAMING: &str =
    "#[allow(clippy::new_ret_no_self, clippy::wrong_self_convention, clippy::should_implement_trait)]";

impl Backend for RustGuestBackend {
    fn name(&self) -> &'static str {
        "rust-guest"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut c = start(
            schema,
            layout,
            &[
                "// Usage: `mod <name>;` (or `include!` it) in a guest crate depending on `karmem`",
                "// and `karmem-guest`; declare the module with `karmem_guest::module!` (docs/guests.md).",
                "",
                "#[allow(unused_imports)]",
                "use karmem_guest::prelude::*;",
            ],
        )?;
        let ifaces = iface::interfaces(schema);
        messages(&mut c, &ifaces);
        for i in &ifaces {
            interface(&mut c, i);
        }
        Ok(vec![GeneratedFile {
            path: format!("{}_guest.rs", snake(&schema.package)),
            contents: c.out,
        }])
    }
}

/// A bindings file so far: our header, `usage` (comment lines and items
/// the data types need), then the `--lang rust` data types without their
/// own header (shared with `rust_host`).
pub(crate) fn start(schema: &Schema, layout: &Layout, usage: &[&str]) -> Result<Lines, Error> {
    let data = RustBackend::default().generate(schema, layout)?;
    let mut c = Lines::new("    ", 0);
    c.raw(&crate::header("//", schema));
    c.line("//");
    for l in usage {
        c.line(l);
    }
    c.line("");
    c.raw(strip_header(&data[0].contents));
    Ok(c)
}

/// The data-type file without its leading comment block (ours replaces it).
fn strip_header(text: &str) -> &str {
    let mut rest = text;
    while rest.starts_with("//") {
        rest = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
    }
    rest.trim_start_matches('\n')
}

/// The Rust type name of a value's struct.
pub(crate) fn type_name(v: &Value) -> String {
    camel(&v.type_local)
}

/// Every struct used by some interface, once, in first-use order.
pub(crate) fn used_types(ifaces: &[Iface]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for v in ifaces
        .iter()
        .flat_map(|i| i.functions.iter())
        .flat_map(|f| f.params.iter().chain(f.result.iter()))
    {
        let t = type_name(v);
        if seen.insert(t.clone()) {
            out.push(t);
        }
    }
    out
}

/// `karmem::Message` for every struct an interface uses (shared with
/// `rust_host`).
pub(crate) fn messages(c: &mut Lines, ifaces: &[Iface]) {
    for t in used_types(ifaces) {
        c.line("");
        c.open(&format!("impl karmem::Message for {t} {{"));
        c.line(&format!("type View<'a> = {t}View<'a>;"));
        c.line(&format!(
            "type TrustedView<'a> = {t}View<'a, karmem::Trusted>;"
        ));
        c.open(&format!(
            "fn view<'a>(r: &karmem::Reader<'a>) -> {t}View<'a> {{"
        ));
        c.line(&format!("{t}View::root(r)"));
        c.close("}");
        c.open(&format!(
            "fn view_trusted<'a>(r: &karmem::Reader<'a, karmem::Trusted>) -> {t}View<'a, karmem::Trusted> {{"
        ));
        c.line(&format!("{t}View::root(r)"));
        c.close("}");
        c.open("fn encode(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {");
        c.line("self.write_as_root(w)");
        c.close("}");
        c.open("fn decode(r: &karmem::Reader<'_>) -> Result<Self, karmem::Error> {");
        c.line("let mut v = Self::default();");
        c.line("v.read_as_root(r)?;");
        c.line("Ok(v)");
        c.close("}");
        c.open(&format!(
            "fn trust<'a>(r: &karmem::Reader<'a>) -> Result<{t}View<'a, karmem::Trusted>, karmem::Error> {{"
        ));
        c.line("Self::validate(r)");
        c.close("}");
        c.close("}");
    }
}

/// The interface's static description, `INFO`.
fn info(c: &mut Lines, i: &Iface) {
    c.line(&format!(
        "/// The descriptor entry of `{}` (signature hash {:#018x}).",
        i.name, i.hash
    ));
    c.open("pub static INFO: karmem_guest::IfaceInfo = karmem_guest::IfaceInfo {");
    c.line(&format!("name: {:?},", i.name));
    c.line(&format!("hash: {:#018x},", i.hash));
    c.line(&format!("dynamic: {},", i.dynamic));
    c.line(&format!("pattern: {},", i.pattern.wire()));
    c.line(&format!("pool_size: {},", i.pool_size));
    c.open("regions: &[");
    for r in &i.regions {
        c.line(&format!(
            "karmem_guest::RegionInfo {{ name: {:?}, importer: {}, exporter: {}, pages: {} }},",
            r.name,
            r.importer.wire(),
            r.exporter.wire(),
            r.pages
        ));
    }
    c.close("],");
    c.open("functions: &[");
    let value = |v: &Value| {
        format!(
            "karmem_guest::ValueInfo {{ name: {:?}, ty: {:?}, region: {:?} }}",
            v.name, v.ty, v.region
        )
    };
    for f in &i.functions {
        let params: Vec<String> = f.params.iter().map(value).collect();
        let result = match &f.result {
            Some(r) => format!("Some({})", value(r)),
            None => "None".into(),
        };
        c.line(&format!(
            "karmem_guest::FuncInfo {{ name: {:?}, params: &[{}], result: {result} }},",
            f.name,
            params.join(", ")
        ));
    }
    c.close("],");
    c.close("};");
}

fn fn_ident(f: &Func) -> String {
    rust_ident(&snake(&f.name))
}

/// The viewer a handler receives for parameter `v`: trusted, as the
/// dispatcher validated the argument in the memory it copied it into; a
/// region-bound one stays checked, as its shared window may change after
/// validation (another module, or the handler itself, may write to it).
fn handler_view(v: &Value) -> String {
    match v.region {
        Some(_) => format!("{}View<'_>", type_name(v)),
        None => format!("{}View<'_, karmem::Trusted>", type_name(v)),
    }
}

fn param_ident(v: &Value) -> String {
    rust_ident(&snake(&v.name))
}

/// `/// text` doc comment lines as these bindings have always been
/// written: an empty line keeps the space after `///` (rustfmt, which the
/// CLI runs on Rust output, removes it). Shared with `rust_host`.
pub(crate) fn doc(c: &mut Lines, lines: &[String]) {
    for d in lines {
        c.line(&format!("/// {d}"));
    }
}

/// Opens the interface's module `pub mod <interface> {`, its doc comment
/// before it and the data types in scope (shared with `rust_host`).
pub(crate) fn open_module(c: &mut Lines, i: &Iface) {
    c.line("");
    doc(c, &i.doc);
    c.open(&format!("pub mod {} {{", rust_ident(&snake(&i.local))));
    c.line("#[allow(unused_imports)]");
    c.line("use super::*;");
    c.line("");
}

fn interface(c: &mut Lines, i: &Iface) {
    let tr = camel(&i.local);
    open_module(c, i);
    info(c, i);

    // The exporter's trait.
    c.line("");
    c.line(&format!(
        "/// Implemented by a module exporting `{}`. Arguments are zero-copy viewers, \
         valid during the call: trusted (`karmem::Trusted`, no bounds checks) as the \
         dispatcher validated them first, except region-bound ones, read in place from \
         the shared window with checked viewers.",
        i.name
    ));
    // Function names are the schema's: `new`, `is_x`, `add`... are not
    // constructors, predicates or operators here.
    c.line(NAMING);
    c.open(&format!("pub trait {tr} {{"));
    for f in &i.functions {
        doc(c, &f.doc);
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", param_ident(p), handler_view(p)))
            .collect();
        let ret = match &f.result {
            Some(r) if r.region.is_some() => "karmem_guest::RegionSlice".to_string(),
            Some(r) => type_name(r),
            None => "()".into(),
        };
        c.line(&format!(
            "fn {}(&mut self{}) -> Result<{ret}, karmem_guest::Error>;",
            fn_ident(f),
            params.iter().map(|p| format!(", {p}")).collect::<String>()
        ));
    }
    c.close("}");
    c.line("");

    // Registration and dispatch.
    c.line("/// The export entry for `karmem_guest::module!`: `T` is created with `Default` on the first call and lives as long as the instance.");
    c.open(&format!(
        "pub fn export<T: {tr} + Default + 'static>() -> karmem_guest::Export {{"
    ));
    c.line("karmem_guest::Export { info: &INFO, dispatch: dispatch::<T> }");
    c.close("}");
    c.line("");
    c.open(&format!("fn dispatch<T: {tr} + Default + 'static>("));
    c.line("state: &mut Option<Box<dyn core::any::Any>>,");
    c.line("function: u16,");
    c.line("args: &[&'static [u8]],");
    c.reopen(") -> Result<(), karmem_guest::Status> {");
    if i.functions.is_empty() {
        c.line("let _ = (state, function, args);");
        c.line("Err(karmem_guest::Status::UnknownFunction)");
    } else {
        c.line("let this = karmem_guest::state::<T>(state)?;");
        c.open("match function {");
        for f in &i.functions {
            let args: Vec<String> = f
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let get = match p.region {
                        Some(_) => "arg_region_view",
                        None => "arg_view",
                    };
                    format!("karmem_guest::{get}::<{}>(args, {k})?", type_name(p))
                })
                .collect();
            let callexpr = format!("this.{}({})", fn_ident(f), args.join(", "));
            let reply = match &f.result {
                Some(r) => match i.region_of(r) {
                    Some(region) => {
                        format!("karmem_guest::reply_region({:?}, {callexpr})", region.name)
                    }
                    None => format!("karmem_guest::reply({callexpr})"),
                },
                None => format!("karmem_guest::reply_none({callexpr})"),
            };
            c.line(&format!("{} => {reply},", f.index));
        }
        c.line("_ => Err(karmem_guest::Status::UnknownFunction),");
        c.close("}");
    }
    c.close("}");
    c.line("");

    // The importer's client.
    let fanout = i.pattern == Pattern::FanOut;
    c.line(&format!(
        "/// Calls `{}` from a module that imports it ({}).",
        i.name,
        if fanout {
            "fan-out: one result per exporter, in manifest order, each with its status"
        } else {
            "one callee"
        }
    ));
    c.line("#[derive(Clone, Copy, Debug, Default)]");
    c.line("pub struct Client;");
    c.line("");
    c.line(NAMING);
    c.open("impl Client {");
    for f in &i.functions {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| match p.region {
                Some(_) => format!("{}: karmem_guest::RegionSlice", param_ident(p)),
                None => format!("{}: &{}", param_ident(p), type_name(p)),
            })
            .collect();
        let args: Vec<String> = f
            .params
            .iter()
            .map(|p| match i.region_of(p) {
                Some(r) => format!(
                    "karmem_guest::Arg::Region({:?}, {})",
                    r.name,
                    param_ident(p)
                ),
                None => format!("karmem_guest::Arg::Value({})", param_ident(p)),
            })
            .collect();
        let t = f
            .result
            .as_ref()
            .map(type_name)
            .unwrap_or_else(|| "()".into());
        let (ret, call) = if fanout {
            (
                format!("Vec<karmem_guest::CalleeReply<{t}>>"),
                "karmem_guest::call",
            )
        } else {
            (
                format!("karmem_guest::Reply<{t}>"),
                "karmem_guest::call_one",
            )
        };
        c.open(&format!(
            "pub fn {}(&self{}) -> Result<{ret}, karmem_guest::CallError> {{",
            fn_ident(f),
            params.iter().map(|p| format!(", {p}")).collect::<String>()
        ));
        c.line(&format!(
            "{call}::<{t}>(&INFO, {}, &[{}])",
            f.index,
            args.join(", ")
        ));
        c.close("}");
    }
    c.close("}");
    c.close("}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copied_arguments_trusted_region_bound_checked() {
        let (schema, layout) = karmem_layout::load(
            "t.km",
            "karmem game;\nstruct State table { X u32; }\nstruct Input table { Y u32; }\n\
             interface Updater (fanout) {\n  world: memory (import: read, export: write, 16);\n\
             update: fn(state: State @ world, input: Input) (next: State @ world);\n}\n",
        )
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
        let out = RustGuestBackend.generate(&schema, &layout).unwrap()[0]
            .contents
            .clone();
        assert!(
            out.contains(
                "fn update(&mut self, state: StateView<'_>, input: InputView<'_, karmem::Trusted>)"
            ),
            "{out}"
        );
        assert!(out.contains("karmem_guest::arg_region_view::<State>(args, 0)?"));
        assert!(out.contains("karmem_guest::arg_view::<Input>(args, 1)?"));
        assert!(out.contains("type TrustedView<'a> = InputView<'a, karmem::Trusted>;"));
    }
}

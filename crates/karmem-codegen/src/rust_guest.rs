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
use std::fmt::Write as _;

use karmem_layout::Layout;
use karmem_schema::model::Schema;

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
        let data = RustBackend::default().generate(schema, layout)?;
        let mut out = crate::header("//", schema);
        out.push_str(
            "//\n// Usage: `mod <name>;` (or `include!` it) in a guest crate depending on `karmem`\n\
             // and `karmem-guest`; declare the module with `karmem_guest::module!` (docs/guests.md).\n\n\
             #[allow(unused_imports)]\nuse karmem_guest::prelude::*;\n\n",
        );
        out.push_str(strip_header(&data[0].contents));
        let ifaces = iface::interfaces(schema);
        messages(&mut out, &ifaces);
        for i in &ifaces {
            interface(&mut out, i);
        }
        Ok(vec![GeneratedFile {
            path: format!("{}_guest.rs", snake(&schema.package)),
            contents: out,
        }])
    }
}

/// The data-type file without its leading comment block (ours replaces it).
pub(crate) fn strip_header(text: &str) -> &str {
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

pub(crate) fn messages(out: &mut String, ifaces: &[Iface]) {
    for t in used_types(ifaces) {
        let _ = write!(
            out,
            "
impl karmem::Message for {t} {{
    type View<'a> = {t}View<'a>;
    fn view<'a>(r: &karmem::Reader<'a>) -> {t}View<'a> {{
        {t}View::root(r)
    }}
    fn encode(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {{
        self.write_as_root(w)
    }}
    fn decode(r: &karmem::Reader<'_>) -> Result<Self, karmem::Error> {{
        let mut v = Self::default();
        v.read_as_root(r)?;
        Ok(v)
    }}
    fn check(r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {{
        Self::validate(r).map(|_| ())
    }}
}}
"
        );
    }
}

/// Rust source of the interface's static description.
pub(crate) fn info(i: &Iface) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/// The descriptor entry of `{}` (signature hash {:#018x}).",
        i.name, i.hash
    );
    let _ = writeln!(
        s,
        "pub static INFO: karmem_guest::IfaceInfo = karmem_guest::IfaceInfo {{"
    );
    let _ = writeln!(s, "    name: {:?},", i.name);
    let _ = writeln!(s, "    hash: {:#018x},", i.hash);
    let _ = writeln!(s, "    dynamic: {},", i.dynamic);
    let _ = writeln!(s, "    pattern: {},", i.pattern.wire());
    let _ = writeln!(s, "    pool_size: {},", i.pool_size);
    s.push_str("    regions: &[\n");
    for r in &i.regions {
        let _ = writeln!(
            s,
            "        karmem_guest::RegionInfo {{ name: {:?}, importer: {}, exporter: {}, pages: {} }},",
            r.name,
            r.importer.wire(),
            r.exporter.wire(),
            r.pages
        );
    }
    s.push_str("    ],\n    functions: &[\n");
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
        let _ = writeln!(
            s,
            "        karmem_guest::FuncInfo {{ name: {:?}, params: &[{}], result: {result} }},",
            f.name,
            params.join(", ")
        );
    }
    s.push_str("    ],\n};\n");
    s
}

fn fn_ident(f: &Func) -> String {
    rust_ident(&snake(&f.name))
}

fn param_ident(v: &Value) -> String {
    rust_ident(&snake(&v.name))
}

fn interface(out: &mut String, i: &Iface) {
    let module = rust_ident(&snake(&i.local));
    let tr = camel(&i.local);
    let _ = writeln!(out);
    for d in &i.doc {
        let _ = writeln!(out, "/// {d}");
    }
    let _ = writeln!(out, "pub mod {module} {{");
    let _ = writeln!(out, "    #[allow(unused_imports)]\n    use super::*;\n");
    for line in info(i).lines() {
        let _ = writeln!(out, "    {line}");
    }

    // The exporter's trait.
    let _ = writeln!(
        out,
        "\n    /// Implemented by a module exporting `{}`. Arguments are zero-copy viewers \
         (region-bound ones read in place from the window), valid during the call.",
        i.name
    );
    // Function names are the schema's: `new`, `is_x`, `add`... are not
    // constructors, predicates or operators here.
    let _ = writeln!(out, "    {NAMING}");
    let _ = writeln!(out, "    pub trait {tr} {{");
    for f in &i.functions {
        for d in &f.doc {
            let _ = writeln!(out, "        /// {d}");
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}View<'_>", param_ident(p), type_name(p)))
            .collect();
        let ret = match &f.result {
            Some(r) if r.region.is_some() => "karmem_guest::RegionSlice".to_string(),
            Some(r) => type_name(r),
            None => "()".into(),
        };
        let _ = writeln!(
            out,
            "        fn {}(&mut self{}) -> Result<{ret}, karmem_guest::Error>;",
            fn_ident(f),
            params.iter().map(|p| format!(", {p}")).collect::<String>()
        );
    }
    let _ = writeln!(out, "    }}\n");

    // Registration and dispatch.
    let _ = writeln!(
        out,
        "    /// The export entry for `karmem_guest::module!`: `T` is created with `Default` on the first call and lives as long as the instance."
    );
    let _ = writeln!(
        out,
        "    pub fn export<T: {tr} + Default + 'static>() -> karmem_guest::Export {{"
    );
    let _ = writeln!(
        out,
        "        karmem_guest::Export {{ info: &INFO, dispatch: dispatch::<T> }}\n    }}\n"
    );
    let _ = writeln!(out, "    fn dispatch<T: {tr} + Default + 'static>(");
    let _ = writeln!(
        out,
        "        state: &mut Option<Box<dyn core::any::Any>>,\n        function: u16,\n        args: &[&'static [u8]],"
    );
    let _ = writeln!(out, "    ) -> Result<(), karmem_guest::Status> {{");
    if i.functions.is_empty() {
        let _ = writeln!(out, "        let _ = (state, function, args);");
        let _ = writeln!(out, "        Err(karmem_guest::Status::UnknownFunction)");
    } else {
        let _ = writeln!(out, "        let this = karmem_guest::state::<T>(state)?;");
        let _ = writeln!(out, "        match function {{");
        for f in &i.functions {
            let args: Vec<String> = f
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| format!("karmem_guest::arg_view::<{}>(args, {k})?", type_name(p)))
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
            let _ = writeln!(out, "            {} => {reply},", f.index);
        }
        let _ = writeln!(
            out,
            "            _ => Err(karmem_guest::Status::UnknownFunction),"
        );
        let _ = writeln!(out, "        }}");
    }
    let _ = writeln!(out, "    }}\n");

    // The importer's client.
    let fanout = i.pattern == Pattern::FanOut;
    let _ = writeln!(
        out,
        "    /// Calls `{}` from a module that imports it ({}).",
        i.name,
        if fanout {
            "fan-out: one result per exporter, in manifest order, each with its status"
        } else {
            "one callee"
        }
    );
    let _ = writeln!(out, "    #[derive(Clone, Copy, Debug, Default)]");
    let _ = writeln!(out, "    pub struct Client;\n");
    let _ = writeln!(out, "    {NAMING}");
    let _ = writeln!(out, "    impl Client {{");
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
        let _ = writeln!(
            out,
            "        pub fn {}(&self{}) -> Result<{ret}, karmem_guest::CallError> {{",
            fn_ident(f),
            params.iter().map(|p| format!(", {p}")).collect::<String>()
        );
        let _ = writeln!(
            out,
            "            {call}::<{t}>(&INFO, {}, &[{}])",
            f.index,
            args.join(", ")
        );
        let _ = writeln!(out, "        }}");
    }
    let _ = writeln!(out, "    }}\n}}");
}

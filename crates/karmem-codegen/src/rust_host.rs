//! `--lang rust-host`: typed bindings over `karmem_host::App` for a host
//! program. One self-contained file `<package>_host.rs`:
//!
//! * the data types (the `--lang rust` output) and `karmem::Message` for
//!   every struct used by an interface;
//! * `Reply<T>` (a result: zero-copy viewer, decoding) and `Callee<T>` (one
//!   exporter's outcome of a fan-out);
//! * per interface a module `<interface>` with `NAME`, `client(&app,
//!   module)` (a `Client` resolving one exporter's functions once) and
//!   `all(&app)` (an `All`: every exporter, for fan-out from the host); both
//!   have one method per function taking typed arguments (`&T`, or
//!   `karmem_host::RegionSlice` for region-bound parameters).

use karmem_layout::Layout;
use karmem_schema::model::Schema;

use crate::emit::Lines;
use crate::iface::{self, Iface};
use crate::names::{rust_ident, snake};
use crate::rust_guest::{doc, messages, open_module, start, type_name, NAMING};
use crate::{Backend, Error, GeneratedFile};

#[derive(Clone, Debug, Default)]
pub struct RustHostBackend;

const SUPPORT: &str = r#"
/// The result of a call: the message bytes (copied out of the callee, or
/// out of the region for region-bound results) with a typed viewer.
pub struct Reply<T> {
    buf: karmem::AlignedBuf,
    /// Where a region-bound result was (no copy was made by the runtime).
    pub region: Option<karmem_host::RegionSlice>,
    _t: core::marker::PhantomData<T>,
}

impl<T: karmem::Message> Reply<T> {
    fn new(app: &karmem_host::App, out: karmem_host::Output) -> karmem_host::Result<Self> {
        let region = match &out {
            karmem_host::Output::Region(s) => Some(*s),
            _ => None,
        };
        let bytes = out.to_vec(app)?;
        Ok(Reply {
            buf: karmem::AlignedBuf::from_bytes(&bytes),
            region,
            _t: core::marker::PhantomData,
        })
    }

    /// The message bytes (empty when the function reported no result).
    pub fn bytes(&self) -> &[u8] {
        self.buf.as_slice()
    }

    /// A bounds-checked, zero-copy viewer. `Err` when the callee's bytes
    /// are not a message (an empty result reads as an error too).
    pub fn view(&self) -> Result<T::View<'_>, karmem::Error> {
        Ok(T::view(&karmem::Reader::new(self.bytes())?))
    }

    /// Decode into an owned object.
    pub fn decode(&self) -> Result<T, karmem::Error> {
        T::decode(&karmem::Reader::new(self.bytes())?)
    }
}

/// One exporter's outcome of a call made through an interface's `All`:
/// a failing callee does not hide the others' results.
pub struct Callee<T> {
    /// Index of the module in the application.
    pub callee: usize,
    pub module: String,
    pub result: karmem_host::Result<Reply<T>>,
}

fn encode_arg<T: karmem::Message>(
    f: &karmem_host::ExportFn,
    value: &T,
) -> karmem_host::Result<Vec<u8>> {
    let mut w = karmem::Writer::new(256);
    value
        .encode(&mut w)
        .map_err(|e| karmem_host::Error::BadArgument {
            site: f.site().clone(),
            message: format!("encode: {e:?}"),
        })?;
    Ok(w.bytes().to_vec())
}
"#;

impl Backend for RustHostBackend {
    fn name(&self) -> &'static str {
        "rust-host"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut c = start(
            schema,
            layout,
            &[
                "// Usage: `mod <name>;` (or `include!` it) in a host crate depending on `karmem`",
                "// and `karmem-host` (docs/guests.md).",
            ],
        )?;
        let ifaces = iface::interfaces(schema);
        messages(&mut c, &ifaces);
        if !ifaces.is_empty() {
            c.block(SUPPORT);
        }
        for i in &ifaces {
            interface(&mut c, i);
        }
        Ok(vec![GeneratedFile {
            path: format!("{}_host.rs", snake(&schema.package)),
            contents: c.out,
        }])
    }
}

/// The per-interface items that do not depend on its functions. Only
/// schema functions are methods of `Client` and `All`, so no function name
/// can collide with a helper (`client`, `all` and `resolve` are free
/// functions; `module` is a field). Written inside the interface's module,
/// one level in, by `Lines::block`.
const CLIENT: &str = r#"
/// Typed calls of `NAME` exported by one module (functions resolved
/// once). Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Client {
    app: karmem_host::App,
    /// Index of the module this client calls.
    pub module: usize,
    /// `None` for a function the exporter lacks (dynamic interfaces).
    fns: [Option<karmem_host::ExportFn>; N],
}

/// The client of `module`'s export of this interface.
pub fn client(app: &karmem_host::App, module: &str) -> karmem_host::Result<Client> {
    let index = app.module_index(module)?;
    let fns = FUNCTIONS.map(|f| app.export(module, NAME, f).ok());
    if fns.iter().all(Option::is_none) && !FUNCTIONS.is_empty() {
        return Err(karmem_host::Error::UnknownFunction {
            module: module.into(),
            interface: NAME.into(),
            function: FUNCTIONS[0].into(),
        });
    }
    Ok(Client {
        app: app.clone(),
        module: index,
        fns,
    })
}

/// Calls every module exporting this interface (fan-out from the
/// host): one [`Callee`] per exporter, in module order.
#[derive(Clone)]
pub struct All(pub Vec<Client>);

/// A client for every module exporting this interface, in module order.
pub fn all(app: &karmem_host::App) -> karmem_host::Result<All> {
    let mut modules: Vec<usize> = FUNCTIONS
        .iter()
        .flat_map(|f| app.exporters(NAME, f))
        .map(|f| f.module_index())
        .collect();
    modules.sort_unstable();
    modules.dedup();
    modules
        .into_iter()
        .map(|m| client(app, app.modules()[m].module.name()))
        .collect::<karmem_host::Result<Vec<Client>>>()
        .map(All)
}

fn resolve(c: &Client, index: usize) -> karmem_host::Result<&karmem_host::ExportFn> {
    c.fns[index]
        .as_ref()
        .ok_or_else(|| karmem_host::Error::UnknownFunction {
            module: c.app.modules()[c.module].module.name().to_string(),
            interface: NAME.into(),
            function: FUNCTIONS[index].into(),
        })
}
"#;

fn interface(c: &mut Lines, i: &Iface) {
    let n = i.functions.len();
    open_module(c, i);
    c.line("/// The qualified interface name.");
    c.line(&format!("pub const NAME: &str = {:?};", i.name));
    c.line("/// Function names, in function-index order.");
    let names: Vec<String> = i
        .functions
        .iter()
        .map(|f| format!("{:?}", f.name))
        .collect();
    c.line(&format!(
        "pub const FUNCTIONS: [&str; {n}] = [{}];",
        names.join(", ")
    ));
    c.block(
        &CLIENT
            .replace("`NAME`", &format!("`{}`", i.name))
            .replace("; N]", &format!("; {n}]")),
    );
    c.line("");
    c.line(NAMING);
    c.open("impl Client {");
    for (k, f) in i.functions.iter().enumerate() {
        let (params, _) = signature(f);
        let t = result_type(f);
        if k > 0 {
            c.line("");
        }
        doc(c, &f.doc);
        c.open(&format!(
            "pub fn {}(&self{params}) -> karmem_host::Result<Reply<{t}>> {{",
            rust_ident(&snake(&f.name)),
        ));
        c.line(&format!("let f = resolve(self, {})?;", f.index));
        let mut args = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let ident = rust_ident(&snake(&p.name));
            if p.region.is_some() {
                args.push(format!("karmem_host::Arg::Region({ident})"));
            } else {
                c.line(&format!("let a{k} = encode_arg(f, {ident})?;"));
                args.push(format!("karmem_host::Arg::Bytes(&a{k})"));
            }
        }
        c.line(&format!(
            "let out = self.app.invoke(f, &[{}])?;",
            args.join(", ")
        ));
        c.line("Reply::new(&self.app, out)");
        c.close("}");
    }
    c.close("}");
    c.line("");
    c.line(NAMING);
    c.open("impl All {");
    for (k, f) in i.functions.iter().enumerate() {
        let (params, names) = signature(f);
        let t = result_type(f);
        if k > 0 {
            c.line("");
        }
        c.open(&format!(
            "pub fn {}(&self{params}) -> Vec<Callee<{t}>> {{",
            rust_ident(&snake(&f.name))
        ));
        // A method chain, as rustfmt lays it out: the calls one level in.
        c.line("self.0");
        c.indent += 1;
        c.line(".iter()");
        c.open(".map(|c| Callee {");
        c.line("callee: c.module,");
        c.line("module: c.app.modules()[c.module].module.name().to_string(),");
        c.line(&format!(
            "result: c.{}({names}),",
            rust_ident(&snake(&f.name))
        ));
        c.close("})");
        c.line(".collect()");
        c.indent -= 1;
        c.close("}");
    }
    c.close("}");
    c.close("}");
}

/// The Rust type of `f`'s result, `()` when it has none.
fn result_type(f: &crate::iface::Func) -> String {
    f.result
        .as_ref()
        .map(type_name)
        .unwrap_or_else(|| "()".into())
}

/// `, a: &A, b: karmem_host::RegionSlice` and `a, b`.
fn signature(f: &crate::iface::Func) -> (String, String) {
    let names: Vec<String> = f
        .params
        .iter()
        .map(|p| rust_ident(&snake(&p.name)))
        .collect();
    let params = f
        .params
        .iter()
        .zip(&names)
        .map(|(p, ident)| match p.region {
            Some(_) => format!(", {ident}: karmem_host::RegionSlice"),
            None => format!(", {ident}: &{}", type_name(p)),
        })
        .collect();
    (params, names.join(", "))
}

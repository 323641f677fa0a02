//! The language-neutral model of interfaces that every guest and host
//! backend generates from (`rust-guest`, `rust-host`, `go-guest`, ...).
//!
//! It decides, in one place, what the ABI (docs/abi.md) needs to know about
//! an interface: qualified names, the regions with both sides' accesses, the
//! functions with their parameters and results, the pattern, and the
//! canonical signature with its FNV-1a hash (§3.1). Backends only spell this
//! model in their language; none of them recomputes a signature, so a
//! descriptor written by any generated guest agrees with what the host
//! (`karmem_host::descriptor`) recomputes.

use karmem_format::{Function, Memory, Param, Signature};
use karmem_schema::model::{self, Schema, StructId};

use crate::Error;

/// Access of one side of an interface to a region (docs/abi.md §3); the
/// contract's own type (`karmem-format`), shared with the host. The schema
/// never says `None`; it exists because a *module's* access to a region it
/// does not use is none (§6).
pub use karmem_format::Access;

fn access_from_schema(a: model::Access) -> Access {
    match a {
        model::Access::Read => Access::Read,
        model::Access::ReadWrite => Access::ReadWrite,
    }
}

/// Communication pattern (docs/abi.md §9); the pool size is on [`Iface`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    Direct,
    FanOut,
    Singleton,
    Pool,
}

impl Pattern {
    /// The value of the `Pattern` enum in docs/abi.km.
    pub fn wire(self) -> u8 {
        self as u8
    }
}

/// A shared memory region as an interface declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// Qualified: `package.memory`.
    pub name: String,
    /// The name in the schema (`memory`), for identifiers.
    pub local: String,
    pub importer: Access,
    pub exporter: Access,
    /// Size in 64 KiB pages, 1..=65536.
    pub pages: u32,
}

impl Region {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        u64::from(self.pages) * 65536
    }
}

/// A parameter or the result of a function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// The parameter's name (`result` for an unnamed result).
    pub name: String,
    /// Qualified struct name: `package.Type`.
    pub ty: String,
    /// The struct in the schema, for backends that name its generated type.
    pub struct_id: StructId,
    /// The struct's name in the schema (`Type`).
    pub type_local: String,
    /// Index into the interface's [`Iface::regions`] when the value lives in
    /// a region (passed in place, never copied).
    pub region: Option<usize>,
}

/// A function of an interface.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Func {
    pub name: String,
    /// Index within the interface: the low 16 bits of a function id (§3).
    pub index: u16,
    pub params: Vec<Value>,
    pub result: Option<Value>,
    pub doc: Vec<String>,
}

/// An interface, ready for code generation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Iface {
    /// Qualified: `package.Interface`.
    pub name: String,
    /// The name in the schema (`Interface`), for identifiers.
    pub local: String,
    pub dynamic: bool,
    pub pattern: Pattern,
    /// Instances for `pool(N)`, else 0.
    pub pool_size: u32,
    /// Regions in declaration order.
    pub regions: Vec<Region>,
    /// Functions in declaration order.
    pub functions: Vec<Func>,
    /// The canonical signature text (docs/abi.md §3.1).
    pub signature: String,
    /// FNV-1a 64 of `signature`.
    pub hash: u64,
    pub doc: Vec<String>,
}

impl Iface {
    /// The region a value is bound to, if any.
    pub fn region_of(&self, v: &Value) -> Option<&Region> {
        v.region.map(|r| &self.regions[r])
    }
}

/// Every interface of a schema, in declaration order.
pub fn interfaces(schema: &Schema) -> Vec<Iface> {
    schema
        .interfaces
        .iter()
        .map(|i| interface(schema, i))
        .collect()
}

fn interface(schema: &Schema, i: &model::Interface) -> Iface {
    let pkg = &schema.package;
    let regions: Vec<Region> = i
        .memories
        .iter()
        .map(|&m| {
            let m = &schema.memories[m];
            Region {
                name: format!("{pkg}.{}", m.name),
                local: m.name.clone(),
                importer: access_from_schema(m.importer),
                exporter: access_from_schema(m.exporter),
                pages: m.max_pages,
            }
        })
        .collect();
    let value = |p: &model::Param| Value {
        name: p.name.clone(),
        ty: format!("{pkg}.{}", schema.structs[p.ty].name),
        struct_id: p.ty,
        type_local: schema.structs[p.ty].name.clone(),
        // The checker guarantees a bound memory is one of the interface's.
        region: p
            .memory
            .and_then(|m| i.memories.iter().position(|&own| own == m)),
    };
    let functions = i
        .functions
        .iter()
        .enumerate()
        .map(|(n, f)| Func {
            name: f.name.clone(),
            // The checker bounds functions per interface far below 65 536.
            index: n as u16,
            params: f.params.iter().map(value).collect(),
            result: f.result.as_ref().map(value),
            doc: f.doc.clone(),
        })
        .collect();
    let (pattern, pool_size) = match i.pattern {
        model::Pattern::Direct => (Pattern::Direct, 0),
        model::Pattern::FanOut => (Pattern::FanOut, 0),
        model::Pattern::Singleton => (Pattern::Singleton, 0),
        model::Pattern::Pool(n) => (Pattern::Pool, n),
    };
    let mut out = Iface {
        name: format!("{pkg}.{}", i.name),
        local: i.name.clone(),
        dynamic: i.dynamic,
        pattern,
        pool_size,
        regions,
        functions,
        signature: String::new(),
        hash: 0,
        doc: i.doc.clone(),
    };
    let sig = signature(&out);
    let (text, hash) = (sig.text(), sig.hash());
    out.signature = text;
    out.hash = hash;
    out
}

/// What the canonical signature (docs/abi.md §3.1) is built from; the text
/// itself is written by `karmem-format`, as the host writes it when it
/// recomputes the hash.
fn signature<'a>(i: &'a Iface) -> Signature<'a> {
    let value = |v: &'a Value| -> Param<'a> {
        Param {
            name: &v.name,
            ty: &v.ty,
            memory: i.region_of(v).map(|r| r.name.as_str()),
        }
    };
    Signature {
        interface: &i.name,
        memories: i
            .regions
            .iter()
            .map(|r| Memory {
                name: &r.name,
                importer: r.importer,
                exporter: r.exporter,
                pages: r.pages,
            })
            .collect(),
        functions: i
            .functions
            .iter()
            .map(|f| Function {
                name: &f.name,
                params: f.params.iter().map(value).collect(),
                result: f.result.as_ref().map(value),
            })
            .collect(),
    }
}

/// A region as one module sees it: the entry of `ModuleDesc.Memories` and
/// the `index` of `karmem_bind_memory`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModuleRegion {
    pub region: Region,
    /// This module's access (docs/abi.md §6): the exporter access if it
    /// exports an interface declaring the region, the importer access if it
    /// imports one, the larger if both.
    pub access: Access,
}

/// The distinct regions of a module exporting `exports` and importing
/// `imports`, in first-use order (exports first, then imports, each in
/// declaration order). This order is the `karmem_bind_memory` index.
/// Fails when two interfaces declare one region differently: the host would
/// refuse the module (`Error::IncompatibleMemory`).
pub fn module_regions(exports: &[&Iface], imports: &[&Iface]) -> Result<Vec<ModuleRegion>, Error> {
    let mut out: Vec<ModuleRegion> = Vec::new();
    let sides = exports
        .iter()
        .map(|i| (*i, true))
        .chain(imports.iter().map(|i| (*i, false)));
    for (iface, exporter) in sides {
        for r in &iface.regions {
            let access = if exporter { r.exporter } else { r.importer };
            match out.iter_mut().find(|m| m.region.name == r.name) {
                Some(m) if m.region == *r => m.access = m.access.max(access),
                Some(m) => {
                    return Err(Error(format!(
                        "region `{}` is declared differently by `{}` and another interface of the module",
                        m.region.name, iface.name
                    )))
                }
                None => out.push(ModuleRegion {
                    region: r.clone(),
                    access,
                }),
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(src: &str) -> Schema {
        match karmem_schema::compile("t.km", src) {
            Ok(c) => c.schema,
            Err(d) => panic!("{d:?}"),
        }
    }

    const GAME: &str = "karmem game;
struct State table { Tick u32; }
struct Input table { Key u8; }
interface Updater {
    world: memory (import: read, export: write, 16);
    update: fn(state: State @ world, input: Input) (next: State @ world);
    reset: fn();
}
interface Other (pool(3), dynamic) {
    world: memory (import: read, export: write, 16);
    scratch: memory (import: write, 1);
    peek: fn(s: State @ world) -> Input;
}
";

    /// The worked example of docs/abi.md §3.1, byte for byte.
    #[test]
    fn abi_example_signature_and_hash() {
        let all = interfaces(&schema(GAME));
        let i = &all[0];
        assert_eq!(
            i.signature,
            "interface game.Updater\nmemory game.world import=read export=readwrite pages=16\nfn update(state: game.State @ game.world, input: game.Input) -> next: game.State @ game.world\nfn reset()\n"
        );
        assert_eq!(i.hash, 0xf1c9_c72e_7ed9_6715);
        assert_eq!(i.functions[1].index, 1);
        assert_eq!(i.pattern, Pattern::Direct);
    }

    #[test]
    fn unnamed_result_pool_and_dynamic() {
        let all = interfaces(&schema(GAME));
        let o = &all[1];
        assert_eq!(o.name, "game.Other");
        assert!(o.dynamic);
        assert_eq!((o.pattern, o.pool_size), (Pattern::Pool, 3));
        assert_eq!(o.regions[1].importer, Access::ReadWrite);
        assert_eq!(o.regions[1].exporter, Access::Read);
        assert!(o
            .signature
            .ends_with("fn peek(s: game.State @ game.world) -> result: game.Input\n"));
        assert_eq!(o.functions[0].result.as_ref().unwrap().region, None);
    }

    #[test]
    fn module_regions_merge_roles_and_keep_order() {
        let all = interfaces(&schema(GAME));
        let m = module_regions(&[&all[0]], &[&all[1]]).unwrap();
        let names: Vec<_> = m.iter().map(|m| m.region.name.as_str()).collect();
        assert_eq!(names, ["game.world", "game.scratch"]);
        assert_eq!(m[0].access, Access::ReadWrite);
        assert_eq!(m[1].access, Access::ReadWrite);
        let m = module_regions(&[], &[&all[0]]).unwrap();
        assert_eq!(m[0].access, Access::Read);
        let mut changed = all[1].clone();
        changed.regions[0].pages = 2;
        assert!(module_regions(&[&all[0]], &[&changed])
            .unwrap_err()
            .0
            .contains("game.world"));
    }
}

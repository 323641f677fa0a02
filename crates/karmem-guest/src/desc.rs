//! Static descriptions of interfaces (emitted by the generator from
//! `karmem_codegen::iface`) and their encoding as the module descriptor
//! (docs/abi.md §3) with the writer generated from docs/abi.km.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Generated from docs/abi.km by build.rs.
#[allow(
    clippy::all,
    dead_code,
    unused_imports,
    missing_docs,
    nonstandard_style
)]
mod wire {
    use crate::prelude::*;
    include!(concat!(env!("OUT_DIR"), "/abi.rs"));
}

/// A region as an interface declares it. Accesses use the values of
/// docs/abi.km's `Access` (0 none, 1 read, 2 read-write).
#[derive(Debug)]
pub struct RegionInfo {
    /// Qualified: `package.memory`.
    pub name: &'static str,
    pub importer: u8,
    pub exporter: u8,
    pub pages: u32,
}

/// A parameter or result.
#[derive(Debug)]
pub struct ValueInfo {
    pub name: &'static str,
    /// Qualified struct name.
    pub ty: &'static str,
    /// Index into the interface's `regions` when bound to a region.
    pub region: Option<usize>,
}

#[derive(Debug)]
pub struct FuncInfo {
    pub name: &'static str,
    pub params: &'static [ValueInfo],
    pub result: Option<ValueInfo>,
}

/// Everything the descriptor says about an interface. The hash is computed
/// by the generator (karmem_codegen::iface); the host recomputes and checks
/// it.
#[derive(Debug)]
pub struct IfaceInfo {
    /// Qualified: `package.Interface`.
    pub name: &'static str,
    pub hash: u64,
    pub dynamic: bool,
    /// docs/abi.km's `Pattern`: 0 direct, 1 fanout, 2 singleton, 3 pool.
    pub pattern: u8,
    pub pool_size: u32,
    pub regions: &'static [RegionInfo],
    pub functions: &'static [FuncInfo],
}

/// The module's regions (the `karmem_bind_memory` index order: first use,
/// exports before imports) with this module's access to each.
pub(crate) fn module_regions(
    exports: &[&IfaceInfo],
    imports: &[&IfaceInfo],
) -> Result<Vec<(&'static RegionInfo, u8)>, String> {
    let mut out: Vec<(&'static RegionInfo, u8)> = Vec::new();
    let sides = exports
        .iter()
        .map(|i| (*i, true))
        .chain(imports.iter().map(|i| (*i, false)));
    for (iface, exporter) in sides {
        for r in iface.regions {
            let access = if exporter { r.exporter } else { r.importer };
            match out.iter_mut().find(|(m, _)| m.name == r.name) {
                Some((m, a))
                    if m.importer == r.importer
                        && m.exporter == r.exporter
                        && m.pages == r.pages =>
                {
                    *a = (*a).max(access)
                }
                Some(_) => {
                    return Err(alloc::format!(
                        "region `{}` is declared differently by `{}` and another interface",
                        r.name,
                        iface.name
                    ))
                }
                None => out.push((r, access)),
            }
        }
    }
    Ok(out)
}

fn memory(r: &RegionInfo) -> wire::MemoryDesc {
    wire::MemoryDesc {
        name: r.name.to_string(),
        importer: wire::Access(r.importer),
        exporter: wire::Access(r.exporter),
        max_pages: r.pages,
    }
}

fn value(i: &IfaceInfo, v: &ValueInfo) -> wire::ParamDesc {
    wire::ParamDesc {
        name: v.name.to_string(),
        type_: v.ty.to_string(),
        memory: v
            .region
            .and_then(|r| i.regions.get(r))
            .map(|r| r.name.to_string())
            .unwrap_or_default(),
    }
}

fn interface(i: &IfaceInfo) -> wire::InterfaceDesc {
    wire::InterfaceDesc {
        name: i.name.to_string(),
        hash: i.hash,
        dynamic: i.dynamic,
        pattern: wire::Pattern(i.pattern),
        pool_size: i.pool_size,
        memories: i.regions.iter().map(memory).collect(),
        functions: i
            .functions
            .iter()
            .map(|f| wire::FunctionDesc {
                name: f.name.to_string(),
                params: f.params.iter().map(|p| value(i, p)).collect(),
                // No result: a table with an empty type (abi.md §3.1).
                result: f.result.as_ref().map(|r| value(i, r)).unwrap_or_default(),
            })
            .collect(),
    }
}

/// The descriptor message of a module.
pub(crate) fn encode(
    regions: &[(&'static RegionInfo, u8)],
    exports: &[&IfaceInfo],
    imports: &[&IfaceInfo],
) -> Result<Vec<u8>, String> {
    let d = wire::ModuleDesc {
        memories: regions.iter().map(|(r, _)| memory(r)).collect(),
        exports: exports.iter().map(|i| interface(i)).collect(),
        imports: imports.iter().map(|i| interface(i)).collect(),
    };
    d.to_bytes()
        .map_err(|e| alloc::format!("encode the descriptor: {e:?}"))
}

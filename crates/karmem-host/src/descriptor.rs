//! The module descriptor (docs/abi.md §3): what a guest exports and imports.
//!
//! The wire form is a Karmem message of root `ModuleDesc` (docs/abi.km),
//! read and written with code our own Rust backend generates from that
//! schema (`build.rs`). The host works on the plain types below, which are
//! this crate's stable API, independent of the generator's output.

use karmem_format::{Function, Memory, Param, Signature};
use std::collections::{HashMap, HashSet};

/// Generated from docs/abi.km by build.rs.
#[allow(
    clippy::all,
    dead_code,
    unused_imports,
    missing_docs,
    nonstandard_style
)]
mod wire {
    include!(concat!(env!("OUT_DIR"), "/abi.rs"));
}

/// Access of one side of an interface to a region. Ordered: `None < Read <
/// ReadWrite`, so a module with two roles gets the larger one. The
/// contract's type (`karmem-format`), shared with the code generator.
pub use karmem_format::Access;

fn access_from_wire(v: wire::Access) -> Result<Access, String> {
    Access::from_wire(v.0).ok_or_else(|| format!("unknown access value {}", v.0))
}

fn access_to_wire(a: Access) -> wire::Access {
    wire::Access(a.wire())
}

/// Communication pattern of an interface (docs/abi.md §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    Direct,
    FanOut,
    Singleton,
    Pool,
}

impl Pattern {
    fn from_wire(v: wire::Pattern) -> Result<Pattern, String> {
        match v.0 {
            0 => Ok(Pattern::Direct),
            1 => Ok(Pattern::FanOut),
            2 => Ok(Pattern::Singleton),
            3 => Ok(Pattern::Pool),
            n => Err(format!("unknown pattern value {n}")),
        }
    }

    fn to_wire(self) -> wire::Pattern {
        wire::Pattern(self as u8)
    }
}

/// A region as an interface declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryDesc {
    /// Qualified: `package.memory`.
    pub name: String,
    pub importer: Access,
    pub exporter: Access,
    /// Size in 64 KiB pages, 1..=65536.
    pub max_pages: u32,
}

impl MemoryDesc {
    /// `name: memory (import: importer, export: exporter, pages)`.
    pub fn new(name: &str, importer: Access, exporter: Access, pages: u32) -> MemoryDesc {
        MemoryDesc {
            name: name.into(),
            importer,
            exporter,
            max_pages: pages,
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        u64::from(self.max_pages) * 65536
    }
}

impl ParamDesc {
    /// `name: ty`, or `name: ty @ memory` when bound to a region.
    pub fn new(name: &str, ty: &str, memory: Option<&str>) -> ParamDesc {
        ParamDesc {
            name: name.into(),
            ty: ty.into(),
            memory: memory.map(str::to_string),
        }
    }
}

impl FunctionDesc {
    /// `name(params) -> result`.
    pub fn new(name: &str, params: Vec<ParamDesc>, result: Option<ParamDesc>) -> FunctionDesc {
        FunctionDesc {
            name: name.into(),
            params,
            result,
        }
    }
}

/// A parameter or result of a function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamDesc {
    pub name: String,
    /// Qualified struct name: `package.Type`.
    pub ty: String,
    /// Qualified region name when the value lives in a region.
    pub memory: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionDesc {
    pub name: String,
    pub params: Vec<ParamDesc>,
    pub result: Option<ParamDesc>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InterfaceDesc {
    /// Qualified: `package.Interface`.
    pub name: String,
    /// Signature hash (docs/abi.md §3.1); [`InterfaceDesc::signature_hash`]
    /// computes it.
    pub hash: u64,
    pub dynamic: bool,
    pub pattern: Pattern,
    /// Instances for `pool(N)`, else 0.
    pub pool_size: u32,
    pub memories: Vec<MemoryDesc>,
    pub functions: Vec<FunctionDesc>,
}

/// What a module exports and imports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModuleDesc {
    /// Distinct regions of this module's interfaces, in `karmem_bind_memory`
    /// index order.
    pub memories: Vec<MemoryDesc>,
    pub exports: Vec<InterfaceDesc>,
    pub imports: Vec<InterfaceDesc>,
}

impl InterfaceDesc {
    /// A static interface (not `dynamic`, pool size 0) with its signature
    /// hash set: what a host export ([`crate::AppBuilder::host_export`])
    /// declares.
    pub fn new(
        name: &str,
        pattern: Pattern,
        memories: Vec<MemoryDesc>,
        functions: Vec<FunctionDesc>,
    ) -> InterfaceDesc {
        InterfaceDesc {
            name: name.into(),
            hash: 0,
            dynamic: false,
            pattern,
            pool_size: 0,
            memories,
            functions,
        }
        .with_signature_hash()
    }

    /// The same interface with `pool(n)` instances declared.
    pub fn with_pool_size(mut self, n: u32) -> InterfaceDesc {
        self.pool_size = n;
        self
    }

    /// What the canonical signature is built from: the same description
    /// the code generator gives `karmem-format`, so both write one text.
    fn signature_parts<'a>(&'a self) -> Signature<'a> {
        let param = |p: &'a ParamDesc| Param {
            name: &p.name,
            ty: &p.ty,
            memory: p.memory.as_deref(),
        };
        Signature {
            interface: &self.name,
            memories: self
                .memories
                .iter()
                .map(|m| Memory {
                    name: &m.name,
                    importer: m.importer,
                    exporter: m.exporter,
                    pages: m.max_pages,
                })
                .collect(),
            functions: self
                .functions
                .iter()
                .map(|f| Function {
                    name: &f.name,
                    params: f.params.iter().map(param).collect(),
                    result: f.result.as_ref().map(param),
                })
                .collect(),
        }
    }

    /// The canonical signature text (docs/abi.md §3.1).
    pub fn signature(&self) -> String {
        self.signature_parts().text()
    }

    /// FNV-1a 64 of [`InterfaceDesc::signature`].
    pub fn signature_hash(&self) -> u64 {
        self.signature_parts().hash()
    }

    /// The same interface with [`InterfaceDesc::hash`] set from its
    /// signature (for descriptors built in Rust, e.g. a host export).
    pub fn with_signature_hash(mut self) -> InterfaceDesc {
        self.hash = self.signature_hash();
        self
    }

    /// The index of a function by name.
    pub fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }
}

fn param_from_wire(p: &wire::ParamDesc) -> ParamDesc {
    ParamDesc {
        name: p.name.clone(),
        ty: p.type_.clone(),
        memory: (!p.memory.is_empty()).then(|| p.memory.clone()),
    }
}

fn param_to_wire(p: &ParamDesc) -> wire::ParamDesc {
    wire::ParamDesc {
        name: p.name.clone(),
        type_: p.ty.clone(),
        memory: p.memory.clone().unwrap_or_default(),
    }
}

fn memory_from_wire(m: &wire::MemoryDesc) -> Result<MemoryDesc, String> {
    Ok(MemoryDesc {
        name: m.name.clone(),
        importer: access_from_wire(m.importer).map_err(|e| format!("region `{}`: {e}", m.name))?,
        exporter: access_from_wire(m.exporter).map_err(|e| format!("region `{}`: {e}", m.name))?,
        max_pages: m.max_pages,
    })
}

fn memory_to_wire(m: &MemoryDesc) -> wire::MemoryDesc {
    wire::MemoryDesc {
        name: m.name.clone(),
        importer: access_to_wire(m.importer),
        exporter: access_to_wire(m.exporter),
        max_pages: m.max_pages,
    }
}

fn interface_from_wire(i: &wire::InterfaceDesc) -> Result<InterfaceDesc, String> {
    let ctx = |e: String| format!("interface `{}`: {e}", i.name);
    Ok(InterfaceDesc {
        name: i.name.clone(),
        hash: i.hash,
        dynamic: i.dynamic,
        pattern: Pattern::from_wire(i.pattern).map_err(ctx)?,
        pool_size: i.pool_size,
        memories: i
            .memories
            .iter()
            .map(memory_from_wire)
            .collect::<Result<_, _>>()
            .map_err(ctx)?,
        functions: i
            .functions
            .iter()
            .map(|f| FunctionDesc {
                name: f.name.clone(),
                params: f.params.iter().map(param_from_wire).collect(),
                // A table field cannot be told apart from an empty one, and
                // a result always has a type: an empty type means "absent".
                result: (!f.result.type_.is_empty()).then(|| param_from_wire(&f.result)),
            })
            .collect(),
    })
}

fn interface_to_wire(i: &InterfaceDesc) -> wire::InterfaceDesc {
    wire::InterfaceDesc {
        name: i.name.clone(),
        hash: i.hash,
        dynamic: i.dynamic,
        pattern: i.pattern.to_wire(),
        pool_size: i.pool_size,
        memories: i.memories.iter().map(memory_to_wire).collect(),
        functions: i
            .functions
            .iter()
            .map(|f| wire::FunctionDesc {
                name: f.name.clone(),
                params: f.params.iter().map(param_to_wire).collect(),
                result: f.result.as_ref().map(param_to_wire).unwrap_or_default(),
            })
            .collect(),
    }
}

/// Limits on what a descriptor may contain (ids are 16-bit, §3).
const MAX_ENTRIES: usize = 65535;

impl ModuleDesc {
    /// Decode a descriptor message and check every rule of docs/abi.md §3.
    pub fn decode(bytes: &[u8]) -> Result<ModuleDesc, String> {
        // The reader needs an 8-byte aligned base (format.md §1).
        let buf = karmem::AlignedBuf::from_bytes(bytes);
        let reader = karmem::Reader::new(buf.as_slice())
            .map_err(|e| format!("not a Karmem message: {e:?}"))?;
        wire::ModuleDesc::validate(&reader)
            .map_err(|e| format!("not a valid ModuleDesc: {e:?}"))?;
        let mut raw = wire::ModuleDesc::default();
        raw.read_as_root(&reader)
            .map_err(|e| format!("not a valid ModuleDesc: {e:?}"))?;
        let desc = ModuleDesc {
            memories: raw
                .memories
                .iter()
                .map(memory_from_wire)
                .collect::<Result<_, _>>()?,
            exports: raw
                .exports
                .iter()
                .map(interface_from_wire)
                .collect::<Result<_, _>>()?,
            imports: raw
                .imports
                .iter()
                .map(interface_from_wire)
                .collect::<Result<_, _>>()?,
        };
        desc.check()?;
        Ok(desc)
    }

    /// Encode as a descriptor message (what a guest's `karmem_describe`
    /// points at). Hashes are written as they are: call
    /// [`ModuleDesc::with_hashes`] first to fill them in.
    pub fn encode(&self) -> Vec<u8> {
        let raw = wire::ModuleDesc {
            memories: self.memories.iter().map(memory_to_wire).collect(),
            exports: self.exports.iter().map(interface_to_wire).collect(),
            imports: self.imports.iter().map(interface_to_wire).collect(),
        };
        // Encoding owned, bounded data cannot fail short of a 4 GiB message.
        raw.to_bytes().expect("descriptor larger than 4 GiB")
    }

    /// The same descriptor with every interface's hash set from its
    /// signature.
    pub fn with_hashes(mut self) -> ModuleDesc {
        for i in self.exports.iter_mut().chain(self.imports.iter_mut()) {
            i.hash = i.signature_hash();
        }
        self
    }

    /// The export function id `(e << 16) | f` of `interface.function`.
    pub fn export_id(&self, interface: &str, function: &str) -> Option<u32> {
        function_id(&self.exports, interface, function)
    }

    /// The import function id `(i << 16) | f` of `interface.function`.
    pub fn import_id(&self, interface: &str, function: &str) -> Option<u32> {
        function_id(&self.imports, interface, function)
    }

    /// The access to a region this module *asks for*: the exporter access
    /// if it exports an interface declaring it, the importer access if it
    /// imports one, the larger if both (docs/abi.md §6). What it gets is at
    /// most what the host grants (docs/security.md §1).
    pub fn access(&self, region: &str) -> Access {
        let side = |list: &[InterfaceDesc], exporter: bool| {
            list.iter()
                .flat_map(|i| i.memories.iter())
                .filter(|m| m.name == region)
                .map(|m| if exporter { m.exporter } else { m.importer })
                .max()
                .unwrap_or(Access::None)
        };
        side(&self.exports, true).max(side(&self.imports, false))
    }

    /// [`ModuleDesc::access`] of every region the module declares, in one
    /// pass (a descriptor may list tens of thousands of regions: asking
    /// region by region would be quadratic).
    pub fn accesses(&self) -> HashMap<&str, Access> {
        let mut map: HashMap<&str, Access> = HashMap::new();
        for (list, exporter) in [(&self.exports, true), (&self.imports, false)] {
            for m in list.iter().flat_map(|i| i.memories.iter()) {
                let asked = if exporter { m.exporter } else { m.importer };
                let a = map.entry(&m.name).or_insert(Access::None);
                *a = (*a).max(asked);
            }
        }
        map
    }

    /// Every rule a well-formed descriptor follows (docs/abi.md §3).
    pub fn check(&self) -> Result<(), String> {
        let mut regions: HashMap<&str, &MemoryDesc> = HashMap::new();
        for m in &self.memories {
            check_memory(m)?;
            if regions.insert(&m.name, m).is_some() {
                return Err(format!("region `{}` listed twice", m.name));
            }
        }
        let mut used: HashSet<&str> = HashSet::new();
        for (side, list) in [("export", &self.exports), ("import", &self.imports)] {
            if list.len() > MAX_ENTRIES {
                return Err(format!("more than {MAX_ENTRIES} {side}ed interfaces"));
            }
            let mut names = HashSet::new();
            for i in list {
                if !names.insert(i.name.as_str()) {
                    return Err(format!("interface `{}` {side}ed twice", i.name));
                }
                check_interface(i, &regions, &mut used)?;
            }
        }
        if let Some(unused) = self
            .memories
            .iter()
            .find(|m| !used.contains(m.name.as_str()))
        {
            return Err(format!(
                "region `{}` is listed but no interface uses it",
                unused.name
            ));
        }
        Ok(())
    }
}

fn function_id(list: &[InterfaceDesc], interface: &str, function: &str) -> Option<u32> {
    let e = list.iter().position(|i| i.name == interface)?;
    let f = list[e].function(function)?;
    Some(((e as u32) << 16) | f as u32)
}

/// Longest name a descriptor may contain.
const MAX_NAME: usize = 256;

/// `IDENT`: `[A-Za-z_][A-Za-z0-9_]*` (docs/idl.md §2), at most 256 bytes.
/// Names go into the canonical signature text and into error messages:
/// restricted this way they cannot forge a line of the signature (two
/// different interfaces with one text, hence one hash) nor of a message.
fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    s.len() <= MAX_NAME
        && b.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `IDENT "." IDENT { "." IDENT }`: a qualified interface, type or region
/// name.
fn is_qualified(s: &str) -> bool {
    s.len() <= MAX_NAME && s.contains('.') && s.split('.').all(is_ident)
}

fn check_name(what: &str, name: &str, qualified: bool) -> Result<(), String> {
    let ok = if qualified {
        is_qualified(name)
    } else {
        is_ident(name)
    };
    if ok {
        return Ok(());
    }
    let shown = crate::log::escape_text(name.as_bytes(), 64);
    Err(if qualified {
        format!("{what} name `{shown}` is not a qualified name (`package.Name`, identifiers of at most {MAX_NAME} bytes)")
    } else {
        format!("{what} name `{shown}` is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`, at most {MAX_NAME} bytes)")
    })
}

fn check_memory(m: &MemoryDesc) -> Result<(), String> {
    check_name("region", &m.name, true)?;
    if !(1..=65536).contains(&m.max_pages) {
        return Err(format!(
            "region `{}`: {} pages, expected 1..=65536",
            m.name, m.max_pages
        ));
    }
    Ok(())
}

fn check_param(p: &ParamDesc, declared: &HashSet<&str>, what: &str) -> Result<(), String> {
    check_name(what, &p.name, false)?;
    if p.ty.is_empty() {
        return Err(format!("{what} `{}` has no type", p.name));
    }
    check_name(&format!("{what} `{}`: type", p.name), &p.ty, true)?;
    if let Some(m) = &p.memory {
        if !declared.contains(m.as_str()) {
            return Err(format!(
                "{what} `{}` is bound to region `{m}`, which the interface does not declare",
                p.name
            ));
        }
    }
    Ok(())
}

fn check_interface<'a>(
    i: &'a InterfaceDesc,
    regions: &HashMap<&str, &MemoryDesc>,
    used: &mut HashSet<&'a str>,
) -> Result<(), String> {
    check_name("interface", &i.name, true)?;
    let ctx = |e: String| format!("interface `{}`: {e}", i.name);
    if i.functions.len() > MAX_ENTRIES {
        return Err(ctx(format!("more than {MAX_ENTRIES} functions")));
    }
    if i.pattern == Pattern::Pool && i.pool_size == 0 {
        return Err(ctx("pattern pool with pool size 0".into()));
    }
    let mut declared = HashSet::new();
    for m in &i.memories {
        check_memory(m).map_err(ctx)?;
        if !declared.insert(m.name.as_str()) {
            return Err(ctx(format!("region `{}` declared twice", m.name)));
        }
        match regions.get(m.name.as_str()) {
            Some(d) if *d == m => {}
            Some(_) => {
                return Err(ctx(format!(
                    "region `{}` differs from the module's list of regions",
                    m.name
                )))
            }
            None => {
                return Err(ctx(format!(
                    "region `{}` is missing from the module's list of regions",
                    m.name
                )))
            }
        }
        used.insert(m.name.as_str());
    }
    let mut names = HashSet::new();
    for f in &i.functions {
        check_name("function", &f.name, false).map_err(ctx)?;
        if !names.insert(f.name.as_str()) {
            return Err(ctx(format!("function `{}` declared twice", f.name)));
        }
        for p in &f.params {
            check_param(p, &declared, "parameter")
                .map_err(|e| ctx(format!("fn {}: {e}", f.name)))?;
        }
        if let Some(r) = &f.result {
            check_param(r, &declared, "result").map_err(|e| ctx(format!("fn {}: {e}", f.name)))?;
        }
    }
    let expected = i.signature_hash();
    if i.hash != expected {
        return Err(ctx(format!(
            "hash {:#018x} does not match the signature (expected {expected:#018x}; docs/abi.md §3.1)",
            i.hash
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> InterfaceDesc {
        let world = Some("game.world".to_string());
        InterfaceDesc {
            name: "game.Updater".into(),
            hash: 0,
            dynamic: false,
            pattern: Pattern::Direct,
            pool_size: 0,
            memories: vec![MemoryDesc {
                name: "game.world".into(),
                importer: Access::Read,
                exporter: Access::ReadWrite,
                max_pages: 16,
            }],
            functions: vec![
                FunctionDesc {
                    name: "update".into(),
                    params: vec![
                        ParamDesc {
                            name: "state".into(),
                            ty: "game.State".into(),
                            memory: world.clone(),
                        },
                        ParamDesc {
                            name: "input".into(),
                            ty: "game.Input".into(),
                            memory: None,
                        },
                    ],
                    result: Some(ParamDesc {
                        name: "next".into(),
                        ty: "game.State".into(),
                        memory: world,
                    }),
                },
                FunctionDesc {
                    name: "reset".into(),
                    params: vec![],
                    result: None,
                },
            ],
        }
    }

    /// The worked example of docs/abi.md §3.1, byte for byte.
    #[test]
    fn signature_matches_the_abi_example() {
        let i = example();
        assert_eq!(
            i.signature(),
            "interface game.Updater\nmemory game.world import=read export=readwrite pages=16\nfn update(state: game.State @ game.world, input: game.Input) -> next: game.State @ game.world\nfn reset()\n"
        );
        assert_eq!(i.signature_hash(), 0xf1c9_c72e_7ed9_6715);
    }

    #[test]
    fn encode_decode_round_trip() {
        let i = example();
        let d = ModuleDesc {
            memories: i.memories.clone(),
            exports: vec![i.clone()],
            imports: vec![i],
        }
        .with_hashes();
        assert_eq!(ModuleDesc::decode(&d.encode()).unwrap(), d);
        assert_eq!(d.export_id("game.Updater", "reset"), Some(1));
        assert_eq!(d.access("game.world"), Access::ReadWrite);
    }

    #[test]
    fn broken_descriptors_are_refused() {
        let i = example();
        let good = ModuleDesc {
            memories: i.memories.clone(),
            exports: vec![i],
            imports: vec![],
        }
        .with_hashes();
        let mut bad_hash = good.clone();
        bad_hash.exports[0].hash ^= 1;
        assert!(ModuleDesc::decode(&bad_hash.encode())
            .unwrap_err()
            .contains("does not match the signature"));
        let mut missing_region = good.clone();
        missing_region.memories.clear();
        assert!(ModuleDesc::decode(&missing_region.encode())
            .unwrap_err()
            .contains("missing from the module's list"));
        let mut zero_pages = good.clone();
        zero_pages.memories[0].max_pages = 0;
        zero_pages.exports[0].memories[0].max_pages = 0;
        assert!(ModuleDesc::decode(&zero_pages.with_hashes().encode())
            .unwrap_err()
            .contains("pages"));
        let mut dup = good.clone();
        dup.exports.push(dup.exports[0].clone());
        assert!(ModuleDesc::decode(&dup.encode())
            .unwrap_err()
            .contains("twice"));
        let mut unbound = good;
        unbound.exports[0].functions[0].params[1].memory = Some("game.other".into());
        assert!(ModuleDesc::decode(&unbound.with_hashes().encode())
            .unwrap_err()
            .contains("does not declare"));
        assert!(ModuleDesc::decode(b"garbage!").is_err());
        assert!(ModuleDesc::decode(&[]).is_err());
    }

    /// Names go into the signature text, whose hash decides binding: a
    /// name holding `)\nfn ` would let a one-function interface have the
    /// text (and hash) of a two-function one. Names are identifiers and
    /// qualified names, nothing else (docs/security.md §2.7).
    #[test]
    fn names_cannot_forge_a_signature() {
        let two = InterfaceDesc::new(
            "game.I",
            Pattern::Direct,
            vec![],
            vec![
                FunctionDesc::new("f", vec![], None),
                FunctionDesc::new("g", vec![], None),
            ],
        );
        let forged = InterfaceDesc::new(
            "game.I",
            Pattern::Direct,
            vec![],
            vec![FunctionDesc::new("f()\nfn g", vec![], None)],
        );
        // The same text, hence the same hash, from different interfaces...
        assert_eq!(forged.signature(), two.signature());
        assert_eq!(forged.hash, two.hash);
        // ... which a descriptor cannot contain.
        let desc = |i: InterfaceDesc| ModuleDesc {
            memories: vec![],
            exports: vec![i],
            imports: vec![],
        };
        assert!(desc(two).check().is_ok());
        let e = desc(forged).check().unwrap_err();
        assert!(e.contains("not an identifier"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        for (bad, what) in [
            ("I", "not a qualified name"),
            ("game.", "not a qualified name"),
            ("game.I x", "not a qualified name"),
            ("game.\u{1b}[2J", "not a qualified name"),
        ] {
            let mut i = example();
            i.name = bad.into();
            let e = desc(i.with_signature_hash()).check().unwrap_err();
            assert!(e.contains(what), "{bad:?}: {e}");
        }
        let mut long = example();
        long.functions[0].name = "f".repeat(257);
        assert!(desc(long.with_signature_hash()).check().is_err());
    }
}

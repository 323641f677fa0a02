//! The canonical interface signature of the guest ABI (docs/abi.md §3.1).
//!
//! A [`Signature`] is the neutral description of an interface the text is
//! built from: names and types as qualified strings, nothing of the
//! generator's or the host's own models. The code generator
//! (`karmem_codegen::iface`) builds one from a schema and writes the hash
//! into every guest's descriptor; the host (`karmem_host::descriptor`)
//! builds one from the descriptor it reads and recomputes the hash. Pattern,
//! pool size and `dynamic` are not part of the text.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// Access of one side of an interface to a region (docs/abi.md §3, §6).
/// Ordered: `None < Read < ReadWrite`, so a module with two roles gets the
/// larger one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// A module's access to a region none of its interfaces uses; never
    /// written in a schema.
    None,
    Read,
    ReadWrite,
}

impl Access {
    /// The word used in canonical signatures.
    pub fn keyword(self) -> &'static str {
        match self {
            Access::None => "none",
            Access::Read => "read",
            Access::ReadWrite => "readwrite",
        }
    }

    /// The value of the `Access` enum of docs/abi.km.
    pub fn wire(self) -> u8 {
        self as u8
    }

    /// The access of a value of docs/abi.km's `Access`; `None` (the Rust
    /// one) for a value it does not define.
    pub fn from_wire(v: u8) -> Option<Access> {
        match v {
            0 => Some(Access::None),
            1 => Some(Access::Read),
            2 => Some(Access::ReadWrite),
            _ => None,
        }
    }
}

/// A region as an interface declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory<'a> {
    /// Qualified: `package.memory`.
    pub name: &'a str,
    pub importer: Access,
    pub exporter: Access,
    /// Size in 64 KiB pages.
    pub pages: u32,
}

/// A parameter or the result of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param<'a> {
    pub name: &'a str,
    /// Qualified struct name: `package.Type`.
    pub ty: &'a str,
    /// Qualified region name when the value lives in a region.
    pub memory: Option<&'a str>,
}

/// A function of an interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function<'a> {
    pub name: &'a str,
    pub params: Vec<Param<'a>>,
    pub result: Option<Param<'a>>,
}

/// What the canonical signature of an interface is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature<'a> {
    /// Qualified: `package.Interface`.
    pub interface: &'a str,
    /// Regions in declaration order.
    pub memories: Vec<Memory<'a>>,
    /// Functions in declaration order.
    pub functions: Vec<Function<'a>>,
}

impl Signature<'_> {
    /// Writes the canonical text: one line per item, each ending in `\n`,
    /// spaced exactly as docs/abi.md §3.1 shows.
    pub fn write(&self, out: &mut impl Write) -> fmt::Result {
        writeln!(out, "interface {}", self.interface)?;
        for m in &self.memories {
            writeln!(
                out,
                "memory {} import={} export={} pages={}",
                m.name,
                m.importer.keyword(),
                m.exporter.keyword(),
                m.pages
            )?;
        }
        for f in &self.functions {
            write!(out, "fn {}(", f.name)?;
            for (i, p) in f.params.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_param(out, p)?;
            }
            out.write_char(')')?;
            if let Some(r) = &f.result {
                out.write_str(" -> ")?;
                write_param(out, r)?;
            }
            out.write_char('\n')?;
        }
        Ok(())
    }

    /// The canonical text (docs/abi.md §3.1).
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s).expect("writing to a String cannot fail");
        s
    }

    /// FNV-1a 64 of the canonical text, computed without building it.
    pub fn hash(&self) -> u64 {
        let mut h = Fnv64(crate::fnv1a64(&[]));
        self.write(&mut h).expect("hashing cannot fail");
        h.0
    }
}

fn write_param(out: &mut impl Write, p: &Param<'_>) -> fmt::Result {
    write!(out, "{}: {}", p.name, p.ty)?;
    if let Some(m) = p.memory {
        write!(out, " @ {m}")?;
    }
    Ok(())
}

/// FNV-1a 64 fed by `fmt::Write`.
struct Fnv64(u64);

impl Write for Fnv64 {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = crate::fnv1a64_from(self.0, s.as_bytes());
        Ok(())
    }
}

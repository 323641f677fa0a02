//! Rust backend: generates, per schema, one module with
//!
//! * object types (`Clone + Debug + Default + PartialEq`) with
//!   `write_as_root` / `read_as_root` (decoding reuses allocations) and
//!   `validate` (returns a trusted viewer);
//! * zero-copy viewers, generic over [`karmem::Mode`]: `Checked` (every
//!   load bounds-checked) or `Trusted` (after validation);
//! * for each struct used in an SoA array, an array view exposing every
//!   scalar column as a native slice, and an element view.
//!
//! The emitted text is valid Rust; the CLI runs `rustfmt` over it.
//!
//! The generator is split by concern, one `impl Gen` per file: `enums`,
//! `object` (owned types: write and decode), `validate`, `views`, `soa` (SoA
//! column code and views) and `unions` (with bunch arrays); this file holds
//! the backend, the shared names and helpers, and the file's item order.
//! All of them write through `code::Code` (`self.c`), which keeps the
//! indentation: a block is `open`ed and `close`d, never indented by hand.
//! The per-slot code of the object's encoder and decoder (`object`), of the
//! validator (`validate`) and of the SoA columns (`soa`) is printed for the
//! shared walkers of the layout plan (`crate::walk`): `Gen` is their
//! `SlotPrinter`, `DecodePrinter`, `ValidatePrinter` and `EncodePrinter`.

mod code;
mod edit;
mod enums;
mod object;
mod soa;
mod unions;
mod validate;
mod views;

use std::collections::BTreeSet;

use karmem_layout::{ArrayData, Layout, Slot, SoaLayout};
use karmem_schema::model::*;

use crate::names::{rust_ident, snake, Namer, RUST};
use crate::{Backend, Error, GeneratedFile};
use code::Code;

/// Most SoA columns copied in one zipped loop. The loop's pattern nests a
/// tuple per column (`((e, x0), x1)…`), and rustfmt's time grows
/// exponentially with that depth (measured: 0.03 s at 12, 0.16 s at 16,
/// 1.7 s at 20; a 46-column element ran for over ten minutes), so wider
/// elements are copied in one loop per group of columns.
const MAX_ZIP: usize = 12;

/// The Rust generator. `serde` adds `serde::Serialize`/`Deserialize`
/// derives following the golden-vector JSON conventions.
#[derive(Clone, Debug, Default)]
pub struct RustBackend {
    pub serde: bool,
}

impl Backend for RustBackend {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let mut g = Gen {
            s: schema,
            l: layout,
            n: Namer::new(&RUST, schema),
            serde: self.serde,
            c: Code::new(0),
        };
        g.file();
        Ok(vec![GeneratedFile {
            path: format!("{}.rs", snake(&schema.package)),
            contents: allow_unused_items(&g.c.into_text()),
        }])
    }
}

/// `#[allow(dead_code)]` before every top-level type, constant, function
/// and inherent `impl` of a generated file. A program uses the part of a
/// schema's API it needs, and the rest is not dead code to warn about in
/// the user's crate. Outer attributes, not one `#![allow(dead_code)]`: the
/// file may be `include!`d (from a build script's `OUT_DIR`), where inner
/// attributes are not allowed. Trait impls are never dead code.
fn allow_unused_items(code: &str) -> String {
    const ITEMS: [&str; 5] = [
        "pub struct ",
        "pub enum ",
        "pub const ",
        "pub fn ",
        "pub type ",
    ];
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    for line in code.split_inclusive('\n') {
        let inherent_impl = line.starts_with("impl") && !line.contains(" for ");
        let item = ITEMS.iter().any(|p| line.starts_with(p)) || inherent_impl;
        if item {
            out.push_str("#[allow(dead_code)]\n");
        }
        out.push_str(line);
    }
    out
}

struct Gen<'a> {
    s: &'a Schema,
    l: &'a Layout,
    /// The names of the schema's items (`crate::names::RUST`).
    n: Namer<'a>,
    serde: bool,
    c: Code,
}

/// A `[<N]T` limit as the runtime's `Option<u32>` argument.
fn rust_limit(limit: Option<u32>) -> String {
    limit.map_or("None".into(), |n| format!("Some({n})"))
}

/// `bovos` (`soa`) or `bovoa`: the kind of a bunch array, as its helpers
/// are named.
fn bunch_kind(soa: bool) -> &'static str {
    if soa {
        "bovos"
    } else {
        "bovoa"
    }
}

fn add(base: &str, off: u32) -> String {
    if off == 0 {
        base.to_string()
    } else {
        format!("{base} + {off}")
    }
}

fn mul(i: &str, size: u32) -> String {
    if size == 1 {
        i.to_string()
    } else {
        format!("{i} * {size}")
    }
}

/// `ident` + `_suffix` for a derived method name. A keyword field's ident
/// carries a trailing `_` (`type_`); the suffix already makes the name no
/// keyword, so the escape is dropped: `type_bytes`, not `type__bytes`.
fn suffixed(ident: &str, suffix: &str) -> String {
    format!("{}_{suffix}", unescaped(ident))
}

/// An accessor's name without its escape: `type` for `type_`, `table`
/// for `table_field` ([`view_ident`]).
fn unescaped(ident: &str) -> &str {
    ident
        .strip_suffix('_')
        .filter(|base| rust_ident(base) == ident)
        .or_else(|| {
            ident
                .strip_suffix("_field")
                .filter(|base| view_ident(base) == ident)
        })
        .unwrap_or(ident)
}

/// A method of the in-place editor `{T}Edit` for field `i` of table `id`:
/// `{verb}_{f}{suffix}` (`set_hp`, `edit_items`, `set_items_len`), `f` the
/// field's accessor without its keyword escape (`set_type`, not
/// `set_type_`; `set_table`, not `set_table_field`).
fn edit_method(
    s: &Schema,
    n: &Namer<'_>,
    id: StructId,
    i: usize,
    verb: &str,
    suffix: &str,
) -> String {
    let ident = field_accessor(s, n, id, i);
    format!("{verb}_{}{suffix}", unescaped(&ident))
}

/// The methods every struct viewer has of its own (`root`, and `table` or
/// `position`, and `reader`), and names whose signatures Rust convention
/// (and clippy) fixes: `new` returns `Self`, `len` comes with `is_empty`.
const VIEW_METHODS: &[&str] = &[
    "root", "table", "position", "reader", "new", "len", "is_empty",
];

/// The accessor of a field in a struct viewer: a field named like one of
/// the viewer's own methods gets `_field` (`position_field()`), as a
/// column named like an SoA array's method gets `_column`. The schema's
/// names are never refused for the Rust target's sake.
fn view_ident(ident: &str) -> String {
    if VIEW_METHODS.contains(&ident) {
        format!("{ident}_field")
    } else {
        ident.to_string()
    }
}

/// The accessor of field `i` of struct `id` in its viewer: a tuple's
/// elements are `f0`, `f1`..., other fields their names ([`view_ident`]).
fn field_accessor(s: &Schema, n: &Namer<'_>, id: StructId, i: usize) -> String {
    if s.structs[id].tuple {
        format!("f{i}")
    } else {
        view_ident(&n.field(id, i))
    }
}

/// The accessor of SoA column `k` (in the array view and the element
/// view): the field names along its path, joined by `_`; a name the array
/// view has for itself gets `_column`.
fn column_accessor(s: &Schema, soa: &SoaLayout, k: usize) -> String {
    let c = &soa.columns[k];
    let parts: Vec<String> = c
        .steps
        .iter()
        .zip(&c.path)
        .map(|(st, i)| snake(&s.structs[*st].fields[*i as usize].name))
        .collect();
    let name = parts.join("_");
    match name.as_str() {
        "len" | "is_empty" | "get" | "iter" | "new" => format!("{name}_column"),
        _ => rust_ident(&name),
    }
}

/// The accessor of variant `ty`'s values in a bunch array view (`#bovoa`,
/// `#bovos`): the variant's member name, `_variant` after the view's own
/// `len` and `is_empty`.
fn bunch_accessor(n: &Namer<'_>, ty: StructId) -> String {
    match n.variant_member(ty) {
        m if m == "len" || m == "is_empty" => format!("{m}_variant"),
        m => m,
    }
}

/// The names of the generated viewers' accessors, for programs that print
/// code calling them (the golden-vector runner's JSON printer over views,
/// `crates/karmem-vectors-rust/build.rs`). The generator names its
/// accessors with these same functions, so the two cannot drift.
pub mod api {
    use karmem_layout::{Layout, SoaLayout};
    use karmem_schema::model::{Schema, StructId};

    use crate::names::{Namer, RUST};

    pub use super::edit::Setter;

    /// The accessor of field `i` of struct `id` in `{T}View`.
    pub fn field_accessor(s: &Schema, id: StructId, i: usize) -> String {
        super::field_accessor(s, &Namer::new(&RUST, s), id, i)
    }

    /// The accessor of column `k` in `{T}Soa` (its native slice, for
    /// numbers, `bool`s and enums) and in `{T}SoaItem` (one element's
    /// value).
    pub fn column_accessor(s: &Schema, soa: &SoaLayout, k: usize) -> String {
        super::column_accessor(s, soa, k)
    }

    /// The in-place editor's method `{verb}_{f}{suffix}` of field `i` of
    /// table `id` in `{T}Edit`: `set` (a number, `bool`, enum or text),
    /// `edit` (a nested table's editor, a plain array's elements), `set`
    /// with `_len` (a plain array's length).
    pub fn edit_method(s: &Schema, id: StructId, i: usize, verb: &str, suffix: &str) -> String {
        super::edit_method(s, &Namer::new(&RUST, s), id, i, verb, suffix)
    }

    /// What `{T}Edit` offers for field `i` of table `id` (`None` for
    /// the fields Go and C do not set either).
    pub fn setter(s: &Schema, l: &Layout, id: StructId, i: usize) -> Option<Setter> {
        if !l.is_table(id) {
            return None;
        }
        let g = super::Gen {
            s,
            l,
            n: Namer::new(&RUST, s),
            serde: false,
            c: super::Code::new(0),
        };
        let f = &l.of_struct(id).fields[i];
        let ctx = super::views::Ctx::Table {
            t: "self.t".into(),
            off: f.offset,
        };
        g.accessor_methods("x", &f.slot, &ctx, None, "self.r").edit
    }

    /// The accessor of variant struct `ty`'s values in a union's
    /// `{U}Bovoa` / `{U}Bovos` view.
    pub fn bunch_accessor(s: &Schema, ty: StructId) -> String {
        super::bunch_accessor(&Namer::new(&RUST, s), ty)
    }
}

fn rust_prim(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "u8",
        Primitive::U16 => "u16",
        Primitive::U32 => "u32",
        Primitive::U64 => "u64",
        Primitive::I8 => "i8",
        Primitive::I16 => "i16",
        Primitive::I32 => "i32",
        Primitive::I64 => "i64",
        Primitive::F32 => "f32",
        Primitive::F64 => "f64",
        Primitive::Bool => "bool",
    }
}

/// `x as u32` unless `x` already is one.
fn as_u32(expr: &str, p: Primitive) -> String {
    if p == Primitive::U32 {
        expr.to_string()
    } else {
        format!("{expr} as u32")
    }
}

impl Gen<'_> {
    // ---- names -----------------------------------------------------------

    fn view_name(&self, id: StructId) -> String {
        format!("{}View", self.n.struct_name(id))
    }
    fn soa_name(&self, id: StructId) -> String {
        format!("{}Soa", self.n.struct_name(id))
    }
    fn soa_item_name(&self, id: StructId) -> String {
        format!("{}SoaItem", self.n.struct_name(id))
    }

    /// A declared default (docs/idl.md §4.3.1) as a Rust expression of the
    /// slot's reader type: a number, `true`, `Team::ORCS`, or a `&'static str`.
    fn default_expr(&self, slot: &Slot, d: &DefaultValue) -> String {
        if let Some(literal) = crate::scalar_default(slot, d) {
            return literal;
        }
        match (slot, d) {
            (Slot::Enum { id, .. }, DefaultValue::Enum { variant, .. }) => {
                format!("{}::{}", self.n.enum_name(*id), self.n.value(*id, *variant))
            }
            (_, DefaultValue::Enum { value, .. }) => value.to_string(),
            // Debug of a `str` is a valid Rust string literal (escapes included).
            (_, DefaultValue::Text(t)) => format!("{t:?}"),
            _ => unreachable!("numbers and booleans are crate::scalar_default's"),
        }
    }

    fn union_value(&self, id: UnionId) -> String {
        format!("{}Value", self.n.union_name(id))
    }
    fn union_view(&self, id: UnionId) -> String {
        format!("{}View", self.n.union_name(id))
    }
    /// `K` when the SoA columns of `id` are exactly its fields, in order,
    /// each a 4-byte number (`Vec3 { x, y, z: f32 }`), 2 ≤ K ≤ 4: such a
    /// struct is emitted `#[repr(C)]` and a slice of it is written by
    /// `Writer::write_soa_words`, which transposes four elements at a time
    /// (RATIONALE R4.4).
    fn words_soa(&self, id: StructId) -> Option<usize> {
        let soa = self.l.soa.get(id)?.as_ref()?;
        let k = soa.columns.len();
        let words = soa.columns.iter().enumerate().all(|(i, c)| {
            c.path == [i as u32]
                && matches!(
                    c.slot,
                    Slot::Scalar(Primitive::I32 | Primitive::U32 | Primitive::F32)
                )
        });
        (words && (2..=4).contains(&k) && self.s.structs[id].fields.len() == k).then_some(k)
    }

    /// Runs `f` on the output buffer detached from `self`, so that `f` can
    /// call the `&self` helpers that write per-slot code into it.
    fn emit(&mut self, f: impl FnOnce(&Self, &mut Code)) {
        let mut c = std::mem::take(&mut self.c);
        f(self, &mut c);
        self.c = c;
    }

    // ---- file ------------------------------------------------------------

    fn file(&mut self) {
        let header = crate::header("//", self.s);
        self.c.raw(&header);
        self.c.line("//");
        self.c.line(
            "// Usage: `mod <name>;` next to this file, with the `karmem` crate as a dependency.",
        );
        self.c.line("");
        for item in self.s.order.clone() {
            match item {
                Item::Enum(id) => self.enum_item(id),
                Item::Struct(id) => self.struct_item(id),
                Item::Union(id) => self.union_item(id),
                Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for (id, soa) in self.l.soa.iter().enumerate() {
            if let Some(soa) = soa {
                self.soa_item(id, soa);
            }
        }
        let mut bunches = BTreeSet::new();
        for st in &self.l.structs {
            for f in &st.fields {
                self.collect_bunches(&f.slot, &mut bunches);
            }
        }
        for soa in self.l.soa.iter().flatten() {
            for c in &soa.columns {
                self.collect_bunches(&c.slot, &mut bunches);
            }
        }
        for (id, soa) in bunches {
            self.bunch_item(id, soa);
        }
        self.root_alias();
    }

    /// `pub type Root = NAME;` for a schema that declares `root NAME;` (the
    /// compiler refuses another type that would be called `Root`).
    fn root_alias(&mut self) {
        let Some(root) = self.s.root else { return };
        let name = self.n.struct_name(root);
        if name != "Root" {
            self.c.line(&format!(
                "/// The schema's root type (`root {};`).",
                self.s.structs[root].name
            ));
            self.c.line(&format!("pub type Root = {name};"));
            self.c.line("");
        }
    }

    fn collect_bunches(&self, slot: &Slot, out: &mut BTreeSet<(UnionId, bool)>) {
        if let Slot::ArrayRef {
            array,
            data: ArrayData::UnionBunch { id, .. },
        } = slot
        {
            out.insert((*id, array.layout == ArrayLayout::BoVoS));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(source: &str) -> String {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let files = RustBackend::default()
            .generate(&schema, &layout)
            .expect("generates");
        files[0].contents.clone()
    }

    #[test]
    fn fields_named_like_viewer_methods_are_moved_aside() {
        assert_eq!(suffixed("reader_field", "bytes"), "reader_bytes");
        assert_eq!(suffixed("name_field", "bytes"), "name_field_bytes");
        let out = generate(
            "karmem k;\nstruct P inline { Position f32; Len i32; }\n\
             struct A table { Reader []char; Table P; R i32; Ps []P; }\n",
        );
        for method in [
            "pub fn position(&self) -> Option<u32>",
            "pub fn position_field(&self) -> f32",
            "pub fn len_field(&self) -> i32",
            "pub fn reader_field(&self) -> &'a str",
            "pub fn reader_bytes(&self) -> &'a [u8]",
            "pub fn table_field(&self) -> PView<'a, M>",
            "pub fn len_column(&self) -> &'a [i32]",
        ] {
            assert!(out.contains(method), "{method} missing:\n{out}");
        }
        // An SoA element reaches its reader through the array view's field:
        // a column named `r` has no helper method to clash with.
        assert!(!out.contains("fn r(&self) -> karmem::Reader"), "{out}");
    }

    #[test]
    fn derived_names_of_keyword_fields_have_one_underscore() {
        assert_eq!(suffixed("type_", "bytes"), "type_bytes");
        assert_eq!(suffixed("name", "bytes"), "name_bytes");
        // A trailing underscore that is not a keyword escape stays.
        assert_eq!(suffixed("name_", "bytes"), "name__bytes");
        let out = generate("karmem k;\nstruct A table { Type []char; }\n");
        assert!(out.contains("pub fn type_(&self)"), "{out}");
        assert!(out.contains("pub fn type_bytes(&self)"), "{out}");
        assert!(!out.contains("__"), "{out}");
    }

    #[test]
    fn top_level_items_allow_dead_code_trait_impls_do_not_need_it() {
        let code = "/// doc\n#[derive(Clone)]\npub struct A(pub u8);\n\nimpl A {\n    pub fn f() {}\n}\n\nimpl<'a> core::fmt::Debug for A {\n}\npub const N: u32 = 1;\n";
        assert_eq!(
            allow_unused_items(code),
            "/// doc\n#[derive(Clone)]\n#[allow(dead_code)]\npub struct A(pub u8);\n\n#[allow(dead_code)]\nimpl A {\n    pub fn f() {}\n}\n\nimpl<'a> core::fmt::Debug for A {\n}\n#[allow(dead_code)]\npub const N: u32 = 1;\n"
        );
    }

    #[test]
    fn a_declared_root_gets_the_alias_root() {
        let out = generate("karmem k;\nroot A;\nstruct A table { X u8; }\n");
        assert!(
            out.contains("#[allow(dead_code)]\npub type Root = A;\n"),
            "{out}"
        );
        let out = generate("karmem k;\nroot Root;\nstruct Root table { X u8; }\n");
        assert!(!out.contains("type Root"), "{out}");
    }

    #[test]
    fn word_structs_get_the_slice_writer() {
        let out = generate(
            "karmem k;\nstruct V inline { X f32; Y i32; Z u32; }\nstruct A table { P []V; }\n",
        );
        assert!(
            out.contains("#[repr(C)]\n#[allow(dead_code)]\npub struct V {"),
            "{out}"
        );
        assert!(out.contains("V::write_soa_slice(&self.p, w,"), "{out}");
        // Mixed sizes or more than 4 columns: the element-wise writer.
        let out =
            generate("karmem k;\nstruct V inline { X f32; Y u16; }\nstruct A table { P []V; }\n");
        assert!(
            !out.contains("repr(C)") && !out.contains("write_soa_slice"),
            "{out}"
        );
    }
}

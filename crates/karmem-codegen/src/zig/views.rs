//! Zero-copy viewers (docs/zig.md, "Viewers"), with the semantics of the C
//! and Go viewers (crates/karmem-codegen/src/c/views.rs, go/views.rs):
//! nothing is decoded or allocated, and a malformed or absent part reads as
//! the declared default, zero or empty.
//!
//! Every viewer is a generic type over its reader `R` (`fn TViewOf(comptime
//! R: type) type`), instantiated twice: `TView` over the checked
//! `karmem.Reader` and `TrustedTView` over `karmem.Trusted` (a validated
//! message, whose reads skip the checks validation made). One printing
//! serves both: the reads whose checks differ are the library's
//! `karmem.views.arrayAt`, `tableAt`, `bunchEntry`, `inlineAt`, `soaLen`,
//! which look at `R` at compile time.
//!
//! Every accessor first finds its slot's position `at`, 0 when the slot is
//! not there (an absent table field, an SoA column the message lacks, an
//! element out of range): no slot lies in the header, so 0 is free to mean
//! "absent", and the read of each slot kind is one emitter whatever the
//! slot's container.

use std::collections::{BTreeMap, BTreeSet};

use karmem_layout::{
    ArrayData, FixedElem, Slot, ARRAY_REF_SIZE, HEADER_SIZE, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{limit_arg, prim, type_name, Gen};
use crate::walk::{view_array, view_slot, ViewAt, ViewPrinter};

/// Names the viewers use themselves (fields, parameters and locals of the
/// view types, and the file's `karmem` and `idx`): Zig refuses a method
/// named like a field of its struct, and a parameter or local that
/// shadows a declaration (an accessor) of an enclosing struct, so an
/// accessor of one of these names gets `_`. They are chosen to be unlikely
/// field names (`self`, `reader`, `position`, not `r`, `t`, `at`): `x`,
/// `key`, `offset` stay free.
const RESERVED: &[&str] = &[
    "array",
    "columns",
    "elem",
    "editor",
    "elems",
    "entry",
    "got",
    "high",
    "idx",
    "index",
    "j",
    "karmem",
    "low",
    "middle",
    "new_len",
    "new_value",
    "offset_at",
    "position",
    "reader",
    "root",
    "self",
    "slot",
    "slot_v",
    "soa",
    "table",
    "tag_at",
    "target",
    "trust",
    "wanted",
];

/// What a union's viewer also has: its fields and constructor.
const UNION_RESERVED: &[&str] = &["of", "offset", "tag"];

fn unreserved(name: String) -> String {
    unreserved_in(name, &[])
}

fn unreserved_in(name: String, more: &[&str]) -> String {
    if RESERVED.contains(&name.as_str()) || more.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        // A declaration may not take a primitive's name (`u8`), which a
        // field may: `@"u8"`.
        super::ident(&name)
    }
}

/// The accessor of field `j` of struct `id` (`Gen::view_field`).
pub(crate) fn accessor_of(n: &crate::names::Namer, id: StructId, j: usize) -> String {
    unreserved(n.field(id, j))
}

/// The name of a viewer accessor for field `name` (the decoded struct's
/// field name, `_` added to a name the viewers use themselves), for code
/// outside the generator (the Zig vector runner).
pub fn accessor_name(field: &str) -> String {
    unreserved(super::field_name(field))
}

/// The name of a union viewer's accessor of the variant of struct `name`.
pub fn variant_accessor_name(name: &str) -> String {
    unreserved_in(super::field_name(name), UNION_RESERVED)
}

/// Where an accessor reads: the local holding its slot's position (0:
/// absent) and the reader expression.
pub(crate) struct ZAt {
    at: String,
    r: String,
}

/// An accessor's return type and body (statements, each line at the
/// body's indentation), once its slot's position is in the local `at`.
/// For a number, `bool` or enum, also the element type of a native slice
/// of such values (an SoA column's `f_column`; `u8` for `bool`s), and
/// what an in-place setter writes where the slot is a table field.
#[derive(Default)]
pub(crate) struct ZAcc {
    ty: String,
    body: Vec<String>,
    pub(crate) slice: Option<String>,
    pub(crate) edit: Option<ZEdit>,
}

/// What the in-place setters of a table field write (format.md §12;
/// `edit.rs`), as C's `CEdit`.
pub(crate) enum ZEdit {
    /// A number, `bool` or enum of Zig type `ty`.
    Scalar { ty: String },
    /// The elements (Zig type `elem`) of a plain array in place, and its
    /// length within its capacity and `limit`.
    Slice {
        elem: String,
        elem_size: u32,
        limit: Option<u32>,
    },
}

/// The view of an array block: its type (inside a generic viewer, over
/// `R`), the expression making it from a reader `$r` and a checked
/// reference `$a`, the name part naming an array of arrays of it, and the
/// view type it needs declared when it is not one per struct or union.
pub(crate) struct ZView {
    ty: String,
    make: String,
    base: String,
    shape: Option<Shape>,
    map_entry: Option<StructId>,
    /// A plain array's element type, writable in place (`editF`).
    edit: Option<String>,
}

impl ZView {
    fn new(ty: String, make: String, base: String) -> Self {
        ZView {
            ty,
            make,
            base,
            shape: None,
            map_entry: None,
            edit: None,
        }
    }

    fn make(&self, r: &str, a: &str) -> String {
        self.make.replace("$r", r).replace("$a", a)
    }
}

/// A view type of an array shape that is not one per struct or union.
enum Shape {
    Arrays { array: ArrayType, data: ArrayData },
    Bunch { id: UnionId, soa: bool },
}

/// The name part of an array block `base` under a `[<N]T` limit.
fn stem(base: &str, limit: Option<u32>) -> String {
    match limit {
        Some(n) => format!("{base}Max{n}"),
        None => base.to_string(),
    }
}

impl Gen<'_> {
    // ---- names -----------------------------------------------------------

    /// `AccountDataViewOf(R)`.
    fn view_of(&self, id: StructId) -> String {
        format!("{}ViewOf(R)", self.n.struct_name(id))
    }
    fn union_view_of(&self, id: UnionId) -> String {
        format!("{}ViewOf(R)", self.n.union_name(id))
    }
    fn view_field(&self, id: StructId, i: usize) -> String {
        accessor_of(&self.n, id, i)
    }
    fn view_variant(&self, ty: StructId) -> String {
        unreserved_in(self.n.variant_member(ty), UNION_RESERVED)
    }

    /// The accessor of a bunch array's variant of tag `tag` (the tag added
    /// when the union lists the struct twice).
    fn bunch_variant(&self, id: UnionId, tag: u32) -> String {
        let u = &self.s.unions[id];
        let v = u.variants.iter().find(|v| v.tag == tag).expect("a variant");
        let twice = u.variants.iter().filter(|w| w.ty == v.ty).count() > 1;
        let m = self.view_variant(v.ty);
        if twice {
            format!("{m}_{tag}")
        } else {
            m
        }
    }

    /// Arrays of arrays and bunch arrays of the schema, by view name.
    fn array_shapes(&self) -> BTreeMap<String, Shape> {
        let mut out = BTreeMap::new();
        for (array, data) in self.l.array_blocks() {
            let v = view_array(self, array, data, array);
            if let Some(shape) = v.shape {
                out.insert(v.ty, shape);
            }
        }
        out
    }

    /// Entry structs of maps.
    fn map_entries(&self) -> BTreeSet<StructId> {
        self.l
            .array_blocks()
            .into_iter()
            .filter_map(|(array, data)| view_array(self, array, data, array).map_entry)
            .collect()
    }

    // ---- the file's part ---------------------------------------------------

    /// The viewers of every struct and union, and of every array shape the
    /// schema uses.
    pub(crate) fn views(&mut self) {
        let shapes = self.array_shapes();
        let maps = self.map_entries();
        let bunches: BTreeSet<(UnionId, bool)> = shapes
            .values()
            .filter_map(|s| match s {
                Shape::Bunch { id, soa } => Some((*id, *soa)),
                Shape::Arrays { .. } => None,
            })
            .collect();
        for id in 0..self.s.structs.len() {
            self.struct_views(id, maps.contains(&id));
        }
        for id in 0..self.s.unions.len() {
            self.union_views(id, &bunches);
        }
        for (name, shape) in &shapes {
            if let Shape::Arrays { array, data } = shape {
                self.arrays_view(name.trim_end_matches("(R)"), array, data);
            }
        }
    }

    /// `pub const XView = XViewOf(karmem.Reader);` and the trusted one.
    fn aliases(&mut self, name: &str) {
        self.c.line("");
        self.c.line(&format!(
            "pub const {name}View = {name}ViewOf(karmem.Reader);"
        ));
        self.c.line(&format!(
            "pub const Trusted{name}View = {name}ViewOf(karmem.Trusted);"
        ));
    }

    /// `pub fn name(param) ty { const at: u32 = pos; body }`.
    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        doc: &[String],
        name: &str,
        param: &str,
        r: &str,
        pos: &str,
        slot: &Slot,
        d: Option<&DefaultValue>,
    ) -> Option<ZEdit> {
        let at = ZAt {
            at: "slot".into(),
            r: r.into(),
        };
        let acc = view_slot(self, slot, &at, d);
        self.c.line("");
        self.doc(doc);
        self.c
            .open(&format!("pub fn {name}({param}) {} {{", acc.ty));
        self.c.line(&format!("const slot: u32 = {pos};"));
        for l in &acc.body {
            self.c.line(l);
        }
        self.c.close("}");
        acc.edit
    }

    fn struct_views(&mut self, id: StructId, map: bool) {
        let name = self.n.struct_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.l.is_table(id);
        let sname = self.s.structs[id].name.clone();
        self.c.line("");
        let what = if table { "table" } else { "inline struct" };
        self.c.line(&format!(
            "/// Reads the {what} `{sname}` in place (docs/zig.md, \"Viewers\"): `R` is"
        ));
        self.c.line(&format!(
            "/// `karmem.Reader` (`{name}View`: malformed or absent data reads as zero or"
        ));
        self.c.line(&format!(
            "/// the declared default) or `karmem.Trusted` (`Trusted{name}View`, from"
        ));
        self.c
            .line(&format!("/// `{name}View.trust`: a validated message)."));
        self.c
            .open(&format!("pub fn {name}ViewOf(comptime R: type) type {{"));
        self.c.open("return struct {");
        self.c.line("reader: R,");
        if table {
            self.c.line("table: karmem.Table,");
        } else {
            self.c.line("position: u32,");
        }
        self.c.line("");
        self.c.line("const Self = @This();");
        self.c.line("");
        self.c
            .line("/// The root of the message `reader` (`karmem.Reader.open`).");
        self.c.open("pub fn root(reader: R) Self {");
        if table {
            self.c
                .line("return .{ .reader = reader, .table = reader.root() };");
        } else {
            // An inline root that does not fit reads as a whole as zero,
            // as the decoders read it (format.md §1).
            self.c.line(&format!(
                "return .{{ .reader = reader, .position = if (reader.size() >= {}) {HEADER_SIZE} else 0 }};",
                HEADER_SIZE + sl.size
            ));
        }
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Validates the message (docs/format.md §11), then views its root");
        self.c.line("/// without the checks the validation made.");
        self.c.open(&format!(
            "pub fn trust(reader: karmem.Reader) ValidateError!{name}ViewOf(karmem.Trusted) {{"
        ));
        self.c.line(&format!("try {name}.validate(reader);"));
        self.c.line(&format!(
            "return {name}ViewOf(karmem.Trusted).root(karmem.Trusted.assumeValid(reader));"
        ));
        self.c.close("}");
        self.field_offsets(id);
        for (i, fl) in sl.fields.iter().enumerate() {
            let pos = if table {
                format!(
                    "if (self.table.has({off}, {size})) self.table.offset + {off} else 0",
                    off = fl.offset,
                    size = self.l.slot_size(&fl.slot)
                )
            } else if fl.offset == 0 {
                "self.position".to_string()
            } else {
                format!(
                    "if (self.position != 0) self.position + {} else 0",
                    fl.offset
                )
            };
            let field = self.s.structs[id].fields[i].clone();
            let fname = self.view_field(id, i);
            let edit = self.accessor(
                &field.doc,
                &fname,
                "self: Self",
                "self.reader",
                &pos,
                &fl.slot,
                field.nonzero_default(),
            );
            // Setters of table fields only, as Go's and C's.
            if let Some(edit) = edit.filter(|_| table) {
                self.setters(id, i, &edit);
            }
        }
        // The AoS array of these: offsets to tables or the structs packed.
        self.c.line("");
        self.c.line(&format!(
            "/// An AoS array of `{sname}` (a checked reference: `offset`, `n` elements)."
        ));
        self.c.open("pub const Array = struct {");
        self.c.line("reader: R,");
        self.c.line("offset: u32,");
        self.c.line("n: u32,");
        self.c.line("");
        self.c.line("/// The number of elements.");
        self.c.open("pub fn len(self: Array) u32 {");
        self.c.line("return self.n;");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Element `index` (absent, reading as zero, when `index` is out of range).");
        self.c.open("pub fn at(self: Array, index: u32) Self {");
        if table {
            self.c.line(&format!(
                "return .{{ .reader = self.reader, .table = karmem.views.tableAt(self.reader, if (index < self.n) self.offset + index * {OFFSET_SIZE} else 0) }};"
            ));
        } else {
            self.c.line(&format!(
                "return .{{ .reader = self.reader, .position = if (index < self.n) self.offset + index * {} else 0 }};",
                sl.size
            ));
        }
        self.c.close("}");
        if map {
            self.map_get(id);
        }
        self.c.close("};");
        if self.l.soa[id].is_some() {
            self.soa_views(id);
        }
        self.c.close("};");
        self.c.close("}");
        self.aliases(&name);
    }

    /// `get`: a map's entry by key, by binary search over the keys in
    /// order (format.md §5.5); a map whose keys are out of order (not
    /// valid) may not find a key it holds, but never reads outside it.
    fn map_get(&mut self, id: StructId) {
        let key_slot = self.l.of_struct(id).fields[0].slot.clone();
        let kt = view_slot(
            self,
            &key_slot,
            &ZAt {
                at: "at".into(),
                r: "reader".into(),
            },
            None,
        )
        .ty;
        let key = self.view_field(id, 0);
        self.c.line("");
        self.c
            .line("/// The entry with `wanted`, or null (a binary search: format.md §5.5).");
        self.c
            .open(&format!("pub fn get(self: Array, wanted: {kt}) ?Self {{"));
        self.c.line("var low: u32 = 0;");
        self.c.line("var high: u32 = self.n;");
        self.c.open("while (low < high) {");
        self.c.line("const middle = low + (high - low) / 2;");
        self.c.line("const entry = self.at(middle);");
        self.c.open(&format!(
            "switch (karmem.orderKeys({kt}, entry.{key}(), wanted)) {{"
        ));
        self.c.line(".lt => low = middle + 1,");
        self.c.line(".gt => high = middle,");
        self.c.line(".eq => return entry,");
        self.c.close("}");
        self.c.close("}");
        self.c.line("return null;");
        self.c.close("}");
    }

    // ---- SoA arrays -------------------------------------------------------

    /// The nodes of an SoA element's flattening tree: the element (empty
    /// path) and every struct on a column path, with the struct there.
    fn soa_nodes(&self, id: StructId) -> BTreeMap<Vec<u32>, StructId> {
        let mut nodes = BTreeMap::new();
        nodes.insert(Vec::new(), id);
        for col in &self.l.soa(id).columns {
            for d in 1..col.path.len() {
                nodes.insert(col.path[..d].to_vec(), col.steps[d]);
            }
        }
        nodes
    }

    /// The field names along `path` (a column's or a prefix of one).
    fn path_names(&self, id: StructId, path: &[u32]) -> Vec<String> {
        let col = self
            .l
            .soa(id)
            .columns
            .iter()
            .find(|c| c.path.starts_with(path))
            .expect("a path of the flattening tree");
        col.steps
            .iter()
            .zip(path)
            .map(|(s, i)| self.n.field(*s, *i as usize))
            .collect()
    }

    /// The view type of node `path` of an SoA element (`SoaItem` for the
    /// element itself).
    fn soa_node(&self, id: StructId, path: &[u32]) -> String {
        if path.is_empty() {
            "SoaItem".into()
        } else {
            format!("SoaNode{}", type_name(&self.path_names(id, path).join("_")))
        }
    }

    fn soa_views(&mut self, id: StructId) {
        let soa = self.l.soa(id).clone();
        let sname = self.s.structs[id].name.clone();
        let n = soa.columns.len();
        self.c.line("");
        self.c.line(&format!(
            "/// An SoA array of `{sname}`: its columns resolved once (format.md §5.3)."
        ));
        self.c.open("pub const Soa = struct {");
        self.c.line("reader: R,");
        self.c.line("n: u32,");
        self.c.line(&format!("cols: [{n}]u32,"));
        self.c.line("");
        self.c
            .open("pub fn of(reader: R, array: karmem.ArrayRef) Soa {");
        let line = format!(
            "return .{{ .reader = reader, .n = karmem.views.soaLen(reader, array), .cols = reader.soa(&{}, array) }};",
            self.soa_columns(id)
        );
        self.c.line(&line);
        self.c.close("}");
        self.c.line("");
        self.c.line("/// The number of elements.");
        self.c.open("pub fn len(self: Soa) u32 {");
        self.c.line("return self.n;");
        self.c.close("}");
        self.c.line("");
        self.c.line(
            "/// Element `index` (its fields read as defaults when `index` is out of range).",
        );
        self.c.open("pub fn at(self: Soa, index: u32) SoaItem {");
        self.c.line(
            "if (index >= self.n) return .{ .soa = .{ .reader = self.reader, .n = 0, .cols = @splat(0) }, .index = 0 };",
        );
        self.c.line("return .{ .soa = self, .index = index };");
        self.c.close("}");
        for (k, col) in soa.columns.iter().enumerate() {
            let at = ZAt {
                at: "slot".into(),
                r: "self.reader".into(),
            };
            let Some(ty) = view_slot(self, &col.slot, &at, None).slice else {
                continue;
            };
            let path = self.path_names(id, &col.path).join(".");
            let name = super::edit::column_name(self.s, self.l, id, k);
            self.c.line("");
            self.c.line(&format!(
                "/// Column `{path}` as a native slice of `len()` elements in the message;"
            ));
            self.c.line(
                "/// null when it cannot be one (`karmem.views.column`: an absent column, whose",
            );
            self.c
                .line("/// elements read the default): read `at(i)` then.");
            if col.slot == Slot::Scalar(Primitive::Bool) {
                self.c.line("/// Bytes: any non-zero byte is true.");
            }
            self.c
                .open(&format!("pub fn {name}(self: Soa) ?[]const {ty} {{"));
            self.c.line(&format!(
                "return karmem.views.column(self.reader, {ty}, self.cols[{k}], self.n);"
            ));
            self.c.close("}");
        }
        self.c.close("};");
        let nodes = self.soa_nodes(id);
        for (prefix, sid) in &nodes {
            let node = self.soa_node(id, prefix);
            self.c.line("");
            self.c.open(&format!("pub const {node} = struct {{"));
            self.c.line("soa: Soa,");
            self.c.line("index: u32,");
            for fi in 0..self.s.structs[*sid].fields.len() {
                let mut path = prefix.clone();
                path.push(fi as u32);
                let fname = self.view_field(*sid, fi);
                if nodes.contains_key(&path) {
                    let child = self.soa_node(id, &path);
                    self.c.line("");
                    self.c
                        .open(&format!("pub fn {fname}(self: {node}) {child} {{"));
                    self.c
                        .line("return .{ .soa = self.soa, .index = self.index };");
                    self.c.close("}");
                } else if let Some(k) = soa.columns.iter().position(|c| c.path == path) {
                    let col = &soa.columns[k];
                    let pos = format!(
                        "if (self.soa.cols[{k}] != 0) self.soa.cols[{k}] + self.index * {} else 0",
                        col.size
                    );
                    let d = col.field(self.s).nonzero_default().cloned();
                    let slot = col.slot.clone();
                    self.accessor(
                        &[],
                        &fname,
                        &format!("self: {node}"),
                        "self.soa.reader",
                        &pos,
                        &slot,
                        d.as_ref(),
                    );
                }
            }
            self.c.close("};");
        }
    }

    // ---- unions -----------------------------------------------------------

    fn union_views(&mut self, id: UnionId, bunches: &BTreeSet<(UnionId, bool)>) {
        let u = self.s.unions[id].clone();
        let name = self.n.union_name(id);
        let tag_ty = prim(u.tag);
        self.c.line("");
        self.c.line(&format!(
            "/// Reads a value of the union `{}` in place: its `tag` (0: no value; a tag",
            u.name
        ));
        self.c
            .line("/// this schema does not know reads as itself) and each variant's viewer,");
        self.c
            .line("/// which reads as zero when the tag is another. `R` as for structs.");
        self.c
            .open(&format!("pub fn {name}ViewOf(comptime R: type) type {{"));
        self.c.open("return struct {");
        self.c.line("reader: R,");
        self.c.line("tag: u32,");
        self.c.line("offset: u32,");
        self.c.line("");
        self.c.line("const Self = @This();");
        self.c.line("");
        self.c.line(
            "/// The value whose tag is at `tag_at` and offset at `offset_at` (`tag_at` 0: none).",
        );
        self.c
            .open("pub fn of(reader: R, tag_at: u32, offset_at: u32) Self {");
        self.c
            .line("if (tag_at == 0) return .{ .reader = reader, .tag = 0, .offset = 0 };");
        self.c.line(&format!(
            "const got: Self = .{{ .reader = reader, .tag = reader.load({tag_ty}, tag_at), .offset = reader.load(u32, offset_at) }};"
        ));
        // A known inline variant whose value cannot be read reads as no
        // value, as the decoders read it.
        for v in u.variants.iter().filter(|v| !self.l.is_table(v.ty)) {
            self.c.line(&format!(
                "if (got.tag == {} and !karmem.views.inlineAt(reader, got.offset, {})) return .{{ .reader = reader, .tag = 0, .offset = 0 }};",
                v.tag,
                self.l.of_struct(v.ty).size
            ));
        }
        self.c.line("return got;");
        self.c.close("}");
        let mut seen = BTreeSet::new();
        for v in &u.variants {
            if !seen.insert(v.ty) {
                continue;
            }
            let tags: Vec<String> = u
                .variants
                .iter()
                .filter(|w| w.ty == v.ty)
                .map(|w| format!("self.tag == {}", w.tag))
                .collect();
            let cond = tags.join(" or ");
            self.c.line("");
            let line = format!(
                "pub fn {}(self: Self) {} {{",
                self.view_variant(v.ty),
                self.view_of(v.ty)
            );
            self.c.open(&line);
            if self.l.is_table(v.ty) {
                self.c.line(&format!(
                    "return .{{ .reader = self.reader, .table = if ({cond}) self.reader.table(self.offset) else .absent }};"
                ));
            } else {
                self.c.line(&format!(
                    "return .{{ .reader = self.reader, .position = if ({cond}) self.offset else 0 }};"
                ));
            }
            self.c.close("}");
        }
        // AoS and SoA arrays of the union: slots, or two columns.
        let tw = u.tag.size();
        self.c.line("");
        self.c.line(&format!(
            "/// An AoS (`aos`) or SoA (`soa`) array of `{}`.",
            u.name
        ));
        self.c.open("pub const Array = struct {");
        for f in [
            "reader: R,",
            "n: u32,",
            "tags: u32,",
            "tag_stride: u32,",
            "offsets: u32,",
            "offset_stride: u32,",
        ] {
            self.c.line(f);
        }
        self.c.line("");
        self.c
            .open("pub fn aos(reader: R, array: karmem.ArrayRef) Array {");
        self.c.line(&format!(
            "return .{{ .reader = reader, .n = array.len, .tags = array.offset, .tag_stride = {UNION_SLOT_SIZE}, .offsets = array.offset + {UNION_OFFSET_AT}, .offset_stride = {UNION_SLOT_SIZE} }};"
        ));
        self.c.close("}");
        self.c.line("");
        self.c
            .open("pub fn soa(reader: R, array: karmem.ArrayRef) Array {");
        self.c.line(&format!(
            "const columns = reader.unionColumns(array, {tw}) orelse return .{{ .reader = reader, .n = 0, .tags = 0, .tag_stride = {tw}, .offsets = 0, .offset_stride = {OFFSET_SIZE} }};"
        ));
        self.c.line(&format!(
            "return .{{ .reader = reader, .n = array.len, .tags = columns.tags, .tag_stride = {tw}, .offsets = columns.offsets, .offset_stride = {OFFSET_SIZE} }};"
        ));
        self.c.close("}");
        self.c.line("");
        self.c.line("/// The number of elements.");
        self.c.open("pub fn len(self: Array) u32 {");
        self.c.line("return self.n;");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Element `index` (no value when `index` is out of range).");
        self.c.open("pub fn at(self: Array, index: u32) Self {");
        self.c
            .line("if (index >= self.n) return Self.of(self.reader, 0, 0);");
        self.c.line(
            "return Self.of(self.reader, self.tags + index * self.tag_stride, self.offsets + index * self.offset_stride);",
        );
        self.c.close("}");
        self.c.close("};");
        for soa in [false, true] {
            if bunches.contains(&(id, soa)) {
                self.bunch_view(id, soa);
            }
        }
        self.c.close("};");
        self.c.close("}");
        self.aliases(&name);
    }

    /// A `#bovoa`/`#bovos` array: the length, and each variant's values as
    /// an AoS or SoA array of their own.
    fn bunch_view(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let ty = if soa { "Bovos" } else { "Bovoa" };
        self.c.line("");
        self.c.line(&format!(
            "/// A #{} array of `{}`: one homogeneous array per variant (format.md §7.1).",
            ty.to_lowercase(),
            u.name
        ));
        self.c.open(&format!("pub const {ty} = struct {{"));
        self.c.line("reader: R,");
        self.c.line("array: karmem.ArrayRef,");
        self.c.line("");
        self.c.line("/// The number of values of all variants.");
        self.c.open(&format!("pub fn len(self: {ty}) u32 {{"));
        self.c.line("return self.array.len;");
        self.c.close("}");
        for v in &u.variants {
            let data = self.l.bunch_variant_data(v.ty, soa);
            let entry = format!(
                "karmem.views.bunchEntry(self.reader, self.array, {}, {})",
                v.tag,
                data.elem_size()
            );
            self.c.line("");
            self.c.line(&format!(
                "/// The `{}` values (the first entry of tag {}).",
                self.s.structs[v.ty].name, v.tag
            ));
            let vt = self.view_of(v.ty);
            let m = self.bunch_variant(id, v.tag);
            if soa {
                self.c.open(&format!("pub fn {m}(self: {ty}) {vt}.Soa {{"));
                self.c
                    .line(&format!("return {vt}.Soa.of(self.reader, {entry});"));
            } else {
                self.c
                    .open(&format!("pub fn {m}(self: {ty}) {vt}.Array {{"));
                self.c.line(&format!("const entry = {entry};"));
                self.c.line(
                    "return .{ .reader = self.reader, .offset = entry.offset, .n = entry.len };",
                );
            }
            self.c.close("}");
        }
        self.c.close("};");
    }

    /// An array of arrays: each element the view of the inner array.
    fn arrays_view(&mut self, name: &str, inner: &ArrayType, data: &ArrayData) {
        let v = view_array(self, inner, data, inner);
        self.c.line("");
        self.c.line(
            "/// An array of arrays (format.md §5.4): element `index` is the view of an array.",
        );
        self.c
            .open(&format!("pub fn {name}(comptime R: type) type {{"));
        self.c.open("return struct {");
        self.c.line("reader: R,");
        self.c.line("array: karmem.ArrayRef,");
        self.c.line("");
        self.c.line("const Self = @This();");
        self.c.line("");
        self.c.line("/// The number of elements.");
        self.c.open("pub fn len(self: Self) u32 {");
        self.c.line("return self.array.len;");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Element `index` (empty when `index` is out of range).");
        self.c
            .open(&format!("pub fn at(self: Self, index: u32) {} {{", v.ty));
        self.c.line(&format!(
            "const array = karmem.views.arrayAt(self.reader, if (index < self.array.len) self.array.offset + index * {ARRAY_REF_SIZE} else 0, {}, {});",
            data.elem_size(),
            limit_arg(inner.limit())
        ));
        self.c
            .line(&format!("return {};", v.make("self.reader", "array")));
        self.c.close("}");
        self.c.close("};");
        self.c.close("}");
    }

    /// A number, `bool` or enum of Zig type `ty`: its zero, or the declared
    /// default, when absent.
    fn scalar_acc(&self, ty: String, zero: &str, slice: &str, at: &ViewAt<ZAt>) -> ZAcc {
        let absent = at
            .default
            .map(|d| self.default_expr(at.slot, d))
            .unwrap_or_else(|| zero.to_string());
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        ZAcc {
            body: vec![
                format!("if ({a} == 0) return {absent};"),
                format!("return {r}.load({ty}, {a});"),
            ],
            slice: Some(slice.to_string()),
            edit: Some(ZEdit::Scalar { ty: ty.clone() }),
            ty,
        }
    }
}

impl ViewPrinter for Gen<'_> {
    type Ctx = ZAt;
    type Accessor = ZAcc;
    /// The array whose block is viewed (its limit names an array of
    /// arrays).
    type Arg = ArrayType;
    type View = ZView;

    fn view_bool(&self, at: &ViewAt<ZAt>) -> ZAcc {
        self.scalar_acc("bool".into(), "false", "u8", at)
    }

    fn view_number(&self, p: Primitive, at: &ViewAt<ZAt>) -> ZAcc {
        self.scalar_acc(prim(p).into(), "0", prim(p), at)
    }

    fn view_enum(&self, id: EnumId, _: Primitive, at: &ViewAt<ZAt>) -> ZAcc {
        let e = self.n.enum_name(id);
        self.scalar_acc(e.clone(), "@fromBackingInt(0)", &e, at)
    }

    fn view_inline(&self, id: StructId, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        ZAcc {
            ty: self.view_of(id),
            body: vec![format!("return .{{ .reader = {r}, .position = {a} }};")],
            ..ZAcc::default()
        }
    }

    fn view_table(&self, id: StructId, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        ZAcc {
            ty: self.view_of(id),
            body: vec![format!(
                "return .{{ .reader = {r}, .table = karmem.views.tableAt({r}, {a}) }};"
            )],
            ..ZAcc::default()
        }
    }

    fn view_optional_table(&self, id: StructId, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        ZAcc {
            ty: format!("?{}", self.view_of(id)),
            body: vec![
                format!("const target: u32 = if ({a} == 0) 0 else {r}.load(u32, {a});"),
                "if (target == 0) return null;".into(),
                format!("return .{{ .reader = {r}, .table = {r}.table(target) }};"),
            ],
            ..ZAcc::default()
        }
    }

    fn view_optional(&self, value_at: u32, value: &Slot, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        let inner = view_slot(
            self,
            value,
            &ZAt {
                at: "slot_v".into(),
                r: r.clone(),
            },
            None,
        );
        let mut body = vec![
            format!("if ({a} == 0 or !{r}.load(bool, {a})) return null;"),
            format!("const slot_v: u32 = {a} + {value_at};"),
        ];
        body.extend(inner.body);
        ZAcc {
            ty: format!("?{}", inner.ty),
            body,
            ..ZAcc::default()
        }
    }

    fn view_union(&self, id: UnionId, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        let ty = self.union_view_of(id);
        ZAcc {
            body: vec![format!(
                "return {ty}.of({r}, {a}, if ({a} == 0) 0 else {a} + {UNION_OFFSET_AT});"
            )],
            ty,
            ..ZAcc::default()
        }
    }

    fn view_fixed(&self, elem: FixedElem, len: u32, stride: u32, at: &ViewAt<ZAt>) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        let (et, zero, read) = match elem {
            FixedElem::Scalar(p) => {
                let t = prim(p).to_string();
                let zero = if p == Primitive::Bool { "false" } else { "0" };
                let read = format!("elem.* = {r}.load({t}, {a} + idx(j) * {stride})");
                (t, zero.to_string(), read)
            }
            FixedElem::Enum { id, .. } => {
                let t = self.n.enum_name(id);
                let read = format!("elem.* = {r}.load({t}, {a} + idx(j) * {stride})");
                (t, "@fromBackingInt(0)".to_string(), read)
            }
            FixedElem::InlineStruct(id) => (
                self.view_of(id),
                format!(".{{ .reader = {r}, .position = 0 }}"),
                format!("elem.position = {a} + idx(j) * {stride}"),
            ),
        };
        ZAcc {
            ty: format!("[{len}]{et}"),
            body: vec![
                format!("var elems: [{len}]{et} = @splat({zero});"),
                format!("if ({a} == 0) return elems;"),
                format!("for (&elems, 0..) |*elem, j| {read};"),
                "return elems;".into(),
            ],
            ..ZAcc::default()
        }
    }

    fn view_array_ref(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        elem_size: u32,
        limit: Option<u32>,
        at: &ViewAt<ZAt>,
    ) -> ZAcc {
        let (a, r) = (&at.ctx.at, &at.ctx.r);
        let v = view_array(self, array, data, array);
        let mut body = Vec::new();
        if let Some(d) = at.default {
            body.push(format!(
                "if ({a} == 0) return {};",
                self.default_expr(at.slot, d)
            ));
        }
        body.push(format!(
            "const array = karmem.views.arrayAt({r}, {a}, {elem_size}, {});",
            limit_arg(limit)
        ));
        body.push(format!("return {};", v.make(r, "array")));
        ZAcc {
            ty: v.ty,
            body,
            edit: v.edit.map(|elem| ZEdit::Slice {
                elem,
                elem_size,
                limit,
            }),
            ..ZAcc::default()
        }
    }

    fn view_text(&self, utf16: bool, _: &ArrayType) -> ZView {
        if utf16 {
            ZView::new(
                "[]const u16".into(),
                "$r.arraySlice(u16, $a)".into(),
                "Utf16".into(),
            )
        } else {
            ZView::new("[]const u8".into(), "$r.string($a)".into(), "Text".into())
        }
    }

    fn view_plain(&self, elem: ElemType, _: u32, _: &ArrayType) -> ZView {
        match elem {
            // Bytes: a hostile byte 2 is not a Zig `bool` (docs/zig.md).
            ElemType::Scalar(Primitive::Bool) => ZView {
                edit: Some("u8".into()),
                ..ZView::new("[]const u8".into(), "$r.bytes($a)".into(), "Bool".into())
            },
            ElemType::Scalar(p) => ZView {
                edit: Some(prim(p).into()),
                ..ZView::new(
                    format!("[]const {}", prim(p)),
                    format!("$r.arraySlice({}, $a)", prim(p)),
                    type_name(prim(p)),
                )
            },
            ElemType::Enum(id) => {
                let e = self.n.enum_name(id);
                ZView {
                    edit: Some(e.clone()),
                    ..ZView::new(format!("[]const {e}"), format!("$r.arraySlice({e}, $a)"), e)
                }
            }
            _ => unreachable!("plain arrays hold scalars and enums"),
        }
    }

    fn view_nested(
        &self,
        inner: &ArrayType,
        data: &ArrayData,
        _: u32,
        _: Option<u32>,
        outer: &ArrayType,
    ) -> ZView {
        let elems = view_array(self, inner, data, inner);
        let base = format!("{}Arrays", stem(&elems.base, inner.limit()));
        let name = format!("{}Of", stem(&base, outer.limit()));
        ZView {
            shape: Some(Shape::Arrays {
                array: *inner,
                data: data.clone(),
            }),
            ..ZView::new(
                format!("{name}(R)"),
                ".{ .reader = $r, .array = $a }".into(),
                base,
            )
        }
    }

    fn view_aos_inline(&self, id: StructId, _: u32, _: &ArrayType) -> ZView {
        self.struct_array_view(id)
    }

    fn view_map(&self, id: StructId, _: u32, _: &ArrayType) -> ZView {
        ZView {
            map_entry: Some(id),
            ..self.struct_array_view(id)
        }
    }

    fn view_aos_table(&self, id: StructId, _: &ArrayType) -> ZView {
        self.struct_array_view(id)
    }

    fn view_soa(&self, elem: StructId, _: &ArrayType) -> ZView {
        let v = self.view_of(elem);
        ZView::new(
            format!("{v}.Soa"),
            format!("{v}.Soa.of($r, $a)"),
            format!("{}Soa", self.n.struct_name(elem)),
        )
    }

    fn view_union_aos(&self, id: UnionId, _: &ArrayType) -> ZView {
        self.union_array_view(id, "aos")
    }

    fn view_union_soa(&self, id: UnionId, _: u32, _: &ArrayType) -> ZView {
        self.union_array_view(id, "soa")
    }

    fn view_bunch(&self, id: UnionId, soa: bool, _: &ArrayType) -> ZView {
        let kind = if soa { "Bovos" } else { "Bovoa" };
        let u = self.n.union_name(id);
        ZView {
            shape: Some(Shape::Bunch { id, soa }),
            ..ZView::new(
                format!("{u}ViewOf(R).{kind}"),
                ".{ .reader = $r, .array = $a }".into(),
                format!("{u}{kind}"),
            )
        }
    }
}

impl Gen<'_> {
    /// The AoS array of struct `id` (tables or inline structs).
    fn struct_array_view(&self, id: StructId) -> ZView {
        ZView::new(
            format!("{}.Array", self.view_of(id)),
            ".{ .reader = $r, .offset = $a.offset, .n = $a.len }".into(),
            self.n.struct_name(id),
        )
    }

    /// An AoS or SoA (`layout`) array of union `id`.
    fn union_array_view(&self, id: UnionId, layout: &str) -> ZView {
        let v = self.union_view_of(id);
        ZView::new(
            format!("{v}.Array"),
            format!("{v}.Array.{layout}($r, $a)"),
            self.n.union_name(id),
        )
    }
}

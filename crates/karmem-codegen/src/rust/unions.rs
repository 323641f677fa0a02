//! Unions: the value enum with its slot writer, decoder and validator, the
//! view enum, the AoS/SoA array view, and bunch (`#bovoa` / `#bovos`)
//! arrays.

use karmem_layout::{
    BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE, OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{as_u32, bunch_accessor, mul, rust_prim, Gen};

impl Gen<'_> {
    pub(super) fn union_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let view = self.union_view(id);
        let tag_ty = rust_prim(u.tag);
        self.c.doc(&u.doc);
        self.c.line(&format!(
            "/// A value of union `{}` (object API; `None` is tag 0).",
            u.name
        ));
        self.c.line("#[derive(Clone, Debug, PartialEq)]");
        if self.serde {
            self.c
                .line("#[derive(serde::Serialize, serde::Deserialize)]");
        }
        self.c.open(&format!("pub enum {value} {{"));
        for v in &u.variants {
            let ty = self.n.struct_name(v.ty);
            if self.serde && ty != self.s.structs[v.ty].name {
                self.c.line(&format!(
                    "#[serde(rename = \"{}\")]",
                    self.s.structs[v.ty].name
                ));
            }
            self.c.line(&format!("{ty}({ty}),"));
        }
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!("impl {value} {{"));
        self.c.line(&format!(
            "pub const TAGS: [u32; {}] = [{}];",
            u.variants.len(),
            u.variants
                .iter()
                .map(|v| v.tag.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn write_slot(v: &Option<Self>, w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
        self.c.line(&format!(
            "Self::write_parts(v, w, at, at + {UNION_OFFSET_AT})"
        ));
        self.c.close("}");
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn write_parts(v: &Option<Self>, w: &mut karmem::Writer, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.c.open("match v {");
        self.c.line("None => {}");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            self.c.open(&format!("Some(Self::{ty}(x)) => {{"));
            self.c
                .line(&format!("w.put::<{tag_ty}>(tag_at, {});", var.tag));
            if self.l.is_table(var.ty) {
                self.c.line("let child = x.write(w)?;");
            } else {
                self.c.line(&format!(
                    "let child = w.alloc({}, {OBJECT_ALIGN})?;",
                    self.l.of_struct(var.ty).size
                ));
                self.c.line("x.write_at(w, child)?;");
            }
            self.c.line("w.put::<u32>(offset_at, child);");
            self.c.close("}");
        }
        self.c.close("}");
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn read_parts(place: &mut Option<Self>, v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.c.line("let r = v.reader;");
        self.c.line(&format!(
            "let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.c.line("let offset = r.get::<u32>(offset_at);");
        self.c.open("match tag {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            if self.l.is_table(var.ty) {
                // A new value is made by `from_table`, which charges a
                // malformed table before building it (format.md §10).
                self.c.open(&format!("{} => match place {{", var.tag));
                self.c.line(&format!(
                    "Some(Self::{ty}(x)) => x.read_table(v, r.table(offset))?,"
                ));
                self.c.line(&format!(
                    "_ => *place = Some(Self::{ty}({ty}::from_table(v, r.table(offset))?)),"
                ));
                self.c.close("},");
                continue;
            }
            let guard = format!(
                " if offset != 0 && offset.is_multiple_of(8) && offset as u64 + {} <= r.size() as u64",
                self.l.of_struct(var.ty).size
            );
            // Charged like a table: its size (format.md §10).
            let read = format!(
                "{{ v.charge({})?; x.read_at(v, offset)? }}",
                self.l.of_struct(var.ty).size
            );
            self.c
                .open(&format!("{}{guard} => match place {{", var.tag));
            self.c.line(&format!("Some(Self::{ty}(x)) => {read},"));
            self.c.open("_ => {");
            self.c.line(&format!("let mut x = {ty}::default();"));
            self.c.line(&format!("{read};"));
            self.c.line(&format!("*place = Some(Self::{ty}(x));"));
            self.c.close("}");
            self.c.close("},");
        }
        self.c.line("_ => *place = None,");
        self.c.close("}");
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn validate_parts(v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.c.line("let r = v.reader;");
        self.c.line(&format!(
            "let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.c.line("let offset = r.get::<u32>(offset_at);");
        self.c.open("match tag {");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            self.c.open(&format!("{} => {{", var.tag));
            if self.l.is_table(var.ty) {
                self.c.open("if offset == 0 {");
                self.c
                    .line("return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.c.close("}");
                self.c
                    .line(&format!("let t = v.table(offset, {ty}::FULL_SIZE)?;"));
                self.c.line(&format!("{ty}::validate_table(v, t)"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.c.open(&format!("if offset == 0 || !offset.is_multiple_of(8) || offset as u64 + {size} > r.size() as u64 {{"));
                self.c
                    .line("return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.c.close("}");
                self.c.line(&format!("v.charge({size})?;"));
                self.c.line(&format!("{ty}::validate_at(v, offset)"));
            }
            self.c.close("}");
        }
        self.c
            .line("// 0 is \"no value\"; unknown tags come from newer writers and are");
        self.c
            .line("// never dereferenced (viewers report them as Unknown).");
        self.c.line("_ => Ok(()),");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");

        // View enum.
        self.c
            .line(&format!("/// Zero-copy view of a `{}` value.", u.name));
        self.c.line("#[derive(Clone, Copy)]");
        self.c.open(&format!(
            "pub enum {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.c.line("None,");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            let view = self.view_name(var.ty);
            self.c.line(&format!("{ty}({view}<'a, M>),"));
        }
        self.c.line("/// A tag this schema version does not know.");
        self.c.line("Unknown(u32),");
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.c.line("#[doc(hidden)]");
        self.c.open(
            "pub fn from_parts(r: karmem::Reader<'a, M>, tag_at: u32, offset_at: u32) -> Self {",
        );
        self.c.line(&format!(
            "let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.c.line("let offset = r.get::<u32>(offset_at);");
        self.c.open("match tag {");
        self.c.line("0 => Self::None,");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            let v = self.view_name(var.ty);
            if self.l.is_table(var.ty) {
                self.c.line(&format!(
                    "{} => Self::{ty}({v} {{ r, t: r.table(offset) }}),",
                    var.tag
                ));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.c.open(&format!("{} => {{", var.tag));
                self.c.line(&format!("let ok = M::TRUSTED || (offset != 0 && offset.is_multiple_of(8) && offset as u64 + {size} <= r.size() as u64);"));
                self.c
                    .line(&format!("Self::{ty}({v} {{ r, at: offset, present: ok }})"));
                self.c.close("}");
            }
        }
        self.c.line("other => Self::Unknown(other),");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");

        // AoS/SoA array view (always generated; small).
        let arr = format!("{}Array", self.n.union_name(id));
        let tw = u.tag.size();
        self.c
            .line(&format!("/// An AoS or SoA array of `{}` values.", u.name));
        self.c.line("#[derive(Clone, Copy)]");
        self.c.open(&format!(
            "pub struct {arr}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.c.line("r: karmem::Reader<'a, M>,");
        self.c.line("len: u32,");
        self.c.line("tags: u32,");
        self.c.line("tag_stride: u32,");
        self.c.line("offsets: u32,");
        self.c.line("offset_stride: u32,");
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {arr}<'a, M> {{"));
        self.c.line("#[doc(hidden)]");
        self.c
            .open("pub fn aos(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.c.line(&format!("{arr} {{ r, len: a.len, tags: a.offset, tag_stride: {UNION_SLOT_SIZE}, offsets: a.offset + {UNION_OFFSET_AT}, offset_stride: {UNION_SLOT_SIZE} }}"));
        self.c.close("}");
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c
            .open("pub fn soa(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.c.open(&format!("match r.union_columns(a, {tw}) {{"));
        self.c.line(&format!("Some((tags, offsets)) => {arr} {{ r, len: a.len, tags, tag_stride: {tw}, offsets, offset_stride: {OFFSET_SIZE} }},"));
        self.c.line(&format!(
            "None => {arr} {{ r, len: 0, tags: 0, tag_stride: 0, offsets: 0, offset_stride: 0 }},"
        ));
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[inline]");
        self.c.open("pub fn len(&self) -> usize {");
        self.c.line("self.len as usize");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[inline]");
        self.c.open("pub fn is_empty(&self) -> bool {");
        self.c.line("self.len == 0");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[inline]");
        self.c.open(&format!(
            "pub fn get(&self, i: usize) -> Option<{view}<'a, M>> {{"
        ));
        self.c.line("let i = i as u32;");
        self.c.line(&format!("(i < self.len).then(|| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!(
            "pub fn iter(&self) -> impl ExactSizeIterator<Item = {view}<'a, M>> + '_ {{"
        ));
        self.c.line(&format!("(0..self.len).map(move |i| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
    }

    /// Writer, reader and view of a bunch (`#bovoa` / `#bovos`) array.
    /// The budget charge of one AoS variant array of a `#bovoa` array
    /// (`sub`): its elements, as the layout charges them (format.md §10).
    fn variant_charge(&mut self, ty: StructId) {
        let per_element = self
            .l
            .decode_charge(&self.l.bunch_variant_data(ty, false))
            .expect("an AoS array is charged per element");
        self.c.line(&format!(
            "v.charge({})?;",
            mul("sub.len as u64", per_element)
        ));
    }

    pub(super) fn bunch_item(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let suffix = if soa { "bovos" } else { "bovoa" };
        let k = u.variants.len();
        self.c.open(&format!("impl {value} {{"));
        self.c.line("#[doc(hidden)]");
        self.c.open(&format!("pub fn write_{suffix}(items: &[Option<Self>], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {{"));
        self.c.line(&format!("let mut counts = [0usize; {k}];"));
        self.c.open("for item in items {");
        self.c.open("match item {");
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(var.ty);
            self.c
                .line(&format!("Some(Self::{ty}(_)) => counts[{i}] += 1,"));
        }
        self.c.line("None => {}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("let total: usize = counts.iter().sum();");
        self.c.open("if total == 0 {");
        self.c.line("w.put_array_ref(at, 0, 0, 0);");
        self.c.line("return Ok(());");
        self.c.close("}");
        self.c
            .line("let entries = counts.iter().filter(|c| **c > 0).count() as u32;");
        self.c.line("let table = w.write_bunch_table(entries)?;");
        self.c
            .line(&format!("let mut entry = table + {BUNCH_ENTRY_SIZE};"));
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.n.struct_name(var.ty);
            let data = self.l.bunch_variant_data(var.ty, soa);
            self.c.open(&format!("if counts[{i}] > 0 {{"));
            self.c.line(&format!("w.put::<u32>(entry, {});", var.tag));
            let iter = format!("items.iter().filter_map(|x| match x {{ Some(Self::{ty}(v)) => Some(v), _ => None }})");
            let count = format!("counts[{i}]");
            let pos = format!("entry + {BUNCH_ENTRY_ARRAY_AT}");
            self.emit(|g, c| g.write_struct_array(c, &data, &iter, &count, &pos));
            self.c.line(&format!("entry += {BUNCH_ENTRY_SIZE};"));
            self.c.close("}");
        }
        self.c.line("let _ = entry;");
        self.c
            .line("w.put_array_ref(at, table, total as u32, total as u32);");
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        self.c.line("#[doc(hidden)]");
        self.c.open(&format!("pub fn read_{suffix}(items: &mut Vec<Option<Self>>, v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {{"));
        self.c.line("let r = v.reader;");
        self.c.line("items.clear();");
        // The table is read once for all variants (format.md §10).
        self.c.line("v.charge_bunch(a)?;");
        for var in &u.variants {
            let ty = self.n.struct_name(var.ty);
            if soa {
                self.c.open("{");
                self.c
                    .line(&format!("let sub = r.bunch_entry(a, {}, 0);", var.tag));
                self.c.line("let mut values = Vec::new();");
                self.c
                    .line(&format!("{ty}::read_soa(&mut values, v, sub)?;"));
                self.c.line(&format!(
                    "items.extend(values.into_iter().map(|x| Some(Self::{ty}(x))));"
                ));
                self.c.close("}");
            } else if self.l.is_table(var.ty) {
                self.c.open("{");
                self.c.line(&format!(
                    "let sub = r.bunch_entry(a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.variant_charge(var.ty);
                self.c.open("for i in 0..sub.len {");
                self.c.line(&format!(
                    "let x = {ty}::from_table(v, r.table(r.get::<u32>(sub.offset + i * {OFFSET_SIZE})))?;"
                ));
                self.c.line(&format!("items.push(Some(Self::{ty}(x)));"));
                self.c.close("}");
                self.c.close("}");
            } else {
                let stride = self.l.of_struct(var.ty).size;
                self.c.open("{");
                self.c.line(&format!(
                    "let sub = r.bunch_entry(a, {}, {stride});",
                    var.tag
                ));
                self.variant_charge(var.ty);
                self.c.open("for i in 0..sub.len {");
                self.c.line(&format!("let mut x = {ty}::default();"));
                self.c.line(&format!(
                    "x.read_at(v, sub.offset + {})?;",
                    mul("i", stride)
                ));
                self.c.line(&format!("items.push(Some(Self::{ty}(x)));"));
                self.c.close("}");
                self.c.close("}");
            }
        }
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        // View.
        let view = format!(
            "{}{}",
            self.n.union_name(id),
            if soa { "Bovos" } else { "Bovoa" }
        );
        self.c.line(&format!(
            "/// A `#{suffix}` array of `{}`: one homogeneous array per variant.",
            u.name
        ));
        self.c.line("#[derive(Clone, Copy)]");
        self.c.open(&format!(
            "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.c.line("r: karmem::Reader<'a, M>,");
        self.c.line("a: karmem::ArrayRef,");
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.c.line("/// Number of values across all variants.");
        self.c.open("pub fn len(&self) -> usize {");
        self.c.line("self.a.len as usize");
        self.c.close("}");
        self.c.line("");
        self.c.open("pub fn is_empty(&self) -> bool {");
        self.c.line("self.a.len == 0");
        self.c.close("}");
        for var in &u.variants {
            let m = bunch_accessor(&self.n, var.ty);
            self.c.line("");
            if soa {
                let sv = self.soa_name(var.ty);
                self.c.open(&format!("pub fn {m}(&self) -> {sv}<'a, M> {{"));
                self.c.line(&format!(
                    "{sv}::new(self.r, self.r.bunch_entry(self.a, {}, 0))",
                    var.tag
                ));
            } else if self.l.is_table(var.ty) {
                let v = self.view_name(var.ty);
                self.c.open(&format!(
                    "pub fn {m}(&self) -> karmem::TableArray<'a, {v}<'a, M>, M> {{"
                ));
                self.c.line(&format!(
                    "let sub = self.r.bunch_entry(self.a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.c
                    .line("karmem::TableArray::new(self.r, sub.offset, sub.len)");
            } else {
                let v = self.view_name(var.ty);
                let stride = self.l.of_struct(var.ty).size;
                self.c.open(&format!(
                    "pub fn {m}(&self) -> karmem::InlineArray<'a, {v}<'a, M>, M> {{"
                ));
                self.c.line(&format!(
                    "let sub = self.r.bunch_entry(self.a, {}, {stride});",
                    var.tag
                ));
                self.c.line(&format!(
                    "karmem::InlineArray::new(self.r, sub.offset, sub.len, {stride})"
                ));
            }
            self.c.close("}");
        }
        self.c.close("}");
        self.c.line("");
    }
}

//! Unions: the value enum with its slot writer, decoder and validator, the
//! view enum, the AoS/SoA array view, and bunch (`#bovoa` / `#bovos`)
//! arrays.

use karmem_layout::{
    ArrayData, ARRAY_ALIGN, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE, OBJECT_ALIGN, OFFSET_SIZE,
    UNION_OFFSET_AT, UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{as_u32, mul, rust_prim, Gen};
use crate::names::{rust_ident, snake};

impl Gen<'_> {
    pub(super) fn union_item(&mut self, id: UnionId) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let view = self.union_view(id);
        let tag_ty = rust_prim(u.tag);
        self.doc(&u.doc);
        self.w(&format!(
            "/// A value of union `{}` (object API; `None` is tag 0).",
            u.name
        ));
        self.w("#[derive(Clone, Debug, PartialEq)]");
        if self.serde {
            self.w("#[derive(serde::Serialize, serde::Deserialize)]");
        }
        self.w(&format!("pub enum {value} {{"));
        for v in &u.variants {
            let ty = self.struct_name(v.ty);
            if self.serde && ty != self.s.structs[v.ty].name {
                self.w(&format!(
                    "    #[serde(rename = \"{}\")]",
                    self.s.structs[v.ty].name
                ));
            }
            self.w(&format!("    {ty}({ty}),"));
        }
        self.w("}");
        self.w("");
        self.w(&format!("impl {value} {{"));
        self.w(&format!(
            "    pub const TAGS: [u32; {}] = [{}];",
            u.variants.len(),
            u.variants
                .iter()
                .map(|v| v.tag.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_slot(v: &Option<Self>, w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
        self.w(&format!(
            "        Self::write_parts(v, w, at, at + {UNION_OFFSET_AT})"
        ));
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_parts(v: &Option<Self>, w: &mut karmem::Writer, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        match v {");
        self.w("            None => {}");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("            Some(Self::{ty}(x)) => {{"));
            self.w(&format!(
                "                w.put::<{tag_ty}>(tag_at, {});",
                var.tag
            ));
            if self.is_table(var.ty) {
                self.w("                let child = x.write(w)?;");
            } else {
                self.w(&format!(
                    "                let child = w.alloc({}, {OBJECT_ALIGN})?;",
                    self.l.of_struct(var.ty).size
                ));
                self.w("                x.write_at(w, child)?;");
            }
            self.w("                w.put::<u32>(offset_at, child);");
            self.w("            }");
        }
        self.w("        }");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn read_parts(place: &mut Option<Self>, v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        let r = v.reader;");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            let (guard, read) = if self.is_table(var.ty) {
                (
                    String::new(),
                    "x.read_table(v, r.table(offset))?".to_string(),
                )
            } else {
                (
                    format!(
                        " if offset != 0 && offset.is_multiple_of(8) && offset as u64 + {} <= r.size() as u64",
                        self.l.of_struct(var.ty).size
                    ),
                    // Charged like a table: its size (format.md §10).
                    format!(
                        "{{ v.charge({})?; x.read_at(v, offset)? }}",
                        self.l.of_struct(var.ty).size
                    ),
                )
            };
            self.w(&format!("            {}{guard} => match place {{", var.tag));
            self.w(&format!("                Some(Self::{ty}(x)) => {read},"));
            self.w("                _ => {");
            self.w(&format!("                    let mut x = {ty}::default();"));
            self.w(&format!("                    {read};"));
            self.w(&format!(
                "                    *place = Some(Self::{ty}(x));"
            ));
            self.w("                }");
            self.w("            },");
        }
        self.w("            _ => *place = None,");
        self.w("        }");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn validate_parts(v: &mut karmem::Validator<'_>, tag_at: u32, offset_at: u32) -> Result<(), karmem::Error> {");
        self.w("        let r = v.reader;");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("            {} => {{", var.tag));
            if self.is_table(var.ty) {
                self.w("                if offset == 0 {");
                self.w("                    return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.w("                }");
                self.w("                let t = v.table(offset)?;");
                self.w(&format!("                {ty}::validate_table(v, t)"));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.w(&format!("                if offset == 0 || !offset.is_multiple_of(8) || offset as u64 + {size} > r.size() as u64 {{"));
                self.w("                    return Err(karmem::Error::InvalidUnion { offset: tag_at, tag });");
                self.w("                }");
                self.w(&format!("                v.charge({size})?;"));
                self.w(&format!("                {ty}::validate_at(v, offset)"));
            }
            self.w("            }");
        }
        self.w("            // 0 is \"no value\"; unknown tags come from newer writers and are");
        self.w("            // never dereferenced (viewers report them as Unknown).");
        self.w("            _ => Ok(()),");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");

        // View enum.
        self.w(&format!("/// Zero-copy view of a `{}` value.", u.name));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub enum {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    None,");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            self.w(&format!("    {ty}({}<'a, M>),", self.view_name(var.ty)));
        }
        self.w("    /// A tag this schema version does not know.");
        self.w("    Unknown(u32),");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn from_parts(r: karmem::Reader<'a, M>, tag_at: u32, offset_at: u32) -> Self {");
        self.w(&format!(
            "        let tag = {};",
            as_u32(&format!("r.get::<{tag_ty}>(tag_at)"), u.tag)
        ));
        self.w("        let offset = r.get::<u32>(offset_at);");
        self.w("        match tag {");
        self.w("            0 => Self::None,");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            let v = self.view_name(var.ty);
            if self.is_table(var.ty) {
                self.w(&format!(
                    "            {} => Self::{ty}({v} {{ r, t: r.table(offset) }}),",
                    var.tag
                ));
            } else {
                let size = self.l.of_struct(var.ty).size;
                self.w(&format!("            {} => {{", var.tag));
                self.w(&format!("                let ok = M::TRUSTED || (offset != 0 && offset.is_multiple_of(8) && offset as u64 + {size} <= r.size() as u64);"));
                self.w(&format!(
                    "                Self::{ty}({v} {{ r, at: offset, present: ok }})"
                ));
                self.w("            }");
            }
        }
        self.w("            other => Self::Unknown(other),");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");

        // AoS/SoA array view (always generated; small).
        let arr = format!("{}Array", self.union_name(id));
        let tw = u.tag.size();
        self.w(&format!("/// An AoS or SoA array of `{}` values.", u.name));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {arr}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    len: u32,");
        self.w("    tags: u32,");
        self.w("    tag_stride: u32,");
        self.w("    offsets: u32,");
        self.w("    offset_stride: u32,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {arr}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn aos(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        {arr} {{ r, len: a.len, tags: a.offset, tag_stride: {UNION_SLOT_SIZE}, offsets: a.offset + {UNION_OFFSET_AT}, offset_stride: {UNION_SLOT_SIZE} }}"));
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w("    pub fn soa(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        match r.union_columns(a, {tw}) {{"));
        self.w(&format!("            Some((tags, offsets)) => {arr} {{ r, len: a.len, tags, tag_stride: {tw}, offsets, offset_stride: {OFFSET_SIZE} }},"));
        self.w(&format!("            None => {arr} {{ r, len: 0, tags: 0, tag_stride: 0, offsets: 0, offset_stride: 0 }},"));
        self.w("        }");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn len(&self) -> usize {");
        self.w("        self.len as usize");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w("    pub fn is_empty(&self) -> bool {");
        self.w("        self.len == 0");
        self.w("    }");
        self.w("");
        self.w("    #[inline]");
        self.w(&format!(
            "    pub fn get(&self, i: usize) -> Option<{view}<'a, M>> {{"
        ));
        self.w("        let i = i as u32;");
        self.w(&format!("        (i < self.len).then(|| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.w("    }");
        self.w("");
        self.w(&format!(
            "    pub fn iter(&self) -> impl ExactSizeIterator<Item = {view}<'a, M>> + '_ {{"
        ));
        self.w(&format!("        (0..self.len).map(move |i| {view}::from_parts(self.r, self.tags + i * self.tag_stride, self.offsets + i * self.offset_stride))"));
        self.w("    }");
        self.w("}");
        self.w("");
    }

    /// Writer, reader and view of a bunch (`#bovoa` / `#bovos`) array.
    pub(super) fn bunch_item(&mut self, id: UnionId, soa: bool) {
        let u = self.s.unions[id].clone();
        let value = self.union_value(id);
        let suffix = if soa { "bovos" } else { "bovoa" };
        let k = u.variants.len();
        self.w(&format!("impl {value} {{"));
        self.w("    #[doc(hidden)]");
        self.w(&format!("    pub fn write_{suffix}(items: &[Option<Self>], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {{"));
        self.w(&format!("        let mut counts = [0usize; {k}];"));
        self.w("        for item in items {");
        self.w("            match item {");
        for (i, var) in u.variants.iter().enumerate() {
            self.w(&format!(
                "                Some(Self::{}(_)) => counts[{i}] += 1,",
                self.struct_name(var.ty)
            ));
        }
        self.w("                None => {}");
        self.w("            }");
        self.w("        }");
        self.w("        let total: usize = counts.iter().sum();");
        self.w("        if total == 0 {");
        self.w("            w.put_array_ref(at, 0, 0, 0);");
        self.w("            return Ok(());");
        self.w("        }");
        self.w("        let entries = counts.iter().filter(|c| **c > 0).count() as u32;");
        self.w(&format!("        let table = w.alloc(({BUNCH_ENTRY_SIZE} * (entries + 1)).div_ceil({ARRAY_ALIGN}) * {ARRAY_ALIGN}, {ARRAY_ALIGN})?;"));
        self.w("        w.put::<u32>(table, entries);");
        self.w(&format!(
            "        let mut entry = table + {BUNCH_ENTRY_SIZE};"
        ));
        for (i, var) in u.variants.iter().enumerate() {
            let ty = self.struct_name(var.ty);
            let data = if soa {
                ArrayData::Soa { elem: var.ty }
            } else if self.is_table(var.ty) {
                ArrayData::AosTable { id: var.ty }
            } else {
                ArrayData::AosInline {
                    id: var.ty,
                    stride: self.l.of_struct(var.ty).size,
                }
            };
            self.w(&format!("        if counts[{i}] > 0 {{"));
            self.w(&format!("            w.put::<u32>(entry, {});", var.tag));
            let iter = format!("items.iter().filter_map(|x| match x {{ Some(Self::{ty}(v)) => Some(v), _ => None }})");
            let code = self.write_struct_array(
                &data,
                &iter,
                &format!("counts[{i}]"),
                &format!("entry + {BUNCH_ENTRY_ARRAY_AT}"),
                3,
            );
            self.out.push_str(&code);
            self.w(&format!("            entry += {BUNCH_ENTRY_SIZE};"));
            self.w("        }");
        }
        self.w("        let _ = entry;");
        self.w("        w.put_array_ref(at, table, total as u32, total as u32);");
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        self.w("    #[doc(hidden)]");
        self.w(&format!("    pub fn read_{suffix}(items: &mut Vec<Option<Self>>, v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {{"));
        self.w("        let r = v.reader;");
        self.w("        items.clear();");
        for var in &u.variants {
            let ty = self.struct_name(var.ty);
            if soa {
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, 0);",
                    var.tag
                ));
                self.w("            let mut values = Vec::new();");
                self.w(&format!(
                    "            {ty}::read_soa(&mut values, v, sub)?;"
                ));
                self.w(&format!(
                    "            items.extend(values.into_iter().map(|x| Some(Self::{ty}(x))));"
                ));
                self.w("        }");
            } else if self.is_table(var.ty) {
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.w(&format!(
                    "            v.charge(sub.len as u64 * {OFFSET_SIZE})?;"
                ));
                self.w("            for i in 0..sub.len {");
                self.w(&format!("                let mut x = {ty}::default();"));
                self.w(
                    &format!("                x.read_table(v, r.table(r.get::<u32>(sub.offset + i * {OFFSET_SIZE})))?;"),
                );
                self.w(&format!("                items.push(Some(Self::{ty}(x)));"));
                self.w("            }");
                self.w("        }");
            } else {
                let stride = self.l.of_struct(var.ty).size;
                self.w("        {");
                self.w(&format!(
                    "            let sub = r.bunch_entry(a, {}, {stride});",
                    var.tag
                ));
                self.w(&format!(
                    "            v.charge(sub.len as u64 * {stride})?;"
                ));
                self.w("            for i in 0..sub.len {");
                self.w(&format!("                let mut x = {ty}::default();"));
                self.w(&format!(
                    "                x.read_at(v, sub.offset + {})?;",
                    mul("i", stride)
                ));
                self.w(&format!("                items.push(Some(Self::{ty}(x)));"));
                self.w("            }");
                self.w("        }");
            }
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("}");
        self.w("");
        // View.
        let view = format!(
            "{}{}",
            self.union_name(id),
            if soa { "Bovos" } else { "Bovoa" }
        );
        self.w(&format!(
            "/// A `#{suffix}` array of `{}`: one homogeneous array per variant.",
            u.name
        ));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {view}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    a: karmem::ArrayRef,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {view}<'a, M> {{"));
        self.w("    /// Number of values across all variants.");
        self.w("    pub fn len(&self) -> usize {");
        self.w("        self.a.len as usize");
        self.w("    }");
        self.w("");
        self.w("    pub fn is_empty(&self) -> bool {");
        self.w("        self.a.len == 0");
        self.w("    }");
        for var in &u.variants {
            let m = match rust_ident(&snake(&self.s.structs[var.ty].name)) {
                m if m == "len" || m == "is_empty" => format!("{m}_variant"),
                m => m,
            };
            self.w("");
            if soa {
                let sv = self.soa_name(var.ty);
                self.w(&format!("    pub fn {m}(&self) -> {sv}<'a, M> {{"));
                self.w(&format!(
                    "        {sv}::new(self.r, self.r.bunch_entry(self.a, {}, 0))",
                    var.tag
                ));
            } else if self.is_table(var.ty) {
                let v = self.view_name(var.ty);
                self.w(&format!(
                    "    pub fn {m}(&self) -> karmem::TableArray<'a, {v}<'a, M>, M> {{"
                ));
                self.w(&format!(
                    "        let sub = self.r.bunch_entry(self.a, {}, {OFFSET_SIZE});",
                    var.tag
                ));
                self.w("        karmem::TableArray::new(self.r, sub.offset, sub.len)");
            } else {
                let v = self.view_name(var.ty);
                let stride = self.l.of_struct(var.ty).size;
                self.w(&format!(
                    "    pub fn {m}(&self) -> karmem::InlineArray<'a, {v}<'a, M>, M> {{"
                ));
                self.w(&format!(
                    "        let sub = self.r.bunch_entry(self.a, {}, {stride});",
                    var.tag
                ));
                self.w(&format!(
                    "        karmem::InlineArray::new(self.r, sub.offset, sub.len, {stride})"
                ));
            }
            self.w("    }");
        }
        self.w("}");
        self.w("");
    }
}

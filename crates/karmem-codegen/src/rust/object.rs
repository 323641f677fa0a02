//! Object types: the owned struct (`Clone + Debug + Default + PartialEq`),
//! its `write_as_root` / `read_as_root` / `validate` entry points, and the
//! per-slot code that writes a field and decodes it into the object
//! (reusing allocations).

use std::fmt::Write as _;

use karmem_layout::{
    ArrayData, FixedElem, Slot, HEADER_SIZE, OBJECT_ALIGN, OFFSET_SIZE, UNION_OFFSET_AT,
    UNION_SLOT_SIZE,
};
use karmem_schema::model::*;

use super::{add, mentions, mul, rust_prim, Ctx, Gen};
use crate::names::screaming;

impl Gen<'_> {
    fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            FieldType::Scalar(p) => rust_prim(*p).to_string(),
            FieldType::Enum(id) => self.enum_name(*id),
            FieldType::Struct(id) => self.struct_name(*id),
            FieldType::Union(id) => format!("Option<{}>", self.union_value(*id)),
            FieldType::Array(a) => {
                let elem = match a.elem {
                    ElemType::Scalar(p) => rust_prim(p).to_string(),
                    ElemType::Enum(id) => self.enum_name(id),
                    ElemType::Struct(id) => self.struct_name(id),
                    ElemType::Union(id) => format!("Option<{}>", self.union_value(id)),
                };
                match (a.kind, a.text) {
                    (ArrayKind::Fixed(n), _) => format!("[{elem}; {n}]"),
                    (_, Some(_)) => "String".to_string(),
                    _ => format!("Vec<{elem}>"),
                }
            }
        }
    }

    pub(super) fn struct_item(&mut self, id: StructId) {
        let st = &self.s.structs[id];
        let name = self.struct_name(id);
        let kind = if self.is_table(id) {
            "table (evolvable)"
        } else {
            "inline struct (frozen layout)"
        };
        self.c.doc(&st.doc);
        if !st.doc.is_empty() {
            self.c.line("///");
        }
        self.c.line(&format!(
            "/// `{}`: {kind}. Object type: owns its data.",
            st.name
        ));
        self.c.line("#[derive(Clone, Debug, PartialEq)]");
        if self.words_soa(id).is_some() {
            // Field order and no padding are relied on by `write_soa_slice`.
            self.c.line("#[repr(C)]");
        }
        if self.serde {
            self.c
                .line("#[derive(serde::Serialize, serde::Deserialize)]");
            self.c.line("#[serde(default, deny_unknown_fields)]");
        }
        self.c.open(&format!("pub struct {name} {{"));
        let mut defaults = Vec::new();
        for (i, f) in st.fields.iter().enumerate() {
            for d in &f.doc {
                self.c.line(&format!("/// {d}"));
            }
            let ident = self.field_ident(id, i);
            if self.serde && ident.trim_end_matches('_') != f.name {
                self.c.line(&format!("#[serde(rename = \"{}\")]", f.name));
            }
            let ty = self.obj_type(&f.ty);
            self.c.line(&format!("pub {ident}: {ty},"));
            let default = match &f.ty {
                FieldType::Array(ArrayType {
                    kind: ArrayKind::Fixed(_),
                    ..
                }) => "core::array::from_fn(|_| core::default::Default::default())".to_string(),
                _ => "core::default::Default::default()".to_string(),
            };
            defaults.push(format!("{ident}: {default},"));
        }
        self.c.close("}");
        self.c.line("");
        self.c.line("#[allow(clippy::derivable_impls)]");
        self.c
            .open(&format!("impl core::default::Default for {name} {{"));
        self.c.open("fn default() -> Self {");
        self.c.open(&format!("{name} {{"));
        for default in &defaults {
            self.c.line(default);
        }
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.struct_impl(id);
        self.view_item(id);
    }

    fn struct_impl(&mut self, id: StructId) {
        let name = self.struct_name(id);
        let view = self.view_name(id);
        let sl = self.l.of_struct(id).clone();
        let table = self.is_table(id);
        self.c.open(&format!("impl {name} {{"));
        for (i, f) in sl.fields.iter().enumerate() {
            let field = &self.s.structs[id].fields[i].name;
            self.c.line(&format!(
                "/// Byte offset of `{field}` in the {} (for in-place updates).",
                if table { "table" } else { "struct" }
            ));
            self.c.line(&format!(
                "pub const {}_OFFSET: u32 = {};",
                screaming(field),
                f.offset
            ));
        }
        // -- encode
        self.c
            .line("/// Encode as the root of a message; `w` is reset first. Reuse the");
        self.c
            .line("/// writer: once it has grown, encoding allocates nothing.");
        self.c.open(
            "pub fn write_as_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {",
        );
        self.c.line("w.begin();");
        if table {
            self.c.line("self.write(w)?;");
        } else {
            self.c
                .line(&format!("let at = w.alloc({}, {OBJECT_ALIGN})?;", sl.size));
            self.c.line("self.write_at(w, at)?;");
        }
        self.c.line("w.finish()?;");
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("/// Encode into a new buffer (convenience; prefer `write_as_root`).");
        self.c
            .open("pub fn to_bytes(&self) -> Result<Vec<u8>, karmem::Error> {");
        self.c.line("let mut w = karmem::Writer::new(1024);");
        self.c.line("self.write_as_root(&mut w)?;");
        self.c.line("Ok(w.bytes().to_vec())");
        self.c.close("}");
        self.c.line("");
        let mut body = String::new();
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.field_ident(id, i));
            let pos = add("at", f.offset);
            body.push_str(&self.write_slot(&f.slot, &place, &pos, 2));
        }
        if table {
            self.c.line("#[doc(hidden)]");
            self.c.open(
                "pub fn write(&self, w: &mut karmem::Writer) -> Result<u32, karmem::Error> {",
            );
            self.c
                .line(&format!("let at = w.alloc({}, {OBJECT_ALIGN})?;", sl.size));
            self.c.line(&format!("w.put::<u32>(at, {:#x});", sl.header));
            self.c.raw(&body);
            self.c.line("Ok(at)");
            self.c.close("}");
        } else {
            let (w, at) = if body.is_empty() {
                ("_w", "_at")
            } else {
                ("w", "at")
            };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn write_at(&self, {w}: &mut karmem::Writer, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.line("");
        // -- decode
        self.c
            .line("/// Decode a whole message into `self`, reusing its allocations.");
        self.c
            .line("/// Malformed parts read as zero/empty; the traversal budget and depth");
        self.c
            .line("/// limit bound the work and memory a hostile message can cause.");
        self.c.open(
            "pub fn read_as_root(&mut self, r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {",
        );
        self.c.line("let mut v = karmem::Validator::new(*r);");
        if table {
            self.c.line("self.read_table(&mut v, r.root())");
        } else {
            self.c
                .open(&format!("if {HEADER_SIZE} + {} > r.size() {{", sl.size));
            self.c.line("*self = Self::default();");
            self.c.line("return Ok(());");
            self.c.close("}");
            self.c.line("self.read_at(&mut v, karmem::HEADER_SIZE)");
        }
        self.c.close("}");
        self.c.line("");
        self.c.line("/// Decode a message into a new object.");
        self.c
            .open("pub fn from_bytes(bytes: &[u8]) -> Result<Self, karmem::Error> {");
        self.c.line("let r = karmem::Reader::new(bytes)?;");
        self.c.line("let mut value = Self::default();");
        self.c.line("value.read_as_root(&r)?;");
        self.c.line("Ok(value)");
        self.c.close("}");
        self.c.line("");
        let mut body = String::new();
        for (i, f) in sl.fields.iter().enumerate() {
            let place = format!("self.{}", self.field_ident(id, i));
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("at", f.offset),
                    present: "true".into(),
                }
            };
            body.push_str(&self.read_slot(&f.slot, &place, &ctx, 2));
        }
        let uses_r = mentions(&body, "r");
        if table {
            self.c.line("#[doc(hidden)]");
            self.c.open("pub fn read_table(&mut self, v: &mut karmem::Validator<'_>, t: karmem::Table) -> Result<(), karmem::Error> {");
            self.c.line("v.enter()?;");
            self.c.line("v.charge(t.used as u64)?;");
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("v.leave();");
            self.c.line("Ok(())");
            self.c.close("}");
        } else {
            let at = if body.contains("at") { "at" } else { "_at" };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn read_at(&mut self, v: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            if !body.contains("v.") && !body.contains("(v") && !body.contains(", v") {
                self.c.line("let _ = v;");
            }
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.line("");
        // -- validate
        self.c
            .line("/// Check the whole message once (format.md §11). On success the");
        self.c
            .line("/// returned viewer reads without bounds checks.");
        self.c.open(&format!(
            "pub fn validate<'a>(r: &karmem::Reader<'a>) -> Result<{view}<'a, karmem::Trusted>, karmem::Error> {{"
        ));
        self.c.line("let mut v = karmem::Validator::new(*r);");
        if table {
            self.c.line("let t = v.root()?;");
            self.c.line("Self::validate_table(&mut v, t)?;");
        } else {
            self.c
                .open(&format!("if {HEADER_SIZE} + {} > r.size() {{", sl.size));
            self.c.line(&format!(
                "return Err(karmem::Error::Truncated {{ needed: 8 + {}, available: r.size() as u64 }});",
                sl.size
            ));
            self.c.close("}");
            self.c
                .line("Self::validate_at(&mut v, karmem::HEADER_SIZE)?;");
        }
        self.c
            .line("// SAFETY: the message passed this root type's validation.");
        self.c.line("let trusted = unsafe { r.assume_trusted() };");
        self.c.line(&format!("Ok({view}::root(&trusted))"));
        self.c.close("}");
        self.c.line("");
        let mut body = String::new();
        for f in &sl.fields {
            let ctx = if table {
                Ctx::Table {
                    t: "t".into(),
                    off: f.offset,
                }
            } else {
                Ctx::Pos {
                    pos: add("at", f.offset),
                    present: "true".into(),
                }
            };
            body.push_str(&self.validate_slot(&f.slot, &ctx, 2));
        }
        let uses_r = mentions(&body, "r");
        if table {
            let t = if body.contains('t') { "t" } else { "_t" };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn validate_table(v: &mut karmem::Validator<'_>, {t}: karmem::Table) -> Result<(), karmem::Error> {{"
            ));
            self.c.line("v.enter()?;");
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("v.leave();");
            self.c.line("Ok(())");
            self.c.close("}");
        } else {
            let (v, at) = if body.is_empty() {
                ("_v", "_at")
            } else {
                ("v", "at")
            };
            self.c.line("#[doc(hidden)]");
            self.c.open(&format!(
                "pub fn validate_at({v}: &mut karmem::Validator<'_>, {at}: u32) -> Result<(), karmem::Error> {{"
            ));
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.raw(&body);
            self.c.line("Ok(())");
            self.c.close("}");
        }
        self.c.close("}");
        self.c.line("");
    }

    // ---- per-slot code: write --------------------------------------------

    pub(super) fn write_slot(&self, slot: &Slot, place: &str, pos: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match slot {
            Slot::Scalar(Primitive::Bool) => format!("{pad}w.put_bool({pos}, {place});\n"),
            Slot::Scalar(p) => format!("{pad}w.put::<{}>({pos}, {place});\n", rust_prim(*p)),
            Slot::Enum { repr, .. } => {
                format!("{pad}w.put::<{}>({pos}, {place}.0);\n", rust_prim(*repr))
            }
            Slot::InlineStruct(_) => format!("{pad}{place}.write_at(w, {pos})?;\n"),
            Slot::TableRef(_) => {
                format!("{pad}let child = {place}.write(w)?;\n{pad}w.put::<u32>({pos}, child);\n")
            }
            Slot::Union { id, .. } => {
                format!(
                    "{pad}{}::write_slot(&{place}, w, {pos})?;\n",
                    self.union_value(*id)
                )
            }
            Slot::FixedArray { elem, stride, .. } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let inner = match elem {
                    FixedElem::Scalar(Primitive::Bool) => format!("w.put_bool({epos}, *e);"),
                    FixedElem::Scalar(p) => format!("w.put::<{}>({epos}, *e);", rust_prim(*p)),
                    FixedElem::Enum { repr, .. } => {
                        format!("w.put::<{}>({epos}, e.0);", rust_prim(*repr))
                    }
                    FixedElem::InlineStruct(_) => format!("e.write_at(w, {epos})?;"),
                };
                format!(
                    "{pad}for (j, e) in {place}.iter().enumerate() {{\n{pad}    {inner}\n{pad}}}\n"
                )
            }
            Slot::ArrayRef { array, data } => {
                let mut out = String::new();
                if let ArrayKind::Limited(n) = array.kind {
                    let len = match array.text {
                        Some(Text::Utf16) => format!("{place}.encode_utf16().count()"),
                        _ => format!("{place}.len()"),
                    };
                    let _ = writeln!(out, "{pad}if {len} > {n} {{\n{pad}    return Err(karmem::Error::TooLarge);\n{pad}}}");
                }
                out.push_str(&self.write_array(array, data, place, pos, indent));
                out
            }
        }
    }

    fn write_array(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        pos: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{pad}w.write_bytes({pos}, {place}.as_bytes())?;\n"),
            (Some(Text::Utf16), _) => format!(
                "{pad}{{\n{pad}    let units: Vec<u16> = {place}.encode_utf16().collect();\n{pad}    w.write_slice({pos}, &units)?;\n{pad}}}\n"
            ),
            (None, ArrayData::Plain { elem_size }) => match array.elem {
                ElemType::Scalar(Primitive::Bool) | ElemType::Enum(_) => {
                    let put = match array.elem {
                        ElemType::Scalar(_) => format!("w.put_bool(block + {}, *e);", mul("i as u32", 1)),
                        ElemType::Enum(id) => format!(
                            "w.put::<{}>(block + {}, e.0);",
                            rust_prim(self.s.enums[id].repr),
                            mul("i as u32", *elem_size)
                        ),
                        _ => unreachable!(),
                    };
                    format!(
                        "{pad}{{\n{pad}    let block = w.alloc_array({place}.len(), {elem_size})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {put}\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n"
                    )
                }
                _ => format!("{pad}w.write_slice({pos}, &{place})?;\n"),
            },
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{pad}{{\n{pad}    let block = w.alloc_array({place}.len(), {UNION_SLOT_SIZE})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {}::write_slot(e, w, block + i as u32 * {UNION_SLOT_SIZE})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n",
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => {
                let tw = tag.size();
                format!(
                    "{pad}{{\n{pad}    let tags = w.alloc_array({place}.len(), {tw})?;\n{pad}    let offsets = w.alloc_array({place}.len(), {OFFSET_SIZE})?;\n{pad}    for (i, e) in {place}.iter().enumerate() {{\n{pad}        {}::write_parts(e, w, tags + {}, offsets + i as u32 * {OFFSET_SIZE})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, tags, {place}.len() as u32, {place}.len() as u32);\n{pad}}}\n",
                    self.union_value(*id),
                    mul("i as u32", tw)
                )
            }
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS { "write_bovos" } else { "write_bovoa" };
                format!("{pad}{}::{f}(&{place}, w, {pos})?;\n", self.union_value(*id))
            }
            (None, ArrayData::Soa { elem }) if self.words_soa(*elem).is_some() => format!(
                "{pad}{}::write_soa_slice(&{place}, w, {pos})?;\n",
                self.struct_name(*elem)
            ),
            (None, data) => self.write_struct_array(data, &format!("{place}.iter()"), &format!("{place}.len()"), pos, indent),
        }
    }

    /// An array of structs from an iterator of `&T` with `count` items.
    pub(super) fn write_struct_array(
        &self,
        data: &ArrayData,
        iter: &str,
        count: &str,
        pos: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        match data {
            ArrayData::AosInline { stride, .. } => format!(
                "{pad}{{\n{pad}    let count = {count};\n{pad}    let block = w.alloc_array(count, {stride})?;\n{pad}    for (i, e) in {iter}.enumerate() {{\n{pad}        e.write_at(w, block + {})?;\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, count as u32, count as u32);\n{pad}}}\n",
                mul("i as u32", *stride)
            ),
            ArrayData::AosTable { .. } => format!(
                "{pad}{{\n{pad}    let count = {count};\n{pad}    let block = w.alloc_array(count, {OFFSET_SIZE})?;\n{pad}    for (i, e) in {iter}.enumerate() {{\n{pad}        let child = e.write(w)?;\n{pad}        w.put::<u32>(block + i as u32 * {OFFSET_SIZE}, child);\n{pad}    }}\n{pad}    w.put_array_ref({pos}, block, count as u32, count as u32);\n{pad}}}\n"
            ),
            ArrayData::Soa { elem } => format!(
                "{pad}{}::write_soa({iter}, {count}, w, {pos})?;\n",
                self.struct_name(*elem)
            ),
            _ => unreachable!("only struct arrays here"),
        }
    }

    // ---- per-slot code: object decode ------------------------------------

    pub(super) fn read_slot(&self, slot: &Slot, place: &str, ctx: &Ctx, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let size = self.l.slot_size(slot);
        let (pos, present) = match ctx {
            Ctx::Table { t, off } => (
                format!("{t}.offset + {off}"),
                format!("{t}.has({off}, {size})"),
            ),
            Ctx::Pos { pos, present } => (pos.clone(), present.clone()),
        };
        let scalar = |ty: &str| -> String {
            match ctx {
                Ctx::Table { t, off } => format!("r.field::<{ty}>({t}, {off})"),
                Ctx::Pos { pos, present } if present == "true" => format!("r.get::<{ty}>({pos})"),
                Ctx::Pos { pos, present } => {
                    format!("if {present} {{ r.get::<{ty}>({pos}) }} else {{ core::default::Default::default() }}")
                }
            }
        };
        match slot {
            Slot::Scalar(Primitive::Bool) => format!("{pad}{place} = {} != 0;\n", scalar("u8")),
            Slot::Scalar(p) => format!("{pad}{place} = {};\n", scalar(rust_prim(*p))),
            Slot::Enum { id, repr } => format!(
                "{pad}{place} = {}({});\n",
                self.enum_name(*id),
                scalar(rust_prim(*repr))
            ),
            Slot::InlineStruct(_) => self.guarded(
                &present,
                &format!("{place}.read_at(v, {pos})?;"),
                &format!("{place} = core::default::Default::default();"),
                indent,
            ),
            Slot::TableRef(_) => {
                let t = match ctx {
                    Ctx::Table { t, off } => format!("r.field_table({t}, {off})"),
                    Ctx::Pos { pos, present } if present == "true" => {
                        format!("r.table(r.get::<u32>({pos}))")
                    }
                    Ctx::Pos { pos, present } => {
                        format!("if {present} {{ r.table(r.get::<u32>({pos})) }} else {{ karmem::Table::EMPTY }}")
                    }
                };
                format!("{pad}{place}.read_table(v, {t})?;\n")
            }
            Slot::Union { id, .. } => self.guarded(
                &present,
                &format!(
                    "{}::read_parts(&mut {place}, v, {pos}, {pos} + {UNION_OFFSET_AT})?;",
                    self.union_value(*id)
                ),
                &format!("{place} = None;"),
                indent,
            ),
            Slot::FixedArray { elem, stride, .. } => {
                let epos = format!("{pos} + {}", mul("j as u32", *stride));
                let inner = match elem {
                    FixedElem::Scalar(Primitive::Bool) => format!("*e = r.get::<u8>({epos}) != 0;"),
                    FixedElem::Scalar(p) => format!("*e = r.get::<{}>({epos});", rust_prim(*p)),
                    FixedElem::Enum { id, repr } => {
                        format!(
                            "*e = {}(r.get::<{}>({epos}));",
                            self.enum_name(*id),
                            rust_prim(*repr)
                        )
                    }
                    FixedElem::InlineStruct(_) => format!("e.read_at(v, {epos})?;"),
                };
                let read = format!("for (j, e) in {place}.iter_mut().enumerate() {{\n{pad}        {inner}\n{pad}    }}");
                self.guarded(
                    &present,
                    &read,
                    &format!(
                        "{place} = core::array::from_fn(|_| core::default::Default::default());"
                    ),
                    indent,
                )
            }
            Slot::ArrayRef { array, data } => {
                let es = data.elem_size();
                let limit = match array.kind {
                    ArrayKind::Limited(n) => format!("Some({n})"),
                    _ => "None".into(),
                };
                let a = match ctx {
                    Ctx::Table { t, off } => format!("r.field_array({t}, {off}, {es}, {limit})"),
                    Ctx::Pos { pos, present } if present == "true" => format!("r.array({pos}, {es}, {limit})"),
                    Ctx::Pos { pos, present } => format!(
                        "if {present} {{ r.array({pos}, {es}, {limit}) }} else {{ karmem::ArrayRef::EMPTY }}"
                    ),
                };
                let body = self.read_array(array, data, place, indent + 1);
                format!("{pad}{{\n{pad}    let a = {a};\n{body}{pad}}}\n")
            }
        }
    }

    fn guarded(&self, present: &str, then: &str, otherwise: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        if present == "true" {
            format!("{pad}{then}\n")
        } else {
            format!("{pad}if {present} {{\n{pad}    {then}\n{pad}}} else {{\n{pad}    {otherwise}\n{pad}}}\n")
        }
    }

    /// Decode array `a` into `place` (a `Vec` or `String`), reusing it.
    fn read_array(
        &self,
        array: &ArrayType,
        data: &ArrayData,
        place: &str,
        indent: usize,
    ) -> String {
        let pad = "    ".repeat(indent);
        let charge = |size: u32| format!("{pad}v.charge({})?;\n", mul("a.len as u64", size.max(1)));
        match (array.text, data) {
            (Some(Text::Utf8), _) => format!("{}{pad}{place}.clear();\n{pad}{place}.push_str(r.str(a));\n", charge(1)),
            (Some(Text::Utf16), _) => format!(
                "{}{pad}{place}.clear();\n{pad}{place}.extend(char::decode_utf16(r.slice::<u16>(a.offset, a.len).iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));\n",
                charge(2)
            ),
            (None, ArrayData::Plain { elem_size }) => {
                let fill = match array.elem {
                    ElemType::Scalar(Primitive::Bool) => {
                        format!("{place}.extend(r.slice::<u8>(a.offset, a.len).iter().map(|b| *b != 0));")
                    }
                    ElemType::Scalar(p) => format!("{place}.extend_from_slice(r.slice::<{}>(a.offset, a.len));", rust_prim(p)),
                    ElemType::Enum(id) => format!(
                        "{place}.extend(r.slice::<{}>(a.offset, a.len).iter().map(|x| {}(*x)));",
                        rust_prim(self.s.enums[id].repr),
                        self.enum_name(id)
                    ),
                    _ => unreachable!(),
                };
                format!("{}{pad}{place}.clear();\n{pad}{fill}\n", charge(*elem_size))
            }
            (None, ArrayData::AosInline { stride, .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, core::default::Default::default);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    e.read_at(v, a.offset + {})?;\n{pad}}}\n",
                charge(*stride),
                mul("i as u32", *stride)
            ),
            (None, ArrayData::AosTable { .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, core::default::Default::default);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    e.read_table(v, r.table(r.get::<u32>(a.offset + i as u32 * {OFFSET_SIZE})))?;\n{pad}}}\n",
                charge(OFFSET_SIZE)
            ),
            (None, ArrayData::Soa { elem }) => format!("{pad}{}::read_soa(&mut {place}, v, a)?;\n", self.struct_name(*elem)),
            (None, ArrayData::UnionAos { id, .. }) => format!(
                "{}{pad}{place}.resize_with(a.len as usize, || None);\n{pad}for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}    let at = a.offset + i as u32 * {UNION_SLOT_SIZE};\n{pad}    {}::read_parts(e, v, at, at + {UNION_OFFSET_AT})?;\n{pad}}}\n",
                charge(UNION_SLOT_SIZE),
                self.union_value(*id)
            ),
            (None, ArrayData::UnionSoa { id, tag }) => format!(
                "{pad}match r.union_columns(a, {tw}) {{\n{pad}    Some((tags, offsets)) => {{\n{pad}        v.charge(a.len as u64 * {cost})?;\n{pad}        {place}.resize_with(a.len as usize, || None);\n{pad}        for (i, e) in {place}.iter_mut().enumerate() {{\n{pad}            {u}::read_parts(e, v, tags + {ti}, offsets + i as u32 * {OFFSET_SIZE})?;\n{pad}        }}\n{pad}    }}\n{pad}    None => {place}.clear(),\n{pad}}}\n",
                tw = tag.size(),
                cost = tag.size() + OFFSET_SIZE,
                u = self.union_value(*id),
                ti = mul("i as u32", tag.size())
            ),
            (None, ArrayData::UnionBunch { id, .. }) => {
                let f = if array.layout == ArrayLayout::BoVoS { "read_bovos" } else { "read_bovoa" };
                format!("{pad}{}::{f}(&mut {place}, v, a)?;\n", self.union_value(*id))
            }
        }
    }
}

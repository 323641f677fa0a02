//! A JSON export of decoded objects in the golden vectors' conventions
//! (testdata/vectors/README.md): structs as objects in declaration order
//! (tuples as arrays), enums as names where the schema has one, floats
//! exactly (`%.17g` with a fraction or exponent, non-finite values as
//! strings), unions as `{"Variant": value}`, maps as objects. The C
//! golden-vector runner's, not `karmem build`'s: it needs `<stdio.h>`, and
//! no user program prints the vectors' JSON. It lives here, beside the copy
//! of the C backend compiled into this crate (lib.rs), whose names it uses.

use karmem_layout::{ArrayData, FixedElem, Layout, Slot};
use karmem_schema::model::*;

use crate::c::{int_literal, Code, Gen};

/// C source (functions `void <prefix>_<type>_json(FILE *, const <type>
/// *)`, external so that a printer the program does not call is no
/// warning) printing every struct of the schema; include it after
/// `<prefix>.h`, `<stdio.h>`, `<inttypes.h>`, `<math.h>` and `<string.h>`.
pub fn json_printer(schema: &Schema, layout: &Layout) -> String {
    let g = Gen::new(schema, layout);
    let p = &g.prefix;
    let mut c = Code::new(0);
    c.line(&format!(
        "void {p}_json_f64(FILE *f, double x);\nvoid {p}_json_text(FILE *f, const char *s, uint32_t n);\n\nvoid {p}_json_f64(FILE *f, double x) {{
    char buf[48];
    if (isnan(x)) {{
        fputs(\"\\\"NaN\\\"\", f);
        return;
    }}
    if (isinf(x)) {{
        fputs(x > 0 ? \"\\\"Infinity\\\"\" : \"\\\"-Infinity\\\"\", f);
        return;
    }}
    snprintf(buf, sizeof buf, \"%.17g\", x);
    if (strpbrk(buf, \".eE\") == NULL) {{
        strcat(buf, \".0\");
    }}
    fputs(buf, f);
}}

void {p}_json_text(FILE *f, const char *s, uint32_t n) {{
    fputc('\"', f);
    for (uint32_t i = 0; i < n; i++) {{
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\"' || ch == '\\\\') {{
            fputc('\\\\', f);
            fputc(ch, f);
        }} else if (ch < 0x20) {{
            fprintf(f, \"\\\\u%04x\", ch);
        }} else {{
            fputc(ch, f);
        }}
    }}
    fputc('\"', f);
}}
"
    ));
    let mut decls = Code::new(0);
    let mut defs = Code::new(0);
    for (id, e) in schema.enums.iter().enumerate() {
        let name = g.n.enum_name(id);
        let sig = format!("void {name}_json(FILE *f, {name} x, bool quoted)");
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.line("switch (x) {");
        for v in &e.variants {
            defs.line(&format!("case {}:", int_literal(v.value)));
            defs.line(&format!("    fputs(\"\\\"{}\\\"\", f);", v.name));
            defs.line("    return;");
        }
        defs.line("default:");
        defs.line("    break;");
        defs.line("}");
        let fmt = if e.repr.is_signed() {
            "\"%\" PRId64, (int64_t)x"
        } else {
            "\"%\" PRIu64, (uint64_t)x"
        };
        defs.line("if (quoted) {");
        defs.line("    fputc('\"', f);");
        defs.line("}");
        defs.line(&format!("fprintf(f, {fmt});"));
        defs.line("if (quoted) {");
        defs.line("    fputc('\"', f);");
        defs.line("}");
        defs.close("}");
        defs.line("");
    }
    for id in 0..schema.structs.len() {
        let name = g.n.struct_name(id);
        let st = &schema.structs[id];
        let sig = format!("void {name}_json(FILE *f, const {name} *x)");
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.line("(void)x;");
        defs.line(&format!(
            "fputc('{}', f);",
            if st.tuple { '[' } else { '{' }
        ));
        for (i, fl) in layout.of_struct(id).fields.iter().enumerate() {
            if i > 0 {
                defs.line("fputs(\", \", f);");
            }
            if !st.tuple {
                defs.line(&format!("fputs(\"\\\"{}\\\": \", f);", st.fields[i].name));
            }
            g.json_slot(&mut defs, &fl.slot, &format!("x->{}", g.n.field(id, i)), 0);
        }
        defs.line(&format!(
            "fputc('{}', f);",
            if st.tuple { ']' } else { '}' }
        ));
        defs.close("}");
        defs.line("");
    }
    for (id, u) in schema.unions.iter().enumerate() {
        let name = g.n.union_name(id);
        let sig = format!("void {name}_json(FILE *f, const {name} *x)");
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.line("switch (x->tag) {");
        for v in &u.variants {
            defs.open(&format!("case {}:", g.n.tag(id, v.ty)));
            let m = g.n.variant_member(v.ty);
            defs.open(&format!("if (x->as.{m} != NULL) {{"));
            defs.line(&format!(
                "fputs(\"{{\\\"{}\\\": \", f);",
                schema.structs[v.ty].name
            ));
            defs.line(&format!("{}_json(f, x->as.{m});", g.n.struct_name(v.ty)));
            defs.line("fputc('}', f);");
            defs.line("return;");
            defs.close("}");
            defs.line("break;");
            defs.indent -= 1;
        }
        defs.line("default:");
        defs.line("    break;");
        defs.line("}");
        defs.line("fputs(\"null\", f);");
        defs.close("}");
        defs.line("");
    }
    c.append(decls);
    c.line("");
    c.append(defs);
    c.into_text()
}

impl Gen<'_> {
    /// The value of column `k` of the SoA item `it`, through the item's
    /// accessors along the column's path.
    pub fn soa_item_read(&self, id: StructId, k: usize, it: &str) -> String {
        let col = &self.l.soa(id).columns[k];
        let mut expr = it.to_string();
        for d in 0..col.path.len() {
            expr = format!(
                "{}_{}({expr})",
                self.soa_node(id, &col.path[..d]),
                self.view_field(col.steps[d], col.path[d] as usize)
            );
        }
        expr
    }

    fn json_scalar(&self, c: &mut Code, p: Primitive, v: &str) {
        match p {
            Primitive::Bool => c.line(&format!("fputs({v} ? \"true\" : \"false\", f);")),
            Primitive::F32 | Primitive::F64 => {
                c.line(&format!("{}_json_f64(f, (double){v});", self.prefix))
            }
            p if p.is_signed() => c.line(&format!("fprintf(f, \"%\" PRId64, (int64_t){v});")),
            _ => c.line(&format!("fprintf(f, \"%\" PRIu64, (uint64_t){v});")),
        }
    }

    fn json_slot(&self, c: &mut Code, slot: &Slot, v: &str, d: usize) {
        match slot {
            Slot::Scalar(p) => self.json_scalar(c, *p, v),
            Slot::Enum { id, .. } => {
                c.line(&format!("{}_json(f, {v}, false);", self.n.enum_name(*id)))
            }
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                c.line(&format!("{}_json(f, &{v});", self.n.struct_name(*id)))
            }
            Slot::OptionalTable(id) => {
                c.open(&format!("if ({v} != NULL) {{"));
                c.line(&format!("{}_json(f, {v});", self.n.struct_name(*id)));
                c.reopen("} else {");
                c.line("fputs(\"null\", f);");
                c.close("}");
            }
            Slot::Optional { value, .. } => {
                c.open(&format!("if ({v}.has) {{"));
                self.json_slot(c, value, &format!("{v}.value"), d + 1);
                c.reopen("} else {");
                c.line("fputs(\"null\", f);");
                c.close("}");
            }
            Slot::Union { id, .. } => c.line(&format!("{}_json(f, &{v});", self.n.union_name(*id))),
            Slot::FixedArray { elem, len, .. } => {
                let j = format!("j{d}");
                c.line("fputc('[', f);");
                c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
                c.line(&format!("fputs({j} ? \", \" : \"\", f);"));
                let e = format!("{v}[{j}]");
                match elem {
                    FixedElem::Scalar(p) => self.json_scalar(c, *p, &e),
                    FixedElem::Enum { id, .. } => {
                        c.line(&format!("{}_json(f, {e}, false);", self.n.enum_name(*id)))
                    }
                    FixedElem::InlineStruct(id) => {
                        c.line(&format!("{}_json(f, &{e});", self.n.struct_name(*id)))
                    }
                }
                c.close("}");
                c.line("fputc(']', f);");
            }
            Slot::ArrayRef { array, data } => self.json_array(c, array, data, v, d),
        }
    }

    fn json_array(&self, c: &mut Code, array: &ArrayType, data: &ArrayData, v: &str, d: usize) {
        if array.text.is_some() {
            c.line(&format!("{}_json_text(f, {v}.ptr, {v}.len);", self.prefix));
            return;
        }
        let k = format!("k{d}");
        let e = format!("{v}.ptr[{k}]");
        if let (true, ArrayData::AosInline { id, .. }) = (array.is_map(), data) {
            let fields = &self.l.of_struct(*id).fields;
            let key = self.n.field(*id, 0);
            let value = self.n.field(*id, 1);
            c.line("fputc('{', f);");
            c.open(&format!("for (uint32_t {k} = 0; {k} < {v}.len; {k}++) {{"));
            c.line(&format!("fputs({k} ? \", \" : \"\", f);"));
            if !self.json_key(c, &fields[0].slot, &format!("{e}.{key}")) {
                self.json_slot(c, &fields[0].slot, &format!("{e}.{key}"), d + 1);
            }
            c.line("fputs(\": \", f);");
            self.json_slot(c, &fields[1].slot, &format!("{e}.{value}"), d + 1);
            c.close("}");
            c.line("fputc('}', f);");
            return;
        }
        c.line("fputc('[', f);");
        c.open(&format!("for (uint32_t {k} = 0; {k} < {v}.len; {k}++) {{"));
        c.line(&format!("fputs({k} ? \", \" : \"\", f);"));
        match data {
            ArrayData::Plain { .. } => match array.elem {
                ElemType::Scalar(p) => self.json_scalar(c, p, &e),
                ElemType::Enum(id) => {
                    c.line(&format!("{}_json(f, {e}, false);", self.n.enum_name(id)))
                }
                _ => unreachable!("plain arrays hold scalars and enums"),
            },
            ArrayData::AosInline { id, .. }
            | ArrayData::AosTable { id }
            | ArrayData::Soa { elem: id } => {
                c.line(&format!("{}_json(f, &{e});", self.n.struct_name(*id)))
            }
            ArrayData::UnionAos { id, .. }
            | ArrayData::UnionSoa { id, .. }
            | ArrayData::UnionBunch { id, .. } => {
                c.line(&format!("{}_json(f, &{e});", self.n.union_name(*id)))
            }
            ArrayData::Arrays { array, data } => self.json_array(c, array, data, &e, d + 1),
        }
        c.close("}");
        c.line("fputc(']', f);");
    }
}

/// The same JSON export read through the checked viewers (views.rs), for
/// the golden-vector runner to prove the viewers: functions `void
/// <prefix>_<type>_view_json(FILE *, <type>_view)`; with `trusted`, the
/// same functions over the trusted viewers (`<type>_tview_json`), printed
/// by the same code under the trusted viewers' names, so that both kinds
/// must read every valid message alike. Include it after [`json_printer`]'s
/// output, whose number, text and enum printers it uses, and the trusted
/// one after the checked one (its UTF-16 printer).
pub fn view_json_printer(schema: &Schema, layout: &Layout, trusted: bool) -> String {
    let g = if trusted {
        Gen::trusted(schema, layout)
    } else {
        Gen::new(schema, layout)
    };
    let p = &g.prefix;
    let mut c = Code::new(0);
    // UTF-16 text as a JSON string of UTF-8, unpaired surrogates as
    // U+FFFD (format.md §6), as the decoders convert it.
    if !trusted {
        c.line(&format!(
        "void {p}_json_utf16(FILE *f, const uint16_t *s, uint32_t n);\n\nvoid {p}_json_utf16(FILE *f, const uint16_t *s, uint32_t n) {{
    fputc('\"', f);
    for (uint32_t i = 0; i < n; i++) {{
        uint32_t ch = s[i];
        if (ch >= 0xD800u && ch < 0xDC00u && i + 1 < n && s[i + 1] >= 0xDC00u && s[i + 1] < 0xE000u) {{
            ch = 0x10000u + ((ch - 0xD800u) << 10) + (s[i + 1] - 0xDC00u);
            i++;
        }} else if (ch >= 0xD800u && ch < 0xE000u) {{
            ch = 0xFFFDu;
        }}
        if (ch == '\"' || ch == '\\\\') {{
            fputc('\\\\', f);
            fputc((int)ch, f);
        }} else if (ch < 0x20u) {{
            fprintf(f, \"\\\\u%04x\", (unsigned)ch);
        }} else if (ch < 0x80u) {{
            fputc((int)ch, f);
        }} else if (ch < 0x800u) {{
            fputc((int)(0xC0u | (ch >> 6)), f);
            fputc((int)(0x80u | (ch & 0x3Fu)), f);
        }} else if (ch < 0x10000u) {{
            fputc((int)(0xE0u | (ch >> 12)), f);
            fputc((int)(0x80u | ((ch >> 6) & 0x3Fu)), f);
            fputc((int)(0x80u | (ch & 0x3Fu)), f);
        }} else {{
            fputc((int)(0xF0u | (ch >> 18)), f);
            fputc((int)(0x80u | ((ch >> 12) & 0x3Fu)), f);
            fputc((int)(0x80u | ((ch >> 6) & 0x3Fu)), f);
            fputc((int)(0x80u | (ch & 0x3Fu)), f);
        }}
    }}
    fputc('\"', f);
}}
"
        ));
    }
    let mut decls = Code::new(0);
    let mut defs = Code::new(0);
    let func = |decls: &mut Code, defs: &mut Code, sig: String, body: Code| {
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.raw(&body.out);
        defs.close("}");
        defs.line("");
    };
    for id in 0..schema.structs.len() {
        let view = g.view(id);
        let mut b = Code::new(1);
        b.line("(void)v;");
        let fields: Vec<(String, Part)> = layout
            .of_struct(id)
            .fields
            .iter()
            .enumerate()
            .map(|(i, fl)| {
                (
                    format!("{view}_{}", g.view_field(id, i)),
                    Part::Slot(&fl.slot),
                )
            })
            .collect();
        g.json_view_fields(&mut b, id, &fields);
        func(
            &mut decls,
            &mut defs,
            format!("void {view}_json(FILE *f, {view} v)"),
            b,
        );
        if let Some(soa) = &layout.soa[id] {
            for (prefix, sid) in g.soa_nodes(id) {
                let node = g.soa_node(id, &prefix);
                let nodes = g.soa_nodes(id);
                let fields: Vec<(String, Part)> = (0..schema.structs[sid].fields.len())
                    .map(|fi| {
                        let mut path = prefix.clone();
                        path.push(fi as u32);
                        let name = format!("{node}_{}", g.view_field(sid, fi));
                        let part = match soa.columns.iter().find(|c| c.path == path) {
                            Some(col) => Part::Slot(&col.slot),
                            None if nodes.contains_key(&path) => Part::Node(g.soa_node(id, &path)),
                            // A struct without columns: nothing to read.
                            None => Part::Empty,
                        };
                        (name, part)
                    })
                    .collect();
                let mut b = Code::new(1);
                b.line("(void)v;");
                g.json_view_fields(&mut b, sid, &fields);
                func(
                    &mut decls,
                    &mut defs,
                    format!("void {node}_json(FILE *f, {node} v)"),
                    b,
                );
            }
            let sv = g.soa_view(id);
            let mut b = Code::new(1);
            b.line("fputc('[', f);");
            b.open(&format!("for (uint32_t k = 0; k < {sv}_len(s); k++) {{"));
            b.line("fputs(k ? \", \" : \"\", f);");
            b.line(&format!("{} it = {sv}_at(s, k);", g.soa_item(id)));
            // Each scalar column's native array must hold what the item
            // reads: a difference adds an element no expected value has.
            for (kk, col) in soa.columns.iter().enumerate() {
                let p = match &col.slot {
                    Slot::Scalar(Primitive::Bool) => "u8",
                    Slot::Scalar(p) | Slot::Enum { repr: p, .. } => p.name(),
                    _ => continue,
                };
                let same = if col.slot == Slot::Scalar(Primitive::Bool) {
                    "(c.ptr[k] != 0) == want".to_string()
                } else {
                    "memcmp(&c.ptr[k], &want, sizeof want) == 0".to_string()
                };
                b.open("{");
                b.line(&format!("km_{p}_slice c = {}(s);", g.soa_column(id, kk)));
                b.open("if (c.ptr != NULL) {");
                b.line(&format!(
                    "{} want = {};",
                    match &col.slot {
                        Slot::Enum { id, .. } => g.n.enum_name(*id),
                        Slot::Scalar(p) => crate::c::c_prim(*p).to_string(),
                        _ => unreachable!("only scalar and enum columns get here"),
                    },
                    g.soa_item_read(id, kk, "it")
                ));
                b.open(&format!("if (c.len != {sv}_len(s) || !({same})) {{"));
                b.line("fputs(\"\\\"column differs\\\", \", f);");
                b.close("}");
                b.close("}");
                b.close("}");
            }
            b.line(&format!("{}_json(f, it);", g.soa_item(id)));
            b.close("}");
            b.line("fputc(']', f);");
            func(
                &mut decls,
                &mut defs,
                format!("void {sv}_json(FILE *f, {sv} s)"),
                b,
            );
        }
    }
    for (id, u) in schema.unions.iter().enumerate() {
        let uv = g.union_view(id);
        let mut b = Code::new(1);
        b.line(&format!("switch ({uv}_tag(u)) {{"));
        for v in &u.variants {
            b.open(&format!("case {}:", g.n.tag(id, v.ty)));
            b.line(&format!(
                "fputs(\"{{\\\"{}\\\": \", f);",
                schema.structs[v.ty].name
            ));
            b.line(&format!(
                "{}_json(f, {uv}_{}(u));",
                g.view(v.ty),
                g.view_variant(v.ty)
            ));
            b.line("fputc('}', f);");
            b.line("return;");
            b.indent -= 1;
        }
        b.line("default:");
        b.line("    break;");
        b.line("}");
        b.line("fputs(\"null\", f);");
        func(
            &mut decls,
            &mut defs,
            format!("void {uv}_json(FILE *f, {uv} u)"),
            b,
        );
    }
    c.append(decls);
    c.line("");
    c.append(defs);
    c.into_text()
}

impl Gen<'_> {
    /// A map key quoted (JSON object keys are strings); false for a key
    /// kind printed as itself (text).
    fn json_key(&self, c: &mut Code, slot: &Slot, v: &str) -> bool {
        match slot {
            Slot::Enum { id, .. } => {
                c.line(&format!("{}_json(f, {v}, true);", self.n.enum_name(*id)));
                true
            }
            Slot::Scalar(p) => {
                c.line("fputc('\"', f);");
                self.json_scalar(c, *p, v);
                c.line("fputc('\"', f);");
                true
            }
            _ => false,
        }
    }

    /// The fields of struct `id` read through a view `v`: by accessor
    /// name, what each reads (an SoA element's node is printed by its own
    /// function; a struct without columns is empty).
    fn json_view_fields(&self, c: &mut Code, id: StructId, fields: &[(String, Part)]) {
        let st = &self.s.structs[id];
        c.line(&format!(
            "fputc('{}', f);",
            if st.tuple { '[' } else { '{' }
        ));
        for (i, (name, part)) in fields.iter().enumerate() {
            if i > 0 {
                c.line("fputs(\", \", f);");
            }
            if !st.tuple {
                c.line(&format!("fputs(\"\\\"{}\\\": \", f);", st.fields[i].name));
            }
            match part {
                Part::Slot(slot) => self.json_view_slot(c, slot, name, "v", 0),
                Part::Node(node) => c.line(&format!("{node}_json(f, {name}(v));")),
                Part::Empty => {
                    let tuple = match &st.fields[i].ty {
                        FieldType::Struct(s) => self.s.structs[*s].tuple,
                        _ => false,
                    };
                    c.line(if tuple {
                        "fputs(\"[]\", f);"
                    } else {
                        "fputs(\"{}\", f);"
                    });
                }
            }
        }
        c.line(&format!(
            "fputc('{}', f);",
            if st.tuple { ']' } else { '}' }
        ));
    }

    /// One slot read by accessor `name` of view `v`.
    fn json_view_slot(&self, c: &mut Code, slot: &Slot, name: &str, v: &str, d: usize) {
        let call = format!("{name}({v})");
        match slot {
            Slot::Scalar(p) => self.json_scalar(c, *p, &call),
            Slot::Enum { id, .. } => c.line(&format!(
                "{}_json(f, {call}, false);",
                self.n.enum_name(*id)
            )),
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                c.line(&format!("{}_json(f, {call});", self.view(*id)))
            }
            Slot::OptionalTable(_) | Slot::Optional { .. } => {
                c.open(&format!("if ({name}_has({v})) {{"));
                match slot {
                    Slot::Optional { value, .. } => self.json_view_slot(c, value, name, v, d + 1),
                    Slot::OptionalTable(id) => {
                        c.line(&format!("{}_json(f, {call});", self.view(*id)))
                    }
                    _ => unreachable!(),
                }
                c.reopen("} else {");
                c.line("fputs(\"null\", f);");
                c.close("}");
            }
            Slot::Union { id, .. } => c.line(&format!("{}_json(f, {call});", self.union_view(*id))),
            Slot::FixedArray { elem, len, .. } => {
                let j = format!("j{d}");
                c.line("fputc('[', f);");
                c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
                c.line(&format!("fputs({j} ? \", \" : \"\", f);"));
                let e = format!("{name}_at({v}, {j})");
                match elem {
                    FixedElem::Scalar(p) => self.json_scalar(c, *p, &e),
                    FixedElem::Enum { id, .. } => {
                        c.line(&format!("{}_json(f, {e}, false);", self.n.enum_name(*id)))
                    }
                    FixedElem::InlineStruct(id) => {
                        c.line(&format!("{}_json(f, {e});", self.view(*id)))
                    }
                }
                c.close("}");
                c.line("fputc(']', f);");
            }
            Slot::ArrayRef { array, data } => {
                let x = format!("x{d}");
                c.open("{");
                c.line(&format!("{} {x} = {call};", self.array_view(array, data).0));
                self.json_view_array(c, array, data, &x, d);
                c.close("}");
            }
        }
    }

    /// The array view in local `x`.
    fn json_view_array(
        &self,
        c: &mut Code,
        array: &ArrayType,
        data: &ArrayData,
        x: &str,
        d: usize,
    ) {
        let p = &self.prefix;
        let k = format!("k{d}");
        let (ty, _) = self.array_view(array, data);
        match (array.text, data) {
            (Some(Text::Utf8), _) => {
                c.line(&format!("{p}_json_text(f, {x}.ptr, {x}.len);"));
                return;
            }
            (Some(Text::Utf16), _) => {
                c.line(&format!("{p}_json_utf16(f, {x}.ptr, {x}.len);"));
                return;
            }
            (None, ArrayData::Soa { elem }) => {
                c.line(&format!("{}_json(f, {x});", self.soa_view(*elem)));
                return;
            }
            _ => {}
        }
        if let (true, ArrayData::AosInline { id, .. }) = (array.is_map(), data) {
            let fields = &self.l.of_struct(*id).fields;
            let view = self.view(*id);
            let e = format!("e{d}");
            let key = format!("{view}_{}", self.view_field(*id, 0));
            let value = format!("{view}_{}", self.view_field(*id, 1));
            c.line("fputc('{', f);");
            c.open(&format!(
                "for (uint32_t {k} = 0; {k} < {ty}_len({x}); {k}++) {{"
            ));
            c.line(&format!("{view} {e} = {ty}_at({x}, {k});"));
            c.line(&format!("fputs({k} ? \", \" : \"\", f);"));
            // The look-up by key must find this very entry: a miss adds a
            // member no expected value has.
            c.open("{");
            c.line(&format!("{view} found;"));
            c.open(&format!(
                "if (!{ty}_get({x}, {key}({e}), &found) || found.at != {e}.at) {{"
            ));
            c.line("fputs(\"\\\"_get missed\\\": true, \", f);");
            c.close("}");
            c.close("}");
            if !self.json_key(c, &fields[0].slot, &format!("{key}({e})")) {
                self.json_view_slot(c, &fields[0].slot, &key, &e, d + 1);
            }
            c.line("fputs(\": \", f);");
            self.json_view_slot(c, &fields[1].slot, &value, &e, d + 1);
            c.close("}");
            c.line("fputc('}', f);");
            return;
        }
        c.line("fputc('[', f);");
        if let ArrayData::UnionBunch { id, .. } = data {
            // Each variant's values in declaration order, as the decoders
            // group them.
            let soa = array.layout == ArrayLayout::BoVoS;
            let n = format!("n{d}");
            c.line(&format!("uint32_t {n} = 0;"));
            for var in &self.s.unions[*id].variants {
                let (vt, item) = if soa {
                    (self.soa_view(var.ty), self.soa_item(var.ty))
                } else {
                    (self.view_array(var.ty), self.view(var.ty))
                };
                let y = format!("y{d}");
                c.open("{");
                c.line(&format!(
                    "{vt} {y} = {}({x});",
                    self.bunch_variant(*id, soa, var.tag)
                ));
                c.open(&format!(
                    "for (uint32_t {k} = 0; {k} < {vt}_len({y}); {k}++) {{"
                ));
                c.line(&format!("fputs({n}++ ? \", \" : \"\", f);"));
                c.line(&format!(
                    "fputs(\"{{\\\"{}\\\": \", f);",
                    self.s.structs[var.ty].name
                ));
                c.line(&format!("{item}_json(f, {vt}_at({y}, {k}));"));
                c.line("fputc('}', f);");
                c.close("}");
                c.close("}");
            }
            c.line("fputc(']', f);");
            return;
        }
        let len = match data {
            ArrayData::Plain { .. } => format!("{x}.len"),
            _ => format!("{ty}_len({x})"),
        };
        c.open(&format!("for (uint32_t {k} = 0; {k} < {len}; {k}++) {{"));
        c.line(&format!("fputs({k} ? \", \" : \"\", f);"));
        let e = format!("{ty}_at({x}, {k})");
        match data {
            ArrayData::Plain { .. } => match array.elem {
                ElemType::Scalar(Primitive::Bool) => {
                    self.json_scalar(c, Primitive::Bool, &format!("{x}.ptr[{k}] != 0"))
                }
                ElemType::Scalar(p) => self.json_scalar(c, p, &format!("{x}.ptr[{k}]")),
                ElemType::Enum(id) => c.line(&format!(
                    "{}_json(f, {x}.ptr[{k}], false);",
                    self.n.enum_name(id)
                )),
                _ => unreachable!("plain arrays hold scalars and enums"),
            },
            ArrayData::AosInline { id, .. } | ArrayData::AosTable { id } => {
                c.line(&format!("{}_json(f, {e});", self.view(*id)))
            }
            ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. } => {
                c.line(&format!("{}_json(f, {e});", self.union_view(*id)))
            }
            ArrayData::Arrays { array, data } => {
                let y = format!("x{}", d + 1);
                c.open("{");
                c.line(&format!("{} {y} = {e};", self.array_view(array, data).0));
                self.json_view_array(c, array, data, &y, d + 1);
                c.close("}");
            }
            ArrayData::Soa { .. } | ArrayData::UnionBunch { .. } => unreachable!("above"),
        }
        c.close("}");
        c.line("fputc(']', f);");
    }
}

/// What a field of a view reads, for the JSON printer of views.
enum Part<'a> {
    Slot(&'a Slot),
    Node(String),
    Empty,
}

//! A JSON export of decoded objects in the golden vectors' conventions
//! (testdata/vectors/README.md): structs as objects in declaration order
//! (tuples as arrays), enums as names where the schema has one, floats
//! exactly (`%.17g` with a fraction or exponent, non-finite values as
//! strings), unions as `{"Variant": value}`, maps as objects. Used by the
//! C golden-vector runner; not part of `karmem build` output, because it
//! needs `<stdio.h>`.

use karmem_layout::{ArrayData, FixedElem, Layout, Slot};
use karmem_schema::model::*;

use super::{Code, Gen};

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
        let name = g.enum_name(id);
        let sig = format!("void {name}_json(FILE *f, {name} x, bool quoted)");
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.line("switch (x) {");
        for v in &e.variants {
            defs.line(&format!("case {}:", super::int_literal(v.value)));
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
        let name = g.struct_name(id);
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
            g.json_slot(
                &mut defs,
                &fl.slot,
                &format!("x->{}", g.field_name(id, i)),
                0,
            );
        }
        defs.line(&format!(
            "fputc('{}', f);",
            if st.tuple { ']' } else { '}' }
        ));
        defs.close("}");
        defs.line("");
    }
    for (id, u) in schema.unions.iter().enumerate() {
        let name = g.union_name(id);
        let sig = format!("void {name}_json(FILE *f, const {name} *x)");
        decls.line(&format!("{sig};"));
        defs.open(&format!("{sig} {{"));
        defs.line("switch (x->tag) {");
        for v in &u.variants {
            defs.open(&format!("case {}:", g.tag_const(id, v.ty)));
            let m = g.variant_member(v.ty);
            defs.open(&format!("if (x->as.{m} != NULL) {{"));
            defs.line(&format!(
                "fputs(\"{{\\\"{}\\\": \", f);",
                schema.structs[v.ty].name
            ));
            defs.line(&format!("{}_json(f, x->as.{m});", g.struct_name(v.ty)));
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
                c.line(&format!("{}_json(f, {v}, false);", self.enum_name(*id)))
            }
            Slot::InlineStruct(id) | Slot::TableRef(id) => {
                c.line(&format!("{}_json(f, &{v});", self.struct_name(*id)))
            }
            Slot::OptionalTable(id) => {
                c.open(&format!("if ({v} != NULL) {{"));
                c.line(&format!("{}_json(f, {v});", self.struct_name(*id)));
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
            Slot::Union { id, .. } => c.line(&format!("{}_json(f, &{v});", self.union_name(*id))),
            Slot::FixedArray { elem, len, .. } => {
                let j = format!("j{d}");
                c.line("fputc('[', f);");
                c.open(&format!("for (uint32_t {j} = 0; {j} < {len}u; {j}++) {{"));
                c.line(&format!("fputs({j} ? \", \" : \"\", f);"));
                let e = format!("{v}[{j}]");
                match elem {
                    FixedElem::Scalar(p) => self.json_scalar(c, *p, &e),
                    FixedElem::Enum { id, .. } => {
                        c.line(&format!("{}_json(f, {e}, false);", self.enum_name(*id)))
                    }
                    FixedElem::InlineStruct(id) => {
                        c.line(&format!("{}_json(f, &{e});", self.struct_name(*id)))
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
            let key = self.field_name(*id, 0);
            let value = self.field_name(*id, 1);
            c.line("fputc('{', f);");
            c.open(&format!("for (uint32_t {k} = 0; {k} < {v}.len; {k}++) {{"));
            c.line(&format!("fputs({k} ? \", \" : \"\", f);"));
            match &fields[0].slot {
                Slot::Enum { id, .. } => c.line(&format!(
                    "{}_json(f, {e}.{key}, true);",
                    self.enum_name(*id)
                )),
                Slot::Scalar(p) => {
                    c.line("fputc('\"', f);");
                    self.json_scalar(c, *p, &format!("{e}.{key}"));
                    c.line("fputc('\"', f);");
                }
                other => self.json_slot(c, other, &format!("{e}.{key}"), d + 1),
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
                    c.line(&format!("{}_json(f, {e}, false);", self.enum_name(id)))
                }
                _ => unreachable!("plain arrays hold scalars and enums"),
            },
            ArrayData::AosInline { id, .. }
            | ArrayData::AosTable { id }
            | ArrayData::Soa { elem: id } => {
                c.line(&format!("{}_json(f, &{e});", self.struct_name(*id)))
            }
            ArrayData::UnionAos { id, .. }
            | ArrayData::UnionSoa { id, .. }
            | ArrayData::UnionBunch { id, .. } => {
                c.line(&format!("{}_json(f, &{e});", self.union_name(*id)))
            }
            ArrayData::Arrays { array, data } => self.json_array(c, array, data, &e, d + 1),
        }
        c.close("}");
        c.line("fputc(']', f);");
    }
}

//! SoA arrays: the element type's column table, `write_soa` / `read_soa` /
//! `validate_soa` (dense columns in tight loops, the rest element by
//! element), the array view with each scalar column as a native slice, and
//! the element view.

use std::fmt::Write as _;

use karmem_layout::{ArrayData, Slot, SoaLayout};
use karmem_schema::model::*;

use super::{mentions, mul, rust_prim, Ctx, Gen, MAX_ZIP};
use crate::names::{rust_ident, snake};

impl Gen<'_> {
    fn column_ident(&self, soa: &SoaLayout, k: usize) -> String {
        let c = &soa.columns[k];
        let parts: Vec<String> = c
            .steps
            .iter()
            .zip(&c.path)
            .map(|(s, i)| snake(&self.s.structs[*s].fields[*i as usize].name))
            .collect();
        let name = parts.join("_");
        match name.as_str() {
            "len" | "is_empty" | "get" | "iter" | "new" => format!("{name}_column"),
            _ => rust_ident(&name),
        }
    }

    fn column_place(&self, base: &str, soa: &SoaLayout, k: usize) -> String {
        let c = &soa.columns[k];
        let mut place = base.to_string();
        for (s, i) in c.steps.iter().zip(&c.path) {
            place.push('.');
            place.push_str(&self.field_ident(*s, *i as usize));
        }
        place
    }

    /// A struct literal of `id` (at `prefix` inside the SoA element) from
    /// the value expression of each column, by position path: nested
    /// inline structs and tables (flattened into columns) become nested
    /// literals.
    fn soa_literal(
        &self,
        id: StructId,
        prefix: &mut Vec<u32>,
        soa: &SoaLayout,
        values: &[(Vec<u32>, String)],
    ) -> String {
        let mut fields = Vec::new();
        for i in 0..self.s.structs[id].fields.len() {
            prefix.push(i as u32);
            let ident = self.field_ident(id, i);
            if let Some((_, value)) = values.iter().find(|(path, _)| path == prefix) {
                fields.push(format!("{ident}: {value}"));
            } else if let Some(c) = soa.columns.iter().find(|c| c.path.starts_with(prefix)) {
                let child = c.steps[prefix.len()];
                let inner = self.soa_literal(child, prefix, soa, values);
                fields.push(format!("{ident}: {inner}"));
            }
            prefix.pop();
        }
        format!("{} {{ {} }}", self.struct_name(id), fields.join(", "))
    }

    /// Cache lines worth prefetching ahead for an SoA column during a
    /// validation (`decode == false`) or decode loop: the start of an
    /// array's data when the loop will read it (text is checked or copied,
    /// a directory scanned, plain values copied). Array data of successive
    /// elements is scattered through the message, so without a hint each
    /// element costs a cache miss per child, one after another.
    pub(super) fn prefetch_lines(&self, slot: &Slot, decode: bool) -> Option<u32> {
        let Slot::ArrayRef { array, data } = slot else {
            return None;
        };
        match (array.text, data) {
            (Some(_), _) => Some(1),
            // Directory: count and hashes, then offsets (format.md §5.3).
            (None, ArrayData::Soa { .. }) => Some(2),
            (None, ArrayData::Plain { .. }) => {
                let bools = array.elem == ElemType::Scalar(Primitive::Bool);
                (decode || bools).then_some(1)
            }
            (None, ArrayData::AosInline { id, .. }) => {
                (decode || self.l.inline_needs_validation(*id)).then_some(1)
            }
            (None, _) => Some(1),
        }
    }

    /// The prefetch statements at the top of the decoder's SoA element loop (`i` is
    /// the element, `len` the array length, `r` a reader expression).
    fn soa_prefetch(&self, soa: &SoaLayout, r: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        let mut hints = String::new();
        for (k, c) in soa.columns.iter().enumerate() {
            if let Some(lines) = self.prefetch_lines(&c.slot, true) {
                let _ = writeln!(
                    hints,
                    "{pad}if ahead < len && cols[{k}] != 0 {{\n{pad}    {r}.prefetch_array(cols[{k}] + {}, {lines});\n{pad}}}",
                    mul("ahead", c.size)
                );
            }
        }
        if hints.is_empty() {
            return hints;
        }
        format!("{pad}let ahead = i + karmem::PREFETCH_AHEAD;\n{hints}")
    }

    pub(super) fn soa_item(&mut self, id: StructId, soa: &SoaLayout) {
        let name = self.struct_name(id);
        let n = soa.columns.len();
        let columns: Vec<String> = soa
            .columns
            .iter()
            .map(|c| format!("({:#010x}, {})", c.hash, c.size))
            .collect();
        self.w(&format!("impl {name} {{"));
        self.w("    /// `(hash, size)` of each SoA column, in writing order (format.md §5.3).");
        self.w("    #[doc(hidden)]");
        self.w(&format!(
            "    pub const SOA_COLUMNS: [(u32, u32); {n}] = [{}];",
            columns.join(", ")
        ));
        self.w("");
        // Dense columns (scalars, enums) are written and read column by
        // column in tight loops over one slice each; the rest (references,
        // unions, fixed arrays) element by element, which also fixes the
        // order of out-of-line children (format.md §8).
        let dense: Vec<bool> = soa
            .columns
            .iter()
            .map(|c| matches!(c.slot, Slot::Scalar(_) | Slot::Enum { .. }))
            .collect();
        let flags: Vec<&str> = dense
            .iter()
            .map(|d| if *d { "true" } else { "false" })
            .collect();
        self.w("    #[doc(hidden)]");
        self.w(&format!(
            "    pub const SOA_FILLED: [bool; {n}] = [{}];",
            flags.join(", ")
        ));
        self.w("");
        // write
        self.w("    #[doc(hidden)]");
        self.w("    pub fn write_soa<'x>(");
        // An element without columns (an empty table) writes only the
        // directory: its items are not looked at.
        let items = if n == 0 { "_items" } else { "items" };
        self.w(&format!(
            "        {items}: impl Iterator<Item = &'x Self> + Clone,"
        ));
        self.w("        count: usize,");
        self.w("        w: &mut karmem::Writer,");
        self.w("        at: u32,");
        self.w("    ) -> Result<(), karmem::Error> {");
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w(
            "        w.write_soa(at, count, &Self::SOA_COLUMNS, &Self::SOA_FILLED, &mut cols)?;",
        );
        // All dense columns in one pass over the elements: each element is
        // read once (a pass per column would stream a large array through
        // the cache once per column).
        let dense_cols: Vec<usize> = (0..n).filter(|k| dense[*k]).collect();
        if !dense_cols.is_empty() {
            let names: Vec<String> = dense_cols.iter().map(|k| format!("c{k}")).collect();
            let parts: Vec<String> = dense_cols
                .iter()
                .map(|k| {
                    let size = soa.columns[*k].size;
                    let bytes = if size == 1 {
                        "count as u32".to_string()
                    } else {
                        format!("(count * {size}) as u32")
                    };
                    format!("(cols[{k}], {bytes})")
                })
                .collect();
            self.w(&format!(
                "        let [{}] = w.slices_mut([{}]);",
                names.join(", "),
                parts.join(", ")
            ));
            for group in dense_cols.chunks(MAX_ZIP) {
                let mut pattern = "e".to_string();
                let mut iter = "items.clone()".to_string();
                for k in group {
                    pattern = format!("({pattern}, d{k})");
                    let _ = write!(
                        iter,
                        ".zip(c{k}.chunks_exact_mut({}))",
                        soa.columns[*k].size
                    );
                }
                self.w(&format!("        for {pattern} in {iter} {{"));
                for k in group {
                    let place = self.column_place("e", soa, *k);
                    let value = match &soa.columns[*k].slot {
                        Slot::Scalar(Primitive::Bool) => format!("[{place} as u8]"),
                        Slot::Enum { .. } => format!("{place}.0.to_le_bytes()"),
                        _ => format!("{place}.to_le_bytes()"),
                    };
                    self.w(&format!("            d{k}.copy_from_slice(&{value});"));
                }
                self.w("        }");
            }
        }
        if dense.iter().any(|d| !d) {
            self.w("        for (i, e) in items.enumerate() {");
            self.w("            let i = i as u32;");
            for (k, c) in soa.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let pos = format!("cols[{k}] + {}", mul("i", c.size));
                let code = self.write_slot(&c.slot, &place, &pos, 3);
                self.out.push_str(&code);
            }
            self.w("        }");
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        if let Some(k) = self.words_soa(id) {
            self.w("    #[doc(hidden)]");
            self.w("    pub fn write_soa_slice(items: &[Self], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
            self.w(&format!(
                "        const _: () = assert!(core::mem::size_of::<{name}>() == {});",
                4 * k
            ));
            self.w(&format!(
                "        // SAFETY: `{name}` is `#[repr(C)]` with {k} fields of 4-byte numbers and"
            ));
            self.w("        // no padding (size asserted above): each element is that many");
            self.w("        // initialised, 4-aligned words.");
            self.w(&format!(
                "        let words = unsafe {{ core::slice::from_raw_parts(items.as_ptr().cast::<u32>(), items.len() * {k}) }};"
            ));
            self.w("        w.write_soa_words(at, words, &Self::SOA_COLUMNS)");
            self.w("    }");
            self.w("");
        }
        // read
        self.w("    #[doc(hidden)]");
        self.w("    pub fn read_soa(");
        self.w("        items: &mut Vec<Self>,");
        self.w("        v: &mut karmem::Validator<'_>,");
        self.w("        a: karmem::ArrayRef,");
        self.w("    ) -> Result<(), karmem::Error> {");
        if n > 0 {
            self.w("        let r = v.reader;");
        }
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w("        v.soa_columns(a, &Self::SOA_COLUMNS, &mut cols)?;");
        let cost: u32 = soa.columns.iter().map(|c| c.size).sum();
        self.w(&format!(
            "        v.charge({})?;",
            mul("a.len as u64", cost.max(1))
        ));
        let plain_data = !dense.is_empty() && dense.iter().all(|d| *d);
        if !plain_data {
            self.w("        items.resize_with(a.len as usize, core::default::Default::default);");
        }
        // Dense columns as native slices, copied in one pass over the
        // elements when all are present; an absent column (older writer)
        // reads as zeros.
        let mut reads: Vec<(usize, String, String, String)> = Vec::new();
        for (k, c) in soa.columns.iter().enumerate() {
            if !dense[k] {
                continue;
            }
            let place = self.column_place("e", soa, k);
            let x = format!("x{k}");
            let (ty, value) = match &c.slot {
                Slot::Scalar(Primitive::Bool) => ("u8".to_string(), format!("*{x} != 0")),
                Slot::Scalar(p) => (rust_prim(*p).to_string(), format!("*{x}")),
                Slot::Enum { id, repr } => (
                    rust_prim(*repr).to_string(),
                    format!("{}(*{x})", self.enum_name(*id)),
                ),
                _ => unreachable!(),
            };
            self.w(&format!(
                "        let c{k} = r.slice::<{ty}>(cols[{k}], a.len);"
            ));
            reads.push((k, place, value, x));
        }
        let per_column = |g: &mut Self, indent: &str| {
            for (k, place, value, x) in &reads {
                g.w(&format!("{indent}if c{k}.len() == items.len() {{"));
                g.w(&format!(
                    "{indent}    for (e, {x}) in items.iter_mut().zip(c{k}) {{"
                ));
                g.w(&format!("{indent}        {place} = {value};"));
                g.w(&format!("{indent}    }}"));
                g.w(&format!("{indent}}} else {{"));
                g.w(&format!("{indent}    for e in items.iter_mut() {{"));
                g.w(&format!(
                    "{indent}        {place} = core::default::Default::default();"
                ));
                g.w(&format!("{indent}    }}"));
                g.w(&format!("{indent}}}"));
            }
        };
        if plain_data && reads.len() > MAX_ZIP {
            // Too wide for one zipped pass: resized, then filled in groups.
            self.w("        items.resize_with(a.len as usize, core::default::Default::default);");
        }
        if plain_data && reads.len() <= MAX_ZIP {
            // Elements own nothing (every leaf is a scalar column): rebuild
            // them in one pass, each written once, instead of resizing with
            // defaults and overwriting (which writes a new array twice).
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == a.len as usize"))
                .collect();
            self.w(&format!("        if {} {{", all.join(" && ")));
            self.w("            items.clear();");
            let (mut pattern, mut iter) = (String::new(), String::new());
            for (i, (k, _, _, x)) in reads.iter().enumerate() {
                if i == 0 {
                    pattern = x.clone();
                    iter = format!("c{k}.iter()");
                } else {
                    pattern = format!("({pattern}, {x})");
                    let _ = write!(iter, ".zip(c{k})");
                }
            }
            let values: Vec<(Vec<u32>, String)> = reads
                .iter()
                .map(|(k, _, value, _)| (soa.columns[*k].path.clone(), value.clone()))
                .collect();
            let literal = self.soa_literal(soa.elem, &mut Vec::new(), soa, &values);
            self.w(&format!(
                "            items.extend({iter}.map(|{pattern}| {literal}));"
            ));
            self.w("        } else {");
            self.w(
                "            items.resize_with(a.len as usize, core::default::Default::default);",
            );
            per_column(self, "            ");
            self.w("        }");
        } else if reads.len() == 1 {
            per_column(self, "        ");
        } else if !reads.is_empty() {
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == items.len()"))
                .collect();
            self.w(&format!("        if {} {{", all.join(" && ")));
            for group in reads.chunks(MAX_ZIP) {
                let mut pattern = "e".to_string();
                let mut iter = "items.iter_mut()".to_string();
                for (k, _, _, x) in group {
                    pattern = format!("({pattern}, {x})");
                    let _ = write!(iter, ".zip(c{k})");
                }
                self.w(&format!("            for {pattern} in {iter} {{"));
                for (_, place, value, _) in group {
                    self.w(&format!("                {place} = {value};"));
                }
                self.w("            }");
            }
            self.w("        } else {");
            per_column(self, "            ");
            self.w("        }");
        }
        if dense.iter().any(|d| !d) {
            self.w("        let len = a.len;");
            self.w("        for (i, e) in items.iter_mut().enumerate() {");
            self.w("            let i = i as u32;");
            let prefetch = self.soa_prefetch(soa, "r", 3);
            self.out.push_str(&prefetch);
            for (k, c) in soa.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let ctx = Ctx::Pos {
                    pos: format!("cols[{k}] + {}", mul("i", c.size)),
                    present: format!("cols[{k}] != 0"),
                };
                let code = self.read_slot(&c.slot, &place, &ctx, 3);
                self.out.push_str(&code);
            }
            self.w("        }");
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("");
        // validate: column by column (R4.5). Each column's checks run in
        // one tight loop; references are checked as a whole column first,
        // then whatever their data needs (text, nested directories).
        let body: String = soa
            .columns
            .iter()
            .enumerate()
            .map(|(k, c)| self.validate_column(k, c))
            .collect();
        self.w("    #[doc(hidden)]");
        self.w("    #[inline]");
        self.w("    pub fn validate_soa(v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {");
        let cols_mut = if body.is_empty() { "_cols" } else { "cols" };
        self.w(&format!("        let mut {cols_mut} = [0u32; {n}];"));
        self.w(&format!(
            "        v.soa(a, &Self::SOA_COLUMNS, &mut {cols_mut})?;"
        ));
        if !body.is_empty() {
            if mentions(&body, "r") {
                self.w("        let r = v.reader;");
            }
            self.w("        let len = a.len;");
            self.out.push_str(&body);
        }
        self.w("        Ok(())");
        self.w("    }");
        self.w("}");
        self.w("");

        // Array view.
        let sv = self.soa_name(id);
        let item = self.soa_item_name(id);
        let st_name = self.s.structs[id].name.clone();
        self.w(&format!(
            "/// SoA array of `{st_name}`: one directory scan when created, then every"
        ));
        self.w("/// scalar column is a native slice and element access is O(1).");
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {sv}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        // Without columns (an empty table) there is nothing to read: the
        // reader and the column offsets are kept for a uniform API.
        let unread = if n == 0 {
            "    #[allow(dead_code)]\n"
        } else {
            ""
        };
        self.out.push_str(unread);
        self.w("    r: karmem::Reader<'a, M>,");
        self.w("    len: u32,");
        self.out.push_str(unread);
        self.w(&format!("    cols: [u32; {n}],"));
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {sv}<'a, M> {{"));
        self.w("    #[doc(hidden)]");
        self.w("    pub fn new(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.w(&format!("        let mut cols = [0u32; {n}];"));
        self.w(&format!(
            "        r.soa_columns(a, &{name}::SOA_COLUMNS, &mut cols);"
        ));
        self.w(&format!("        {sv} {{ r, len: a.len, cols }}"));
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
            "    pub fn get(&self, i: usize) -> Option<{item}<'_, 'a, M>> {{"
        ));
        self.w(&format!(
            "        (i < self.len as usize).then_some({item} {{ s: self, i: i as u32 }})"
        ));
        self.w("    }");
        self.w("");
        self.w(&format!(
            "    pub fn iter(&self) -> impl ExactSizeIterator<Item = {item}<'_, 'a, M>> {{"
        ));
        self.w(&format!(
            "        (0..self.len).map(move |i| {item} {{ s: self, i }})"
        ));
        self.w("    }");
        for (k, c) in soa.columns.iter().enumerate() {
            let t = match &c.slot {
                Slot::Scalar(Primitive::Bool) => Some(("u8".to_string(), "slice")),
                Slot::Scalar(p) => Some((rust_prim(*p).to_string(), "slice")),
                Slot::Enum { id, .. } => Some((self.enum_name(*id), "newtype_slice")),
                _ => None,
            };
            if let Some((t, slice)) = t {
                let ident = self.column_ident(soa, k);
                self.w("");
                self.w(&format!(
                    "    /// The whole `{}` column as a native slice (absent column: empty).",
                    ident
                ));
                self.w("    #[inline]");
                self.w(&format!("    pub fn {ident}(&self) -> &'a [{t}] {{"));
                self.w(&format!(
                    "        self.r.{slice}::<{t}>(self.cols[{k}], self.len)"
                ));
                self.w("    }");
            }
        }
        self.w("}");
        self.w("");
        self.w(&format!("/// One element of a [`{sv}`]."));
        self.w("#[derive(Clone, Copy)]");
        self.w(&format!(
            "pub struct {item}<'s, 'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        if n == 0 {
            self.w("    #[allow(dead_code)]");
        }
        self.w(&format!("    s: &'s {sv}<'a, M>,"));
        if n == 0 {
            self.w("    #[allow(dead_code)]");
        }
        self.w("    i: u32,");
        self.w("}");
        self.w("");
        self.w(&format!("impl<'a, M: karmem::Mode> {item}<'_, 'a, M> {{"));
        for (k, c) in soa.columns.iter().enumerate() {
            let ident = self.column_ident(soa, k);
            let ctx = Ctx::Pos {
                pos: format!("self.s.cols[{k}] + {}", mul("self.i", c.size)),
                present: format!("self.s.cols[{k}] != 0"),
            };
            let before = self.out.len();
            self.view_accessor(&ident, &c.slot, &ctx, &[]);
            // Element views reach the reader through the array view (a
            // field, not a helper method, which a column named `r` would
            // clash with).
            let emitted = self
                .out
                .split_off(before)
                .replace("self.r.", "self.s.r.")
                .replace("self.r,", "self.s.r,");
            self.out.push_str(&emitted);
        }
        self.w("}");
        self.w("");
    }
}

//! SoA arrays: the element type's column table, `write_soa` / `read_soa` /
//! `validate_soa` (dense columns in tight loops, the rest element by
//! element), the array view with each scalar column as a native slice, and
//! the element view.

use std::fmt::Write as _;

use karmem_layout::{ArrayPlan, Slot, SoaLayout};
use karmem_schema::model::*;

use super::code::Code;
use super::views::Ctx;
use super::{column_accessor, mul, rust_prim, Gen, MAX_ZIP};
use crate::walk::{read_slot, write_slot, SlotPrinter};

impl Gen<'_> {
    fn column_ident(&self, soa: &SoaLayout, k: usize) -> String {
        column_accessor(self.s, soa, k)
    }

    fn column_place(&self, base: &str, soa: &SoaLayout, k: usize) -> String {
        let c = &soa.columns[k];
        let mut place = base.to_string();
        for (s, i) in c.steps.iter().zip(&c.path) {
            place.push('.');
            place.push_str(&self.n.field(*s, *i as usize));
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
        let tuple = self.s.structs[id].tuple;
        let mut fields = Vec::new();
        for i in 0..self.s.structs[id].fields.len() {
            prefix.push(i as u32);
            let ident = self.n.field(id, i);
            let value = if let Some((_, value)) = values.iter().find(|(path, _)| path == prefix) {
                Some(value.clone())
            } else if let Some(c) = soa.columns.iter().find(|c| c.path.starts_with(prefix)) {
                let child = c.steps[prefix.len()];
                Some(self.soa_literal(child, prefix, soa, values))
            } else {
                None
            };
            if let Some(value) = value {
                // A tuple struct is built positionally (every element is
                // a column here: the literal is only used when all are).
                fields.push(if tuple {
                    value
                } else {
                    format!("{ident}: {value}")
                });
            }
            prefix.pop();
        }
        if tuple {
            format!("{}({})", self.n.struct_name(id), fields.join(", "))
        } else {
            format!("{} {{ {} }}", self.n.struct_name(id), fields.join(", "))
        }
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
        match self.l.array_plan(array, data) {
            // The block's first word, then the (shared) directory it points
            // to (format.md §5.3): two lines.
            ArrayPlan::Soa { .. } => Some(2),
            ArrayPlan::Plain { elem, .. } => {
                let bools = elem == ElemType::Scalar(Primitive::Bool);
                (decode || bools).then_some(1)
            }
            ArrayPlan::AosInline { id, .. } => {
                (decode || self.l.inline_needs_validation(id)).then_some(1)
            }
            _ => Some(1),
        }
    }

    /// The prefetch statements at the top of the decoder's SoA element loop (`i` is
    /// the element, `len` the array length, `r` a reader expression).
    fn soa_prefetch(&self, c: &mut Code, soa: &SoaLayout, r: &str) {
        let hints: Vec<(usize, u32, u32)> = soa
            .columns
            .iter()
            .enumerate()
            .filter_map(|(k, col)| Some((k, col.size, self.prefetch_lines(&col.slot, true)?)))
            .collect();
        if hints.is_empty() {
            return;
        }
        c.line("let ahead = i + karmem::PREFETCH_AHEAD;");
        for (k, size, lines) in hints {
            c.open(&format!("if ahead < len && cols[{k}] != 0 {{"));
            c.line(&format!(
                "{r}.prefetch_array(cols[{k}] + {}, {lines});",
                mul("ahead", size)
            ));
            c.close("}");
        }
    }

    pub(super) fn soa_item(&mut self, id: StructId, soa: &SoaLayout) {
        let name = self.n.struct_name(id);
        let n = soa.columns.len();
        let columns: Vec<String> = soa
            .columns
            .iter()
            .map(|c| format!("({:#010x}, {})", c.hash, c.size))
            .collect();
        self.c.open(&format!("impl {name} {{"));
        self.c
            .line("/// `(hash, size)` of each SoA column, in writing order (format.md §5.3).");
        self.c.line("#[doc(hidden)]");
        self.c.line(&format!(
            "pub const SOA_COLUMNS: [(u32, u32); {n}] = [{}];",
            columns.join(", ")
        ));
        self.c.line("");
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
        self.c.line("#[doc(hidden)]");
        self.c.line(&format!(
            "pub const SOA_FILLED: [bool; {n}] = [{}];",
            flags.join(", ")
        ));
        self.c.line("");
        // write
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn write_soa<'x>(");
        // An element without columns (an empty table) writes only the
        // directory: its items are not looked at.
        let items = if n == 0 { "_items" } else { "items" };
        self.c
            .line(&format!("{items}: impl Iterator<Item = &'x Self> + Clone,"));
        self.c.line("count: usize,");
        self.c.line("w: &mut karmem::Writer,");
        self.c.line("at: u32,");
        self.c.reopen(") -> Result<(), karmem::Error> {");
        self.c.line(&format!("let mut cols = [0u32; {n}];"));
        self.c
            .line("w.write_soa(at, count, &Self::SOA_COLUMNS, &Self::SOA_FILLED, &mut cols)?;");
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
            self.c.line(&format!(
                "let [{}] = w.slices_mut([{}]);",
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
                self.c.open(&format!("for {pattern} in {iter} {{"));
                for k in group {
                    let place = self.column_place("e", soa, *k);
                    let value = match &soa.columns[*k].slot {
                        Slot::Scalar(Primitive::Bool) => format!("[{place} as u8]"),
                        Slot::Enum { .. } => format!("{place}.0.to_le_bytes()"),
                        _ => format!("{place}.to_le_bytes()"),
                    };
                    self.c.line(&format!("d{k}.copy_from_slice(&{value});"));
                }
                self.c.close("}");
            }
        }
        if dense.iter().any(|d| !d) {
            self.c.open("for (i, e) in items.enumerate() {");
            self.c.line("let i = i as u32;");
            for (k, c) in soa.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let pos = format!("cols[{k}] + {}", mul("i", c.size));
                self.emit(|g, out| write_slot(g, out, &c.slot, &place, &pos));
            }
            self.c.close("}");
        }
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        if let Some(k) = self.words_soa(id) {
            self.c.line("#[doc(hidden)]");
            self.c.open("pub fn write_soa_slice(items: &[Self], w: &mut karmem::Writer, at: u32) -> Result<(), karmem::Error> {");
            self.c.line(&format!(
                "const _: () = assert!(core::mem::size_of::<{name}>() == {});",
                4 * k
            ));
            self.c.line(&format!(
                "// SAFETY: `{name}` is `#[repr(C)]` with {k} fields of 4-byte numbers and"
            ));
            self.c
                .line("// no padding (size asserted above): each element is that many");
            self.c.line("// initialised, 4-aligned words.");
            self.c.line(&format!(
                "let words = unsafe {{ core::slice::from_raw_parts(items.as_ptr().cast::<u32>(), items.len() * {k}) }};"
            ));
            self.c
                .line("w.write_soa_words(at, words, &Self::SOA_COLUMNS)");
            self.c.close("}");
            self.c.line("");
        }
        // read
        self.c.line("#[doc(hidden)]");
        self.c.open("pub fn read_soa(");
        self.c.line("items: &mut Vec<Self>,");
        self.c.line("v: &mut karmem::Validator<'_>,");
        self.c.line("a: karmem::ArrayRef,");
        self.c.reopen(") -> Result<(), karmem::Error> {");
        if n > 0 {
            self.c.line("let r = v.reader;");
        }
        // An element without columns (an empty table) still has its
        // directory checked and charged; the column offsets go unused.
        let cols = if n > 0 { "cols" } else { "_cols" };
        self.c.line(&format!(
            "let {cols} = v.soa_columns(a, &Self::SOA_COLUMNS)?;"
        ));
        self.c.line(&format!(
            "v.charge({})?;",
            mul("a.len as u64", soa.element_charge())
        ));
        // A column the directory does not list is built as zeros, paid for
        // by the width above, but for what its zero value holds: a fixed
        // array of inline structs holding tables (format.md §10).
        for (k, c) in soa.columns.iter().enumerate() {
            let held = self.l.absent_charge(&c.slot);
            if held > 0 {
                self.c.open(&format!("if {cols}[{k}] == 0 && a.len > 0 {{"));
                self.c.line(&format!(
                    "v.charge((a.len as u64).saturating_mul({held}))?;"
                ));
                self.c.close("}");
            }
        }
        let plain_data = !dense.is_empty() && dense.iter().all(|d| *d);
        if !plain_data {
            self.c
                .line("items.resize_with(a.len as usize, core::default::Default::default);");
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
                    format!("{}(*{x})", self.n.enum_name(*id)),
                ),
                _ => unreachable!(),
            };
            self.c
                .line(&format!("let c{k} = r.slice::<{ty}>(cols[{k}], a.len);"));
            reads.push((k, place, value, x));
        }
        // An absent column reads as its field's default, else as zero.
        let absent: Vec<String> = reads
            .iter()
            .map(|(k, ..)| {
                let c = &soa.columns[*k];
                match c.field(self.s).nonzero_default() {
                    Some(d) => self.default_expr(&c.slot, d),
                    None => "core::default::Default::default()".into(),
                }
            })
            .collect();
        let per_column = |c: &mut Code| {
            for ((k, place, value, x), absent) in reads.iter().zip(&absent) {
                c.open(&format!("if c{k}.len() == items.len() {{"));
                c.open(&format!("for (e, {x}) in items.iter_mut().zip(c{k}) {{"));
                c.line(&format!("{place} = {value};"));
                c.close("}");
                c.reopen("} else {");
                c.open("for e in items.iter_mut() {");
                c.line(&format!("{place} = {absent};"));
                c.close("}");
                c.close("}");
            }
        };
        if plain_data && reads.len() > MAX_ZIP {
            // Too wide for one zipped pass: resized, then filled in groups.
            self.c
                .line("items.resize_with(a.len as usize, core::default::Default::default);");
        }
        if plain_data && reads.len() <= MAX_ZIP {
            // Elements own nothing (every leaf is a scalar column): rebuild
            // them in one pass, each written once, instead of resizing with
            // defaults and overwriting (which writes a new array twice).
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == a.len as usize"))
                .collect();
            self.c.open(&format!("if {} {{", all.join(" && ")));
            self.c.line("items.clear();");
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
            self.c
                .line(&format!("items.extend({iter}.map(|{pattern}| {literal}));"));
            self.c.reopen("} else {");
            self.c
                .line("items.resize_with(a.len as usize, core::default::Default::default);");
            per_column(&mut self.c);
            self.c.close("}");
        } else if reads.len() == 1 {
            per_column(&mut self.c);
        } else if !reads.is_empty() {
            let all: Vec<String> = reads
                .iter()
                .map(|(k, ..)| format!("c{k}.len() == items.len()"))
                .collect();
            self.c.open(&format!("if {} {{", all.join(" && ")));
            for group in reads.chunks(MAX_ZIP) {
                let mut pattern = "e".to_string();
                let mut iter = "items.iter_mut()".to_string();
                for (k, _, _, x) in group {
                    pattern = format!("({pattern}, {x})");
                    let _ = write!(iter, ".zip(c{k})");
                }
                self.c.open(&format!("for {pattern} in {iter} {{"));
                for (_, place, value, _) in group {
                    self.c.line(&format!("{place} = {value};"));
                }
                self.c.close("}");
            }
            self.c.reopen("} else {");
            per_column(&mut self.c);
            self.c.close("}");
        }
        if dense.iter().any(|d| !d) {
            // The prefetch hints look ahead up to the array's length.
            let prefetch = soa
                .columns
                .iter()
                .any(|c| self.prefetch_lines(&c.slot, true).is_some());
            if prefetch {
                self.c.line("let len = a.len;");
            }
            self.c.open("for (i, e) in items.iter_mut().enumerate() {");
            self.c.line("let i = i as u32;");
            self.emit(|g, c| g.soa_prefetch(c, soa, "r"));
            let plan = self.l.soa_plan(self.s, id);
            for (k, f) in plan.columns.iter().enumerate() {
                if dense[k] {
                    continue;
                }
                let place = self.column_place("e", soa, k);
                let ctx = self.field_ctx(f.access);
                self.emit(|g, out| read_slot(g, out, f.slot, &place, &ctx, f.default));
            }
            self.c.close("}");
        }
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.line("");
        // validate: column by column (R4.5). Each column's checks run in
        // one tight loop; references are checked as a whole column first,
        // then whatever their data needs (text, nested directories).
        let columns: Vec<Code> = soa
            .columns
            .iter()
            .enumerate()
            .map(|(k, c)| self.validate_column(k, c))
            .collect();
        let uses_r = columns.iter().any(|c| c.reads());
        let body: String = columns.into_iter().map(Code::into_text).collect();
        self.c.line("#[doc(hidden)]");
        self.c.line("#[inline]");
        self.c.open("pub fn validate_soa(v: &mut karmem::Validator<'_>, a: karmem::ArrayRef) -> Result<(), karmem::Error> {");
        // Columns with checks of their own (array columns always): the
        // plan's answer, not the text's.
        let checked = self.l.soa_needs_validation(id);
        let cols = if checked { "cols" } else { "_cols" };
        self.c
            .line(&format!("let {cols} = v.soa(a, &Self::SOA_COLUMNS)?;"));
        // What a decoder builds for a column the directory does not list,
        // beyond its width: as `read_soa` charges it, per element of the
        // capacity (format.md §10).
        for (k, c) in soa.columns.iter().enumerate() {
            let held = self.l.absent_charge(&c.slot);
            if held > 0 {
                self.c.open(&format!("if {cols}[{k}] == 0 && a.cap > 0 {{"));
                self.c.line(&format!(
                    "v.charge((a.cap as u64).saturating_mul({held}))?;"
                ));
                self.c.close("}");
            }
        }
        if checked {
            if uses_r {
                self.c.line("let r = v.reader;");
            }
            self.c.line("let len = a.len;");
            self.c.raw(&body);
        }
        self.c.line("Ok(())");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");

        // Array view.
        let sv = self.soa_name(id);
        let item = self.soa_item_name(id);
        let st_name = self.s.structs[id].name.clone();
        self.c.line(&format!(
            "/// SoA array of `{st_name}`: one directory scan when created, then every"
        ));
        self.c
            .line("/// scalar column is a native slice and element access is O(1).");
        self.c.line("#[derive(Clone, Copy)]");
        self.c.open(&format!(
            "pub struct {sv}<'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        // Without columns (an empty table) there is nothing to read: the
        // reader and the column offsets are kept for a uniform API.
        if n == 0 {
            self.c.line("#[allow(dead_code)]");
        }
        self.c.line("r: karmem::Reader<'a, M>,");
        self.c.line("len: u32,");
        if n == 0 {
            self.c.line("#[allow(dead_code)]");
        }
        self.c.line(&format!("cols: [u32; {n}],"));
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {sv}<'a, M> {{"));
        self.c.line("#[doc(hidden)]");
        self.c
            .open("pub fn new(r: karmem::Reader<'a, M>, a: karmem::ArrayRef) -> Self {");
        self.c.line(&format!(
            "let cols = r.soa_columns(a, &{name}::SOA_COLUMNS);"
        ));
        self.c.line(&format!("{sv} {{ r, len: a.len, cols }}"));
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
            "pub fn get(&self, i: usize) -> Option<{item}<'_, 'a, M>> {{"
        ));
        self.c.line(&format!(
            "(i < self.len as usize).then_some({item} {{ s: self, i: i as u32 }})"
        ));
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!(
            "pub fn iter(&self) -> impl ExactSizeIterator<Item = {item}<'_, 'a, M>> {{"
        ));
        self.c.line(&format!(
            "(0..self.len).map(move |i| {item} {{ s: self, i }})"
        ));
        self.c.close("}");
        for (k, c) in soa.columns.iter().enumerate() {
            let t = match &c.slot {
                Slot::Scalar(Primitive::Bool) => Some(("u8".to_string(), "slice")),
                Slot::Scalar(p) => Some((rust_prim(*p).to_string(), "slice")),
                Slot::Enum { id, .. } => Some((self.n.enum_name(*id), "newtype_slice")),
                _ => None,
            };
            if let Some((t, slice)) = t {
                let ident = self.column_ident(soa, k);
                self.c.line("");
                self.c.line(&format!(
                    "/// The whole `{}` column as a native slice (absent column: empty).",
                    ident
                ));
                self.c.line("#[inline]");
                self.c
                    .open(&format!("pub fn {ident}(&self) -> &'a [{t}] {{"));
                self.c
                    .line(&format!("self.r.{slice}::<{t}>(self.cols[{k}], self.len)"));
                self.c.close("}");
            }
        }
        self.c.close("}");
        self.c.line("");
        self.c.line(&format!("/// One element of a [`{sv}`]."));
        self.c.line("#[derive(Clone, Copy)]");
        self.c.open(&format!(
            "pub struct {item}<'s, 'a, M: karmem::Mode = karmem::Checked> {{"
        ));
        if n == 0 {
            self.c.line("#[allow(dead_code)]");
        }
        self.c.line(&format!("s: &'s {sv}<'a, M>,"));
        if n == 0 {
            self.c.line("#[allow(dead_code)]");
        }
        self.c.line("i: u32,");
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'a, M: karmem::Mode> {item}<'_, 'a, M> {{"));
        for (k, c) in soa.columns.iter().enumerate() {
            let ident = self.column_ident(soa, k);
            let ctx = Ctx::Pos {
                pos: format!("self.s.cols[{k}] + {}", mul("self.i", c.size)),
                present: format!("self.s.cols[{k}] != 0"),
            };
            // Element views reach the reader through the array view (a
            // field, not a helper method, which a column named `r` would
            // clash with).
            let default = c.field(self.s).nonzero_default();
            self.view_accessor(&ident, &c.slot, &ctx, &[], default, "self.s.r");
        }
        self.c.close("}");
        self.c.line("");
    }
}

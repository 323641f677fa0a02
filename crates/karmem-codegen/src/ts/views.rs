//! Item views of SoA elements (issue #19 gap 6): per struct whose fields
//! SoA columns hold — an element, or a struct flattened into one — a class
//! `<Name>SoaItem` whose getters read the columns of one element in place,
//! handed out by `karmem.SoaView.get(i)` through the module's
//! `viewers.soa`. The columns come from the layout (`Layout::soa`): an
//! item reaches its leaves through the element's column indices in
//! flattening order (the columns sorted by path, which is the order
//! `flatten` walked them in before the directory sorted them by
//! alignment), so one class serves a struct wherever it is flattened.

use std::collections::{BTreeMap, BTreeSet};

use karmem_layout::Slot;
use karmem_schema::model::*;

use super::{prim_str, Gen};
use crate::emit::Lines;

impl Gen<'_> {
    /// The column indices (layout order) of SoA element `elem`'s leaves in
    /// flattening order, or None when no SoA array holds `elem`.
    pub(super) fn soa_order(&self, elem: StructId) -> Option<Vec<usize>> {
        let soa = self.l.soa[elem].as_ref()?;
        let mut order: Vec<usize> = (0..soa.columns.len()).collect();
        order.sort_by(|&a, &b| soa.columns[a].path.cmp(&soa.columns[b].path));
        Some(order)
    }

    /// How many leaves (columns) each field of each struct that SoA
    /// columns hold flattens into: `(struct, field) → leaves`.
    pub(super) fn soa_leaves(&self) -> BTreeMap<(StructId, usize), usize> {
        let mut leaves = BTreeMap::new();
        for soa in self.l.soa.iter().flatten() {
            for c in &soa.columns {
                for (j, (&s, &f)) in c.steps.iter().zip(&c.path).enumerate() {
                    let prefix = &c.path[..=j];
                    leaves.entry((s, f as usize)).or_insert_with(|| {
                        soa.columns
                            .iter()
                            .filter(|d| d.path.starts_with(prefix))
                            .count()
                    });
                }
            }
        }
        leaves
    }

    /// The structs that have an item view: the SoA elements and the
    /// structs flattened into them.
    fn soa_item_structs(&self) -> BTreeSet<StructId> {
        let mut out = BTreeSet::new();
        let mut todo: Vec<StructId> = self.l.soa.iter().flatten().map(|s| s.elem).collect();
        // The structs flattened into an element, those without columns
        // (an empty inline struct) too: their getters return item views.
        while let Some(id) = todo.pop() {
            if out.insert(id) {
                for f in &self.l.of_struct(id).fields {
                    if let Slot::InlineStruct(s) | Slot::TableRef(s) = f.slot {
                        todo.push(s);
                    }
                }
            }
        }
        out
    }

    /// Every `<Name>SoaItem` class, and per SoA element the constant of
    /// its leaves' column indices.
    pub(super) fn soa_items(&self, c: &mut Lines) {
        let leaves = self.soa_leaves();
        for id in self.soa_item_structs() {
            self.soa_item(c, id, &leaves);
        }
        for id in 0..self.s.structs.len() {
            if let Some(order) = self.soa_order(id) {
                let order: Vec<String> = order.iter().map(usize::to_string).collect();
                c.line("");
                c.line(&format!(
                    "/** `{}`'s SoA columns (layout order) in flattening order, for its item views. */",
                    self.s.structs[id].name
                ));
                c.line(&format!(
                    "const $columns{}: readonly number[] = [{}];",
                    self.n.struct_name(id),
                    order.join(", ")
                ));
            }
        }
    }

    fn soa_item(&self, c: &mut Lines, id: StructId, leaves: &BTreeMap<(StructId, usize), usize>) {
        let name = self.n.struct_name(id);
        let st = &self.s.structs[id];
        let sl = self.l.of_struct(id);
        c.line("");
        c.line(&format!(
            "/** `{name}` as (part of) an element of an SoA array: each getter reads its column of element `$i` in place (absent: the field's default). */"
        ));
        c.open(&format!("export class {name}SoaItem {{"));
        c.open("constructor(");
        c.line("readonly $s: karmem.SoaView,");
        c.line("readonly $i: number,");
        c.line("/** The element's column indices in flattening order; this struct's leaves start at `$o`. */");
        c.line("readonly $c: readonly number[],");
        c.line("readonly $o: number,");
        c.close(") {}");
        let mut start = 0usize;
        for (i, f) in st.fields.iter().enumerate() {
            let n = leaves.get(&(id, i)).copied().unwrap_or(0);
            let k = if start == 0 {
                "this.$c[this.$o]!".to_string()
            } else {
                format!("this.$c[this.$o + {start}]!")
            };
            let slot = &sl.fields[i].slot;
            let (ty, body) = match slot {
                // Flattened: the nested struct's leaves follow.
                Slot::InlineStruct(s) | Slot::TableRef(s) => {
                    let t = format!("{}SoaItem", self.n.struct_name(*s));
                    let o = if start == 0 {
                        "this.$o".to_string()
                    } else {
                        format!("this.$o + {start}")
                    };
                    (
                        t.clone(),
                        format!("return new {t}(this.$s, this.$i, this.$c, {o});"),
                    )
                }
                Slot::Scalar(p) | Slot::Enum { repr: p, .. } => (
                    self.field_ts(f),
                    format!(
                        "const at = this.$s.at({k}, this.$i);\nreturn at !== 0 ? this.$s.r.{}(at) : {};",
                        prim_str(*p),
                        self.absent(f, slot)
                    ),
                ),
                _ => {
                    let t = self.field_view_ts(f);
                    let body = match f.nonzero_default().filter(|_| !f.optional) {
                        Some(d) => format!(
                            "const k = {k};\nreturn this.$s.at(k, this.$i) !== 0 ? (this.$s.leaf(k, this.$i) as {t}) : {};",
                            self.default_value(slot, d)
                        ),
                        None => format!("return this.$s.leaf({k}, this.$i) as {t};"),
                    };
                    (t, body)
                }
            };
            start += n;
            Self::doc(c, &f.doc);
            c.open(&format!("get {}(): {ty} {{", super::prop_name(&f.name)));
            c.block(&body);
            c.close("}");
        }
        c.close("}");
    }
}

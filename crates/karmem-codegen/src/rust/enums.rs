//! Enums: the newtype over the wire value, its constants, `name()` and
//! `Debug`.

use super::{rust_prim, Gen};
use crate::names::screaming;
use karmem_schema::model::*;

impl Gen<'_> {
    pub(super) fn enum_item(&mut self, id: EnumId) {
        let e = &self.s.enums[id];
        let name = self.enum_name(id);
        let repr = rust_prim(e.repr);
        self.c.doc(&e.doc);
        self.c.line("///");
        self.c.line("/// A newtype over the wire value, so values unknown to this schema version survive a round trip.");
        self.c
            .line("#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]");
        if self.serde {
            self.c
                .line("#[derive(serde::Serialize, serde::Deserialize)]");
            self.c.line("#[serde(transparent)]");
        }
        self.c.line("#[repr(transparent)]");
        self.c.line(&format!("pub struct {name}(pub {repr});"));
        self.c.line("");
        self.c.line(&format!(
            "// SAFETY: `repr(transparent)` over `{repr}`, and every `{repr}` is a valid `{name}`."
        ));
        self.c
            .open(&format!("unsafe impl karmem::ScalarNewtype for {name} {{"));
        self.c.line(&format!("type Repr = {repr};"));
        self.c.close("}");
        self.c.line("");
        self.c.line("#[allow(clippy::derivable_impls)]");
        self.c
            .open(&format!("impl core::default::Default for {name} {{"));
        self.c.open("fn default() -> Self {");
        self.c.line(&format!("{name}(0)"));
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!("impl {name} {{"));
        let mut arms = Vec::new();
        for v in &e.variants {
            let c = screaming(&v.name);
            for d in &v.doc {
                self.c.line(&format!("/// {d}"));
            }
            self.c
                .line(&format!("pub const {c}: {name} = {name}({});", v.value));
            arms.push(format!("{} => Some(\"{}\"),", v.value, v.name));
        }
        self.c.line("");
        self.c
            .line("/// The schema name of this value, if this schema version knows it.");
        self.c.open("pub fn name(self) -> Option<&'static str> {");
        self.c.open("match self.0 {");
        for arm in &arms {
            self.c.line(arm);
        }
        self.c.line("_ => None,");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.c.open(&format!("impl core::fmt::Debug for {name} {{"));
        self.c
            .open("fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {");
        self.c.open("match self.name() {");
        self.c.line("Some(n) => f.write_str(n),");
        self.c
            .line(&format!("None => write!(f, \"{name}({{}})\", self.0),"));
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
    }
}

//! Enums: the newtype over the wire value, its constants, `name()` and
//! `Debug`.

use karmem_schema::model::*;
use std::fmt::Write as _;

use super::{rust_prim, Gen};
use crate::names::screaming;

impl Gen<'_> {
    pub(super) fn enum_item(&mut self, id: EnumId) {
        let e = &self.s.enums[id];
        let name = self.enum_name(id);
        let repr = rust_prim(e.repr);
        self.doc(&e.doc.clone());
        self.w("///");
        self.w("/// A newtype over the wire value, so values unknown to this schema version survive a round trip.");
        self.w("#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]");
        if self.serde {
            self.w("#[derive(serde::Serialize, serde::Deserialize)]");
            self.w("#[serde(transparent)]");
        }
        self.w("#[repr(transparent)]");
        self.w(&format!("pub struct {name}(pub {repr});"));
        self.w("");
        self.w(&format!(
            "// SAFETY: `repr(transparent)` over `{repr}`, and every `{repr}` is a valid `{name}`."
        ));
        self.w(&format!("unsafe impl karmem::ScalarNewtype for {name} {{"));
        self.w(&format!("    type Repr = {repr};"));
        self.w("}");
        self.w("");
        self.w("#[allow(clippy::derivable_impls)]");
        self.w(&format!("impl core::default::Default for {name} {{"));
        self.w("    fn default() -> Self {");
        self.w(&format!("        {name}(0)"));
        self.w("    }");
        self.w("}");
        self.w("");
        self.w(&format!("impl {name} {{"));
        let mut arms = String::new();
        for v in &e.variants {
            let c = screaming(&v.name);
            for d in &v.doc {
                self.w(&format!("    /// {d}"));
            }
            self.w(&format!("    pub const {c}: {name} = {name}({});", v.value));
            let _ = writeln!(arms, "            {} => Some(\"{}\"),", v.value, v.name);
        }
        self.w("");
        self.w("    /// The schema name of this value, if this schema version knows it.");
        self.w("    pub fn name(self) -> Option<&'static str> {");
        self.w("        match self.0 {");
        self.out.push_str(&arms);
        self.w("            _ => None,");
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");
        self.w(&format!("impl core::fmt::Debug for {name} {{"));
        self.w("    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {");
        self.w("        match self.name() {");
        self.w("            Some(n) => f.write_str(n),");
        self.w(&format!(
            "            None => write!(f, \"{name}({{}})\", self.0),"
        ));
        self.w("        }");
        self.w("    }");
        self.w("}");
        self.w("");
    }
}

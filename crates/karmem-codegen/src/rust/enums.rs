//! Enums: the newtype over the wire value, its constants, `name()`,
//! `from_name()` and `Debug` (and, with serde, the JSON convention of
//! testdata/vectors/README.md: a name where the schema has one, else the
//! number).

use super::{rust_prim, Gen};
use karmem_schema::model::*;

impl Gen<'_> {
    pub(super) fn enum_item(&mut self, id: EnumId) {
        let e = &self.s.enums[id];
        let name = self.n.enum_name(id);
        let repr = rust_prim(e.repr);
        self.c.doc(&e.doc);
        self.c.line("///");
        self.c.line("/// A newtype over the wire value, so values unknown to this schema version survive a round trip.");
        self.c
            .line("#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]");
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
        let mut from_arms = Vec::new();
        for (i, v) in e.variants.iter().enumerate() {
            let c = self.n.value(id, i);
            for d in &v.doc {
                self.c.line(&format!("/// {d}"));
            }
            self.c
                .line(&format!("pub const {c}: {name} = {name}({});", v.value));
            arms.push(format!("{} => Some(\"{}\"),", v.value, v.name));
            from_arms.push(format!("\"{}\" => Some({name}::{c}),", v.name));
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
        self.c.line("");
        self.c
            .line("/// The value the schema names `name`, if this schema version has it.");
        self.c.line("#[allow(clippy::should_implement_trait)]");
        self.c
            .open("pub fn from_name(name: &str) -> Option<Self> {");
        self.c.open("match name {");
        for arm in &from_arms {
            self.c.line(arm);
        }
        self.c.line("_ => None,");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        if self.serde {
            let schema_name = e.name.clone();
            self.enum_serde(&name, repr, &schema_name);
        }
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

    /// serde in the JSON convention of the golden vectors: a value the
    /// schema names is its name, any other the number; both are read.
    fn enum_serde(&mut self, name: &str, repr: &str, schema_name: &str) {
        self.c.open(&format!("impl serde::Serialize for {name} {{"));
        self.c
            .open("fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {");
        self.c.open("match self.name() {");
        self.c.line("Some(n) => s.serialize_str(n),");
        self.c
            .line("None => serde::Serialize::serialize(&self.0, s),");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
        self.c
            .open(&format!("impl<'de> serde::Deserialize<'de> for {name} {{"));
        self.c
            .open("fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {");
        self.c.line("#[derive(serde::Deserialize)]");
        self.c.line("#[serde(untagged)]");
        self.c.open("enum NameOrNumber {");
        self.c.line("Name(String),");
        self.c.line(&format!("Number({repr}),"));
        self.c.close("}");
        self.c
            .open("match <NameOrNumber as serde::Deserialize>::deserialize(d)? {");
        self.c
            .line(&format!("NameOrNumber::Number(n) => Ok({name}(n)),"));
        self.c.open(&format!(
            "NameOrNumber::Name(s) => {name}::from_name(&s).ok_or_else(|| {{"
        ));
        self.c.line(&format!(
            "serde::de::Error::custom(format!(\"`{{s}}` is not a value of enum `{schema_name}`\"))"
        ));
        self.c.close("}),");
        self.c.close("}");
        self.c.close("}");
        self.c.close("}");
        self.c.line("");
    }
}

//! Go backend: generates, per schema, one Go file (package from
//! `@golang.package(...)`, else the schema name) with
//!
//! * object types with `WriteAsRoot` / `ReadAsRoot` (decoding reuses
//!   slices, strings and union values already held by the object);
//! * `Validate<Type>` functions (one pass, format.md §11);
//! * zero-copy viewers in the seed README's style: small position values
//!   whose methods take the `*karmem.Reader` (`NewAccountDataViewer(reader,
//!   0).Profiles(reader)`), native slices over SoA columns and plain arrays;
//! * in-place setters for scalar table fields (`karmem.Editor`);
//! * the same viewers again for validated messages (`Trusted` + name),
//!   whose methods take a `karmem.Trusted` and skip the format's checks,
//!   and `Trust<Type>` functions that validate and return them
//!   (RATIONALE R5.11).
//!
//! The emitted text is gofmt-clean by construction (tests check it with
//! `gofmt -l`); the runtime library is `karmem.org/go/karmem` (`go/`).

mod code;
mod object;
mod validate;
mod views;

use std::collections::BTreeSet;

use karmem_layout::{ArrayData, Layout, Slot};
use karmem_schema::model::*;

pub(crate) use crate::names::GO_KEYWORDS;
use crate::names::{module_ident, Namer, GO};
use crate::{Backend, Error, GeneratedFile};
use code::{align, Code};

/// Import path of the Go runtime library.
pub const GO_MODULE: &str = "karmem.org/go/karmem";

/// The Go generator.
#[derive(Clone, Debug, Default)]
pub struct GoBackend;

impl Backend for GoBackend {
    fn name(&self) -> &'static str {
        "go"
    }

    fn generate(&self, schema: &Schema, layout: &Layout) -> Result<Vec<GeneratedFile>, Error> {
        let package = package_name(schema);
        let n = Namer::new(&GO, schema);
        // Go's names are Pascal case with upper-case initialisms (`ID`),
        // which can merge two names of the schema: refused rather than
        // generated as Go that does not build.
        if let Some(clash) = n.clash() {
            return Err(Error(format!(
                "{clash} in Go (names are Pascal case, initialisms upper-case): rename one of them"
            )));
        }
        let mut g = Gen {
            s: schema,
            l: layout,
            n,
            c: Code::new(0),
            trusted: false,
        };
        g.body();
        // The packages the code uses, as the code writing each use
        // recorded it (`Code::pkg`), not as found in the text.
        let uses = |pkg: &str| g.c.uses(pkg);
        let mut imports = Vec::new();
        if uses("json") {
            imports.push("\"encoding/json\"".to_string());
        }
        if uses("errors") {
            imports.push("\"errors\"".to_string());
        }
        if uses("iter") {
            imports.push("\"iter\"".to_string());
        }
        if uses("strconv") {
            imports.push("\"strconv\"".to_string());
        }
        if uses("karmem") {
            imports.push(format!("\"{GO_MODULE}\""));
        }
        let body = std::mem::take(&mut g.c.out);
        let mut file = crate::header("//", schema);
        file.push('\n');
        file.push_str(&format!("package {package}\n"));
        match imports.len() {
            0 => {}
            1 => file.push_str(&format!("\nimport {}\n", imports[0])),
            _ => {
                // Standard library first, then the runtime, as goimports
                // groups them.
                file.push_str("\nimport (\n");
                let (std, ours): (Vec<_>, Vec<_>) = imports.iter().partition(|i| !i.contains('.'));
                for i in &std {
                    file.push_str(&format!("\t{i}\n"));
                }
                if !std.is_empty() && !ours.is_empty() {
                    file.push('\n');
                }
                for i in &ours {
                    file.push_str(&format!("\t{i}\n"));
                }
                file.push_str(")\n");
            }
        }
        file.push('\n');
        file.push_str(body.trim_end());
        file.push('\n');
        Ok(vec![GeneratedFile {
            path: format!("{package}.go"),
            contents: file,
        }])
    }
}

/// The Go package name: `@golang.package(...)`, else the schema name,
/// reduced to a valid lower-case identifier.
pub fn package_name(schema: &Schema) -> String {
    let raw = schema
        .attribute("golang.package")
        .unwrap_or(&schema.package);
    module_ident(raw, GO_KEYWORDS)
}

/// An exported Go identifier for a schema name: `field_as_soa` →
/// `FieldAsSoa`, `ID` → `ID`, `x` → `X`.
pub fn go_name(name: &str) -> String {
    GO.types.apply(name)
}

pub(crate) fn go_prim(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "uint8",
        Primitive::U16 => "uint16",
        Primitive::U32 => "uint32",
        Primitive::U64 => "uint64",
        Primitive::I8 => "int8",
        Primitive::I16 => "int16",
        Primitive::I32 => "int32",
        Primitive::I64 => "int64",
        Primitive::F32 => "float32",
        Primitive::F64 => "float64",
        Primitive::Bool => "bool",
    }
}

/// The suffix of the runtime's typed loads and stores (`Uint32`, `Bool`).
pub(crate) fn wire(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "Uint8",
        Primitive::U16 => "Uint16",
        Primitive::U32 => "Uint32",
        Primitive::U64 => "Uint64",
        Primitive::I8 => "Int8",
        Primitive::I16 => "Int16",
        Primitive::I32 => "Int32",
        Primitive::I64 => "Int64",
        Primitive::F32 => "Float32",
        Primitive::F64 => "Float64",
        Primitive::Bool => "Bool",
    }
}

/// The zero literal of a scalar.
/// A Go interpreted string literal of `text` (schema strings have no
/// newlines; quotes, backslashes and control characters are escaped).
fn go_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(crate) fn zero_of(p: Primitive) -> &'static str {
    if p == Primitive::Bool {
        "false"
    } else {
        "0"
    }
}

/// Where a field's bytes are, for the viewers being emitted (go/views.rs).
/// The decoders, validators and encoders print the shared walker's plan
/// and use its `crate::walk::Ctx`.
#[derive(Clone)]
pub(crate) enum Ctx {
    /// A table field: `t` is the table expression, `off` the field offset.
    Table { t: String, off: u32 },
    /// A fixed position; `absent` is a condition under which the field is
    /// not there (`None`: always present).
    Pos {
        pos: code::Pos,
        absent: Option<String>,
    },
}

pub(crate) struct Gen<'a> {
    pub s: &'a Schema,
    pub l: &'a Layout,
    /// The names of the schema's items (`crate::names::GO`).
    pub n: Namer<'a>,
    pub c: Code,
    /// Emitting the trusted viewers: type names take the `Trusted` prefix,
    /// methods take a `karmem.Trusted`, and only the checks that are part
    /// of the format's meaning (absence, table evolution, indices) remain.
    pub trusted: bool,
}

impl Gen<'_> {
    // ---- names (struct, enum, union and field names are `self.n`'s) --------

    /// A declared default (docs/idl.md §4.3.1) as a Go constant of the
    /// slot's reader type: a number, `true`, `TeamOrcs`, or a string.
    pub(crate) fn default_expr(&self, slot: &Slot, d: &DefaultValue) -> String {
        if let Some(literal) = crate::scalar_default(slot, d) {
            return literal;
        }
        match (slot, d) {
            (Slot::Enum { id, .. }, DefaultValue::Enum { variant, .. }) => {
                self.n.value(*id, *variant)
            }
            (_, DefaultValue::Enum { value, .. }) => value.to_string(),
            (_, DefaultValue::Text(t)) => go_quote(t),
            _ => unreachable!("numbers and booleans are crate::scalar_default's"),
        }
    }
    /// `Trusted` while emitting the trusted viewers, else nothing: the
    /// prefix of every viewer type name.
    pub fn mode(&self) -> &'static str {
        if self.trusted {
            "Trusted"
        } else {
            ""
        }
    }
    /// The reader parameter of viewer methods.
    pub fn reader_type(&self) -> &'static str {
        if self.trusted {
            "karmem.Trusted"
        } else {
            "*karmem.Reader"
        }
    }
    /// The runtime function giving a native slice over the message.
    pub fn slice_fn(&self) -> &'static str {
        if self.trusted {
            "karmem.TrustedSlice"
        } else {
            "karmem.Slice"
        }
    }
    pub fn view_name(&self, id: StructId) -> String {
        format!("{}{}Viewer", self.mode(), self.n.struct_name(id))
    }
    pub fn soa_view(&self, id: StructId) -> String {
        format!("{}{}SoaViewer", self.mode(), self.n.struct_name(id))
    }
    pub fn soa_item(&self, id: StructId) -> String {
        format!("{}{}SoaItem", self.mode(), self.n.struct_name(id))
    }
    pub fn aos_view(&self, id: StructId) -> String {
        format!("{}{}AosViewer", self.mode(), self.n.struct_name(id))
    }
    pub fn union_view(&self, id: UnionId) -> String {
        format!("{}{}Viewer", self.mode(), self.n.union_name(id))
    }
    /// The viewer of an AoS or SoA array of unions (`ShapeArrayViewer`).
    pub fn union_array(&self, id: UnionId) -> String {
        format!("{}{}ArrayViewer", self.mode(), self.n.union_name(id))
    }
    pub fn union_tag(&self, id: UnionId) -> String {
        format!("{}Tag", self.n.union_name(id))
    }

    // ---- Go types of object fields ------------------------------------------

    pub fn elem_type(&self, e: ElemType) -> String {
        match e {
            ElemType::Scalar(p) => go_prim(p).to_string(),
            ElemType::Enum(id) => self.n.enum_name(id),
            ElemType::Struct(id) => self.n.struct_name(id),
            ElemType::Union(id) => self.n.union_name(id),
            ElemType::Array(id) => self.obj_type(&FieldType::Array(self.s.arrays[id])),
        }
    }

    pub fn obj_type(&self, ty: &FieldType) -> String {
        match ty {
            // `map<K, V>`: its entry struct's key and value.
            FieldType::Array(a) if a.is_map() => {
                let (key, value) = self.entry_fields(a);
                format!(
                    "map[{}]{}",
                    self.obj_type(&key.ty),
                    self.obj_type(&value.ty)
                )
            }
            FieldType::Scalar(p) => go_prim(*p).to_string(),
            FieldType::Enum(id) => self.n.enum_name(*id),
            FieldType::Struct(id) => self.n.struct_name(*id),
            FieldType::Union(id) => self.n.union_name(*id),
            FieldType::Array(a) => match (a.kind, a.text) {
                (ArrayKind::Fixed(n), _) => format!("[{n}]{}", self.elem_type(a.elem)),
                (_, Some(_)) => "string".into(),
                _ => format!("[]{}", self.elem_type(a.elem)),
            },
        }
    }

    /// Go object type of the value an optional slot holds (its field is a
    /// pointer to it).
    pub fn value_type(&self, slot: &Slot) -> String {
        match slot {
            Slot::Scalar(p) => go_prim(*p).into(),
            Slot::Enum { id, .. } => self.n.enum_name(*id),
            Slot::InlineStruct(id) | Slot::TableRef(id) | Slot::OptionalTable(id) => {
                self.n.struct_name(*id)
            }
            Slot::ArrayRef { array, .. } => self.obj_type(&FieldType::Array(*array)),
            Slot::Union { id, .. } => self.n.union_name(*id),
            Slot::FixedArray { .. } | Slot::Optional { .. } => {
                unreachable!("the schema checker refuses optional fixed arrays and `??T`")
            }
        }
    }

    /// The key and value fields of a map's entry struct (format.md §5.5).
    pub fn entry_fields(&self, a: &ArrayType) -> (&Field, &Field) {
        let ElemType::Struct(entry) = a.elem else {
            unreachable!("a map holds its entry struct")
        };
        let fields = &self.s.structs[entry].fields;
        (&fields[0], &fields[1])
    }

    // ---- file ----------------------------------------------------------------

    /// `type Root = NAME` for a schema that declares `root NAME;` (the
    /// compiler refuses another type that would be called `Root`).
    fn root_alias(&mut self) {
        let Some(root) = self.s.root else { return };
        let name = self.n.struct_name(root);
        if name != "Root" {
            self.c.line(&format!(
                "// Root is {name}, the schema's root type (`root {};`).",
                self.s.structs[root].name
            ));
            self.c.line(&format!("type Root = {name}"));
            self.c.line("");
        }
    }

    fn body(&mut self) {
        for item in self.s.order.clone() {
            match item {
                Item::Enum(id) => self.enum_item(id),
                Item::Struct(id) => {
                    self.struct_object(id);
                    self.struct_view(id);
                }
                Item::Union(id) => {
                    self.union_object(id);
                    self.union_view_item(id);
                }
                Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.soa_object(id);
                self.soa_view_item(id);
            }
        }
        self.root_alias();
        let uses = self.uses();
        for id in &uses.aos {
            self.aos_view_item(*id);
        }
        for id in &uses.union_arrays {
            self.union_array_view(*id);
        }
        for (id, soa) in &uses.bunches {
            self.bunch_object(*id, *soa);
            self.bunch_view(*id, *soa);
        }
        // The trusted viewers: the same emitters in trusted mode.
        self.trusted = true;
        for item in self.s.order.clone() {
            match item {
                Item::Struct(id) => {
                    self.trust_function(id);
                    self.struct_view(id);
                }
                Item::Union(id) => self.union_view_item(id),
                Item::Enum(_) | Item::Memory(_) | Item::Interface(_) => {}
            }
        }
        for id in 0..self.s.structs.len() {
            if self.l.soa[id].is_some() {
                self.soa_view_item(id);
            }
        }
        for id in &uses.aos {
            self.aos_view_item(*id);
        }
        for id in &uses.union_arrays {
            self.union_array_view(*id);
        }
        for (id, soa) in &uses.bunches {
            self.bunch_view(*id, *soa);
        }
        self.trusted = false;
    }

    /// Which helper types the schema's arrays need.
    fn uses(&self) -> Uses {
        let mut u = Uses::default();
        let tables: Vec<bool> = (0..self.s.structs.len())
            .map(|id| self.l.is_table(id))
            .collect();
        let mut slots: Vec<&Slot> = Vec::new();
        for st in &self.l.structs {
            slots.extend(st.fields.iter().map(|f| &f.slot));
        }
        for soa in self.l.soa.iter().flatten() {
            slots.extend(soa.columns.iter().map(|c| &c.slot));
        }
        for slot in slots {
            // An optional value is its value's slot behind a presence byte.
            let slot = match slot {
                Slot::Optional { value, .. } => value,
                other => other,
            };
            if let Slot::ArrayRef { array, data } = slot {
                u.note_array(array, data, &tables);
            }
        }
        u
    }

    // ---- enums ---------------------------------------------------------------

    fn enum_item(&mut self, id: EnumId) {
        let e = self.s.enums[id].clone();
        let name = self.n.enum_name(id);
        self.c.doc(&e.doc);
        if !e.doc.is_empty() {
            self.c.line("//");
        }
        self.c.line(&format!(
            "// {name} is the enum `{}` ({}). Values unknown to this schema",
            e.name,
            e.repr.name()
        ));
        self.c.line("// version are kept as they are.");
        self.c.line(&format!("type {name} {}", go_prim(e.repr)));
        self.c.line("");
        if !e.variants.is_empty() {
            let rows: Vec<Vec<String>> = (0..e.variants.len())
                .map(|i| {
                    vec![
                        self.n.value(id, i),
                        format!("{name} = {}", e.variants[i].value),
                    ]
                })
                .collect();
            self.c.open("const (");
            for (v, row) in e.variants.iter().zip(align(&rows)) {
                self.c.doc(&v.doc);
                self.c.line(&row);
            }
            self.c.close(")");
            self.c.line("");
        }
        // One switch from value to name, shared by String and MarshalJSON.
        self.c
            .line("// name is the schema name of the value, if this schema version has one.");
        self.c
            .open(&format!("func (x {name}) name() (string, bool) {{"));
        if !e.variants.is_empty() {
            self.c.line("switch x {");
            for (i, v) in e.variants.iter().enumerate() {
                self.c.line(&format!("case {}:", self.n.value(id, i)));
                self.c.indent += 1;
                self.c.line(&format!("return \"{}\", true", v.name));
                self.c.indent -= 1;
            }
            self.c.line("}");
        }
        self.c.line("return \"\", false");
        self.c.close("}");
        self.c.line("");
        self.c
            .line("// String returns the schema name of the value, or the number.");
        self.c.open(&format!("func (x {name}) String() string {{"));
        self.c.open("if n, ok := x.name(); ok {");
        self.c.line("return n");
        self.c.close("}");
        let strconv = self.c.pkg("strconv");
        if e.repr.is_signed() {
            self.c.line(&format!(
                "return \"{name}(\" + {strconv}.FormatInt(int64(x), 10) + \")\""
            ));
        } else {
            self.c.line(&format!(
                "return \"{name}(\" + {strconv}.FormatUint(uint64(x), 10) + \")\""
            ));
        }
        self.c.close("}");
        self.c.line("");
        self.enum_json(id, &e, &name);
    }

    /// `MarshalJSON`/`UnmarshalJSON` in the JSON convention of the golden
    /// vectors and `karmem json` (testdata/vectors/README.md): a value the
    /// schema names is that name, any other the number; both are read.
    fn enum_json(&mut self, id: EnumId, e: &Enum, name: &str) {
        let strconv = self.c.pkg("strconv");
        let (format, parse) = if e.repr.is_signed() {
            (
                format!("{strconv}.AppendInt(nil, int64(x), 10)"),
                format!("{strconv}.ParseInt"),
            )
        } else {
            (
                format!("{strconv}.AppendUint(nil, uint64(x), 10)"),
                format!("{strconv}.ParseUint"),
            )
        };
        self.c
            .line("// MarshalJSON writes the schema name of the value as a JSON string, or the");
        self.c
            .line("// number when this schema version has no name for it.");
        self.c
            .open(&format!("func (x {name}) MarshalJSON() ([]byte, error) {{"));
        self.c.open("if n, ok := x.name(); ok {");
        self.c.line("return []byte(`\"` + n + `\"`), nil");
        self.c.close("}");
        self.c.line(&format!("return {format}, nil"));
        self.c.close("}");
        self.c.line("");
        self.c.line(&format!(
            "// UnmarshalJSON reads a schema name of {name} (a JSON string) or a number;"
        ));
        self.c.line("// null leaves the value as it is.");
        self.c.open(&format!(
            "func (x *{name}) UnmarshalJSON(b []byte) error {{"
        ));
        self.c.line("switch string(b) {");
        self.c.line("case \"null\":");
        self.c.indent += 1;
        self.c.line("return nil");
        self.c.indent -= 1;
        for (i, v) in e.variants.iter().enumerate() {
            self.c.line(&format!("case `\"{}\"`:", v.name));
            self.c.indent += 1;
            self.c.line(&format!("*x = {}", self.n.value(id, i)));
            self.c.line("return nil");
            self.c.indent -= 1;
        }
        self.c.line("}");
        self.c.line(&format!(
            "n, err := {parse}(string(b), 10, {})",
            8 * e.repr.size()
        ));
        self.c.open("if err != nil {");
        let errors = self.c.pkg("errors");
        self.c.line(&format!(
            "return {errors}.New(\"karmem: \" + string(b) + \" is not a value of enum {}\")",
            e.name
        ));
        self.c.close("}");
        self.c.line(&format!("*x = {name}(n)"));
        self.c.line("return nil");
        self.c.close("}");
        self.c.line("");
    }
}

#[derive(Default)]
struct Uses {
    aos: BTreeSet<StructId>,
    union_arrays: BTreeSet<UnionId>,
    bunches: BTreeSet<(UnionId, bool)>,
}

impl Uses {
    /// The helper types an array of `data` needs, its elements' included
    /// when they are arrays themselves.
    /// Arrays of inline structs need none: they are slices of the viewer
    /// images.
    fn note_array(&mut self, array: &ArrayType, data: &ArrayData, tables: &[bool]) {
        match data {
            ArrayData::AosTable { id } => {
                self.aos.insert(*id);
            }
            ArrayData::UnionAos { id, .. } | ArrayData::UnionSoa { id, .. } => {
                self.union_arrays.insert(*id);
            }
            ArrayData::UnionBunch { id, variants, .. } => {
                let soa = array.layout == ArrayLayout::BoVoS;
                self.bunches.insert((*id, soa));
                if !soa {
                    for v in variants.iter().filter(|v| tables[v.ty]) {
                        self.aos.insert(v.ty);
                    }
                }
            }
            ArrayData::Arrays { array, data } => self.note_array(array, data, tables),
            ArrayData::Plain { .. } | ArrayData::Soa { .. } | ArrayData::AosInline { .. } => {}
        }
    }
}

/// A `[<N]T` limit as the runtime's `uint32` argument.
pub(crate) fn go_limit(limit: Option<u32>) -> String {
    limit.map_or("karmem.NoLimit".into(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(source: &str) -> Result<String, Error> {
        let (schema, layout) = karmem_layout::load("t.km", source).expect("valid schema");
        let files = GoBackend.generate(&schema, &layout)?;
        assert_eq!(files.len(), 1);
        Ok(files[0].contents.clone())
    }

    #[test]
    fn a_declared_root_gets_the_alias_root() {
        let out = generate("karmem k;\nroot A;\nstruct A table { X u8; }\n").unwrap();
        assert!(out.contains("\ntype Root = A\n"), "{out}");
        let out = generate("karmem k;\nroot Root;\nstruct Root table { X u8; }\n").unwrap();
        assert!(!out.contains("type Root ="), "{out}");
        let out = generate("karmem k;\nstruct A table { X u8; }\n").unwrap();
        assert!(!out.contains("type Root"), "{out}");
    }

    #[test]
    fn names() {
        assert_eq!(go_name("field_as_soa"), "FieldAsSoa");
        assert_eq!(go_name("ID"), "ID");
        assert_eq!(go_name("x"), "X");
        assert_eq!(go_name("user_id"), "UserID");
    }

    #[test]
    fn initialisms_are_upper_case_and_merged_names_refused() {
        let out = generate("karmem k;\nstruct User table { Id u32; HomeUrl []char; }\n").unwrap();
        assert!(out.contains("\tID "), "{out}");
        assert!(out.contains("func (v UserViewer) HomeURL("), "{out}");
        // The JSON keys stay the schema's names.
        assert!(out.contains("`json:\"Id\"`"), "{out}");
        let err = generate("karmem k;\nstruct User table { Id u32; ID u32; }\n").unwrap_err();
        assert!(err.0.contains("`Id` of `User` and field `ID`"), "{err}");
    }

    #[test]
    fn package_from_attribute_or_schema_name() {
        let out =
            generate("karmem app @golang.package(`km`);\nstruct A table { X u8; }\n").unwrap();
        assert!(out.starts_with("// Code generated by karmem; DO NOT EDIT.\n"));
        assert!(out.contains("\npackage km\n"));
        let out = generate("karmem game;\nstruct A inline { X u8; }\n").unwrap();
        assert!(out.contains("\npackage game\n"));
        let out = generate("karmem type;\nstruct A inline { X u8; }\n").unwrap();
        assert!(out.contains("\npackage type_\n"));
    }

    #[test]
    fn deterministic_and_imports_only_what_is_used() {
        let src = "karmem e;\nenum E u8 { A; B; }\n";
        let out = generate(src).unwrap();
        assert_eq!(out, generate(src).unwrap());
        // An enum's String and JSON methods: errors and strconv, sorted as
        // gofmt sorts them; no runtime.
        assert!(
            out.contains("import (\n\t\"errors\"\n\t\"strconv\"\n)\n"),
            "{out}"
        );
        assert!(!out.contains("karmem.org"));
    }

    #[test]
    fn recursion_through_an_array() {
        // Go struct types embed inline structs and tables by value: a table
        // holding itself through fields would have no finite Go type, and
        // the schema compiler refuses it (format.md §8). Through an array or
        // a union the recursion is fine.
        generate("karmem r;\nstruct Node table { Children []Node #aos; }\n").unwrap();
    }

    #[test]
    fn soa_arrays_are_validated_column_by_column() {
        let out = generate(
            "karmem g;\nstruct P inline { X f32; }\nstruct T inline { L []char; W []u16 @string; }\n\
             struct M inline { Name []char; Inv [<8]u8; Path []P; Tags []T; On bool; }\n\
             struct S table { Ms []M; }\n",
        )
        .unwrap();
        let soa = &out[out.find("func validateSoaM(").unwrap()..];
        let soa = &soa[..soa.find("\n}\n").unwrap()];
        // References of a column together, then what they lead to: text and
        // plain directories in one call, anything else element by element.
        for call in [
            "v.ArrayColumn(cols[0], n, 1, karmem.NoLimit)",
            "v.UTF8Column(cols[0], n)",
            "v.ArrayColumn(cols[1], n, 1, 8)",
            "v.SoaColumn(cols[2], n, soaColumnsP[:])",
            "a := v.ColumnRef(cols[3], i)",
            "validateSoaT(v, a)",
            "v.BoolAt(cols[4] + i)",
        ] {
            assert!(soa.contains(call), "{call} missing in:\n{soa}");
        }
        assert!(!soa.contains("v.Array("), "{soa}");
        // T's text columns make it need checks of its own.
        assert!(!soa.contains("soaColumnsT[:]"), "{soa}");
    }

    #[test]
    fn method_names_are_not_taken_by_fields() {
        let out = generate("karmem r;\nstruct A table { Table u8; WriteAsRoot u8; }\n").unwrap();
        assert!(out.contains("Table_       uint8"), "{out}");
        assert!(out.contains("func (v AViewer) Table_(r *karmem.Reader) uint8"));
    }
}

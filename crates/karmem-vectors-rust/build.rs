//! Generates Rust code (with serde derives) for every schema under
//! testdata/schemas and testdata/vectors, one module each (a symbolic link
//! is no second module: `karmem_vectors::schema_files`), so tests run the
//! generator's real output.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use karmem_codegen::Backend;

#[path = "build/edits.rs"]
mod edits;
#[path = "build/views.rs"]
mod views;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    println!("cargo:rerun-if-changed={}", root.display());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let found = karmem_vectors::schema_files(&root);
    let mut modules = String::new();
    let mut arms = String::new();
    let mut decode_arms = String::new();
    let mut hostile_arms = String::new();
    let mut read_arms = String::new();
    let mut validate_arms = String::new();
    let mut impls = String::new();
    let mut view_json = String::new();
    let mut edit_impls = String::new();
    let mut edit_arms = String::new();
    let mut absent_arms = String::new();
    let mut edit_hostile_arms = String::new();
    for path in found {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path.strip_prefix(&root).unwrap().with_extension("");
        let module = karmem_codegen::names::lower_ident(&rel.to_string_lossy());
        let source = std::fs::read_to_string(&path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        let files = karmem_codegen::rust::RustBackend { serde: true }
            .generate(&schema, &layout)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        view_json.push_str(&views::Printer::new(&schema, &layout, &module).impls());
        edit_impls.push_str(&edits::Printer::new(&schema, &layout, &module).impls());
        let file = out_dir.join(format!("{module}.rs"));
        std::fs::write(&file, &files[0].contents).unwrap();
        let _ = writeln!(
            modules,
            "pub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));\n}}"
        );
        let rel_file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        for st in &schema.structs {
            let ty = format!("{module}::{}", karmem_codegen::names::camel(&st.name));
            let _ = writeln!(
                arms,
                "        ({rel_file:?}, {:?}) => check::<{ty}>(value, bytes),",
                st.name
            );
            let _ = writeln!(
                read_arms,
                "        ({rel_file:?}, {:?}) => check_read::<{ty}>(value, bytes),",
                st.name
            );
            let _ = writeln!(
                decode_arms,
                "        ({rel_file:?}, {:?}) => decode::<{ty}>(bytes, strict),",
                st.name
            );
            let _ = writeln!(
                hostile_arms,
                "        ({rel_file:?}, {:?}) => Ok(hostile::<{ty}>(bytes)),",
                st.name
            );
            let _ = writeln!(
                edit_arms,
                "        ({rel_file:?}, {:?}) => edits::edit::<{ty}>(value, bytes),",
                st.name
            );
            let _ = writeln!(
                absent_arms,
                "        ({rel_file:?}, {:?}) => <{ty} as edits::Edits>::edits_absent(bytes),",
                st.name
            );
            let _ = writeln!(
                edit_hostile_arms,
                "        ({rel_file:?}, {:?}) => <{ty} as edits::Edits>::edits_hostile(bytes),",
                st.name
            );
            let _ = writeln!(
                validate_arms,
                "        ({rel_file:?}, {:?}) => Some(<{ty} as Generated>::validate(r)),",
                st.name
            );
            let _ = writeln!(impls, "impl Generated for {ty} {{\n    fn write_as_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {{ {ty}::write_as_root(self, w) }}\n    fn read_as_root(&mut self, r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {{ {ty}::read_as_root(self, r) }}\n    fn validate(r: &karmem::Reader<'_>) -> Result<(), karmem::Error> {{ {ty}::validate(r).map(|_| ()) }}\n    fn view_json(r: &karmem::Reader<'_>) -> serde_json::Value {{ views::ViewJson::json(&{ty}View::root(r)) }}\n    fn trusted_json(r: &karmem::Reader<'_>) -> Result<serde_json::Value, karmem::Error> {{ {ty}::validate(r).map(|v| views::ViewJson::json(&v)) }}\n}}");
        }
    }
    let _ = writeln!(
        modules,
        "/// The generated validator of type `root` of `schema` on `r` (None: no such type)."
    );
    let _ = writeln!(modules, "pub fn validate_case(schema: &str, root: &str, r: &karmem::Reader<'_>) -> Option<Result<(), karmem::Error>> {{");
    let _ = writeln!(
        modules,
        "    match (schema, root) {{\n{validate_arms}        _ => None,\n    }}\n}}"
    );
    let _ = writeln!(
        modules,
        "/// Run one golden-vector case through the generated type `root` of `schema`."
    );
    let _ = writeln!(modules, "pub fn check_case(schema: &str, root: &str, value: &serde_json::Value, bytes: &[u8]) -> Result<(), String> {{");
    let _ = writeln!(modules, "    match (schema, root) {{\n{arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// Read a golden vector's bytes with the generated type `root` of another schema version."
    );
    let _ = writeln!(modules, "pub fn read_case(schema: &str, root: &str, value: &serde_json::Value, bytes: &[u8]) -> Result<(), String> {{");
    let _ = writeln!(modules, "    match (schema, root) {{\n{read_arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// Decode with the generated type and return the value as JSON."
    );
    let _ = writeln!(modules, "pub fn decode_with(schema: &str, root: &str, bytes: &[u8], strict: bool) -> Result<serde_json::Value, String> {{");
    let _ = writeln!(modules, "    match (schema, root) {{\n{decode_arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// A hostile case: what the generated validator and decoder decide."
    );
    let _ = writeln!(
        modules,
        "pub fn hostile_case(schema: &str, root: &str, bytes: &[u8]) -> Result<Verdict, String> {{"
    );
    let _ = writeln!(modules, "    match (schema, root) {{\n{hostile_arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// Every in-place edit of a valid vector (src/edits.rs); how many were checked."
    );
    let _ = writeln!(modules, "pub fn edit_case(schema: &str, root: &str, value: &serde_json::Value, bytes: &[u8]) -> Result<usize, String> {{");
    let _ = writeln!(modules, "    match (schema, root) {{\n{edit_arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// The setters of fields an older writer did not write must fail; how many did."
    );
    let _ = writeln!(modules, "pub fn edit_absent_case(schema: &str, root: &str, bytes: &[u8]) -> Result<usize, String> {{");
    let _ = writeln!(modules, "    match (schema, root) {{\n{absent_arms}        _ => Err(format!(\"no generated type {{root}} in {{schema}}\")),\n    }}\n}}");
    let _ = writeln!(
        modules,
        "/// Every setter on a hostile message, which must not panic."
    );
    let _ = writeln!(
        modules,
        "pub fn edit_hostile_case(schema: &str, root: &str, bytes: &[u8]) {{"
    );
    let _ = writeln!(
        modules,
        "    match (schema, root) {{\n{edit_hostile_arms}        _ => {{}}\n    }}\n}}"
    );
    std::fs::write(out_dir.join("modules.rs"), modules).unwrap();
    std::fs::write(out_dir.join("edits.rs"), edit_impls).unwrap();
    std::fs::write(out_dir.join("impls.rs"), impls).unwrap();
    std::fs::write(out_dir.join("view_json.rs"), view_json).unwrap();
}

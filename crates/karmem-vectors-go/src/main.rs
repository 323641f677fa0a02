//! `karmem-vectors-go GO_DIR`: generate Go code (raw generator output, not
//! passed through gofmt) for every schema under testdata/ and for the
//! benchmark schema into GO_DIR/internal/gen/<name>/, the seed example's
//! package into GO_DIR/examples/seed/app/, the ABI descriptor package of the
//! guest library (docs/abi.km) into GO_DIR/guest/internal/abi/, and the
//! registry the Go vector tests dispatch through
//! (GO_DIR/internal/vectors/registry_gen.go; every schema but the integrity
//! suite's, testdata/integrity, which go/internal/integrity uses directly).
//!
//! scripts/test-go.sh runs it into a scratch directory and compares with the
//! committed files, so the committed Go code can never go stale.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use karmem_codegen::go::{go_name, GoBackend};
use karmem_codegen::go_guest::GoGuestBackend;
use karmem_codegen::Backend;
use karmem_schema::model::Schema;

fn schemas(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            schemas(&path, out);
        } else if path.extension().is_some_and(|e| e == "km") {
            out.push(path);
        }
    }
}

/// `vectors/seed/schema.km` → `vectors_seed_schema`.
fn package_dir(rel: &str) -> String {
    rel.trim_end_matches(".km")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(go_dir) = args.get(1) else {
        eprintln!("usage: karmem-vectors-go GO_DIR");
        std::process::exit(2);
    };
    let go_dir = PathBuf::from(go_dir);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let testdata = repo.join("testdata");
    let mut found = Vec::new();
    schemas(&testdata, &mut found);
    let mut all: Vec<(String, PathBuf)> = found
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&testdata)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, p)
        })
        .collect();
    all.push((
        "bench/game.km".into(),
        repo.join("crates/karmem-bench/schemas/game.km"),
    ));

    let mut imports = String::new();
    let mut roots = String::new();
    let mut unions = String::new();
    for (rel, path) in &all {
        let source = std::fs::read_to_string(path).unwrap();
        let (schema, layout) = karmem_layout::load(&path.display().to_string(), &source)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        // The integrity suite's schemas also declare the interface its
        // WebAssembly members export (docs/integrity.md §6): their packages
        // carry the guest glue too, for go/internal/integrity/guest.
        let backend: &dyn Backend = if rel.starts_with("integrity/") {
            &GoGuestBackend
        } else {
            &GoBackend
        };
        let files = backend
            .generate(&schema, &layout)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let dir = package_dir(rel);
        let out = go_dir.join("internal/gen").join(&dir);
        std::fs::create_dir_all(&out).unwrap();
        for f in files {
            std::fs::write(out.join(&f.path), f.contents).unwrap();
        }
        // The integrity suite's schemas (testdata/integrity, docs/integrity.md)
        // have no golden vectors: go/internal/integrity imports their packages
        // itself, and the vector registry stays as it was.
        if rel.starts_with("integrity/") {
            continue;
        }
        let _ = writeln!(
            imports,
            "\t{dir} \"karmem.org/go/karmem/internal/gen/{dir}\""
        );
        registry_entries(&schema, rel, &dir, &mut roots, &mut unions);
    }
    // The seed README example program uses the generated package as a user
    // would: next to the program, named by @golang.package.
    let seed = repo.join("testdata/schemas/seed_app.km");
    let source = std::fs::read_to_string(&seed).unwrap();
    let (schema, layout) = karmem_layout::load(&seed.display().to_string(), &source)
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
    let out = go_dir.join("examples/seed/app");
    std::fs::create_dir_all(&out).unwrap();
    for f in GoBackend.generate(&schema, &layout).unwrap() {
        std::fs::write(out.join(&f.path), f.contents).unwrap();
    }

    // The guest library writes its module descriptor with the code generated
    // from the ABI's own schema (docs/abi.md §3).
    let abi = repo.join("docs/abi.km");
    let source = std::fs::read_to_string(&abi).unwrap();
    let (schema, layout) = karmem_layout::load(&abi.display().to_string(), &source)
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
    let out = go_dir.join("guest/internal/abi");
    std::fs::create_dir_all(&out).unwrap();
    for f in GoBackend.generate(&schema, &layout).unwrap() {
        std::fs::write(out.join(&f.path), f.contents).unwrap();
    }

    let registry = format!(
        "// Code generated by karmem-vectors-go; DO NOT EDIT.\n\n\
         package vectors\n\n\
         import (\n\t\"reflect\"\n\n\t\"karmem.org/go/karmem\"\n{imports})\n\n\
         // schemas maps a schema file (relative to testdata/) and a root type to\n\
         // its generated Go type.\n\
         var schemas = map[string]map[string]rootType{{\n{roots}}}\n\n\
         // unions maps each union interface type to its variants by schema name.\n\
         var unions = map[reflect.Type]map[string]reflect.Type{{\n{unions}}}\n"
    );
    let reg = go_dir.join("internal/vectors/registry_gen.go");
    std::fs::create_dir_all(reg.parent().unwrap()).unwrap();
    std::fs::write(&reg, registry).unwrap();
    // The registry is test glue, not generator output: let gofmt lay it out.
    let status = std::process::Command::new("gofmt")
        .arg("-w")
        .arg(&reg)
        .status()
        .expect("gofmt not found (it ships with Go)");
    assert!(status.success(), "gofmt failed on the registry");
}

fn registry_entries(
    schema: &Schema,
    rel: &str,
    pkg: &str,
    roots: &mut String,
    unions: &mut String,
) {
    let _ = writeln!(roots, "\t{rel:?}: {{");
    for st in &schema.structs {
        let ty = go_name(&st.name);
        let _ = writeln!(
            roots,
            "\t\t{:?}: {{\n\t\t\tnew: func() object {{ return new({pkg}.{ty}) }},\n\t\t\tvalidate: func(r *karmem.Reader) error {{ _, err := {pkg}.Validate{ty}(r); return err }},\n\t\t\ttrust: func(r *karmem.Reader) (views, error) {{ return bothViews(r, {pkg}.Validate{ty}, {pkg}.Trust{ty}) }},\n\t\t}},",
            st.name
        );
    }
    let _ = writeln!(roots, "\t}},");
    for u in &schema.unions {
        let _ = write!(
            unions,
            "\treflect.TypeFor[{pkg}.{}](): {{",
            go_name(&u.name)
        );
        for v in &u.variants {
            let name = &schema.structs[v.ty].name;
            let _ = write!(
                unions,
                "{name:?}: reflect.TypeFor[*{pkg}.{}](), ",
                go_name(name)
            );
        }
        let _ = writeln!(unions, "}},");
    }
}

//! Schemas over several files (docs/idl.md §4.5), with the files in memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::Path;

use karmem_schema::{compile_with, Compiled, Diagnostics};

/// Files by path; records every read, to see what is loaded how often.
struct Disk {
    files: HashMap<String, String>,
    reads: RefCell<Vec<String>>,
}

impl Disk {
    fn new(files: &[(&str, &str)]) -> Self {
        Disk {
            files: files
                .iter()
                .map(|(p, s)| (p.to_string(), s.to_string()))
                .collect(),
            reads: RefCell::new(Vec::new()),
        }
    }

    fn read(&self, path: &Path) -> io::Result<String> {
        let path = path.to_str().unwrap().to_string();
        self.reads.borrow_mut().push(path.clone());
        self.files
            .get(&path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }

    /// Compile the file `root` of this disk.
    fn compile(&self, root: &str) -> Result<Compiled, Diagnostics> {
        compile_with(root, &self.files[root], |p| self.read(p))
    }

    fn errors(&self, root: &str) -> String {
        match self.compile(root) {
            Ok(_) => panic!("expected errors compiling {root}"),
            Err(d) => d.render(false),
        }
    }
}

/// `out` (rendered diagnostics) contains `text`.
#[track_caller]
fn shows(out: &str, text: &str) {
    assert!(out.contains(text), "no {text:?} in:\n{out}");
}

fn struct_names(c: &Compiled) -> Vec<&str> {
    c.schema.structs.iter().map(|s| s.name.as_str()).collect()
}

const COMMON: &str =
    "karmem common;\n\nstruct Vec3 inline {\n    X f32;\n    Y f32;\n    Z f32;\n}\n";

#[test]
fn an_imported_files_types_join_the_schema() {
    let disk = Disk::new(&[
        (
            "main.km",
            "karmem game;\n\nimport \"common.km\";\n\nstruct Monster table {\n    Pos Vec3;\n}\n",
        ),
        ("common.km", COMMON),
    ]);
    let c = disk.compile("main.km").unwrap();
    assert_eq!(struct_names(&c), ["Monster", "Vec3"]);
    assert_eq!(c.schema.package, "game");
    assert_eq!(*disk.reads.borrow(), ["common.km"]);
    let names: Vec<&str> = c.sources.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["main.km", "common.km"]);
}

#[test]
fn paths_are_relative_to_the_importing_file() {
    let disk = Disk::new(&[
        ("app/main.km", "karmem a;\nimport `types/a.km`;\n"),
        (
            "app/types/a.km",
            "karmem a;\nimport \"../common/b.km\";\nstruct A table { B B; }\n",
        ),
        ("app/common/b.km", "karmem b;\nstruct B table { }\n"),
    ]);
    let c = disk.compile("app/main.km").unwrap();
    assert_eq!(struct_names(&c), ["A", "B"]);
    assert_eq!(*disk.reads.borrow(), ["app/types/a.km", "app/common/b.km"]);
}

#[test]
fn a_diamond_loads_the_shared_file_once() {
    let disk = Disk::new(&[
        (
            "main.km",
            "karmem m;\nimport \"left.km\";\nimport \"right.km\";\n",
        ),
        (
            "left.km",
            "karmem l;\nimport \"common.km\";\nstruct L table { P Vec3; }\n",
        ),
        (
            "right.km",
            "karmem r;\nimport \"./common.km\";\nstruct R table { P Vec3; }\n",
        ),
        ("common.km", COMMON),
    ]);
    let c = disk.compile("main.km").unwrap();
    assert_eq!(struct_names(&c), ["L", "Vec3", "R"]);
    assert_eq!(*disk.reads.borrow(), ["left.km", "common.km", "right.km"]);
}

#[test]
fn an_import_cycle_is_an_error_naming_the_chain() {
    let disk = Disk::new(&[
        ("a.km", "karmem a;\nimport \"b.km\";\nstruct A table { }\n"),
        ("b.km", "karmem b;\nimport \"c.km\";\n"),
        ("c.km", "karmem c;\n\nimport \"a.km\";\n"),
    ]);
    let out = disk.errors("a.km");
    shows(
        &out,
        "error: import cycle: a.km → b.km → c.km → a.km\n --> c.km:3:1\n",
    );
    shows(&out, "= help: ");
    assert!(out.ends_with("a.km: 1 error found\n"), "{out}");
    // A file importing itself is the shortest cycle.
    let disk = Disk::new(&[("a.km", "karmem a;\nimport \"a.km\";\n")]);
    shows(&disk.errors("a.km"), "import cycle: a.km → a.km");
}

#[test]
fn a_missing_file_is_an_error_at_the_path() {
    let disk = Disk::new(&[("main.km", "karmem m;\nimport \"gone.km\";\n")]);
    let out = disk.errors("main.km");
    shows(
        &out,
        "error: cannot read `gone.km`: no such file\n --> main.km:2:8\n",
    );
    shows(&out, "2 | import \"gone.km\";\n  |        ^^^^^^^^^");
    shows(&out, "= help: an import path is relative");
}

#[test]
fn errors_in_an_imported_file_point_into_that_file() {
    let disk = Disk::new(&[
        (
            "main.km",
            "karmem m;\nimport \"common.km\";\nstruct A table { X Vec4; }\n",
        ),
        (
            "common.km",
            "karmem c;\n\nstruct B table {\n    Y u8\n}\nstruct C table {\n    Z Vec5;\n}\n",
        ),
    ]);
    let out = disk.errors("main.km");
    // Its own file, line and source line; the root's errors stay the root's.
    shows(
        &out,
        "error: expected `;`, found `}`\n --> common.km:4:9\n  |\n4 |     Y u8\n",
    );
    shows(
        &out,
        "error: unknown type `Vec5`\n --> common.km:7:7\n  |\n7 |     Z Vec5;\n",
    );
    shows(&out, "error: unknown type `Vec4`\n --> main.km:3:20\n");
    assert!(out.ends_with("main.km: 3 errors found\n"), "{out}");
}

#[test]
fn an_imported_file_needs_its_own_header() {
    let disk = Disk::new(&[
        ("main.km", "karmem m;\nimport \"common.km\";\n"),
        ("common.km", "\nstruct B table { }\n"),
    ]);
    let out = disk.errors("main.km");
    shows(
        &out,
        "error: missing `karmem NAME;` header\n --> common.km:1:1\n",
    );
}

#[test]
fn a_type_declared_in_two_files_shows_both() {
    let disk = Disk::new(&[
        (
            "main.km",
            "karmem m;\nimport \"common.km\";\n\nstruct Vec3 table { }\n",
        ),
        ("common.km", COMMON),
    ]);
    let out = disk.errors("main.km");
    let expected = "error: duplicate type name `Vec3`
 --> common.km:3:8
  |
3 | struct Vec3 inline {
  |        ^^^^ defined again here
  |
 ::: main.km:4:8
  |
4 | struct Vec3 table { }
  |        ---- first defined here
";
    shows(&out, expected);
}

#[test]
fn compile_without_a_file_system_refuses_imports() {
    let err = karmem_schema::compile("t.km", "karmem a;\nimport \"common.km\";\n").unwrap_err();
    let out = err.render(false);
    shows(
        &out,
        "error: imports need the file system: `common.km` cannot be loaded here\n --> t.km:2:8\n",
    );
    shows(
        &out,
        "= help: compile schemas with imports with `karmem_schema::compile_path`",
    );
}

#[test]
fn only_the_root_files_header_and_root_count() {
    let disk = Disk::new(&[
        (
            "main.km",
            "karmem game @golang.package(`game`);\nimport \"common.km\";\nroot Monster;\nstruct Monster table { P Vec3; }\n",
        ),
        (
            "common.km",
            "karmem common @golang.package(`common`) @nonsense;\nroot Vec3;\nroot Other;\nstruct Vec3 inline { X f32; }\n",
        ),
    ]);
    let c = disk.compile("main.km").unwrap();
    assert_eq!(c.schema.package, "game");
    assert_eq!(c.schema.attributes.len(), 1);
    assert_eq!(c.schema.attributes[0].value, "game");
    let root = c.schema.root.expect("the root file's root");
    assert_eq!(c.schema.structs[root].name, "Monster");
    assert!(c.warnings.items.is_empty(), "{}", c.warnings);
}

/// The layout of field `field` of struct `name`, an array.
fn layout(c: &Compiled, name: &str, field: &str) -> karmem_schema::model::ArrayLayout {
    let s = &c.schema.structs[c.schema.struct_by_name(name).unwrap()];
    match &s.fields.iter().find(|f| f.name == field).unwrap().ty {
        karmem_schema::model::FieldType::Array(a) => a.layout,
        other => panic!("{other:?}"),
    }
}

#[test]
fn packed_is_the_declaring_files() {
    use karmem_schema::model::ArrayLayout::{Aos, Soa};
    // Each file's structs get their own header's default, so a file
    // compiles to the same bytes alone or imported.
    let packed = "karmem packed @packed(true);\nimport \"plain.km\";\nstruct P table { L []V; }\n";
    let plain = "karmem plain;\nstruct V inline { X f32; }\nstruct Q table { L []V; }\n";
    let c = Disk::new(&[("main.km", packed), ("plain.km", plain)])
        .compile("main.km")
        .unwrap();
    assert_eq!(layout(&c, "P", "L"), Aos);
    assert_eq!(layout(&c, "Q", "L"), Soa);

    let main =
        "karmem main;\nimport \"empty.km\";\nimport \"packed.km\";\nstruct M table { L []V; }\n";
    let packed =
        "karmem packed @packed(true);\nstruct V inline { X f32; }\nstruct P table { L []V; }\n";
    // A file without declarations (its start is the next file's) does not
    // hide the next file's `@packed`.
    let empty = "karmem empty @packed(false);\n";
    let c = Disk::new(&[
        ("main.km", main),
        ("empty.km", empty),
        ("packed.km", packed),
    ])
    .compile("main.km")
    .unwrap();
    assert_eq!(layout(&c, "M", "L"), Soa);
    assert_eq!(layout(&c, "P", "L"), Aos);
}

#[test]
fn a_bad_packed_in_an_imported_file_is_an_error_there() {
    let disk = Disk::new(&[
        ("main.km", "karmem main;\nimport \"common.km\";\n"),
        ("common.km", "karmem common @packed(yes);\n"),
    ]);
    let out = disk.errors("main.km");
    shows(
        &out,
        "error: `@packed` takes `true` or `false`, found `yes`\n --> common.km:1:23\n",
    );
}

#[test]
fn the_source_hash_covers_imported_files() {
    let main = "karmem m;\nimport \"common.km\";\n";
    let hash = |common: &str| {
        Disk::new(&[("main.km", main), ("common.km", common)])
            .compile("main.km")
            .unwrap()
            .schema
            .source_hash
    };
    let before = hash(COMMON);
    assert_eq!(before, hash(COMMON));
    assert_ne!(before, hash(&COMMON.replace("Z f32", "Z f64")));
    assert_ne!(before, karmem_schema::source_hash(main));
    // One file: the hash of its text, as before imports existed.
    let single = "karmem a;\nstruct A table { }\n";
    assert_eq!(
        karmem_schema::compile("a.km", single)
            .unwrap()
            .schema
            .source_hash,
        karmem_schema::source_hash(single)
    );
}

#[test]
fn later_diagnostics_render_against_the_right_file() {
    let disk = Disk::new(&[
        ("main.km", "karmem m;\nimport \"common.km\";\n"),
        ("common.km", COMMON),
    ]);
    let c = disk.compile("main.km").unwrap();
    let span = c.schema.structs[0].span;
    let d = c.diagnostics(vec![karmem_schema::Diagnostic::error(span, "late")]);
    assert_eq!(d.locate(span.start), ("common.km", 3, 8));
    let out = d.render(false);
    shows(&out, " --> common.km:3:8\n");
    assert!(out.ends_with("main.km: 1 error found\n"), "{out}");
}

#[test]
fn import_is_still_a_name_inside_declarations() {
    let src = "karmem a;\nstruct import table {\n    import u8;\n}\n";
    let c = karmem_schema::compile("a.km", src).unwrap();
    assert_eq!(c.schema.structs[0].name, "import");
}

#[test]
fn imports_format_as_one_block_of_lines() {
    let src = "karmem a;\nimport \"common.km\";import `b.km`;\nstruct A table { B B; }\n";
    let out = karmem_schema::format("a.km", src).unwrap();
    assert_eq!(
        out,
        "karmem a;\n\nimport \"common.km\";\nimport `b.km`;\n\nstruct A table {\n    B B;\n}\n"
    );
    assert_eq!(karmem_schema::format("a.km", &out).unwrap(), out);
}

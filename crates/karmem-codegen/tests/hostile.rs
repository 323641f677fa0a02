//! Every backend on schemas at the compiler's limits (docs/idl.md §3, §7)
//! and on shapes the limits do not bound (issue #26): chains of tables
//! through arrays, and a table holding an SoA array of itself, which used
//! to send the Rust and Go validators' generators into endless recursion.

use karmem_codegen::Backend;

fn backends() -> Vec<Box<dyn Backend>> {
    vec![
        Box::new(karmem_codegen::rust::RustBackend::default()),
        Box::new(karmem_codegen::go::GoBackend),
        Box::new(karmem_codegen::c::CBackend),
        Box::new(karmem_codegen::zig::ZigBackend),
        Box::new(karmem_codegen::ts::TsBackend),
        Box::new(karmem_codegen::assemblyscript::AssemblyScriptBackend),
        Box::new(karmem_codegen::python::PythonBackend),
    ]
}

/// Generates every backend's code for `src`, which must compile.
fn generate_all(src: &str) {
    let (schema, layout) = match karmem_layout::load("h.km", src) {
        Ok(loaded) => loaded,
        Err(d) => panic!("{}", d.render(false)),
    };
    for backend in backends() {
        if let Err(e) = backend.generate(&schema, &layout) {
            panic!("{}: {e}", backend.name());
        }
    }
}

/// Like `generate_all`, in a thread with a 1 MiB stack, where a recursion
/// once per struct of the inputs below would overflow.
fn generate_all_on_small_stack(src: String) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || generate_all(&src))
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
}

#[test]
fn a_table_holding_an_soa_array_of_itself() {
    generate_all("karmem h;\nstruct N table { kids: []N; }\n");
    generate_all("karmem h;\nstruct N table { v: bool; kids: []N; more: [][]N; }\n");
}

#[test]
fn a_long_chain_of_tables_through_arrays() {
    // SoA arrays, AoS arrays, optional tables.
    for (prefix, layout) in [("[]", ""), ("[]", " #aos"), ("?", "")] {
        let n = 2_000;
        let chain: String = (0..n)
            .map(|i| {
                format!(
                    "struct A{i} table {{ v: bool; a: {prefix}A{}{layout}; }}\n",
                    i + 1
                )
            })
            .collect();
        generate_all_on_small_stack(format!(
            "karmem h;\n{chain}struct A{n} table {{ v: bool; }}\n"
        ));
    }
}

#[test]
fn schemas_at_the_nesting_limits() {
    let field = |ty: String| format!("karmem h;\nstruct S table {{ x: {ty}; }}\n");
    // 64 arrays, maps, tuples (with the struct, 64 structs held by value).
    generate_all(&field(format!("{}u8", "[]".repeat(64))));
    generate_all(&field("map<u8, ".repeat(64) + "u8" + &">".repeat(64)));
    generate_all(&field("(".repeat(63) + "bool" + &", u8)".repeat(63)));
    // 64 structs held by value, each with something to validate, read
    // through every kind of array.
    let chain: String = (0..62)
        .map(|i| format!("struct A{i} inline {{ a: A{}; b: bool; }}\n", i + 1))
        .collect();
    generate_all(&format!(
        "karmem h;\n{chain}struct A62 inline {{ v: bool; }}\n\
         struct R table {{ r: A0; aos: []A0 #aos; fixed: [1]A0; }}\n"
    ));
}

//! Layouts of schemas built to exhaust the layout pass (issue #26): shapes
//! whose naive walk is exponential, and long chains the nesting limit of
//! docs/idl.md §7 does not bound. No timing is asserted: a walk that is
//! exponential again does not finish.

/// A table whose SoA element holds 8 tables, each holding 8 ..., 15
/// levels: 8^15 columns if flattening went on to count them.
#[test]
fn soa_flattening_stops_past_the_column_limit() {
    let levels: String = (0..15)
        .map(|i| {
            let fields: String = (0..8).map(|k| format!("f{k}: T{}; ", i + 1)).collect();
            format!("struct T{i} table {{ {fields}}}\n")
        })
        .collect();
    let src = format!(
        "karmem h;\nstruct Top table {{ xs: []T0; }}\n{levels}struct T15 table {{ v: u8; }}\n"
    );
    let out = karmem_layout::load("h.km", &src)
        .map(|_| ())
        .expect_err("too many columns")
        .render(false);
    assert!(
        out.contains("`T0` flattens into more than 1024 columns"),
        "{out}"
    );
    assert!(out.contains("1 error found"), "{out}");
}

/// Each inline struct holds the next one twice: 2^27 paths to the last.
#[test]
fn inline_structs_held_twice_per_level_are_walked_once() {
    let levels: String = (0..27)
        .map(|i| format!("struct D{i} inline {{ a: D{0}; b: D{0}; }}\n", i + 1))
        .collect();
    let source = |last: &str| {
        format!("karmem h;\nstruct Top table {{ x: D0; }}\n{levels}struct D27 inline {{ v: {last}; }}\n")
    };
    let (schema, layout) = karmem_layout::load("h.km", &source("u8")).expect("compiles");
    let d0 = schema.struct_by_name("D0").expect("declared");
    assert!(!layout.inline_needs_validation(d0));
    assert!(!schema.has_defaults(d0));
    let (schema, layout) = karmem_layout::load("h.km", &source("bool")).expect("compiles");
    assert!(layout.inline_needs_validation(schema.struct_by_name("D0").expect("declared")));
}

/// 20 000 tables, each holding an SoA array of the next, laid out in a
/// thread with a 1 MiB stack.
#[test]
fn a_long_chain_of_soa_arrays() {
    let n = 20_000;
    let chain: String = (0..n)
        .map(|i| format!("struct A{i} table {{ v: bool; a: []A{}; }}\n", i + 1))
        .collect();
    let src = format!("karmem h;\n{chain}struct A{n} table {{ v: bool; }}\n");
    let soa = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let (_, layout) = karmem_layout::load("h.km", &src).expect("compiles");
            layout.soa.iter().flatten().count()
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert_eq!(soa, n);
}

use super::*;
use karmem_schema::model::Primitive;

fn layout(src: &str) -> (karmem_schema::model::Schema, Layout) {
    load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

const APP: &str = include_str!("../../../testdata/schemas/seed_app.km");

#[test]
fn seed_account_data_offsets() {
    let (schema, l) = layout(APP);
    let account = l.of_struct(schema.struct_by_name("AccountData").unwrap());
    let offsets: Vec<u32> = account.fields.iter().map(|f| f.offset).collect();
    // header@0, ID u64@8, Email ref@16 (12 B), Profiles ref@28 (12 B) → 40
    assert_eq!(offsets, [8, 16, 28]);
    assert_eq!((account.used, account.size), (40, 40));
    assert_eq!(account.header, 5);

    let data = l.of_struct(schema.struct_by_name("ProfileData").unwrap());
    // header@0, Network u8@4, Username ref@8, ID u64@24 → used 32
    let offsets: Vec<u32> = data.fields.iter().map(|f| f.offset).collect();
    assert_eq!(offsets, [4, 8, 24]);
    assert_eq!((data.used, data.size, data.header), (32, 32, 4));

    // `@packed(true)`: []Profile is AoS, each element an inline Profile
    // holding one table offset: 4 bytes, aligned to 4 (format.md §3).
    let profile = schema.struct_by_name("Profile").unwrap();
    assert_eq!(l.of_struct(profile).size, 4);
    assert!(l.soa[profile].is_none(), "no SoA array of Profile");

    // Without it, []Profile is SoA; Profile (inline) → Data (table) is
    // flattened, and the columns are listed by decreasing alignment
    // (format.md §5.3): ID (8), Username's reference (4), Network (1) —
    // the reverse of the fields' order here.
    let (schema, l) = layout(&APP.replace(" @packed(true)", ""));
    let profile = schema.struct_by_name("Profile").unwrap();
    let soa = l.soa(profile);
    let paths: Vec<Vec<u32>> = soa.columns.iter().map(|c| c.path.clone()).collect();
    assert_eq!(paths, [vec![0, 2], vec![0, 1], vec![0, 0]]);
    assert_eq!(soa.columns[0].size, 8);
    assert_eq!(soa.columns[1].size, ARRAY_REF_SIZE);
    assert_eq!(
        soa.columns[2].slot,
        Slot::Enum {
            id: 0,
            repr: Primitive::U8
        }
    );
    // Three columns: the count, three hashes and three sizes.
    assert_eq!(soa.directory_size, 28);
}

#[test]
fn table_unused_tail_and_empty_table() {
    let (schema, l) = layout("karmem t; struct A table { X u8; } struct E table { }");
    let a = l.of_struct(schema.struct_by_name("A").unwrap());
    assert_eq!((a.used, a.size, a.header), (5, 8, 1 | (3 << 29)));
    let e = l.of_struct(schema.struct_by_name("E").unwrap());
    assert_eq!((e.used, e.size, e.header), (4, 8, 1 | (4 << 29)));
}

#[test]
fn inline_struct_padding_and_fixed_arrays() {
    let (schema, l) = layout(
        "karmem t; struct V inline { X f32; Y f32; Z f32; } struct S inline { A u8; V V; B [3]u16; C bool; }",
    );
    // An inline struct is aligned to its widest field and padded to a
    // multiple of that (format.md §3): V is 12 bytes at alignment 4, S
    // puts V at 4 and ends at 23, padded to 24.
    let v = l.of_struct(schema.struct_by_name("V").unwrap());
    assert_eq!((v.size, v.align), (12, 4));
    let s = l.of_struct(schema.struct_by_name("S").unwrap());
    let offsets: Vec<u32> = s.fields.iter().map(|f| f.offset).collect();
    assert_eq!(offsets, [0, 4, 16, 22]);
    assert_eq!((s.size, s.align), (24, 4));
    let (schema, l) =
        layout("karmem t; struct W inline { A u8; B u64; } struct C inline { A u8; }");
    let w = l.of_struct(schema.struct_by_name("W").unwrap());
    assert_eq!((w.size, w.align), (16, 8));
    let c = l.of_struct(schema.struct_by_name("C").unwrap());
    assert_eq!((c.size, c.align), (1, 1));
}

#[test]
fn path_hash_is_fnv1a_over_le_u32() {
    // FNV-1a of the empty input is the offset basis.
    assert_eq!(path_hash(&[]), 0x811C_9DC5);
    // Independently computed reference value for path [0].
    let mut h: u32 = 0x811C_9DC5;
    for b in [0u8, 0, 0, 0] {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    assert_eq!(path_hash(&[0]), h);
    assert_ne!(path_hash(&[0, 1]), path_hash(&[1, 0]));
}

#[test]
fn recursive_table_is_a_schema_error() {
    // A table holding itself through a field has an infinite zero value:
    // the schema compiler refuses it before any layout (idl.md §7), with or
    // without an SoA array of it.
    for src in [
        "karmem t;\nstruct Node table { V u32; Next Node; }\nstruct Root table { Nodes []Node; }\n",
        "karmem t;\nstruct Node table { V u32; Next Node; }\nstruct Root table { Nodes []Node #aos; }\n",
    ] {
        let text = load("t.km", src).unwrap_err().render(false);
        assert!(text.contains("struct `Node` contains itself: Node → Node"), "{text}");
    }
    // A table holding an SoA array of itself is fine (arrays are leaves).
    layout("karmem t; struct Node table { V u32; Children []Node; } struct Root table { Nodes []Node; }");
}

#[test]
fn hash_collisions_are_reported() {
    assert_eq!(compute::first_collision(&[1, 2, 3]), None);
    assert_eq!(compute::first_collision(&[7, 2, 7]), Some((0, 2)));
    let d = compute::collision_diagnostic(Default::default(), "E.A", "E.B", 0xdead_beef);
    assert_eq!(
        d.message,
        "columns `E.A` and `E.B` have the same SoA hash 0xdeadbeef"
    );
    assert!(d.hint.unwrap().contains("#aos"));
}

#[test]
fn union_bunches_and_directory_size() {
    let src =
        "karmem t; struct C table { R f64; } struct Q inline { S f32; } union Sh u8 { C; Q = 4; }
               struct Root table { A []Sh #bovoa; B []Sh #bovos; }";
    let (schema, l) = layout(src);
    let root = l.of_struct(schema.struct_by_name("Root").unwrap());
    let Slot::ArrayRef {
        data: ArrayData::UnionBunch { variants, .. },
        ..
    } = &root.fields[0].slot
    else {
        panic!()
    };
    assert!(matches!(*variants[0].data, ArrayData::AosTable { .. }));
    assert!(matches!(
        *variants[1].data,
        ArrayData::AosInline { stride: 4, .. }
    ));
    assert_eq!(variants[1].tag, 4);
    let Slot::ArrayRef {
        data: ArrayData::UnionBunch { variants, .. },
        ..
    } = &root.fields[1].slot
    else {
        panic!()
    };
    assert!(matches!(*variants[0].data, ArrayData::Soa { .. }));
    // 16 columns + the count word: 68 bytes per half, no padding.
    let fields: String = (0..16).map(|i| format!("F{i} u8;")).collect();
    let (schema, l) = layout(&format!(
        "karmem t; struct W inline {{ {fields} }} struct R table {{ A []W; }}"
    ));
    assert_eq!(
        l.soa(schema.struct_by_name("W").unwrap()).directory_size,
        132
    );
}

#[test]
fn bunch_arrays_of_unions_with_too_many_variants_are_errors() {
    let mut src = String::from("karmem t;\n");
    let mut variants = String::new();
    for i in 0..1100 {
        src.push_str(&format!("struct S{i} inline {{ X u8; }}\n"));
        variants.push_str(&format!("S{i}; "));
    }
    src.push_str(&format!("union U u16 {{ {variants}}}\n"));
    // Fine as #soa; refused as a bunch (readers scan at most 1 024 entries).
    layout(&format!("{src}struct R table {{ A []U #soa; }}\n"));
    let err = load(
        "t.km",
        &format!("{src}struct R table {{ A []U #bovoa; }}\n"),
    )
    .unwrap_err();
    let text = err.render(false);
    assert!(
        text.contains("`U` has 1100 variants; a #bovoa/#bovos array holds at most 1024"),
        "{text}"
    );
    assert!(text.contains("use #soa or #aos"), "{text}");
}

#[test]
fn column_accessor_name_clashes_are_errors() {
    // Found in the wild (a Minecraft save): a field `selected_item_slot` and
    // the path `selected_item.slot` both became the Rust accessor
    // `selected_item_slot`, and the generated code did not compile.
    let src = "karmem t;\nstruct Slot inline { Slot u8; }\nstruct P inline { selected_item Slot; selected_item_slot u8; }\nstruct R table { Players []P; }\n";
    let err = load("t.km", src).unwrap_err();
    let text = err.render(false);
    assert!(
        text.contains("columns `P.selected_item.Slot` and `P.selected_item_slot` would get the same accessor name"),
        "{text}"
    );
    assert!(text.contains("t.km:4:18"), "{text}");
    assert!(text.contains("rename one field"), "{text}");
    // Go's camel case: `AB` and `A.B` are both `AB`.
    let go = "karmem t; struct I inline { B u8; } struct E inline { A I; AB u8; } struct R table { X []E; }";
    assert!(load("t.km", go).is_err());
    // A view's own method names: a column `Len` would be `len_column` in
    // Rust, as a field named `len_column` is.
    let own = "karmem t; struct E inline { Len u8; len_column u8; } struct R table { X []E; }";
    assert!(load("t.km", own).is_err());
    // The same fields in an #aos array have no column accessors.
    layout("karmem t; struct Slot inline { Slot u8; } struct P inline { selected_item Slot; selected_item_slot u8; } struct R table { Players []P #aos; }");
    // Distinct names stay fine.
    layout("karmem t; struct I inline { B u8; } struct E inline { A I; C u8; } struct R table { X []E; }");
}

/// What a decoder charges per element (format.md §10) is answered here,
/// for every kind of array block, so no generator computes it.
#[test]
fn decode_charges_per_element() {
    let (schema, l) = layout(
        "karmem t; struct E table { } struct V inline { X f32; Y u8; } \
         struct T table { A u64; } union U u16 { T; V; } \
         struct R table { P []u16; S []char; I []V #aos; Ts []T #aos; Vs []V; Es []E; \
         Ua []U #aos; Us []U; Ub []U #bovoa; }",
    );
    let r = l.of_struct(schema.struct_by_name("R").unwrap());
    let charge = |i: usize| match &r.fields[i].slot {
        Slot::ArrayRef { data, .. } => l.decode_charge(data),
        other => panic!("field {i} is {other:?}"),
    };
    // Plain: element size; text: its unit; AoS: stride, 4 per table
    // offset; SoA: the column sizes summed (4 + 1), and 1 for an element
    // without columns; union slots 8; SoA union: tag width + offset.
    assert_eq!(
        (0..8).map(charge).collect::<Vec<_>>(),
        [2, 1, 8, 4, 5, 1, 8, 6].map(Some)
    );
    assert_eq!(charge(8), None, "a bunch array is charged entry by entry");
    let (t, v) = (
        schema.struct_by_name("T").unwrap(),
        schema.struct_by_name("V").unwrap(),
    );
    assert!(l.is_table(t) && !l.is_table(v));
    assert_eq!(l.decode_charge(&l.bunch_variant_data(t, false)), Some(4));
    assert_eq!(l.decode_charge(&l.bunch_variant_data(v, false)), Some(8));
    assert_eq!(l.decode_charge(&l.bunch_variant_data(v, true)), Some(5));
}

/// The validator's plan per slot (format.md §11): what needs a check and
/// what does not, decided here for every backend.
#[test]
fn validator_plan_per_slot() {
    let (schema, l) = layout(
        "karmem t; enum K u8 { A; } struct N inline { X u32; } struct B inline { F bool; } \
         struct T table { X u32; } union U u8 { T; } \
         struct R table { I i32; E K; F bool; Nn N; Bb B; Tt T; Uu U; Fb [3]bool; \
         Fn [2]N; Fbb [2]B; L [<7]u16; D []N; }",
    );
    let r = l.of_struct(schema.struct_by_name("R").unwrap());
    let id = |n: &str| schema.struct_by_name(n).unwrap();
    let plans: Vec<SlotCheck> = r.fields.iter().map(|f| l.slot_check(&f.slot)).collect();
    assert_eq!(plans[0], SlotCheck::Nothing, "a number");
    assert_eq!(
        plans[1],
        SlotCheck::Nothing,
        "an enum: unknown values are valid"
    );
    assert_eq!(plans[2], SlotCheck::Bool);
    assert_eq!(plans[3], SlotCheck::Nothing, "an inline struct of numbers");
    assert_eq!(plans[4], SlotCheck::Inline(id("B")));
    assert_eq!(plans[5], SlotCheck::Table(id("T")));
    assert!(matches!(plans[6], SlotCheck::Union(_)));
    assert_eq!(plans[7], SlotCheck::Bools { len: 3 });
    assert_eq!(plans[8], SlotCheck::Nothing, "inline structs of numbers");
    assert_eq!(
        plans[9],
        SlotCheck::InlineEach {
            id: id("B"),
            len: 2,
            stride: 1
        }
    );
    assert!(matches!(
        plans[10],
        SlotCheck::Array {
            elem_size: 2,
            limit: Some(7),
            ..
        }
    ));
    assert!(matches!(
        plans[11],
        SlotCheck::Array {
            elem_size: 0,
            limit: None,
            data: ArrayData::Soa { .. },
            ..
        }
    ));
}

#[test]
fn soa_columns_by_decreasing_alignment_flattening_order_among_equals() {
    let (schema, l) = layout(
        "karmem t;
         struct Inner inline { A u16; B u64; }
         struct E table { P u8; Q u64; R Inner; S u32; T u8; U [3]u16; V f64; }
         struct Root table { Es []E; }",
    );
    let soa = l.soa(schema.struct_by_name("E").unwrap());
    let order: Vec<(Vec<u32>, u32)> = soa
        .columns
        .iter()
        .map(|c| (c.path.clone(), c.size))
        .collect();
    // 8-aligned: Q, R.B, V; 4: S; 2: R.A, U (6 bytes: natural 2); 1: P, T.
    assert_eq!(
        order,
        [
            (vec![1], 8),
            (vec![2, 1], 8),
            (vec![6], 8),
            (vec![3], 4),
            (vec![2, 0], 2),
            (vec![5], 6),
            (vec![0], 1),
            (vec![4], 1),
        ]
    );
}

#[test]
fn zero_value_sizes() {
    // Z(T) (format.md §10): a table's full size plus the zero values of its
    // non-optional table fields, through inline structs and fixed arrays
    // of them; optional tables, arrays and unions add nothing.
    let (schema, l) = layout(
        "karmem t;
         struct Leaf table { X u32; }
         struct Big table { F [60]u8; }
         struct Pair inline { A Leaf; N u32; }
         union U u8 { Leaf; }
         struct Mid table { A Leaf; B Leaf; P Pair; Ps [3]Pair; O ?Leaf; L []Leaf; V U; }
         struct Plain inline { N u64; }",
    );
    let z = |name: &str| l.of_struct(schema.struct_by_name(name).unwrap()).zero;
    let s = |name: &str| l.of_struct(schema.struct_by_name(name).unwrap()).size as u64;
    assert_eq!((s("Leaf"), z("Leaf")), (8, 8));
    assert_eq!((s("Big"), z("Big")), (64, 64));
    // An inline struct: only the tables it holds.
    assert_eq!(z("Pair"), 8);
    assert_eq!(z("Plain"), 0);
    // Two Leaf fields, Pair's Leaf, three Pairs' Leafs.
    assert_eq!(z("Mid"), s("Mid") + 2 * 8 + 8 + 3 * 8);
    let mid = l.of_struct(schema.struct_by_name("Mid").unwrap());
    let charges: Vec<u64> = mid
        .fields
        .iter()
        .map(|f| l.absent_charge(&f.slot))
        .collect();
    assert_eq!(charges, [8, 8, 8, 24, 0, 0, 0]);
}

#[test]
fn zero_value_sizes_saturate() {
    // Each table holds the next one twice, 64 levels deep: a zero value of
    // 2^64 tables, charged u64::MAX (refused), computed without walking it.
    let mut src = String::from("karmem t;\nstruct T0 table { X u8; }\n");
    for i in 1..64 {
        src += &format!("struct T{i} table {{ A T{}; B T{}; }}\n", i - 1, i - 1);
    }
    let (schema, l) = layout(&src);
    let z = |i: usize| {
        l.of_struct(schema.struct_by_name(&format!("T{i}")).unwrap())
            .zero
    };
    assert_eq!(z(0), 8);
    assert_eq!(z(1), 16 + 2 * 8);
    assert_eq!(z(63), u64::MAX);
}

/// The array plan every encoder and decoder walks: one node per kind of
/// block, with the decoder's per-element charge already decided.
#[test]
fn array_plan_per_block() {
    let (schema, l) = layout(
        "karmem t; enum K u8 { A; } struct V inline { X f32; Y u8; } \
         struct T table { A u64; } union U u16 { T; V; } \
         struct R table { P []u16; S []char; W []u16 @string; Ke []K; I []V #aos; Ts []T #aos; \
         Vs []V; N [][]u16; Ua []U #aos; Us []U; Ub []U #bovoa; Bs []U #bovos; M map<u32, f32>; }",
    );
    let r = l.of_struct(schema.struct_by_name("R").unwrap());
    let id = |n: &str| schema.struct_by_name(n).unwrap();
    let plans: Vec<ArrayPlan> = r
        .fields
        .iter()
        .map(|f| match &f.slot {
            Slot::ArrayRef { array, data } => l.array_plan(array, data),
            other => panic!("not an array: {other:?}"),
        })
        .collect();
    assert!(matches!(
        plans[0],
        ArrayPlan::Plain {
            elem_size: 2,
            charge: 2,
            ..
        }
    ));
    assert_eq!(
        plans[1],
        ArrayPlan::Text {
            utf16: false,
            charge: 1
        }
    );
    assert_eq!(
        plans[2],
        ArrayPlan::Text {
            utf16: true,
            charge: 2
        }
    );
    assert!(matches!(
        plans[3],
        ArrayPlan::Plain {
            elem_size: 1,
            charge: 1,
            ..
        }
    ));
    assert_eq!(
        plans[4],
        ArrayPlan::AosInline {
            id: id("V"),
            stride: 8,
            map: false,
            charge: 8
        }
    );
    assert_eq!(
        plans[5],
        ArrayPlan::AosTable {
            id: id("T"),
            charge: 4
        }
    );
    assert_eq!(plans[6], ArrayPlan::Soa { elem: id("V") });
    assert!(matches!(
        plans[7],
        ArrayPlan::Nested {
            elem_size: 2,
            limit: None,
            charge: 12,
            ..
        }
    ));
    assert!(matches!(plans[8], ArrayPlan::UnionAos { charge: 8, .. }));
    assert!(matches!(
        plans[9],
        ArrayPlan::UnionSoa {
            tag_size: 2,
            charge: 6,
            ..
        }
    ));
    assert!(matches!(plans[10], ArrayPlan::Bunch { soa: false, .. }));
    assert!(matches!(plans[11], ArrayPlan::Bunch { soa: true, .. }));
    assert!(matches!(plans[12], ArrayPlan::AosInline { map: true, .. }));
}

/// What a validator checks in each kind of block, and whether there is
/// anything to check: a printer asks the plan rather than looking at the
/// text it printed.
#[test]
fn array_check_per_block() {
    let (schema, l) = layout(
        "karmem t; struct N inline { X u32; } struct B inline { F bool; } \
         struct T table { X u32; } union U u8 { T; } \
         struct R table { P []u32; Bo []bool; S string; Ni []N #aos; Bi []B #aos; Ts []T #aos; \
         Sa []N; Nn [][]u32; Nb [][]bool; Ua []U #aos; Us []U; Ub []U #bovoa; M map<u32, N>; Ms map<string, u8>; }",
    );
    let r = l.of_struct(schema.struct_by_name("R").unwrap());
    let id = |n: &str| schema.struct_by_name(n).unwrap();
    let checks: Vec<ArrayCheck> = r
        .fields
        .iter()
        .map(|f| match &f.slot {
            Slot::ArrayRef { array, data } => l.array_check(array, data),
            other => panic!("not an array: {other:?}"),
        })
        .collect();
    assert_eq!(checks[0], ArrayCheck::Nothing, "numbers");
    assert_eq!(checks[1], ArrayCheck::Bools);
    assert_eq!(checks[2], ArrayCheck::Text { utf16: false });
    assert_eq!(
        checks[3],
        ArrayCheck::AosInline {
            id: id("N"),
            stride: 4,
            each: false
        },
        "inline structs of numbers"
    );
    assert!(checks[3].is_nothing());
    assert_eq!(
        checks[4],
        ArrayCheck::AosInline {
            id: id("B"),
            stride: 1,
            each: true
        }
    );
    assert_eq!(checks[5], ArrayCheck::AosTable { id: id("T") });
    assert_eq!(checks[6], ArrayCheck::Soa { elem: id("N") });
    assert!(
        !checks[6].is_nothing(),
        "an SoA directory is always checked"
    );
    // Nested arrays: every reference is checked; their blocks only when
    // their elements need it.
    assert!(matches!(
        checks[7],
        ArrayCheck::Nested {
            each: false,
            elem_size: 4,
            ..
        }
    ));
    assert!(matches!(checks[8], ArrayCheck::Nested { each: true, .. }));
    assert!(!checks[7].is_nothing());
    assert!(matches!(checks[9], ArrayCheck::UnionAos { .. }));
    assert!(matches!(
        checks[10],
        ArrayCheck::UnionSoa { tag_size: 1, .. }
    ));
    assert!(matches!(checks[11], ArrayCheck::Bunch { .. }));
    // A map's keys are always checked for order, even when its entries
    // hold nothing else to check.
    assert!(matches!(checks[12], ArrayCheck::Map { each: false, .. }));
    assert!(!checks[12].is_nothing());
    // Text keys are checked in every entry.
    assert!(matches!(checks[13], ArrayCheck::Map { each: true, .. }));
}

/// Where each field is and what a reader does when it is absent: a table
/// field past `used` charges its zero value's tables; an inline struct's
/// fields are always there; SoA columns carry their index and stride, and
/// the unlisted-column charges are listed once per element.
#[test]
fn struct_and_soa_plans() {
    let (schema, l) = layout(
        "karmem t; struct T table { A u64; } struct J inline { Tt T; } \
         struct I inline { X u32; F [2]J; } struct R table { A u16 = 3; B J; C []I; }",
    );
    let (r, i, t) = (
        schema.struct_by_name("R").unwrap(),
        schema.struct_by_name("I").unwrap(),
        schema.struct_by_name("T").unwrap(),
    );
    let t_zero = l.of_struct(t).zero;
    assert!(t_zero > 0);
    let plan = l.struct_plan(&schema, r);
    assert!(plan.table);
    assert_eq!(plan.zero, l.of_struct(r).zero);
    assert_eq!(
        plan.fields
            .iter()
            .map(|f| (f.access, f.default.is_some()))
            .collect::<Vec<_>>(),
        [
            (
                Access::Table {
                    off: 4,
                    size: 2,
                    absent: 0
                },
                true
            ),
            (
                Access::Table {
                    off: 8,
                    size: 4,
                    absent: t_zero
                },
                false
            ),
            (
                Access::Table {
                    off: 12,
                    size: 12,
                    absent: 0
                },
                false
            ),
        ]
    );
    let inline = l.struct_plan(&schema, i);
    assert!(!inline.table);
    assert_eq!(
        inline.fields.iter().map(|f| f.access).collect::<Vec<_>>(),
        [Access::Inline { off: 0 }, Access::Inline { off: 4 }]
    );
    // As an SoA element: a column per leaf (the fixed array is one), by
    // decreasing alignment.
    let soa = l.soa_plan(&schema, i);
    assert_eq!(soa.columns.len(), 2);
    assert!(soa
        .columns
        .iter()
        .enumerate()
        .all(|(k, c)| matches!(c.access, Access::Column { k: ck, .. } if ck == k)));
    assert_eq!(soa.element_charge, l.soa(i).element_charge());
    // The fixed array's zero value holds two T: charged per element when
    // the directory does not list its column (its bytes are paid by the
    // width).
    let f = soa
        .columns
        .iter()
        .position(|c| matches!(c.slot, Slot::FixedArray { .. }))
        .unwrap();
    assert_eq!(soa.unlisted, vec![(f, 2 * t_zero)]);
}

#[test]
fn array_blocks_of_a_schema() {
    let (schema, l) = layout(
        "karmem t; struct V inline { X f32; } union U u16 { V; } \
         struct E table { Q []u8; } \
         struct R table { A u32; N [][<3]u16; O ?[]char; Ub []U #bovoa; Es []E #soa; }",
    );
    let blocks = l.array_blocks();
    let kinds: Vec<&str> = blocks
        .iter()
        .map(|(array, data)| match l.array_plan(array, data) {
            ArrayPlan::Nested { limit: Some(3), .. } => "nested",
            ArrayPlan::Plain { elem_size: 2, .. } => "u16",
            ArrayPlan::Plain { elem_size: 1, .. } => "u8",
            ArrayPlan::Text { utf16: false, .. } => "text",
            ArrayPlan::Bunch { soa: false, .. } => "bunch",
            ArrayPlan::Soa { elem } if elem == schema.struct_by_name("E").unwrap() => "soa",
            other => panic!("unexpected block {other:?}"),
        })
        .collect();
    // Struct fields in declaration order (E's, then R's: the nested
    // array's inner block right after it, the optional's value), then the
    // SoA columns of E (its array column).
    assert_eq!(kinds, ["u8", "nested", "u16", "text", "bunch", "soa", "u8"]);
    for id in 0..schema.unions.len() {
        assert!(plan::uses_bunch(&l, id, false));
        assert!(!plan::uses_bunch(&l, id, true));
    }
}

//! Hostile messages: the decoder's work is bounded by the traversal budget
//! (format.md §10), whatever the message asks for. Each test builds a small
//! message that used to make `karmem json decode` run for minutes or
//! allocate gigabytes, and checks that it is refused; a message just inside
//! the budget still decodes. Nothing here measures time.
use serde_json::{json, Value};

fn load(src: &str) -> (karmem_schema::model::Schema, karmem_layout::Layout) {
    karmem_layout::load("t.km", src).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

fn root(s: &karmem_schema::model::Schema) -> usize {
    s.structs
        .iter()
        .position(|st| st.name == "R")
        .expect("a root R")
}

/// A message of `size` bytes (a multiple of 8) with a valid header and the
/// given little-endian `u32` words at the given offsets.
fn message(size: usize, words: &[(usize, u32)]) -> Vec<u8> {
    let mut b = vec![0u8; size];
    b[0..4].copy_from_slice(&[b'K', b'M', karmem_layout::VERSION, 0]);
    b[4..8].copy_from_slice(&(size as u32).to_le_bytes());
    for &(at, w) in words {
        b[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
    b
}

fn over_budget(r: Result<Value, karmem_json::Error>) {
    match r {
        Err(e) => assert!(e.0.contains("traversal budget"), "{e}"),
        Ok(v) => panic!("decoded: {}", &v.to_string()[..80.min(v.to_string().len())]),
    }
}

/// An SoA array of empty tables: elements without columns. Root table at 8
/// (16 bytes), the directory at 24 (n = 0, 4 bytes), the array's block at
/// 28 (its word pointing to the directory): 192 bytes, budget 8 × 192 =
/// 1 536 = 16 (root) + 8 (directory and block word) + 1 per element, so
/// 1 512 elements fit and 1 513 do not.
#[test]
fn zero_width_elements_are_charged() {
    let (s, l) = load("karmem t;\nstruct E table { }\nstruct R table { A []E; }\n");
    let at = |len: u32| message(192, &[(8, 2), (12, 28), (16, len), (20, len), (28, 24)]);
    let v = karmem_json::decode(&s, &l, root(&s), &at(1512)).unwrap();
    assert_eq!(v["A"].as_array().map(Vec::len), Some(1512));
    assert_eq!(v["A"][0], json!({}));
    over_budget(karmem_json::decode(&s, &l, root(&s), &at(1513)));
    // Used to build 2^32 − 1 empty objects (past 1.2 GB).
    over_budget(karmem_json::decode(&s, &l, root(&s), &at(u32::MAX)));
}

/// Many arrays sharing one directory of 1 024 entries: every read of the
/// directory is charged (8 × 1 025 bytes: the directory and the block's
/// word).
#[test]
fn directory_reads_are_charged() {
    let (s, l) = load(
        "karmem t;\nstruct V inline { X u32; }\nstruct H table { A []V; }\n\
         struct R table { L []H #aos; }\n",
    );
    let build = |n: u32| {
        // n AoS elements, all the table H at t, whose array's block at b
        // points to the directory at d (entries of size 0: no column).
        let t = (64 + 4 * n as usize).next_multiple_of(8);
        let b = t + 16;
        let d = b + 4;
        let mut words = vec![(8, 2), (12, 64), (16, n), (20, n)];
        words.extend((0..n as usize).map(|i| (64 + 4 * i, t as u32)));
        words.extend([(t, 2), (t + 4, b as u32), (t + 8, 1), (t + 12, 1)]);
        words.extend([(b, d as u32), (d, 1024)]);
        // Hashes no column of V has: the scan finds nothing.
        words.extend((1..=1024).map(|k| (d + 4 * k, k as u32)));
        message((d + 4 * 2049).next_multiple_of(8), &words)
    };
    let v = karmem_json::decode(&s, &l, root(&s), &build(4)).unwrap();
    assert_eq!(v["L"][3], json!({ "A": [{ "X": 0 }] }));
    // 100 000 scans of 1 024 entries for a 0.4 MB message, refused after
    // about 400 of them.
    over_budget(karmem_json::decode(&s, &l, root(&s), &build(100_000)));
}

/// Union slots all pointing to one 512-byte inline variant: each use is
/// charged the variant's size, as a table is charged its size.
#[test]
fn inline_variants_are_charged() {
    let fields: String = (0..64).map(|i| format!("F{i} u64; ")).collect();
    let (s, l) = load(&format!(
        "karmem t;\nstruct Big inline {{ {fields}}}\nunion U u8 {{ Big; }}\n\
         struct R table {{ L []U #aos; }}\n"
    ));
    let build = |n: u32| {
        let big = 64 + 8 * n as usize;
        let mut words = vec![(8, 2), (12, 64), (16, n), (20, n), (big, 7)];
        words.extend((0..n as usize).flat_map(|i| [(64 + 8 * i, 1), (68 + 8 * i, big as u32)]));
        message(big + 512, &words)
    };
    let v = karmem_json::decode(&s, &l, root(&s), &build(3)).unwrap();
    assert_eq!(v["L"][2]["Big"]["F0"], json!(7));
    // 20 000 slots (160 kB) used to build 20 000 × 64 numbers; the budget
    // (1.3 MB) covers about 2 500 of them.
    over_budget(karmem_json::decode(&s, &l, root(&s), &build(20_000)));
}

/// `null` for a fixed array is its zero value, with the same bytes as a
/// missing key or N zero elements: the tables inside its elements are
/// written (format.md §8), never left at offset 0.
#[test]
fn fixed_array_null_is_canonical() {
    let (s, l) = load(
        "karmem t;\nstruct T table { X u32; }\nstruct I inline { T T; Y u8; }\n\
         struct R table { Fx [2]I; }\n",
    );
    let encode = |v: Value| karmem_json::encode(&s, &l, root(&s), &v).unwrap();
    let bytes = encode(json!({}));
    for same in [
        json!({ "Fx": null }),
        json!({ "Fx": [null, null] }),
        json!({ "Fx": [{}, { "T": null }] }),
        json!({ "Fx": [{ "T": { "X": 0 }, "Y": 0 }, { "T": {} }] }),
    ] {
        assert_eq!(encode(same.clone()), bytes, "{same}");
    }
    let zero = json!({ "Fx": [{ "T": { "X": 0 }, "Y": 0 }, { "T": { "X": 0 }, "Y": 0 }] });
    assert_eq!(karmem_json::decode(&s, &l, root(&s), &bytes).unwrap(), zero);
}

/// Issue #26: 424 bytes, a root whose AoS array holds 100 table offsets 0,
/// of a table holding a `[65536]u8`. An absent table used to cost one unit
/// and decode into its whole zero value: 6.5 MB of values, 72 MB of JSON.
/// Each now costs its zero value, Z = S = 65 544 units (format.md §10),
/// more than the whole budget (8 × 424).
#[test]
fn absent_tables_cost_their_zero_value() {
    let (s, l) =
        load("karmem t;\nstruct Big table { F [65536]u8; }\nstruct R table { L []Big #aos; }\n");
    let attack = message(424, &[(8, 2), (12, 24), (16, 100), (20, 100)]);
    over_budget(karmem_json::decode(&s, &l, root(&s), &attack));
    // One absent table: 16 (root) + 4 (its offset) + 65 544 units, which
    // a budget of 2 049 × 32 bytes holds and one of 2 048 × 32 does not.
    let one = message(32, &[(8, 2), (12, 24), (16, 1), (20, 1)]);
    let factor = |f| karmem_json::Limits {
        traversal_budget_factor: f,
        ..Default::default()
    };
    let v = karmem_json::decode_with(&s, &l, root(&s), &one, factor(2049)).unwrap();
    assert_eq!(v["L"][0]["F"].as_array().map(Vec::len), Some(65_536));
    over_budget(karmem_json::decode_with(
        &s,
        &l,
        root(&s),
        &one,
        factor(2048),
    ));
}

/// Each table holds the next one twice, 64 levels deep: the zero value of
/// the top one has 2^64 tables. Absent, it is charged `u64::MAX` (saturated)
/// and refused before anything is built, as a field past its parent's
/// `used` and as an offset 0.
#[test]
fn zero_values_too_large_to_build_are_refused() {
    let mut src = String::from("karmem t;\nstruct T0 table { X u8; }\n");
    for i in 1..63 {
        src += &format!("struct T{i} table {{ A T{}; B T{}; }}\n", i - 1, i - 1);
    }
    src += "struct R table { K u32; A T62; }\n";
    let (s, l) = load(&src);
    // R with used 8: A is past it.
    let past_used = message(16, &[(8, 1)]);
    over_budget(karmem_json::decode(&s, &l, root(&s), &past_used));
    // R with A = 0.
    let zero = message(24, &[(8, 2)]);
    over_budget(karmem_json::decode(&s, &l, root(&s), &zero));
}

/// A newer reader of an older message builds the fields the older writer
/// did not know, and pays for them (format.md §10, evolution): the table
/// costs its full size S in the reader's schema, and an appended table
/// field its zero value Z, also where the older table fits the budget.
#[test]
fn evolution_readers_pay_for_what_they_build() {
    let (old_s, old_l) = load("karmem t;\nstruct R table { X u32; }\n");
    let (new_s, new_l) = load(
        "karmem t;\nstruct Big table { F [200]u8; }\n\
         struct R table { X u32; Extra [100]u8; B Big; }\n",
    );
    let old = karmem_json::encode(&old_s, &old_l, root(&old_s), &json!({ "X": 7 })).unwrap();
    assert_eq!(old.len(), 16);
    // The old reader: 8 units (S = used = 8) of 128.
    karmem_json::decode(&old_s, &old_l, root(&old_s), &old).unwrap();
    // The new one: S(R) = 112 and Z(Big) = 208, past 128.
    over_budget(karmem_json::decode(&new_s, &new_l, root(&new_s), &old));
    let wide = karmem_json::Limits {
        traversal_budget_factor: 20, // 320 ≥ 112 + 208
        ..Default::default()
    };
    let v = karmem_json::decode_with(&new_s, &new_l, root(&new_s), &old, wide).unwrap();
    assert_eq!(v["X"], 7);
    assert_eq!(v["B"]["F"].as_array().map(Vec::len), Some(200));
    let tight = karmem_json::Limits {
        traversal_budget_factor: 19, // 304 < 320
        ..Default::default()
    };
    over_budget(karmem_json::decode_with(
        &new_s,
        &new_l,
        root(&new_s),
        &old,
        tight,
    ));
}

/// An SoA column the directory does not list is built as zeros: for a
/// fixed array of inline structs holding tables, those zeros hold tables,
/// charged per element (format.md §10). Root at 8 (16 bytes), the
/// directory at 24 (no entries), the block's word at 28: 32 bytes for one
/// element, charged 16 + 8 + 32 (its width) + 4 × 1 008 (four zero `Big`).
#[test]
fn absent_columns_pay_for_the_tables_they_hold() {
    let (s, l) = load(
        "karmem t;\nstruct Big table { F [1000]u8; }\nstruct P inline { B Big; }\n\
         struct E table { Ps [4]P; }\nstruct R table { A []E; }\n",
    );
    let m = message(32, &[(8, 2), (12, 28), (16, 1), (20, 1), (28, 24)]);
    let factor = |f| karmem_json::Limits {
        traversal_budget_factor: f,
        ..Default::default()
    };
    let v = karmem_json::decode_with(&s, &l, root(&s), &m, factor(128)).unwrap();
    assert_eq!(
        v["A"][0]["Ps"][3]["B"]["F"].as_array().map(Vec::len),
        Some(1000)
    );
    over_budget(karmem_json::decode_with(&s, &l, root(&s), &m, factor(127)));
}

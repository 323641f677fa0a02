//! Map look-up (docs/benchmarks.md "Maps"): 1 000 look-ups of present keys
//! in a map of 10 000 text keys to `u64`, read in place from each format's
//! message after one validation (Karmem's trusted viewer, FlatBuffers'
//! verified root, rkyv's checked `access`), plus Karmem's checked viewer
//! without validation and a native `BTreeMap` as the floor.
//!
//! Run: `cargo bench -p karmem-bench-shapes --bench maps`.

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use karmem_bench_shapes::fb::fb;
use karmem_bench_shapes::kar::gen::{Scores, ScoresView};

const ENTRIES: u64 = 10_000;
const LOOKUPS: usize = 1_000;

/// The map, and the keys looked up (present, in a scattered order).
fn data() -> (BTreeMap<String, u64>, Vec<String>) {
    let mix = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    let map: BTreeMap<String, u64> = (0..ENTRIES)
        .map(|i| (format!("player-{:016x}", mix(i)), i))
        .collect();
    let keys: Vec<&String> = map.keys().collect();
    let lookups = (0..LOOKUPS as u64)
        .map(|i| keys[(mix(i + 7) % ENTRIES) as usize].clone())
        .collect();
    (map, lookups)
}

fn flatbuffers_bytes(map: &BTreeMap<String, u64>) -> Vec<u8> {
    let mut b = flatbuffers::FlatBufferBuilder::new();
    // Already in key order: FlatBuffers' sorted-vector convention.
    let entries: Vec<_> = map
        .iter()
        .map(|(name, score)| {
            let name = b.create_string(name);
            fb::ScoreEntry::create(
                &mut b,
                &fb::ScoreEntryArgs {
                    name: Some(name),
                    score: *score,
                },
            )
        })
        .collect();
    let entries = b.create_vector(&entries);
    let root = fb::Scores::create(
        &mut b,
        &fb::ScoresArgs {
            entries: Some(entries),
        },
    );
    b.finish(root, None);
    b.finished_data().to_vec()
}

/// Binary search over the sorted vector by key, as FlatBuffers'
/// `LookupByKey` does in the languages that generate it.
fn flatbuffers_get(
    entries: flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<fb::ScoreEntry<'_>>>,
    key: &str,
) -> Option<u64> {
    let (mut lo, mut hi) = (0, entries.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let e = entries.get(mid);
        match e.name().cmp(key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(e.score()),
        }
    }
    None
}

fn benches(c: &mut Criterion) {
    let (map, lookups) = data();
    let karmem = Scores {
        by_name: map.clone(),
    }
    .to_bytes()
    .unwrap();
    let karmem = karmem::AlignedBuf::from_bytes(&karmem);
    let fb_bytes = flatbuffers_bytes(&map);
    let rkyv_btree = rkyv::to_bytes::<rkyv::rancor::Error>(&map).unwrap();
    let hash: HashMap<String, u64> = map.clone().into_iter().collect();
    let rkyv_hash = rkyv::to_bytes::<rkyv::rancor::Error>(&hash).unwrap();
    eprintln!(
        "map of {ENTRIES} entries: karmem {} B, flatbuffers {} B, rkyv BTreeMap {} B, rkyv HashMap {} B",
        karmem.as_slice().len(),
        fb_bytes.len(),
        rkyv_btree.len(),
        rkyv_hash.len()
    );

    let mut g = c.benchmark_group(format!("maps/{LOOKUPS} look-ups"));
    let r = karmem::Reader::new(karmem.as_slice()).unwrap();
    let trusted = Scores::validate(&r).unwrap();
    g.bench_function("karmem", |b| {
        b.iter(|| {
            let m = black_box(trusted).by_name();
            lookups
                .iter()
                .map(|k| m.get(k.as_str()).unwrap())
                .sum::<u64>()
        })
    });
    g.bench_function("karmem (checked)", |b| {
        b.iter(|| {
            let m = ScoresView::root(black_box(&r)).by_name();
            lookups
                .iter()
                .map(|k| m.get(k.as_str()).unwrap())
                .sum::<u64>()
        })
    });
    let root = flatbuffers::root::<fb::Scores>(&fb_bytes).unwrap();
    g.bench_function("flatbuffers", |b| {
        b.iter(|| {
            let entries = black_box(root).entries().unwrap();
            lookups
                .iter()
                .map(|k| flatbuffers_get(entries, k).unwrap())
                .sum::<u64>()
        })
    });
    let archived_btree =
        rkyv::access::<rkyv::Archived<BTreeMap<String, u64>>, rkyv::rancor::Error>(&rkyv_btree)
            .unwrap();
    g.bench_function("rkyv BTreeMap", |b| {
        b.iter(|| {
            let m = black_box(archived_btree);
            lookups
                .iter()
                .map(|k| m.get(k.as_str()).unwrap().to_native())
                .sum::<u64>()
        })
    });
    let archived_hash =
        rkyv::access::<rkyv::Archived<HashMap<String, u64>>, rkyv::rancor::Error>(&rkyv_hash)
            .unwrap();
    g.bench_function("rkyv HashMap", |b| {
        b.iter(|| {
            let m = black_box(archived_hash);
            lookups
                .iter()
                .map(|k| m.get(k.as_str()).unwrap().to_native())
                .sum::<u64>()
        })
    });
    g.bench_function("native BTreeMap", |b| {
        b.iter(|| {
            let m = black_box(&map);
            lookups.iter().map(|k| m[k]).sum::<u64>()
        })
    });
    g.finish();
}

criterion_group! {
    name = maps;
    config = Criterion::default().sample_size(30);
    targets = benches
}
criterion_main!(maps);

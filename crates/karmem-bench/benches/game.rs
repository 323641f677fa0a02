//! Game-state benchmark: 1 000 monsters with paths of up to 2 000 points.
//!
//! Every contender encodes the same data, decodes it to owned objects and
//! sums every path coordinate, in one run, so the ratios in
//! docs/benchmarks.md come from one machine state. Run: `make bench`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use karmem_bench::{fb, kar, plain, rk};

const MONSTERS: usize = 1000;
const MAX_PATH: usize = 2000;

fn benches(c: &mut Criterion) {
    let state = plain::generate(MONSTERS, MAX_PATH);
    let expected = plain::sum_paths(&state);

    // Encoded forms, produced once for the read benchmarks.
    let mut fb_builder = flatbuffers::FlatBufferBuilder::with_capacity(1 << 20);
    fb::encode(&mut fb_builder, &state);
    let fb_bytes = fb_builder.finished_data().to_vec();
    let mut rk_bytes = rkyv::util::AlignedVec::new();
    rk::encode(&state, &mut rk_bytes);
    let km_object = kar::from_plain(&state);
    let mut km_writer = karmem::Writer::new(1 << 20);
    kar::encode(&km_object, &mut km_writer);
    let km_bytes = karmem::AlignedBuf::from_bytes(km_writer.bytes());

    // Every contender must compute the same sum before it is timed (float
    // sums agree to rounding: same order of additions everywhere).
    let check = |name: &str, got: f64| {
        assert!(
            (got - expected).abs() <= expected.abs() * 1e-6,
            "{name}: {got} != {expected}"
        );
    };
    check("plain", plain::sum_paths(&state));
    check(
        "flatbuffers",
        fb::sum_paths(flatbuffers::root::<fb::fb::State>(&fb_bytes).unwrap()),
    );
    check("rkyv", rk::sum_paths(rk::access(&rk_bytes)));
    check("karmem", kar::sum_paths_checked(km_bytes.as_slice()));
    check(
        "karmem-validated",
        kar::sum_paths_validated(km_bytes.as_slice()),
    );

    println!(
        "message sizes: karmem {} B, flatbuffers {} B, rkyv {} B",
        km_bytes.as_slice().len(),
        fb_bytes.len(),
        rk_bytes.len()
    );

    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(MONSTERS as u64));
    g.bench_function("karmem", |b| {
        b.iter(|| kar::encode(black_box(&km_object), &mut km_writer))
    });
    g.bench_function("flatbuffers", |b| {
        b.iter(|| fb::encode(&mut fb_builder, black_box(&state)))
    });
    g.bench_function("rkyv", |b| {
        b.iter(|| rk::encode(black_box(&state), &mut rk_bytes))
    });
    g.finish();

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(MONSTERS as u64));
    let mut km_reused = kar::Object::default();
    g.bench_function("karmem (reused object)", |b| {
        b.iter(|| kar::decode_into(black_box(km_bytes.as_slice()), &mut km_reused))
    });
    g.bench_function("flatbuffers (object API)", |b| {
        b.iter(|| {
            flatbuffers::root::<fb::fb::State>(black_box(&fb_bytes))
                .unwrap()
                .unpack()
        })
    });
    g.bench_function("rkyv (validated + deserialize)", |b| {
        b.iter(|| rk::decode(rk::access(black_box(&rk_bytes))))
    });
    g.bench_function("plain (clone)", |b| {
        b.iter_batched(|| (), |_| black_box(&state).clone(), BatchSize::SmallInput)
    });
    g.finish();

    let mut g = c.benchmark_group("sum_paths");
    g.throughput(Throughput::Elements(MONSTERS as u64));
    g.bench_function("plain struct", |b| {
        b.iter(|| plain::sum_paths(black_box(&state)))
    });
    g.bench_function("karmem viewer (checked)", |b| {
        b.iter(|| kar::sum_paths_checked(black_box(km_bytes.as_slice())))
    });
    g.bench_function("karmem (validate + unchecked)", |b| {
        b.iter(|| kar::sum_paths_validated(black_box(km_bytes.as_slice())))
    });
    g.bench_function("flatbuffers (verified root)", |b| {
        b.iter(|| fb::sum_paths(flatbuffers::root::<fb::fb::State>(black_box(&fb_bytes)).unwrap()))
    });
    g.bench_function("flatbuffers (unchecked root)", |b| {
        // SAFETY: the bytes were produced by the FlatBuffers builder above.
        b.iter(|| {
            fb::sum_paths(unsafe {
                flatbuffers::root_unchecked::<fb::fb::State>(black_box(&fb_bytes))
            })
        })
    });
    g.bench_function("rkyv (validated access)", |b| {
        b.iter(|| rk::sum_paths(rk::access(black_box(&rk_bytes))))
    });
    g.bench_function("rkyv (unchecked access)", |b| {
        // SAFETY: the bytes were produced by rk::encode above.
        b.iter(|| rk::sum_paths(unsafe { rk::access_unchecked(black_box(&rk_bytes)) }))
    });
    g.finish();

    let mut g = c.benchmark_group("validate");
    g.throughput(Throughput::Bytes(km_bytes.as_slice().len() as u64));
    g.bench_function("karmem", |b| {
        b.iter(|| kar::validate(black_box(km_bytes.as_slice())))
    });
    g.bench_function("flatbuffers verifier", |b| {
        b.iter(|| flatbuffers::root::<fb::fb::State>(black_box(&fb_bytes)).is_ok())
    });
    g.bench_function("rkyv bytecheck", |b| {
        b.iter(|| rk::access(black_box(&rk_bytes)).monsters.len())
    });
    g.finish();
}

criterion_group! {
    name = game;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(game);

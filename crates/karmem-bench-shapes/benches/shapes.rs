//! The shapes benchmark: serialize, validate, access and read on four
//! workloads (log, mesh, save, updates) for Karmem and five peers. Results
//! and the fairness choices: docs/benchmarks.md "Rust: five peers, four
//! shapes". Run: `make bench-shapes`.
//!
//! Before timing, `Fixture::check` proves that every contender round-trips
//! the data and computes the same read and access results.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use karmem_bench_shapes::{capn, kar, pb, Fixture, Log, Mesh, Save, Updates, Workload};

fn workload<W: Workload>(c: &mut Criterion) {
    let mut f = Fixture::<W>::new();
    f.check();
    for (format, size) in f.sizes() {
        println!("message size: {} {format} {size} B", W::NAME);
    }
    // Cap'n Proto's reused first segment: large enough for the message.
    let mut scratch = capnp::Word::allocate_zeroed_vec(f.cp_bytes.as_slice().len() / 8 + 1024);
    let mut cp = capn::Encoder::new(&mut scratch);
    let mut bc_decoder = bitcode::Buffer::new();
    let name = W::NAME;

    let mut g = c.benchmark_group(format!("{name}/serialize"));
    g.bench_function("karmem", |b| {
        b.iter(|| kar::encode(black_box(&f.km), &mut f.km_writer))
    });
    g.bench_function("flatbuffers", |b| {
        b.iter(|| black_box(W::fb_encode(&mut f.fb, black_box(&f.plain))).len())
    });
    g.bench_function("capnp", |b| {
        b.iter(|| black_box(W::cp_encode(&mut cp, black_box(&f.plain))).len())
    });
    g.bench_function("prost", |b| {
        b.iter(|| pb::encode(black_box(&f.pb), &mut f.pb_bytes))
    });
    g.bench_function("bitcode", |b| {
        b.iter(|| black_box(f.bc.encode(black_box(&f.plain))).len())
    });
    g.bench_function("rkyv", |b| {
        b.iter(|| W::rk_encode(black_box(&f.plain), &mut f.rk_bytes))
    });
    g.finish();

    let km = f.km_bytes.as_slice();
    let cpb = f.cp_bytes.as_slice();
    let mut g = c.benchmark_group(format!("{name}/validate"));
    g.bench_function("karmem", |b| {
        b.iter(|| {
            black_box(kar::validate::<W::Km>(black_box(km)));
        })
    });
    g.bench_function("flatbuffers", |b| {
        b.iter(|| W::fb_verify(black_box(&f.fb_bytes)))
    });
    g.bench_function("capnp (total_size)", |b| {
        b.iter(|| W::cp_validate(black_box(cpb)))
    });
    g.bench_function("prost (decode)", |b| {
        b.iter(|| black_box(pb::decode::<W::Pb>(black_box(&f.pb_bytes))))
    });
    g.bench_function("bitcode (decode)", |b| {
        b.iter(|| {
            let v: W::Plain = bc_decoder.decode(black_box(&f.bc_bytes)).expect("valid");
            black_box(v)
        })
    });
    g.bench_function("rkyv", |b| {
        b.iter(|| W::rk_validate(black_box(&f.rk_bytes)))
    });
    g.finish();

    // Access and read: the zero-copy readers on messages validated above
    // (their validate rows are the price of checking untrusted bytes);
    // Cap'n Proto checks as it reads; prost and bitcode decode first.
    let access = Readers::<W, W::Access> {
        km: W::km_access,
        km_checked: W::km_access_checked,
        fb: W::fb_access,
        cp: W::cp_access,
        pb: W::pb_access,
        plain: W::access_plain,
        rk: W::rk_access,
    };
    access.bench(c, "access", &f, &mut bc_decoder);
    let read = Readers::<W, W::Sum> {
        km: W::km_read,
        km_checked: W::km_read_checked,
        fb: W::fb_read,
        cp: W::cp_read,
        pb: W::pb_read,
        plain: W::read_plain,
        rk: W::rk_read,
    };
    read.bench(c, "read", &f, &mut bc_decoder);
}

/// One read operation (access or read) in every contender's form.
struct Readers<W: Workload, R> {
    km: unsafe fn(&[u8]) -> R,
    km_checked: fn(&[u8]) -> R,
    fb: unsafe fn(&[u8]) -> R,
    cp: fn(&[u8]) -> R,
    pb: fn(&W::Pb) -> R,
    plain: fn(&W::Plain) -> R,
    rk: unsafe fn(&[u8]) -> R,
}

impl<W: Workload, R> Readers<W, R> {
    fn bench(&self, c: &mut Criterion, op: &str, f: &Fixture<W>, bc: &mut bitcode::Buffer) {
        let mut g = c.benchmark_group(format!("{}/{op}", W::NAME));
        let (km, cp) = (f.km_bytes.as_slice(), f.cp_bytes.as_slice());
        // SAFETY (every unsafe block below): `Fixture::check` validated
        // each contender's message with that contender's own validator.
        g.bench_function("karmem", |b| b.iter(|| unsafe { (self.km)(black_box(km)) }));
        g.bench_function("karmem (checked)", |b| {
            b.iter(|| (self.km_checked)(black_box(km)))
        });
        g.bench_function("flatbuffers", |b| {
            b.iter(|| unsafe { (self.fb)(black_box(&f.fb_bytes)) })
        });
        g.bench_function("capnp", |b| b.iter(|| (self.cp)(black_box(cp))));
        g.bench_function(format!("prost (decode + {op})"), |b| {
            b.iter(|| (self.pb)(&pb::decode::<W::Pb>(black_box(&f.pb_bytes))))
        });
        g.bench_function(format!("bitcode (decode + {op})"), |b| {
            b.iter(|| {
                let v: W::Plain = bc.decode(black_box(&f.bc_bytes)).expect("valid");
                (self.plain)(&v)
            })
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| unsafe { (self.rk)(black_box(&f.rk_bytes)) })
        });
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    workload::<Log>(c);
    workload::<Mesh>(c);
    workload::<Save>(c);
    // The save game with AoS nested arrays: its size only (docs).
    let aos = kar::from_save_aos(&Save::generate());
    let size = aos.to_bytes().expect("fits").len();
    println!("message size: save karmem (nested arrays #aos) {size} B");
    workload::<Updates>(c);
}

criterion_group! {
    name = shapes;
    // As the game benchmark: short measurements cope better with a shared
    // machine. Override with `-- --warm-up-time S --measurement-time S`.
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(shapes);

//! Every measured operation, by name (`group/contender`), in one table
//! shared by the criterion benchmark, the instruction-count runner
//! (`examples/ops.rs`, for callgrind) and the allocation test, so all three
//! measure exactly the same code.

use std::hint::black_box;

use crate::{fb, kar, plain, rk, Fixture};

/// A fixture plus the objects that decodes reuse.
pub struct Ctx {
    pub f: Fixture,
    pub km_reused: kar::Object,
}

impl Ctx {
    pub fn new(f: Fixture) -> Self {
        let mut km_reused = kar::Object::default();
        kar::decode_into(f.km_bytes.as_slice(), &mut km_reused);
        Ctx { f, km_reused }
    }
}

pub type Op = fn(&mut Ctx);

/// `(group/contender, operation)`. Results go through `black_box` and are
/// dropped inside the operation, so freeing new objects counts too.
pub const OPS: &[(&str, Op)] = &[
    ("encode/karmem", |c| {
        kar::encode(black_box(&c.f.km_object), &mut c.f.km_writer)
    }),
    ("encode/flatbuffers", |c| {
        c.f.fb.encode(black_box(&c.f.state))
    }),
    ("encode/rkyv", |c| {
        rk::encode(black_box(&c.f.state), &mut c.f.rk_bytes)
    }),
    ("decode/karmem (reused object)", |c| {
        kar::decode_into(black_box(c.f.km_bytes.as_slice()), &mut c.km_reused)
    }),
    ("decode/karmem (new object)", |c| {
        black_box(kar::decode_new(black_box(c.f.km_bytes.as_slice())));
    }),
    ("decode/flatbuffers (verify + unpack)", |c| {
        black_box(fb::decode(black_box(&c.f.fb_bytes)));
    }),
    ("decode/rkyv (validate + deserialize)", |c| {
        black_box(rk::decode(rk::access(black_box(&c.f.rk_bytes))));
    }),
    ("decode/rkyv (unchecked + deserialize)", |c| {
        // SAFETY: the bytes were produced by rk::encode.
        let a = unsafe { rk::access_unchecked(black_box(&c.f.rk_bytes)) };
        black_box(rk::decode(a));
    }),
    ("decode/plain (clone)", |c| {
        black_box(black_box(&c.f.state).clone());
    }),
    ("sum_paths/plain struct", |c| {
        black_box(plain::sum_paths(black_box(&c.f.state)));
    }),
    ("sum_paths/karmem (checked viewer)", |c| {
        black_box(kar::sum_paths_checked(black_box(c.f.km_bytes.as_slice())));
    }),
    ("sum_paths/karmem (trusted viewer, validated before)", |c| {
        black_box(kar::sum(kar::trusted_unvalidated(black_box(
            c.f.km_bytes.as_slice(),
        ))));
    }),
    ("sum_paths/karmem (validate + trusted viewer)", |c| {
        black_box(kar::sum_paths_validated(black_box(c.f.km_bytes.as_slice())));
    }),
    ("sum_paths/flatbuffers (verify + read)", |c| {
        black_box(fb::sum_paths(fb::root(black_box(&c.f.fb_bytes))));
    }),
    ("sum_paths/flatbuffers (unverified)", |c| {
        // SAFETY: the bytes were produced by the FlatBuffers builder.
        let root = unsafe { fb::root_unchecked(black_box(&c.f.fb_bytes)) };
        black_box(fb::sum_paths(root));
    }),
    ("sum_paths/rkyv (validate + read)", |c| {
        black_box(rk::sum_paths(rk::access(black_box(&c.f.rk_bytes))));
    }),
    ("sum_paths/rkyv (unchecked)", |c| {
        // SAFETY: the bytes were produced by rk::encode.
        let a = unsafe { rk::access_unchecked(black_box(&c.f.rk_bytes)) };
        black_box(rk::sum_paths(a));
    }),
    ("validate/karmem", |c| {
        black_box(kar::validate(black_box(c.f.km_bytes.as_slice())));
    }),
    ("validate/flatbuffers verifier", |c| {
        black_box(fb::verify(black_box(&c.f.fb_bytes)));
    }),
    ("validate/rkyv bytecheck", |c| {
        black_box(rk::access(black_box(&c.f.rk_bytes)));
    }),
];

/// The groups of [`OPS`], in order.
pub fn groups() -> Vec<&'static str> {
    let mut groups: Vec<&str> = Vec::new();
    for (name, _) in OPS {
        let g = name.split('/').next().unwrap_or(name);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    groups
}

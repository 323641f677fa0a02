//! The shapes benchmark (docs/benchmarks.md "Rust: five peers, four
//! shapes"): Karmem against rkyv, FlatBuffers, Cap'n Proto, bitcode and
//! prost on four workloads — a log (text), a mesh (millions of f32), a
//! nested save game and a batch of small-integer updates.
//!
//! Every workload implements [`Workload`]: the same plain data, every
//! contender's encoding of it, and the contenders' validate, access and
//! read. [`Fixture::check`] proves, before anything is timed, that every
//! contender round-trips the data and computes the same results.

use std::fmt::Debug;

pub mod capn;
pub mod data;
pub mod fb;
pub mod kar;
pub mod pb;
pub mod rk;

/// Cap'n Proto's generated code names itself `crate::shapes_capnp`.
#[allow(clippy::all, dead_code, unused_parens)]
pub mod shapes_capnp {
    include!(concat!(env!("OUT_DIR"), "/shapes_capnp.rs"));
}

/// One workload in every contender's form. The `unsafe` functions read
/// without checks and take only bytes that passed the contender's own
/// validation ([`Fixture::check`] validates every message first).
pub trait Workload {
    const NAME: &'static str;
    type Plain: Clone + PartialEq + Debug + bitcode::Encode + for<'a> bitcode::Decode<'a>;
    type Km: kar::Root;
    type Pb: prost::Message + Default;
    type Sum: PartialEq + Debug + Copy;
    type Access: PartialEq + Debug + Copy;

    fn generate() -> Self::Plain;
    fn read_plain(p: &Self::Plain) -> Self::Sum;
    fn access_plain(p: &Self::Plain) -> Self::Access;

    fn to_km(p: &Self::Plain) -> Self::Km;
    fn km_to_plain(k: &Self::Km) -> Self::Plain;
    /// # Safety
    /// `bytes` passed `kar::validate`.
    unsafe fn km_read(bytes: &[u8]) -> Self::Sum;
    /// # Safety
    /// `bytes` passed `kar::validate`.
    unsafe fn km_access(bytes: &[u8]) -> Self::Access;
    fn km_read_checked(bytes: &[u8]) -> Self::Sum;
    fn km_access_checked(bytes: &[u8]) -> Self::Access;

    fn fb_encode<'e>(e: &'e mut fb::Encoder, p: &Self::Plain) -> &'e [u8];
    /// Karmem's validation as a verdict (the benchmark times
    /// `kar::validate`, which returns the trusted viewer).
    fn km_validate(bytes: &[u8]) -> bool {
        karmem::Reader::new(bytes)
            .and_then(|r| <Self::Km as kar::Root>::validate_root(&r).map(|_| ()))
            .is_ok()
    }
    fn fb_verify(bytes: &[u8]) -> bool;
    /// # Safety
    /// `bytes` passed [`Workload::fb_verify`].
    unsafe fn fb_read(bytes: &[u8]) -> Self::Sum;
    /// # Safety
    /// `bytes` passed [`Workload::fb_verify`].
    unsafe fn fb_access(bytes: &[u8]) -> Self::Access;
    fn fb_to_plain(bytes: &[u8]) -> Self::Plain;

    fn cp_encode<'e>(e: &'e mut capn::Encoder<'_>, p: &Self::Plain) -> &'e [u8];
    fn cp_validate(bytes: &[u8]) -> bool;
    fn cp_read(bytes: &[u8]) -> Self::Sum;
    fn cp_access(bytes: &[u8]) -> Self::Access;
    fn cp_to_plain(bytes: &[u8]) -> Self::Plain;

    fn to_pb(p: &Self::Plain) -> Self::Pb;
    fn pb_to_plain(p: &Self::Pb) -> Self::Plain;
    fn pb_read(p: &Self::Pb) -> Self::Sum;
    fn pb_access(p: &Self::Pb) -> Self::Access;

    fn rk_encode(p: &Self::Plain, out: &mut rkyv::util::AlignedVec);
    fn rk_validate(bytes: &[u8]) -> bool;
    /// # Safety
    /// `bytes` passed [`Workload::rk_validate`].
    unsafe fn rk_read(bytes: &[u8]) -> Self::Sum;
    /// # Safety
    /// `bytes` passed [`Workload::rk_validate`].
    unsafe fn rk_access(bytes: &[u8]) -> Self::Access;
    fn rk_to_plain(bytes: &[u8]) -> Self::Plain;
}

/// Karmem's trusted reader over bytes validated earlier.
///
/// # Safety
/// `bytes` passed the generated `validate` of the root type read from them.
pub unsafe fn km_trusted(bytes: &[u8]) -> karmem::Reader<'_, karmem::Trusted> {
    let r = karmem::Reader::new(bytes).expect("aligned message");
    // SAFETY: the caller guarantees the message was validated.
    unsafe { r.assume_trusted() }
}

macro_rules! workload {
    (
        $w:ident, $name:literal, $gen:expr,
        km: $km:ident / $kview:ident, fb: $fbt:ident, cp: $cpm:ident,
        fn: $enc:ident $read:ident $access:ident $to:ident $from:ident,
        sum: $sum:ty, access: $acc:ty
    ) => {
        pub struct $w;

        impl Workload for $w {
            const NAME: &'static str = $name;
            type Plain = data::$w;
            type Km = kar::gen::$km;
            type Pb = pb::$w;
            type Sum = $sum;
            type Access = $acc;

            fn generate() -> data::$w {
                $gen
            }
            fn read_plain(p: &data::$w) -> $sum {
                data::$read(p)
            }
            fn access_plain(p: &data::$w) -> $acc {
                data::$access(p)
            }

            fn to_km(p: &data::$w) -> kar::gen::$km {
                kar::$from(p)
            }
            fn km_to_plain(k: &kar::gen::$km) -> data::$w {
                kar::$to(k)
            }
            unsafe fn km_read(bytes: &[u8]) -> $sum {
                // SAFETY: forwarded from the caller.
                let r = unsafe { km_trusted(bytes) };
                kar::$read(kar::gen::$kview::root(&r))
            }
            unsafe fn km_access(bytes: &[u8]) -> $acc {
                // SAFETY: forwarded from the caller.
                let r = unsafe { km_trusted(bytes) };
                kar::$access(kar::gen::$kview::root(&r))
            }
            fn km_read_checked(bytes: &[u8]) -> $sum {
                kar::$read(kar::gen::$kview::root(&kar::checked(bytes)))
            }
            fn km_access_checked(bytes: &[u8]) -> $acc {
                kar::$access(kar::gen::$kview::root(&kar::checked(bytes)))
            }

            fn fb_encode<'e>(e: &'e mut fb::Encoder, p: &data::$w) -> &'e [u8] {
                e.$enc(p)
            }
            fn fb_verify(bytes: &[u8]) -> bool {
                fb::verify::<fb::fb::$fbt>(bytes)
            }
            unsafe fn fb_read(bytes: &[u8]) -> $sum {
                // SAFETY: forwarded from the caller.
                fb::$read(unsafe { flatbuffers::root_unchecked::<fb::fb::$fbt>(bytes) })
            }
            unsafe fn fb_access(bytes: &[u8]) -> $acc {
                // SAFETY: forwarded from the caller.
                fb::$access(unsafe { flatbuffers::root_unchecked::<fb::fb::$fbt>(bytes) })
            }
            fn fb_to_plain(bytes: &[u8]) -> data::$w {
                fb::$to(fb::root::<fb::fb::$fbt>(bytes))
            }

            fn cp_encode<'e>(e: &'e mut capn::Encoder<'_>, p: &data::$w) -> &'e [u8] {
                e.$enc(p)
            }
            fn cp_validate(bytes: &[u8]) -> bool {
                capn::validate::<shapes_capnp::$cpm::Owned>(bytes)
            }
            fn cp_read(bytes: &[u8]) -> $sum {
                let m = capn::message(bytes);
                capn::$read(m.get_root().expect("root"))
            }
            fn cp_access(bytes: &[u8]) -> $acc {
                let m = capn::message(bytes);
                capn::$access(m.get_root().expect("root"))
            }
            fn cp_to_plain(bytes: &[u8]) -> data::$w {
                let m = capn::message(bytes);
                capn::$to(m.get_root().expect("root"))
            }

            fn to_pb(p: &data::$w) -> pb::$w {
                pb::$from(p)
            }
            fn pb_to_plain(p: &pb::$w) -> data::$w {
                pb::$to(p)
            }
            fn pb_read(p: &pb::$w) -> $sum {
                pb::$read(p)
            }
            fn pb_access(p: &pb::$w) -> $acc {
                pb::$access(p)
            }

            fn rk_encode(p: &data::$w, out: &mut rkyv::util::AlignedVec) {
                use rkyv::rancor::Error;
                let mut buffer = core::mem::take(out);
                buffer.clear();
                let mut buffer = rkyv::util::with_arena(|arena| {
                    rkyv::api::low::to_bytes_in_with_alloc::<_, _, Error>(
                        p,
                        buffer,
                        arena.acquire(),
                    )
                })
                .expect("rkyv serialisation of in-memory data");
                core::mem::swap(out, &mut buffer);
            }
            fn rk_validate(bytes: &[u8]) -> bool {
                rkyv::api::low::access::<rkyv::Archived<data::$w>, rkyv::rancor::Error>(bytes)
                    .is_ok()
            }
            unsafe fn rk_read(bytes: &[u8]) -> $sum {
                // SAFETY: forwarded from the caller.
                rk::$read(unsafe { rkyv::access_unchecked::<rkyv::Archived<data::$w>>(bytes) })
            }
            unsafe fn rk_access(bytes: &[u8]) -> $acc {
                // SAFETY: forwarded from the caller.
                rk::$access(unsafe { rkyv::access_unchecked::<rkyv::Archived<data::$w>>(bytes) })
            }
            fn rk_to_plain(bytes: &[u8]) -> data::$w {
                use rkyv::rancor::Error;
                let a = rkyv::api::low::access::<rkyv::Archived<data::$w>, Error>(bytes)
                    .expect("valid archive");
                rkyv::api::low::deserialize::<data::$w, Error>(a).expect("deserialize")
            }
        }
    };
}

workload!(Log, "log", data::log(data::LOG_ENTRIES),
    km: Log / LogView, fb: Log, cp: log,
    fn: log read_log access_log to_log from_log,
    sum: u64, access: usize);
workload!(Mesh, "mesh", data::mesh(data::MESH_VERTICES),
    km: Mesh / MeshView, fb: Mesh, cp: mesh,
    fn: mesh read_mesh access_mesh to_mesh from_mesh,
    sum: data::MeshSum, access: f32);
workload!(Save, "save", data::save(data::SAVE_ITEMS, data::SAVE_QUESTS),
    km: Save / SaveView, fb: Save, cp: save,
    fn: save read_save access_save to_save from_save,
    sum: i64, access: i16);
workload!(Updates, "updates", data::updates(data::UPDATES),
    km: Updates / UpdatesView, fb: Updates, cp: updates,
    fn: updates read_updates access_updates to_updates from_updates,
    sum: i64, access: i8);

/// One workload encoded by every contender, checked before anything is
/// timed.
pub struct Fixture<W: Workload> {
    pub plain: W::Plain,
    pub sum: W::Sum,
    pub access: W::Access,
    pub km: W::Km,
    pub km_writer: karmem::Writer<'static>,
    /// Messages copied to 8-aligned buffers where the reader needs it.
    pub km_bytes: karmem::AlignedBuf,
    pub fb: fb::Encoder,
    pub fb_bytes: Vec<u8>,
    pub cp_bytes: karmem::AlignedBuf,
    pub pb: W::Pb,
    pub pb_bytes: Vec<u8>,
    pub bc: bitcode::Buffer,
    pub bc_bytes: Vec<u8>,
    pub rk_bytes: rkyv::util::AlignedVec,
}

impl<W: Workload> Fixture<W> {
    pub fn new() -> Self {
        Self::from_plain(W::generate())
    }

    pub fn from_plain(plain: W::Plain) -> Self {
        let km = W::to_km(&plain);
        let mut km_writer = karmem::Writer::new(1 << 20);
        kar::encode(&km, &mut km_writer);
        let km_bytes = karmem::AlignedBuf::from_bytes(km_writer.bytes());
        let mut fb = fb::Encoder::new(1 << 20);
        let fb_bytes = W::fb_encode(&mut fb, &plain).to_vec();
        let mut scratch = capnp::Word::allocate_zeroed_vec(1 << 10);
        let cp_bytes = karmem::AlignedBuf::from_bytes(W::cp_encode(
            &mut capn::Encoder::new(&mut scratch),
            &plain,
        ));
        let pb = W::to_pb(&plain);
        let mut pb_bytes = Vec::new();
        pb::encode(&pb, &mut pb_bytes);
        let mut bc = bitcode::Buffer::new();
        let bc_bytes = bc.encode(&plain).to_vec();
        let mut rk_bytes = rkyv::util::AlignedVec::new();
        W::rk_encode(&plain, &mut rk_bytes);
        Fixture {
            sum: W::read_plain(&plain),
            access: W::access_plain(&plain),
            plain,
            km,
            km_writer,
            km_bytes,
            fb,
            fb_bytes,
            cp_bytes,
            pb,
            pb_bytes,
            bc,
            bc_bytes,
            rk_bytes,
        }
    }

    /// Every contender's message validates, decodes to the plain data, and
    /// gives the plain data's read and access results. Panics otherwise
    /// (a benchmark of unequal work would be meaningless).
    pub fn check(&self) {
        let name = W::NAME;
        let km = self.km_bytes.as_slice();
        kar::validate::<W::Km>(km);
        assert!(W::fb_verify(&self.fb_bytes), "{name}: flatbuffers verify");
        assert!(W::cp_validate(self.cp_bytes.as_slice()), "{name}: capnp");
        assert!(W::rk_validate(&self.rk_bytes), "{name}: rkyv bytecheck");

        let decoded_km = <W::Km as kar::Root>::decode(km).expect("karmem decode");
        let decoded_pb: W::Pb = pb::decode(&self.pb_bytes);
        let decoded_bc: W::Plain = bitcode::decode(&self.bc_bytes).expect("bitcode decode");
        let decoded = [
            ("karmem", W::km_to_plain(&decoded_km)),
            ("flatbuffers", W::fb_to_plain(&self.fb_bytes)),
            ("capnp", W::cp_to_plain(self.cp_bytes.as_slice())),
            ("prost", W::pb_to_plain(&decoded_pb)),
            ("bitcode", decoded_bc.clone()),
            ("rkyv", W::rk_to_plain(&self.rk_bytes)),
        ];
        for (format, value) in &decoded {
            assert!(*value == self.plain, "{name}: {format} does not round-trip");
        }

        // SAFETY: every message passed its validation above.
        let (sums, accesses) = unsafe {
            (
                [
                    ("karmem", W::km_read(km)),
                    ("karmem checked", W::km_read_checked(km)),
                    ("flatbuffers", W::fb_read(&self.fb_bytes)),
                    ("capnp", W::cp_read(self.cp_bytes.as_slice())),
                    ("prost", W::pb_read(&decoded_pb)),
                    ("bitcode", W::read_plain(&decoded_bc)),
                    ("rkyv", W::rk_read(&self.rk_bytes)),
                ],
                [
                    ("karmem", W::km_access(km)),
                    ("karmem checked", W::km_access_checked(km)),
                    ("flatbuffers", W::fb_access(&self.fb_bytes)),
                    ("capnp", W::cp_access(self.cp_bytes.as_slice())),
                    ("prost", W::pb_access(&decoded_pb)),
                    ("bitcode", W::access_plain(&decoded_bc)),
                    ("rkyv", W::rk_access(&self.rk_bytes)),
                ],
            )
        };
        for (format, sum) in sums {
            assert_eq!(sum, self.sum, "{name}: {format} read");
        }
        for (format, access) in accesses {
            assert_eq!(access, self.access, "{name}: {format} access");
        }
    }

    /// `(format, message bytes)`.
    pub fn sizes(&self) -> [(&'static str, usize); 6] {
        [
            ("karmem", self.km_bytes.as_slice().len()),
            ("flatbuffers", self.fb_bytes.len()),
            ("capnp", self.cp_bytes.as_slice().len()),
            ("prost", self.pb_bytes.len()),
            ("bitcode", self.bc_bytes.len()),
            ("rkyv", self.rk_bytes.len()),
        ]
    }
}

impl<W: Workload> Default for Fixture<W> {
    fn default() -> Self {
        Self::new()
    }
}

//! Benchmark contenders for the game-state workload (see docs/benchmarks.md).
pub mod count;
pub mod fb;
pub mod kar;
pub mod ops;
pub mod plain;
pub mod rk;

/// The foundation workload: 1 000 monsters with paths of 1..=2 000 points.
pub const MONSTERS: usize = 1000;
pub const MAX_PATH: usize = 2000;

/// The same game state in every contender's form, encoded once, with every
/// contender checked against the plain data before anything is timed.
pub struct Fixture {
    pub state: plain::State,
    pub expected_sum: f64,
    pub km_object: kar::Object,
    pub km_writer: karmem::Writer<'static>,
    /// The Karmem message, copied to an 8-aligned buffer (readers need it).
    pub km_bytes: karmem::AlignedBuf,
    pub fb: fb::Encoder,
    pub fb_bytes: Vec<u8>,
    pub rk_bytes: rkyv::util::AlignedVec,
}

impl Fixture {
    pub fn new(monsters: usize, max_path: usize) -> Self {
        let state = plain::generate(monsters, max_path);
        let expected_sum = plain::sum_paths(&state);
        let mut fb = fb::Encoder::new(1 << 20);
        fb.encode(&state);
        let fb_bytes = fb.bytes().to_vec();
        let mut rk_bytes = rkyv::util::AlignedVec::new();
        rk::encode(&state, &mut rk_bytes);
        let km_object = kar::from_plain(&state);
        let mut km_writer = karmem::Writer::new(1 << 20);
        kar::encode(&km_object, &mut km_writer);
        let km_bytes = karmem::AlignedBuf::from_bytes(km_writer.bytes());
        let f = Fixture {
            state,
            expected_sum,
            km_object,
            km_writer,
            km_bytes,
            fb,
            fb_bytes,
            rk_bytes,
        };
        f.check();
        f
    }

    /// Panics unless every contender decodes to the source data and every
    /// read path computes the same sum (bit-identical: every contender adds
    /// in the same order).
    pub fn check(&self) {
        let km = self.km_bytes.as_slice();
        let sums = [
            ("plain", plain::sum_paths(&self.state)),
            ("karmem checked", kar::sum_paths_checked(km)),
            ("karmem validated", kar::sum_paths_validated(km)),
            ("flatbuffers", fb::sum_paths(fb::root(&self.fb_bytes))),
            ("rkyv", rk::sum_paths(rk::access(&self.rk_bytes))),
        ];
        for (name, got) in sums {
            assert_eq!(got.to_bits(), self.expected_sum.to_bits(), "{name} sum");
        }
        let mut reused = kar::Object::default();
        kar::decode_into(km, &mut reused);
        assert!(kar::to_plain(&reused) == self.state, "karmem decode");
        assert!(kar::decode_new(km) == self.km_object, "karmem decode_new");
        assert!(
            fb::to_plain(&fb::decode(&self.fb_bytes)) == self.state,
            "flatbuffers decode"
        );
        assert!(
            rk::decode(rk::access(&self.rk_bytes)) == self.state,
            "rkyv decode"
        );
    }

    /// `(format, message bytes)`.
    pub fn sizes(&self) -> [(&'static str, usize); 3] {
        [
            ("karmem", self.km_bytes.as_slice().len()),
            ("flatbuffers", self.fb_bytes.len()),
            ("rkyv", self.rk_bytes.len()),
        ]
    }
}

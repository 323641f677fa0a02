//! Every contender round-trips every workload to the same values, and its
//! read and access compute the same results as the plain structs: the
//! benchmark compares equal work (`Fixture::check`).

use karmem_bench_shapes::{data, Fixture, Log, Mesh, Save, Updates, Workload};

#[test]
fn log_agrees() {
    Fixture::<Log>::new().check();
}

#[test]
fn mesh_agrees() {
    // A smaller mesh than the benchmark's million vertices: the same code
    // paths, without minutes of unoptimised test build per run.
    Fixture::<Mesh>::from_plain(data::mesh(1 << 14)).check();
}

#[test]
fn save_agrees() {
    Fixture::<Save>::new().check();
}

#[test]
fn updates_agrees() {
    Fixture::<Updates>::new().check();
}

/// The check can fail: data changed after encoding no longer round-trips.
#[test]
#[should_panic(expected = "does not round-trip")]
fn check_catches_a_changed_value() {
    let mut f = Fixture::<Updates>::new();
    f.plain.updates[7].hp = f.plain.updates[7].hp.wrapping_add(1);
    f.check();
}

/// The check can fail on a read result too.
#[test]
#[should_panic(expected = "read")]
fn check_catches_a_wrong_sum() {
    let mut f = Fixture::<Save>::new();
    f.sum += 1;
    f.check();
}

/// The generators are deterministic: every run and every contender sees
/// the same data.
#[test]
fn generators_are_deterministic() {
    assert_eq!(Log::generate(), Log::generate());
    assert_eq!(Save::generate(), Save::generate());
    assert_eq!(data::mesh(100), data::mesh(100));
    let log = Log::generate();
    assert_eq!(log.entries.len(), data::LOG_ENTRIES);
    assert!(log
        .entries
        .iter()
        .all(|e| (20..=200).contains(&e.message.len())));
}

/// Every validator (and prost's and bitcode's decoders, their validation)
/// refuses a message cut short, without panicking.
fn truncated_is_refused<W: Workload>(f: &Fixture<W>) {
    let cut = |b: &[u8]| b[..b.len() / 2].to_vec();
    let name = W::NAME;
    let km = karmem::AlignedBuf::from_bytes(&cut(f.km_bytes.as_slice()));
    assert!(!W::km_validate(km.as_slice()), "{name}: karmem");
    assert!(!W::fb_verify(&cut(&f.fb_bytes)), "{name}: flatbuffers");
    let cp = karmem::AlignedBuf::from_bytes(&cut(f.cp_bytes.as_slice()));
    assert!(!W::cp_validate(cp.as_slice()), "{name}: capnp");
    let mut rk = rkyv::util::AlignedVec::<16>::new();
    rk.extend_from_slice(&cut(&f.rk_bytes));
    assert!(!W::rk_validate(&rk), "{name}: rkyv");
    let pb = cut(&f.pb_bytes);
    assert!(
        <W::Pb as prost::Message>::decode(&pb[..]).is_err(),
        "{name}: prost"
    );
    let bc = bitcode::decode::<W::Plain>(&cut(&f.bc_bytes));
    assert!(bc.is_err(), "{name}: bitcode");
}

#[test]
fn truncated_messages_are_refused() {
    let f = Fixture::<Log>::new();
    assert!(
        Log::km_validate(f.km_bytes.as_slice()),
        "the intact message passes"
    );
    truncated_is_refused(&f);
    truncated_is_refused(&Fixture::<Mesh>::from_plain(data::mesh(1 << 10)));
    truncated_is_refused(&Fixture::<Save>::new());
    truncated_is_refused(&Fixture::<Updates>::new());
}

/// The AoS variant of the save game (sizes only) is a valid message that
/// decodes to the object written.
#[test]
fn save_aos_round_trips() {
    use karmem_bench_shapes::kar::{self, gen::SaveAos};
    let obj = kar::from_save_aos(&Save::generate());
    let bytes = karmem::AlignedBuf::from_bytes(&obj.to_bytes().expect("fits"));
    let r = karmem::Reader::new(bytes.as_slice()).expect("aligned");
    assert!(SaveAos::validate(&r).is_ok());
    assert!(SaveAos::from_bytes(bytes.as_slice()).expect("decodes") == obj);
}

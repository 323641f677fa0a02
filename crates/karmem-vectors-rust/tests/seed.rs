//! The seed README's schema and example value, through generated code:
//! encode, decode with reuse, checked and validated viewers.
use karmem_vectors_rust::vectors_seed_schema::*;

fn account() -> AccountData {
    let profile = |network, username: &str, id| Profile {
        data: ProfileData {
            network,
            username: username.into(),
            id,
        },
    };
    AccountData {
        id: 42,
        email: "example@email.com".into(),
        profiles: vec![
            profile(SocialNetwork::FACEBOOK, "inkeliz", 123),
            profile(SocialNetwork::FACEBOOK, "karmem", 231),
            profile(SocialNetwork::INSTAGRAM, "inkeliz", 312),
        ],
    }
}

#[test]
fn round_trip_and_views() {
    let value = account();
    let mut w = karmem::Writer::new(64);
    value.write_as_root(&mut w).unwrap();
    let bytes = w.bytes().to_vec();
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();

    let mut decoded = AccountData::default();
    decoded.read_as_root(&r).unwrap();
    assert_eq!(decoded, value);

    let view = AccountDataView::root(&r);
    assert_eq!(view.id(), 42);
    assert_eq!(view.email(), "example@email.com");
    // `@packed(true)`: an AoS array; each element is an inline `Profile`
    // whose `data()` is its own `ProfileData` table.
    let profiles = view.profiles();
    assert_eq!(profiles.len(), 3);
    let names: Vec<&str> = profiles.iter().map(|p| p.data().username()).collect();
    assert_eq!(names, ["inkeliz", "karmem", "inkeliz"]);
    let ids: Vec<u64> = profiles.iter().map(|p| p.data().id()).collect();
    assert_eq!(ids, [123, 231, 312]);
    assert_eq!(
        profiles.get(2).unwrap().data().network(),
        SocialNetwork::INSTAGRAM
    );
    assert!(profiles.get(3).is_none());

    let trusted = AccountData::validate(&r).unwrap();
    let ids: Vec<u64> = trusted.profiles().iter().map(|p| p.data().id()).collect();
    assert_eq!(ids, [123, 231, 312]);
    assert_eq!(trusted.email(), "example@email.com");

    // Reusing the writer gives identical bytes (determinism, no stale data).
    value.write_as_root(&mut w).unwrap();
    assert_eq!(w.bytes(), &bytes[..]);
}

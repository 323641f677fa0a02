//! Optional fields (docs/idl.md §4.3.2) through the generated Rust code:
//! `Some(zero)` and `None` stay apart in every accessor (checked and
//! trusted viewers, SoA element views, AoS tables, the decoder), an older
//! message reads as `None`, a table holds its own type through an optional
//! table, and a hostile presence byte is refused by the validator.
use std::path::Path;

use karmem_vectors_rust::vectors_optional_schema::*;

fn vector(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/optional")
        .join(name);
    karmem_vectors::parse_hex(&std::fs::read_to_string(path).unwrap())
}

fn list_values<M: karmem::Mode>(mut node: Option<NodeView<'_, M>>) -> Vec<i32> {
    let mut out = Vec::new();
    while let Some(n) = node {
        out.push(n.value());
        node = n.next();
    }
    out
}

fn check_some<M: karmem::Mode>(root: RootView<'_, M>) {
    // Zero values are values.
    assert_eq!(root.hp(), Some(0));
    assert_eq!(root.alive(), Some(false));
    assert_eq!(root.name(), Some(""));
    assert_eq!(root.tags(), Some(&[][..]));
    assert_eq!(root.big(), Some(u64::MAX));
    assert_eq!(root.side(), Some(Team::ORCS));
    assert_eq!(root.wide(), Some(&[0x68, 0xe9][..]));
    assert_eq!(root.short(), Some("abcd"));
    let pos = root.pos().unwrap();
    assert_eq!((pos.x(), pos.y()), (1.0, -2.0));
    assert_eq!(list_values(root.list()), [1, 2, 3]);
    let points = root.points().unwrap();
    assert_eq!(points.x(), [0.5]);
    let units = root.units();
    let (first, third) = (units.get(0).unwrap(), units.get(2).unwrap());
    assert_eq!(first.hp(), Some(0));
    assert_eq!(first.side(), Some(Team::HUMANS));
    assert_eq!(first.name(), Some(""));
    assert_eq!(list_values(first.link()), [5]);
    assert_eq!(units.get(1).unwrap().speed(), Some(-1.5));
    assert_eq!(third.hp(), None);
    assert_eq!(third.name(), None);
    assert!(third.link().is_none());
    let guard = root.guards().get(0).unwrap();
    assert_eq!(guard.hp(), Some(9));
    assert_eq!(guard.alive(), None);
    assert_eq!(list_values(guard.link()), [1, 2]);
}

#[test]
fn values_and_zero_values_are_told_apart() {
    let buf = karmem::AlignedBuf::from_bytes(&vector("some.hex"));
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    check_some(RootView::root(&r));
    check_some(Root::validate(&r).unwrap());

    let root = Root::from_bytes(buf.as_slice()).unwrap();
    assert_eq!(root.hp, Some(0));
    assert_eq!(root.name.as_deref(), Some(""));
    let list = root.list.as_ref().unwrap();
    assert_eq!(list.next.as_ref().unwrap().next.as_ref().unwrap().value, 3);
    assert_eq!(root.units[2].hp, None);
    // Decoding a message without values into the same object clears them.
    let mut reused = root.clone();
    let none = karmem::AlignedBuf::from_bytes(&vector("none.hex"));
    reused
        .read_as_root(&karmem::Reader::new(none.as_slice()).unwrap())
        .unwrap();
    assert_eq!((reused.hp, reused.list, reused.pos), (None, None, None));
    assert_eq!(reused.units[0].link, None);
}

#[test]
fn an_older_message_has_no_values() {
    let buf = karmem::AlignedBuf::from_bytes(&vector("old_writer.hex"));
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let root = Root::validate(&r).unwrap();
    assert_eq!((root.hp(), root.name(), root.tags()), (None, None, None));
    assert!(root.list().is_none() && root.pos().is_none() && root.points().is_none());
    let units = root.units();
    let unit = units.get(1).unwrap();
    assert_eq!((unit.id(), unit.hp(), unit.side()), (2, None, None));
    assert!(unit.link().is_none());
}

#[test]
fn a_long_list_through_optional_tables() {
    let mut list = None;
    for value in (0..200).rev() {
        list = Some(Box::new(Node { value, next: list }));
    }
    let root = Root {
        list,
        ..Root::default()
    };
    let bytes = root.to_bytes().unwrap();
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    // Deeper than the default depth limit (64 tables): the validator and
    // the decoder stop, the checked viewer reads on (it never recurses).
    assert_eq!(Root::validate(&r).err(), Some(karmem::Error::DepthExceeded));
    assert_eq!(list_values(RootView::root(&r).list()).len(), 200);
    let deep = karmem::Limits {
        max_depth: 512,
        ..karmem::Limits::default()
    };
    let r = karmem::Reader::with_limits(buf.as_slice(), deep).unwrap();
    assert_eq!(
        list_values(Root::validate(&r).unwrap().list()),
        (0..200).collect::<Vec<_>>()
    );
    let mut decoded = Root::default();
    decoded.read_as_root(&r).unwrap();
    assert_eq!(decoded, root);
}

#[test]
fn a_presence_byte_other_than_0_or_1_is_malformed() {
    let mut bytes = vector("some.hex");
    // `Root.Hp` is at table offset 32 (format.md §4.2: presence byte, then
    // the `u16` at +2); the root table is at 8.
    assert_eq!(Root::HP_OFFSET, 32);
    let at = 8 + Root::HP_OFFSET as usize;
    assert_eq!(bytes[at], 1);
    bytes[at] = 2;
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    assert!(matches!(
        Root::validate(&r),
        Err(karmem::Error::InvalidBool { .. })
    ));
    // Readers that do not validate take any non-zero byte as "a value".
    assert_eq!(RootView::root(&r).hp(), Some(0));
    assert_eq!(Root::from_bytes(buf.as_slice()).unwrap().hp, Some(0));
}

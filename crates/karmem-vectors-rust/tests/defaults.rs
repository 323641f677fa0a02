//! Field defaults (docs/idl.md §4.3.1) through the generated Rust code:
//! an older writer's message read by every accessor of the newer schema
//! (checked and trusted viewers, SoA element views, AoS tables, the
//! decoder) gives the defaults; a newer message gives its stored values,
//! default or not; the object type starts at the defaults.
use std::path::Path;

use karmem_vectors_rust::vectors_defaults_new::*;

fn vector(name: &str) -> karmem::AlignedBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/defaults")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    karmem::AlignedBuf::from_bytes(&karmem_vectors::parse_hex(&text))
}

/// Every field of a `Unit` as the defaults say (an absent table's fields).
fn assert_unit_defaults<M: karmem::Mode>(u: &UnitView<'_, M>, id: u32) {
    assert_eq!(u.id(), id);
    assert_eq!(u.hp(), 100);
    assert_eq!(u.speed(), 1.5);
    assert!(u.alive());
    assert_eq!(u.side(), Team::ORCS);
    assert_eq!(u.name(), "anon");
    assert_eq!(u.name_bytes(), b"anon");
    assert_eq!(u.score(), -7);
    assert_eq!(u.ratio(), 0.1);
    assert_eq!(u.level(), 0);
}

fn check_old_message<M: karmem::Mode>(root: RootView<'_, M>) {
    assert_eq!(root.version(), 1);
    assert_eq!(root.motto(), "für alle");
    assert_eq!(root.motto_bytes(), "für alle".as_bytes());
    assert_eq!(root.tag(), "a\"b");
    assert_unit_defaults(&root.leader(), 9);
    let guards = root.guards();
    assert_eq!(guards.len(), 1);
    assert_unit_defaults(&guards.get(0).unwrap(), 3);
    // SoA: the new columns are not in the old message's directory.
    let units = root.units();
    let items: Vec<_> = units.iter().collect();
    assert_eq!(items.len(), 2);
    for (item, id) in items.iter().zip([1, 2]) {
        assert_eq!(item.id(), id);
        assert_eq!(item.hp(), 100);
        assert_eq!(item.speed(), 1.5);
        assert!(item.alive());
        assert_eq!(item.side(), Team::ORCS);
        assert_eq!(item.name(), "anon");
        assert_eq!(item.score(), -7);
        assert_eq!(item.ratio(), 0.1);
    }
    // A whole column that is absent is an empty slice, not the default
    // repeated: slices are views of the message.
    assert!(units.hp().is_empty());
}

#[test]
fn an_older_message_reads_as_the_defaults() {
    let buf = vector("old_writer.hex");
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    check_old_message(RootView::root(&r));
    check_old_message(Root::validate(&r).unwrap());

    let decoded = Root::from_bytes(buf.as_slice()).unwrap();
    assert_eq!(decoded.leader.hp, 100);
    assert_eq!(decoded.leader.side, Team::ORCS);
    assert_eq!(decoded.units[1].name, "anon");
    assert_eq!(decoded.units[1].speed, 1.5);
    assert_eq!(decoded.guards[0].score, -7);
    assert_eq!(decoded.motto, "für alle");
}

#[test]
fn stored_values_win_over_defaults() {
    let buf = vector("new_writer.hex");
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let root = Root::validate(&r).unwrap();
    let leader = root.leader();
    assert_eq!(leader.hp(), 65535);
    assert_eq!(leader.side(), Team::ORCS);
    assert_eq!(leader.name(), "lead");
    // Zero, false and "" are stored values, not "absent".
    let units = root.units();
    let second = units.get(1).unwrap();
    assert_eq!(second.hp(), 0);
    assert!(!second.alive());
    assert_eq!(second.side(), Team::HUMANS);
    assert_eq!(second.name(), "");
    assert_eq!(units.hp(), [5, 0]);
    assert_eq!(root.motto(), "");
}

#[test]
fn objects_start_at_the_defaults_and_are_written_in_full() {
    let unit = Unit::default();
    assert_eq!((unit.hp, unit.speed, unit.alive), (100, 1.5, true));
    assert_eq!((unit.side, unit.name.as_str()), (Team::ORCS, "anon"));
    assert_eq!((unit.score, unit.ratio, unit.level), (-7, 0.1, 0));
    let root = Root {
        version: 3,
        units: vec![Unit {
            id: 1,
            ..Unit::default()
        }],
        leader: Unit {
            id: 2,
            ..Unit::default()
        },
        ..Root::default()
    };
    // The golden bytes of the same value: defaults are written, not
    // omitted (format.md §13).
    assert_eq!(
        root.to_bytes().unwrap(),
        vector("new_defaults.hex").as_slice()
    );
}

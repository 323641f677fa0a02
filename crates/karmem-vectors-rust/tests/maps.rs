//! Maps (docs/idl.md §3.2, format.md §5.5) through the generated Rust
//! code: look-ups by binary search over every key kind (checked and
//! trusted), iteration in key order, values of every kind, and entries out
//! of order refused by the validator while readers stay bounded.
use std::path::Path;

use karmem_vectors_rust::vectors_maps_schema::*;

fn vector(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/maps")
        .join(name);
    karmem_vectors::parse_hex(&std::fs::read_to_string(path).unwrap())
}

fn check<M: karmem::Mode>(root: RootView<'_, M>) {
    let ages = root.ages();
    assert_eq!(ages.len(), 4);
    assert_eq!(ages.get("ana"), Some(41));
    assert_eq!(ages.get(""), Some(0));
    assert_eq!(ages.get("Émile"), Some(7));
    assert_eq!(ages.get("bob"), None);
    // Keys in byte order.
    let keys: Vec<&str> = ages.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["", "ana", "zoe", "Émile"]);
    let by_id = root.by_id();
    assert_eq!(by_id.get(&u64::MAX).unwrap().tags().get(0), Some("max"));
    assert_eq!(by_id.get(&42).unwrap().hp(), 3);
    assert!(by_id.get(&41).is_none());
    let signed: Vec<i32> = root.signed().iter().map(|(k, _)| k).collect();
    assert_eq!(signed, [i32::MIN, -3, 5]);
    assert_eq!(root.signed().get(&-3), Some("minus three"));
    let orcs = root.by_team().get(&Team::ORCS).unwrap();
    assert_eq!(orcs.z(), [6.0, 9.0]);
    assert_eq!(root.by_team().get(&Team::HUMANS).unwrap().len(), 0);
    assert_eq!(root.points().get(&2).unwrap().z(), -1.0);
    let b = root.nested().get("b").unwrap();
    assert_eq!(
        (b.get(&1), b.get(&3), b.get(&2)),
        (Some(false), Some(true), None)
    );
    assert_eq!(root.maybe().unwrap().get("only"), Some(1));
    let items = root.items();
    assert_eq!(items.get(0).unwrap().scores().get("y"), Some(-1));
}

#[test]
fn look_ups_and_iteration() {
    let buf = karmem::AlignedBuf::from_bytes(&vector("full.hex"));
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    check(RootView::root(&r));
    check(Root::validate(&r).unwrap());
    let root = Root::from_bytes(buf.as_slice()).unwrap();
    assert_eq!(root.ages["zoe"], 30);
    assert_eq!(root.by_id[&0].hp, 2);
    assert!(root.nested["b"][&3]);
    // A map built in any order encodes to the same bytes.
    let mut again = root.clone();
    again.ages = root
        .ages
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    assert_eq!(again.to_bytes().unwrap(), buf.as_slice());
}

#[test]
fn entries_out_of_order_are_malformed() {
    let mut bytes = vector("full.hex");
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let block = {
        let table = 8usize;
        let at = table + Root::SIGNED_OFFSET as usize;
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
    };
    assert_eq!(RootView::root(&r).signed().len(), 3);
    // Swap the first two keys of `Signed` (entries of 16 bytes, key first):
    // -2147483648, -3 becomes -3, -2147483648.
    let (k0, k1) = (block, block + 16);
    let first: [u8; 4] = bytes[k0..k0 + 4].try_into().unwrap();
    let second: [u8; 4] = bytes[k1..k1 + 4].try_into().unwrap();
    bytes[k0..k0 + 4].copy_from_slice(&second);
    bytes[k1..k1 + 4].copy_from_slice(&first);
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    assert!(matches!(
        Root::validate(&r),
        Err(karmem::Error::MalformedArray { .. })
    ));
    // Unvalidated readers stay in bounds; a look-up may miss.
    let signed = RootView::root(&r).signed();
    assert_eq!(signed.iter().count(), 3);
    let _ = signed.get(&i32::MIN);
    // The decoder keeps every entry it reads.
    assert_eq!(Root::from_bytes(buf.as_slice()).unwrap().signed.len(), 3);
}

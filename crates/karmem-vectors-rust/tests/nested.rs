//! Arrays of arrays (docs/idl.md §3.1, format.md §5.4) through the
//! generated Rust code: zero-copy views of every element kind (checked and
//! trusted), three levels deep, inside SoA elements, an optional one, and
//! hostile element references read as empty.
use std::path::Path;

use karmem_vectors_rust::vectors_nested_schema::*;

fn vector(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vectors/nested")
        .join(name);
    karmem_vectors::parse_hex(&std::fs::read_to_string(path).unwrap())
}

fn check<M: karmem::Mode>(root: RootView<'_, M>) {
    let names: Vec<&str> = root.names().iter().collect();
    assert_eq!(names, ["a", "", "héllo"]);
    let matrix = root.matrix();
    assert_eq!(matrix.len(), 3);
    assert_eq!(matrix.get(0), Some(&[1.0f32, 2.0][..]));
    assert_eq!(matrix.get(1), Some(&[][..]));
    assert_eq!(matrix.get(3), None);
    let paths = root.paths();
    assert_eq!(paths.get(2).unwrap().z(), [6.0, 9.0]);
    let groups = root.groups();
    let item = groups.get(1).unwrap().get(1).unwrap();
    assert_eq!(item.id(), 3);
    assert_eq!(item.tags().get(0), Some(""));
    assert_eq!(root.small().get(0), Some(&[1u16, 2, 3][..]));
    assert_eq!(root.wide().get(0), Some(&[0x65e5u16, 0x672c][..]));
    let cube = root.cube();
    assert_eq!(cube.get(0).unwrap().get(0), Some(&[1u8, 2][..]));
    assert_eq!(cube.get(2).unwrap().get(0), Some(&[3u8][..]));
    assert!(cube.get(1).unwrap().is_empty());
    let shapes = root.shapes().get(0).unwrap();
    assert_eq!(shapes.len(), 3);
    let rows = root.rows();
    let first = rows.get(0).unwrap();
    assert_eq!(first.cells().get(0), Some(&[1i32, -2][..]));
    assert_eq!(rows.get(1).unwrap().names().get(1), Some("r1b"));
    assert_eq!(root.maybe().unwrap().get(0), Some("m"));
    assert_eq!(root.flags().get(0), Some(&[1u8, 0][..]));
}

#[test]
fn views_of_every_element_kind() {
    let buf = karmem::AlignedBuf::from_bytes(&vector("full.hex"));
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    check(RootView::root(&r));
    check(Root::validate(&r).unwrap());
    let root = Root::from_bytes(buf.as_slice()).unwrap();
    assert_eq!(root.names, ["a", "", "héllo"]);
    assert_eq!(root.cube[0][0], [1, 2]);
    assert_eq!(root.rows[0].cells, [vec![1, -2], vec![3]]);
    assert_eq!(root.to_bytes().unwrap(), buf.as_slice());
}

#[test]
fn limits_of_inner_arrays_are_enforced() {
    // `Small [<2][<3]u16`: a writer refuses an inner array over 3.
    let root = Root {
        small: vec![vec![1, 2, 3, 4]],
        ..Root::default()
    };
    assert_eq!(root.to_bytes().err(), Some(karmem::Error::TooLarge));
    let root = Root {
        small: vec![vec![], vec![], vec![]],
        ..Root::default()
    };
    assert_eq!(root.to_bytes().err(), Some(karmem::Error::TooLarge));
}

#[test]
fn a_hostile_element_reference_reads_as_empty() {
    let mut bytes = vector("full.hex");
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    // Element 0 of `Matrix`: point its offset past the message.
    let outer = RootView::root(&r).matrix();
    assert_eq!(outer.len(), 3);
    let block = u32::from_le_bytes(bytes[8 + 16..8 + 20].try_into().unwrap()) as usize;
    bytes[block..block + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let matrix = RootView::root(&r).matrix();
    assert_eq!(matrix.get(0), Some(&[][..]));
    assert_eq!(matrix.get(2), Some(&[3.5f32][..]));
    assert!(matches!(
        Root::validate(&r),
        Err(karmem::Error::MalformedArray { .. })
    ));
    assert!(Root::from_bytes(buf.as_slice()).unwrap().matrix[0].is_empty());
}

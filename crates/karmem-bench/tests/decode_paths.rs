//! The decode fast paths of generated code against their fallbacks: paths
//! (SoA of plain `Vec3`) whose `z` column is absent, as an older writer
//! would produce them, decode with `z = 0` and everything else intact, into
//! new and into reused objects.

use karmem::{AlignedBuf, Reader};
use karmem_bench::kar::game::{Monster, Vec3, Vec3Soa};
use karmem_bench::{kar, plain};

/// The message of a small game state, and the position of the `z` hash in
/// the path directory of monster `m` (shared by every monster's path,
/// format.md §5.3).
fn message_and_z_hash(m: u32) -> (kar::Object, AlignedBuf, usize) {
    let object = kar::from_plain(&plain::generate(6, 50));
    let mut w = karmem::Writer::new(0);
    kar::encode(&object, &mut w);
    let bytes = AlignedBuf::from_bytes(w.bytes());
    let r = Reader::new(bytes.as_slice()).unwrap();
    let monsters = r.field_array(r.root(), 4, 0, Some(2000));
    let cols = r.soa_columns(monsters, &Monster::SOA_COLUMNS);
    // `Path` is MonsterData's last array field, and columns of equal
    // alignment keep the flattening order (format.md §5.3): the last column
    // of array references (12 bytes each) is the path.
    let path_column = Monster::SOA_COLUMNS
        .iter()
        .rposition(|&(_, size)| size == 12)
        .unwrap();
    let path = r.array(cols[path_column] + 12 * m, 0, Some(2000));
    let z_hash = Vec3::SOA_COLUMNS[2].0;
    let dir = r.get::<u32>(path.offset);
    let at = dir as usize + 4 * 3;
    assert_eq!(r.get::<u32>(at as u32), z_hash, "z is the third column");
    (object, bytes, at)
}

#[test]
fn absent_column_of_plain_structs_reads_as_zero() {
    let (object, mut bytes, at) = message_and_z_hash(2);
    bytes.as_mut_slice()[at..at + 4].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    // The directory is every path's: no path has a z column now.
    let mut expected = object.clone();
    for p in expected.monsters.iter_mut().flat_map(|m| &mut m.data.path) {
        p.z = 0.0;
    }
    assert_eq!(kar::decode_new(bytes.as_slice()), expected);
    // Reused: the object held the full values before.
    let mut reused = object.clone();
    kar::decode_into(bytes.as_slice(), &mut reused);
    assert_eq!(reused, expected);
    // The viewer agrees: no z column, x and y as written.
    let view = kar::validate(bytes.as_slice());
    let monsters = view.monsters();
    let path: Vec3Soa<'_, karmem::Trusted> = monsters.get(2).unwrap().data_path();
    assert!(path.z().is_empty());
    let xs: Vec<f32> = object.monsters[2].data.path.iter().map(|p| p.x).collect();
    assert_eq!(path.x(), &xs[..]);
}

#[test]
fn decoding_shorter_arrays_into_reused_objects() {
    // A reused object with longer paths than the message: truncated, and
    // equal to a fresh decode.
    let (object, bytes, _) = message_and_z_hash(0);
    let mut reused = kar::from_plain(&plain::generate(9, 400));
    kar::decode_into(bytes.as_slice(), &mut reused);
    assert_eq!(reused, object);
}

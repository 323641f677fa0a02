//! SoA directories that list a column twice, through generated code
//! (format.md §5.3): a hash of the schema twice is ambiguous (which entry a
//! reader takes decides what it reads) and the validator refuses it, both
//! for an array validated on its own (`Validator::soa`) and for the arrays
//! of an SoA column (`Validator::soa_column`, whose same-version fast path
//! such a directory leaves; the arrays of one column list share it); a
//! repeated hash the schema does not know
//! passes. Viewers and the decoder stay bounded either way.
use karmem::{AlignedBuf, Error, Reader, Writer};
use karmem_vectors_rust::{schemas_all_layouts as all, vectors_game_schema as game};

/// The offsets of every SoA directory of `Vec3` (columns X, Y, Z at paths
/// [0], [1], [2]) in a message.
fn vec3_directories(bytes: &[u8]) -> Vec<usize> {
    let hashes = [0, 1, 2].map(|i| karmem_layout::path_hash(&[i]));
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    // Directories start at multiples of 4 (format.md §5.3).
    (8..bytes.len() - 16)
        .step_by(4)
        .filter(|&d| word(d) == 3 && (0..3).all(|k| word(d + 4 + 4 * k) == hashes[k]))
        .collect()
}

fn put(b: &mut [u8], at: usize, x: u32) {
    b[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// For each directory: the message with its second hash made equal to its
/// first (malformed), and with both made an unknown hash (valid).
fn repeated(good: &[u8]) -> Vec<(usize, Vec<u8>, Vec<u8>)> {
    let dirs = vec3_directories(good);
    assert!(!dirs.is_empty(), "no Vec3 directory found");
    dirs.into_iter()
        .map(|d| {
            let mut known = good.to_vec();
            known.copy_within(d + 4..d + 8, d + 8);
            let mut unknown = good.to_vec();
            put(&mut unknown, d + 4, 0xDEAD);
            put(&mut unknown, d + 8, 0xDEAD);
            (d, known, unknown)
        })
        .collect()
}

fn vec3(i: usize) -> all::Vec3 {
    all::Vec3 {
        x: i as f32,
        y: 1.0,
        z: 2.0,
    }
}

fn all_layouts(bytes: &[u8]) -> Result<(), Error> {
    let buf = AlignedBuf::from_bytes(bytes);
    let r = Reader::new(buf.as_slice()).unwrap();
    let mut got = all::Root::default();
    let _ = got.read_as_root(&r);
    let points = all::RootView::root(&r).points();
    assert!(points.x().len() + points.y().len() <= bytes.len());
    all::Root::validate(&r).map(|_| ())
}

#[test]
fn a_directory_on_its_own() {
    let root = all::Root {
        points: (0..3).map(vec3).collect(),
        ..all::Root::default()
    };
    let mut w = Writer::new(64);
    root.write_as_root(&mut w).unwrap();
    let good = w.bytes().to_vec();
    assert_eq!(all_layouts(&good), Ok(()));
    for (dir, known, unknown) in repeated(&good) {
        // The error names the array's block, right after the directory
        // (28 bytes: n, three hashes, three sizes).
        let offset = dir as u32 + 28;
        assert_eq!(all_layouts(&known), Err(Error::MalformedArray { offset }));
        assert_eq!(all_layouts(&unknown), Ok(()));
    }
}

fn game_state(bytes: &[u8]) -> Result<(), Error> {
    let buf = AlignedBuf::from_bytes(bytes);
    let r = Reader::new(buf.as_slice()).unwrap();
    let mut got = game::State::default();
    let _ = got.read_as_root(&r);
    assert!(
        got.monsters
            .iter()
            .map(|m| m.data.path.len())
            .sum::<usize>()
            <= bytes.len()
    );
    game::State::validate(&r).map(|_| ())
}

#[test]
fn the_directories_of_a_column() {
    let monster = |i: usize| game::Monster {
        data: game::MonsterData {
            path: (0..2)
                .map(|j| game::Vec3 {
                    x: (i + j) as f32,
                    y: 0.0,
                    z: 1.0,
                })
                .collect(),
            ..game::MonsterData::default()
        },
    };
    let state = game::State {
        monsters: (0..3).map(monster).collect(),
    };
    let mut w = Writer::new(64);
    state.write_as_root(&mut w).unwrap();
    let good = w.bytes().to_vec();
    assert_eq!(game_state(&good), Ok(()));
    let cases = repeated(&good);
    // One directory for the three monsters' paths (format.md §5.3): the
    // first array, whose block follows it, is the first refused.
    assert_eq!(cases.len(), 1, "one Path directory shared by the monsters");
    for (dir, known, unknown) in cases {
        let offset = dir as u32 + 28;
        assert_eq!(game_state(&known), Err(Error::MalformedArray { offset }));
        assert_eq!(game_state(&unknown), Ok(()));
    }
}

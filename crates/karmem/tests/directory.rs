//! SoA directory resolution (format.md §5.3): the fast path for a directory
//! written by the same schema version and the general scan for any other
//! must agree, in the reader and in the validator.
use karmem::{AlignedBuf, ArrayRef, Error, Reader, Validator, Writer};

const WANTED: [(u32, u32); 3] = [(0xA1, 4), (0xB2, 4), (0xC3, 2)];

/// A message whose root table holds one SoA array of `count` elements with
/// the given directory entries (hash, value size), in that order.
fn soa_message<const N: usize>(
    count: usize,
    columns: &[(u32, u32); N],
) -> (AlignedBuf, u32, [u32; N]) {
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(16, 8).unwrap();
    w.put(t, 2u32);
    let mut offsets = [0u32; N];
    w.write_soa(t + 4, count, columns, &[false; N], &mut offsets)
        .unwrap();
    (AlignedBuf::from_bytes(w.finish().unwrap()), t + 4, offsets)
}

/// Columns resolved by the reader, the trusted reader (when the validator
/// accepts) and the validator.
fn resolve(m: &AlignedBuf, at: u32) -> ([u32; 3], Result<[u32; 3], Error>) {
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at, 0, None);
    let read = r.soa_columns(a, &WANTED);
    let mut v = Validator::new(r);
    let validated = v.soa(a, &WANTED);
    if let Ok(cols) = validated {
        // SAFETY: the validator accepted this directory.
        let trusted = unsafe { r.assume_trusted() };
        let t = trusted.soa_columns(trusted.array(at, 0, None), &WANTED);
        assert_eq!(t, cols, "trusted reader agrees with the validator");
    }
    (read, validated)
}

#[test]
fn same_schema_directory() {
    let (m, at, offs) = soa_message(5, &WANTED);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[0], offs[1], offs[2]]);
    assert_eq!(validated, Ok(read));
}

#[test]
fn other_orders_and_unknown_columns_resolve_by_scan() {
    // A newer writer: the columns permuted, one unknown column in between.
    let columns = [(0xC3, 2), (0xEE, 8), (0xA1, 4), (0xB2, 4)];
    let (m, at, offs) = soa_message(5, &columns);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[2], offs[3], offs[0]]);
    assert_eq!(validated, Ok(read));
}

#[test]
fn absent_columns_read_as_zero() {
    // An older writer: no column 0xB2.
    let (m, at, offs) = soa_message(5, &[(0xA1, 4), (0xC3, 2)]);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[0], 0, offs[1]]);
    assert_eq!(validated, Ok(read));
}

#[test]
fn large_directories_take_the_general_path() {
    // 20 entries: past the validator's fast path (15).
    let columns: [(u32, u32); 20] = core::array::from_fn(|h| {
        WANTED
            .get(h.wrapping_sub(17))
            .copied()
            .unwrap_or((0x1000 + h as u32, 1))
    });
    let (m, at, offs) = soa_message(3, &columns);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[17], offs[18], offs[19]]);
    assert_eq!(validated, Ok(read));
}

/// The directory of the SoA array whose reference is at `at`: its offset
/// and number of entries.
fn directory_of(m: &AlignedBuf, at: u32) -> (usize, usize) {
    let r = Reader::new(m.as_slice()).unwrap();
    let block = r.array(at, 0, None).offset;
    let dir = r.get::<u32>(block);
    (dir as usize, r.get::<u32>(dir) as usize)
}

/// Overwrite directory entry `k` (0-based) of the array at `at` (the
/// directory it shares with every array of its column list).
fn patch(m: &mut AlignedBuf, at: u32, k: usize, hash: Option<u32>, size: Option<u32>) {
    let (dir, n) = directory_of(m, at);
    let bytes = m.as_mut_slice();
    if let Some(h) = hash {
        bytes[dir + 4 + 4 * k..][..4].copy_from_slice(&h.to_le_bytes());
    }
    if let Some(s) = size {
        bytes[dir + 4 + 4 * (n + k)..][..4].copy_from_slice(&s.to_le_bytes());
    }
}

/// Where the directory's sizes put each column of the array at `at`
/// (format.md §5.3, computed here independently of the runtime).
fn layout(m: &AlignedBuf, at: u32) -> Vec<u32> {
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at, 0, None);
    let (dir, n) = directory_of(m, at);
    let mut pos = a.offset + 4;
    (0..n)
        .map(|k| {
            let size = r.get::<u32>((dir + 4 + 4 * (n + k)) as u32);
            let align = (size & size.wrapping_neg()).clamp(1, 8);
            pos = pos.next_multiple_of(align);
            let col = pos;
            pos += a.cap * size;
            col
        })
        .collect()
}

#[test]
fn malformed_columns_are_absent_or_rejected() {
    // The last column (0xC3, 2-byte values) listed with another size: to a
    // reader it is absent; to a validator the directory is malformed.
    for bad in [0, 1] {
        let (mut m, at, offs) = soa_message(5, &WANTED);
        patch(&mut m, at, 2, None, Some(bad));
        let (read, validated) = resolve(&m, at);
        assert_eq!(read, [offs[0], offs[1], 0], "size {bad}");
        assert!(
            matches!(validated, Err(Error::MalformedArray { .. })),
            "size {bad}: {validated:?}"
        );
    }
    // A size that makes the block end past the message: every column is
    // absent.
    for bad in [4, 1 << 20, u32::MAX] {
        let (mut m, at, _) = soa_message(5, &WANTED);
        patch(&mut m, at, 2, None, Some(bad));
        let (read, validated) = resolve(&m, at);
        assert_eq!(read, [0; 3], "size {bad}");
        assert!(matches!(validated, Err(Error::MalformedArray { .. })));
    }
}

#[test]
fn duplicate_entries_first_good_one_wins_and_validation_fails() {
    // Entry 1 claims column 0xA1 again (with column 0xB2's data).
    let (mut m, at, offs) = soa_message(5, &WANTED);
    patch(&mut m, at, 1, Some(0xA1), None);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[0], 0, offs[2]]);
    assert!(matches!(validated, Err(Error::MalformedArray { .. })));
    // The first entry has another size: the second one is used by the
    // reader (where the new sizes put it).
    patch(&mut m, at, 0, None, Some(2));
    let cols = layout(&m, at);
    let (read, _) = resolve(&m, at);
    assert_eq!(read, [cols[1], 0, cols[2]]);
}

#[test]
fn unknown_hashes_may_repeat() {
    // No reader of this schema looks at 0xEE: a repeated unknown hash is
    // not ambiguous to it (format.md §5.3).
    let columns = [(0xEE, 8), (0xA1, 4), (0xEE, 8), (0xB2, 4), (0xC3, 2)];
    let (m, at, offs) = soa_message(5, &columns);
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [offs[1], offs[3], offs[4]]);
    assert_eq!(validated, Ok(read));
}

/// A message holding `n` array references in a row (a column of an SoA
/// array, at the returned offset), each to its own SoA array of `count`
/// elements with the directory `columns`.
fn directory_column<const N: usize>(
    n: u32,
    count: usize,
    columns: &[(u32, u32); N],
) -> (AlignedBuf, u32) {
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(8, 8).unwrap();
    w.put(t, 1u32);
    let col = w.alloc(12 * n, 8).unwrap();
    for i in 0..n {
        w.write_soa(col + 12 * i, count, columns, &[false; N], &mut [0; N])
            .unwrap();
    }
    (AlignedBuf::from_bytes(w.finish().unwrap()), col)
}

fn validate_column(m: &AlignedBuf, col: u32, n: u32) -> Result<(), Error> {
    Validator::new(Reader::new(m.as_slice()).unwrap()).soa_column(col, n, &WANTED)
}

#[test]
fn the_column_wise_validator_refuses_repeated_known_hashes() {
    let (mut m, col) = directory_column(4, 3, &WANTED);
    assert_eq!(validate_column(&m, col, 4), Ok(()));
    // The third directory lists 0xA1 twice: it leaves the same-version
    // fast path for the general check, which refuses it.
    patch(&mut m, col + 24, 2, Some(0xA1), None);
    assert!(matches!(
        validate_column(&m, col, 4),
        Err(Error::MalformedArray { .. })
    ));
    // Repeated unknown hashes pass, as in `Validator::soa`.
    let columns = [(0xA1, 4), (0xEE, 8), (0xB2, 4), (0xEE, 8), (0xC3, 2)];
    let (m, col) = directory_column(4, 3, &columns);
    assert_eq!(validate_column(&m, col, 4), Ok(()));
}

#[test]
fn truncated_directories_read_as_absent() {
    // The block's word points to a directory of three entries (28 bytes)
    // that starts 8 bytes before the end of the message.
    let (mut m, at, _) = soa_message(1, &WANTED);
    let size = m.as_slice().len() as u32;
    let block = Reader::new(m.as_slice()).unwrap().array(at, 0, None).offset;
    let bytes = m.as_mut_slice();
    bytes[block as usize..][..4].copy_from_slice(&(size - 8).to_le_bytes());
    bytes[size as usize - 8..][..4].copy_from_slice(&3u32.to_le_bytes());
    let (read, validated) = resolve(&m, at);
    assert_eq!(read, [0; 3]);
    assert!(matches!(validated, Err(Error::MalformedArray { .. })));
    // A block whose word lies past the end of the message.
    let r = Reader::new(m.as_slice()).unwrap();
    let a = ArrayRef {
        offset: size - 4 + 4,
        len: 1,
        cap: 1,
    };
    assert_eq!(r.soa_columns(a, &WANTED), [0; 3]);
    assert!(matches!(
        Validator::new(r).soa(a, &WANTED),
        Err(Error::MalformedArray { .. })
    ));
}

/// Arrays of one column list share one directory (format.md §5.3), written
/// before the first of them; a new message starts without directories.
#[test]
fn arrays_of_one_column_list_share_a_directory() {
    let (m, col) = directory_column(3, 2, &WANTED);
    let r = Reader::new(m.as_slice()).unwrap();
    let dirs: Vec<u32> = (0..3)
        .map(|i| r.get::<u32>(r.array(col + 12 * i, 0, None).offset))
        .collect();
    assert_eq!(dirs, [dirs[0]; 3]);
    let first = r.array(col, 0, None).offset;
    assert_eq!(
        dirs[0] + 4 * 7,
        first,
        "the directory is right before the first block"
    );
    // Another column list gets its own directory.
    let mut w = Writer::new(64);
    w.begin();
    let at = w.alloc(24, 8).unwrap();
    w.write_soa(at, 1, &WANTED, &[false; 3], &mut [0; 3])
        .unwrap();
    w.write_soa(at + 12, 1, &[(0xA1, 4)], &[false], &mut [0; 1])
        .unwrap();
    let m = AlignedBuf::from_bytes(w.finish().unwrap());
    let r = Reader::new(m.as_slice()).unwrap();
    let d0 = r.get::<u32>(r.array(at, 0, None).offset);
    let d1 = r.get::<u32>(r.array(at + 12, 0, None).offset);
    assert_ne!(d0, d1);
    assert_eq!(r.get::<u32>(d1), 1);
}

#[test]
fn prefetch_hints_never_touch_outside_the_message() {
    let (mut m, at, _) = soa_message(2, &WANTED);
    let size = m.as_slice().len() as u32;
    // References pointing anywhere, and references that are themselves
    // past the end: prefetching is a no-op, never a panic or a fault.
    for offset in [0, size - 1, size, u32::MAX - 63, u32::MAX] {
        m.as_mut_slice()[at as usize..][..4].copy_from_slice(&offset.to_le_bytes());
        let r = Reader::new(m.as_slice()).unwrap();
        for lines in [0, 1, 2, 1000] {
            r.prefetch_array(at, lines);
        }
        r.prefetch_array(size - 2, 2);
        r.prefetch_array(u32::MAX, 2);
    }
}

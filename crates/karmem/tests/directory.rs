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
    let mut read = [9; 3];
    r.soa_columns(a, &WANTED, &mut read);
    let mut v = Validator::new(r);
    let mut checked = [9; 3];
    let validated = v.soa(a, &WANTED, &mut checked).map(|()| checked);
    if let Ok(cols) = validated {
        // SAFETY: the validator accepted this directory.
        let trusted = unsafe { r.assume_trusted() };
        let mut t = [9; 3];
        trusted.soa_columns(trusted.array(at, 0, None), &WANTED, &mut t);
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

/// Overwrite directory entry `k` (0-based) of the array at `at`.
fn patch(m: &mut AlignedBuf, at: u32, k: usize, hash: Option<u32>, offset: Option<u32>) {
    let r = Reader::new(m.as_slice()).unwrap();
    let dir = r.array(at, 0, None).offset as usize;
    let n = r.get::<u32>(dir as u32) as usize;
    let block = 4 * (n + 1);
    let bytes = m.as_mut_slice();
    if let Some(h) = hash {
        bytes[dir + 4 + 4 * k..][..4].copy_from_slice(&h.to_le_bytes());
    }
    if let Some(o) = offset {
        bytes[dir + block + 4 + 4 * k..][..4].copy_from_slice(&o.to_le_bytes());
    }
}

#[test]
fn malformed_columns_are_absent_or_rejected() {
    for bad in [0, 65, u32::MAX - 63] {
        let (mut m, at, offs) = soa_message(5, &WANTED);
        patch(&mut m, at, 1, None, Some(bad));
        let (read, validated) = resolve(&m, at);
        assert_eq!(read, [offs[0], 0, offs[2]], "column offset {bad}");
        assert!(
            matches!(validated, Err(Error::MalformedArray { .. })),
            "column offset {bad}: {validated:?}"
        );
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
    // The first entry is malformed: the second one is used by the reader.
    patch(&mut m, at, 0, None, Some(3));
    let (read, _) = resolve(&m, at);
    assert_eq!(read, [offs[1], 0, offs[2]]);
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
    // The directory's two halves do not fit: the message ends after the
    // first one (4 × (3 + 1) bytes).
    let (m, at, _) = soa_message(1, &WANTED);
    let r = Reader::new(m.as_slice()).unwrap();
    let dir = r.array(at, 0, None).offset;
    let mut cut = m.as_slice()[..dir as usize + 16].to_vec();
    let size = cut.len() as u32;
    cut[4..8].copy_from_slice(&size.to_le_bytes());
    let cut = AlignedBuf::from_bytes(&cut);
    let r = Reader::new(cut.as_slice()).unwrap();
    // The reference itself is now out of the message: rebuild one by hand.
    let a = ArrayRef {
        offset: dir,
        len: 1,
        cap: 1,
    };
    let mut cols = [9; 3];
    r.soa_columns(a, &WANTED, &mut cols);
    assert_eq!(cols, [0; 3]);
    let mut v = Validator::new(r);
    assert!(matches!(
        v.soa(a, &WANTED, &mut cols),
        Err(Error::MalformedArray { .. })
    ));
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

//! The runtime on hostile bytes: every check of format.md §1, §4, §5, §10
//! that makes malformed data read as zero/empty or fail validation.
use karmem::{AlignedBuf, ArrayRef, Error, Reader, ReaderMut, Table, Validator, Writer};

/// A message with one table at 8 made of `table_words` (header first),
/// then `extra` bytes.
fn message(table_words: &[u32], extra: &[u8]) -> AlignedBuf {
    let mut w = Writer::new(64);
    w.begin();
    let at = w.alloc(4 * table_words.len() as u32, 8).unwrap();
    for (i, word) in table_words.iter().enumerate() {
        w.put(at + 4 * i as u32, *word);
    }
    if !extra.is_empty() {
        let e = w.alloc(extra.len() as u32, 8).unwrap();
        w.put_bytes(e, extra);
    }
    AlignedBuf::from_bytes(w.finish().unwrap())
}

#[test]
fn header_checks() {
    let good = message(&[1 | (4 << 29)], &[]);
    assert!(Reader::new(good.as_slice()).is_ok());
    let mut bytes = good.as_slice().to_vec();
    let check = |b: &[u8]| Reader::new(AlignedBuf::from_bytes(b).as_slice()).err();
    assert!(matches!(check(&bytes[..7]), Some(Error::Truncated { .. })));
    bytes[0] = b'X';
    assert_eq!(check(&bytes), Some(Error::BadMagic));
    bytes[0] = b'K';
    // The first edition's messages (version 1) and any later version are
    // refused, not misread.
    for version in [1, 3, 255] {
        bytes[2] = version;
        assert_eq!(check(&bytes), Some(Error::UnsupportedVersion(version)));
    }
    bytes[2] = karmem::VERSION;
    bytes[3] = 1;
    assert_eq!(check(&bytes), Some(Error::BadFlags(1)));
    bytes[3] = 0;
    bytes[4..8].copy_from_slice(&1000u32.to_le_bytes());
    assert!(matches!(
        check(&bytes),
        Some(Error::Truncated { needed: 1000, .. })
    ));
    bytes[4..8].copy_from_slice(&13u32.to_le_bytes());
    assert_eq!(check(&bytes), Some(Error::BadSize(13)));
}

#[test]
fn misaligned_buffers_are_refused_not_misread() {
    let good = message(&[1 | (4 << 29)], &[]);
    let n = good.as_slice().len();
    let mut shifted = vec![0u64; n / 8 + 2];
    // SAFETY: viewing initialised u64s as bytes.
    let bytes = unsafe {
        std::slice::from_raw_parts_mut(shifted.as_mut_ptr().cast::<u8>(), shifted.len() * 8)
    };
    bytes[1..1 + n].copy_from_slice(good.as_slice());
    let slice = &bytes[1..1 + n];
    assert_eq!(Reader::new(slice).err(), Some(Error::Misaligned));
    // The documented remedy: copy into an aligned buffer.
    assert!(Reader::new(AlignedBuf::from_bytes(slice).as_slice()).is_ok());
}

#[test]
fn malformed_tables_read_as_empty() {
    // Header claims 100 units (800 bytes): beyond the message.
    let m = message(&[100, 7], &[]);
    let r = Reader::new(m.as_slice()).unwrap();
    assert_eq!(r.root(), Table::EMPTY);
    assert_eq!(r.field::<u32>(r.root(), 4), 0);
    let mut v = Validator::new(r);
    assert_eq!(v.root(8).err(), Some(Error::MalformedTable { offset: 8 }));
    // Used size below the header itself.
    let m = message(&[1 | (5 << 29), 7], &[]);
    assert_eq!(Reader::new(m.as_slice()).unwrap().root(), Table::EMPTY);
    // Misaligned, zero and huge offsets.
    let m = message(&[2, 0], &[]);
    let r = Reader::new(m.as_slice()).unwrap();
    assert_eq!(r.table(12), Table::EMPTY);
    assert_eq!(r.table(0), Table::EMPTY);
    // Offset 0 reads as the all-zero table but is malformed (§4).
    let mut v = Validator::new(r);
    assert_eq!(
        v.table(0, 8).err(),
        Some(Error::MalformedTable { offset: 0 })
    );
    assert_eq!(r.table(u32::MAX - 7), Table::EMPTY);
}

#[test]
fn fields_beyond_used_size_read_as_zero() {
    // Total 2 units, 3 unused bytes: used = 13, so a u32 at 12 is absent and
    // reads 0 although the bytes exist (evolution: an older, shorter table).
    let m = message(&[2 | (3 << 29), 0xAAAA_AAAA, 0xBBBB_BBBB, 0xCCCC_CCCC], &[]);
    let r = Reader::new(m.as_slice()).unwrap();
    let t = r.root();
    assert_eq!(t.used, 13);
    assert_eq!(r.field::<u32>(t, 4), 0xAAAA_AAAA);
    assert_eq!(r.field::<u32>(t, 12), 0);
}

#[test]
fn malformed_array_references_read_as_empty() {
    // Table words: header, then an array reference at message offset 12.
    let cases: [([u32; 3], &str); 6] = [
        ([64, 5, 4], "len > cap"),
        ([65, 1, 1], "misaligned data"),
        ([0, 1, 1], "offset 0 with capacity"),
        ([64, 1, u32::MAX], "huge capacity"),
        ([u32::MAX - 63, 1, 1], "offset past the end"),
        ([64, 3, 3], "limit 2 exceeded"),
    ];
    for (words, why) in cases {
        let m = message(
            &[3 | (4 << 29), words[0], words[1], words[2], 0, 0],
            &[0; 64],
        );
        let r = Reader::new(m.as_slice()).unwrap();
        let limit = if why.starts_with("limit") {
            Some(2)
        } else {
            None
        };
        assert_eq!(r.array(12, 4, limit), ArrayRef::EMPTY, "{why}");
        let mut v = Validator::new(r);
        assert!(v.array(12, 4, limit).is_err(), "{why}");
    }
}

/// Found by the `generated_reader` fuzz target: a zero-capacity array is
/// valid whatever its offset says, so the offset must never reach later
/// arithmetic (`offset + 4` overflowed in a union array view).
#[test]
fn empty_arrays_with_hostile_offsets_read_as_the_empty_reference() {
    for offset in [u32::MAX, u32::MAX - 3, 1, 64] {
        let m = message(&[3 | (4 << 29), offset, 0, 0, 0, 0], &[]);
        let r = Reader::new(m.as_slice()).unwrap();
        assert_eq!(r.array(12, 8, None), ArrayRef::EMPTY, "offset {offset}");
        let mut v = Validator::new(r);
        assert!(v.array(12, 8, None).is_ok(), "offset {offset}");
        // SAFETY: the message is valid (the validator accepted the array).
        let trusted = unsafe { r.assume_trusted() };
        assert_eq!(
            trusted.array(12, 8, None),
            ArrayRef::EMPTY,
            "offset {offset}"
        );
    }
}

#[test]
fn directory_bombs_are_bounded() {
    // An SoA directory claiming 10 million columns: the reader treats every
    // column as absent after one comparison; the validator says why.
    let mut w = Writer::new(64);
    w.begin();
    let at = w.alloc(16, 8).unwrap();
    w.put(at, 2u32);
    let dir = w.alloc(128, 64).unwrap();
    w.put(dir, 10_000_000u32);
    // The array's block: the offset of the directory, then its columns.
    let block = w.alloc(8, 4).unwrap();
    w.put(block, dir);
    w.put_array_ref(at + 4, block, 1, 1);
    let m = AlignedBuf::from_bytes(w.finish().unwrap());
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at + 4, 0, None);
    assert_eq!(r.soa_columns(a, &[(1, 4), (2, 4)]), [0, 0]);
    let mut v = Validator::new(r);
    assert!(matches!(
        v.soa(a, &[(1, 4)]),
        Err(Error::DirectoryTooLarge { .. })
    ));
}

/// A message with a `#bovoa`-style array whose reference says `len` and
/// whose bunch table holds `entries` as `(tag, length)`, each entry's data
/// a 64-byte block of its own; returns the message and the array's reference.
fn bunch_message(len: u32, entries: &[(u32, u32)]) -> (AlignedBuf, u32) {
    let mut w = Writer::new(64);
    w.begin();
    let at = w.alloc(16, 8).unwrap();
    w.put(at, 2u32);
    let table = w
        .alloc(16 * (entries.len() as u32 + 1).div_ceil(4) * 4, 64)
        .unwrap();
    w.put(table, entries.len() as u32);
    for (i, &(tag, n)) in entries.iter().enumerate() {
        let entry = table + 16 * (i as u32 + 1);
        let data = w.alloc(64, 64).unwrap();
        w.put(entry, tag);
        // Element size 0 in the checks below: any length fits the block.
        w.put_array_ref(entry + 4, data, n, n);
    }
    w.put_array_ref(at + 4, table, len, len.max(1));
    (AlignedBuf::from_bytes(w.finish().unwrap()), at + 4)
}

/// The variants of the schema these bunch tables are checked against.
const KNOWN: [u32; 2] = [1, 4];

fn validate_bunch(len: u32, entries: &[(u32, u32)]) -> Result<Vec<u32>, Error> {
    let (m, at) = bunch_message(len, entries);
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at, 0, None);
    assert_eq!(a.len, len, "reference not read back");
    let mut tags = Vec::new();
    Validator::new(r).bunch(a, &KNOWN, |_, tag, _| {
        tags.push(tag);
        Ok(())
    })?;
    Ok(tags)
}

#[test]
fn bunch_lengths_must_add_up_to_the_array_length() {
    // Tag 9 is unknown to any schema here: its elements count all the same.
    assert_eq!(
        validate_bunch(6, &[(1, 2), (9, 3), (4, 1)]),
        Ok(vec![1, 9, 4])
    );
    assert_eq!(validate_bunch(0, &[]), Ok(vec![]));
    let malformed = |len, entries: &[(u32, u32)]| {
        assert_eq!(
            validate_bunch(len, entries).map(|_| ()),
            Err(Error::MalformedArray { offset: 64 }),
            "len {len}, entries {entries:?}"
        )
    };
    malformed(7, &[(1, 2), (9, 3), (4, 1)]); // sum too small
    malformed(5, &[(1, 2), (9, 3), (4, 1)]); // sum too large
    malformed(1, &[]); // no entries, one element claimed
                       // 0xFFFF_FFFF + 2 wraps to 1 in u32 arithmetic: still refused.
    malformed(1, &[(1, u32::MAX), (4, 2)]);
    malformed(u32::MAX, &[(1, u32::MAX), (4, u32::MAX), (5, 1)]);
}

#[test]
fn a_known_tag_with_two_entries_is_malformed() {
    let malformed = Err(Error::MalformedArray { offset: 64 });
    // Which of the two a reader takes would decide what the array holds.
    assert_eq!(validate_bunch(3, &[(1, 1), (4, 1), (1, 1)]), malformed);
    assert_eq!(validate_bunch(2, &[(4, 1), (4, 1)]), malformed);
    assert_eq!(
        validate_bunch(4, &[(9, 1), (4, 1), (9, 1), (4, 1)]),
        malformed
    );
    // Also when one of them is empty.
    assert_eq!(validate_bunch(1, &[(1, 1), (1, 0)]), malformed);
    // Unknown tags may repeat: no reader of this schema looks at them.
    assert_eq!(
        validate_bunch(4, &[(9, 1), (1, 1), (9, 1), (4, 1)]),
        Ok(vec![9, 1, 9, 4])
    );
    // A reader that does not validate uses the first entry of a tag.
    let (m, at) = bunch_message(3, &[(1, 1), (4, 1), (1, 2)]);
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at, 0, None);
    assert_eq!(r.bunch_entry(a, 1, 4).len, 1);
}

#[test]
fn bunch_entries_of_a_mismatched_array_stay_bounded_in_the_reader() {
    // Not validated: the reference says 1 element, the entry says a
    // billion. The entry is checked like any array reference, so it reads
    // as empty instead of reaching past the message.
    let (m, at) = bunch_message(1, &[(1, 1_000_000_000)]);
    let r = Reader::new(m.as_slice()).unwrap();
    let a = r.array(at, 0, None);
    assert_eq!(r.bunch_entry(a, 1, 4), ArrayRef::EMPTY);
    assert_eq!(r.bunch_entry(a, 2, 4), ArrayRef::EMPTY);
}

#[test]
fn traversal_budget_stops_amplification() {
    // Charging a 64 KiB array once per reference: the validator stops after
    // at most 8 visits (budget = 8 x message size), not a thousand.
    let m = message(&[1 | (4 << 29)], &vec![0u8; 65536]);
    let mut v = Validator::new(Reader::new(m.as_slice()).unwrap());
    let mut visits = 0;
    let result = loop {
        if let Err(e) = v.charge(65536) {
            break e;
        }
        visits += 1;
        assert!(visits < 1000, "budget never ran out");
    };
    assert_eq!(result, Error::BudgetExceeded);
    assert!(visits <= 8, "got {visits} visits");
}

#[test]
fn depth_limit() {
    let m = message(&[1 | (4 << 29)], &[]);
    let mut v = Validator::new(Reader::new(m.as_slice()).unwrap());
    let mut depth = 0;
    while v.enter().is_ok() {
        depth += 1;
    }
    assert_eq!(depth, 64);
}

#[test]
fn in_place_updates_respect_capacity() {
    // A table holding a reference to a u16 array with len 2, capacity 4.
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(16, 8).unwrap();
    w.put(t, 2u32);
    let block = w.alloc_array(4, 2).unwrap();
    w.put_slice(block, &[10u16, 20]);
    let at = t + 4;
    w.put_array_ref(at, block, 2, 4);
    let mut buf = AlignedBuf::from_bytes(w.finish().unwrap());
    {
        let mut m = ReaderMut::new(buf.as_mut_slice()).unwrap();
        m.set_element::<u16>(at, 1, 21).unwrap();
        m.push::<u16>(at, 30).unwrap();
        m.push::<u16>(at, 40).unwrap();
        assert_eq!(m.push::<u16>(at, 50), Err(Error::TooLarge), "capacity is 4");
        assert!(m.set_element::<u16>(at, 4, 1).is_err(), "index beyond len");
        m.set_len(at, 2, 3).unwrap();
        assert!(m.set_len(at, 2, 5).is_err());
        let table = m.reader().root();
        assert!(
            m.set_field::<u32>(table, 200, 1).is_err(),
            "absent field cannot be written"
        );
        m.set_field::<u32>(table, 4, block).unwrap();
    }
    let r = Reader::new(buf.as_slice()).unwrap();
    let a = r.array(at, 2, None);
    assert_eq!(r.slice::<u16>(a.offset, a.len), &[10, 21, 30]);
    // Shrinking zeroed the dropped element (unused capacity is zero).
    assert_eq!(r.slice::<u16>(a.offset, 4), &[10, 21, 30, 0]);
}

#[test]
fn text_is_checked_byte_for_byte_but_not_past_its_length() {
    // The validator reads text eight bytes at a time: a bad byte at any
    // position of any length must be found, and whatever follows the text
    // in its block (here 0xFF) must not count.
    for len in 1..=24u32 {
        for bad in 0..len {
            let mut text = vec![b'a'; 32];
            text[len as usize..].fill(0xFF);
            let mut w = Writer::new(64);
            w.begin();
            let block = w.alloc_array(32, 1).unwrap();
            w.put_bytes(block, &text);
            let clean = AlignedBuf::from_bytes(w.finish().unwrap());
            let r = Reader::new(clean.as_slice()).unwrap();
            assert_eq!(Validator::new(r).utf8(block, len), Ok(()), "len {len}");

            let mut broken = clean.clone();
            broken.as_mut_slice()[(block + bad) as usize] = 0xFF;
            let r = Reader::new(broken.as_slice()).unwrap();
            assert_eq!(
                Validator::new(r).utf8(block, len),
                Err(Error::InvalidText { offset: block }),
                "len {len}, bad byte at {bad}"
            );
        }
    }
}

/// A trusted reader does not check UTF-8 again (validation did), and one
/// re-opened with `from_validated` reads what the checked reader reads.
#[test]
fn trusted_text_is_the_validated_text() {
    let text = "ünïcödé".as_bytes();
    let m = message(&[1 | (4 << 29), 0], text);
    // The text follows the 8-byte table at 8.
    let a = ArrayRef {
        offset: 16,
        len: text.len() as u32,
        cap: text.len() as u32,
    };
    let r = Reader::new(m.as_slice()).unwrap();
    assert!(Validator::new(r).utf8(a.offset, a.len).is_ok());
    assert_eq!(r.str(a), "ünïcödé");
    // SAFETY: the only string of this message was validated just above.
    let trusted = unsafe { r.assume_trusted() };
    assert_eq!(trusted.str(a), "ünïcödé");
    // SAFETY: the same bytes, unchanged.
    let reopened = unsafe { Reader::from_validated(m.as_slice()) };
    assert_eq!(reopened.str(a), "ünïcödé");
    assert_eq!(reopened.bytes(), r.bytes());

    // Invalid UTF-8: the checked reader reads "", the validator refuses it,
    // so no trusted reader can be made for it through validation.
    let bad = message(&[1 | (4 << 29), 0], &[0xff, 0xfe, b'a']);
    let r = Reader::new(bad.as_slice()).unwrap();
    let a = ArrayRef {
        offset: 16,
        len: 3,
        cap: 3,
    };
    assert_eq!(r.str(a), "");
    assert!(Validator::new(r).utf8(a.offset, a.len).is_err());
}

/// A hostile writer leaves bytes in unused capacity (validation does not
/// read it): growing in place must not expose them (format.md §12).
#[test]
fn growing_in_place_never_exposes_unused_capacity() {
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(16, 8).unwrap();
    w.put(t, 2u32);
    let block = w.alloc_array(4, 2).unwrap();
    // Length 1, capacity 4, and the author's bytes in the unused three.
    w.put_slice(block, &[10u16, 0xbad, 0xbad, 0xbad]);
    let at = t + 4;
    w.put_array_ref(at, block, 1, 4);
    let mut buf = AlignedBuf::from_bytes(w.finish().unwrap());
    {
        let mut m = ReaderMut::new(buf.as_mut_slice()).unwrap();
        m.set_len(at, 2, 3).unwrap();
    }
    let r = Reader::new(buf.as_slice()).unwrap();
    let a = r.array(at, 2, None);
    assert_eq!(r.slice::<u16>(a.offset, a.len), &[10, 0, 0]);
    // Only the exposed elements were touched.
    assert_eq!(r.slice::<u16>(a.offset, 4), &[10, 0, 0, 0xbad]);
}

/// Text outside the message is refused by the UTF-8 check itself, not read
/// as empty and valid (callers check the array first; this is the check
/// standing on its own).
#[test]
fn utf8_outside_the_message_is_refused() {
    let m = message(&[1 | (4 << 29)], &[]);
    let v = Validator::new(Reader::new(m.as_slice()).unwrap());
    let size = m.as_slice().len() as u32;
    assert_eq!(v.utf8(8, 0), Ok(()));
    for (offset, len) in [(size, 1), (size - 4, 5), (u32::MAX - 2, 8)] {
        assert_eq!(
            v.utf8(offset, len),
            Err(Error::MalformedArray { offset }),
            "{len} bytes at {offset}"
        );
    }
}

/// Text rewritten in place (format.md §12): within the capacity and the
/// limit, the old bytes past the new text zeroed; a reference outside the
/// message is an error, not a panic; writable slices see what a checked
/// reader sees.
#[test]
fn text_and_slices_in_place() {
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(16, 8).unwrap();
    w.put(t, 2u32);
    let block = w.alloc_array(8, 1).unwrap();
    w.put_slice(block, b"hello\0\0\0");
    let at = t + 4;
    w.put_array_ref(at, block, 5, 8);
    let mut buf = AlignedBuf::from_bytes(w.finish().unwrap());
    let size = buf.as_slice().len() as u32;
    {
        let mut m = ReaderMut::new(buf.as_mut_slice()).unwrap();
        assert_eq!(m.set_text(at, "too long!", None), Err(Error::TooLarge));
        assert_eq!(m.set_text(at, "abcd", Some(3)), Err(Error::TooLarge));
        m.set_text(at, "hey", None).unwrap();
        assert_eq!(m.slice_mut::<u8>(at, None), b"hey");
        assert!(m.slice_mut::<u8>(at, Some(2)).is_empty(), "over the limit");
        m.slice_mut::<u8>(at, None)[0] = b'H';
        for bad in [size - 8, size, u32::MAX - 12] {
            assert_eq!(
                m.set_text(bad, "", None),
                Err(Error::MalformedArray { offset: bad })
            );
            assert_eq!(
                m.set_len(bad, 1, 0),
                Err(Error::MalformedArray { offset: bad })
            );
            assert!(m.slice_mut::<u8>(bad, None).is_empty());
        }
    }
    let r = Reader::new(buf.as_slice()).unwrap();
    let a = r.array(at, 1, None);
    assert_eq!(r.str(a), "Hey");
    assert_eq!(r.slice::<u8>(a.offset, 8), b"Hey\0\0\0\0\0");
}

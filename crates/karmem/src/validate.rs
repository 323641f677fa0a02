use crate::reader::{array_ok, column_layout, find_columns, resolve, SMALL_DIRECTORY};
use crate::refcheck;
use crate::{ArrayRef, Error, Reader, Table, HEADER_SIZE};
use karmem_format::{
    bunch_table_size, soa_directory_charge, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE,
    BUNCH_TABLE_ALIGN, SOA_DIRECTORY_ALIGN,
};

/// The state of one validation pass: the reader, the remaining traversal
/// budget and the nesting depth. Generated `validate` functions drive it.
pub struct Validator<'a> {
    pub reader: Reader<'a>,
    budget: u64,
    depth: u32,
}

impl<'a> Validator<'a> {
    pub fn new(reader: Reader<'a>) -> Self {
        let budget = reader.size() as u64 * reader.limits().traversal_budget_factor as u64;
        Validator {
            reader,
            budget,
            depth: 0,
        }
    }

    /// What is left of the traversal budget (for tests comparing
    /// validation strategies).
    #[doc(hidden)]
    pub fn remaining_budget(&self) -> u64 {
        self.budget
    }

    /// Charges the bunch table of `a` once, as a decoder reads it
    /// (format.md §10): `16 × (k + 1)` for a well-formed table of `k`
    /// entries, nothing for an empty or malformed one (whose variants read
    /// as empty). Generated decoders call it before they look up the
    /// variants.
    pub fn charge_bunch(&mut self, a: ArrayRef) -> Result<(), Error> {
        match self.reader.bunch_entries(a) {
            Some(k) => self.charge(bunch_table_size(k as u64)),
            None => Ok(()),
        }
    }

    /// Account for `bytes` visited; fails once the budget is spent, which
    /// bounds the work of messages that reuse offsets.
    #[inline]
    pub fn charge(&mut self, bytes: u64) -> Result<(), Error> {
        // At least one unit per object, so empty objects count too.
        let cost = bytes.max(1);
        if cost > self.budget {
            return Err(Error::BudgetExceeded);
        }
        self.budget -= cost;
        Ok(())
    }

    #[inline]
    pub fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.reader.limits().max_depth {
            return Err(Error::DepthExceeded);
        }
        Ok(())
    }

    #[inline]
    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// A table that must be well formed, of a type whose full size (the
    /// table a writer of the reader's schema writes) is `full`. Offset 0
    /// is malformed too (format.md §4): a writer always writes a table.
    /// Charged `max(total × 8, full)` (format.md §10): a decoder builds
    /// every field of the reader's schema, present in the message or not.
    pub fn table(&mut self, offset: u32, full: u32) -> Result<Table, Error> {
        let t = self.reader.table(offset);
        if t == Table::EMPTY {
            return Err(Error::MalformedTable { offset });
        }
        let header: u32 = self.reader.get(offset);
        self.charge(((header & 0x1FFF_FFFF) as u64 * 8).max(full as u64))?;
        Ok(t)
    }

    /// The root table, which must be present (`full` as in
    /// [`Validator::table`]).
    pub fn root(&mut self, full: u32) -> Result<Table, Error> {
        self.table(HEADER_SIZE, full)
    }

    /// The array reference at `at`, which must be well formed.
    #[inline]
    pub fn array(
        &mut self,
        at: u32,
        elem_size: u32,
        limit: Option<u32>,
    ) -> Result<ArrayRef, Error> {
        let r = &self.reader;
        let Some(a) = r.array_ref(at) else {
            return Err(Error::MalformedArray { offset: at });
        };
        if let Some(limit) = limit {
            if a.len > limit {
                return Err(Error::LimitExceeded {
                    offset: at,
                    len: a.len,
                    limit,
                });
            }
        }
        // The limit is checked above, with its own error.
        if !array_ok(a, elem_size, None, r.size() as usize) {
            return Err(Error::MalformedArray { offset: at });
        }
        self.charge(a.cap as u64 * elem_size as u64)?;
        Ok(a)
    }

    /// An array field of a table (absent = empty, which is valid).
    pub fn field_array(
        &mut self,
        t: Table,
        offset: u32,
        elem_size: u32,
        limit: Option<u32>,
    ) -> Result<ArrayRef, Error> {
        if t.has(offset, 12) {
            self.array(t.offset + offset, elem_size, limit)
        } else {
            Ok(ArrayRef::EMPTY)
        }
    }

    /// Check an SoA array's block and its directory and resolve the known
    /// columns (as `Reader::soa_columns`, with the same fast path
    /// for a directory of the same schema version). The directory must be
    /// well formed, list no known hash twice and no known hash with another
    /// value size, and the block must end inside the message (format.md
    /// §5.3); absent columns are valid (older writers).
    #[inline(always)]
    pub fn soa<const N: usize>(
        &mut self,
        a: ArrayRef,
        wanted: &[(u32, u32); N],
    ) -> Result<[u32; N], Error> {
        if a.cap == 0 {
            return Ok([0; N]);
        }
        let r = self.reader;
        let Some(dir) = r.directory(a) else {
            return Err(self.directory_error(a.offset));
        };
        // Charge every known column, present or not: decoding an element
        // costs its full width whatever the directory lists, and a message
        // that validates must also decode within the same budget (§10).
        // An element is at least one unit, also without columns (an empty
        // table): a huge capacity of nothing is no free work.
        let width = element_width(wanted);
        let cost = soa_directory_charge(dir.hashes.len() as u64) + a.cap as u64 * width;
        let (found, cols) = resolve(dir, a.cap, r.size() as u64, wanted);
        if !(found.fits && found.strict) {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        self.charge(cost)?;
        Ok(cols)
    }

    /// [`Validator::soa`] for columns known only when the program runs (a
    /// validator driven by a schema loaded at run time, `karmem validate`):
    /// the same checks, the same charges and errors; the columns are
    /// returned in `wanted`'s order, 0 for an absent one.
    pub fn soa_columns_of(
        &mut self,
        a: ArrayRef,
        wanted: &[(u32, u32)],
    ) -> Result<alloc::vec::Vec<u32>, Error> {
        let mut cols = alloc::vec![0; wanted.len()];
        if a.cap == 0 {
            return Ok(cols);
        }
        let r = self.reader;
        let Some(dir) = r.directory(a) else {
            return Err(self.directory_error(a.offset));
        };
        let width = element_width(wanted);
        let cost = soa_directory_charge(dir.hashes.len() as u64) + a.cap as u64 * width;
        let found = find_columns(dir, a.cap, r.size() as u64, wanted, &mut cols);
        if !(found.fits && found.strict) {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        self.charge(cost)?;
        Ok(cols)
    }

    /// The known columns of an SoA array, for decoding: as
    /// `Reader::soa_columns`, and the directory is charged each time it is
    /// read (format.md §10), so a directory shared by many arrays costs
    /// each of them.
    #[inline]
    pub fn soa_columns<const N: usize>(
        &mut self,
        a: ArrayRef,
        wanted: &[(u32, u32); N],
    ) -> Result<[u32; N], Error> {
        let Some(dir) = self.reader.directory(a) else {
            return Ok([0; N]);
        };
        self.charge(soa_directory_charge(dir.hashes.len() as u64))?;
        Ok(self.reader.resolve_columns(a.cap, dir, wanted))
    }

    /// Check a whole SoA column of `len` array references at `col` (a
    /// column the directory check placed inside the message) in one tight
    /// loop, and charge the budget once for all of them (RATIONALE R4.6).
    ///
    /// Column by column is how the generated validator walks an SoA array:
    /// the references of one column are adjacent, so the checks of one
    /// element do not wait on those of the previous one, and every check is
    /// a flag folded into one branch at the end of the column. When a
    /// reference is bad, the column is walked again element by element to
    /// name the first bad one with the same error as [`Validator::array`].
    #[inline(always)]
    pub fn array_column(
        &mut self,
        col: u32,
        len: u32,
        elem_size: u32,
        limit: Option<u32>,
    ) -> Result<(), Error> {
        let refs = self.reader.slice::<u32>(col, len.saturating_mul(3));
        if refs.len() != len as usize * 3 {
            return Err(Error::MalformedArray { offset: col });
        }
        let rules = refcheck::Rules {
            elem_size,
            max_len: limit.unwrap_or(u32::MAX),
            size: self.reader.size(),
        };
        let (ok, cost) = refcheck::check(refs, rules);
        if !ok {
            return Err(self.first_bad_array(col, len, elem_size, limit));
        }
        if len == 0 {
            return Ok(());
        }
        self.charge(cost)
    }

    /// The error [`Validator::array`] gives for the first bad reference of
    /// a column that [`Validator::array_column`] refused.
    #[cold]
    fn first_bad_array(&self, col: u32, len: u32, elem_size: u32, limit: Option<u32>) -> Error {
        // A copy with an unlimited budget: only the shape is in question.
        let mut v = Validator {
            reader: self.reader,
            budget: u64::MAX,
            depth: self.depth,
        };
        for i in 0..len {
            if let Err(e) = v.array(col + 12 * i, elem_size, limit) {
                return e;
            }
        }
        Error::MalformedArray { offset: col }
    }

    /// The UTF-8 text of every array in a column that passed
    /// [`Validator::array_column`] (a `[]char` field of an SoA element),
    /// prefetching the text of the arrays some elements ahead.
    #[inline]
    pub fn utf8_column(&self, col: u32, len: u32) -> Result<(), Error> {
        let refs = self.reader.slice::<u32>(col, len.saturating_mul(3));
        for (i, r) in refs.chunks_exact(3).enumerate() {
            if let Some(&ahead) = refs.get(3 * (i + crate::PREFETCH_AHEAD as usize)) {
                self.reader.prefetch(ahead);
            }
            // ASCII without the call; anything else through `utf8`.
            if !self.ascii_words(r[0], r[1]) {
                self.utf8(r[0], r[1])?;
            }
        }
        Ok(())
    }

    /// Element `i` of a column of array references that passed
    /// [`Validator::array_column`].
    #[inline(always)]
    pub fn column_ref(&self, col: u32, i: u32) -> ArrayRef {
        self.reader
            .array_ref(col + 12 * i)
            .unwrap_or(ArrayRef::EMPTY)
    }

    /// The SoA blocks and directories of every array in a column that
    /// passed [`Validator::array_column`] (`wanted` as in
    /// [`Validator::soa`]), for element types whose columns need no further
    /// checks (`Vec3`: only numbers). A directory written by the same
    /// schema version is compared with `wanted` once (the arrays of a
    /// column share it, format.md §5.3), each block's layout checked with
    /// flags folded into one branch; any other goes through
    /// [`Validator::soa`]. The budget is charged as `soa` charges it.
    #[inline]
    pub fn soa_column<const N: usize>(
        &mut self,
        col: u32,
        len: u32,
        wanted: &[(u32, u32); N],
    ) -> Result<(), Error> {
        let size = self.reader.size() as u64;
        let width = element_width(wanted);
        // The same-version fast path compares the whole directory at once
        // (N ≤ 15 entries) and must respect a lowered entry limit.
        let fast = N <= SMALL_DIRECTORY && N as u32 <= self.reader.limits().max_directory_entries;
        let charge = soa_directory_charge(N as u64);
        let sizes = wanted.map(|w| w.1);
        // The directory last found to be the same-version one.
        let mut known = 0u32;
        let mut cost = 0u64;
        let refs = self.reader.slice::<u32>(col, len.saturating_mul(3));
        for (i, r) in refs.chunks_exact(3).enumerate() {
            // The block of an array some arrays ahead.
            if let Some(&ahead) = refs.get(3 * (i + crate::PREFETCH_AHEAD as usize)) {
                self.reader.prefetch(ahead);
            }
            let (offset, cap) = (r[0], r[2]);
            if cap == 0 {
                continue;
            }
            let good = fast
                && offset.is_multiple_of(SOA_DIRECTORY_ALIGN)
                && offset as u64 + 4 <= size
                && {
                    let at: u32 = self.reader.get(offset);
                    (at != 0 && at == known || self.same_directory(at, wanted))
                        && column_layout(offset + 4, cap, &sizes, size, |_, _| {}).is_some()
                        && {
                            known = at;
                            true
                        }
                };
            if good {
                // Each term is at most 8·16 + N · 2^32 · size; saturating, as
                // a column of 2^28 hostile arrays could pass 2^64.
                cost = cost.saturating_add(charge + cap as u64 * width);
            } else {
                let a = ArrayRef {
                    offset,
                    len: r[1],
                    cap,
                };
                self.soa_slow(a, wanted)?;
            }
        }
        if cost == 0 {
            return Ok(());
        }
        self.charge(cost)
    }

    /// Is the directory at `at` well formed and exactly `wanted` (hashes
    /// and sizes, in order)? `same_columns` over `Reader::directory`'s
    /// parse, without its entry limit (the caller's fast path already
    /// requires `N` within it): about 30 instructions less per small
    /// message.
    #[inline(always)]
    fn same_directory<const N: usize>(&self, at: u32, wanted: &[(u32, u32); N]) -> bool {
        if at == 0 || !at.is_multiple_of(SOA_DIRECTORY_ALIGN) {
            return false;
        }
        let words = self.reader.slice::<u32>(at, 2 * N as u32 + 1);
        if words.len() != 2 * N + 1 || words[0] != N as u32 {
            return false;
        }
        (0..N).fold(true, |good, j| {
            good & (words[1 + j] == wanted[j].0) & (words[1 + N + j] == wanted[j].1)
        })
    }

    /// [`Validator::soa`] for one array of [`Validator::soa_column`] whose
    /// directory is not of the same schema version (or is malformed).
    #[cold]
    #[inline(never)]
    fn soa_slow<const N: usize>(
        &mut self,
        a: ArrayRef,
        wanted: &[(u32, u32); N],
    ) -> Result<(), Error> {
        self.soa(a, wanted).map(drop)
    }

    /// Why `Reader::directory` refused the directory of the SoA block at
    /// `block`.
    #[cold]
    fn directory_error(&self, block: u32) -> Error {
        let at: u32 = self.reader.get(block);
        let entries: u32 = self.reader.get(at);
        if at != 0 && entries > self.reader.limits().max_directory_entries {
            Error::DirectoryTooLarge {
                offset: at,
                entries,
            }
        } else {
            Error::MalformedArray { offset: block }
        }
    }

    /// UTF-8 text. ASCII (the common case) is recognised first, eight
    /// bytes at a time; anything else goes through `from_utf8`.
    #[inline]
    pub fn utf8(&self, offset: u32, len: u32) -> Result<(), Error> {
        if len == 0 || self.ascii_words(offset, len) {
            return Ok(());
        }
        let text = self.reader.slice::<u8>(offset, len);
        // Callers check the array first; text outside the message is
        // refused all the same, not read as empty and valid.
        if text.len() != len as usize {
            return Err(Error::MalformedArray { offset });
        }
        core::str::from_utf8(text)
            .map(|_| ())
            .map_err(|_| Error::InvalidText { offset })
    }

    /// Are the `len` bytes at `offset` ASCII? Read as whole 8-byte words
    /// where they lie inside the message, the bytes past `len` in the last
    /// word masked off whatever they hold. Text starts at any offset
    /// (format.md §5: its alignment is 1), so the word holding its last
    /// byte may run past the end of the message: those last bytes are then
    /// read one by one. `false` also when the text does not fit the
    /// message (the caller then looks at the exact bytes).
    #[inline(always)]
    fn ascii_words(&self, offset: u32, len: u32) -> bool {
        let (offset, n) = (offset as usize, len as usize);
        let bytes = self.reader.bytes();
        // In 64 bits: on 32-bit targets a hostile length must not wrap.
        let end = offset as u64 + n as u64;
        if end > bytes.len() as u64 {
            return false;
        }
        let text = &bytes[offset..end as usize];
        let (whole, tail) = text.split_at(n & !7);
        let mut high = 0u64;
        for w in whole.chunks_exact(8) {
            high |= u64::from_le_bytes(w.try_into().unwrap_or([0x80; 8]));
        }
        if !tail.is_empty() {
            match bytes.get(offset + (n & !7)..offset + (n & !7) + 8) {
                // Only the `n % 8` bytes before the end count.
                Some(w) => {
                    let w = u64::from_le_bytes(w.try_into().unwrap_or([0x80; 8]));
                    high |= w & ((1u64 << (8 * (n & 7))) - 1);
                }
                // The word would cross the end of the message.
                None => tail.iter().for_each(|&b| high |= b as u64),
            }
        }
        high & 0x8080_8080_8080_8080 == 0
    }

    pub fn utf16(&self, offset: u32, len: u32) -> Result<(), Error> {
        let units = self.reader.slice::<u16>(offset, len);
        if char::decode_utf16(units.iter().copied()).any(|c| c.is_err()) {
            return Err(Error::InvalidText { offset });
        }
        Ok(())
    }

    /// A map's keys strictly ascending (format.md §5.5: sorted, unique),
    /// `key(i)` reading entry `i`'s key. The look-up is a binary search
    /// that relies on it.
    pub fn keys_ascending<K: Ord>(&self, a: ArrayRef, key: impl Fn(u32) -> K) -> Result<(), Error> {
        let mut prev: Option<K> = None;
        for i in 0..a.len {
            let k = key(i);
            if prev.as_ref().is_some_and(|p| *p >= k) {
                return Err(Error::MalformedArray { offset: a.offset });
            }
            prev = Some(k);
        }
        Ok(())
    }

    pub fn bool_at(&self, offset: u32) -> Result<(), Error> {
        if self.reader.get::<u8>(offset) > 1 {
            return Err(Error::InvalidBool { offset });
        }
        Ok(())
    }

    pub fn bools(&self, offset: u32, len: u32) -> Result<(), Error> {
        match self
            .reader
            .slice::<u8>(offset, len)
            .iter()
            .position(|b| *b > 1)
        {
            Some(i) => Err(Error::InvalidBool {
                offset: offset + i as u32,
            }),
            None => Ok(()),
        }
    }

    /// Check the tag and offset columns of an SoA array of unions.
    pub fn union_columns(
        &mut self,
        a: ArrayRef,
        tag_size: u32,
    ) -> Result<Option<(u32, u32)>, Error> {
        if a.cap == 0 {
            return Ok(None);
        }
        match self.reader.union_columns(a, tag_size) {
            Some(c) => {
                self.charge(a.cap as u64 * (tag_size as u64 + 4))?;
                Ok(Some(c))
            }
            None => Err(Error::MalformedArray { offset: a.offset }),
        }
    }

    /// Check a bunch table (its size, that its entries' lengths add up to
    /// the array's length, and that no tag of `known` — the variants of the
    /// reader's schema — has two entries); returns its entries `(tag, entry
    /// position)` through `each` (entries with unknown tags are skipped by
    /// the caller). A variant of `known` without an entry costs one unit, as
    /// a decoder charges its empty array (format.md §10).
    pub fn bunch(
        &mut self,
        a: ArrayRef,
        known: &[u32],
        mut each: impl FnMut(&mut Self, u32, u32) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if a.cap == 0 {
            return self.charge_missing(known.len());
        }
        let r = self.reader;
        let k: u32 = r.get(a.offset);
        if k > r.limits().max_directory_entries {
            return Err(Error::DirectoryTooLarge {
                offset: a.offset,
                entries: k,
            });
        }
        let block = bunch_table_size(k as u64);
        if a.offset as u64 + block > r.size() as u64 || !a.offset.is_multiple_of(BUNCH_TABLE_ALIGN)
        {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        self.charge(block)?;
        // The array's length is the number of stored elements: the entries'
        // lengths, unknown tags included, must add up to it (format.md
        // §7.1). Summed in u64, which k < 2^32 values below 2^32 cannot
        // overflow (a wrapping u32 sum could be made to match).
        let total: u64 = (1..=k)
            // The entry's `length`: the second word of its array reference.
            .map(|e| {
                r.get::<u32>(a.offset + BUNCH_ENTRY_SIZE * e + BUNCH_ENTRY_ARRAY_AT + 4) as u64
            })
            .sum();
        if total != a.len as u64 {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        // A known variant with two entries would be ambiguous: which one a
        // reader uses decides what the array holds (format.md §7.1). One
        // count per known tag: variants × entries reads, no more than the
        // decoder's look-up of each variant costs; unknown tags may repeat
        // (no reader of this schema looks at them).
        let mut missing = 0;
        for &tag in known {
            let entries = (1..=k).filter(|e| r.get::<u32>(a.offset + BUNCH_ENTRY_SIZE * e) == tag);
            match entries.count() {
                0 => missing += 1,
                1 => {}
                _ => return Err(Error::MalformedArray { offset: a.offset }),
            }
        }
        self.charge_missing(missing)?;
        for e in 1..=k {
            let entry = a.offset + BUNCH_ENTRY_SIZE * e;
            let tag: u32 = r.get(entry);
            each(self, tag, entry)?;
        }
        Ok(())
    }
}

impl Validator<'_> {
    /// One unit per variant of a bunch array without an entry, nothing when
    /// there is none.
    fn charge_missing(&mut self, missing: usize) -> Result<(), Error> {
        if missing == 0 {
            return Ok(());
        }
        self.charge(missing as u64)
    }
}

/// What one element of an SoA array with the `wanted` columns costs the
/// traversal budget: its width, at least 1 (format.md §10).
#[inline(always)]
fn element_width(wanted: &[(u32, u32)]) -> u64 {
    wanted
        .iter()
        .map(|(_, size)| *size as u64)
        .sum::<u64>()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AlignedBuf;

    /// A message of `size` bytes whose last bytes are `text`.
    fn ending_with(size: usize, text: &[u8]) -> AlignedBuf {
        let mut b = alloc::vec![0u8; size];
        b[0..4].copy_from_slice(&[b'K', b'M', crate::VERSION, 0]);
        b[4..8].copy_from_slice(&(size as u32).to_le_bytes());
        b[size - text.len()..].copy_from_slice(text);
        AlignedBuf::from_bytes(&b)
    }

    /// Text is 1-aligned (format.md §5), so the 8-byte word holding its
    /// last byte may cross the end of the message: the check must read
    /// the bytes there one by one, and still see every one of them.
    #[test]
    fn utf8_at_the_end_of_the_message() {
        for len in [1usize, 5, 7, 8, 9, 13, 15, 16] {
            let ascii: alloc::vec::Vec<u8> = (0..len).map(|i| b'a' + i as u8).collect();
            let buf = ending_with(32, &ascii);
            let v = Validator::new(Reader::new(buf.as_slice()).unwrap());
            let at = (32 - len) as u32;
            assert_eq!(v.utf8(at, len as u32), Ok(()), "{len}");
            assert!(v.ascii_words(at, len as u32), "{len}");
            // Not ASCII in the last byte, which may lie in the crossing word.
            for (last, valid) in [(0xC3u8, false), (0x80, false)] {
                let mut bad = ascii.clone();
                bad[len - 1] = last;
                let buf = ending_with(32, &bad);
                let v = Validator::new(Reader::new(buf.as_slice()).unwrap());
                assert!(!v.ascii_words(at, len as u32), "{len}");
                assert_eq!(v.utf8(at, len as u32).is_ok(), valid, "{len}");
            }
            // Valid UTF-8 that is not ASCII, ending at the message end.
            if len >= 2 {
                let mut e = ascii.clone();
                e[len - 2..].copy_from_slice("é".as_bytes());
                let buf = ending_with(32, &e);
                let v = Validator::new(Reader::new(buf.as_slice()).unwrap());
                assert_eq!(v.utf8(at, len as u32), Ok(()), "{len}");
            }
        }
    }
}

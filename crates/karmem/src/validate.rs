use crate::reader::{array_ok, column_ok, directory_matches, same_columns};
use crate::{align_up, ArrayRef, Error, Reader, Table, ARRAY_ALIGN, HEADER_SIZE};

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

    /// A table that must be well formed; offset 0 (absent) is allowed and
    /// yields `Table::EMPTY`.
    pub fn table(&mut self, offset: u32) -> Result<Table, Error> {
        if offset == 0 {
            return Ok(Table::EMPTY);
        }
        let t = self.reader.table(offset);
        if t == Table::EMPTY {
            return Err(Error::MalformedTable { offset });
        }
        let header: u32 = self.reader.get(offset);
        self.charge((header & 0x1FFF_FFFF) as u64 * 8)?;
        Ok(t)
    }

    /// The root table, which must be present.
    pub fn root(&mut self) -> Result<Table, Error> {
        self.table(HEADER_SIZE)
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

    /// Check an SoA directory and resolve the known columns (`out`, as in
    /// `Reader::soa_columns`, with the same fast path for a directory of the
    /// same schema version). A known column that is present must be well
    /// formed; absent columns are valid (older writers).
    #[inline(always)]
    pub fn soa<const N: usize>(
        &mut self,
        a: ArrayRef,
        wanted: &[(u32, u32); N],
        out: &mut [u32; N],
    ) -> Result<(), Error> {
        *out = [0; N];
        if a.cap == 0 {
            return Ok(());
        }
        let r = self.reader;
        let Some((hashes, offsets)) = r.directory(a) else {
            return Err(self.directory_error(a.offset));
        };
        let block = align_up(4 * (hashes.len() as u64 + 1), ARRAY_ALIGN as u64);
        // Charge every known column, present or not: decoding an element
        // costs its full width whatever the directory lists, and a message
        // that validates must also decode within the same budget (§10).
        let width: u64 = wanted.iter().map(|(_, size)| *size as u64).sum();
        let cost = 2 * block + a.cap as u64 * width;
        if let Some(found) = same_columns(hashes, offsets, wanted) {
            for j in 0..N {
                let col = found[j];
                if !column_ok(col, a.cap, wanted[j].1, r.size() as usize) {
                    return Err(Error::MalformedArray { offset: a.offset });
                }
                out[j] = col;
            }
        } else {
            self.find_columns(a, hashes, offsets, wanted, out)?;
        }
        self.charge(cost)
    }

    /// Why `Reader::directory` refused the directory at `dir`.
    #[cold]
    fn directory_error(&self, dir: u32) -> Error {
        let entries: u32 = self.reader.get(dir);
        if entries > self.reader.limits().max_directory_entries {
            Error::DirectoryTooLarge {
                offset: dir,
                entries,
            }
        } else {
            Error::MalformedArray { offset: dir }
        }
    }

    /// The general case of `soa`: one scan of the directory.
    #[cold]
    fn find_columns(
        &self,
        a: ArrayRef,
        hashes: &[u32],
        offsets: &[u32],
        wanted: &[(u32, u32)],
        out: &mut [u32],
    ) -> Result<(), Error> {
        for (j, col) in directory_matches(hashes, offsets, wanted) {
            // Two entries for one column would be ambiguous.
            if out[j] != 0 || !column_ok(col, a.cap, wanted[j].1, self.reader.size() as usize) {
                return Err(Error::MalformedArray { offset: a.offset });
            }
            out[j] = col;
        }
        Ok(())
    }

    /// UTF-8 text. ASCII (the common case) is checked first, word-wise.
    #[inline]
    pub fn utf8(&self, offset: u32, len: u32) -> Result<(), Error> {
        let bytes = self.reader.slice::<u8>(offset, len);
        if bytes.is_ascii() {
            return Ok(());
        }
        core::str::from_utf8(bytes)
            .map(|_| ())
            .map_err(|_| Error::InvalidText { offset })
    }

    pub fn utf16(&self, offset: u32, len: u32) -> Result<(), Error> {
        let units = self.reader.slice::<u16>(offset, len);
        if char::decode_utf16(units.iter().copied()).any(|c| c.is_err()) {
            return Err(Error::InvalidText { offset });
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

    /// Check a bunch table (its size, and that its entries' lengths add up
    /// to the array's length); returns its entries `(tag, entry position)`
    /// through `each` (entries with unknown tags are skipped by the caller).
    pub fn bunch(
        &mut self,
        a: ArrayRef,
        mut each: impl FnMut(&mut Self, u32, u32) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if a.cap == 0 {
            return Ok(());
        }
        let r = self.reader;
        let k: u32 = r.get(a.offset);
        if k > r.limits().max_directory_entries {
            return Err(Error::DirectoryTooLarge {
                offset: a.offset,
                entries: k,
            });
        }
        let block = align_up(16 * (k as u64 + 1), ARRAY_ALIGN as u64);
        if a.offset as u64 + block > r.size() as u64 {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        self.charge(block)?;
        // The array's length is the number of stored elements: the entries'
        // lengths, unknown tags included, must add up to it (format.md
        // §7.1). Summed in u64, which k < 2^32 values below 2^32 cannot
        // overflow (a wrapping u32 sum could be made to match).
        let total: u64 = (1..=k)
            .map(|e| r.get::<u32>(a.offset + 16 * e + 8) as u64)
            .sum();
        if total != a.len as u64 {
            return Err(Error::MalformedArray { offset: a.offset });
        }
        for e in 1..=k {
            let entry = a.offset + 16 * e;
            let tag: u32 = r.get(entry);
            each(self, tag, entry)?;
        }
        Ok(())
    }
}

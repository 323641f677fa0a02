use alloc::vec::Vec;
use core::marker::PhantomData;

use karmem_format::{
    natural_align, BUNCH_ENTRY_ARRAY_AT, BUNCH_ENTRY_SIZE, BUNCH_TABLE_ALIGN, OFFSET_SIZE,
    SOA_DIRECTORY_ALIGN,
};

use crate::{align_up, Error, Scalar, ScalarNewtype, HEADER_SIZE, MAGIC, VERSION};

/// Directories of up to this many entries are checked by the validator's
/// same-version fast path (`Validator::soa_column`).
pub(crate) const SMALL_DIRECTORY: usize = 15;

/// Limits a reader enforces against hostile messages (format.md §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most entries scanned in one SoA directory or bunch table.
    pub max_directory_entries: u32,
    /// Deepest nesting the validator and the object decoder follow.
    pub max_depth: u32,
    /// The validator and decoder may visit/allocate at most this many times
    /// the message size in bytes.
    pub traversal_budget_factor: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_directory_entries: 1024,
            max_depth: 64,
            traversal_budget_factor: 8,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Whether a reader's loads are bounds-checked ([`Checked`]) or not
/// ([`Trusted`], reachable only through validation).
pub trait Mode: Copy + sealed::Sealed + 'static {
    const TRUSTED: bool;
}

/// Every load is bounds-checked; malformed data reads as zero.
#[derive(Clone, Copy, Debug)]
pub struct Checked;
/// The message was validated: loads skip bounds checks.
#[derive(Clone, Copy, Debug)]
pub struct Trusted;

impl sealed::Sealed for Checked {}
impl sealed::Sealed for Trusted {}
impl Mode for Checked {
    const TRUSTED: bool = false;
}
impl Mode for Trusted {
    const TRUSTED: bool = true;
}

/// A table found at `offset` whose first `used` bytes hold fields.
/// `Table::EMPTY` stands for an absent or malformed table: every field reads
/// as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub offset: u32,
    pub used: u32,
}

impl Table {
    pub const EMPTY: Table = Table { offset: 0, used: 0 };

    /// Is a field at `offset` of `size` bytes inside the used part?
    #[inline(always)]
    pub fn has(self, offset: u32, size: u32) -> bool {
        offset + size <= self.used
    }
}

/// A checked array reference: `len` elements at `offset`, room for `cap`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArrayRef {
    pub offset: u32,
    pub len: u32,
    pub cap: u32,
}

impl ArrayRef {
    pub const EMPTY: ArrayRef = ArrayRef {
        offset: 0,
        len: 0,
        cap: 0,
    };
}

/// Zero-copy access to one message.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a, M: Mode = Checked> {
    bytes: &'a [u8],
    limits: Limits,
    _mode: PhantomData<M>,
}

/// Checks the header and alignment; returns the message bytes.
fn open(buf: &[u8]) -> Result<&[u8], Error> {
    if buf.len() < HEADER_SIZE as usize {
        return Err(Error::Truncated {
            needed: HEADER_SIZE as u64,
            available: buf.len() as u64,
        });
    }
    if !(buf.as_ptr() as usize).is_multiple_of(8) {
        return Err(Error::Misaligned);
    }
    if buf[0..2] != MAGIC {
        return Err(Error::BadMagic);
    }
    if buf[2] != VERSION {
        return Err(Error::UnsupportedVersion(buf[2]));
    }
    if buf[3] != 0 {
        return Err(Error::BadFlags(buf[3]));
    }
    let size = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
    if size < HEADER_SIZE || !size.is_multiple_of(8) {
        return Err(Error::BadSize(size));
    }
    if size as usize > buf.len() {
        return Err(Error::Truncated {
            needed: size as u64,
            available: buf.len() as u64,
        });
    }
    Ok(&buf[..size as usize])
}

impl<'a> Reader<'a, Checked> {
    /// Open a message (it may be followed by unrelated bytes: the header's
    /// size bounds every access).
    pub fn new(buf: &'a [u8]) -> Result<Self, Error> {
        Self::with_limits(buf, Limits::default())
    }

    pub fn with_limits(buf: &'a [u8], limits: Limits) -> Result<Self, Error> {
        Ok(Reader {
            bytes: open(buf)?,
            limits,
            _mode: PhantomData,
        })
    }

    /// A reader whose loads skip bounds checks. The generated `validate`
    /// returns one; call this only to keep reading a message validated
    /// earlier without validating it again.
    ///
    /// # Safety
    /// The message must have passed the generated `validate` of the root type
    /// that will be read through the returned reader, and must not have
    /// changed since.
    pub unsafe fn assume_trusted(self) -> Reader<'a, Trusted> {
        Reader {
            bytes: self.bytes,
            limits: self.limits,
            _mode: PhantomData,
        }
    }
}

impl<'a> Reader<'a, Trusted> {
    /// Re-open a message that was validated before, without the header
    /// checks [`Reader::new`] makes: for the reader that validates a message
    /// once (when it arrives) and reads it many times later. The cost of
    /// opening is then one load (the header's size).
    ///
    /// # Safety
    /// `buf` must start with the bytes of a message that [`Reader::new`]
    /// opened and the generated `validate` of the root type that will be
    /// read accepted, unchanged since (bytes after the message may differ),
    /// at an address aligned to 8.
    #[inline(always)]
    pub unsafe fn from_validated(buf: &'a [u8]) -> Self {
        debug_assert!(open(buf).is_ok(), "from_validated: not an open message");
        // SAFETY: the caller promises a validated message, so the header is
        // there and its size is within `buf`.
        let size = unsafe { u32::from_le_bytes(*buf.as_ptr().add(4).cast::<[u8; 4]>()) };
        Reader {
            bytes: unsafe { buf.get_unchecked(..size as usize) },
            limits: Limits::default(),
            _mode: PhantomData,
        }
    }
}

impl<'a, M: Mode> Reader<'a, M> {
    /// The message bytes (header included).
    #[inline(always)]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    #[inline(always)]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Load a scalar; out of bounds reads as zero.
    #[inline(always)]
    pub fn get<T: Scalar>(&self, offset: u32) -> T {
        let o = offset as usize;
        if M::TRUSTED {
            // SAFETY: a Trusted reader exists only for validated messages,
            // and generated code loads only offsets the validator checked.
            unsafe { T::from_le_slice(self.bytes.get_unchecked(o..o + T::SIZE)) }
        } else {
            match self.bytes.get(o..o + T::SIZE) {
                Some(b) => T::from_le_slice(b),
                None => T::default(),
            }
        }
    }

    #[inline(always)]
    pub fn get_bool(&self, offset: u32) -> bool {
        self.get::<u8>(offset) != 0
    }

    /// The table at `offset`, or `Table::EMPTY` if it is absent or malformed
    /// (format.md §4).
    #[inline]
    pub fn table(&self, offset: u32) -> Table {
        // Offset 0 is the header: "absent". Checked before the load so a
        // Trusted reader never interprets the header as a table.
        if offset == 0 {
            return Table::EMPTY;
        }
        let header: u32 = self.get(offset);
        let total = (header & 0x1FFF_FFFF) as u64 * 8;
        let unused = (header >> 29) as u64;
        if M::TRUSTED {
            if offset == 0 {
                return Table::EMPTY;
            }
            return Table {
                offset,
                used: (total - unused) as u32,
            };
        }
        let end = offset as u64 + total;
        if !offset.is_multiple_of(8)
            || total < 8
            || total - unused < 4
            || end > self.bytes.len() as u64
        {
            return Table::EMPTY;
        }
        Table {
            offset,
            used: (total - unused) as u32,
        }
    }

    /// The root table (at offset 8).
    #[inline]
    pub fn root(&self) -> Table {
        self.table(HEADER_SIZE)
    }

    /// A scalar field of a table, zero when absent.
    #[inline(always)]
    pub fn field<T: Scalar>(&self, t: Table, offset: u32) -> T {
        if t.has(offset, T::SIZE as u32) {
            self.get(t.offset + offset)
        } else {
            T::default()
        }
    }

    #[inline(always)]
    pub fn field_bool(&self, t: Table, offset: u32) -> bool {
        self.field::<u8>(t, offset) != 0
    }

    /// The table referenced by a table's field.
    #[inline]
    pub fn field_table(&self, t: Table, offset: u32) -> Table {
        let child = self.field::<u32>(t, offset);
        if child == 0 {
            Table::EMPTY
        } else {
            self.table(child)
        }
    }

    /// The array reference stored at `at`, checked (format.md §5): empty if
    /// malformed. `limit` is the `N` of `[<N]T`.
    #[inline]
    pub fn array(&self, at: u32, elem_size: u32, limit: Option<u32>) -> ArrayRef {
        let a = self.array_ref(at).unwrap_or(ArrayRef::EMPTY);
        // A zero capacity means "no data block" whatever the offset says:
        // normalising here keeps hostile offsets of empty arrays away from
        // every later offset computation (they could overflow).
        if a.cap != 0 && (M::TRUSTED || array_ok(a, elem_size, limit, self.bytes.len())) {
            a
        } else {
            ArrayRef::EMPTY
        }
    }

    /// The 12 raw bytes of an array reference at `at`, unchecked beyond
    /// being inside the message (`None` otherwise). One bounds check for the
    /// three words.
    #[inline(always)]
    pub fn array_ref(&self, at: u32) -> Option<ArrayRef> {
        let o = at as usize;
        let b = if M::TRUSTED {
            // SAFETY: generated code reads references only where the
            // validator checked that 12 bytes fit.
            unsafe { self.bytes.get_unchecked(o..o + 12) }
        } else {
            self.bytes.get(o..o + 12)?
        };
        // One 12-byte value, so the compiler emits whole-word loads.
        let b: [u8; 12] = b.try_into().ok()?;
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Some(ArrayRef {
            offset: word(0),
            len: word(4),
            cap: word(8),
        })
    }

    /// An array field of a table (empty when absent).
    #[inline(always)]
    pub fn field_array(
        &self,
        t: Table,
        offset: u32,
        elem_size: u32,
        limit: Option<u32>,
    ) -> ArrayRef {
        if t.has(offset, 12) {
            self.array(t.offset + offset, elem_size, limit)
        } else {
            ArrayRef::EMPTY
        }
    }

    /// `len` scalars at `offset` as a native slice (the offset was checked by
    /// `array` or `soa_columns`, 0 means empty).
    #[inline(always)]
    pub fn slice<T: Scalar>(&self, offset: u32, len: u32) -> &'a [T] {
        let (o, n) = (offset as usize, len as usize);
        if offset == 0 || n == 0 {
            return &[];
        }
        let bytes = if M::TRUSTED {
            // SAFETY: validated offsets and lengths are in bounds.
            unsafe { self.bytes.get_unchecked(o..o + n * T::SIZE) }
        } else {
            match self.bytes.get(o..o + n * T::SIZE) {
                Some(b) => b,
                None => return &[],
            }
        };
        cast_slice(bytes)
    }

    /// [`Reader::slice`] of a generated enum type (an SoA column of enums).
    #[inline(always)]
    pub fn newtype_slice<T: ScalarNewtype>(&self, offset: u32, len: u32) -> &'a [T] {
        let s = self.slice::<T::Repr>(offset, len);
        // SAFETY: `T` is `repr(transparent)` over `T::Repr` (the trait's
        // contract): same size, alignment and valid values.
        unsafe { core::slice::from_raw_parts(s.as_ptr().cast::<T>(), s.len()) }
    }

    /// A hint that the data of the array whose reference is at `at` is
    /// about to be read: prefetches its first `lines` cache lines. Loops over
    /// SoA elements call it for an element a few places ahead, so that the
    /// scattered children of successive elements (text, directories) arrive
    /// in parallel instead of one cache miss after another. Never faults:
    /// only addresses inside the message are touched, and on targets
    /// without a prefetch instruction this does nothing.
    #[inline(always)]
    pub fn prefetch_array(&self, at: u32, lines: u32) {
        let data: u32 = self.get(at);
        for l in 0..lines as usize {
            let o = data as usize + 64 * l;
            if o >= self.bytes.len() {
                break;
            }
            self.prefetch(o as u32);
        }
    }

    /// A hint that the cache line at `offset` is about to be read. Never
    /// faults: offsets outside the message are ignored.
    #[inline(always)]
    pub fn prefetch(&self, offset: u32) {
        #[cfg(target_arch = "x86_64")]
        if (offset as usize) < self.bytes.len() {
            // SAFETY: inside the message; a prefetch performs no load.
            unsafe {
                use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(self.bytes.as_ptr().add(offset as usize).cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = offset;
    }

    /// The bytes of an array of `u8`.
    #[inline(always)]
    pub fn byte_slice(&self, a: ArrayRef) -> &'a [u8] {
        self.slice::<u8>(a.offset, a.len)
    }

    /// UTF-8 text; invalid UTF-8 reads as `""` (use `byte_slice` for the raw
    /// bytes, the validator reports it). A trusted reader does not check
    /// again: validation checked every string of the schema
    /// (`Validator::utf8`, `Validator::utf8_column`).
    #[inline]
    pub fn str(&self, a: ArrayRef) -> &'a str {
        let bytes = self.byte_slice(a);
        if M::TRUSTED {
            // SAFETY: a `Reader<Trusted>` exists only for a validated message
            // (or under the caller's promise that it was), and the validator
            // refuses a message with any string field that is not UTF-8.
            unsafe { core::str::from_utf8_unchecked(bytes) }
        } else {
            core::str::from_utf8(bytes).unwrap_or("")
        }
    }

    /// Resolve SoA columns in one pass over the directory of `a`
    /// (format.md §5.3). `wanted[j] = (hash, value size)`; entry `j` of the
    /// result is the column offset, or 0 when the column is absent or
    /// malformed.
    ///
    /// Generic over the column count and inlined: a directory written by the
    /// same schema version (same hashes and sizes, same order) resolves in
    /// `N` constant compares and `N` independent multiply-adds; any other
    /// directory (older or newer writer) goes through the general scan.
    /// Returned by value (not through a `&mut` argument), so the offsets go
    /// to the caller's struct from registers.
    #[inline(always)]
    pub fn soa_columns<const N: usize>(&self, a: ArrayRef, wanted: &[(u32, u32); N]) -> [u32; N] {
        match self.directory(a) {
            Some(dir) => self.resolve_columns(a.cap, dir, wanted),
            None => [0; N],
        }
    }

    /// `soa_columns` over a directory already found well formed
    /// (`directory`). Columns are where the directory's sizes put them
    /// (`column_layout`); a block that does not end inside the message has
    /// no column.
    #[inline(always)]
    pub(crate) fn resolve_columns<const N: usize>(
        &self,
        cap: u32,
        dir: Directory<'a>,
        wanted: &[(u32, u32); N],
    ) -> [u32; N] {
        // A validated block ends inside the message (format.md §5.3): a
        // trusted reader's bound never fails, so its checks fold away.
        let size = if M::TRUSTED {
            u64::MAX
        } else {
            self.bytes.len() as u64
        };
        let (found, cols) = resolve(dir, cap, size, wanted);
        if found.fits {
            cols
        } else {
            [0; N]
        }
    }

    /// The SoA directory of `a` (format.md §5.3): the one its block's first
    /// word points to, shared by the arrays of its column list. `None` if
    /// the array is empty, or the block's word or the directory is
    /// malformed (misaligned, past the end, over `max_directory_entries`).
    /// Whether the block's columns end inside the message is checked when
    /// they are laid out (`column_layout`).
    #[inline]
    pub fn directory(&self, a: ArrayRef) -> Option<Directory<'a>> {
        if a.cap == 0 {
            return None;
        }
        if !M::TRUSTED
            && (!a.offset.is_multiple_of(SOA_DIRECTORY_ALIGN)
                || a.offset as u64 + OFFSET_SIZE as u64 > self.bytes.len() as u64)
        {
            return None;
        }
        let at: u32 = self.get(a.offset);
        if !M::TRUSTED && !at.is_multiple_of(SOA_DIRECTORY_ALIGN) {
            return None;
        }
        // `n`, then the whole directory as one slice of `2n + 1` words (a
        // trusted reader reads no further than the validator checked;
        // offset 0 gives an empty slice).
        let n: u32 = self.get(at);
        if !M::TRUSTED && n > self.limits.max_directory_entries {
            return None;
        }
        let words = 2 * n as u64 + 1;
        if !M::TRUSTED && words > u32::MAX as u64 {
            return None;
        }
        let all = self.slice::<u32>(at, words as u32);
        if all.len() as u64 != words {
            return None;
        }
        let n = n as usize;
        Some(Directory {
            at,
            hashes: &all[1..1 + n],
            sizes: &all[1 + n..],
            start: a.offset.wrapping_add(OFFSET_SIZE),
        })
    }

    /// Tag and offset columns of an SoA array of unions (format.md §7.1):
    /// `(tags_at, offsets_at)`, or `None` if the block does not fit.
    #[inline]
    pub fn union_columns(&self, a: ArrayRef, tag_size: u32) -> Option<(u32, u32)> {
        if a.cap == 0 {
            return None;
        }
        // The tag column at its natural alignment, the offset column at
        // the next multiple of 4 after it.
        let tags_end = a.offset as u64 + a.cap as u64 * tag_size as u64;
        let offsets = align_up(tags_end, OFFSET_SIZE as u64);
        if !M::TRUSTED
            && (!a.offset.is_multiple_of(natural_align(tag_size))
                || offsets + OFFSET_SIZE as u64 * a.cap as u64 > self.bytes.len() as u64)
        {
            return None;
        }
        Some((a.offset, offsets as u32))
    }

    /// The number of entries of the bunch table of `a` (format.md §7.1),
    /// or `None` when `a` is empty or its table is malformed (misaligned,
    /// over the entry limit, past the end): its variants then read as
    /// empty.
    #[inline]
    pub fn bunch_entries(&self, a: ArrayRef) -> Option<u32> {
        if a.cap == 0 {
            return None;
        }
        let k: u32 = self.get(a.offset);
        let end = a.offset as u64 + BUNCH_ENTRY_SIZE as u64 * (k as u64 + 1);
        if !M::TRUSTED
            && (k > self.limits.max_directory_entries
                || end > self.bytes.len() as u64
                || !a.offset.is_multiple_of(BUNCH_TABLE_ALIGN))
        {
            return None;
        }
        Some(k)
    }

    /// The array of one variant in a bunch table (format.md §7.1), checked
    /// like any array reference; empty if the variant has no entry.
    #[inline]
    pub fn bunch_entry(&self, a: ArrayRef, tag: u32, elem_size: u32) -> ArrayRef {
        let Some(k) = self.bunch_entries(a) else {
            return ArrayRef::EMPTY;
        };
        for e in 1..=k {
            let entry = a.offset + BUNCH_ENTRY_SIZE * e;
            if self.get::<u32>(entry) == tag {
                return self.array(entry + BUNCH_ENTRY_ARRAY_AT, elem_size, None);
            }
        }
        ArrayRef::EMPTY
    }
}

#[inline]
pub(crate) fn array_ok(a: ArrayRef, elem_size: u32, limit: Option<u32>, size: usize) -> bool {
    if a.len > a.cap {
        return false;
    }
    if let Some(limit) = limit {
        if a.len > limit {
            return false;
        }
    }
    if a.cap == 0 {
        return true;
    }
    // The block starts at the natural alignment of its elements (format.md
    // §5); a block of unknown contents (`elem_size` 0: SoA, SoA union or
    // bunch) is checked for alignment by its own reader.
    a.offset != 0
        && a.offset.is_multiple_of(natural_align(elem_size))
        && a.offset as u64 + a.cap as u64 * elem_size as u64 <= size as u64
}

/// A well-formed SoA directory (format.md §5.3) as an array sees it: the
/// column hashes and value sizes it lists, and where the array's first
/// column may start (after the block's word that points to the directory).
#[derive(Clone, Copy, Debug)]
pub struct Directory<'a> {
    /// Where the directory is.
    pub at: u32,
    /// The hash of each column, in directory (= block) order.
    pub hashes: &'a [u32],
    /// The value size of each column, in the same order.
    pub sizes: &'a [u32],
    /// The end of the block's directory word: column 0 starts at the next
    /// multiple of its natural alignment.
    pub start: u32,
}

/// Lay out the columns of an SoA block (format.md §5.3): column `k` starts
/// at the natural alignment of `sizes[k]` after the end of column `k − 1`
/// (of `start` for the first) and holds `cap` values. Calls `each(k,
/// offset)` for each and returns where the block ends; `None` as soon as
/// a column ends past `limit` (the block is then malformed, or too large
/// for a writer). In 64 bits: each step adds at most `(2^32 − 1)^2` to a
/// position checked against `limit ≤ 2^32`, so nothing wraps.
#[inline(always)]
pub(crate) fn column_layout(
    start: u32,
    cap: u32,
    sizes: &[u32],
    limit: u64,
    mut each: impl FnMut(usize, u32),
) -> Option<u64> {
    let mut pos = start as u64;
    for (k, &size) in sizes.iter().enumerate() {
        pos = align_up(pos, natural_align(size) as u64);
        if pos > limit {
            return None;
        }
        each(k, pos as u32);
        pos += cap as u64 * size as u64;
    }
    (pos <= limit).then_some(pos)
}

/// What resolving the known columns of an SoA block found
/// ([`resolve`]).
pub(crate) struct Resolved {
    /// The block ends inside the limit (else `out` is meaningless).
    pub fits: bool,
    /// Every known hash is listed once, with the reader's value size: what
    /// a validator requires (format.md §5.3). A reader that does not
    /// validate takes the first entry of the reader's size instead.
    pub strict: bool,
}

/// Resolve the `wanted` columns of an SoA block with directory `dir` and
/// capacity `cap`: a directory listing exactly `wanted` (what a writer of
/// the same schema version emits) is laid out with the reader's own sizes,
/// any other in one pass over its entries. The offsets mean nothing unless
/// the block fits.
#[inline(always)]
pub(crate) fn resolve<const N: usize>(
    dir: Directory<'_>,
    cap: u32,
    limit: u64,
    wanted: &[(u32, u32); N],
) -> (Resolved, [u32; N]) {
    if !same_columns(dir, wanted) {
        let mut out = [0; N];
        let found = find_columns(dir, cap, limit, wanted, &mut out);
        return (found, out);
    }
    let strict = true;
    if let Some(plan) = ColumnPlan::of(wanted) {
        // Columns in directory order (format.md §5.3): each starts
        // `capacity × (sizes before it)` after the first, independently.
        let first = align_up(dir.start as u64, plan.first_align as u64);
        let fits = first + (cap as u64).saturating_mul(plan.total) <= limit;
        let cols = plan.prefix.map(|p| (first + cap as u64 * p as u64) as u32);
        (Resolved { fits, strict }, cols)
    } else {
        let sizes = wanted.map(|w| w.1);
        let mut cols = [0u32; N];
        let fits = column_layout(dir.start, cap, &sizes, limit, |k, col| cols[k] = col).is_some();
        (Resolved { fits, strict }, cols)
    }
}

/// Where a column list in directory order puts its columns (format.md
/// §5.3): by decreasing natural alignment, no column needs padding after
/// the first, so column `k` starts at `first + capacity × prefix[k]`.
/// Computed from a constant list, so it folds away when inlined.
struct ColumnPlan<const N: usize> {
    first_align: u32,
    prefix: [u32; N],
    total: u64,
}

impl<const N: usize> ColumnPlan<N> {
    /// `None` if the list is not in directory order (a hand-written list:
    /// its columns are then laid out one after the other).
    #[inline(always)]
    fn of(wanted: &[(u32, u32); N]) -> Option<Self> {
        let mut prefix = [0u32; N];
        let mut total = 0u64;
        let mut align = 8;
        for (k, &(_, size)) in wanted.iter().enumerate() {
            let a = natural_align(size);
            if a > align || total > u32::MAX as u64 {
                return None;
            }
            align = a;
            prefix[k] = total as u32;
            total += size as u64;
        }
        Some(ColumnPlan {
            first_align: wanted.first().map_or(1, |w| natural_align(w.1)),
            prefix,
            total,
        })
    }
}

/// The general case of [`resolve`]: one pass over the directory laying out
/// every column; the first entry of a known hash with the reader's size
/// is its column. Unknown hashes, repeated or not, are only laid out.
#[cold]
pub(crate) fn find_columns(
    dir: Directory<'_>,
    cap: u32,
    limit: u64,
    wanted: &[(u32, u32)],
    out: &mut [u32],
) -> Resolved {
    let mut strict = true;
    let fits = column_layout(dir.start, cap, dir.sizes, limit, |k, col| {
        if let Some(j) = wanted.iter().position(|w| w.0 == dir.hashes[k]) {
            let size_ok = dir.sizes[k] == wanted[j].1;
            strict &= out[j] == 0 && size_ok;
            if out[j] == 0 && size_ok {
                out[j] = col;
            }
        }
    })
    .is_some();
    Resolved { fits, strict }
}

/// Does the directory list exactly the wanted columns, with their sizes,
/// in order (what a writer of the same schema version emits)?
#[inline(always)]
fn same_columns<const N: usize>(dir: Directory<'_>, wanted: &[(u32, u32); N]) -> bool {
    let (Ok(hashes), Ok(sizes)) = (
        <&[u32; N]>::try_from(dir.hashes),
        <&[u32; N]>::try_from(dir.sizes),
    ) else {
        return false;
    };
    // `&`, not `&&`: one branch for the whole directory.
    (0..N).fold(true, |good, j| {
        good & (hashes[j] == wanted[j].0) & (sizes[j] == wanted[j].1)
    })
}

/// Reinterpret little-endian bytes as a slice of `T`.
#[inline(always)]
fn cast_slice<T: Scalar>(bytes: &[u8]) -> &[T] {
    #[cfg(not(target_endian = "little"))]
    compile_error!("native slices over messages need a little-endian target");
    let ptr = bytes.as_ptr();
    if !(ptr as usize).is_multiple_of(core::mem::align_of::<T>()) {
        // Unreachable for messages opened by `Reader::new` (8-aligned base,
        // aligned offsets); refuse rather than misread.
        return &[];
    }
    // SAFETY: `ptr` is aligned for `T`, the range is `bytes.len() / size`
    // whole values inside `bytes`, `T` is a primitive number (every bit
    // pattern valid), and the lifetime is that of `bytes`.
    unsafe { core::slice::from_raw_parts(ptr.cast::<T>(), bytes.len() / T::SIZE) }
}

/// `bytes` as a writable native slice of `T`, as [`cast_slice`].
fn cast_slice_mut<T: Scalar>(bytes: &mut [u8]) -> &mut [T] {
    let ptr = bytes.as_mut_ptr();
    if !(ptr as usize).is_multiple_of(core::mem::align_of::<T>()) {
        return &mut [];
    }
    // SAFETY: as in `cast_slice`; the slice is borrowed mutably from
    // `bytes` for its lifetime, so nothing else reads or writes it.
    unsafe { core::slice::from_raw_parts_mut(ptr.cast::<T>(), bytes.len() / T::SIZE) }
}

/// An 8-byte aligned copy of a message, for buffers of unknown alignment
/// (a reader refuses misaligned input rather than misreading it).
#[derive(Clone, Debug, Default)]
pub struct AlignedBuf {
    words: Vec<u64>,
    len: usize,
}

impl AlignedBuf {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = alloc::vec![0u64; bytes.len().div_ceil(8)];
        // SAFETY: `words` has at least `bytes.len()` initialised bytes; u8
        // has no alignment requirement.
        let dst = unsafe {
            core::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), bytes.len())
        };
        dst.copy_from_slice(bytes);
        AlignedBuf {
            words,
            len: bytes.len(),
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: as in `from_bytes`.
        unsafe { core::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `from_bytes`; we hold `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

/// In-place updates of a message: scalars of present table fields, array
/// elements, and array lengths within capacity. Every write is checked like
/// a read; a write that does not fit fails instead of touching other bytes.
pub struct ReaderMut<'a> {
    bytes: &'a mut [u8],
}

impl<'a> ReaderMut<'a> {
    pub fn new(buf: &'a mut [u8]) -> Result<Self, Error> {
        let size = open(buf)?.len();
        Ok(ReaderMut {
            bytes: &mut buf[..size],
        })
    }

    /// A checked reader over the current bytes.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            bytes: self.bytes,
            limits: Limits::default(),
            _mode: PhantomData,
        }
    }

    /// Set a scalar field of table `t` (it must be present in the message:
    /// an older message without the field cannot grow in place).
    pub fn set_field<T: Scalar>(&mut self, t: Table, offset: u32, value: T) -> Result<(), Error> {
        if !t.has(offset, T::SIZE as u32) {
            return Err(Error::MalformedTable { offset: t.offset });
        }
        let o = (t.offset + offset) as usize;
        value.write_le(&mut self.bytes[o..o + T::SIZE]);
        Ok(())
    }

    /// Set element `index` (< len) of a plain array whose reference is at
    /// `at`.
    pub fn set_element<T: Scalar>(&mut self, at: u32, index: u32, value: T) -> Result<(), Error> {
        let a = self.reader().array(at, T::SIZE as u32, None);
        if index >= a.len {
            return Err(Error::MalformedArray { offset: at });
        }
        let o = a.offset as usize + index as usize * T::SIZE;
        value.write_le(&mut self.bytes[o..o + T::SIZE]);
        Ok(())
    }

    /// Append to a plain array within its capacity.
    pub fn push<T: Scalar>(&mut self, at: u32, value: T) -> Result<(), Error> {
        let a = self.reader().array(at, T::SIZE as u32, None);
        if a.len >= a.cap {
            return Err(Error::TooLarge);
        }
        let o = a.offset as usize + a.len as usize * T::SIZE;
        value.write_le(&mut self.bytes[o..o + T::SIZE]);
        self.write_len(at, a.len + 1);
        Ok(())
    }

    /// Change the length of an array within its capacity; elements dropped
    /// by shrinking are zeroed (unused capacity is always zero).
    pub fn set_len(&mut self, at: u32, elem_size: u32, len: u32) -> Result<(), Error> {
        self.reference_in(at)?;
        let a = self.reader().array(at, elem_size, None);
        if len > a.cap || (a.cap == 0 && a.offset == 0 && self.reader().get::<u32>(at + 8) != 0) {
            return Err(Error::TooLarge);
        }
        // Both ways the elements between the old and the new length are
        // zeroed: dropped ones so that unused capacity stays zero, exposed
        // ones because a message from elsewhere may hold anything there
        // (validation does not read unused capacity, format.md §12).
        let (lo, hi) = (len.min(a.len), len.max(a.len));
        let from = a.offset as usize + (lo * elem_size) as usize;
        let to = a.offset as usize + (hi * elem_size) as usize;
        self.bytes[from..to].fill(0);
        self.write_len(at, len);
        Ok(())
    }

    /// The elements (`len` of them) of the plain array whose reference is
    /// at `at`, writable in place; empty where a checked reader sees none
    /// (a malformed reference, or a length over `limit`).
    pub fn slice_mut<T: Scalar>(&mut self, at: u32, limit: Option<u32>) -> &mut [T] {
        let a = self.reader().array(at, T::SIZE as u32, limit);
        if a.len == 0 {
            return &mut [];
        }
        let o = a.offset as usize;
        cast_slice_mut(&mut self.bytes[o..o + a.len as usize * T::SIZE])
    }

    /// Replace the UTF-8 text whose reference is at `at` by `text`, within
    /// the array's capacity and `limit` (format.md §12: a string may be
    /// rewritten within its capacity). The new bytes are written first,
    /// then the old ones past them are zeroed, then the length: a reader
    /// never sees bytes the text's author did not write.
    pub fn set_text(&mut self, at: u32, text: &str, limit: Option<u32>) -> Result<(), Error> {
        self.reference_in(at)?;
        let n = u32::try_from(text.len()).map_err(|_| Error::TooLarge)?;
        let a = self.reader().array(at, 1, None);
        let malformed = a.cap == 0 && a.offset == 0 && self.reader().get::<u32>(at + 8) != 0;
        if n > a.cap || limit.is_some_and(|l| n > l) || malformed {
            return Err(Error::TooLarge);
        }
        let o = a.offset as usize;
        self.bytes[o..o + text.len()].copy_from_slice(text.as_bytes());
        if a.len > n {
            self.bytes[o + text.len()..o + a.len as usize].fill(0);
        }
        self.write_len(at, n);
        Ok(())
    }

    /// An array reference at `at` must lie inside the message (its
    /// length is written there).
    fn reference_in(&self, at: u32) -> Result<(), Error> {
        if u64::from(at) + 12 > self.bytes.len() as u64 {
            return Err(Error::MalformedArray { offset: at });
        }
        Ok(())
    }

    fn write_len(&mut self, at: u32, len: u32) {
        let o = at as usize + 4;
        self.bytes[o..o + 4].copy_from_slice(&len.to_le_bytes());
    }
}

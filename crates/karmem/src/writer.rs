use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ptr::NonNull;

use karmem_format::{
    bunch_table_size, natural_align, soa_directory_size, BUNCH_TABLE_ALIGN, OFFSET_SIZE,
    SOA_DIRECTORY_ALIGN,
};

use crate::reader::column_layout;

use crate::{align_up, Error, Scalar, HEADER_SIZE, MAGIC, VERSION};

/// One cache line; the writer's storage unit, so the buffer is 64-byte
/// aligned (array blocks at aligned offsets are aligned in memory too).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

const ZERO_LINE: Line = Line([0; 64]);

/// A reusable output buffer for messages.
///
/// Offsets handed out by [`Writer::alloc`] are positions in the message.
/// Everything allocated is zero-filled, so padding and unused capacity are
/// zero and nothing of a previous message leaks into the next one.
///
/// The buffer is the writer's own ([`Writer::new`], it grows as needed) or
/// the caller's ([`Writer::over`]: a message is encoded straight into, say,
/// a region a WebAssembly module exported, without a copy; an allocation
/// that does not fit fails with [`Error::TooLarge`]).
///
/// Invariant: the bytes from `len` to the end of its line are zero. A line
/// is zeroed whole when the message first reaches into it (before anyone
/// writes to it), so padding and alignment gaps inside a line cost nothing
/// and no allocation zeroes byte ranges of its own: small `memset` calls
/// were a sixth of the instructions of encoding a small message.
pub struct Writer<'b> {
    /// The first of `cap` lines: `owned`'s storage, or the caller's. Kept
    /// as a pointer so that the hot paths index one slice whichever it is.
    lines: NonNull<Line>,
    cap: usize,
    /// The writer's own storage; empty over a caller's buffer (an owned
    /// writer always has at least one line).
    owned: Vec<Line>,
    len: usize,
    /// The SoA directories of the current message (format.md §5.3): one per
    /// column list, found again by the address of the caller's column list
    /// (generated code passes the same constant every time) or, failing
    /// that, by comparing the bytes written there.
    directories: Vec<(usize, u32)>,
    _buf: PhantomData<&'b mut [Line]>,
}

// SAFETY: a writer owns its lines (`owned`) or borrows them exclusively for
// `'b` (`over` takes `&'b mut [u8]`): as `Vec<Line>` and `&mut [Line]`, it
// can be sent to and shared with other threads.
unsafe impl Send for Writer<'_> {}
// SAFETY: as above; `&Writer` gives only shared reads of the lines.
unsafe impl Sync for Writer<'_> {}

impl Default for Writer<'static> {
    fn default() -> Self {
        Writer::new(1024)
    }
}

impl Writer<'static> {
    /// A writer with room for `capacity` bytes before it grows.
    pub fn new(capacity: usize) -> Self {
        let mut owned = Vec::new();
        owned.resize(capacity.div_ceil(64).max(1), ZERO_LINE);
        Writer {
            lines: NonNull::new(owned.as_mut_ptr()).expect("a Vec's pointer is not null"),
            cap: owned.len(),
            owned,
            len: 0,
            directories: Vec::new(),
            _buf: PhantomData,
        }
    }
}

impl<'b> Writer<'b> {
    /// A writer over the caller's `buf`: messages are encoded into it in
    /// place and never moved. `buf` must start at a 64-byte aligned address
    /// (else [`Error::Misaligned`]) and hold at least 64 bytes (else
    /// [`Error::TooLarge`]); whole 64-byte lines of it are used (a tail
    /// shorter than 64 bytes is not). Whatever `buf` held before is
    /// overwritten up to the end of the 64-byte line the message ends in
    /// (the rest of that line is zeroed) and left alone after it.
    pub fn over(buf: &'b mut [u8]) -> Result<Self, Error> {
        if !(buf.as_ptr() as usize).is_multiple_of(64) {
            return Err(Error::Misaligned);
        }
        let cap = buf.len() / 64;
        if cap == 0 {
            return Err(Error::TooLarge);
        }
        Ok(Writer {
            lines: NonNull::new(buf.as_mut_ptr().cast::<Line>())
                .expect("a slice's pointer is not null"),
            cap,
            owned: Vec::new(),
            len: 0,
            directories: Vec::new(),
            _buf: PhantomData,
        })
    }

    /// The writer's lines.
    #[inline(always)]
    fn lines(&mut self) -> &mut [Line] {
        // SAFETY: `lines` points to `cap` lines that this writer owns or
        // borrows exclusively for `'b` (a `Line` is 64 bytes, align 64,
        // valid for any bytes; `over` checked the alignment).
        unsafe { core::slice::from_raw_parts_mut(self.lines.as_ptr(), self.cap) }
    }

    /// Forget the current message; keep the buffer.
    #[inline]
    pub fn reset(&mut self) {
        // Line 0 is zeroed by the first allocation (an empty message
        // reaches into no line), which keeps the invariant.
        self.len = 0;
        self.directories.clear();
    }

    /// Bytes written so far (the finished message after [`Writer::finish`]).
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `lines` holds `cap * 64` initialised bytes this writer
        // owns or borrows, and `len <= cap * 64` is kept by `grow`.
        unsafe { core::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), self.len) }
    }

    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and we hold `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.lines.as_ptr().cast::<u8>(), self.len) }
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len as u32
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Start a message: reset and reserve the header. The root object must be
    /// allocated next (it lands at offset 8).
    #[inline]
    pub fn begin(&mut self) {
        self.len = 0;
        self.directories.clear();
        let header = self.alloc(HEADER_SIZE, 8).expect("8 bytes always fit");
        debug_assert_eq!(header, 0);
    }

    /// Pad to 8 bytes and fill in the header (format.md §1).
    pub fn finish(&mut self) -> Result<&[u8], Error> {
        let end = align_up(self.len as u64, 8);
        if end > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        // Up to the next multiple of 8, inside the current line: zero by
        // the invariant.
        self.grow(end as usize)?;
        let size = self.len as u32;
        let b = self.bytes_mut();
        b[0..2].copy_from_slice(&MAGIC);
        b[2] = VERSION;
        b[3] = 0;
        b[4..8].copy_from_slice(&size.to_le_bytes());
        Ok(self.bytes())
    }

    /// Reserve `size` zeroed bytes at the next multiple of `align` (a power
    /// of two); the gap before them is zeroed too. Returns their offset.
    #[inline]
    pub fn alloc(&mut self, size: u32, align: u32) -> Result<u32, Error> {
        let start = align_up(self.len as u64, align as u64);
        let end = start + size as u64;
        if end > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        let first_new = self.len.div_ceil(64);
        self.grow(end as usize)?;
        self.zero_lines(first_new, self.len.div_ceil(64));
        Ok(start as u32)
    }

    /// Extend the message to `end` bytes (an owned buffer grows by
    /// doubling; new storage is zero; a caller's buffer cannot grow).
    /// Zeroing the lines it reaches into is the caller's job, before
    /// anything is written to them.
    #[inline]
    fn grow(&mut self, end: usize) -> Result<(), Error> {
        let lines = end.div_ceil(64);
        if lines > self.cap {
            self.grow_lines(lines)?;
        }
        self.len = end;
        Ok(())
    }

    #[cold]
    fn grow_lines(&mut self, lines: usize) -> Result<(), Error> {
        if self.owned.is_empty() {
            // A caller's buffer cannot grow.
            return Err(Error::TooLarge);
        }
        let target = lines.max(self.cap * 2);
        self.owned.resize(target, ZERO_LINE);
        self.lines = NonNull::new(self.owned.as_mut_ptr()).expect("a Vec's pointer is not null");
        self.cap = self.owned.len();
        Ok(())
    }

    /// Zero lines `from..to`: one or two with plain stores (no call), more
    /// with `fill`.
    #[inline(always)]
    fn zero_lines(&mut self, from: usize, to: usize) {
        match to.saturating_sub(from) {
            0 => {}
            1 => self.lines()[from] = ZERO_LINE,
            2 => {
                let lines = self.lines();
                lines[from] = ZERO_LINE;
                lines[from + 1] = ZERO_LINE;
            }
            _ => self.lines()[from..to].fill(ZERO_LINE),
        }
    }

    /// Zero the line a block ending at `end` ends inside (nothing if it
    /// ends at a line boundary): done before the caller fills the block, it
    /// leaves the bytes after the block zero. Only for lines the message
    /// reached just now; an earlier line is zero after `len` already.
    #[inline(always)]
    fn zero_line_ending(&mut self, end: usize) {
        if !end.is_multiple_of(64) {
            self.lines()[end / 64] = ZERO_LINE;
        }
    }

    /// Like [`Writer::alloc`] for a block the caller fills completely:
    /// only the alignment gap before it is zeroed. Used for array data,
    /// which would otherwise be written twice (zeros, then values).
    #[inline]
    pub fn alloc_filled(&mut self, size: u32, align: u32) -> Result<u32, Error> {
        let start = align_up(self.len as u64, align as u64);
        let end = start + size as u64;
        if end > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        let first_new = self.len.div_ceil(64);
        self.grow(end as usize)?;
        // The gap: new lines before the block and the one it starts in
        // (the block's part of that is overwritten by the caller). With
        // alignments up to 64 there are none: the block starts in the
        // current line or at the next line boundary.
        self.zero_lines(first_new, (start as usize).div_ceil(64));
        if self.len / 64 >= first_new {
            self.zero_line_ending(self.len);
        }
        Ok(start as u32)
    }

    /// Reserve an array data block of `count` elements of `elem_size` bytes,
    /// at the natural alignment of the element size ([`natural_align`],
    /// format.md §5). An empty array has no block: returns 0.
    #[inline]
    pub fn alloc_array(&mut self, count: usize, elem_size: u32) -> Result<u32, Error> {
        if count == 0 {
            return Ok(0);
        }
        let bytes = (count as u64) * elem_size as u64;
        if bytes > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        self.alloc(bytes as u32, natural_align(elem_size))
    }

    #[inline(always)]
    pub fn put<T: Scalar>(&mut self, offset: u32, value: T) {
        let o = offset as usize;
        value.write_le(&mut self.bytes_mut()[o..o + T::SIZE]);
    }

    #[inline(always)]
    pub fn put_bool(&mut self, offset: u32, value: bool) {
        self.bytes_mut()[offset as usize] = value as u8;
    }

    #[inline]
    pub fn put_bytes(&mut self, offset: u32, bytes: &[u8]) {
        let o = offset as usize;
        self.bytes_mut()[o..o + bytes.len()].copy_from_slice(bytes);
    }

    /// Copy a slice of scalars as little-endian values.
    #[inline]
    pub fn put_slice<T: Scalar>(&mut self, offset: u32, values: &[T]) {
        let o = offset as usize;
        let out = &mut self.bytes_mut()[o..o + values.len() * T::SIZE];
        if cfg!(target_endian = "little") {
            // SAFETY: `T` is a primitive number (sealed `Scalar`), so its
            // in-memory bytes on a little-endian target are its encoding.
            let src = unsafe {
                core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len() * T::SIZE)
            };
            out.copy_from_slice(src);
        } else {
            for (chunk, v) in out.chunks_exact_mut(T::SIZE).zip(values) {
                v.write_le(chunk);
            }
        }
    }

    /// Write the 12-byte array reference at `at`.
    #[inline(always)]
    pub fn put_array_ref(&mut self, at: u32, offset: u32, len: u32, cap: u32) {
        let o = at as usize;
        let b = &mut self.bytes_mut()[o..o + 12];
        b[0..4].copy_from_slice(&offset.to_le_bytes());
        b[4..8].copy_from_slice(&len.to_le_bytes());
        b[8..12].copy_from_slice(&cap.to_le_bytes());
    }

    /// Reserve an array block that the caller fills completely (see
    /// [`Writer::alloc_filled`]); 0 for an empty array.
    #[inline]
    pub fn alloc_array_filled(&mut self, count: usize, elem_size: u32) -> Result<u32, Error> {
        if count == 0 {
            return Ok(0);
        }
        let bytes = (count as u64) * elem_size as u64;
        if bytes > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        self.alloc_filled(bytes as u32, natural_align(elem_size))
    }

    /// A plain array of scalars: block + reference at `at`.
    #[inline]
    pub fn write_slice<T: Scalar>(&mut self, at: u32, values: &[T]) -> Result<(), Error> {
        let offset = self.alloc_array_filled(values.len(), T::SIZE as u32)?;
        if offset != 0 {
            self.put_slice(offset, values);
        }
        let n = values.len() as u32;
        self.put_array_ref(at, offset, n, n);
        Ok(())
    }

    /// Text or bytes: block + reference at `at`.
    #[inline]
    pub fn write_bytes(&mut self, at: u32, bytes: &[u8]) -> Result<(), Error> {
        let offset = self.alloc_array_filled(bytes.len(), 1)?;
        if offset != 0 {
            self.put_bytes(offset, bytes);
        }
        let n = bytes.len() as u32;
        self.put_array_ref(at, offset, n, n);
        Ok(())
    }

    /// An SoA array of `count` elements (format.md §5.3): its block — the
    /// offset of the directory of its column list, then one column per
    /// `(hash, size)` in the given order, each at the natural alignment of
    /// its size. The directory is written right before the block the first
    /// time the message has an SoA array of this column list; later arrays
    /// refer to it. Writes the reference at `at` and the column offsets
    /// into `columns_out` (same order); returns the block's offset (0 for
    /// an empty array). Columns marked in `filled` are not zeroed: the
    /// caller writes every value of them.
    #[inline]
    pub fn write_soa<const N: usize>(
        &mut self,
        at: u32,
        count: usize,
        columns: &[(u32, u32); N],
        filled: &[bool; N],
        columns_out: &mut [u32; N],
    ) -> Result<u32, Error> {
        if count == 0 {
            self.put_array_ref(at, 0, 0, 0);
            columns_out.iter_mut().for_each(|c| *c = 0);
            return Ok(0);
        }
        let directory = match self.find_directory(columns) {
            Some(d) => d,
            None => self.write_directory(columns)?,
        };
        // The whole block is laid out first and the buffer grows once, and
        // the column count is a constant of the generated caller: a small
        // array (a monster's weapons) used to pay one growth check and one
        // bounds-checked write per column (RATIONALE R4.4).
        // The columns where readers will look for them: the readers' own
        // layout rule (format.md §5.3), bounded by the largest message.
        let block = align_up(self.len as u64, SOA_DIRECTORY_ALIGN as u64);
        let (Ok(cap), Ok(start)) = (
            u32::try_from(count),
            u32::try_from(block + OFFSET_SIZE as u64),
        ) else {
            return Err(Error::TooLarge);
        };
        let sizes = columns.map(|c| c.1);
        let end = column_layout(start, cap, &sizes, u32::MAX as u64, |k, col| {
            columns_out[k] = col
        })
        .ok_or(Error::TooLarge)?;
        // Every line the array reaches into for the first time is zeroed
        // before anything is written, except the lines that lie wholly
        // inside a column the caller fills (they would be written twice):
        // the gaps, the columns the caller does not fill and the rest of
        // the last line are then zero.
        let first_new = self.len.div_ceil(64);
        self.grow(end as usize)?;
        let mut next = first_new;
        for (k, ((_, size), col)) in columns.iter().zip(columns_out.iter()).enumerate() {
            if !filled[k] {
                continue;
            }
            let (start, stop) = (*col as usize, *col as usize + count * *size as usize);
            let (inner_from, inner_to) = (start.div_ceil(64), stop / 64);
            if inner_to > inner_from && inner_from >= next {
                self.zero_lines(next, inner_from);
                next = inner_to;
            }
        }
        self.zero_lines(next, self.len.div_ceil(64));
        self.put::<u32>(block as u32, directory);
        let n = count as u32;
        self.put_array_ref(at, block as u32, n, n);
        Ok(block as u32)
    }

    /// The directory of this column list written earlier in the message.
    #[inline]
    fn find_directory<const N: usize>(&self, columns: &[(u32, u32); N]) -> Option<u32> {
        let bytes = self.bytes();
        // Whether the directory at `d` lists exactly `columns`: one slice,
        // one bounds check.
        let lists = |d: u32| {
            let Some(dir) = bytes.get(d as usize..d as usize + 4 * (2 * N + 1)) else {
                return false;
            };
            let word = |i: usize| u32::from_le_bytes(dir[4 * i..4 * i + 4].try_into().unwrap());
            word(0) == N as u32
                && columns
                    .iter()
                    .enumerate()
                    .all(|(k, &(hash, size))| word(1 + k) == hash && word(1 + N + k) == size)
        };
        // The directory written for the same column list object before (the
        // generated caller passes one constant every time) is checked
        // first: one comparison instead of a scan. Its contents are compared
        // all the same, as the address of a caller's local array may be
        // reused for other columns.
        let key = columns.as_ptr() as usize;
        if let Some(&(_, d)) = self.directories.iter().find(|(k, _)| *k == key) {
            if lists(d) {
                return Some(d);
            }
        }
        self.directories.iter().map(|&(_, d)| d).find(|&d| lists(d))
    }

    /// Write the directory of a column list (`n`, the hashes, the sizes)
    /// and remember it for the rest of the message.
    #[cold]
    fn write_directory<const N: usize>(&mut self, columns: &[(u32, u32); N]) -> Result<u32, Error> {
        let size = soa_directory_size(N as u64);
        if size > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        let d = self.alloc(size as u32, SOA_DIRECTORY_ALIGN)?;
        // One bounds check for the whole directory: `n`, hashes, sizes.
        let out = &mut self.bytes_mut()[d as usize..][..size as usize];
        out[..4].copy_from_slice(&(N as u32).to_le_bytes());
        let (hashes, sizes) = out[4..].split_at_mut(4 * N);
        for ((&(hash, value_size), h), z) in columns
            .iter()
            .zip(hashes.chunks_exact_mut(4))
            .zip(sizes.chunks_exact_mut(4))
        {
            h.copy_from_slice(&hash.to_le_bytes());
            z.copy_from_slice(&value_size.to_le_bytes());
        }
        self.directories.push((columns.as_ptr() as usize, d));
        Ok(d)
    }

    /// A bunch table of `entries` entries (format.md §7.1), its count
    /// written, its entries zero for the caller to fill; returns its offset.
    #[inline]
    pub fn write_bunch_table(&mut self, entries: u32) -> Result<u32, Error> {
        let size = bunch_table_size(entries as u64);
        if size > u32::MAX as u64 {
            return Err(Error::TooLarge);
        }
        let table = self.alloc(size as u32, BUNCH_TABLE_ALIGN)?;
        self.put::<u32>(table, entries);
        Ok(table)
    }

    /// An SoA array of elements made of `K` 4-byte numbers, one column
    /// each (`columns[k].1 == 4`): like [`Writer::write_soa`], then fills
    /// the columns from `words`, the elements one after another with their
    /// `K` numbers in column order as native `u32` words (how a `#[repr(C)]`
    /// struct of `K` such fields lies in memory). Four elements at a time
    /// are transposed in registers (RATIONALE R4.4).
    pub fn write_soa_words<const K: usize>(
        &mut self,
        at: u32,
        words: &[u32],
        columns: &[(u32, u32); K],
    ) -> Result<(), Error> {
        debug_assert!(columns.iter().all(|c| c.1 == 4));
        let count = words.len() / K;
        let mut cols = [0u32; K];
        self.write_soa(at, count, columns, &[true; K], &mut cols)?;
        if count == 0 {
            return Ok(());
        }
        // Within u32: write_soa allocated every column.
        let bytes = 4 * count as u32;
        let parts = self.slices_mut(cols.map(|c| (c, bytes)));
        crate::transpose::split_words(&words[..count * K], parts);
        Ok(())
    }

    /// Several earlier allocations at once, as disjoint mutable byte slices
    /// (`(offset, len)` each, in increasing offset order, not overlapping),
    /// so that generated code fills all SoA columns of an array in one pass
    /// over its elements. Zero-length parts give empty slices.
    ///
    /// # Panics
    /// If the parts are out of order, overlap or lie outside the message
    /// (only generated code calls this, with its own allocations).
    #[inline]
    pub fn slices_mut<const N: usize>(&mut self, parts: [(u32, u32); N]) -> [&mut [u8]; N] {
        // Check every part first, then cut them all from one pointer: the
        // split-as-you-go version cost about 170 instructions for three
        // columns, a visible share of encoding a small message.
        let mut end = 0u64;
        for (offset, len) in parts {
            if len == 0 {
                continue;
            }
            let start = offset as u64;
            assert!(
                start >= end,
                "slices_mut: parts out of order or overlapping"
            );
            end = start + len as u64;
        }
        assert!(
            end <= self.len as u64,
            "slices_mut: part outside the message"
        );
        let base = self.lines.as_ptr().cast::<u8>();
        parts.map(|(offset, len)| {
            if len == 0 {
                return &mut [][..];
            }
            // SAFETY: the parts are inside the message (checked above:
            // the last non-empty part ends at `end <= len`, and they are in
            // increasing order) and pairwise disjoint, so these are
            // distinct borrows of bytes `&mut self` owns, for its lifetime.
            unsafe { core::slice::from_raw_parts_mut(base.add(offset as usize), len as usize) }
        })
    }

    /// The bytes of an earlier allocation, for generated code that fills a
    /// block in place.
    #[inline]
    pub fn slice_mut(&mut self, offset: u32, len: u32) -> &mut [u8] {
        let o = offset as usize;
        &mut self.bytes_mut()[o..o + len as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_is_64_aligned_and_zeroed_after_reuse() {
        let mut w = Writer::new(16);
        w.begin();
        let a = w.alloc(100, 8).unwrap();
        w.slice_mut(a, 100).fill(0xAB);
        w.finish().unwrap();
        assert_eq!(w.bytes().as_ptr() as usize % 64, 0);
        w.begin();
        let b = w.alloc(3, 1).unwrap();
        let c = w.alloc(4, 64).unwrap();
        assert_eq!((b, c), (8, 64));
        assert!(
            w.bytes()[8..68].iter().all(|&x| x == 0),
            "stale bytes leaked"
        );
        let msg = w.finish().unwrap();
        assert_eq!(&msg[..8], &[b'K', b'M', VERSION, 0, 72, 0, 0, 0]);
    }

    #[test]
    fn slices_mut_gives_disjoint_parts() {
        let mut w = Writer::new(0);
        w.begin();
        let a = w.alloc(8, 8).unwrap();
        let b = w.alloc(4, 64).unwrap();
        let [pa, empty, pb] = w.slices_mut([(a, 8), (0, 0), (b, 4)]);
        assert_eq!((pa.len(), empty.len(), pb.len()), (8, 0, 4));
        pa.fill(1);
        pb.fill(2);
        assert_eq!(&w.bytes()[a as usize..][..8], &[1; 8]);
        assert_eq!(&w.bytes()[b as usize..][..4], &[2; 4]);
        assert!(w.bytes()[a as usize + 8..b as usize]
            .iter()
            .all(|x| *x == 0));
    }

    /// Two parts of a message whose last allocation is 16 bytes at `a`
    /// (storage reaches well past the message).
    fn cut_two(parts: impl FnOnce(u32) -> [(u32, u32); 2]) {
        let mut w = Writer::new(4096);
        w.begin();
        let a = w.alloc(16, 8).unwrap();
        let _ = w.slices_mut(parts(a));
    }

    #[test]
    #[should_panic]
    fn slices_mut_refuses_overlaps() {
        cut_two(|a| [(a, 8), (a + 4, 8)]);
    }

    #[test]
    #[should_panic]
    fn slices_mut_refuses_parts_outside_the_message() {
        cut_two(|a| [(a, 8), (a + 8, 9)]);
    }

    #[test]
    #[should_panic]
    fn slices_mut_refuses_parts_out_of_order() {
        cut_two(|a| [(a + 8, 8), (a, 8)]);
    }

    #[test]
    fn soa_directory_layout() {
        let mut w = Writer::new(0);
        w.begin();
        let at = w.alloc(12, 4).unwrap();
        let mut cols = [0u32; 2];
        let dir = w
            .write_soa(at, 3, &[(0x11, 4), (0x22, 1)], &[false, false], &mut cols)
            .unwrap();
        // The reference ends at 20: the directory (4-aligned) starts there
        // and takes 4 × (2 × 2 + 1) = 20 bytes (n, hashes, sizes); the block
        // follows at 40 with the directory's offset, then each column at
        // the natural alignment of its size (4, then 1).
        assert_eq!(dir, 40);
        assert_eq!(cols, [44, 56]);
        let b = w.bytes();
        assert_eq!(
            &b[20..40],
            &[2, 0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0]
        );
        assert_eq!(&b[40..44], &[20, 0, 0, 0]);
        assert_eq!(&b[8..20], &[40, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0]);
        // A second array of the same column list refers to the directory.
        let at2 = w.alloc(12, 4).unwrap();
        let block = w
            .write_soa(at2, 1, &[(0x11, 4), (0x22, 1)], &[false, false], &mut cols)
            .unwrap();
        assert_eq!(&w.bytes()[block as usize..][..4], &[20, 0, 0, 0]);
        assert_eq!(cols, [block + 4, block + 8]);
    }

    /// Directories are shared by column list, whatever object the caller
    /// passes: equal lists at two addresses share one, and one array whose
    /// contents change between calls (same address) gets two.
    #[test]
    fn directories_are_found_by_contents() {
        let mut w = Writer::new(0);
        w.begin();
        let at = w.alloc(12 * 4, 4).unwrap();
        let dir = |w: &Writer, block: u32| {
            u32::from_le_bytes(w.bytes()[block as usize..][..4].try_into().unwrap())
        };
        let mut cols = [(0x11u32, 4u32), (0x22, 1)];
        let copy = cols;
        let mut out = [0u32; 2];
        let a = w.write_soa(at, 2, &cols, &[false; 2], &mut out).unwrap();
        let b = w
            .write_soa(at + 12, 2, &copy, &[false; 2], &mut out)
            .unwrap();
        assert_eq!(dir(&w, a), dir(&w, b), "equal lists share a directory");
        cols[1] = (0x33, 2);
        let c = w
            .write_soa(at + 24, 2, &cols, &[false; 2], &mut out)
            .unwrap();
        assert_ne!(dir(&w, a), dir(&w, c), "a changed list gets its own");
        let d = w
            .write_soa(at + 36, 2, &cols, &[false; 2], &mut out)
            .unwrap();
        assert_eq!(dir(&w, c), dir(&w, d));
    }

    /// Every byte of an SoA array that its caller does not write (the
    /// gap before the directory, the directory's padding, unfilled columns
    /// and the padding between columns) is zero, even in a writer whose
    /// buffer holds an earlier message full of other bytes.
    #[test]
    fn soa_array_bytes_do_not_depend_on_buffer_history() {
        // Short columns share lines; long ones have whole lines of their
        // own, which the writer does not zero first when they are filled.
        for count in [5u32, 3, 100, 37] {
            let message = |w: &mut Writer| -> Vec<u8> {
                w.begin();
                let at = w.alloc(13, 1).unwrap();
                let columns = [(0x11, 4), (0x22, 1), (0x33, 8), (0x44, 2)];
                let filled = [true, false, true, false];
                let mut cols = [0u32; 4];
                w.write_soa(at, count as usize, &columns, &filled, &mut cols)
                    .unwrap();
                w.slice_mut(cols[0], 4 * count).fill(0x5A);
                w.slice_mut(cols[2], 8 * count).fill(0xA5);
                w.finish().unwrap().to_vec()
            };
            let fresh = message(&mut Writer::new(0));
            let mut dirty = Writer::new(0);
            dirty.begin();
            let all = dirty.alloc(4096, 8).unwrap();
            dirty.slice_mut(all, 4096).fill(0xFF);
            assert_eq!(message(&mut dirty), fresh, "{count} elements");
            let set = fresh.iter().filter(|&&b| b == 0x5A || b == 0xA5).count();
            assert_eq!(set, 12 * count as usize, "{count} elements");
        }
    }
}

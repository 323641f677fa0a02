//! The global allocator for wasm32: power-of-two size classes from 16 bytes
//! to 32 KiB carved out of 64 KiB pages, and runs of whole pages for larger
//! blocks (windows, big messages). Free blocks go back to per-class lists;
//! free page runs to a list sorted by address, merged with their free
//! neighbours, so that a guest serving many calls with messages of varying
//! sizes reuses its memory instead of growing it (RATIONALE R9.5: without
//! merging, runs split by smaller requests never served larger ones again,
//! and the integrity suite's Rust guest hit its 64 MiB limit after ~600
//! seeds). wasm32 instances are single-threaded and memory never shrinks.
//!
//! Blocks of class `c` are aligned to `c` (pages are 64 KiB aligned and are
//! cut into equal blocks), so any alignment up to the class size holds;
//! page runs are 64 KiB aligned, which covers the windows' alignment.
//!
//! The bookkeeping is written against [`Pages`], the source of fresh pages:
//! `memory.grow` in a guest, a buffer in the unit tests below, which run on
//! the host.

use core::alloc::Layout;
use core::ptr::null_mut;

pub const PAGE: usize = 65536;
const MIN_CLASS: u32 = 4; // 16 bytes
const MAX_CLASS: u32 = 15; // 32 KiB
const CLASSES: usize = (MAX_CLASS - MIN_CLASS + 1) as usize;

/// Where fresh pages come from: appended at the end of the memory.
pub trait Pages {
    /// The end of the memory (the address right after its last page).
    fn end(&self) -> usize;
    /// Appends `pages` pages and returns their start, or null.
    fn grow(&mut self, pages: usize) -> *mut u8;
}

/// A free block (small) or page run (large), linked through its own bytes.
struct Free {
    next: *mut Free,
    /// Pages in the run (page runs only).
    pages: usize,
}

pub struct State {
    classes: [*mut Free; CLASSES],
    /// Per class, the part of its newest page not handed out yet (next,
    /// end): blocks are taken from it one at a time, so a page is touched
    /// only as far as it is used. Cutting a whole page into a free list at
    /// once wrote a link into every block: 64 KiB touched per size class a
    /// module ever used, ≈ 480 KiB at a Rust echo guest's start-up, each
    /// page then faulted in and, in a pool, reset for the next instance
    /// (docs/benchmarks.md, "Instances from a pool of slots").
    fresh: [(usize, usize); CLASSES],
    /// Free page runs, sorted by address, no two adjacent.
    runs: *mut Free,
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

impl State {
    pub const fn new() -> State {
        State {
            classes: [null_mut(); CLASSES],
            fresh: [(0, 0); CLASSES],
            runs: null_mut(),
        }
    }

    /// A block for `layout`, or null.
    ///
    /// # Safety
    /// `pages` must be the source every earlier block of this state came
    /// from, and the state's lists must be intact (blocks freed once, with
    /// their own layout).
    pub unsafe fn alloc(&mut self, layout: Layout, pages: &mut impl Pages) -> *mut u8 {
        if layout.align() > PAGE {
            return null_mut();
        }
        match class(&layout) {
            Some(c) => unsafe { self.alloc_small(c, pages) },
            None => unsafe { self.alloc_pages(layout.size().div_ceil(PAGE), pages) },
        }
    }

    /// Frees a block `alloc` returned for `layout`.
    ///
    /// # Safety
    /// As for [`State::alloc`]; `ptr` is live and was allocated with `layout`.
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, layout: Layout) {
        match class(&layout) {
            Some(c) => {
                let slot = &mut self.classes[(c - MIN_CLASS) as usize];
                let b = ptr.cast::<Free>();
                unsafe {
                    b.write(Free {
                        next: *slot,
                        pages: 0,
                    })
                };
                *slot = b;
            }
            None => unsafe { self.free_pages(ptr, layout.size().div_ceil(PAGE)) },
        }
    }

    unsafe fn alloc_small(&mut self, class: u32, pages: &mut impl Pages) -> *mut u8 {
        let slot = (class - MIN_CLASS) as usize;
        let b = self.classes[slot];
        if !b.is_null() {
            self.classes[slot] = unsafe { (*b).next };
            return b.cast();
        }
        let size = 1usize << class;
        let (next, end) = self.fresh[slot];
        if next < end {
            self.fresh[slot].0 = next + size;
            return next as *mut u8;
        }
        // A new page for this class: its first block now, the rest as asked.
        let page = unsafe { self.alloc_pages(1, pages) };
        if page.is_null() {
            return null_mut();
        }
        self.fresh[slot] = (page as usize + size, page as usize + PAGE);
        page
    }

    /// First fit over the sorted runs; a larger run gives its tail, so its
    /// place in the list stays right. With no fit, the memory grows; when
    /// the last free run ends where the memory ends, it grows only by what
    /// that run lacks.
    unsafe fn alloc_pages(&mut self, want: usize, pages: &mut impl Pages) -> *mut u8 {
        let mut link: *mut *mut Free = &mut self.runs;
        let mut last: *mut *mut Free = null_mut();
        while !unsafe { *link }.is_null() {
            let run = unsafe { *link };
            let have = unsafe { (*run).pages };
            if have == want {
                unsafe { *link = (*run).next };
                return run.cast();
            }
            if have > want {
                unsafe { (*run).pages = have - want };
                return unsafe { run.cast::<u8>().add((have - want) * PAGE) };
            }
            last = link;
            link = unsafe { &mut (*run).next };
        }
        if !last.is_null() {
            let run = unsafe { *last };
            let have = unsafe { (*run).pages };
            if run as usize + have * PAGE == pages.end() {
                if pages.grow(want - have).is_null() {
                    return null_mut();
                }
                unsafe { *last = null_mut() };
                return run.cast();
            }
        }
        pages.grow(want)
    }

    /// Puts a run back in address order, merged with a free neighbour on
    /// either side.
    unsafe fn free_pages(&mut self, ptr: *mut u8, count: usize) {
        let start = ptr as usize;
        let mut prev: *mut Free = null_mut();
        let mut next = self.runs;
        while !next.is_null() && (next as usize) < start {
            prev = next;
            next = unsafe { (*next).next };
        }
        let run = ptr.cast::<Free>();
        unsafe { run.write(Free { next, pages: count }) };
        if !next.is_null() && start + count * PAGE == next as usize {
            unsafe {
                (*run).pages += (*next).pages;
                (*run).next = (*next).next;
            }
        }
        if prev.is_null() {
            self.runs = run;
        } else if prev as usize + unsafe { (*prev).pages } * PAGE == start {
            unsafe {
                (*prev).pages += (*run).pages;
                (*prev).next = (*run).next;
            }
        } else {
            unsafe { (*prev).next = run };
        }
    }

    /// The free page runs, as (start, pages), in address order.
    #[cfg(test)]
    fn runs(&self) -> std::vec::Vec<(usize, usize)> {
        let mut out = std::vec::Vec::new();
        let mut run = self.runs;
        while !run.is_null() {
            out.push((run as usize, unsafe { (*run).pages }));
            run = unsafe { (*run).next };
        }
        out
    }
}

/// The class of a small layout, or `None` for a page run.
fn class(layout: &Layout) -> Option<u32> {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    let bits = usize::BITS - (size - 1).leading_zeros();
    (bits <= MAX_CLASS).then_some(bits)
}

#[cfg(all(target_arch = "wasm32", not(test)))]
mod global {
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::UnsafeCell;
    use core::ptr::null_mut;

    use super::{Pages, State, PAGE};

    /// The module's linear memory 0.
    struct Memory;

    impl Pages for Memory {
        fn end(&self) -> usize {
            core::arch::wasm32::memory_size(0) * PAGE
        }

        fn grow(&mut self, pages: usize) -> *mut u8 {
            let old = core::arch::wasm32::memory_grow(0, pages);
            if old == usize::MAX {
                null_mut()
            } else {
                (old * PAGE) as *mut u8
            }
        }
    }

    pub struct Heap(UnsafeCell<State>);

    // SAFETY: wasm32 guests are single-threaded (abi.md §1: no shared memory).
    unsafe impl Sync for Heap {}

    #[global_allocator]
    static HEAP: Heap = Heap(UnsafeCell::new(State::new()));

    unsafe impl GlobalAlloc for Heap {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: single-threaded; no reference into the state outlives
            // this call.
            unsafe { (*self.0.get()).alloc(layout, &mut Memory) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { (*self.0.get()).dealloc(ptr, layout) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// A memory of at most `limit` pages inside a host buffer, page
    /// aligned, grown from the front like a wasm32 memory.
    struct Buffer {
        _raw: Vec<u8>,
        base: usize,
        used: usize,
        limit: usize,
    }

    impl Buffer {
        fn new(limit: usize) -> Buffer {
            let mut raw = vec![0u8; (limit + 1) * PAGE];
            let base = (raw.as_mut_ptr() as usize).next_multiple_of(PAGE);
            Buffer {
                _raw: raw,
                base,
                used: 0,
                limit,
            }
        }
    }

    impl Pages for Buffer {
        fn end(&self) -> usize {
            self.base + self.used * PAGE
        }

        fn grow(&mut self, pages: usize) -> *mut u8 {
            if self.used + pages > self.limit {
                return null_mut();
            }
            let start = self.end();
            self.used += pages;
            start as *mut u8
        }
    }

    fn pages(n: usize) -> Layout {
        Layout::from_size_align(n * PAGE, 8).unwrap()
    }

    #[test]
    fn freed_neighbours_merge_in_any_order() {
        for order in [
            [0, 1, 2],
            [2, 1, 0],
            [1, 0, 2],
            [0, 2, 1],
            [2, 0, 1],
            [1, 2, 0],
        ] {
            let mut mem = Buffer::new(16);
            let mut heap = State::new();
            let blocks: Vec<_> = (1..=3)
                .map(|n| (unsafe { heap.alloc(pages(n), &mut mem) }, n))
                .collect();
            assert!(blocks.iter().all(|(p, _)| !p.is_null()));
            for k in order {
                let (p, n) = blocks[k];
                unsafe { heap.dealloc(p, pages(n)) };
            }
            assert_eq!(heap.runs(), [(mem.base, 6)], "order {order:?}");
            let again = unsafe { heap.alloc(pages(6), &mut mem) };
            assert_eq!(again as usize, mem.base);
            assert_eq!(mem.used, 6, "six free pages in a row serve six");
        }
    }

    #[test]
    fn the_last_free_run_grows_in_place() {
        let mut mem = Buffer::new(16);
        let mut heap = State::new();
        let a = unsafe { heap.alloc(pages(1), &mut mem) };
        let b = unsafe { heap.alloc(pages(2), &mut mem) };
        unsafe { heap.dealloc(b, pages(2)) };
        let c = unsafe { heap.alloc(pages(3), &mut mem) };
        assert_eq!(c, b, "the free tail is extended, not left behind");
        assert_eq!(mem.used, 4);
        assert!(!a.is_null());
    }

    #[test]
    fn a_larger_run_gives_its_tail() {
        let mut mem = Buffer::new(16);
        let mut heap = State::new();
        let a = unsafe { heap.alloc(pages(4), &mut mem) };
        let _guard = unsafe { heap.alloc(pages(1), &mut mem) };
        unsafe { heap.dealloc(a, pages(4)) };
        let b = unsafe { heap.alloc(pages(1), &mut mem) };
        assert_eq!(b as usize, a as usize + 3 * PAGE);
        assert_eq!(heap.runs(), [(a as usize, 3)]);
    }

    /// Messages of varying sizes, a few alive at a time, as a guest serving
    /// calls sees them (vectors doubling, answers, copies): the memory
    /// stays within a small multiple of what is alive at once. Without
    /// merging, this workload runs out of its 64 pages.
    #[test]
    fn varying_sizes_reuse_memory() {
        let mut mem = Buffer::new(64);
        let mut heap = State::new();
        let mut live: Vec<(*mut u8, Layout)> = Vec::new();
        let mut x: u64 = 7;
        for _ in 0..20_000 {
            // xorshift: sizes of 1 to 6 pages, up to 4 blocks alive.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let layout = pages(1 + (x % 6) as usize);
            if live.len() == 4 {
                let (p, l) = live.remove((x >> 8) as usize % 4);
                unsafe { heap.dealloc(p, l) };
            }
            let p = unsafe { heap.alloc(layout, &mut mem) };
            assert!(!p.is_null(), "out of memory with {} pages", mem.used);
            live.push((p, layout));
        }
        assert!(mem.used <= 48, "{} pages for at most 24 alive", mem.used);
    }

    #[test]
    fn small_blocks_come_from_pages_and_return_to_their_class() {
        let mut mem = Buffer::new(4);
        let mut heap = State::new();
        let layout = Layout::from_size_align(100, 8).unwrap();
        let a = unsafe { heap.alloc(layout, &mut mem) };
        let b = unsafe { heap.alloc(layout, &mut mem) };
        assert_eq!(a as usize % 128, 0);
        assert_ne!(a, b);
        unsafe { heap.dealloc(a, layout) };
        assert_eq!(unsafe { heap.alloc(layout, &mut mem) }, a);
        assert_eq!(mem.used, 1);
        let over = Layout::from_size_align(8, 2 * PAGE).unwrap();
        assert!(unsafe { heap.alloc(over, &mut mem) }.is_null());
    }

    /// A class's page is handed out block by block, in address order: the
    /// part not asked for yet is never written (so never faulted in), and
    /// a page of every class is used to its end before the next one.
    #[test]
    fn a_class_page_is_touched_only_as_far_as_it_is_used() {
        let mut mem = Buffer::new(4);
        // Marked, to see what the allocator writes.
        mem._raw.fill(0xAA);
        let mut heap = State::new();
        let layout = Layout::from_size_align(16, 8).unwrap();
        let first = unsafe { heap.alloc(layout, &mut mem) };
        for k in 1..3 {
            assert_eq!(
                unsafe { heap.alloc(layout, &mut mem) } as usize,
                first as usize + 16 * k
            );
        }
        let page = first as usize - mem._raw.as_ptr() as usize;
        assert!(mem._raw[page + 48..page + PAGE].iter().all(|&b| b == 0xAA));
        // Freed blocks come back first; then the page goes on where it was.
        unsafe { heap.dealloc(first, layout) };
        assert_eq!(unsafe { heap.alloc(layout, &mut mem) }, first);
        assert_eq!(
            unsafe { heap.alloc(layout, &mut mem) } as usize,
            first as usize + 48
        );
        // 4 096 blocks of 16 bytes fill the page; the next one is a new page.
        for _ in 4..PAGE / 16 {
            unsafe { heap.alloc(layout, &mut mem) };
        }
        assert_eq!(mem.used, 1);
        let next = unsafe { heap.alloc(layout, &mut mem) };
        assert_eq!(mem.used, 2);
        assert_eq!(next as usize % PAGE, 0);
    }
}

//! The global allocator for wasm32: power-of-two size classes from 16 bytes
//! to 32 KiB carved out of 64 KiB pages, and runs of whole pages for larger
//! blocks (windows, big messages). Free blocks go back to per-class lists,
//! free page runs to a first-fit list (split on reuse). Simple and correct
//! rather than clever: wasm32 instances are single-threaded, memory never
//! shrinks, and the host discards an instance that misbehaves.
//!
//! Blocks of class `c` are aligned to `c` (pages are 64 KiB aligned and are
//! cut into equal blocks), so any alignment up to the class size holds;
//! page runs are 64 KiB aligned, which covers the windows' alignment.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr::null_mut;

const PAGE: usize = 65536;
const MIN_CLASS: u32 = 4; // 16 bytes
const MAX_CLASS: u32 = 15; // 32 KiB
const CLASSES: usize = (MAX_CLASS - MIN_CLASS + 1) as usize;

/// A free block (small) or page run (large), linked through its own bytes.
struct Free {
    next: *mut Free,
    /// Pages in the run (page runs only).
    pages: usize,
}

struct State {
    classes: [*mut Free; CLASSES],
    runs: *mut Free,
}

pub struct Heap(UnsafeCell<State>);

// SAFETY: wasm32 guests are single-threaded (abi.md §1: no shared memory).
unsafe impl Sync for Heap {}

#[global_allocator]
static HEAP: Heap = Heap(UnsafeCell::new(State {
    classes: [null_mut(); CLASSES],
    runs: null_mut(),
}));

fn grow(pages: usize) -> *mut u8 {
    let old = core::arch::wasm32::memory_grow(0, pages);
    if old == usize::MAX {
        null_mut()
    } else {
        (old * PAGE) as *mut u8
    }
}

/// The class of a small layout, or `None` for a page run.
fn class(layout: &Layout) -> Option<u32> {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    let bits = usize::BITS - (size - 1).leading_zeros();
    (bits <= MAX_CLASS).then_some(bits)
}

impl State {
    unsafe fn alloc_small(&mut self, class: u32) -> *mut u8 {
        let slot = (class - MIN_CLASS) as usize;
        if self.classes[slot].is_null() {
            // Cut a fresh page into blocks of this class.
            let page = unsafe { self.alloc_pages(1) };
            if page.is_null() {
                return null_mut();
            }
            let size = 1usize << class;
            let mut at = PAGE;
            while at > 0 {
                at -= size;
                let b = unsafe { page.add(at) }.cast::<Free>();
                unsafe {
                    b.write(Free {
                        next: self.classes[slot],
                        pages: 0,
                    })
                };
                self.classes[slot] = b;
            }
        }
        let b = self.classes[slot];
        self.classes[slot] = unsafe { (*b).next };
        b.cast()
    }

    unsafe fn alloc_pages(&mut self, pages: usize) -> *mut u8 {
        let mut link: *mut *mut Free = &mut self.runs;
        while !unsafe { *link }.is_null() {
            let run = unsafe { *link };
            let have = unsafe { (*run).pages };
            if have >= pages {
                unsafe { *link = (*run).next };
                if have > pages {
                    let rest = unsafe { run.cast::<u8>().add(pages * PAGE) };
                    unsafe { self.free_pages(rest, have - pages) };
                }
                return run.cast();
            }
            link = unsafe { &mut (*run).next };
        }
        grow(pages)
    }

    unsafe fn free_pages(&mut self, ptr: *mut u8, pages: usize) {
        let run = ptr.cast::<Free>();
        unsafe {
            run.write(Free {
                next: self.runs,
                pages,
            })
        };
        self.runs = run;
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded; no reference into the state outlives
        // this call.
        let state = unsafe { &mut *self.0.get() };
        if layout.align() > PAGE {
            return null_mut();
        }
        match class(&layout) {
            Some(c) => unsafe { state.alloc_small(c) },
            None => unsafe { state.alloc_pages(layout.size().div_ceil(PAGE)) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let state = unsafe { &mut *self.0.get() };
        match class(&layout) {
            Some(c) => {
                let slot = &mut state.classes[(c - MIN_CLASS) as usize];
                let b = ptr.cast::<Free>();
                unsafe {
                    b.write(Free {
                        next: *slot,
                        pages: 0,
                    })
                };
                *slot = b;
            }
            None => unsafe { state.free_pages(ptr, layout.size().div_ceil(PAGE)) },
        }
    }
}

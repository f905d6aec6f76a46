//! A counting global allocator for the heap tests (`branch_saves_heap.rs`,
//! `saves_tapes_heap.rs`): each binary installs it with
//! `#[global_allocator] static HEAP: counting::Counting = counting::Counting;` and reads
//! [`allocations`]. It counts the allocations of the thread that turned it on only, so the test
//! harness's threads do not enter.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The counting global allocator.
pub struct Counting;

thread_local! {
    /// Whether this thread's allocations are counted, and how many there were.
    static ON: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread's locals may be gone while it exits.
    if ON.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every request goes to `System` unchanged; the counting touches no memory it hands out
// (const-initialised thread locals without destructors allocate nothing).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        System.realloc(ptr, layout, new_size)
    }
}

/// The allocations `f` makes on this thread.
pub fn allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    ON.with(|o| o.set(true));
    f();
    ON.with(|o| o.set(false));
    COUNT.with(Cell::get)
}

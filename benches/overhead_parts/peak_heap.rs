//! Peak heap bytes of one call: takes a closure, gives the largest number of heap bytes it held at
//! once above what was live when it started, and how many allocations it made. The benchmark
//! binary installs [`PeakHeap`] as its global allocator for this.
//!
//! How it is measured: `PeakHeap` forwards every request to the system allocator and, only while
//! a measurement is on (one relaxed load of a flag otherwise), adds each allocation's size to a
//! running total, subtracts each deallocation's and adds a reallocation's change, keeping the
//! running total's maximum. The window covers exactly one call made after the variant has been
//! warmed up (its own buffers, allocated when the variant was built, are outside it), so the peak
//! is what the call itself allocates and holds at once: for a generated `_vjp` its tapes (with
//! the capacity slack of `Vec` growth) plus its own `Vec` locals and their adjoint buffers; for
//! `_grad` also the gradient it returns. Sizes are the requested `Layout` sizes, not what the
//! system allocator rounds them to. The benchmark runs one thread, so other threads' allocations
//! do not enter the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

/// The counting global allocator of the benchmark binary.
pub struct PeakHeap;

static ON: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn record(change: isize, new_block: bool) {
    if ON.load(Relaxed) {
        let now = LIVE.fetch_add(change, Relaxed) + change;
        PEAK.fetch_max(now, Relaxed);
        if new_block {
            ALLOCS.fetch_add(1, Relaxed);
        }
    }
}

// SAFETY: every request goes to `System` unchanged; the counting touches no memory it hands out.
unsafe impl GlobalAlloc for PeakHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            record(layout.size() as isize, true);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            record(layout.size() as isize, true);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        record(-(layout.size() as isize), false);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            record(new_size as isize - layout.size() as isize, true);
        }
        p
    }
}

/// What one call allocated: the peak of bytes held at once above the start, and the number of
/// allocations and reallocations.
#[derive(Clone, Copy, Debug)]
pub struct HeapUse {
    pub peak_bytes: usize,
    pub allocations: usize,
}

/// Runs `run` once with the count on.
pub fn heap_use_of_one_call(run: &mut dyn FnMut() -> f64) -> HeapUse {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ALLOCS.store(0, Relaxed);
    ON.store(true, Relaxed);
    black_box(run());
    ON.store(false, Relaxed);
    HeapUse {
        peak_bytes: PEAK.load(Relaxed).max(0) as usize,
        allocations: ALLOCS.load(Relaxed),
    }
}

/// `1.6 MB`, `512 B`: bytes with a decimal unit.
pub fn format_bytes(bytes: usize) -> String {
    match bytes {
        b if b < 1_000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{:.2} MB", b as f64 / 1e6),
    }
}

//! The counting global allocator of the heap benchmarks: takes every allocation of the binary that
//! includes this file (`#[path]`, never through `overhead_parts/mod.rs`, so the timing benches
//! keep the plain allocator), gives the peak of bytes held at once and the number of allocations
//! during one call (`heap_use`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

struct PeakHeap;

#[global_allocator]
static HEAP: PeakHeap = PeakHeap;

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

/// Peak bytes held at once beyond those live before, the number of allocations and
/// reallocations, and the value, of one call of `run` with the count on.
pub fn heap_use<T>(run: impl FnOnce() -> T) -> (usize, usize, T) {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ALLOCS.store(0, Relaxed);
    ON.store(true, Relaxed);
    let out = black_box(run());
    ON.store(false, Relaxed);
    (
        PEAK.load(Relaxed).max(0) as usize,
        ALLOCS.load(Relaxed),
        out,
    )
}

/// `1.60 MB`, `512 B`: bytes with a decimal unit.
pub fn format_bytes(bytes: usize) -> String {
    match bytes {
        b if b < 1_000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{:.2} MB", b as f64 / 1e6),
    }
}

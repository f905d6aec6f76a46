//! Peak heap bytes per call of every variant of the overhead benchmark (`overhead.rs`): takes its
//! problems and variants (`overhead_parts/`), gives a table of the most heap bytes each call held
//! at once beyond what was live before it, and how many allocations it made.
//!
//! Run: `cargo bench --bench overhead_heap` (a second once built).
//!
//! How it is measured: this binary's global allocator, `PeakHeap`, forwards every request to the
//! system allocator and, only while a measurement is on, adds each allocation's size to a running
//! total, subtracts each deallocation's and adds a reallocation's change, keeping the running
//! total's maximum. The window covers exactly one call made after a first, warm-up call (the
//! variant's own buffers, allocated when it was built, are outside it), so the peak is what the
//! call itself allocates and holds at once: for a generated `_vjp` its tapes (with the capacity
//! slack of `Vec` growth) plus its own `Vec` locals and their adjoint buffers; for `_grad` also
//! the gradient it returns. Sizes are the requested `Layout` sizes, not what the system allocator
//! rounds them to. One thread runs, so no other thread's allocation enters the count.
//!
//! A binary of its own because the counting allocator changes code generation around
//! allocations: in `overhead.rs` it took the vectorisation of the hand-written spring-chain
//! adjoint's middle loop away (100 us -> 130 us a call), so the times are measured without it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

// The timing tables' helpers are not used here.
#[allow(dead_code)]
mod overhead_parts;
mod problems;

use overhead_parts::common::{print_table, small_rng, Variant};
use overhead_parts::large::for_each_problem;
use overhead_parts::small::for_each_small;

/// The counting global allocator.
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

/// What one call allocated: the peak of bytes held at once above the start, and the number of
/// allocations and reallocations.
#[derive(Clone, Copy, Debug)]
struct HeapUse {
    peak_bytes: usize,
    allocations: usize,
}

/// Runs `run` once with the count on.
fn heap_use_of_one_call(run: &mut dyn FnMut() -> f64) -> HeapUse {
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
fn format_bytes(bytes: usize) -> String {
    match bytes {
        b if b < 1_000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{:.2} MB", b as f64 / 1e6),
    }
}

/// `peak (allocations)` of one call of each variant named in `names`, after a warm-up call.
fn row(problem: &str, variants: &mut [Variant<'_>], names: &[&str]) -> Vec<String> {
    let mut cells = vec![problem.to_string()];
    for name in names {
        let cell =
            variants
                .iter_mut()
                .find(|(n, _)| n == name)
                .map_or("-".to_string(), |(_, run)| {
                    black_box(run());
                    let used = heap_use_of_one_call(&mut **run);
                    format!("{} ({})", format_bytes(used.peak_bytes), used.allocations)
                });
        cells.push(cell);
    }
    cells
}

fn main() {
    let names = [
        "primal",
        "hand_vjp",
        "generated_vjp",
        "generated_grad",
        "hand_jvp",
        "generated_jvp",
    ];
    let mut rows = Vec::new();
    for_each_problem(|problem, variants| {
        let r = row(problem, variants, &names);
        rows.push(<[String; 7]>::try_from(r).expect("seven cells"));
    });
    println!(
        "Peak heap bytes held during one call beyond those live before it (allocations made):"
    );
    print_table(
        &[
            "problem", "primal", "hand vjp", "gen vjp", "gen grad", "hand jvp", "gen jvp",
        ],
        &rows,
    );

    let names = [
        "primal",
        "hand_grad",
        "generated_vjp",
        "generated_grad",
        "num_dual",
    ];
    let mut rows = Vec::new();
    for_each_small(&mut small_rng(), |problem, variants| {
        let r = row(problem, variants, &names);
        rows.push(<[String; 6]>::try_from(r).expect("six cells"));
    });
    println!();
    println!(
        "Two-variable functions, one call = {} evaluations (allocations made):",
        overhead_parts::small::SMALL_POINTS
    );
    print_table(
        &[
            "function",
            "primal",
            "hand grad",
            "gen vjp",
            "gen grad",
            "num-dual",
        ],
        &rows,
    );
}

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

use std::hint::black_box;

// The timing tables' helpers are not used here.
#[allow(dead_code)]
mod overhead_parts;
#[path = "overhead_parts/peak_heap.rs"]
mod peak_heap;
mod problems;

use overhead_parts::common::{print_table, small_rng, Variant};
use overhead_parts::large::for_each_problem;
use overhead_parts::small::for_each_small;
use peak_heap::{format_bytes, heap_use};

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
                    let (peak_bytes, allocations, _) = heap_use(&mut **run);
                    format!("{} ({})", format_bytes(peak_bytes), allocations)
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

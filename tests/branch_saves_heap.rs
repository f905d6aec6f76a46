//! No heap allocation in reverse sweeps whose branches sit outside loops: takes functions that
//! save values inside `if`/`match` branches and call differentiated functions there with
//! references passed on bare, gives the number of allocations one `_vjp` call makes (zero),
//! counted by this binary's global allocator. `tests/branch_saves.rs` checks their values.
//!
//! A binary of its own because the counting allocator replaces the global one; it counts the
//! allocations of the thread that turned it on only, so the test harness's threads do not enter.

// Only the companions are called; the functions are written the way users write them, not the
// way clippy prefers.
#![allow(dead_code, clippy::all)]

use autodiff_runtime::differentiate;
#[path = "common/counting.rs"]
mod counting;
use counting::allocations;
use std::hint::black_box;

#[global_allocator]
static HEAP: counting::Counting = counting::Counting;

#[differentiate]
fn sin_cos_branch(x: f64) -> f64 {
    if x != 0.0 {
        let (s, c) = x.sin_cos();
        s * c
    } else {
        x
    }
}

/// Overwritten locals and a branch-local decision in nested branches and a `match`.
#[differentiate]
fn nested(x: f64, y: f64, k: usize) -> f64 {
    let mut s = x * y;
    if x > 0.0 {
        let a = s.exp() * y;
        s = s * a;
        if a > 1.0 {
            s = s * (a * x).sin() + a;
        }
        match k {
            0 => s = s * s,
            _ => {
                let c = s.tanh();
                s = c * y;
            }
        }
    }
    s * x
}

// Rodrigues' rotation with its branch, ADBench BA's (`rodrigues_rotate`).
#[path = "../benches/adbench_problems/rotation.rs"]
mod rotation;
use rotation::{
    rodrigues_rotate as rotate, rodrigues_rotate_jvp as rotate_jvp,
    rodrigues_rotate_vjp as rotate_vjp,
};

/// `r` and `y` passed on bare to a call inside a branch.
#[differentiate]
fn rotate_in_branch(r: &[f64; 3], y: &[f64; 3], w: f64) -> f64 {
    let mut out = w;
    if w > 0.0 {
        let z: [f64; 3] = rotate(r, y);
        out = z[0] * w + z[1] * z[2];
    }
    out
}

#[differentiate]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i] * b[i];
    }
    s
}

/// Slice arguments passed on bare to calls inside branches.
#[differentiate]
fn slices_in_branch(x: &[f64], y: &[f64]) -> f64 {
    let mut s = x[0];
    if s > 0.0 {
        let d = dot2(x, y);
        s = d * d.sin();
    } else {
        s = dot2(y, x) * s;
    }
    s
}

/// The counter's own check: a value saved in a loop goes on a tape, which allocates.
#[differentiate]
fn power(x: f64, n: usize) -> f64 {
    let mut s = 1.0;
    for _ in 0..n {
        s = s * x;
    }
    s
}

#[test]
fn the_counter_counts() {
    let mut dx = 0.0;
    assert!(
        allocations(|| {
            black_box(power_vjp(black_box(1.1), 8, &mut dx, 1.0));
        }) > 0
    );
}

#[test]
fn values_saved_in_branches_outside_loops_allocate_nothing() {
    let mut dx = 0.0;
    for x in [0.7, 0.0] {
        let n = allocations(|| {
            black_box(sin_cos_branch_vjp(black_box(x), &mut dx, 1.0));
        });
        assert_eq!(n, 0, "sin_cos_branch_vjp at {x}");
    }
    let (mut dx, mut dy) = (0.0, 0.0);
    for (x, y, k) in [(0.3, 0.7, 0), (0.9, 2.4, 1), (-0.5, 0.2, 0)] {
        let n = allocations(|| {
            black_box(nested_vjp(black_box(x), y, k, &mut dx, &mut dy, 1.0));
        });
        assert_eq!(n, 0, "nested_vjp at {x}, {y}, {k}");
    }
}

#[test]
fn calls_inside_branches_allocate_nothing() {
    let (mut dr, mut dy, mut dw) = ([0.0; 3], [0.0; 3], 0.0);
    for r in [[0.1, -0.2, 0.3], [0.0; 3]] {
        let y = [0.5, 0.25, -1.0];
        let n = allocations(|| {
            black_box(rotate_vjp(
                &r,
                &y,
                &mut dr,
                &mut dy,
                black_box([1.0, 0.5, 0.25]),
            ));
            black_box(rotate_in_branch_vjp(
                &r, &y, 0.5, &mut dr, &mut dy, &mut dw, 1.0,
            ));
        });
        assert_eq!(n, 0, "rotate_vjp, rotate_in_branch_vjp at {r:?}");
    }
    let (x, y) = (vec![0.5, -0.3, 0.8], vec![0.2, 0.9, -0.4]);
    let (mut gx, mut gy) = (vec![0.0; 3], vec![0.0; 3]);
    for sign in [1.0, -1.0] {
        let x: Vec<f64> = x.iter().map(|v| v * sign).collect();
        let n = allocations(|| {
            black_box(slices_in_branch_vjp(&x, &y, &mut gx, &mut gy, 1.0));
        });
        assert_eq!(n, 0, "slices_in_branch_vjp at {x:?}");
    }
}

/// A loop outside loops saving three values an iteration (two reads of the neighbours, one
/// overwritten element): one tape of tuples (three tapes before loops saved on one).
#[differentiate]
fn relax(s: &mut [f64], k: f64) {
    let n = s.len();
    for i in 1..n - 1 {
        let left = s[i - 1];
        let right = s[i + 1];
        s[i] = s[i] + k * (left + right - 2.0 * s[i]).tanh();
    }
}

#[test]
fn tapes_of_a_loop_outside_loops_are_allocated_once() {
    for n in [3, 17, 64, 1000] {
        let mut s: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
        let (mut ds, mut dk) = (vec![1.0; n], 0.0);
        let count = allocations(|| {
            relax_vjp(black_box(&mut s), 0.1, &mut ds, &mut dk);
        });
        // One tape of tuples allocated once, whatever the trip count (doubling would make
        // ~log2 n allocations; three tapes before a loop saved on one).
        assert_eq!(count, 1, "{n} elements: {count} allocations");
    }
}

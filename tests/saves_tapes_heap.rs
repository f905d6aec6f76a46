//! Allocations of loop tapes (issue 12, item 2): takes functions whose loops save several values
//! an iteration (one tape of tuples, reserved before the loop) and nested loops (the innermost
//! tape reserved at the outermost loop from the product of the trip counts), gives the number of
//! allocations one `_vjp` call makes, counted by this binary's global allocator: one, whatever
//! the trip counts. `tests/saves_tapes.rs` checks the values of the same shapes.
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
fn lv(a: f64, y: &[f64; 2]) -> [f64; 2] {
    [a * y[0] - y[0] * y[1], y[0] * y[1] - y[1]]
}

/// RK4 steps (the benchmark's shape): the state saved whole once a step, the slopes and errors
/// beside it, fifteen values a step before (one tape each), now one tuple on one tape.
#[differentiate]
fn rk_fit(a: f64, y0: &[f64; 2], steps: usize) -> f64 {
    let h = 0.05;
    let mut y = *y0;
    let mut loss = 0.0;
    for s in 0..steps {
        let k1: [f64; 2] = lv(a, &y);
        let k2: [f64; 2] = lv(a, &[y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3: [f64; 2] = lv(a, &[y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4: [f64; 2] = lv(a, &[y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        let e = y[0] * y[1] - (s as f64) * 0.01;
        loss += e * e;
    }
    loss
}

/// Three nested loops whose innermost saves the old `s` every iteration.
#[differentiate]
fn grid(alpha: f64, x: &[f64], n: usize, steps: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..steps {
        for i in 0..n {
            for j in 0..n {
                s = (s * alpha + x[i * n + j]).sin();
            }
        }
    }
    s
}

#[test]
fn the_counter_counts() {
    assert_eq!(allocations(|| drop(black_box(vec![1.0; 3]))), 1);
}

#[test]
fn a_loop_saving_fifteen_values_allocates_one_tape() {
    let (mut da, mut dy) = (0.0, [0.0; 2]);
    for steps in [1, 10, 200] {
        let n = allocations(|| {
            black_box(rk_fit_vjp(
                black_box(0.7),
                &[1.0, 0.5],
                steps,
                &mut da,
                &mut dy,
                1.0,
            ));
        });
        assert_eq!(n, 1, "rk_fit_vjp, {steps} steps");
    }
    // No step: nothing saved, nothing reserved.
    let n = allocations(|| {
        black_box(rk_fit_vjp(
            black_box(0.7),
            &[1.0, 0.5],
            0,
            &mut da,
            &mut dy,
            1.0,
        ));
    });
    assert_eq!(n, 0);
}

#[test]
fn nested_loops_reserve_their_tape_once() {
    let x: Vec<f64> = (0..64).map(|i| (i as f64 * 0.37).sin()).collect();
    let (mut da, mut dx) = (0.0, vec![0.0; 64]);
    for (n, steps) in [(1, 1), (4, 3), (8, 50)] {
        let count = allocations(|| {
            black_box(grid_vjp(
                black_box(0.9),
                &x[..n * n],
                n,
                steps,
                &mut da,
                &mut dx[..n * n],
                1.0,
            ));
        });
        // Doubling would make about log2(n * n * steps) allocations.
        assert_eq!(count, 1, "grid_vjp, n = {n}, {steps} steps");
    }
}

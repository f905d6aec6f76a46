//! What the reverse sweep keeps and how (issue 12, items 2 and 4): takes functions whose loops
//! save several values an iteration (one tape of tuples per loop body), read elements of an
//! array saved whole earlier in the same body (read from that copy, not saved again), run
//! nested loops (their tapes reserved at the outermost loop, or not where the inner bounds read
//! an outer index or the inner loop sits under a branch), and whose top-level statements compute
//! `sin`, `cos`, `exp`, `sqrt` that the reverse sweep reads (computed once by the forward sweep,
//! `sin`/`cos` by one `sin_cos`); gives their `_jvp` against central differences and their
//! `_vjp` by the dot-product test, in f64 and f32. `tests/saves_tapes_heap.rs` counts the
//! allocations of the same shapes.

// The functions under test are written the way users write them, not the way clippy prefers.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// The functions under test, in the float type `$t` (f64 and f32 below).
macro_rules! functions {
    ($m:ident, $t:ident) => {
        pub mod $m {
            use super::*;

            /// A two-species right-hand side (Lotka-Volterra shaped).
            #[differentiate]
            pub fn lv(a: $t, y: &[$t; 2]) -> [$t; 2] {
                [a * y[0] - y[0] * y[1], y[0] * y[1] - y[1]]
            }

            /// RK4 steps: `y` is saved whole for the first call, its elements read again by
            /// the later stages (from that copy), the slopes and errors saved once a step, all
            /// on one tape.
            #[differentiate]
            pub fn rk_fit(a: $t, y0: &[$t; 2], steps: usize) -> $t {
                let h = 0.05;
                let mut y = *y0;
                let mut loss = 0.0;
                for s in 0..steps {
                    let k1: [$t; 2] = lv(a, &y);
                    let k2: [$t; 2] = lv(a, &[y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
                    let k3: [$t; 2] = lv(a, &[y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
                    let k4: [$t; 2] = lv(a, &[y[0] + h * k3[0], y[1] + h * k3[1]]);
                    for i in 0..2 {
                        y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
                    }
                    let e = y[0] * y[1] - (s as $t) * 0.01;
                    loss += e * e + y[0].sin() * y[1];
                }
                loss
            }

            /// A sum of squares, called with an array the loop then overwrites.
            #[differentiate]
            pub fn sq(v: &[$t; 3]) -> $t {
                let mut s = 0.0;
                for i in 0..3 {
                    s += v[i] * v[i];
                }
                s
            }

            /// Elements of `w` (an array: never kept in restore mode) read after `w` was saved
            /// whole for a call (from that copy), then after an element write (saved again: the
            /// copy is stale), with constant indices, an argument and a loop index as the index.
            #[differentiate]
            pub fn copies(a: $t, w0: &[$t; 3], k: usize, steps: usize) -> $t {
                let mut w = *w0;
                let mut out = 0.0;
                for s in 0..steps {
                    let g = sq(&w);
                    let t = (w[1] * w[0] * g).tanh() + w[k] * w[k];
                    let u = (w[s % 3] * a).sin() * w[2];
                    w[0] = (w[0] * a + t * 0.1).tanh();
                    let z = w[0] * w[1] + u;
                    for i in 0..3 {
                        w[i] = (w[i] * 0.9 + z * 0.01 * w[i]).sin();
                    }
                    out += t + u * z;
                }
                out
            }

            /// Nested loops: the innermost tape reserved at the outermost loop (bounds read
            /// arguments only); a loop whose bounds read the outer index and a loop under a
            /// branch (not reserved, their bounds may be invalid when they do not run).
            #[differentiate]
            pub fn nested(alpha: $t, u0: &[$t], n: usize, steps: usize) -> $t {
                let mut u = u0.to_vec();
                let mut next = u0.to_vec();
                for step in 0..steps {
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            let c = u[i * n + j];
                            let lap = u[(i - 1) * n + j]
                                + u[(i + 1) * n + j]
                                + u[i * n + j - 1]
                                + u[i * n + j + 1]
                                - 4.0 * c;
                            next[i * n + j] = c + alpha * lap * c;
                        }
                    }
                    for i in 0..n {
                        for j in 0..i {
                            let p = next[i * n + j] * next[j * n + i];
                            next[i * n + j] = next[i * n + j] + 0.01 * p.sin();
                        }
                    }
                    if step % 2 == 1 {
                        for j in 0..n - 2 {
                            let q = next[j] * next[j + 1];
                            next[j] = q.tanh();
                        }
                    }
                    u.copy_from_slice(&next);
                }
                let mut loss = 0.0;
                for k in 0..n * n {
                    loss += u[k] * u[k] * (k as $t);
                }
                loss
            }

            /// `let`s in a loop that the reverse reads: costly ones (`exp`, `sin`, `tanh`)
            /// saved, their own rules reading the saved value; cheap ones (`sqrt`, products)
            /// recomputed; chains of both.
            #[differentiate]
            pub fn chains(a: $t, x: &[$t], n: usize) -> $t {
                let mut s = 0.0;
                for i in 0..n {
                    let p = x[i] * a;
                    let e = p.exp();
                    let c = (e * 0.1).sin();
                    let q = p.sqrt() * c;
                    let w = (q / e).tanh();
                    s = s + w * c + e.ln() * q;
                }
                s
            }

            /// Top-level values the reverse sweep reads: `sqrt`, `exp` (rules reading their
            /// output), `cos` and `sin` of one operand, `sin` alone, `cos` inside a call's
            /// argument and a nested `exp(cos(..))`, and a method under `&&` (left alone).
            #[differentiate]
            pub fn shared(x: $t, y: $t) -> $t {
                let r = (0.5 * (x * x + y * y)).sqrt();
                let c = 0.5 * ((2.0 * x).cos() + (3.0 * y).cos());
                let s = (2.0 * x).sin() * (3.0 * y).cos() + y.sin();
                let z: [$t; 2] = lv(x, &[x.cos(), (y * 0.5).exp()]);
                let mut out = -20.0 * (-0.2 * r).exp() - c.exp() + s * z[0] + z[1];
                if x > 0.0 && x.exp() > 1.5 {
                    out = out * (x * y).cos().exp();
                }
                out
            }
        }
    };
}

functions!(t64, f64);
functions!(t32, f32);

fn rk_harness(steps: usize) -> Harness<'static> {
    Harness::new(3)
        .primal(move |p| vec![t64::rk_fit(p[0], &[p[1], p[2]], steps)])
        .jvp(move |p, t| {
            let (v, d) = t64::rk_fit_jvp(p[0], &[p[1], p[2]], steps, t[0], &[t[1], t[2]]);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let (mut ga, mut gy) = (g[0], [g[1], g[2]]);
            let v = t64::rk_fit_vjp(p[0], &[p[1], p[2]], steps, &mut ga, &mut gy, c[0]);
            g[0] = ga;
            g[1..].copy_from_slice(&gy);
            vec![v]
        })
}

#[test]
fn rk4_steps_on_one_tape() {
    for steps in [0, 1, 7] {
        rk_harness(steps).random(6, 0.5, 1.5);
    }
}

#[test]
fn rk4_steps_on_one_tape_f32() {
    let steps = 7;
    Check32 {
        n: 3,
        primal: |p: &[f64]| {
            vec![t32::rk_fit(p[0] as f32, &[p[1] as f32, p[2] as f32], steps) as f64]
        },
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = t32::rk_fit_jvp(
                p[0] as f32,
                &[p[1] as f32, p[2] as f32],
                steps,
                t[0] as f32,
                &[t[1] as f32, t[2] as f32],
            );
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut ga, mut gy) = (g[0] as f32, [g[1] as f32, g[2] as f32]);
            let v = t32::rk_fit_vjp(
                p[0] as f32,
                &[p[1] as f32, p[2] as f32],
                steps,
                &mut ga,
                &mut gy,
                c[0] as f32,
            );
            g[0] = ga as f64;
            g[1] = gy[0] as f64;
            g[2] = gy[1] as f64;
            vec![v as f64]
        },
    }
    .random(4, 0.5, 1.5);
}

fn copies_harness(k: usize, steps: usize) -> Harness<'static> {
    use t64::{copies, copies_jvp, copies_vjp};
    Harness::new(4)
        .primal(move |p| vec![copies(p[0], &[p[1], p[2], p[3]], k, steps)])
        .jvp(move |p, t| {
            let (v, d) = copies_jvp(
                p[0],
                &[p[1], p[2], p[3]],
                k,
                steps,
                t[0],
                &[t[1], t[2], t[3]],
            );
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let (mut ga, mut gw) = (g[0], [g[1], g[2], g[3]]);
            let v = copies_vjp(p[0], &[p[1], p[2], p[3]], k, steps, &mut ga, &mut gw, c[0]);
            g[0] = ga;
            g[1..].copy_from_slice(&gw);
            vec![v]
        })
}

#[test]
fn elements_of_a_whole_copy() {
    copies_harness(2, 5).random(6, 0.5, 1.5);
    copies_harness(0, 1).random(3, -1.0, 1.0);
}

#[test]
fn elements_of_a_whole_copy_f32() {
    use t32::{copies, copies_jvp, copies_vjp};
    let (k, steps) = (1, 4);
    let w = |p: &[f64]| [p[1] as f32, p[2] as f32, p[3] as f32];
    Check32 {
        n: 4,
        primal: |p: &[f64]| vec![copies(p[0] as f32, &w(p), k, steps) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = copies_jvp(p[0] as f32, &w(p), k, steps, t[0] as f32, &w(t));
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut ga, mut gw) = (g[0] as f32, w(g));
            let v = copies_vjp(p[0] as f32, &w(p), k, steps, &mut ga, &mut gw, c[0] as f32);
            g[0] = ga as f64;
            for i in 0..3 {
                g[i + 1] = gw[i] as f64;
            }
            vec![v as f64]
        },
    }
    .random(4, 0.5, 1.5);
}

#[test]
fn nested_loops_reserved_at_the_outermost() {
    use t64::{nested, nested_jvp, nested_vjp};
    chk_xv!(nested, nested_jvp, nested_vjp; 16, 4, 3).random(3, 0.1, 1.0);
    chk_xv!(nested, nested_jvp, nested_vjp; 25, 5, 2).random(2, 0.1, 1.0);
    // `n - 2` would underflow: the loop under the branch never runs, and nothing evaluates its
    // bounds early.
    chk_xv!(nested, nested_jvp, nested_vjp; 1, 1, 1).random(2, 0.1, 1.0);
    chk_xv!(nested, nested_jvp, nested_vjp; 16, 4, 0).random(2, 0.1, 1.0);
}

#[test]
fn nested_loops_reserved_at_the_outermost_f32() {
    use t32::{nested, nested_jvp, nested_vjp};
    chk32_xv!(nested, nested_jvp, nested_vjp; 16, 4, 2).random(3, 0.1, 1.0);
    chk32_xv!(nested, nested_jvp, nested_vjp; 1, 1, 1).random(2, 0.1, 1.0);
}

#[test]
fn values_shared_between_the_sweeps() {
    use t64::{shared, shared_jvp, shared_vjp};
    chk!(shared, shared_jvp, shared_vjp; 0, 1).random(10, -2.0, 2.0);
    chk!(shared, shared_jvp, shared_vjp; 0, 1).at(&[&[0.3, -0.7], &[1.2, 0.4]]);
}

#[test]
fn values_shared_between_the_sweeps_f32() {
    use t32::{shared, shared_jvp, shared_vjp};
    chk32!(shared, shared_jvp, shared_vjp; 0, 1).random(8, -2.0, 2.0);
}

#[test]
fn costly_lets_saved_cheap_ones_recomputed() {
    use t64::{chains, chains_jvp, chains_vjp};
    chk_xv!(chains, chains_jvp, chains_vjp; 4, 4).random(6, 0.2, 1.5);
}

#[test]
fn costly_lets_saved_cheap_ones_recomputed_f32() {
    use t32::{chains, chains_jvp, chains_vjp};
    chk32_xv!(chains, chains_jvp, chains_vjp; 4, 4).random(4, 0.2, 1.5);
}

/// A right-hand side of two values, called per stage below.
#[differentiate]
fn pair_rhs(p: &[f64; 2], y: &[f64; 2]) -> [f64; 2] {
    [p[0] * y[0] * y[1], y[0] - p[1] * y[1] * y[1]]
}

/// Loops whose saves are arrays (the state copied before the first call, the stages' results)
/// together with floats: written by index into tape regions (`reverse/regions.rs`, fill
/// `[zero(); 2]`), a forward and a reversed inclusive loop.
#[differentiate]
fn array_tapes(p: &[f64; 2], y0: &[f64; 2], n: usize) -> f64 {
    let mut y = *y0;
    let mut s = 0.0;
    for k in 0..n {
        let a: [f64; 2] = pair_rhs(p, &y);
        let b: [f64; 2] = pair_rhs(p, &[y[0] + 0.1 * a[0], y[1] + 0.1 * a[1]]);
        for i in 0..2 {
            y[i] += 0.05 * (a[i] + b[i]);
        }
        s += y[0] * y[1] * (k as f64 + 1.0);
    }
    for k in (1..=n).rev() {
        let c: [f64; 2] = pair_rhs(p, &y);
        y[0] = 0.5 * y[0] + 0.01 * c[1] * k as f64;
        s += y[0] * y[0];
    }
    s
}

#[test]
fn array_saves_in_tape_regions() {
    for n in 0..5usize {
        Harness::new(4)
            .primal(move |q| vec![array_tapes(&[q[0], q[1]], &[q[2], q[3]], n)])
            .jvp(move |q, t| {
                let (v, d) = array_tapes_jvp(
                    &[q[0], q[1]],
                    &[q[2], q[3]],
                    n,
                    &[t[0], t[1]],
                    &[t[2], t[3]],
                );
                (vec![v], vec![d])
            })
            .vjp(move |q, c, g| {
                let (mut dp, mut dy) = ([0.0; 2], [0.0; 2]);
                let v = array_tapes_vjp(&[q[0], q[1]], &[q[2], q[3]], n, &mut dp, &mut dy, c[0]);
                g[0] += dp[0];
                g[1] += dp[1];
                g[2] += dy[0];
                g[3] += dy[1];
                vec![v]
            })
            .random(3, 0.3, 0.9);
    }
}

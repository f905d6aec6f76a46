//! Forward mode's loops (issue 12, item 5): takes loops whose sequences forward mode reads and
//! writes through slice views (one view per invariant offset of a read-only sequence, a `&mut`
//! view of a written one, a written in-out argument, reversed loops, loops with no iteration) and
//! loops it must leave alone (a `break`, an access under a branch or `&&`, a sequence used whole),
//! statements whose fast path gives NaN where the strong zero gives zero, and whole bodies
//! calling other functions' `_jvp`s (pure ones run again on the strong path, an impure one keeps
//! the body off the whole-body path and runs once), gives checks of
//! `_jvp` against central differences and of `_vjp` by the dot-product test at lengths 0 to 5,
//! and exact values at the singular points.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// Every length from 0 to 5, random points: `f(x: &[f64], n: usize) -> f64`.
macro_rules! each_len {
    ($f:ident, $fj:ident, $fv:ident) => {
        for len in 0..6usize {
            let h = Harness::new(len)
                .primal(|p| vec![$f(p, len)])
                .jvp(|p, t| {
                    let (v, d) = $fj(p, len, t);
                    (vec![v], vec![d])
                })
                .vjp(|p, c, g| vec![$fv(p, len, g, c[0])]);
            h.random(3, -1.2, 1.2);
        }
    };
}

/// A grid of `n` rows of 3 stored flat: rows `i - 1`, `i`, `i + 1` read through three views of
/// `u` (three invariant offsets), the row written through one `&mut` view of `next`.
#[differentiate]
fn rows(x: &[f64], n: usize) -> f64 {
    let c = 3;
    let mut u = vec![0.0; n * c];
    for k in 0..n * c {
        u[k] = x[k % n.max(1)] * (1.0 + k as f64 * 0.1);
    }
    let mut next = u.to_vec();
    for _step in 0..2 {
        for i in 1..n.saturating_sub(1) {
            for j in 0..c {
                let mid = u[i * c + j];
                next[i * c + j] =
                    mid + 0.2 * (u[(i - 1) * c + j] + u[(i + 1) * c + j] - 2.0 * mid) * mid;
            }
        }
        for k in 0..n * c {
            u[k] = next[k];
        }
    }
    let mut s = 0.0;
    for k in 0..n * c {
        s += u[k] * u[k];
    }
    s
}

#[test]
fn rows_through_views() {
    each_len!(rows, rows_jvp, rows_vjp);
}

/// A sequence read and written at the same offset (`v[j] += ..`), another read at two offsets,
/// a reversed loop, a loop starting at an offset.
#[differentiate]
fn update(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n + 1];
    for j in (0..n).rev() {
        v[j + 1] = x[j] * x[j];
    }
    for j in 1..n {
        v[j] += 0.5 * x[j - 1] * x[j] + v[j + 1].sin();
    }
    let mut s = 0.0;
    for j in 0..n + 1 {
        s += v[j] * (j as f64 + 1.0);
    }
    s
}

#[test]
fn update_through_views() {
    each_len!(update, update_jvp, update_vjp);
}

/// An in-out argument written through a view, with an offset read from an invariant local.
#[differentiate]
fn scale_into(x: &[f64], out: &mut [f64], n: usize) {
    let k = 1;
    for j in 0..n {
        out[j] = x[k + j - 1] * x[j].cos() + out[j];
    }
}

#[test]
fn inout_through_a_view() {
    for n in 0..5usize {
        let x: Vec<f64> = (0..n).map(|i| 0.3 + 0.4 * i as f64).collect();
        let dx: Vec<f64> = (0..n).map(|i| 0.7 - 0.2 * i as f64).collect();
        let o0: Vec<f64> = (0..n).map(|i| -0.5 + 0.1 * i as f64).collect();
        let do0: Vec<f64> = (0..n).map(|i| 0.25 * i as f64).collect();
        let (mut out, mut dout) = (o0.clone(), do0.clone());
        scale_into_jvp(&x, &mut out, n, &dx, &mut dout);
        let h = 1e-6;
        for j in 0..n {
            let at = |e: f64| {
                let xs: Vec<f64> = x.iter().zip(&dx).map(|(a, d)| a + e * d).collect();
                let mut o: Vec<f64> = o0.iter().zip(&do0).map(|(a, d)| a + e * d).collect();
                scale_into(&xs, &mut o, n);
                o[j]
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            assert!((dout[j] - fd).abs() < 1e-7, "{n} {j}: {} vs {fd}", dout[j]);
            let mut o = o0.clone();
            scale_into(&x, &mut o, n);
            assert_eq!(out[j], o[j]);
        }
    }
}

/// Loops forward mode leaves without views: a `break`, an access under a branch and under `&&`,
/// a sequence passed whole to a call.
#[differentiate]
fn no_views(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..n {
        if s > 3.0 {
            break;
        }
        s += x[j] * x[j];
    }
    for j in 0..n {
        if x[j] > 0.0 && x[n - 1 - j] < 0.5 {
            s += x[j];
        }
        s += partial_sum(x, j) * 0.1;
    }
    s
}

#[differentiate]
fn partial_sum(x: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..m {
        s += x[j];
    }
    s
}

#[test]
fn loops_without_views() {
    each_len!(no_views, no_views_jvp, no_views_vjp);
}

/// `sqrt` at 0 along a zero tangent, multiplied in a statement that has a fast path: the fast
/// tangent is NaN (`0 * inf`), the strong zero gives 0.
#[differentiate]
fn root_product(x: f64, y: f64) -> f64 {
    y * x.sqrt() + x * y
}

#[test]
fn fast_path_falls_back_to_the_strong_zero() {
    assert_eq!(root_product_jvp(0.0, 2.0, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(root_product_jvp(0.0, 2.0, 0.0, 0.0), (0.0, 0.0));
    let (v, d) = root_product_jvp(4.0, 2.0, 1.0, 0.5);
    assert_eq!(v, 2.0 * 2.0 + 8.0);
    assert_eq!(d, 2.0 * 0.25 + 0.5 * 2.0 + 2.0 + 4.0 * 0.5);
    chk!(root_product, root_product_jvp, root_product_vjp; 0, 1).random(4, 0.5, 2.0);
}

/// `sqrt` at 0 along a zero tangent inside a loop, with an argument the body writes and an
/// early return: `_jvp`'s whole body runs on the fast path first, its output tangent has NaN
/// where an entry is 0, and the second run on `Dual` (from the caller's `s`, not the written
/// one) gives the strong zero.
#[differentiate]
fn roots(x: &[f64], mut s: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = s * x[i].sqrt() + x[i] * s;
        s = s * 1.5;
    }
    if s > 1e9 {
        return out;
    }
    out
}

#[test]
fn whole_fast_path_falls_back_to_the_strong_zero() {
    let (x, dx) = ([0.0, 4.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.5]);
    let (v, d) = roots_jvp(&x, 2.0, &dx, 1.0);
    assert_eq!(v, vec![0.0, 3.0 * 2.0 + 4.0 * 3.0, 0.0, 6.75 + 6.75]);
    // Entry i: ds_i sqrt(x_i) + s_i dx_i / (2 sqrt(x_i)) (0 where dx_i = 0) + dx_i s_i + x_i ds_i,
    // with s_i = 2 * 1.5^i, ds_i = 1.5^i.
    assert_eq!(d[0], 0.0);
    assert_eq!(d[2], 0.0);
    let want = [
        0.0,
        1.5 * 2.0 + 3.0 * 0.25 + 3.0 + 4.0 * 1.5,
        0.0,
        3.375 + 6.75 * 0.25 + 0.5 * 6.75 + 3.375,
    ];
    for i in [1, 3] {
        assert!(
            (d[i] - want[i]).abs() < 1e-12,
            "{i}: {} vs {}",
            d[i],
            want[i]
        );
    }
    // Without a zero entry the fast run's result is kept; it and the second run both give the
    // same derivative as central differences and the adjoint.
    for len in [0usize, 1, 3] {
        let h = Harness::new(len + 1)
            .primal(|p| roots(&p[..len], p[len]))
            .jvp(|p, t| roots_jvp(&p[..len], p[len], &t[..len], t[len]))
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(len);
                roots_vjp(&p[..len], p[len], a, &mut b[0], c)
            });
        h.random(3, 0.5, 2.0);
    }
}

/// Calls of a function differentiated earlier (`root_product`, whose `_jvp` is pure) inside a
/// loop, with a `sqrt` of the caller's own: `_jvp`'s whole body runs on the fast path with the
/// callee's `_jvp` inside it (which makes its own strong-zero choice); where an entry of `x` is
/// 0 along a zero tangent the caller's fast tangent is NaN and the second run (calling the
/// callee again) gives the strong zero.
#[differentiate]
fn calls_roots(x: &[f64], s: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += root_product(x[i], s) * s + s * x[i].sqrt();
    }
    acc
}

#[test]
fn whole_fast_path_with_calls_falls_back_to_the_strong_zero() {
    let (x, dx) = ([0.0, 4.0, 0.0], [0.0, 1.0, 0.0]);
    let (v, d) = calls_roots_jvp(&x, 2.0, &dx, 1.0);
    // root_product(x, s) = s sqrt(x) + x s; the sum is over i of that times s, plus s sqrt(x_i).
    assert_eq!(v, (2.0 * 2.0 + 8.0) * 2.0 + 2.0 * 2.0);
    // d/ds at fixed x: (sqrt(x) + x) s + root_product + sqrt(x); entry 1 also moves x (dx = 1):
    // (s / (2 sqrt(x)) + s) s + s / (2 sqrt(x)); entries 0 and 2 give 0 (strong zero at x = 0).
    let want = (2.0 + 4.0) * 2.0 + 12.0 + 2.0 + (0.5 + 2.0) * 2.0 + 0.5;
    assert!((d - want).abs() < 1e-12, "{d} vs {want}");
    // The callee alone at x = 0 along dx = 0 gives the strong zero too.
    assert_eq!(root_product_jvp(0.0, 2.0, 0.0, 1.0), (0.0, 0.0));
    for len in [0usize, 1, 3] {
        let h = Harness::new(len + 1)
            .primal(|p| vec![calls_roots(&p[..len], p[len])])
            .jvp(|p, t| {
                let (v, d) = calls_roots_jvp(&p[..len], p[len], &t[..len], t[len]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(len);
                vec![calls_roots_vjp(&p[..len], p[len], a, &mut b[0], c[0])]
            });
        h.random(3, 0.5, 2.0);
    }
}

static BUMPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts its calls: a plain call with an effect.
fn bump() -> f64 {
    BUMPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    0.0
}

/// A function whose `_jvp` has an effect (the plain call `bump()`).
#[differentiate]
fn counted(x: f64) -> f64 {
    let z = bump();
    x * x + z
}

/// Calls `counted` in a loop, with a `sqrt` whose fast tangent is NaN at 0: the whole body may
/// not run twice, since `counted`'s `_jvp` is not pure.
#[differentiate]
fn calls_counted(x: &[f64], s: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += counted(x[i]) * s + s * x[i].sqrt();
    }
    acc
}

#[test]
fn impure_callee_runs_once() {
    let primal = calls_counted(&[0.0, 4.0], 2.0);
    let before = BUMPS.load(std::sync::atomic::Ordering::SeqCst);
    let (v, d) = calls_counted_jvp(&[0.0, 4.0], 2.0, &[0.0, 1.0], 1.0);
    let after = BUMPS.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(after - before, 2);
    assert_eq!(v, 16.0 * 2.0 + 2.0 * 2.0);
    assert_eq!(v, primal);
    assert_eq!(d, 16.0 + 8.0 * 2.0 + 2.0 + 2.0 * 0.25);
}

//! Functions written the way a new user writes them, combining documented constructs (folds with
//! `f64::max`, generic folds over `rev()`, zips of arrays collected into a `Vec`, `for &x in v`,
//! `if` expressions, `Vec` and tuple outputs, `while` loops, sub-slice sums with an early return,
//! closures returning arrays, in-place prefix sums, `match`, calls between them), each checked in
//! both modes: value, JVP against central differences, dot-product test, accumulation.
#![allow(clippy::all)]
#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::Float;

#[differentiate]
fn softmax_ce(logits: &[f64], label: usize) -> f64 {
    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let z: f64 = logits.iter().map(|&l| (l - m).exp()).sum();
    z.ln() + m - logits[label]
}

#[differentiate]
fn poly<T: Float>(coef: &[T], x: T) -> T {
    coef.iter().rev().fold(T::zero(), |acc, &c| acc * x + c)
}

#[differentiate]
fn dist3(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d: Vec<f64> = a.iter().zip(b.iter()).map(|(p, q)| p - q).collect();
    d.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[differentiate]
fn euler(y0: f64, k: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut y = y0;
    let mut t = 0.0;
    for _ in 0..steps {
        y += dt * (-k * y + t.sin());
        t += dt;
    }
    y
}

#[differentiate]
fn huber(r: &[f64], delta: f64) -> f64 {
    let mut s = 0.0;
    for &ri in r {
        let a = ri.abs();
        s += if a <= delta {
            0.5 * a * a
        } else {
            delta * (a - 0.5 * delta)
        };
    }
    s
}

#[differentiate]
fn normalize_sum(v: &[f64]) -> Vec<f64> {
    let n: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| x / n).collect()
}

#[differentiate]
fn mat_vec(a: &[f64], x: &[f64], n: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        for j in 0..x.len() {
            y[i] += a[i * x.len() + j] * x[j];
        }
    }
    y
}

#[differentiate]
fn logsumexp_pair(a: f64, b: f64) -> (f64, f64) {
    let m = a.max(b);
    let l = m + ((a - m).exp() + (b - m).exp()).ln();
    (l, (a - l).exp())
}

#[differentiate]
fn while_newton(c: f64) -> f64 {
    let mut x = c.max(1.0);
    let mut it = 0;
    while it < 20 {
        x = 0.5 * (x + c / x);
        it += 1;
    }
    x
}

#[differentiate]
fn trapezoid(f: &[f64], h: f64) -> f64 {
    let n = f.len();
    if n < 2 {
        return 0.0;
    }
    let inner: f64 = f[1..n - 1].iter().sum();
    h * (0.5 * (f[0] + f[n - 1]) + inner)
}

#[differentiate]
fn rk2(y: [f64; 2], h: f64) -> [f64; 2] {
    let f = |s: [f64; 2]| [s[1], -s[0]];
    let k1 = f(y);
    let mid = [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]];
    let k2 = f(mid);
    [y[0] + h * k2[0], y[1] + h * k2[1]]
}

#[differentiate]
fn cumsum_last(v: &[f64]) -> f64 {
    let mut c = v.to_vec();
    for i in 1..c.len() {
        c[i] += c[i - 1];
    }
    c[c.len() - 1] * c[0]
}

#[differentiate]
fn match_piece(x: f64, k: usize) -> f64 {
    match k % 3 {
        0 => x.sin(),
        1 => x.cos() * 2.0,
        _ => x * x,
    }
}

#[differentiate]
fn enumerate_weights(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, wi) in w.iter().enumerate() {
        s += (i as f64 + 1.0) * wi.powi(2);
    }
    s
}

#[differentiate]
fn chained_helpers(x: f64, v: &[f64]) -> f64 {
    let a = softmax_ce(v, 0);
    let b = poly(v, x);
    a * b + huber(v, x.abs() + 0.5)
}

/// `f(v: &[f64], extra..) -> f64` with `v` of length `$n`.
macro_rules! chk_v {
    ($f:ident, $fj:ident, $fv:ident; $n:expr $(, $extra:expr)*) => {{
        Harness::new($n)
            .primal(|p| vec![$f(p $(, $extra)*)])
            .jvp(|p, t| {
                let (v, d) = $fj(p $(, $extra)*, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![$fv(p $(, $extra)*, g, c[0])])
    }};
}

/// `f(v: &[f64], x: f64) -> f64` with `v` of length `$n` (inputs: `v`, then `x`).
macro_rules! chk_vx {
    ($f:ident, $fj:ident, $fv:ident; $n:expr) => {{
        Harness::new($n + 1)
            .primal(|p| vec![$f(&p[..$n], p[$n])])
            .jvp(|p, t| {
                let (v, d) = $fj(&p[..$n], p[$n], &t[..$n], t[$n]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (gv, gx) = g.split_at_mut($n);
                vec![$fv(&p[..$n], p[$n], gv, &mut gx[0], c[0])]
            })
    }};
}

fn a3(p: &[f64], k: usize) -> [f64; 3] {
    [p[k], p[k + 1], p[k + 2]]
}

#[test]
fn slices_to_a_scalar() {
    chk_v!(softmax_ce, softmax_ce_jvp, softmax_ce_vjp; 5, 2).random(4, -2.0, 2.0);
    chk_vx!(huber, huber_jvp, huber_vjp; 6).random(4, 0.2, 1.5);
    chk_vx!(trapezoid, trapezoid_jvp, trapezoid_vjp; 6).random(4, -2.0, 2.0);
    chk_vx!(trapezoid, trapezoid_jvp, trapezoid_vjp; 1).random(2, -2.0, 2.0);
    chk_v!(cumsum_last, cumsum_last_jvp, cumsum_last_vjp; 5).random(4, -2.0, 2.0);
    chk_v!(enumerate_weights, enumerate_weights_jvp, enumerate_weights_vjp; 4).random(4, -2.0, 2.0);
}

#[test]
fn generic_fold_and_calls_between_functions() {
    chk_vx!(poly, poly_jvp, poly_vjp; 4).random(4, -1.5, 1.5);
    chk_xv!(chained_helpers, chained_helpers_jvp, chained_helpers_vjp; 4).random(4, -1.5, 1.5);
}

#[test]
fn scalars_through_loops_and_match() {
    Harness::new(2)
        .primal(|p| vec![euler(p[0], p[1], 40)])
        .jvp(|p, t| {
            let (v, d) = euler_jvp(p[0], p[1], 40, t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![euler_vjp(p[0], p[1], 40, &mut a[0], &mut b[0], c[0])]
        })
        .random(4, -1.0, 1.0);
    Harness::new(1)
        .primal(|p| vec![while_newton(p[0])])
        .jvp(|p, t| {
            let (v, d) = while_newton_jvp(p[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![while_newton_vjp(p[0], &mut g[0], c[0])])
        .random(4, 1.5, 9.0);
    for k in 0..3 {
        Harness::new(1)
            .primal(|p| vec![match_piece(p[0], k)])
            .jvp(|p, t| {
                let (v, d) = match_piece_jvp(p[0], k, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![match_piece_vjp(p[0], k, &mut g[0], c[0])])
            .random(3, -2.0, 2.0);
    }
}

#[test]
fn arrays_vecs_and_tuples() {
    Harness::new(6)
        .primal(|p| vec![dist3(a3(p, 0), a3(p, 3))])
        .jvp(|p, t| {
            let (v, d) = dist3_jvp(a3(p, 0), a3(p, 3), a3(t, 0), a3(t, 3));
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (mut da, mut db) = (a3(g, 0), a3(g, 3));
            let v = dist3_vjp(a3(p, 0), a3(p, 3), &mut da, &mut db, c[0]);
            g[..3].copy_from_slice(&da);
            g[3..].copy_from_slice(&db);
            vec![v]
        })
        .random(4, -2.0, 2.0);
    Harness::new(4)
        .primal(|p| normalize_sum(p))
        .jvp(|p, t| normalize_sum_jvp(p, t))
        .vjp(|p, c, g| normalize_sum_vjp(p, g, c))
        .random(4, 0.5, 2.0);
    let (n, m) = (3, 2);
    Harness::new(n * m + m)
        .primal(|p| mat_vec(&p[..n * m], &p[n * m..], n))
        .jvp(|p, t| mat_vec_jvp(&p[..n * m], &p[n * m..], n, &t[..n * m], &t[n * m..]))
        .vjp(|p, c, g| {
            let (ga, gx) = g.split_at_mut(n * m);
            mat_vec_vjp(&p[..n * m], &p[n * m..], n, ga, gx, c)
        })
        .random(3, -2.0, 2.0);
    Harness::new(2)
        .primal(|p| {
            let (a, b) = logsumexp_pair(p[0], p[1]);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = logsumexp_pair_jvp(p[0], p[1], t[0], t[1]);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (ga, gb) = g.split_at_mut(1);
            let (a, b) = logsumexp_pair_vjp(p[0], p[1], &mut ga[0], &mut gb[0], (c[0], c[1]));
            vec![a, b]
        })
        .random(4, -3.0, 3.0);
    Harness::new(3)
        .primal(|p| rk2([p[0], p[1]], p[2]).to_vec())
        .jvp(|p, t| {
            let (v, d) = rk2_jvp([p[0], p[1]], p[2], [t[0], t[1]], t[2]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let (mut dy, mut dh) = ([g[0], g[1]], g[2]);
            let v = rk2_vjp([p[0], p[1]], p[2], &mut dy, &mut dh, [c[0], c[1]]);
            g[0] = dy[0];
            g[1] = dy[1];
            g[2] = dh;
            v.to_vec()
        })
        .random(4, -1.0, 1.0);
}

//! Second order (`#[differentiate(hvp)]`): `<f>_hvp` and `<f>_hessian` against second
//! differences (central differences of the gradient), against nested `Dual` numbers, against
//! closed forms, and for symmetry (the dot-product test of the gradient map, whose Jacobian is
//! the Hessian), in f64 and f32.

// Loops over indices and a float cast to its own type are what the tests exercise.
#![allow(dead_code, clippy::needless_range_loop, clippy::unnecessary_cast)]

mod common;

use autodiff_runtime::{differentiate, Dual, Scalar};
use common::{to32, to64, Harness};
use num_traits::Float;

/// Checks `x -> gradient` with `hv` as its forward mode and its reverse mode (the Hessian is
/// symmetric): central differences of the gradient and the dot-product test.
/// `hv(x, d) = (gradient, H d)`, both flattened.
fn check_gradient_map(n: usize, hv: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>) + Copy) {
    Harness::new(n)
        .primal(move |x| hv(x, &vec![0.0; x.len()]).0)
        .jvp(move |x, d| hv(x, d))
        .vjp(move |x, c, out| {
            let (g, hc) = hv(x, c);
            for (o, h) in out.iter_mut().zip(hc) {
                *o += h;
            }
            g
        })
        .tolerance(1e-5, 1e-7)
        .random(6, -1.5, 1.5);
}

// ------------------------------------------------------------------------- closed forms

#[differentiate(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

#[test]
fn rosenbrock_hessian_matches_its_closed_form() {
    let p = [0.3, -0.7];
    let (value, grad, h) = rosenbrock_hessian(&p);
    let (x, y) = (p[0], p[1]);
    assert_eq!(value, rosenbrock(&p));
    assert!((grad.x[0] - (-400.0 * x * (y - x * x) - 2.0 * (1.0 - x))).abs() < 1e-12);
    let want = [
        [1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x],
        [-400.0 * x, 200.0],
    ];
    for (i, row) in want.iter().enumerate() {
        for (j, w) in row.iter().enumerate() {
            assert!(
                (h[(i, j)] - w).abs() < 1e-10,
                "H[{i},{j}] = {} vs {w}",
                h[(i, j)]
            );
        }
    }
    let (v2, g2, hv) = rosenbrock_hvp(&p, &[1.0, 2.0]);
    assert_eq!(v2, value);
    assert_eq!(g2, grad);
    for (i, row) in want.iter().enumerate() {
        let w = row[0] + 2.0 * row[1];
        assert!((hv.x[i] - w).abs() < 1e-10);
    }
    check_gradient_map(4, |x, d| {
        let (_, g, hv) = rosenbrock_hvp(x, d);
        (g.x, hv.x)
    });
}

// ------------------------------------------------- branches, loops, calls, constants, casts

#[differentiate(hvp)]
fn sq(a: f64) -> f64 {
    a * a * 0.5
}

#[differentiate(hvp)]
fn pair(a: f64, b: f64) -> [f64; 2] {
    [a * b, (a - b).exp()]
}

/// Not differentiated: a value of integers only (a plain call, a constant of the copy).
fn weight(i: usize) -> f64 {
    1.0 / (1.0 + i as f64)
}

#[differentiate(hvp)]
fn mixed(x: f64, v: &[f64], w: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let t = v[i] * x;
        if t > 0.0 {
            s += t.sin() * v[i] * weight(i);
        } else {
            s -= t * t * (i as f64);
        }
    }
    let k = (x.abs() * 2.0) as usize % 3;
    let [p, q]: [f64; 2] = pair(x, w[k]);
    let r = w.iter().map(|&a| a * a).sum::<f64>();
    s * x.exp() + sq(x + v[0]) + std::f64::consts::PI * x * r + p * q + (x as f64).tanh()
}

fn mixed_hv(p: &[f64], d: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (x, v, w) = (p[0], &p[1..4], [p[4], p[5], p[6]]);
    let (dx, dv, dw) = (d[0], &d[1..4], [d[4], d[5], d[6]]);
    let (_, g, hv) = mixed_hvp(x, v, w, 3, dx, dv, dw);
    let flat = |x: f64, v: &[f64], w: [f64; 3]| {
        let mut out = vec![x];
        out.extend_from_slice(v);
        out.extend_from_slice(&w);
        out
    };
    (flat(g.x, &g.v, g.w), flat(hv.x, &hv.v, hv.w))
}

#[test]
fn mixed_hvp_matches_second_differences_and_is_symmetric() {
    check_gradient_map(7, mixed_hv);
}

#[test]
fn hvp_gradient_is_the_gradient_and_hessian_columns_are_hvps() {
    let (x, v, w) = (0.4, [0.3, -0.8, 1.1], [0.2, 0.5, -0.3]);
    let (value, grad) = mixed_grad(x, &v, w, 3);
    let (v2, g2, _) = mixed_hvp(x, &v, w, 3, 0.0, &[0.0; 3], [0.0; 3]);
    assert_eq!(value, v2);
    assert!((grad.x - g2.x).abs() < 1e-12);
    let (v3, g3, h) = mixed_hessian(x, &v, w, 3);
    // `_hessian`'s value and gradient are those of its first column's `_hvp`.
    let (v4, g4, _) = mixed_hvp(x, &v, w, 3, 1.0, &[0.0; 3], [0.0; 3]);
    assert_eq!((v3, &g3), (v4, &g4));
    assert_eq!(v3, value);
    let (a, b) = (g3.v.iter().chain(&g3.w), grad.v.iter().chain(&grad.w));
    assert!((g3.x - grad.x).abs() < 1e-12 && a.zip(b).all(|(p, q)| (p - q).abs() < 1e-12));
    assert_eq!((h.rows(), h.cols()), (7, 7));
    for k in 0..7 {
        let mut d = [0.0; 7];
        d[k] = 1.0;
        let (_, hv) = mixed_hv(&[x, v[0], v[1], v[2], w[0], w[1], w[2]], &d);
        for (i, hvi) in hv.iter().enumerate() {
            assert!((h[(i, k)] - hvi).abs() < 1e-12);
            assert!((h[(i, k)] - h[(k, i)]).abs() < 1e-9 * (1.0 + hvi.abs()));
        }
    }
}

// ----------------------------------------------------------------------------------- f32

#[differentiate(hvp)]
fn soft32(x: &[f32], b: f32) -> f32 {
    let mut m = x[0] * b;
    for &a in x {
        m = m.max(a * b);
    }
    let mut z = 0.0;
    for &a in x {
        z += (a * b - m).exp();
    }
    z.ln() + m + 0.5 * b * b
}

#[test]
fn f32_hvp_matches_second_differences() {
    Harness::new(4)
        .primal(|p| {
            let (_, g, _) = soft32_hvp(&to32(&p[..3]), p[3] as f32, &[0.0; 3], 0.0);
            let mut out = to64(&g.x);
            out.push(g.b as f64);
            out
        })
        .jvp(|p, d| {
            let (_, g, hv) = soft32_hvp(&to32(&p[..3]), p[3] as f32, &to32(&d[..3]), d[3] as f32);
            let (mut a, mut b) = (to64(&g.x), to64(&hv.x));
            a.push(g.b as f64);
            b.push(hv.b as f64);
            (a, b)
        })
        .f32()
        .random(5, -1.0, 1.0);
}

// ------------------------------------------------- generic code, against nested Dual numbers

#[differentiate(hvp)]
fn generic<T: Float>(x: &[T], c: T) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + (x[i] * c).sin() * x[(i + 1) % x.len()] + x[i].powi(3) / c;
    }
    s
}

/// `u^T H v` of `generic` by nested `Dual` numbers: `x + e1 v + e2 u`, the `e1 e2` part.
fn nested<T: Scalar>(x: &[T], c: T, u: &[T], v: &[T], uc: T, vc: T) -> T {
    let lift = |a: T, va: T, ua: T| Dual::new(Dual::new(a, va), Dual::new(ua, T::zero()));
    let xs: Vec<Dual<Dual<T>>> = (0..x.len()).map(|i| lift(x[i], v[i], u[i])).collect();
    generic(&xs, lift(c, vc, uc)).eps.eps
}

#[test]
fn generic_hvp_matches_nested_duals_in_f64_and_f32() {
    let x = [0.3, -0.6, 0.9];
    let c = 1.3;
    let v = [0.5, 1.0, -0.25];
    let vc = 0.7;
    let (_, _, hv) = generic_hvp(&x, c, &v, vc);
    for k in 0..4 {
        let mut u = [0.0; 3];
        let mut uc = 0.0;
        let got = if k < 3 {
            u[k] = 1.0;
            hv.x[k]
        } else {
            uc = 1.0;
            hv.c
        };
        let want = nested(&x, c, &u, &v, uc, vc);
        assert!((got - want).abs() < 1e-12, "{k}: {got} vs {want}");
    }
    let x32 = to32(&x);
    let (_, _, hv32) = generic_hvp(&x32, 1.3_f32, &to32(&v), 0.7_f32);
    let want32 = nested(&x32, 1.3_f32, &[1.0, 0.0, 0.0], &to32(&v), 0.0, 0.7);
    assert!((hv32.x[0] - want32).abs() < 1e-4);
    check_gradient_map(4, |p, d| {
        let (_, g, hv) = generic_hvp(&p[..3], p[3] + 2.0, &d[..3], d[3]);
        let (mut a, mut b) = (g.x, hv.x);
        a.push(g.c);
        b.push(hv.c);
        (a, b)
    });
}

// ------------------------------------------------- wrt subsets and hand-written rules

#[differentiate(wrt(x), hvp)]
fn scaled(x: &[f64; 2], c: f64) -> f64 {
    c * x[0] * x[0] * x[1] + sq(c * x[1])
}

#[test]
fn hvp_with_a_wrt_subset_holds_the_others_constant() {
    let (_, g, h) = scaled_hessian(&[0.5, -1.5], 3.0);
    let (x, y, c) = (0.5, -1.5, 3.0);
    assert!((g.x[0] - 2.0 * c * x * y).abs() < 1e-12);
    let want = [[2.0 * c * y, 2.0 * c * x], [2.0 * c * x, c * c]];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[(i, j)] - want[i][j]).abs() < 1e-12);
        }
    }
}

fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}
fn softplus_jvp(x: f64, dx: f64) -> (f64, f64) {
    (softplus(x), dx / (1.0 + (-x).exp()))
}
fn softplus_vjp(x: f64, dx: &mut f64, seed: f64) -> f64 {
    *dx += seed / (1.0 + (-x).exp());
    softplus(x)
}
// The same rule for the generic copy (`hvp`): generic over the float type.
fn softplus_generic<S: Scalar>(x: S) -> S {
    x.exp().ln_1p()
}
fn softplus_generic_vjp<S: Scalar>(x: S, dx: &mut S, seed: S) -> S {
    *dx = *dx + seed / (S::one() + (-x).exp());
    softplus_generic(x)
}

#[differentiate(hvp)]
fn with_rule(x: f64, y: f64) -> f64 {
    softplus(x * y) + x
}

#[test]
fn hand_written_rules_compose_under_hvp() {
    let (x, y) = (0.7, -0.4);
    let (_, _, h) = with_rule_hessian(x, y);
    // d2/dx2 softplus(xy) = y^2 s(1-s), s = sigmoid(xy); d2/dxdy = s + xy s(1-s).
    let s = 1.0 / (1.0 + (-x * y).exp());
    let d2 = s * (1.0 - s);
    assert!((h[(0, 0)] - y * y * d2).abs() < 1e-12);
    assert!((h[(0, 1)] - (s + x * y * d2)).abs() < 1e-12);
    assert!((h[(1, 1)] - x * x * d2).abs() < 1e-12);
    let _ = with_rule_jvp(x, y, 1.0, 0.0);
}

// ------------------------------------------------------------- constant arrays and statics

const W: [f64; 3] = [0.5, -1.0, 2.0];

#[differentiate(hvp)]
fn weighted(x: &[f64; 3]) -> f64 {
    let w: [f64; 3] = W;
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * x[i] * x[(i + 1) % 3];
    }
    s
}

#[test]
fn constant_arrays_are_constants_of_the_generic_copy() {
    let (_, _, h) = weighted_hessian(&[0.1, 0.2, 0.3]);
    // H[i][j] = w[i] for j = i + 1 (mod 3), symmetric.
    for i in 0..3 {
        let j = (i + 1) % 3;
        assert_eq!(h[(i, j)], W[i]);
        assert_eq!(h[(j, i)], W[i]);
        assert_eq!(h[(i, i)], 0.0);
    }
}

/// Values of plain calls returned, pushed and stored.
#[differentiate(hvp)]
fn untyped(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for i in 0..x.len() {
        v.push(weight(i));
    }
    if x[0] > 10.0 {
        return weight(3);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += v[i] * x[i] * x[i];
    }
    s
}

#[test]
fn values_of_plain_calls_are_constants_everywhere() {
    let (_, _, h) = untyped_hessian(&[0.5, 1.0, -2.0]);
    for i in 0..3 {
        assert_eq!(h[(i, i)], 2.0 * weight(i));
    }
    let (v, g, _) = untyped_hessian(&[11.0, 1.0, -2.0]);
    assert_eq!((v, g.x), (weight(3), vec![0.0; 3]));
}

/// `stop_gradient` holds its value constant at every order (as JAX's does).
#[differentiate(hvp)]
fn detached(x: f64, y: f64) -> f64 {
    x * autodiff_runtime::stop_gradient(x * y) + y * y
}

#[test]
fn stop_gradient_holds_at_second_order() {
    let (x, y) = (0.5, 3.0);
    let (v, g, h) = detached_hessian(x, y);
    assert_eq!(v, x * x * y + y * y);
    // First order: x y held constant, so d/dx = x y and d/dy = 2 y.
    assert_eq!((g.x, g.y), (x * y, 2.0 * y));
    // Second order: the held value has no derivative either.
    assert_eq!(
        (h[(0, 0)], h[(0, 1)], h[(1, 0)], h[(1, 1)]),
        (0.0, 0.0, 0.0, 2.0)
    );
}

// ------------------------------------------- found by the random programs (tests/gen/second.rs)

/// A generic function computing in `f64` through conversions: the copy computes in its type
/// parameter instead (it used to drop the direction at `to_f64`, giving a zero Hessian).
#[differentiate(hvp)]
fn through_f64<T: Float + Into<f64> + num_traits::FromPrimitive>(p: T, w: &[T]) -> T {
    let x: f64 = p.into();
    let y = w[0].to_f64().unwrap();
    let z: f64 = num_traits::NumCast::from(p).unwrap();
    let mut acc: f64 = sq(z);
    acc += x * y;
    T::from(acc).unwrap() * p
}

/// Converts with `to_f64` alone, which names no `f64`: found all the same.
#[differentiate(hvp)]
fn cube_via_to_f64<T: Float>(p: T) -> T {
    T::from(p.to_f64().unwrap().powi(2)).unwrap() * p
}

/// Calls a generic helper that asks for `Sum` and one that converts to `f64`.
#[differentiate(hvp)]
fn calls_generic(p: f64, w: &[f64]) -> f64 {
    sum_sq(w) * p + through_f64(p, w)
}

#[differentiate(hvp)]
fn sum_sq<T: Float + std::iter::Sum>(w: &[T]) -> T {
    w.iter().map(|&a| a * a).sum()
}

#[test]
fn generic_functions_computing_in_f64_get_their_second_order() {
    // through_f64 = (p w0 + p^2 / 2) p.
    let (p, w0) = (0.7, -0.4);
    let (_, g, h) = through_f64_hessian(p, &[w0, 0.3]);
    assert!((g.p - (2.0 * p * w0 + 1.5 * p * p)).abs() < 1e-12);
    let want = [
        [2.0 * w0 + 3.0 * p, 2.0 * p, 0.0],
        [2.0 * p, 0.0, 0.0],
        [0.0; 3],
    ];
    for (i, row) in want.iter().enumerate() {
        for (j, w) in row.iter().enumerate() {
            assert!(
                (h[(i, j)] - w).abs() < 1e-12,
                "H[{i},{j}] = {} vs {w}",
                h[(i, j)]
            );
        }
    }
    let (_, _, h) = cube_via_to_f64_hessian(p);
    assert!((h[(0, 0)] - 6.0 * p).abs() < 1e-12, "{}", h[(0, 0)]);
    check_gradient_map(4, |x, d| {
        let (_, g, hv) = calls_generic_hvp(x[0], &x[1..], d[0], &d[1..]);
        let (mut a, mut b) = (vec![g.p], vec![hv.p]);
        a.extend(g.w);
        b.extend(hv.w);
        (a, b)
    });
}

/// `w[i] op= e` where `e` reads `w`: on the copy's float type `op=` is a trait method.
#[differentiate(hvp)]
fn accumulate_into_self(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    let mut a = [x[0], x[1]];
    for i in 1..w.len() {
        w[i] += w[i - 1] * x[i];
        a[1] *= a[0] + w[i];
    }
    w[w.len() - 1] * a[1]
}

#[test]
fn indexed_compound_assignments_reading_their_array_get_their_second_order() {
    check_gradient_map(4, |x, d| {
        let (_, g, hv) = accumulate_into_self_hvp(x, d);
        (g.x, hv.x)
    });
}

/// A workspace (`&mut` outside `wrt`) read before it is written: `_hvp` writes back what the
/// function leaves in it, and every column of `_hessian` sees it as it was on entry.
#[differentiate(wrt(x), hvp)]
fn with_workspace(x: &[f64], wk: &mut [f64; 2]) -> f64 {
    let s = wk[0] * x[0] * x[1];
    wk[0] = x[0] * x[1];
    wk[1] += 1.0;
    s * x[1] + wk[0] * wk[0]
}

#[test]
fn workspaces_hold_what_the_function_leaves_and_every_hessian_column_sees_the_same() {
    let x = [0.6, -1.2];
    let mut wk = [2.0, 0.0];
    let (value, _, hv) = with_workspace_hvp(&x, &mut wk, &[1.0, 0.0]);
    assert_eq!(wk, [x[0] * x[1], 1.0]);
    assert_eq!(value, with_workspace(&x, &mut [2.0, 0.0]));
    // f = 2 x0 x1^2 + x0^2 x1^2 (with wk[0] = 2 on entry).
    let (a, b) = (x[0], x[1]);
    let want = [
        [2.0 * b * b, 4.0 * b + 4.0 * a * b],
        [4.0 * b + 4.0 * a * b, 4.0 * a + 2.0 * a * a],
    ];
    assert!((hv.x[0] - want[0][0]).abs() < 1e-12 && (hv.x[1] - want[1][0]).abs() < 1e-12);
    let mut wk = [2.0, 0.0];
    let (_, _, h) = with_workspace_hessian(&x, &mut wk);
    for (i, row) in want.iter().enumerate() {
        for (j, w) in row.iter().enumerate() {
            assert!(
                (h[(i, j)] - w).abs() < 1e-12,
                "H[{i},{j}] = {} vs {w}",
                h[(i, j)]
            );
        }
    }
    assert_eq!(wk, [x[0] * x[1], 1.0]);
}

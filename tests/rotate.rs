//! Buffer rotation in both modes (issue 12; `transform/rotate.rs`): takes double-buffered time
//! loops (`u.copy_from_slice(&next)` at the end of each step) that both modes run as exchanges of
//! the buffers: a nonlinear stencil whose reverse sweep reads the old grid (the two buffers
//! restored together, the exchange undone by exchanging back), the same inside an outer loop
//! (not restorable: the reads are copied), two pairs exchanged in one step, a step reading the
//! boundary cells only, and the split and second-order companions of an exchange; gives checks of
//! `_jvp` against central differences and of `_vjp` by the dot-product test at lengths 0 to 6.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// Every length from 0 to 6, random points: `f(x: &[f64], a: f64) -> f64`.
fn each_len(
    f: fn(&[f64], f64) -> f64,
    fj: fn(&[f64], f64, &[f64], f64) -> (f64, f64),
    fv: fn(&[f64], f64, &mut [f64], &mut f64, f64) -> f64,
) {
    for len in 0..7usize {
        Harness::new(len + 1)
            .primal(|p| vec![f(&p[1..], p[0])])
            .jvp(|p, t| {
                let (v, d) = fj(&p[1..], p[0], &t[1..], t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (ga, gx) = g.split_at_mut(1);
                vec![fv(&p[1..], p[0], gx, &mut ga[0], c[0])]
            })
            .random(4, -1.2, 1.2);
    }
}

/// The reverse sweep reads `u` (the products' partials): `u` and `next` are restored together,
/// and each exchange is undone by exchanging back.
#[differentiate]
fn nonlinear(x: &[f64], a: f64) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = x.to_vec();
    for _step in 0..3 {
        for i in 1..n {
            next[i] = u[i] * (1.0 - a * u[i - 1]) + 0.1 * (u[i] * u[i - 1]).sin();
        }
        u.copy_from_slice(&next);
    }
    let mut s = 0.0;
    for k in 0..n {
        s += u[k] * u[k] * (k as f64 + 1.0);
    }
    s
}

#[test]
fn a_nonlinear_stencil_reads_restored_buffers() {
    each_len(nonlinear, nonlinear_jvp, nonlinear_vjp);
}

/// The same inside an outer loop: the buffers are not top-level, so the reads are copied.
#[differentiate]
fn nested(x: &[f64], a: f64) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for r in 0..2 {
        let mut u = x.to_vec();
        let mut next = x.to_vec();
        for _step in 0..2 {
            for i in 1..n {
                next[i] = u[i] * u[i - 1] * a + (r as f64) * u[i];
            }
            u.copy_from_slice(&next);
        }
        for k in 0..n {
            total += u[k] * (k as f64 + 0.5);
        }
    }
    total
}

#[test]
fn an_exchange_inside_an_outer_loop() {
    each_len(nested, nested_jvp, nested_vjp);
}

/// Two pairs exchanged in one step, one linear in the other.
#[differentiate]
fn two_pairs(x: &[f64], a: f64) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut un = x.to_vec();
    let mut w = x.to_vec();
    let mut wn = x.to_vec();
    for _step in 0..3 {
        for i in 1..n {
            un[i] = u[i] + a * (u[i - 1] - u[i]) * w[i];
            wn[i] = 0.5 * w[i] + 0.5 * u[i - 1];
        }
        u.copy_from_slice(&un);
        w.copy_from_slice(&wn);
    }
    let mut s = 0.0;
    for k in 0..n {
        s += u[k] * w[k];
    }
    s
}

#[test]
fn two_pairs_exchanged_in_one_step() {
    each_len(two_pairs, two_pairs_jvp, two_pairs_vjp);
}

/// Only the interior is written: the boundary cells keep their values, and their adjoints travel
/// between the two buffers' adjoints with every exchange.
#[differentiate]
fn interior(x: &[f64], a: f64) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = x.to_vec();
    for _step in 0..4 {
        for i in 1..n.saturating_sub(1) {
            next[i] = u[i] + a * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u.copy_from_slice(&next);
    }
    let mut s = 0.0;
    for k in 0..n {
        s += u[k] * u[k];
    }
    s
}

#[test]
fn only_the_interior_is_written() {
    each_len(interior, interior_jvp, interior_vjp);
}

/// Split mode and second order: the pullback owns the restored buffers and exchanges them back
/// on each call; `_hvp` runs the generic copy's exchanges on `Dual` numbers.
#[differentiate(split, hvp)]
fn split_stencil(x: &[f64], a: f64) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = x.to_vec();
    for _step in 0..3 {
        for i in 1..n {
            next[i] = u[i] * u[i - 1] * a + u[i];
        }
        u.copy_from_slice(&next);
    }
    let mut s = 0.0;
    for k in 0..n {
        s += u[k] * u[k];
    }
    s
}

#[test]
fn the_split_pullback_runs_twice() {
    let x = [0.3, -0.7, 1.1, 0.4];
    let a = 0.6;
    let (mut gx, mut ga) = (vec![0.0; 4], 0.0);
    let v = split_stencil_vjp(&x, a, &mut gx, &mut ga, 1.5);
    let (value, pullback) = split_stencil_vjp_split(&x, a);
    assert_eq!(value, v);
    for _ in 0..2 {
        let (mut hx, mut ha) = (vec![0.0; 4], 0.0);
        pullback(&mut hx, &mut ha, 1.5);
        assert_eq!(hx, gx);
        assert_eq!(ha, ga);
    }
    each_len(split_stencil, split_stencil_jvp, split_stencil_vjp);
}

/// Second order through an exchange: the Hessian times a direction against central differences
/// of the gradient.
#[test]
fn hessian_vector_products_through_an_exchange() {
    let x = [0.3, -0.7, 1.1, 0.4];
    let a = 0.6;
    let (dx, da) = ([0.2, 0.5, -0.4, 1.0], -0.3);
    let grad = |x: &[f64], a: f64| {
        let (mut gx, mut ga) = (vec![0.0; 4], 0.0);
        split_stencil_vjp(x, a, &mut gx, &mut ga, 1.0);
        let mut g = gx;
        g.push(ga);
        g
    };
    let h = 1e-5;
    let shifted = |s: f64| {
        let xs: Vec<f64> = x.iter().zip(&dx).map(|(x, d)| x + s * d).collect();
        grad(&xs, a + s * da)
    };
    let (gp, gm) = (shifted(h), shifted(-h));
    let fd: Vec<f64> = gp
        .iter()
        .zip(&gm)
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect();
    let (v, _, h2) = split_stencil_hvp(&x, a, &dx, da);
    assert!((v - split_stencil(&x, a)).abs() <= 1e-12 * (1.0 + v.abs()));
    let mut hv = h2.x.to_vec();
    hv.push(h2.a);
    for (k, (got, want)) in hv.iter().zip(&fd).enumerate() {
        assert!(
            (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
            "component {k}: {got} vs {want}"
        );
    }
}

//! Realistic numeric code: an RK4 integrator over arrays, a Newton solve with a convergence
//! loop, a damped least-squares fit, a polynomial evaluated by Horner's rule, in both modes.
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn rhs(y: [f64; 2], k: f64, c: f64) -> [f64; 2] {
    [y[1], -k * y[0] - c * y[1] - 0.3 * y[0].powi(3)]
}

#[differentiate]
fn rk4(y0: [f64; 2], k: f64, c: f64, steps: usize) -> [f64; 2] {
    let h = 0.05;
    let mut y = y0;
    for _ in 0..steps {
        let k1: [f64; 2] = rhs(y, k, c);
        let y2 = [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]];
        let k2: [f64; 2] = rhs(y2, k, c);
        let y3 = [y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]];
        let k3: [f64; 2] = rhs(y3, k, c);
        let y4 = [y[0] + h * k3[0], y[1] + h * k3[1]];
        let k4: [f64; 2] = rhs(y4, k, c);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y
}

#[test]
fn runge_kutta_over_arrays() {
    Harness::new(4)
        .primal(|p| rk4([p[0], p[1]], p[2], p[3], 40).to_vec())
        .jvp(|p, t| {
            let (v, d) = rk4_jvp([p[0], p[1]], p[2], p[3], 40, [t[0], t[1]], t[2], t[3]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let mut dy = [0.0; 2];
            let (mut dk, mut dc) = (0.0, 0.0);
            let v = rk4_vjp(
                [p[0], p[1]],
                p[2],
                p[3],
                40,
                &mut dy,
                &mut dk,
                &mut dc,
                [c[0], c[1]],
            );
            g[0] += dy[0];
            g[1] += dy[1];
            g[2] += dk;
            g[3] += dc;
            v.to_vec()
        })
        .random(4, 0.2, 1.2);
}

/// The cube root of `a` by Newton's method, iterated until the step is tiny: the derivative
/// follows the iterations (it converges to the derivative of the root).
#[differentiate]
fn newton_cbrt(a: f64) -> f64 {
    let mut x = if a > 1.0 { a } else { 1.0 };
    let mut it = 0;
    loop {
        let step = (x * x * x - a) / (3.0 * x * x);
        x -= step;
        it += 1;
        if step.abs() < 1e-14 * x.abs() || it > 100 {
            break;
        }
    }
    x
}

#[test]
fn newton_iteration_with_convergence_loop() {
    Harness::new(1)
        .primal(|p| vec![newton_cbrt(p[0])])
        .jvp(|p, t| {
            let (v, d) = newton_cbrt_jvp(p[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![newton_cbrt_vjp(p[0], &mut g[0], c[0])])
        .at(&[&[2.0], &[0.5], &[27.0]]);
    let (v, d) = newton_cbrt_jvp(8.0, 1.0);
    assert!((v - 2.0).abs() < 1e-14);
    assert!((d - 1.0 / 12.0).abs() < 1e-12);
}

/// Sum of squared residuals of an exponential model, with a ridge term.
#[differentiate(wrt(params))]
fn fit_loss(params: &[f64; 3], ts: &[f64], ys: &[f64], lambda: f64) -> f64 {
    let [a, b, c] = *params;
    let mut loss = 0.0;
    for (t, y) in ts.iter().zip(ys) {
        let r = a * (-b * t).exp() + c - y;
        loss += r * r;
    }
    loss / ts.len() as f64 + lambda * params.iter().map(|p| p * p).sum::<f64>()
}

#[test]
fn least_squares_with_wrt() {
    let ts: Vec<f64> = (0..20).map(|i| i as f64 * 0.1).collect();
    let ys: Vec<f64> = ts.iter().map(|t| 2.0 * (-1.3 * t).exp() + 0.5).collect();
    let (ts, ys) = (&ts[..], &ys[..]);
    Harness::new(3)
        .primal(|p| vec![fit_loss(&[p[0], p[1], p[2]], ts, ys, 0.01)])
        .jvp(|p, t| {
            let (v, d) = fit_loss_jvp(&[p[0], p[1], p[2]], ts, ys, 0.01, &[t[0], t[1], t[2]]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut dp = [0.0; 3];
            let v = fit_loss_vjp(&[p[0], p[1], p[2]], ts, ys, 0.01, &mut dp, c[0]);
            for k in 0..3 {
                g[k] += dp[k];
            }
            vec![v]
        })
        .random(4, 0.5, 2.5);
    let (_, g) = fit_loss_grad(&[2.0, 1.3, 0.5], ts, ys, 0.0);
    for d in g.params {
        assert!(d.abs() < 1e-12, "the exact parameters are a minimum: {d}");
    }
}

#[differentiate]
fn horner(coef: &[f64], x: f64) -> f64 {
    coef.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[test]
fn horner_fold_over_reversed_coefficients() {
    Harness::new(5)
        .primal(|p| vec![horner(&p[..4], p[4])])
        .jvp(|p, t| {
            let (v, d) = horner_jvp(&p[..4], p[4], &t[..4], t[4]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(4);
            vec![horner_vjp(&p[..4], p[4], a, &mut b[0], c[0])]
        })
        .random(4, -1.5, 1.5);
}

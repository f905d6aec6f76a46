//! Second-order optimisation with `#[differentiate(hvp)]`:
//! 1. Newton's method with the dense Hessian (`_hessian`, solved with nalgebra's Cholesky) on an
//!    L2-regularised logistic regression: quadratic convergence in a handful of steps;
//! 2. truncated Newton (Newton-CG) on the extended Rosenbrock function in 10,000 variables, the
//!    Hessian never formed: conjugate gradients on `_hvp` products, one gradient and a few
//!    Hessian-vector products per step.
//!
//! Both check one `_hvp` against central differences of `_grad` first.
//!
//! Run with `cargo run --release --example newton`.

use autodiff_runtime::differentiate;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Mean logistic loss of a linear model on `(x, y)` rows (`x` row-major, `d` features) plus
/// `lambda / 2 |w|^2`, labels in {0, 1}.
#[differentiate(wrt(w), hvp)]
fn logistic(w: &[f64], x: &[f64], y: &[f64], lambda: f64) -> f64 {
    let d = w.len();
    let n = y.len();
    let mut loss = 0.0;
    for i in 0..n {
        let mut z = 0.0;
        for j in 0..d {
            z += w[j] * x[i * d + j];
        }
        // log(1 + e^z) - y z, written to stay finite for large |z|.
        let softplus = if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        };
        loss += softplus - y[i] * z;
    }
    let mut reg = 0.0;
    for wj in w.iter() {
        reg += wj * wj;
    }
    loss / n as f64 + 0.5 * lambda * reg
}

/// The extended Rosenbrock function: `n / 2` independent two-dimensional valleys.
#[differentiate(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        f += 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2);
    }
    f
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

/// Largest difference between `H d` from `_hvp` and central differences of the gradient.
fn check_hvp(
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hvp: impl Fn(&[f64], &[f64]) -> Vec<f64>,
    x: &[f64],
) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let d: Vec<f64> = (0..x.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let h = 1e-6;
    let shifted = |s: f64| -> Vec<f64> { x.iter().zip(&d).map(|(a, b)| a + s * b).collect() };
    let (gp, gm) = (grad(&shifted(h)), grad(&shifted(-h)));
    let hv = hvp(x, &d);
    hv.iter()
        .enumerate()
        .map(|(k, v)| (v - (gp[k] - gm[k]) / (2.0 * h)).abs())
        .fold(0.0, f64::max)
}

fn newton_logistic() {
    let (n, d) = (400, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let truth: Vec<f64> = (0..d).map(|_| rng.gen_range(-2.0..2.0)).collect();
    let x: Vec<f64> = (0..n * d).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let z: f64 = (0..d).map(|j| truth[j] * x[i * d + j]).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            if rng.gen::<f64>() < p {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    let lambda = 1e-3;
    let err = check_hvp(
        |w| logistic_grad(w, &x, &y, lambda).1.w,
        |w, dw| logistic_hvp(w, &x, &y, lambda, dw).2.w,
        &truth,
    );
    println!(
        "logistic regression, {n} points, {d} features: |hvp - central differences| = {err:.1e}"
    );
    let mut w = vec![0.0; d];
    for step in 0..10 {
        let (loss, g, h) = logistic_hessian(&w, &x, &y, lambda);
        let gn = norm(&g.w);
        println!("  Newton step {step}: loss {loss:.12}, |gradient| {gn:.3e}");
        if gn < 1e-12 {
            break;
        }
        let hm = DMatrix::from_row_slice(d, d, h.as_slice());
        let delta = hm
            .cholesky()
            .expect("the regularised logistic loss has a positive definite Hessian")
            .solve(&DVector::from_column_slice(&g.w));
        for j in 0..d {
            w[j] -= delta[j];
        }
    }
    let loss = logistic(&w, &x, &y, lambda);
    println!("  fitted weights {w:.3?} (loss {loss:.6})\n  true weights   {truth:.3?}");
}

/// Conjugate gradients on `H p = -g` with `H v` from `hv`, stopped at a relative residual of
/// `tol`, at negative curvature (the steepest descent direction if it is met at once) or after
/// `max_iter` products. Gives the direction and the number of products.
fn cg(hv: impl Fn(&[f64]) -> Vec<f64>, g: &[f64], tol: f64, max_iter: usize) -> (Vec<f64>, usize) {
    let n = g.len();
    let mut p = vec![0.0; n];
    let mut r: Vec<f64> = g.iter().map(|a| -a).collect();
    let mut d = r.clone();
    let r0 = norm(&r);
    let mut rr = dot(&r, &r);
    for k in 0..max_iter {
        let hd = hv(&d);
        let curvature = dot(&d, &hd);
        if curvature <= 0.0 {
            return (if k == 0 { r } else { p }, k + 1);
        }
        let alpha = rr / curvature;
        for i in 0..n {
            p[i] += alpha * d[i];
            r[i] -= alpha * hd[i];
        }
        let rr_next = dot(&r, &r);
        if rr_next.sqrt() <= tol * r0 {
            return (p, k + 1);
        }
        let beta = rr_next / rr;
        rr = rr_next;
        for i in 0..n {
            d[i] = r[i] + beta * d[i];
        }
    }
    (p, max_iter)
}

fn newton_cg_rosenbrock() {
    let n = 10_000;
    let mut x: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let err = check_hvp(
        |x| rosenbrock_grad(x).1.x,
        |x, d| rosenbrock_hvp(x, d).2.x,
        &x[..8],
    );
    println!("\nextended Rosenbrock, n = {n}: |hvp - central differences| = {err:.1e}");
    let start = std::time::Instant::now();
    let mut products = 0;
    for step in 0..100 {
        let (f, g) = rosenbrock_grad(&x);
        let gn = norm(&g.x);
        if step % 5 == 0 || gn < 1e-8 {
            println!("  step {step:3}: f {f:.6e}, |gradient| {gn:.3e}, {products} Hessian-vector products so far");
        }
        if gn < 1e-8 {
            break;
        }
        // Forcing term min(0.5, sqrt|g|): superlinear convergence near the minimum.
        let tol = gn.sqrt().min(0.5);
        let (p, k) = cg(|d| rosenbrock_hvp(&x, d).2.x, &g.x, tol, 50);
        products += k;
        // Backtracking (Armijo) on the Newton direction.
        let slope = dot(&g.x, &p);
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = x.iter().zip(&p).map(|(a, b)| a + t * b).collect();
            if rosenbrock(&trial) <= f + 1e-4 * t * slope || t < 1e-10 {
                x = trial;
                break;
            }
            t *= 0.5;
        }
    }
    let worst = x.iter().map(|a| (a - 1.0).abs()).fold(0.0, f64::max);
    println!(
        "  minimum found: max |x - 1| = {worst:.1e}, in {:.0} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
}

fn main() {
    newton_logistic();
    newton_cg_rosenbrock();
}

//! The benchmark problems under `#[differentiate]`: takes the primal bodies of `mod.rs`, `heat.rs`,
//! `rk4.rs` and `small.rs` verbatim, gives the generated `_jvp`, `_vjp` and `_grad` that
//! `benches/overhead.rs` measures against the hand-written adjoints and tangents (and, for the
//! small functions, against num-dual), and for three of them the `_jvpn` that `benches/vector.rs`
//! measures against `_jvp`.
//!
//! `tests/bench_problems.rs` checks that every body here is character for character the one
//! beside it, so the benchmark always differentiates the primal it times.

#![allow(dead_code)]
// The primal bodies index on purpose: loops over indices are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodiff_runtime::differentiate;
use std::f64::consts::{E, PI};

#[differentiate]
pub fn rosenbrock(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
    }
    s
}

#[differentiate(wrt(k, x0, v0), vector)]
pub fn spring_chain(
    k: &[f64],
    x0: &[f64],
    v0: &[f64],
    c: f64,
    dt: f64,
    n: usize,
    steps: usize,
) -> f64 {
    let mut x = vec![0.0; n];
    let mut v = vec![0.0; n];
    let mut f = vec![0.0; n];
    for j in 0..n {
        x[j] = x0[j];
        v[j] = v0[j];
    }
    for _step in 0..steps {
        for j in 0..n {
            let mut d = x[j];
            let mut w = v[j];
            if j > 0 {
                d = x[j] - x[j - 1];
                w = v[j] - v[j - 1];
            }
            f[j] = k[j] * (d + 0.1 * d * d * d) + c * w;
        }
        for j in 0..n {
            let mut a = -f[j];
            if j + 1 < n {
                a += f[j + 1];
            }
            v[j] += dt * a;
        }
        for j in 0..n {
            x[j] += dt * v[j];
        }
    }
    let mut loss = 0.0;
    for j in 0..n {
        loss += x[j] * x[j];
    }
    loss
}

#[differentiate(wrt(w1, b1, w2, b2), vector)]
#[allow(clippy::too_many_arguments)]
pub fn two_layer_loss(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    xs: &[f64],
    ys: &[f64],
    d: usize,
    h: usize,
    o: usize,
    batch: usize,
) -> f64 {
    let mut hidden = vec![0.0; h];
    let mut loss = 0.0;
    let mut count = 0.0;
    for b in 0..batch {
        for i in 0..h {
            let mut z = b1[i];
            for j in 0..d {
                z += w1[i * d + j] * xs[b * d + j];
            }
            hidden[i] = z.tanh();
        }
        for r in 0..o {
            let mut y = b2[r];
            for i in 0..h {
                y += w2[r * h + i] * hidden[i];
            }
            let e = y - ys[b * o + r];
            loss += e * e;
            count += 1.0;
        }
    }
    loss / count
}

#[differentiate(wrt(u0, alpha))]
pub fn heat(u0: &[f64], alpha: f64, target: &[f64], n: usize, steps: usize) -> f64 {
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _step in 0..steps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let c = u[i * n + j];
                let lap =
                    u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]
                        - 4.0 * c;
                next[i * n + j] = c + alpha * lap;
            }
        }
        u.copy_from_slice(&next);
    }
    let mut loss = 0.0;
    for k in 0..n * n {
        let e = u[k] - target[k];
        loss += e * e;
    }
    0.5 * loss
}

#[differentiate(vector)]
pub fn lotka_volterra(p: &[f64; 4], y: &[f64; 2]) -> [f64; 2] {
    let [a, b, c, d] = *p;
    [a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]]
}

#[differentiate(wrt(p, y0), vector)]
pub fn lv_fit(p: &[f64; 4], y0: &[f64; 2], obs: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = *y0;
    let mut loss = 0.0;
    for s in 0..steps {
        let k1: [f64; 2] = lotka_volterra(p, &y);
        let k2: [f64; 2] = lotka_volterra(p, &[y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3: [f64; 2] = lotka_volterra(p, &[y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4: [f64; 2] = lotka_volterra(p, &[y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        let e0 = y[0] - obs[2 * s];
        let e1 = y[1] - obs[2 * s + 1];
        loss += e0 * e0 + e1 * e1;
    }
    loss
}

#[differentiate]
pub fn rosenbrock2(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

#[differentiate]
pub fn himmelblau(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

#[differentiate]
pub fn beale(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (1.5 - x + x * y).powi(2) + (2.25 - x + x * y * y).powi(2) + (2.625 - x + x * y * y * y).powi(2)
}

#[differentiate]
pub fn ackley(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    let r = (0.5 * (x * x + y * y)).sqrt();
    let c = 0.5 * ((2.0 * PI * x).cos() + (2.0 * PI * y).cos());
    -20.0 * (-0.2 * r).exp() - c.exp() + E + 20.0
}

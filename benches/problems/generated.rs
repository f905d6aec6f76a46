//! The benchmark problems under `#[differentiate]`: takes the primal bodies of `mod.rs` verbatim,
//! gives the generated `_jvp`, `_vjp` and `_grad` that `benches/overhead.rs` measures against the
//! hand-written adjoints.
//!
//! Not compiled yet: it is included (`pub mod generated;` in `mod.rs`) once the macro handles
//! these bodies. `tests/bench_problems.rs` checks that every body here is character for character
//! the one in `mod.rs`, so the benchmark always differentiates the primal it times.

#![allow(dead_code)]
// The primal bodies index on purpose: loops over indices are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodiff_runtime::differentiate;

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

#[differentiate(wrt(k, x0, v0))]
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

#[differentiate(wrt(w1, b1, w2, b2))]
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

//! GMM: takes an ADBench GMM instance (mixture weights, means, inverse-covariance factors, points,
//! Wishart parameters), gives its objective (log-likelihood plus ADBench's Wishart term) written
//! once under `#[differentiate]`, and a hand-written gradient with the generated `_vjp`'s shape.
//!
//! Component `c` has the lower-triangular factor `Q_c` with diagonal `exp(q_c)` (the first `d`
//! entries of its `icf` block) and strict lower part `l_c` (the other `d (d - 1) / 2` entries,
//! column by column); its precision is `Q_c Q_cᵀ`. The objective is
//!
//! ```text
//! F = -n d/2 log 2π + Σ_i LSE_c(α_c + Σ_j q_cj - ½‖Q_c (x_i - μ_c)‖²) - n LSE(α)
//!     + Σ_c [γ²/2 (Σ_j exp(q_cj)² + Σ_t l_ct²) - m Σ_j q_cj] - k C(d, γ, m)
//! ```
//!
//! (ADBench's mixed signs: a log-likelihood minus a log-prior.)

use super::io::GmmInput;
use autodiff_runtime::differentiate;

/// Index in an `icf` block of the strictly lower entry `(row, col)` of a `d x d` factor (`row >
/// col`): after the `d` log-diagonal entries, columns one after another.
fn lower_index(d: usize, row: usize, col: usize) -> usize {
    d + col * (2 * d - col - 1) / 2 + row - col - 1
}

/// `log Σ_j exp(v_j)`, shifted by the largest entry so no term overflows.
#[differentiate]
pub fn log_sum_exp(v: &[f64]) -> f64 {
    let mut top = v[0];
    for j in 1..v.len() {
        if v[j] > top {
            top = v[j];
        }
    }
    let mut s = 0.0;
    for j in 0..v.len() {
        s += (v[j] - top).exp();
    }
    s.ln() + top
}

/// `log Γ(a)` for `a = two_a / 2` a positive integer or half-integer, as a sum of logarithms
/// (`Γ(a + 1) = a Γ(a)`, `Γ(1) = 1`, `Γ(½) = √π`).
fn ln_gamma_half(two_a: usize) -> f64 {
    assert!(two_a > 0, "log-gamma of a non-positive argument");
    let (mut s, mut a) = if two_a.is_multiple_of(2) {
        (0.0, 1.0)
    } else {
        (0.5 * std::f64::consts::PI.ln(), 0.5)
    };
    while 2.0 * a < two_a as f64 {
        s += a.ln();
        a += 1.0;
    }
    s
}

/// The normalising constant `C` of one component's Wishart term:
/// `ν d (log γ - ½ log 2) - log Γ_d(ν/2)` with `ν = d + m + 1` and the multivariate log-gamma
/// `log Γ_d(a) = d(d-1)/4 log π + Σ_{j=1..d} log Γ(a + (1 - j)/2)`.
pub fn wishart_constant(d: usize, gamma: f64, m: usize) -> f64 {
    let nu = d + m + 1;
    let mut log_gamma_d = (d * (d - 1)) as f64 / 4.0 * std::f64::consts::PI.ln();
    for j in 1..=d {
        // 2 (ν/2 + (1 - j)/2) = ν + 1 - j
        log_gamma_d += ln_gamma_half(nu + 1 - j);
    }
    (nu * d) as f64 * (gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d
}

/// ADBench's GMM objective. `alphas` has `k` entries, `means` `k * d`, `icf` `k * d (d + 1) / 2`
/// (see the module notes), `x` `n * d`.
#[differentiate(wrt(alphas, means, icf))]
pub fn gmm_objective(
    d: usize,
    k: usize,
    n: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: usize,
) -> f64 {
    let t = d * (d + 1) / 2;
    // Per component: the diagonal of Q (exp of the log-diagonal) and the sum of the logs.
    let mut diag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    for c in 0..k {
        for j in 0..d {
            diag[c * d + j] = icf[c * t + j].exp();
            sum_q[c] += icf[c * t + j];
        }
    }
    // Data term: per point, the log-sum-exp over components of the log-densities (up to the
    // shared constant).
    let mut scores = vec![0.0; k];
    let mut data = 0.0;
    for i in 0..n {
        for c in 0..k {
            // ‖Q (x_i - μ_c)‖², one row of Q at a time.
            let mut sq = 0.0;
            for r in 0..d {
                let mut z = diag[c * d + r] * (x[i * d + r] - means[c * d + r]);
                for col in 0..r {
                    let l = icf[c * t + lower_index(d, r, col)];
                    z += l * (x[i * d + col] - means[c * d + col]);
                }
                sq += z * z;
            }
            scores[c] = alphas[c] + sum_q[c] - 0.5 * sq;
        }
        data += log_sum_exp(&scores);
    }
    // Wishart term: Frobenius norm of Q squared, and the log-determinant times m.
    let mut prior = 0.0;
    for c in 0..k {
        let mut fro = 0.0;
        for j in 0..d {
            fro += diag[c * d + j] * diag[c * d + j];
        }
        for j in d..t {
            fro += icf[c * t + j] * icf[c * t + j];
        }
        prior += 0.5 * gamma * gamma * fro - m as f64 * sum_q[c];
    }
    let log_2pi = (2.0 * std::f64::consts::PI).ln();
    let constant = wishart_constant(d, gamma, m);
    data - 0.5 * (n * d) as f64 * log_2pi - n as f64 * log_sum_exp(alphas) + prior
        - k as f64 * constant
}

/// [`gmm_objective`] of an instance.
pub fn objective(g: &GmmInput) -> f64 {
    gmm_objective(
        g.d, g.k, g.n, &g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m,
    )
}

/// Hand-written reverse mode of [`gmm_objective`], with the generated `gmm_objective_vjp`'s
/// contract: returns the objective (the same arithmetic in the same order, so the same bits) and
/// ADDS `seed ×` its gradient into `dalphas`, `dmeans`, `dicf`.
///
/// Per point one forward pass keeps `y = x_i - μ_c` and `z = Q_c y` of every component; the
/// responsibilities `r_c = exp(s_c - LSE(s))` then give the closed-form adjoints
/// `∂/∂α_c = r_c`, `∂/∂z = -r_c z`, pushed through `z_r = e^{q_r} y_r + Σ_{j<r} l_rj y_j`.
pub fn gmm_objective_hand_vjp(
    d: usize,
    k: usize,
    n: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: usize,
    dalphas: &mut [f64],
    dmeans: &mut [f64],
    dicf: &mut [f64],
    seed: f64,
) -> f64 {
    let t = d * (d + 1) / 2;
    let mut diag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    for c in 0..k {
        for j in 0..d {
            diag[c * d + j] = icf[c * t + j].exp();
            sum_q[c] += icf[c * t + j];
        }
    }
    let mut scores = vec![0.0; k];
    let mut ys = vec![0.0; k * d];
    let mut zs = vec![0.0; k * d];
    let mut dy = vec![0.0; d];
    let mut data = 0.0;
    for i in 0..n {
        let xi = &x[i * d..(i + 1) * d];
        for c in 0..k {
            let y = &mut ys[c * d..(c + 1) * d];
            for (yj, (xj, mj)) in y.iter_mut().zip(xi.iter().zip(&means[c * d..(c + 1) * d])) {
                *yj = xj - mj;
            }
            let z = &mut zs[c * d..(c + 1) * d];
            let q = &icf[c * t..(c + 1) * t];
            let mut sq = 0.0;
            for r in 0..d {
                let mut zr = diag[c * d + r] * y[r];
                for col in 0..r {
                    zr += q[lower_index(d, r, col)] * y[col];
                }
                z[r] = zr;
                sq += zr * zr;
            }
            scores[c] = alphas[c] + sum_q[c] - 0.5 * sq;
        }
        let lse = log_sum_exp(&scores);
        data += lse;
        for c in 0..k {
            let resp = seed * (scores[c] - lse).exp();
            dalphas[c] += resp;
            let (y, z) = (&ys[c * d..(c + 1) * d], &zs[c * d..(c + 1) * d]);
            let q = &icf[c * t..(c + 1) * t];
            let dq = &mut dicf[c * t..(c + 1) * t];
            dy.fill(0.0);
            for r in 0..d {
                // s = ... - ½ Σ z², so the adjoint of z_r is -resp z_r.
                let dz = -resp * z[r];
                let e = diag[c * d + r];
                // Through e^{q_r} y_r, and q_r's direct term in Σ q.
                dq[r] += dz * y[r] * e + resp;
                dy[r] += dz * e;
                for col in 0..r {
                    let at = lower_index(d, r, col);
                    dq[at] += dz * y[col];
                    dy[col] += dz * q[at];
                }
            }
            for (dm, dyj) in dmeans[c * d..(c + 1) * d].iter_mut().zip(&dy) {
                *dm -= dyj;
            }
        }
    }
    // -n LSE(α): softmax.
    let lse_alpha = log_sum_exp(alphas);
    for c in 0..k {
        dalphas[c] -= seed * n as f64 * (alphas[c] - lse_alpha).exp();
    }
    // Wishart term.
    let g2 = gamma * gamma;
    let mut prior = 0.0;
    for c in 0..k {
        let mut fro = 0.0;
        for j in 0..d {
            let e = diag[c * d + j];
            fro += e * e;
            dicf[c * t + j] += seed * (g2 * e * e - m as f64);
        }
        for j in d..t {
            let l = icf[c * t + j];
            fro += l * l;
            dicf[c * t + j] += seed * g2 * l;
        }
        prior += 0.5 * gamma * gamma * fro - m as f64 * sum_q[c];
    }
    let log_2pi = (2.0 * std::f64::consts::PI).ln();
    let constant = wishart_constant(d, gamma, m);
    data - 0.5 * (n * d) as f64 * log_2pi - n as f64 * lse_alpha + prior - k as f64 * constant
}

/// The generated gradient of an instance, flat: alphas, means, icf (ADBench's `_J_` layout).
pub fn generated_gradient(g: &GmmInput) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; g.params()];
    let (da, rest) = grad.split_at_mut(g.k);
    let (dm, di) = rest.split_at_mut(g.k * g.d);
    let f = gmm_objective_vjp(
        g.d, g.k, g.n, &g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m, da, dm, di, 1.0,
    );
    (f, grad)
}

/// The hand-written gradient of an instance, flat like [`generated_gradient`].
pub fn hand_gradient(g: &GmmInput) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; g.params()];
    let (da, rest) = grad.split_at_mut(g.k);
    let (dm, di) = rest.split_at_mut(g.k * g.d);
    let f = gmm_objective_hand_vjp(
        g.d, g.k, g.n, &g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m, da, dm, di, 1.0,
    );
    (f, grad)
}

//! The two derivatives `benches/adbench.rs` compares ours with, computed without this library:
//! takes an ADBench instance, gives num-dual's forward-mode gradient (or BA Jacobian) and
//! ADBench's central finite differences, whole or for a chosen subset of the parameters.
//!
//! num-dual needs the objective written over its number type, so GMM, BA and LSTM are copied here
//! once more, generic over `T: DualNum` (the same formulas as `gmm.rs`, `ba.rs`, `lstm.rs`;
//! `T = f64` gives the plain objective, which the bench checks against ours). A gradient is taken
//! `CHUNK` parameters per pass with `DualSVec64<CHUNK>` (each value carries `CHUNK` partials),
//! so it costs `ceil(params / CHUNK)` passes; a BA block is one pass with `DualSVec64<15>` over the
//! observation's camera, point and weight.
//!
//! Finite differences follow ADBench's Finite module: central, one input at a time, step
//! `h = ε max(1, |x|)` with `ε = ∛(f64::EPSILON)`, divided by the representable `(x + h) - (x - h)`.
//!
//! Included by `benches/adbench.rs` alone (`#[path]`), next to `adbench_problems/mod.rs`.

// The copies keep the originals' signatures and index loops.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::adbench::ba::{self, Block, BLOCK, CAM};
use crate::adbench::gmm::{self, wishart_constant};
use crate::adbench::io::{GmmInput, LstmInput};
use crate::adbench::lstm;
use num_dual::{Dual64, DualNum, DualSVec64};

/// Parameters seeded per num-dual pass.
pub const CHUNK: usize = 8;
type Chunk = DualSVec64<CHUNK>;
/// A BA block's inputs: camera, point, weight.
type Obs = DualSVec64<BLOCK>;

/// What the generic copies need of a number type.
pub trait Num: DualNum<Primitive = f64> + Copy {}
impl<T: DualNum<Primitive = f64> + Copy> Num for T {}

// ---------------------------------------------------------------------------------------------
// Generic copies of the objectives
// ---------------------------------------------------------------------------------------------

/// [`gmm::log_sum_exp`] over `T`.
fn log_sum_exp<T: Num>(v: &[T]) -> T {
    let mut top = v[0];
    for &vj in &v[1..] {
        if vj > top {
            top = vj;
        }
    }
    let mut s = T::from(0.0);
    for &vj in v {
        s += (vj - top).exp();
    }
    s.ln() + top
}

/// [`gmm::gmm_objective`] over `T` (`x`, `gamma`, `m` stay plain numbers).
pub fn gmm_objective<T: Num>(
    d: usize,
    k: usize,
    n: usize,
    alphas: &[T],
    means: &[T],
    icf: &[T],
    x: &[f64],
    gamma: f64,
    m: usize,
) -> T {
    let t = d * (d + 1) / 2;
    let lower = |row: usize, col: usize| d + col * (2 * d - col - 1) / 2 + row - col - 1;
    let zero = T::from(0.0);
    let mut diag = vec![zero; k * d];
    let mut sum_q = vec![zero; k];
    for c in 0..k {
        for j in 0..d {
            diag[c * d + j] = icf[c * t + j].exp();
            sum_q[c] += icf[c * t + j];
        }
    }
    let mut scores = vec![zero; k];
    let mut data = zero;
    for i in 0..n {
        for c in 0..k {
            let mut sq = zero;
            for r in 0..d {
                let mut z = diag[c * d + r] * (-means[c * d + r] + x[i * d + r]);
                for col in 0..r {
                    z += icf[c * t + lower(r, col)] * (-means[c * d + col] + x[i * d + col]);
                }
                sq += z * z;
            }
            scores[c] = alphas[c] + sum_q[c] - sq * 0.5;
        }
        data += log_sum_exp(&scores);
    }
    let mut prior = zero;
    for c in 0..k {
        let mut fro = zero;
        for j in 0..d {
            fro += diag[c * d + j] * diag[c * d + j];
        }
        for j in d..t {
            fro += icf[c * t + j] * icf[c * t + j];
        }
        prior += fro * (0.5 * gamma * gamma) - sum_q[c] * m as f64;
    }
    let log_2pi = (2.0 * std::f64::consts::PI).ln();
    data - 0.5 * (n * d) as f64 * log_2pi - log_sum_exp(alphas) * n as f64 + prior
        - k as f64 * wishart_constant(d, gamma, m)
}

/// [`ba::rodrigues_rotate`] over `T`.
fn rodrigues_rotate<T: Num>(r: &[T; 3], y: &[T; 3]) -> [T; 3] {
    let theta2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if theta2 != 0.0 {
        let theta = theta2.sqrt();
        let (s, c) = theta.sin_cos();
        let v = [r[0] / theta, r[1] / theta, r[2] / theta];
        let along = (v[0] * y[0] + v[1] * y[1] + v[2] * y[2]) * (-c + 1.0);
        [
            y[0] * c + (v[1] * y[2] - v[2] * y[1]) * s + v[0] * along,
            y[1] * c + (v[2] * y[0] - v[0] * y[2]) * s + v[1] * along,
            y[2] * c + (v[0] * y[1] - v[1] * y[0]) * s + v[2] * along,
        ]
    } else {
        [
            y[0] + (r[1] * y[2] - r[2] * y[1]),
            y[1] + (r[2] * y[0] - r[0] * y[2]),
            y[2] + (r[0] * y[1] - r[1] * y[0]),
        ]
    }
}

/// [`ba::ba_reprojection`] over `T` (the feature stays a plain number).
pub fn ba_reprojection<T: Num>(cam: &[T; 11], x: &[T; 3], w: T, feat: &[f64; 2]) -> [T; 2] {
    let rotation = [cam[0], cam[1], cam[2]];
    let y = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let z = rodrigues_rotate(&rotation, &y);
    let p = [z[0] / z[2], z[1] / z[2]];
    let rho = p[0] * p[0] + p[1] * p[1];
    let scale = cam[9] * rho + cam[10] * rho * rho + 1.0;
    let d = [scale * p[0], scale * p[1]];
    [
        w * (cam[6] * d[0] + cam[7] - feat[0]),
        w * (cam[6] * d[1] + cam[8] - feat[1]),
    ]
}

/// [`lstm::sigmoid`] over `T`.
fn sigmoid<T: Num>(z: T) -> T {
    ((-z).exp() + 1.0).recip()
}

/// [`lstm::lstm_objective`] over `T` (`state` and `sequence` stay plain numbers).
pub fn lstm_objective<T: Num>(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[T],
    extra_params: &[T],
    state: &[f64],
    sequence: &[f64],
) -> T {
    let zero = T::from(0.0);
    let mut hs: Vec<T> = state.iter().map(|&s| T::from(s)).collect();
    let mut x = vec![zero; b];
    let mut y = vec![zero; b];
    let mut total = zero;
    for t in 0..c - 1 {
        for j in 0..b {
            x[j] = extra_params[j] * sequence[t * b + j];
        }
        for layer in 0..l {
            let w = &main_params[8 * b * layer..8 * b * (layer + 1)];
            let (h_at, s_at) = (2 * b * layer, 2 * b * layer + b);
            for j in 0..b {
                let h = hs[h_at + j];
                let forget = sigmoid(x[j] * w[j] + w[4 * b + j]);
                let input = sigmoid(h * w[b + j] + w[5 * b + j]);
                let output = sigmoid(x[j] * w[2 * b + j] + w[6 * b + j]);
                let change = (h * w[3 * b + j] + w[7 * b + j]).tanh();
                let s = hs[s_at + j] * forget + input * change;
                hs[s_at + j] = s;
                hs[h_at + j] = output * s.tanh();
                x[j] = hs[h_at + j];
            }
        }
        let mut sum_exp = zero;
        for j in 0..b {
            y[j] = x[j] * extra_params[b + j] + extra_params[2 * b + j];
            sum_exp += y[j].exp();
        }
        let lse = (sum_exp + 2.0).ln();
        for j in 0..b {
            total += (y[j] - lse) * sequence[(t + 1) * b + j];
        }
    }
    -total / ((c - 1) * b) as f64
}

// ---------------------------------------------------------------------------------------------
// num-dual gradients, CHUNK parameters per pass
// ---------------------------------------------------------------------------------------------

/// The objective of one problem as a function of its flat parameter vector, over any `T`: GMM
/// (alphas, means, icf) and LSTM (main, extra), the layouts of ADBench's `_J_` files.
pub trait Flat {
    /// The instance's parameters, flat.
    fn flat(&self) -> Vec<f64>;
    fn eval<T: Num>(&self, p: &[T]) -> T;
}

impl Flat for GmmInput {
    fn flat(&self) -> Vec<f64> {
        [&self.alphas[..], &self.means, &self.icf].concat()
    }
    fn eval<T: Num>(&self, p: &[T]) -> T {
        let (alphas, rest) = p.split_at(self.k);
        let (means, icf) = rest.split_at(self.k * self.d);
        gmm_objective(
            self.d, self.k, self.n, alphas, means, icf, &self.x, self.gamma, self.m,
        )
    }
}

impl Flat for LstmInput {
    fn flat(&self) -> Vec<f64> {
        [&self.main_params[..], &self.extra_params].concat()
    }
    fn eval<T: Num>(&self, p: &[T]) -> T {
        let (main, extra) = p.split_at(self.main_params.len());
        lstm_objective(
            self.l,
            self.c,
            self.b,
            main,
            extra,
            &self.state,
            &self.sequence,
        )
    }
}

/// num-dual passes of a full gradient of `len` parameters.
pub fn passes(len: usize) -> usize {
    len.div_ceil(CHUNK)
}

/// A problem's parameters as num-dual numbers with no partials, reused pass after pass (each pass
/// seeds its chunk and clears it afterwards).
pub struct DualGradient<'a, P: Flat> {
    problem: &'a P,
    params: Vec<Chunk>,
}

impl<'a, P: Flat> DualGradient<'a, P> {
    pub fn new(problem: &'a P) -> Self {
        let params = problem.flat().into_iter().map(Chunk::from).collect();
        DualGradient { problem, params }
    }

    /// Pass `chunk`: the objective and its partials over parameters `CHUNK * chunk ..` written
    /// into `grad` (the flat gradient) at the same places.
    pub fn pass(&mut self, chunk: usize, grad: &mut [f64]) -> f64 {
        let range = CHUNK * chunk..(CHUNK * (chunk + 1)).min(self.params.len());
        for (i, at) in range.clone().enumerate() {
            self.params[at] = Chunk::from(self.params[at].re).derivative(i);
        }
        let f = self.problem.eval(&self.params);
        let partials = f.eps.0.map_or([0.0; CHUNK], |e| e.into());
        for (i, at) in range.enumerate() {
            grad[at] = partials[i];
            self.params[at] = Chunk::from(self.params[at].re);
        }
        f.re
    }

    /// The passes `chunks`: the objective and the partials they give, written into `grad`.
    pub fn passes(&mut self, chunks: &[usize], grad: &mut [f64]) -> f64 {
        let mut f = 0.0;
        for &c in chunks {
            f = self.pass(c, grad);
        }
        f
    }
}

/// The BA block from one num-dual pass over the observation's 15 inputs (and a `Dual64` for the
/// weight error).
pub fn ba_dual_block(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> Block {
    let cam_d: [Obs; CAM] = std::array::from_fn(|i| Obs::from(cam[i]).derivative(i));
    let x_d: [Obs; 3] = std::array::from_fn(|i| Obs::from(x[i]).derivative(CAM + i));
    let w_d = Obs::from(w).derivative(CAM + 3);
    let e = ba_reprojection(&cam_d, &x_d, w_d, feat);
    let rows = e.map(|r| r.eps.0.map_or([0.0; BLOCK], |v| v.into()));
    let wd = Dual64::from(w).derivative();
    (rows, (-(wd * wd) + 1.0).eps)
}

// ---------------------------------------------------------------------------------------------
// Central finite differences (ADBench's Finite module)
// ---------------------------------------------------------------------------------------------

/// ADBench's step for an input `x`.
fn step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * x.abs().max(1.0)
}

/// Central difference of `f` at `v[at]`, `v` left as it was.
fn central(v: &mut [f64], at: usize, mut f: impl FnMut(&[f64]) -> f64) -> f64 {
    let x = v[at];
    let h = step(x);
    v[at] = x + h;
    let up = f(v);
    v[at] = x - h;
    let down = f(v);
    let span = (x + h) - (x - h);
    v[at] = x;
    (up - down) / span
}

/// Finite differences of a GMM or LSTM objective over the parameters `range`, written into `grad`
/// (the flat gradient) at the same places; `params` is the problem's flat parameter vector, used
/// as scratch and restored.
pub fn fd_gradient<P: Flat>(
    problem: &P,
    params: &mut [f64],
    range: std::ops::Range<usize>,
    grad: &mut [f64],
) {
    for at in range {
        grad[at] = central(params, at, |p| problem.eval(p));
    }
}

/// The BA block by finite differences: 15 inputs of the reprojection (30 calls), and the weight
/// error.
pub fn ba_fd_block(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> Block {
    let mut v = [0.0; BLOCK];
    v[..CAM].copy_from_slice(cam);
    v[CAM..CAM + 3].copy_from_slice(x);
    v[CAM + 3] = w;
    let residuals = |v: &[f64]| {
        let cam: &[f64; 11] = v[..CAM].try_into().unwrap();
        let x: &[f64; 3] = v[CAM..CAM + 3].try_into().unwrap();
        ba::ba_reprojection(cam, x, v[CAM + 3], feat)
    };
    let mut rows = [[0.0; BLOCK]; 2];
    for at in 0..BLOCK {
        // Both rows from the same two calls.
        let x0 = v[at];
        let h = step(x0);
        v[at] = x0 + h;
        let up = residuals(&v);
        v[at] = x0 - h;
        let down = residuals(&v);
        let span = (x0 + h) - (x0 - h);
        v[at] = x0;
        for k in 0..2 {
            rows[k][at] = (up[k] - down[k]) / span;
        }
    }
    let mut wv = [w];
    (rows, central(&mut wv, 0, |p| ba::ba_weight_error(p[0])))
}

/// Checks the `f64` instances of the generic copies against the `#[differentiate]` originals.
pub fn same_objectives(g: Option<&GmmInput>, m: Option<&LstmInput>) -> Result<(), String> {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
    if let Some(g) = g {
        let (ours, copy) = (gmm::objective(g), g.eval(&g.flat()));
        if !close(ours, copy) {
            return Err(format!("GMM objective {ours:e}, generic copy {copy:e}"));
        }
    }
    if let Some(m) = m {
        let (ours, copy) = (lstm::objective(m), m.eval(&m.flat()));
        if !close(ours, copy) {
            return Err(format!("LSTM objective {ours:e}, generic copy {copy:e}"));
        }
    }
    Ok(())
}

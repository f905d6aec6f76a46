//! Bundle adjustment: takes an ADBench BA instance (cameras, points, weights, features and the
//! camera/point of each observation), gives the per-observation reprojection residual and the
//! weight error written once under `#[differentiate]`, a hand-written 2 x 15 Jacobian block, and
//! the sparse Jacobian (ADBench's CSR layout) assembled from either kind of block.
//!
//! Camera `[r(3), C(3), f, x0(2), κ(2)]`: angle-axis rotation `r`, centre `C`, focal length `f`,
//! principal point `x0`, radial distortion `κ`. For a point `X`, weight `w` and feature `m`:
//! `Y = X - C`, `Z = R(r) Y` (Rodrigues; `Y + r × Y` when `r = 0`), `p = (Z0 / Z2, Z1 / Z2)`,
//! `p ← (1 + κ1 ρ + κ2 ρ²) p` with `ρ = ‖p‖²`, and the residual `w (f p + x0 - m)`; the weight
//! error is `1 - w²`.

use super::io::{BaInput, Csr};
// The rotation, in a file of its own so that tests can take it alone (`#[path]`).
pub use super::rotation::*;
use autodiff_runtime::differentiate;

/// Parameters of a camera.
pub const CAM: usize = 11;
/// Non-zeros of a reprojection row: the camera, the point, the weight.
pub const BLOCK: usize = CAM + 3 + 1;

/// Radial distortion `(1 + κ1 ρ + κ2 ρ²) p` with `ρ = ‖p‖²`.
#[differentiate]
pub fn radial_distort(kappa: &[f64], p: [f64; 2]) -> [f64; 2] {
    let rho = p[0] * p[0] + p[1] * p[1];
    let scale = 1.0 + kappa[0] * rho + kappa[1] * rho * rho;
    [scale * p[0], scale * p[1]]
}

/// The weighted reprojection error of one observation: `w (project(cam, x) - feat)`.
#[differentiate(wrt(cam, x, w))]
pub fn ba_reprojection(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> [f64; 2] {
    let rotation = [cam[0], cam[1], cam[2]];
    let y = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let z: [f64; 3] = rodrigues_rotate(&rotation, &y);
    let p = [z[0] / z[2], z[1] / z[2]];
    let d: [f64; 2] = radial_distort(&cam[9..11], p);
    [
        w * (cam[6] * d[0] + cam[7] - feat[0]),
        w * (cam[6] * d[1] + cam[8] - feat[1]),
    ]
}

/// The weight error `1 - w²`.
#[differentiate]
pub fn ba_weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The residuals of an instance, in ADBench's order: `reproj` gets `2p` numbers (x, y per
/// observation), `werr` `p`.
pub fn objective(b: &BaInput, reproj: &mut [f64], werr: &mut [f64]) {
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        let e = ba_reprojection(&b.cams[c], &b.points[q], b.weights[i], &b.feats[i]);
        reproj[2 * i..2 * i + 2].copy_from_slice(&e);
        werr[i] = ba_weight_error(b.weights[i]);
    }
}

/// One observation's Jacobian: its two reprojection rows over `[camera(11), point(3), weight]`,
/// and the derivative of its weight error.
pub type Block = ([[f64; BLOCK]; 2], f64);

/// The generated block: one `_vjp` per reprojection row, one `_jvp` for the weight error.
pub fn generated_block(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> Block {
    let mut rows = [[0.0; BLOCK]; 2];
    for (k, row) in rows.iter_mut().enumerate() {
        let (mut dcam, mut dx, mut dw) = ([0.0; CAM], [0.0; 3], 0.0);
        let mut seed = [0.0; 2];
        seed[k] = 1.0;
        ba_reprojection_vjp(cam, x, w, feat, &mut dcam, &mut dx, &mut dw, seed);
        row[..CAM].copy_from_slice(&dcam);
        row[CAM..CAM + 3].copy_from_slice(&dx);
        row[CAM + 3] = dw;
    }
    (rows, ba_weight_error_jvp(w, 1.0).1)
}

/// The hand-written block, by the chain rule in forward order: the 3 x 9 Jacobian of the rotated
/// point `Z` over `(r, C, X)`, then the projection, the distortion and the affine map.
pub fn hand_block(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> Block {
    let r = [cam[0], cam[1], cam[2]];
    let y = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    // dz[i][j]: ∂Z_i over r_j (j < 3), C_{j-3} (3 ≤ j < 6), X_{j-6} (6 ≤ j < 9).
    let mut dz = [[0.0; 9]; 3];
    let theta2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let z: [f64; 3];
    if theta2 != 0.0 {
        let theta = theta2.sqrt();
        let (s, c) = theta.sin_cos();
        let v = [r[0] / theta, r[1] / theta, r[2] / theta];
        let vy = v[0] * y[0] + v[1] * y[1] + v[2] * y[2];
        let vxy = cross(&v, &y);
        z = std::array::from_fn(|i| y[i] * c + vxy[i] * s + v[i] * (vy * (1.0 - c)));
        // ∂Z/∂Y = c I + s [v]× + (1 - c) v vᵀ; [v]× y = v × y.
        let vx = [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]];
        for i in 0..3 {
            for j in 0..3 {
                let eye = if i == j { c } else { 0.0 };
                let dzy = eye + s * vx[i][j] + (1.0 - c) * v[i] * v[j];
                dz[i][3 + j] = -dzy;
                dz[i][6 + j] = dzy;
            }
        }
        // ∂Z/∂r_k with ∂θ/∂r_k = v_k and ∂v/∂r_k = u = (e_k - v v_k) / θ.
        for k in 0..3 {
            let u: [f64; 3] =
                std::array::from_fn(|i| ((if i == k { 1.0 } else { 0.0 }) - v[i] * v[k]) / theta);
            let uy = u[0] * y[0] + u[1] * y[1] + u[2] * y[2];
            let uxy = cross(&u, &y);
            for i in 0..3 {
                dz[i][k] = -y[i] * s * v[k]
                    + uxy[i] * s
                    + vxy[i] * c * v[k]
                    + (u[i] * vy + v[i] * uy) * (1.0 - c)
                    + v[i] * vy * s * v[k];
            }
        }
    } else {
        let rxy = cross(&r, &y);
        z = std::array::from_fn(|i| y[i] + rxy[i]);
        // ∂Z/∂Y = I + [r]×, ∂Z/∂r_k = e_k × y.
        let rx = [[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]];
        for i in 0..3 {
            for j in 0..3 {
                let dzy = if i == j { 1.0 } else { 0.0 } + rx[i][j];
                dz[i][3 + j] = -dzy;
                dz[i][6 + j] = dzy;
            }
        }
        for k in 0..3 {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            let exy = cross(&e, &y);
            for i in 0..3 {
                dz[i][k] = exy[i];
            }
        }
    }
    // Projection p = (Z0 / Z2, Z1 / Z2).
    let p = [z[0] / z[2], z[1] / z[2]];
    let mut dp = [[0.0; 9]; 2];
    for a in 0..2 {
        for j in 0..9 {
            dp[a][j] = (dz[a][j] - p[a] * dz[2][j]) / z[2];
        }
    }
    // Distortion d = L p, L = 1 + κ1 ρ + κ2 ρ², ρ = ‖p‖².
    let (k1, k2) = (cam[9], cam[10]);
    let rho = p[0] * p[0] + p[1] * p[1];
    let scale = 1.0 + k1 * rho + k2 * rho * rho;
    let dscale_drho = k1 + 2.0 * k2 * rho;
    let d = [scale * p[0], scale * p[1]];
    let f = cam[6];
    let mut rows = [[0.0; BLOCK]; 2];
    for a in 0..2 {
        let row = &mut rows[a];
        for j in 0..9 {
            let drho = 2.0 * (p[0] * dp[0][j] + p[1] * dp[1][j]);
            let dd = scale * dp[a][j] + p[a] * dscale_drho * drho;
            // r, C are camera columns 0..6; X the point columns.
            let col = if j < 6 { j } else { CAM + j - 6 };
            row[col] = w * f * dd;
        }
        row[6] = w * d[a];
        row[7 + a] = w;
        row[9] = w * f * p[a] * rho;
        row[10] = w * f * p[a] * rho * rho;
        let proj = f * d[a] + cam[7 + a];
        row[CAM + 3] = proj - feat[a];
    }
    (rows, -2.0 * w)
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The sparsity pattern of an instance's Jacobian in ADBench's layout, values zero: `3p` rows;
/// columns `11n` cameras, `3m` points, `p` weights; reprojection rows 2i, 2i+1 with 15 entries
/// (camera, point, weight of observation i), then one weight row per observation.
pub fn jacobian_pattern(b: &BaInput) -> Csr {
    let (n, m, p) = (b.n(), b.m(), b.p());
    let mut rows = Vec::with_capacity(3 * p + 1);
    let mut cols = Vec::with_capacity(31 * p);
    rows.push(0);
    for (i, &(c, q)) in b.obs.iter().enumerate() {
        for _ in 0..2 {
            cols.extend(CAM * c..CAM * c + CAM);
            cols.extend(CAM * n + 3 * q..CAM * n + 3 * q + 3);
            cols.push(CAM * n + 3 * m + i);
            rows.push(cols.len());
        }
    }
    for i in 0..p {
        cols.push(CAM * n + 3 * m + i);
        rows.push(cols.len());
    }
    let nnz = cols.len();
    Csr {
        nrows: 3 * p,
        ncols: CAM * n + 3 * m + p,
        rows,
        cols,
        vals: vec![0.0; nnz],
    }
}

/// Fills the values of `j` (made by [`jacobian_pattern`] for `b`) with the blocks `block` gives.
pub fn fill_jacobian(
    b: &BaInput,
    j: &mut Csr,
    block: impl Fn(&[f64; 11], &[f64; 3], f64, &[f64; 2]) -> Block,
) {
    let p = b.p();
    let (reproj, weight) = j.vals.split_at_mut(2 * p * BLOCK);
    for (i, (&(c, q), out)) in b
        .obs
        .iter()
        .zip(reproj.chunks_exact_mut(2 * BLOCK))
        .enumerate()
    {
        let (rows, dw) = block(&b.cams[c], &b.points[q], b.weights[i], &b.feats[i]);
        out[..BLOCK].copy_from_slice(&rows[0]);
        out[BLOCK..].copy_from_slice(&rows[1]);
        weight[i] = dw;
    }
}

/// An instance's Jacobian with the generated blocks.
pub fn generated_jacobian(b: &BaInput) -> Csr {
    let mut j = jacobian_pattern(b);
    fill_jacobian(b, &mut j, generated_block);
    j
}

/// An instance's Jacobian with the hand-written blocks.
pub fn hand_jacobian(b: &BaInput) -> Csr {
    let mut j = jacobian_pattern(b);
    fill_jacobian(b, &mut j, hand_block);
    j
}

//! The angle-axis rotation of ADBench's bundle adjustment, written once under `#[differentiate]`:
//! takes a rotation vector and a point, gives the rotated point. Used by `ba.rs` and, alone
//! (`#[path]`), by the tests of values saved inside branches (`tests/branch_saves*.rs`).

use autodiff_runtime::differentiate;

/// `R(r) y` for the angle-axis vector `r`: Rodrigues' formula
/// `y cos θ + (v × y) sin θ + v (v · y)(1 - cos θ)` with `θ = ‖r‖`, `v = r / θ`, or its
/// first-order expansion `y + r × y` when `r` is exactly zero.
#[differentiate]
pub fn rodrigues_rotate(r: &[f64; 3], y: &[f64; 3]) -> [f64; 3] {
    let theta2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if theta2 != 0.0 {
        let theta = theta2.sqrt();
        let (s, c) = theta.sin_cos();
        let v = [r[0] / theta, r[1] / theta, r[2] / theta];
        let along = (v[0] * y[0] + v[1] * y[1] + v[2] * y[2]) * (1.0 - c);
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

//! Benchmark problems f: four two-variable test functions of optimisation (Rosenbrock,
//! Himmelblau, Beale, Ackley), each taking its point as `&[f64; 2]`. Gives the primal (as a user
//! writes it for `#[differentiate]`) and a hand-written gradient in closed form with the common
//! subexpressions shared, to set the generated `_vjp`/`_grad` and num-dual's forward gradient
//! against.

use std::f64::consts::{E, PI};

/// Rosenbrock's banana: minimum 0 at (1, 1).
pub fn rosenbrock2(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// Himmelblau's function: four minima of value 0, one at (3, 2).
pub fn himmelblau(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

/// Beale's function: minimum 0 at (3, 0.5).
pub fn beale(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    (1.5 - x + x * y).powi(2) + (2.25 - x + x * y * y).powi(2) + (2.625 - x + x * y * y * y).powi(2)
}

/// Ackley's function in two variables: minimum 0 at the origin.
pub fn ackley(p: &[f64; 2]) -> f64 {
    let [x, y] = *p;
    let r = (0.5 * (x * x + y * y)).sqrt();
    let c = 0.5 * ((2.0 * PI * x).cos() + (2.0 * PI * y).cos());
    -20.0 * (-0.2 * r).exp() - c.exp() + E + 20.0
}

/// Value and gradient of [`rosenbrock2`].
pub fn rosenbrock2_gradient(p: &[f64; 2]) -> (f64, [f64; 2]) {
    let [x, y] = *p;
    let u = 1.0 - x;
    let t = y - x * x;
    let value = u.powi(2) + 100.0 * t.powi(2);
    (value, [-2.0 * u - 400.0 * x * t, 200.0 * t])
}

/// Value and gradient of [`himmelblau`].
pub fn himmelblau_gradient(p: &[f64; 2]) -> (f64, [f64; 2]) {
    let [x, y] = *p;
    let a = x * x + y - 11.0;
    let b = x + y * y - 7.0;
    let value = a.powi(2) + b.powi(2);
    (value, [4.0 * x * a + 2.0 * b, 2.0 * a + 4.0 * y * b])
}

/// Value and gradient of [`beale`].
pub fn beale_gradient(p: &[f64; 2]) -> (f64, [f64; 2]) {
    let [x, y] = *p;
    let (y2, y3) = (y * y, y * y * y);
    let a = 1.5 - x + x * y;
    let b = 2.25 - x + x * y2;
    let c = 2.625 - x + x * y3;
    let value = a.powi(2) + b.powi(2) + c.powi(2);
    let (a2, b2, c2) = (2.0 * a, 2.0 * b, 2.0 * c);
    let gx = a2 * (y - 1.0) + b2 * (y2 - 1.0) + c2 * (y3 - 1.0);
    let gy = x * (a2 + b2 * 2.0 * y + c2 * 3.0 * y2);
    (value, [gx, gy])
}

/// Value and gradient of [`ackley`]: one `sin_cos` per coordinate, the exponentials reused.
pub fn ackley_gradient(p: &[f64; 2]) -> (f64, [f64; 2]) {
    let [x, y] = *p;
    let r = (0.5 * (x * x + y * y)).sqrt();
    let (sx, cx) = (2.0 * PI * x).sin_cos();
    let (sy, cy) = (2.0 * PI * y).sin_cos();
    let c = 0.5 * (cx + cy);
    let e1 = (-0.2 * r).exp();
    let e2 = c.exp();
    let value = -20.0 * e1 - e2 + E + 20.0;
    // d/dx of -20 e1 = 4 e1 dr/dx with dr/dx = 0.5 x / r (0 at the origin, as the generated code).
    let radial = if r > 0.0 { 2.0 * e1 / r } else { 0.0 };
    let ring = PI * e2;
    (value, [radial * x + ring * sx, radial * y + ring * sy])
}

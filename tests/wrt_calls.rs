//! Calls from differentiated functions to functions declared with `wrt(...)` (issue 9): the
//! caller passes tangents and adjoints for the callee's `wrt` parameters only (the callee's
//! public signature), values alone at the others. Every callee here comes before its callers in
//! the file, which is what the macro needs to know the callee's `wrt` (README, "Calls of
//! functions with `wrt(...)`"); the rejected forms are ui cases (tests/ui/wrt_call_*.rs).
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::{differentiate, stop_gradient, Differentiable};
use common::*;

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

#[differentiate(wrt(y))]
fn scaled_sin(x: f64, y: f64) -> f64 {
    x * y.sin()
}

/// The constant argument a literal and a computed constant.
#[differentiate]
fn call_scaled(x: f64, y: f64) -> f64 {
    let k = 3.0;
    let a = scaled_sin(2.0, x * y);
    let b = scaled_sin(k * 0.5, y);
    a + b * x
}

/// An active value held constant by `stop_gradient` for the callee's non-`wrt` parameter.
#[differentiate]
fn call_stopped(x: f64, y: f64) -> f64 {
    scaled_sin(stop_gradient(x), y) + x
}

#[test]
fn stop_gradient_argument() {
    for &(x, y) in &[(0.3, -1.1), (1.2, 0.4)] {
        // d/dx = 1 (x held constant inside the call), d/dy = x cos y.
        let (v, dx) = call_stopped_jvp(x, y, 1.0, 0.0);
        let (_, dy) = call_stopped_jvp(x, y, 0.0, 1.0);
        assert_eq!(v, x * y.sin() + x);
        assert_eq!(call_stopped(x, y), v);
        assert!((dx - 1.0).abs() < 1e-15);
        assert!((dy - x * y.cos()).abs() < 1e-15);
        let (mut gx, mut gy) = (0.0, 0.0);
        assert_eq!(call_stopped_vjp(x, y, &mut gx, &mut gy, 1.0), v);
        assert!((gx - 1.0).abs() < 1e-15 && (gy - x * y.cos()).abs() < 1e-15);
    }
}

#[test]
fn scalar_callee_with_wrt() {
    chk!(call_scaled, call_scaled_jvp, call_scaled_vjp; 0, 1).random(6, -1.5, 1.5);
}

/// The caller's own `wrt` leaves `k` out: a constant for the callee's non-`wrt` parameter.
#[differentiate(wrt(y))]
fn call_scaled_by_arg(k: f64, y: f64) -> f64 {
    scaled_sin(k, y) * y
}

#[test]
fn constant_argument_of_the_caller() {
    let k = 0.7;
    Harness::new(1)
        .primal(|p| vec![call_scaled_by_arg(k, p[0])])
        .jvp(|p, t| {
            let (v, d) = call_scaled_by_arg_jvp(k, p[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![call_scaled_by_arg_vjp(k, p[0], &mut g[0], c[0])])
        .random(6, -1.5, 1.5);
}

/// A callee whose `wrt` parameter is not the first, with an integer in between.
#[differentiate(wrt(b, c))]
fn mixed(a: f64, n: usize, b: f64, c: f64) -> f64 {
    a * b.powi(n as i32) + c.exp() * a
}

#[differentiate]
fn call_mixed(x: f64, y: f64) -> f64 {
    let s = mixed(1.5, 2, x, y) + mixed(-0.5, 3, y, x * y);
    s * s
}

#[test]
fn wrt_subset_in_the_middle() {
    chk!(call_mixed, call_mixed_jvp, call_mixed_vjp; 0, 1).random(6, -1.2, 1.2);
}

// ---------------------------------------------------------------------------------------------
// f32
// ---------------------------------------------------------------------------------------------

#[differentiate(wrt(y))]
fn scaled_sin32(x: f32, y: f32) -> f32 {
    x * y.sin() + x
}

#[differentiate]
fn call_scaled32(x: f32, y: f32) -> f32 {
    scaled_sin32(0.5, x * y) * y + scaled_sin32(2.0, y)
}

#[test]
fn f32_callee_with_wrt() {
    chk32!(call_scaled32, call_scaled32_jvp, call_scaled32_vjp; 0, 1).random(6, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Sequences, in loops and branches
// ---------------------------------------------------------------------------------------------

#[differentiate(wrt(v))]
fn weighted(w: &[f64], v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += w[i] * v[i] * v[i];
    }
    s
}

/// Weights held constant: a local `Vec` of constants and a sub-slice of one, in a loop and in a
/// branch.
#[differentiate]
fn call_weighted(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut w = vec![0.0; n];
    for i in 0..n {
        w[i] = 1.0 + i as f64;
    }
    let mut s = weighted(&w, v) * x;
    for k in 0..2 {
        s += weighted(&w[k..k + 2], &v[k..k + 2]);
    }
    if x > 0.0 {
        s = s * weighted(&w[1..], &v[1..]);
    }
    s
}

#[test]
fn sequence_callee_with_wrt() {
    chk_xv!(call_weighted, call_weighted_jvp, call_weighted_vjp; 4).random(6, -1.5, 1.5);
}

#[differentiate(wrt(v))]
fn weighted32(w: &[f32], v: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += w[i] * v[i].sin();
    }
    s
}

#[differentiate]
fn call_weighted32(x: f32, v: &[f32]) -> f32 {
    let w = [0.5f32, -1.0, 2.0];
    weighted32(&w, v) * x + weighted32(&w[1..], &v[1..])
}

#[test]
fn f32_sequence_callee_with_wrt() {
    chk32_xv!(call_weighted32, call_weighted32_jvp, call_weighted32_vjp; 3).random(6, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Call statements writing through `&mut` (`_vjp_dropped`)
// ---------------------------------------------------------------------------------------------

/// `k` outside `wrt`; `out` in-out.
#[differentiate(wrt(v, out))]
fn fill_scaled(k: f64, v: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = out[i] * v[i] + k * v[i].sin();
    }
}

#[differentiate]
fn call_fill(x: f64, v: &[f64]) -> f64 {
    let mut r = vec![1.0; v.len()];
    for i in 0..v.len() {
        r[i] = r[i] + x * v[i];
    }
    fill_scaled(0.5, v, &mut r);
    fill_scaled(2.0, &v[..], &mut r);
    let mut s = 0.0;
    for i in 0..r.len() {
        s += r[i] * r[i];
    }
    s
}

#[test]
fn call_statement_with_wrt() {
    chk_xv!(call_fill, call_fill_jvp, call_fill_vjp; 3).random(6, -1.2, 1.2);
}

/// A callee giving a value and writing through `&mut`, bound by `let`.
#[differentiate(wrt(v, out))]
fn fill_sum(k: f64, v: &[f64], out: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..out.len() {
        out[i] = k * v[i] * out[i];
        s += out[i];
    }
    s
}

#[differentiate]
fn call_fill_sum(x: f64, v: &[f64]) -> f64 {
    let mut r = vec![x; v.len()];
    let s = fill_sum(1.5, v, &mut r);
    s * r[0] + r[1]
}

#[test]
fn let_call_with_mut_and_wrt() {
    chk_xv!(call_fill_sum, call_fill_sum_jvp, call_fill_sum_vjp; 3).random(6, -1.2, 1.2);
}

// ---------------------------------------------------------------------------------------------
// Split mode, vector mode, second order
// ---------------------------------------------------------------------------------------------

#[differentiate(split)]
fn call_scaled_split(x: f64, y: f64) -> f64 {
    scaled_sin(1.5, x * y) + scaled_sin(-0.5, y) * x
}

#[test]
fn split_caller() {
    for &(x, y) in &[(0.3, -1.1), (1.2, 0.4)] {
        let (v, pb) = call_scaled_split_vjp_split(x, y);
        let (mut gx, mut gy) = (0.0, 0.0);
        pb(&mut gx, &mut gy, 1.0);
        let (mut hx, mut hy) = (0.0, 0.0);
        let w = call_scaled_split_vjp(x, y, &mut hx, &mut hy, 1.0);
        assert_eq!(v, w);
        assert_eq!((gx, gy), (hx, hy));
        let h = 1e-6;
        let fd_x = (call_scaled_split(x + h, y) - call_scaled_split(x - h, y)) / (2.0 * h);
        let fd_y = (call_scaled_split(x, y + h) - call_scaled_split(x, y - h)) / (2.0 * h);
        assert!(
            (gx - fd_x).abs() < 1e-7 * (1.0 + fd_x.abs()),
            "{gx} vs {fd_x}"
        );
        assert!(
            (gy - fd_y).abs() < 1e-7 * (1.0 + fd_y.abs()),
            "{gy} vs {fd_y}"
        );
    }
}

#[differentiate(wrt(y), vector)]
fn scaled_cos_v(x: f64, y: f64) -> f64 {
    x * y.cos()
}

#[differentiate(vector)]
fn call_scaled_vector(x: f64, y: f64) -> f64 {
    scaled_cos_v(2.5, x * y) + y
}

#[test]
fn vector_caller() {
    for &(x, y) in &[(0.3, -1.1), (1.2, 0.4)] {
        let (v, d) = call_scaled_vector_jvpn(x, y, [1.0, 0.0, 0.5], [0.0, 1.0, -2.0]);
        for (k, (tx, ty)) in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)]
            .into_iter()
            .enumerate()
        {
            let (w, e) = call_scaled_vector_jvp(x, y, tx, ty);
            assert_eq!(v, w);
            assert_eq!(d[k], e);
        }
        chk!(call_scaled_vector, call_scaled_vector_jvp, call_scaled_vector_vjp; 0, 1)
            .at(&[&[x, y]]);
    }
}

#[differentiate(wrt(y), hvp)]
fn scaled_exp_h(x: f64, y: f64) -> f64 {
    x * (y * y).exp()
}

#[differentiate(hvp)]
fn call_scaled_hvp(x: f64, y: f64) -> f64 {
    scaled_exp_h(0.5, x * y) * x
}

#[test]
fn hvp_caller() {
    let (x, y) = (0.4, -0.3);
    chk!(call_scaled_hvp, call_scaled_hvp_jvp, call_scaled_hvp_vjp; 0, 1).at(&[&[x, y]]);
    // Hessian x direction against central differences of the gradient.
    let (dx, dy) = (0.7, -1.3);
    let (_, _, hv) = call_scaled_hvp_hvp(x, y, dx, dy);
    let h = 1e-5;
    let (_, gp) = call_scaled_hvp_grad(x + h * dx, y + h * dy);
    let (_, gm) = call_scaled_hvp_grad(x - h * dx, y - h * dy);
    let fd = [(gp.x - gm.x) / (2.0 * h), (gp.y - gm.y) / (2.0 * h)];
    assert!(
        (hv.x - fd[0]).abs() < 1e-6 * (1.0 + fd[0].abs()),
        "{} vs {}",
        hv.x,
        fd[0]
    );
    assert!(
        (hv.y - fd[1]).abs() < 1e-6 * (1.0 + fd[1].abs()),
        "{} vs {}",
        hv.y,
        fd[1]
    );
}

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Spring {
    pub k: f64,
    pub rest: f64,
}

impl Spring {
    /// Differentiated with respect to the spring and the stretch; `scale` is a constant.
    #[differentiate(wrt(self, x))]
    pub fn energy(&self, x: f64, scale: f64) -> f64 {
        let d = x - self.rest;
        0.5 * self.k * d * d * scale
    }

    #[differentiate]
    pub fn total(&self, x: f64) -> f64 {
        self.energy(x, 2.0) + Spring::energy(self, x * x, 0.5) + x.sin() * self.k
    }
}

#[test]
fn method_callee_with_wrt() {
    let spring = |v: &[f64]| Spring {
        k: v[0],
        rest: v[1],
    };
    let tangent = |v: &[f64]| SpringTangent {
        k: v[0],
        rest: v[1],
    };
    Harness::new(3)
        .primal(|p| vec![spring(p).total(p[2])])
        .jvp(|p, t| {
            let (v, d) = spring(p).total_jvp(p[2], &tangent(t), t[2]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut b = tangent(&[0.0; 2]);
            let mut bx = 0.0;
            let v = spring(p).total_vjp(p[2], &mut b, &mut bx, c[0]);
            g[0] += b.k;
            g[1] += b.rest;
            g[2] += bx;
            vec![v]
        })
        .random(6, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Modules: a callee in a module declared earlier, called by path; a caller in a later module
// calling a callee of its parent
// ---------------------------------------------------------------------------------------------

mod physics {
    use autodiff_runtime::differentiate;

    #[differentiate(wrt(x))]
    pub fn damped(c: f64, x: f64) -> f64 {
        (-c * x).exp() * x
    }
}

mod model {
    use autodiff_runtime::differentiate;

    #[differentiate]
    pub fn model(x: f64, y: f64) -> f64 {
        crate::physics::damped(0.5, x * y) + super::scaled_sin(1.5, y) * x
    }
}

#[test]
fn callees_in_modules() {
    use model::{model, model_jvp, model_vjp};
    chk!(model, model_jvp, model_vjp; 0, 1).random(6, -1.2, 1.2);
}

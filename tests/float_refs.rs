//! Floats passed by shared reference to differentiated functions (issue 9 item 2): `g(&y)` with
//! `y` a float local or expression, and `g(x)` with `x: &f64` an argument, for a callee taking
//! `&f64` (tangent `&f64`, adjoint `&mut f64`), in both modes against central differences and
//! the dot-product test, f64 and f32.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn scale_by(k: &f64, x: f64) -> f64 {
    *k * x.sin() + k.tanh() * 0.5
}

/// A local, a constant, an expression, and a value overwritten by the call's result (whose
/// adjoint the statement's reverse zeroes before the call's contribution comes in).
#[differentiate]
fn call_ref(x: f64, y: f64) -> f64 {
    let k = x * y;
    let c = 0.5;
    let mut s = scale_by(&k, y) + scale_by(&c, x) + scale_by(&(x + 1.0), k);
    for _ in 0..3 {
        s = scale_by(&s, y) * 0.5 + s;
    }
    s
}

#[test]
fn float_by_reference_to_a_call() {
    chk!(call_ref, call_ref_jvp, call_ref_vjp; 0, 1).random(6, -1.2, 1.2);
}

/// A `&f64` argument passed on bare, and read.
#[differentiate]
fn pass_on(x: &f64, y: f64) -> f64 {
    scale_by(x, y) * *x + scale_by(&y, *x)
}

#[test]
fn float_reference_argument_passed_on() {
    Harness::new(2)
        .primal(|p| vec![pass_on(&p[0], p[1])])
        .jvp(|p, t| {
            let (v, d) = pass_on_jvp(&p[0], p[1], &t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![pass_on_vjp(&p[0], p[1], &mut a[0], &mut b[0], c[0])]
        })
        .random(6, -1.2, 1.2);
}

#[differentiate]
fn scale_by32(k: &f32, x: f32) -> f32 {
    *k * x.cos()
}

#[differentiate]
fn call_ref32(x: f32, y: f32) -> f32 {
    let k = x * y;
    scale_by32(&k, y) + scale_by32(&x, k) * y
}

#[test]
fn float_by_reference_f32() {
    chk32!(call_ref32, call_ref32_jvp, call_ref32_vjp; 0, 1).random(6, -1.2, 1.2);
}

#[differentiate(hvp, vector)]
fn cube_ref(k: &f64, x: f64) -> f64 {
    *k * *k * x
}

#[differentiate(hvp, vector, split)]
fn call_cube(x: f64, y: f64) -> f64 {
    let k = x + y;
    cube_ref(&k, y) + cube_ref(&x, 2.0)
}

#[test]
fn float_by_reference_second_order_vector_split() {
    let (x, y) = (0.4, -0.7);
    chk!(call_cube, call_cube_jvp, call_cube_vjp; 0, 1).at(&[&[x, y]]);
    let (v, d) = call_cube_jvpn(x, y, [1.0, 0.0], [0.0, 1.0]);
    let (_, g) = call_cube_grad(x, y);
    assert_eq!(v, call_cube(x, y));
    assert!((d[0] - g.x).abs() < 1e-12 && (d[1] - g.y).abs() < 1e-12);
    let (w, pb) = call_cube_vjp_split(x, y);
    let (mut gx, mut gy) = (0.0, 0.0);
    pb(&mut gx, &mut gy, 1.0);
    assert_eq!(w, v);
    assert!((gx - g.x).abs() < 1e-12 && (gy - g.y).abs() < 1e-12);
    // Hessian x direction against central differences of the gradient.
    let (dx, dy) = (0.3, 1.1);
    let (_, _, hv) = call_cube_hvp(x, y, dx, dy);
    let h = 1e-5;
    let (_, gp) = call_cube_grad(x + h * dx, y + h * dy);
    let (_, gm) = call_cube_grad(x - h * dx, y - h * dy);
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

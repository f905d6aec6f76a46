//! The strong zero through calls of functions differentiated earlier in the crate: takes callers
//! whose own primitives need no strong zero and callees that do (a singular `sqrt`, a pole `ln`
//! the caller's selector makes finite) and smooth callees the reverse sweep multiplies plainly
//! (`registry::edges`, `reverse::scale_fn`), gives exact values at the points where an infinite
//! partial meets a zero factor, and checks of both modes against central differences and by the
//! dot-product test elsewhere.
#![allow(clippy::all)]
#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// Singular at 0.
#[differentiate]
fn root(x: f64) -> f64 {
    x.sqrt()
}

/// `root` of an identically zero value: its adjoint (infinite) meets the zero partial of
/// `0.0 * x` in this function, whose own primitives are smooth.
#[differentiate]
fn via_root(x: f64) -> f64 {
    root(0.0 * x) + x
}

/// A pole at 0.
#[differentiate]
fn log_of(x: f64) -> f64 {
    x.ln()
}

/// The pole's infinite value turned finite by a selector of the caller.
#[differentiate]
fn clamped_via(x: f64) -> f64 {
    log_of(x).max(-10.0) + x
}

/// Smooth, called in a loop: plain products in the caller.
#[differentiate]
fn cubic(x: f64, c: f64) -> f64 {
    c * x * x * x - x
}

#[differentiate]
fn sum_cubics(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += cubic(x[i], c) * x[i];
    }
    s
}

#[test]
fn singular_callee_keeps_the_strong_zero() {
    for x in [0.5, -1.5, 0.0] {
        let (v, g) = via_root_grad(x);
        assert_eq!(v, x);
        assert_eq!(g.x, 1.0, "d/dx of sqrt(0 x) + x at {x}");
        assert_eq!(via_root_jvp(x, 1.0), (x, 1.0));
    }
    chk!(via_root, via_root_jvp, via_root_vjp; 0).random(4, -2.0, 2.0);
}

/// Both modes give the strong zero at 0: `log_of_vjp` multiplies its seed by `ln`'s infinite
/// partial plainly (it has no selector of its own and cannot see its caller's), so the caller,
/// whose selector cut the value off, skips the call when the seed it would pass is zero.
#[test]
fn callee_pole_behind_a_caller_selector() {
    assert_eq!(clamped_via_jvp(0.0, 1.0), (-10.0, 1.0));
    assert_eq!(clamped_via_grad(0.0), (-10.0, ClampedViaGrad { x: 1.0 }));
    let mut dx = 0.5;
    assert_eq!(clamped_via_vjp(0.0, &mut dx, 2.0), -10.0);
    assert_eq!(dx, 2.5);
    assert_eq!(clamped_via_grad(1e-300).1, ClampedViaGrad { x: 1.0 });
    chk!(clamped_via, clamped_via_jvp, clamped_via_vjp; 0).at(&[&[0.5], &[2.0], &[1e-6]]);
}

/// The same through a callee with an array output: cut off whole, the seed `[0, 0]` skips the
/// call; cut off in part (`[0, s]`), the callee multiplies its pole's partials with the strong
/// zero itself (a function with a pole and several float outputs does).
#[differentiate]
fn log_pair(x: f64) -> [f64; 2] {
    [x.ln(), x.ln() * 2.0]
}

#[differentiate]
fn clamped_pair(x: f64) -> f64 {
    let p: [f64; 2] = log_pair(x);
    p[0].max(-10.0) + p[1].max(-20.0) + x
}

#[differentiate]
fn log_and_line(x: f64) -> [f64; 2] {
    [x.ln(), 3.0 * x]
}

#[differentiate]
fn clamped_part(x: f64) -> f64 {
    let p: [f64; 2] = log_and_line(x);
    p[0].max(-10.0) + p[1] + x
}

/// The same through a `&mut` buffer the callee fills.
#[differentiate]
fn fill_log(x: f64, out: &mut [f64; 2]) {
    out[0] = 2.0 * x;
    out[1] = x.ln() / 2.0;
}

#[differentiate]
fn clamped_fill(x: f64) -> f64 {
    let mut b = [0.0; 2];
    fill_log(x, &mut b);
    b[0] + b[1].max(-10.0)
}

#[test]
fn callee_pole_with_an_array_output() {
    assert_eq!(clamped_pair_grad(0.0), (-30.0, ClampedPairGrad { x: 1.0 }));
    assert_eq!(clamped_pair_jvp(0.0, 1.0), (-30.0, 1.0));
    chk!(clamped_pair, clamped_pair_jvp, clamped_pair_vjp; 0).at(&[&[0.5], &[2.0], &[1e-3]]);
    assert_eq!(clamped_part_grad(0.0), (-10.0, ClampedPartGrad { x: 4.0 }));
    assert_eq!(clamped_part_jvp(0.0, 1.0), (-10.0, 4.0));
    chk!(clamped_part, clamped_part_jvp, clamped_part_vjp; 0).at(&[&[0.5], &[2.0], &[1e-3]]);
    assert_eq!(clamped_fill_grad(0.0), (-10.0, ClampedFillGrad { x: 2.0 }));
    assert_eq!(clamped_fill_jvp(0.0, 1.0), (-10.0, 2.0));
    chk!(clamped_fill, clamped_fill_jvp, clamped_fill_vjp; 0).at(&[&[0.5], &[2.0], &[1e-3]]);
}

#[test]
fn smooth_callee_in_a_loop() {
    for len in [0usize, 1, 4] {
        let h = Harness::new(len + 1)
            .primal(|p| vec![sum_cubics(&p[..len], p[len])])
            .jvp(|p, t| {
                let (v, d) = sum_cubics_jvp(&p[..len], p[len], &t[..len], t[len]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(len);
                vec![sum_cubics_vjp(&p[..len], p[len], a, &mut b[0], c[0])]
            });
        h.random(3, -1.5, 1.5);
    }
}

/// Second order through the same cut-off pole: `_hvp` runs the callees' generic `_vjp` on
/// `Dual` seeds, skipped only when value and tangent are both zero.
#[differentiate(hvp)]
fn log_h(x: f64) -> f64 {
    x.ln()
}

#[differentiate(hvp)]
fn clamped_h(x: f64) -> f64 {
    log_h(x).max(-10.0) + x * x * x
}

#[test]
fn callee_pole_behind_a_caller_selector_second_order() {
    assert_eq!(clamped_h(0.0), -10.0);
    let (v, g, hv) = clamped_h_hvp(0.0, 1.0);
    assert_eq!((v, g.x, hv.x), (-10.0, 0.0, 0.0));
    // Away from the pole, the second derivative of ln x + x^3 is -1/x^2 + 6x.
    let (_, g, hv) = clamped_h_hvp(0.5, 2.0);
    assert!((g.x - (2.0 + 0.75)).abs() < 1e-14, "{}", g.x);
    assert!((hv.x - 2.0 * (-4.0 + 3.0)).abs() < 1e-13, "{}", hv.x);
}

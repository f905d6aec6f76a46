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

/// Forward mode gives the strong zero at 0. Reverse mode does not yet (NaN): `log_of_vjp`
/// multiplies its zero seed by `ln`'s infinite partial plainly, having no selector of its own
/// (the callee cannot see its caller's); a known limit, the same before callers took their
/// callees' edges into account.
#[test]
fn callee_pole_behind_a_caller_selector() {
    assert_eq!(clamped_via_jvp(0.0, 1.0), (-10.0, 1.0));
    assert_eq!(clamped_via_grad(1e-300).1, ClampedViaGrad { x: 1.0 });
    chk!(clamped_via, clamped_via_jvp, clamped_via_vjp; 0).at(&[&[0.5], &[2.0], &[1e-6]]);
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

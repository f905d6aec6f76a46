//! Tuples of floats and float arrays as arguments (issue 10): `p: (f64, f64)` by value or
//! `&(f64, [f64; 2])` by reference, read as `p.0`, `q.1[i]`; the tangent is the tuple of the
//! parts' tangents, the adjoint a `&mut` of it, the `<F>Grad` field the tuple.
#![allow(clippy::all)]
#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn tuple_energy(p: (f64, f64), q: &(f64, [f64; 2]), y: f64) -> f64 {
    let mut e = p.0 * p.1.sin();
    for i in 0..2 {
        e += q.0 * q.1[i] * y + (q.1[i] * p.0).cos();
    }
    e
}

fn parts(x: &[f64]) -> ((f64, f64), (f64, [f64; 2]), f64) {
    ((x[0], x[1]), (x[2], [x[3], x[4]]), x[5])
}

#[test]
fn tuples_of_floats_and_arrays_as_arguments() {
    Harness::new(6)
        .primal(|x| {
            let (p, q, y) = parts(x);
            vec![tuple_energy(p, &q, y)]
        })
        .jvp(|x, t| {
            let ((p, q, y), (dp, dq, dy)) = (parts(x), parts(t));
            let (v, d) = tuple_energy_jvp(p, &q, y, dp, &dq, dy);
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let (p, q, y) = parts(x);
            let (mut dp, mut dq, mut dy) = ((0.0, 0.0), (0.0, [0.0; 2]), 0.0);
            let v = tuple_energy_vjp(p, &q, y, &mut dp, &mut dq, &mut dy, c[0]);
            let out = [dp.0, dp.1, dq.0, dq.1[0], dq.1[1], dy];
            for (gi, oi) in g.iter_mut().zip(out) {
                *gi += oi;
            }
            vec![v]
        })
        .random(8, -1.5, 1.5);
    // `_grad`: one field per argument, the tuples as tuples.
    let (p, q, y) = ((0.5, 1.2), (0.3, [0.7, -0.4]), 1.5);
    let (v, g) = tuple_energy_grad(p, &q, y);
    let (mut dp, mut dq, mut dy) = ((0.0, 0.0), (0.0, [0.0; 2]), 0.0);
    assert_eq!(
        v,
        tuple_energy_vjp(p, &q, y, &mut dp, &mut dq, &mut dy, 1.0)
    );
    assert_eq!((g.p, g.q, g.y), (dp, dq, dy));
}

/// A tuple taken by `&mut`: in-out, its tangent and adjoint updated in place.
#[differentiate]
fn tuple_step(p: &mut (f64, f64), y: f64) -> f64 {
    p.0 = p.0 * y + p.1.sin();
    p.1 *= p.0;
    p.0 + p.1
}

#[test]
fn a_tuple_taken_by_mut_is_in_out() {
    // Outputs: the value and the tuple after the call; inputs: the tuple before and `y`.
    Harness::new(3)
        .primal(|x| {
            let mut p = (x[0], x[1]);
            let v = tuple_step(&mut p, x[2]);
            vec![v, p.0, p.1]
        })
        .jvp(|x, t| {
            let (mut p, mut dp) = ((x[0], x[1]), (t[0], t[1]));
            let (v, d) = tuple_step_jvp(&mut p, x[2], &mut dp, t[2]);
            (vec![v, p.0, p.1], vec![d, dp.0, dp.1])
        })
        .vjp(|x, c, g| {
            // The adjoint of `p` goes in holding the seed of `p` after, comes out holding `p`'s
            // adjoint before.
            let (mut p, mut bp, mut by) = ((x[0], x[1]), (c[1], c[2]), 0.0);
            let v = tuple_step_vjp(&mut p, x[2], &mut bp, &mut by, c[0]);
            g[0] += bp.0;
            g[1] += bp.1;
            g[2] += by;
            vec![v, p.0, p.1]
        })
        .random(8, -1.5, 1.5);
}

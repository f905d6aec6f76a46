//! `#[checkpoint]` on a `for` loop inside a `#[differentiate]` function: takes time-stepping loops
//! whose body is one in-place step call (states in a `Vec` local, a `&mut [T]` argument, an
//! array, a float), in f32 and f64, with the index read by the step, inclusive ranges, snapshot
//! budgets, a loop inside another loop and one the exit normalisation moves into a branch; gives
//! checks that the gradient equals the same function without the attribute bit for bit, that it
//! passes central differences and the dot-product test against `_jvp`, that in-out arguments
//! follow the in-out convention (and keep their final contents), and that `_hvp` composes.
#![allow(dead_code, clippy::needless_range_loop)]

mod common;
use autodiff_runtime::differentiate;
use common::*;

/// One damped, forced oscillator step, in place.
#[differentiate(hvp)]
fn step(s: &mut [f64], k: f64, f: f64) {
    let v = s[1] - 0.01 * (k * s[0] + 0.1 * s[1] * s[1] - f);
    s[0] += 0.01 * v;
    s[1] = v;
}

/// The same on an array, giving the kinetic energy (dropped by the callers).
#[differentiate]
fn step_arr(s: &mut [f64; 2], k: f64) -> f64 {
    let v = s[1] - 0.01 * (k * s[0].sin() + 0.1 * s[1]);
    s[0] += 0.01 * v;
    s[1] = v;
    0.5 * v * v
}

/// The logistic map on a float.
#[differentiate]
fn logistic(x: &mut f64, r: f64) {
    *x = r * *x * (1.0 - *x);
}

#[differentiate(hvp)]
fn sim_ck(s0: &[f64], k: f64, forcing: &[f64], n: usize) -> f64 {
    let mut s = s0.to_vec();
    #[checkpoint]
    for i in 0..n {
        step(&mut s, k, forcing[i]);
    }
    s[0] * s[0] + s[1]
}

#[differentiate(hvp)]
fn sim(s0: &[f64], k: f64, forcing: &[f64], n: usize) -> f64 {
    let mut s = s0.to_vec();
    for i in 0..n {
        step(&mut s, k, forcing[i]);
    }
    s[0] * s[0] + s[1]
}

#[differentiate]
fn sim_budget(s0: &[f64], k: f64, forcing: &[f64], n: usize, snaps: usize) -> f64 {
    let mut s = s0.to_vec();
    #[checkpoint(snapshots = snaps)]
    for i in 0..n {
        step(&mut s, k, forcing[i]);
    }
    s[0] * s[0] + s[1]
}

/// The state an in-out argument: `_vjp` takes the final state's adjoint and gives the initial's.
#[differentiate]
fn advance_ck(s: &mut [f64], k: f64, n: usize) {
    #[checkpoint(snapshots = 3)]
    for i in 1..=n {
        step(s, k, 1.0 / i as f64);
    }
}

#[differentiate]
fn advance(s: &mut [f64], k: f64, n: usize) {
    for i in 1..=n {
        step(s, k, 1.0 / i as f64);
    }
}

#[differentiate]
fn arr_ck(a: f64, k: f64, n: usize) -> f64 {
    let mut s = [a, 0.0];
    #[checkpoint(snapshots = 2)]
    for _ in 0..n {
        step_arr(&mut s, k);
    }
    s[0] + 2.0 * s[1]
}

#[differentiate]
fn arr(a: f64, k: f64, n: usize) -> f64 {
    let mut s = [a, 0.0];
    for _ in 0..n {
        step_arr(&mut s, k);
    }
    s[0] + 2.0 * s[1]
}

#[differentiate]
fn logistic_ck(x0: f64, r: f64, n: usize) -> f64 {
    let mut x = x0;
    #[checkpoint]
    for _ in 0..n {
        logistic(&mut x, r);
    }
    x
}

/// After an early exit (the rest of the body moves into a branch) and inside an outer loop, with
/// immutable values declared there read by the steps.
#[differentiate]
fn nested_ck(s0: &[f64], k: f64, n: usize, m: usize) -> f64 {
    if n == 0 {
        return s0[0];
    }
    let k2 = k * 1.5;
    let mut s = s0.to_vec();
    let mut acc = 0.0;
    for e in 0..m {
        let push = 0.1 * e as f64 + k2;
        #[checkpoint(snapshots = 2)]
        for _ in 0..n {
            step(&mut s, k2, push);
        }
        acc += s[0] * s[1];
        s[1] *= 0.5;
    }
    acc + s[0]
}

#[differentiate]
fn nested(s0: &[f64], k: f64, n: usize, m: usize) -> f64 {
    if n == 0 {
        return s0[0];
    }
    let k2 = k * 1.5;
    let mut s = s0.to_vec();
    let mut acc = 0.0;
    for e in 0..m {
        let push = 0.1 * e as f64 + k2;
        for _ in 0..n {
            step(&mut s, k2, push);
        }
        acc += s[0] * s[1];
        s[1] *= 0.5;
    }
    acc + s[0]
}

#[differentiate]
fn step32(s: &mut [f32], k: f32) {
    let v = s[1] - 0.01 * (k * s[0] + 0.1 * s[1]);
    s[0] += 0.01 * v;
    s[1] = v;
}

#[differentiate]
fn sim32_ck(s0: &[f32], k: f32, n: usize) -> f32 {
    let mut s = s0.to_vec();
    #[checkpoint]
    for _ in 0..n {
        step32(&mut s, k);
    }
    s[0] * s[1]
}

#[differentiate]
fn sim32(s0: &[f32], k: f32, n: usize) -> f32 {
    let mut s = s0.to_vec();
    for _ in 0..n {
        step32(&mut s, k);
    }
    s[0] * s[1]
}

fn forcing(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.37).sin()).collect()
}

const STEPS: [usize; 8] = [0, 1, 2, 3, 7, 31, 100, 331];

#[test]
fn the_gradient_is_the_plain_one_bit_for_bit() {
    for n in STEPS {
        let f = forcing(n);
        let s0 = [0.8, -0.3];
        let (a, ga) = sim_ck_grad(&s0, 2.0, &f, n);
        let (b, gb) = sim_grad(&s0, 2.0, &f, n);
        assert_eq!(a, b, "{n} steps");
        assert_eq!(
            (&ga.s0, ga.k, &ga.forcing),
            (&gb.s0, gb.k, &gb.forcing),
            "{n} steps"
        );
        for snaps in [1, 2, 3, 5, n + 1] {
            let (c, gc) = sim_budget_grad(&s0, 2.0, &f, n, snaps);
            assert_eq!(c, b);
            assert_eq!(
                (&gc.s0, gc.k, &gc.forcing),
                (&gb.s0, gb.k, &gb.forcing),
                "{n}, {snaps}"
            );
        }
    }
}

#[test]
fn matches_differences_and_the_forward_mode() {
    let n = 40;
    let f = forcing(n);
    Harness::new(3 + n)
        .primal(|p| vec![sim_ck(&p[0..2], p[2], &p[3..], n)])
        .jvp(|p, t| {
            let (v, d) = sim_ck_jvp(&p[0..2], p[2], &p[3..], n, &t[0..2], t[2], &t[3..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gs, rest) = g.split_at_mut(2);
            let (gk, gf) = rest.split_at_mut(1);
            vec![sim_ck_vjp(
                &p[0..2],
                p[2],
                &p[3..],
                n,
                gs,
                &mut gk[0],
                gf,
                c[0],
            )]
        })
        .at(&[&[&[0.8, -0.3, 2.0][..], &f[..]].concat()]);
    Harness::new(2)
        .primal(|p| vec![logistic_ck(p[0], p[1], 25)])
        .jvp(|p, t| {
            let (v, d) = logistic_ck_jvp(p[0], p[1], 25, t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![logistic_ck_vjp(p[0], p[1], 25, &mut a[0], &mut b[0], c[0])]
        })
        .at(&[&[0.3, 3.2], &[0.6, 2.5]]);
}

#[test]
fn arrays_floats_and_nested_loops_agree_with_the_plain_gradient() {
    for n in STEPS {
        let (a, ga) = arr_ck_grad(0.4, 3.0, n);
        let (b, gb) = arr_grad(0.4, 3.0, n);
        assert_eq!((a, ga.a, ga.k), (b, gb.a, gb.k), "{n} steps");
        for m in [0, 1, 3] {
            let (a, ga) = nested_ck_grad(&[0.5, 0.2], 1.1, n, m);
            let (b, gb) = nested_grad(&[0.5, 0.2], 1.1, n, m);
            assert_eq!(
                (a, &ga.s0, ga.k),
                (b, &gb.s0, gb.k),
                "{n} steps, {m} rounds"
            );
        }
    }
    // The logistic map's derivative in closed form: the product of r (1 - 2 x_j).
    let (r, x0, n) = (2.9, 0.2, 12);
    let (mut x, mut d) = (x0, 1.0);
    for _ in 0..n {
        d *= r * (1.0 - 2.0 * x);
        x = r * x * (1.0 - x);
    }
    let (v, g) = logistic_ck_grad(x0, r, n);
    assert_eq!(v, x);
    assert!((g.x0 - d).abs() <= 1e-13 * d.abs(), "{} vs {d}", g.x0);
}

#[test]
fn an_in_out_state_follows_the_in_out_convention() {
    for n in [0, 1, 5, 64] {
        let s0 = [0.3, 0.9];
        let mut s = s0;
        advance_ck(&mut s, 1.7, n);
        // _vjp: the final state's adjoint in, the initial state's out; the state ends final.
        let (mut s1, mut ds1, mut dk1) = (s0, [1.0, -2.0], 0.5);
        advance_ck_vjp(&mut s1, 1.7, n, &mut ds1, &mut dk1);
        let (mut s2, mut ds2, mut dk2) = (s0, [1.0, -2.0], 0.5);
        advance_vjp(&mut s2, 1.7, n, &mut ds2, &mut dk2);
        assert_eq!((s1, ds1, dk1), (s2, ds2, dk2), "{n} steps");
        assert_eq!(s1, s, "{n} steps: the final state");
        // _jvp: the tangent updated in place, as without the attribute.
        let (mut s3, mut t3) = (s0, [0.1, 0.2]);
        advance_ck_jvp(&mut s3, 1.7, n, &mut t3, 1.0);
        let (mut s4, mut t4) = (s0, [0.1, 0.2]);
        advance_jvp(&mut s4, 1.7, n, &mut t4, 1.0);
        assert_eq!((s3, t3), (s4, t4));
    }
}

#[test]
fn f32_states_agree_with_the_plain_gradient() {
    for n in STEPS {
        let (a, ga) = sim32_ck_grad(&[0.5, 0.25], 2.0, n);
        let (b, gb) = sim32_grad(&[0.5, 0.25], 2.0, n);
        assert_eq!((a, &ga.s0, ga.k), (b, &gb.s0, gb.k), "{n} steps");
    }
    let n = 20;
    Check32 {
        n: 3,
        primal: |p: &[f64]| vec![sim32_ck(&to32(&p[0..2]), p[2] as f32, n) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = sim32_ck_jvp(
                &to32(&p[0..2]),
                p[2] as f32,
                n,
                &to32(&t[0..2]),
                t[2] as f32,
            );
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let mut g32 = to32(g);
            let (gs, gk) = g32.split_at_mut(2);
            let v = sim32_ck_vjp(&to32(&p[0..2]), p[2] as f32, n, gs, &mut gk[0], c[0] as f32);
            g.copy_from_slice(&to64(&g32));
            vec![v as f64]
        },
    }
    .at(&[&[0.5, 0.25, 2.0]]);
}

#[test]
fn hessian_vector_products_compose() {
    let n = 50;
    let f = forcing(n);
    let (s0, ds0, df) = ([0.8, -0.3], [0.3, -1.0], vec![0.1; n]);
    let (a, ga, ha) = sim_ck_hvp(&s0, 2.0, &f, n, &ds0, 0.7, &df);
    let (b, gb, hb) = sim_hvp(&s0, 2.0, &f, n, &ds0, 0.7, &df);
    assert_eq!(a, b);
    assert_eq!((&ga.s0, ga.k, &ga.forcing), (&gb.s0, gb.k, &gb.forcing));
    assert_eq!((&ha.s0, ha.k, &ha.forcing), (&hb.s0, hb.k, &hb.forcing));
}

#[differentiate(split)]
fn sim_split(s0: &[f64], k: f64, forcing: &[f64], n: usize) -> f64 {
    let mut s = s0.to_vec();
    #[checkpoint(snapshots = 4)]
    for i in 0..n {
        step(&mut s, k, forcing[i]);
    }
    s[0] * s[0] + s[1]
}

#[test]
fn split_mode_replays_the_schedule_at_every_call() {
    let n = 60;
    let f = forcing(n);
    let s0 = [0.8, -0.3];
    let (v, pullback) = sim_split_vjp_split(&s0, 2.0, &f, n);
    let (w, g) = sim_grad(&s0, 2.0, &f, n);
    assert_eq!(v, w);
    // Seeds that are powers of two scale every adjoint exactly.
    for seed in [1.0, -0.5] {
        let (mut ds, mut dk, mut df) = ([0.0; 2], 0.0, vec![0.0; n]);
        pullback(&mut ds, &mut dk, &mut df, seed);
        let scaled = |x: f64| x * seed;
        assert_eq!(ds, [scaled(g.s0[0]), scaled(g.s0[1])]);
        assert_eq!(dk, scaled(g.k));
        assert_eq!(df, g.forcing.iter().map(|x| scaled(*x)).collect::<Vec<_>>());
    }
}

/// A workspace (a `&mut` array left out of `wrt`) as the state of a checkpointed loop, and lent
/// to a step outside one, bare and re-borrowed (random programs, seed 56001: its tangent and
/// adjoint are owned arrays, which `_jvp` and `_vjp` lent as `&mut *b`, E0614).
#[differentiate(wrt(a, k))]
fn workspace_ck(a: f64, k: f64, wk: &mut [f64; 2], n: usize) -> f64 {
    wk[0] += a;
    step_arr(wk, k);
    #[checkpoint(snapshots = 2)]
    for _ in 0..n {
        step_arr(&mut *wk, k);
    }
    wk[0] * a + wk[1]
}

#[differentiate(wrt(a, k))]
fn workspace(a: f64, k: f64, wk: &mut [f64; 2], n: usize) -> f64 {
    wk[0] += a;
    step_arr(wk, k);
    for _ in 0..n {
        step_arr(&mut *wk, k);
    }
    wk[0] * a + wk[1]
}

#[test]
fn a_workspace_is_a_state_like_any_other() {
    for n in [0, 1, 2, 7, 31] {
        let (mut w1, mut w2) = ([0.3, -0.2], [0.3, -0.2]);
        let (a, ga) = workspace_ck_grad(0.4, 3.0, &mut w1, n);
        let (b, gb) = workspace_grad(0.4, 3.0, &mut w2, n);
        assert_eq!((a, ga.a, ga.k, w1), (b, gb.a, gb.k, w2), "{n} steps");
    }
    let n = 9;
    Harness::new(2)
        .primal(|p| vec![workspace_ck(p[0], p[1], &mut [0.3, -0.2], n)])
        .jvp(|p, t| {
            let (v, d) = workspace_ck_jvp(p[0], p[1], &mut [0.3, -0.2], n, t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (ga, gk) = g.split_at_mut(1);
            let mut w = [0.3, -0.2];
            vec![workspace_ck_vjp(
                p[0], p[1], &mut w, n, &mut ga[0], &mut gk[0], c[0],
            )]
        })
        .at(&[&[0.4, 3.0], &[-0.7, 1.5]]);
}

/// An in-out `&mut f64` argument as the state.
#[differentiate]
fn logistic_inout_ck(x: &mut f64, r: f64, n: usize) {
    #[checkpoint(snapshots = 2)]
    for _ in 0..n {
        logistic(x, r);
    }
}

#[differentiate]
fn logistic_inout(x: &mut f64, r: f64, n: usize) {
    for _ in 0..n {
        logistic(x, r);
    }
}

#[test]
fn an_in_out_float_is_a_state() {
    for n in [0, 1, 4, 19] {
        let (mut x1, mut dx1, mut dr1) = (0.3, 1.5, 0.25);
        logistic_inout_ck_vjp(&mut x1, 3.1, n, &mut dx1, &mut dr1);
        let (mut x2, mut dx2, mut dr2) = (0.3, 1.5, 0.25);
        logistic_inout_vjp(&mut x2, 3.1, n, &mut dx2, &mut dr2);
        assert_eq!((x1, dx1, dr1), (x2, dx2, dr2), "{n} steps");
        let mut x3 = 0.3;
        logistic_inout(&mut x3, 3.1, n);
        assert_eq!(x1, x3, "{n} steps: the final value");
    }
}

//! `&mut` float arguments (issue 9): the tangent of an in-out argument is updated in place with
//! it; in reverse its buffer holds the adjoint of its final value on entry and the adjoint with
//! respect to its initial value on exit. Each function is checked in both modes against central
//! differences and by the dot-product test, through closures that flatten (inputs, initial
//! contents) to (final contents, value).

// The functions are written as people write them (index loops, `&Vec` arguments).
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec,
    clippy::redundant_slicing
)]

mod common;
use autodiff_runtime::differentiate;
use common::*;

/// An ODE right-hand side (a damped pendulum with a forcing term), filling `dy`.
#[differentiate(wrt(y, k, dy))]
fn pendulum(t: f64, y: &[f64], k: f64, dy: &mut [f64]) {
    dy[0] = y[1];
    dy[1] = -k * y[0].sin() - 0.1 * y[1] + (2.0 * t).cos();
}

/// Least-squares residuals of an exponential model (the data are constants).
#[differentiate(wrt(p, r))]
fn residuals(p: &[f64; 2], t: &[f64], obs: &[f64], r: &mut [f64]) {
    for i in 0..r.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - obs[i];
    }
}

/// An in-place state update that reads what it overwrites.
#[differentiate]
fn step(state: &mut [f64; 3], dt: f64) -> f64 {
    state[0] += dt * state[1];
    state[1] -= dt * state[0].sin() * state[2];
    state[2] *= 1.0 - dt * state[1];
    state[0] * state[2]
}

/// f32 version of `step`.
#[differentiate]
fn step32(state: &mut [f32; 3], dt: f32) -> f32 {
    state[0] += dt * state[1];
    state[1] -= dt * state[0].sin() * state[2];
    state[2] *= 1.0 - dt * state[1];
    state[0] * state[2]
}

/// Generic over the float type, writing through a `&mut Vec<T>`.
#[differentiate]
fn scale_in_place<T: num_traits::Float>(v: &mut Vec<T>, s: T) {
    for i in 0..v.len() {
        v[i] = v[i] * s + v[i].sin();
    }
}

#[differentiate]
fn sumsq(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

/// Explicit time steps of a diffusion chain, in place, with an early exit and a branch.
#[differentiate]
fn diffuse(state: &mut [f64], k: f64, steps: usize) -> f64 {
    let n = state.len();
    let mut e = 0.0;
    for _ in 0..steps {
        for i in 1..n {
            let flow = k * (state[i - 1] - state[i]);
            state[i - 1] -= flow;
            state[i] += flow;
        }
        if state[0] > 10.0 {
            return e;
        }
        e += sumsq(state);
        if state[n - 1] < 0.0 {
            state[n - 1] = state[n - 1].tanh();
        }
    }
    let total: f64 = state.iter().sum();
    e + total * k
}

/// Accumulates into its argument (`r` read before it is written) inside a while loop.
#[differentiate]
fn accumulate_into(x: &[f64], r: &mut [f64; 2]) {
    let mut i = 0;
    while i < x.len() {
        r[i % 2] += x[i] * r[(i + 1) % 2];
        i += 1;
    }
    r[0] = r[0].exp() * r[1];
}

/// A mixture-model log-likelihood that keeps per-component terms in a caller's workspace.
#[differentiate(wrt(x, means, log_w))]
fn mixture_loglik(x: &[f64], means: &[f64], log_w: &[f64], terms: &mut [f64]) -> f64 {
    let k = means.len();
    let mut total = 0.0;
    for i in 0..x.len() {
        let mut m = f64::NEG_INFINITY;
        for j in 0..k {
            terms[j] = log_w[j] - 0.5 * (x[i] - means[j]).powi(2);
            m = m.max(terms[j]);
        }
        let mut s = 0.0;
        for j in 0..k {
            s += (terms[j] - m).exp();
        }
        total += m + s.ln();
    }
    total
}

/// A workspace array written with active values, then read back.
#[differentiate(wrt(x))]
fn with_workspace(x: f64, ws: &mut [f64; 2]) -> f64 {
    ws[0] = x * 2.0;
    ws[1] = 3.0;
    ws[0] * x + ws[1]
}

/// A float read through a shared reference.
#[differentiate]
fn by_ref(x: &f64, y: f64) -> f64 {
    *x * *x + x.sin() * y
}

/// An in-out float: accumulated into, with an early exit that must still write it back.
#[differentiate]
fn accumulate_into_scalar(total: &mut f64, x: &[f64]) -> f64 {
    for i in 0..x.len() {
        *total += x[i] * x[i];
        if *total > 3.0 {
            return *total;
        }
    }
    *total = total.sqrt();
    *total * 2.0
}

#[test]
fn ode_right_hand_side_fills_dy() {
    let t = 0.3;
    // inputs: y (2), k, dy (2, initial contents: overwritten, so no derivative flows to them)
    Harness::new(5)
        .primal(|p| {
            let mut dy = [p[3], p[4]];
            pendulum(t, &p[0..2], p[2], &mut dy);
            dy.to_vec()
        })
        .jvp(|p, d| {
            let mut dy = [p[3], p[4]];
            let mut ddy = [d[3], d[4]];
            pendulum_jvp(t, &p[0..2], p[2], &mut dy, &d[0..2], d[2], &mut ddy);
            (dy.to_vec(), ddy.to_vec())
        })
        .vjp(|p, c, g| {
            let mut dy = [p[3], p[4]];
            let mut bdy = [c[0], c[1]];
            let (gy, rest) = g.split_at_mut(2);
            let (gk, gdy) = rest.split_at_mut(1);
            pendulum_vjp(t, &p[0..2], p[2], &mut dy, gy, &mut gk[0], &mut bdy);
            // Overwritten contents: the adjoint with respect to them is zero.
            assert_eq!(bdy, [0.0, 0.0]);
            gdy[0] += bdy[0];
            gdy[1] += bdy[1];
            dy.to_vec()
        })
        .random(4, -1.5, 1.5);
}

#[test]
fn least_squares_residuals_fill_r() {
    let t = [0.0, 0.5, 1.0, 1.5];
    let obs = [1.0, 1.4, 2.1, 2.9];
    Harness::new(2)
        .primal(|p| {
            let mut r = vec![0.0; 4];
            residuals(&[p[0], p[1]], &t, &obs, &mut r);
            r
        })
        .jvp(|p, d| {
            let mut r = vec![0.0; 4];
            let mut dr = vec![0.0; 4];
            residuals_jvp(&[p[0], p[1]], &t, &obs, &mut r, &[d[0], d[1]], &mut dr);
            (r, dr)
        })
        .vjp(|p, c, g| {
            let mut r = vec![0.0; 4];
            let mut dr = c.to_vec();
            let mut gp = [g[0], g[1]];
            residuals_vjp(&[p[0], p[1]], &t, &obs, &mut r, &mut gp, &mut dr);
            g.copy_from_slice(&gp);
            r
        })
        .random(4, -1.0, 1.0);
    // The Jacobian of the residuals, one reverse sweep per row (the usual least-squares use).
    let p = [0.8, 0.6];
    for i in 0..4 {
        let mut r = vec![0.0; 4];
        let mut dr = vec![0.0; 4];
        dr[i] = 1.0;
        let mut row = [0.0; 2];
        residuals_vjp(&p, &t, &obs, &mut r, &mut row, &mut dr);
        let e = (p[1] * t[i]).exp();
        assert!((row[0] - e).abs() < 1e-14 && (row[1] - p[0] * t[i] * e).abs() < 1e-14);
    }
}

/// `state` in, `state` out, plus the returned value: flattened as (state, dt) -> (state, value).
fn step_harness() -> Harness<'static> {
    Harness::new(4)
        .primal(|p| {
            let mut s = [p[0], p[1], p[2]];
            let v = step(&mut s, p[3]);
            vec![s[0], s[1], s[2], v]
        })
        .jvp(|p, d| {
            let mut s = [p[0], p[1], p[2]];
            let mut ds = [d[0], d[1], d[2]];
            let (v, dv) = step_jvp(&mut s, p[3], &mut ds, d[3]);
            (vec![s[0], s[1], s[2], v], vec![ds[0], ds[1], ds[2], dv])
        })
        .vjp(|p, c, g| {
            let mut s = [p[0], p[1], p[2]];
            let mut bs = [c[0], c[1], c[2]];
            let v = step_vjp(&mut s, p[3], &mut bs, &mut g[3], c[3]);
            for k in 0..3 {
                g[k] += bs[k];
            }
            vec![s[0], s[1], s[2], v]
        })
}

#[test]
fn in_place_state_update_reads_what_it_overwrites() {
    step_harness().random(5, -1.0, 1.0);
    Harness::new(4)
        .f32()
        .primal(|p| {
            let mut s = [p[0] as f32, p[1] as f32, p[2] as f32];
            let v = step32(&mut s, p[3] as f32);
            to64(&[s[0], s[1], s[2], v])
        })
        .jvp(|p, d| {
            let mut s = [p[0] as f32, p[1] as f32, p[2] as f32];
            let mut ds = [d[0] as f32, d[1] as f32, d[2] as f32];
            let (v, dv) = step32_jvp(&mut s, p[3] as f32, &mut ds, d[3] as f32);
            (
                to64(&[s[0], s[1], s[2], v]),
                to64(&[ds[0], ds[1], ds[2], dv]),
            )
        })
        .vjp(|p, c, g| {
            let mut s = [p[0] as f32, p[1] as f32, p[2] as f32];
            let mut bs = [c[0] as f32, c[1] as f32, c[2] as f32];
            let mut gdt = 0.0f32;
            let v = step32_vjp(&mut s, p[3] as f32, &mut bs, &mut gdt, c[3] as f32);
            for k in 0..3 {
                g[k] += bs[k] as f64;
            }
            g[3] += gdt as f64;
            to64(&[s[0], s[1], s[2], v])
        })
        .random(5, -1.0, 1.0);
}

#[test]
fn in_out_buffers_follow_the_convention() {
    // The vjp leaves the primal result in `state`, and its buffer holds the initial-value adjoint.
    let x = [0.3, -0.7, 1.1];
    let mut s = x;
    let v = step(&mut s, 0.1);
    let mut s2 = x;
    let mut bs = [0.0; 3];
    let mut gdt = 0.0;
    assert_eq!(step_vjp(&mut s2, 0.1, &mut bs, &mut gdt, 1.0), v);
    assert_eq!(s2, s);
    // Seeding only the returned value equals the gradient of the value alone.
    let h = 1e-6;
    for k in 0..3 {
        let (mut a, mut b) = (x, x);
        a[k] += h;
        b[k] -= h;
        let fd = (step(&mut a, 0.1) - step(&mut b, 0.1)) / (2.0 * h);
        assert!((bs[k] - fd).abs() < 1e-8, "{k}: {} vs {fd}", bs[k]);
    }
    // Seeding a final state component (and not the value) through the buffer.
    let mut s3 = x;
    let mut bs = [0.0, 1.0, 0.0];
    let mut gdt = 0.0;
    step_vjp(&mut s3, 0.1, &mut bs, &mut gdt, 0.0);
    let mut s4 = x;
    let mut ds = [0.0, 0.0, 0.0];
    step_jvp(&mut s4, 0.1, &mut ds, 1.0);
    assert!(
        (gdt - ds[1]).abs() < 1e-14,
        "d state[1] / d dt: {gdt} vs {}",
        ds[1]
    );
}

#[test]
fn generic_function_writing_through_a_vec() {
    Harness::new(4)
        .primal(|p| {
            let mut v = p[0..3].to_vec();
            scale_in_place(&mut v, p[3]);
            v
        })
        .jvp(|p, d| {
            let mut v = p[0..3].to_vec();
            let mut dv = d[0..3].to_vec();
            scale_in_place_jvp(&mut v, p[3], &mut dv, d[3]);
            (v, dv)
        })
        .vjp(|p, c, g| {
            let mut v = p[0..3].to_vec();
            let mut bv = c.to_vec();
            let mut gs = 0.0;
            scale_in_place_vjp(&mut v, p[3], &mut bv, &mut gs);
            for k in 0..3 {
                g[k] += bv[k];
            }
            g[3] += gs;
            v
        })
        .random(4, -1.0, 1.0);
    let mut v = vec![0.5f32, 1.0];
    let mut dv = vec![1.0f32, 0.0];
    scale_in_place_jvp(&mut v, 2.0f32, &mut dv, 0.0);
    assert!((dv[0] - (2.0 + 0.5f32.cos())).abs() < 1e-6 && dv[1] == 0.0);
}

/// `diffuse` over `steps` steps, flattened as (state, k) -> (state, value).
fn diffuse_harness(steps: usize) -> Harness<'static> {
    Harness::new(5)
        .primal(move |p| {
            let mut s = p[0..4].to_vec();
            let v = diffuse(&mut s, p[4], steps);
            s.push(v);
            s
        })
        .jvp(move |p, d| {
            let mut s = p[0..4].to_vec();
            let mut ds = d[0..4].to_vec();
            let (v, dv) = diffuse_jvp(&mut s, p[4], steps, &mut ds, d[4]);
            s.push(v);
            ds.push(dv);
            (s, ds)
        })
        .vjp(move |p, c, g| {
            let mut s = p[0..4].to_vec();
            let mut bs = c[0..4].to_vec();
            let v = diffuse_vjp(&mut s, p[4], steps, &mut bs, &mut g[4], c[4]);
            for k in 0..4 {
                g[k] += bs[k];
            }
            s.push(v);
            s
        })
}

#[test]
fn time_steps_in_place_with_exits_and_calls() {
    for steps in [0usize, 1, 3] {
        diffuse_harness(steps).random(6, -1.0, 1.0);
    }
    // The early exit taken.
    diffuse_harness(3).at(&[&[12.0, 1.0, 0.5, -0.5, 0.2]]);
}

#[test]
fn in_out_read_before_written_in_a_while_loop() {
    Harness::new(5)
        .primal(|p| {
            let mut r = [p[3], p[4]];
            accumulate_into(&p[0..3], &mut r);
            r.to_vec()
        })
        .jvp(|p, d| {
            let mut r = [p[3], p[4]];
            let mut dr = [d[3], d[4]];
            accumulate_into_jvp(&p[0..3], &mut r, &d[0..3], &mut dr);
            (r.to_vec(), dr.to_vec())
        })
        .vjp(|p, c, g| {
            let mut r = [p[3], p[4]];
            let mut br = [c[0], c[1]];
            accumulate_into_vjp(&p[0..3], &mut r, &mut g[0..3], &mut br);
            g[3] += br[0];
            g[4] += br[1];
            r.to_vec()
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn workspaces_carry_active_values_without_buffers_of_their_own() {
    let x = [0.3, -1.2, 0.8];
    Harness::new(7)
        .primal(|p| {
            let mut ws = [9.0; 2];
            vec![mixture_loglik(&p[0..3], &p[3..5], &p[5..7], &mut ws)]
        })
        .jvp(|p, d| {
            let mut ws = [9.0; 2];
            let (v, dv) = mixture_loglik_jvp(
                &p[0..3],
                &p[3..5],
                &p[5..7],
                &mut ws,
                &d[0..3],
                &d[3..5],
                &d[5..7],
            );
            (vec![v], vec![dv])
        })
        .vjp(|p, c, g| {
            let mut ws = [9.0; 2];
            let (gx, rest) = g.split_at_mut(3);
            let (gm, gw) = rest.split_at_mut(2);
            vec![mixture_loglik_vjp(
                &p[0..3],
                &p[3..5],
                &p[5..7],
                &mut ws,
                gx,
                gm,
                gw,
                c[0],
            )]
        })
        .random(4, -1.0, 1.0);
    // `_grad` exists (no active `&mut` argument), and the workspace ends as the primal leaves it.
    let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
    let v = mixture_loglik(&x, &[0.1, 0.5], &[-0.7, -0.7], &mut a);
    let (vg, g) = mixture_loglik_grad(&x, &[0.1, 0.5], &[-0.7, -0.7], &mut b);
    assert_eq!((v, a), (vg, b));
    assert_eq!(g.means.len(), 2);
    assert_eq!(
        with_workspace_grad(1.5, &mut [0.0; 2]).1,
        WithWorkspaceGrad { x: 6.0 }
    );
    let mut ws = [0.0; 2];
    assert_eq!(with_workspace(1.5, &mut ws), 7.5);
    assert_eq!(with_workspace_jvp(1.5, &mut ws, 1.0), (7.5, 6.0));
    assert_eq!(ws, [3.0, 3.0]);
}

#[test]
fn floats_by_reference() {
    Harness::new(2)
        .primal(|p| vec![by_ref(&p[0], p[1])])
        .jvp(|p, d| {
            let (v, dv) = by_ref_jvp(&p[0], p[1], &d[0], d[1]);
            (vec![v], vec![dv])
        })
        .vjp(|p, c, g| {
            let (g0, g1) = g.split_at_mut(1);
            vec![by_ref_vjp(&p[0], p[1], &mut g0[0], &mut g1[0], c[0])]
        })
        .random(4, -1.0, 1.0);
    assert_eq!(
        by_ref_grad(&2.0, 0.0).1,
        ByRefGrad {
            x: 4.0,
            y: 2.0f64.sin()
        }
    );
    // In-out float: (total, x) -> (total, value); both exits taken at these points.
    for start in [0.5, 2.9] {
        Harness::new(3)
            .primal(|p| {
                let mut t = start + 0.1 * p[0];
                let v = accumulate_into_scalar(&mut t, &p[1..3]);
                vec![t, v]
            })
            .jvp(|p, d| {
                let mut t = start + 0.1 * p[0];
                let mut dt = 0.1 * d[0];
                let (v, dv) = accumulate_into_scalar_jvp(&mut t, &p[1..3], &mut dt, &d[1..3]);
                (vec![t, v], vec![dt, dv])
            })
            .vjp(|p, c, g| {
                let mut t = start + 0.1 * p[0];
                let mut bt = c[0];
                let (g0, gx) = g.split_at_mut(1);
                let v = accumulate_into_scalar_vjp(&mut t, &p[1..3], &mut bt, gx, c[1]);
                g0[0] += 0.1 * bt;
                vec![t, v]
            })
            .random(4, -1.0, 1.0);
    }
}

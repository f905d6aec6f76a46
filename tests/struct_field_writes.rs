//! Element writes into the array and `Vec` fields of a copy of a struct argument, the
//! time-stepping idiom for structs of arrays (`let mut t = s.clone(); t.x[i] += ..; t`): takes
//! steps giving the copy back as the struct output, functions reading the copy after writing it
//! (`_grad`, `_jacobian`), a method on `self`, a copy of a struct left out of `wrt(...)`, and
//! element writes through a `&mut` struct; gives checks of `_jvp` against central finite
//! differences and of `_vjp` against `_jvp` by the dot-product test (tests/common), dense
//! Jacobians against central differences (tests/common/jacobian.rs), and a time loop of steps
//! run backwards through `_vjp`.
#![allow(clippy::needless_range_loop)]
// The forms tested are the ones users write (`t.k = t.k * ..`, `let a = step(s, h); a`).
#![allow(clippy::assign_op_pattern, clippy::let_and_return)]

#[macro_use]
mod common;
#[path = "common/jacobian.rs"]
mod fd;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;
use fd::{assert_jacobian, fd_jacobian};

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct State {
    pub x: Vec<f64>,
    pub v: [f64; 3],
    pub k: f64,
    pub n: usize,
}

/// `x` has `N` elements: inputs `0..N` are `x`, `N..N + 3` `v`, `N + 3` `k`.
const N: usize = 5;
const LEN: usize = N + 4;

fn state(p: &[f64]) -> State {
    State {
        x: p[..N].to_vec(),
        v: [p[N], p[N + 1], p[N + 2]],
        k: p[N + 3],
        n: 2,
    }
}

fn tangent(p: &[f64]) -> StateTangent {
    StateTangent {
        x: p[..N].to_vec(),
        v: [p[N], p[N + 1], p[N + 2]],
        k: p[N + 3],
        n: (),
    }
}

fn flat(s: &State) -> Vec<f64> {
    let mut out = s.x.clone();
    out.extend_from_slice(&s.v);
    out.push(s.k);
    out
}

fn flat_t(s: &StateTangent) -> Vec<f64> {
    let mut out = s.x.clone();
    out.extend_from_slice(&s.v);
    out.push(s.k);
    out
}

// ---------------------------------------------------------------------------------------------
// The copy given back as the struct output

/// The idiom: a `Vec` field stepped in a loop over its length, an array field written after.
#[differentiate]
fn step(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    for i in 0..t.x.len() {
        t.x[i] += dt * s.v[i % 3] * s.k;
    }
    t.v[0] -= dt * t.x[0];
    t
}

/// Plain assignments, every compound operator, reads of written elements, an integer field
/// read through the copy, a float field written whole next to the element writes.
#[differentiate]
fn mixed(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    let n = t.x.len();
    for i in 1..n {
        t.x[i] = t.x[i] * (1.0 - dt) + dt * t.x[i - 1].sin();
    }
    t.x[0] *= 1.0 + dt * t.x[n - 1];
    t.x[1] /= 2.0 + t.v[1] * t.v[1];
    t.x[2] -= t.k * dt;
    for j in 0..3 {
        t.v[j] = t.v[j] + dt * t.x[j + t.n];
    }
    t.v[2] *= t.v[0];
    t.k = t.k * (1.0 + dt * t.v[2]);
    t
}

/// `f(s, dt) -> State` in both modes at random points of `[lo, hi]`.
fn check(
    f: impl Fn(&State, f64) -> State,
    f_jvp: impl Fn(&State, f64, &StateTangent, f64) -> (State, StateTangent),
    f_vjp: impl Fn(&State, f64, &mut StateTangent, &mut f64, StateTangent) -> State,
) {
    Harness::new(LEN + 1)
        .primal(|p| flat(&f(&state(p), p[LEN])))
        .jvp(|p, t| {
            let (y, dy) = f_jvp(&state(p), p[LEN], &tangent(t), t[LEN]);
            (flat(&y), flat_t(&dy))
        })
        .vjp(|p, c, g| {
            let mut ds = tangent(&[0.0; LEN]);
            let mut ddt = 0.0;
            let y = f_vjp(&state(p), p[LEN], &mut ds, &mut ddt, tangent(c));
            for (gi, d) in g.iter_mut().zip(flat_t(&ds)) {
                *gi += d;
            }
            g[LEN] += ddt;
            flat(&y)
        })
        .random(6, -1.2, 1.2);
}

/// A damping pass over a buffer, written through `&mut`.
#[differentiate]
fn damp(x: &mut [f64], c: f64) {
    for i in 0..x.len() {
        x[i] *= 1.0 - c * x[i];
    }
}

/// The struct by value; the copy's field lent by `&mut` to a differentiated call, elements
/// swapped and filled by methods.
#[differentiate]
fn lent_and_swapped(s: State, dt: f64) -> State {
    let mut t = s.clone();
    t.x[0] += dt * s.k;
    damp(&mut t.x, dt);
    t.x.swap(1, 3);
    t.v.swap(0, 2);
    t.v[1] = t.x[4] * dt;
    t
}

/// Filled, then partly rewritten from the argument.
#[differentiate]
fn refilled(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    t.x.fill(dt);
    for i in 0..2 {
        t.x[i] += s.x[i + 1] * s.k;
    }
    t
}

/// The written fields listed in a struct literal, the others from `..s.clone()`.
#[differentiate]
fn by_literal(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    for i in 0..t.x.len() {
        t.x[i] = t.x[i].tanh() + dt * t.v[i % 3];
    }
    t.v[2] += dt;
    State {
        x: t.x,
        k: s.k * t.v[2],
        ..s.clone()
    }
}

#[test]
fn the_time_stepping_idiom_in_both_modes() {
    check(step, step_jvp, step_vjp);
}

#[test]
fn assignments_compound_operators_and_reads_after_writes() {
    check(mixed, mixed_jvp, mixed_vjp);
}

#[test]
fn a_field_lent_by_mut_swapped_and_filled() {
    check(
        |s, dt| lent_and_swapped(s.clone(), dt),
        |s, dt, ds, ddt| lent_and_swapped_jvp(s.clone(), dt, ds.clone(), ddt),
        |s, dt, ds, ddt, c| lent_and_swapped_vjp(s.clone(), dt, ds, ddt, c),
    );
    check(refilled, refilled_jvp, refilled_vjp);
}

#[test]
fn written_fields_listed_in_a_struct_literal() {
    check(by_literal, by_literal_jvp, by_literal_vjp);
}

#[test]
fn step_values_are_exact() {
    let p = [0.3, -0.2, 0.5, 0.1, 0.9, 0.4, -0.7, 0.2, 1.5];
    let s = state(&p);
    let dt = 0.1;
    let y = step(&s, dt);
    assert_eq!(y.n, 2);
    assert_eq!(y.x[1], -0.2 + dt * -0.7 * 1.5);
    assert_eq!(y.v[0], 0.4 - dt * y.x[0]);
    let (y1, dy) = step_jvp(&s, dt, &tangent(&[0.0; LEN]), 1.0);
    assert_eq!(y1, y);
    // d x[i] / d dt = v[i % 3] k; d v[0] / d dt = -x[0] - dt dx[0]/d dt.
    for i in 0..N {
        assert_eq!(dy.x[i], s.v[i % 3] * s.k);
    }
    assert_eq!(dy.v[0], -(y.x[0] + dt * s.v[0] * s.k));
    assert_eq!(dy.v[1], 0.0);
    // The seed of `x[3]` reaches `x[3]`, `v[0]` and `k` of the input.
    let mut seed = tangent(&[0.0; LEN]);
    seed.x[3] = 1.0;
    let (mut ds, mut ddt) = (tangent(&[0.0; LEN]), 0.0);
    let y2 = step_vjp(&s, dt, &mut ds, &mut ddt, seed);
    assert_eq!(y2, y);
    assert_eq!(ds.x, vec![0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(ds.v, [dt * s.k, 0.0, 0.0]);
    assert_eq!(ds.k, dt * s.v[0]);
    assert_eq!(ddt, s.v[0] * s.k);
}

#[test]
fn a_time_loop_of_steps_run_backwards() {
    let steps = 20;
    let dt = 0.05;
    let loss = |s: &State| s.x.iter().map(|x| x * x).sum::<f64>() + s.v[0] * s.k;
    let run = |p: &[f64]| {
        let mut s = state(p);
        for _ in 0..steps {
            s = step(&s, dt);
        }
        loss(&s)
    };
    let p = [0.3, -0.2, 0.5, 0.1, 0.9, 0.4, -0.7, 0.2, 1.5];
    let mut states = vec![state(&p)];
    for k in 0..steps {
        let next = step(&states[k], dt);
        states.push(next);
    }
    let end = &states[steps];
    let mut seed = tangent(&[0.0; LEN]);
    for i in 0..N {
        seed.x[i] = 2.0 * end.x[i];
    }
    seed.v[0] = end.k;
    seed.k = end.v[0];
    for k in (0..steps).rev() {
        let mut ds = tangent(&[0.0; LEN]);
        let mut ddt = 0.0;
        step_vjp(&states[k], dt, &mut ds, &mut ddt, seed);
        seed = ds;
    }
    let fd = fd_jacobian(|x| vec![run(x)], &p);
    let got = flat_t(&seed);
    for c in 0..LEN {
        let want = fd[0][c];
        assert!(
            (got[c] - want).abs() <= 1e-6 * (1.0 + want.abs()),
            "d loss / d p[{c}] = {}, central differences give {want}",
            got[c]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The copy read, not given back: `_grad`, `_jacobian`

/// A scalar of the stepped copy: `_grad` and both modes.
#[differentiate]
fn energy_after(s: &State, dt: f64) -> f64 {
    let mut t = s.clone();
    for _ in 0..3 {
        for i in 0..t.x.len() {
            t.x[i] += dt * (t.v[i % 3] - t.k * t.x[i]);
        }
        for j in 0..3 {
            t.v[j] -= dt * t.x[j].sin();
        }
    }
    let mut e = 0.0;
    for i in 0..t.x.len() {
        e += 0.5 * t.x[i] * t.x[i];
    }
    e + t.v[0] * t.v[1] + s.x[0] * t.k
}

#[test]
fn a_scalar_of_the_stepped_copy_in_both_modes() {
    Harness::new(LEN + 1)
        .primal(|p| vec![energy_after(&state(p), p[LEN])])
        .jvp(|p, t| {
            let (y, dy) = energy_after_jvp(&state(p), p[LEN], &tangent(t), t[LEN]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = tangent(&[0.0; LEN]);
            let mut ddt = 0.0;
            let y = energy_after_vjp(&state(p), p[LEN], &mut ds, &mut ddt, c[0]);
            for (gi, d) in g.iter_mut().zip(flat_t(&ds)) {
                *gi += d;
            }
            g[LEN] += ddt;
            vec![y]
        })
        .random(6, -1.2, 1.2);
}

#[test]
fn grad_of_a_scalar_of_the_stepped_copy() {
    let p = [0.3, -0.2, 0.5, 0.1, 0.9, 0.4, -0.7, 0.2, 1.5, 0.1];
    let (y, g) = energy_after_grad(&state(&p), p[LEN]);
    assert_eq!(y, energy_after(&state(&p), p[LEN]));
    let fd = fd_jacobian(|x| vec![energy_after(&state(x), x[LEN])], &p);
    let mut got = flat_t(&g.s);
    got.push(g.dt);
    for c in 0..=LEN {
        assert!(
            (got[c] - fd[0][c]).abs() <= 1e-6 * (1.0 + fd[0][c].abs()),
            "gradient[{c}] = {}, central differences give {}",
            got[c],
            fd[0][c]
        );
    }
}

/// Several outputs read from the copy: `_jacobian` by `_jvp` columns or `_vjp` rows.
#[differentiate]
fn probes(s: &State, dt: f64) -> [f64; 3] {
    let mut t = s.clone();
    for i in 0..t.x.len() {
        t.x[i] = t.x[i] * t.k + dt;
    }
    t.v[1] += t.x[2] * t.x[3];
    [t.x[0] + t.v[1], t.v[1] * dt, t.x[4].exp()]
}

#[test]
fn jacobian_of_reads_of_the_copy() {
    let p = [0.3, -0.2, 0.5, 0.1, 0.9, 0.4, -0.7, 0.2, 1.5, 0.1];
    let (value, j) = probes_jacobian(&state(&p), p[LEN]);
    assert_eq!(value, probes(&state(&p), p[LEN]));
    let fd = fd_jacobian(|x| probes(&state(x), x[LEN]).to_vec(), &p);
    assert_jacobian(&j, &fd, 1e-7);
}

/// A written copy read to pick the step size of a differentiated call whose struct the function
/// gives back whole.
#[differentiate]
fn step_after_probe(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    for i in 0..t.x.len() {
        t.x[i] *= 1.0 + dt * t.v[i % 3];
    }
    let h = dt * (1.0 + 0.1 * t.x[1] * t.x[2]);
    let a = step(s, h);
    a
}

#[test]
fn a_written_copy_next_to_a_struct_given_back_whole() {
    check(step_after_probe, step_after_probe_jvp, step_after_probe_vjp);
}

// ---------------------------------------------------------------------------------------------
// A method, a struct outside `wrt`, a `&mut` struct

impl State {
    /// The idiom on `self`.
    #[differentiate]
    fn advanced(&self, dt: f64) -> Self {
        let mut c = self.clone();
        for i in 0..c.x.len() {
            c.x[i] += dt * c.v[i % 3];
        }
        c.v[1] *= 1.0 - dt * self.k;
        c
    }
}

#[test]
fn the_idiom_on_self() {
    check(
        |s, dt| s.advanced(dt),
        |s, dt, ds, ddt| s.advanced_jvp(dt, ds, ddt),
        |s, dt, ds, ddt, c| s.advanced_vjp(dt, ds, ddt, c),
    );
}

/// Only `dt` differentiated: the copy's tangent starts at zero and its adjoint is dropped.
#[differentiate(wrt(dt))]
fn step_in_dt(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    for i in 0..t.x.len() {
        t.x[i] += dt * dt * s.v[i % 3];
    }
    t.v[2] -= dt * t.x[1];
    t
}

#[test]
fn a_copy_of_a_struct_outside_wrt() {
    let p = [0.3, -0.2, 0.5, 0.1, 0.9, 0.4, -0.7, 0.2, 1.5];
    let s = state(&p);
    Harness::new(1)
        .primal(|d| flat(&step_in_dt(&s, d[0])))
        .jvp(|d, t| {
            let (y, dy) = step_in_dt_jvp(&s, d[0], t[0]);
            (flat(&y), flat_t(&dy))
        })
        .vjp(|d, c, g| {
            let mut ddt = 0.0;
            let y = step_in_dt_vjp(&s, d[0], &mut ddt, tangent(c));
            g[0] += ddt;
            flat(&y)
        })
        .random(6, -1.0, 1.0);
}

/// Element writes through a `&mut` struct argument (in-out).
#[differentiate]
fn kick(s: &mut State, dt: f64) {
    for i in 0..s.x.len() {
        s.x[i] += dt * s.v[i % 3] * s.k;
    }
    s.v[0] -= dt * s.x[0];
}

#[test]
fn element_writes_through_a_mut_struct() {
    Harness::new(LEN + 1)
        .primal(|p| {
            let mut s = state(p);
            kick(&mut s, p[LEN]);
            flat(&s)
        })
        .jvp(|p, t| {
            let (mut s, mut ds) = (state(p), tangent(t));
            kick_jvp(&mut s, p[LEN], &mut ds, t[LEN]);
            (flat(&s), flat_t(&ds))
        })
        .vjp(|p, c, g| {
            // In-out: the adjoint buffer holds the seed of the final value on entry, the
            // adjoint of the initial value on exit.
            let mut s = state(p);
            let mut ds = tangent(c);
            let mut ddt = 0.0;
            kick_vjp(&mut s, p[LEN], &mut ds, &mut ddt);
            for (gi, d) in g.iter_mut().zip(flat_t(&ds)) {
                *gi += d;
            }
            g[LEN] += ddt;
            flat(&s)
        })
        .random(6, -1.2, 1.2);
}

//! Structs held whole given back as the function's output: takes functions whose value is the
//! struct a differentiated call gives (`let a = step(s, dt); a`, `step(s, dt)`, `a.clone()`),
//! or the local a time loop reassigns (`let mut s = s0.clone(); for .. { s = step(&s, dt); } s`
//! over 50 steps), and callers of them (binding the struct, or dropping it in a call statement
//! that writes through `&mut`); gives checks of both modes against central finite differences and
//! of reverse against forward by the dot-product test.
#![allow(clippy::needless_range_loop)]
// The forms tested are the ones people write: `let a = step(s, dt); a`, `s0.clone()` of a `Copy`
// struct, `t.x = t.x + dt * t.v`.
#![allow(
    clippy::clone_on_copy,
    clippy::let_and_return,
    clippy::assign_op_pattern
)]

#[macro_use]
mod common;
#[macro_use]
#[path = "common/pendulum.rs"]
mod pendulum;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;
use num_traits::Float;
use pendulum::{st, step, step_jvp, step_vjp, stt, State};

// ---------------------------------------------------------------------------------------------
// The struct a call gives, given back

#[differentiate]
fn bound_then_given(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    a
}

#[differentiate]
fn call_as_value(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    step(&a, dt)
}

#[differentiate]
fn clone_as_value(s: &State, dt: f64) -> State {
    let a: State = step(s, 0.5 * dt);
    let b = step(&a, dt);
    let k = b.x * a.v;
    let c = step(&b, k);
    c.clone()
}

#[test]
fn bound_local_given_back() {
    check_state_out!(
        bound_then_given,
        bound_then_given_jvp,
        bound_then_given_vjp,
        -1.5,
        1.5
    );
}

#[test]
fn call_given_back() {
    check_state_out!(
        call_as_value,
        call_as_value_jvp,
        call_as_value_vjp,
        -1.5,
        1.5
    );
}

#[test]
fn clone_given_back_after_field_reads() {
    check_state_out!(
        clone_as_value,
        clone_as_value_jvp,
        clone_as_value_vjp,
        -1.0,
        1.0
    );
}

#[test]
fn values_are_the_primal_ones() {
    let s = State { x: 0.3, v: -0.2 };
    let want = step(&step(&s, 0.1), 0.1);
    assert_eq!(call_as_value(&s, 0.1), want);
    let (y, _) = call_as_value_jvp(&s, 0.1, &stt(&[1.0, 0.0]), 0.0);
    assert_eq!(y, want);
    let (mut ds, mut ddt) = (stt(&[0.0, 0.0]), 0.0);
    let y = call_as_value_vjp(&s, 0.1, &mut ds, &mut ddt, stt(&[1.0, 0.0]));
    assert_eq!(y, want);
}

// ---------------------------------------------------------------------------------------------
// A time loop giving its state back

/// 50 steps from a clone of the initial state, the last state given back.
#[differentiate]
fn trajectory(s0: &State, dt: f64) -> State {
    let mut s = s0.clone();
    for _ in 0..50 {
        s = step(&s, dt);
    }
    s
}

/// `n` steps from a copy, with a running sum steering the step size.
#[differentiate]
fn trajectory_n(s0: &State, dt: f64, n: usize) -> State {
    let mut s = *s0;
    let mut h = dt;
    for _ in 0..n {
        s = step(&s, h);
        h = dt * (1.0 + 0.1 * s.v * s.v);
    }
    s
}

#[test]
fn fifty_steps_given_back() {
    check_state_out!(trajectory, trajectory_jvp, trajectory_vjp, -1.0, 1.0);
}

#[test]
fn steps_with_a_running_step_size_given_back() {
    Harness::new(3)
        .primal(|p| {
            let y = trajectory_n(&st(p), p[2], 30);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = trajectory_n_jvp(&st(p), p[2], 30, &stt(t), t[2]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = trajectory_n_vjp(&st(p), p[2], 30, &mut ds, &mut ddt, stt(c));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![y.x, y.v]
        })
        .random(8, -0.5, 0.5);
}

/// A caller of the time loop: binds the state it gives and reads it.
#[differentiate]
fn energy_after(s0: &State, dt: f64) -> f64 {
    let s = trajectory(s0, dt);
    0.5 * s.v * s.v + (1.0 - s.x.cos())
}

#[test]
fn caller_of_a_whole_struct_output() {
    check_state_fn!(energy_after, energy_after_jvp, energy_after_vjp, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// A whole struct output dropped by a caller (`_vjp_dropped`)

/// Writes through `&mut` and gives the state whole.
#[differentiate]
fn step_and_log(s: &State, dt: f64, log: &mut [f64]) -> State {
    log[0] += s.x * s.v;
    let a = step(s, dt);
    log[1] = log[1] * a.x;
    a
}

/// Calls it as a statement, dropping the state: the log is what the caller reads.
#[differentiate]
fn logged(s: &State, dt: f64) -> f64 {
    let mut log = [0.5, 2.0];
    step_and_log(s, dt, &mut log);
    let t = step_and_log(s, 2.0 * dt, &mut log);
    log[0] * log[1] + t.v
}

#[test]
fn dropped_whole_struct_output() {
    check_state_fn!(logged, logged_jvp, logged_vjp, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Branches: one local each branch assigns, given at the end

#[differentiate]
fn chosen(s: &State, dt: f64) -> State {
    let mut r = s.clone();
    if s.x > 0.0 {
        let a = step(s, 0.5 * dt);
        r = step(&a, 0.5 * dt);
    }
    r
}

#[test]
fn branches_assigning_one_local() {
    check_state_out!(chosen, chosen_jvp, chosen_vjp, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// A method giving `Self` whole, with array fields

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Chain {
    pub x: [f64; 3],
    pub v: [f64; 3],
    pub k: f64,
}

impl Chain {
    /// One semi-implicit Euler step of a chain of springs.
    #[differentiate]
    pub fn step(&self, dt: f64) -> Self {
        let mut v = [self.v[0], self.v[1], self.v[2]];
        for i in 1..3 {
            v[i] = v[i] - dt * self.k * (self.x[i] - self.x[i - 1]).sin();
        }
        let mut x = [self.x[0], self.x[1], self.x[2]];
        for i in 0..3 {
            x[i] = x[i] + dt * v[i];
        }
        Self { x, v, ..*self }
    }

    /// `n` steps, the last state given back whole.
    #[differentiate]
    pub fn advance(&self, dt: f64, n: usize) -> Self {
        let mut c = self.clone();
        for _ in 0..n {
            c = c.step(dt);
        }
        c
    }
}

/// A free function calling the method on a copy of its argument (`c.step(dt)`, the copy's type
/// its argument's), giving the last state back.
#[differentiate]
fn chain_advance(c0: &Chain, dt: f64) -> Chain {
    let mut c = c0.clone();
    for _ in 0..20 {
        c = c.step(dt);
    }
    c
}

fn chain(p: &[f64]) -> Chain {
    Chain {
        x: [p[0], p[1], p[2]],
        v: [p[3], p[4], p[5]],
        k: p[6],
    }
}

fn chain_t(p: &[f64]) -> ChainTangent {
    ChainTangent {
        x: [p[0], p[1], p[2]],
        v: [p[3], p[4], p[5]],
        k: p[6],
    }
}

fn flat(x: &[f64; 3], v: &[f64; 3], k: f64) -> Vec<f64> {
    vec![x[0], x[1], x[2], v[0], v[1], v[2], k]
}

#[test]
fn method_giving_self_whole_over_fifty_steps() {
    Harness::new(8)
        .primal(|p| {
            let c = chain(p).advance(p[7], 50);
            flat(&c.x, &c.v, c.k)
        })
        .jvp(|p, t| {
            let (c, dc) = chain(p).advance_jvp(p[7], 50, &chain_t(t), t[7]);
            (flat(&c.x, &c.v, c.k), flat(&dc.x, &dc.v, dc.k))
        })
        .vjp(|p, c, g| {
            let mut ds = chain_t(&[0.0; 8]);
            let mut dh = 0.0;
            let y = chain(p).advance_vjp(p[7], 50, &mut ds, &mut dh, chain_t(c));
            for (gi, d) in g.iter_mut().zip(flat(&ds.x, &ds.v, ds.k)) {
                *gi += d;
            }
            g[7] += dh;
            flat(&y.x, &y.v, y.k)
        })
        .at(&[
            &[0.1, 0.4, 0.2, 0.3, -0.2, 0.1, 1.5, 0.05],
            &[-0.3, 0.2, 0.5, 0.0, 0.1, -0.4, 0.7, 0.03],
        ]);
}

// ---------------------------------------------------------------------------------------------
// A generic leapfrog orbit given back whole, f64 and f32

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Osc<T> {
    pub q: T,
    pub p: T,
}

#[differentiate]
fn leapfrog<T: Float>(s: &Osc<T>, h: T, k: T) -> Osc<T> {
    let half = T::from(0.5).unwrap();
    let p_half = s.p - half * h * (k * s.q + s.q * s.q * s.q);
    let q = s.q + h * p_half;
    let p = p_half - half * h * (k * q + q * q * q);
    Osc { q, p }
}

#[differentiate]
fn orbit<T: Float>(s0: &Osc<T>, h: T, k: T) -> Osc<T> {
    let mut s: Osc<T> = s0.clone();
    for _ in 0..50 {
        s = leapfrog(&s, h, k);
    }
    s
}

#[test]
fn leapfrog_orbit_given_back_in_f64() {
    let o = |p: &[f64]| Osc { q: p[0], p: p[1] };
    Harness::new(4)
        .primal(|p| {
            let y = orbit(&o(p), p[2], p[3]);
            vec![y.q, y.p]
        })
        .jvp(|p, t| {
            let (y, dy) = orbit_jvp(
                &o(p),
                p[2],
                p[3],
                &OscTangent { q: t[0], p: t[1] },
                t[2],
                t[3],
            );
            (vec![y.q, y.p], vec![dy.q, dy.p])
        })
        .vjp(|p, c, g| {
            let mut ds = OscTangent { q: 0.0, p: 0.0 };
            let (mut dh, mut dk) = (0.0, 0.0);
            let seed = OscTangent { q: c[0], p: c[1] };
            let y = orbit_vjp(&o(p), p[2], p[3], &mut ds, &mut dh, &mut dk, seed);
            g[0] += ds.q;
            g[1] += ds.p;
            g[2] += dh;
            g[3] += dk;
            vec![y.q, y.p]
        })
        .at(&[&[0.4, -0.1, 0.05, 1.0], &[-0.3, 0.2, 0.03, 2.0]]);
}

/// The step size enters as `0.1 * p[2]`, so that finite differences in f32 (step `1e-2`) stay
/// in the linear range of 50 steps.
#[test]
fn leapfrog_orbit_given_back_in_f32() {
    let o = |p: &[f64]| Osc {
        q: p[0] as f32,
        p: p[1] as f32,
    };
    Harness::new(4)
        .f32()
        .primal(|p| {
            let y = orbit(&o(p), 0.1 * p[2] as f32, p[3] as f32);
            vec![y.q as f64, y.p as f64]
        })
        .jvp(|p, t| {
            let (y, dy) = orbit_jvp(
                &o(p),
                0.1 * p[2] as f32,
                p[3] as f32,
                &OscTangent {
                    q: t[0] as f32,
                    p: t[1] as f32,
                },
                0.1 * t[2] as f32,
                t[3] as f32,
            );
            (vec![y.q as f64, y.p as f64], vec![dy.q as f64, dy.p as f64])
        })
        .vjp(|p, c, g| {
            let mut ds = OscTangent { q: 0.0f32, p: 0.0 };
            let (mut dh, mut dk) = (0.0f32, 0.0f32);
            let seed = OscTangent {
                q: c[0] as f32,
                p: c[1] as f32,
            };
            let y = orbit_vjp(
                &o(p),
                0.1 * p[2] as f32,
                p[3] as f32,
                &mut ds,
                &mut dh,
                &mut dk,
                seed,
            );
            g[0] += ds.q as f64;
            g[1] += ds.p as f64;
            g[2] += 0.1 * dh as f64;
            g[3] += dk as f64;
            vec![y.q as f64, y.p as f64]
        })
        .at(&[&[0.4, -0.1, 0.5, 1.0], &[-0.3, 0.2, 0.3, 2.0]]);
}

// ---------------------------------------------------------------------------------------------
// A struct argument copied into a local whose fields are then written

/// The copy given back: its written fields are the output's, the others `s`'s.
#[differentiate]
fn euler_copy(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    t.v -= dt * t.x.sin();
    t.x = t.x + dt * t.v;
    t
}

/// Written in a loop, read after it.
#[differentiate]
fn copy_energy(s: &State, dt: f64) -> f64 {
    let mut t = *s;
    for _ in 0..20 {
        t.v -= dt * t.x.sin();
        t.x += dt * t.v;
    }
    0.5 * t.v * t.v + (1.0 - t.x.cos())
}

#[test]
fn copy_with_written_fields_given_back() {
    check_state_out!(euler_copy, euler_copy_jvp, euler_copy_vjp, -1.5, 1.5);
}

#[test]
fn copy_with_fields_written_in_a_loop() {
    check_state_fn!(copy_energy, copy_energy_jvp, copy_energy_vjp, -1.0, 1.0);
}

#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub k: f64,
    pub m: f64,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Spring {
    pub x: f64,
    pub v: f64,
    pub params: Params,
    pub steps: usize,
}

impl Spring {
    /// A copy of `self` with its position and velocity written; the nested parameters and the
    /// integer field come from `self`.
    #[differentiate]
    pub fn kicked(&self, dt: f64) -> Self {
        let mut t = self.clone();
        t.v -= dt * t.params.k / t.params.m * t.x;
        t.x += dt * t.v;
        t
    }
}

fn spring(p: &[f64]) -> Spring {
    Spring {
        x: p[0],
        v: p[1],
        params: Params { k: p[2], m: p[3] },
        steps: 4,
    }
}

fn spring_t(p: &[f64]) -> SpringTangent {
    SpringTangent {
        x: p[0],
        v: p[1],
        params: ParamsTangent { k: p[2], m: p[3] },
        steps: (),
    }
}

fn spring_flat(x: f64, v: f64, k: f64, m: f64) -> Vec<f64> {
    vec![x, v, k, m]
}

#[test]
fn method_copy_of_self_with_written_fields() {
    let s = spring(&[0.1, 0.2, 1.5, 2.0]);
    assert_eq!(s.kicked(0.1).steps, 4);
    Harness::new(5)
        .primal(|p| {
            let y = spring(p).kicked(p[4]);
            spring_flat(y.x, y.v, y.params.k, y.params.m)
        })
        .jvp(|p, t| {
            let (y, dy) = spring(p).kicked_jvp(p[4], &spring_t(t), t[4]);
            (
                spring_flat(y.x, y.v, y.params.k, y.params.m),
                spring_flat(dy.x, dy.v, dy.params.k, dy.params.m),
            )
        })
        .vjp(|p, c, g| {
            let mut ds = spring_t(&[0.0; 4]);
            let mut ddt = 0.0;
            let y = spring(p).kicked_vjp(p[4], &mut ds, &mut ddt, spring_t(c));
            for (gi, d) in g
                .iter_mut()
                .zip(spring_flat(ds.x, ds.v, ds.params.k, ds.params.m))
            {
                *gi += d;
            }
            g[4] += ddt;
            spring_flat(y.x, y.v, y.params.k, y.params.m)
        })
        .random(8, 0.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Only the step size active

/// `s0` left out of `wrt`: the trajectory's derivative along `dt` alone.
#[differentiate(wrt(dt))]
fn trajectory_dt(s0: &State, dt: f64) -> State {
    let mut s = *s0;
    for _ in 0..10 {
        s = step(&s, dt);
    }
    s
}

#[test]
fn trajectory_with_respect_to_the_step_size() {
    let s0 = State { x: 0.4, v: -0.3 };
    Harness::new(1)
        .primal(|p| {
            let y = trajectory_dt(&s0, p[0]);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = trajectory_dt_jvp(&s0, p[0], t[0]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ddt = 0.0;
            let y = trajectory_dt_vjp(&s0, p[0], &mut ddt, stt(c));
            g[0] += ddt;
            vec![y.x, y.v]
        })
        .random(8, 0.01, 0.2);
}

/// A written copy read inside `vec![..]` (found by the random programs).
#[differentiate]
fn copy_in_vec(s: &State, dt: f64) -> Vec<f64> {
    let mut t = s.clone();
    t.x += dt * t.v;
    vec![t.x * t.v, t.x.sin()]
}

#[test]
fn copy_with_written_fields_read_in_vec() {
    Harness::new(3)
        .primal(|p| copy_in_vec(&st(p), p[2]))
        .jvp(|p, t| copy_in_vec_jvp(&st(p), p[2], &stt(t), t[2]))
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = copy_in_vec_vjp(&st(p), p[2], &mut ds, &mut ddt, c);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            y
        })
        .random(8, -1.0, 1.0);
}

#[test]
fn method_called_on_a_copy_in_a_free_function() {
    Harness::new(8)
        .primal(|p| {
            let c = chain_advance(&chain(p), p[7]);
            flat(&c.x, &c.v, c.k)
        })
        .jvp(|p, t| {
            let (c, dc) = chain_advance_jvp(&chain(p), p[7], &chain_t(t), t[7]);
            (flat(&c.x, &c.v, c.k), flat(&dc.x, &dc.v, dc.k))
        })
        .vjp(|p, c, g| {
            let mut ds = chain_t(&[0.0; 8]);
            let mut dh = 0.0;
            let y = chain_advance_vjp(&chain(p), p[7], &mut ds, &mut dh, chain_t(c));
            for (gi, d) in g.iter_mut().zip(flat(&ds.x, &ds.v, ds.k)) {
                *gi += d;
            }
            g[7] += dh;
            flat(&y.x, &y.v, y.k)
        })
        .at(&[
            &[0.1, 0.4, 0.2, 0.3, -0.2, 0.1, 1.5, 0.05],
            &[-0.3, 0.2, 0.5, 0.0, 0.1, -0.4, 0.7, 0.03],
        ]);
}

//! Structs held whole in locals: takes functions that bind the struct a differentiated call
//! gives (`let s2 = step(&s, dt);`, annotated or not), read its fields (nested too), pass it on
//! by `&`, reassign it from calls in time-stepping loops (`s = step(&s, dt);` over 50 steps),
//! and copy struct arguments into such locals (`s0.clone()`, `*s0`); gives checks of both modes
//! against central finite differences and of reverse against forward by the dot-product test,
//! in f64 and f32.
#![allow(clippy::needless_range_loop)]
// `s0.clone()` of a `Copy` struct is what users write; it is one of the forms tested.
#![allow(clippy::clone_on_copy)]

#[macro_use]
mod common;
#[macro_use]
#[path = "common/pendulum.rs"]
mod pendulum;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;
use num_traits::Float;
use pendulum::{st, step, step_jvp, step_vjp, stt, State, StateTangent};

// ---------------------------------------------------------------------------------------------
// Field reads of the struct a call gives

#[differentiate]
fn reads_annotated(s: &State, dt: f64) -> f64 {
    let s2: State = step(s, dt);
    s2.x * s2.v + s2.x.sin()
}

#[differentiate]
fn reads_unannotated(s: &State, dt: f64) -> f64 {
    let s2 = step(s, dt);
    s2.x * s2.v - 0.5 * s2.v * s2.v
}

#[test]
fn field_reads_of_a_call_annotated() {
    check_state_fn!(
        reads_annotated,
        reads_annotated_jvp,
        reads_annotated_vjp,
        -1.5,
        1.5
    );
}

#[test]
fn field_reads_of_a_call_unannotated() {
    check_state_fn!(
        reads_unannotated,
        reads_unannotated_jvp,
        reads_unannotated_vjp,
        -1.5,
        1.5
    );
}

#[test]
fn field_reads_values_are_exact() {
    let s = State { x: 0.3, v: -0.2 };
    let dt = 0.1;
    let s2 = step(&s, dt);
    assert_eq!(reads_annotated(&s, dt), s2.x * s2.v + s2.x.sin());
    // Reverse against step's own reverse: d/ds of s2.x * s2.v + sin(s2.x).
    let (mut ds, mut ddt) = (stt(&[0.0, 0.0]), 0.0);
    reads_annotated_vjp(&s, dt, &mut ds, &mut ddt, 1.0);
    let seed = StateTangent {
        x: s2.v + s2.x.cos(),
        v: s2.x,
    };
    let (mut ds2, mut ddt2) = (stt(&[0.0, 0.0]), 0.0);
    step_vjp(&s, dt, &mut ds2, &mut ddt2, seed);
    assert_eq!((ds.x, ds.v, ddt), (ds2.x, ds2.v, ddt2));
}

// ---------------------------------------------------------------------------------------------
// Chains and loops

#[differentiate]
fn chain(s0: &State, dt: f64) -> f64 {
    let a = step(s0, dt);
    let b = step(&a, dt);
    let c: State = step(&b, 0.5 * dt);
    b.x * c.v + a.v
}

#[test]
fn chain_of_calls() {
    check_state_fn!(chain, chain_jvp, chain_vjp, -1.5, 1.5);
}

#[differentiate]
fn loop_from_clone(s0: &State, dt: f64) -> f64 {
    let mut s = s0.clone();
    for _ in 0..50 {
        s = step(&s, dt);
    }
    s.x * s.x + s.v
}

#[test]
fn fifty_steps_from_a_clone() {
    check_state_fn!(
        loop_from_clone,
        loop_from_clone_jvp,
        loop_from_clone_vjp,
        -0.3,
        0.3
    );
}

#[differentiate]
fn loop_from_copy(s0: &State, dt: f64, n: usize) -> f64 {
    let mut s = *s0;
    let mut e = 0.0;
    for i in 0..n {
        s = step(&s, dt);
        if i % 2 == 0 {
            e += s.v * s.v;
        }
    }
    e + s.x
}

#[test]
fn loop_from_a_copy_with_a_running_sum() {
    Harness::new(3)
        .primal(|p| vec![loop_from_copy(&st(p), p[2], 7)])
        .jvp(|p, t| {
            let (y, dy) = loop_from_copy_jvp(&st(p), p[2], 7, &stt(t), t[2]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = loop_from_copy_vjp(&st(p), p[2], 7, &mut ds, &mut ddt, c[0]);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![y]
        })
        .random(8, -1.0, 1.0);
}

#[differentiate]
fn loop_from_call(s0: &State, dt: f64) -> f64 {
    let mut s = step(s0, dt);
    let mut k = 0;
    while k < 5 {
        let t = step(&s, dt);
        s = step(&t, 0.5 * dt);
        k += 1;
    }
    s.v
}

#[test]
fn loop_from_a_call_with_a_temporary() {
    check_state_fn!(
        loop_from_call,
        loop_from_call_jvp,
        loop_from_call_vjp,
        -1.0,
        1.0
    );
}

/// The struct given back whole, its fields read in a literal (`..*s` not needed).
#[differentiate]
fn twice(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    let b = step(&a, dt);
    State {
        x: b.x,
        v: b.v + a.v,
    }
}

#[test]
fn struct_output_from_fields_of_calls() {
    Harness::new(3)
        .primal(|p| {
            let y = twice(&st(p), p[2]);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = twice_jvp(&st(p), p[2], &stt(t), t[2]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = twice_vjp(&st(p), p[2], &mut ds, &mut ddt, stt(c));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![y.x, y.v]
        })
        .random(8, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Nested fields: a spring system whose parameters live in a nested struct carried by `..*s`

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

#[differentiate]
fn spring_step(s: &Spring, dt: f64) -> Spring {
    let v = s.v - dt * s.params.k / s.params.m * s.x;
    Spring {
        x: s.x + dt * v,
        v,
        ..*s
    }
}

#[differentiate]
fn spring_energy(s0: &Spring, dt: f64) -> f64 {
    let mut s = s0.clone();
    for _ in 0..50 {
        s = spring_step(&s, dt);
    }
    let n: usize = s.steps;
    0.5 * s.params.m * s.v * s.v + 0.5 * s.params.k * s.x * s.x + n as f64
}

fn spring(p: &[f64]) -> Spring {
    Spring {
        x: p[0],
        v: p[1],
        params: Params { k: p[2], m: p[3] },
        steps: 3,
    }
}

#[test]
fn nested_field_reads_over_fifty_steps() {
    let zero = |t: &[f64]| SpringTangent {
        x: t[0],
        v: t[1],
        params: ParamsTangent { k: t[2], m: t[3] },
        steps: (),
    };
    Harness::new(5)
        .primal(|p| vec![spring_energy(&spring(p), p[4])])
        .jvp(|p, t| {
            let (y, dy) = spring_energy_jvp(&spring(p), p[4], &zero(t), t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = zero(&[0.0; 4]);
            let mut ddt = 0.0;
            let y = spring_energy_vjp(&spring(p), p[4], &mut ds, &mut ddt, c[0]);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ds.params.k;
            g[3] += ds.params.m;
            g[4] += ddt;
            vec![y]
        })
        .at(&[&[0.5, -0.2, 2.0, 1.5, 0.05], &[-1.0, 0.3, 0.7, 2.5, 0.02]]);
}

// ---------------------------------------------------------------------------------------------
// A generic leapfrog over 50 steps, f64 and f32

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
fn orbit<T: Float>(s0: &Osc<T>, h: T, k: T) -> T {
    let mut s: Osc<T> = s0.clone();
    let mut action = T::zero();
    for _ in 0..50 {
        s = leapfrog(&s, h, k);
        action = action + s.p * s.p * h;
    }
    action + s.q
}

#[test]
fn leapfrog_orbit_in_f64() {
    let o = |p: &[f64]| Osc { q: p[0], p: p[1] };
    Harness::new(4)
        .primal(|p| vec![orbit(&o(p), p[2], p[3])])
        .jvp(|p, t| {
            let (y, dy) = orbit_jvp(
                &o(p),
                p[2],
                p[3],
                &OscTangent { q: t[0], p: t[1] },
                t[2],
                t[3],
            );
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = OscTangent { q: 0.0, p: 0.0 };
            let (mut dh, mut dk) = (0.0, 0.0);
            let y = orbit_vjp(&o(p), p[2], p[3], &mut ds, &mut dh, &mut dk, c[0]);
            g[0] += ds.q;
            g[1] += ds.p;
            g[2] += dh;
            g[3] += dk;
            vec![y]
        })
        .at(&[&[0.4, -0.1, 0.05, 1.0], &[-0.3, 0.2, 0.03, 2.0]]);
}

/// The step size enters as `0.1 * p[2]`, so that finite differences in f32 (step `1e-2`) stay
/// in the linear range of 50 steps.
#[test]
fn leapfrog_orbit_in_f32() {
    let o = |p: &[f64]| Osc {
        q: p[0] as f32,
        p: p[1] as f32,
    };
    Harness::new(4)
        .f32()
        .primal(|p| vec![orbit(&o(p), 0.1 * p[2] as f32, p[3] as f32) as f64])
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
            (vec![y as f64], vec![dy as f64])
        })
        .vjp(|p, c, g| {
            let mut ds = OscTangent { q: 0.0f32, p: 0.0 };
            let (mut dh, mut dk) = (0.0f32, 0.0f32);
            let y = orbit_vjp(
                &o(p),
                0.1 * p[2] as f32,
                p[3] as f32,
                &mut ds,
                &mut dh,
                &mut dk,
                c[0] as f32,
            );
            g[0] += ds.q as f64;
            g[1] += ds.p as f64;
            g[2] += 0.1 * dh as f64;
            g[3] += dk as f64;
            vec![y as f64]
        })
        .at(&[&[0.4, -0.1, 0.5, 1.0], &[-0.3, 0.2, 0.3, 2.0]]);
}

// ---------------------------------------------------------------------------------------------
// A written float field of a `&mut` struct passed by value to a differentiated call (its field
// argument is bound by reference; found by the random programs, seed 70002)

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Acc {
    pub k: f64,
    pub g: f64,
}

#[differentiate]
fn sq(a: f64) -> f64 {
    a * a
}

#[differentiate]
fn init(x: f64, v: f64) -> State {
    State {
        x: x.sin(),
        v: 0.5 * v,
    }
}

#[differentiate]
fn written_field_to_call(st: &mut Acc, x: f64) -> f64 {
    let y = sq(st.k);
    st.k *= x;
    let p = init(st.k, st.g);
    y + sq(st.k) * p.v + p.x
}

#[test]
fn written_field_of_a_mut_struct_passed_by_value() {
    let acc = |p: &[f64]| Acc { k: p[0], g: p[1] };
    Harness::new(3)
        .primal(|p| {
            let mut a = acc(p);
            let y = written_field_to_call(&mut a, p[2]);
            vec![y, a.k, a.g]
        })
        .jvp(|p, t| {
            let mut a = acc(p);
            let mut da = AccTangent { k: t[0], g: t[1] };
            let (y, dy) = written_field_to_call_jvp(&mut a, p[2], &mut da, t[2]);
            (vec![y, a.k, a.g], vec![dy, da.k, da.g])
        })
        .vjp(|p, c, g| {
            let mut a = acc(p);
            let mut da = AccTangent { k: c[1], g: c[2] };
            let mut dx = 0.0;
            let y = written_field_to_call_vjp(&mut a, p[2], &mut da, &mut dx, c[0]);
            g[0] += da.k;
            g[1] += da.g;
            g[2] += dx;
            vec![y, a.k, a.g]
        })
        .random(8, -1.0, 1.0);
}

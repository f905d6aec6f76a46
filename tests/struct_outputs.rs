//! Struct outputs, struct literals and struct patterns: takes functions returning
//! `#[derive(Differentiable)]` structs (built by a literal at the end of the body or in a local,
//! with float, array and integer fields, generic, from methods), functions building struct
//! locals (`..base` included) and taking structs apart with patterns, gives checks of both modes
//! against central finite differences and of reverse against forward by the dot-product test, and
//! a user's time loop over a stored trajectory run backwards through `step_vjp`.
#![allow(clippy::needless_range_loop)]
// The shared `State` (tests/common/pendulum.rs) is `Copy`; `s.clone()` is what users write.
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
// A semi-implicit Euler step: `-> State` built by a literal (`step`, tests/common/pendulum.rs)

#[test]
fn euler_step_output_in_both_modes() {
    check_state_out!(step, step_jvp, step_vjp, -1.5, 1.5);
}

#[test]
fn euler_step_values_are_exact() {
    let s = State { x: 0.3, v: 0.2 };
    let dt = 0.1;
    let y = step(&s, dt);
    let (y1, t) = step_jvp(&s, dt, &StateTangent { x: 1.0, v: 0.0 }, 0.0);
    assert_eq!(y, y1);
    let c = 0.3_f64.cos();
    assert_eq!(t.x, 1.0 - dt * dt * c);
    assert_eq!(t.v, -dt * c);
    let (mut ds, mut ddt) = (StateTangent { x: 0.0, v: 0.0 }, 0.0);
    let y2 = step_vjp(&s, dt, &mut ds, &mut ddt, StateTangent { x: 0.0, v: 1.0 });
    assert_eq!(y2, y);
    assert_eq!(ds.x, -dt * c);
    assert_eq!(ds.v, 1.0);
    assert_eq!(ddt, -(0.3_f64.sin()));
}

// ---------------------------------------------------------------------------------------------
// The user's time loop: a trajectory stored forward, `step_vjp` run backwards over it

/// The loss at the end of a trajectory.
fn loss(s: &State) -> f64 {
    s.x * s.x + 0.5 * s.v
}

fn trajectory(s0: &State, dt: f64, n: usize) -> Vec<State> {
    let mut states = vec![s0.clone()];
    for k in 0..n {
        let next = step(&states[k], dt);
        states.push(next);
    }
    states
}

#[test]
fn time_loop_gradient_through_stored_trajectory() {
    let n = 50;
    let f = |p: &[f64]| loss(&trajectory(&st(p), p[2], n)[n]);
    for p in [[0.4, -0.2, 0.05], [1.2, 0.7, 0.02], [-0.9, 0.1, 0.1]] {
        let states = trajectory(&st(&p), p[2], n);
        let end = &states[n];
        // d loss / d (final state), then back through each step.
        let mut seed = StateTangent {
            x: 2.0 * end.x,
            v: 0.5,
        };
        let mut ddt = 0.0;
        for k in (0..n).rev() {
            let mut ds = StateTangent { x: 0.0, v: 0.0 };
            let y = step_vjp(&states[k], p[2], &mut ds, &mut ddt, seed);
            assert_eq!(y, states[k + 1]);
            seed = ds;
        }
        let grad = [seed.x, seed.v, ddt];
        for i in 0..3 {
            let h = 1e-6;
            let (mut a, mut b) = (p, p);
            a[i] += h;
            b[i] -= h;
            let fd = (f(&a) - f(&b)) / (2.0 * h);
            assert!(
                (grad[i] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "d loss / d p[{i}] = {} but central differences give {fd}",
                grad[i]
            );
        }
        // Forward mode along each input agrees with the backward sweep.
        for i in 0..3 {
            let mut t = [0.0; 3];
            t[i] = 1.0;
            let mut s = st(&p);
            let mut ts = stt(&t);
            for _ in 0..n {
                let (y, dy) = step_jvp(&s, p[2], &ts, t[2]);
                s = y;
                ts = dy;
            }
            let d = 2.0 * s.x * ts.x + 0.5 * ts.v;
            assert!(
                (d - grad[i]).abs() <= 1e-10 * (1.0 + d.abs()),
                "{d} vs {}",
                grad[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generic structs, f64 and f32

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Osc<T> {
    pub q: T,
    pub p: T,
}

/// A generic leapfrog step of a harmonic oscillator with a cubic term.
#[differentiate]
fn leapfrog<T: Float>(s: &Osc<T>, h: T, k: T) -> Osc<T> {
    let half = T::from(0.5).unwrap();
    let p_half = s.p - half * h * (k * s.q + s.q * s.q * s.q);
    let q = s.q + h * p_half;
    let p = p_half - half * h * (k * q + q * q * q);
    Osc { q, p }
}

#[test]
fn generic_struct_output_in_f64() {
    Harness::new(4)
        .primal(|v| {
            let y = leapfrog(&Osc { q: v[0], p: v[1] }, v[2], v[3]);
            vec![y.q, y.p]
        })
        .jvp(|v, t| {
            let (y, dy) = leapfrog_jvp(
                &Osc { q: v[0], p: v[1] },
                v[2],
                v[3],
                &OscTangent { q: t[0], p: t[1] },
                t[2],
                t[3],
            );
            (vec![y.q, y.p], vec![dy.q, dy.p])
        })
        .vjp(|v, c, g| {
            let mut ds = OscTangent { q: 0.0, p: 0.0 };
            let (mut dh, mut dk) = (0.0, 0.0);
            let y = leapfrog_vjp(
                &Osc { q: v[0], p: v[1] },
                v[2],
                v[3],
                &mut ds,
                &mut dh,
                &mut dk,
                OscTangent { q: c[0], p: c[1] },
            );
            g[0] += ds.q;
            g[1] += ds.p;
            g[2] += dh;
            g[3] += dk;
            vec![y.q, y.p]
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn generic_struct_output_in_f32() {
    let f = |v: &[f64]| {
        let y = leapfrog(
            &Osc {
                q: v[0] as f32,
                p: v[1] as f32,
            },
            v[2] as f32,
            v[3] as f32,
        );
        vec![y.q as f64, y.p as f64]
    };
    Harness::new(4)
        .f32()
        .primal(f)
        .jvp(|v, t| {
            let (y, dy) = leapfrog_jvp(
                &Osc {
                    q: v[0] as f32,
                    p: v[1] as f32,
                },
                v[2] as f32,
                v[3] as f32,
                &OscTangent {
                    q: t[0] as f32,
                    p: t[1] as f32,
                },
                t[2] as f32,
                t[3] as f32,
            );
            (vec![y.q as f64, y.p as f64], vec![dy.q as f64, dy.p as f64])
        })
        .vjp(|v, c, g| {
            let mut ds = OscTangent { q: 0.0f32, p: 0.0 };
            let (mut dh, mut dk) = (0.0f32, 0.0f32);
            let y = leapfrog_vjp(
                &Osc {
                    q: v[0] as f32,
                    p: v[1] as f32,
                },
                v[2] as f32,
                v[3] as f32,
                &mut ds,
                &mut dh,
                &mut dk,
                OscTangent {
                    q: c[0] as f32,
                    p: c[1] as f32,
                },
            );
            g[0] += ds.q as f64;
            g[1] += ds.p as f64;
            g[2] += dh as f64;
            g[3] += dk as f64;
            vec![y.q as f64, y.p as f64]
        })
        .random(4, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Integer fields carried through, a config built from arguments, array fields, methods

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Particle {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
    pub mass: f64,
    pub steps: usize,
}

/// Integer field carried (and counted) through; array fields built by array literals.
#[differentiate]
fn drift(p: &Particle, dt: f64, drag: f64) -> Particle {
    let damp = (-drag * dt / p.mass).exp();
    let vel = [p.vel[0] * damp, p.vel[1] * damp - dt * 9.81];
    Particle {
        pos: [p.pos[0] + dt * vel[0], p.pos[1] + dt * vel[1]],
        vel,
        mass: p.mass,
        steps: p.steps + 1,
    }
}

fn particle(v: &[f64]) -> Particle {
    Particle {
        pos: [v[0], v[1]],
        vel: [v[2], v[3]],
        mass: v[4],
        steps: 7,
    }
}

fn particle_tangent(v: &[f64]) -> ParticleTangent {
    ParticleTangent {
        pos: [v[0], v[1]],
        vel: [v[2], v[3]],
        mass: v[4],
        steps: (),
    }
}

fn flat(p: &Particle) -> Vec<f64> {
    vec![p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.mass]
}

fn flat_t(p: &ParticleTangent) -> Vec<f64> {
    vec![p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.mass]
}

#[test]
fn integer_field_carried_and_array_fields() {
    assert_eq!(
        drift(&particle(&[0.0, 1.0, 0.5, 0.2, 2.0]), 0.1, 0.3).steps,
        8
    );
    Harness::new(7)
        .primal(|v| flat(&drift(&particle(v), v[5], v[6])))
        .jvp(|v, t| {
            let (y, dy) = drift_jvp(&particle(v), v[5], v[6], &particle_tangent(t), t[5], t[6]);
            assert_eq!(y.steps, 8);
            (flat(&y), flat_t(&dy))
        })
        .vjp(|v, c, g| {
            let mut dp = particle_tangent(&[0.0; 5]);
            let (mut ddt, mut ddrag) = (0.0, 0.0);
            let seed = particle_tangent(c);
            let y = drift_vjp(
                &particle(v),
                v[5],
                v[6],
                &mut dp,
                &mut ddt,
                &mut ddrag,
                seed,
            );
            assert_eq!(y.steps, 8);
            for (gi, d) in g.iter_mut().zip(flat_t(&dp)) {
                *gi += d;
            }
            g[5] += ddt;
            g[6] += ddrag;
            flat(&y)
        })
        .random(6, 0.5, 1.5);
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Config {
    pub gamma: f64,
    pub m: i32,
    pub scale: f64,
}

/// A struct with float and integer fields built from arguments; one float field is a constant.
#[differentiate]
fn config(a: f64, b: f64, m: i32) -> Config {
    let g = a * b.exp();
    Config {
        m: 2 * m + 1,
        gamma: g / (1.0 + a * a),
        scale: 0.5,
    }
}

#[test]
fn mixed_fields_built_from_arguments() {
    Harness::new(2)
        .primal(|v| {
            let c = config(v[0], v[1], 3);
            vec![c.gamma, c.scale]
        })
        .jvp(|v, t| {
            let (c, dc) = config_jvp(v[0], v[1], 3, t[0], t[1]);
            assert_eq!(c.m, 7);
            assert_eq!(dc.scale, 0.0);
            (vec![c.gamma, c.scale], vec![dc.gamma, dc.scale])
        })
        .vjp(|v, c, g| {
            let seed = ConfigTangent {
                gamma: c[0],
                m: (),
                scale: c[1],
            };
            let (mut da, mut db) = (0.0, 0.0);
            let y = config_vjp(v[0], v[1], 3, &mut da, &mut db, seed);
            assert_eq!(y.m, 7);
            g[0] += da;
            g[1] += db;
            vec![y.gamma, y.scale]
        })
        .random(6, -1.0, 1.0);
}

/// One float field: the output the emitters see is that float alone.
#[differentiate]
fn only_gamma(a: f64) -> Config {
    Config {
        gamma: a.sin(),
        m: 1,
        scale: 2.0,
    }
}

#[test]
fn one_float_field() {
    let (c, dc) = only_gamma_jvp(0.4, 1.0);
    assert_eq!(c, only_gamma(0.4));
    assert_eq!((c.gamma, c.m, c.scale), (0.4_f64.sin(), 1, 2.0));
    assert_eq!((dc.gamma, dc.scale), (0.4_f64.cos(), 0.0));
    let mut da = 0.0;
    let seed = ConfigTangent {
        gamma: 2.0,
        m: (),
        scale: 5.0,
    };
    let c2 = only_gamma_vjp(0.4, &mut da, seed);
    assert_eq!(c2, c);
    assert_eq!(da, 2.0 * 0.4_f64.cos());
}

impl State {
    /// A method giving `Self`, built in a `mut` local and updated before it is returned.
    #[differentiate]
    fn advanced(&self, dt: f64, k: f64) -> Self {
        let mut next = Self {
            x: self.x,
            v: self.v,
        };
        next.v -= dt * k * next.x;
        next.x += dt * next.v;
        next
    }
}

#[test]
fn method_giving_self_from_a_local() {
    Harness::new(4)
        .primal(|p| {
            let y = st(p).advanced(p[2], p[3]);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = st(p).advanced_jvp(p[2], p[3], &stt(t), t[2], t[3]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let (mut ddt, mut dk) = (0.0, 0.0);
            let y = st(p).advanced_vjp(p[2], p[3], &mut ds, &mut ddt, &mut dk, stt(c));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            g[3] += dk;
            vec![y.x, y.v]
        })
        .random(6, -1.0, 1.0);
}

/// A struct taken by value, its fields built into a new one.
#[differentiate]
fn kick(s: State, f: f64) -> State {
    let State { x, v } = s;
    State {
        v: v + f * x.cos(),
        x,
    }
}

#[test]
fn by_value_argument_taken_apart_by_a_pattern() {
    Harness::new(3)
        .primal(|p| {
            let y = kick(st(p), p[2]);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = kick_jvp(st(p), p[2], stt(t), t[2]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut df = 0.0;
            let y = kick_vjp(st(p), p[2], &mut ds, &mut df, stt(c));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += df;
            vec![y.x, y.v]
        })
        .random(6, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Struct locals and patterns in functions with float outputs

/// A struct local with `..base` from an argument, read field by field, and taken apart again.
#[differentiate]
fn energy_after(s: &State, k: f64) -> f64 {
    let moved = State {
        x: s.x + 0.1 * s.v,
        ..*s
    };
    let State { x, v } = moved;
    let e = State {
        x: 0.5 * k * x * x,
        v: 0.5 * v * v,
    };
    e.x + e.v + moved.v * s.x
}

#[test]
fn struct_locals_with_base_and_patterns() {
    Harness::new(3)
        .primal(|p| vec![energy_after(&st(p), p[2])])
        .jvp(|p, t| {
            let (y, dy) = energy_after_jvp(&st(p), p[2], &stt(t), t[2]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut dk = 0.0;
            let y = energy_after_vjp(&st(p), p[2], &mut ds, &mut dk, c[0]);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += dk;
            vec![y]
        })
        .random(6, -1.0, 1.0);
    let (e, g) = energy_after_grad(&State { x: 1.0, v: 2.0 }, 3.0);
    // x' = 1.2: e = 1.5 * 1.44 + 2 + 2 * 1.
    assert!((e - (1.5 * 1.44 + 2.0 + 2.0)).abs() < 1e-12);
    assert!((g.k - 0.5 * 1.44).abs() < 1e-12);
}

/// A struct local updated in a loop (`let mut`), then returned.
#[differentiate]
fn integrate(s: &State, dt: f64, n: usize) -> State {
    let mut cur = State { x: s.x, v: s.v };
    for _ in 0..n {
        cur.v -= dt * cur.x.sin();
        cur.x += dt * cur.v;
    }
    cur
}

#[test]
fn struct_local_updated_in_a_loop_is_the_output() {
    let s = State { x: 0.7, v: -0.3 };
    let y = integrate(&s, 0.05, 20);
    let mut z = s.clone();
    for _ in 0..20 {
        z = step(&z, 0.05);
    }
    assert_eq!(y, z);
    Harness::new(3)
        .primal(|p| {
            let y = integrate(&st(p), p[2], 20);
            vec![y.x, y.v]
        })
        .jvp(|p, t| {
            let (y, dy) = integrate_jvp(&st(p), p[2], 20, &stt(t), t[2]);
            (vec![y.x, y.v], vec![dy.x, dy.v])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = integrate_vjp(&st(p), p[2], 20, &mut ds, &mut ddt, stt(c));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![y.x, y.v]
        })
        .random(6, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// `..base` in a struct output, and a struct argument returned whole

#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
pub struct Body {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
    pub mass: f64,
    pub charge: f64,
    pub id: u32,
}

fn body(v: &[f64]) -> Body {
    Body {
        pos: [v[0], v[1]],
        vel: [v[2], v[3]],
        mass: v[4],
        charge: v[5],
        id: 11,
    }
}

fn body_t(v: &[f64]) -> BodyTangent {
    BodyTangent {
        pos: [v[0], v[1]],
        vel: [v[2], v[3]],
        mass: v[4],
        charge: v[5],
        id: (),
    }
}

fn body_flat(b: &Body) -> Vec<f64> {
    vec![b.pos[0], b.pos[1], b.vel[0], b.vel[1], b.mass, b.charge]
}

fn body_flat_t(b: &BodyTangent) -> Vec<f64> {
    vec![b.pos[0], b.pos[1], b.vel[0], b.vel[1], b.mass, b.charge]
}

/// Only the position moves: velocity, mass, charge and id come from `..*b`.
#[differentiate]
fn coast(b: &Body, dt: f64) -> Body {
    Body {
        pos: [b.pos[0] + dt * b.vel[0], b.pos[1] + dt * b.vel[1] / b.mass],
        ..*b
    }
}

/// By value, with an integer field listed and every float field from `..b`.
#[differentiate]
fn relabel(b: Body, k: f64) -> Body {
    let scale = k * 2.0;
    let _ = scale;
    Body { id: b.id + 1, ..b }
}

/// A struct argument returned whole, after its fields were read.
#[differentiate]
fn passthrough(b: Body, w: f64) -> Body {
    let e = w * b.mass;
    assert!(e.is_finite());
    b
}

#[test]
fn base_fields_carry_their_tangents_and_adjoints() {
    Harness::new(7)
        .primal(|v| body_flat(&coast(&body(v), v[6])))
        .jvp(|v, t| {
            let (y, dy) = coast_jvp(&body(v), v[6], &body_t(t), t[6]);
            assert_eq!(y.id, 11);
            (body_flat(&y), body_flat_t(&dy))
        })
        .vjp(|v, c, g| {
            let mut db = body_t(&[0.0; 6]);
            let mut ddt = 0.0;
            let y = coast_vjp(&body(v), v[6], &mut db, &mut ddt, body_t(c));
            for (gi, d) in g.iter_mut().zip(body_flat_t(&db)) {
                *gi += d;
            }
            g[6] += ddt;
            body_flat(&y)
        })
        .random(5, 0.5, 1.5);
    for by_value_returned_whole in [false, true] {
        Harness::new(7)
            .primal(|v| {
                let y = match by_value_returned_whole {
                    false => relabel(body(v), v[6]),
                    true => passthrough(body(v), v[6]),
                };
                body_flat(&y)
            })
            .jvp(|v, t| {
                let (y, dy) = match by_value_returned_whole {
                    false => relabel_jvp(body(v), v[6], body_t(t), t[6]),
                    true => passthrough_jvp(body(v), v[6], body_t(t), t[6]),
                };
                assert_eq!(y.id, if by_value_returned_whole { 11 } else { 12 });
                (body_flat(&y), body_flat_t(&dy))
            })
            .vjp(|v, c, g| {
                let mut db = body_t(&[0.0; 6]);
                let mut dk = 0.0;
                let y = match by_value_returned_whole {
                    false => relabel_vjp(body(v), v[6], &mut db, &mut dk, body_t(c)),
                    true => passthrough_vjp(body(v), v[6], &mut db, &mut dk, body_t(c)),
                };
                for (gi, d) in g.iter_mut().zip(body_flat_t(&db)) {
                    *gi += d;
                }
                g[6] += dk;
                body_flat(&y)
            })
            .random(4, 0.5, 1.5);
    }
}

// ---------------------------------------------------------------------------------------------
// A `&mut` struct next to a struct output; struct locals inside loops and closures

/// Gives the state before the step and advances `s` in place.
#[differentiate]
fn advance_in_place(s: &mut State, dt: f64) -> State {
    let old = State { x: s.x, v: s.v };
    s.v -= dt * s.x.sin();
    s.x += dt * s.v;
    old
}

#[test]
fn in_out_struct_next_to_a_struct_output() {
    // Outputs: the returned state, then the final contents of `s`.
    Harness::new(3)
        .primal(|p| {
            let mut s = st(p);
            let old = advance_in_place(&mut s, p[2]);
            vec![old.x, old.v, s.x, s.v]
        })
        .jvp(|p, t| {
            let (mut s, mut ds) = (st(p), stt(t));
            let (old, dold) = advance_in_place_jvp(&mut s, p[2], &mut ds, t[2]);
            (
                vec![old.x, old.v, s.x, s.v],
                vec![dold.x, dold.v, ds.x, ds.v],
            )
        })
        .vjp(|p, c, g| {
            let mut s = st(p);
            // In-out: the seed of the final contents on entry, the gradient on exit.
            let mut ds = stt(&c[2..]);
            let mut ddt = 0.0;
            let old = advance_in_place_vjp(&mut s, p[2], &mut ds, &mut ddt, stt(&c[..2]));
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![old.x, old.v, s.x, s.v]
        })
        .random(6, -1.0, 1.0);
}

/// Struct locals declared in a loop body and read by a closure.
#[differentiate]
fn spring_energy(s: &State, k: f64, n: usize) -> f64 {
    let mut e = 0.0;
    for i in 0..n {
        let h = 0.1 * (i as f64 + 1.0);
        let probe = State {
            x: s.x + h * s.v,
            v: s.v - h * k * s.x,
        };
        let half = |a: f64| 0.5 * a * a;
        e += half(probe.v) + k * half(probe.x);
    }
    e
}

#[test]
fn struct_locals_in_loops_and_closures() {
    Harness::new(3)
        .primal(|p| vec![spring_energy(&st(p), p[2], 4)])
        .jvp(|p, t| {
            let (y, dy) = spring_energy_jvp(&st(p), p[2], 4, &stt(t), t[2]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut dk = 0.0;
            let y = spring_energy_vjp(&st(p), p[2], 4, &mut ds, &mut dk, c[0]);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += dk;
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

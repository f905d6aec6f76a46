//! Structs taken by `&mut` and passed on whole: takes functions and `&mut self` methods that
//! call other differentiated functions and methods on the whole struct (`self.substep(dt)`,
//! `update(s, dt)`), and ones that write integer fields they also read, gives checks of both
//! modes against central finite differences and of reverse against forward by the dot-product
//! test (the in-out convention: the struct's adjoint holds its final state's adjoint on entry
//! and its initial state's on exit).
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

// ---------------------------------------------------------------------------------------------
// A particle system as an `impl`: `step` calls `substep` twice on the whole state

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Particles {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub k: f64,
    pub steps: usize,
}

impl Particles {
    /// One symplectic Euler substep of unit masses on springs to their neighbours.
    #[differentiate]
    pub fn substep(&mut self, dt: f64) {
        let n = self.x.len();
        for i in 0..n {
            let left = if i > 0 { self.x[i - 1] } else { 0.0 };
            let right = if i + 1 < n { self.x[i + 1] } else { 0.0 };
            let f = self.k * (left + right - 2.0 * self.x[i]) - 0.1 * self.v[i].powi(3);
            self.v[i] += dt * f;
        }
        for i in 0..n {
            self.x[i] += dt * self.v[i].sin();
        }
    }

    /// A step of two half substeps.
    #[differentiate]
    pub fn step(&mut self, dt: f64) {
        self.substep(0.5 * dt);
        self.substep(0.5 * dt);
    }

    /// `steps` steps (an integer field bounds the loop).
    #[differentiate]
    pub fn advance(&mut self, dt: f64) {
        for _ in 0..self.steps {
            self.step(dt);
        }
    }
}

impl Particles {
    /// Kinetic energy plus a spring term (read only: called on the lent state, `&mut` coerced).
    #[differentiate]
    pub fn energy(&self) -> f64 {
        let mut e = 0.5 * self.k * self.x[0] * self.x[0];
        for i in 0..self.v.len() {
            e += 0.5 * self.v[i] * self.v[i];
        }
        e
    }

    /// The energy after a step; a method's value bound by `let`.
    #[differentiate]
    pub fn energy_after_all(&mut self, dt: f64) -> f64 {
        self.step(dt);
        let e = Self::energy(self);
        e * dt.cos()
    }
}

/// A free function stepping a state taken by `&mut`, passed on whole.
#[differentiate]
fn run(p: &mut Particles, dt: f64, steps: usize) {
    for _ in 0..steps {
        p.step(dt);
        Particles::substep(p, 0.25 * dt);
        update(&mut *p, dt);
    }
}

/// A free function taking the state by `&mut`.
#[differentiate]
fn update(p: &mut Particles, dt: f64) {
    p.k *= 1.0 + 0.01 * dt;
    p.v[0] += dt * p.k.cos();
}

fn particles(v: &[f64], steps: usize) -> Particles {
    Particles {
        x: v[0..3].to_vec(),
        v: v[3..6].to_vec(),
        k: v[6],
        steps,
    }
}

fn particles_tangent(v: &[f64]) -> ParticlesTangent {
    ParticlesTangent {
        x: v[0..3].to_vec(),
        v: v[3..6].to_vec(),
        k: v[6],
        steps: (),
    }
}

fn flat(c: &ParticlesTangent) -> Vec<f64> {
    c.x.iter().chain(&c.v).copied().chain([c.k]).collect()
}

fn values(c: &Particles) -> Vec<f64> {
    c.x.iter().chain(&c.v).copied().chain([c.k]).collect()
}

/// Both modes of an in-place step `f(&mut state, dt)` over inputs (state, dt).
fn check_in_place(
    steps: usize,
    f: impl Fn(&mut Particles, f64),
    jvp: impl Fn(&mut Particles, f64, &mut ParticlesTangent, f64),
    vjp: impl Fn(&mut Particles, f64, &mut ParticlesTangent, &mut f64),
    range: f64,
) {
    Harness::new(8)
        .primal(|p| {
            let mut c = particles(p, steps);
            f(&mut c, p[7]);
            values(&c)
        })
        .jvp(|p, t| {
            let mut c = particles(p, steps);
            let mut dc = particles_tangent(t);
            jvp(&mut c, p[7], &mut dc, t[7]);
            (values(&c), flat(&dc))
        })
        .vjp(|p, s, g| {
            let mut c = particles(p, steps);
            let mut bc = particles_tangent(s);
            let mut bdt = 0.0;
            vjp(&mut c, p[7], &mut bc, &mut bdt);
            for (k, b) in flat(&bc).iter().chain([&bdt]).enumerate() {
                g[k] += b;
            }
            values(&c)
        })
        .random(4, -range, range);
}

#[test]
fn mut_self_method_calls_another_on_the_whole_state() {
    check_in_place(
        0,
        |c, dt| c.step(dt),
        |c, dt, dc, ddt| c.step_jvp(dt, dc, ddt),
        |c, dt, bc, bdt| c.step_vjp(dt, bc, bdt),
        0.8,
    );
}

#[test]
fn particle_system_over_twenty_steps() {
    check_in_place(
        20,
        |c, dt| c.advance(dt),
        |c, dt, dc, ddt| c.advance_jvp(dt, dc, ddt),
        |c, dt, bc, bdt| c.advance_vjp(dt, bc, bdt),
        0.3,
    );
}

#[test]
fn free_function_passes_the_mut_state_on() {
    check_in_place(
        0,
        |c, dt| run(c, dt, 3),
        |c, dt, dc, ddt| run_jvp(c, dt, 3, dc, ddt),
        |c, dt, bc, bdt| run_vjp(c, dt, 3, bc, bdt),
        0.5,
    );
}

// ---------------------------------------------------------------------------------------------
// Integer fields written and read: `count` read after it was written; `calls` written by the
// callee and read by the caller between calls

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Ticker {
    pub x: f64,
    pub k: f64,
    pub count: u32,
    pub calls: usize,
    pub steps: usize,
}

impl Ticker {
    /// `count` grows each iteration and is the exponent of the next term.
    #[differentiate]
    pub fn series(&mut self, y: f64) -> f64 {
        let mut s = 0.0;
        for _ in 0..3 {
            self.count += 1;
            s += self.k * y.powi(self.count as i32);
            if self.count != 3 {
                self.x *= y;
            }
        }
        s + self.x
    }

    /// Counts its calls (a counter it only writes).
    #[differentiate]
    pub fn tick(&mut self, h: f64) {
        self.calls += 1;
        self.x += h * (self.k * self.x).sin();
    }

    /// Each tick's step grows with the number of ticks so far, read from the field the callee
    /// writes.
    #[differentiate]
    pub fn run(&mut self, dt: f64) {
        for _ in 0..self.steps {
            let h = dt * (1 + self.calls) as f64;
            self.tick(h);
        }
        self.steps += 1;
    }
}

fn ticker(v: &[f64]) -> Ticker {
    Ticker {
        x: v[0],
        k: v[1],
        count: 1,
        calls: 0,
        steps: 4,
    }
}

fn ticker_tangent(v: &[f64]) -> TickerTangent {
    TickerTangent {
        x: v[0],
        k: v[1],
        count: (),
        calls: (),
        steps: (),
    }
}

/// Both modes of a `Ticker` method taking one float and giving one, over (x, k, the float):
/// outputs the value, then the final x and k; `after` checks the integer fields after each mode.
fn check_ticker(
    f: impl Fn(&mut Ticker, f64) -> f64,
    jvp: impl Fn(&mut Ticker, f64, &mut TickerTangent, f64) -> (f64, f64),
    vjp: impl Fn(&mut Ticker, f64, &mut TickerTangent, &mut f64, f64) -> f64,
    after: impl Fn(&Ticker),
    (lo, hi): (f64, f64),
) {
    Harness::new(3)
        .primal(|p| {
            let mut t = ticker(p);
            let y = f(&mut t, p[2]);
            after(&t);
            vec![y, t.x, t.k]
        })
        .jvp(|p, d| {
            let mut t = ticker(p);
            let mut dt = ticker_tangent(d);
            let (y, dy) = jvp(&mut t, p[2], &mut dt, d[2]);
            after(&t);
            (vec![y, t.x, t.k], vec![dy, dt.x, dt.k])
        })
        .vjp(|p, s, g| {
            let mut t = ticker(p);
            let mut bt = ticker_tangent(&s[1..]);
            let mut by = 0.0;
            let y = vjp(&mut t, p[2], &mut bt, &mut by, s[0]);
            after(&t);
            g[0] += bt.x;
            g[1] += bt.k;
            g[2] += by;
            vec![y, t.x, t.k]
        })
        .random(5, lo, hi);
}

#[test]
fn integer_field_written_then_read_as_an_exponent() {
    check_ticker(
        |t, y| t.series(y),
        |t, y, dt, dy| t.series_jvp(y, dt, dy),
        |t, y, bt, by, s| t.series_vjp(y, bt, by, s),
        |t| assert_eq!(t.count, 4),
        (0.3, 1.2),
    );
}

#[test]
fn integer_field_the_callee_writes_is_read_between_calls() {
    check_ticker(
        |t, h| {
            t.run(h);
            0.0
        },
        |t, h, dt, dh| {
            t.run_jvp(h, dt, dh);
            (0.0, 0.0)
        },
        |t, h, bt, bh, _| {
            t.run_vjp(h, bt, bh);
            0.0
        },
        |t| assert_eq!((t.calls, t.steps), (4, 5)),
        (-1.0, 1.0),
    );
}

#[test]
fn a_method_value_bound_by_let_on_the_lent_state() {
    Harness::new(8)
        .primal(|p| vec![particles(p, 0).energy_after_all(p[7])])
        .jvp(|p, t| {
            let mut c = particles(p, 0);
            let mut dc = particles_tangent(t);
            let (y, dy) = c.energy_after_all_jvp(p[7], &mut dc, t[7]);
            (vec![y], vec![dy])
        })
        .vjp(|p, s, g| {
            let mut c = particles(p, 0);
            let mut bc = particles_tangent(&[0.0; 7]);
            let mut bdt = 0.0;
            let y = c.energy_after_all_vjp(p[7], &mut bc, &mut bdt, s[0]);
            for (k, b) in flat(&bc).iter().chain([&bdt]).enumerate() {
                g[k] += b;
            }
            vec![y]
        })
        .random(4, -0.8, 0.8);
}

// ---------------------------------------------------------------------------------------------
// Copies of a struct argument bound to locals (read only)

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Cfg {
    pub a: f64,
    pub b: Vec<f64>,
    pub n: usize,
}

#[differentiate]
fn copied(c: &Cfg, x: f64) -> f64 {
    let t = c.clone();
    let u = (*c).clone();
    let mut s = 0.0;
    for i in 0..t.n {
        s += t.b[i] * (x * u.a).sin();
    }
    s + t.a * u.a
}

#[test]
fn copies_of_a_struct_argument_read_like_it() {
    let cfg = |v: &[f64]| Cfg {
        a: v[0],
        b: v[1..4].to_vec(),
        n: 3,
    };
    let tan = |v: &[f64]| CfgTangent {
        a: v[0],
        b: v[1..4].to_vec(),
        n: (),
    };
    Harness::new(5)
        .primal(|p| vec![copied(&cfg(p), p[4])])
        .jvp(|p, t| {
            let (y, dy) = copied_jvp(&cfg(p), p[4], &tan(t), t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|p, s, g| {
            let mut bc = tan(&[0.0; 4]);
            let mut bx = 0.0;
            let y = copied_vjp(&cfg(p), p[4], &mut bc, &mut bx, s[0]);
            g[0] += bc.a;
            for i in 0..3 {
                g[1 + i] += bc.b[i];
            }
            g[4] += bx;
            vec![y]
        })
        .random(5, -1.0, 1.0);
}

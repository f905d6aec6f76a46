//! Structs lent whole by a function that also uses their float fields: takes `&mut self` methods
//! and free functions that pass the struct on to other differentiated methods (`self.forces()`)
//! and read and write its fields themselves (`self.v[i] += self.dt * self.f[i]`, `self.t +=
//! self.dt`), gives checks of both modes against central finite differences and of reverse
//! against forward by the dot-product test, and of the in-out convention (the struct's adjoint
//! holds the final state's adjoint on entry and the initial state's on exit).
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

// ---------------------------------------------------------------------------------------------
// Particles on springs: `forces` fills `f`, `step` lends the state to it and then integrates
// with its own field reads and writes, `run` steps in a loop

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Sys {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub f: Vec<f64>,
    pub k: f64,
    pub c: f64,
    pub dt: f64,
    pub t: f64,
    pub n: usize,
}

impl Sys {
    /// Cubic springs to the origin and linear springs to the neighbours.
    #[differentiate]
    pub fn forces(&mut self) {
        for i in 0..self.n {
            let left = if i > 0 { self.x[i - 1] } else { 0.0 };
            let right = if i + 1 < self.n { self.x[i + 1] } else { 0.0 };
            self.f[i] = -self.k * self.x[i].powi(3) + self.c * (left + right - 2.0 * self.x[i]);
        }
    }

    /// One symplectic Euler step: lends `self` to `forces`, then reads and writes its fields.
    #[differentiate]
    pub fn step(&mut self) {
        self.forces();
        for i in 0..self.n {
            self.v[i] += self.dt * self.f[i];
            self.x[i] += self.dt * self.v[i];
        }
        self.t += self.dt;
    }

    /// `steps` steps, each a lending call.
    #[differentiate]
    pub fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// A loop whose body lends the state and also writes its fields (damping, a drifting
    /// stiffness), and reads one (`self.t`) after the loop.
    #[differentiate]
    pub fn run_damped(&mut self, steps: usize, damping: f64) -> f64 {
        for _ in 0..steps {
            self.step();
            for i in 0..self.n {
                self.v[i] *= 1.0 - damping * self.dt;
            }
            self.k += 0.01 * self.x[0];
        }
        self.t * self.x[1]
    }

    /// Field reads in expressions before and after the lending call.
    #[differentiate]
    pub fn energy_change(&mut self) -> f64 {
        let before = self.x[0] * self.x[0] + self.k * self.v[1] + self.t;
        self.step();
        let after = self.x[0] * self.x[0] + self.k * self.v[1] + self.t;
        after - before.sin()
    }

    /// A kick of a given length: the argument is a field of the struct lent (`self.kick(self.dt)`).
    #[differentiate]
    pub fn kick(&mut self, h: f64) {
        for i in 0..self.n {
            self.v[i] += h * self.f[i];
        }
    }

    /// Kick–drift–kick with the kicks' lengths read from fields.
    #[differentiate]
    pub fn leapfrog(&mut self) {
        self.forces();
        self.kick(0.5 * self.dt);
        for i in 0..self.n {
            self.x[i] += self.dt * self.v[i];
        }
        self.forces();
        self.kick(self.dt * 0.5);
        self.t += self.dt;
    }
}

/// A free function lending the state to a method and reading its fields after.
#[differentiate]
fn simulate(s: &mut Sys, steps: usize, w: f64) -> f64 {
    let mut acc = 0.0;
    for _ in 0..steps {
        s.step();
        acc += w * s.x[0] * s.v[2];
    }
    s.k *= 1.0 + w;
    acc + s.t
}

const N: usize = 3;
/// Inputs: x, v, f (3 each), k, c, dt, t; then the scalar arguments.
const STATE: usize = 3 * N + 4;

fn sys(p: &[f64]) -> Sys {
    Sys {
        x: p[0..N].to_vec(),
        v: p[N..2 * N].to_vec(),
        f: p[2 * N..3 * N].to_vec(),
        k: p[3 * N],
        c: p[3 * N + 1],
        dt: 0.1 + 0.05 * p[3 * N + 2],
        t: p[3 * N + 3],
        n: N,
    }
}

fn tangent(p: &[f64]) -> SysTangent {
    SysTangent {
        x: p[0..N].to_vec(),
        v: p[N..2 * N].to_vec(),
        f: p[2 * N..3 * N].to_vec(),
        k: p[3 * N],
        c: p[3 * N + 1],
        dt: 0.05 * p[3 * N + 2],
        t: p[3 * N + 3],
        n: (),
    }
}

fn values(s: &Sys) -> Vec<f64> {
    let mut out = [&s.x[..], &s.v[..], &s.f[..]].concat();
    out.extend([s.k, s.c, s.dt, s.t]);
    out
}

fn flat(t: &SysTangent) -> Vec<f64> {
    let mut out = [&t.x[..], &t.v[..], &t.f[..]].concat();
    out.extend([t.k, t.c, t.dt, t.t]);
    out
}

/// The adjoint of the inputs `p` (state then arguments) given the adjoint of the state `b` (the
/// state's inputs are `x, v, f, k, c, t` as they are and `dt = 0.1 + 0.05 p`).
fn add_state(g: &mut [f64], b: &SysTangent) {
    let mut bf = flat(b);
    bf[3 * N + 2] *= 0.05;
    for (k, x) in bf.iter().enumerate() {
        g[k] += x;
    }
}

/// The seed of the state output as a tangent (the inverse of `values`' order).
fn seed(s: &[f64]) -> SysTangent {
    let mut t = tangent(s);
    t.dt = s[3 * N + 2];
    t
}

/// Both modes of a method stepping the state in place and giving a value, over the state's
/// inputs and `extra` scalar arguments: outputs are the final state then the value.
fn check_stepper(
    extra: usize,
    f: impl Fn(&mut Sys, &[f64]) -> f64,
    jvp: impl Fn(&mut Sys, &[f64], &mut SysTangent, &[f64]) -> (f64, f64),
    vjp: impl Fn(&mut Sys, &[f64], &mut SysTangent, &mut [f64], f64) -> f64,
    range: f64,
) {
    Harness::new(STATE + extra)
        .primal(|p| {
            let mut s = sys(p);
            let y = f(&mut s, &p[STATE..]);
            let mut out = values(&s);
            out.push(y);
            out
        })
        .jvp(|p, d| {
            let mut s = sys(p);
            let mut ds = tangent(d);
            let (y, dy) = jvp(&mut s, &p[STATE..], &mut ds, &d[STATE..]);
            let (mut out, mut dout) = (values(&s), flat(&ds));
            out.push(y);
            dout.push(dy);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut s = sys(p);
            let mut bs = seed(c);
            let mut bx = vec![0.0; extra];
            let y = vjp(&mut s, &p[STATE..], &mut bs, &mut bx, c[STATE]);
            add_state(g, &bs);
            for (k, b) in bx.iter().enumerate() {
                g[STATE + k] += b;
            }
            let mut out = values(&s);
            out.push(y);
            out
        })
        .random(3, -range, range);
}

#[test]
fn step_lends_the_state_and_integrates_its_fields() {
    check_stepper(
        0,
        |s, _| {
            s.step();
            0.0
        },
        |s, _, ds, _| {
            s.step_jvp(ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.step_vjp(bs);
            0.0
        },
        1.0,
    );
}

#[test]
fn run_steps_a_lending_method_in_a_loop() {
    check_stepper(
        0,
        |s, _| {
            s.run(12);
            0.0
        },
        |s, _, ds, _| {
            s.run_jvp(12, ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.run_vjp(12, bs);
            0.0
        },
        0.8,
    );
}

#[test]
fn a_loop_lends_the_state_and_writes_its_fields() {
    check_stepper(
        1,
        |s, a| s.run_damped(6, a[0]),
        |s, a, ds, da| s.run_damped_jvp(6, a[0], ds, da[0]),
        |s, a, bs, ba, y| s.run_damped_vjp(6, a[0], bs, &mut ba[0], y),
        0.8,
    );
}

#[test]
fn fields_read_before_and_after_the_lending_call() {
    check_stepper(
        0,
        |s, _| s.energy_change(),
        |s, _, ds, _| s.energy_change_jvp(ds),
        |s, _, bs, _, y| s.energy_change_vjp(bs, y),
        1.0,
    );
}

#[test]
fn arguments_of_the_lending_call_read_its_fields() {
    check_stepper(
        0,
        |s, _| {
            s.leapfrog();
            0.0
        },
        |s, _, ds, _| {
            s.leapfrog_jvp(ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.leapfrog_vjp(bs);
            0.0
        },
        1.0,
    );
}

#[test]
fn free_function_lends_and_reads_the_state() {
    check_stepper(
        1,
        |s, a| simulate(s, 5, a[0]),
        |s, a, ds, da| simulate_jvp(s, 5, a[0], ds, da[0]),
        |s, a, bs, ba, y| simulate_vjp(s, 5, a[0], bs, &mut ba[0], y),
        0.8,
    );
}
